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
//! 3. **Output.** Invocation 0 writes the group's value to `out[group_id.x]`
//!    (`LAST_GROUP = 0`).
//! 4. **Arrival** (`LAST_GROUP = 1`). Invocation 0 stores the group's value
//!    in `scratch[1 + group_id.x]` (a device-scope relaxed atomic store), a
//!    device-scope release fence, then takes a ticket:
//!    `atomicAdd(scratch[0], 1)`. Ticket `num_groups.x - 1` means every
//!    other group has published its value; invocation 0 tells its group
//!    through shared memory (barrier), and every group but that one ends.
//! 5. **Last group** (`LAST_GROUP = 1`). A device-scope acquire fence; then
//!    invocation `lid` combines the values of groups `lid, lid + GROUP_SIZE,
//!    …` and the group runs phases 2–3 again over those; invocation 0 writes
//!    the result to `out[0]` and stores 0 in `scratch[0]`, so the counter is
//!    zero for the next launch. The combining order depends only on the grid,
//!    never on which group arrived last: the result is deterministic.
//!
//! **WGSL's phases 4–5 have no fence.** WGSL has no device-scope fence
//! (`storageBarrier` is workgroup-scoped), so a value stored before the
//! ticket need not be visible to the group that takes the last ticket.
//! There a group publishes its value as two self-validating words,
//! `scratch[1 + 2·group]` and `scratch[2 + 2·group]`: 16 bits of the value
//! each, ORed with a marker bit (`0x10000`), so a published word is never
//! zero, with relaxed atomic stores. The last group reads each word with
//! relaxed atomic loads until it is non-zero, then stores 0 back. Atomics to
//! one word are coherent, so a non-zero word is the half it carries, and no
//! order between two words is needed (the packed flag-and-value of decoupled
//! look-back on WebGPU). The wait cannot deadlock: the last group waits only
//! after every other group has taken its ticket, that is, has issued the
//! stores waited for. The plan gives WGSL `LAST_GROUP = 1` only where the
//! driver has no loop cap (`Capabilities::loop_limit`), which could end
//! the wait early and leave a word unread (lavapipe's).
//!
//! The plan runs one launch when the input fits one group; otherwise either
//! one launch with `LAST_GROUP = 1` (the `*-one-launch` variants, the
//! default where the last group can see the others' values,
//! [`last_group_sees_others`]: kernels with a device-scope fence,
//! `Capabilities::device_fence` — CUDA, GLSL, the CPU model, and OpenCL C
//! on NVIDIA through inline PTX — and WGSL without a loop cap) or two
//! (`LAST_GROUP = 0`): the second launch is one group over the partials
//! (deterministic, no float atomics, which WGSL lacks). OpenCL C 1.2 has no
//! device-scope fence (its fences order one work-item's accesses): the
//! OpenCL C version gets `LAST_GROUP = 1` only where the backend defines
//! `ROSETTA_PTX_FENCE` (after running `membar.gl` and `ld/st.relaxed.gpu`
//! on the device; without it the source refuses to build with
//! `LAST_GROUP = 1`). Two launches also where one launch's loops would pass
//! a capped driver's loop budget.
//!
//! # Interface
//! - constants: `GROUP_SIZE` (power of two), `ELEM` (0 f32, 1 i32, 2 u32),
//!   `OP` (0 sum, 1 min, 2 max), `SUBGROUPS` (0 / 1), `LAST_GROUP` (0 / 1).
//! - bindings: 0 `input` (read, `n` elements), 1 `out` (read-write, one word
//!   per group, or word 0 only with `LAST_GROUP = 1`), 2 `scratch`
//!   (read-write, `1 + 2·groups` words; `LAST_GROUP = 1`: the arrival
//!   counter, zero before each launch, then one word per group, two in WGSL,
//!   zero before each launch too; unused otherwise).
//! - params: `n`.
//! - shared: `GROUP_SIZE` words (static array); with `LAST_GROUP = 1` one
//!   more word, the last-group flag.
//!
//! # Semantics of `combine`
//! - sum: f32 addition; i32 and u32 wrapping addition (an i32 sum is the u32
//!   sum of the same bits, so kernels may use unsigned arithmetic; signed
//!   overflow is undefined in C).
//! - min / max: i32 signed, u32 unsigned; f32 returns the quiet NaN
//!   `0x7fc00000` if either operand is NaN, whatever its sign or payload
//!   (test NaN by bits: `(bits & 0x7fffffff) > 0x7f800000`, since fast-math
//!   compilers may fold `x != x`), else the operand with the smaller / larger
//!   `total_key` (below), bits unchanged. Subgroup variants take the
//!   subgroup min / max of the keys and map the winner back with `from_key`.
//!   −0 orders below +0 (IEEE 754's minimum / maximum), so the result has
//!   the same bits on every device and variant (numpy's is −0 or +0
//!   depending on the order of the inputs).
//!
//! # Ordering floats exactly
//! Devices may flush subnormals to zero in float comparisons (NVIDIA through
//! SPIR-V does), which would make min / max and histogram edges inexact. So
//! kernels order f32 values by an integer key of their bits, never by float
//! comparison: `total_key(b)` returns `!b` for negative values (sign bit
//! set, −0 included) and `b | 0x80000000` for the rest; `key(x) < key(y)`
//! exactly when `x < y` for non-NaN x, y, and `key(−0) < key(+0)`.
//! `from_key(k)` inverts it (`k & 0x80000000 != 0 ? k & 0x7fffffff : !k`).
//! Histograms compare values with their edges by `ordered_key`, the same
//! key with −0 first mapped to +0 (`−0 ≥ 0` holds there, as in numpy).
//! - identity: sum −0 for f32 (the one value with x + −0 == x for every x:
//!   a sum of −0s is −0, as in numpy), 0 for i32 / u32; min +Inf / i32::MAX /
//!   u32::MAX; max −Inf / i32::MIN / 0. The sum of no values is +0 (numpy's
//!   too): the plan writes it without a launch.
//!
//! # On the CPU backend
//! The Rust version keeps each accumulator as four lanes (one per vector
//! component) and runs four rows of the grid-stride loop at once, and the
//! plan gives it groups of 1024 invocations and up to 128 first-pass groups
//! per thread (`plan.rs`, `Geometry::for_device`); other devices, CPU-type
//! ones included, keep the GPU geometry.

