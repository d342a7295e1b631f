//! Compile + cache: the CPU "compiles" a spec by resolving its Rust kernel and
//! constants once; the cache key is the spec's name and constants.

use rosetta_core::workgroup::CpuKernel;
use rosetta_core::{Error, KernelDef, KernelId, KernelSpec, Result};
use std::collections::HashMap;
use std::sync::Mutex;

pub struct Compiled {
    pub def: &'static KernelDef,
    pub run: CpuKernel,
    pub constants: Vec<u32>,
}

#[derive(Default)]
pub struct Cache {
    inner: Mutex<CacheInner>,
}

#[derive(Default)]
struct CacheInner {
    by_key: HashMap<String, KernelId>,
    kernels: Vec<std::sync::Arc<Compiled>>,
}

impl Cache {
    pub fn compile(&self, spec: &KernelSpec) -> Result<KernelId> {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let key = spec.cache_key();
        if let Some(&id) = inner.by_key.get(&key) {
            return Ok(id);
        }
        tracing::debug!(kernel = %key, "cpu: resolving kernel");
        let id = KernelId(inner.kernels.len() as u64);
        inner.kernels.push(std::sync::Arc::new(Compiled {
            def: spec.kernel,
            run: spec.kernel.cpu,
            constants: spec.values.clone(),
        }));
        inner.by_key.insert(key, id);
        Ok(id)
    }

    pub fn get(&self, id: KernelId) -> Result<std::sync::Arc<Compiled>> {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner
            .kernels
            .get(id.0 as usize)
            .cloned()
            .ok_or_else(|| Error::InvalidArgument(format!("unknown cpu kernel {}", id.0)))
    }
}
