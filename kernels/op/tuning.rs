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
use std::path::{Path, PathBuf};

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
    /// would block the read, a device never end it) or no valid JSON. Such
    /// a damaged file is warned about once per process; the next store
    /// replaces it.
    fn load(&self) -> TuningFile {
        let Some(path) = &self.path else {
            return TuningFile::default();
        };
        use rosetta_core::disk_cache::{read_cache_file, Unread};
        let (why, until) = match read_cache_file(path) {
            Ok(None) => return TuningFile::default(),
            Ok(Some(data)) => match serde_json::from_slice(&data) {
                Ok(file) => return file,
                Err(e) => (format!("not a tuning file: {e}"), REWRITE),
            },
            // A path that cannot be read at all (the cache folder is a
            // file, say), or a folder or device in the file's place,
            // cannot be written either: tuning will not mend it.
            Err(Unread::Io(e)) => (e.to_string(), MEND),
            Err(Unread::NotRegular) => (Unread::NotRegular.to_string(), MEND),
            Err(unread @ Unread::TooLarge(_)) => (unread.to_string(), REWRITE),
        };
        warn_once(&path.to_string_lossy(), || {
            format!(
                "tuning cache {} ignored ({why}): the default choices run {until}",
                rosetta_core::shown_path(path)
            )
        });
        TuningFile::default()
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
        let (path, lock) = self.open_lock()?;
        lock.lock().map_err(naming(&path.with_extension("lock")))?;
        let mut file = stored_for_update(path)?;
        file.device = format!("{} {}", device.id(), device.name);
        file.driver_version = device.driver_version.clone();
        file.choices.insert(format!("{op}/{class}"), choice);
        let json = serde_json::to_vec_pretty(&file).map_err(std::io::Error::other);
        json.and_then(|json| write_atomically(path, &json))
            .map_err(naming(path))
    }

    /// Whether a choice could be stored: the cache is on, its folder can be
    /// made, its lock opened and a file written beside it. The tuner asks
    /// before it measures anything, so an unwritable cache costs no work.
    pub fn check_writable(&self) -> std::io::Result<()> {
        let (path, _lock) = self.open_lock()?;
        stored_for_update(path)?;
        let dir = path
            .parent()
            .ok_or_else(|| std::io::Error::other("the tuning cache has no folder"))?;
        let probe = dir.join(format!(".write-probe-{}", std::process::id()));
        std::fs::write(&probe, b"").map_err(naming(dir))?;
        std::fs::remove_file(&probe).map_err(naming(&probe))
    }

    /// The choices' path, with its folder made and its lock file open (not
    /// yet locked): what storing needs first, and what
    /// [`TuningCache::check_writable`] checks.
    fn open_lock(&self) -> std::io::Result<(&Path, File)> {
        let Some(path) = &self.path else {
            return Err(std::io::Error::other("the tuning cache is off"));
        };
        if let Some(dir) = path.parent() {
            if dir.exists() && !dir.is_dir() {
                return Err(naming(dir)(std::io::Error::new(
                    std::io::ErrorKind::NotADirectory,
                    "not a folder (the tuning cache's folder)",
                )));
            }
            std::fs::create_dir_all(dir).map_err(naming(dir))?;
        }
        let lock_path = path.with_extension("lock");
        let lock = open_lock_file(&lock_path).map_err(naming(&lock_path))?;
        Ok((path, lock))
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

/// A plan with the choice stored for `op`'s shape `class` on `device`
/// (read by `from_name`) where there is one and it plans this shape, else
/// with `default()`; and whether the stored choice ran. A choice is
/// measured for a shape class, and not every shape of a class takes it (a
/// split-k product's partial sums over a device's buffer limit, a variant
/// the device lacks in a hand-edited file): `plan` refuses such a choice,
/// which is then passed over (logged at debug level), never an error the
/// default would not give.
pub fn plan_tuned<V: Copy + std::fmt::Debug, P>(
    device: &DeviceInfo,
    op: &str,
    class: &str,
    from_name: impl Fn(&str) -> Option<V>,
    default: impl FnOnce() -> rosetta_core::Result<V>,
    plan: impl Fn(V) -> rosetta_core::Result<P>,
) -> rosetta_core::Result<(P, bool)> {
    plan_from(
        &TuningCache::for_device(device),
        op,
        class,
        from_name,
        default,
        plan,
    )
}

/// [`plan_tuned`] with the choices of `cache`. A stored name that is no
/// variant of the op (a hand-edited file, or one from another version) is
/// warned about once per process, as a damaged file is, and the default
/// runs.
fn plan_from<V: Copy + std::fmt::Debug, P>(
    cache: &TuningCache,
    op: &str,
    class: &str,
    from_name: impl Fn(&str) -> Option<V>,
    default: impl FnOnce() -> rosetta_core::Result<V>,
    plan: impl Fn(V) -> rosetta_core::Result<P>,
) -> rosetta_core::Result<(P, bool)> {
    let stored = cache.lookup(op, class).and_then(|choice| {
        let variant = from_name(&choice.variant);
        if let (None, Some(path)) = (variant, cache.path()) {
            warn_once(&unknown_key(path, op, class, &choice.variant), || {
                format!(
                    "tuning cache {}: the choice for {op} {class} names no variant \
                     '{}' of {op}: the default runs {REWRITE}",
                    rosetta_core::shown_path(path),
                    rosetta_core::escape_controls(&choice.variant)
                )
            });
        }
        variant
    });
    if let Some(variant) = stored {
        match plan(variant) {
            Ok(planned) => return Ok((planned, true)),
            Err(e) => tracing::debug!(
                op,
                ?variant,
                "the tuned choice does not plan this shape ({e}); the default runs"
            ),
        }
    }
    plan(default()?).map(|planned| (planned, false))
}

/// Open (or create) the lock file beside a device's choices. Only a
/// regular file is opened: opening a FIFO for writing blocks until a reader
/// comes, which none ever does, and a directory cannot be locked.
fn open_lock_file(path: &Path) -> std::io::Result<File> {
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => Err(std::io::Error::other(
            "the tuning cache's lock is not a regular file",
        )),
        _ => File::create(path),
    }
}

