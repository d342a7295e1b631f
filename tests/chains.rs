//! Randomized chains of device-resident ops on every device found, compared
//! bit for bit with an exact host computation. The other tests run one op
//! at a time (conformance) or fixed shapes (`device_buffers`,
//! `concurrency`); here each op's output feeds the next without a host round
//! trip, over random shapes around kernel boundaries (1, primes, 2^k ± 1,
//! past 2^17 and 2^20), while buffers are dropped, reused by the pool after
//! holding junk, overwritten right after an op is enqueued, or wrapped with
//! junk past their length (`from_raw`): a kernel that reads memory it never
//! wrote shows. Inputs are small integers; the host computes in i64 and
//! asserts every f32 sum stays exact (Σ|terms| ≤ 2^24) before comparing.
//! Seeds: `DEFAULT_SEEDS`, or `ROSETTA_CHAIN_SEEDS` — a list (`3,17`),
//! ranges (`100..140`), or one number, a count (`40`: seeds 0..40).

mod common;

use rosetta::core::Buffer;
use rosetta::{Border, Conv2dSpec, Device, DeviceBuffer, Element, MatmulSpec, ReduceOp};
use std::fmt;

/// The seeds run when `ROSETTA_CHAIN_SEEDS` is not set.
const DEFAULT_SEEDS: [u64; 8] = [1, 2, 3, 4, 5, 6, 7, 8];

/// Every integer of magnitude at most 2^24 is an f32, so a sum whose
/// Σ|terms| stays within this is exact in any order, with or without FMA.
const EXACT_LIMIT: i64 = 1 << 24;
/// What the generator aims for (well below [`EXACT_LIMIT`]).
const BUDGET: i64 = 1 << 22;
/// Most multiply-adds one conv1d / conv2d / matmul may take.
const WORK: usize = 3_000_000;
/// Longest 1-D input.
const MAX_LEN: usize = 300_000;
/// Most pixels of an image.
const MAX_PIXELS: usize = 300_000;
/// Random ops at most after a chain's template.
const MAX_EXTRA_OPS: usize = 3;
/// The long chain's ops: from this to twice as many.
const LONG_OPS: usize = 500;

/// Lengths around the boundaries of workgroups, vectors, tiles and size
/// classes.
const EDGE_LENGTHS: [usize; 51] = [
    1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511,
    512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097, 8191, 8192, 8193, 16383, 16384,
    16385, 65535, 65536, 65537, 131071, 131072, 131073, 262143, 262144, 262145, 299_993,
];

/// Words that junk memory is filled with: all ones (a NaN, and a u32 past
/// every bin), 1 (a u32 in bin 1, a denormal), bytes of 1 (u8 pixels in bin
/// 1), the quiet NaN, 1.0 and 2^24 as f32.
const JUNK: [u32; 6] = [
    0xFFFF_FFFF,
    0x0000_0001,
    0x0101_0101,
    0x7FC0_0000,
    0x3F80_0000,
    0x4B80_0000,
];

// ---------------------------------------------------------------------------
// Seeds and the generator

/// A small deterministic generator (splitmix64).
struct Rng(u64);

