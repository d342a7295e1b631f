//! Matmul's conformance cases. Inputs are seeded by the case name.
//!
//! - `ops`: ragged and aligned shapes through the plan's own choice; every
//!   tiling forced on ragged shapes; every tiling with k forced split (the
//!   split-K path and its sum) and with an emulated loop cap (deep split,
//!   several sum passes), bit-identical across runs.
//! - `limits`: long k with exact inputs (`ones(1,K)·ones(K,1)` must be
//!   exactly K: a driver that stops long loops early, as lavapipe does after
//!   65 535 iterations, gives less), a long-k product of small integers
//!   checked exactly, grids of more than 65 535 workgroups along one axis,
//!   and matrices of more than 2^32 elements.
//! - `errors`: shapes that don't fit or overflow, buffers too short.
//! - `random` ([`drawn_case`]): the plan's own choice or any tiling, forced
//!   unsplit, split or under an emulated loop budget, on a drawn shape
//!   (edges of powers of two, vectors, long k under a tiny C) with uniform,
//!   underflowing, non-finite, exact integer or NaN-padded values.

use super::plan::{geometry, Algorithm, MatmulPlan, MatmulVariant, Tiling, TILINGS};
use super::plan::{matmul_f32, run_plan};
use super::spec::{matmul_bound, matmul_ref, MatmulSpec};
use crate::op::random::{largest, least_device, Draw, MAX_LEN, MAX_WORK};
use crate::op::{
    compare_bounded, compare_exact, padding, seed, Case, CaseGroup, Check, Context, Exact, Rejects,
    Verdict,
};
use rayon::prelude::*;
use rosetta_core::{inputs, Buffer, Error, Result};

/// How a case runs the product.
#[derive(Debug, Clone, Copy, PartialEq)]
enum How {
    /// `matmul_f32`: the plan's own choice for the device.
    Plan,
    /// A forced variant.
    Variant(MatmulVariant),
    /// A forced variant under an emulated loop budget; the plan must need at
    /// least this many sum passes (else the case does not test them).
    Budget(MatmulVariant, u64, usize),
}

impl How {
    fn label(&self) -> String {
        match self {
            How::Plan => String::new(),
            How::Variant(v) => format!(" {v}"),
            How::Budget(v, budget, _) => format!(" {v} loop budget {budget}"),
        }
    }

    fn run(&self, ctx: &Context<'_>, spec: &MatmulSpec, a: &[f32], b: &[f32]) -> Result<Vec<f32>> {
        match *self {
            How::Plan => matmul_f32(ctx.backend, a, b, spec),
            _ => run_plan(&self.plan(ctx, spec)?, a, b),
        }
    }

    fn plan(&self, ctx: &Context<'_>, spec: &MatmulSpec) -> Result<MatmulPlan> {
        match *self {
            How::Plan => MatmulPlan::new(ctx.backend, spec),
            How::Variant(v) => MatmulPlan::with_variant(ctx.backend, spec, v),
            How::Budget(v, budget, passes) => {
                let plan = MatmulPlan::with_budget(ctx.backend, spec, v, budget)?;
                let sums = plan.geometry().sums.len();
                if sums < passes {
                    return Err(Error::Internal(format!(
                        "the case wants {passes} sum passes, the plan makes {sums}"
                    )));
                }
                Ok(plan)
            }
        }
    }
}

/// A product through buffers longer than A, B and C ([`padding`]): A and B
/// followed by NaN, C by a sentinel. A holds +∞ in column 0 of one row and
/// B's row 0 is zeros, so that row alone is NaN (∞·0). A kernel that reads
/// one element past k in a ragged slice takes the next row's first element
/// (the ∞, turning the row above NaN too) or, on the last row, the NaN past
/// A; one that reads B past k takes its NaN; one that writes past C changes
/// the sentinel. (Random finite values met a zero-filled partner and hid
/// the read past k.)
struct PaddedProduct {
    spec: MatmulSpec,
    a: Vec<f32>,
    b: Vec<f32>,
    how: How,
}

impl PaddedProduct {
    /// Inputs seeded by `s`: A's row m/2 starts with +∞, B's row 0 is zeros.
    fn new(spec: MatmulSpec, how: How, s: u64) -> Self {
        let mut a = inputs::f32_values(s, spec.m * spec.k);
        a[spec.m / 2 * spec.k] = f32::INFINITY;
        let mut b = inputs::f32_values(s ^ 1, spec.k * spec.n);
        b[..spec.n].fill(0.0);
        PaddedProduct { spec, a, b, how }
    }
}

impl Check for PaddedProduct {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let plan = self.how.plan(ctx, &self.spec)?;
        let len = self.spec.m * self.spec.n;
        let a = Buffer::from_slice(ctx.backend, &padding::nan_padded(&self.a))?;
        let b = Buffer::from_slice(ctx.backend, &padding::nan_padded(&self.b))?;
        let c = Buffer::from_slice(ctx.backend, &padding::sentinel_output(len))?;
        plan.encode(&a, &b, &c)?;
        let got: Vec<f32> = c.read(len + padding::PADDING)?;
        if let Some(fail) = padding::sentinel_changed(&got, len) {
            return Ok(fail);
        }
        let exact = matmul_ref(&self.a, &self.b, &self.spec);
        Ok(compare_bounded(&got[..len], &exact, |_, e| {
            matmul_bound(&self.spec, e)
        }))
    }
}

fn padded_case(spec: MatmulSpec, how: How) -> Case {
    let name = format!(
        "matmul {}{} NaN past A and B, one row with Inf",
        label(&spec),
        how.label()
    );
    let s = seed(&name);
    Case::new(name, "matmul", CaseGroup::Ops, true, move || {
        PaddedProduct::new(spec, how, s)
    })
}

/// What a product is compared with.
enum Expected {
    /// f64 references under the γ_k bound.
    Bounded(Vec<Exact>),
    /// Exact f32 values (integer-valued inputs whose sums stay below 2^24,
    /// exact in any order).
    Exact(Vec<f32>),
}

struct Product {
    spec: MatmulSpec,
    a: Vec<f32>,
    b: Vec<f32>,
    how: How,
    expected: Expected,
}

impl Product {
    /// Inputs from `values` seeded by `s`, checked under the bound.
    fn generated(spec: MatmulSpec, how: How, s: u64, values: fn(u64, usize) -> Vec<f32>) -> Self {
        let a = values(s, spec.m * spec.k);
        let b = values(s ^ 1, spec.k * spec.n);
        let expected = Expected::Bounded(matmul_ref(&a, &b, &spec));
        Product {
            spec,
            a,
            b,
            how,
            expected,
        }
    }

    /// Integers below `below` seeded by `s`, checked exactly: the caller
    /// keeps `k·(below − 1)²` below 2^24.
    fn integers(spec: MatmulSpec, how: How, s: u64, below: u32) -> Self {
        let a = small_ints(s, spec.m * spec.k, below);
        let b = small_ints(s ^ 1, spec.k * spec.n, below);
        let expected = Expected::Exact(integer_product(&a, &b, &spec));
        Product {
            spec,
            a,
            b,
            how,
            expected,
        }
    }
}

