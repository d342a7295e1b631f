//! The kernel definition and its builder.

use super::fingerprint::Fingerprint;
use super::sources::{CpuKernel, Source, Sources};
use crate::api::Language;
use crate::error::{Error, Result};
use crate::workgroup::{Bindings, Group};
use std::borrow::Cow;
use std::sync::Arc;

/// How a kernel uses one of its buffer bindings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// Read only (`readonly`, `const`, `var<storage, read>`).
    Read,
    /// Read and written.
    ReadWrite,
}

/// One kernel: its interface and its sources (see the module docs for how
/// the interface reads in each language). Build with [`KernelDef::builder`].
#[derive(Debug, Clone)]
pub struct KernelDef {
    name: String,
    constants: Vec<String>,
    bindings: Vec<Access>,
    params: Vec<String>,
    dynamic_shared: bool,
    bounds_checked: bool,
    sources: Sources,
}

impl KernelDef {
    /// Start a definition of the kernel whose entry point is `name`.
    pub fn builder(name: impl Into<String>) -> KernelBuilder {
        KernelBuilder {
            def: KernelDef {
                name: name.into(),
                constants: vec!["GROUP_SIZE".into()],
                bindings: Vec::new(),
                params: Vec::new(),
                dynamic_shared: false,
                bounds_checked: true,
                sources: Sources::default(),
            },
        }
    }

    /// The entry point's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The constants, `GROUP_SIZE` first.
    pub fn constants(&self) -> &[String] {
        &self.constants
    }

    /// Position of a constant.
    pub fn constant_index(&self, name: &str) -> Option<usize> {
        self.constants.iter().position(|c| c == name)
    }

    /// The buffer bindings, in order.
    pub fn bindings(&self) -> &[Access] {
        &self.bindings
    }

    /// The param words' names, in order.
    pub fn params(&self) -> &[String] {
        &self.params
    }

    /// Whether CUDA / OpenCL take the shared memory as a dynamic block.
    pub fn dynamic_shared(&self) -> bool {
        self.dynamic_shared
    }

    /// Whether APIs that can check array accesses at run time (wgpu: naga's
    /// injected bounds checks) keep those checks. On by default for your
    /// kernels, as a safety net; rosetta's own kernels, in bounds by
    /// construction and tested unchecked on every other API, turn it off.
    pub fn bounds_checked(&self) -> bool {
        self.bounds_checked
    }

    /// The versions of the kernel.
    pub fn sources(&self) -> &Sources {
        &self.sources
    }

