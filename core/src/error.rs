//! One typed error for devices, kernels and ops.
//!
//! Library code never panics on user input: every bad shape, empty filter,
//! foreign buffer or failing device call ends up as one of these variants.
//! [`Error::kind`] sorts them into what a caller can act on; the command line
//! maps [`ErrorKind::Usage`] to exit code 2 and everything else to 1.

use crate::api::Api;
use std::error::Error as StdError;

/// `Result` with rosetta-core's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The cause of a failed API call, kept as the error's `source`.
pub type Source = Box<dyn StdError + Send + Sync + 'static>;

/// What went wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Operand shapes that do not fit together (matmul inner dimensions, a
    /// buffer shorter than its shape says, ...).
    #[error("shape mismatch: {0}")]
    ShapeMismatch(String),

    /// A convolution filter with an even or zero extent.
    #[error("invalid filter: {0}")]
    InvalidFilter(String),

    /// A histogram with `bins = 0`.
    #[error("histogram needs at least one bin (bins = 0)")]
    ZeroBins,

    /// A histogram range that is empty, reversed, not finite, or too narrow
    /// for its bins.
    #[error("invalid histogram range [{lo:?}, {hi:?}]: {why}")]
    InvalidRange {
        /// Lower end asked for.
        lo: f64,
        /// Upper end asked for.
        hi: f64,
        /// What is wrong with it.
        why: &'static str,
    },

    /// Min or max of an empty input has no value.
    #[error("{op} of an empty input has no value")]
    EmptyReduction {
        /// The reduction (`min`, `max`).
        op: &'static str,
    },

    /// Any other argument a caller got wrong.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// A buffer, kernel or timestamp used on a device that did not make it
    /// (another device, or another opening of the same one).
    #[error("{what} made on device {owner} used on device {device}")]
    ForeignHandle {
        /// `buffer`, `kernel` or `timestamp`.
        what: &'static str,
        /// The device that made it: its id and the `#N` of its opening.
        owner: String,
        /// The device it was given to, likewise.
        device: String,
    },

    /// A request over a device limit, refused before it reaches the API.
    #[error("{what} of {requested} exceeds the device limit of {limit}")]
    ExceedsLimit {
        /// What was asked for too much of.
        what: &'static str,
        /// How much was asked for.
        requested: u64,
        /// The most the device allows.
        limit: u64,
    },

    /// The device or backend cannot run this: a feature it lacks, or a kernel
    /// without a source in the backend's language.
    #[error("{api}: unsupported: {what}")]
    Unsupported {
        /// The API that cannot run it.
        api: Api,
        /// What it cannot run, and why.
        what: String,
    },

    /// The device ran out of memory.
    #[error("{api}: out of device memory ({what})")]
    OutOfMemory {
        /// The API that reported it.
        api: Api,
        /// What was being allocated or run.
        what: String,
        /// The API's own error.
        #[source]
        source: Option<Source>,
    },

    /// A kernel failed to build; `log` holds the compiler's output.
    #[error("{api} kernel '{kernel}' failed to compile:\n{log}")]
    Compile {
        /// The API whose compiler failed.
        api: Api,
        /// The kernel and its constants.
        kernel: String,
        /// The compiler's log.
        log: String,
    },

    /// An API call failed.
    #[error("{api}: {call} failed")]
    Device {
        /// The API.
        api: Api,
        /// The call that failed (`vkQueueSubmit`, `cuLaunchKernel`, ...).
        call: String,
        /// The API's own error.
        #[source]
        source: Source,
    },

    /// The device went away (driver reset, lost device).
    #[error("{api}: device lost")]
    DeviceLost {
        /// The API.
        api: Api,
        /// The API's own error.
        #[source]
        source: Source,
    },

    /// The API's runtime is not usable on this machine (no driver, no loader).
    #[error("{api} is unavailable: {reason}")]
    Unavailable {
        /// The API.
        api: Api,
        /// Why.
        reason: String,
    },

    /// An invariant of rosetta itself broke: a bug, not the caller's fault.
    #[error("internal error: {0} (this is a bug in rosetta)")]
    Internal(String),
}

/// What a caller can do about an [`Error`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request itself is wrong: fix the arguments (CLI exit code 2).
    Usage,
    /// The device cannot do this (a limit, a missing feature or source, out
    /// of memory): try another device or a smaller problem.
    Device,
    /// The device, its driver or the environment failed.
    Failure,
    /// A bug in rosetta.
    Internal,
}

impl Error {
    /// `what` made on the device opened as `owner_tag` (`owner_id`: its id,
    /// where known) used on `device` (its id) opened as `device_tag` (the
    /// tags are [`crate::DeviceTag`]s): each side named by id and `#N`,
    /// since two openings of one device share an id. Every
    /// [`Error::ForeignHandle`] is made here (buffers through
    /// `Error::foreign_buffer`).
    pub fn foreign_handle(
        what: &'static str,
        (owner_id, owner_tag): (Option<&str>, &dyn std::fmt::Display),
        (device_id, device_tag): (&str, &dyn std::fmt::Display),
    ) -> Error {
        Error::ForeignHandle {
            what,
            owner: match owner_id {
                Some(id) => format!("{id} {owner_tag}"),
                None => owner_tag.to_string(),
            },
            device: format!("{device_id} {device_tag}"),
        }
    }

