// Reduce — CPU workgroup model (see `mod.rs` for the algorithm and interface).
//
// Shared memory: GROUP_SIZE words, the tree's scratch.
// Barriers: after the accumulators are stored, and after each tree level
// (each phase below is one loop over the local index); with LAST_GROUP = 1
// also after the arrival ticket (the flag is a local: one thread runs the
// group) and in the last group's second tree.
// Fences (LAST_GROUP = 1): `device_fence` before the arrival ticket and in
// the last group after it (workgroups run on different threads: real
// release and acquire fences).
// On the CPU: phase 1 keeps each invocation's accumulator as 4 lanes, one
// per vector component, so a row of the grid-stride loop is one elementwise
// combine that vectorises across invocations; four rows are in flight at
// once (four streams of memory).

use rosetta_core::workgroup::{device_fence, Bindings, GlobalWord, Group};

/// One reduction: identity and combine on typed values.
trait Reduction {
    type T: bytemuck::Pod;
    const IDENTITY: Self::T;
    fn combine(a: Self::T, b: Self::T) -> Self::T;
}

struct SumF32;
struct SumU32; // also the i32 sum: wrapping addition of the same bits
struct MinF32;
struct MaxF32;
struct MinI32;
struct MaxI32;
struct MinU32;
struct MaxU32;

impl Reduction for SumF32 {
    type T = f32;
    // −0: x + −0 == x for every x, −0 included (+0 would turn a sum of −0s
    // into +0).
    const IDENTITY: f32 = -0.0;
    fn combine(a: f32, b: f32) -> f32 {
        a + b
    }
}
impl Reduction for SumU32 {
    type T = u32;
    const IDENTITY: u32 = 0;
    fn combine(a: u32, b: u32) -> u32 {
        a.wrapping_add(b)
    }
}
impl Reduction for MinF32 {
    type T = f32;
    const IDENTITY: f32 = f32::INFINITY;
    fn combine(a: f32, b: f32) -> f32 {
        if a.is_nan() || b.is_nan() {
            f32::NAN
        } else if total_key(b.to_bits()) < total_key(a.to_bits()) {
            b
        } else {
            a
        }
    }
}
impl Reduction for MaxF32 {
    type T = f32;
    const IDENTITY: f32 = f32::NEG_INFINITY;
    fn combine(a: f32, b: f32) -> f32 {
        if a.is_nan() || b.is_nan() {
            f32::NAN
        } else if total_key(b.to_bits()) > total_key(a.to_bits()) {
            b
        } else {
            a
        }
    }
}
impl Reduction for MinI32 {
    type T = i32;
    const IDENTITY: i32 = i32::MAX;
    fn combine(a: i32, b: i32) -> i32 {
        a.min(b)
    }
}
impl Reduction for MaxI32 {
    type T = i32;
    const IDENTITY: i32 = i32::MIN;
    fn combine(a: i32, b: i32) -> i32 {
        a.max(b)
    }
}
impl Reduction for MinU32 {
    type T = u32;
    const IDENTITY: u32 = u32::MAX;
    fn combine(a: u32, b: u32) -> u32 {
        a.min(b)
    }
}
impl Reduction for MaxU32 {
    type T = u32;
    const IDENTITY: u32 = 0;
    fn combine(a: u32, b: u32) -> u32 {
        a.max(b)
    }
}

/// The total-order key of an f32's bits, as min and max use it: keys compare
/// as the floats do, with −0 below +0 (IEEE 754's minimum / maximum), so the
/// result's bits do not depend on the order of combining.
fn total_key(bits: u32) -> u32 {
    if bits & 0x8000_0000 != 0 {
        !bits
    } else {
        bits | 0x8000_0000
    }
}

/// The order-preserving integer key of an f32's bits (−0 and +0 share one),
/// as histograms compare values with their edges:
/// `ordered_key(x) < ordered_key(y)` exactly when `x < y`, also where a device
/// would flush subnormals in a float comparison.
pub(crate) fn ordered_key(bits: u32) -> u32 {
    total_key(if bits == 0x8000_0000 { 0 } else { bits })
}

pub(crate) fn reduce(group: &mut Group<'_>, bindings: &Bindings<'_>) {
    let (elem, op) = (group.constants[1], group.constants[2]);
    match (elem, op) {
        (0, 0) => run::<SumF32>(group, bindings),
        (0, 1) => run::<MinF32>(group, bindings),
        (0, 2) => run::<MaxF32>(group, bindings),
        (1, 0) | (2, 0) => run::<SumU32>(group, bindings),
        (1, 1) => run::<MinI32>(group, bindings),
        (1, 2) => run::<MaxI32>(group, bindings),
        (2, 1) => run::<MinU32>(group, bindings),
        (2, 2) => run::<MaxU32>(group, bindings),
        _ => unreachable!("plan passes ELEM < 3 and OP < 3"),
    }
}

