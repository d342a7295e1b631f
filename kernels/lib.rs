//! rosetta-kernels: the ops. One folder per op holds everything about it —
//! the algorithm in every language side by side, its spec, host reference,
//! error bound, plan, conformance cases, benchmark workloads and command-line
//! arguments — behind the [`op::Op`] trait; [`ops`] lists them.
//!
//! ```text
//! kernels/<op>/mod.rs      the op: docs (algorithm, interface), kernel
//!                          definition, the Op implementation
//! kernels/<op>/spec.rs     what it takes, validation, host reference, bound
//! kernels/<op>/plan.rs     variants, launch geometry, passes
//! kernels/<op>/cases.rs    conformance cases
//! kernels/<op>/<op>.wgsl   wgpu
//! kernels/<op>/<op>.cu     CUDA (NVRTC)
//! kernels/<op>/<op>.comp   Vulkan (GLSL -> SPIR-V)
//! kernels/<op>/<op>.cl     OpenCL C
//! kernels/<op>/<op>.rs     the CPU backend's workgroup model
//! kernels/op/              what an op is made of (nothing op-specific)
//! ```
//!
//! Plans are written once over `Arc<dyn Backend>`; backends hold no op logic.
//! Each plan compiles its kernels and allocates its scratch in `new` and
//! enqueues its passes in `encode`, so benchmarks can time `encode` alone.

#![warn(missing_docs)]

pub mod conv1d;
pub mod conv2d;
pub mod copy;
pub mod histogram;
pub mod litmus;
pub mod matmul;
pub mod op;
pub mod reduce;
pub mod scan;

use op::Op;

/// Every op, in the order reports list them. The one place that names them.
pub fn ops() -> &'static [&'static dyn Op] {
    &[
        &copy::Copy,
        &reduce::Reduce,
        &scan::Scan,
        &histogram::Histogram,
        &conv1d::Conv1d,
        &conv2d::Conv2d,
        &matmul::Matmul,
    ]
}

/// The op called `name`.
pub fn find(name: &str) -> Option<&'static dyn Op> {
    ops()
        .iter()
        .copied()
        .find(|op| op.name().eq_ignore_ascii_case(name))
}

/// The op called `name` (whatever its case), or the message that names
/// every op: what the CLI and the library say for a name that is none.
pub fn find_op(name: &str) -> Result<&'static dyn Op, String> {
    find(name).ok_or_else(|| {
        let known: Vec<&str> = ops().iter().map(|o| o.name()).collect();
        format!("unknown op '{name}' (ops: {})", known.join(", "))
    })
}

pub use op::{big_log2, exactly, roofline_words};

/// A kernel builder with the op folder's source files, one per text
/// language: `with_sources!(builder, "reduce")` adds `reduce.wgsl`,
/// `reduce.cu`, `reduce.comp` and `reduce.cl` from the calling module's
/// folder, and marks the kernel as needing no run-time bounds checks.
#[macro_export]
macro_rules! with_sources {
    ($builder:expr, $name:literal) => {
        $builder
            // In bounds by construction (plans check every binding), and run
            // unchecked on Vulkan, OpenCL and CUDA by every conformance run.
            .bounds_checked(false)
            .source(
                rosetta_core::Language::Wgsl,
                include_str!(concat!($name, ".wgsl")),
            )
            .source(
                rosetta_core::Language::Cuda,
                include_str!(concat!($name, ".cu")),
            )
            .source(
                rosetta_core::Language::Glsl,
                include_str!(concat!($name, ".comp")),
            )
            .source(
                rosetta_core::Language::OpenCl,
                include_str!(concat!($name, ".cl")),
            )
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use rosetta_core::Language;

    #[test]
    fn ops_have_unique_names_and_every_language() {
        let mut names: Vec<&str> = ops().iter().map(|o| o.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ops().len());
        for op in ops() {
            for def in op.kernels() {
                assert_eq!(def.constants()[0], "GROUP_SIZE", "{}", def.name());
                assert_eq!(
                    def.sources().languages(),
                    Language::ALL.to_vec(),
                    "{}",
                    def.name()
                );
                for language in Language::ALL.into_iter().filter(|l| l.is_text()) {
                    let text = def.sources().text(language).unwrap_or_default();
                    assert!(
                        text.contains(def.name()) || text.contains("void main"),
                        "{}: the {language} source lacks its entry point",
                        def.name()
                    );
                }
            }
        }
    }

    #[test]
    fn ops_are_found_whatever_their_case_and_a_wrong_name_lists_them() {
        assert_eq!(find_op("MatMul").map(|o| o.name()), Ok("matmul"));
        let message = find_op("convolve").map(|o| o.name()).unwrap_err();
        assert!(
            message.starts_with("unknown op 'convolve' (ops: "),
            "{message}"
        );
        for op in ops() {
            assert!(message.contains(op.name()), "{message}");
        }
    }

    #[test]
    fn case_names_are_unique_and_every_op_has_quick_cases() {
        let mut names = Vec::new();
        for op in ops() {
            let cases = op.cases();
            assert!(
                cases.iter().any(|c| c.quick),
                "{}: no quick case",
                op.name()
            );
            names.extend(cases.into_iter().map(|c| c.name));
        }
        let before = names.len();
        names.sort();
        names.dedup();
        assert_eq!(before, names.len(), "duplicate case names");
    }
}
