//! rosetta: the same shared-memory GPU algorithms — reduction, histogram,
//! convolution, matrix multiply — written once per compute API (WGSL for wgpu,
//! CUDA C through NVRTC, GLSL → SPIR-V for Vulkan, OpenCL C, Rust for the CPU),
//! behind one API.
//!
//! ```no_run
//! use rosetta::{discover, ReduceOp};
//!
//! let devices = discover(&rosetta::Api::ALL).select(&["all"])?;
//! for device in &devices {
//!     let sum = device.reduce(&[1.0f32, 2.0, 3.0], ReduceOp::Sum)?;
//!     println!("{}: {sum}", device.info().id());
//! }
//! # Ok::<(), rosetta::Error>(())
//! ```
//!
//! Backends are cargo features (`wgpu`, `vulkan`, `opencl`, `cuda`; the CPU
//! backend is always there). [`conform`] runs identical seeded cases on every
//! device and compares each with the host reference; [`bench`] times the ops
//! with each API's own timers.

pub mod bench;
pub mod conform;
mod device;
mod discovery;
pub mod npy;
pub mod report;
mod selector;

pub use device::Device;
pub use discovery::{discover, ApiEntry, ApiStatus, Discovery};
pub use rosetta_core::ops::{
    Border, Conv1dSpec, Conv2dSpec, Elem, Element, HistogramInput, HistogramSpec, MatmulSpec,
    ReduceOp, ReduceSpec,
};
pub use rosetta_core::{Api, Capabilities, Clock, DeviceInfo, DeviceType, Error, Result};
pub use rosetta_kernels::histogram::HistogramPath;
pub use selector::Selector;

/// Re-exported building blocks for backends and advanced users.
pub use rosetta_core as core;
pub use rosetta_kernels as kernels;
