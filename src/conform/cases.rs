//! The case list. Inputs are seeded by the case name, so every device (and
//! every run, on every machine) sees identical inputs.

use super::checks::{Conv1d, Conv2d, Histogram, Matmul, ReduceF32, ReduceInt, Rejects};
use super::Case;
use crate::HistogramPath;
use rosetta_core::inputs;
use rosetta_core::ops::{
    histogram_edges, Border, Conv2dSpec, Elem, HistogramInput, MatmulSpec, ReduceOp,
};
use rosetta_core::{Buffer, Error};
use rosetta_kernels::matmul::TILINGS;

/// A stable seed from a case name (FNV-1a).
fn seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A seeded input generator: `(seed, len) -> words`.
type Values = fn(u64, usize) -> Vec<u32>;

/// A call that must fail, its expected error's name, and the matcher.
type BadInput = (
    &'static str,
    &'static str,
    fn(&crate::Device) -> rosetta_core::Result<()>,
    fn(&Error) -> bool,
);

/// Largest input of the `--quick` subset (elements).
const QUICK_MAX: usize = 70_000;

/// Sizes around the workgroup (256) and vector-tile (1024) boundaries, primes,
/// and one past 2^24 that needs several passes.
const REDUCE_SIZES: [usize; 9] = [1, 255, 256, 257, 1023, 1025, 7919, 1_000_003, (1 << 24) + 3];

/// Every case, in a stable order.
pub fn cases() -> Vec<Case> {
    let mut all = Vec::new();
    reduce_cases(&mut all);
    histogram_cases(&mut all);
    conv1d_cases(&mut all);
    conv2d_cases(&mut all);
    matmul_cases(&mut all);
    bad_input_cases(&mut all);
    all
}

fn reduce_case(elem: Elem, op: ReduceOp, len: usize, label: &str, values: Values) -> Case {
    let name = format!("reduce {elem} {op} n={len}{label}");
    let s = seed(&name);
    let quick = len <= QUICK_MAX;
    match elem {
        Elem::F32 => Case::new(name, "reduce", quick, move || {
            ReduceF32::new(bytemuck::cast_vec(values(s, len)), op)
        }),
        Elem::I32 => Case::new(name, "reduce", quick, move || {
            ReduceInt::new(bytemuck::cast_vec::<u32, i32>(values(s, len)), op)
        }),
        Elem::U32 => Case::new(name, "reduce", quick, move || {
            ReduceInt::new(values(s, len), op)
        }),
    }
}

fn f32_words(seed: u64, len: usize) -> Vec<u32> {
    bytemuck::cast_vec(inputs::f32_values(seed, len))
}

fn int_words(seed: u64, len: usize) -> Vec<u32> {
    inputs::u32_values(seed, len)
}

fn reduce_cases(all: &mut Vec<Case>) {
    for elem in [Elem::F32, Elem::I32, Elem::U32] {
        let values = if elem == Elem::F32 {
            f32_words
        } else {
            int_words
        };
        // Empty: the sum is 0 (min/max of nothing is an error case below).
        all.push(reduce_case(elem, ReduceOp::Sum, 0, "", values));
        for len in REDUCE_SIZES {
            for op in ReduceOp::ALL {
                // One large case per element type and op keeps CI time sane.
                if len > 2_000_000 && !matches!((elem, op), (Elem::F32, _) | (_, ReduceOp::Sum)) {
                    continue;
                }
                all.push(reduce_case(elem, op, len, "", values));
            }
        }
    }
    // Special values: NaN propagates through min and max, infinities win.
    let specials: [(&str, ReduceOp, Values); 8] = [
        (" NaN inside", ReduceOp::Min, |s, n| {
            with_special(s, n, 4_321, f32::NAN)
        }),
        (" NaN inside", ReduceOp::Max, |s, n| {
            with_special(s, n, 4_321, f32::NAN)
        }),
        (" NaN in the tail", ReduceOp::Max, |s, n| {
            with_special(s, n, n - 1, f32::NAN)
        }),
        (" NaN first", ReduceOp::Min, |s, n| {
            with_special(s, n, 0, f32::NAN)
        }),
        (" -Inf", ReduceOp::Min, |s, n| {
            with_special(s, n, 777, f32::NEG_INFINITY)
        }),
        (" +Inf", ReduceOp::Max, |s, n| {
            with_special(s, n, 5_000, f32::INFINITY)
        }),
        // Only subnormals and zeros of both signs: exact only where min / max
        // don't go through float comparisons that flush subnormals to zero.
        (" subnormals", ReduceOp::Min, subnormals),
        (" subnormals", ReduceOp::Max, subnormals),
    ];
    for (label, op, values) in specials {
        all.push(reduce_case(Elem::F32, op, 10_007, label, values));
    }
    all.push(reduce_case(
        Elem::F32,
        ReduceOp::Max,
        1_000,
        " all -Inf",
        |_, n| bytemuck::cast_vec(vec![f32::NEG_INFINITY; n]),
    ));
    // Integer sums that wrap, bit-identical over 20 runs.
    all.push(
        reduce_case(
            Elem::I32,
            ReduceOp::Sum,
            100_003,
            " all i32::MAX (wraps)",
            |_, n| vec![i32::MAX as u32; n],
        )
        .repeated(20),
    );
    all.push(
        reduce_case(
            Elem::U32,
            ReduceOp::Sum,
            1_000_003,
            " x20 bit-identical",
            int_words,
        )
        .repeated(20),
    );
    all.push(
        reduce_case(
            Elem::I32,
            ReduceOp::Min,
            65_537,
            " x20 bit-identical",
            int_words,
        )
        .repeated(20),
    );
}

