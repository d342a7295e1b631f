//! Persistent caches on disk: compiled kernels (each backend's binaries:
//! Vulkan pipeline-cache data, CUDA cubins, OpenCL program binaries) and
//! autotuning choices.
//!
//! - **Where:** `$ROSETTA_CACHE_DIR` if set (`off` disables every cache),
//!   else `$XDG_CACHE_HOME/rosetta`, else `~/.cache/rosetta`. One folder per
//!   kind (`kernels/<api>/`, `tuning/`).
//! - **Keys** are [`Fingerprint`]s of everything the entry depends on (the
//!   API, the device and its driver version, the source, the constants, the
//!   compiler options); a change of any of them is a different file, so
//!   stale entries are never read.
//! - **Never trusted blindly:** each file carries a header, its key and a
//!   checksum of its payload; a file that does not check out is deleted and
//!   treated as missing (the caller rebuilds), never a crash.
//! - **Safe between processes:** entries are written to a temporary file in
//!   the same folder and renamed into place, so a reader sees a whole entry
//!   or none, and two writers of one key both write whole files.

use crate::kernel::Fingerprint;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

const MAGIC: &[u8; 16] = b"ROSETTA-CACHE-v1";

/// The root folder of the caches, or `None` when caching is off or no home
/// folder is known. `XDG_CACHE_HOME` and `HOME` count only when they are
/// absolute paths (the XDG rule for relative values: ignore them), so an
/// empty `HOME` never puts a cache in whatever folder a process started in;
/// `ROSETTA_CACHE_DIR`, set on purpose, may be relative.
pub fn root() -> Option<PathBuf> {
    let absolute = |var: &str| {
        std::env::var_os(var)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    match std::env::var_os("ROSETTA_CACHE_DIR") {
        Some(dir) if dir == "off" => None,
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => absolute("XDG_CACHE_HOME")
            .or_else(|| absolute("HOME").map(|home| home.join(".cache")))
            .map(|base| base.join("rosetta")),
    }
}

/// One kind of entry in one folder under [`root`].
#[derive(Debug, Clone)]
pub struct DiskCache {
    dir: Option<PathBuf>,
}

impl DiskCache {
    /// The cache in `root()/<kind>` (`kind` may hold `/`), off when the root
    /// is.
    pub fn new(kind: &str) -> Self {
        DiskCache {
            dir: root().map(|r| r.join(kind)),
        }
    }

    /// A cache in an explicit folder (tests).
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        DiskCache {
            dir: Some(dir.into()),
        }
    }

    /// Whether entries are read and written at all.
    pub fn enabled(&self) -> bool {
        self.dir.is_some()
    }

    fn path(&self, key: &Fingerprint) -> Option<PathBuf> {
        self.dir
            .as_ref()
            .map(|d| d.join(format!("{}.bin", key.hex())))
    }

    /// The payload stored under `key`, if a whole, intact entry exists. A
    /// damaged entry is removed. Only a regular file of at most
    /// [`MAX_ENTRY_BYTES`] is read: a device file, a FIFO or a directory
    /// at an entry's path is left alone and ignored (reading one could
    /// block or never end), a larger file removed as damaged.
    pub fn get(&self, key: &Fingerprint) -> Option<Vec<u8>> {
        let path = self.path(key)?;
        let data = match read_cache_file(&path) {
            Ok(data) => data?,
            // An empty folder (left by hand, or by a tool) is removed so the
            // entry can be written again; anything else is left alone.
            Err(Unread::NotRegular) if std::fs::remove_dir(&path).is_ok() => {
                tracing::warn!(path = %crate::shown_path(&path), "cache entry was an empty folder; removed, will rebuild");
                return None;
            }
            Err(Unread::NotRegular) => {
                tracing::warn!(path = %crate::shown_path(&path), "cache entry is not a regular file; ignored");
                return None;
            }
            Err(Unread::TooLarge(bytes)) => {
                tracing::warn!(path = %crate::shown_path(&path), bytes, "cache entry too large; removed, will rebuild");
                let _ = std::fs::remove_file(&path);
                return None;
            }
            Err(Unread::Io(_)) => return None,
        };
        match decode(&data, key) {
            Some(payload) => Some(payload.to_vec()),
            None => {
                tracing::warn!(path = %crate::shown_path(&path), "cache entry damaged; removed, will rebuild");
                let _ = std::fs::remove_file(&path);
                None
            }
        }
    }

    /// Store `payload` under `key` (atomically). Failures are logged and
    /// ignored: a cache that cannot be written only costs time.
    pub fn put(&self, key: &Fingerprint, payload: &[u8]) {
        let Some(path) = self.path(key) else { return };
        if let Err(e) = write_atomically(&path, &encode(key, payload)) {
            tracing::debug!(path = %crate::shown_path(&path), "cache entry not written: {e}");
        }
    }

    /// Remove every entry of this kind.
    pub fn clear(&self) -> std::io::Result<()> {
        match &self.dir {
            Some(dir) if dir.exists() => std::fs::remove_dir_all(dir),
            _ => Ok(()),
        }
    }
}