impl Rng {
    /// The generator of case `case` of `seed`.
    fn new(seed: u64, case: u64) -> Rng {
        let mut rng = Rng(seed
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(case.wrapping_mul(0xD1B5_4A32_D192_ED03))
            ^ 0x5EED_C4A1);
        rng.next();
        rng
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (`n >= 1`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// A value in `lo..=hi`.
    fn between(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }

    /// True `percent` times in a hundred.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// `ROSETTA_CHAIN_SEEDS`: a comma-separated list of seeds and ranges
/// (`a..b`, `a..=b`), or one number, a count of seeds from 0.
fn parse_seeds(text: &str) -> Result<Vec<u64>, String> {
    let text = text.trim();
    let number = |s: &str| {
        s.trim()
            .parse::<u64>()
            .map_err(|e| format!("ROSETTA_CHAIN_SEEDS: '{s}': {e}"))
    };
    if !text.contains([',', '.']) {
        let count = number(text)?;
        if count == 0 {
            return Err("ROSETTA_CHAIN_SEEDS=0 names no seed".into());
        }
        return Ok((0..count).collect());
    }
    let mut seeds = Vec::new();
    for item in text.split(',').filter(|s| !s.trim().is_empty()) {
        if let Some((a, b)) = item.split_once("..=") {
            seeds.extend(number(a)?..=number(b)?);
        } else if let Some((a, b)) = item.split_once("..") {
            seeds.extend(number(a)?..number(b)?);
        } else {
            seeds.push(number(item)?);
        }
    }
    if seeds.is_empty() {
        return Err(format!("ROSETTA_CHAIN_SEEDS='{text}' names no seed"));
    }
    Ok(seeds)
}

fn seeds() -> Vec<u64> {
    match std::env::var("ROSETTA_CHAIN_SEEDS") {
        Ok(text) => parse_seeds(&text).unwrap_or_else(|e| panic!("{e}")),
        Err(_) => DEFAULT_SEEDS.to_vec(),
    }
}

fn is_prime(n: usize) -> bool {
    n >= 2
        && (2..)
            .take_while(|d| d * d <= n)
            .all(|d| !n.is_multiple_of(d))
}

/// A length in `1..=max`: a boundary, a prime, one near `max`, or any.
fn length(rng: &mut Rng, max: usize) -> usize {
    let max = max.max(1);
    match rng.below(8) {
        0..=3 => {
            let fits: Vec<usize> = EDGE_LENGTHS.into_iter().filter(|&e| e <= max).collect();
            rng.pick(&fits)
        }
        4 | 5 => {
            let start = 1 + rng.below(max);
            (start..=max)
                .find(|&n| is_prime(n))
                .or_else(|| (1..start).rev().find(|&n| is_prime(n)))
                .unwrap_or(1)
        }
        6 => max - rng.below(max.min(4)),
        _ => 1 + rng.below(max),
    }
}

/// Now and then a length past 2^20 (a scan of three levels), else
/// [`length`].
fn huge_or(rng: &mut Rng, max: usize) -> usize {
    if rng.chance(8) {
        rng.pick(&[1 << 20, (1 << 20) + 1, (1 << 22) + 3])
    } else {
        length(rng, max)
    }
}

/// An odd filter extent up to `max` (odd, >= 1): mostly small.
fn odd_extent(rng: &mut Rng, small: usize, max: usize) -> usize {
    let top = if rng.chance(75) { small.min(max) } else { max };
    2 * rng.below(top.div_ceil(2)) + 1
}

/// A matrix extent in `1..=300`: a boundary, a prime or any.
fn matrix_extent(rng: &mut Rng) -> usize {
    match rng.below(3) {
        0 => rng.pick(&[
            1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256,
            257,
        ]),
        1 => length(rng, 300),
        _ => 1 + rng.below(300),
    }
}

/// A divisor pair `(rows, cols)` of `len`, each at most `most` where one
/// exists (else `(1, len)` or `(len, 1)`).
fn split(rng: &mut Rng, len: usize, most: usize) -> (usize, usize) {
    let pairs: Vec<(usize, usize)> = (1..)
        .take_while(|d| d * d <= len)
        .filter(|&d| len.is_multiple_of(d))
        .flat_map(|d| [(d, len / d), (len / d, d)])
        .collect();
    let fitting: Vec<_> = pairs
        .iter()
        .copied()
        .filter(|&(r, c)| r <= most && c <= most)
        .collect();
    rng.pick(if fitting.is_empty() { &pairs } else { &fitting })
}

// ---------------------------------------------------------------------------
// Host values and references

/// What the host expects a buffer to hold; f32 values as the exact integers
/// they are.
#[derive(Clone, Debug)]
enum Host {
    U8(Vec<u8>),
    U32(Vec<u32>),
    I32(Vec<i32>),
    F32(Vec<i64>),
}

impl Host {
    fn len(&self) -> usize {
        match self {
            Host::U8(v) => v.len(),
            Host::U32(v) => v.len(),
            Host::I32(v) => v.len(),
            Host::F32(v) => v.len(),
        }
    }

    /// 32-bit words the values fill (u8: four to a word).
    fn words(&self) -> usize {
        match self {
            Host::U8(v) => v.len().div_ceil(4),
            other => other.len(),
        }
    }

    fn elem(&self) -> &'static str {
        match self {
            Host::U8(_) => "u8",
            Host::U32(_) => "u32",
            Host::I32(_) => "i32",
            Host::F32(_) => "f32",
        }
    }

    /// The values as i64 (for magnitudes and images).
    fn wide(&self) -> Vec<i64> {
        match self {
            Host::U8(v) => v.iter().map(|&x| i64::from(x)).collect(),
            Host::U32(v) => v.iter().map(|&x| i64::from(x)).collect(),
            Host::I32(v) => v.iter().map(|&x| i64::from(x)).collect(),
            Host::F32(v) => v.clone(),
        }
    }

    fn max_abs(&self) -> i64 {
        self.wide().iter().map(|v| v.abs()).max().unwrap_or(0)
    }

    fn sum_abs(&self) -> i64 {
        self.wide().iter().map(|v| v.abs()).sum()
    }
}

/// Assert that an f32 result whose sums reach `bound` (Σ|terms|) is exact.
fn exact(what: &str, bound: i64) {
    assert!(
        bound <= EXACT_LIMIT,
        "test bug: {what} sums |terms| up to {bound}, past 2^24: its f32 result would not be exact"
    );
}

fn to_f32(values: &[i64]) -> Vec<f32> {
    values
        .iter()
        .map(|&v| {
            assert!(v.abs() <= EXACT_LIMIT, "test bug: {v} is not exact in f32");
            v as f32
        })
        .collect()
}

fn reduce_ref(x: &Host, op: ReduceOp) -> Host {
    fn pick<T: Copy + Ord>(v: &[T], op: ReduceOp, sum: impl Fn(&[T]) -> T) -> Vec<T> {
        vec![match op {
            ReduceOp::Sum => sum(v),
            ReduceOp::Min => *v.iter().min().expect("min of something"),
            ReduceOp::Max => *v.iter().max().expect("max of something"),
        }]
    }
    match x {
        Host::U32(v) => Host::U32(pick(v, op, |v| v.iter().fold(0, |a, &b| a.wrapping_add(b)))),
        Host::I32(v) => Host::I32(pick(v, op, |v| v.iter().fold(0, |a, &b| a.wrapping_add(b)))),
        Host::F32(v) => {
            if op == ReduceOp::Sum {
                exact("reduce sum", x.sum_abs());
            }
            Host::F32(pick(v, op, |v| v.iter().sum()))
        }
        Host::U8(_) => unreachable!("reduce takes no u8"),
    }
}

fn scan_ref(x: &Host) -> Host {
    fn prefix<T: Copy>(v: &[T], zero: T, add: impl Fn(T, T) -> T) -> Vec<T> {
        v.iter()
            .scan(zero, |acc, &x| {
                *acc = add(*acc, x);
                Some(*acc)
            })
            .collect()
    }
    match x {
        Host::U32(v) => Host::U32(prefix(v, 0, u32::wrapping_add)),
        Host::I32(v) => Host::I32(prefix(v, 0, i32::wrapping_add)),
        Host::F32(v) => {
            // A scan may add any subset of the values (block sums).
            exact("scan", x.sum_abs());
            Host::F32(prefix(v, 0, |a, b| a + b))
        }
        Host::U8(_) => unreachable!("scan takes no u8"),
    }
}

/// Value `v` in bin `v`; values `>= bins` are not counted.
fn histogram_ref(x: &Host, bins: u32) -> Host {
    let mut counts = vec![0u32; bins as usize];
    for v in x.wide() {
        if let Some(c) = usize::try_from(v).ok().and_then(|v| counts.get_mut(v)) {
            *c += 1;
        }
    }
    Host::U32(counts)
}

/// An f32 histogram range whose edges are exact: `lo = lo_units / 2^shift`,
/// bin width `step_units / 2^shift`.
#[derive(Clone, Copy, Debug)]
struct Range {
    bins: u32,
    lo_units: i64,
    step_units: i64,
    shift: u32,
    /// Pass `lo == hi` (the centre) and let the library widen it by ±0.5.
    widened: bool,
}

impl Range {
    fn hi_units(&self) -> i64 {
        self.lo_units + i64::from(self.bins) * self.step_units
    }

    /// The `(lo, hi)` passed to `histogram_range`.
    fn args(&self) -> (f64, f64) {
        let scale = f64::from(1u32 << self.shift);
        if self.widened {
            let centre = (self.lo_units as f64 + self.hi_units() as f64) / 2.0 / scale;
            (centre, centre)
        } else {
            (self.lo_units as f64 / scale, self.hi_units() as f64 / scale)
        }
    }
}

/// numpy.histogram over exact edges: `x` counts if `lo <= x <= hi`, in the
/// last bin whose edge is `<= x`.
fn histogram_range_ref(x: &Host, r: &Range) -> Host {
    let mut counts = vec![0u32; r.bins as usize];
    let (lo, hi) = (r.lo_units, r.hi_units());
    for v in x.wide() {
        let v = v << r.shift;
        if lo <= v && v <= hi {
            let bin = ((v - lo) / r.step_units).min(i64::from(r.bins) - 1);
            counts[bin as usize] += 1;
        }
    }
    Host::U32(counts)
}

fn conv1d_ref(x: &[i64], taps: &[i64]) -> Host {
    let radius = taps.len() / 2;
    let mut bound = 0;
    let out = (0..x.len())
        .map(|i| {
            let (mut sum, mut abs) = (0i64, 0i64);
            for (j, &w) in taps.iter().enumerate() {
                if let Some(&v) = (i + j).checked_sub(radius).and_then(|p| x.get(p)) {
                    sum += v * w;
                    abs += (v * w).abs();
                }
            }
            bound = bound.max(abs);
            sum
        })
        .collect();
    exact("conv1d", bound);
    Host::F32(out)
}

fn conv2d_ref(img: &[i64], filter: &[i64], spec: &Conv2dSpec) -> Host {
    let (h, w, kh, kw) = (spec.height, spec.width, spec.kh, spec.kw);
    let mut bound = 0;
    let mut out = Vec::with_capacity(h * w);
    for y in 0..h {
        for x in 0..w {
            let (mut sum, mut abs) = (0i64, 0i64);
            for i in 0..kh {
                for j in 0..kw {
                    let (py, px) = (
                        (y + i) as i64 - (kh / 2) as i64,
                        (x + j) as i64 - (kw / 2) as i64,
                    );
                    let pixel = match spec.border {
                        Border::Zero => {
                            if py < 0 || px < 0 || py >= h as i64 || px >= w as i64 {
                                continue;
                            }
                            img[py as usize * w + px as usize]
                        }
                        Border::Clamp => {
                            let py = py.clamp(0, h as i64 - 1) as usize;
                            let px = px.clamp(0, w as i64 - 1) as usize;
                            img[py * w + px]
                        }
                    };
                    let term = pixel * filter[i * kw + j];
                    sum += term;
                    abs += term.abs();
                }
            }
            bound = bound.max(abs);
            out.push(sum);
        }
    }
    exact("conv2d", bound);
    Host::F32(out)
}

fn matmul_ref(a: &[i64], b: &[i64], spec: &MatmulSpec) -> Host {
    let (m, k, n) = (spec.m, spec.k, spec.n);
    let mut bound = 0;
    let mut out = vec![0i64; m * n];
    let mut abs = vec![0i64; m * n];
    for i in 0..m {
        for p in 0..k {
            let av = a[i * k + p];
            for j in 0..n {
                let term = av * b[p * n + j];
                out[i * n + j] += term;
                abs[i * n + j] += term.abs();
            }
        }
    }
    for v in abs {
        bound = bound.max(v);
    }
    exact("matmul", bound);
    Host::F32(out)
}

// ---------------------------------------------------------------------------
// Chains

/// How an input buffer is made.
#[derive(Clone, Copy, Debug)]
enum Make {
    /// `Device::upload`.
    Upload,
    /// `Device::zeros`, then `DeviceBuffer::write`.
    ZerosThenWrite,
    /// A raw buffer of `extra` more values, filled with the junk word, the
    /// data written over its start, wrapped by `DeviceBuffer::from_raw`.
    JunkTail { extra: usize, junk: u32 },
    /// Uploaded, copied with `try_clone`, the original dropped.
    Cloned,
    /// `Device::zeros` alone (the data are zeros).
    Zeros,
}

#[derive(Clone, Debug)]
enum Op {
    /// A new input (the value before it is dropped or held).
    Input {
        data: Host,
        make: Make,
        shape: Option<(usize, usize)>,
    },
    Reduce(ReduceOp),
    Scan,
    /// u32 or u8 values.
    Histogram(u32),
    HistogramRange(Range),
    Conv1d(Vec<i64>),
    Conv2d {
        spec: Conv2dSpec,
        filter: Vec<i64>,
    },
    /// The value is A; `b` is uploaded.
    MatmulA {
        spec: MatmulSpec,
        b: Vec<i64>,
    },
    /// The value is B; `a` is uploaded.
    MatmulB {
        spec: MatmulSpec,
        a: Vec<i64>,
    },
    /// `try_clone`.
    Clone,
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::Input { data, make, shape } => {
                let shape = match shape {
                    Some((r, c)) => format!("{r}x{c}"),
                    None => data.len().to_string(),
                };
                let how = match make {
                    Make::Upload => "upload".to_string(),
                    Make::ZerosThenWrite => "zeros+write".to_string(),
                    Make::JunkTail { extra, junk } => {
                        format!("from_raw (+{extra} junk {junk:#010x})")
                    }
                    Make::Cloned => "upload+try_clone".to_string(),
                    Make::Zeros => "zeros".to_string(),
                };
                write!(f, "{how} {}[{shape}]", data.elem())
            }
            Op::Reduce(op) => write!(f, "reduce {}", op.name()),
            Op::Scan => write!(f, "scan"),
            Op::Histogram(bins) => write!(f, "histogram({bins} bins)"),
            Op::HistogramRange(r) => {
                let (lo, hi) = r.args();
                write!(f, "histogram_range({} bins, ({lo}, {hi}))", r.bins)
            }
            Op::Conv1d(taps) => write!(f, "conv1d({} taps)", taps.len()),
            Op::Conv2d { spec, .. } => write!(
                f,
                "conv2d({}x{} image, {}x{} filter, {:?})",
                spec.height, spec.width, spec.kh, spec.kw, spec.border
            ),
            Op::MatmulA { spec, .. } => write!(
                f,
                "matmul(it as A {}x{}, B {}x{})",
                spec.m, spec.k, spec.k, spec.n
            ),
            Op::MatmulB { spec, .. } => write!(
                f,
                "matmul(A {}x{}, it as B {}x{})",
                spec.m, spec.k, spec.k, spec.n
            ),
            Op::Clone => write!(f, "try_clone"),
        }
    }
}

