// Conv1d — WGSL (see mod.rs for the algorithm and interface).
//
// Shared memory: shared_taps (TAPS f32), then shared_signal
// (GROUP_SIZE·ITEMS + TAPS − 1 f32), the halo tile — two workgroup arrays
// sized by override expressions (static; mod.rs's single dynamic block is
// the CUDA/OpenCL form of the same layout).
// Barriers: after the tile load (which also covers the taps on the first
// tile), and after computing from it.

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

    // Phase 1: the taps to shared memory.
    for (var j = lid; j < TAPS; j += GROUP_SIZE) {
        shared_taps[j] = taps[j];
    }

    for (var t = group_id.x; t < tiles; t += num_groups.x) {
        // Phase a: the halo tile, zero outside the signal. — barrier —
        // Slot s holds x[start + s] with start = t·tile − radius; `pos` is
        // that index plus radius, so it never goes negative in u32.
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

        // Phase b: ITEMS outputs per invocation, o = lid + r·GROUP_SIZE
        // (consecutive invocations, consecutive outputs), from shared
        // memory. — barrier —
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
