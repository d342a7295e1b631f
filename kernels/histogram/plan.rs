//! The histogram plan: one launch of the kernel over the values, with the
//! counting path (variant) and the grid chosen for the device.

use super::spec::{histogram_edges, histogram_scale, search_steps, HistogramInput, HistogramSpec};
use crate::op::{
    check_apart, check_binding, plan_tuned, preferred_group_size, prepare_kernel, u32_param,
};
use rosetta_core::{check_limit, Backend, Buffer, Capabilities, Error, Kernel, Launch, Result};
use std::sync::Arc;

/// Where the counting happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistogramVariant {
    /// Privatized: a histogram per workgroup in shared memory (shared-memory
    /// atomics), merged into the counts with global atomics. Needs `bins`
    /// words of shared memory.
    Shared,
    /// Atomics on the counts in global memory only.
    GlobalAtomics,
}

impl HistogramVariant {
    /// Every variant.
    pub const ALL: [HistogramVariant; 2] =
        [HistogramVariant::Shared, HistogramVariant::GlobalAtomics];

    /// The name in reports, case names and the tuning cache.
    pub fn name(self) -> &'static str {
        match self {
            HistogramVariant::Shared => "shared",
            HistogramVariant::GlobalAtomics => "global-atomics",
        }
    }

    /// The variant called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.name() == name)
    }

    /// Every variant's name.
    pub fn names() -> Vec<String> {
        Self::ALL.iter().map(|v| v.name().to_string()).collect()
    }
}

/// The tuner's key: input type, bins and length, each as a power-of-two
/// class. Plans cannot see how the values are distributed, so a workload's
/// distribution is not part of the key.
pub fn tune_class(spec: &HistogramSpec) -> String {
    let log2 = |x: u64| 64 - (x.max(1) - 1).leading_zeros();
    format!(
        "{} bins<=2^{} n<=2^{}",
        spec.input.elem(),
        log2(u64::from(spec.bins)),
        log2(spec.len as u64)
    )
}

/// Values per 32-bit word of the input.
fn per_word(input: HistogramInput) -> u64 {
    match input {
        HistogramInput::U8 => 4,
        _ => 1,
    }
}

/// Check what a histogram needs on the device against its limits, before
/// anything is allocated or built on the host: the values, counts and edges
/// each within the largest buffer, and together within device memory (where
/// the device says how much it has).
pub fn check_device_limits(caps: &Capabilities, spec: &HistogramSpec) -> Result<()> {
    let values = spec.value_bytes()?;
    let (counts, edges) = (spec.counts_bytes(), spec.edges_bytes());
    check_limit("histogram values (bytes)", values, caps.max_buffer_bytes)?;
    check_limit("histogram counts (bytes)", counts, caps.max_buffer_bytes)?;
    check_limit("histogram bin edges (bytes)", edges, caps.max_buffer_bytes)?;
    if caps.memory_bytes > 0 {
        check_limit(
            "histogram values, counts and edges (bytes)",
            values.saturating_add(counts).saturating_add(edges),
            caps.memory_bytes,
        )?;
    }
    Ok(())
}

/// Workgroups for `spec` on a device: enough to fill it, and enough that no
/// invocation loops more often than the device's loop budget allows
/// (llvmpipe stops loops silently past its cap). Counted per invocation,
/// generously: the zeroing and merging loops of the privatized path
/// (`ceil(bins / group_size)` each), one iteration per 4-word vector and, for
/// f32, a full binary search (`ceil(log2(bins))` steps) for each of its four
/// values, plus the tail word's search.
pub fn workgroups(
    caps: &Capabilities,
    spec: &HistogramSpec,
    variant: HistogramVariant,
    group_size: u32,
) -> Result<u32> {
    let gs = u64::from(group_size);
    let words = spec.len as u64 / per_word(spec.input);
    let vectors = words / 4;
    let search = match spec.input {
        HistogramInput::F32 { .. } => u64::from(search_steps(spec.bins)),
        _ => 0,
    };
    let merge = match variant {
        HistogramVariant::Shared => 2 * u64::from(spec.bins).div_ceil(gs),
        HistogramVariant::GlobalAtomics => 0,
    };
    let per_vector = 1 + 4 * search;
    let fixed = merge + search;
    let budget = caps.loop_budget();
    if fixed + per_vector > budget {
        return Err(Error::ExceedsLimit {
            what: "loop iterations per invocation (histogram bins)",
            requested: fixed + per_vector,
            limit: budget,
        });
    }
    let per_invocation = (budget - fixed) / per_vector;
    let needed = vectors.div_ceil(per_invocation).div_ceil(gs);
    // Each group should see a few values per bin it zeroes and merges, or
    // the privatized overhead dominates small inputs.
    let per_group = match variant {
        HistogramVariant::Shared => (gs * 4 * per_word(spec.input)).max(2 * u64::from(spec.bins)),
        HistogramVariant::GlobalAtomics => gs * 4 * per_word(spec.input),
    };
    let wanted = (spec.len as u64)
        .div_ceil(per_group)
        .min(u64::from(caps.saturating_groups(group_size)));
    // At least 4 invocations, so the < 4 tail words need no loop.
    let groups = wanted.max(needed).max(4u64.div_ceil(gs)).max(1);
    // The kernels' u32 index `v + stride` stays below 2^32: v < 2^30
    // vectors, and the stride (invocations) is at most 2^31.
    check_limit("histogram invocations", groups * gs, 1 << 31)?;
    check_limit("workgroups along x", groups, u64::from(caps.max_groups[0]))?;
    Ok(groups as u32)
}

