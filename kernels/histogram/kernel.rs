//! The histogram kernel's definition: its interface and its five versions.

#[path = "histogram.rs"]
mod cpu;

use rosetta_core::{Access, KernelDef};
use std::sync::{Arc, LazyLock};

/// The histogram kernel, in every language.
pub fn kernel() -> &'static Arc<KernelDef> {
    static KERNEL: LazyLock<Arc<KernelDef>> = LazyLock::new(|| {
        Arc::new(
            crate::with_sources!(
                KernelDef::builder("histogram")
                    .constants(["BINS", "SHARED_BINS", "INPUT"])
                    .bindings([Access::Read, Access::ReadWrite, Access::Read])
                    .params(["n", "lo", "hi", "scale"])
                    .dynamic_shared(true),
                "histogram"
            )
            .cpu(cpu::histogram)
            .build()
            .expect("built-in kernel definitions are valid (tested)"),
        )
    });
    &KERNEL
}
