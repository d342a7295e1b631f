//! rosetta-core: what every backend, every op and every program shares.
//!
//! - [`Backend`] and its handles ([`Buffer`], [`Kernel`], [`Timestamp`]):
//!   the device API, every call checked. Sealed: its one implementation is
//!   the [`checked`] layer over a backend's [`Driver`].
//! - [`Driver`]: the narrow per-API trait a backend crate implements.
//! - [`KernelDef`] / [`KernelSpec`]: one kernel in any subset of the
//!   languages ([`Language`]), and the constants that specialise it.
//! - [`Capabilities`] / [`DeviceInfo`]: limits read from the device.
//! - [`Error`]: one typed error, sorted by [`ErrorKind`].
//! - [`workgroup`]: the CPU workgroup model the Rust kernels run under.
//! - [`bounds`], [`inputs`]: error bounds and seeded inputs shared by ops.
//! - [`contract`]: the suite every backend crate runs on its own devices.

#![warn(missing_docs)]

mod api;
pub mod bounds;
mod caps;
pub mod checked;
pub mod contract;
mod device;
pub mod disk_cache;
mod driver;
mod elem;
mod error;
pub mod inputs;
mod kernel;
mod launch;
pub mod process_lock;
pub mod workgroup;

pub use api::{Api, Language};
pub use caps::{llvmpipe_loop_limit, Capabilities, DeviceInfo, DeviceType, PhysicalId};
pub use device::{Backend, Buffer, Clock, DeviceTag, Kernel, PoolStats, Timestamp};
pub use driver::Driver;
pub use elem::{bytes_of, Elem, Element};
pub use error::{
    check_limit, error_chain, escape_controls, shown_path, Error, ErrorKind, Result, ShownPath,
    Source as ErrorSource,
};
pub use kernel::{
    options_from_env, uses_word, Access, CpuKernel, Fingerprint, KernelBuilder, KernelDef,
    KernelSpec, Source, Sources,
};
pub use launch::{check_byte_range, grid_2d, Launch};