/// A compiled histogram: one launch, counts zeroed first.
pub struct HistogramPlan {
    backend: Arc<dyn Backend>,
    spec: HistogramSpec,
    variant: HistogramVariant,
    tuned: bool,
    kernel: Kernel,
    launch: Launch,
    /// `bins + 1` f32 edges (f32 input), else a 16-byte dummy, bound but
    /// unused.
    edges: Buffer,
    params: [u32; 4],
}

impl HistogramPlan {
    /// Plan with the tuned variant for this device and shape, or the default:
    /// `shared` where `bins` words fit in shared memory (and its loops in the
    /// loop budget), else `global-atomics`.
    pub fn new(backend: &Arc<dyn Backend>, spec: &HistogramSpec) -> Result<Self> {
        spec.validate()?;
        let caps = &backend.info().caps;
        let fits = |v: HistogramVariant| Self::fits(caps, spec, v);
        let default = || {
            Ok(if fits(HistogramVariant::Shared) {
                HistogramVariant::Shared
            } else {
                HistogramVariant::GlobalAtomics
            })
        };
        let (mut plan, tuned) = plan_tuned(
            backend.info(),
            "histogram",
            &tune_class(spec),
            HistogramVariant::from_name,
            default,
            |v| Self::with_variant(backend, spec, v),
        )?;
        plan.tuned = tuned;
        Ok(plan)
    }

    /// Whether `variant` can run `spec` on a device with `caps`.
    fn fits(caps: &Capabilities, spec: &HistogramSpec, variant: HistogramVariant) -> bool {
        let group_size = preferred_group_size(caps);
        let shared_ok = variant == HistogramVariant::GlobalAtomics
            || spec.counts_bytes() <= u64::from(caps.max_shared_bytes);
        shared_ok && workgroups(caps, spec, variant, group_size).is_ok()
    }

    /// Plan with a given variant (conformance forces each one). Everything
    /// is checked against the device's limits before anything is allocated
    /// or built on the host.
    pub fn with_variant(
        backend: &Arc<dyn Backend>,
        spec: &HistogramSpec,
        variant: HistogramVariant,
    ) -> Result<Self> {
        spec.validate()?;
        let caps = &backend.info().caps;
        let n = u32_param("histogram length (values)", spec.len as u64)?;
        check_device_limits(caps, spec)?;
        let group_size = preferred_group_size(caps);
        let shared_bins = match variant {
            HistogramVariant::Shared => {
                check_limit(
                    "histogram bins in shared memory (bytes)",
                    spec.counts_bytes(),
                    u64::from(caps.max_shared_bytes),
                )?;
                spec.bins
            }
            HistogramVariant::GlobalAtomics => 1,
        };
        let groups = workgroups(caps, spec, variant, group_size)?;
        let launch = Launch::linear(groups, group_size, shared_bins * 4);
        let kernel = prepare_kernel(
            backend,
            super::kernel::kernel(),
            &[
                ("GROUP_SIZE", group_size),
                ("BINS", spec.bins),
                ("SHARED_BINS", shared_bins),
                ("INPUT", spec.input.code()),
            ],
            &launch,
        )?;
        let (edges, lo, hi, scale) = match spec.input {
            HistogramInput::F32 { lo, hi } => (
                Buffer::from_slice(backend, &histogram_edges(lo, hi, spec.bins))?,
                lo as f32,
                hi as f32,
                histogram_scale(lo, hi, spec.bins),
            ),
            HistogramInput::U32 | HistogramInput::U8 => (backend.alloc(16)?, 0.0, 0.0, 0.0),
        };
        Ok(HistogramPlan {
            backend: Arc::clone(backend),
            spec: *spec,
            variant,
            tuned: false,
            kernel,
            launch,
            edges,
            params: [n, lo.to_bits(), hi.to_bits(), scale.to_bits()],
        })
    }

