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

use super::plan::{matmul_f32, run_plan};
use super::plan::{Algorithm, MatmulPlan, MatmulVariant, TILINGS};
use super::spec::{matmul_bound, matmul_ref, MatmulSpec};
use crate::op::{
    compare_bounded, compare_exact, padding, seed, Case, CaseGroup, Check, Context, Exact, Rejects,
    Verdict,
};
use rayon::prelude::*;
use rosetta_core::{inputs, Buffer, Error, Result};

/// How a case runs the product.
#[derive(Clone, Copy)]
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
        let mut a = inputs::f32_values(s, spec.m * spec.k);
        a[spec.m / 2 * spec.k] = f32::INFINITY;
        let mut b = inputs::f32_values(s ^ 1, spec.k * spec.n);
        b[..spec.n].fill(0.0);
        PaddedProduct { spec, a, b, how }
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
