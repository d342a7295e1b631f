// Conv1d direct — WGSL (see mod.rs for the algorithm and interface).
//
// Algorithm: one output per invocation, the taps read straight from global
// memory (the cache serves them), for filters of any length. Tiles of
// GROUP_SIZE outputs (the flat tile index over a 2-D grid; a workgroup
// strides on by the grid's size when the grid holds fewer groups than
// tiles); invocation lid computes output o = t·GROUP_SIZE + lid. One launch
// adds the taps [f_begin, f_end) in order to the running sum: from 0 when
// f_begin = 0, else from what the previous launch left in `out`, so the plan
// splits a long filter over launches (the loop budget) and every split gives
// the bits of one pass. A tap over the zero border multiplies a zero (0·Inf
// is NaN there, as in the reference).
// Shared memory: none. Barriers: none. Private arrays: none.
// Bindings: the output is read and written (the running sum).
// Indices: u32. Positions are offset by the radius so they never go
// negative; the plan keeps n + GROUP_SIZE + TAPS below 2^32.

override GROUP_SIZE: u32;
override TAPS: u32; // odd

struct Params {
    n: u32,       // signal length
    f_begin: u32, // this launch's first tap
    f_end: u32,   // one past its last tap (at most TAPS)
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> taps: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(GROUP_SIZE)
fn conv1d_direct(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) num_groups: vec3<u32>,
) {
    let n = params.n;
    let f_begin = params.f_begin;
    let f_end = params.f_end;
    let radius = TAPS / 2u;
    let tiles = n / GROUP_SIZE + select(0u, 1u, n % GROUP_SIZE != 0u);
    // This workgroup's first tile and the grid's size (x fastest).
    let first = group_id.y * num_groups.x + group_id.x;
    let groups = num_groups.x * num_groups.y;

    for (var t = first; t < tiles; t += groups) {
        let o = t * GROUP_SIZE + lid;
        if o < n {
            // Phase a: the running sum, 0 on the first launch, else what the
            // previous launch stored.
            var acc = 0.0;
            if f_begin != 0u {
                acc = out[o];
            }

            // Phase b: taps j in [f_begin, f_end), in order; tap j reads
            // x[o + j − radius] (zero outside the signal). `pos` is that
            // index plus the radius, so it never goes negative.
            for (var j = f_begin; j < f_end; j++) {
                let pos = o + j;
                var value = 0.0;
                if pos >= radius && pos - radius < n {
                    value = x[pos - radius];
                }
                acc += taps[j] * value;
            }

            // Phase c: the sum so far, for the next launch or the result.
            out[o] = acc;
        }
    }
}
