//! The contract suite's kernels: `probe` in every language, a variant with
//! the same name and interface that computes something else, and `broken`,
//! which fails to compile in every language.

use crate::api::Language;
use crate::error::Result;
use crate::kernel::{Access, KernelBuilder, KernelDef};
use crate::workgroup::{Bindings, GlobalWord, Group};
use std::sync::{Arc, LazyLock};

fn probe_interface() -> KernelBuilder {
    KernelDef::builder("probe")
        .bindings([Access::Read, Access::ReadWrite, Access::ReadWrite])
        .params(["n", "add"])
}

/// The Rust version of the probe (see `probe.wgsl`), adding `times · add`.
fn probe_cpu(times: u32) -> impl Fn(&mut Group<'_>, &Bindings<'_>) + Send + Sync {
    move |group, bindings| {
        let (n, add) = (group.params[0], group.params[1].wrapping_mul(times));
        let size = group.size;
        let base = group.id[0] * size;
        let (input, output, counter) = (bindings.read(0), bindings.write(1), bindings.write(2));
        // Phase 1: load. -- barrier --
        for lid in 0..size {
            let i = base + lid;
            group.shared[lid as usize] = if i < n { input[i as usize] } else { 0 };
        }
        // Phase 2: store reversed, count.
        for lid in 0..size {
            let i = base + lid;
            if i < n {
                output[i as usize]
                    .store_u32(group.shared[(size - 1 - lid) as usize].wrapping_add(add));
                counter[0].atomic_add(1);
            }
        }
    }
}

/// `output[base + lid] = input[base + GROUP_SIZE − 1 − lid] + add` (0 past
/// `n`), counting written words in `counter[0]`; in every language.
pub fn probe() -> &'static Arc<KernelDef> {
    static PROBE: LazyLock<Arc<KernelDef>> = LazyLock::new(|| {
        Arc::new(
            probe_interface()
                .source(Language::Wgsl, include_str!("probe.wgsl"))
                .source(Language::Glsl, include_str!("probe.comp"))
                .source(Language::Cuda, include_str!("probe.cu"))
                .source(Language::OpenCl, include_str!("probe.cl"))
                .cpu(probe_cpu(1))
                .build()
                .expect("the probe kernel's definition is valid (unit-tested)"),
        )
    });
    &PROBE
}

/// What the probe writes for `input` (one launch, `add`).
pub fn probe_expected(input: &[u32], group: u32, add: u32) -> Vec<u32> {
    let n = input.len();
    (0..n)
        .map(|i| {
            let g = group as usize;
            let mirror = i / g * g + (g - 1 - i % g);
            input.get(mirror).copied().unwrap_or(0).wrapping_add(add)
        })
        .collect()
}

/// A kernel named `probe`, with the probe's interface, that adds `2·add`.
pub(crate) fn probe_adding_twice() -> Result<Arc<KernelDef>> {
    let twice = |text: &str, from: &str, to: &str| text.replace(from, to);
    probe_interface()
        .source(
            Language::Wgsl,
            twice(
                include_str!("probe.wgsl"),
                "+ params.add;",
                "+ 2u * params.add;",
            ),
        )
        .source(
            Language::Glsl,
            twice(
                include_str!("probe.comp"),
                "+ params.add;",
                "+ 2u * params.add;",
            ),
        )
        .source(
            Language::Cuda,
            twice(include_str!("probe.cu"), "+ add;", "+ 2u * add;"),
        )
        .source(
            Language::OpenCl,
            twice(include_str!("probe.cl"), "+ add;", "+ 2u * add;"),
        )
        .cpu(probe_cpu(2))
        .build_arc()
}

