//! Benchmark workloads: what runs, the least traffic and arithmetic it
//! needs, how it is charted, and how its output is checked.

use rosetta_core::{Backend, Buffer, Error, Result};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Size preset. `Large` is the reference table on GPUs, scaled down on CPU
/// devices (the CPU backend, lavapipe, PoCL).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Size {
    /// Seconds on any device.
    Small,
    /// A minute or so in all.
    Medium,
    /// The reference workloads.
    Large,
}

impl Size {
    /// Every preset.
    pub const ALL: [Size; 3] = [Size::Small, Size::Medium, Size::Large];

    /// The preset called `name`.
    pub fn from_name(name: &str) -> Option<Size> {
        Size::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name))
    }

    /// `small`, `medium`, `large`.
    pub fn name(self) -> &'static str {
        match self {
            Size::Small => "small",
            Size::Medium => "medium",
            Size::Large => "large",
        }
    }
}

/// What a workload's chart shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    /// GB/s of the least traffic (`bytes` / time).
    Bandwidth,
    /// GFLOP/s (`flops` / time).
    Flops,
    /// The time itself (latency-bound work).
    Time,
}

/// A workload made ready on one device: inputs uploaded, plan built.
pub trait Prepared {
    /// Enqueue one run (what the timer measures).
    fn run(&mut self) -> Result<()>;
    /// Check the last run's output: `None` if right, else what is wrong.
    fn verify(&mut self) -> Result<Option<String>>;
    /// Which variant of the plan runs (tiling, path, ...), for reports.
    fn variant(&self) -> String;
    /// Whether the variant came from the tuning cache.
    fn tuned(&self) -> bool {
        false
    }
}

type Prepare =
    Arc<dyn Fn(&Arc<dyn Backend>, Option<&str>) -> Result<Box<dyn Prepared>> + Send + Sync>;

type Refine = Arc<dyn Fn(&str) -> Vec<String> + Send + Sync>;

/// One workload.
#[derive(Clone)]
pub struct Workload {
    /// The op's name.
    pub op: &'static str,
    /// Short label, e.g. `sum f32 n=2^28`.
    pub label: String,
    /// Workloads of one series differ only in size (charts against size).
    pub series: String,
    /// Elements in the main input (the x axis of size charts).
    pub elements: u64,
    /// The least bytes the op must move (inputs read once, outputs written once).
    pub bytes: u64,
    /// Floating-point operations (multiply-adds count 2), where meaningful.
    pub flops: Option<u64>,
    /// What the chart shows.
    pub metric: Metric,
    /// The plan's variants for this workload (empty: nothing to tune).
    pub variants: Vec<String>,
    /// The key the tuner stores its choice under (shape class), if tunable.
    pub tune_class: Option<String>,
    prepare: Prepare,
    refine: Option<Refine>,
}

impl Workload {
    /// A workload; `prepare(backend, variant)` uploads inputs and builds the
    /// plan (with `variant` forced when given, else the plan's own choice).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        op: &'static str,
        label: impl Into<String>,
        series: impl Into<String>,
        elements: u64,
        bytes: u64,
        flops: Option<u64>,
        metric: Metric,
        prepare: impl Fn(&Arc<dyn Backend>, Option<&str>) -> Result<Box<dyn Prepared>>
            + Send
            + Sync
            + 'static,
    ) -> Self {
        Workload {
            op,
            label: label.into(),
            series: series.into(),
            elements,
            bytes,
            flops,
            metric,
            variants: Vec::new(),
            tune_class: None,
            prepare: Arc::new(prepare),
            refine: None,
        }
    }

    /// Declare the variants a tuner may choose from, and its key.
    pub fn tunable(mut self, class: impl Into<String>, variants: Vec<String>) -> Self {
        self.tune_class = Some(class.into());
        self.variants = variants;
        self
    }

    /// Declare variants worth measuring once `variants` are measured:
    /// `refine(fastest)` names neighbours of the fastest (matmul: its tiling
    /// at other chunk counts of k), which the tuner measures in a second
    /// stage rather than around every variant.
    pub fn refined(mut self, refine: impl Fn(&str) -> Vec<String> + Send + Sync + 'static) -> Self {
        self.refine = Some(Arc::new(refine));
        self
    }

    /// The variants [`Workload::refined`] names around `fastest` (none when
    /// it declared none).
    pub fn refinements(&self, fastest: &str) -> Vec<String> {
        self.refine
            .as_ref()
            .map(|refine| refine(fastest))
            .unwrap_or_default()
    }

    /// Make the workload ready on a device.
    pub fn prepare(
        &self,
        backend: &Arc<dyn Backend>,
        variant: Option<&str>,
    ) -> Result<Box<dyn Prepared>> {
        (self.prepare)(backend, variant)
    }
}

impl std::fmt::Debug for Workload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workload")
            .field("op", &self.op)
            .field("label", &self.label)
            .field("metric", &self.metric)
            .finish()
    }
}

/// `2^k` for powers of two from 1024 up, else the number.
pub fn pow2_label(n: u64) -> String {
    if n.is_power_of_two() && n >= 1024 {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

/// Outputs a benchmark checks: all of them up to 2^16, else an even spread
/// (seeded jitter) plus both ends.
pub fn checked_indices(len: usize) -> Vec<usize> {
    const SAMPLED: usize = 1 << 16;
    if len <= SAMPLED {
        return (0..len).collect();
    }
    let step = len / SAMPLED;
    (0..SAMPLED)
        .map(|i| i * step + (rosetta_core::inputs::bits(0x5eed, i as u64) as usize % step))
        .chain([0, len - 1])
        .collect()
}

/// A workload's input: a device buffer of `len` values of `T`, allocated
/// before `make` builds the values on the host, then filled with them. A
/// length past the device's largest buffer is the allocation's typed error
/// before the host spends memory on it (a matmul `--shape` whose A held
/// 2^48 values aborted the process allocating them).
pub fn made_on_device<T: bytemuck::Pod>(
    backend: &Arc<dyn Backend>,
    len: usize,
    make: impl FnOnce() -> Vec<T>,
) -> Result<(Buffer, Vec<T>)> {
    let bytes = (len as u64)
        .checked_mul(std::mem::size_of::<T>() as u64)
        .ok_or_else(|| Error::ShapeMismatch(format!("{len} values' bytes overflow")))?;
    let buffer = Buffer::new(backend, bytes)?;
    let values = make();
    debug_assert_eq!(values.len(), len);
    buffer.write(&values)?;
    Ok((buffer, values))
}
