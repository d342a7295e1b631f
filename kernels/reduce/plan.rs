//! The reduce plan: one or two passes of the kernel.

use super::spec::{ReduceOp, ReduceSpec};
use crate::op::{
    check_apart, check_binding, floor_pow2, plan_tuned, preferred_group_size, prepare_kernel,
    u32_param, workgroup_model,
};
use rosetta_core::{Backend, Buffer, Element, Error, Kernel, Language, Launch, Result};
use std::sync::Arc;

/// Elements one invocation loads per step (one 4-word vector).
const VECTOR: u64 = 4;

/// Vectors each invocation of the first pass loads at once (phase 1's loop
/// is unrolled by four) and, on GPUs, at least, where the input allows: the
/// grid is no larger than that needs. Measured on an H200 (Nsight Compute,
/// the one-launch kernel alone, `docs/results/h200-2026-11-24/`): the sum of
/// 2^20 f32 in 4.5 µs with 256 groups against 5.3 µs with 1024 (one vector
/// per invocation), 2^22 in 6.3 µs with 1024 groups against 6.6 µs with
/// 1056.
const LOADS_IN_FLIGHT: u64 = 4;

/// First-pass groups per thread at most on the CPU backend (see
/// [`Geometry::for_device`]).
const CPU_GROUPS_PER_THREAD: u64 = 128;

/// The fewest rows of the grid-stride loop per first-pass group on the CPU
/// backend (see [`Geometry::for_device`]).
const CPU_MIN_ROWS: u64 = 8;

/// How a reduction runs: how each workgroup combines its values, and how
/// the workgroups' values are combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReduceVariant {
    /// A shared-memory tree; a second launch combines the groups' values.
    Tree,
    /// Subgroup operations first, then the tree over one value per subgroup
    /// (devices with subgroup ops only); a second launch combines.
    Subgroups,
    /// The tree, in one launch: the last workgroup to finish combines the
    /// groups' values (APIs with a device-scope fence only).
    TreeOneLaunch,
    /// Subgroups, in one launch.
    SubgroupsOneLaunch,
}

impl ReduceVariant {
    /// Every variant.
    pub const ALL: [ReduceVariant; 4] = [
        ReduceVariant::Tree,
        ReduceVariant::Subgroups,
        ReduceVariant::TreeOneLaunch,
        ReduceVariant::SubgroupsOneLaunch,
    ];

    /// The name in reports and the tuning cache.
    pub fn name(self) -> &'static str {
        match self {
            ReduceVariant::Tree => "tree",
            ReduceVariant::Subgroups => "subgroups",
            ReduceVariant::TreeOneLaunch => "tree-one-launch",
            ReduceVariant::SubgroupsOneLaunch => "subgroups-one-launch",
        }
    }

    /// The variant called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.name() == name)
    }

    /// Whether the workgroups combine with subgroup operations first.
    pub fn subgroups(self) -> bool {
        matches!(
            self,
            ReduceVariant::Subgroups | ReduceVariant::SubgroupsOneLaunch
        )
    }

    /// Whether the last workgroup combines the groups' values (one launch).
    pub fn one_launch(self) -> bool {
        matches!(
            self,
            ReduceVariant::TreeOneLaunch | ReduceVariant::SubgroupsOneLaunch
        )
    }

    /// The same workgroup combine in two launches.
    pub fn two_launches(self) -> Self {
        match self {
            ReduceVariant::TreeOneLaunch => ReduceVariant::Tree,
            ReduceVariant::SubgroupsOneLaunch => ReduceVariant::Subgroups,
            two => two,
        }
    }

    /// The variants a device can run: subgroups where it has subgroup ops;
    /// one launch where [`last_group_sees_others`] holds.
    pub fn available(device: &rosetta_core::DeviceInfo) -> Vec<Self> {
        let one_launch = last_group_sees_others(device);
        Self::ALL
            .into_iter()
            .filter(|v| !v.subgroups() || device.caps.subgroup_ops)
            .filter(|v| !v.one_launch() || one_launch)
            .collect()
    }

    /// What `device` runs when nothing is tuned: one launch where it can,
    /// subgroups where it has them.
    pub fn default_for(device: &rosetta_core::DeviceInfo) -> Self {
        match (device.caps.subgroup_ops, last_group_sees_others(device)) {
            (true, true) => ReduceVariant::SubgroupsOneLaunch,
            (true, false) => ReduceVariant::Subgroups,
            (false, true) => ReduceVariant::TreeOneLaunch,
            (false, false) => ReduceVariant::Tree,
        }
    }
}

