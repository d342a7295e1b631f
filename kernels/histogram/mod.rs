//! Histogram: counts of u32 or u8 values in `bins` bins (value `v` in bin
//! `v`), or of f32 values in `bins` equal bins over a range (numpy.histogram's
//! rules).
//!
//! # Algorithm (every language)
//! Two variants, named as in reports, case names and the tuning cache:
//! - **`shared`** (privatized, `SHARED_BINS == BINS`): the workgroup zeroes a
//!   shared histogram of `BINS` words (`for b = lid; b < BINS; b += GROUP_SIZE`);
//!   barrier; counts its grid-stride share of the values into it with
//!   shared-memory atomics; barrier; merge: for each bin this invocation owns,
//!   a non-zero shared count is added to `counts[bin]` with a global atomic.
//! - **`global-atomics`** (`SHARED_BINS == 1`; the default where `BINS` words
//!   do not fit in shared memory): the same loop adds to `counts[bin]` with
//!   global atomics. The shared array still exists (1 word) so static arrays
//!   stay valid; it is not used.
//!
//! Counting (phase 2), with `words` the whole words of input (`n`, or `n / 4`
//! for u8) and `vectors = words / 4`:
//! 1. Grid-stride over 4-word vectors: invocation `t = group_id.x·GROUP_SIZE +
//!    lid` of `T = num_groups.x·GROUP_SIZE` takes vectors `t, t + T, …`. A
//!    vector whose four values (sixteen for u8) fall in one bin adds 4 (16)
//!    with one atomic — constant or skewed input would otherwise serialise on
//!    one bin's atomic; others count value by value (u8: word by word, a word
//!    of four equal bytes with one atomic of 4).
//! 2. The `words % 4` tail words: invocation `t < words % 4` counts word
//!    `vectors·4 + t` (the plan launches at least 4 invocations; no loop).
//! 3. u8 only: invocation 0 counts the first `n % 4` bytes of the partial
//!    word `n / 4`; its other bytes are not values and are never counted.
//!
//! The plan zeroes `counts` before the launch, and sizes the grid so that no
//! invocation loops more often than the device's loop budget allows
//! (`Capabilities::loop_budget`: llvmpipe stops loops silently past a cap),
//! counting the zero / merge loops, the vector loop and the f32 search.
//!
//! # Binning
//! - `INPUT = 0` (u32): value `v` goes to bin `v` if `v < BINS`, else nowhere.
//! - `INPUT = 2` (u8): byte `k` of word `w` (little-endian: `(w >> 8k) & 0xff`)
//!   is value `v`, which goes to bin `v` if `v < BINS` (`BINS <= 256`, 256 by
//!   default), else nowhere.
//! - `INPUT = 1` (f32): NaN is not counted; otherwise value `x` is counted
//!   only if `lo <= x && x <= hi`. Its bin is the last `i < BINS` with
//!   `edges[i] <= x`, found from a first guess
//!   `g = min(u32(min(max(floor((x − lo) · scale), 0), BINS − 1)), BINS − 1)`
//!   in f32 (one subtraction and one multiplication: no contraction to FMA is
//!   possible; the integer `min` keeps `g` in range whatever the float
//!   conversion gives for NaN or values rounded up to `BINS`): a bracket
//!   `[a, b)` with `edges[a] <= x` and `b == BINS || x < edges[b]` starts as
//!   `[0, BINS)`, is narrowed by comparing `x` with `edges[g]` and one
//!   neighbour (`[g, g + 1)` or `[g − 1, g)` settles it when the guess is
//!   within one bin, as it is except in extreme ranges), then binary search
//!   halves it while `b − a > 1`: at most `ceil(log2(BINS))` steps, whatever
//!   the guess (a device that flushes subnormal differences to zero guesses
//!   bin 0 for every value of a subnormal range). Every comparison of `x`
//!   with `lo`, `hi` and the edges compares `ordered_key`s of the bits (see
//!   `reduce/mod.rs`), so devices that flush subnormals still bin exactly;
//!   only the guess is float arithmetic. This gives exactly numpy's bin (see
//!   [`histogram_edges`]) wherever `hi − lo` is a finite f32; for ranges
//!   wider than f32's largest value (say `[-3.4e38, 3.4e38]`) numpy's own
//!   float32 arithmetic overflows and can put a value lying exactly on an
//!   edge in the bin below, while rosetta keeps the edges' rule.
//!
//! # Ranges and limits (issue 10)
//! - A range too narrow for its bins — numpy raises "Too many bins for data
//!   range" when the f32 edges are not strictly increasing — is
//!   [`rosetta_core::Error::InvalidRange`] ("too narrow for its bins"), never
//!   a histogram with empty bins; checked without building the edges
//!   ([`HistogramSpec::validate`]).
//! - Values, counts and edges are checked against the device's largest
//!   buffer and its memory before anything is allocated or built on the host
//!   ([`plan::check_device_limits`]): a bin count over the limit is
//!   `ExceedsLimit` at once.
//!
//! # Interface
//! - constants: `GROUP_SIZE`, `BINS`, `SHARED_BINS` (`BINS` or 1), `INPUT`
//!   (0 u32, 1 f32, 2 u8).
//! - bindings: 0 `values` (read, `n` words; u8: `ceil(n / 4)` words), 1
//!   `counts` (read-write, `BINS` words, zeroed), 2 `edges` (read, `BINS + 1`
//!   f32 for `INPUT = 1`; a one-vector dummy otherwise, bound but unused).
//! - params: `n` (values), `lo` (f32), `hi` (f32), `scale` (f32).
//! - shared: `SHARED_BINS` words, **dynamic** in CUDA (`extern __shared__`,
//!   which lets large histograms pass 48 KB) and OpenCL (`__local` argument).
//!
//! # Tuning
//! Workloads list both variants; `rosetta tune` stores the faster under
//! [`tune_class`] (input type, bins and length classes), which
//! [`HistogramPlan::new`] looks up. A plan cannot see the values'
//! distribution, so the skewed and constant workloads store theirs under the
//! class with the distribution appended, for the record; plans use the
//! uniform one.

