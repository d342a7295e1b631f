//! Owned driver objects over `crate::sys::driver`: each holds what keeps its
//! handles valid (its context, or the stream its work runs on), makes its
//! context current on the calling thread before every call, and releases
//! its handle in `Drop` in a way that is correct whenever it runs.
//!
//! - [`Context`]: a retained primary context;
//! - [`Stream`]: the one in-order queue of a device;
//! - [`DeviceMemory`]: an allocation, freed in the stream's order;
//! - [`Function`]: a loaded module and its kernel;
//! - [`Event`]: a timing mark recorded on a stream.

mod context;
mod event;
mod function;
mod memory;
mod stream;

pub(crate) use context::Context;
pub(crate) use event::Event;
pub(crate) use function::{Function, LoadError};
pub(crate) use memory::DeviceMemory;
pub(crate) use stream::Stream;
