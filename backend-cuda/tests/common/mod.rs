//! Helpers shared by this crate's integration tests.

#![allow(dead_code)] // each test file uses its own subset

use rosetta_core::{Access, Api, Backend, KernelDef, Language};
use std::sync::{Arc, LazyLock};

/// The CUDA devices, or `None` (with a loud skip) where CUDA is
/// unavailable; a failure instead when `ROSETTA_REQUIRE` names cuda.
pub fn devices(test: &str) -> Option<Vec<Arc<dyn Backend>>> {
    let required = rosetta_core::contract::required_apis()
        .expect("ROSETTA_REQUIRE parses")
        .contains(&Api::Cuda);
    match rosetta_backend_cuda::discover() {
        Ok(devices) if !devices.is_empty() => Some(devices),
        Ok(_) if required => panic!("cuda is required (ROSETTA_REQUIRE) but has no device"),
        Err(e) if required => panic!(
            "cuda is required (ROSETTA_REQUIRE) but failed: {}",
            e.chain()
        ),
        Ok(_) => {
            eprintln!("SKIPPED {test}: no cuda device");
            None
        }
        Err(e) => {
            eprintln!("SKIPPED {test}: {}", e.chain());
            None
        }
    }
}

/// `out[group] += Σ block[words − 1 − i]` after every thread filled
/// `block[i] = 3i + group` in `extern __shared__` memory of `words` words:
/// each group's total is `3·words·(words − 1)/2 + group·words` (mod 2^32).
pub fn fill_shared() -> &'static Arc<KernelDef> {
    static KERNEL: LazyLock<Arc<KernelDef>> = LazyLock::new(|| {
        KernelDef::builder("fill_shared")
            .bindings([Access::ReadWrite])
            .params(["words"])
            .dynamic_shared(true)
            .source(
                Language::Cuda,
                r#"extern "C" __global__ void fill_shared(unsigned int* out, unsigned int words) {
    extern __shared__ unsigned int block[];
    for (unsigned int i = threadIdx.x; i < words; i += GROUP_SIZE) {
        block[i] = 3u * i + blockIdx.x;
    }
    __syncthreads();
    unsigned int sum = 0u;
    for (unsigned int i = threadIdx.x; i < words; i += GROUP_SIZE) {
        sum += block[words - 1u - i];
    }
    atomicAdd(&out[blockIdx.x], sum);
}
"#,
            )
            .build_arc()
            .expect("a valid definition")
    });
    &KERNEL
}

/// What `fill_shared` leaves in `out[group]`.
pub fn fill_shared_expected(words: u32, group: u32) -> u32 {
    let words = u64::from(words);
    (3 * words * (words - 1) / 2 + u64::from(group) * words) as u32
}
