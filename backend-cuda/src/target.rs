//! What NVRTC compiles for on a device: its own architecture as a cubin when
//! NVRTC supports it, else PTX for the newest architecture below it, which
//! the driver JIT-compiles forward.

/// What NVRTC is asked to produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// Machine code (a cubin) for `sm_XX`, `XX` = major·10 + minor.
    Cubin(u32),
    /// PTX for `compute_XX`, JIT-compiled by the driver (for a device newer
    /// than this NVRTC knows).
    Ptx(u32),
}

impl Target {
    /// The `--gpu-architecture` value: `sm_XX` or `compute_XX`.
    pub fn arch(self) -> String {
        match self {
            Target::Cubin(sm) => format!("sm_{sm}"),
            Target::Ptx(sm) => format!("compute_{sm}"),
        }
    }

    /// The `XX` of `sm_XX` / `compute_XX`: what `__CUDA_ARCH__` / 10 is in
    /// the kernels.
    pub fn sm(self) -> u32 {
        match self {
            Target::Cubin(sm) | Target::Ptx(sm) => sm,
        }
    }

    /// `cubin` or `PTX`, for logs and the device's driver text.
    pub fn kind(self) -> &'static str {
        match self {
            Target::Cubin(_) => "cubin",
            Target::Ptx(_) => "PTX",
        }
    }
}

/// The target for compute capability `major.minor` given the `sm_XX` numbers
/// NVRTC supports: the device's own, else PTX for the highest below it;
/// `None` for a device older than every supported architecture.
pub(crate) fn pick(archs: &[u32], major: i32, minor: i32) -> Option<Target> {
    let sm = u32::try_from(major.checked_mul(10)?.checked_add(minor)?).ok()?;
    if archs.contains(&sm) {
        return Some(Target::Cubin(sm));
    }
    archs
        .iter()
        .copied()
        .filter(|&a| a < sm)
        .max()
        .map(Target::Ptx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_prefer_the_device_then_ptx_below() {
        let archs = [75, 80, 86, 89, 90, 100, 120];
        assert_eq!(pick(&archs, 9, 0), Some(Target::Cubin(90)));
        assert_eq!(pick(&archs, 8, 0), Some(Target::Cubin(80)));
        // A newer GPU than this NVRTC knows: PTX, JIT-compiled by the driver.
        assert_eq!(pick(&archs, 13, 0), Some(Target::Ptx(120)));
        assert_eq!(pick(&archs, 8, 7), Some(Target::Ptx(86)));
        // Older than every supported architecture, or nonsense.
        assert_eq!(pick(&archs, 6, 1), None);
        assert_eq!(pick(&archs, -1, 0), None);
        assert_eq!(pick(&archs, i32::MAX, 0), None);
        // Unsorted lists work too.
        assert_eq!(pick(&[90, 75, 86], 8, 9), Some(Target::Ptx(86)));
        assert_eq!(Target::Cubin(90).arch(), "sm_90");
        assert_eq!(Target::Ptx(120).arch(), "compute_120");
    }
}
