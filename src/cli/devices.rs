//! `rosetta devices`: every device of every compiled-in API, and why an API
//! has none.

use super::out::Outcome;
use super::out::{Failure, Out};
use rosetta::{discover, Api, ApiStatus};
use serde_json::json;

pub fn run(out: &mut Out, json_output: bool) -> Result<Outcome, Failure> {
    let discovery = discover(&Api::ALL);
    if json_output {
        let apis: Vec<serde_json::Value> = discovery
            .apis
            .iter()
            .map(|entry| match &entry.status {
                ApiStatus::NotCompiled => json!({"api": entry.api, "status": "not-compiled"}),
                ApiStatus::Unavailable(reason) => {
                    json!({"api": entry.api, "status": "unavailable", "reason": reason})
                }
                ApiStatus::Devices(devices) => json!({
                    "api": entry.api,
                    "status": "available",
                    "devices": devices.iter().map(|d| d.info()).collect::<Vec<_>>(),
                }),
            })
            .collect();
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&json!({ "apis": apis })).unwrap_or_default()
        )?;
        return Ok(Outcome::Success);
    }
    for entry in &discovery.apis {
        match &entry.status {
            ApiStatus::NotCompiled => writeln!(
                out,
                "{:<10} not compiled in (build with --features {})",
                entry.api, entry.api
            )?,
            ApiStatus::Unavailable(reason) => {
                writeln!(out, "{:<10} unavailable: {reason}", entry.api)?
            }
            ApiStatus::Devices(devices) if devices.is_empty() => {
                writeln!(out, "{:<10} no devices", entry.api)?
            }
            ApiStatus::Devices(devices) => {
                for device in devices {
                    let info = device.info();
                    let caps = &info.caps;
                    writeln!(out, "{:<10} {}", info.id(), info.name)?;
                    writeln!(
                        out,
                        "{:<10} {:?}; shared {} KiB; groups of up to {} invocations; subgroups {}; timers {}; memory {}; {}",
                        "",
                        caps.device_type,
                        caps.max_shared_bytes / 1024,
                        caps.max_group_invocations,
                        caps.subgroup_sizes
                            .map(|[a, b]| if a == b { format!("{a}") } else { format!("{a}-{b}") })
                            .unwrap_or_else(|| "none".into()),
                        if caps.timestamps { "device" } else { "host" },
                        memory(caps.memory_bytes),
                        info.driver
                    )?;
                    if let Some(key) = info.physical.key() {
                        writeln!(out, "{:<10} physical device {key}", "")?;
                    }
                    if caps.device_fence || caps.async_copy {
                        let features: Vec<&str> = [
                            (
                                caps.device_fence,
                                "device-scope fence (one-launch reductions)",
                            ),
                            (caps.async_copy, "asynchronous copies to shared memory"),
                        ]
                        .iter()
                        .filter(|(has, _)| *has)
                        .map(|(_, what)| *what)
                        .collect();
                        writeln!(out, "{:<10} kernels have: {}", "", features.join(", "))?;
                    }
                    if let Some(limit) = caps.loop_limit {
                        writeln!(out, "{:<10} loops stop silently after {limit} iterations per invocation (plans stay under it)", "")?;
                    }
                }
            }
        }
    }
    Ok(Outcome::Success)
}

/// Device memory for humans; 0 means the API does not say.
fn memory(bytes: u64) -> String {
    if bytes == 0 {
        "unknown".into()
    } else {
        format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
    }
}
