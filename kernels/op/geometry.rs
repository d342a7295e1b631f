//! Launch geometry and checks that every plan shares.

use rosetta_core::{
    Api, Backend, Buffer, Capabilities, DeviceInfo, Error, Kernel, KernelDef, KernelSpec, Launch,
    Result,
};
use std::sync::Arc;

/// The largest power of two `<= n` (n >= 1).
pub fn floor_pow2(n: u32) -> u32 {
    1 << (31 - n.max(1).leading_zeros())
}

/// The workgroup size plans prefer (256), lowered to what the device allows.
pub fn preferred_group_size(caps: &Capabilities) -> u32 {
    floor_pow2(
        256.min(caps.max_group_invocations)
            .min(caps.max_group_size[0]),
    )
}

/// Whether `device` is the CPU backend, which runs the kernels' Rust
/// versions under the workgroup model (`rosetta_core::workgroup`): one
/// thread runs a workgroup's invocations one phase at a time, so what makes
/// a tile cheap there differs from a GPU. Plans may choose other geometry or
/// tilings for it where that was measured to help (each plan says why);
/// other CPU-type devices (lavapipe, PoCL) run the GPU sources and keep the
/// GPU choices. Forced variants run as named everywhere.
pub fn workgroup_model(device: &DeviceInfo) -> bool {
    device.api == Api::Cpu
}

/// Build `def` with `constants` for `launch` on `backend`, checking the launch
/// against the device's limits first, so a plan fails when it is made rather
/// than half-way through its passes.
pub fn prepare_kernel(
    backend: &Arc<dyn Backend>,
    def: &Arc<KernelDef>,
    constants: &[(&str, u32)],
    launch: &Launch,
) -> Result<Kernel> {
    launch.validate(&backend.info().caps)?;
    backend.compile(&KernelSpec::new(def, constants)?)
}

/// A count or extent as a kernel's u32 param, or [`Error::ExceedsLimit`].
pub fn u32_param(what: &'static str, value: u64) -> Result<u32> {
    u32::try_from(value).map_err(|_| Error::ExceedsLimit {
        what,
        requested: value,
        limit: u64::from(u32::MAX),
    })
}

/// Check that `buffer` lives on `backend` and holds at least `bytes`: what a
/// plan's kernel will touch. Plans call this for every binding before an
/// unsafe launch.
pub fn check_binding(
    backend: &Arc<dyn Backend>,
    what: &str,
    buffer: &Buffer,
    bytes: u64,
) -> Result<()> {
    if buffer.tag() != backend.tag() {
        return Err(Error::foreign_buffer(buffer, backend.as_ref()));
    }
    if buffer.bytes() < bytes {
        return Err(Error::ShapeMismatch(format!(
            "{what}: the buffer holds {} bytes, the op needs {bytes}",
            buffer.bytes()
        )));
    }
    Ok(())
}

/// Check that the buffer a plan writes, `written`, is none of the buffers
/// it reads, `read`, before the plan touches any of them. Each launch's
/// bindings are checked too, but a plan may zero its output before the
/// launch, or run passes whose launches each bind only one of the two
/// buffers; whether the call is refused must not depend on that.
pub fn check_apart(op: &str, written: (&str, &Buffer), read: &[(&str, &Buffer)]) -> Result<()> {
    match read.iter().find(|(_, b)| b.serial() == written.1.serial()) {
        Some((name, _)) => Err(Error::InvalidArgument(format!(
            "{op}: the {} buffer is also the {name} buffer; it must be another buffer",
            written.0
        ))),
        None => Ok(()),
    }
}

/// A device of `api` with `caps`, nameless and driverless: what plans'
/// unit tests choose for.
#[cfg(test)]
pub(crate) fn test_device(api: Api, caps: Capabilities) -> DeviceInfo {
    DeviceInfo {
        api,
        index: 0,
        name: String::new(),
        driver: String::new(),
        driver_version: String::new(),
        physical: Default::default(),
        caps,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_pow2_rounds_down() {
        assert_eq!(floor_pow2(1), 1);
        assert_eq!(floor_pow2(255), 128);
        assert_eq!(floor_pow2(256), 256);
        assert_eq!(floor_pow2(0), 1);
    }
}
