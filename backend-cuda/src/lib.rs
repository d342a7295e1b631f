//! The CUDA backend: CUDA C kernels compiled at run time by NVRTC for the
//! device's own architecture, launched through the driver API (cudarc) on one
//! stream per device, with dynamic shared memory and CUDA events for timing.
//!
//! The driver and NVRTC are loaded at run time, so the crate builds and the
//! binary runs on machines without CUDA: [`discover`] then returns
//! `Error::Unavailable` naming the missing library.
//!
//! Files, as in every backend: `adapter.rs` (device discovery and
//! capabilities), `buffers.rs`, `compile.rs` (NVRTC + module cache),
//! `launch.rs`, `timing.rs`; `device.rs` ties them into the `Backend` impl.
//! CUDA's extras: `probe.rs` (finds libcuda and NVRTC before cudarc touches
//! them), `nvrtc.rs` (NVRTC through libloading), `errors.rs` (driver errors
//! as typed errors).
//!
//! Environment:
//! - `ROSETTA_NVRTC`: the NVRTC library to use (a file such as
//!   `/path/nvidia/cu13/lib/libnvrtc.so.13`, or its directory); otherwise the
//!   loader's path, the CUDA toolkit and Python wheels are searched.
//! - `ROSETTA_NVRTC_OPTIONS`: extra NVRTC options (e.g.
//!   `--ptxas-options=-v`, whose report goes to the debug log).
//!
//! Checks without a GPU: `tests/nvrtc_compile.rs` compiles every kernel for
//! sm_90 under many constant sets with NVRTC alone, e.g.
//! `pip install --target /opt/nvrtc 'nvidia-cuda-nvrtc==13.0.*'` then
//! `ROSETTA_NVRTC=/opt/nvrtc/nvidia/cu13/lib cargo test -p rosetta-backend-cuda
//! --test nvrtc_compile -- --nocapture` (prints ptxas' register and spill
//! report per kernel). `tests/conformance.rs` runs every plan against the host
//! reference on each CUDA device it finds.

mod adapter;
mod buffers;
mod compile;
mod device;
mod errors;
mod launch;
pub mod nvrtc;
mod probe;
mod timing;

pub use adapter::discover;
pub use device::CudaDevice;
pub use nvrtc::{Image, Nvrtc, Target};
pub use probe::NVRTC_ENV;

use rosetta_core::{Api, Error, KernelSpec, Result};

/// Compile one kernel with NVRTC for `target` without a device or a driver
/// (NVRTC alone is enough): the check that every kernel builds, for tests and
/// tools. `Unavailable` when NVRTC is missing; `Compile` with NVRTC's log when
/// the source does not build. `extra_options` follow the backend's own
/// (e.g. `--ptxas-options=-v` puts ptxas' register report in the log).
pub fn compile_offline(spec: &KernelSpec, target: Target, extra_options: &[&str]) -> Result<Image> {
    let nvrtc = Nvrtc::get().map_err(|reason| Error::Unavailable {
        api: Api::Cuda,
        reason,
    })?;
    let mut options = compile::options(spec);
    options.extend(extra_options.iter().map(|o| o.to_string()));
    let source = spec.kernel.source(Api::Cuda).unwrap_or_default();
    nvrtc
        .compile(source, spec.kernel.name, target, &options)
        .map_err(|failure| Error::Compile {
            api: Api::Cuda,
            kernel: spec.cache_key(),
            log: failure.log,
        })
}