mod cases;
mod kernel;
pub mod plan;
mod spec;

pub use kernel::kernel;
pub use plan::{
    histogram_bytes, histogram_f32, histogram_u32, histogram_u8, tune_class, HistogramPlan,
    HistogramVariant,
};
pub use spec::{
    count_f32, count_u32, count_u8, f32_bin, histogram_edges, histogram_scale, search_steps,
    zipf_values, HistogramInput, HistogramSpec, U8_BINS,
};

use crate::op::{
    made_on_device, ArrayData, Case, CliOption, CliSpec, HostArray, Metric, Op, Options, Prepared,
    Size, Workload,
};
use rosetta_core::{inputs, Backend, Buffer, DeviceInfo, Error, KernelDef, Result};
use std::sync::Arc;

/// The histogram op.
pub struct Histogram;

/// How a workload's values are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Distribution {
    /// Uniform over the bins.
    Uniform,
    /// Zipf-like ([`zipf_values`]): an eighth in bin 0.
    Skewed,
    /// Every value in one bin: the worst case for atomic contention.
    Constant,
}

impl Distribution {
    fn name(self) -> &'static str {
        match self {
            Distribution::Uniform => "uniform",
            Distribution::Skewed => "skewed",
            Distribution::Constant => "constant",
        }
    }
}

struct HistogramRun {
    plan: HistogramPlan,
    values: Buffer,
    counts: Buffer,
    expected: Vec<u32>,
}

impl Prepared for HistogramRun {
    fn run(&mut self) -> Result<()> {
        self.plan.encode(&self.values, &self.counts)
    }
    fn verify(&mut self) -> Result<Option<String>> {
        let got: Vec<u32> = self.counts.read(self.expected.len())?;
        Ok(got
            .iter()
            .zip(&self.expected)
            .position(|(g, e)| g != e)
            .map(|i| format!("bin {i}: got {}, expected {}", got[i], self.expected[i])))
    }
    fn variant(&self) -> String {
        self.plan.variant().name().to_string()
    }
    fn tuned(&self) -> bool {
        self.plan.tuned()
    }
}