impl Check for Product {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let got = self.how.run(ctx, &self.spec, &self.a, &self.b)?;
        Ok(match &self.expected {
            Expected::Bounded(exact) => {
                compare_bounded(&got, exact, |_, e| matmul_bound(&self.spec, e))
            }
            Expected::Exact(values) => compare_exact(&got, values),
        })
    }
}

/// Random inputs in [-1, 1), checked under the bound.
fn random_case(name: String, group: CaseGroup, quick: bool, spec: MatmulSpec, how: How) -> Case {
    generated_case(name, group, quick, spec, how, inputs::f32_values)
}

/// Inputs from a seeded generator, checked under the bound.
fn generated_case(
    name: String,
    group: CaseGroup,
    quick: bool,
    spec: MatmulSpec,
    how: How,
    values: fn(u64, usize) -> Vec<f32>,
) -> Case {
    let s = seed(&name);
    Case::new(name, "matmul", group, quick, move || {
        Product::generated(spec, how, s, values)
    })
}

/// Small integers stored as f32 (`below` values from 0), checked exactly:
/// the caller keeps `k·(below − 1)²` below 2^24.
fn integer_case(
    name: String,
    group: CaseGroup,
    quick: bool,
    spec: MatmulSpec,
    below: u32,
    how: How,
) -> Case {
    let s = seed(&name);
    Case::new(name, "matmul", group, quick, move || {
        Product::integers(spec, how, s, below)
    })
}

fn small_ints(seed: u64, len: usize, below: u32) -> Vec<f32> {
    inputs::u32_below(seed, len, below)
        .into_par_iter()
        .map(|v| v as f32)
        .collect()
}

/// The product of integer-valued matrices, in integers (exact), as f32.
fn integer_product(a: &[f32], b: &[f32], spec: &MatmulSpec) -> Vec<f32> {
    let (k, n) = (spec.k, spec.n);
    let mut out = vec![0u64; spec.m * n];
    out.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
        for p in 0..k {
            let x = a[i * k + p] as u64;
            if x != 0 {
                for (acc, &w) in row.iter_mut().zip(&b[p * n..(p + 1) * n]) {
                    *acc += x * w as u64;
                }
            }
        }
    });
    out.into_iter().map(|v| v as f32).collect()
}

fn shape(m: usize, n: usize, k: usize) -> MatmulSpec {
    MatmulSpec { m, k, n }
}

fn label(spec: &MatmulSpec) -> String {
    format!("M={} N={} K={}", spec.m, spec.n, spec.k)
}

/// Every matmul case.
pub fn cases() -> Vec<Case> {
    let mut all = Vec::new();
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
        let spec = shape(m, n, k);
        let quick = m.max(n).max(k) <= 129;
        all.push(random_case(
            format!("matmul {}", label(&spec)),
            CaseGroup::Ops,
            quick,
            spec,
            How::Plan,
        ));
    }
    // Products and sums that underflow: within the bound whether a device
    // keeps or flushes subnormals.
    let spec = shape(65, 63, 129);
    all.push(generated_case(
        format!("matmul {} underflowing", label(&spec)),
        CaseGroup::Ops,
        true,
        spec,
        How::Plan,
        inputs::f32_underflowing,
    ));
    // NaN and infinities in A and B reach every output of their row or
    // column (the plan's own tiling on the same ragged shape).
    all.push(generated_case(
        format!("matmul {} with NaN and Inf", label(&spec)),
        CaseGroup::Ops,
        true,
        spec,
        How::Plan,
        inputs::f32_with_nonfinite,
    ));
    let variants = MatmulVariant::all();
    // The split sum's order, which mod.rs promises (plane order, from 0):
    // k = 192 in three chunks of 64 (every slice depth divides 64), B's
    // rows 0, 64 and 128 hold 2^24, 1 and −2^24. In plane order
    // (2^24 + 1) − 2^24 is 0 in f32; in any other it is 1 or 2^24 + 1.
    // The γ_k bound allows all of them, so only this case sees the order.
    for &v in &variants {
        let spec = shape(5, 7, 192);
        let how = How::Variant(v.split(3));
        all.push(
            Case::new(
                format!(
                    "matmul {}{} sums its planes in order",
                    label(&spec),
                    how.label()
                ),
                "matmul",
                CaseGroup::Ops,
                true,
                move || {
                    let a = vec![1.0; spec.m * spec.k];
                    let mut b = vec![0.0; spec.k * spec.n];
                    for (row, value) in [(0, 16_777_216.0), (64, 1.0), (128, -16_777_216.0)] {
                        b[row * spec.n..(row + 1) * spec.n].fill(value);
                    }
                    Product {
                        spec,
                        a,
                        b,
                        how,
                        expected: Expected::Exact(vec![0.0; spec.m * spec.n]),
                    }
                },
            )
            .repeated(2),
        );
    }
    // Reads past k and past the buffers, writes past C: the plan's own
    // choice, every tiling on a ragged k, and every tiling with k split.
    all.push(padded_case(shape(63, 129, 17), How::Plan));
    for &v in &variants {
        all.push(padded_case(shape(63, 129, 17), How::Variant(v)));
        all.push(padded_case(shape(33, 65, 1001), How::Variant(v.split(3))));
    }
    // Every tiling on ragged shapes, whatever the plan would choose for the
    // device (a GPU with many compute units picks small tiles for these).
    // 260 × 264 × 100: whole tiles and ragged ones in one product, n a
    // multiple of 4 and k of neither slice depth, so CUDA's unchecked copies
    // (whole tiles, slices inside k) and its checked ones both run, as do
    // the unchecked loads of the register prefetch. 260 × 262 × 100 and
    // 257 × 264 × 101: whole tiles where only A's rows (k % 4 == 0) or only
    // B's (n % 4 == 0) keep four-float runs aligned (B's 16-byte copies
    // need n % 4 == 0).
    for &v in &variants {
        for spec in [
            shape(63, 129, 17),
            shape(513, 65, 129),
            shape(260, 264, 100),
            shape(260, 262, 100),
            shape(257, 264, 101),
        ] {
            all.push(random_case(
                format!("matmul {}{}", label(&spec), How::Variant(v).label()),
                CaseGroup::Ops,
                true,
                spec,
                How::Variant(v),
            ));
        }
    }
    // Every tiling with k split: chunks of whole slices, a ragged last
    // chunk, one sum pass; bit-identical across runs.
    for &v in &variants {
        // 63 × 132 × 1000: k and n multiples of 4, so CUDA's and OpenCL
        // C's 16-byte copies of B (and the unchecked ones of whole slices)
        // run in every chunk.
        for (spec, chunks) in [
            (shape(63, 129, 1001), 5),
            (shape(1, 7, 2049), 64),
            (shape(63, 132, 1000), 5),
        ] {
            let how = How::Variant(v.split(chunks));
            all.push(
                random_case(
                    format!("matmul {}{}", label(&spec), how.label()),
                    CaseGroup::Ops,
                    true,
                    spec,
                    how,
                )
                .repeated(3),
            );
        }
    }
    // Every tiling as on a device whose loops stop after a few hundred
    // iterations: one slice per chunk, more chunks than one sum pass may
    // add (k from the budget: a deeper slice raises both), so the sum runs
    // in two passes.
    for &v in &variants {
        let t = &v.tiling;
        let budget = Algorithm::Tiled.loops_per_tile(t) + Algorithm::Tiled.loops_per_slice(t);
        let how = How::Budget(v, budget, 2);
        let k = t.tile_k as usize * (budget as usize + 2) + 7;
        let spec = shape(33, 65, k);
        all.push(
            random_case(
                format!("matmul {}{}", label(&spec), how.label()),
                CaseGroup::Ops,
                true,
                spec,
                how,
            )
            .repeated(2),
        );
    }
    all.extend(limit_cases());
    all.extend(error_cases());
    all
}

