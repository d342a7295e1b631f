//! Reduce: sum, min or max of f32 / i32 / u32 values.
//!
//! # Algorithm (every language)
//! 1. **Grid-stride accumulation.** Invocation `t = group_id.x·GROUP_SIZE + lid`
//!    of `T = num_groups.x·GROUP_SIZE` combines the 4-word vectors
//!    `v = t, t + T, …` below `n / 4` (vector loads), then the scalar tail
//!    elements `4·(n/4) + t, + T, …` below `n`, into a private accumulator that
//!    starts at the identity.
//! 2. **Workgroup combine.** Shared-memory tree: `shared[lid] = acc`; barrier;
//!    for `s = GROUP_SIZE/2, …, 1`: `lid < s` combines `shared[lid + s]` into
//!    `shared[lid]`; barrier. With `SUBGROUPS = 1` the first levels are subgroup
//!    operations instead: each subgroup reduces its values with subgroup
//!    arithmetic or shuffles (subgroup size read from the builtin / device,
//!    never assumed), one value per subgroup goes to `shared[subgroup_id]`, and
//!    the tree runs over those.
//! 3. **Output.** Invocation 0 writes the group's value to `out[group_id.x]`.
//!
//! The plan runs the kernel twice when the first pass has several groups: the
//! second pass is one group over the partials (deterministic, no float
//! atomics, which WGSL lacks).
//!
//! # Interface
//! - constants: `GROUP_SIZE` (power of two), `ELEM` (0 f32, 1 i32, 2 u32),
//!   `OP` (0 sum, 1 min, 2 max), `SUBGROUPS` (0 / 1).
//! - bindings: 0 `input` (read, `n` elements), 1 `out` (read-write, one word
//!   per group).
//! - params: `n`.
//! - shared: `GROUP_SIZE` words (static array).
//!
//! # Semantics of `combine`
//! - sum: f32 addition; i32 and u32 wrapping addition (an i32 sum is the u32
//!   sum of the same bits, so kernels may use unsigned arithmetic; signed
//!   overflow is undefined in C).
//! - min / max: i32 signed, u32 unsigned; f32 returns NaN if either operand is
//!   NaN (test NaN by bits: `(bits & 0x7fffffff) > 0x7f800000`, since fast-math
//!   compilers may fold `x != x`), else the operand with the smaller / larger
//!   `ordered_key` (below), bits unchanged. Subgroup variants take the
//!   subgroup min / max of the keys and map the winner back with `from_key`.
//!
//! # Ordering floats exactly
//! Devices may flush subnormals to zero in float comparisons (NVIDIA through
//! SPIR-V does), which would make min / max and histogram edges inexact. So
//! kernels order f32 values by an integer key of their bits, never by float
//! comparison: `ordered_key(b)` maps −0 to +0, then returns `!b` for negative
//! values and `b | 0x80000000` for the rest; `key(x) < key(y)` exactly when
//! `x < y` for non-NaN x, y. `from_key(k)` inverts it
//! (`k & 0x80000000 != 0 ? k & 0x7fffffff : !k`).
//! - identity: sum 0; min +Inf / i32::MAX / u32::MAX; max −Inf / i32::MIN / 0.

#[path = "reduce.rs"]
mod cpu;

pub use cpu::ordered_key;

use crate::pass::compile;
use rosetta_core::ops::ReduceSpec;
use rosetta_core::{
    Access, Backend, Buffer, KernelDef, KernelId, KernelSpec, Launch, Result, Sources,
};
use std::sync::Arc;

pub static KERNEL: KernelDef = KernelDef {
    name: "reduce",
    constants: &["GROUP_SIZE", "ELEM", "OP", "SUBGROUPS"],
    bindings: &[Access::Read, Access::ReadWrite],
    params: &["n"],
    dynamic_shared: false,
    sources: Sources {
        wgsl: include_str!("reduce.wgsl"),
        cuda: include_str!("reduce.cu"),
        glsl: include_str!("reduce.comp"),
        opencl: include_str!("reduce.cl"),
    },
    cpu: cpu::reduce,
};

/// Elements one invocation loads per step (one 4-word vector).
const VECTOR: u64 = 4;

/// A compiled reduction: one or two passes of [`KERNEL`].
pub struct ReducePlan {
    backend: Arc<dyn Backend>,
    spec: ReduceSpec,
    kernel: KernelId,
    first: Launch,
    last: Launch,
    /// One word per first-pass group, when there is more than one.
    partials: Option<Buffer>,
}

impl ReducePlan {
    pub fn new(backend: &Arc<dyn Backend>, spec: &ReduceSpec) -> Result<Self> {
        spec.validate()?;
        let caps = &backend.info().caps;
        let group_size = crate::preferred_group_size(caps);
        let shared_bytes = group_size * 4;
        let wanted = (spec.len as u64)
            .div_ceil(u64::from(group_size) * VECTOR)
            .max(1);
        let groups = wanted.min(u64::from(caps.saturating_groups(group_size))) as u32;
        let kernel_spec = KernelSpec::new(
            &KERNEL,
            &[
                ("GROUP_SIZE", group_size),
                ("ELEM", spec.elem.code()),
                ("OP", spec.op.code()),
                ("SUBGROUPS", u32::from(caps.subgroup_ops)),
            ],
        )?;
        let first = Launch::linear(groups, group_size, shared_bytes);
        let last = Launch::linear(1, group_size, shared_bytes);
        let kernel = compile(backend.as_ref(), &kernel_spec, &first)?;
        let partials = if groups > 1 {
            Some(Buffer::new(backend, u64::from(groups) * 4)?)
        } else {
            None
        };
        Ok(ReducePlan {
            backend: Arc::clone(backend),
            spec: *spec,
            kernel,
            first,
            last,
            partials,
        })
    }

    pub fn spec(&self) -> &ReduceSpec {
        &self.spec
    }

    /// Enqueue the passes: `output[0]` receives the result's bits.
    pub fn encode(&self, input: &Buffer, output: &Buffer) -> Result<()> {
        let n = u32::try_from(self.spec.len).map_err(|_| rosetta_core::Error::ExceedsLimit {
            what: "reduce length (elements)",
            requested: self.spec.len as u64,
            limit: u64::from(u32::MAX),
        })?;
        let backend = self.backend.as_ref();
        match &self.partials {
            None => backend.launch(self.kernel, &self.first, &[input.id(), output.id()], &[n]),
            Some(partials) => {
                backend.launch(self.kernel, &self.first, &[input.id(), partials.id()], &[n])?;
                backend.launch(
                    self.kernel,
                    &self.last,
                    &[partials.id(), output.id()],
                    &[self.first.groups[0]],
                )
            }
        }
    }
}
