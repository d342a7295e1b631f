//! The tuning cache: which variant of a plan was fastest, per device, driver
//! version and shape class, measured once by `rosetta tune` and used by plans
//! from then on (their heuristic is the fallback when nothing is cached).
//!
//! One JSON file per device under the disk-cache root (`tuning/`), updated
//! under an exclusive file lock and written by rename, so two processes that
//! tune at once neither corrupt it nor lose each other's entries. A file that
//! does not parse is ignored (and replaced on the next store).

use rosetta_core::disk_cache::{root, write_atomically};
use rosetta_core::{DeviceInfo, Fingerprint};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::File;
use std::path::PathBuf;

/// One stored choice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TuningChoice {
    /// The variant's name, as the plan spells it.
    pub variant: String,
    /// Its median time when measured, in seconds.
    pub median_s: f64,
    /// Every variant measured, with its median (seconds).
    #[serde(default)]
    pub measured: BTreeMap<String, f64>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct TuningFile {
    device: String,
    driver_version: String,
    choices: BTreeMap<String, TuningChoice>,
}

/// The tuning cache of one device.
#[derive(Debug, Clone)]
pub struct TuningCache {
    path: Option<PathBuf>,
}

impl TuningCache {
    /// The cache of `device` (keyed by its API, name and driver version, so
    /// identical GPUs share it), off
    /// when the disk-cache root is.
    pub fn for_device(device: &DeviceInfo) -> Self {
        let key = Fingerprint::default()
            .str(device.api.name())
            .str(&device.name)
            .str(&device.driver)
            .str(&device.driver_version);
        TuningCache {
            path: root().map(|r| {
                r.join("tuning")
                    .join(format!("{}-{}.json", device.api, key.hex()))
            }),
        }
    }

    /// The stored file; empty when there is none, or when the path holds
    /// anything but a regular file of at most `MAX_ENTRY_BYTES` (a FIFO
    /// would block the read, a device never end it) or no valid JSON.
    fn load(&self) -> TuningFile {
        self.path
            .as_ref()
            .filter(|p| {
                std::fs::metadata(p).is_ok_and(|m| {
                    m.is_file() && m.len() <= rosetta_core::disk_cache::MAX_ENTRY_BYTES
                })
            })
            .and_then(|p| std::fs::read(p).ok())
            .and_then(|data| serde_json::from_slice(&data).ok())
            .unwrap_or_default()
    }

    /// The stored choice for `op`'s shape `class`, if any.
    pub fn lookup(&self, op: &str, class: &str) -> Option<TuningChoice> {
        self.path.as_ref()?;
        self.load().choices.get(&format!("{op}/{class}")).cloned()
    }

    /// Store a choice (under an exclusive lock). An error when the cache is
    /// off or cannot be written: storing is what the tuner is for.
    pub fn store(
        &self,
        device: &DeviceInfo,
        op: &str,
        class: &str,
        choice: TuningChoice,
    ) -> std::io::Result<()> {
        let Some(path) = &self.path else {
            return Err(std::io::Error::other("the tuning cache is off"));
        };
        (|| -> std::io::Result<()> {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let lock = File::create(path.with_extension("lock"))?;
            lock.lock()?;
            let mut file = self.load();
            file.device = format!("{} {}", device.id(), device.name);
            file.driver_version = device.driver_version.clone();
            file.choices.insert(format!("{op}/{class}"), choice);
            let json = serde_json::to_vec_pretty(&file).map_err(std::io::Error::other)?;
            write_atomically(path, &json)
        })()
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
    }

    /// Every stored choice, `op/class` → choice.
    pub fn entries(&self) -> BTreeMap<String, TuningChoice> {
        self.load().choices
    }

    /// Where the cache lives.
    pub fn path(&self) -> Option<&PathBuf> {
        self.path.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::geometry::test_device;
    use rosetta_core::{Api, Capabilities};

    fn cache_in(dir: &std::path::Path) -> TuningCache {
        TuningCache {
            path: Some(dir.join("tuning").join("device.json")),
        }
    }

    fn choice(variant: &str) -> TuningChoice {
        TuningChoice {
            variant: variant.to_string(),
            median_s: 1e-3,
            measured: BTreeMap::from([(variant.to_string(), 1e-3)]),
        }
    }

    /// Stores from many writers at once (each opens the lock itself, as
    /// another process would) keep every entry: the load, insert and
    /// rename happen under the lock, so no writer's file drops another's.
    #[test]
    fn writers_at_once_lose_no_entry() {
        let dir = std::env::temp_dir().join(format!("rosetta-tuning-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let device = test_device(Api::Cpu, Capabilities::software_device());
        std::thread::scope(|scope| {
            for writer in 0..8 {
                let (cache, device) = (cache_in(&dir), &device);
                scope.spawn(move || {
                    for entry in 0..25 {
                        cache
                            .store(device, "op", &format!("w{writer} e{entry}"), choice("v"))
                            .unwrap();
                    }
                });
            }
        });
        let entries = cache_in(&dir).entries();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(entries.len(), 8 * 25);
    }

    /// A file that does not parse is no choice, and the next store replaces it.
    #[test]
    fn a_damaged_file_is_ignored_then_replaced() {
        let dir = std::env::temp_dir().join(format!("rosetta-tuning-bad-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = cache_in(&dir);
        let path = cache.path().unwrap().clone();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, b"{\"choices\": {\"op/c\": {\"variant\": ").unwrap();
        assert_eq!(cache.lookup("op", "c"), None);
        let device = test_device(Api::Cpu, Capabilities::software_device());
        cache.store(&device, "op", "c", choice("v2")).unwrap();
        let found = cache.lookup("op", "c").map(|c| c.variant);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(found.as_deref(), Some("v2"));
    }
}