/// The largest entry [`DiskCache::get`] reads: far above any compiled
/// kernel or pipeline cache (the largest seen are a few hundred KiB).
pub const MAX_ENTRY_BYTES: u64 = 256 << 20;

fn encode(key: &Fingerprint, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 72);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(key.hex().as_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(Fingerprint::default().bytes(payload).hex().as_bytes());
    out.extend_from_slice(payload);
    out
}

fn decode<'a>(data: &'a [u8], key: &Fingerprint) -> Option<&'a [u8]> {
    let rest = data.strip_prefix(MAGIC)?;
    let rest = rest.strip_prefix(key.hex().as_bytes())?;
    let (len, rest) = rest.split_first_chunk::<8>()?;
    let (sum, payload) = rest.split_at_checked(32)?;
    let len = usize::try_from(u64::from_le_bytes(*len)).ok()?;
    (payload.len() == len && sum == Fingerprint::default().bytes(payload).hex().as_bytes())
        .then_some(payload)
}

/// Why [`read_cache_file`] read nothing from a path that holds something.
#[derive(Debug)]
pub enum Unread {
    /// A directory, FIFO, device, ...: reading one could block or never end.
    NotRegular,
    /// A regular file of this many bytes, over [`MAX_ENTRY_BYTES`].
    TooLarge(u64),
    /// The metadata or the bytes could not be read.
    Io(std::io::Error),
}

impl std::fmt::Display for Unread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unread::NotRegular => f.write_str("not a regular file"),
            Unread::TooLarge(bytes) => write!(f, "{bytes} bytes, over the cache's limit"),
            Unread::Io(e) => e.fmt(f),
        }
    }
}

/// The bytes of a cache file: `Ok(None)` where nothing is at `path`, and
/// only a regular file of at most [`MAX_ENTRY_BYTES`] is read (the rule
/// every cache keeps; the caller decides what to do with the rest).
///
/// The file is checked before it is opened (opening a FIFO would wait for a
/// writer), checked again through the open handle (the path may have been
/// replaced in between), and read through a limit: a file whose size
/// says nothing (`/proc` files read as size 0) is cut off past
/// [`MAX_ENTRY_BYTES`] and reported too large, never read to its end.
pub fn read_cache_file(path: &Path) -> Result<Option<Vec<u8>>, Unread> {
    read_at_most(path, MAX_ENTRY_BYTES)
}

/// [`read_cache_file`] with a limit of `max_bytes`.
fn read_at_most(path: &Path, max_bytes: u64) -> Result<Option<Vec<u8>>, Unread> {
    use std::io::Read;
    let regular = |meta: std::fs::Metadata| {
        if !meta.is_file() {
            Err(Unread::NotRegular)
        } else if meta.len() > max_bytes {
            Err(Unread::TooLarge(meta.len()))
        } else {
            Ok(meta.len())
        }
    };
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        other => regular(other.map_err(Unread::Io)?)?,
    };
    let file = match std::fs::File::open(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        other => other.map_err(Unread::Io)?,
    };
    let size = regular(file.metadata().map_err(Unread::Io)?)?;
    let mut data = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(max_bytes + 1)
        .read_to_end(&mut data)
        .map_err(Unread::Io)?;
    let read = data.len() as u64;
    if read > max_bytes {
        return Err(Unread::TooLarge(read));
    }
    Ok(Some(data))
}