struct Step {
    op: Op,
    /// Junk buffers (u32 words: length, pattern) uploaded and dropped just
    /// before the op; the first has the op's output size, so the pool hands
    /// its memory to the output (or to the plan's scratch).
    junk: Vec<(usize, u32)>,
    /// Keep the value this step replaces until the chain ends (else drop it
    /// right after the op).
    hold: bool,
    /// Right after the op is enqueued, overwrite its input with junk
    /// (`DeviceBuffer::write`): the op must still see the old values.
    clobber: bool,
    /// Right after the op's input is dropped, upload junk of its size and
    /// drop that too: the pool hands the input's memory over (zeroed, then
    /// written) while the op may still be queued.
    reuse: bool,
    /// Download the result and compare it (always at the last step).
    check: bool,
    expected: Host,
}

struct Chain {
    name: &'static str,
    steps: Vec<Step>,
}

impl Chain {
    /// The steps, runs of one op written once with a count.
    fn describe(&self) -> String {
        let steps = self.steps.iter().map(|s| {
            let junk = if s.junk.is_empty() {
                String::new()
            } else {
                let lens: Vec<String> = s.junk.iter().map(|(l, _)| l.to_string()).collect();
                format!("[junk {} dropped] ", lens.join("/"))
            };
            let mut after = String::new();
            if s.clobber {
                after.push_str(" [input overwritten]");
            }
            if s.hold {
                after.push_str(" [input held]");
            } else if s.reuse {
                after.push_str(" [input dropped, its memory reused]");
            }
            format!("{junk}{}{after}", s.op)
        });
        let mut runs: Vec<(String, usize)> = Vec::new();
        for step in steps {
            match runs.last_mut() {
                Some((last, count)) if *last == step => *count += 1,
                _ => runs.push((step, 1)),
            }
        }
        runs.into_iter()
            .map(|(step, count)| match count {
                1 => step,
                n => format!("{step} ×{n}"),
            })
            .collect::<Vec<_>>()
            .join(" → ")
    }
}