/// The probe with its workgroup size written as `size` instead of
/// `GROUP_SIZE` in the languages that declare one (WGSL, GLSL, OpenCL C);
/// CUDA and Rust, which take the size from the launch, are the probe's.
pub(crate) fn probe_of_fixed_size(size: u32) -> Result<Arc<KernelDef>> {
    let fixed = |text: &str, from: &str, to: String| {
        assert!(text.contains(from), "the probe declares {from}");
        text.replace(from, &to)
    };
    probe_interface()
        .source(
            Language::Wgsl,
            fixed(
                include_str!("probe.wgsl"),
                "@workgroup_size(GROUP_SIZE)",
                format!("@workgroup_size({size})"),
            ),
        )
        .source(
            Language::Glsl,
            fixed(
                include_str!("probe.comp"),
                "layout(local_size_x_id = 0) in;",
                format!("layout(local_size_x = {size}) in;"),
            ),
        )
        .source(Language::Cuda, include_str!("probe.cu"))
        .source(
            Language::OpenCl,
            fixed(
                include_str!("probe.cl"),
                "reqd_work_group_size(GROUP_SIZE, 1, 1)",
                format!("reqd_work_group_size({size}, 1, 1)"),
            ),
        )
        .cpu(probe_cpu(1))
        .build_arc()
}

/// The probe with more parameter data in its source than its interface
/// declares (two params): a third word in every language (the Rust version
/// reads a third param).
pub(crate) fn probe_with_more_params() -> Result<Arc<KernelDef>> {
    let more = |text: &str, from: &str, to: &str| {
        assert!(text.contains(from), "the probe declares {from}");
        text.replace(from, to)
    };
    probe_interface()
        .source(
            Language::Wgsl,
            more(
                include_str!("probe.wgsl"),
                "    add: u32,\n}",
                "    add: u32,\n    more: u32,\n}",
            ),
        )
        .source(
            Language::Glsl,
            more(
                include_str!("probe.comp"),
                "{ uint n; uint add; }",
                "{ uint n; uint add; uint more; }",
            ),
        )
        .source(
            Language::Cuda,
            more(
                include_str!("probe.cu"),
                "unsigned int n, unsigned int add)",
                "unsigned int n, unsigned int add, unsigned int more)",
            ),
        )
        .source(
            Language::OpenCl,
            more(
                include_str!("probe.cl"),
                "uint n, uint add)",
                "uint n, uint add, uint more)",
            ),
        )
        .cpu(|group, bindings| {
            let more = group.params[2];
            bindings.write(1)[0].store_u32(more);
        })
        .build_arc()
}

/// A kernel that fails to compile in every text language, naming
/// `undefined_name`.
pub fn broken() -> &'static Arc<KernelDef> {
    static BROKEN: LazyLock<Arc<KernelDef>> = LazyLock::new(|| {
        Arc::new(
            KernelDef::builder("broken")
                .bindings([Access::ReadWrite])
                .params(["n"])
                .source(
                    Language::Wgsl,
                    "override GROUP_SIZE: u32;\n\
                     @group(0) @binding(0) var<storage, read_write> data: array<u32>;\n\
                     @compute @workgroup_size(GROUP_SIZE)\nfn broken() { data[0] = undefined_name; }\n",
                )
                .source(
                    Language::Cuda,
                    "extern \"C\" __global__ void broken(unsigned int* data, unsigned int n)\n\
                     { data[0] = undefined_name; }\n",
                )
                .source(
                    Language::Glsl,
                    "#version 450\nlayout(local_size_x_id = 0) in;\n\
                     layout(constant_id = 0) const uint GROUP_SIZE = 64;\n\
                     layout(std430, set = 0, binding = 0) buffer Data { uint data[]; };\n\
                     layout(push_constant) uniform Params { uint n; };\n\
                     void main() { data[0] = undefined_name; }\n",
                )
                .source(
                    Language::OpenCl,
                    "__kernel void broken(__global uint* data, uint n) { data[0] = undefined_name; }\n",
                )
                .cpu(|_, _| {})
                .build()
                .expect("the broken kernel's definition is valid (unit-tested)"),
        )
    });
    &BROKEN
}

#[cfg(test)]
mod tests {
    #[test]
    fn contract_kernels_build() {
        assert_eq!(super::probe().sources().languages().len(), 5);
        assert_eq!(super::broken().name(), "broken");
        assert!(super::probe_adding_twice().is_ok());
        assert!(super::probe_of_fixed_size(32).is_ok());
        assert!(super::probe_with_more_params().is_ok());
        assert_eq!(super::probe_expected(&[1, 2, 3, 4], 2, 1), vec![3, 2, 5, 4]);
        assert_eq!(super::probe_expected(&[1, 2, 3], 2, 0), vec![2, 1, 0]);
    }
}
