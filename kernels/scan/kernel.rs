//! The scan kernel's definition: its interface and its five versions.

#[path = "scan.rs"]
mod cpu;

use rosetta_core::{Access, KernelDef};
use std::sync::{Arc, LazyLock};

/// The scan kernel, in every language.
pub fn kernel() -> &'static Arc<KernelDef> {
    static KERNEL: LazyLock<Arc<KernelDef>> = LazyLock::new(|| {
        Arc::new(
            crate::with_sources!(
                KernelDef::builder("scan")
                    .constants(["ITEMS", "ELEM", "PHASE"])
                    .bindings([Access::Read, Access::ReadWrite, Access::Read])
                    .params(["n", "offsets_len"]),
                "scan"
            )
            .cpu(cpu::scan)
            .build()
            .expect("built-in kernel definitions are valid (tested)"),
        )
    });
    &KERNEL
}
