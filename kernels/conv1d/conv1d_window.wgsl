// Conv1d window — WGSL (see mod.rs for the algorithm and interface).
//
// Algorithm: a register window per invocation, nothing in shared memory.
// Tiles of TILE = GROUP_SIZE·ITEMS outputs as in conv1d.wgsl (the flat tile
// index over a 2-D grid; a workgroup strides on by the grid's size when the
// grid holds fewer groups than tiles). In a tile, invocation lid computes the
// vectors v = lid + r·GROUP_SIZE, r < ITEMS / 4 (four consecutive outputs
// each; consecutive invocations, consecutive vectors). For the vector at
// output o it fills the window x[o − 4·HALO, o + 4 + 4·HALO) — 2·HALO + 1
// 16-byte loads when the window lies inside the signal, else one word at a
// time, zero outside — and sums each of its four outputs' taps in order from
// it. Neighbours' windows overlap by 2·HALO vectors: the cache serves the
// overlap, and DRAM sees each value about once.
// Shared memory: none. Barriers: none.
// Registers: the taps (`weights`, loaded once), the window and four sums.
// WGSL has no private arrays sized by an override, so `weights` and `window`
// have the sizes of the longest filter the plan runs here (MAX_TAPS = 33,
// the plan's MAX_WINDOW_TAPS); the loops run to TAPS and WINDOW.
// Bindings: the signal and output as vec4 arrays (16-byte loads and stores;
// single words by component); the buffers are whole multiples of 16 bytes.
// Indices: u32. Window slots are offset by 4·HALO so positions never go
// negative; the plan keeps n + TILE + TAPS + 8 below 2^32.

override GROUP_SIZE: u32;
override ITEMS: u32; // a multiple of 4
override TAPS: u32; // odd, at most MAX_TAPS

const MAX_TAPS: u32 = 33u;
const MAX_WINDOW: u32 = 36u; // 4·(2·HALO + 1) for MAX_TAPS

struct Params {
    n: u32,
}

@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> taps: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(GROUP_SIZE)
fn conv1d_window(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) num_groups: vec3<u32>,
) {
    let n = params.n;
    let tile = GROUP_SIZE * ITEMS;
    let radius = TAPS / 2u;
    let halo = (radius + 3u) / 4u; // vectors of halo on each side
    let window_len = 4u * (2u * halo + 1u); // window words
    let tiles = n / tile + select(0u, 1u, n % tile != 0u);
    // This workgroup's first tile and the grid's size (x fastest).
    let first = group_id.y * num_groups.x + group_id.x;
    let groups = num_groups.x * num_groups.y;

    // Phase 1: the taps to registers.
    var weights: array<f32, MAX_TAPS>;
    for (var j = 0u; j < TAPS; j++) {
        weights[j] = taps[j];
    }

    for (var t = first; t < tiles; t += groups) {
        for (var r = 0u; r < ITEMS / 4u; r++) {
            let v = t * (tile / 4u) + lid + r * GROUP_SIZE;
            let o = 4u * v; // the vector's first output
            if o < n {
                // Phase a: the window. Slot s holds x[o + s − 4·halo]; `pos`
                // is that index plus 4·halo, so it never goes negative.
                var window: array<f32, MAX_WINDOW>;
                let inside = o >= 4u * halo && o + 4u + 4u * halo <= n;
                if inside {
                    for (var q = 0u; q < 2u * halo + 1u; q++) {
                        let value = x[v - halo + q];
                        window[4u * q] = value.x;
                        window[4u * q + 1u] = value.y;
                        window[4u * q + 2u] = value.z;
                        window[4u * q + 3u] = value.w;
                    }
                } else {
                    for (var s = 0u; s < window_len; s++) {
                        let pos = o + s;
                        var value = 0.0;
                        if pos >= 4u * halo && pos - 4u * halo < n {
                            let i = pos - 4u * halo;
                            value = x[i / 4u][i % 4u];
                        }
                        window[s] = value;
                    }
                }

                // Phase b: output o + k sums its taps in order; tap j reads
                // x[o + k + j − radius], window slot k + j + 4·halo − radius.
                var acc = array<f32, 4>(0.0, 0.0, 0.0, 0.0);
                for (var j = 0u; j < TAPS; j++) {
                    for (var k = 0u; k < 4u; k++) {
                        acc[k] += weights[j] * window[k + j + 4u * halo - radius];
                    }
                }

                // Phase c: a whole vector inside the signal in one store,
                // else the outputs below n one by one.
                if o + 4u <= n {
                    out[v] = vec4<f32>(acc[0], acc[1], acc[2], acc[3]);
                } else {
                    for (var k = 0u; k < 4u; k++) {
                        if o + k < n {
                            out[v][k] = acc[k];
                        }
                    }
                }
            }
        }
    }
}