/// Whether the last workgroup of a launch can see the values the others
/// published, so a reduction can finish in one launch:
/// - where the device's kernels have a device-scope fence
///   ([`rosetta_core::Capabilities::device_fence`]: CUDA's `__threadfence`,
///   Vulkan's device-scope `memoryBarrier`, the CPU model's `device_fence`,
///   PTX's `membar.gl` in OpenCL C on NVIDIA; the OpenCL C 1.2 rosetta
///   builds elsewhere has none);
/// - in WGSL, which has no such fence, through self-validating words the
///   last group waits for (`reduce.wgsl`), where no driver loop cap
///   ([`rosetta_core::Capabilities::loop_limit`], lavapipe's) could cut
///   that wait short and leave a word unread.
pub fn last_group_sees_others(device: &rosetta_core::DeviceInfo) -> bool {
    device.caps.device_fence
        || (device.api.language() == Language::Wgsl && device.caps.loop_limit.is_none())
}

/// The tuner's key for a reduction: element type, op and length class.
pub fn tune_class(spec: &ReduceSpec) -> String {
    let log2 = 64 - (spec.len.max(1) as u64 - 1).leading_zeros().min(63);
    format!("{} {} n<=2^{log2}", spec.elem, spec.op)
}

/// Loop iterations one invocation of a pass runs over `len` elements with
/// `groups` groups: the grid-stride vector loop (counted as one iteration per
/// vector, however a compiler unrolls it), the tail, and the tree's levels.
fn loop_iterations(len: u64, groups: u64, group_size: u32) -> u64 {
    let invocations = groups * u64::from(group_size);
    (len / VECTOR).div_ceil(invocations) + 4 + u64::from(32 - group_size.leading_zeros())
}

/// Groups of the first pass: `fill` (enough to fill the device), at most
/// `wanted`, and on devices whose loops stop silently after a fixed count
/// (lavapipe), enough that no invocation comes near it (or an error, never a
/// silently short sum).
fn first_pass_groups(
    caps: &rosetta_core::Capabilities,
    len: u64,
    group_size: u32,
    wanted: u64,
    fill: u64,
) -> Result<u32> {
    let mut groups = wanted.min(fill).max(1);
    let budget = caps.loop_budget();
    while loop_iterations(len, groups, group_size) > budget
        && groups < wanted.min(u64::from(caps.max_groups[0]))
    {
        groups = (groups * 2).min(wanted).min(u64::from(caps.max_groups[0]));
    }
    let last = loop_iterations(groups, 1, group_size);
    if loop_iterations(len, groups, group_size) > budget || last > budget {
        return Err(Error::ExceedsLimit {
            what: "reduce loop iterations per invocation (the driver stops longer loops)",
            requested: loop_iterations(len, groups, group_size).max(last),
            limit: budget,
        });
    }
    Ok(groups as u32)
}

/// Workgroup size and first-pass groups of a reduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Geometry {
    group_size: u32,
    groups: u32,
}