/// `ones(1, k) · ones(k, 1)`, which must be exactly k.
struct Ones {
    k: usize,
    how: How,
}

impl Check for Ones {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let ones = vec![1.0f32; self.k];
        let got = self.how.run(ctx, &shape(1, 1, self.k), &ones, &ones)?;
        Ok(compare_exact(&got, &[self.k as f32]))
    }
}

fn limit_cases() -> Vec<Case> {
    let mut all = Vec::new();
    // Long k: 2^20 and a ragged 2^20 + 3 through the plan's own choice, and
    // every tiling forced. Sums of ones below 2^24 are exact in any order,
    // so anything but k means dropped (or repeated) work.
    for k in [1usize << 20, (1 << 20) + 3] {
        let name = format!("matmul limits ones(1,K)·ones(K,1) K={k}");
        all.push(Case::new(
            name,
            "matmul",
            CaseGroup::Limits,
            k.is_power_of_two(),
            move || Ones { k, how: How::Plan },
        ));
    }
    // Every tiling forced, past 2^19 (lavapipe's cliff at 65 535 slices of
    // 8): not quick, since a 1×1 product still computes whole tiles.
    for v in MatmulVariant::all() {
        let k = (1 << 19) + 3;
        let how = How::Variant(v);
        let name = format!("matmul limits ones(1,K)·ones(K,1) K={k}{}", how.label());
        all.push(Case::new(
            name,
            "matmul",
            CaseGroup::Limits,
            false,
            move || Ones { k, how },
        ));
    }
    // Long k with many outputs: values in {0, 1, 2}, sums at most
    // 4·200 000 < 2^24, checked exactly.
    let spec = shape(64, 64, 200_000);
    all.push(integer_case(
        format!("matmul limits {} values 0..2 exact", label(&spec)),
        CaseGroup::Limits,
        false,
        spec,
        3,
        How::Plan,
    ));
    // More than 65 535 tiles of C along one axis (tiles laid over x and y),
    // and a split whose sum has more than 65 535 workgroups.
    let small = MatmulVariant::tiled(TILINGS[TILINGS.len() - 1]);
    for (spec, how) in [
        (shape(1, 65_536 * 32 + 1, 3), How::Variant(small)),
        (shape(65_536 * 32 + 1, 1, 3), How::Variant(small)),
        (shape(1, 65_536 * 32 + 1, 3), How::Plan),
        // 2^24 outputs: one past the sum's 65 535 workgroups of 256 along x;
        // two planes of partial sums still fit lavapipe's 128 MiB buffers.
        (shape(4096, 4096, 16), How::Variant(small.split(2))),
    ] {
        all.push(integer_case(
            format!("matmul limits grid {}{} exact", label(&spec), how.label()),
            CaseGroup::Limits,
            false,
            spec,
            3,
            how,
        ));
    }
    // More than 2^32 elements in A, in B, in C: 32-bit (or signed) index
    // arithmetic would wrap and read or write the wrong rows.
    for big in [Big::A, Big::B, Big::C] {
        all.push(Case::new(
            format!("matmul limits {} of more than 2^32 elements", big.name()),
            "matmul",
            CaseGroup::Limits,
            false,
            move || Huge { big },
        ));
    }
    all
}

/// Which matrix of [`Huge`] is the big one.
#[derive(Clone, Copy)]
enum Big {
    A,
    B,
    C,
}

impl Big {
    fn name(self) -> &'static str {
        match self {
            Big::A => "A",
            Big::B => "B",
            Big::C => "C",
        }
    }

    /// A shape whose big matrix has 2^32 + 2^14 or 2^32 + 2^15 elements.
    fn spec(self) -> MatmulSpec {
        match self {
            Big::A => shape((1 << 18) + 1, 1, 1 << 14),
            Big::B => shape(1, (1 << 18) + 1, 1 << 14),
            Big::C => shape((1 << 17) + 1, 1 << 15, 1),
        }
    }
}

/// A product with one matrix of more than 2^32 elements. Inputs are made on
/// the host only where the device can hold them: `A[i][p] = (i + p) mod 3`,
/// `B[p][j] = (p + 2j) mod 3`, so `C[i][j]` depends on `i mod 3` and
/// `j mod 3` only, and a row or column reached through a wrapped index
/// (2^32 is not a multiple of 3) gives a different value.
struct Huge {
    big: Big,
}

impl Check for Huge {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let spec = self.big.spec();
        let [ea, eb, ec] = spec.elements()?;
        let bytes = 4 * (ea + eb + ec);
        let caps = &ctx.backend.info().caps;
        let largest = 4 * ea.max(eb).max(ec);
        if caps.device_type.is_cpu() {
            return Ok(Verdict::skip(format!(
                "{} GiB of matrices: too large for a CPU-type device in CI",
                bytes >> 30
            )));
        }
        if largest > caps.max_buffer_bytes {
            return Ok(Verdict::skip(format!(
                "a {largest}-byte matrix exceeds the device's largest buffer ({} bytes)",
                caps.max_buffer_bytes
            )));
        }
        if caps.memory_bytes > 0 && bytes + bytes / 8 > caps.memory_bytes {
            return Ok(Verdict::skip(format!(
                "{bytes} bytes of matrices exceed the device's memory ({} bytes)",
                caps.memory_bytes
            )));
        }
        let plan = MatmulPlan::new(ctx.backend, &spec)?;
        let (m, n, k) = (spec.m, spec.n, spec.k);
        let a: Vec<f32> = (0..m * k)
            .into_par_iter()
            .map(|e| ((e / k + e % k) % 3) as f32)
            .collect();
        let b: Vec<f32> = (0..k * n)
            .into_par_iter()
            .map(|e| ((e / n + 2 * (e % n)) % 3) as f32)
            .collect();
        let got = run_plan(&plan, &a, &b)?;
        drop((a, b));
        // C[i][j] for i, j mod 3.
        let mut table = [[0f32; 3]; 3];
        for (i, row) in table.iter_mut().enumerate() {
            for (j, value) in row.iter_mut().enumerate() {
                *value = (0..k)
                    .map(|p| ((i + p) % 3) * ((p + 2 * j) % 3))
                    .sum::<usize>() as f32;
            }
        }
        let wrong = got
            .par_iter()
            .enumerate()
            .filter(|&(e, &v)| v != table[(e / n) % 3][(e % n) % 3])
            .map(|(e, _)| e)
            .min();
        let mut v = match wrong {
            None => Verdict::pass(format!("{}", plan.variant())),
            Some(e) => Verdict::fail(format!(
                "C[{}][{}] = {}, expected {}",
                e / n,
                e % n,
                got[e],
                table[(e / n) % 3][(e % n) % 3]
            )),
        };
        v.fingerprint = crate::op::fingerprint(&got[..got.len().min(1 << 20)]);
        Ok(v)
    }
}