/// The generator's view of the current value.
#[derive(Clone)]
struct Cur {
    host: Host,
    /// Rows × columns where the value is an image or matrix.
    shape: Option<(usize, usize)>,
}

/// What kind of op to build next.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Reduce(Option<ReduceOp>),
    Scan,
    Histogram,
    Conv1d,
    Conv2d,
    Matmul,
    /// The transposed shape of the matrix the value is.
    MatmulTransposed,
    Clone,
    Restart,
}

fn small_i64(rng: &mut Rng, n: usize, bound: i64) -> Vec<i64> {
    (0..n).map(|_| rng.between(-bound, bound)).collect()
}

fn make(rng: &mut Rng) -> Make {
    match rng.below(6) {
        0 => Make::ZerosThenWrite,
        1 | 2 => Make::JunkTail {
            extra: rng.pick(&[1, 2, 3, 4, 5, 7, 13, 100, 1000]),
            junk: rng.pick(&JUNK),
        },
        3 => Make::Cloned,
        _ => Make::Upload,
    }
}

/// A fresh random input of any type.
fn random_input(rng: &mut Rng) -> Cur {
    let len = if rng.chance(3) {
        0
    } else {
        length(rng, MAX_LEN)
    };
    match rng.below(4) {
        0 => image_u8(rng),
        1 => Cur {
            host: {
                let bins = 1 + rng.below(5000) as u32;
                Host::U32(words_u32(rng, len, bins))
            },
            shape: None,
        },
        2 => Cur {
            host: Host::I32((0..len).map(|_| rng.between(-1000, 1000) as i32).collect()),
            shape: None,
        },
        _ => {
            let bound = rng.pick(&[1, 3, 8, 50]);
            Cur {
                host: Host::F32(small_i64(rng, len, bound)),
                shape: None,
            }
        }
    }
}

/// u32 values: mostly below `bins` and a little past it, some far past
/// (words near 2^32 too), or all in one bin.
fn words_u32(rng: &mut Rng, len: usize, bins: u32) -> Vec<u32> {
    if rng.chance(10) {
        return vec![bins / 3; len];
    }
    let top = u64::from(bins) + u64::from(bins / 4) + 2;
    let wide = rng.chance(20);
    (0..len)
        .map(|_| {
            if wide && rng.chance(30) {
                rng.pick(&[u32::MAX, u32::MAX - 1, 1 << 31, bins, bins + 1])
            } else {
                (rng.next() % top) as u32
            }
        })
        .collect()
}

fn image_u8(rng: &mut Rng) -> Cur {
    let (h, w) = image_shape(rng);
    let top = rng.pick(&[2u64, 16, 200, 256]);
    let pixels = (0..h * w).map(|_| (rng.next() % top) as u8).collect();
    Cur {
        host: Host::U8(pixels),
        shape: Some((h, w)),
    }
}

fn image_shape(rng: &mut Rng) -> (usize, usize) {
    let h = length(rng, 1100);
    let w = length(rng, (MAX_PIXELS / h).clamp(1, 1100));
    if rng.chance(50) {
        (h, w)
    } else {
        (w, h)
    }
}

fn image_f32(rng: &mut Rng) -> Cur {
    let (h, w) = image_shape(rng);
    let bound = rng.pick(&[1, 4, 20]);
    Cur {
        host: Host::F32(small_i64(rng, h * w, bound)),
        shape: Some((h, w)),
    }
}

/// Filter values in `[-w, w]` with `w` the largest (at most 4) that keeps
/// `max|x| · taps · w` within the budget, or None.
fn weight_bound(rng: &mut Rng, max_abs: i64, taps: usize) -> Option<i64> {
    let w = (BUDGET / (max_abs.max(1) * taps as i64)).min(rng.pick(&[1, 2, 4]));
    (w >= 1).then_some(w)
}

