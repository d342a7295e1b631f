//! Files the framework writes (`.npy` results, JSON, HTML), written so that
//! nothing is lost: the data go to a temporary file next to the target
//! (`.NAME.tmp-<pid>-<n>`), which is flushed, synced and then renamed over the
//! target. A failure at any step removes the temporary file and leaves an
//! existing target as it was.
//!
//! Every error names the path it is about (`<path>: <reason>`) and is an
//! [`Error::Io`], which is not a usage error: the CLI exits 1.
//!
//! What is not a regular file is written in place, never replaced: a device
//! (`/dev/null`), a pipe, and this process's own streams. `/dev/stdout`,
//! `/dev/stderr`, `/dev/fd/N` and `/proc/self/fd/N` for N = 1 or 2 are
//! written through the process's stdout or stderr, whatever they hold, so
//! that `{ echo a; rosetta run ... -o /dev/stdout; echo b; } > f` keeps all
//! three, as a shell's own redirection would. (Following the link to the file
//! behind it and renaming over that file would drop what the shell writes
//! before and after.) Another descriptor that holds a regular file is
//! refused: only the process that opened it can write through it.
//!
//! [`check_file`] and [`check_dir`] ask, before any long work, whether a file
//! or a folder of files could be written there.

use crate::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Write `bytes` to `path`, replacing it only once they are all on disk.
pub fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    write_with(path, |w| w.write_all(bytes))
}

/// Write what `fill` writes to `path`, replacing it only once all of it is on
/// disk. `fill` gets a buffered writer; an error from it (or from flushing,
/// syncing, renaming) removes the temporary file and is returned with the path.
pub fn write_with(path: &Path, fill: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<()> {
    let target = match destination(path)? {
        Destination::Stream(stream) => return write_stream(path, stream, fill),
        Destination::InPlace => return write_in_place(path, fill),
        Destination::File(target) => target,
    };
    let (temp_path, file) = create_temp(&target).map_err(|e| error(path, "cannot write", &e))?;
    // Removed on every early return below.
    let mut temp = Temp {
        path: temp_path,
        renamed: false,
    };
    let written = (|| {
        let mut writer = BufWriter::new(file);
        fill(&mut writer)?;
        let file = writer
            .into_inner()
            .map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        Ok(file)
    })();
    let file = written.map_err(|e: io::Error| error(path, "write failed", &e))?;
    keep_permissions(&target, &file);
    drop(file);
    std::fs::rename(&temp.path, &target).map_err(|e| error(path, "cannot replace", &e))?;
    temp.renamed = true;
    sync_dir(&target);
    tracing::debug!(path = %rosetta_core::shown_path(path), "wrote");
    Ok(())
}

/// Check, before any work, that a file can be written at `path`: its folder
/// exists and takes a new file (probed with a temporary file, removed at
/// once), and `path` is not a folder. An existing device or pipe is not
/// checked (opening a pipe would wait for its reader).
pub fn check_file(path: &Path) -> Result<()> {
    let target = match destination(path)? {
        Destination::Stream(_) | Destination::InPlace => return Ok(()),
        Destination::File(target) => target,
    };
    if target.is_dir() {
        return Err(error(
            path,
            "cannot write",
            &io::Error::new(io::ErrorKind::IsADirectory, "is a folder"),
        ));
    }
    let dir = parent(&target);
    if !dir.is_dir() {
        let why = if dir.exists() {
            format!("{} is not a folder", rosetta_core::shown_path(dir))
        } else {
            format!("folder {} does not exist", rosetta_core::shown_path(dir))
        };
        return Err(error(
            path,
            "cannot write",
            &io::Error::new(io::ErrorKind::NotFound, why),
        ));
    }
    probe(path, &target)
}

/// Check, before any work, that files can be written into the folder `dir`:
/// it is a writable folder, or it does not exist and its nearest existing
/// ancestor is a writable folder (so that it can be created).
pub fn check_dir(dir: &Path) -> Result<()> {
    let mut existing = dir;
    while !existing.exists() {
        match existing.parent() {
            Some(p) if !p.as_os_str().is_empty() => existing = p,
            _ => {
                existing = Path::new(".");
                break;
            }
        }
    }
    if !existing.is_dir() {
        let (what, why) = if existing == dir {
            ("cannot write", "not a folder".to_string())
        } else {
            (
                "cannot create the folder",
                format!("{} is not a folder", rosetta_core::shown_path(existing)),
            )
        };
        return Err(error(
            dir,
            what,
            &io::Error::new(io::ErrorKind::NotADirectory, why),
        ));
    }
    probe(dir, &existing.join("probe"))
}

/// How a path is written.
enum Destination {
    /// This process's stdout or stderr (see the module's documentation).
    Stream(Stream),
    /// An existing file that is not a regular file or a folder (a device
    /// such as `/dev/null`, a pipe): opened and written, never replaced.
    InPlace,
    /// A regular file (which may not exist yet), at the end of any links:
    /// written to a temporary file renamed over it.
    File(PathBuf),
}

#[derive(Clone, Copy)]
enum Stream {
    Stdout,
    Stderr,
}

fn destination(path: &Path) -> Result<Destination> {
    if let Some((own, number)) = descriptor(path) {
        match (own, number) {
            (true, 1) => return Ok(Destination::Stream(Stream::Stdout)),
            (true, 2) => return Ok(Destination::Stream(Stream::Stderr)),
            _ if is_special(path) => return Ok(Destination::InPlace),
            (own, _) => {
                let whose = if own { "this" } else { "another" };
                // A closed descriptor has no entry to follow (the link
                // chain ends in `/proc/PID/fd/N`, which is then missing).
                if std::fs::metadata(path).is_err_and(|e| e.kind() == io::ErrorKind::NotFound) {
                    return Err(error(
                        path,
                        "cannot write",
                        &io::Error::new(
                            io::ErrorKind::NotFound,
                            format!("descriptor {number} of {whose} process is not open"),
                        ),
                    ));
                }
                return Err(error(
                    path,
                    "cannot write",
                    &io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!(
                            "descriptor {number} of {whose} process holds a file, which only \
                             that descriptor can write without losing what its process writes \
                             around it: name the file itself, or use /dev/stdout"
                        ),
                    ),
                ));
            }
        }
    }
    if is_special(path) {
        return Ok(Destination::InPlace);
    }
    if names_a_folder(path) && !path.is_dir() {
        return Err(error(
            path,
            "cannot write",
            &io::Error::new(
                io::ErrorKind::NotADirectory,
                "the name ends in a separator, which names a folder, not a file",
            ),
        ));
    }
    resolve(path).map(Destination::File)
}