fn run<R: Reduction>(group: &mut Group<'_>, bindings: &Bindings<'_>) {
    let n = group.params[0] as usize;
    let input: &[R::T] = bytemuck::cast_slice(bindings.read(0));
    let out = bindings.write(1);
    let value = accumulate::<R>(group, input, n);
    if group.constants[4] == 0 {
        // Last phase: invocation 0 writes the group's value.
        out[group.id[0] as usize].store_u32(bytemuck::cast(value));
        return;
    }

    // Phase 4 (LAST_GROUP = 1): publish the value in scratch[1 + group],
    // fence (release) and take an arrival ticket from scratch[0]; the group
    // with the last ticket is the last to arrive. — barrier —
    let scratch = bindings.write(2);
    let groups = group.count[0] as usize;
    scratch[1 + group.id[0] as usize].store_u32(bytemuck::cast(value));
    device_fence();
    if scratch[0].atomic_add(1) as usize != groups - 1 {
        return;
    }

    // Phase 5 (the last group): fence (acquire), then combine the groups'
    // values in group order (invocation lid takes lid, lid + GROUP_SIZE,
    // ...) with the same tree; write the result and reset the counter for
    // the next launch (every group has taken its ticket). — barriers —
    device_fence();
    let group_size = group.size as usize;
    let mut last = vec![R::IDENTITY; group_size];
    for (g, word) in scratch[1..=groups].iter().enumerate() {
        let lane = &mut last[g % group_size];
        *lane = R::combine(*lane, bytemuck::cast(word.load_u32()));
    }
    let total = group_combine::<R>(group, &last);
    out[0].store_u32(bytemuck::cast(total));
    scratch[0].store_u32(0);
}

/// Phases 1 to 3: the group's value.
fn accumulate<R: Reduction>(group: &mut Group<'_>, input: &[R::T], n: usize) -> R::T {
    let group_size = group.size as usize;
    let stride = group_size * group.count[0] as usize; // T: invocations in the grid
    let first = group.id[0] as usize * group_size; // t of this group's lid 0

    // Phase 1: grid-stride accumulation into private accumulators. Vectors
    // first (4 elements each; unrolled by four rows so that four independent
    // loads are in flight), then the scalar tail. Invocations of one row
    // touch consecutive vectors, as coalesced GPU loads do. Each invocation
    // keeps its accumulator as 4 lanes, one per vector component
    // (`acc4[4·lid + c]`), so a row is one elementwise combine across the
    // group's invocations; the lanes are combined pairwise, as a vector's
    // components are, before the tail (the same values in another order:
    // exact for integers and min / max, within the sum bound for f32).
    let mut acc4 = vec![R::IDENTITY; group_size * 4];
    let vectors = n / 4;
    let mut row = first; // the vector of lid 0
    while row + 3 * stride + group_size <= vectors {
        let [x0, x1, x2, x3]: [&[R::T]; 4] =
            std::array::from_fn(|r| &input[(row + r * stride) * 4..][..group_size * 4]);
        let rows = x0.iter().zip(x1).zip(x2).zip(x3);
        for (a, (((&v0, &v1), &v2), &v3)) in acc4.iter_mut().zip(rows) {
            *a = R::combine(*a, R::combine(R::combine(v0, v1), R::combine(v2, v3)));
        }
        row += 4 * stride;
    }
    while row < vectors {
        let lanes = group_size.min(vectors - row);
        let chunk = &input[row * 4..(row + lanes) * 4];
        for (a, &x) in acc4.iter_mut().zip(chunk) {
            *a = R::combine(*a, x);
        }
        row += stride;
    }
    let mut acc: Vec<R::T> = acc4
        .chunks_exact(4)
        .map(|v| R::combine(R::combine(v[0], v[1]), R::combine(v[2], v[3])))
        .collect();
    let mut i = vectors * 4 + first;
    while i < n {
        let lanes = group_size.min(n - i);
        for (a, &x) in acc.iter_mut().zip(&input[i..i + lanes]) {
            *a = R::combine(*a, x);
        }
        i += stride;
    }

    group_combine::<R>(group, &acc)
}

/// Phases 2 and 3: the invocations' accumulators `acc` combined into one
/// value.
fn group_combine<R: Reduction>(group: &mut Group<'_>, acc: &[R::T]) -> R::T {
    let group_size = group.size as usize;
    // Phase 2: accumulators to shared memory. — barrier —
    let shared: &mut [R::T] = bytemuck::cast_slice_mut(&mut group.shared[..group_size]);
    shared.copy_from_slice(acc);

    // Phase 3..: the shared-memory tree, one phase (and barrier) per level.
    let mut s = group_size / 2;
    while s > 0 {
        for lid in 0..s {
            shared[lid] = R::combine(shared[lid], shared[lid + s]);
        }
        s /= 2;
    }
    shared[0]
}