fn error_cases() -> Vec<Case> {
    let rejects = |name: &str, call, is_expected: fn(&Error) -> bool| {
        Case::new(
            format!("matmul rejects {name}"),
            "matmul",
            CaseGroup::Errors,
            true,
            move || Rejects {
                expected: "ShapeMismatch",
                call,
                is_expected,
            },
        )
    };
    let mismatch: fn(&Error) -> bool = |e| matches!(e, Error::ShapeMismatch(_));
    vec![
        rejects(
            "mismatched inner dimensions",
            |_| MatmulSpec::from_shapes([2, 3], [4, 2]).map(drop),
            mismatch,
        ),
        rejects(
            "an empty extent",
            |ctx| matmul_f32(ctx.backend, &[], &[], &shape(0, 2, 3)).map(drop),
            mismatch,
        ),
        rejects(
            "m·k that overflows",
            |_| MatmulSpec::from_shapes([usize::MAX / 2, 3], [3, 2]).map(drop),
            mismatch,
        ),
        rejects(
            "k·n that overflows",
            |ctx| {
                let spec = shape(1, usize::MAX / 4, 1 << 20);
                matmul_f32(ctx.backend, &[], &[], &spec).map(drop)
            },
            mismatch,
        ),
        rejects(
            "B shorter than its shape",
            |ctx| matmul_f32(ctx.backend, &[1.0; 6], &[1.0; 5], &shape(2, 2, 3)).map(drop),
            mismatch,
        ),
        rejects(
            "a C buffer shorter than m·n",
            |ctx| {
                let spec = shape(7, 9, 5);
                let plan = MatmulPlan::new(ctx.backend, &spec)?;
                let a = ctx.backend.alloc(7 * 5 * 4)?;
                let b = ctx.backend.alloc(5 * 9 * 4)?;
                let c = ctx.backend.alloc(7 * 9 * 4 - 4)?;
                plan.encode(&a, &b, &c)
            },
            mismatch,
        ),
        rejects(
            "an A buffer shorter than m·k, split",
            |ctx| {
                let spec = shape(7, 9, 500);
                let v = MatmulVariant::tiled(TILINGS[TILINGS.len() - 1]).split(4);
                let plan = MatmulPlan::with_variant(ctx.backend, &spec, v)?;
                let a = ctx.backend.alloc(7 * 499 * 4)?;
                let b = ctx.backend.alloc(500 * 9 * 4)?;
                let c = Buffer::new(ctx.backend, 7 * 9 * 4)?;
                plan.encode(&a, &b, &c)
            },
            mismatch,
        ),
    ]
}

/// Most multiply-adds a drawn case's kernels may run, counting what pads
/// C's tiles and k's slices: a 1 × 1 product computes whole tiles (from
/// 32 × 32 to 256 × 128), so [`MAX_WORK`] alone would let a case run
/// 2^15 times the work it checks, seconds on lavapipe.
const MAX_PADDED_WORK: u64 = 1 << 25;

/// The longest extent of the drawn shapes kept balanced (none long, none
/// thin): otherwise the first extent drawn takes most of the limits and
/// leaves the others short.
const BALANCED: usize = 256;

/// Most k slices per chunk a drawn loop budget allows: budgets stay a few
/// slices deep, far below any device's own (lavapipe's is 16 383
/// iterations), so that k splits over many chunks at small k.
const MAX_BUDGET_SLICES: u64 = 4;

/// The values of a drawn case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Values {
    /// Uniform in [-1, 1), under the bound.
    Uniform,
    /// Products and sums that underflow ([`inputs::f32_underflowing`]),
    /// under the bound.
    Underflowing,
    /// NaN and ±∞ among uniform values ([`inputs::f32_with_nonfinite`]).
    NonFinite,
    /// Integers in `0..below`, exact (`k·(below − 1)² < 2^24`).
    Integers(u32),
    /// [`PaddedProduct`]: NaN past A and B, a sentinel past C, a row with +∞.
    Padded,
}

impl Values {
    fn label(self) -> String {
        match self {
            Values::Uniform => "values in [-1, 1)".into(),
            Values::Underflowing => "underflowing".into(),
            Values::NonFinite => "with NaN and Inf".into(),
            Values::Integers(below) => format!("values 0..{} exact", below - 1),
            Values::Padded => "NaN past A and B, one row with Inf".into(),
        }
    }
}

/// Everything one random case draws.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Drawn {
    spec: MatmulSpec,
    how: How,
    values: Values,
    seed: u64,
}

impl Drawn {
    fn name(&self) -> String {
        let how = match self.how {
            How::Plan => " the plan's choice".to_string(),
            how => how.label(),
        };
        format!("{}{how}, {}", label(&self.spec), self.values.label())
    }

    /// Whether k is forced split (or split by a budget). Such a case runs
    /// twice: the split sum's order is fixed (mod.rs), so results that
    /// differ run to run are wrong even where the bound allows both.
    fn splits(&self) -> bool {
        match self.how {
            How::Plan => false,
            How::Variant(v) => v.split_k.is_some(),
            How::Budget(..) => true,
        }
    }

    /// The inputs and reference.
    fn check(&self) -> DrawnCheck {
        let (spec, how, s) = (self.spec, self.how, self.seed);
        match self.values {
            Values::Uniform => {
                DrawnCheck::Product(Product::generated(spec, how, s, inputs::f32_values))
            }
            Values::Underflowing => {
                DrawnCheck::Product(Product::generated(spec, how, s, inputs::f32_underflowing))
            }
            Values::NonFinite => {
                DrawnCheck::Product(Product::generated(spec, how, s, inputs::f32_with_nonfinite))
            }
            Values::Integers(below) => DrawnCheck::Product(Product::integers(spec, how, s, below)),
            Values::Padded => DrawnCheck::Padded(PaddedProduct::new(spec, how, s)),
        }
    }
}

/// A drawn case's check: a plain or a padded product.
enum DrawnCheck {
    Product(Product),
    Padded(PaddedProduct),
}

impl Check for DrawnCheck {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        match self {
            DrawnCheck::Product(p) => p.run(ctx),
            DrawnCheck::Padded(p) => p.run(ctx),
        }
    }
}

/// A case of the `random` group (`Op::random_case`): everything drawn
/// first ([`draw_product`]), so the case's inputs depend on the draw alone.
pub(super) fn drawn_case(draw: &mut Draw) -> Case {
    let drawn = draw_product(draw);
    let repeat = if drawn.splits() { 2 } else { 1 };
    Case::new(drawn.name(), "matmul", CaseGroup::Random, true, move || {
        drawn.check()
    })
    .repeated(repeat)
}

/// The variant, the shape within the limits, then the values.
fn draw_product(draw: &mut Draw) -> Drawn {
    let (how, k_min, k_max) = draw_how(draw);
    let spec = draw_shape(draw, (k_min, k_max), &padding_of(&how));
    let values = match draw.below(20) {
        0..=6 => Values::Uniform,
        7..=10 => Values::Integers(draw_below(draw, spec.k)),
        11..=15 => Values::Padded,
        16 | 17 => Values::Underflowing,
        _ => Values::NonFinite,
    };
    Drawn {
        spec,
        how,
        values,
        seed: draw.seed(),
    }
}