/// Random subnormal f32 values (and ±0) of both signs.
fn subnormals(seed: u64, len: usize) -> Vec<u32> {
    inputs::u32_values(seed, len)
        .into_iter()
        .map(|bits| bits & 0x807f_ffff)
        .collect()
}

fn with_special(seed: u64, len: usize, at: usize, value: f32) -> Vec<u32> {
    let mut x = inputs::f32_values(seed, len);
    x[at.min(len - 1)] = value;
    bytemuck::cast_vec(x)
}

fn histogram_case(
    label: &str,
    len: usize,
    bins: u32,
    input: HistogramInput,
    path: HistogramPath,
    words: impl Fn(u64, usize) -> Vec<u32> + Send + Sync + 'static,
) -> Case {
    let path_name = match path {
        HistogramPath::Auto => "",
        HistogramPath::Privatized => " shared",
        HistogramPath::GlobalAtomics => " global-atomics",
    };
    let kind = match input {
        HistogramInput::U32 => "u32".to_string(),
        HistogramInput::F32 { lo, hi } => format!("f32 [{lo}, {hi}]"),
    };
    let name = format!("histogram {kind} bins={bins} n={len}{label}{path_name}");
    let s = seed(&name);
    Case::new(name, "histogram", len <= QUICK_MAX, move || {
        Histogram::new(words(s, len), input, bins, path)
    })
}

fn histogram_cases(all: &mut Vec<Case>) {
    use HistogramPath::{Auto, GlobalAtomics, Privatized};
    let u32_in = HistogramInput::U32;
    let uniform = |bins: u32| move |s, n| inputs::u32_below(s, n, bins);
    for (len, bins, path) in [
        (0, 256, Auto),
        (1, 256, Auto),
        (1_023, 256, Auto),
        (65_537, 256, Privatized),
        (65_537, 256, GlobalAtomics),
        (1_000_003, 256, Auto),
        (65_537, 1, Auto),
        (65_537, 4096, Privatized),
        (65_537, 4096, GlobalAtomics),
        (1_000_003, 65_536, Auto),
        (65_537, 65_536, GlobalAtomics),
        ((1 << 24) + 3, 256, Auto),
    ] {
        all.push(histogram_case("", len, bins, u32_in, path, uniform(bins)));
    }
    // Values >= bins are not counted.
    all.push(histogram_case(
        " values up to 2x bins",
        65_537,
        1000,
        u32_in,
        Auto,
        |s, n| inputs::u32_below(s, n, 2000),
    ));
    all.push(histogram_case(
        " full u32 range",
        65_537,
        4096,
        u32_in,
        Auto,
        inputs::u32_values,
    ));
    // Every value in one bin: the worst case for atomic contention.
    for path in [Privatized, GlobalAtomics] {
        all.push(histogram_case(
            " all in one bin",
            1_000_003,
            256,
            u32_in,
            path,
            |_, n| vec![17; n],
        ));
    }
    all.push(
        histogram_case(
            " x20 bit-identical",
            1_000_003,
            256,
            u32_in,
            Auto,
            uniform(256),
        )
        .repeated(20),
    );
    // f32 values over a range, numpy.histogram's rules: values on every edge,
    // outside the range, and NaN.
    for (lo, hi, bins, path) in [
        (-1.0, 1.0, 256, Auto),
        (-1.0, 1.0, 256, GlobalAtomics),
        (0.0, 3.7, 100, Auto),
        (-0.3, 0.7, 1, Auto),
        (-1.0, 1.0, 4096, Privatized),
    ] {
        let input = HistogramInput::F32 { lo, hi };
        all.push(histogram_case(
            " edges and their neighbours, outside, NaN",
            65_537,
            bins,
            input,
            path,
            move |s, n| f32_histogram_values(s, n, lo, hi, bins),
        ));
    }
}