/// An existing file that is not a regular file or a folder (a device such as
/// `/dev/null`, a pipe).
fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Where `path`, or a symbolic link on the way from it to its file, is an
/// open descriptor as Linux lists them (`/dev/stdout` → `/proc/self/fd/1`,
/// `/dev/fd/N`, `/proc/PID/fd/N`, `/proc/PID/task/TID/fd/N`): whether it is
/// this process's, and its number.
fn descriptor(path: &Path) -> Option<(bool, u32)> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        if let Some(found) = descriptor_entry(&current) {
            return Some(found);
        }
        current = follow(&current)?.ok()?;
    }
    None
}

/// Whether `path` is an entry of a descriptor folder (`/proc/PID/fd` or
/// `/proc/PID/task/TID/fd`, after its folder's links are followed).
fn descriptor_entry(path: &Path) -> Option<(bool, u32)> {
    let number: u32 = path.file_name()?.to_str()?.parse().ok()?;
    let folder = std::fs::canonicalize(parent(path)).ok()?;
    let parts: Vec<&str> = folder.iter().filter_map(|p| p.to_str()).collect();
    let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let pid = match parts.as_slice() {
        ["/", "proc", pid, "fd"] | ["/", "proc", pid, "task", _, "fd"] if numeric(pid) => *pid,
        _ => return None,
    };
    Some((pid == std::process::id().to_string(), number))
}

/// Whether the path's text ends in a separator (`out.npy/`): a folder's
/// name, which no file can take.
fn names_a_folder(path: &Path) -> bool {
    path.as_os_str()
        .as_encoded_bytes()
        .last()
        .is_some_and(|&b| std::path::is_separator(char::from(b)))
}

