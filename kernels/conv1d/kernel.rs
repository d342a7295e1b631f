//! The conv1d kernel's definition: its interface and its five versions.

#[path = "conv1d.rs"]
mod cpu;

use rosetta_core::{Access, KernelDef};
use std::sync::{Arc, LazyLock};

/// The conv1d kernel, in every language.
pub fn kernel() -> &'static Arc<KernelDef> {
    static KERNEL: LazyLock<Arc<KernelDef>> = LazyLock::new(|| {
        Arc::new(
            crate::with_sources!(
                KernelDef::builder("conv1d")
                    .constants(["ITEMS", "TAPS"])
                    .bindings([Access::Read, Access::Read, Access::ReadWrite])
                    .params(["n"])
                    .dynamic_shared(true),
                "conv1d"
            )
            .cpu(cpu::conv1d)
            .build()
            .expect("built-in kernel definitions are valid (tested)"),
        )
    });
    &KERNEL
}