fn f32_histogram_values(seed: u64, len: usize, lo: f64, hi: f64, bins: u32) -> Vec<u32> {
    let edges = histogram_edges(lo, hi, bins);
    let span = (hi - lo) as f32;
    let (from, to) = (lo as f32 - 0.25 * span, hi as f32 + 0.25 * span);
    (0..len)
        .map(|i| {
            // Every edge exactly and the floats either side of it: where an f32
            // first guess of the bin is most often off by one.
            let edge = edges[(i / 50) % edges.len()];
            let x = match i % 50 {
                0 => edge,
                1 => edge.next_up(),
                2 => edge.next_down(),
                3 => f32::NAN,
                _ => inputs::f32_in(seed, i as u64, from, to),
            };
            x.to_bits()
        })
        .collect()
}

fn conv1d_cases(all: &mut Vec<Case>) {
    for (len, taps) in [
        (1, 1),
        (1, 3),
        (17, 101),
        (1_000, 1),
        (1_000, 3),
        (1_023, 9),
        (65_537, 31),
        (4_099, 257),
        (1_000_003, 9),
    ] {
        let name = format!("conv1d n={len} taps={taps}");
        let s = seed(&name);
        all.push(Case::new(name, "conv1d", len <= QUICK_MAX, move || {
            Conv1d::new(inputs::f32_values(s, len), inputs::f32_values(s ^ 1, taps))
        }));
    }
}

fn conv2d_cases(all: &mut Vec<Case>) {
    for border in [Border::Zero, Border::Clamp] {
        for (height, width, kh, kw) in [
            (1, 1, 1, 1),
            (33, 65, 1, 1),
            (33, 65, 3, 3),
            (127, 255, 5, 5),
            (64, 64, 7, 9),
            (65, 31, 9, 7),
            (5, 7, 15, 17), // filter larger than the image
            (1, 300, 3, 5),
            (301, 1, 5, 3),
            (1_031, 1_033, 5, 5),
            (97, 101, 49, 49), // smaller tiles where shared memory is 32 KiB
        ] {
            let spec = Conv2dSpec {
                height,
                width,
                kh,
                kw,
                border,
            };
            let name = format!("conv2d {height}x{width} filter {kh}x{kw} {}", border.name());
            let s = seed(&name);
            let quick = height * width <= QUICK_MAX;
            all.push(Case::new(name, "conv2d", quick, move || {
                Conv2d::new(
                    inputs::f32_values(s, height * width),
                    inputs::f32_values(s ^ 1, kh * kw),
                    spec,
                )
            }));
        }
    }
}

fn matmul_cases(all: &mut Vec<Case>) {
    // Dimensions from {1, 7, 16, 17, 63, 65, 129, 513}: every value appears as
    // each of M, N and K, in ragged and aligned combinations.
    for (m, n, k) in [
        (1, 1, 1),
        (7, 16, 17),
        (17, 7, 16),
        (16, 17, 7),
        (16, 16, 16),
        (63, 65, 129),
        (65, 129, 63),
        (129, 63, 65),
        (1, 513, 129),
        (513, 1, 65),
        (129, 129, 1),
        (7, 513, 63),
        (513, 17, 7),
        (65, 65, 513),
        (513, 513, 513),
    ] {
        let spec = MatmulSpec { m, k, n };
        let name = format!("matmul M={m} N={n} K={k}");
        let s = seed(&name);
        let quick = m.max(n).max(k) <= 129;
        all.push(Case::new(name, "matmul", quick, move || {
            Matmul::new(
                inputs::f32_values(s, m * k),
                inputs::f32_values(s ^ 1, k * n),
                spec,
                None,
            )
        }));
    }
    // Every tiling on ragged shapes, whatever the plan would choose for the
    // device (a GPU with many compute units picks small tiles for these).
    for tiling in TILINGS {
        for (m, n, k) in [(63, 129, 17), (513, 65, 129)] {
            let spec = MatmulSpec { m, k, n };
            let name = format!(
                "matmul M={m} N={n} K={k} tiles {}x{}x{} of {}x{}",
                tiling.tile_m, tiling.tile_n, tiling.tile_k, tiling.thread_m, tiling.thread_n
            );
            let s = seed(&name);
            all.push(Case::new(name, "matmul", true, move || {
                Matmul::new(
                    inputs::f32_values(s, m * k),
                    inputs::f32_values(s ^ 1, k * n),
                    spec,
                    Some(tiling),
                )
            }));
        }
    }
}