/// Build an op of `kind` on `cur`, or None where it does not apply (type,
/// exactness budget, work).
fn build(rng: &mut Rng, kind: Kind, cur: &Cur) -> Option<(Op, Cur)> {
    let host = &cur.host;
    let len = host.len();
    let one = |host: Host| Cur { host, shape: None };
    match kind {
        Kind::Restart => {
            let mut next = random_input(rng);
            let make = if rng.chance(15) {
                // Zeros, just as `Device::zeros` must give them in memory
                // that the junk before this step may have held.
                next.host = match next.host {
                    Host::U8(v) => Host::U8(vec![0; v.len()]),
                    Host::U32(v) => Host::U32(vec![0; v.len()]),
                    Host::I32(v) => Host::I32(vec![0; v.len()]),
                    Host::F32(v) => Host::F32(vec![0; v.len()]),
                };
                Make::Zeros
            } else {
                make(rng)
            };
            let op = Op::Input {
                data: next.host.clone(),
                make,
                shape: next.shape,
            };
            Some((op, next))
        }
        Kind::Clone => Some((Op::Clone, cur.clone())),
        Kind::Reduce(op) => {
            if matches!(host, Host::U8(_)) {
                return None;
            }
            let op = op.unwrap_or_else(|| rng.pick(&ReduceOp::ALL));
            if len == 0 && op != ReduceOp::Sum {
                return None;
            }
            if op == ReduceOp::Sum && matches!(host, Host::F32(_)) && host.sum_abs() > BUDGET {
                return None;
            }
            Some((Op::Reduce(op), one(reduce_ref(host, op))))
        }
        Kind::Scan => {
            if matches!(host, Host::U8(_))
                || matches!(host, Host::F32(_)) && host.sum_abs() > BUDGET
            {
                return None;
            }
            Some((Op::Scan, one(scan_ref(host))))
        }
        Kind::Histogram => match host {
            Host::U8(_) => {
                let bins = if rng.chance(50) {
                    rng.pick(&[1, 2, 15, 16, 17, 127, 128, 129, 200, 255, 256])
                } else {
                    1 + rng.below(256) as u32
                };
                Some((Op::Histogram(bins), one(histogram_ref(host, bins))))
            }
            Host::U32(v) => {
                let top = v.iter().copied().max().unwrap_or(0).min(5000);
                let bins = match rng.below(40) {
                    // Past the shared memory of some devices.
                    0 => rng.pick(&[8191, 8192, 8193, 16383, 16384, 16385, 20000, 65536]),
                    1..=13 => (i64::from(top) + rng.between(-2, 2)).clamp(1, 5000) as u32,
                    14..=26 => rng.pick(&[1, 2, 255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097]),
                    _ => 1 + rng.below(5000) as u32,
                };
                Some((Op::Histogram(bins), one(histogram_ref(host, bins))))
            }
            Host::F32(v) => {
                let range = f32_range(rng, v)?;
                Some((
                    Op::HistogramRange(range),
                    one(histogram_range_ref(host, &range)),
                ))
            }
            Host::I32(_) => None,
        },
        Kind::Conv1d => {
            let Host::F32(x) = host else { return None };
            let most = (WORK / len.max(1)).max(1);
            let mut taps = match rng.below(10) {
                0..=5 => odd_extent(rng, 9, 33),
                6..=8 => 2 * rng.between(17, 150) as usize + 1,
                _ => rng.pick(&[4081, 4095, 4097, 5001]),
            };
            if taps > most {
                taps = (most - 1) | 1;
            }
            let w = match weight_bound(rng, host.max_abs(), taps) {
                Some(w) => w,
                None => {
                    taps = 1;
                    weight_bound(rng, host.max_abs(), 1)?
                }
            };
            let filter = small_i64(rng, taps, w);
            let out = conv1d_ref(x, &filter);
            Some((Op::Conv1d(filter), one(out)))
        }
        Kind::Conv2d => {
            if !matches!(host, Host::U8(_) | Host::F32(_)) || len == 0 {
                return None;
            }
            let (height, width) = match cur.shape {
                Some(s) if rng.chance(80) => s,
                _ => split(rng, len, 2048),
            };
            let most = WORK / len;
            if most == 0 {
                return None;
            }
            let (mut kh, mut kw) = match rng.below(10) {
                0..=5 => (odd_extent(rng, 5, 9), odd_extent(rng, 5, 9)),
                6 | 7 => (odd_extent(rng, 3, 17), odd_extent(rng, 19, 31)),
                8 => (odd_extent(rng, 31, 31), odd_extent(rng, 9, 41)),
                _ => (rng.pick(&[91, 101, 131]), rng.pick(&[91, 99, 131])),
            };
            while kh * kw > most {
                if kh >= kw {
                    kh = (kh / 2) | 1;
                } else {
                    kw = (kw / 2) | 1;
                }
                if kh == 1 && kw == 1 {
                    break;
                }
            }
            let w = weight_bound(rng, host.max_abs(), kh * kw)?;
            let filter = small_i64(rng, kh * kw, w);
            let spec = Conv2dSpec {
                height,
                width,
                kh,
                kw,
                border: rng.pick(&Border::ALL),
            };
            let out = conv2d_ref(&host.wide(), &filter, &spec);
            Some((
                Op::Conv2d { spec, filter },
                Cur {
                    host: out,
                    shape: Some((height, width)),
                },
            ))
        }
        Kind::Matmul | Kind::MatmulTransposed => {
            let Host::F32(x) = host else { return None };
            if len == 0 {
                return None;
            }
            let (rows, cols) = match (kind, cur.shape) {
                (Kind::MatmulTransposed, Some((r, c))) => (c, r),
                (_, Some(s)) if rng.chance(60) => s,
                _ => split(rng, len, 300),
            };
            let other = matrix_extent(rng).min((WORK / len).max(1));
            let max_abs = host.max_abs().max(1);
            if rng.chance(70) {
                // The value is A (rows × cols); B is cols × other.
                let spec = MatmulSpec {
                    m: rows,
                    k: cols,
                    n: other,
                };
                let w = weight_bound(rng, max_abs, cols)?;
                let b = small_i64(rng, cols * other, w);
                let out = matmul_ref(x, &b, &spec);
                Some((
                    Op::MatmulA { spec, b },
                    Cur {
                        host: out,
                        shape: Some((rows, other)),
                    },
                ))
            } else {
                // The value is B (rows × cols); A is other × rows.
                let spec = MatmulSpec {
                    m: other,
                    k: rows,
                    n: cols,
                };
                let w = weight_bound(rng, max_abs, rows)?;
                let a = small_i64(rng, other * rows, w);
                let out = matmul_ref(&a, x, &spec);
                Some((
                    Op::MatmulB { spec, a },
                    Cur {
                        host: out,
                        shape: Some((other, cols)),
                    },
                ))
            }
        }
    }
}

