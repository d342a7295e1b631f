//! Histogram: counts of u32 values in `bins` bins, or of f32 values in `bins`
//! equal bins over a range (numpy.histogram's rules).
//!
//! # Algorithm (every language)
//! - **Privatized** (`SHARED_BINS == BINS`): the workgroup zeroes a shared
//!   histogram of `BINS` words (`for b = lid; b < BINS; b += GROUP_SIZE`);
//!   barrier; grid-stride over the values (4-word vector loads, then the
//!   scalar tail, as in reduce) adding 1 to `shared[bin]` with a shared-memory
//!   atomic; barrier; merge: for each bin this invocation owns, if the shared
//!   count is non-zero, atomically add it to `counts[bin]` in global memory.
//! - **Global atomics** (`SHARED_BINS == 1`, chosen when `BINS` words do not fit
//!   in shared memory): the same grid-stride loop adds 1 to `counts[bin]` with a
//!   global atomic. The shared array still exists (1 word) so static arrays
//!   stay valid; it is not used.
//!
//! The plan zeroes `counts` before the launch.
//!
//! # Binning
//! - `INPUT = 0` (u32): value `v` goes to bin `v` if `v < BINS`, else nowhere.
//! - `INPUT = 1` (f32): NaN is not counted; otherwise value `x` is counted
//!   only if `lo <= x && x <= hi`. First guess
//!   `i = min(u32(max(floor((x − lo) · scale), 0)), BINS − 1)` in f32 (one
//!   subtraction and one multiplication: no contraction to FMA is possible),
//!   then correct against the edges buffer:
//!   `while i > 0 && x < edges[i]: i −= 1` and
//!   `while i < BINS − 1 && x >= edges[i + 1]: i += 1`.
//!   Every comparison of `x` with `lo`, `hi` and the edges compares
//!   `ordered_key`s of the bits (see `reduce/mod.rs`), so devices that flush
//!   subnormals still bin exactly; only the first guess is float arithmetic.
//!   This gives exactly numpy's bin (see `rosetta_core::ops::histogram_edges`).
//!
//! # Interface
//! - constants: `GROUP_SIZE`, `BINS`, `SHARED_BINS` (`BINS` or 1), `INPUT` (0 u32, 1 f32).
//! - bindings: 0 `values` (read, `n` words), 1 `counts` (read-write, `BINS`
//!   words, zeroed), 2 `edges` (read, `BINS + 1` f32 for `INPUT = 1`; a
//!   one-vector dummy for `INPUT = 0`, bound but unused).
//! - params: `n`, `lo` (f32), `hi` (f32), `scale` (f32).
//! - shared: `SHARED_BINS` words, **dynamic** in CUDA (`extern __shared__`,
//!   which lets large histograms pass 48 KB) and OpenCL (`__local` argument).

#[path = "histogram.rs"]
mod cpu;

use crate::pass::compile;
use rosetta_core::ops::{histogram_edges, histogram_scale, HistogramInput, HistogramSpec};
use rosetta_core::{
    Access, Backend, Buffer, Error, KernelDef, KernelId, KernelSpec, Launch, Result, Sources,
};
use std::sync::Arc;

pub static KERNEL: KernelDef = KernelDef {
    name: "histogram",
    constants: &["GROUP_SIZE", "BINS", "SHARED_BINS", "INPUT"],
    bindings: &[Access::Read, Access::ReadWrite, Access::Read],
    params: &["n", "lo", "hi", "scale"],
    dynamic_shared: true,
    sources: Sources {
        wgsl: include_str!("histogram.wgsl"),
        cuda: include_str!("histogram.cu"),
        glsl: include_str!("histogram.comp"),
        opencl: include_str!("histogram.cl"),
    },
    cpu: cpu::histogram,
};

/// Where the counting happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HistogramPath {
    /// Privatized when `bins` words fit in shared memory, else global atomics.
    #[default]
    Auto,
    /// Per-workgroup shared-memory histograms (an error if they don't fit).
    Privatized,
    /// Atomics on the global histogram only.
    GlobalAtomics,
}

pub struct HistogramPlan {
    backend: Arc<dyn Backend>,
    spec: HistogramSpec,
    kernel: KernelId,
    launch: Launch,
    privatized: bool,
    edges: Buffer,
    params: [u32; 4],
}

impl HistogramPlan {
    pub fn new(
        backend: &Arc<dyn Backend>,
        spec: &HistogramSpec,
        path: HistogramPath,
    ) -> Result<Self> {
        spec.validate()?;
        let n = u32::try_from(spec.len).map_err(|_| Error::ExceedsLimit {
            what: "histogram length (values)",
            requested: spec.len as u64,
            limit: u64::from(u32::MAX),
        })?;
        let caps = &backend.info().caps;
        let group_size = crate::preferred_group_size(caps);
        let bins_bytes = u64::from(spec.bins) * 4;
        let privatized = match path {
            HistogramPath::Auto => bins_bytes <= u64::from(caps.max_shared_bytes),
            HistogramPath::Privatized => true,
            HistogramPath::GlobalAtomics => false,
        };
        let shared_bins = if privatized { spec.bins } else { 1 };
        // Each group should see at least a few values per bin it zeroes and
        // merges, or the privatized overhead dominates small inputs.
        let per_group = u64::from(group_size * 4).max(bins_bytes / 2 * u64::from(privatized));
        let wanted = (spec.len as u64).div_ceil(per_group).max(1);
        let groups = wanted.min(u64::from(caps.saturating_groups(group_size))) as u32;
        let launch = Launch::linear(groups, group_size, shared_bins * 4);

        let (input_code, edges, lo, hi, scale) = match spec.input {
            HistogramInput::U32 => (0, Buffer::new(backend, 16)?, 0.0, 0.0, 0.0),
            HistogramInput::F32 { lo, hi } => (
                1,
                Buffer::from_slice(backend, &histogram_edges(lo, hi, spec.bins))?,
                lo as f32,
                hi as f32,
                histogram_scale(lo, hi, spec.bins),
            ),
        };
        let kernel_spec = KernelSpec::new(
            &KERNEL,
            &[
                ("GROUP_SIZE", group_size),
                ("BINS", spec.bins),
                ("SHARED_BINS", shared_bins),
                ("INPUT", input_code),
            ],
        )?;
        let kernel = compile(backend.as_ref(), &kernel_spec, &launch)?;
        Ok(HistogramPlan {
            backend: Arc::clone(backend),
            spec: *spec,
            kernel,
            launch,
            privatized,
            edges,
            params: [n, lo.to_bits(), hi.to_bits(), scale.to_bits()],
        })
    }

    pub fn spec(&self) -> &HistogramSpec {
        &self.spec
    }

    /// Whether this plan counts in shared memory (else global atomics).
    pub fn privatized(&self) -> bool {
        self.privatized
    }

    /// Enqueue: zero `counts` (`bins` words), then count `values` into it.
    pub fn encode(&self, values: &Buffer, counts: &Buffer) -> Result<()> {
        counts.zero()?;
        self.backend.launch(
            self.kernel,
            &self.launch,
            &[values.id(), counts.id(), self.edges.id()],
            &self.params,
        )
    }
}
