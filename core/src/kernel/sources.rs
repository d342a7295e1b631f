//! A kernel's sources, keyed by language.

use crate::api::Language;
use crate::workgroup::{Bindings, Group};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// The Rust version of a kernel: runs one whole workgroup under the CPU
/// workgroup model (see [`crate::workgroup`]). May capture state.
pub type CpuKernel = Arc<dyn Fn(&mut Group<'_>, &Bindings<'_>) + Send + Sync>;

/// One language's version of a kernel.
#[derive(Clone)]
pub enum Source<'a> {
    /// Source text (WGSL, CUDA C, GLSL, OpenCL C).
    Text(&'a str),
    /// The Rust version, for the CPU backend.
    Rust(&'a CpuKernel),
}

impl fmt::Debug for Source<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Text(text) => write!(f, "Text({} bytes)", text.len()),
            Source::Rust(_) => f.write_str("Rust(closure)"),
        }
    }
}

/// A kernel's versions, at most one per language. Text may be borrowed from
/// the program (`include_str!`) or owned (generated at run time).
#[derive(Clone, Default)]
pub struct Sources {
    text: BTreeMap<Language, Cow<'static, str>>,
    cpu: Option<CpuKernel>,
}

impl Sources {
    /// Add or replace the text of a text language. Rust versions go through
    /// [`Sources::set_cpu`].
    pub(crate) fn set_text(&mut self, language: Language, text: Cow<'static, str>) {
        self.text.insert(language, text);
    }

    /// Add or replace the Rust version.
    pub(crate) fn set_cpu(&mut self, kernel: CpuKernel) {
        self.cpu = Some(kernel);
    }

    /// The version in `language`, if the kernel has one.
    pub fn get(&self, language: Language) -> Option<Source<'_>> {
        if language == Language::Rust {
            self.cpu.as_ref().map(Source::Rust)
        } else {
            self.text.get(&language).map(|t| Source::Text(t))
        }
    }

    /// The text in a text language.
    pub fn text(&self, language: Language) -> Option<&str> {
        self.text.get(&language).map(|t| t.as_ref())
    }

    /// The Rust version.
    pub fn cpu(&self) -> Option<&CpuKernel> {
        self.cpu.as_ref()
    }

    /// The languages present, in [`Language`] order.
    pub fn languages(&self) -> Vec<Language> {
        let mut all: Vec<Language> = self.text.keys().copied().collect();
        if self.cpu.is_some() {
            all.push(Language::Rust);
        }
        all.sort();
        all
    }

    pub(crate) fn iter_text(&self) -> impl Iterator<Item = (Language, &str)> {
        self.text.iter().map(|(l, t)| (*l, t.as_ref()))
    }
}

impl fmt::Debug for Sources {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.languages()).finish()
    }
}