/// Matmuls in a hundred drawn with a multi-pass split-k sum whose last fan
/// is ragged ([`draw_multi_pass`]): a planted bug there (a dropped `min`
/// over the last fan's planes) ran in 1 drawn matmul of 300 before this
/// form, in 6 of the 90 fixed ones.
const MULTI_PASS_PERCENT: usize = 12;

/// How the product runs: [`MULTI_PASS_PERCENT`] times in a hundred a
/// multi-pass sum ([`draw_multi_pass`]); else in equal shares the plan's own
/// choice, each tiling forced unsplit, each with k forced split; and in one
/// share of those 2·tilings + 2 a tiling under an emulated loop budget.
/// With it the range of k for which it is what its name says (the least k
/// unless said, up to any): a forced split of at least two chunks (mostly as
/// many as it asks for), a budget whose plan needs the sum passes it asks
/// for.
fn draw_how(draw: &mut Draw) -> (How, usize, usize) {
    if draw.chance(MULTI_PASS_PERCENT) {
        let (how, k) = draw_multi_pass(draw);
        return (how, k, k);
    }
    let tilings = TILINGS.len();
    let pick = draw.below(2 * tilings + 2);
    if pick == 0 {
        return (How::Plan, 1, MAX_LEN);
    }
    if pick <= tilings {
        return (
            How::Variant(MatmulVariant::tiled(TILINGS[pick - 1])),
            1,
            MAX_LEN,
        );
    }
    if pick <= 2 * tilings {
        let t = TILINGS[pick - 1 - tilings];
        let depth = t.tile_k as usize;
        // The most chunks whose least k (one slice each) keeps a 1 × 1
        // product within the padded work.
        let most = (MAX_PADDED_WORK / (tile_area(&t) * depth as u64)).min(64) as usize;
        let asked = if draw.chance(50) {
            draw.between(2, 5)
        } else {
            draw.length(64)
        };
        let chunks = asked.clamp(2, most);
        // Mostly k with a slice for every chunk asked for; else as few as
        // two slices, so that the plan cuts the split down to the slices.
        let k_min = if draw.chance(80) {
            (chunks - 1) * depth + 1
        } else {
            depth + 1
        };
        let v = MatmulVariant::tiled(t).split(chunks as u32);
        return (How::Variant(v), k_min, MAX_LEN);
    }
    let t = *draw.pick(&TILINGS);
    let depth = t.tile_k as u64;
    let (per_tile, per_slice) = (
        Algorithm::Tiled.loops_per_tile(&t),
        Algorithm::Tiled.loops_per_slice(&t),
    );
    // A budget that takes exactly `slices` slices per chunk.
    let slices = draw.between(1, MAX_BUDGET_SLICES as usize) as u64;
    let budget = per_tile + slices * per_slice + draw.below(per_slice as usize) as u64;
    // More than `slices·budget` slices make more chunks than one sum pass
    // adds (its fan-in is below the budget): two passes, where that k keeps
    // a 1 × 1 product within the padded work; else more than `slices`
    // slices, so at least two chunks and one pass.
    let two_passes = slices * depth * budget + 1;
    let fits_two = (two_passes as usize) <= MAX_LEN
        && tile_area(&t) * two_passes.next_multiple_of(depth) <= MAX_PADDED_WORK;
    let (k_min, passes) = if fits_two && draw.chance(50) {
        (two_passes, 2)
    } else {
        (slices * depth + 1, 1)
    };
    let mut v = MatmulVariant::tiled(t);
    if draw.chance(25) {
        v = v.split(draw.between(2, 4) as u32);
    }
    (How::Budget(v, budget, passes), k_min as usize, MAX_LEN)
}

/// The loop budget's bounds that make a chunk of tiling `t` exactly
/// `slices` slices deep: from one slice's loops past the least to one short
/// of a further slice.
fn budget_bounds(t: &Tiling, slices: u64) -> (u64, u64) {
    let per_tile = Algorithm::Tiled.loops_per_tile(t);
    let per_slice = Algorithm::Tiled.loops_per_slice(t);
    let least = per_tile + slices * per_slice;
    (least, least + per_slice - 1)
}

/// The longest k a 1 × 1 product forced to tiling `t` takes within the
/// limits.
fn longest_k(t: &Tiling) -> usize {
    let padding = padding_of(&How::Variant(MatmulVariant::tiled(*t)));
    largest(1, MAX_LEN, |k| within_limits([1, 1, k], &padding))
}

/// The first sum pass of tiling `t` under `budget` with k split into
/// chunks of `slices` slices for a k of `k`, as the plan makes it on the
/// least device (the number of chunks, the sum's fan-in), if it makes more
/// than one pass.
fn first_of_passes(t: &Tiling, slices: u64, budget: u64, k: usize) -> Option<(u64, u64)> {
    let spec = MatmulSpec { m: 1, k, n: 1 };
    let chunks = (k as u64).div_ceil(u64::from(t.tile_k)).div_ceil(slices);
    let v = MatmulVariant::tiled(*t).split(chunks as u32);
    let g = geometry(
        &least_device(),
        rosetta_core::Language::Glsl,
        &spec,
        &v,
        budget,
    )
    .ok()?;
    (g.sums.len() >= 2).then(|| (u64::from(g.chunks), u64::from(g.sums[0].fan_in)))
}

/// A tiling under an emulated loop budget whose split-k sum takes two
/// passes, the first with a ragged last fan (its planes not a multiple of
/// its fan-in, the sum's longest loop): the tiling and the slices per chunk
/// (1 to [`MAX_BUDGET_SLICES`]) drawn among those whose plan can make more
/// chunks than one fan holds within a 1 × 1 product's limits (the small
/// tilings: a fan holds about a budget of chunks), a budget that makes
/// chunks exactly that deep, then the number of chunks: 1 to as many whole
/// fans as fit and a ragged fan of 1 plane, one short of a fan, or
/// anything between, and a k that many chunks deep (the last chunk and
/// its last slice ragged or not). The split is forced to that number, so
/// that every device (whatever its own split heuristic) sums the same
/// planes. Returns the plan's way and k.
fn draw_multi_pass(draw: &mut Draw) -> (How, usize) {
    let options: Vec<(Tiling, u64)> = TILINGS
        .iter()
        .flat_map(|&t| (1..=MAX_BUDGET_SLICES).map(move |slices| (t, slices)))
        .filter(|&(t, slices)| {
            let (_, most) = budget_bounds(&t, slices);
            first_of_passes(&t, slices, most, longest_k(&t)).is_some()
        })
        .collect();
    let &(t, slices) = draw.pick(&options);
    let (least, most) = budget_bounds(&t, slices);
    let budget = draw.between(least as usize, most as usize) as u64;
    let k_most = longest_k(&t);
    let (most_chunks, fan_in) = first_of_passes(&t, slices, budget, k_most)
        .expect("every budget of the range makes two passes at the longest k");
    let fans = draw.between(1, ((most_chunks - 1) / fan_in) as usize) as u64;
    let ragged = match draw.below(4) {
        0 => 1,
        1 => fan_in - 1,
        _ => draw.between(1, fan_in as usize - 1) as u64,
    };
    let mut chunks = (fans * fan_in + ragged).min(most_chunks);
    if chunks % fan_in == 0 {
        chunks -= 1;
    }
    let depth = u64::from(t.tile_k);
    let total_slices = (chunks - 1) * slices + draw.between(1, slices as usize) as u64;
    let k = (total_slices * depth - draw.below(depth as usize) as u64).min(k_most as u64);
    let v = MatmulVariant::tiled(t).split(chunks as u32);
    (How::Budget(v, budget, 2), k as usize)
}