fn bad_input_cases(all: &mut Vec<Case>) {
    let cases: [BadInput; 10] = [
        (
            "matmul with mismatched inner dimensions",
            "ShapeMismatch",
            |_| MatmulSpec::from_shapes([2, 3], [4, 2]).map(drop),
            |e| matches!(e, Error::ShapeMismatch(_)),
        ),
        (
            "matmul with B shorter than its shape",
            "ShapeMismatch",
            |d| {
                d.matmul(&[1.0; 6], &[1.0; 5], &MatmulSpec { m: 2, k: 3, n: 2 })
                    .map(drop)
            },
            |e| matches!(e, Error::ShapeMismatch(_)),
        ),
        (
            "conv1d with an even filter",
            "InvalidFilter",
            |d| d.conv1d(&[1.0; 8], &[1.0, 2.0]).map(drop),
            |e| matches!(e, Error::InvalidFilter(_)),
        ),
        (
            "conv1d with an empty filter",
            "InvalidFilter",
            |d| d.conv1d(&[1.0; 8], &[]).map(drop),
            |e| matches!(e, Error::InvalidFilter(_)),
        ),
        (
            "conv2d with an even filter",
            "InvalidFilter",
            |d| {
                let spec = Conv2dSpec {
                    height: 4,
                    width: 4,
                    kh: 3,
                    kw: 4,
                    border: Border::Zero,
                };
                d.conv2d(&[0.0; 16], &[0.0; 12], &spec).map(drop)
            },
            |e| matches!(e, Error::InvalidFilter(_)),
        ),
        (
            "histogram with bins = 0",
            "ZeroBins",
            |d| d.histogram(&[1, 2, 3], 0).map(drop),
            |e| matches!(e, Error::ZeroBins),
        ),
        (
            "histogram with an empty range",
            "InvalidRange",
            |d| d.histogram_f32(&[1.0], 8, (1.0, 1.0)).map(drop),
            |e| matches!(e, Error::InvalidRange { .. }),
        ),
        (
            "min of an empty slice",
            "EmptyReduction",
            |d| d.reduce::<f32>(&[], ReduceOp::Min).map(drop),
            |e| matches!(e, Error::EmptyReduction { .. }),
        ),
        (
            "max of an empty slice",
            "EmptyReduction",
            |d| d.reduce::<u32>(&[], ReduceOp::Max).map(drop),
            |e| matches!(e, Error::EmptyReduction { .. }),
        ),
        (
            "buffer over the device's max allocation",
            "ExceedsLimit",
            |d| {
                let limit = d.info().caps.max_buffer_bytes;
                Buffer::new(d.backend(), limit + 1).map(drop)
            },
            |e| matches!(e, Error::ExceedsLimit { .. }),
        ),
    ];
    for (name, expected, call, is_expected) in cases {
        all.push(Case::new(
            format!("rejects {name}"),
            "errors",
            true,
            move || Rejects {
                expected,
                call,
                is_expected,
            },
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enough_cases_with_unique_names() {
        let all = cases();
        assert!(all.len() >= 60, "{} cases", all.len());
        let mut names: Vec<&str> = all.iter().map(|c| c.name.as_str()).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len(), "duplicate case names");
        for op in [
            "reduce",
            "histogram",
            "conv1d",
            "conv2d",
            "matmul",
            "errors",
        ] {
            assert!(
                all.iter().any(|c| c.op == op && c.quick),
                "no quick {op} case"
            );
        }
    }
}