    /// What the plan counts.
    pub fn spec(&self) -> &HistogramSpec {
        &self.spec
    }

    /// The variant it runs.
    pub fn variant(&self) -> HistogramVariant {
        self.variant
    }

    /// Whether the variant came from the tuning cache.
    pub fn tuned(&self) -> bool {
        self.tuned
    }

    /// The launch it enqueues.
    pub fn launch(&self) -> &Launch {
        &self.launch
    }

    /// Enqueue: zero `counts` (the whole buffer), then count the values in
    /// `values` into its first `bins` words. `values` holds `len` values (u8:
    /// packed four to a word, `ceil(len / 4)` words; bytes past `len` in the
    /// last word are not counted).
    pub fn encode(&self, values: &Buffer, counts: &Buffer) -> Result<()> {
        let backend = &self.backend;
        check_binding(
            backend,
            "histogram values",
            values,
            self.spec.value_bytes()?,
        )?;
        check_binding(
            backend,
            "histogram counts",
            counts,
            self.spec.counts_bytes(),
        )?;
        check_binding(
            backend,
            "histogram edges",
            &self.edges,
            self.spec.edges_bytes(),
        )?;
        check_apart("histogram", ("counts", counts), &[("values", values)])?;
        counts.zero()?;
        if self.spec.len == 0 {
            return Ok(());
        }
        // SAFETY: with `n = len` (checked to fit a u32 in `with_variant`),
        // the kernel reads words of `values` below `n` (u32, f32), which
        // hold `value_bytes` bytes (checked above), or (u8) below `ceil(n /
        // 4)`, of which the buffer holds `n` bytes (checked above) and the
        // binding its capacity, a multiple of 16 bytes, so the word holding
        // byte `n − 1` is inside it; 4-word vectors only below `words / 4`,
        // whole words of values; writes (atomically) only
        // `counts[bin]` for `bin < BINS` (the buffer holds `BINS` words,
        // checked above); reads `edges[i]` only for f32 input and `i <= BINS`
        // (the plan's buffer of `BINS + 1` floats); and indexes shared memory
        // below `SHARED_BINS`, which is what `launch.shared_bytes` holds.
        // Every loop is bounded: the grid-stride loop by the vector count,
        // the zero / merge loops by `BINS`, the f32 search by `log2(BINS)`
        // steps. Index arithmetic stays below 2^32 (see `workgroups`).
        unsafe {
            backend.launch(
                &self.kernel,
                &self.launch,
                &[values, counts, &self.edges],
                &self.params,
            )
        }
    }
}

/// Counts of `spec.len` values given as their bytes (u8 values, or the bytes
/// of u32 / f32 values) on `backend`, with `variant` forced when given:
/// one upload, one download. Limits are checked before anything is
/// allocated.
pub fn histogram_bytes(
    backend: &Arc<dyn Backend>,
    bytes: &[u8],
    spec: &HistogramSpec,
    variant: Option<HistogramVariant>,
) -> Result<Vec<u32>> {
    let plan = match variant {
        Some(v) => HistogramPlan::with_variant(backend, spec, v)?,
        None => HistogramPlan::new(backend, spec)?,
    };
    let need = spec.value_bytes()?;
    if (bytes.len() as u64) < need {
        return Err(Error::ShapeMismatch(format!(
            "{} values need {need} bytes, got {}",
            spec.len,
            bytes.len()
        )));
    }
    let values = Buffer::from_slice(backend, bytes)?;
    let counts = backend.alloc(spec.counts_bytes())?;
    plan.encode(&values, &counts)?;
    counts.read(spec.bins as usize)
}

