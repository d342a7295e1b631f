//! Conv2d's conformance cases. Inputs are seeded by the case name. Random
//! values are checked under the error bound; small integers, u8 pixels under
//! small integer filters, and ones (whose every partial sum is exact in f32)
//! are checked exactly, so dropped or repeated work shows.

use super::plan::{conv2d_f32, conv2d_u8};
use super::plan::{
    conv2d_slice, filter_chunks, geometry, max_square_filter, Conv2dPlan, Conv2dVariant,
    GLOBAL_MAX_KW, MAX_DIRECT_LAUNCHES,
};
use super::spec::{conv2d_bound, conv2d_reference, Border, Conv2dSpec};
use crate::op::random::{self, largest, largest_odd, least_device, Draw};
use crate::op::{
    compare_bounded, padding, preferred_group_size, seed, ArrayData, Case, CaseGroup, Check,
    Context, Exact, GeometryAudit, HostArray, Options, Rejects, Verdict,
};
use rayon::prelude::*;
use rosetta_core::{inputs, Backend, Buffer, Capabilities, Elem, Error, Result};
use std::sync::Arc;

const OP: &str = "conv2d";

/// Largest image of the `--quick` subset (pixels).
const QUICK_MAX: usize = 70_000;

/// A seeded generator of filter values: `(seed, len) -> values`.
type Values = fn(u64, usize) -> Vec<f32>;

/// An image's pixels.
enum Image {
    F32(Vec<f32>),
    U8(Vec<u8>),
}

impl Image {
    fn elem(&self) -> Elem {
        match self {
            Image::F32(_) => Elem::F32,
            Image::U8(_) => Elem::U8,
        }
    }
}

/// How a case's pixels are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pixels {
    /// f32 uniform in [-1, 1).
    Random,
    /// f32 integers −4..=4.
    SmallInts,
    /// u8 over 0..=255.
    Bytes,
    /// f32 small enough that products underflow, a quarter subnormal.
    Underflowing,
    /// f32 uniform in [-1, 1) with a NaN, a +Inf and a -Inf.
    NonFinite,
}

impl Pixels {
    fn make(self, seed: u64, len: usize) -> Image {
        match self {
            Pixels::Random => Image::F32(inputs::f32_values(seed, len)),
            Pixels::SmallInts => Image::F32(small_ints(seed, len)),
            Pixels::Underflowing => Image::F32(inputs::f32_underflowing(seed, len)),
            Pixels::NonFinite => Image::F32(inputs::f32_with_nonfinite(seed, len)),
            Pixels::Bytes => Image::U8(
                inputs::u32_below(seed, len, 256)
                    .into_iter()
                    .map(|v| v as u8)
                    .collect(),
            ),
        }
    }

    fn elem(self) -> Elem {
        match self {
            Pixels::Bytes => Elem::U8,
            _ => Elem::F32,
        }
    }
}

/// Integers −4..=4 as f32.
fn small_ints(seed: u64, len: usize) -> Vec<f32> {
    inputs::u32_below(seed, len, 9)
        .into_iter()
        .map(|v| v as f32 - 4.0)
        .collect()
}

/// Integers −2..=2 as f32: with u8 pixels, every partial sum of a filter of
/// up to 2^14 taps is an integer below 2^24, exact in f32.
fn small_filter(seed: u64, len: usize) -> Vec<f32> {
    inputs::u32_below(seed, len, 5)
        .into_iter()
        .map(|v| v as f32 - 2.0)
        .collect()
}

/// A convolution of prepared values against the reference.
struct Conv {
    image: Image,
    filter: Vec<f32>,
    spec: Conv2dSpec,
    variant: Option<Conv2dVariant>,
    reference: Vec<Exact>,
    /// Every partial sum is exact: compare exactly, not under the bound.
    exact: bool,
}

impl Conv {
    fn new(
        image: Image,
        filter: Vec<f32>,
        spec: Conv2dSpec,
        variant: Option<Conv2dVariant>,
        exact: bool,
    ) -> Self {
        let reference = match &image {
            Image::F32(v) => conv2d_reference(v, &filter, &spec),
            Image::U8(v) => conv2d_reference(v, &filter, &spec),
        };
        Conv {
            image,
            filter,
            spec,
            variant,
            reference,
            exact,
        }
    }

    /// An image of ones (f32 or u8) under a filter of ones: each output
    /// counts the filter's taps over the image (every tap with the clamp
    /// rule), exactly — the reference without the O(pixels · taps) work.
    fn ones(spec: Conv2dSpec, elem: Elem) -> Self {
        let pixels = spec.height * spec.width;
        let inside = |at: usize, len: usize, k: usize| {
            let r = k / 2;
            ((len + r - at).min(k) - r.saturating_sub(at)) as f64
        };
        let width = spec.width.max(1);
        let reference = (0..pixels)
            .into_par_iter()
            .map(|p| {
                let count = match spec.border {
                    Border::Clamp => (spec.kh * spec.kw) as f64,
                    Border::Zero => {
                        inside(p / width, spec.height, spec.kh)
                            * inside(p % width, spec.width, spec.kw)
                    }
                };
                Exact::normal(count, count)
            })
            .collect();
        let image = match elem {
            Elem::U8 => Image::U8(vec![1; pixels]),
            _ => Image::F32(vec![1.0; pixels]),
        };
        Conv {
            image,
            filter: vec![1.0; spec.kh * spec.kw],
            spec,
            variant: None,
            reference,
            exact: true,
        }
    }

    fn run_with(
        &self,
        backend: &Arc<dyn Backend>,
        variant: Option<Conv2dVariant>,
    ) -> Result<Verdict> {
        let got = match &self.image {
            Image::F32(v) => conv2d_slice(backend, v, &self.filter, &self.spec, variant)?,
            Image::U8(v) => conv2d_slice(backend, v, &self.filter, &self.spec, variant)?,
        };
        Ok(self.compare(&got))
    }

    /// `got` against the reference: exactly, or under the error bound.
    fn compare(&self, got: &[f32]) -> Verdict {
        let (spec, exact) = (self.spec, self.exact);
        compare_bounded(got, &self.reference, |_, e| {
            if exact {
                0.0
            } else {
                conv2d_bound(&spec, e)
            }
        })
    }
}

impl Check for Conv {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        self.run_with(ctx.backend, self.variant)
    }
}

fn spec(height: usize, width: usize, kh: usize, kw: usize, border: Border) -> Conv2dSpec {
    Conv2dSpec {
        height,
        width,
        kh,
        kw,
        border,
    }
}

fn name(spec: &Conv2dSpec, elem: Elem, label: &str, variant: Option<Conv2dVariant>) -> String {
    let variant = variant
        .map(|v| format!(" {}", v.name()))
        .unwrap_or_default();
    format!(
        "conv2d {elem} {}x{} filter {}x{} {}{label}{variant}",
        spec.height, spec.width, spec.kh, spec.kw, spec.border
    )
}

/// A case: pixels and filter from generators, checked exactly when `exact`.
fn case(
    group: CaseGroup,
    spec: Conv2dSpec,
    pixels: Pixels,
    filter: Values,
    exact: bool,
    label: &str,
    variant: Option<Conv2dVariant>,
) -> Case {
    let name = name(&spec, pixels.elem(), label, variant);
    let s = seed(&name);
    let n = spec.height * spec.width;
    let quick = n <= QUICK_MAX && n * spec.kh * spec.kw <= 1 << 24;
    Case::new(name, OP, group, quick, move || {
        Conv::new(
            pixels.make(s, n),
            filter(s ^ 1, spec.kh * spec.kw),
            spec,
            variant,
            exact,
        )
    })
}