fn write_stream(
    path: &Path,
    stream: Stream,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    let written = match stream {
        Stream::Stdout => {
            let mut out = io::stdout().lock();
            fill(&mut out).and_then(|()| out.flush())
        }
        Stream::Stderr => {
            let mut out = io::stderr().lock();
            fill(&mut out).and_then(|()| out.flush())
        }
    };
    written.map_err(|e| error(path, "write failed", &e))
}

fn write_in_place(path: &Path, fill: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<()> {
    let file = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| error(path, "cannot write", &e))?;
    let mut writer = BufWriter::new(file);
    fill(&mut writer)
        .and_then(|()| writer.flush())
        .map_err(|e| error(path, "write failed", &e))
}

/// Create and remove a temporary file next to `target` (for `path`'s errors).
fn probe(path: &Path, target: &Path) -> Result<()> {
    let (temp_path, file) = create_temp(target).map_err(|e| error(path, "cannot write", &e))?;
    drop(file);
    std::fs::remove_file(&temp_path).map_err(|e| error(path, "cannot write", &e))
}

/// `<path>: <what>: <io error>`, keeping the error's kind.
fn error(path: &Path, what: &str, e: &io::Error) -> Error {
    Error::io(path, io::Error::new(e.kind(), format!("{what}: {e}")))
}

/// Symbolic links followed before giving up (Linux's own limit).
const MAX_LINKS: usize = 40;

/// Where to write for `path`: symbolic links are followed, so that the file
/// they lead to is written rather than a link replaced, as a shell's `>`
/// does, also where that file does not exist yet (a dangling link: the file
/// is created). A loop of links is an error naming `path`.
fn resolve(path: &Path) -> Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match follow(&current) {
            Some(next) => {
                current = next.map_err(|e| error(path, "cannot follow the link", &e))?;
            }
            None => return Ok(current),
        }
    }
    Err(error(
        path,
        "cannot write",
        &io::Error::other("too many levels of symbolic links"),
    ))
}

/// Where the symbolic link at `current` leads (a relative target from the
/// link's folder); `None` where `current` is no link.
fn follow(current: &Path) -> Option<io::Result<PathBuf>> {
    let meta = std::fs::symlink_metadata(current).ok()?;
    if !meta.file_type().is_symlink() {
        return None;
    }
    Some(std::fs::read_link(current).map(|link| {
        if link.is_absolute() {
            link
        } else {
            parent(current).join(link)
        }
    }))
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// A new, empty, uniquely named file in `target`'s folder.
fn create_temp(target: &Path) -> io::Result<(PathBuf, File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let dir = parent(target);
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(".{name}.tmp-{}-{n}", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(file) => return Ok((temp, file)),
            // Left behind by an earlier process with the same id: next name.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 1_000_000 => continue,
            // The file is written beside its target and renamed over it, so
            // the folder must take a new file (`/proc` takes none, and says
            // "no such file" of the new name, not of the target).
            Err(e) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!(
                        "the folder {} takes no new file ({e})",
                        rosetta_core::shown_path(dir)
                    ),
                ))
            }
        }
    }
}

/// A temporary file, removed when dropped unless it was renamed.
struct Temp {
    path: PathBuf,
    renamed: bool,
}

impl Drop for Temp {
    fn drop(&mut self) {
        if !self.renamed {
            if let Err(e) = std::fs::remove_file(&self.path) {
                tracing::warn!(path = %rosetta_core::shown_path(&self.path), "cannot remove temporary file: {e}");
            }
        }
    }
}

/// A replaced file keeps its permissions.
fn keep_permissions(target: &Path, file: &File) {
    if let Ok(meta) = std::fs::metadata(target) {
        if let Err(e) = file.set_permissions(meta.permissions()) {
            tracing::debug!(path = %rosetta_core::shown_path(target), "cannot copy permissions: {e}");
        }
    }
}

