//! The conv1d kernels' definitions: the halo tiles in shared memory, the
//! register window and the direct sum from global memory, each in five
//! languages.

#[path = "conv1d.rs"]
mod cpu;
#[path = "conv1d_direct.rs"]
mod cpu_direct;
#[path = "conv1d_window.rs"]
mod cpu_window;

use rosetta_core::{Access, KernelDef};
use std::sync::{Arc, LazyLock};

/// The conv1d kernel of halo tiles in shared memory, in every language.
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

/// The conv1d kernel of register windows (no shared memory), in every
/// language.
pub fn window_kernel() -> &'static Arc<KernelDef> {
    static KERNEL: LazyLock<Arc<KernelDef>> = LazyLock::new(|| {
        Arc::new(
            crate::with_sources!(
                KernelDef::builder("conv1d_window")
                    .constants(["ITEMS", "TAPS"])
                    .bindings([Access::Read, Access::Read, Access::ReadWrite])
                    .params(["n"]),
                "conv1d_window"
            )
            .cpu(cpu_window::conv1d_window)
            .build()
            .expect("built-in kernel definitions are valid (tested)"),
        )
    });
    &KERNEL
}

/// The conv1d kernel that reads the taps straight from global memory (no
/// shared memory, no private arrays; a range of taps per launch), in every
/// language.
pub fn direct_kernel() -> &'static Arc<KernelDef> {
    static KERNEL: LazyLock<Arc<KernelDef>> = LazyLock::new(|| {
        Arc::new(
            crate::with_sources!(
                KernelDef::builder("conv1d_direct")
                    .constants(["TAPS"])
                    .bindings([Access::Read, Access::Read, Access::ReadWrite])
                    .params(["n", "f_begin", "f_end"]),
                "conv1d_direct"
            )
            .cpu(cpu_direct::conv1d_direct)
            .build()
            .expect("built-in kernel definitions are valid (tested)"),
        )
    });
    &KERNEL
}