/// Every conv2d case.
pub fn cases() -> Vec<Case> {
    let ops = CaseGroup::Ops;
    let random = inputs::f32_values;
    let mut all = Vec::new();
    for border in Border::ALL {
        // f32 images: single pixels, single rows and columns, filters larger
        // than the image, ragged tiles, long filters.
        for (h, w, kh, kw) in [
            (4, 0, 3, 3),
            (1, 1, 1, 1),
            (33, 65, 1, 1),
            (33, 65, 3, 3),
            (127, 255, 5, 5),
            (64, 64, 7, 9),
            (65, 31, 9, 7),
            (5, 7, 15, 17),
            (1, 300, 3, 5),
            (301, 1, 5, 3),
            (1_031, 1_033, 5, 5),
            (97, 101, 31, 31),
        ] {
            all.push(case(
                ops,
                spec(h, w, kh, kw, border),
                Pixels::Random,
                random,
                false,
                "",
                None,
            ));
        }
        all.push(case(
            ops,
            spec(127, 255, 5, 5, border),
            Pixels::SmallInts,
            small_ints,
            true,
            " small integers (exact)",
            None,
        ));
        // Subnormal products and sums: within the bound whether a device
        // keeps or flushes subnormals.
        all.push(case(
            ops,
            spec(67, 131, 5, 5, border),
            Pixels::Underflowing,
            inputs::f32_underflowing,
            false,
            " underflowing",
            None,
        ));
        // NaN and infinities reach the outputs whose window holds them
        // (with the clamp rule, also through the border).
        all.push(case(
            ops,
            spec(67, 131, 5, 5, border),
            Pixels::NonFinite,
            random,
            false,
            " with NaN and Inf",
            None,
        ));
        // u8 images: widths and pixel counts of every residue mod 4 (the
        // packed words' partial last word), random filters under the bound
        // and small integer filters exactly.
        for (h, w, kh, kw) in [
            (0, 5, 3, 3),
            (1, 1, 1, 1),
            (1, 3, 3, 3),
            (3, 5, 5, 3),
            (7, 9, 3, 3),
            (33, 67, 5, 5),
            (127, 255, 5, 5),
            (1_031, 1_033, 5, 5),
        ] {
            all.push(case(
                ops,
                spec(h, w, kh, kw, border),
                Pixels::Bytes,
                random,
                false,
                "",
                None,
            ));
        }
        for (h, w, kh, kw) in [
            (1, 1, 1, 1),
            (2, 3, 3, 3),
            (5, 7, 3, 5),
            (33, 67, 5, 5),
            (65, 31, 9, 7),
            (255, 257, 7, 7),
            (1_031, 1_033, 5, 5),
        ] {
            all.push(case(
                ops,
                spec(h, w, kh, kw, border),
                Pixels::Bytes,
                small_filter,
                true,
                " small integer filter (exact)",
                None,
            ));
        }
    }
    // Every variant, forced, whatever the device would choose: f32 and u8,
    // both borders, images smaller than one tile. The register windows also
    // get several tiles down and across, the largest filter they hold
    // (9 × 9), and one-row and one-column filters.
    type Forced = (Conv2dSpec, Pixels, Values, bool, &'static str);
    let exact = " small integer filter (exact)";
    let every: [Forced; 4] = [
        (
            spec(67, 131, 5, 5, Border::Zero),
            Pixels::Random,
            random,
            false,
            "",
        ),
        (
            spec(13, 9, 3, 3, Border::Clamp),
            Pixels::Random,
            random,
            false,
            "",
        ),
        (
            spec(67, 131, 3, 7, Border::Clamp),
            Pixels::Bytes,
            small_filter,
            true,
            exact,
        ),
        (
            spec(67, 131, 7, 3, Border::Zero),
            Pixels::Bytes,
            random,
            false,
            "",
        ),
    ];
    let windows: [Forced; 3] = [
        (
            spec(300, 97, 9, 9, Border::Clamp),
            Pixels::Random,
            random,
            false,
            "",
        ),
        (
            spec(261, 70, 1, 9, Border::Zero),
            Pixels::Bytes,
            small_filter,
            true,
            exact,
        ),
        (
            spec(263, 45, 9, 1, Border::Clamp),
            Pixels::Bytes,
            small_filter,
            true,
            exact,
        ),
    ];
    // Widths of whole vectors (the global variants' 16-byte loads and
    // stores): vector rows near every edge, the widest filter a global
    // window holds, an image narrower than a window.
    let aligned: [Forced; 5] = [
        (
            spec(67, 132, 5, 5, Border::Zero),
            Pixels::Random,
            random,
            false,
            "",
        ),
        (
            spec(70, 256, 3, 7, Border::Clamp),
            Pixels::Bytes,
            small_filter,
            true,
            exact,
        ),
        (
            spec(33, 260, 3, GLOBAL_MAX_KW as usize, Border::Clamp),
            Pixels::Random,
            random,
            false,
            "",
        ),
        (
            spec(129, 388, 9, 9, Border::Zero),
            Pixels::Bytes,
            small_filter,
            true,
            exact,
        ),
        (
            spec(9, 8, 9, 9, Border::Clamp),
            Pixels::Random,
            random,
            false,
            "",
        ),
    ];
    for variant in Conv2dVariant::ALL {
        let more: &[Forced] = if variant.window() || variant.global() || variant.direct() {
            &windows
        } else {
            &[]
        };
        for &(s, pixels, filter, is_exact, label) in every.iter().chain(more).chain(&aligned) {
            all.push(case(ops, s, pixels, filter, is_exact, label, Some(variant)));
        }
        for border in [Border::Zero, Border::Clamp] {
            let case_name = format!(
                "conv2d f32 3x3 filter {border:?} 3 tile rows + 1 by 2 tile columns + 3 on 3 \
                 workgroups {}",
                variant.name()
            )
            .to_lowercase();
            let seed = seed(&case_name);
            all.push(Case::new(case_name, OP, ops, true, move || StridedTiles {
                variant,
                border,
                seed,
            }));
        }
        // Buffers longer than the image: NaN past its pixels, a sentinel
        // past its outputs; reads and writes must stop at the image's end.
        for (h, w) in [(37, 132), (9, 8), (35, 131)] {
            let s = spec(h, w, 5, 5, Border::Zero);
            let case_name = name(
                &s,
                Elem::F32,
                " NaN past the image, output kept past it",
                Some(variant),
            );
            let seed = seed(&case_name);
            all.push(Case::new(case_name, OP, ops, true, move || Padded {
                conv: Conv::new(
                    Pixels::Random.make(seed, h * w),
                    random(seed ^ 1, 25),
                    s,
                    Some(variant),
                    false,
                ),
            }));
        }
        for (label, filter) in INFINITE_FILTERS {
            let s = spec(37, 45, 5, 5, Border::Zero);
            all.push(case(
                ops,
                s,
                Pixels::Random,
                filter,
                false,
                label,
                Some(variant),
            ));
        }
        // The kernels skip the border rule for tiles whose halo lies inside
        // the image: here the second tile row (column) has one halo row
        // (column) past the image's edge, and its neighbour lies inside.
        // (`direct` has no tiles and no halo.)
        if variant.direct() {
            continue;
        }
        let (tw, th) = variant.tile();
        let (tw, th) = (tw as usize, th as usize);
        for (s, label) in [
            (
                spec(2 * th + 1, 3 * tw + 2, 5, 5, Border::Clamp),
                " (a halo one row past the image)",
            ),
            (
                spec(3 * th + 2, 2 * tw + 1, 5, 5, Border::Clamp),
                " (a halo one column past the image)",
            ),
        ] {
            all.push(case(
                ops,
                s,
                Pixels::Random,
                random,
                false,
                label,
                Some(variant),
            ));
        }
    }
    all.push(
        case(
            ops,
            spec(1_031, 1_033, 5, 5, Border::Zero),
            Pixels::Random,
            random,
            false,
            " x5 bit-identical",
            None,
        )
        .repeated(5),
    );
    all.push(
        case(
            ops,
            spec(1_031, 1_033, 5, 5, Border::Clamp),
            Pixels::Bytes,
            random,
            false,
            " x5 bit-identical",
            None,
        )
        .repeated(5),
    );
    all.extend(direct_cases());
    all.extend(limits_cases());
    all.extend(error_cases());
    all
}

/// Filters with an infinite first or last value, under the zero border: it
/// multiplies a zero above / left of the image (below / right for the
/// last), so those outputs are NaN (0 · Inf) and the others ±Inf; a kernel
/// that skipped the border's terms would give finite values.
const INFINITE_FILTERS: [(&str, Values); 2] = [
    (" +Inf first filter value", |s, n| {
        inputs::f32_with_value_at(s, n, 0, f32::INFINITY)
    }),
    (" -Inf last filter value", |s, n| {
        inputs::f32_with_value_at(s, n, n - 1, f32::NEG_INFINITY)
    }),
];

/// `direct`, forced on every device, beyond the cases every variant gets:
/// ragged shapes (sizes 1, primes, filters larger than the image, 1 × 1
/// filters), filters larger than shared memory holds on a 32 KiB device
/// (65 × 65, 15 × 251), and its launches over filter chunks.
fn direct_cases() -> Vec<Case> {
    let ops = CaseGroup::Ops;
    let direct = Some(Conv2dVariant::Direct);
    let random = inputs::f32_values;
    let exact = " small integer filter (exact)";
    let mut all = Vec::new();
    for border in Border::ALL {
        for (h, w, kh, kw) in [
            (1, 1, 1, 1),
            (1, 1, 3, 5),
            (2, 3, 7, 5),
            (13, 11, 29, 31),
            (31, 37, 1, 1),
            (1, 97, 1, 7),
            (89, 1, 5, 1),
            (61, 67, 7, 5),
            (257, 263, 3, 3),
            // Past shared memory on a 32 KiB device (lavapipe): with the
            // smallest halo tile these need 37 636 and 37 764 bytes.
            (100, 90, 65, 65),
            (101, 89, 15, 251),
        ] {
            let s = spec(h, w, kh, kw, border);
            all.push(case(ops, s, Pixels::Random, random, false, "", direct));
            all.push(case(
                ops,
                s,
                Pixels::Bytes,
                small_filter,
                true,
                exact,
                direct,
            ));
        }
    }
    // More than two launches' worth of filter values on a loop-capped device
    // (sizes from its loop budget): ones over ones with the clamp border
    // (every output sums every filter value, so a dropped or repeated
    // iteration or launch shows, exactly), and random values under the
    // bound.
    for (elem, border, ones, label) in [
        (Elem::F32, Border::Clamp, true, "ones, exact"),
        (Elem::U8, Border::Clamp, true, "ones, exact"),
        (Elem::F32, Border::Zero, false, "random"),
        (Elem::F32, Border::Clamp, false, "random"),
    ] {
        all.push(Case::new(
            format!(
                "conv2d {elem} filter of three launches' loop budget {border} ({label}) direct"
            ),
            OP,
            ops,
            true,
            move || ManyLaunches { elem, border, ones },
        ));
    }
    // Smaller chunks (more launches) give the same bits as the plan's own.
    for (s, pixels, filter, is_exact) in [
        (
            spec(37, 45, 7, 9, Border::Zero),
            Pixels::Random,
            random as Values,
            false,
        ),
        (
            spec(29, 41, 9, 5, Border::Clamp),
            Pixels::Bytes,
            small_filter as Values,
            true,
        ),
    ] {
        let case_name = name(&s, pixels.elem(), " in chunks of 1, 7, 44 values", direct);
        let seed = seed(&case_name);
        all.push(Case::new(case_name, OP, ops, true, move || Chunked {
            conv: Conv::new(
                pixels.make(seed, s.height * s.width),
                filter(seed ^ 1, s.kh * s.kw),
                s,
                direct,
                is_exact,
            ),
            chunks: vec![1, 7, 44],
        }));
    }
    all
}

/// The image and filter of a [`ManyLaunches`] case on a device with
/// `caps`: a 101-row filter of more than twice the values one launch holds
/// (one block of outputs per workgroup), or of lavapipe's where there is no
/// loop cap (one launch there).
fn many_launches_spec(caps: &rosetta_core::Capabilities, border: Border, ones: bool) -> Conv2dSpec {
    // lavapipe's loop budget, less the grid-stride loop's own iteration.
    let per_launch = match caps.loop_limit {
        Some(_) => caps.loop_budget().saturating_sub(1).max(1),
        None => 16_382,
    };
    let kh = 101;
    // The narrowest odd width past two launches' worth; at most 4097 (a
    // device with a very large cap gets fewer launches).
    let kw = ((2 * per_launch / kh + 1) | 1).min(4_097) as usize;
    let (h, w) = if ones { (5, 7) } else { (23, 29) };
    spec(h, w, kh as usize, kw, border)
}

/// A filter that takes at least three launches of `direct` on a
/// loop-capped device, checked against the reference (ones over ones:
/// exactly), with the launch count in the detail.
struct ManyLaunches {
    elem: Elem,
    border: Border,
    ones: bool,
}

impl Check for ManyLaunches {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let caps = &ctx.backend.info().caps;
        let s = many_launches_spec(caps, self.border, self.ones);
        let plan = Conv2dPlan::with_variant(ctx.backend, &s, self.elem, Conv2dVariant::Direct)?;
        let g = *plan.geometry();
        let launches = plan.chunks().len() as u64;
        if launches != g.launches {
            return Ok(Verdict::fail(format!(
                "{launches} chunks for a geometry of {} launches",
                g.launches
            )));
        }
        if caps.loop_limit.is_some() && s.kw < 4_097 && launches < 3 {
            return Ok(Verdict::fail(format!(
                "{}x{} filter in {launches} launches (chunks of {}) under a loop budget of {}; expected at least 3",
                s.kh,
                s.kw,
                g.chunk,
                caps.loop_budget()
            )));
        }
        let conv = if self.ones {
            Conv::ones(s, self.elem)
        } else {
            let name = format!("conv2d many launches {} {}", self.elem, self.border);
            let seed = seed(&name);
            let pixels = match self.elem {
                Elem::U8 => Pixels::Bytes,
                _ => Pixels::Random,
            };
            let filter = inputs::f32_values(seed ^ 1, s.kh * s.kw);
            Conv::new(
                pixels.make(seed, s.height * s.width),
                filter,
                s,
                None,
                false,
            )
        };
        let mut v = conv.run_with(ctx.backend, Some(Conv2dVariant::Direct))?;
        if v.passed() {
            let budget = match caps.loop_limit {
                Some(_) => format!("budget {}", caps.loop_budget()),
                None => "no loop cap".to_string(),
            };
            v.detail = format!(
                "{}x{} image, {}x{} filter in {launches} launches of up to {} values ({} loop iterations per invocation, {budget})",
                s.height,
                s.width,
                s.kh,
                s.kw,
                g.chunk,
                g.loops,
            );
        }
        Ok(v)
    }
}

