//! The matmul kernels' definitions: the tiled product (pass 1) and the
//! split-K sum (pass 2), each in five languages.

#[path = "matmul.rs"]
mod cpu;

use rosetta_core::{Access, KernelDef};
use std::sync::{Arc, LazyLock};

/// The tiled matmul kernel (pass 1), in every language.
pub fn kernel() -> &'static Arc<KernelDef> {
    static KERNEL: LazyLock<Arc<KernelDef>> = LazyLock::new(|| {
        Arc::new(
            crate::with_sources!(
                KernelDef::builder("matmul")
                    .constants([
                        "TILE_M",
                        "TILE_N",
                        "TILE_K",
                        "THREAD_M",
                        "THREAD_N",
                        "VECTOR_STORES",
                    ])
                    .bindings([Access::Read, Access::Read, Access::ReadWrite])
                    .params(["m", "n", "k", "chunk"])
                    .dynamic_shared(true),
                "matmul"
            )
            .cpu(cpu::matmul)
            .build()
            .expect("built-in kernel definitions are valid (tested)"),
        )
    });
    &KERNEL
}

/// The split-K sum (pass 2), in every language.
pub fn sum_kernel() -> &'static Arc<KernelDef> {
    static KERNEL: LazyLock<Arc<KernelDef>> = LazyLock::new(|| {
        Arc::new(
            crate::with_sources!(
                KernelDef::builder("matmul_sum")
                    .bindings([Access::Read, Access::ReadWrite])
                    .params(["len", "planes", "fan_in"]),
                "matmul_sum"
            )
            .cpu(cpu::matmul_sum)
            .build()
            .expect("built-in kernel definitions are valid (tested)"),
        )
    });
    &KERNEL
}