/// How a tuning file that is ignored is mended: by the tuner, which
/// replaces a file that holds no choices it can read ...
const REWRITE: &str = "until `rosetta tune` rewrites it";
/// ... or by hand, where the path cannot be read at all or holds no file.
const MEND: &str = "until the cache's path is mended";

/// The stored choices a store adds to: none where there is no file or a
/// damaged one (which the store replaces), and an error, naming the path,
/// where the file cannot be read (replacing it would drop choices that a
/// mended path would give back) or is not a regular file (no rename can
/// replace a folder).
fn stored_for_update(path: &Path) -> std::io::Result<TuningFile> {
    use rosetta_core::disk_cache::{read_cache_file, Unread};
    match read_cache_file(path) {
        Ok(None) | Err(Unread::TooLarge(_)) => Ok(TuningFile::default()),
        Ok(Some(data)) => Ok(serde_json::from_slice(&data).unwrap_or_default()),
        Err(Unread::NotRegular) => Err(naming(path)(std::io::Error::other(
            "not a regular file: remove it, and the tuner writes a new one",
        ))),
        Err(Unread::Io(e)) => Err(naming(path)(e)),
    }
}

/// Log `message` as a warning once per `key` and process (plans look
/// their choice up each time they are made); whether it was logged now.
fn warn_once(key: &str, message: impl FnOnce() -> String) -> bool {
    let mut warned = WARNED.lock().unwrap_or_else(|e| e.into_inner());
    if warned.iter().any(|k| k == key) {
        return false;
    }
    warned.push(key.to_string());
    tracing::warn!("{}", message());
    true
}

/// The keys [`warn_once`] has warned about.
static WARNED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// [`warn_once`]'s key for a stored name that is no variant.
fn unknown_key(path: &Path, op: &str, class: &str, name: &str) -> String {
    format!("{}\0{op}/{class}\0{name}", path.to_string_lossy())
}