/// `direct` in chunks of at most each of `chunks` filter values (more
/// launches than the plan's own): the same sums in the same order, so the
/// same bits as the plan's own launches, which are checked against the
/// reference.
struct Chunked {
    conv: Conv,
    chunks: Vec<u64>,
}

/// Run `plan` on the convolution's image and filter; the outputs.
fn encode_and_read(backend: &Arc<dyn Backend>, plan: &Conv2dPlan, conv: &Conv) -> Result<Vec<f32>> {
    let input = match &conv.image {
        Image::F32(v) => Buffer::from_slice(backend, v)?,
        Image::U8(v) => Buffer::from_slice(backend, v)?,
    };
    let filter = Buffer::from_slice(backend, &conv.filter)?;
    let out = backend.alloc(conv.spec.out_bytes()?)?;
    plan.encode(&input, &filter, &out)?;
    out.read(conv.reference.len())
}

impl Check for Chunked {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let (spec, elem) = (&self.conv.spec, self.conv.image.elem());
        let plan = Conv2dPlan::with_variant(ctx.backend, spec, elem, Conv2dVariant::Direct)?;
        let own = encode_and_read(ctx.backend, &plan, &self.conv)?;
        let v = self.conv.compare(&own);
        if !v.passed() {
            return Ok(v);
        }
        let mut launches = vec![plan.chunks().len()];
        for &chunk in &self.chunks {
            let chunked = Conv2dPlan::direct_in_chunks(ctx.backend, spec, elem, chunk)?;
            let got = encode_and_read(ctx.backend, &chunked, &self.conv)?;
            launches.push(chunked.chunks().len());
            if let Some(p) = (0..got.len()).find(|&p| got[p].to_bits() != own[p].to_bits()) {
                return Ok(Verdict::fail(format!(
                    "chunks of {chunk} ({} launches): output {p} is {}, {} in the plan's {} launches",
                    chunked.chunks().len(),
                    got[p],
                    own[p],
                    launches[0]
                )));
            }
        }
        Ok(Verdict::pass(format!(
            "the same bits in {launches:?} launches"
        )))
    }
}

/// The `limits` group: the largest filter shared memory holds (and one
/// larger, through `direct`), long loops with exact sums, more than 65 535
/// workgroups, more than 2^31 pixels, and every geometry against the loop
/// budget.
fn limits_cases() -> Vec<Case> {
    let limits = CaseGroup::Limits;
    let mut all = Vec::new();
    for (border, elem) in [(Border::Zero, Elem::F32), (Border::Clamp, Elem::U8)] {
        all.push(Case::new(
            format!(
                "conv2d {elem} 64x64 filter as large as shared memory holds {border} (ones, exact)"
            ),
            OP,
            limits,
            true,
            move || MaxFilter {
                border,
                elem,
                over: false,
            },
        ));
    }
    all.push(Case::new(
        "conv2d f32 64x64 filter one larger than shared memory holds clamp, through direct (ones, exact)",
        OP,
        limits,
        true,
        // The clamp border: every filter value counts in every output, so
        // a dropped iteration or launch shows.
        || MaxFilter {
            border: Border::Clamp,
            elem: Elem::F32,
            over: true,
        },
    ));
    // Long loops: a 31 × 31 filter of ones over ones, every tile shape and
    // `direct` (the register windows hold at most 9 × 9 filters).
    for variant in Conv2dVariant::ALL
        .into_iter()
        .filter(|v| !v.window() && !v.global())
    {
        let s = spec(97, 101, 31, 31, Border::Zero);
        all.push(Case::new(
            name(&s, Elem::F32, " ones (long loops, exact)", Some(variant)),
            OP,
            limits,
            true,
            move || {
                let mut conv = Conv::ones(s, Elem::F32);
                conv.variant = Some(variant);
                conv
            },
        ));
    }
    // More than 65 535 tiles along one axis (8 × 8 tiles): the grid goes on
    // along y where the device allows 65 535 groups per axis.
    let wide = spec(3, 8 * 65_536 + 5, 3, 3, Border::Zero);
    let tall = spec(8 * 65_536 + 5, 3, 3, 3, Border::Clamp);
    for (s, pixels) in [(wide, Pixels::SmallInts), (tall, Pixels::Bytes)] {
        let case_name = name(
            &s,
            pixels.elem(),
            " more than 65535 workgroups (exact)",
            Some(Conv2dVariant::Tile8x8),
        );
        let seed = seed(&case_name);
        all.push(Case::new(case_name, OP, limits, false, move || {
            ManyGroups {
                conv: Conv::new(
                    pixels.make(seed, s.height * s.width),
                    small_filter(seed ^ 1, 9),
                    s,
                    Some(Conv2dVariant::Tile8x8),
                    true,
                ),
            }
        }));
    }
    all.push(Case::new(
        "conv2d u8 32771x65536 filter 3x3 clamp (past 2^31 pixels, exact)",
        OP,
        limits,
        false,
        || Huge {
            height: 32_771,
            width: 65_536,
        },
    ));
    all.push(Case::new(
        "conv2d geometries keep every invocation within the loop budget",
        OP,
        limits,
        true,
        || GridBudget,
    ));
    all
}

/// The largest square filter the device's shared memory (and loop budget)
/// allows the variants but `direct`, ones over ones, checked exactly; or
/// one larger, which [`Conv2dPlan::new`] runs through `direct`, checked
/// exactly too.
struct MaxFilter {
    border: Border,
    elem: Elem,
    over: bool,
}

impl Check for MaxFilter {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let k = max_square_filter(&ctx.backend.info().caps) as usize;
        if k == 0 {
            return Ok(Verdict::fail("not even a 1x1 filter fits"));
        }
        let k = if self.over { k + 2 } else { k };
        let s = spec(64, 64, k, k, self.border);
        let plan = Conv2dPlan::new(ctx.backend, &s, self.elem)?;
        // One larger than the others hold: only `direct` takes it.
        if self.over && plan.variant() != Conv2dVariant::Direct {
            return Ok(Verdict::fail(format!(
                "a {k}x{k} filter planned as {}, one larger than the {held}x{held} computed from the device's limits; expected direct",
                plan.variant().name(),
                held = k - 2
            )));
        }
        let conv = Conv::ones(s, self.elem);
        let mut v = conv.run_with(ctx.backend, Some(plan.variant()))?;
        if v.passed() {
            v.detail = format!(
                "{k}x{k} ({}, workgroups of {}, {} loop iterations per invocation, {} launches)",
                plan.variant().name(),
                plan.launch().group_size,
                plan.geometry().loops,
                plan.geometry().launches
            );
        }
        Ok(v)
    }
}

/// A case whose detail names the grid it ran on.
struct ManyGroups {
    conv: Conv,
}

impl Check for ManyGroups {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let mut v = self.conv.run(ctx)?;
        if v.passed() {
            let plan = Conv2dPlan::with_variant(
                ctx.backend,
                &self.conv.spec,
                self.conv.image.elem(),
                Conv2dVariant::Tile8x8,
            )?;
            let g = plan.geometry();
            v.detail = format!("{:?} tiles on a grid of {:?}", g.tiles, g.groups);
        }
        Ok(v)
    }
}

/// Pixel (y, x) of the generated u8 image.
fn pattern(y: u64, x: u64) -> u8 {
    ((y * 7 + x * 13) % 256) as u8
}

/// An asymmetric 3 × 3 filter (a flipped filter gives other sums).
const PATTERN_FILTER: [f32; 9] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0];

/// Output (y, x) of the pattern under the filter, clamp border: exact (at
/// most 255 · 45).
fn pattern_output(y: u64, x: u64, height: u64, width: u64) -> f32 {
    let mut sum = 0.0f32;
    for i in 0..3u64 {
        for j in 0..3u64 {
            let sy = (y + i).saturating_sub(1).min(height - 1);
            let sx = (x + j).saturating_sub(1).min(width - 1);
            sum += PATTERN_FILTER[(i * 3 + j) as usize] * f32::from(pattern(sy, sx));
        }
    }
    sum
}

/// More than 2^31 u8 pixels: u32 index arithmetic (pixel and word indices,
/// the output index) in every language. Generated and checked in rows; GPUs
/// with room only.
struct Huge {
    height: u64,
    width: u64,
}

