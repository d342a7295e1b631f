//! Copy: `dst[i] = src[i]` for `n` words — the benchmark's roofline, measured
//! through each API so "% of copy bandwidth" compares like with like.
//!
//! # Algorithm (every language)
//! Grid-stride over 4-word vectors (`v = t; v < n/4; v += T`), then the scalar
//! tail, as reduce's loads. No shared memory, no barriers.
//!
//! # Interface
//! - constants: `GROUP_SIZE`.
//! - bindings: 0 `src` (read, `n` words), 1 `dst` (read-write, `n` words).
//! - params: `n`.
//! - shared: none (`shared_bytes = 0`).

#[path = "copy.rs"]
mod cpu;

use crate::pass::compile;
use rosetta_core::{
    Access, Backend, Buffer, Error, KernelDef, KernelId, KernelSpec, Launch, Result, Sources,
};
use std::sync::Arc;

pub static KERNEL: KernelDef = KernelDef {
    name: "copy",
    constants: &["GROUP_SIZE"],
    bindings: &[Access::Read, Access::ReadWrite],
    params: &["n"],
    dynamic_shared: false,
    sources: Sources {
        wgsl: include_str!("copy.wgsl"),
        cuda: include_str!("copy.cu"),
        glsl: include_str!("copy.comp"),
        opencl: include_str!("copy.cl"),
    },
    cpu: cpu::copy,
};

pub struct CopyPlan {
    backend: Arc<dyn Backend>,
    words: usize,
    kernel: KernelId,
    launch: Launch,
}

impl CopyPlan {
    pub fn new(backend: &Arc<dyn Backend>, words: usize) -> Result<Self> {
        let caps = &backend.info().caps;
        let group_size = crate::preferred_group_size(caps);
        let wanted = (words as u64).div_ceil(u64::from(group_size) * 4).max(1);
        let groups = wanted.min(
            u64::from(caps.saturating_groups(group_size) * 4).min(u64::from(caps.max_groups[0])),
        );
        let launch = Launch::linear(groups as u32, group_size, 0);
        let spec = KernelSpec::new(&KERNEL, &[("GROUP_SIZE", group_size)])?;
        let kernel = compile(backend.as_ref(), &spec, &launch)?;
        Ok(CopyPlan {
            backend: Arc::clone(backend),
            words,
            kernel,
            launch,
        })
    }

    pub fn encode(&self, src: &Buffer, dst: &Buffer) -> Result<()> {
        let n = u32::try_from(self.words).map_err(|_| Error::ExceedsLimit {
            what: "copy length (words)",
            requested: self.words as u64,
            limit: u64::from(u32::MAX),
        })?;
        self.backend
            .launch(self.kernel, &self.launch, &[src.id(), dst.id()], &[n])
    }
}
