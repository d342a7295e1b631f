// Conv1d — WGSL (see mod.rs for the algorithm and interface).
//
// Algorithm: halo tiles in shared memory, one tile of TILE = GROUP_SIZE·ITEMS
// outputs per workgroup (the flat tile index over a 2-D grid; a workgroup
// strides on by the grid's size when the grid holds fewer groups than
// tiles). Each workgroup loads the taps once, then per tile the signal it
// needs plus TAPS − 1 halo values (zero outside the signal), and computes
// the tile's outputs from shared memory.
// Shared memory: shared_taps (TAPS f32), then shared_signal
// (GROUP_SIZE·ITEMS + TAPS − 1 f32), the halo tile — two workgroup arrays
// sized by override expressions (static; the CUDA/OpenCL versions take one
// dynamic block of the same layout).
// Barriers: after the tile load (which also covers the taps on the first
// tile), and after computing from it (before the next tile overwrites it).
// Indices: u32. Positions are offset by the radius so they never go negative;
// the plan keeps n + TILE + TAPS below 2^32.
// Outputs: one invocation computes ITEMS of them, one at a time (WGSL has no
// private arrays sized by an override), each summing its taps in order.

override GROUP_SIZE: u32;
override ITEMS: u32;
override TAPS: u32; // odd

struct Params {
    n: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> taps: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

var<workgroup> shared_taps: array<f32, TAPS>;
var<workgroup> shared_signal: array<f32, GROUP_SIZE * ITEMS + TAPS - 1u>;

@compute @workgroup_size(GROUP_SIZE)
fn conv1d(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) num_groups: vec3<u32>,
) {
    let n = params.n;
    let tile = GROUP_SIZE * ITEMS;
    let radius = TAPS / 2u;
    let tiles = n / tile + select(0u, 1u, n % tile != 0u);
    // This workgroup's first tile and the grid's size (x fastest).
    let first = group_id.y * num_groups.x + group_id.x;
    let groups = num_groups.x * num_groups.y;

    // Phase 1: the taps to shared memory.
    for (var j = lid; j < TAPS; j += GROUP_SIZE) {
        shared_taps[j] = taps[j];
    }

    for (var t = first; t < tiles; t += groups) {
        // Phase a: the halo tile, zero outside the signal. — barrier —
        // Slot s holds x[base + s − radius]; `pos` is that index plus the
        // radius, so it never goes negative.
        let base = t * tile;
        for (var s = lid; s < tile + TAPS - 1u; s += GROUP_SIZE) {
            let pos = base + s;
            var value = 0.0;
            if pos >= radius && pos - radius < n {
                value = x[pos - radius];
            }
            shared_signal[s] = value;
        }
        workgroupBarrier();

        // Phase b: outputs o = lid + r·GROUP_SIZE of the tile (consecutive
        // invocations, consecutive outputs), each the sum over its taps in
        // order, from shared memory; those inside the signal are stored.
        // — barrier —
        for (var r = 0u; r < ITEMS; r++) {
            let o = lid + r * GROUP_SIZE;
            var sum = 0.0;
            for (var j = 0u; j < TAPS; j++) {
                sum += shared_taps[j] * shared_signal[o + j];
            }
            if base + o < n {
                out[base + o] = sum;
            }
        }
        workgroupBarrier();
    }
}