impl Check for Huge {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let backend = ctx.backend;
        let caps = &backend.info().caps;
        let (height, width) = (self.height, self.width);
        let pixels = height * width;
        let out_bytes = pixels * 4;
        if caps.device_type.is_cpu() {
            return Ok(Verdict::skip(format!(
                "{pixels} pixels ({} GiB of output) are too slow for a CPU-type device",
                out_bytes >> 30
            )));
        }
        if out_bytes > caps.max_buffer_bytes {
            return Ok(Verdict::skip(format!(
                "needs an output buffer of {out_bytes} bytes; the device allows {}",
                caps.max_buffer_bytes
            )));
        }
        if caps.memory_bytes > 0 && pixels * 5 + (pixels >> 1) > caps.memory_bytes {
            return Ok(Verdict::skip(format!(
                "needs {} MiB; the device has {} MiB",
                (pixels * 5) >> 20,
                caps.memory_bytes >> 20
            )));
        }
        let s = spec(height as usize, width as usize, 3, 3, Border::Clamp);
        let plan = Conv2dPlan::new(backend, &s, Elem::U8)?;
        let image = backend.alloc(pixels)?;
        // Whole rows at a time (a row is a multiple of 4 bytes).
        let rows = ((1u64 << 26) / width).max(1);
        for y0 in (0..height).step_by(rows as usize) {
            let y1 = (y0 + rows).min(height);
            let bytes: Vec<u8> = (y0 * width..y1 * width)
                .into_par_iter()
                .map(|p| pattern(p / width, p % width))
                .collect();
            image.write_bytes(y0 * width, &bytes)?;
        }
        let filter = Buffer::from_slice(backend, &PATTERN_FILTER)?;
        let out = backend.alloc(out_bytes)?;
        plan.encode(&image, &filter, &out)?;
        drop(image);
        let mut got = vec![0f32; (rows * width) as usize];
        for y0 in (0..height).step_by(rows as usize) {
            let y1 = (y0 + rows).min(height);
            let chunk = &mut got[..((y1 - y0) * width) as usize];
            backend.read(&out, y0 * width * 4, bytemuck::cast_slice_mut(chunk))?;
            let wrong = chunk
                .par_iter()
                .enumerate()
                .map(|(i, &g)| (y0 * width + i as u64, g))
                .find_first(|&(p, g)| g != pattern_output(p / width, p % width, height, width));
            if let Some((p, g)) = wrong {
                return Ok(Verdict::fail(format!(
                    "output ({}, {}): got {g}, expected {}",
                    p / width,
                    p % width,
                    pattern_output(p / width, p % width, height, width)
                )));
            }
        }
        Ok(Verdict::pass(format!(
            "{pixels} outputs ({})",
            plan.variant().name()
        )))
    }
}

/// Loop iterations of one invocation, counted from the kernels' loops as
/// written (independently of the plan's own count). Tiles: the filter load
/// (shared out over the workgroup), and per tile the tile loop, the halo
/// load, and for each of the invocation's outputs the filter rows, the
/// products, the set-up and the store. Windows: the whole filter (into each
/// invocation's registers), and per tile the tile loop, the halo load, the
/// set-up and store of each output, and the halo rows the outputs cover,
/// each with its filter-row width of values, each through every filter row.
fn kernel_loops(
    k: (u64, u64),
    tile: (u64, u64),
    group_size: u64,
    tiles_per_group: u64,
    window: bool,
) -> u64 {
    let ((kh, kw), (tw, th)) = (k, tile);
    let rows = tw * th / group_size;
    let halo = ((th + kh - 1) * (tw + kw - 1)).div_ceil(group_size);
    if window {
        let halo_rows = rows + kh - 1;
        let per_tile = 1 + halo + rows + halo_rows * (1 + kw * (1 + kh)) + rows;
        return kh * kw + tiles_per_group * per_tile;
    }
    let outputs = rows * (1 + kh + kh * kw + 1);
    (kh * kw).div_ceil(group_size) + tiles_per_group * (1 + halo + outputs)
}

/// Loop iterations of one invocation of the global kernel, counted from its
/// loops as written: the filter load, and per tile the tile loop, the set-up
/// of its `rows` sums, the rows of its 4-column window (each with the
/// pixel-by-pixel load of the border, the longer one, and every filter row's
/// products) and the stores of its outputs.
fn global_kernel_loops(k: (u64, u64), rows: u64, tiles_per_group: u64) -> u64 {
    let (kh, kw) = k;
    let halo = (kw / 2).div_ceil(4);
    let window_row = 1 + 4 * (2 * halo + 1) + kh * (1 + kw * 4);
    kh * kw + tiles_per_group * (1 + rows + (rows + kh - 1) * window_row + 4 * rows)
}

/// A convolution of an f32 image whose buffer holds NaN past the pixels and
/// whose output buffer holds a sentinel past them ([`padding`]): a kernel
/// that reads a word past the image (a vector load across its end, say)
/// turns outputs into NaN, one that writes there changes the sentinel.
struct Padded {
    conv: Conv,
}

impl Check for Padded {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let backend = ctx.backend;
        let spec = &self.conv.spec;
        let plan = match self.conv.variant {
            Some(v) => Conv2dPlan::with_variant(backend, spec, Elem::F32, v)?,
            None => Conv2dPlan::new(backend, spec, Elem::F32)?,
        };
        run_padded(backend, &plan, &self.conv)
    }
}

/// Run `plan` on the convolution's f32 image and filter through padded
/// buffers (NaN past the image, a sentinel past the output) and compare:
/// the sentinel must be kept and the outputs match the reference.
fn run_padded(backend: &Arc<dyn Backend>, plan: &Conv2dPlan, conv: &Conv) -> Result<Verdict> {
    let Image::F32(pixels) = &conv.image else {
        return Err(Error::Internal("padded conv2d cases are f32".into()));
    };
    let len = pixels.len();
    let image = Buffer::from_slice(backend, &padding::nan_padded(pixels))?;
    let filter = Buffer::from_slice(backend, &conv.filter)?;
    let out = Buffer::from_slice(backend, &padding::sentinel_output(len))?;
    plan.encode(&image, &filter, &out)?;
    let got: Vec<f32> = out.read(len + padding::PADDING)?;
    if let Some(fail) = padding::sentinel_changed(&got, len) {
        return Ok(fail);
    }
    Ok(conv.compare(&got[..len]))
}

/// A convolution on a grid of three workgroups over a dozen tiles or
/// more, so that each strides over several (the kernels' tile loop, which
/// no image reaches on most devices: one workgroup per tile up to
/// `max_groups[0] · max_groups[1]` tiles). A barrier missing at the end of
/// a tile would let the next tile's loads overwrite what the last reads.
struct StridedTiles {
    variant: Conv2dVariant,
    border: Border,
    seed: u64,
}

impl Check for StridedTiles {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let backend = ctx.backend;
        // The tile does not depend on the image: a first plan finds it.
        let probe = spec(1, 1, 3, 3, self.border);
        let (_, (tw, th)) = Conv2dPlan::with_grid(backend, &probe, Elem::F32, self.variant, 3)?;
        let (h, w) = (3 * th as usize + 1, 2 * tw as usize + 3);
        let s = spec(h, w, 3, 3, self.border);
        let (plan, _) = Conv2dPlan::with_grid(backend, &s, Elem::F32, self.variant, 3)?;
        let conv = Conv::new(
            Pixels::Random.make(self.seed, h * w),
            inputs::f32_values(self.seed ^ 1, 9),
            s,
            Some(self.variant),
            false,
        );
        let Image::F32(pixels) = &conv.image else {
            return Err(Error::Internal("strided conv2d cases are f32".into()));
        };
        let image = Buffer::from_slice(backend, pixels)?;
        let filter = Buffer::from_slice(backend, &conv.filter)?;
        let out = backend.alloc((h * w) as u64 * 4)?;
        plan.encode(&image, &filter, &out)?;
        Ok(conv.compare(&out.read(h * w)?))
    }
}

/// Loop iterations of one invocation of the direct kernel in one launch,
/// counted from its loops as written: the grid-stride loop over its blocks
/// of outputs, each with its chunk's filter values.
fn direct_kernel_loops(values: u64, blocks_per_group: u64) -> u64 {
    blocks_per_group * (1 + values)
}

/// Every plan's geometry within the device's loop budget, for images up to
/// 2^32 − 1 pixels and filters up to the largest shared memory holds, and
/// larger ones for `direct`, each of whose launches (filter chunks: in
/// order, none empty, covering the filter) is checked (no data: the
/// geometry only).
struct GridBudget;

impl Check for GridBudget {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let caps = &ctx.backend.info().caps;
        let most = max_square_filter(caps) as usize;
        let gs = u64::from(preferred_group_size(caps));
        let mut audit = GeometryAudit::new(caps);
        for (h, w) in [
            (1, 1),
            (8192, 8192),
            (1, 1 << 24),
            (1 << 24, 1),
            (65_535, 65_537),
        ] {
            for k in [1, 5, 31, 63, most, 255, 1_025] {
                for v in Conv2dVariant::ALL {
                    for elem in [Elem::F32, Elem::U8] {
                        let s = spec(h, w, k, k, Border::Clamp);
                        let g = match geometry(caps, &s, elem, v) {
                            Ok(g) => g,
                            // Refused is fine (typed, before running).
                            Err(Error::ExceedsLimit { .. }) => continue,
                            Err(e) => return Err(e),
                        };
                        let per_group = (g.tiles[0] * g.tiles[1]).div_ceil(g.total_groups());
                        let (tw, th) = (u64::from(g.tile.0), u64::from(g.tile.1));
                        let what = || format!("{h}x{w} filter {k}x{k} ({}, {elem})", v.name());
                        if v.direct() {
                            let values = (k * k) as u64;
                            let chunks = filter_chunks(&g, values);
                            let mut next = 0;
                            for &(begin, end) in &chunks {
                                if begin != next || end <= begin {
                                    return Ok(Verdict::fail(format!(
                                        "{}: filter chunks {chunks:?} do not cover [0, {values}) in order",
                                        what()
                                    )));
                                }
                                next = end;
                                let loops = direct_kernel_loops(end - begin, per_group);
                                if let Some(fail) = audit.check(what, loops, g.groups) {
                                    return Ok(fail);
                                }
                            }
                            if next != values || chunks.len() as u64 != g.launches {
                                return Ok(Verdict::fail(format!(
                                    "{}: filter chunks {chunks:?} for {values} values in {} launches",
                                    what(),
                                    g.launches
                                )));
                            }
                            continue;
                        }
                        let loops = if v.global() {
                            let rows = tw * th / 4 / u64::from(g.group_size);
                            global_kernel_loops((k as u64, k as u64), rows, per_group)
                        } else {
                            debug_assert!(u64::from(g.group_size) <= gs);
                            kernel_loops(
                                (k as u64, k as u64),
                                (tw, th),
                                u64::from(g.group_size),
                                per_group,
                                v.window(),
                            )
                        };
                        debug_assert_eq!(loops, g.loops);
                        if let Some(fail) = audit.check(what, loops, g.groups) {
                            return Ok(fail);
                        }
                    }
                }
            }
        }
        Ok(audit.verdict())
    }
}