/// `tile_m·tile_n`.
fn tile_area(t: &Tiling) -> u64 {
    u64::from(t.tile_m) * u64::from(t.tile_n)
}

/// What the kernels may compute for a product: `factor·⌈m⌉·⌈n⌉·⌈k⌉`
/// multiply-adds, each extent rounded up to a multiple of the tile's.
#[derive(Debug, Clone, Copy)]
struct Padding {
    tile: [usize; 3],
    factor: u64,
}

impl Padding {
    fn work(&self, [m, n, k]: [usize; 3]) -> u64 {
        let [tm, tn, tk] = self.tile;
        self.factor
            * m.next_multiple_of(tm) as u64
            * n.next_multiple_of(tn) as u64
            * k.next_multiple_of(tk) as u64
    }
}

/// The padded work bounds of a way to run: a forced tiling's own; for the
/// plan's choice, the smallest tiling with the CPU backend's 64-deep slices
/// (what it picks where every tiling would be mostly padding) and tiles at
/// most twice C's extents each (the others the heuristic takes, or a tuner
/// that measured square products of the shape's class).
fn padding_of(how: &How) -> Vec<Padding> {
    let tiling = |t: &Tiling| Padding {
        tile: [t.tile_m as usize, t.tile_n as usize, t.tile_k as usize],
        factor: 1,
    };
    match how {
        How::Plan => {
            let smallest = TILINGS[TILINGS.len() - 1];
            vec![
                Padding {
                    tile: [smallest.tile_m as usize, smallest.tile_n as usize, 64],
                    factor: 1,
                },
                Padding {
                    tile: [1, 1, 64],
                    factor: 4,
                },
            ]
        }
        How::Variant(v) | How::Budget(v, ..) => vec![tiling(&v.tiling)],
    }
}

/// Whether `[m, n, k]` is within the random group's limits: each operand
/// at most [`MAX_LEN`] elements, at most [`MAX_WORK`] multiply-adds, and
/// [`MAX_PADDED_WORK`] under every padding.
fn within_limits(dims: [usize; 3], padding: &[Padding]) -> bool {
    let [m, n, k] = dims.map(|d| d as u64);
    let len = MAX_LEN as u64;
    m * k <= len
        && k * n <= len
        && m * n <= len
        && m * n * k <= MAX_WORK as u64
        && padding.iter().all(|p| p.work(dims) <= MAX_PADDED_WORK)
}

/// A shape within the limits with `k_min <= k <= k_max`: now and then a
/// degenerate one (a row or a column vector, an outer product, a dot
/// product, a tiny C under a long k, a short k under a large C) or one with
/// no extent past [`BALANCED`], and the remaining extents drawn in a random
/// order, each with [`Draw::length`] up to the largest the limits allow
/// with the ones not yet drawn at their least.
fn draw_shape(draw: &mut Draw, (k_min, k_max): (usize, usize), padding: &[Padding]) -> MatmulSpec {
    const M: usize = 0;
    const N: usize = 1;
    const K: usize = 2;
    let least = [1, 1, k_min];
    let mut dims: [Option<usize>; 3] = [None; 3];
    let mut ceiling = [MAX_LEN, MAX_LEN, k_max];
    match draw.below(10) {
        0 => dims[M] = Some(1),
        1 => dims[N] = Some(1),
        2 if k_min == 1 => dims[K] = Some(1),
        3 => dims[..2].fill(Some(1)),
        4 => {
            dims[M] = Some(draw.length(4));
            dims[N] = Some(draw.length(4));
        }
        5 if k_min <= 4 => dims[K] = Some(draw.between(k_min, k_max.min(4))),
        6 => ceiling = [BALANCED, BALANCED, BALANCED.clamp(k_min, k_max)],
        7 => {
            // Whole tiles of the (first) tiling, k one short of a multiple
            // of its slice depth: every tile lies inside A and B and the
            // last slice is ragged. A prefetch that checked bounds one slice
            // late read past k only here (a planted bug that no other draw
            // showed in 2 600).
            let [tm, tn, tk] = padding[0].tile;
            let least_slices = (k_min + 1).div_ceil(tk).max(2);
            let shape = [
                tm * draw.between(1, 2),
                tn * draw.between(1, 2),
                tk * draw.between(least_slices, least_slices + 6) - 1,
            ];
            if within_limits(shape, padding) && shape[K] <= k_max {
                dims = shape.map(Some);
            }
        }
        _ => {}
    }
    let order = *draw.pick(&[
        [M, N, K],
        [M, K, N],
        [N, M, K],
        [N, K, M],
        [K, M, N],
        [K, N, M],
    ]);
    for d in order {
        if dims[d].is_some() {
            continue;
        }
        let at = |v: usize| {
            let mut shape = [0; 3];
            for (i, extent) in shape.iter_mut().enumerate() {
                *extent = if i == d {
                    v
                } else {
                    dims[i].unwrap_or(least[i])
                };
            }
            shape
        };
        // The largest extent within the limits (they only tighten as it
        // grows).
        let (mut lo, mut hi) = (least[d], ceiling[d]);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if within_limits(at(mid), padding) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        dims[d] = Some(at_least(draw, least[d], lo));
    }
    let [m, n, k] = dims.map(|d| d.unwrap_or(1));
    MatmulSpec { m, k, n }
}

/// A length in `lo..=max` from [`Draw::length`] (the edges of powers of
/// two), or uniform where a few draws of it fall below `lo`.
fn at_least(draw: &mut Draw, lo: usize, max: usize) -> usize {
    if lo >= max {
        return lo;
    }
    for _ in 0..8 {
        let v = draw.length(max);
        if v >= lo {
            return v;
        }
    }
    draw.between(lo, max)
}

/// The integers' bound `below` for a product over `k`: at most 64, and
/// `k·(below − 1)² < 2^24`, so that every partial sum is exact.
fn draw_below(draw: &mut Draw, k: usize) -> u32 {
    let top = (((1u64 << 24) - 1) / k as u64).isqrt();
    draw.between(2, (top as usize + 1).min(64)) as u32
}

#[cfg(test)]
mod tests {
    use super::super::plan::{geometry, heuristic_variant};
    use super::*;
    use rosetta_core::{Capabilities, DeviceType, Language};
    use std::collections::{BTreeSet, HashSet};

    fn draws(seed: u64, count: u64) -> Vec<Drawn> {
        crate::op::random::testing::draws("matmul", seed, count, draw_product)
    }

