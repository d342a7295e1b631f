//! The reduce kernel's definition: its interface and its five versions.

#[path = "reduce.rs"]
mod cpu;

use rosetta_core::{Access, KernelDef};
use std::sync::{Arc, LazyLock};

/// The reduce kernel, in every language.
pub fn kernel() -> &'static Arc<KernelDef> {
    static KERNEL: LazyLock<Arc<KernelDef>> = LazyLock::new(|| {
        Arc::new(
            crate::with_sources!(
                KernelDef::builder("reduce")
                    .constants(["ELEM", "OP", "SUBGROUPS", "LAST_GROUP"])
                    .bindings([Access::Read, Access::ReadWrite, Access::ReadWrite])
                    .params(["n"]),
                "reduce"
            )
            .cpu(cpu::reduce)
            .build()
            .expect("built-in kernel definitions are valid (tested)"),
        )
    });
    &KERNEL
}

/// The order-preserving integer key of an f32's bits (see above).
pub fn ordered_key(bits: u32) -> u32 {
    cpu::ordered_key(bits)
}
