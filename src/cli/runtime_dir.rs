//! A private `XDG_RUNTIME_DIR` when the environment has none, or one that
//! is relative or not private.
//!
//! Mesa's EGL, which wgpu's GL adapter goes through, loads libwayland even
//! for surfaceless contexts, and libwayland prints `error: XDG_RUNTIME_DIR is
//! invalid or not set in the environment.` twice when the variable is
//! missing (containers, CI, ssh without a session). Those lines would stand
//! before rosetta's own output and its one-line errors, so the binary points
//! the variable at a directory of its own before any library reads it.

#[cfg(unix)]
pub fn ensure() {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    use std::path::Path;

    // The user id: the owner of this process's own /proc entry.
    let Ok(uid) = std::fs::metadata("/proc/self").map(|m| m.uid()) else {
        return;
    };
    let owned = |m: &std::fs::Metadata| m.is_dir() && m.uid() == uid;
    let private = |m: &std::fs::Metadata| owned(m) && m.permissions().mode() & 0o077 == 0;
    // The XDG rule: an absolute path to a directory this user owns and no
    // one else can enter. libwayland refuses a relative one with the same
    // two lines as a missing one; a directory others share is not kept
    // either (the README's promise).
    let valid = |dir: &Path| dir.is_absolute() && std::fs::metadata(dir).is_ok_and(|m| private(&m));
    if std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| valid(d.as_ref())) {
        return;
    }
    // Absolute even where TMPDIR is relative.
    let Ok(dir) = std::path::absolute(std::env::temp_dir().join(format!("rosetta-runtime-{uid}")))
    else {
        return;
    };
    let _ = std::fs::DirBuilder::new().mode(0o700).create(&dir);
    // Only a directory this user owns and no one else can enter: another
    // user may have made one of that name first. One this user made with
    // looser permissions (`mkdir -p` under a umask of 022, say) is made
    // private first, as `mkdir -m 0700` would have made it: else
    // libwayland's lines came back. (/tmp's sticky bit keeps others from
    // swapping the directory for a link in between.)
    if std::fs::symlink_metadata(&dir)
        .is_ok_and(|m| owned(&m) && m.permissions().mode() & 0o077 != 0)
    {
        let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
    }
    let ours = std::fs::symlink_metadata(&dir).is_ok_and(|m| private(&m));
    if ours {
        // Called first thing in `main`, before this process starts any
        // thread, so nothing reads the environment while it changes.
        std::env::set_var("XDG_RUNTIME_DIR", dir);
    }
}

#[cfg(not(unix))]
pub fn ensure() {}