/// Counts of u32 values in `bins` bins (values `>= bins` are not counted).
pub fn histogram_u32(backend: &Arc<dyn Backend>, values: &[u32], bins: u32) -> Result<Vec<u32>> {
    let spec = HistogramSpec {
        input: HistogramInput::U32,
        len: values.len(),
        bins,
    };
    histogram_bytes(backend, bytemuck::cast_slice(values), &spec, None)
}

/// Counts of u8 values in `bins` bins (at most 256; values `>= bins` are not
/// counted). Uploads the bytes as they are, four to a word.
pub fn histogram_u8(backend: &Arc<dyn Backend>, values: &[u8], bins: u32) -> Result<Vec<u32>> {
    let spec = HistogramSpec {
        input: HistogramInput::U8,
        len: values.len(),
        bins,
    };
    histogram_bytes(backend, values, &spec, None)
}

/// numpy.histogram of f32 values: `bins` equal bins over `[lo, hi]` (an
/// empty range widened by a half each way, as numpy does:
/// [`HistogramInput::f32_range`]).
pub fn histogram_f32(
    backend: &Arc<dyn Backend>,
    values: &[f32],
    bins: u32,
    (lo, hi): (f64, f64),
) -> Result<Vec<u32>> {
    let spec = HistogramSpec {
        input: HistogramInput::f32_range(lo, hi),
        len: values.len(),
        bins,
    };
    histogram_bytes(backend, bytemuck::cast_slice(values), &spec, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// lavapipe-like: a loop cap, no compute-unit count, 64 KiB shared.
    fn lavapipe() -> Capabilities {
        Capabilities {
            max_shared_bytes: 64 << 10,
            max_buffer_bytes: 1 << 31,
            ..Capabilities::software_device()
        }
    }

    /// The iterations one invocation loops, counted as `workgroups` does.
    fn iterations(spec: &HistogramSpec, variant: HistogramVariant, groups: u32, gs: u32) -> u64 {
        let invocations = u64::from(groups) * u64::from(gs);
        let words = spec.len as u64 / per_word(spec.input);
        let search = match spec.input {
            HistogramInput::F32 { .. } => u64::from(search_steps(spec.bins)),
            _ => 0,
        };
        let merge = match variant {
            HistogramVariant::Shared => 2 * u64::from(spec.bins).div_ceil(u64::from(gs)),
            HistogramVariant::GlobalAtomics => 0,
        };
        merge + (words / 4).div_ceil(invocations) * (1 + 4 * search) + search
    }

    #[test]
    fn grids_keep_every_invocation_under_the_loop_budget() {
        let caps = lavapipe();
        let inputs = [
            HistogramInput::U32,
            HistogramInput::U8,
            HistogramInput::F32 { lo: -1.0, hi: 1.0 },
        ];
        for input in inputs {
            for len in [0usize, 1, 1 << 20, 1 << 28, u32::MAX as usize] {
                for bins in [1u32, 256, 16_384] {
                    let spec = HistogramSpec { input, len, bins };
                    for variant in HistogramVariant::ALL {
                        let groups = workgroups(&caps, &spec, variant, 256).unwrap();
                        assert!(groups >= 1 && groups <= caps.max_groups[0]);
                        let loops = iterations(&spec, variant, groups, 256);
                        assert!(
                            loops <= caps.loop_budget(),
                            "{spec:?} {variant:?}: {loops} iterations in {groups} groups"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn limits_are_checked_before_anything_is_built() {
        let caps = lavapipe();
        let spec = |input, len, bins| HistogramSpec { input, len, bins };
        // 4 GiB of counts on a 2 GiB-buffer device.
        assert!(matches!(
            check_device_limits(&caps, &spec(HistogramInput::U32, 16, 1 << 30)),
            Err(Error::ExceedsLimit { .. })
        ));
        let mut small = caps.clone();
        small.memory_bytes = 1 << 20;
        assert!(matches!(
            check_device_limits(&small, &spec(HistogramInput::U8, 1 << 20, 256)),
            Err(Error::ExceedsLimit { .. })
        ));
        assert!(check_device_limits(&caps, &spec(HistogramInput::U8, 1 << 20, 256)).is_ok());
    }

    #[test]
    fn tune_classes_name_input_bins_and_length() {
        let spec = HistogramSpec {
            input: HistogramInput::U8,
            len: 1 << 28,
            bins: 256,
        };
        assert_eq!(tune_class(&spec), "u8 bins<=2^8 n<=2^28");
    }
}