/// A workload of `len` values of `input` (u32 or u8) in `bins` bins.
fn workload(input: HistogramInput, distribution: Distribution, len: usize, bins: u32) -> Workload {
    let spec = HistogramSpec { input, len, bins };
    let elem = input.elem();
    let series = format!("{elem} {} {bins} bins", distribution.name());
    let class = match distribution {
        Distribution::Uniform => tune_class(&spec),
        other => format!("{} {}", tune_class(&spec), other.name()),
    };
    Workload::new(
        "histogram",
        format!("{series} n={}", crate::op::pow2_label(len as u64)),
        series,
        len as u64,
        len as u64 * elem.size() + spec.counts_bytes(),
        None,
        Metric::Bandwidth,
        move |backend, variant| {
            let plan = match variant {
                Some(name) => {
                    let v = HistogramVariant::from_name(name).ok_or_else(|| {
                        Error::InvalidArgument(format!("no histogram variant '{name}'"))
                    })?;
                    HistogramPlan::with_variant(backend, &spec, v)?
                }
                None => HistogramPlan::new(backend, &spec)?,
            };
            // Device buffers before host values (`made_on_device`).
            let counts = backend.alloc(spec.counts_bytes())?;
            let seed = 0x5eed_4157;
            let words = || match distribution {
                Distribution::Uniform => inputs::u32_below(seed, len, bins),
                Distribution::Skewed => zipf_values(seed, len, bins),
                Distribution::Constant => vec![bins / 3; len],
            };
            let (values, expected) = match input {
                HistogramInput::U8 => {
                    let (values, bytes) = made_on_device(backend, len, || {
                        words().iter().map(|&w| w as u8).collect()
                    })?;
                    (values, count_u8(&bytes, bins))
                }
                _ => {
                    let (values, words) = made_on_device(backend, len, words)?;
                    (values, count_u32(&words, bins))
                }
            };
            Ok(Box::new(HistogramRun {
                plan,
                values,
                counts,
                expected,
            }) as Box<dyn Prepared>)
        },
    )
    .tunable(class, HistogramVariant::names())
}

