//! The kernel cache: one compiled kernel per (kernel identity, constants).
//!
//! Keyed by the kernel's fingerprint in the device's language (interface +
//! source text, or the identity of a Rust closure) and the constant values —
//! never by name alone, so a user kernel named like a built-in one is a
//! different kernel. A hash match is confirmed by comparing the definitions
//! in full, so two kernels can never share an entry by collision.

use crate::api::Language;
use crate::kernel::KernelSpec;
use std::collections::HashMap;
use std::sync::Arc;

/// One cached kernel: its spec (which keeps the definition, and so any Rust
/// closure, alive) and the driver's compiled object.
pub(crate) struct Entry<K> {
    pub(crate) spec: KernelSpec,
    pub(crate) compiled: Arc<K>,
}

pub(crate) struct KernelCache<K> {
    language: Language,
    entries: HashMap<(u64, Vec<u32>), Vec<Entry<K>>>,
}

impl<K> KernelCache<K> {
    pub(crate) fn new(language: Language) -> Self {
        KernelCache {
            language,
            entries: HashMap::new(),
        }
    }

    fn key(&self, spec: &KernelSpec) -> (u64, Vec<u32>) {
        (
            spec.def().fingerprint(self.language).short(),
            spec.values().to_vec(),
        )
    }

    /// The compiled kernel of `spec`, if cached.
    pub(crate) fn get(&self, spec: &KernelSpec) -> Option<Arc<K>> {
        self.entries.get(&self.key(spec)).and_then(|bucket| {
            bucket
                .iter()
                .find(|e| {
                    Arc::ptr_eq(e.spec.def(), spec.def())
                        || e.spec.def().same_kernel(spec.def(), self.language)
                })
                .map(|e| Arc::clone(&e.compiled))
        })
    }

    pub(crate) fn insert(&mut self, spec: &KernelSpec, compiled: Arc<K>) {
        let key = self.key(spec);
        self.entries.entry(key).or_default().push(Entry {
            spec: spec.clone(),
            compiled,
        });
    }

    /// Every entry, for the device's teardown.
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = Entry<K>> + '_ {
        self.entries.drain().flat_map(|(_, bucket)| bucket)
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.values().map(Vec::len).sum()
    }
}
