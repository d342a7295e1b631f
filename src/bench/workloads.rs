//! The benchmark workloads: DESIGN.md's reference table, in size presets.

use rosetta_core::ops::{Border, ReduceOp};
use rosetta_core::DeviceType;
use serde::Serialize;
use std::fmt;

/// Size preset. `Large` is DESIGN.md's reference table on GPUs, scaled down
/// on CPU devices (the CPU backend, lavapipe, PoCL).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Size {
    Small,
    Medium,
    Large,
}

impl Size {
    pub fn from_name(name: &str) -> Option<Size> {
        match name.to_ascii_lowercase().as_str() {
            "small" => Some(Size::Small),
            "medium" => Some(Size::Medium),
            "large" => Some(Size::Large),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Size::Small => "small",
            Size::Medium => "medium",
            Size::Large => "large",
        }
    }
}

/// The ops a benchmark can select (`--op`), plus the copy roofline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Copy,
    Reduce,
    Histogram,
    Conv1d,
    Conv2d,
    Matmul,
}

impl Op {
    pub const SELECTABLE: [Op; 5] = [
        Op::Reduce,
        Op::Histogram,
        Op::Conv1d,
        Op::Conv2d,
        Op::Matmul,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Op::Copy => "copy",
            Op::Reduce => "reduce",
            Op::Histogram => "histogram",
            Op::Conv1d => "conv1d",
            Op::Conv2d => "conv2d",
            Op::Matmul => "matmul",
        }
    }

    pub fn from_name(name: &str) -> Option<Op> {
        Op::SELECTABLE
            .into_iter()
            .chain([Op::Copy])
            .find(|op| op.name().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a workload computes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Params {
    Copy {
        words: usize,
    },
    Reduce {
        len: usize,
        op: ReduceOp,
    },
    Histogram {
        len: usize,
        bins: u32,
    },
    Conv1d {
        len: usize,
        taps: usize,
    },
    Conv2d {
        height: usize,
        width: usize,
        kh: usize,
        kw: usize,
        border: Border,
    },
    Matmul {
        m: usize,
        n: usize,
        k: usize,
    },
}

/// One workload: what runs, and the minimum traffic and arithmetic it needs.
#[derive(Debug, Clone, Serialize)]
pub struct Workload {
    pub op: Op,
    /// Short label, e.g. `sum f32 n=2^28`.
    pub label: String,
    /// Workloads of one series differ only in size (bandwidth-vs-size charts).
    pub series: String,
    pub params: Params,
    /// Elements in the main input (the x axis of size charts).
    pub elements: u64,
    /// The least bytes the op must move (read inputs once, write outputs once).
    pub bytes: u64,
    /// Floating-point operations (conv and matmul: 2 per multiply-add).
    pub flops: Option<u64>,
}

fn pow2_label(n: usize) -> String {
    if n.is_power_of_two() && n >= 1024 {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

impl Workload {
    pub fn new(params: Params) -> Workload {
        let w = 4u64; // bytes per element: every op works on 32-bit values
        let (op, label, series, elements, bytes, flops) = match params {
            Params::Copy { words } => {
                let n = words as u64;
                (
                    Op::Copy,
                    format!("copy n={}", pow2_label(words)),
                    "copy".into(),
                    n,
                    2 * n * w,
                    None,
                )
            }
            Params::Reduce { len, op } => {
                let n = len as u64;
                (
                    Op::Reduce,
                    format!("{op} f32 n={}", pow2_label(len)),
                    format!("{op} f32"),
                    n,
                    n * w,
                    None,
                )
            }
            Params::Histogram { len, bins } => {
                let n = len as u64;
                (
                    Op::Histogram,
                    format!("{bins} bins n={}", pow2_label(len)),
                    format!("{bins} bins"),
                    n,
                    (n + u64::from(bins)) * w,
                    None,
                )
            }
            Params::Conv1d { len, taps } => {
                let n = len as u64;
                (
                    Op::Conv1d,
                    format!("n={} taps={taps}", pow2_label(len)),
                    format!("taps={taps}"),
                    n,
                    (2 * n + taps as u64) * w,
                    Some(2 * n * taps as u64),
                )
            }
            Params::Conv2d {
                height,
                width,
                kh,
                kw,
                ..
            } => {
                let n = (height * width) as u64;
                (
                    Op::Conv2d,
                    format!("{height}x{width} filter {kh}x{kw}"),
                    format!("filter {kh}x{kw}"),
                    n,
                    (2 * n + (kh * kw) as u64) * w,
                    Some(2 * n * (kh * kw) as u64),
                )
            }
            Params::Matmul { m, n, k } => {
                let (m64, n64, k64) = (m as u64, n as u64, k as u64);
                (
                    Op::Matmul,
                    format!("{m}x{n}x{k}"),
                    "square".into(),
                    m64 * n64,
                    (m64 * k64 + k64 * n64 + m64 * n64) * w,
                    Some(2 * m64 * n64 * k64),
                )
            }
        };
        Workload {
            op,
            label,
            series,
            params,
            elements,
            bytes,
            flops,
        }
    }
}

/// `log2` of the main sizes per preset: (reduce/histogram/copy, conv1d,
/// conv2d side, matmul side).
fn scale(size: Size, device: DeviceType) -> (u32, u32, usize, usize) {
    match (size, device.is_cpu()) {
        (Size::Small, _) => (20, 18, 512, 256),
        (Size::Medium, false) => (24, 22, 2048, 1024),
        (Size::Medium, true) => (22, 20, 1024, 512),
        (Size::Large, false) => (28, 26, 8192, 4096),
        (Size::Large, true) => (26, 24, 2048, 1024),
    }
}

/// The workloads of a preset for one device, copy first (the roofline the
/// others are measured against), then each selected op.
pub fn workloads(size: Size, device: DeviceType, ops: &[Op]) -> Vec<Workload> {
    let (big, conv1d, side, matmul) = scale(size, device);
    let mut list = vec![Workload::new(Params::Copy { words: 1 << big })];
    for &op in ops {
        match op {
            Op::Copy => {}
            Op::Reduce => {
                // Bandwidth against size: the sum from 2^16 up to the preset's size.
                for log in (16..=big).step_by(2) {
                    list.push(Workload::new(Params::Reduce {
                        len: 1 << log,
                        op: ReduceOp::Sum,
                    }));
                }
            }
            Op::Histogram => list.push(Workload::new(Params::Histogram {
                len: 1 << big,
                bins: 256,
            })),
            Op::Conv1d => list.push(Workload::new(Params::Conv1d {
                len: 1 << conv1d,
                taps: 9,
            })),
            Op::Conv2d => list.push(Workload::new(Params::Conv2d {
                height: side,
                width: side,
                kh: 5,
                kw: 5,
                border: Border::Zero,
            })),
            Op::Matmul => {
                let mut side = matmul;
                // The large GPU preset also gives cuBLAS's smaller reference points.
                let sizes = if size == Size::Large && !device.is_cpu() {
                    3
                } else {
                    1
                };
                for _ in 0..sizes {
                    list.push(Workload::new(Params::Matmul {
                        m: side,
                        n: side,
                        k: side,
                    }));
                    side /= 2;
                }
            }
        }
    }
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_gpu_preset_is_the_reference_table() {
        let list = workloads(Size::Large, DeviceType::DiscreteGpu, &Op::SELECTABLE);
        let labels: Vec<&str> = list.iter().map(|w| w.label.as_str()).collect();
        for expected in [
            "copy n=2^28",
            "sum f32 n=2^28",
            "sum f32 n=2^20",
            "256 bins n=2^28",
            "8192x8192 filter 5x5",
            "n=2^26 taps=9",
            "4096x4096x4096",
            "2048x2048x2048",
            "1024x1024x1024",
        ] {
            assert!(
                labels.contains(&expected),
                "{expected} missing from {labels:?}"
            );
        }
        assert_eq!(
            Workload::new(Params::Copy { words: 1 << 28 }).bytes,
            2 << 30
        );
    }

    #[test]
    fn cpu_devices_get_smaller_sizes() {
        let list = workloads(Size::Large, DeviceType::Cpu, &[Op::Matmul, Op::Conv2d]);
        assert!(list.iter().any(|w| w.label == "1024x1024x1024"));
        assert!(list.iter().any(|w| w.label == "2048x2048 filter 5x5"));
        assert_eq!(list[0].op, Op::Copy);
    }
}
