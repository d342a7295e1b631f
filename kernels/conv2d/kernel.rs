//! The conv2d kernels' definitions: the halo tiles in shared memory (tiles
//! and windows), the windows read straight from global memory, and the
//! direct sums of any filter (one output per invocation, filter chunks over
//! launches), each in five languages.

#[path = "conv2d.rs"]
mod cpu;
#[path = "conv2d_direct.rs"]
mod cpu_direct;
#[path = "conv2d_global.rs"]
mod cpu_global;

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

/// The conv2d kernel that reads straight from global memory (the `global*`
/// variants; no shared memory), in every language.
pub fn global_kernel() -> &'static Arc<KernelDef> {
    static KERNEL: LazyLock<Arc<KernelDef>> = LazyLock::new(|| {
        Arc::new(
            crate::with_sources!(
                KernelDef::builder("conv2d_global")
                    .constants(["ROWS", "KH", "KW", "BORDER", "ELEM"])
                    .bindings([Access::Read, Access::Read, Access::ReadWrite])
                    .params(["height", "width"]),
                "conv2d_global"
            )
            .cpu(cpu_global::conv2d_global)
            .build()
            .expect("built-in kernel definitions are valid (tested)"),
        )
    });
    &KERNEL
}

/// The conv2d kernel that sums any filter straight from global memory, one
/// output per invocation, filter values `[f_begin, f_end)` per launch (the
/// `direct` variant; no shared memory), in every language.
pub fn direct_kernel() -> &'static Arc<KernelDef> {
    static KERNEL: LazyLock<Arc<KernelDef>> = LazyLock::new(|| {
        Arc::new(
            crate::with_sources!(
                KernelDef::builder("conv2d_direct")
                    .constants(["KH", "KW", "BORDER", "ELEM"])
                    .bindings([Access::Read, Access::Read, Access::ReadWrite])
                    .params(["height", "width", "f_begin", "f_end"]),
                "conv2d_direct"
            )
            .cpu(cpu_direct::conv2d_direct)
            .build()
            .expect("built-in kernel definitions are valid (tested)"),
        )
    });
    &KERNEL
}