impl Geometry {
    /// The geometry for `len` elements on `device`.
    ///
    /// GPUs (and every device that runs the GPU sources): the preferred
    /// workgroup size and a grid that saturates the device, or a smaller one
    /// where that gives every invocation [`LOADS_IN_FLIGHT`] vectors.
    ///
    /// The CPU backend (the Rust version under the workgroup model, where one
    /// thread runs a whole group, a row of the grid-stride loop at a time):
    /// groups as large as the device allows (1024 invocations), so a row is
    /// 16 KiB of consecutive input and each of the four rows in flight
    /// streams through four pages before it jumps; and many more groups than
    /// threads (up to [`CPU_GROUPS_PER_THREAD`] each, 256 on two cores), so
    /// rayon keeps every core busy to the end even when other processes
    /// share the cores (a GPU-style grid of a few groups per core finishes at
    /// the pace of the slowest core). Smaller inputs get fewer groups, each
    /// with at least [`CPU_MIN_ROWS`] rows, so what a group does besides
    /// loading (its set-up and the tree over 1024 accumulators) stays small
    /// beside its loads. Measured on the CPU backend only (the sum of 2^26
    /// f32 on two shared cores: about 20 ms against 33 ms with the GPU
    /// geometry); the loop-budget rule applies to both.
    fn for_device(device: &rosetta_core::DeviceInfo, len: u64) -> Result<Geometry> {
        let caps = &device.caps;
        let cpu = workgroup_model(device);
        let group_size = if cpu {
            floor_pow2(caps.max_group_invocations.min(caps.max_group_size[0]))
        } else {
            preferred_group_size(caps)
        };
        let wanted = len.div_ceil(u64::from(group_size) * VECTOR).max(1);
        let fill = if cpu {
            (wanted / CPU_MIN_ROWS).clamp(
                1,
                u64::from(caps.compute_units.max(1)) * CPU_GROUPS_PER_THREAD,
            )
        } else {
            // A grid that fills the device, but no more groups than give
            // each invocation LOADS_IN_FLIGHT vectors (phase 1's unrolled
            // loop): more groups only add group set-up and values for the
            // last group to combine.
            u64::from(caps.saturating_groups(group_size))
                .min(len.div_ceil(u64::from(group_size) * VECTOR * LOADS_IN_FLIGHT))
        };
        let groups = first_pass_groups(caps, len, group_size, wanted, fill)?;
        Ok(Geometry { group_size, groups })
    }
}

/// How the groups' values become the result.
enum Passes {
    /// One group: it writes the result.
    OneGroup,
    /// The first launch writes one value per group to `partials`, a second
    /// launch of one group combines them.
    Two { partials: Buffer },
    /// One launch (`LAST_GROUP = 1`): the last group to finish combines the
    /// values the others left in the scratch buffer.
    LastGroup,
}

/// A compiled reduction: one or two launches of the kernel.
pub struct ReducePlan {
    backend: Arc<dyn Backend>,
    spec: ReduceSpec,
    variant: ReduceVariant,
    tuned: bool,
    /// `None` for an empty input: `encode` writes its sum (+0) and
    /// launches nothing, so no kernel is built.
    launches: Option<Launches>,
}

/// The kernel and launches of a reduction of at least one value.
struct Launches {
    kernel: Kernel,
    first: Launch,
    last: Launch,
    passes: Passes,
    /// Binding 2: with `LAST_GROUP = 1` the arrival counter (zero between
    /// launches: the last group resets it) and one word per group (two in
    /// WGSL, which the last group clears); one unused word otherwise.
    scratch: Buffer,
}

