//! One typed error for the whole framework.
//!
//! Library code never panics on user input: every bad shape, empty filter, bad
//! selector or failing device call ends up as one of these variants. The CLI maps
//! [`Error::is_usage`] to exit code 2 and everything else to exit code 1.

use crate::caps::Api;

pub type Result<T, E = Error> = std::result::Result<T, E>;

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

    /// `bins = 0`.
    #[error("histogram needs at least one bin (bins = 0)")]
    ZeroBins,

    /// A histogram range that is empty, reversed or not finite.
    #[error("invalid histogram range [{lo}, {hi}]: need finite lo < hi")]
    InvalidRange { lo: f64, hi: f64 },

    /// Min or max of an empty slice has no value.
    #[error("{op} of an empty input has no value")]
    EmptyReduction { op: &'static str },

    /// Any other argument a caller got wrong.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// A device selector that names no device.
    #[error("no device matches '{selector}'{hint}")]
    NoDevice { selector: String, hint: String },

    /// A `.npy` file that can't be read, or holds the wrong kind of array.
    #[error("{path}: {reason}")]
    Npy { path: String, reason: String },

    /// A request over a device limit, refused before it reaches the API.
    #[error("{what} of {requested} exceeds the device limit of {limit}")]
    ExceedsLimit {
        what: &'static str,
        requested: u64,
        limit: u64,
    },

    /// A kernel failed to build; `log` holds the compiler's output.
    #[error("{api} kernel '{kernel}' failed to compile:\n{log}")]
    Compile {
        api: Api,
        kernel: String,
        log: String,
    },

    /// The device can't run this request at all (a feature it lacks).
    #[error("unsupported on this device: {0}")]
    Unsupported(String),

    /// An API call failed.
    #[error("{api}: {message}")]
    Backend { api: Api, message: String },

    /// The device went away (driver reset, lost device).
    #[error("{api}: device lost: {message}")]
    DeviceLost { api: Api, message: String },

    /// The API's runtime is not usable on this machine (no driver, no loader).
    #[error("{api} is unavailable: {reason}")]
    Unavailable { api: Api, reason: String },

    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl Error {
    /// True for errors caused by what the user asked for (CLI exit code 2),
    /// false for failures of the device or the environment (exit code 1).
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            Error::ShapeMismatch(_)
                | Error::InvalidFilter(_)
                | Error::ZeroBins
                | Error::InvalidRange { .. }
                | Error::EmptyReduction { .. }
                | Error::InvalidArgument(_)
                | Error::NoDevice { .. }
                | Error::Npy { .. }
        )
    }

    /// Shorthand for an API-call failure.
    pub fn backend(api: Api, message: impl std::fmt::Display) -> Self {
        Error::Backend {
            api,
            message: message.to_string(),
        }
    }
}
