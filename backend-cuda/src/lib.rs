//! The CUDA backend: CUDA C kernels compiled at run time by NVRTC for the
//! device's own architecture, launched through the driver API (cudarc) on
//! one stream per device, with dynamic shared memory and CUDA events as
//! timing marks; compiled kernels persist on disk.
//!
//! The driver and NVRTC are loaded at run time, so the crate builds, and a
//! program runs, on machines without CUDA: [`discover`] then returns
//! `Error::Unavailable` naming what is missing.
//!
//! A backend is its API calls; everything else (handles, checks, the kernel
//! cache, the buffer pool, timing tokens) is `rosetta_core::checked`. Layers,
//! each using only those below it:
//! - `sys/`: every foreign call — the driver (over cudarc's bindings),
//!   NVRTC, library loading — as thin functions, `unsafe` where the caller
//!   must promise something;
//! - `gpu/`: owned driver objects (context, stream, memory, function,
//!   event) whose `Drop` is correct whenever it runs; `nvrtc.rs`: NVRTC;
//! - `probe.rs` (finds the libraries before cudarc touches them),
//!   `errors.rs` (failures as typed errors), `target.rs`, `image.rs`,
//!   `options.rs`, `disk.rs` (the persistent cache's key), `physical.rs`;
//! - `compile.rs`, `kernel.rs`, `launch.rs`, `driver.rs` (the
//!   `rosetta_core::Driver`), `adapter.rs` (discovery), `offline.rs`.
//!
//! Environment:
//! - `ROSETTA_NVRTC`: the NVRTC library to use (a file such as
//!   `/path/nvidia/cu13/lib/libnvrtc.so.13`, or its folder); otherwise the
//!   loader's path, the CUDA toolkit and Python wheels are searched.
//! - `ROSETTA_NVRTC_OPTIONS`: extra NVRTC options (e.g.
//!   `--ptxas-options=-v`, whose report goes to the debug log; macro
//!   definitions and relaxed math are refused,
//!   `rosetta_core::options_from_env`).
//! - `ROSETTA_CACHE_DIR`: where compiled kernels persist
//!   (`kernels/cuda/` below it; `off` disables), see
//!   `rosetta_core::disk_cache`.
//!
//! Without a GPU, `tests/nvrtc_compile.rs` checks the NVRTC path with NVRTC
//! alone, e.g. `pip install --target /opt/nvrtc 'nvidia-cuda-nvrtc==13.0.*'`
//! then `ROSETTA_NVRTC=/opt/nvrtc/nvidia/cu13/lib cargo test -p
//! rosetta-backend-cuda`.

#![warn(missing_docs)]

mod adapter;
mod compile;
#[cfg(test)]
mod device_tests;
mod disk;
mod driver;
mod errors;
mod gpu;
mod image;
mod kernel;
mod launch;
mod nvrtc;
mod offline;
mod options;
mod physical;
mod probe;
mod sys;
mod target;

pub use adapter::discover;
pub use image::Image;
pub use nvrtc::Nvrtc;
pub use offline::compile_offline;
pub use options::OPTIONS_ENV;
pub use probe::NVRTC_ENV;
pub use target::Target;
