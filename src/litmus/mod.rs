//! Memory-model litmus tests (the `memory-model` conformance group).

use rosetta_kernels::op::Case;

/// The memory-model cases.
pub fn cases() -> Vec<Case> {
    Vec::new()
}