/// An f32 range over (or partly over) the values, with exact edges.
fn f32_range(rng: &mut Rng, values: &[i64]) -> Option<Range> {
    let bins = if rng.chance(40) {
        rng.pick(&[1, 2, 3, 7, 255, 256, 257, 1000, 1024, 4096])
    } else {
        1 + rng.below(4000) as u32
    };
    let lo = values.iter().copied().min().unwrap_or(0);
    let hi = values.iter().copied().max().unwrap_or(0);
    let small = lo.abs().max(hi.abs()) < 1 << 16;
    if small && rng.chance(15) {
        // lo == hi, widened by ±0.5: widths of 1/bins for bins a power of two.
        let bins = 1u32 << rng.below(7);
        let centre = values.get(rng.below(values.len())).copied().unwrap_or(0);
        return Some(Range {
            bins,
            lo_units: (centre << 7) - 64,
            step_units: 128 / i64::from(bins),
            shift: 7,
            widened: true,
        });
    }
    let shift = if small { rng.pick(&[0, 0, 1, 2, 6]) } else { 0 };
    let (lo, hi) = (lo << shift, hi << shift);
    let span = hi - lo;
    let lo_units = lo + rng.between(-(span / 8) - 2, span / 4);
    let target = hi + rng.between(-(span / 4), span / 8 + 2);
    let step_units = ((target - lo_units) / i64::from(bins)).max(1);
    let range = Range {
        bins,
        lo_units,
        step_units,
        shift,
        widened: false,
    };
    // Edges exact in f32: integers (in units) of at most 2^24.
    (lo_units.abs() <= EXACT_LIMIT && range.hi_units().abs() <= EXACT_LIMIT).then_some(range)
}

/// The chains' templates (each continued by random ops).
const TEMPLATES: [&str; 8] = [
    "u8 image",
    "f32 signal",
    "matrices",
    "f32 image",
    "u32 values",
    "i32 values",
    "random",
    "long",
];

/// Chain `case` of `seed`: its template (or a prefix of it), with random
/// shapes and params, then random ops (at least two ops in all; the long
/// chain's [`LONG_OPS`] to twice as many), each with its expected value.
/// Depends only on the seed and case, never on the device.
fn chain(seed: u64, case: usize) -> Chain {
    let rng = &mut Rng::new(seed, case as u64);
    let name = TEMPLATES[case % TEMPLATES.len()];
    let (start, template): (Cur, Vec<Kind>) = match name {
        "u8 image" => {
            let kinds = if rng.chance(60) {
                vec![
                    Kind::Histogram,
                    Kind::Scan,
                    Kind::Reduce(Some(ReduceOp::Max)),
                ]
            } else {
                vec![Kind::Conv2d, Kind::Reduce(None)]
            };
            (image_u8(rng), kinds)
        }
        "f32 signal" => {
            let n = length(rng, MAX_LEN);
            let bound = rng.pick(&[1, 4, 8]);
            (
                Cur {
                    host: Host::F32(small_i64(rng, n, bound)),
                    shape: None,
                },
                vec![
                    Kind::Conv1d,
                    Kind::Conv1d,
                    Kind::Reduce(Some(ReduceOp::Sum)),
                ],
            )
        }
        "matrices" => {
            let (m, k) = (matrix_extent(rng), matrix_extent(rng));
            (
                Cur {
                    host: {
                        let bound = rng.pick(&[1, 3, 8]);
                        Host::F32(small_i64(rng, m * k, bound))
                    },
                    shape: Some((m, k)),
                },
                vec![Kind::Matmul, Kind::MatmulTransposed, Kind::Scan],
            )
        }
        "f32 image" => (image_f32(rng), vec![Kind::Conv2d, Kind::Reduce(None)]),
        "u32 values" => {
            let n = huge_or(rng, MAX_LEN);
            let bins = 1 + rng.below(5000) as u32;
            (
                Cur {
                    host: Host::U32(words_u32(rng, n, bins)),
                    shape: None,
                },
                vec![Kind::Histogram, Kind::Scan, Kind::Reduce(None)],
            )
        }
        "i32 values" => {
            let n = huge_or(rng, MAX_LEN);
            let bound = rng.pick(&[1, 1000, 1 << 20]);
            (
                Cur {
                    host: Host::I32((0..n).map(|_| rng.between(-bound, bound) as i32).collect()),
                    shape: None,
                },
                vec![Kind::Scan, Kind::Scan, Kind::Reduce(None)],
            )
        }
        "long" => {
            // Hundreds of ops with nothing from the host in between: more
            // launches than one batch of a driver holds.
            let n = length(rng, 5000);
            let host = if rng.chance(50) {
                Host::U32(words_u32(rng, n, 1000))
            } else {
                Host::I32((0..n).map(|_| rng.between(-1000, 1000) as i32).collect())
            };
            (Cur { host, shape: None }, Vec::new())
        }
        _ => (random_input(rng), Vec::new()),
    };
    let long = name == "long";
    // Most chains run the whole template; some stop early.
    let keep = if template.is_empty() || rng.chance(75) {
        template.len()
    } else {
        1 + rng.below(template.len())
    };
    // Then random ops: at least two in all, more for the random chain.
    let extra = if long {
        LONG_OPS + rng.below(LONG_OPS + 1)
    } else if template.is_empty() {
        2 + rng.below(MAX_EXTRA_OPS + 1)
    } else {
        rng.below(MAX_EXTRA_OPS + 1)
            .max(2usize.saturating_sub(keep))
    };

    let mut steps = vec![Step {
        op: Op::Input {
            data: start.host.clone(),
            make: make(rng),
            shape: start.shape,
        },
        junk: Vec::new(),
        hold: false,
        clobber: false,
        reuse: false,
        check: rng.chance(20),
        expected: start.host.clone(),
    }];
    let mut cur = start;
    for i in 0..keep + extra {
        let built = match template.get(i) {
            Some(&kind) if i < keep => build(rng, kind, &cur),
            _ => None,
        };
        // A template op that does not apply, and every extra op: random.
        let built = built.or_else(|| {
            (0..20).find_map(|_| {
                let kind = if long {
                    rng.pick(&[Kind::Scan, Kind::Scan, Kind::Scan, Kind::Clone])
                } else {
                    rng.pick(&[
                        Kind::Reduce(None),
                        Kind::Scan,
                        Kind::Scan,
                        Kind::Histogram,
                        Kind::Histogram,
                        Kind::Conv1d,
                        Kind::Conv2d,
                        Kind::Matmul,
                        Kind::MatmulTransposed,
                        Kind::Clone,
                        Kind::Restart,
                    ])
                };
                build(rng, kind, &cur)
            })
        });
        let Some((op, next)) = built else { break };
        let mut junk = Vec::new();
        if !long && rng.chance(60) {
            junk.push((next.host.words(), rng.pick(&JUNK)));
            for _ in 0..rng.below(3) {
                junk.push((length(rng, MAX_LEN), rng.pick(&JUNK)));
            }
        }
        steps.push(Step {
            op,
            junk,
            hold: rng.chance(if long { 3 } else { 20 }),
            clobber: !long && rng.chance(20),
            reuse: !long && rng.chance(30),
            check: rng.chance(if long { 1 } else { 35 }),
            expected: next.host.clone(),
        });
        cur = next;
    }
    if let Some(last) = steps.last_mut() {
        last.check = true;
    }
    Chain { name, steps }
}