mod cases;
mod kernel;
mod plan;
mod spec;

pub use kernel::{kernel, ordered_key};
pub use plan::{last_group_sees_others, reduce_slice, tune_class, ReducePlan, ReduceVariant};
pub use spec::{min_max_f32, reduce_int, sum_bound, sum_f32, IntElem, ReduceOp, ReduceSpec};

use crate::op::{
    made_on_device, ArrayData, Case, CliOption, CliSpec, Exact, HostArray, Metric, Op, Options,
    Prepared, Size, Workload,
};
use rosetta_core::{inputs, Backend, Buffer, DeviceInfo, Elem, Error, KernelDef, Result};
use std::sync::Arc;

/// The reduce op.
pub struct Reduce;

struct SumRun {
    plan: ReducePlan,
    input: Buffer,
    output: Buffer,
    exact: Exact,
    len: usize,
}

impl Prepared for SumRun {
    fn run(&mut self) -> Result<()> {
        self.plan.encode(&self.input, &self.output)
    }
    fn verify(&mut self) -> Result<Option<String>> {
        let got: f32 = self.output.read(1)?[0];
        let bound = sum_bound(self.len, &self.exact);
        Ok(
            (!rosetta_core::bounds::within(got, self.exact.value, bound)).then(|| {
                format!(
                    "got {got}, expected {} (bound {bound:.2e})",
                    self.exact.value
                )
            }),
        )
    }
    fn variant(&self) -> String {
        self.plan.variant().name().to_string()
    }
    fn tuned(&self) -> bool {
        self.plan.tuned()
    }
}