    /// Sort the error into what a caller can act on.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::ShapeMismatch(_)
            | Error::InvalidFilter(_)
            | Error::ZeroBins
            | Error::InvalidRange { .. }
            | Error::EmptyReduction { .. }
            | Error::InvalidArgument(_)
            | Error::ForeignHandle { .. } => ErrorKind::Usage,
            Error::ExceedsLimit { .. } | Error::Unsupported { .. } | Error::OutOfMemory { .. } => {
                ErrorKind::Device
            }
            Error::Compile { .. }
            | Error::Device { .. }
            | Error::DeviceLost { .. }
            | Error::Unavailable { .. } => ErrorKind::Failure,
            Error::Internal(_) => ErrorKind::Internal,
        }
    }

    /// True for errors caused by what the caller asked for (CLI exit code 2).
    pub fn is_usage(&self) -> bool {
        self.kind() == ErrorKind::Usage
    }

    /// A failed API call, keeping the API's error as the source.
    pub fn device(api: Api, call: impl Into<String>, source: impl Into<Source>) -> Self {
        Error::Device {
            api,
            call: call.into(),
            source: source.into(),
        }
    }

    /// A lost device, keeping the API's error as the source.
    pub fn lost(api: Api, source: impl Into<Source>) -> Self {
        Error::DeviceLost {
            api,
            source: source.into(),
        }
    }

    /// Out of device memory while doing `what`.
    pub fn out_of_memory(api: Api, what: impl Into<String>, source: Option<Source>) -> Self {
        Error::OutOfMemory {
            api,
            what: what.into(),
            source,
        }
    }

    /// Something `api` cannot run.
    pub fn unsupported(api: Api, what: impl Into<String>) -> Self {
        Error::Unsupported {
            api,
            what: what.into(),
        }
    }

    /// The message with every source appended (`a: b: c`), on one line, for
    /// logs and the command line — but for [`Error::Compile`], whose
    /// compiler log follows on the lines after its first (the command line
    /// shows the first line of the log and logs the rest at debug level).
    pub fn chain(&self) -> String {
        error_chain(self)
    }
}

/// An error's message with every source appended, on one line (a compile
/// error's log on the lines after it); a source
/// whose text the message so far already ends with (an I/O error's reason
/// that the message shows) is not repeated. [`Error::chain`], and the
/// facade's errors, print this.
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.ends_with(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// A path as messages show it: [`std::path::Path::display`] with control characters
/// escaped (`\n`, `\t`, `\u{1b}`), so that a file name holding a newline
/// keeps an error on its one line and cannot forge a line of its own.
pub fn shown_path(path: &std::path::Path) -> ShownPath<'_> {
    ShownPath(path)
}

/// What [`shown_path`] returns.
pub struct ShownPath<'a>(&'a std::path::Path);

impl std::fmt::Display for ShownPath<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&escape_controls(&self.0.to_string_lossy()))
    }
}

/// `text` with its control characters escaped (`\n`, `\u{1b}`): free text
/// from files and names, shown on one line of a terminal as it is.
pub fn escape_controls(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            shown.extend(c.escape_default());
        } else {
            shown.push(c);
        }
    }
    shown
}

/// Require `value <= limit`, else [`Error::ExceedsLimit`].
pub fn check_limit(what: &'static str, requested: u64, limit: u64) -> Result<()> {
    if requested > limit {
        Err(Error::ExceedsLimit {
            what,
            requested,
            limit,
        })
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_paths_keep_to_one_line() {
        let path = std::path::Path::new("/tmp/a b\nc\td\u{1b}[31m é.npy");
        assert_eq!(
            shown_path(path).to_string(),
            "/tmp/a b\\nc\\td\\u{1b}[31m é.npy"
        );
    }

    #[test]
    fn kinds_sort_errors_for_exit_codes() {
        assert!(Error::ZeroBins.is_usage());
        assert!(Error::ForeignHandle {
            what: "buffer",
            owner: "cpu:0".into(),
            device: "cpu:1".into()
        }
        .is_usage());
        assert_eq!(Error::Internal("x".into()).kind(), ErrorKind::Internal);
        assert_eq!(
            Error::out_of_memory(Api::Cuda, "alloc", None).kind(),
            ErrorKind::Device
        );
    }

    #[test]
    fn device_errors_keep_their_source() {
        let e = Error::device(Api::Vulkan, "vkQueueSubmit", "ERROR_DEVICE_LOST");
        assert_eq!(e.to_string(), "vulkan: vkQueueSubmit failed");
        assert_eq!(e.chain(), "vulkan: vkQueueSubmit failed: ERROR_DEVICE_LOST");
        assert!(e.source().is_some());
    }
}
