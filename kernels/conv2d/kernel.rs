//! The conv2d kernel's definition: its interface and its five versions.

#[path = "conv2d.rs"]
mod cpu;

use rosetta_core::{Access, KernelDef};
use std::sync::{Arc, LazyLock};

/// The conv2d kernel, in every language.
pub fn kernel() -> &'static Arc<KernelDef> {
    static KERNEL: LazyLock<Arc<KernelDef>> = LazyLock::new(|| {
        Arc::new(
            crate::with_sources!(
                KernelDef::builder("conv2d")
                    .constants(["TILE_W", "TILE_H", "KH", "KW", "BORDER", "ELEM", "WINDOW"])
                    .bindings([Access::Read, Access::Read, Access::ReadWrite])
                    .params(["height", "width"])
                    .dynamic_shared(true),
                "conv2d"
            )
            .cpu(cpu::conv2d)
            .build()
            .expect("built-in kernel definitions are valid (tested)"),
        )
    });
    &KERNEL
}
