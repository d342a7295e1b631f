//! A kernel plus a value for each of its constants.

use super::def::KernelDef;
use crate::error::{Error, Result};
use std::sync::Arc;

/// A kernel plus a value for every one of its constants: what a backend
/// compiles and caches.
#[derive(Debug, Clone)]
pub struct KernelSpec {
    def: Arc<KernelDef>,
    values: Vec<u32>,
}

impl KernelSpec {
    /// Build a spec from `(name, value)` pairs; every constant must be given
    /// exactly once.
    pub fn new(def: &Arc<KernelDef>, constants: &[(&str, u32)]) -> Result<Self> {
        let mut values = vec![None; def.constants().len()];
        for &(name, value) in constants {
            let index = def.constant_index(name).ok_or_else(|| {
                Error::InvalidArgument(format!("kernel '{}' has no constant '{name}'", def.name()))
            })?;
            if values[index].replace(value).is_some() {
                return Err(Error::InvalidArgument(format!(
                    "constant '{name}' of kernel '{}' given twice",
                    def.name()
                )));
            }
        }
        let values = values
            .into_iter()
            .zip(def.constants())
            .map(|(value, name)| {
                value.ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "constant '{name}' of kernel '{}' not given",
                        def.name()
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        if values[0] == 0 {
            return Err(Error::InvalidArgument(format!(
                "kernel '{}': GROUP_SIZE must be at least 1",
                def.name()
            )));
        }
        Ok(KernelSpec {
            def: Arc::clone(def),
            values,
        })
    }

    /// The kernel.
    pub fn def(&self) -> &Arc<KernelDef> {
        &self.def
    }

    /// Values in the order of the kernel's constants.
    pub fn values(&self) -> &[u32] {
        &self.values
    }

    /// The `GROUP_SIZE` the kernel is built for.
    pub fn group_size(&self) -> u32 {
        self.values[0]
    }

    /// `(name, value)` pairs in declaration order.
    pub fn constants(&self) -> impl Iterator<Item = (&str, u32)> + '_ {
        self.def
            .constants()
            .iter()
            .map(String::as_str)
            .zip(self.values.iter().copied())
    }

    /// The value of one constant.
    pub fn value(&self, name: &str) -> Option<u32> {
        self.def.constant_index(name).map(|i| self.values[i])
    }

    /// `name C1=v1 C2=v2 ...`, for logs and compile errors.
    pub fn label(&self) -> String {
        let mut key = self.def.name().to_string();
        for (name, value) in self.constants() {
            key.push_str(&format!(" {name}={value}"));
        }
        key
    }

    /// `-DNAME=valueu` options for the C-family compilers (CUDA, OpenCL).
    pub fn defines(&self) -> Vec<String> {
        self.constants()
            .map(|(name, value)| format!("-D{name}={value}u"))
            .collect()
    }
}