/// `rosetta run conv2d` with these arrays and border.
fn cli(ctx: &Context<'_>, image: HostArray, filter: HostArray, border: &str) -> Result<()> {
    super::cli::run(
        ctx.backend,
        &Options::new([("border", border)]),
        vec![image, filter],
    )
    .map(drop)
}

fn matrix(rows: usize, cols: usize, data: ArrayData) -> Result<HostArray> {
    HostArray::new(vec![rows, cols], data)
}

/// A 32 × 32 plan (pixels `elem`, 3 × 3 filter) encoded with buffers of
/// `sizes` bytes.
fn encode_with(ctx: &Context<'_>, elem: Elem, sizes: [u64; 3]) -> Result<()> {
    let plan = Conv2dPlan::new(ctx.backend, &spec(32, 32, 3, 3, Border::Zero), elem)?;
    let [image, filter, out] = sizes.map(|n| ctx.backend.alloc(n));
    plan.encode(&image?, &filter?, &out?)
}

fn error_cases() -> Vec<Case> {
    let rejects = |name: &str, expected, call, is_expected| {
        Case::new(
            format!("conv2d rejects {name}"),
            OP,
            CaseGroup::Errors,
            true,
            move || Rejects {
                expected,
                call,
                is_expected,
            },
        )
    };
    let shape = |e: &Error| matches!(e, Error::ShapeMismatch(_));
    let filter = |e: &Error| matches!(e, Error::InvalidFilter(_));
    let argument = |e: &Error| matches!(e, Error::InvalidArgument(_));
    let unsupported = |e: &Error| matches!(e, Error::Unsupported { .. });
    vec![
        // `direct` makes at most MAX_DIRECT_LAUNCHES launches: one more (a filter
        // of 4097 values in chunks of one) is refused when planned.
        rejects(
            "a direct plan of more launches than the cap (4097 chunks of one filter value)",
            "ExceedsLimit",
            |ctx| {
                let s = spec(3, 5, 1, MAX_DIRECT_LAUNCHES as usize + 1, Border::Zero);
                Conv2dPlan::direct_in_chunks(ctx.backend, &s, Elem::F32, 1).map(drop)
            },
            |e| matches!(e, Error::ExceedsLimit { .. }),
        ),
        // The register windows hold 9 × 9 filters at most: a larger one
        // forced on them is refused, not run with a truncated filter.
        rejects(
            "an 11x11 filter forced on a register window",
            "Unsupported",
            |ctx| {
                let s = spec(40, 40, 11, 11, Border::Zero);
                Conv2dPlan::with_variant(ctx.backend, &s, Elem::F32, Conv2dVariant::Window32x32)
                    .map(drop)
            },
            unsupported,
        ),
        rejects(
            "an even filter width",
            "InvalidFilter",
            |ctx| {
                conv2d_f32(
                    ctx.backend,
                    &[0.0; 16],
                    &[0.0; 12],
                    &spec(4, 4, 3, 4, Border::Zero),
                )
                .map(drop)
            },
            filter,
        ),
        rejects(
            "an empty filter",
            "InvalidFilter",
            |ctx| conv2d_u8(ctx.backend, &[0; 16], &[], &spec(4, 4, 0, 3, Border::Clamp)).map(drop),
            filter,
        ),
        // Issue 10: (2^63 + 9)(2^63 + 1) wraps to 9, and the filter ran as a
        // 3x3 on every backend.
        rejects(
            "a filter shape whose size overflows (2^63+9 x 2^63+1, 9 values)",
            "ShapeMismatch",
            |ctx| {
                let s = spec(4, 4, (1 << 63) + 9, (1 << 63) + 1, Border::Zero);
                conv2d_f32(ctx.backend, &[1.0; 16], &[1.0; 9], &s).map(drop)
            },
            shape,
        ),
        rejects(
            "a plan for a filter shape whose size overflows",
            "ShapeMismatch",
            |ctx| {
                let s = spec(4, 4, (1 << 63) + 9, (1 << 63) + 1, Border::Zero);
                Conv2dPlan::new(ctx.backend, &s, Elem::U8).map(drop)
            },
            shape,
        ),
        rejects(
            "an image shape whose size overflows",
            "ShapeMismatch",
            |ctx| {
                let s = spec(1 << 33, (1 << 31) + 1, 3, 3, Border::Zero);
                conv2d_f32(ctx.backend, &[1.0; 16], &[1.0; 9], &s).map(drop)
            },
            shape,
        ),
        rejects(
            "an image shorter than its shape",
            "ShapeMismatch",
            |ctx| {
                conv2d_f32(
                    ctx.backend,
                    &[1.0; 15],
                    &[1.0; 9],
                    &spec(4, 4, 3, 3, Border::Zero),
                )
                .map(drop)
            },
            shape,
        ),
        rejects(
            "a filter longer than its shape",
            "ShapeMismatch",
            |ctx| {
                conv2d_u8(
                    ctx.backend,
                    &[1; 16],
                    &[1.0; 10],
                    &spec(4, 4, 3, 3, Border::Zero),
                )
                .map(drop)
            },
            shape,
        ),
        rejects(
            "more pixels than a u32 indexes",
            "ExceedsLimit",
            |ctx| {
                Conv2dPlan::new(
                    ctx.backend,
                    &spec(65_536, 65_536, 3, 3, Border::Zero),
                    Elem::U8,
                )
                .map(drop)
            },
            |e| matches!(e, Error::ExceedsLimit { .. }),
        ),
        rejects(
            "int32 pixels",
            "InvalidArgument",
            |ctx| {
                Conv2dPlan::new(ctx.backend, &spec(4, 4, 3, 3, Border::Zero), Elem::I32).map(drop)
            },
            argument,
        ),
        rejects(
            "a 1-D image (run)",
            "ShapeMismatch",
            |ctx| {
                let image = HostArray::vector(ArrayData::F32(vec![1.0; 16]));
                cli(
                    ctx,
                    image,
                    matrix(3, 3, ArrayData::F32(vec![1.0; 9]))?,
                    "zero",
                )
            },
            shape,
        ),
        rejects(
            "an int32 image (run)",
            "InvalidArgument",
            |ctx| {
                let image = matrix(4, 4, ArrayData::I32(vec![1; 16]))?;
                cli(
                    ctx,
                    image,
                    matrix(3, 3, ArrayData::F32(vec![1.0; 9]))?,
                    "zero",
                )
            },
            argument,
        ),
        rejects(
            "a uint8 filter (run)",
            "InvalidArgument",
            |ctx| {
                let image = matrix(4, 4, ArrayData::U8(vec![1; 16]))?;
                cli(ctx, image, matrix(3, 3, ArrayData::U8(vec![1; 9]))?, "zero")
            },
            argument,
        ),
        rejects(
            "an unknown border (run)",
            "InvalidArgument",
            |ctx| {
                let image = matrix(4, 4, ArrayData::F32(vec![1.0; 16]))?;
                cli(
                    ctx,
                    image,
                    matrix(3, 3, ArrayData::F32(vec![1.0; 9]))?,
                    "wrap",
                )
            },
            argument,
        ),
        rejects(
            "an f32 image buffer shorter than its pixels",
            "ShapeMismatch",
            |ctx| encode_with(ctx, Elem::F32, [32 * 32 * 4 - 4, 36, 32 * 32 * 4]),
            shape,
        ),
        rejects(
            "a u8 image buffer shorter than its pixels",
            "ShapeMismatch",
            |ctx| encode_with(ctx, Elem::U8, [32 * 32 - 4, 36, 32 * 32 * 4]),
            shape,
        ),
        rejects(
            "a filter buffer shorter than the filter",
            "ShapeMismatch",
            |ctx| encode_with(ctx, Elem::F32, [32 * 32 * 4, 32, 32 * 32 * 4]),
            shape,
        ),
        rejects(
            "an output buffer shorter than the image",
            "ShapeMismatch",
            |ctx| encode_with(ctx, Elem::U8, [32 * 32, 36, 32 * 32 * 4 - 4]),
            shape,
        ),
    ]
}

/// The most filter values a random case draws for `direct` (and the plan's
/// own choice, which runs such filters through it): eight launches of
/// lavapipe's 16 382 values, past the three the fixed cases split into;
/// larger filters only add launches.
const DRAWN_DIRECT_VALUES: usize = 1 << 17;

/// The most launches a drawn chunk size gives `direct` (each a launch on
/// every device: a case stays fast).
const DRAWN_CHUNK_LAUNCHES: usize = 64;

/// Draws in a hundred that put the filter's radius past a halo tile
/// ([`Drawn::draw_past_tile`]). Planted bugs in the halo tiles' "inside"
/// shortcut (the top or left test reduced to "not the first tile") showed
/// in 1 drawn case in 100 before this form; at a tenth a default run of 24
/// would still miss one side in about one seed in four.
const PAST_TILE_PERCENT: usize = 25;

/// The longest image side [`Drawn::draw_past_tile`] draws: a few hundred
/// pixels, tiles enough both ways.
const PAST_TILE_MOST: usize = 512;

/// The least extent of an image along an axis of `tile`-wide tiles, under a
/// filter of radius `radius`, that holds a tile whose halo lies inside the
/// image along it (the first tile at or past the radius, whose halo ends a
/// radius past it); with a radius past the tile, the second tile (whose
/// halo starts before the image) then ends inside too.
fn least_inside(radius: usize, tile: usize) -> usize {
    radius.div_ceil(tile) * tile + tile + radius
}

/// How a drawn case plans its convolution: every way the fixed cases force
/// one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum How {
    /// The plan's own choice (tuned, or the device's default order).
    Own,
    /// A variant, forced.
    Forced(Conv2dVariant),
    /// A variant on a grid of at most this many workgroups, which then
    /// stride over the tiles ([`Conv2dPlan::with_grid`]).
    Grid(Conv2dVariant, u32),
    /// `direct` in chunks of at most this many filter values, compared bit
    /// for bit with the plan's own launches ([`Chunked`]).
    Chunks(u64),
}