fn chains(seed: u64) -> Vec<Chain> {
    (0..TEMPLATES.len()).map(|case| chain(seed, case)).collect()
}

// ---------------------------------------------------------------------------
// Running a chain on a device

/// A device buffer of any of the element types.
enum Buf {
    U8(DeviceBuffer<u8>),
    U32(DeviceBuffer<u32>),
    I32(DeviceBuffer<i32>),
    F32(DeviceBuffer<f32>),
}

fn make_buffer<T: Element>(
    device: &Device,
    data: &[T],
    how: Make,
) -> rosetta::Result<DeviceBuffer<T>> {
    match how {
        Make::Upload => device.upload(data),
        Make::ZerosThenWrite => {
            let buffer = device.zeros::<T>(data.len())?;
            buffer.write(data)?;
            Ok(buffer)
        }
        Make::JunkTail { extra, junk } => {
            let bytes = (data.len() + extra) * std::mem::size_of::<T>();
            let raw: Buffer = device.backend().alloc(bytes as u64)?;
            raw.write(&vec![junk; raw.capacity() as usize / 4])?;
            raw.write(data)?;
            DeviceBuffer::from_raw(raw, data.len())
        }
        Make::Zeros => device.zeros::<T>(data.len()),
        Make::Cloned => {
            let original = device.upload(data)?;
            original.try_clone()
        }
    }
}

fn input(device: &Device, data: &Host, how: Make) -> rosetta::Result<Buf> {
    Ok(match data {
        Host::U8(v) => Buf::U8(make_buffer(device, v, how)?),
        Host::U32(v) => Buf::U32(make_buffer(device, v, how)?),
        Host::I32(v) => Buf::I32(make_buffer(device, v, how)?),
        Host::F32(v) => Buf::F32(make_buffer(device, &to_f32(v), how)?),
    })
}

impl Buf {
    fn bytes(&self) -> usize {
        match self {
            Buf::U8(b) => b.len(),
            Buf::U32(b) => 4 * b.len(),
            Buf::I32(b) => 4 * b.len(),
            Buf::F32(b) => 4 * b.len(),
        }
    }
}

/// Overwrite every value of `buf` with junk (all bits set: 255, u32::MAX,
/// −1, NaN).
fn clobber(buf: &Buf) -> rosetta::Result<()> {
    match buf {
        Buf::U8(b) => b.write(&vec![u8::MAX; b.len()]),
        Buf::U32(b) => b.write(&vec![u32::MAX; b.len()]),
        Buf::I32(b) => b.write(&vec![-1; b.len()]),
        Buf::F32(b) => b.write(&vec![f32::from_bits(u32::MAX); b.len()]),
    }
}

/// Run `op` on the current value; Err(None) where it does not take it (a
/// test bug).
fn apply(device: &Device, op: &Op, cur: Option<&Buf>) -> Result<Buf, Option<rosetta::Error>> {
    let cur = match (op, cur) {
        (Op::Input { data, make, .. }, _) => return input(device, data, *make).map_err(Some),
        (_, Some(cur)) => cur,
        (_, None) => return Err(None),
    };
    let up = |v: &[i64]| device.upload(&to_f32(v));
    let out = match (op, cur) {
        (Op::Reduce(r), Buf::U32(b)) => b.reduce(*r).map(Buf::U32),
        (Op::Reduce(r), Buf::I32(b)) => b.reduce(*r).map(Buf::I32),
        (Op::Reduce(r), Buf::F32(b)) => b.reduce(*r).map(Buf::F32),
        (Op::Scan, Buf::U32(b)) => b.scan().map(Buf::U32),
        (Op::Scan, Buf::I32(b)) => b.scan().map(Buf::I32),
        (Op::Scan, Buf::F32(b)) => b.scan().map(Buf::F32),
        (Op::Histogram(bins), Buf::U32(b)) => b.histogram(*bins).map(Buf::U32),
        (Op::Histogram(bins), Buf::U8(b)) => b.histogram(*bins).map(Buf::U32),
        (Op::HistogramRange(r), Buf::F32(b)) => b.histogram_range(r.bins, r.args()).map(Buf::U32),
        (Op::Conv1d(taps), Buf::F32(b)) => up(taps).and_then(|t| b.conv1d(&t)).map(Buf::F32),
        (Op::Conv2d { spec, filter }, Buf::F32(b)) => {
            up(filter).and_then(|f| b.conv2d(&f, spec)).map(Buf::F32)
        }
        (Op::Conv2d { spec, filter }, Buf::U8(b)) => {
            up(filter).and_then(|f| b.conv2d(&f, spec)).map(Buf::F32)
        }
        (Op::MatmulA { spec, b }, Buf::F32(a)) => {
            up(b).and_then(|b| a.matmul(&b, spec)).map(Buf::F32)
        }
        (Op::MatmulB { spec, a }, Buf::F32(b)) => {
            up(a).and_then(|a| a.matmul(b, spec)).map(Buf::F32)
        }
        (Op::Clone, Buf::U8(b)) => b.try_clone().map(Buf::U8),
        (Op::Clone, Buf::U32(b)) => b.try_clone().map(Buf::U32),
        (Op::Clone, Buf::I32(b)) => b.try_clone().map(Buf::I32),
        (Op::Clone, Buf::F32(b)) => b.try_clone().map(Buf::F32),
        _ => return Err(None),
    };
    out.map_err(Some)
}

