//! Conv2d: `out[y][x] = Σ_{i<KH, j<KW} f[i][j] · img(y + i − KH/2, x + j − KW/2)`
//! (cross-correlation, centred, same-size output), where `img` outside the
//! image is 0 (`BORDER = 0`) or the nearest edge pixel (`BORDER = 1`).
//!
//! # Algorithm (every language)
//! Halo tiles in shared memory. A tile is `TILE_W × TILE_H` outputs; the
//! workgroup's `GROUP_SIZE` invocations cover it as `TILE_W` columns by
//! `GROUP_SIZE / TILE_W` rows, each invocation computing
//! `ROWS = TILE_W·TILE_H / GROUP_SIZE` outputs of its column
//! (rows `ty + r·GROUP_SIZE/TILE_W`, `tx = lid % TILE_W`, `ty = lid / TILE_W`).
//! 1. Load the filter into `shared_filter` (`KH·KW` f32).
//! 2. Grid-stride over tiles in both axes:
//!    `for tile_y = group_id.y; tile_y < tiles_y; tile_y += num_groups.y`,
//!    `for tile_x = group_id.x; tile_x < tiles_x; tile_x += num_groups.x`
//!    (`tiles_x = ceil(width / TILE_W)`, `tiles_y = ceil(height / TILE_H)`):
//!    a. load the halo tile `shared_tile[r][c]` for `r < TILE_H + KH − 1`,
//!    `c < TILE_W + KW − 1` (row stride `TILE_W + KW − 1`, flat index
//!    `s = lid; s < …; s += GROUP_SIZE`) from image pixel
//!    `(tile_y·TILE_H − KH/2 + r, tile_x·TILE_W − KW/2 + c)` with the border
//!    rule; barrier;
//!    b. each invocation computes its outputs from shared memory and stores
//!    those inside the image;
//!    c. barrier.
//!
//! # Interface
//! - constants: `GROUP_SIZE`, `TILE_W`, `TILE_H`, `KH`, `KW` (odd), `BORDER`.
//!   `GROUP_SIZE` is a multiple of `TILE_W` and divides `TILE_W·TILE_H`.
//! - bindings: 0 `image` (read, `height·width` f32), 1 `filter` (read, `KH·KW`
//!   f32), 2 `out` (read-write, `height·width` f32).
//! - params: `height`, `width`.
//! - shared: `shared_filter` (`KH·KW` f32) then `shared_tile`
//!   (`(TILE_H + KH − 1)·(TILE_W + KW − 1)` f32); **dynamic** in CUDA and
//!   OpenCL (one block, `shared_tile` at word `KH·KW`), static in WGSL/GLSL.

#[path = "conv2d.rs"]
mod cpu;

use crate::pass::compile;
use rosetta_core::ops::Conv2dSpec;
use rosetta_core::{
    Access, Backend, Buffer, Error, KernelDef, KernelId, KernelSpec, Launch, Result, Sources,
};
use std::sync::Arc;

pub static KERNEL: KernelDef = KernelDef {
    name: "conv2d",
    constants: &["GROUP_SIZE", "TILE_W", "TILE_H", "KH", "KW", "BORDER"],
    bindings: &[Access::Read, Access::Read, Access::ReadWrite],
    params: &["height", "width"],
    dynamic_shared: true,
    sources: Sources {
        wgsl: include_str!("conv2d.wgsl"),
        cuda: include_str!("conv2d.cu"),
        glsl: include_str!("conv2d.comp"),
        opencl: include_str!("conv2d.cl"),
    },
    cpu: cpu::conv2d,
};

/// Tile shapes to try, largest first: (TILE_W, TILE_H).
const TILES: [(u32, u32); 5] = [(32, 32), (32, 16), (32, 8), (16, 8), (8, 8)];

fn shared_bytes(tile: (u32, u32), kh: u64, kw: u64) -> u64 {
    (kh * kw + (u64::from(tile.1) + kh - 1) * (u64::from(tile.0) + kw - 1)) * 4
}

pub struct Conv2dPlan {
    backend: Arc<dyn Backend>,
    spec: Conv2dSpec,
    kernel: KernelId,
    launch: Launch,
}

impl Conv2dPlan {
    pub fn new(backend: &Arc<dyn Backend>, spec: &Conv2dSpec) -> Result<Self> {
        spec.validate()?;
        let caps = &backend.info().caps;
        let (kh, kw) = (spec.kh as u64, spec.kw as u64);
        let tile = TILES
            .into_iter()
            .find(|&t| shared_bytes(t, kh, kw) <= u64::from(caps.max_shared_bytes))
            .ok_or_else(|| {
                Error::Unsupported(format!(
                    "a {}x{} filter needs {} bytes of shared memory with the smallest tile; the device has {}",
                    spec.kh,
                    spec.kw,
                    shared_bytes(TILES[TILES.len() - 1], kh, kw),
                    caps.max_shared_bytes
                ))
            })?;
        let group_size = crate::preferred_group_size(caps).min(tile.0 * tile.1);
        if group_size % tile.0 != 0 {
            return Err(Error::Unsupported(format!(
                "workgroups of {group_size} invocations are too small for {}-wide tiles",
                tile.0
            )));
        }
        let tiles_x = (spec.width as u64).div_ceil(u64::from(tile.0)).max(1);
        let tiles_y = (spec.height as u64).div_ceil(u64::from(tile.1)).max(1);
        let launch = Launch {
            groups: [
                tiles_x.min(u64::from(caps.max_groups[0])) as u32,
                tiles_y.min(u64::from(caps.max_groups[1])) as u32,
                1,
            ],
            group_size,
            shared_bytes: shared_bytes(tile, kh, kw) as u32,
        };
        let kernel_spec = KernelSpec::new(
            &KERNEL,
            &[
                ("GROUP_SIZE", group_size),
                ("TILE_W", tile.0),
                ("TILE_H", tile.1),
                ("KH", spec.kh as u32),
                ("KW", spec.kw as u32),
                ("BORDER", spec.border.code()),
            ],
        )?;
        let kernel = compile(backend.as_ref(), &kernel_spec, &launch)?;
        Ok(Conv2dPlan {
            backend: Arc::clone(backend),
            spec: *spec,
            kernel,
            launch,
        })
    }

    pub fn spec(&self) -> &Conv2dSpec {
        &self.spec
    }

    pub fn encode(&self, image: &Buffer, filter: &Buffer, out: &Buffer) -> Result<()> {
        let dim = |what, v: usize| {
            u32::try_from(v).map_err(|_| Error::ExceedsLimit {
                what,
                requested: v as u64,
                limit: u64::from(u32::MAX),
            })
        };
        let (height, width) = (
            dim("image height", self.spec.height)?,
            dim("image width", self.spec.width)?,
        );
        if height == 0 || width == 0 {
            return Ok(());
        }
        self.backend.launch(
            self.kernel,
            &self.launch,
            &[image.id(), filter.id(), out.id()],
            &[height, width],
        )
    }
}
