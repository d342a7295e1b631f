//! rosetta-core: what every backend and every op plan shares.
//!
//! - [`Backend`]: the object-safe device trait (buffers, compile, launch, timing).
//! - [`Capabilities`]: limits read from the device, never from constants.
//! - [`KernelDef`] / [`KernelSpec`]: one kernel in five languages, plus the named
//!   integer constants that specialise it.
//! - [`ops`]: op specs and their validation (typed errors for bad input).
//! - [`reference`]: the host reference (f64 accumulation, exact integers).
//! - [`bounds`]: the error bounds of DESIGN.md.
//! - [`inputs`]: seeded input generators shared by tests, CLI and benches.
//! - [`workgroup`]: the CPU workgroup model (shared memory, barrier phases, atomics).

pub mod backend;
pub mod bounds;
pub mod buffer;
pub mod caps;
pub mod error;
pub mod inputs;
pub mod kernel;
pub mod ops;
pub mod reference;
pub mod workgroup;

pub use backend::{
    check_buffer_bytes, check_byte_range, Backend, BufferId, Clock, KernelId, Launch,
};
pub use buffer::Buffer;
pub use caps::{Api, Capabilities, DeviceInfo, DeviceType};
pub use error::{Error, Result};
pub use kernel::{Access, KernelDef, KernelSpec, Language, Sources};
pub use ops::Elem;