    /// The version for `language`, if any.
    pub fn source(&self, language: Language) -> Option<Source<'_>> {
        self.sources.get(language)
    }

    /// The version for `language`, or [`Error::Unsupported`] naming what is
    /// missing.
    pub fn require(&self, api: crate::Api) -> Result<Source<'_>> {
        let language = api.language();
        self.source(language).ok_or_else(|| {
            Error::unsupported(
                api,
                format!(
                    "kernel '{}' has no {language} version (it has: {})",
                    self.name,
                    self.sources
                        .languages()
                        .iter()
                        .map(|l| l.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })
    }

    /// A stable hash of the interface and the `language` version: equal for
    /// two definitions exactly when the kernel a backend of that language
    /// builds is the same (a Rust version counts by the identity of its
    /// closure, which the caller keeps alive).
    pub fn fingerprint(&self, language: Language) -> Fingerprint {
        let mut hash = Fingerprint::default()
            .str("rosetta kernel v1")
            .str(&self.name)
            .u64(self.constants.len() as u64);
        for c in &self.constants {
            hash = hash.str(c);
        }
        hash = hash.u64(self.bindings.len() as u64);
        for b in &self.bindings {
            hash = hash.u64(matches!(b, Access::ReadWrite) as u64);
        }
        hash = hash.u64(self.params.len() as u64);
        for p in &self.params {
            hash = hash.str(p);
        }
        hash = hash.u64(self.dynamic_shared as u64).str(language.name());
        match self.source(language) {
            Some(Source::Text(text)) => hash.str(text),
            Some(Source::Rust(kernel)) => {
                hash.u64(Arc::as_ptr(kernel) as *const () as usize as u64)
            }
            None => hash.str("<none>"),
        }
    }

    /// Whether `other` builds the same kernel for `language` (compared in
    /// full, not by hash).
    pub fn same_kernel(&self, other: &KernelDef, language: Language) -> bool {
        self.name == other.name
            && self.constants == other.constants
            && self.bindings == other.bindings
            && self.params == other.params
            && self.dynamic_shared == other.dynamic_shared
            && self.bounds_checked == other.bounds_checked
            && match (self.source(language), other.source(language)) {
                (Some(Source::Text(a)), Some(Source::Text(b))) => a == b,
                (Some(Source::Rust(a)), Some(Source::Rust(b))) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
    }
}

/// Builds a [`KernelDef`], checking it in [`KernelBuilder::build`].
#[derive(Debug, Clone)]
pub struct KernelBuilder {
    def: KernelDef,
}

impl KernelBuilder {
    /// The constants after `GROUP_SIZE` (which every kernel has first).
    pub fn constants<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.def.constants.extend(names.into_iter().map(Into::into));
        self
    }

    /// The buffer bindings, in order.
    pub fn bindings(mut self, bindings: impl IntoIterator<Item = Access>) -> Self {
        self.def.bindings.extend(bindings);
        self
    }

    /// The param words, in order.
    pub fn params<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.def.params.extend(names.into_iter().map(Into::into));
        self
    }

    /// CUDA / OpenCL take the workgroup memory as one dynamic block of
    /// [`crate::Launch::shared_bytes`].
    pub fn dynamic_shared(mut self, dynamic: bool) -> Self {
        self.def.dynamic_shared = dynamic;
        self
    }

    /// Keep (`true`, the default) or drop run-time bounds checks where an API
    /// injects them (wgpu). Dropping them is for kernels whose every access
    /// is in bounds by construction: an out-of-bounds access is then
    /// undefined behaviour, as it is on Vulkan, OpenCL and CUDA anyway (and
    /// [`crate::Backend::launch`]'s contract forbids it).
    pub fn bounds_checked(mut self, checked: bool) -> Self {
        self.def.bounds_checked = checked;
        self
    }

    /// The source text in a text language (`include_str!`'d or generated).
    pub fn source(mut self, language: Language, text: impl Into<Cow<'static, str>>) -> Self {
        self.def.sources.set_text(language, text.into());
        self
    }

    /// The Rust version, run by the CPU backend (a function or a closure).
    pub fn cpu(
        mut self,
        kernel: impl Fn(&mut Group<'_>, &Bindings<'_>) + Send + Sync + 'static,
    ) -> Self {
        self.def.sources.set_cpu(Arc::new(kernel) as CpuKernel);
        self
    }

    /// Check the definition: identifiers for the name, constants and params
    /// (each once), at least one binding and one version, no empty or
    /// NUL-carrying source text, and each constant but `GROUP_SIZE` named
    /// (as a whole word) in the CUDA and OpenCL sources, which get it as a
    /// `-D` define that nothing else would check.
    pub fn build(self) -> Result<KernelDef> {
        let def = self.def;
        let bad = |what: String| {
            Err(Error::InvalidArgument(format!(
                "kernel '{}': {what}",
                def.name
            )))
        };
        if !is_identifier(&def.name) {
            return bad("the name must be an identifier (letters, digits, '_')".into());
        }
        for (i, name) in def.constants.iter().chain(&def.params).enumerate() {
            if !is_identifier(name) {
                return bad(format!("'{name}' is not an identifier"));
            }
            if def
                .constants
                .iter()
                .chain(&def.params)
                .take(i)
                .any(|n| n == name)
            {
                return bad(format!("'{name}' is declared twice"));
            }
        }
        if def.bindings.is_empty() {
            return bad("a kernel needs at least one buffer binding".into());
        }
        if def.sources.languages().is_empty() {
            return bad("no source in any language".into());
        }
        for (language, text) in def.sources.iter_text() {
            if text.trim().is_empty() {
                return bad(format!("the {language} source is empty"));
            }
            if text.contains('\0') {
                return bad(format!("the {language} source contains a NUL byte"));
            }
            // A constant reaches CUDA and OpenCL C as `-DNAME=value`, which
            // nothing refuses when the source never names it: the value
            // would be ignored (a misspelt name, say, under a `#ifndef`
            // default). GLSL's compiler and naga refuse such a constant
            // themselves (it reaches them by id and by name).
            if matches!(language, Language::Cuda | Language::OpenCl) {
                // (GROUP_SIZE is every kernel's; a kernel may read its
                // group's size from the API instead.)
                let unused = def.constants.iter().skip(1).find(|c| !uses_word(text, c));
                if let Some(name) = unused {
                    return bad(format!(
                        "the constant '{name}' does not appear in the {language} source \
                         (it is passed as -D{name}=VALUE): its value would be ignored"
                    ));
                }
            }
        }
        Ok(def)
    }

    /// [`KernelBuilder::build`], shared: what [`crate::KernelSpec`] takes.
    pub fn build_arc(self) -> Result<Arc<KernelDef>> {
        self.build().map(Arc::new)
    }
}

