// Histogram — WGSL (see mod.rs for the algorithm and interface).
//
// Shared memory: shared_counts, SHARED_BINS atomic words (a workgroup array
// sized by the SHARED_BINS override), the workgroup's private histogram when
// SHARED_BINS == BINS; one unused word on the global-atomics path.
// (`shared` is a reserved word in WGSL.)
// Barriers: after zeroing it, and after counting (before the merge).
// Atomics: atomicAdd on workgroup memory while counting, atomicAdd on the
// global counts when merging (or while counting, on the global path).

override GROUP_SIZE: u32;
override BINS: u32;
override SHARED_BINS: u32; // BINS (privatized) or 1 (global atomics)
override INPUT: u32; // 0 u32, 1 f32

struct Params {
    n: u32,
    lo: f32,
    hi: f32,
    scale: f32,
}

@group(0) @binding(0) var<storage, read> values: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read> edges: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

var<workgroup> shared_counts: array<atomic<u32>, SHARED_BINS>;

// NaN by bits: compilers may fold `x != x`.
fn is_nan(bits: u32) -> bool {
    return (bits & 0x7fffffffu) > 0x7f800000u;
}

// The order-preserving key of an f32's bits (-0 and +0 share one), as in
// reduce.wgsl: comparisons of x with lo, hi and the edges use keys, exact
// also where a device flushes subnormals in float comparisons.
fn ordered_key(bits: u32) -> u32 {
    let b = select(bits, 0u, bits == 0x80000000u);
    return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}

// The f32 binning rule of mod.rs: an f32 first guess, corrected against the
// edges by key. Returns BINS for values that are not counted (outside
// [lo, hi], NaN).
fn float_bin(word: u32) -> u32 {
    let key = ordered_key(word);
    if is_nan(word) || key < ordered_key(bitcast<u32>(params.lo)) || key > ordered_key(bitcast<u32>(params.hi)) {
        return BINS;
    }
    let x = bitcast<f32>(word);
    let guess = max(floor((x - params.lo) * params.scale), 0.0);
    var i = u32(min(guess, f32(BINS - 1u)));
    while i > 0u && key < ordered_key(bitcast<u32>(edges[i])) {
        i -= 1u;
    }
    while i < BINS - 1u && key >= ordered_key(bitcast<u32>(edges[i + 1u])) {
        i += 1u;
    }
    return i;
}

// The bin of one input word, or BINS if it is not counted.
fn bin_of(word: u32) -> u32 {
    if INPUT == 1u {
        return float_bin(word);
    }
    return select(BINS, word, word < BINS);
}

fn count(word: u32) {
    let bin = bin_of(word);
    if bin < BINS {
        if SHARED_BINS == BINS {
            atomicAdd(&shared_counts[bin], 1u);
        } else {
            atomicAdd(&counts[bin], 1u);
        }
    }
}

@compute @workgroup_size(GROUP_SIZE)
fn histogram(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) num_groups: vec3<u32>,
) {
    let privatized = SHARED_BINS == BINS;
    let n = params.n;
    let stride = GROUP_SIZE * num_groups.x; // T: invocations in the grid
    let first = group_id.x * GROUP_SIZE; // t of this group's lid 0
    let t = first + lid;

    // Phase 1 (privatized): zero the shared histogram. — barrier —
    if privatized {
        for (var b = lid; b < BINS; b += GROUP_SIZE) {
            atomicStore(&shared_counts[b], 0u);
        }
        workgroupBarrier();
    }

    // Phase 2: grid-stride over the values, vectors first, then the tail,
    // the first n % 4 words of vector n/4 (the order of a vector's four
    // words does not matter for counting).
    let vectors = n / 4u;
    for (var v = t; v < vectors; v += stride) {
        let x = values[v];
        count(x.x);
        count(x.y);
        count(x.z);
        count(x.w);
    }
    for (var i = t; i < n % 4u; i += stride) {
        count(values[vectors][i]);
    }

    // Phase 3 (privatized, after a barrier): merge non-zero bins into global
    // memory with atomics.
    if privatized {
        workgroupBarrier();
        for (var b = lid; b < BINS; b += GROUP_SIZE) {
            let c = atomicLoad(&shared_counts[b]);
            if c != 0u {
                atomicAdd(&counts[b], c);
            }
        }
    }
}
