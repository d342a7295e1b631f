//! One kernel in any subset of the languages, and the constants that
//! specialise it.
//!
//! A [`KernelDef`] is the kernel's interface (entry point, constants, buffer
//! bindings, params) plus its [`Sources`], keyed by [`Language`]; a backend
//! whose language has no source refuses the kernel with
//! [`crate::Error::Unsupported`]. A [`KernelSpec`] is a definition plus a
//! value for each constant: what a backend compiles and caches.
//!
//! # The interface, identical in every language
//! - Entry point: `name` in WGSL, CUDA (`extern "C" __global__`) and OpenCL C;
//!   `main` in GLSL; the closure itself in Rust.
//! - Constants: each name is a `u32` constant, `GROUP_SIZE` first. WGSL: an
//!   `override` of that name; GLSL: a specialization constant whose
//!   `constant_id` is its position (`GROUP_SIZE` is position 0 and also
//!   `local_size_x_id = 0`); CUDA and OpenCL C: a `-D NAME=valueu` define;
//!   Rust: `group.constants[i]`.
//! - Buffers: binding `i` is a storage buffer of 32-bit words with the access
//!   `bindings[i]`. WGSL `@group(0) @binding(i)`; GLSL `set = 0, binding = i`;
//!   CUDA and OpenCL: the i-th kernel argument (a pointer).
//! - Params: 32-bit words, in order (f32 values passed as their bits). WGSL: a
//!   uniform struct at `@group(0) @binding(bindings.len())`; GLSL: a push
//!   constant block; CUDA and OpenCL: scalar arguments after the buffers.
//! - Dynamic shared memory (`dynamic_shared`): CUDA declares `extern
//!   __shared__` memory sized by [`crate::Launch::shared_bytes`]; OpenCL takes
//!   a trailing `__local` pointer argument of that size. WGSL and GLSL size
//!   their arrays from constants.

mod def;
mod fingerprint;
mod options;
mod sources;
mod spec;

pub use def::{uses_word, Access, KernelBuilder, KernelDef};
pub use fingerprint::Fingerprint;
pub use options::options_from_env;
pub use sources::{CpuKernel, Source, Sources};
pub use spec::KernelSpec;
