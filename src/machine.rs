//! The identity of the machine a run happened on, carried by every JSON
//! result so results from several machines can be merged into one report.

use serde::{Deserialize, Serialize};

/// Where a run happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Machine {
    /// Host name (`/etc/hostname` or `$HOSTNAME`), `unknown` if neither.
    pub host: String,
    /// Operating system and version (`PRETTY_NAME` of `/etc/os-release`).
    pub os: String,
    /// CPU model.
    pub cpu: String,
    /// The rosetta version that produced the results.
    pub rosetta: String,
}

impl Machine {
    /// This machine.
    pub fn this() -> Self {
        let read = |path: &str| std::fs::read_to_string(path).ok();
        let host = read("/etc/hostname")
            .map(|h| h.trim().to_string())
            .filter(|h| !h.is_empty())
            .or_else(|| std::env::var("HOSTNAME").ok())
            .unwrap_or_else(|| "unknown".into());
        let os = read("/etc/os-release")
            .and_then(|text| {
                text.lines()
                    .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                    .map(|v| v.trim_matches('"').to_string())
            })
            .unwrap_or_else(|| std::env::consts::OS.to_string());
        let cpu = read("/proc/cpuinfo")
            .and_then(|text| {
                text.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split(':').nth(1))
                    .map(|s| s.trim().to_string())
            })
            .unwrap_or_else(|| std::env::consts::ARCH.to_string());
        Machine {
            host,
            os,
            cpu,
            rosetta: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}
