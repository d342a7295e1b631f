//! rosetta: the same shared-memory GPU algorithms — reduction, histogram,
//! convolution, scan, matrix multiply — written once per compute API (WGSL
//! for wgpu, CUDA C through NVRTC, GLSL → SPIR-V for Vulkan, OpenCL C, Rust
//! for the CPU), behind one API; a conformance suite that checks every device
//! against one host reference; and your own kernels checked the same way.
//!
//! ```no_run
//! use rosetta::{discover, Api, ReduceOp};
//!
//! let devices = discover(&Api::ALL).select(&["all"])?;
//! for device in &devices {
//!     // Data stays on the device between ops.
//!     let x = device.upload(&[1.0f32, 2.0, 3.0])?;
//!     let sum = x.reduce(ReduceOp::Sum)?.to_vec()?[0];
//!     println!("{}: {sum}", device.info().id());
//! }
//! # Ok::<(), rosetta::Error>(())
//! ```
//!
//! Backends are cargo features (`wgpu`, `vulkan`, `opencl`, `cuda`; the CPU
//! backend is always there). [`conform`] runs identical seeded cases on every
//! device and compares each with the host reference; [`bench`](mod@bench) times the ops
//! with each API's own timers. The command line, the HTML report and `.npy`
//! files are behind the `cli` feature.

#![warn(missing_docs)]

pub mod bench;
mod buffer;
pub mod conform;
mod device;
mod discovery;
mod error;
mod machine;
mod ops;
mod selector;
pub mod tune;
pub mod user_kernel;

pub use buffer::DeviceBuffer;
pub use device::Device;
pub use discovery::{discover, ApiEntry, ApiStatus, Discovery};
pub use error::{Error, Result};
pub use machine::Machine;
pub use rosetta_core::{
    Access, Api, Capabilities, Clock, DeviceInfo, DeviceType, Elem, Element, ErrorKind, KernelDef,
    KernelSpec, Language, Launch,
};
pub use rosetta_kernels::conv1d::Conv1dSpec;
pub use rosetta_kernels::conv2d::{Border, Conv2dSpec};
pub use rosetta_kernels::matmul::MatmulSpec;
pub use rosetta_kernels::reduce::ReduceOp;
pub use rosetta_kernels::scan::ScanSpec;
pub use selector::Selector;

/// The core: the device API, kernels, errors, the contract suite.
pub use rosetta_core as core;
/// The ops: plans, specs, references, cases, workloads.
pub use rosetta_kernels as kernels;

#[cfg(feature = "cli")]
pub mod npy;
#[cfg(feature = "cli")]
pub mod output;
#[cfg(feature = "cli")]
pub mod report;