/// Make the rename durable (best effort: not every system syncs folders).
fn sync_dir(target: &Path) {
    if let Ok(dir) = File::open(parent(target)) {
        let _ = dir.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("rosetta-output-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn writes_and_replaces() {
        let dir = scratch("replace");
        let target = dir.join("out.json");
        write(&target, b"first").unwrap();
        write(&target, b"second").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"second");
        assert_eq!(names(&dir), ["out.json"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_and_no_temporary() {
        let dir = scratch("fail");
        let target = dir.join("out.npy");
        write(&target, b"good").unwrap();
        let err = write_with(&target, |w| {
            w.write_all(&[0; 100_000])?;
            Err(io::Error::other("disk on fire"))
        })
        .unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with(&target.display().to_string()), "{text}");
        assert!(text.contains("disk on fire"), "{text}");
        assert!(!err.is_usage());
        assert_eq!(std::fs::read(&target).unwrap(), b"good");
        assert_eq!(names(&dir), ["out.npy"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn follows_a_symbolic_link() {
        let dir = scratch("link");
        let real = dir.join("real.json");
        write(&real, b"old").unwrap();
        std::os::unix::fs::symlink(&real, dir.join("link.json")).unwrap();
        write(&dir.join("link.json"), b"new").unwrap();
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        assert!(std::fs::symlink_metadata(dir.join("link.json"))
            .unwrap()
            .file_type()
            .is_symlink());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A link to a file that does not exist yet creates that file and stays
    /// a link (it was replaced by a regular file), through a relative
    /// chain of links too; a loop of links is an error that leaves them.
    #[cfg(unix)]
    #[test]
    fn dangling_links_create_their_file_and_loops_fail() {
        use std::os::unix::fs::symlink;
        let dir = scratch("dangling");
        std::fs::create_dir(dir.join("sub")).unwrap();
        symlink("sub/new.json", dir.join("first.json")).unwrap();
        symlink("first.json", dir.join("link.json")).unwrap();
        let link = dir.join("link.json");
        check_file(&link).unwrap();
        write(&link, b"new").unwrap();
        assert_eq!(std::fs::read(dir.join("sub/new.json")).unwrap(), b"new");
        for name in ["link.json", "first.json"] {
            let kind = std::fs::symlink_metadata(dir.join(name))
                .unwrap()
                .file_type();
            assert!(kind.is_symlink(), "{name} was replaced");
        }
        // A dangling link into a folder that does not exist.
        symlink("nowhere/x.json", dir.join("lost.json")).unwrap();
        let err = check_file(&dir.join("lost.json")).unwrap_err().to_string();
        assert!(err.contains("does not exist"), "{err}");
        // A loop.
        symlink("b.json", dir.join("a.json")).unwrap();
        symlink("a.json", dir.join("b.json")).unwrap();
        for outcome in [
            check_file(&dir.join("a.json")),
            write(&dir.join("a.json"), b"x"),
        ] {
            let err = outcome.unwrap_err().to_string();
            assert!(
                err.contains("a.json") && err.contains("symbolic links"),
                "{err}"
            );
        }
        assert!(std::fs::symlink_metadata(dir.join("a.json"))
            .unwrap()
            .file_type()
            .is_symlink());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A pipe (like `/dev/stdout` or a device) is written in place: renaming a
    /// file over it would replace it.
    #[cfg(unix)]
    #[test]
    fn pipes_are_written_in_place_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let dir = scratch("fifo");
        let fifo = dir.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("no mkfifo: skipped");
            return;
        }
        let reader = std::thread::spawn({
            let fifo = fifo.clone();
            move || std::fs::read(fifo)
        });
        check_file(&fifo).unwrap();
        write(&fifo, b"through the pipe").unwrap();
        // Checked before joining: a replaced pipe would leave the reader waiting.
        let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo(), "the pipe was replaced");
        assert_eq!(reader.join().unwrap().unwrap(), b"through the pipe");
        assert_eq!(names(&dir), ["pipe"]);
        check_file(Path::new("/dev/null")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// This process's streams are found through every form of their name;
    /// another descriptor holding a file is refused (writing the file by
    /// name would replace it under its process), with no file made.
    #[cfg(target_os = "linux")]
    #[test]
    fn descriptors_are_found_behind_their_links() {
        use std::os::fd::AsRawFd;
        for (name, number) in [
            ("/dev/stdout", 1),
            ("/dev/stderr", 2),
            ("/dev/fd/1", 1),
            ("/proc/self/fd/2", 2),
            ("/proc/thread-self/fd/1", 1),
        ] {
            assert_eq!(descriptor(Path::new(name)), Some((true, number)), "{name}");
        }
        let own = format!("/proc/{}/fd/1", std::process::id());
        assert_eq!(descriptor(Path::new(&own)), Some((true, 1)));
        assert_eq!(descriptor(Path::new("/proc/self/fd")), None);
        assert_eq!(descriptor(Path::new("/dev/null")), None);

        let dir = scratch("descriptor");
        let held = dir.join("held.txt");
        let file = File::create(&held).unwrap();
        let fd = format!("/proc/self/fd/{}", file.as_raw_fd());
        for outcome in [check_file(Path::new(&fd)), write(Path::new(&fd), b"x")] {
            let err = outcome.unwrap_err().to_string();
            assert!(err.contains("of this process holds a file"), "{err}");
        }
        drop(file);
        assert_eq!(std::fs::read(&held).unwrap(), b"");
        assert_eq!(names(&dir), ["held.txt"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A descriptor that is not open is named as such, not as one that
    /// holds a file (it holds nothing).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_closed_descriptor_is_not_open() {
        use std::os::fd::AsRawFd;
        let dir = scratch("closed-descriptor");
        // A number that was open a moment ago and is closed now.
        let number = File::create(dir.join("gone.txt")).unwrap().as_raw_fd();
        for name in [
            format!("/dev/fd/{number}"),
            format!("/proc/self/fd/{number}"),
        ] {
            for outcome in [check_file(Path::new(&name)), write(Path::new(&name), b"x")] {
                let err = outcome.unwrap_err();
                assert!(!err.is_usage());
                let text = err.to_string();
                assert!(
                    text.contains(&format!("descriptor {number} of this process is not open")),
                    "{text}"
                );
            }
        }
        assert_eq!(names(&dir), ["gone.txt"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A folder that takes no new file (`/proc`, where even an existing
    /// file cannot be replaced) is named in the error, not the target, whose
    /// "no such file" would be false.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_folder_that_takes_no_file_is_named() {
        for target in ["/proc/version", "/proc/rosetta-new.json"] {
            for outcome in [
                check_file(Path::new(target)),
                write(Path::new(target), b"x"),
            ] {
                let text = outcome.unwrap_err().to_string();
                assert!(
                    text.contains("the folder /proc takes no new file"),
                    "{text}"
                );
            }
        }
        let text = check_dir(Path::new("/proc/rosetta-report"))
            .unwrap_err()
            .to_string();
        assert!(
            text.contains("the folder /proc takes no new file"),
            "{text}"
        );
    }

    /// `out.npy/` names a folder: refused before any work, existing file or
    /// not, and nothing is written.
    #[test]
    fn a_name_ending_in_a_separator_is_not_a_file() {
        let dir = scratch("separator");
        write(&dir.join("old.npy"), b"old").unwrap();
        for name in ["new.npy/", "old.npy/"] {
            let target = PathBuf::from(format!("{}/{name}", dir.display()));
            for outcome in [check_file(&target), write(&target, b"x")] {
                let err = outcome.unwrap_err();
                assert!(!err.is_usage());
                assert!(err.to_string().contains("names a folder"), "{err}");
            }
        }
        assert_eq!(std::fs::read(dir.join("old.npy")).unwrap(), b"old");
        assert_eq!(names(&dir), ["old.npy"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn checks_name_the_path() {
        let dir = scratch("check");
        let file = dir.join("file");
        write(&file, b"x").unwrap();
        check_file(&dir.join("new.npy")).unwrap();
        check_dir(&dir.join("a/b/c")).unwrap();
        check_dir(&dir).unwrap();
        for (result, path) in [
            (
                check_file(&dir.join("missing/x.npy")),
                dir.join("missing/x.npy"),
            ),
            (check_file(&file.join("x.npy")), file.join("x.npy")),
            (check_file(&dir), dir.clone()),
            (check_dir(&file), file.clone()),
            (check_dir(&file.join("sub")), file.join("sub")),
        ] {
            let err = result.unwrap_err();
            assert!(!err.is_usage());
            assert!(
                err.to_string().starts_with(&path.display().to_string()),
                "{err}"
            );
        }
        assert_eq!(names(&dir), ["file"], "probes leave nothing behind");
        assert!(!dir.join("a").exists(), "a folder check creates nothing");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
