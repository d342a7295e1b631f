//! rosetta-kernels: one folder per op, each holding the same algorithm in every
//! language side by side, and the op's host plan.
//!
//! ```text
//! kernels/<op>/mod.rs      the plan: validation, variant and geometry choice,
//!                          passes; the kernel's interface (constants, bindings,
//!                          params) in its KernelDef
//! kernels/<op>/<op>.wgsl   wgpu
//! kernels/<op>/<op>.cu     CUDA (NVRTC)
//! kernels/<op>/<op>.comp   Vulkan (GLSL -> SPIR-V)
//! kernels/<op>/<op>.cl     OpenCL C
//! kernels/<op>/<op>.rs     the CPU backend's workgroup model
//! ```
//!
//! Plans are written once over `Arc<dyn Backend>`; backends hold no op logic.
//! Each plan compiles its kernels and allocates its scratch in `new` and
//! enqueues its passes in `encode`, so benchmarks can time `encode` alone.

pub mod conv1d;
pub mod conv2d;
pub mod copy;
pub mod histogram;
pub mod matmul;
mod pass;
pub mod reduce;

use rosetta_core::KernelDef;

/// Every kernel, for backends' and tests' sweeps.
pub fn all() -> [&'static KernelDef; 6] {
    [
        &reduce::KERNEL,
        &histogram::KERNEL,
        &conv1d::KERNEL,
        &conv2d::KERNEL,
        &matmul::KERNEL,
        &copy::KERNEL,
    ]
}

/// The largest power of two `<= n` (n >= 1).
fn floor_pow2(n: u32) -> u32 {
    1 << (31 - n.max(1).leading_zeros())
}

/// The workgroup size plans prefer (256), lowered to what the device allows.
fn preferred_group_size(caps: &rosetta_core::Capabilities) -> u32 {
    floor_pow2(
        256.min(caps.max_group_invocations)
            .min(caps.max_group_size[0]),
    )
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

    #[test]
    fn every_kernel_names_group_size_first_and_has_sources() {
        for def in all() {
            assert_eq!(def.constants[0], "GROUP_SIZE", "{}", def.name);
            for src in [
                def.sources.wgsl,
                def.sources.cuda,
                def.sources.glsl,
                def.sources.opencl,
            ] {
                assert!(
                    src.contains(def.name) || src.contains("void main"),
                    "{}: a source lacks its entry point",
                    def.name
                );
            }
        }
    }
}