/// An error's message prefixed with the path it is about.
fn naming(path: &Path) -> impl Fn(std::io::Error) -> std::io::Error + '_ {
    move |e| std::io::Error::new(e.kind(), format!("{}: {e}", rosetta_core::shown_path(path)))
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

    /// A lock path that is not a regular file is an error naming it: a
    /// FIFO there made the store block forever in the open (for writing,
    /// waiting for a reader), and a directory was reported under the
    /// choices' path.
    #[cfg(unix)]
    #[test]
    fn a_lock_that_is_not_a_file_is_an_error_not_a_hang() {
        let dir = std::env::temp_dir().join(format!("rosetta-tuning-lock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = cache_in(&dir);
        let lock = cache.path().unwrap().with_extension("lock");
        std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
        let device = test_device(Api::Cpu, Capabilities::software_device());

        let made = std::process::Command::new("mkfifo").arg(&lock).status();
        if made.is_ok_and(|s| s.success()) {
            let (sent, received) = std::sync::mpsc::channel();
            let (store, device2) = (cache.clone(), device.clone());
            std::thread::spawn(move || {
                let _ = sent.send(store.store(&device2, "op", "c", choice("v")));
            });
            let result = received.recv_timeout(std::time::Duration::from_secs(10));
            if result.is_err() {
                // Let the blocked open through before failing.
                let _ = std::fs::File::open(&lock);
            }
            let error = result.expect("the store blocked on a FIFO").unwrap_err();
            assert!(error.to_string().contains(".lock"), "{error}");
            std::fs::remove_file(&lock).unwrap();
        }

        std::fs::create_dir(&lock).unwrap();
        let error = cache.store(&device, "op", "c", choice("v")).unwrap_err();
        assert!(error.to_string().contains(".lock"), "{error}");
        std::fs::remove_dir(&lock).unwrap();

        // A regular lock (or none) works again.
        cache.store(&device, "op", "c", choice("v")).unwrap();
        let found = cache.lookup("op", "c").map(|c| c.variant);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(found.as_deref(), Some("v"));
    }

    /// A store never replaces choices it could not read: where the file
    /// cannot be read (a loop of links here; a file without read
    /// permission for a user) or is a folder, the store and the tuner's
    /// check before measuring are errors naming the path, and the path is
    /// left as it was. (The store read such a file as empty and renamed its
    /// one new choice over it; a folder failed only after the measuring.)
    /// A tuning folder that is a file is named as such.
    #[cfg(unix)]
    #[test]
    fn unreadable_choices_are_never_replaced() {
        let dir = std::env::temp_dir().join(format!("rosetta-tuning-keep-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = cache_in(&dir);
        let path = cache.path().unwrap().clone();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let device = test_device(Api::Cpu, Capabilities::software_device());

        let looped = path.with_extension("loop");
        std::os::unix::fs::symlink(&looped, &path).unwrap();
        std::os::unix::fs::symlink(&path, &looped).unwrap();
        for error in [
            cache.check_writable().unwrap_err(),
            cache.store(&device, "op", "c", choice("v")).unwrap_err(),
        ] {
            assert!(error.to_string().contains("device.json"), "{error}");
        }
        assert!(std::fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_symlink());
        std::fs::remove_file(&path).unwrap();
        std::fs::remove_file(&looped).unwrap();

        std::fs::create_dir(&path).unwrap();
        for error in [
            cache.check_writable().unwrap_err(),
            cache.store(&device, "op", "c", choice("v")).unwrap_err(),
        ] {
            let text = error.to_string();
            assert!(text.contains("device.json: not a regular file"), "{text}");
        }
        assert!(path.is_dir());
        std::fs::remove_dir(&path).unwrap();
        cache.store(&device, "op", "c", choice("v")).unwrap();

        std::fs::remove_dir_all(&dir).unwrap();
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("tuning"), b"a file").unwrap();
        let text = cache.check_writable().unwrap_err().to_string();
        assert!(text.contains("tuning: not a folder"), "{text}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A stored name that is no variant is passed over for the default,
    /// with one warning (not one per plan).
    #[test]
    fn an_unknown_variant_is_warned_about_once() {
        let dir = std::env::temp_dir().join(format!("rosetta-tuning-name-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = cache_in(&dir);
        let device = test_device(Api::Cpu, Capabilities::software_device());
        cache.store(&device, "op", "c", choice("nonsense")).unwrap();
        let path = cache.path().unwrap().clone();
        let key = unknown_key(&path, "op", "c", "nonsense");
        let from_name = |name: &str| (name == "real").then_some(7u32);
        for _ in 0..3 {
            let planned = plan_from(&cache, "op", "c", from_name, || Ok(1u32), Ok).unwrap();
            assert_eq!(planned, (1, false));
        }
        std::fs::remove_dir_all(&dir).unwrap();
        // Warned by the first plan: a second warning of the key is refused.
        assert!(WARNED.lock().unwrap().contains(&key));
        assert!(!warn_once(&key, || unreachable!()));
        // A real name is no warning and runs.
        let other = cache_in(&dir);
        other.store(&device, "op", "c", choice("real")).unwrap();
        let planned = plan_from(&other, "op", "c", from_name, || Ok(1u32), Ok).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(planned, (7, true));
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