/// Write `bytes` to a temporary file next to `path`, then rename it over
/// `path`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("entry");
    let temp = dir.join(format!(
        ".{name}.tmp-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("rosetta-cache-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn entries_round_trip_and_damage_is_detected() {
        let dir = temp_dir("roundtrip");
        let cache = DiskCache::at(&dir);
        let key = Fingerprint::default().str("k");
        assert_eq!(cache.get(&key), None);
        cache.put(&key, b"payload");
        assert_eq!(cache.get(&key).as_deref(), Some(&b"payload"[..]));
        // Another key never reads this entry.
        assert_eq!(cache.get(&Fingerprint::default().str("other")), None);
        // Flip a payload byte: detected, removed, reported missing.
        let path = cache.path(&key).unwrap();
        let mut data = std::fs::read(&path).unwrap();
        let last = data.len() - 1;
        data[last] ^= 1;
        std::fs::write(&path, &data).unwrap();
        assert_eq!(cache.get(&key), None);
        assert!(!path.exists());
        // Truncated and garbage files, too.
        cache.put(&key, b"payload");
        let data = std::fs::read(&path).unwrap();
        std::fs::write(&path, &data[..data.len() / 2]).unwrap();
        assert_eq!(cache.get(&key), None);
        std::fs::write(&path, b"garbage").unwrap();
        assert_eq!(cache.get(&key), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Only regular files are read, and only up to MAX_ENTRY_BYTES: a FIFO
    /// (whose read would block), a directory or a symlink to a device at an
    /// entry's path is ignored; an oversized file is removed unread.
    #[test]
    fn entries_that_are_not_small_regular_files_are_not_read() {
        let dir = temp_dir("odd");
        let cache = DiskCache::at(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let key = Fingerprint::default().str("k");
        let path = cache.path(&key).unwrap();
        assert!(matches!(read_cache_file(&path), Ok(None)));
        std::fs::create_dir(&path).unwrap();
        assert!(matches!(read_cache_file(&path), Err(Unread::NotRegular)));
        // An empty folder is removed (it was warned about on every run,
        // forever: no rename can replace it); one with files is left.
        std::fs::write(dir.join("keep"), b"").unwrap();
        std::fs::rename(dir.join("keep"), path.join("keep")).unwrap();
        assert_eq!(cache.get(&key), None);
        assert!(path.join("keep").exists());
        std::fs::remove_file(path.join("keep")).unwrap();
        assert_eq!(cache.get(&key), None);
        assert!(!path.exists());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
            assert!(matches!(read_cache_file(&path), Err(Unread::NotRegular)));
            assert_eq!(cache.get(&key), None, "a device is not read");
            std::fs::remove_file(&path).unwrap();
            let made = std::process::Command::new("mkfifo").arg(&path).status();
            if made.is_ok_and(|s| s.success()) {
                assert_eq!(cache.get(&key), None, "a FIFO is not opened");
                std::fs::remove_file(&path).unwrap();
            }
        }
        // A sparse file past the limit: removed without being read.
        let big = std::fs::File::create(&path).unwrap();
        big.set_len(MAX_ENTRY_BYTES + 1).unwrap();
        drop(big);
        let unread = read_cache_file(&path).unwrap_err();
        assert!(matches!(unread, Unread::TooLarge(b) if b == MAX_ENTRY_BYTES + 1));
        assert!(
            unread.to_string().contains("over the cache's limit"),
            "{unread}"
        );
        assert_eq!(cache.get(&key), None);
        assert!(!path.exists());
        // The entry works again afterwards.
        cache.put(&key, b"payload");
        assert_eq!(cache.get(&key).as_deref(), Some(&b"payload"[..]));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A file whose size says nothing (`/proc` files read as 0 bytes; a link
    /// to `/proc/self/pagemap` read gigabytes) is read only to the limit.
    #[cfg(target_os = "linux")]
    #[test]
    fn files_that_hide_their_size_are_read_only_to_the_limit() {
        let proc_file = Path::new("/proc/self/maps");
        assert_eq!(std::fs::metadata(proc_file).unwrap().len(), 0);
        assert!(matches!(
            read_at_most(proc_file, 64),
            Err(Unread::TooLarge(65))
        ));
        let whole = read_at_most(proc_file, 1 << 20).unwrap().unwrap();
        assert!(whole.len() > 64);
    }

    /// A relative or empty `XDG_CACHE_HOME` or `HOME` is no base: an empty
    /// `HOME` put the cache under the current folder. (Run in a child
    /// process: the environment is the process's.)
    #[test]
    fn relative_bases_are_ignored() {
        if let Some(expected) = std::env::var_os("ROSETTA_ROOT_EXPECTED") {
            let root = root().map(|r| r.into_os_string()).unwrap_or_default();
            assert_eq!(root, expected);
            return;
        }
        let me = std::env::current_exe().unwrap();
        for (xdg, home, expected) in [
            ("", "", ""),
            ("relative", "", ""),
            ("", "also/relative", ""),
            ("relative", "/home/u", "/home/u/.cache/rosetta"),
            ("/x/cache", "/home/u", "/x/cache/rosetta"),
        ] {
            let status = std::process::Command::new(&me)
                .args(["--exact", "disk_cache::tests::relative_bases_are_ignored"])
                .env_remove("ROSETTA_CACHE_DIR")
                .env("XDG_CACHE_HOME", xdg)
                .env("HOME", home)
                .env("ROSETTA_ROOT_EXPECTED", expected)
                .stdout(std::process::Stdio::null())
                .status()
                .unwrap();
            assert!(status.success(), "XDG_CACHE_HOME={xdg:?} HOME={home:?}");
        }
    }

    #[test]
    fn concurrent_writers_leave_a_whole_entry() {
        let dir = temp_dir("concurrent");
        let key = Fingerprint::default().str("shared");
        std::thread::scope(|s| {
            for t in 0..8u8 {
                let dir = dir.clone();
                s.spawn(move || {
                    let cache = DiskCache::at(dir);
                    for _ in 0..20 {
                        cache.put(&key, &vec![t; 100_000]);
                        if let Some(p) = cache.get(&key) {
                            assert!(p.len() == 100_000 && p.iter().all(|&b| b == p[0]));
                        }
                    }
                });
            }
        });
        let leftovers = std::fs::read_dir(&dir).unwrap().count();
        assert_eq!(leftovers, 1, "temporary files left behind");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