impl ReducePlan {
    /// What a one-launch plan leaves in its scratch buffer once the queue
    /// has drained (conformance checks `encode`'s promise: word 0 back at
    /// zero, in WGSL every word, so the next launch starts clean); `None`
    /// for plans that do not use it.
    pub(crate) fn scratch_after(&self) -> Result<Option<Vec<u32>>> {
        match &self.launches {
            Some(l) if matches!(l.passes, Passes::LastGroup) => {
                let words = (l.scratch.bytes() / 4) as usize;
                l.scratch.read::<u32>(words).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// Plan with the tuned variant for this device and shape, or the default.
    pub fn new(backend: &Arc<dyn Backend>, spec: &ReduceSpec) -> Result<Self> {
        let info = backend.info();
        let default = || Ok(ReduceVariant::default_for(info));
        let (mut plan, tuned) = plan_tuned(
            info,
            "reduce",
            &tune_class(spec),
            ReduceVariant::from_name,
            default,
            |v| Self::with_variant(backend, spec, v),
        )?;
        plan.tuned = tuned;
        Ok(plan)
    }

    /// Plan with a given variant (conformance forces each one).
    pub fn with_variant(
        backend: &Arc<dyn Backend>,
        spec: &ReduceSpec,
        variant: ReduceVariant,
    ) -> Result<Self> {
        spec.validate()?;
        let info = backend.info();
        if !ReduceVariant::available(info).contains(&variant) {
            let needs = if variant.subgroups() && !info.caps.subgroup_ops {
                "subgroup operations"
            } else {
                "a device-scope fence, which this device's kernels lack (or, in WGSL, a driver without a loop cap)"
            };
            return Err(Error::unsupported(
                info.api,
                format!("reduce variant '{}' needs {needs}", variant.name()),
            ));
        }
        u32_param("reduce length (elements)", spec.len as u64)?;
        if spec.len == 0 {
            // The sum of nothing is written by `encode` (min and max of
            // nothing are refused by `validate`): no kernel to build.
            return Ok(ReducePlan {
                backend: Arc::clone(backend),
                spec: *spec,
                variant,
                tuned: false,
                launches: None,
            });
        }
        let Geometry { group_size, groups } =
            Geometry::for_device(backend.info(), spec.len as u64)?;
        let shared_bytes = group_size * 4;
        let first = Launch::linear(groups, group_size, shared_bytes);
        let last = Launch::linear(1, group_size, shared_bytes);
        // One launch runs both loops in the last group's invocations: where
        // that passes the driver's loop budget (lavapipe's cap), else two
        // launches, reported as the two-launch variant.
        let budget = info.caps.loop_budget();
        let both_loops = loop_iterations(spec.len as u64, u64::from(groups), group_size)
            .saturating_add(loop_iterations(u64::from(groups), 1, group_size));
        let last_group = variant.one_launch() && groups > 1 && both_loops <= budget;
        let variant = if variant.one_launch() && groups > 1 && !last_group {
            variant.two_launches()
        } else {
            variant
        };
        let kernel = prepare_kernel(
            backend,
            super::kernel::kernel(),
            &[
                ("GROUP_SIZE", group_size),
                ("ELEM", spec.elem.code()),
                ("OP", spec.op.code()),
                ("SUBGROUPS", u32::from(variant.subgroups())),
                ("LAST_GROUP", u32::from(last_group)),
            ],
            &first,
        )?;
        let (passes, scratch_words) = if groups == 1 {
            (Passes::OneGroup, 1)
        } else if last_group {
            // The counter, then one word per group (two in WGSL).
            (Passes::LastGroup, 1 + 2 * u64::from(groups))
        } else {
            let partials = backend.alloc(u64::from(groups) * 4)?;
            (Passes::Two { partials }, 1)
        };
        // Zeroed (`alloc`): the arrival counter starts at 0.
        let scratch = backend.alloc(scratch_words * 4)?;
        Ok(ReducePlan {
            backend: Arc::clone(backend),
            spec: *spec,
            variant,
            tuned: false,
            launches: Some(Launches {
                kernel,
                first,
                last,
                passes,
                scratch,
            }),
        })
    }

    /// What the plan reduces.
    pub fn spec(&self) -> &ReduceSpec {
        &self.spec
    }

    /// The variant it runs.
    pub fn variant(&self) -> ReduceVariant {
        self.variant
    }

    /// Whether the variant came from the tuning cache.
    pub fn tuned(&self) -> bool {
        self.tuned
    }

    /// Enqueue the passes: `output`'s first word receives the result's bits.
    pub fn encode(&self, input: &Buffer, output: &Buffer) -> Result<()> {
        let n = self.spec.len as u32; // checked in `with_variant`
        check_binding(
            &self.backend,
            "reduce input",
            input,
            self.spec.len as u64 * 4,
        )?;
        check_binding(&self.backend, "reduce output", output, 4)?;
        check_apart("reduce", ("output", output), &[("input", input)])?;
        let Some(Launches {
            kernel,
            first,
            last,
            passes,
            scratch,
        }) = &self.launches
        else {
            // No values: the sum is +0 (numpy's too), where the kernels
            // would return their identity (−0 for f32); min and max of
            // nothing are refused by the spec.
            return output.write_bytes(0, &[0; 4]);
        };
        let backend = &self.backend;
        // SAFETY: the kernel reads elements below `n` of its input (which
        // holds `n` elements, checked above) and writes one word per group
        // of its output, or word 0 only (one group; the last group with
        // `LAST_GROUP = 1`): `output` holds at least 4 bytes (checked
        // above), the partials buffer one word per first-pass group. With
        // `LAST_GROUP = 1` it also uses words 0..=groups (WGSL:
        // 0..=2·groups) of the scratch buffer, which has 1 + 2·groups
        // (`with_variant`), and leaves word 0 at zero (WGSL: every word);
        // otherwise it never touches the scratch buffer. The second
        // launch reads `groups` partials and writes word 0 of `output`.
        unsafe {
            match passes {
                Passes::OneGroup | Passes::LastGroup => {
                    backend.launch(kernel, first, &[input, output, scratch], &[n])
                }
                Passes::Two { partials } => {
                    backend.launch(kernel, first, &[input, partials, scratch], &[n])?;
                    backend.launch(
                        kernel,
                        last,
                        &[partials, output, scratch],
                        &[first.groups[0]],
                    )
                }
            }
        }
    }

    /// Launches per [`encode`](Self::encode): 0 (no values), 1 or 2.
    pub fn launches(&self) -> usize {
        match self.launches.as_ref().map(|l| &l.passes) {
            None => 0,
            Some(Passes::OneGroup | Passes::LastGroup) => 1,
            Some(Passes::Two { .. }) => 2,
        }
    }
}

/// Sum, min or max of `x` on `backend` (one upload, one download).
pub fn reduce_slice<T: Element>(backend: &Arc<dyn Backend>, x: &[T], op: ReduceOp) -> Result<T> {
    let spec = ReduceSpec {
        elem: T::ELEM,
        op,
        len: x.len(),
    };
    let plan = ReducePlan::new(backend, &spec)?;
    let input = Buffer::from_slice(backend, x)?;
    let output = backend.alloc(4)?;
    plan.encode(&input, &output)?;
    Ok(output.read::<T>(1)?[0])
}

#[cfg(test)]
mod tests {
    use super::*;
    use rosetta_core::{Capabilities, DeviceType};

    fn caps(loop_limit: Option<u32>) -> Capabilities {
        Capabilities {
            device_type: DeviceType::Cpu,
            max_shared_bytes: 32 << 10,
            max_group_size: [1024, 1024, 64],
            max_group_invocations: 1024,
            max_groups: [65_535, 65_535, 65_535],
            subgroup_sizes: None,
            subgroup_ops: false,
            float_atomics: false,
            timestamps: false,
            max_buffer_bytes: 1 << 30,
            memory_bytes: 0,
            compute_units: 2,
            loop_limit,
            device_fence: false,
            async_copy: false,
        }
    }

    use crate::op::test_device as device;

    #[test]
    fn only_the_cpu_backend_gets_the_cpu_geometry() {
        let device = |api| device(api, caps(None));
        let cpu = device(rosetta_core::Api::Cpu);
        let big = Geometry::for_device(&cpu, 1 << 26).unwrap();
        assert_eq!((big.group_size, big.groups), (1024, 2 * 128));
        // Small inputs: fewer groups, each at least CPU_MIN_ROWS rows.
        let small = Geometry::for_device(&cpu, 1 << 20).unwrap();
        assert_eq!(small.groups, 256 / CPU_MIN_ROWS as u32);
        assert_eq!(Geometry::for_device(&cpu, 5).unwrap().groups, 1);
        // Other APIs on the same (CPU-type) device keep the GPU geometry.
        let lavapipe = device(rosetta_core::Api::Vulkan);
        let gpu = Geometry::for_device(&lavapipe, 1 << 26).unwrap();
        let fill = lavapipe.caps.saturating_groups(256);
        assert_eq!((gpu.group_size, gpu.groups), (256, fill));
    }

    #[test]
    fn gpu_grids_give_each_invocation_four_vectors_where_the_input_is_small() {
        let gpu = device(
            rosetta_core::Api::Cuda,
            Capabilities {
                device_type: DeviceType::DiscreteGpu,
                compute_units: 132,
                ..caps(None)
            },
        );
        assert_eq!(preferred_group_size(&gpu.caps), 256);
        let fill = gpu.caps.saturating_groups(256);
        assert!(fill > 257);
        let groups = |len: u64| Geometry::for_device(&gpu, len).unwrap().groups;
        // 2^20 elements: 2^18 vectors, four per invocation of 256 groups.
        assert_eq!(groups(1 << 20), 256);
        assert_eq!(groups((1 << 20) + 1), 257);
        assert_eq!(groups(5), 1);
        // Large inputs: the saturating grid, however long the loops.
        assert_eq!(groups(1 << 28), fill);
        for len in [1u64, 4095, 4096, 4097, 1 << 22, (1 << 22) + 3] {
            let g = u64::from(groups(len));
            assert!(g >= 1 && g <= u64::from(fill));
            // Every vector is some invocation's (the grid-stride loop
            // covers them all), and no group is idle for want of vectors
            // unless the saturating grid is the smaller.
            assert!(g * 256 * 4 * LOADS_IN_FLIGHT >= len || g == u64::from(fill));
        }
    }

    #[test]
    fn capped_devices_get_enough_groups_for_short_loops() {
        let len = u64::from(u32::MAX);
        let wanted = len.div_ceil(256 * VECTOR);
        // Uncapped: a saturating grid, long loops are fine.
        let fill = u64::from(caps(None).saturating_groups(256));
        let free = first_pass_groups(&caps(None), len, 256, wanted, fill).unwrap();
        assert!(free <= 2048);
        // Capped at 65 535 iterations: every invocation well under a quarter.
        let capped = caps(Some(65_535));
        let groups = first_pass_groups(&capped, len, 256, wanted, fill).unwrap();
        assert!(loop_iterations(len, u64::from(groups), 256) <= capped.loop_budget());
        assert!(loop_iterations(u64::from(groups), 1, 256) <= capped.loop_budget());
        // A cap nothing can meet is an error, not a short sum.
        let tiny = caps(Some(16));
        assert!(matches!(
            first_pass_groups(&tiny, len, 256, wanted, fill),
            Err(Error::ExceedsLimit { .. })
        ));
    }

    #[test]
    fn one_launch_only_where_the_last_group_can_see_the_others() {
        use rosetta_core::Api;
        for api in [Api::Cuda, Api::Vulkan, Api::Opencl, Api::Wgpu, Api::Cpu] {
            for subgroup_ops in [false, true] {
                for device_fence in [false, true] {
                    for loop_limit in [None, Some(65_535)] {
                        let mut c = caps(loop_limit);
                        c.subgroup_ops = subgroup_ops;
                        c.device_fence = device_fence;
                        let device = device(api, c);
                        let available = ReduceVariant::available(&device);
                        // WGSL waits for self-validating words instead of a
                        // fence: never where a loop cap could cut it short.
                        let one_launch = device_fence || (api == Api::Wgpu && loop_limit.is_none());
                        let what = format!("{api:?} fence {device_fence} cap {loop_limit:?}");
                        for v in ReduceVariant::ALL {
                            let expected =
                                (!v.one_launch() || one_launch) && (!v.subgroups() || subgroup_ops);
                            assert_eq!(available.contains(&v), expected, "{what} {v:?}");
                        }
                        let default = ReduceVariant::default_for(&device);
                        assert!(available.contains(&default), "{what}");
                        assert_eq!(default.one_launch(), one_launch, "{what}");
                        assert_eq!(default.subgroups(), subgroup_ops, "{what}");
                    }
                }
            }
        }
        for v in ReduceVariant::ALL {
            assert_eq!(ReduceVariant::from_name(v.name()), Some(v));
            assert!(!v.two_launches().one_launch(), "{v:?}");
            assert_eq!(v.two_launches().subgroups(), v.subgroups(), "{v:?}");
        }
    }
}