/// The first index where `got` differs from `expected`, with both values.
fn first_difference<T: PartialEq + fmt::Debug>(got: &[T], expected: &[T]) -> Option<String> {
    if got.len() != expected.len() {
        return Some(format!("{} values, expected {}", got.len(), expected.len()));
    }
    let i = got.iter().zip(expected).position(|(g, e)| g != e)?;
    Some(format!(
        "index {i} of {}: got {:?}, expected {:?}",
        got.len(),
        got[i],
        expected[i]
    ))
}

/// Download `buf` and compare it with `expected`: integers exactly, f32 bit
/// for bit except for the sign of a zero (a sum of products that are all
/// ±0 is +0 or −0 by where a kernel starts its sum; no contract fixes it).
fn compare(buf: &Buf, expected: &Host) -> rosetta::Result<Option<String>> {
    Ok(match (buf, expected) {
        (Buf::U8(b), Host::U8(e)) => first_difference(&b.to_vec()?, e),
        (Buf::U32(b), Host::U32(e)) => first_difference(&b.to_vec()?, e),
        (Buf::I32(b), Host::I32(e)) => first_difference(&b.to_vec()?, e),
        (Buf::F32(b), Host::F32(e)) => {
            let got = b.to_vec()?;
            let want = to_f32(e);
            if got.len() != want.len() {
                Some(format!("{} values, expected {}", got.len(), want.len()))
            } else {
                got.iter()
                    .zip(&want)
                    .position(|(g, w)| g.to_bits() != w.to_bits() && !(*g == 0.0 && *w == 0.0))
                    .map(|i| {
                        format!(
                            "index {i} of {}: got {:?} ({:#010x}), expected {:?}",
                            got.len(),
                            got[i],
                            got[i].to_bits(),
                            want[i]
                        )
                    })
            }
        }
        _ => Some(format!("a buffer of another type than {}", expected.elem())),
    })
}

/// Run `chain` on `device`; the first failure, naming everything needed to
/// reproduce it.
fn run_chain(device: &Device, seed: u64, case: usize, chain: &Chain) -> Result<(), String> {
    let id = device.info().id();
    let fail = |step: usize, what: String| {
        format!(
            "{id}: seed {seed}, chain {case} ({}), step {step} `{}`: {what}\n    chain: {}\n    rerun: ROSETTA_CHAIN_SEEDS={seed}..{}",
            chain.name,
            chain.steps[step].op,
            chain.describe(),
            seed + 1
        )
    };
    let mut cur: Option<Buf> = None;
    let mut held: Vec<Buf> = Vec::new();
    for (i, step) in chain.steps.iter().enumerate() {
        for &(len, word) in &step.junk {
            let junk = device
                .upload(&vec![word; len])
                .map_err(|e| fail(i, format!("uploading junk: {e}")))?;
            drop(junk);
        }
        let next = apply(device, &step.op, cur.as_ref()).map_err(|e| match e {
            Some(e) => fail(i, format!("error: {e}")),
            None => fail(i, "test bug: the op does not take this value".into()),
        })?;
        if let Some(previous) = cur.replace(next) {
            if step.clobber {
                clobber(&previous).map_err(|e| fail(i, format!("overwriting the input: {e}")))?;
            }
            let words = previous.bytes().div_ceil(4);
            if step.hold {
                held.push(previous);
            } else if step.reuse {
                drop(previous);
                let junk = device
                    .upload(&vec![JUNK[i % JUNK.len()]; words])
                    .map_err(|e| fail(i, format!("uploading junk: {e}")))?;
                drop(junk);
            }
        }
        if step.check {
            let buf = cur.as_ref().expect("just set");
            let diff = compare(buf, &step.expected)
                .map_err(|e| fail(i, format!("downloading the result: {e}")))?;
            if let Some(diff) = diff {
                return Err(fail(i, format!("differs from the host at {diff}")));
            }
        }
    }
    drop(held);
    Ok(())
}

#[test]
fn seed_lists_parse() {
    assert_eq!(parse_seeds("3").unwrap(), vec![0, 1, 2]);
    assert_eq!(parse_seeds("3,17, 40").unwrap(), vec![3, 17, 40]);
    assert_eq!(parse_seeds("5..8,1..=2").unwrap(), vec![5, 6, 7, 1, 2]);
    assert_eq!(parse_seeds("9,").unwrap(), vec![9]);
    assert!(parse_seeds("x").is_err());
    assert!(parse_seeds(",").is_err());
    assert!(parse_seeds("0").is_err());
}

/// Every chain of every seed on every device gives the host's values; every
/// device reused pooled memory on the way.
#[test]
fn chains_on_the_device_match_the_host() {
    let devices = common::all_devices();
    let mut time = vec![std::time::Duration::ZERO; devices.len()];
    let mut failures = Vec::new();
    let mut cases = 0;
    for seed in seeds() {
        let chains = std::panic::catch_unwind(|| chains(seed))
            .unwrap_or_else(|_| panic!("making the chains of seed {seed} failed (a test bug)"));
        for (device, time) in devices.iter().zip(&mut time) {
            let start = std::time::Instant::now();
            for (case, chain) in chains.iter().enumerate() {
                let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    run_chain(device, seed, case, chain)
                }));
                let result = run.unwrap_or_else(|panic| {
                    let why = panic
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    Err(format!(
                        "{}: seed {seed}, chain {case} ({}): panicked: {why}\n    chain: {}\n    rerun: ROSETTA_CHAIN_SEEDS={seed}..{}",
                        device.info().id(),
                        chain.name,
                        chain.describe(),
                        seed + 1
                    ))
                });
                if let Err(e) = result {
                    failures.push(e);
                }
                cases += 1;
            }
            *time += start.elapsed();
        }
    }
    for (device, time) in devices.iter().zip(&time) {
        let stats = device.backend().pool_stats();
        eprintln!("{}: {time:.2?}, {stats:?}", device.info().id());
        assert!(
            stats.reused > 0,
            "{}: no allocation came from the pool ({stats:?}): the chains did not reach reused memory",
            device.info().id()
        );
    }
    assert!(
        failures.is_empty(),
        "{} of {cases} chains failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