/// Whether `word` occurs in `text` as a whole identifier (not inside a
/// longer one: no ASCII letter, digit or `_` on either side). A textual
/// test: in a kernel source an occurrence in a comment counts, which only
/// lets a constant through that the compiler would then ignore, as before
/// [`KernelBuilder::build`] checked. The command line uses it too, to find
/// the inputs an error message names.
pub fn uses_word(text: &str, word: &str) -> bool {
    let is_part = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        !text[..at].chars().next_back().is_some_and(is_part)
            && !text[at + word.len()..].chars().next().is_some_and(is_part)
    })
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> KernelBuilder {
        KernelDef::builder("k")
            .bindings([Access::Read])
            .source(Language::Wgsl, "fn k() {}")
    }

    #[test]
    fn builds_check_the_interface() {
        assert!(base().build().is_ok());
        assert!(KernelDef::builder("1x")
            .bindings([Access::Read])
            .source(Language::Wgsl, "x")
            .build()
            .is_err());
        assert!(
            base().constants(["GROUP_SIZE"]).build().is_err(),
            "declared twice"
        );
        assert!(base().params(["n", "n"]).build().is_err());
        assert!(
            base().source(Language::Cuda, "  ").build().is_err(),
            "empty source"
        );
        assert!(
            KernelDef::builder("k")
                .source(Language::Wgsl, "x")
                .build()
                .is_err(),
            "no binding"
        );
        assert!(
            KernelDef::builder("k")
                .bindings([Access::Read])
                .build()
                .is_err(),
            "no source"
        );
    }

    #[test]
    fn missing_languages_are_unsupported() {
        let def = base().build().unwrap();
        assert!(def.require(crate::Api::Wgpu).is_ok());
        match def.require(crate::Api::Vulkan) {
            Err(Error::Unsupported { what, .. }) => assert!(what.contains("no GLSL version")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn fingerprints_follow_the_source() {
        let a = base().build().unwrap();
        let b = base().source(Language::Wgsl, "fn k() { }").build().unwrap();
        assert_ne!(a.fingerprint(Language::Wgsl), b.fingerprint(Language::Wgsl));
        assert_eq!(a.fingerprint(Language::Cuda), b.fingerprint(Language::Cuda));
        assert!(a.same_kernel(&a.clone(), Language::Wgsl));
        assert!(!a.same_kernel(&b, Language::Wgsl));
        let c1 = base().cpu(|_, _| {}).build().unwrap();
        let c2 = base().cpu(|_, _| {}).build().unwrap();
        assert!(
            !c1.same_kernel(&c2, Language::Rust),
            "closures count by identity"
        );
        assert!(c1.same_kernel(&c1.clone(), Language::Rust));
    }

    /// A CUDA or OpenCL source that never names a constant is refused (its
    /// `-D` value would be ignored); a name inside a longer identifier does
    /// not count; WGSL and GLSL are left to their compilers.
    #[test]
    fn macro_languages_must_name_every_constant() {
        let with = |language, text: &'static str| {
            KernelDef::builder("k")
                .constants(["TILE"])
                .bindings([Access::Read])
                .source(language, text)
                .build()
        };
        for language in [Language::Cuda, Language::OpenCl] {
            let e = with(language, "void k() { int t = TILES + MY_TILE + TILE_2; }")
                .unwrap_err()
                .to_string();
            assert!(e.contains("'TILE' does not appear"), "{e}");
            assert!(e.contains(&format!("{language} source")), "{e}");
            for used in ["int t = TILE;", "TILE", "x[TILE*2]", "#if TILE > 1"] {
                assert!(with(language, used).is_ok(), "{language}: {used}");
            }
        }
        assert!(with(Language::Wgsl, "fn k() {}").is_ok());
        assert!(with(Language::Glsl, "void main() {}").is_ok());
        assert!(uses_word("a TILE", "TILE") && uses_word("TILE)", "TILE"));
        assert!(!uses_word("TILE_K", "TILE") && !uses_word("_TILE", "TILE"));
        assert!(!uses_word("", "TILE"));
    }

    /// The command line's use: the inputs an error message names (`A`, not
    /// the A inside `THREAD_M`).
    #[test]
    fn input_names_are_found_as_whole_words() {
        assert!(uses_word("A is 2x3, B is 2x4", "A"));
        assert!(uses_word("A is 2x3, B is 2x4", "B"));
        assert!(uses_word("the filter (TAPS) is even", "TAPS"));
        assert!(!uses_word("kernel 'matmul THREAD_M=2'", "A"));
        assert!(!uses_word("TAPS_3 failed", "TAPS"));
        assert!(!uses_word("MATRIX", "A"));
        assert!(!uses_word("", "X"));
    }
}