impl How {
    /// The variant it forces, if any.
    fn variant(self) -> Option<Conv2dVariant> {
        match self {
            How::Own => None,
            How::Forced(v) | How::Grid(v, _) => Some(v),
            How::Chunks(_) => Some(Conv2dVariant::Direct),
        }
    }
}

/// The values of a drawn case: each kind a fixed case checks, with its
/// label in case names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// f32 pixels and filter uniform in [-1, 1), under the bound.
    Random,
    /// f32 integers −4..=4, exactly.
    SmallInts,
    /// f32 pixels and filter whose products underflow, under the bound.
    Underflowing,
    /// f32 pixels with a NaN, a +Inf and a −Inf.
    NonFinite,
    /// +Inf as the first filter value (zero border only).
    InfFirst,
    /// −Inf as the last filter value (zero border only).
    InfLast,
    /// u8 pixels under a random filter, under the bound.
    Bytes,
    /// u8 pixels under integers −2..=2, exactly.
    BytesExact,
}

impl Kind {
    #[cfg(test)]
    const ALL: [Kind; 8] = [
        Kind::Random,
        Kind::SmallInts,
        Kind::Underflowing,
        Kind::NonFinite,
        Kind::InfFirst,
        Kind::InfLast,
        Kind::Bytes,
        Kind::BytesExact,
    ];

    /// Draw a kind for `elem` pixels under `border`: u8 pixels under a
    /// random or a small integer filter, equally likely; f32 random values
    /// three times as likely as each other kind and small integers twice,
    /// the infinite filter values (as in the fixed cases) under the zero
    /// border only.
    fn draw(draw: &mut Draw, elem: Elem, border: Border) -> Kind {
        let weights: &[(Kind, usize)] = match (elem, border) {
            (Elem::U8, _) => &[(Kind::Bytes, 1), (Kind::BytesExact, 1)],
            (_, Border::Zero) => &[
                (Kind::Random, 3),
                (Kind::SmallInts, 2),
                (Kind::Underflowing, 1),
                (Kind::NonFinite, 1),
                (Kind::InfFirst, 1),
                (Kind::InfLast, 1),
            ],
            (_, Border::Clamp) => &[
                (Kind::Random, 3),
                (Kind::SmallInts, 2),
                (Kind::Underflowing, 1),
                (Kind::NonFinite, 1),
            ],
        };
        let mut at = draw.below(weights.iter().map(|w| w.1).sum());
        for &(kind, weight) in weights {
            if at < weight {
                return kind;
            }
            at -= weight;
        }
        unreachable!("`at` is below the weights' sum")
    }

    /// The pixels, the filter's generator and whether the sums are exact.
    fn values(self) -> (Pixels, Values, bool) {
        let random = inputs::f32_values;
        match self {
            Kind::Random => (Pixels::Random, random, false),
            Kind::SmallInts => (Pixels::SmallInts, small_ints, true),
            Kind::Underflowing => (Pixels::Underflowing, inputs::f32_underflowing, false),
            Kind::NonFinite => (Pixels::NonFinite, random, false),
            Kind::InfFirst => (Pixels::Random, INFINITE_FILTERS[0].1, false),
            Kind::InfLast => (Pixels::Random, INFINITE_FILTERS[1].1, false),
            Kind::Bytes => (Pixels::Bytes, random, false),
            Kind::BytesExact => (Pixels::Bytes, small_filter, true),
        }
    }

    /// The most filter values whose sums stay exact in f32: small integers
    /// (at most 16 a product) up to 2^20, u8 pixels under integers −2..=2
    /// (at most 510 a product) up to 2^14; no limit for the others.
    fn most_values(self) -> usize {
        match self {
            Kind::SmallInts => 1 << 20,
            Kind::BytesExact => 1 << 14,
            _ => usize::MAX,
        }
    }

    /// What case names say of it (as the fixed cases do).
    fn label(self) -> &'static str {
        match self {
            Kind::Random | Kind::Bytes => "",
            Kind::SmallInts => " small integers (exact)",
            Kind::Underflowing => " underflowing",
            Kind::NonFinite => " with NaN and Inf",
            Kind::InfFirst => INFINITE_FILTERS[0].0,
            Kind::InfLast => INFINITE_FILTERS[1].0,
            Kind::BytesExact => " small integer filter (exact)",
        }
    }
}

/// Everything a random case drew, before anything is made.
#[derive(Debug, Clone, PartialEq)]
struct Drawn {
    spec: Conv2dSpec,
    how: How,
    kind: Kind,
    /// NaN past the image, a sentinel past the output ([`padding`]; f32
    /// images only, as in the fixed cases).
    padded: bool,
    /// Seeds the image (and, xor 1, the filter).
    seed: u64,
}

/// Multiply-adds a plan of `variant` for `spec` computes on `caps`, if it
/// fits there: every output of its tiles, past the image's edge too (the
/// halo-tile kernels compute those and store only the ones inside, and a
/// CPU device runs a workgroup's idle invocations at the cost of busy ones:
/// a one-pixel-wide image costs a 32-wide tile 32 times its outputs);
/// `direct`, whose invocations past the image do nothing, the image's.
fn work(
    caps: &Capabilities,
    spec: &Conv2dSpec,
    elem: Elem,
    variant: Conv2dVariant,
) -> Option<usize> {
    let g = geometry(caps, spec, elem, variant).ok()?;
    let outputs = if variant.direct() {
        spec.height * spec.width
    } else {
        (g.tiles[0] * g.tiles[1]) as usize * (g.tile.0 * g.tile.1) as usize
    };
    Some(outputs * spec.kh * spec.kw)
}

/// Whether `spec` with `elem` pixels planned `how` fits `caps` within
/// [`random::MAX_WORK`] ([`work`]). The plan's own choice: `direct` (which
/// takes what no other does) fits, and so does every variant the plan may
/// choose (the tuner may store any) that takes the shape.
fn fits(caps: &Capabilities, how: How, spec: &Conv2dSpec, elem: Elem) -> bool {
    let within =
        |caps: &Capabilities, v| work(caps, spec, elem, v).is_some_and(|w| w <= random::MAX_WORK);
    match how {
        How::Own => {
            within(caps, Conv2dVariant::Direct)
                && Conv2dVariant::ALL
                    .into_iter()
                    .all(|v| geometry(caps, spec, elem, v).is_err() || within(caps, v))
        }
        How::Chunks(_) => within(caps, Conv2dVariant::Direct),
        How::Forced(v) => within(caps, v),
        How::Grid(v, groups) => {
            let mut capped = caps.clone();
            capped.max_groups = [groups, 1, 1];
            within(&capped, v)
        }
    }
}

impl Drawn {
    /// Draw a case: the variant (the plan's own choice or one forced, each
    /// equally likely; a forced one a quarter of the time on a grid of 1 to
    /// 5 workgroups, and `direct` a quarter of the time in drawn chunks),
    /// the pixels (f32 or u8) and border (zero or clamp), equally likely,
    /// the values ([`Kind::draw`]), the filter (1 × 1 a tenth of the time,
    /// square three tenths, else one extent and then the other, each odd
    /// up to what the variant takes on the least device), the image (each
    /// extent up to what the filter leaves of [`random::MAX_LEN`],
    /// [`random::MAX_WORK`] and the loop budget, one drawn after the other,
    /// the first mostly at most twice the square's side; no larger than
    /// the filter a sixth of the time, around the capped grid's tiles half
    /// the time; rows of whole vectors a quarter of the time) and padded
    /// buffers (a third of the f32 cases); [`PAST_TILE_PERCENT`] times in a
    /// hundred, instead, a filter past a halo tile
    /// ([`Drawn::draw_past_tile`]).
    fn draw(draw: &mut Draw) -> Drawn {
        if draw.chance(PAST_TILE_PERCENT) {
            return Self::draw_past_tile(draw);
        }
        let caps = least_device();
        let variant = Conv2dVariant::ALL
            .get(draw.below(Conv2dVariant::ALL.len() + 1))
            .copied();
        let mut how = match variant {
            None => How::Own,
            Some(v) if v.direct() && draw.chance(25) => How::Chunks(1),
            Some(v) if draw.chance(25) => How::Grid(v, draw.between(1, 5) as u32),
            Some(v) => How::Forced(v),
        };
        let elem = if draw.chance(50) { Elem::F32 } else { Elem::U8 };
        let border = if draw.chance(50) {
            Border::Zero
        } else {
            Border::Clamp
        };
        let kind = Kind::draw(draw, elem, border);
        let most_values = match how.variant() {
            Some(v) if !v.direct() => random::MAX_WORK,
            _ => DRAWN_DIRECT_VALUES,
        }
        .min(kind.most_values());
        let at = |height, width, kh, kw| spec(height, width, kh, kw, border);
        let fits_filter = |kh: usize, kw: usize| {
            kh.saturating_mul(kw) <= most_values && fits(&caps, how, &at(1, 1, kh, kw), elem)
        };
        let (kh, kw) = match draw.below(10) {
            0 => (1, 1),
            1..=3 => {
                let k = draw.odd(largest_odd(most_values, |k| fits_filter(k, k)));
                (k, k)
            }
            _ => {
                let rows_first = draw.chance(50);
                let fits_first = |e: usize| {
                    if rows_first {
                        fits_filter(e, 1)
                    } else {
                        fits_filter(1, e)
                    }
                };
                let first = draw.odd(largest_odd(most_values, fits_first));
                let fits_second = |e: usize| {
                    if rows_first {
                        fits_filter(first, e)
                    } else {
                        fits_filter(e, first)
                    }
                };
                let second = draw.odd(largest_odd(most_values / first, fits_second));
                if rows_first {
                    (first, second)
                } else {
                    (second, first)
                }
            }
        };
        let values = kh * kw;
        let most_pixels = random::MAX_LEN.min(random::MAX_WORK / values);
        // The largest height for `width` (or width for `height`).
        let most_height = |width: usize| {
            largest(1, most_pixels / width, |h| {
                fits(&caps, how, &at(h, width, kh, kw), elem)
            })
        };
        let most_width = |height: usize| {
            largest(1, most_pixels / height, |w| {
                fits(&caps, how, &at(height, w, kh, kw), elem)
            })
        };
        let (height, mut width) = match how {
            _ if values > 1 && draw.chance(17) => {
                let height = draw.length(kh.min(most_height(1)));
                (height, draw.length(kw.min(most_width(height))))
            }
            How::Grid(v, groups) if draw.chance(50) => {
                // Around the tiles the grid strides over: 1 to 3 per group
                // down and across (`direct`: its blocks of outputs, across).
                let g = geometry(&caps, &at(1, 1, kh, kw), elem, v)
                    .expect("the filter fits a one-pixel image");
                let (tw, th) = (g.tile.0 as usize, g.tile.1 as usize);
                let mut edge = |tile: usize, most: usize| {
                    let tiles = draw.between(1, 3 * groups as usize);
                    (tile * tiles + draw.between(0, 2))
                        .saturating_sub(1)
                        .clamp(1, most)
                };
                let height = edge(th, most_height(1));
                (height, edge(tw, most_width(height)))
            }
            _ => {
                // Balanced three times in five (the first extent at most
                // twice the square's side), else as thin as it comes.
                let side = if draw.chance(60) {
                    2 * most_pixels.isqrt()
                } else {
                    usize::MAX
                };
                if draw.chance(50) {
                    let height = draw.length(most_height(1).min(side));
                    (height, draw.length(most_width(height)))
                } else {
                    let width = draw.length(most_width(1).min(side));
                    (draw.length(most_height(width)), width)
                }
            }
        };
        if width >= 4 && draw.chance(25) {
            width -= width % 4;
        }
        if let How::Chunks(_) = how {
            let fewest = values.div_ceil(DRAWN_CHUNK_LAUNCHES);
            how = How::Chunks(draw.length(values).max(fewest) as u64);
        }
        let padded = elem == Elem::F32 && !matches!(how, How::Chunks(_)) && draw.chance(33);
        Drawn {
            spec: at(height, width, kh, kw),
            how,
            kind,
            padded,
            seed: draw.seed(),
        }
    }

