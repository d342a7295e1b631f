// Conv2d — WGSL (see mod.rs for the algorithm and interface).
//
// Shared memory: shared_filter (KH·KW f32), then shared_tile, the halo tile
// of (TILE_H + KH − 1) rows × (TILE_W + KW − 1) columns — two workgroup
// arrays sized by override expressions (static; mod.rs's single dynamic
// block is the CUDA/OpenCL form of the same layout).
// Barriers: after the tile load (which also covers the filter on the first
// tile), and after computing from it.
// The filter binding is named `weights`: `filter` is a reserved word in WGSL.

override GROUP_SIZE: u32; // a multiple of TILE_W that divides TILE_W·TILE_H
override TILE_W: u32;
override TILE_H: u32;
override KH: u32; // odd
override KW: u32; // odd
override BORDER: u32; // 0 zero, 1 clamp

struct Params {
    height: u32,
    width: u32,
}

@group(0) @binding(0) var<storage, read> image: array<f32>;
@group(0) @binding(1) var<storage, read> weights: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

var<workgroup> shared_filter: array<f32, KH * KW>;
var<workgroup> shared_tile: array<f32, (TILE_H + KH - 1u) * (TILE_W + KW - 1u)>;

// The image at (y, x) with the border rule (coordinates may lie outside).
fn pixel(y: i32, x: i32) -> f32 {
    let height = i32(params.height);
    let width = i32(params.width);
    if BORDER == 1u {
        let cy = clamp(y, 0, height - 1);
        let cx = clamp(x, 0, width - 1);
        return image[u32(cy) * params.width + u32(cx)];
    }
    if y < 0 || x < 0 || y >= height || x >= width {
        return 0.0;
    }
    return image[u32(y) * params.width + u32(x)];
}

@compute @workgroup_size(GROUP_SIZE)
fn conv2d(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) num_groups: vec3<u32>,
) {
    let height = params.height;
    let width = params.width;
    let tiles_x = width / TILE_W + select(0u, 1u, width % TILE_W != 0u);
    let tiles_y = height / TILE_H + select(0u, 1u, height % TILE_H != 0u);
    let stride = TILE_W + KW - 1u; // shared_tile row stride
    let tile_rows = TILE_H + KH - 1u;
    // This invocation's column and first row of the tile; it computes
    // ROWS = TILE_W·TILE_H / GROUP_SIZE outputs, row_step rows apart.
    let tx = lid % TILE_W;
    let ty = lid / TILE_W;
    let row_step = GROUP_SIZE / TILE_W;
    let rows = TILE_W * TILE_H / GROUP_SIZE;

    // Phase 1: the filter to shared memory.
    for (var f = lid; f < KH * KW; f += GROUP_SIZE) {
        shared_filter[f] = weights[f];
    }

    for (var tile_y = group_id.y; tile_y < tiles_y; tile_y += num_groups.y) {
        for (var tile_x = group_id.x; tile_x < tiles_x; tile_x += num_groups.x) {
            // Phase a: the halo tile with the border rule. — barrier —
            let y0 = i32(tile_y * TILE_H) - i32(KH / 2u);
            let x0 = i32(tile_x * TILE_W) - i32(KW / 2u);
            for (var s = lid; s < tile_rows * stride; s += GROUP_SIZE) {
                let r = s / stride;
                let c = s % stride;
                shared_tile[s] = pixel(y0 + i32(r), x0 + i32(c));
            }
            workgroupBarrier();

            // Phase b: this invocation's outputs from shared memory; those
            // inside the image are stored. — barrier —
            let ox = tx;
            let gx = tile_x * TILE_W + ox;
            for (var k = 0u; k < rows; k++) {
                let oy = ty + k * row_step;
                var sum = 0.0;
                for (var i = 0u; i < KH; i++) {
                    let row = (oy + i) * stride + ox;
                    for (var j = 0u; j < KW; j++) {
                        sum += shared_filter[i * KW + j] * shared_tile[row + j];
                    }
                }
                let gy = tile_y * TILE_H + oy;
                if gy < height && gx < width {
                    out[gy * width + gx] = sum;
                }
            }
            workgroupBarrier();
        }
    }
}
