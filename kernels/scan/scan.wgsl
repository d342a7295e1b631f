// Scan — WGSL (see mod.rs for the algorithm and interface).
//
// Reduce-then-scan, one tile of GROUP_SIZE·ITEMS elements per workgroup.
// PHASE 0: each invocation sums its ITEMS elements; a shared-memory tree
// gives the tile's sum, written to out[tile].
// PHASE 1: each invocation scans its ITEMS elements in private memory; a
// Hillis–Steele scan in shared memory of the invocation totals; each element
// gets the tile's offset (offsets[tile − 1]) plus the totals before it,
// stored 16 bytes at a time as it was loaded.
// Shared memory: shared_words (GROUP_SIZE words, sized by the override).
// Barriers: after the totals are stored; PHASE 0 after each tree level;
// PHASE 1 twice per scan level (read, then add). The barriers are in uniform
// control flow: a workgroup past the last tile skips the work, not the
// barriers.
// An invocation holds its elements as ITEMS / 4 vectors (`values`), where
// the other languages hold ITEMS words: from a scalar array naga's loops
// left NVIDIA's compiler indexing memory, and the scan of 2^28 f32 ran
// 1.58 ms with 8 items through wgpu on an H100 against 1.38 as vectors
// (16 items: 2.73 against 1.82; Vulkan's GLSL 1.18).
// Index arithmetic is u32 (n < 2^32): a tile's base is below n, and
// comparisons are written as `n - at >= 4` so nothing wraps near 2^32.

override GROUP_SIZE: u32;
override ITEMS: u32; // a multiple of 4, at most 16
override ELEM: u32; // 0 f32, 1 i32, 2 u32
override PHASE: u32; // 0 tile sums, 1 scan with offsets

struct Params {
    n: u32,
    offsets_len: u32,
}

@group(0) @binding(0) var<storage, read> input: array<vec4<u32>>;
// Written as 16-byte vectors where a whole vector lies below n, else word by
// word (`out[i / 4u][i % 4u]`, a 4-byte store).
@group(0) @binding(1) var<storage, read_write> out: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> offsets: array<u32>;
@group(0) @binding(3) var<uniform> params: Params;

var<workgroup> shared_words: array<u32, GROUP_SIZE>;

// Values travel as their 32-bit patterns; f32 adds as float, i32 and u32 as
// u32 (wrapping).
fn add(a: u32, b: u32) -> u32 {
    if ELEM == 0u {
        return bitcast<u32>(bitcast<f32>(a) + bitcast<f32>(b));
    }
    return a + b;
}

// The identity of add, zero_word(): -0.0 for f32 (-0 + x is x for every x, -0
// included, where +0 + -0 is +0: numpy.cumsum of -0s is -0s), 0 for
// integers. It pads past n and starts the sums and the first tile's offset.
fn zero_word() -> u32 {
    return select(0u, 0x80000000u, ELEM == 0u);
}

// Element `i` (zero_word() at or past n).
fn element(i: u32) -> u32 {
    if i < params.n {
        return input[i / 4u][i % 4u];
    }
    return zero_word();
}

@compute @workgroup_size(GROUP_SIZE)
fn scan(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) num_groups: vec3<u32>,
) {
    let n = params.n;
    let tile_len = GROUP_SIZE * ITEMS;
    let tile = group_id.y * num_groups.x + group_id.x;
    let tiles = n / tile_len + select(0u, 1u, n % tile_len != 0u);
    let live = tile < tiles;
    let base = select(0u, tile * tile_len, live);
    let first = base + lid * ITEMS;

    // This invocation's ITEMS elements (0 past n), as 16-byte loads where
    // the whole vector lies below n, held as ITEMS / 4 vectors.
    var values: array<vec4<u32>, 4>;
    for (var j = 0u; j < ITEMS / 4u; j++) {
        let at = first + 4u * j;
        if live && at < n && n - at >= 4u {
            values[j] = input[at / 4u];
        } else if live {
            values[j] = vec4<u32>(element(at), element(at + 1u), element(at + 2u), element(at + 3u));
        } else {
            values[j] = vec4<u32>(zero_word());
        }
    }

    if PHASE == 0u {
        // Phase 1: this invocation's sum to shared memory. -- barrier --
        var acc = zero_word();
        for (var j = 0u; j < ITEMS / 4u; j++) {
            let v = values[j];
            acc = add(add(add(add(acc, v.x), v.y), v.z), v.w);
        }
        shared_words[lid] = acc;
        workgroupBarrier();
        // Phase 2..: the tree, one barrier per level.
        for (var s = GROUP_SIZE / 2u; s > 0u; s /= 2u) {
            if lid < s {
                shared_words[lid] = add(shared_words[lid], shared_words[lid + s]);
            }
            workgroupBarrier();
        }
        // Last phase: invocation 0 writes the tile's sum.
        if live && lid == 0u {
            out[tile / 4u][tile % 4u] = shared_words[0];
        }
        return;
    }

    // Phase 1: this invocation's inclusive scan in private memory; its total
    // to shared memory. -- barrier --
    var running = zero_word();
    for (var j = 0u; j < ITEMS / 4u; j++) {
        var v = values[j];
        if j > 0u {
            v.x = add(running, v.x);
        }
        v.y = add(v.x, v.y);
        v.z = add(v.y, v.z);
        v.w = add(v.z, v.w);
        running = v.w;
        values[j] = v;
    }
    shared_words[lid] = running;
    workgroupBarrier();
    // Phase 2..: Hillis–Steele scan of the totals: read (barrier), add
    // (barrier).
    for (var s = 1u; s < GROUP_SIZE; s *= 2u) {
        var earlier = 0u;
        if lid >= s {
            earlier = shared_words[lid - s];
        }
        workgroupBarrier();
        if lid >= s {
            shared_words[lid] = add(earlier, shared_words[lid]);
        }
        workgroupBarrier();
    }
    // Last phase: offset of the tile plus the totals before this invocation,
    // stored as the elements were loaded: 16 bytes where the whole vector
    // lies below n, else word by word below n.
    var offset = zero_word();
    if live && params.offsets_len > 0u && tile > 0u {
        offset = offsets[tile - 1u];
    }
    var before = offset;
    if lid > 0u {
        before = add(offset, shared_words[lid - 1u]);
    }
    for (var j = 0u; j < ITEMS / 4u; j++) {
        let at = first + 4u * j;
        let v = values[j];
        let scanned = vec4<u32>(add(before, v.x), add(before, v.y), add(before, v.z), add(before, v.w));
        if live && at < n && n - at >= 4u {
            out[at / 4u] = scanned;
        } else {
            for (var k = 0u; k < 4u; k++) {
                if live && at + k < n {
                    out[(at + k) / 4u][(at + k) % 4u] = scanned[k];
                }
            }
        }
    }
}