    /// A case for the halo tiles' "inside" shortcut (a tile whose halo lies
    /// inside the image loads it without the border rule): a halo-tile
    /// variant (a tile or a register window) forced with the filter's
    /// radius past the tile along rows, columns or both (the tile's extent
    /// plus 1 to 3 three times in four, else up to twice it plus 1), the
    /// other extent narrow (1 to 5), under the clamp border (a wrong
    /// shortcut at any edge then loads a pixel other than the clamped one;
    /// under the zero border one at the top reads before the buffer, which
    /// robust devices answer with the border's own 0). The image, each
    /// side up to [`PAST_TILE_MOST`], holds along each axis a tile whose
    /// halo lies inside ([`least_inside`]), so that along an axis past the
    /// tile the shortcut meets tiles before the radius whose halo sticks
    /// out at the start alone and tiles past it whose halo lies inside.
    /// The variant and filter are drawn again (up to 16 times) until that
    /// image fits the least device within [`random::MAX_WORK`]; else a
    /// 19 × 1 filter through 8 × 8 tiles.
    fn draw_past_tile(draw: &mut Draw) -> Drawn {
        let caps = least_device();
        let border = Border::Clamp;
        let elem = if draw.chance(50) { Elem::F32 } else { Elem::U8 };
        let kind = Kind::draw(draw, elem, border);
        let at = |height, width, kh, kw| spec(height, width, kh, kw, border);
        let halo_tiles: Vec<Conv2dVariant> = Conv2dVariant::ALL
            .into_iter()
            .filter(|v| !v.global() && !v.direct())
            .collect();
        let mut drawn = None;
        for _ in 0..16 {
            let v = *draw.pick(&halo_tiles);
            let (tw, th) = v.tile();
            // 0: rows past the tile, 1: columns, 2: both.
            let axes = draw.below(3);
            let mut extent = |tile: u32, past: bool| {
                let tile = tile as usize;
                if !past {
                    draw.odd(5)
                } else if draw.chance(75) {
                    2 * (tile + draw.between(1, 3)) + 1
                } else {
                    2 * (tile + draw.between(4, tile + 1)) + 1
                }
            };
            let kh = extent(th, axes != 1);
            let kw = extent(tw, axes != 0);
            let least = (
                least_inside(kh / 2, th as usize),
                least_inside(kw / 2, tw as usize),
            );
            if kh * kw <= kind.most_values()
                && fits(&caps, How::Forced(v), &at(least.0, least.1, kh, kw), elem)
            {
                drawn = Some((v, kh, kw, least));
                break;
            }
        }
        let (v, kh, kw, (least_h, least_w)) =
            drawn.unwrap_or((Conv2dVariant::Tile8x8, 19, 1, (least_inside(9, 8), 8)));
        let most_pixels = random::MAX_LEN.min(random::MAX_WORK / (kh * kw));
        let fits_image = |h: usize, w: usize| {
            h * w <= most_pixels && fits(&caps, How::Forced(v), &at(h, w, kh, kw), elem)
        };
        // One side first, up to the largest that fits with the other at its
        // least, then the other up to what fits with it.
        let height_first = draw.chance(50);
        let mut extent = |least: usize, fits: &dyn Fn(usize) -> bool| {
            draw.between(least, largest(least, PAST_TILE_MOST, fits))
        };
        let (height, width) = if height_first {
            let height = extent(least_h, &|h| fits_image(h, least_w));
            (height, extent(least_w, &|w| fits_image(height, w)))
        } else {
            let width = extent(least_w, &|w| fits_image(least_h, w));
            (extent(least_h, &|h| fits_image(h, width)), width)
        };
        let padded = elem == Elem::F32 && draw.chance(33);
        Drawn {
            spec: at(height, width, kh, kw),
            how: How::Forced(v),
            kind,
            padded,
            seed: draw.seed(),
        }
    }

    /// The pixels' type.
    fn elem(&self) -> Elem {
        self.kind.values().0.elem()
    }

    /// The case's name: the shape, the values and how it is planned.
    fn name(&self) -> String {
        let mut name = name(
            &self.spec,
            self.elem(),
            self.kind.label(),
            self.how.variant(),
        );
        match self.how {
            How::Own => name.push_str(" (the plan's choice)"),
            How::Forced(_) => {}
            How::Grid(_, 1) => name.push_str(" on 1 workgroup"),
            How::Grid(_, groups) => name.push_str(&format!(" on {groups} workgroups")),
            How::Chunks(chunk) => name.push_str(&format!(" in chunks of {chunk} values")),
        }
        if self.padded {
            name.push_str(", NaN past the image, output kept past it");
        }
        name
    }

    /// The case (inputs are made when it is prepared).
    fn case(self) -> Case {
        Case::new(self.name(), OP, CaseGroup::Random, true, move || {
            let (pixels, filter, exact) = self.kind.values();
            let spec = self.spec;
            let conv = Conv::new(
                pixels.make(self.seed, spec.height * spec.width),
                filter(self.seed ^ 1, spec.kh * spec.kw),
                spec,
                self.how.variant(),
                exact,
            );
            match self.how {
                How::Chunks(chunk) => Either::Chunked(Chunked {
                    conv,
                    chunks: vec![chunk],
                }),
                How::Grid(_, groups) => Either::Through(Through {
                    conv,
                    grid: Some(groups),
                    padded: self.padded,
                }),
                How::Own | How::Forced(_) => Either::Through(Through {
                    conv,
                    grid: None,
                    padded: self.padded,
                }),
            }
        })
    }
}

/// A convolution through the plan its case drew (the plan's own choice, a
/// forced variant, or one on a grid of `grid` workgroups) and through
/// buffers of just the data or padded ones (f32 images).
struct Through {
    conv: Conv,
    grid: Option<u32>,
    padded: bool,
}

impl Check for Through {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let backend = ctx.backend;
        let (spec, elem) = (&self.conv.spec, self.conv.image.elem());
        let plan = match (self.conv.variant, self.grid) {
            (Some(v), Some(groups)) => Conv2dPlan::with_grid(backend, spec, elem, v, groups)?.0,
            (Some(v), None) => Conv2dPlan::with_variant(backend, spec, elem, v)?,
            (None, _) => Conv2dPlan::new(backend, spec, elem)?,
        };
        if self.padded {
            return run_padded(backend, &plan, &self.conv);
        }
        Ok(self
            .conv
            .compare(&encode_and_read(backend, &plan, &self.conv)?))
    }
}

/// The check of a drawn case.
enum Either {
    Through(Through),
    Chunked(Chunked),
}

impl Check for Either {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        match self {
            Either::Through(check) => check.run(ctx),
            Either::Chunked(check) => check.run(ctx),
        }
    }
}

