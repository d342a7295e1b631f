// Histogram — WGSL (see mod.rs for the algorithm and interface).
//
// Algorithm: privatized (SHARED_BINS == BINS, variant `shared`): each
// workgroup zeroes a shared histogram, counts its grid-stride share of the
// values into it with shared atomics, then adds its non-zero bins to the
// global counts with global atomics. Global atomics (SHARED_BINS == 1,
// variant `global-atomics`): the same loop adds to the global counts
// directly. Values: u32 words, f32 words, or u8 bytes four to a word.
// Shared memory: shared_counts, SHARED_BINS atomic words (a workgroup array
// sized by the SHARED_BINS override), the workgroup's private histogram when
// SHARED_BINS == BINS; one unused word on the global-atomics path.
// (`shared` is a reserved word in WGSL.)
// Barriers (privatized): after zeroing, and after counting (before the merge).
// Atomics: atomicAdd on workgroup memory while counting, atomicAdd on the
// global counts when merging (or while counting, on the global path).

override GROUP_SIZE: u32;
override BINS: u32;
override SHARED_BINS: u32; // BINS (privatized) or 1 (global atomics)
override INPUT: u32; // 0 u32, 1 f32, 2 u8

struct Params {
    n: u32, // values (u8: bytes)
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

fn edge_key(i: u32) -> u32 {
    return ordered_key(bitcast<u32>(edges[i]));
}

// The f32 binning rule of mod.rs: an f32 first guess, a bracket around it,
// then binary search by key (at most ceil(log2(BINS)) steps). Returns BINS
// for values that are not counted (outside [lo, hi], NaN).
fn float_bin(word: u32) -> u32 {
    let key = ordered_key(word);
    if is_nan(word) || key < ordered_key(bitcast<u32>(params.lo)) || key > ordered_key(bitcast<u32>(params.hi)) {
        return BINS;
    }
    let guess = max(floor((bitcast<f32>(word) - params.lo) * params.scale), 0.0);
    let g = min(u32(min(guess, f32(BINS - 1u))), BINS - 1u);
    // [a, b): edges[a] <= x, and b == BINS or x < edges[b].
    var a = 0u;
    var b = BINS;
    if key >= edge_key(g) {
        a = g;
        if g + 1u < BINS && key < edge_key(g + 1u) {
            b = g + 1u;
        }
    } else {
        b = g;
        if g > 0u && key >= edge_key(g - 1u) {
            a = g - 1u;
        }
    }
    while b - a > 1u {
        let m = a + (b - a) / 2u;
        if key >= edge_key(m) {
            a = m;
        } else {
            b = m;
        }
    }
    return a;
}

// The bin of one u32 or f32 value word, or BINS if it is not counted.
fn bin_of(word: u32) -> u32 {
    if INPUT == 1u {
        return float_bin(word);
    }
    return select(BINS, word, word < BINS);
}

// Add k to a bin (bins >= BINS are not counted).
fn add(bin: u32, k: u32) {
    if bin < BINS {
        if SHARED_BINS == BINS {
            atomicAdd(&shared_counts[bin], k);
        } else {
            atomicAdd(&counts[bin], k);
        }
    }
}

// The four u8 values of a word (one atomic when they are equal).
fn count_bytes(word: u32) {
    let b0 = word & 0xffu;
    if word == b0 * 0x01010101u {
        add(b0, 4u);
        return;
    }
    add(b0, 1u);
    add((word >> 8u) & 0xffu, 1u);
    add((word >> 16u) & 0xffu, 1u);
    add(word >> 24u, 1u);
}

// One whole word of input.
fn count_word(word: u32) {
    if INPUT == 2u {
        count_bytes(word);
    } else {
        add(bin_of(word), 1u);
    }
}

// One 4-word vector (one atomic when all its values share a bin).
fn count_vector(x: vec4<u32>) {
    if INPUT == 2u {
        if all(x == vec4<u32>(x.x)) && x.x == (x.x & 0xffu) * 0x01010101u {
            add(x.x & 0xffu, 16u);
            return;
        }
        count_bytes(x.x);
        count_bytes(x.y);
        count_bytes(x.z);
        count_bytes(x.w);
        return;
    }
    let b = vec4<u32>(bin_of(x.x), bin_of(x.y), bin_of(x.z), bin_of(x.w));
    if all(b == vec4<u32>(b.x)) {
        add(b.x, 4u);
        return;
    }
    add(b.x, 1u);
    add(b.y, 1u);
    add(b.z, 1u);
    add(b.w, 1u);
}

@compute @workgroup_size(GROUP_SIZE)
fn histogram(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) num_groups: vec3<u32>,
) {
    let privatized = SHARED_BINS == BINS;
    let n = params.n;
    let stride = GROUP_SIZE * num_groups.x; // T: invocations in the grid (>= 4)
    let t = group_id.x * GROUP_SIZE + lid;

    // Phase 1 (privatized): zero the shared histogram. — barrier —
    if privatized {
        for (var b = lid; b < BINS; b += GROUP_SIZE) {
            atomicStore(&shared_counts[b], 0u);
        }
        workgroupBarrier();
    }

    // Phase 2: grid-stride over the 4-word vectors, then the < 4 tail words
    // (one per invocation t < words % 4), then (u8) the first n % 4 bytes of
    // the partial word. The order of values does not matter for counting.
    let words = select(n, n / 4u, INPUT == 2u); // whole words
    let vectors = words / 4u;
    for (var v = t; v < vectors; v += stride) {
        count_vector(values[v]);
    }
    if t < words % 4u {
        count_word(values[vectors][t]);
    }
    if INPUT == 2u && t == 0u && n % 4u != 0u {
        let word = values[words / 4u][words % 4u];
        let rest = n % 4u;
        add(word & 0xffu, 1u);
        if rest > 1u {
            add((word >> 8u) & 0xffu, 1u);
        }
        if rest > 2u {
            add((word >> 16u) & 0xffu, 1u);
        }
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