fn sum_workload(len: usize) -> Workload {
    let spec = ReduceSpec {
        elem: Elem::F32,
        op: ReduceOp::Sum,
        len,
    };
    let metric = if len <= 1 << 22 {
        Metric::Time
    } else {
        Metric::Bandwidth
    };
    Workload::new(
        "reduce",
        format!("sum f32 n={}", crate::op::pow2_label(len as u64)),
        "sum f32",
        len as u64,
        len as u64 * 4,
        None,
        metric,
        move |backend, variant| {
            // The plan first: it refuses a length past the device's limits
            // before the inputs are made on the host.
            let plan = match variant.and_then(ReduceVariant::from_name) {
                Some(v) => ReducePlan::with_variant(backend, &spec, v)?,
                None => match variant {
                    Some(name) => {
                        return Err(Error::InvalidArgument(format!(
                            "no reduce variant '{name}'"
                        )))
                    }
                    None => ReducePlan::new(backend, &spec)?,
                },
            };
            // The device buffer before the host values (`made_on_device`).
            let (input, x) = made_on_device(backend, len, || inputs::f32_values(0x5eed_be4c, len))?;
            Ok(Box::new(SumRun {
                plan,
                input,
                output: backend.alloc(4)?,
                exact: sum_f32(&x),
                len,
            }) as Box<dyn Prepared>)
        },
    )
    .tunable(
        tune_class(&spec),
        ReduceVariant::ALL
            .iter()
            .map(|v| v.name().to_string())
            .collect(),
    )
}

impl Op for Reduce {
    fn name(&self) -> &'static str {
        "reduce"
    }

    fn about(&self) -> &'static str {
        "sum, min or max of an array (f32, i32, u32)"
    }

    fn kernels(&self) -> Vec<Arc<KernelDef>> {
        vec![Arc::clone(kernel())]
    }

    fn cases(&self) -> Vec<Case> {
        cases::cases()
    }

    fn random_case(&self, draw: &mut crate::op::random::Draw) -> Case {
        cases::drawn_case(draw)
    }

    fn workloads(&self, size: Size, device: &DeviceInfo) -> Vec<Workload> {
        // Bandwidth against size: the sum from 2^16 up to the preset's size.
        (16..=crate::op::big_log2(size, device))
            .step_by(2)
            .map(|log| sum_workload(1 << log))
            .collect()
    }

    fn shape_forms(&self) -> &'static [&'static str] {
        &["N (the sum of N f32 values)"]
    }

    fn shaped_workloads(&self, dims: &[usize], _: &DeviceInfo) -> Result<Vec<Workload>> {
        match *dims {
            [len] => Ok(vec![sum_workload(len)]),
            _ => Err(crate::op::wrong_form(self.name(), dims, self.shape_forms())),
        }
    }

    fn cli(&self) -> CliSpec {
        CliSpec {
            inputs: vec!["X"],
            options: vec![CliOption {
                name: "reduce",
                value_name: "OP",
                help: "the reduction",
                default: Some("sum"),
                choices: &["sum", "min", "max"],
                kind: crate::op::OptionKind::Text,
            }],
            about_inputs: "X: a float32, int32 or uint32 array of any shape (all elements); writes a one-element array of its dtype (integer sums wrap mod 2^32, where numpy.sum widens to 64 bits)",
        }
    }

    fn run(
        &self,
        backend: &Arc<dyn Backend>,
        options: &Options,
        inputs: Vec<HostArray>,
    ) -> Result<HostArray> {
        let [x] = crate::op::exactly::<1>(inputs)?;
        let name = options.get("reduce").unwrap_or("sum");
        let op = ReduceOp::from_name(name).ok_or_else(|| {
            Error::InvalidArgument(format!("--reduce must be sum, min or max, got '{name}'"))
        })?;
        let data = match &x.data {
            ArrayData::F32(v) => ArrayData::F32(vec![reduce_slice(backend, v, op)?]),
            ArrayData::I32(v) => ArrayData::I32(vec![reduce_slice(backend, v, op)?]),
            ArrayData::U32(v) => ArrayData::U32(vec![reduce_slice(backend, v, op)?]),
            ArrayData::U8(_) => {
                return Err(crate::op::wrong_type(
                    "X",
                    "float32, int32 or uint32",
                    Elem::U8,
                ))
            }
        };
        Ok(HostArray::vector(data))
    }
}