/// A case of the `random` group (see [`crate::op::Op::random_case`]).
pub(super) fn drawn_case(draw: &mut Draw) -> Case {
    Drawn::draw(draw).case()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::test_device;
    use rosetta_core::Api;

    fn draws(seed: u64, count: u64) -> Vec<Drawn> {
        crate::op::random::testing::draws(OP, seed, count, Drawn::draw)
    }

    /// Whether the plan a drawn case makes takes its shape on `caps`, asked
    /// the way each plan asks (not through [`fits`]).
    fn planned_on(caps: &Capabilities, d: &Drawn) -> bool {
        let (spec, elem) = (&d.spec, d.elem());
        match d.how {
            How::Own => {
                let device = test_device(Api::Vulkan, caps.clone());
                Conv2dVariant::default_order(&device)
                    .into_iter()
                    .any(|v| geometry(caps, spec, elem, v).is_ok())
            }
            How::Forced(v) => geometry(caps, spec, elem, v).is_ok(),
            How::Grid(v, groups) => {
                let mut capped = caps.clone();
                capped.max_groups[0] = capped.max_groups[0].min(groups);
                capped.max_groups[1] = 1;
                geometry(caps, spec, elem, v).is_ok() && geometry(&capped, spec, elem, v).is_ok()
            }
            How::Chunks(chunk) => {
                super::super::plan::direct_geometry(caps, spec, elem, chunk).is_ok()
                    && geometry(caps, spec, elem, Conv2dVariant::Direct).is_ok()
            }
        }
    }

    #[test]
    fn drawn_shapes_stay_within_the_limits_and_fit_every_device() {
        for d in draws(11, 3000) {
            let name = d.name();
            let s = d.spec;
            let (pixels, values) = (s.height * s.width, s.kh * s.kw);
            assert!(s.height >= 1 && s.width >= 1, "{name}");
            assert!(pixels <= random::MAX_LEN, "{name}");
            assert!(pixels * values <= random::MAX_WORK, "{name}");
            // Every output of the tiles, for any variant the plan may take.
            let variants = match d.how.variant() {
                Some(v) => vec![v],
                None => Conv2dVariant::ALL.to_vec(),
            };
            for v in variants {
                let tiles = work(&least_device(), &s, d.elem(), v);
                assert!(tiles.is_none_or(|w| w <= random::MAX_WORK), "{name}: {v:?}");
            }
            assert!(s.kh % 2 == 1 && s.kw % 2 == 1, "{name}");
            assert!(values <= d.kind.most_values(), "{name}");
            if let How::Chunks(chunk) = d.how {
                assert!(chunk >= 1, "{name}");
                assert!(
                    values.div_ceil(chunk as usize) <= DRAWN_CHUNK_LAUNCHES,
                    "{name}"
                );
            }
            if d.how.variant().is_none_or(|v| v.direct()) {
                assert!(values <= DRAWN_DIRECT_VALUES, "{name}");
            }
            // Padded buffers of f32 only, infinite filters under the zero
            // border only (as in the fixed cases).
            assert!(!d.padded || d.elem() == Elem::F32, "{name}");
            assert!(!d.padded || !matches!(d.how, How::Chunks(_)), "{name}");
            if matches!(d.kind, Kind::InfFirst | Kind::InfLast) {
                assert_eq!(s.border, Border::Zero, "{name}");
            }
            for caps in random::testing::devices() {
                assert!(planned_on(&caps, &d), "{name} on {caps:?}");
            }
        }
    }

    #[test]
    fn draws_cover_every_variant_value_kind_and_edge() {
        let drawn = draws(3, 1000);
        let any = |f: &dyn Fn(&Drawn) -> bool| drawn.iter().any(f);
        assert!(any(&|d| d.how == How::Own));
        for v in Conv2dVariant::ALL {
            assert!(any(&|d| d.how == How::Forced(v)), "{v:?}");
            assert!(
                any(&|d| matches!(d.how, How::Grid(g, _) if g == v)),
                "{v:?}"
            );
            for elem in [Elem::F32, Elem::U8] {
                for border in Border::ALL {
                    assert!(
                        any(&|d| d.how.variant() == Some(v)
                            && d.elem() == elem
                            && d.spec.border == border),
                        "{v:?} {elem} {border}"
                    );
                }
            }
        }
        for groups in 1..=5 {
            assert!(any(&|d| matches!(d.how, How::Grid(_, g) if g == groups)));
        }
        // A grid strided: more tiles than workgroups.
        assert!(any(&|d| match d.how {
            How::Grid(v, groups) => {
                let g = geometry(&least_device(), &d.spec, d.elem(), v).unwrap();
                g.tiles[0] * g.tiles[1] >= 2 * u64::from(groups) && g.tiles[1] > 1
            }
            _ => false,
        }));
        assert!(any(
            &|d| matches!(d.how, How::Chunks(c) if d.spec.kh * d.spec.kw > 2 * c as usize)
        ));
        for kind in Kind::ALL {
            assert!(any(&|d| d.kind == kind), "{kind:?}");
        }
        assert!(any(&|d| d.padded) && any(&|d| !d.padded && d.elem() == Elem::F32));
        let s = |d: &Drawn| d.spec;
        assert!(any(&|d| s(d).kh == 1 && s(d).kw == 1));
        assert!(any(&|d| s(d).kh == 1 && s(d).kw > 1));
        assert!(any(&|d| s(d).kh > 1 && s(d).kw == 1));
        assert!(any(&|d| s(d).kh > 1 && s(d).kh == s(d).kw));
        assert!(any(&|d| s(d).kh > s(d).height && s(d).kw > s(d).width));
        // The largest filters each kind of variant takes, and then some.
        let most = |pick: &dyn Fn(Conv2dVariant) -> bool, of: &dyn Fn(&Conv2dSpec) -> usize| {
            drawn
                .iter()
                .filter(|d| d.how.variant().is_some_and(pick))
                .map(|d| of(&d.spec))
                .max()
                .unwrap()
        };
        let values = |s: &Conv2dSpec| s.kh * s.kw;
        assert_eq!(most(&|v| v.window(), &values), 81);
        assert_eq!(most(&|v| v.global(), &|s| s.kw), GLOBAL_MAX_KW as usize);
        assert!(most(&|v| !v.window() && !v.global() && !v.direct(), &values) > 2000);
        assert!(most(&|v| v.direct(), &values) > 2 * 16_382);
        // Widths of whole vectors and of every other remainder, long rows
        // and columns, images of several tiles both ways.
        for rem in 0..4 {
            assert!(any(&|d| s(d).width > 4 && s(d).width % 4 == rem));
        }
        assert!(any(&|d| s(d).width > 100_000) && any(&|d| s(d).height > 100_000));
        assert!(any(&|d| s(d).width > 256 && s(d).height > 256));
    }

    /// Which sides of the halo tiles' "inside" shortcut a drawn case tests
    /// on every device: `(top, left)`. A side counts where the case forces
    /// a halo-tile variant under the clamp border and the image holds,
    /// along that axis, a tile whose halo sticks out before the image by
    /// less than the filter's radius (the radius past the tile) but lies
    /// inside at the far end and along the other axis, and a tile whose
    /// halo lies inside along it. Tiles are enumerated, not computed as the
    /// draw computes them.
    fn shortcut_sides(d: &Drawn) -> (bool, bool) {
        let v = match d.how {
            How::Forced(v) | How::Grid(v, _) if !v.global() && !v.direct() => v,
            _ => return (false, false),
        };
        if d.spec.border != Border::Clamp {
            return (false, false);
        }
        let (tw, th) = v.tile();
        let s = d.spec;
        // Along one axis: (a tile sticking out at the start alone, a tile
        // inside) for `extent` pixels, tiles `tile` wide, radius `r`.
        let along = |extent: usize, tile: u32, r: usize| {
            let starts: Vec<usize> = (0..extent).step_by(tile as usize).collect();
            let ends_inside = |y0: usize| y0 + tile as usize + r <= extent;
            (
                starts.iter().any(|&y0| y0 > 0 && y0 < r && ends_inside(y0)),
                starts.iter().any(|&y0| y0 >= r && ends_inside(y0)),
            )
        };
        let (rows_out, rows_in) = along(s.height, th, s.kh / 2);
        let (cols_out, cols_in) = along(s.width, tw, s.kw / 2);
        (
            rows_out && rows_in && cols_in,
            cols_out && cols_in && rows_in,
        )
    }

    /// A default run (24 conv2d cases) tests each side of the shortcut in
    /// nine seeds of ten or more (measured: 198 of 200 for each side).
    #[test]
    fn most_default_runs_test_both_sides_of_the_shortcut() {
        use crate::op::random::testing::seeds_meeting;
        let top = seeds_meeting(OP, 200, Drawn::draw, |d| shortcut_sides(d).0);
        let left = seeds_meeting(OP, 200, Drawn::draw, |d| shortcut_sides(d).1);
        assert!(
            top >= 180 && left >= 180,
            "top {top}, left {left} of 200 seeds"
        );
    }

    #[test]
    fn draws_put_the_filter_past_the_halo_tiles_often() {
        let drawn = draws(7, 1000);
        let (mut top, mut left, mut both) = (0, 0, 0);
        let mut variants = std::collections::BTreeSet::new();
        let mut elems = std::collections::BTreeSet::new();
        for d in &drawn {
            let (t, l) = shortcut_sides(d);
            top += usize::from(t);
            left += usize::from(l);
            both += usize::from(t && l);
            if t || l {
                variants.insert(d.how.variant().unwrap().name());
                elems.insert(d.elem().to_string());
            }
        }
        // Each side in a tenth of the draws or more: a default run (24 per
        // op) meets both in most seeds.
        assert!(
            top * 10 >= drawn.len() && left * 10 >= drawn.len(),
            "top {top}, left {left} of {}",
            drawn.len()
        );
        assert!(both > 0);
        // Every tile and a register window, f32 and u8 pixels.
        for v in Conv2dVariant::ALL {
            if !v.window() && !v.global() && !v.direct() {
                assert!(variants.contains(v.name()), "{v:?}: {variants:?}");
            }
        }
        assert!(
            variants.iter().any(|v| v.starts_with("window")),
            "{variants:?}"
        );
        assert_eq!(elems.len(), 2);
        // The fallback when no drawn filter fits.
        for elem in [Elem::F32, Elem::U8] {
            let s = spec(least_inside(9, 8), 8, 19, 1, Border::Clamp);
            assert!(fits(
                &least_device(),
                How::Forced(Conv2dVariant::Tile8x8),
                &s,
                elem
            ));
        }
    }

    #[test]
    fn draws_repeat_for_a_seed_and_name_what_they_drew() {
        assert_eq!(draws(5, 50), draws(5, 50));
        assert_ne!(draws(5, 50), draws(6, 50));
        let d = Drawn {
            spec: spec(67, 132, 3, 17, Border::Clamp),
            how: How::Grid(Conv2dVariant::Global128x32, 3),
            kind: Kind::SmallInts,
            padded: true,
            seed: 1,
        };
        assert_eq!(
            d.name(),
            "conv2d f32 67x132 filter 3x17 clamp small integers (exact) global128x32 on 3 workgroups, NaN past the image, output kept past it"
        );
        let own = Drawn {
            how: How::Own,
            kind: Kind::BytesExact,
            padded: false,
            ..d.clone()
        };
        assert_eq!(
            own.name(),
            "conv2d u8 67x132 filter 3x17 clamp small integer filter (exact) (the plan's choice)"
        );
        let chunks = Drawn {
            how: How::Chunks(7),
            padded: false,
            ..d
        };
        assert!(chunks.name().ends_with("direct in chunks of 7 values"));
    }

    #[test]
    fn drawn_cases_pass_on_the_cpu_backend() {
        let verdicts = random::testing::drawn_on_cpu(OP, 1, 24, drawn_case);
        let failed = random::testing::not_passed(&verdicts);
        assert!(failed.is_empty(), "{}", failed.join("\n"));
    }
}
