//! The litmus kernels: one per test, each its harness (`common.*`) followed
//! by the test (`mp.*`, `sb.*`, `lb.*`, `corr.*`), in every language.

use super::spec::Test;
use super::{corr, lb, mp, sb};
use rosetta_core::{Access, KernelDef, Language};
use std::sync::{Arc, LazyLock};

/// The constants after `GROUP_SIZE`, in order.
pub(crate) const CONSTANTS: [&str; 4] = ["SCOPE", "SYNC", "STRIDE", "SHARED_WORDS"];

/// The params, in order (see `common.wgsl` for what each means).
pub(crate) const PARAMS: [&str; 8] = [
    "test_groups",
    "groups",
    "local_mul",
    "y_mul",
    "stress_iters",
    "pre_iters",
    "pattern",
    "spin_iters",
];

/// The bindings: `locs`, `results`, `plan`, `scratch`.
pub(crate) const BINDINGS: [Access; 4] = [
    Access::ReadWrite,
    Access::ReadWrite,
    Access::Read,
    Access::ReadWrite,
];

/// A builder with the harness and the test `$name` in each text language.
macro_rules! litmus_sources {
    ($builder:expr, $name:literal) => {
        $builder
            .source(
                Language::Wgsl,
                concat!(
                    include_str!("common.wgsl"),
                    include_str!(concat!($name, ".wgsl"))
                ),
            )
            .source(
                Language::Cuda,
                concat!(
                    include_str!("common.cu"),
                    include_str!(concat!($name, ".cu"))
                ),
            )
            .source(
                Language::Glsl,
                concat!(
                    include_str!("common.comp"),
                    include_str!(concat!($name, ".comp"))
                ),
            )
            .source(
                Language::OpenCl,
                concat!(
                    include_str!("common.cl"),
                    include_str!(concat!($name, ".cl"))
                ),
            )
    };
}

fn builder(name: &str) -> rosetta_core::KernelBuilder {
    KernelDef::builder(name)
        .constants(CONSTANTS)
        .bindings(BINDINGS)
        .params(PARAMS)
}

fn build(builder: rosetta_core::KernelBuilder) -> Arc<KernelDef> {
    Arc::new(
        builder
            .build()
            .expect("built-in kernel definitions are valid (tested)"),
    )
}

/// The kernel of `test`, in every language.
pub fn kernel(test: Test) -> &'static Arc<KernelDef> {
    static MP: LazyLock<Arc<KernelDef>> =
        LazyLock::new(|| build(litmus_sources!(builder("litmus_mp"), "mp").cpu(mp::litmus_mp)));
    static SB: LazyLock<Arc<KernelDef>> =
        LazyLock::new(|| build(litmus_sources!(builder("litmus_sb"), "sb").cpu(sb::litmus_sb)));
    static LB: LazyLock<Arc<KernelDef>> =
        LazyLock::new(|| build(litmus_sources!(builder("litmus_lb"), "lb").cpu(lb::litmus_lb)));
    static CORR: LazyLock<Arc<KernelDef>> = LazyLock::new(|| {
        build(litmus_sources!(builder("litmus_corr"), "corr").cpu(corr::litmus_corr))
    });
    match test {
        Test::Mp => &MP,
        Test::Sb => &SB,
        Test::Lb => &LB,
        Test::Corr => &CORR,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_test_has_every_language_and_its_entry_point() {
        for test in Test::ALL {
            let def = kernel(test);
            assert_eq!(def.sources().languages(), Language::ALL.to_vec());
            for language in Language::ALL.into_iter().filter(|l| l.is_text()) {
                let text = def.sources().text(language).unwrap_or_default();
                let entry = if language == Language::Glsl {
                    "void main()"
                } else {
                    def.name()
                };
                assert!(text.contains(entry), "{}: {language}", def.name());
                assert!(text.is_ascii(), "{}: {language} is not ASCII", def.name());
            }
            let glsl = def.sources().text(Language::Glsl).unwrap_or_default();
            assert!(glsl.starts_with("#version 450"), "{}", def.name());
        }
    }
}
