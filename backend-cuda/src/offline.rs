//! Compiling without a device: NVRTC alone, for tests and tools that check
//! every kernel builds (no driver, no GPU).

use crate::errors;
use crate::image::Image;
use crate::nvrtc::Nvrtc;
use crate::options;
use crate::target::Target;
use rosetta_core::{Api, Error, KernelSpec, Result, Source};

/// Compile one kernel's CUDA C with NVRTC for `target`, with the options a
/// device uses (plus `$ROSETTA_NVRTC_OPTIONS`, then `extra_options`, e.g.
/// `--ptxas-options=-v` to get ptxas' register report in [`Image::log`]).
///
/// `Unavailable` when NVRTC is missing; `Unsupported` for a kernel without a
/// CUDA version; `Compile` with NVRTC's log when the source does not build.
pub fn compile_offline(spec: &KernelSpec, target: Target, extra_options: &[&str]) -> Result<Image> {
    let nvrtc = Nvrtc::get().map_err(errors::unavailable)?;
    let Source::Text(text) = spec.def().require(Api::Cuda)? else {
        return Err(Error::Internal("a CUDA source that is not text".into()));
    };
    let mut extra = options::extra_from_env()?;
    extra.extend(extra_options.iter().map(|o| o.to_string()));
    let options = options::build(spec, target, &extra);
    nvrtc
        .compile(text, spec.def().name(), target, &options)
        .map_err(|e| errors::compile(spec.label(), e))
}