impl Op for Histogram {
    fn name(&self) -> &'static str {
        "histogram"
    }

    fn about(&self) -> &'static str {
        "counts of uint32, uint8 or float32 values in bins (numpy.histogram's rules for floats)"
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
        // 256 bins over 2^28 values at `large` on GPUs (2^26 on CPU-type
        // devices): u32 uniform, skewed and constant, and u8 (image) values.
        let len = 1usize << crate::big_log2(size, device);
        vec![
            workload(HistogramInput::U32, Distribution::Uniform, len, 256),
            workload(HistogramInput::U32, Distribution::Skewed, len, 256),
            workload(HistogramInput::U32, Distribution::Constant, len, 256),
            workload(HistogramInput::U8, Distribution::Uniform, len, U8_BINS),
        ]
    }

    fn shape_forms(&self) -> &'static [&'static str] {
        &[
            "N (N u32 and N u8 values, 256 bins)",
            "NxBINS (u32 values, and u8 where BINS <= 256)",
        ]
    }

    fn shaped_workloads(&self, dims: &[usize], _: &DeviceInfo) -> Result<Vec<Workload>> {
        let (len, bins) = match *dims {
            [len] => (len, U8_BINS as usize),
            [len, bins] => (len, bins),
            _ => return Err(crate::op::wrong_form(self.name(), dims, self.shape_forms())),
        };
        let bins = u32::try_from(bins).map_err(|_| {
            Error::InvalidArgument(format!("a histogram has at most 2^32 - 1 bins, got {bins}"))
        })?;
        // Uniform values: a plan cannot see the distribution, so the tuner
        // keys its choice on the uniform workload's class.
        let mut list = Vec::new();
        for input in [HistogramInput::U32, HistogramInput::U8] {
            let spec = HistogramSpec { input, len, bins };
            if input == HistogramInput::U32 || bins <= U8_BINS {
                spec.validate()?;
                list.push(workload(input, Distribution::Uniform, len, bins));
            }
        }
        Ok(list)
    }

    fn cli(&self) -> CliSpec {
        CliSpec {
            inputs: vec!["VALUES"],
            options: vec![
                CliOption {
                    name: "bins",
                    value_name: "N",
                    help: "number of bins (uint8 values: at most 256, default 256; required for uint32 and float32)",
                    default: None,
                    choices: &[],
                    kind: crate::op::OptionKind::Count,
                },
                CliOption {
                    name: "range",
                    value_name: "LO,HI",
                    help: "float32 values: the range the bins cover (required there; refused for integer values); edges as numpy.histogram's for a range of Python floats (computed in float64, rounded to float32)",
                    default: None,
                    choices: &[],
                    kind: crate::op::OptionKind::Range,
                },
            ],
            about_inputs: "VALUES: a uint32, uint8 or float32 array of any shape (all elements); writes `bins` uint32 counts",
        }
    }

    fn run(
        &self,
        backend: &Arc<dyn Backend>,
        options: &Options,
        inputs: Vec<HostArray>,
    ) -> Result<HostArray> {
        let [x] = crate::exactly::<1>(inputs)?;
        let bins = options.u32("bins")?;
        let range = options.range("range")?;
        let needs_bins = |what: &str| {
            bins.ok_or_else(|| Error::InvalidArgument(format!("{what} values need --bins N")))
        };
        let no_range = |what: &str| match range {
            Some(_) => Err(Error::InvalidArgument(format!(
                "--range is for float32 values; {what} value v counts in bin v"
            ))),
            None => Ok(()),
        };
        let counts = match &x.data {
            ArrayData::U32(v) => {
                no_range("uint32")?;
                histogram_u32(backend, v, needs_bins("uint32")?)?
            }
            ArrayData::U8(v) => {
                no_range("uint8")?;
                histogram_u8(backend, v, bins.unwrap_or(U8_BINS))?
            }
            ArrayData::F32(v) => {
                let range = range.ok_or_else(|| {
                    Error::InvalidArgument("float32 values need --range LO,HI".into())
                })?;
                histogram_f32(backend, v, needs_bins("float32")?, range)?
            }
            ArrayData::I32(_) => {
                return Err(crate::op::wrong_type(
                    "VALUES",
                    "uint32, uint8 or float32",
                    rosetta_core::Elem::I32,
                ))
            }
        };
        Ok(HostArray::vector(ArrayData::U32(counts)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernel_has_every_language() {
        assert_eq!(kernel().sources().languages().len(), 5);
    }

    #[test]
    fn cli_refuses_what_does_not_apply() {
        let backend = rosetta_backend_cpu::discover().unwrap().remove(0);
        let run = |data: ArrayData, opts: &[(&str, &str)]| {
            Histogram.run(
                &backend,
                &Options::new(opts.iter().copied()),
                vec![HostArray::vector(data)],
            )
        };
        let u8s = ArrayData::U8(vec![0, 1, 255, 255, 7]);
        let out = run(u8s.clone(), &[]).unwrap();
        assert_eq!(out.shape, vec![256]);
        let ArrayData::U32(counts) = out.data else {
            panic!("counts are u32")
        };
        assert_eq!((counts[0], counts[1], counts[7], counts[255]), (1, 1, 1, 2));
        assert!(run(u8s.clone(), &[("range", "0,1")])
            .unwrap_err()
            .is_usage());
        assert!(run(u8s, &[("bins", "300")]).unwrap_err().is_usage());
        let u32s = ArrayData::U32(vec![1, 2, 3]);
        assert!(run(u32s.clone(), &[]).unwrap_err().is_usage(), "needs bins");
        assert!(run(u32s.clone(), &[("bins", "4"), ("range", "0,1")]).is_err());
        assert!(run(u32s, &[("bins", "4")]).is_ok());
        let f32s = ArrayData::F32(vec![0.5, 1.5]);
        assert!(run(f32s.clone(), &[("bins", "2")]).unwrap_err().is_usage());
        assert!(run(f32s.clone(), &[("range", "0,2")])
            .unwrap_err()
            .is_usage());
        let out = run(f32s, &[("bins", "2"), ("range", "0,2")]).unwrap();
        assert_eq!(out.data, ArrayData::U32(vec![1, 1]));
        assert!(run(ArrayData::I32(vec![1]), &[("bins", "2")]).is_err());
    }
}
