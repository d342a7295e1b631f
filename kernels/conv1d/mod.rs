//! Conv1d: `out[i] = Σ_j taps[j] · x[i + j − TAPS/2]`, zero outside the signal
//! (cross-correlation, centred, same-size output).
//!
//! # Algorithm (every language)
//! Halo tiles in shared memory. A tile is `TILE = GROUP_SIZE · ITEMS` outputs.
//! 1. Load the taps into `shared_taps` (`for j = lid; j < TAPS; j += GROUP_SIZE`).
//! 2. Grid-stride over tiles: `for tile = group_id.x; tile < tiles; tile += num_groups.x`
//!    with `tiles = ceil(n / TILE)`:
//!    a. load `shared_signal[s] = x[tile·TILE − TAPS/2 + s]` (0 outside `[0, n)`)
//!    for `s = lid; s < TILE + TAPS − 1; s += GROUP_SIZE`; barrier (this
//!    barrier also covers step 1 on the first tile);
//!    b. each invocation computes outputs `o = lid + r·GROUP_SIZE`, `r < ITEMS`
//!    (consecutive invocations, consecutive outputs):
//!    `Σ_j shared_taps[j] · shared_signal[o + j]`, and stores it if
//!    `tile·TILE + o < n`;
//!    c. barrier (before the next tile overwrites `shared_signal`).
//!
//! # Interface
//! - constants: `GROUP_SIZE`, `ITEMS`, `TAPS` (odd).
//! - bindings: 0 `x` (read, `n` f32), 1 `taps` (read, `TAPS` f32), 2 `out`
//!   (read-write, `n` f32).
//! - params: `n`.
//! - shared: `shared_taps` (`TAPS` f32) then `shared_signal`
//!   (`GROUP_SIZE·ITEMS + TAPS − 1` f32); **dynamic** in CUDA and OpenCL (one
//!   block, `shared_signal` starting at word `TAPS`), static arrays in WGSL/GLSL.

#[path = "conv1d.rs"]
mod cpu;

use crate::pass::compile;
use rosetta_core::ops::Conv1dSpec;
use rosetta_core::{
    Access, Backend, Buffer, Error, KernelDef, KernelId, KernelSpec, Launch, Result, Sources,
};
use std::sync::Arc;

pub static KERNEL: KernelDef = KernelDef {
    name: "conv1d",
    constants: &["GROUP_SIZE", "ITEMS", "TAPS"],
    bindings: &[Access::Read, Access::Read, Access::ReadWrite],
    params: &["n"],
    dynamic_shared: true,
    sources: Sources {
        wgsl: include_str!("conv1d.wgsl"),
        cuda: include_str!("conv1d.cu"),
        glsl: include_str!("conv1d.comp"),
        opencl: include_str!("conv1d.cl"),
    },
    cpu: cpu::conv1d,
};

/// Shared memory of one configuration, in bytes.
fn shared_bytes(group_size: u32, items: u32, taps: u32) -> u64 {
    (u64::from(group_size) * u64::from(items) + 2 * u64::from(taps) - 1) * 4
}

pub struct Conv1dPlan {
    backend: Arc<dyn Backend>,
    spec: Conv1dSpec,
    kernel: KernelId,
    launch: Launch,
}

impl Conv1dPlan {
    pub fn new(backend: &Arc<dyn Backend>, spec: &Conv1dSpec) -> Result<Self> {
        spec.validate()?;
        let caps = &backend.info().caps;
        let max_shared = u64::from(caps.max_shared_bytes);
        let taps = u32::try_from(spec.taps)
            .map_err(|_| Error::Unsupported(format!("{} taps", spec.taps)))?;
        // Largest tile that fits: 4 outputs per invocation, then fewer, then
        // smaller groups.
        let mut group_size = crate::preferred_group_size(caps);
        let mut items = 4;
        while shared_bytes(group_size, items, taps) > max_shared {
            if items > 1 {
                items /= 2;
            } else if group_size > 32 {
                group_size /= 2;
            } else {
                return Err(Error::Unsupported(format!(
                    "a {}-tap filter needs {} bytes of shared memory with the smallest tile; the device has {}",
                    spec.taps,
                    shared_bytes(group_size, items, taps),
                    max_shared
                )));
            }
        }
        let tile = u64::from(group_size * items);
        let tiles = (spec.len as u64).div_ceil(tile).max(1);
        let groups = tiles.min(
            u64::from(caps.saturating_groups(group_size) * 4).min(u64::from(caps.max_groups[0])),
        );
        let launch = Launch::linear(
            groups as u32,
            group_size,
            shared_bytes(group_size, items, taps) as u32,
        );
        let kernel_spec = KernelSpec::new(
            &KERNEL,
            &[("GROUP_SIZE", group_size), ("ITEMS", items), ("TAPS", taps)],
        )?;
        let kernel = compile(backend.as_ref(), &kernel_spec, &launch)?;
        Ok(Conv1dPlan {
            backend: Arc::clone(backend),
            spec: *spec,
            kernel,
            launch,
        })
    }

    pub fn spec(&self) -> &Conv1dSpec {
        &self.spec
    }

    pub fn encode(&self, x: &Buffer, taps: &Buffer, out: &Buffer) -> Result<()> {
        let n = u32::try_from(self.spec.len).map_err(|_| Error::ExceedsLimit {
            what: "conv1d length (elements)",
            requested: self.spec.len as u64,
            limit: u64::from(u32::MAX),
        })?;
        if n == 0 {
            return Ok(());
        }
        self.backend.launch(
            self.kernel,
            &self.launch,
            &[x.id(), taps.id(), out.id()],
            &[n],
        )
    }
}