    /// The kinds of values, by name.
    fn kind(values: Values) -> &'static str {
        match values {
            Values::Uniform => "uniform",
            Values::Underflowing => "underflowing",
            Values::NonFinite => "non-finite",
            Values::Integers(_) => "integers",
            Values::Padded => "padded",
        }
    }

    /// Multiply-adds the kernels run for `spec` under `t`, padding and all.
    fn padded_work(spec: &MatmulSpec, t: &Tiling) -> u64 {
        let up = |v: usize, tile: u32| v.next_multiple_of(tile as usize) as u64;
        up(spec.m, t.tile_m) * up(spec.n, t.tile_n) * up(spec.k, t.tile_k)
    }

    #[test]
    fn draws_cover_every_variant_shape_edge_and_value_kind_within_the_limits() {
        let all: Vec<Drawn> = (1..=2).flat_map(|seed| draws(seed, 300)).collect();
        let mut plan = 0;
        let (mut unsplit, mut split, mut budgets) =
            (HashSet::new(), HashSet::new(), HashSet::new());
        let mut passes = BTreeSet::new();
        let mut kinds = BTreeSet::new();
        let mut edges = BTreeSet::new();
        for d in &all {
            let MatmulSpec { m, k, n } = d.spec;
            let name = d.name();
            assert!(m >= 1 && n >= 1 && k >= 1, "{name}");
            assert!(
                m * k <= MAX_LEN && k * n <= MAX_LEN && m * n <= MAX_LEN,
                "{name}"
            );
            assert!(m * n * k <= MAX_WORK, "{name}");
            match d.how {
                How::Plan => plan += 1,
                How::Variant(v) => {
                    assert!(padded_work(&d.spec, &v.tiling) <= MAX_PADDED_WORK, "{name}");
                    match v.split_k {
                        None => unsplit.insert(v.tiling),
                        // At least two slices, so the split splits.
                        Some(_) => {
                            assert!(k > v.tiling.tile_k as usize, "{name}");
                            split.insert(v.tiling)
                        }
                    };
                }
                How::Budget(v, budget, want) => {
                    assert!(padded_work(&d.spec, &v.tiling) <= MAX_PADDED_WORK, "{name}");
                    let per_tile = Algorithm::Tiled.loops_per_tile(&v.tiling);
                    let per_slice = Algorithm::Tiled.loops_per_slice(&v.tiling);
                    assert!(budget >= per_tile + per_slice, "{name}");
                    assert!(budget <= 65_535 / 4, "{name}: over lavapipe's own budget");
                    budgets.insert(v.tiling);
                    passes.insert(want);
                }
            }
            kinds.insert(kind(d.values));
            if let Values::Integers(below) = d.values {
                let top = u64::from(below - 1);
                assert!(below >= 2 && k as u64 * top * top < 1 << 24, "{name}");
            }
            for (edge, hit) in [
                ("m = 1", m == 1),
                ("n = 1", n == 1),
                ("k = 1", k == 1),
                ("a dot product", m == 1 && n == 1 && k > 1000),
                ("long k, tiny C", m * n <= 16 && k >= 4096),
                ("short k, large C", k <= 4 && m * n >= 1 << 16),
                ("wide", n >= 1 << 14 && m > 1),
                ("tall", m >= 1 << 14 && n > 1),
                ("square-ish", m.min(n).min(k) >= 64),
                (
                    "whole tiles, k one short of a slice",
                    padding_of(&d.how).first().is_some_and(|p| {
                        let [tm, tn, tk] = p.tile;
                        m % tm == 0 && n % tn == 0 && (k + 1) % tk == 0 && k + 1 > tk
                    }),
                ),
                (
                    "2^j - 1",
                    [m, n, k]
                        .iter()
                        .any(|&v| v > 2 && (v + 1).is_power_of_two()),
                ),
                (
                    "2^j + 1",
                    [m, n, k]
                        .iter()
                        .any(|&v| v > 3 && (v - 1).is_power_of_two()),
                ),
            ] {
                if hit {
                    edges.insert(edge);
                }
            }
        }
        assert!(
            plan >= 20,
            "the plan's own choice {plan} times in {}",
            all.len()
        );
        let tilings: HashSet<Tiling> = TILINGS.into_iter().collect();
        assert_eq!(unsplit, tilings, "unsplit");
        assert_eq!(split, tilings, "split");
        assert_eq!(budgets, tilings, "under a loop budget");
        assert_eq!(passes, BTreeSet::from([1, 2]), "sum passes asked for");
        assert_eq!(kinds.len(), 5, "{kinds:?}");
        assert_eq!(edges.len(), 12, "{edges:?}");
    }

    /// Devices like those the suite runs on: lavapipe (loop cap, 128 MiB
    /// buffers), PoCL, the CPU backend, and a large GPU.
    fn devices() -> Vec<(&'static str, Capabilities, Vec<Language>)> {
        let lavapipe = Capabilities {
            max_buffer_bytes: 128 << 20,
            ..Capabilities::software_device()
        };
        let pocl = Capabilities {
            loop_limit: None,
            compute_units: 2,
            max_shared_bytes: 1 << 20,
            max_groups: [i32::MAX as u32, 65_535, 65_535],
            max_buffer_bytes: 8 << 30,
            ..Capabilities::software_device()
        };
        let cpu = Capabilities {
            max_shared_bytes: 256 << 10,
            ..pocl.clone()
        };
        let gpu = Capabilities {
            device_type: DeviceType::DiscreteGpu,
            loop_limit: None,
            compute_units: 132,
            max_shared_bytes: 227 << 10,
            async_copy: true,
            max_buffer_bytes: 80 << 30,
            ..Capabilities::software_device()
        };
        vec![
            ("lavapipe", lavapipe, vec![Language::Glsl, Language::Wgsl]),
            ("pocl", pocl, vec![Language::OpenCl]),
            ("cpu", cpu, vec![Language::Rust]),
            (
                "gpu",
                gpu,
                vec![
                    Language::Cuda,
                    Language::OpenCl,
                    Language::Glsl,
                    Language::Wgsl,
                ],
            ),
        ]
    }

    /// Every drawn shape plans on every device as its name says: forced
    /// splits split, budgets need their sum passes, every invocation stays
    /// within the budget, and the plan's own choice stays within the padded
    /// work the draw assumed for it.
    #[test]
    fn drawn_shapes_plan_on_every_kind_of_device() {
        let mut planned = 0;
        for d in draws(3, 400) {
            let name = d.name();
            for (device, caps, languages) in devices() {
                for language in languages {
                    let (variant, budget) = match d.how {
                        How::Plan => {
                            let split = language != Language::Rust;
                            let v = heuristic_variant(&caps, language, &d.spec, split)
                                .unwrap_or_else(|| panic!("{name}: no variant on {device}"));
                            // The CPU backend runs the tiling 64 deep.
                            let t = Tiling {
                                tile_k: 64,
                                ..v.tiling
                            };
                            assert!(padded_work(&d.spec, &t) <= MAX_PADDED_WORK, "{name}: {v}");
                            (v, u64::MAX)
                        }
                        How::Variant(v) => (v, u64::MAX),
                        How::Budget(v, budget, _) => (v, budget),
                    };
                    assert!(variant.tiling.fits(&caps, language), "{name} on {device}");
                    let budget = budget.min(caps.loop_budget());
                    let g = geometry(&caps, language, &d.spec, &variant, budget)
                        .unwrap_or_else(|e| panic!("{name} on {device} {language:?}: {e}"));
                    assert!(g.loops <= budget, "{name} on {device}");
                    match d.how {
                        How::Variant(v) if v.split_k.is_some() => {
                            assert!(g.chunks >= 2, "{name} on {device}: {g:?}");
                        }
                        How::Budget(_, _, passes) => {
                            assert!(g.sums.len() >= passes, "{name} on {device}: {g:?}");
                        }
                        _ => {}
                    }
                    planned += 1;
                }
            }
        }
        assert_eq!(planned, 400 * 8);
    }

    /// The least k a forced split or a budget is drawn with already makes
    /// it what its name says (the shapes above mostly have more k).
    #[test]
    fn the_least_k_of_a_split_or_budget_splits_as_named() {
        let (mut splits, mut two_passes) = (0, 0);
        for i in 0..2000 {
            let (how, k_min, _) = draw_how(&mut Draw::new(4, "matmul", i));
            let spec = shape(1, 1, k_min);
            for (device, caps, languages) in devices() {
                for language in languages {
                    let (v, budget, passes) = match how {
                        How::Plan => continue,
                        How::Variant(v) if v.split_k.is_some() => (v, u64::MAX, 1),
                        How::Variant(_) => continue,
                        How::Budget(v, budget, passes) => (v, budget, passes),
                    };
                    let budget = budget.min(caps.loop_budget());
                    let g = geometry(&caps, language, &spec, &v, budget)
                        .unwrap_or_else(|e| panic!("{v} K={k_min} on {device}: {e}"));
                    let what = how.label();
                    assert!(g.chunks >= 2, "{what} K={k_min} on {device}: {g:?}");
                    assert!(
                        g.sums.len() >= passes,
                        "{what} K={k_min} on {device}: {g:?}"
                    );
                    splits += 1;
                    two_passes += usize::from(passes == 2);
                }
            }
        }
        assert!(
            splits > 1000 && two_passes > 50,
            "{splits} splits, {two_passes} of two passes"
        );
    }

    /// The first sum pass of `d` on every kind of device where it sums in
    /// two passes or more, each as `(planes, fan_in)`; `None` where one
    /// device sums in one pass.
    fn first_passes(d: &Drawn) -> Option<Vec<(u32, u32)>> {
        let How::Budget(v, budget, _) = d.how else {
            return None;
        };
        let mut firsts = Vec::new();
        for (device, caps, languages) in devices() {
            for language in languages {
                let budget = budget.min(caps.loop_budget());
                let g = geometry(&caps, language, &d.spec, &v, budget)
                    .unwrap_or_else(|e| panic!("{} on {device}: {e}", d.name()));
                if g.sums.len() < 2 {
                    return None;
                }
                firsts.push((g.sums[0].planes, g.sums[0].fan_in));
            }
        }
        Some(firsts)
    }

    /// A tenth of the draws or more sum split k in two passes or more whose
    /// first one ends in a ragged fan (its planes not a multiple of its
    /// fan-in: the last fan's loop must stop early) on every kind of
    /// device, through two tilings or more, with a last fan of one plane
    /// and of a fan less one among them.
    #[test]
    fn draws_sum_split_k_in_passes_with_a_ragged_last_fan() {
        let all: Vec<Drawn> = (1..=2).flat_map(|seed| draws(seed, 300)).collect();
        let (mut ragged, mut tilings, mut lasts) = (0, HashSet::new(), BTreeSet::new());
        for d in &all {
            let Some(firsts) = first_passes(d) else {
                continue;
            };
            if firsts.iter().all(|&(planes, fan)| planes % fan != 0) {
                ragged += 1;
                if let How::Budget(v, ..) = d.how {
                    tilings.insert(v.tiling);
                }
                let (planes, fan) = firsts[0];
                if planes % fan == 1 {
                    lasts.insert("one plane");
                }
                if planes % fan == fan - 1 {
                    lasts.insert("a fan less one");
                }
            }
        }
        assert!(ragged * 10 >= all.len(), "{ragged} of {}", all.len());
        assert!(tilings.len() >= 2, "{tilings:?}");
        assert_eq!(lasts.len(), 2, "{lasts:?}");
    }

    /// A default run (24 matmuls) holds such a ragged multi-pass sum in
    /// nine seeds of ten or more (measured: 192 of 200).
    #[test]
    fn most_default_runs_sum_in_passes_with_a_ragged_last_fan() {
        let ragged = |d: &Drawn| {
            first_passes(d).is_some_and(|f| f.iter().all(|&(planes, fan)| planes % fan != 0))
        };
        let seeds = crate::op::random::testing::seeds_meeting("matmul", 200, draw_product, ragged);
        assert!(seeds >= 180, "{seeds} of 200 seeds");
    }

    /// Every draw of the multi-pass form sums in two passes or more with a
    /// ragged first one, the same planes on every kind of device (its split
    /// is forced), for any m and n.
    #[test]
    fn the_multi_pass_form_is_ragged_on_every_device() {
        for i in 0..300 {
            let (how, k) = draw_multi_pass(&mut Draw::new(6, "matmul", i));
            let d = Drawn {
                spec: shape(1, 1, k),
                how,
                values: Values::Uniform,
                seed: 0,
            };
            let name = d.name();
            let firsts = first_passes(&d).unwrap_or_else(|| panic!("{name}: one pass"));
            assert!(firsts.iter().all(|&f| f == firsts[0]), "{name}: {firsts:?}");
            let (planes, fan) = firsts[0];
            assert!(
                planes % fan != 0,
                "{name}: {planes} planes in fans of {fan}"
            );
            assert!(within_limits([1, 1, k], &padding_of(&how)), "{name}");
        }
    }

    #[test]
    fn a_draw_repeats_and_its_name_says_what_was_drawn() {
        for i in 0..50 {
            let d = draw_product(&mut Draw::new(9, "matmul", i));
            assert_eq!(d, draw_product(&mut Draw::new(9, "matmul", i)));
            let case = drawn_case(&mut Draw::new(9, "matmul", i));
            assert_eq!(case.name, d.name());
            assert_eq!(
                (case.op, case.group, case.quick),
                ("matmul", CaseGroup::Random, true)
            );
            assert_eq!(case.repeat, if d.splits() { 2 } else { 1 });
            assert!(case.name.starts_with(&label(&d.spec)), "{}", case.name);
            assert!(case.name.ends_with(&d.values.label()), "{}", case.name);
            if let How::Variant(v) | How::Budget(v, ..) = d.how {
                assert!(case.name.contains(&format!(" {v}")), "{}", case.name);
            }
        }
        let names: BTreeSet<String> = draws(9, 50).iter().map(Drawn::name).collect();
        assert!(names.len() >= 48, "{} distinct names in 50", names.len());
        assert_ne!(draws(9, 5), draws(10, 5));
    }

    /// The first drawn cases of the suite's default seed, on the CPU
    /// backend (its Rust kernels, every forced tiling).
    #[test]
    fn drawn_cases_pass_on_the_cpu_backend() {
        let verdicts = crate::op::random::testing::drawn_on_cpu("matmul", 1, 24, drawn_case);
        let failed = crate::op::random::testing::not_passed(&verdicts);
        assert!(failed.is_empty(), "{}", failed.join("\n"));
    }
}
