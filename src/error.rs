//! The facade's errors: device errors from rosetta-core, kept whole, apart
//! from the facade's own (selectors, files).

use std::path::PathBuf;

/// `Result` with the facade's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong. `Debug` prints the same text as [`Error::chain`] (one
/// line, but for a failed compile's log below it), so that `fn main() ->
/// rosetta::Result<()>` ends with a readable message.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A device, kernel or op error (see [`rosetta_core::Error`]).
    #[error(transparent)]
    Device(#[from] rosetta_core::Error),

    /// A device selector that names no device (or is malformed).
    #[error("no device matches '{selector}'{hint}")]
    NoDevice {
        /// The selector as given.
        selector: String,
        /// Why, and what is available.
        hint: String,
    },

    /// A file that can't be read as the array or JSON it should hold.
    #[error("{}: {reason}", rosetta_core::shown_path(path))]
    BadFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },

    /// Reading or writing a file failed.
    #[error("{}: {source}", rosetta_core::shown_path(path))]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },

    /// A request the command line or a caller got wrong.
    #[error("{0}")]
    Usage(String),

    /// The tuning cache cannot keep a choice (its file or folder, named in
    /// the I/O error, cannot be written): tuning would keep nothing.
    #[error("the tuning cache cannot be written: {0}")]
    TuningCache(#[source] std::io::Error),
}

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.chain())
    }
}

impl Error {
    /// Sort the error into what a caller can act on: a device error's own
    /// [`rosetta_core::ErrorKind`]; selectors, bad files and usage are
    /// `Usage`, I/O is a `Failure`.
    pub fn kind(&self) -> rosetta_core::ErrorKind {
        match self {
            Error::Device(e) => e.kind(),
            Error::NoDevice { .. } | Error::BadFile { .. } | Error::Usage(_) => {
                rosetta_core::ErrorKind::Usage
            }
            Error::Io { .. } | Error::TuningCache(_) => rosetta_core::ErrorKind::Failure,
        }
    }

    /// True for errors caused by what the caller asked for (CLI exit code 2),
    /// false for failures of a device, a file write or the environment (1).
    pub fn is_usage(&self) -> bool {
        match self {
            Error::Device(e) => e.is_usage(),
            Error::NoDevice { .. } | Error::BadFile { .. } | Error::Usage(_) => true,
            Error::Io { .. } | Error::TuningCache(_) => false,
        }
    }

    /// The message with every source appended, on one line (a failed
    /// compile's log on the lines below it); a source whose
    /// text the message already ends with (an I/O error's reason, which its
    /// message shows) is not repeated ([`rosetta_core::error_chain`]; a
    /// device error is transparent, so this is its own chain).
    pub fn chain(&self) -> String {
        rosetta_core::error_chain(self)
    }

    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_io_error_names_its_reason_once() {
        let e = Error::io(
            "/nonexistent/o.npy",
            std::io::Error::other("folder /nonexistent does not exist"),
        );
        assert_eq!(
            e.chain(),
            "/nonexistent/o.npy: folder /nonexistent does not exist"
        );
        assert!(!e.is_usage());
        assert_eq!(e.kind(), crate::ErrorKind::Failure);
        let limit = Error::Device(rosetta_core::Error::ExceedsLimit {
            what: "workgroup size",
            requested: 2048,
            limit: 1024,
        });
        assert_eq!(limit.kind(), crate::ErrorKind::Device);
        assert_eq!(Error::Usage("x".into()).kind(), crate::ErrorKind::Usage);
        // What `fn main() -> rosetta::Result<()>` prints.
        assert_eq!(format!("{e:?}"), e.chain());
        let none = Error::NoDevice {
            selector: "vulkan:3".into(),
            hint: " (available: vulkan:0)".into(),
        };
        assert_eq!(
            format!("{none:?}"),
            "no device matches 'vulkan:3' (available: vulkan:0)"
        );
    }
}
