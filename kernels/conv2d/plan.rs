//! The conv2d plan: one launch of the tiled kernel, with the tile shape
//! (variant) and grid chosen for the device; or, for the `direct` variant,
//! one launch per chunk of the filter, each within the device's loop budget.

use super::spec::{check_image_elem, Conv2dSpec, Pixel};
use crate::op::{
    check_apart, check_binding, chunk_ranges, plan_tuned, preferred_group_size, prepare_kernel,
    split_in_chunks, u32_param, ChunkLimits,
};
pub use crate::op::{direct_loop_iterations, MAX_DIRECT_LAUNCHES};
use rosetta_core::{
    check_limit, grid_2d, Backend, Buffer, Capabilities, Elem, Element, Error, Kernel, Launch,
    Result,
};
use std::sync::Arc;

/// The output tile one workgroup computes, `TILE_W × TILE_H`, and how its
/// invocations share it out. Named as in reports, case names and the tuning
/// cache.
///
/// - `tile*` variants give each invocation `ROWS` outputs of its column,
///   `GROUP_SIZE / TILE_W` rows apart; every product reads the halo tile
///   and the filter from shared memory (any filter shared memory holds).
/// - `window*` variants (the kernel's `WINDOW = 1`) give each invocation
///   `ROWS` *consecutive* outputs of its column and keep the filter in
///   registers: it walks the `ROWS + KH − 1` halo rows they cover once and
///   adds each value to every output whose filter covers it, so it reads
///   `(ROWS + KH − 1) · KW` shared values for `ROWS · KH · KW` products
///   instead of one per product. For filters of at most
///   [`WINDOW_MAX_TAPS`] values and at most [`WINDOW_MAX_ROWS`] outputs per
///   invocation (WGSL sizes its private arrays with constants).
///
/// - `global*` variants (the `conv2d_global` kernel) use no shared memory:
///   each invocation computes 4 columns (a vector) by `ROWS` consecutive
///   rows, reading its `ROWS + KH − 1` window rows straight from global
///   memory (16-byte loads where rows are vector-aligned) with the filter in
///   registers; the cache serves the overlap between neighbours' windows.
///   For filters of at most [`WINDOW_MAX_TAPS`] values and
///   [`GLOBAL_MAX_KW`] columns, workgroups of [`GLOBAL_GROUP_SIZE`].
/// - `direct` (the `conv2d_direct` kernel) uses no shared memory and no
///   private arrays: one output per invocation, each filter value read
///   straight from global memory, any filter size. The filter's values are
///   split into consecutive chunks, one launch each, so that no invocation
///   loops past the device's loop budget (one launch where there is no
///   cap; at most [`MAX_DIRECT_LAUNCHES`]). The fallback for filters nothing else
///   holds, and slow: last in every [`Conv2dVariant::default_order`].
///
/// All sum each output's products in the same order (filter row by row,
/// in order), so every variant gives the same bits on one device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conv2dVariant {
    /// 32 × 128 outputs, consecutive rows per invocation, filter in registers.
    Window32x128,
    /// 32 × 64 outputs, consecutive rows per invocation, filter in registers.
    Window32x64,
    /// 32 × 32 outputs, consecutive rows per invocation, filter in registers.
    Window32x32,
    /// 128 × 64 outputs, 4 × 8 per invocation, straight from global memory.
    Global128x64,
    /// 128 × 32 outputs, 4 × 4 per invocation, straight from global memory.
    Global128x32,
    /// 32 × 32 outputs (4 per invocation with workgroups of 256).
    Tile32x32,
    /// 32 × 16 outputs.
    Tile32x16,
    /// 32 × 8 outputs.
    Tile32x8,
    /// 16 × 16 outputs.
    Tile16x16,
    /// 16 × 8 outputs.
    Tile16x8,
    /// 8 × 8 outputs: the smallest halo tile, the largest filters.
    Tile8x8,
    /// One output per invocation, the filter straight from global memory,
    /// in chunks over launches: any filter size.
    Direct,
}

/// The most filter values a `window*` variant keeps in registers (9 × 9).
/// `conv2d.wgsl` sizes its private `weight` array with the same number.
pub const WINDOW_MAX_TAPS: u64 = 81;

/// The most outputs per invocation of a `window*` variant. `conv2d.wgsl`
/// sizes its private `acc` array with the same number.
pub const WINDOW_MAX_ROWS: u64 = 16;

/// The widest filter a `global*` variant takes: a window of 4 + 2·8
/// columns. `conv2d_global.wgsl` sizes its private `window` array for it.
pub const GLOBAL_MAX_KW: u64 = 17;

/// The workgroup size of the `global*` variants: 32 vectors across a tile
/// (`COLUMNS` in the kernels) by 8 rows of invocations.
pub const GLOBAL_GROUP_SIZE: u32 = 256;

impl Conv2dVariant {
    /// Every variant: the windows from global memory, the register windows
    /// over halo tiles (32 × 64 first, the fastest of them through Vulkan
    /// and wgpu on the H200, where 16 rows per invocation cost registers),
    /// then the tiles from the largest, then `direct` (any filter).
    /// [`Self::default_order`] says which one a plan tries first on each
    /// device.
    pub const ALL: [Conv2dVariant; 12] = [
        Conv2dVariant::Global128x32,
        Conv2dVariant::Global128x64,
        Conv2dVariant::Window32x64,
        Conv2dVariant::Window32x128,
        Conv2dVariant::Window32x32,
        Conv2dVariant::Tile32x32,
        Conv2dVariant::Tile32x16,
        Conv2dVariant::Tile32x8,
        Conv2dVariant::Tile16x16,
        Conv2dVariant::Tile16x8,
        Conv2dVariant::Tile8x8,
        Conv2dVariant::Direct,
    ];

    /// The name in reports, case names and the tuning cache.
    pub fn name(self) -> &'static str {
        match self {
            Conv2dVariant::Window32x128 => "window32x128",
            Conv2dVariant::Window32x64 => "window32x64",
            Conv2dVariant::Window32x32 => "window32x32",
            Conv2dVariant::Global128x64 => "global128x64",
            Conv2dVariant::Global128x32 => "global128x32",
            Conv2dVariant::Tile32x32 => "tile32x32",
            Conv2dVariant::Tile32x16 => "tile32x16",
            Conv2dVariant::Tile32x8 => "tile32x8",
            Conv2dVariant::Tile16x16 => "tile16x16",
            Conv2dVariant::Tile16x8 => "tile16x8",
            Conv2dVariant::Tile8x8 => "tile8x8",
            Conv2dVariant::Direct => "direct",
        }
    }

    /// The variant called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.name() == name)
    }

    /// Every variant's name.
    pub fn names() -> Vec<String> {
        Self::ALL.iter().map(|v| v.name().to_string()).collect()
    }

    /// The kernel the variant launches: the halo tiles of `conv2d.*` (tiles
    /// and windows), `conv2d_global.*` or `conv2d_direct.*` (all listed by
    /// [`crate::op::Op::kernels`]).
    pub fn kernel(self) -> &'static std::sync::Arc<rosetta_core::KernelDef> {
        if self.global() {
            super::kernel::global_kernel()
        } else if self.direct() {
            super::kernel::direct_kernel()
        } else {
            super::kernel::kernel()
        }
    }

    /// Whether it is the `direct` variant (the `conv2d_direct` kernel: one
    /// output per invocation, no shared memory, filter chunks over
    /// launches).
    pub fn direct(self) -> bool {
        self == Conv2dVariant::Direct
    }

    /// Whether it reads the image straight from global memory (the
    /// `conv2d_global` kernel, no shared memory).
    pub fn global(self) -> bool {
        matches!(
            self,
            Conv2dVariant::Global128x64 | Conv2dVariant::Global128x32
        )
    }

    /// `(TILE_W, TILE_H)`; `(1, 1)` for `direct`, one output per invocation
    /// (its [`Geometry::tile`] is the workgroup's `GROUP_SIZE` consecutive
    /// outputs).
    pub fn tile(self) -> (u32, u32) {
        match self {
            Conv2dVariant::Window32x128 => (32, 128),
            Conv2dVariant::Window32x64 => (32, 64),
            Conv2dVariant::Window32x32 | Conv2dVariant::Tile32x32 => (32, 32),
            Conv2dVariant::Global128x64 => (128, 64),
            Conv2dVariant::Global128x32 => (128, 32),
            Conv2dVariant::Tile32x16 => (32, 16),
            Conv2dVariant::Tile32x8 => (32, 8),
            Conv2dVariant::Tile16x16 => (16, 16),
            Conv2dVariant::Tile16x8 => (16, 8),
            Conv2dVariant::Tile8x8 => (8, 8),
            Conv2dVariant::Direct => (1, 1),
        }
    }

    /// The order [`Conv2dPlan::new`] tries variants in when nothing is
    /// tuned:
    /// - the windows from global memory first, `global128x32` on GPUs and
    ///   `global128x64` on CPU-type devices (8192² f32, 5 × 5 on an H200,
    ///   `docs/results/h200-2026-11-23g/tune-conv2d.txt`: global128x32 164.6
    ///   / 168.3 / 165.2 / 175.4 µs through CUDA / Vulkan / OpenCL / wgpu,
    ///   against 188.4 / 295.3 / 191.8 / 298.7 for the best halo-tile
    ///   variant; 2048² f32 on this project's 2-core machine, global128x64
    ///   96 ms on lavapipe against window32x128's 288, 15.3 ms on PoCL
    ///   against tile32x32's 36.0) — except through wgpu, whose
    ///   `global128x64` lavapipe runs 12× slower than `global128x32`
    ///   (1024² f32 on the 2-core machine: 114.9 against 9.9 ms, where the
    ///   GLSL version of `global128x64` runs in about a tenth; the cause in
    ///   llvmpipe was not inspected);
    /// - then the register windows over halo tiles, `window32x128` first
    ///   through CUDA (ptxas keeps its 16 rows per invocation in 32
    ///   registers, where NVIDIA's SPIR-V compiler gives them 114), else
    ///   `window32x64`;
    /// - then the tiles from the largest; on PoCL the tiles before the
    ///   halo-tile windows (tile32x32 2.96 ms against window32x64 4.94 ms,
    ///   512² f32 on the 2-core machine).
    ///
    /// The CPU backend keeps the halo tiles first and the global windows
    /// after them: its Rust version of those runs a vector at a time (40 ms
    /// against tile32x8's 6.9 ms, 2048² f32 on the 2-core machine).
    ///
    /// `direct` comes last everywhere: the fallback for filters that
    /// neither shared memory nor registers hold (it reads every filter
    /// value from global memory for every output).
    pub fn default_order(device: &rosetta_core::DeviceInfo) -> Vec<Self> {
        use rosetta_core::Api;
        let cpu_type = device.caps.device_type.is_cpu();
        let mut globals = vec![Conv2dVariant::Global128x32, Conv2dVariant::Global128x64];
        if cpu_type && device.api != Api::Wgpu {
            globals.reverse();
        }
        let (mut windows, tiles): (Vec<_>, Vec<_>) = Self::ALL
            .into_iter()
            .filter(|v| !v.global() && !v.direct())
            .partition(|v| v.window());
        if device.api == Api::Cuda {
            windows.sort_by_key(|&v| v != Conv2dVariant::Window32x128);
        }
        let halo_tiles: Vec<_> = if device.api == Api::Opencl && cpu_type {
            tiles.into_iter().chain(windows).collect()
        } else {
            windows.into_iter().chain(tiles).collect()
        };
        let direct = [Conv2dVariant::Direct];
        if device.api == Api::Cpu {
            halo_tiles
                .into_iter()
                .chain(globals)
                .chain(direct)
                .collect()
        } else {
            globals
                .into_iter()
                .chain(halo_tiles)
                .chain(direct)
                .collect()
        }
    }

    /// Whether it is a register-window variant (the kernel's `WINDOW`).
    pub fn window(self) -> bool {
        matches!(
            self,
            Conv2dVariant::Window32x128 | Conv2dVariant::Window32x64 | Conv2dVariant::Window32x32
        )
    }
}

/// The workgroup size of `variant` on a device: the preferred size, or the
/// tile's size where smaller; [`GLOBAL_GROUP_SIZE`] for `global*`; the
/// preferred size for `direct`.
fn group_size(caps: &Capabilities, variant: Conv2dVariant) -> u32 {
    let (tw, th) = variant.tile();
    if variant.global() {
        return GLOBAL_GROUP_SIZE;
    }
    if variant.direct() {
        return preferred_group_size(caps);
    }
    preferred_group_size(caps).min(tw * th)
}

/// Output rows each invocation of `variant` computes per tile on a device
/// (of one column; of four for `global*`; one output for `direct`).
fn rows_per_invocation(caps: &Capabilities, variant: Conv2dVariant) -> u64 {
    if variant.direct() {
        return 1;
    }
    let (tw, th) = variant.tile();
    let columns = if variant.global() { 4 } else { 1 };
    u64::from(tw * th / columns / group_size(caps, variant))
}

/// A `window*` variant keeps the `kh × kw` filter and its `rows` outputs per
/// invocation in registers: at most [`WINDOW_MAX_TAPS`] and
/// [`WINDOW_MAX_ROWS`] (`ExceedsLimit` past them); a `global*` variant also
/// a window row of the filter's width, at most [`GLOBAL_MAX_KW`]. Other
/// variants pass.
fn check_window(variant: Conv2dVariant, kh: u64, kw: u64, rows: u64) -> Result<()> {
    if variant.global() {
        check_limit(
            "conv2d global variant filter values (registers)",
            kh.saturating_mul(kw),
            WINDOW_MAX_TAPS,
        )?;
        check_limit(
            "conv2d global variant filter width (the register window)",
            kw,
            GLOBAL_MAX_KW,
        )?;
    }
    if variant.window() {
        check_limit(
            "conv2d window variant filter values (registers)",
            kh.saturating_mul(kw),
            WINDOW_MAX_TAPS,
        )?;
        check_limit(
            "conv2d window variant outputs per invocation (registers)",
            rows,
            WINDOW_MAX_ROWS,
        )?;
    }
    Ok(())
}

/// A workgroup of `group_size` invocations fits the device (the halo-tile
/// variants' sizes always do; [`GLOBAL_GROUP_SIZE`] needs a device that
/// takes 256, which Vulkan does not promise: its minimum is 128).
fn check_group_size(caps: &Capabilities, group_size: u32) -> Result<()> {
    check_limit(
        "conv2d workgroup size (invocations)",
        u64::from(group_size),
        u64::from(caps.max_group_invocations.min(caps.max_group_size[0])),
    )
}

/// Refuse names that are not variants (workloads and the tuner pass names).
pub fn variant_named(name: &str) -> Result<Conv2dVariant> {
    Conv2dVariant::from_name(name)
        .ok_or_else(|| Error::InvalidArgument(format!("no conv2d variant '{name}'")))
}

/// The tuner's key: pixel type, filter shape and image size class.
pub fn tune_class(spec: &Conv2dSpec, elem: Elem) -> String {
    let pixels = (spec.height as u64).saturating_mul(spec.width as u64);
    let log2 = 64 - (pixels.max(1) - 1).leading_zeros();
    format!("{elem} {}x{} pixels<=2^{log2}", spec.kh, spec.kw)
}

/// Shared memory of one configuration, in bytes: the filter, then the halo
/// tile of `(TILE_H + KH − 1) × (TILE_W + KW − 1)` values (saturating: the
/// caller compares it with the device's limit).
pub fn shared_bytes(tile: (u32, u32), kh: u64, kw: u64) -> u64 {
    let halo = (u64::from(tile.1) + kh - 1).saturating_mul(u64::from(tile.0) + kw - 1);
    kh.saturating_mul(kw).saturating_add(halo).saturating_mul(4)
}

/// Loop iterations one invocation runs, counted generously (every loop of
/// the kernel as written, nested loops multiplied). `tile*` variants: the
/// filter load (shared by the workgroup), and per tile the tile loop itself,
/// the halo load, and for each of its `rows` outputs the filter's rows and
/// products plus set-up and store. `window*` variants: the whole filter
/// (each invocation loads it into registers), and per tile the tile loop,
/// the halo load, set-up and store of the `rows` outputs, and for each of
/// the `rows + KH − 1` halo rows its `KW` values, each through the `KH`
/// filter rows (the outputs it covers).
pub fn loop_iterations(
    (kh, kw): (u64, u64),
    tile: (u32, u32),
    group_size: u32,
    tiles_per_group: u64,
    window: bool,
) -> u64 {
    let gs = u64::from(group_size);
    let (tw, th) = (u64::from(tile.0), u64::from(tile.1));
    let rows = tw * th / gs;
    let halo = ((th + kh - 1) * (tw + kw - 1)).div_ceil(gs);
    if window {
        let products = (rows + kh - 1) * (1 + kw + kw * kh);
        kh * kw + tiles_per_group * (1 + halo + 2 * rows + products)
    } else {
        (kh * kw).div_ceil(gs) + tiles_per_group * (1 + halo + rows * (kh * kw + kh + 2))
    }
}

/// Loop iterations one invocation of a `global*` variant runs, counted
/// generously (every loop as written, nested loops multiplied, the border's
/// pixel-by-pixel window load rather than the vector load): the filter load,
/// and per tile the tile loop, the `rows` sums' set-up and the stores of
/// their 4 columns, and for each of the `rows + KH − 1` window rows its
/// window and the `KH` filter rows, each with `KW × 4` products.
pub fn global_loop_iterations((kh, kw): (u64, u64), rows: u64, tiles_per_group: u64) -> u64 {
    let window = 4 * (2 * (kw / 2).div_ceil(4) + 1);
    let per_row = 1 + window + kh * (1 + kw * 4);
    kh * kw + tiles_per_group * (1 + rows + 4 * rows + (rows + kh - 1) * per_row)
}

/// The filter chunks of `direct` for `filter_values` values, at most
/// `most` per launch where `blocks_per_group` blocks of outputs fall to each
/// workgroup, within `budget` loop iterations per invocation:
/// [`split_in_chunks`] in conv2d's words.
pub fn direct_chunks(
    filter_values: u64,
    blocks_per_group: u64,
    budget: u64,
    most: u64,
) -> Result<(u64, u64)> {
    const LIMITS: ChunkLimits = ChunkLimits {
        one_value: "conv2d direct loop iterations per invocation with one filter value per launch (the driver stops longer loops silently)",
        launches: "conv2d direct launches (filter chunks within the loop budget)",
    };
    split_in_chunks(filter_values, blocks_per_group, budget, most, &LIMITS)
}

/// The filter values `[f_begin, f_end)` of each launch of a plan with
/// `geometry` for a filter of `filter_values` values: consecutive, in
/// order, covering them exactly (one range, the whole filter, for every
/// variant but `direct`).
pub fn filter_chunks(geometry: &Geometry, filter_values: u64) -> Vec<(u64, u64)> {
    chunk_ranges(filter_values, geometry.chunk).collect()
}

/// Launch geometry of one plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Invocations per workgroup (a multiple of `TILE_W` dividing the tile).
    pub group_size: u32,
    /// `(TILE_W, TILE_H)`; `(GROUP_SIZE, 1)` for `direct`: a block of
    /// `GROUP_SIZE` consecutive outputs (flat, row-major).
    pub tile: (u32, u32),
    /// Tiles along x and y; `[blocks, 1]` for `direct`.
    pub tiles: [u64; 2],
    /// The grid: one workgroup per tile (flat index, x fastest), over x and
    /// then y.
    pub groups: [u32; 3],
    /// Shared memory, in bytes.
    pub shared_bytes: u32,
    /// Loop iterations per invocation in one launch (see
    /// [`loop_iterations`], [`direct_loop_iterations`]; the longest chunk's
    /// for `direct`).
    pub loops: u64,
    /// Filter values one launch sums (the last launch's may be fewer): the
    /// whole filter but for `direct`.
    pub chunk: u64,
    /// Launches per convolution: 1 but for `direct` (one per filter chunk).
    pub launches: u64,
}

impl Geometry {
    /// Workgroups in the grid.
    pub fn total_groups(&self) -> u64 {
        self.groups.iter().map(|&g| u64::from(g)).product()
    }

    /// Outputs each invocation computes per tile.
    pub fn rows(&self) -> u32 {
        self.tile.0 * self.tile.1 / self.group_size
    }
}

/// The geometry of `variant` for `spec` with `elem` pixels on a device, or
/// the typed error that says why it cannot run there: every extent and the
/// pixel count fit the kernels' u32 indices (positions up to `height +
/// TILE_H + KH` must not wrap), the filter and halo tile fit in shared
/// memory, and no invocation loops more often than the device's loop budget
/// allows (llvmpipe stops loops silently past its cap). One workgroup per
/// tile, the grid split over x and y where the tiles outnumber
/// `max_groups[0]`; the kernel strides over the flat tile index, so a grid
/// smaller than the tiles still covers them. `direct`: see
/// [`direct_geometry`].
pub fn geometry(
    caps: &Capabilities,
    spec: &Conv2dSpec,
    elem: Elem,
    variant: Conv2dVariant,
) -> Result<Geometry> {
    if variant.direct() {
        return direct_geometry(caps, spec, elem, u64::MAX);
    }
    spec.validate()?;
    check_image_elem(elem)?;
    let height = u64::from(u32_param("conv2d image height", spec.height as u64)?);
    let width = u64::from(u32_param("conv2d image width", spec.width as u64)?);
    let kh = u64::from(u32_param("conv2d filter height", spec.kh as u64)?);
    let kw = u64::from(u32_param("conv2d filter width", spec.kw as u64)?);
    let max = u64::from(u32::MAX);
    check_limit("conv2d image pixels (u32 indices)", height * width, max)?;
    let tile = variant.tile();
    let (tw, th) = (u64::from(tile.0), u64::from(tile.1));
    check_limit(
        "conv2d image height + tile + filter (u32 positions)",
        height + th + kh,
        max,
    )?;
    // A global window's last slot lies up to 8 columns further.
    check_limit(
        "conv2d image width + tile + filter (u32 positions)",
        width + tw + kw + if variant.global() { 8 } else { 0 },
        max,
    )?;
    let group_size = group_size(caps, variant);
    // Workgroups too small for the tile's width (a device limit).
    if !group_size.is_multiple_of(tile.0) || !(tile.0 * tile.1).is_multiple_of(group_size) {
        return Err(Error::ExceedsLimit {
            what: "conv2d tile width (the workgroup must span it)",
            requested: tw,
            limit: u64::from(group_size),
        });
    }
    check_group_size(caps, group_size)?;
    let rows = rows_per_invocation(caps, variant);
    check_window(variant, kh, kw, rows)?;
    let shared = if variant.global() {
        0
    } else {
        shared_bytes(tile, kh, kw)
    };
    check_limit(
        "conv2d shared memory (bytes) for the filter and the halo tile",
        shared,
        u64::from(caps.max_shared_bytes),
    )?;
    let tiles = [width.div_ceil(tw).max(1), height.div_ceil(th).max(1)];
    let count = tiles[0] * tiles[1];
    check_limit("conv2d tiles (u32 indices)", count, max)?;
    let groups = grid_2d(count, caps).unwrap_or([caps.max_groups[0], caps.max_groups[1], 1]);
    let total = groups.iter().map(|&g| u64::from(g)).product::<u64>();
    // The kernels' flat tile index `t + groups` stays below 2^32.
    check_limit("conv2d workgroups", total, 1 << 31)?;
    check_limit(
        "conv2d tiles + workgroups (u32 indices)",
        count + total,
        max,
    )?;
    let loops = if variant.global() {
        global_loop_iterations((kh, kw), rows, count.div_ceil(total))
    } else {
        loop_iterations(
            (kh, kw),
            tile,
            group_size,
            count.div_ceil(total),
            variant.window(),
        )
    };
    check_limit(
        "conv2d loop iterations per invocation (the driver stops longer loops silently)",
        loops,
        caps.loop_budget(),
    )?;
    Ok(Geometry {
        group_size,
        tile,
        tiles,
        groups,
        // At most max_shared_bytes, a u32 (checked above).
        shared_bytes: shared as u32,
        loops,
        chunk: kh * kw,
        launches: 1,
    })
}

/// The geometry of `direct` for `spec` with `elem` pixels on a device, at
/// most `most` filter values per launch, or the typed error that says why
/// it cannot run there: every extent, the pixel count (plus a workgroup:
/// the last block's outputs), the filter's values and the offset pixel
/// positions (`height + KH`, `width + KW`) fit the kernel's u32 indices; one
/// workgroup per block of `GROUP_SIZE` outputs, the grid split over x and y
/// where they outnumber `max_groups[0]` (the kernel strides over the flat
/// block index); the filter in chunks within the loop budget
/// ([`direct_chunks`]).
pub fn direct_geometry(
    caps: &Capabilities,
    spec: &Conv2dSpec,
    elem: Elem,
    most: u64,
) -> Result<Geometry> {
    spec.validate()?;
    check_image_elem(elem)?;
    let height = u64::from(u32_param("conv2d image height", spec.height as u64)?);
    let width = u64::from(u32_param("conv2d image width", spec.width as u64)?);
    let kh = u64::from(u32_param("conv2d filter height", spec.kh as u64)?);
    let kw = u64::from(u32_param("conv2d filter width", spec.kw as u64)?);
    let max = u64::from(u32::MAX);
    let pixels = height * width;
    check_limit("conv2d image pixels (u32 indices)", pixels, max)?;
    check_limit("conv2d filter values (u32 indices)", kh * kw, max)?;
    check_limit(
        "conv2d image height + filter (u32 positions)",
        height + kh,
        max,
    )?;
    check_limit(
        "conv2d image width + filter (u32 positions)",
        width + kw,
        max,
    )?;
    let group_size = group_size(caps, Conv2dVariant::Direct);
    check_group_size(caps, group_size)?;
    let gs = u64::from(group_size);
    check_limit(
        "conv2d image pixels + workgroup (u32 indices)",
        pixels + gs,
        max,
    )?;
    let blocks = pixels.div_ceil(gs).max(1);
    let groups = grid_2d(blocks, caps).unwrap_or([caps.max_groups[0], caps.max_groups[1], 1]);
    let total = groups.iter().map(|&g| u64::from(g)).product::<u64>();
    check_limit("conv2d workgroups", total, 1 << 31)?;
    check_limit(
        "conv2d output blocks + workgroups (u32 indices)",
        blocks + total,
        max,
    )?;
    let per_group = blocks.div_ceil(total);
    let (chunk, launches) = direct_chunks(kh * kw, per_group, caps.loop_budget(), most)?;
    Ok(Geometry {
        group_size,
        tile: (group_size, 1),
        tiles: [blocks, 1],
        groups,
        shared_bytes: 0,
        loops: direct_loop_iterations(chunk, per_group),
        chunk,
        launches,
    })
}

/// The largest odd square filter any variant but `direct` runs on a device
/// with `caps` (shared memory with the smallest tile, and the loop budget,
/// decide; `direct` takes larger ones): what the `limits` cases use. 0 if
/// not even 1 × 1 fits.
pub fn max_square_filter(caps: &Capabilities) -> u64 {
    let fits = |k: u64| {
        let spec = Conv2dSpec {
            height: 64,
            width: 64,
            kh: k as usize,
            kw: k as usize,
            border: super::Border::Zero,
        };
        Conv2dVariant::ALL
            .into_iter()
            .filter(|v| !v.direct())
            .any(|v| geometry(caps, &spec, Elem::F32, v).is_ok())
    };
    if !fits(1) {
        return 0;
    }
    // Largest odd k = 2t + 1 that fits (k² words alone must fit).
    let words = u64::from(caps.max_shared_bytes) / 4;
    let (mut lo, mut hi) = (0u64, words.isqrt() / 2 + 1);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if fits(2 * mid + 1) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    2 * lo + 1
}

/// A compiled conv2d: one launch (`direct`: one per filter chunk).
pub struct Conv2dPlan {
    backend: Arc<dyn Backend>,
    spec: Conv2dSpec,
    elem: Elem,
    variant: Conv2dVariant,
    tuned: bool,
    kernel: Kernel,
    launch: Launch,
    geometry: Geometry,
    /// Each launch's params, in order: `height, width` (`direct`: and its
    /// chunk's `f_begin, f_end`).
    params: Vec<Vec<u32>>,
}

impl Conv2dPlan {
    /// Plan for `elem` pixels (f32 or u8) with the tuned variant for this
    /// device and shape, or the first of [`Conv2dVariant::default_order`]
    /// that fits the device and filter (`direct`, last, takes any filter
    /// the u32 indices and [`MAX_DIRECT_LAUNCHES`] allow).
    pub fn new(backend: &Arc<dyn Backend>, spec: &Conv2dSpec, elem: Elem) -> Result<Self> {
        spec.validate()?;
        check_image_elem(elem)?;
        let caps = &backend.info().caps;
        let fits = |v: Conv2dVariant| geometry(caps, spec, elem, v).is_ok();
        // Nothing fits: `direct`, the last resort, says why.
        let default = || {
            Ok(Conv2dVariant::default_order(backend.info())
                .into_iter()
                .find(|&v| fits(v))
                .unwrap_or(Conv2dVariant::Direct))
        };
        let (mut plan, tuned) = plan_tuned(
            backend.info(),
            "conv2d",
            &tune_class(spec, elem),
            Conv2dVariant::from_name,
            default,
            |v| Self::with_variant(backend, spec, elem, v),
        )?;
        plan.tuned = tuned;
        Ok(plan)
    }

    /// Plan with a given variant (conformance forces each one). Limits are
    /// checked before anything is built.
    pub fn with_variant(
        backend: &Arc<dyn Backend>,
        spec: &Conv2dSpec,
        elem: Elem,
        variant: Conv2dVariant,
    ) -> Result<Self> {
        let info = backend.info();
        // A window forced on a filter it cannot hold is not for this op,
        // whatever the device: `Unsupported` (`geometry` says `ExceedsLimit`
        // to the plans that pick the first variant that fits).
        // So is a variant whose workgroup the device cannot hold.
        let rows = rows_per_invocation(&info.caps, variant);
        check_group_size(&info.caps, group_size(&info.caps, variant))
            .and_then(|()| check_window(variant, spec.kh as u64, spec.kw as u64, rows))
            .map_err(|e| {
                Error::unsupported(
                    info.api,
                    format!("conv2d variant '{}': {e}", variant.name()),
                )
            })?;
        let geometry = geometry(&info.caps, spec, elem, variant)?;
        Self::build(backend, spec, elem, variant, geometry)
    }

    /// [`Conv2dPlan::with_variant`] as on a device whose grid holds at most
    /// `groups_x` workgroups (along x, one along y): each workgroup then
    /// strides over several tiles, a path real images reach only past
    /// `max_groups[0] · max_groups[1]` tiles (conformance runs it on every
    /// device this way). Returns the plan and its tile (`(width, height)`
    /// in outputs).
    pub(crate) fn with_grid(
        backend: &Arc<dyn Backend>,
        spec: &Conv2dSpec,
        elem: Elem,
        variant: Conv2dVariant,
        groups_x: u32,
    ) -> Result<(Self, (u32, u32))> {
        // The variant's own checks first (a window that cannot hold the
        // filter, a workgroup the device cannot hold).
        Self::with_variant(backend, spec, elem, variant)?;
        let mut caps = backend.info().caps.clone();
        caps.max_groups[0] = caps.max_groups[0].min(groups_x.max(1));
        caps.max_groups[1] = 1;
        let geometry = geometry(&caps, spec, elem, variant)?;
        let tile = geometry.tile;
        Ok((Self::build(backend, spec, elem, variant, geometry)?, tile))
    }

    /// `direct` with at most `chunk` filter values per launch (fewer where
    /// the loop budget says so): the same sums, in the same order, over
    /// more launches, which conformance compares with the plan's own.
    pub(crate) fn direct_in_chunks(
        backend: &Arc<dyn Backend>,
        spec: &Conv2dSpec,
        elem: Elem,
        chunk: u64,
    ) -> Result<Self> {
        let geometry = direct_geometry(&backend.info().caps, spec, elem, chunk)?;
        Self::build(backend, spec, elem, Conv2dVariant::Direct, geometry)
    }

    /// Compile `variant` for `geometry` (checked) and set out its launches.
    fn build(
        backend: &Arc<dyn Backend>,
        spec: &Conv2dSpec,
        elem: Elem,
        variant: Conv2dVariant,
        geometry: Geometry,
    ) -> Result<Self> {
        let rows = rows_per_invocation(&backend.info().caps, variant);
        let launch = Launch {
            groups: geometry.groups,
            group_size: geometry.group_size,
            shared_bytes: geometry.shared_bytes,
        };
        let sizes = [spec.height as u32, spec.width as u32];
        let kernel = if variant.direct() {
            prepare_kernel(
                backend,
                variant.kernel(),
                &[
                    ("GROUP_SIZE", geometry.group_size),
                    ("KH", spec.kh as u32),
                    ("KW", spec.kw as u32),
                    ("BORDER", spec.border.code()),
                    ("ELEM", elem.code()),
                ],
                &launch,
            )?
        } else if variant.global() {
            prepare_kernel(
                backend,
                variant.kernel(),
                &[
                    ("GROUP_SIZE", geometry.group_size),
                    ("ROWS", rows as u32),
                    ("KH", spec.kh as u32),
                    ("KW", spec.kw as u32),
                    ("BORDER", spec.border.code()),
                    ("ELEM", elem.code()),
                ],
                &launch,
            )?
        } else {
            prepare_kernel(
                backend,
                variant.kernel(),
                &[
                    ("GROUP_SIZE", geometry.group_size),
                    ("TILE_W", geometry.tile.0),
                    ("TILE_H", geometry.tile.1),
                    ("KH", spec.kh as u32),
                    ("KW", spec.kw as u32),
                    ("BORDER", spec.border.code()),
                    ("ELEM", elem.code()),
                    ("WINDOW", u32::from(variant.window())),
                ],
                &launch,
            )?
        };
        // Filter values and their bounds are below 2^32 (checked in
        // `geometry`).
        let params = if variant.direct() {
            let values = (spec.kh * spec.kw) as u64;
            filter_chunks(&geometry, values)
                .into_iter()
                .map(|(begin, end)| vec![sizes[0], sizes[1], begin as u32, end as u32])
                .collect()
        } else {
            vec![sizes.to_vec()]
        };
        Ok(Conv2dPlan {
            backend: Arc::clone(backend),
            spec: *spec,
            elem,
            variant,
            tuned: false,
            kernel,
            launch,
            geometry,
            params,
        })
    }

    /// What the plan convolves.
    pub fn spec(&self) -> &Conv2dSpec {
        &self.spec
    }

    /// The image's pixel type (f32 or u8).
    pub fn elem(&self) -> Elem {
        self.elem
    }

    /// The variant it runs.
    pub fn variant(&self) -> Conv2dVariant {
        self.variant
    }

    /// Whether the variant came from the tuning cache.
    pub fn tuned(&self) -> bool {
        self.tuned
    }

    /// The launch it enqueues (`direct`: each of its launches, which differ
    /// only in their params).
    pub fn launch(&self) -> &Launch {
        &self.launch
    }

    /// The filter values `[f_begin, f_end)` each launch sums, in order:
    /// the whole filter in one launch but for `direct`.
    pub fn chunks(&self) -> Vec<(u64, u64)> {
        let values = (self.spec.kh * self.spec.kw) as u64;
        filter_chunks(&self.geometry, values)
    }

    /// Its geometry (tiles, grid, loop count, launches).
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// Enqueue the convolution of `image` (`height · width` pixels: f32, or
    /// u8 packed four to a word) with `filter` (`kh · kw` f32, row-major)
    /// into `out` (`height · width` f32, row-major): one launch, or for
    /// `direct` one per filter chunk, in order (each later one adds to the
    /// sums the one before left in `out`; a backend runs its launches in
    /// order, each seeing the memory the one before wrote).
    pub fn encode(&self, image: &Buffer, filter: &Buffer, out: &Buffer) -> Result<()> {
        let backend = &self.backend;
        let spec = &self.spec;
        check_binding(backend, "conv2d image", image, spec.image_bytes(self.elem)?)?;
        check_binding(backend, "conv2d filter", filter, spec.filter_bytes()?)?;
        check_binding(backend, "conv2d output", out, spec.out_bytes()?)?;
        check_apart(
            "conv2d",
            ("output", out),
            &[("image", image), ("filter", filter)],
        )?;
        if spec.height == 0 || spec.width == 0 {
            return Ok(());
        }
        for params in &self.params {
            // SAFETY: height and width fit a u32 with height · width < 2^32
            // and height + TILE_H + KH, width + TILE_W + KW below 2^32
            // (`direct`: height + KH, width + KW; checked in `geometry`), so
            // no position or index wraps. The kernel reads pixel p only for
            // p < height · width: word p of an f32 image (which holds that
            // many f32, checked above), or word p / 4 of a u8 image — below
            // ceil(pixels / 4) words, inside the buffer's capacity (a
            // multiple of 16 bytes, at least the `pixels` bytes checked
            // above); reads filter[i] for i < KH · KW (checked above; for
            // `direct`, f_begin <= i < f_end <= KH · KW, its params from
            // `filter_chunks`) and reads (`direct`) and writes
            // out[y · width + x] only for y < height, x < width (the output
            // holds height · width f32, checked above; `direct`'s output
            // index t · GROUP_SIZE + lid stays below height · width +
            // GROUP_SIZE < 2^32). Shared memory is indexed below KH·KW +
            // (TILE_H + KH − 1)(TILE_W + KW − 1) words, what
            // `launch.shared_bytes` holds. A `global*` variant uses no
            // shared memory; its 16-byte loads and stores cover vectors of
            // pixels inside the image only (whole vectors of aligned rows),
            // and its private arrays hold KH·KW <= 81 weights, a window row
            // of KW <= 17 and ROWS <= 8 (checked in `geometry`). `direct`
            // uses neither shared memory nor private arrays. Every loop is
            // bounded (the filter or its chunk, the halo tile or window
            // rows, the tile or block count).
            unsafe {
                backend.launch(&self.kernel, &self.launch, &[image, filter, out], params)?;
            }
        }
        Ok(())
    }
}

/// The convolution of `image` (`P`: f32 or u8 pixels, row-major) with
/// `filter` on `backend`, with `variant` forced when given: one upload each
/// (u8 pixels as they are, four to a word), one download. Shapes are checked
/// against the slices before anything is allocated.
pub fn conv2d_slice<P: Pixel + Element>(
    backend: &Arc<dyn Backend>,
    image: &[P],
    filter: &[f32],
    spec: &Conv2dSpec,
    variant: Option<Conv2dVariant>,
) -> Result<Vec<f32>> {
    spec.validate()?;
    let (pixels, taps) = (spec.pixels()?, spec.filter_len()?);
    if image.len() != pixels || filter.len() != taps {
        return Err(Error::ShapeMismatch(format!(
            "a {}x{} image and a {}x{} filter need {pixels} pixels and {taps} filter values, got {} and {}",
            spec.height,
            spec.width,
            spec.kh,
            spec.kw,
            image.len(),
            filter.len()
        )));
    }
    let plan = match variant {
        Some(v) => Conv2dPlan::with_variant(backend, spec, P::ELEM, v)?,
        None => Conv2dPlan::new(backend, spec, P::ELEM)?,
    };
    let input = Buffer::from_slice(backend, image)?;
    let weights = Buffer::from_slice(backend, filter)?;
    let out = backend.alloc(spec.out_bytes()?)?;
    plan.encode(&input, &weights, &out)?;
    out.read(pixels)
}

/// The same-size 2-D cross-correlation of a row-major `height × width` f32
/// image with a row-major odd `kh × kw` filter, on `backend`.
pub fn conv2d_f32(
    backend: &Arc<dyn Backend>,
    image: &[f32],
    filter: &[f32],
    spec: &Conv2dSpec,
) -> Result<Vec<f32>> {
    conv2d_slice(backend, image, filter, spec, None)
}

/// The same-size 2-D cross-correlation of a row-major `height × width` u8
/// image (uploaded as it is, four pixels to a word) with a row-major odd
/// `kh × kw` f32 filter, on `backend`; f32 output.
pub fn conv2d_u8(
    backend: &Arc<dyn Backend>,
    image: &[u8],
    filter: &[f32],
    spec: &Conv2dSpec,
) -> Result<Vec<f32>> {
    conv2d_slice(backend, image, filter, spec, None)
}

#[cfg(test)]
mod tests {
    use super::super::Border;
    use super::*;

    /// lavapipe-like: a loop cap, 32 KiB shared, 65 535 groups per axis.
    fn lavapipe() -> Capabilities {
        Capabilities {
            max_buffer_bytes: 1 << 31,
            ..Capabilities::software_device()
        }
    }

    fn spec(height: usize, width: usize, k: usize) -> Conv2dSpec {
        Conv2dSpec {
            height,
            width,
            kh: k,
            kw: k,
            border: Border::Clamp,
        }
    }

    #[test]
    fn every_geometry_stays_within_the_loop_budget_or_is_refused() {
        let caps = lavapipe();
        let budget = caps.loop_budget();
        for (h, w) in [
            (1, 1),
            (8192, 8192),
            (1, 1 << 24),
            (1 << 24, 1),
            (65_536, 65_535),
        ] {
            for k in [1, 5, 31, 49, 61, 63, 85, 127] {
                for v in Conv2dVariant::ALL {
                    for elem in [Elem::F32, Elem::U8] {
                        match geometry(&caps, &spec(h, w, k), elem, v) {
                            Ok(g) => {
                                assert!(g.loops <= budget, "{h}x{w} {k} {v:?}: {g:?}");
                                assert!(g.total_groups() >= g.tiles[0] * g.tiles[1]);
                                assert!(g.groups.iter().zip(&caps.max_groups).all(|(a, b)| a <= b));
                                assert!(g.shared_bytes <= caps.max_shared_bytes);
                            }
                            Err(Error::ExceedsLimit { .. }) => {}
                            Err(e) => panic!("{h}x{w} {k} {v:?}: {e}"),
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn wide_and_tall_images_get_a_two_dimensional_grid() {
        let caps = lavapipe();
        let g = geometry(
            &caps,
            &spec(1, 8 * 65_536 + 5, 3),
            Elem::F32,
            Conv2dVariant::Tile8x8,
        )
        .unwrap();
        assert_eq!(g.tiles, [65_537, 1]);
        assert_eq!(g.groups, [65_535, 2, 1]);
        let g = geometry(
            &caps,
            &spec(8 * 65_536 + 5, 1, 3),
            Elem::U8,
            Conv2dVariant::Tile8x8,
        )
        .unwrap();
        assert_eq!(g.tiles, [1, 65_537]);
        assert_eq!(g.groups, [65_535, 2, 1]);
    }

    #[test]
    fn shapes_past_u32_indices_are_refused() {
        let caps = lavapipe();
        for s in [
            spec(65_536, 65_536, 3),
            spec(1 << 32, 1, 3),
            spec(u32::MAX as usize - 10, 1, 3),
        ] {
            assert!(matches!(
                geometry(&caps, &s, Elem::U8, Conv2dVariant::Tile8x8),
                Err(Error::ExceedsLimit { .. })
            ));
        }
        // The filter shape that wraps to 9 values is refused before anything.
        let wraps = Conv2dSpec {
            kh: (1 << 63) + 9,
            kw: (1 << 63) + 1,
            ..spec(4, 4, 1)
        };
        assert!(matches!(
            geometry(&caps, &wraps, Elem::F32, Conv2dVariant::Tile8x8),
            Err(Error::ShapeMismatch(_))
        ));
        assert!(geometry(&caps, &spec(4, 4, 3), Elem::I32, Conv2dVariant::Tile8x8).is_err());
    }

    #[test]
    fn max_filter_fits_and_one_larger_does_not() {
        let caps = lavapipe();
        let k = max_square_filter(&caps) as usize;
        assert!(k % 2 == 1 && k >= 31, "{k}");
        let fits = |k: usize| {
            Conv2dVariant::ALL
                .into_iter()
                .filter(|v| !v.direct())
                .any(|v| geometry(&caps, &spec(64, 64, k), Elem::F32, v).is_ok())
        };
        assert!(fits(k));
        assert!(!fits(k + 2));
        // `direct` takes it, and is the first of the default order that does.
        let over = spec(64, 64, k + 2);
        assert!(geometry(&caps, &over, Elem::F32, Conv2dVariant::Direct).is_ok());
        let device = crate::op::test_device(rosetta_core::Api::Vulkan, caps.clone());
        let first = Conv2dVariant::default_order(&device)
            .into_iter()
            .find(|&v| geometry(&caps, &over, Elem::F32, v).is_ok());
        assert_eq!(first, Some(Conv2dVariant::Direct));
    }

    /// The chunks of `direct`'s geometry: consecutive from 0, in order,
    /// none empty, covering the filter's values, each launch within the
    /// budget; their count the geometry's launches.
    fn check_chunks(caps: &Capabilities, g: &Geometry, values: u64) {
        let chunks = filter_chunks(g, values);
        assert_eq!(chunks.len() as u64, g.launches, "{g:?}");
        assert!(g.launches <= MAX_DIRECT_LAUNCHES);
        let per_group = g.tiles[0].div_ceil(g.total_groups());
        let mut next = 0;
        for &(begin, end) in &chunks {
            assert_eq!(begin, next, "{chunks:?}");
            assert!(end > begin && end - begin <= g.chunk, "{chunks:?}");
            assert!(direct_loop_iterations(end - begin, per_group) <= caps.loop_budget());
            assert!(direct_loop_iterations(end - begin, per_group) <= g.loops);
            next = end;
        }
        assert_eq!(next, values, "{chunks:?}");
    }

    #[test]
    fn direct_chunks_cover_the_filter_in_order_within_the_loop_budget() {
        let capped = lavapipe();
        assert_eq!(capped.loop_budget(), 16_383);
        let uncapped = Capabilities {
            loop_limit: None,
            ..lavapipe()
        };
        let mut launches = Vec::new();
        for caps in [&capped, &uncapped] {
            for (h, w) in [(1, 1), (5, 7), (100, 90), (8192, 8192), (1, 1 << 24)] {
                for (kh, kw) in [(1, 1), (3, 5), (65, 65), (15, 251), (101, 325), (1, 16_383)] {
                    for border in Border::ALL {
                        let s = Conv2dSpec {
                            kh,
                            kw,
                            border,
                            ..spec(h, w, 1)
                        };
                        let g = geometry(caps, &s, Elem::U8, Conv2dVariant::Direct).unwrap();
                        check_chunks(caps, &g, (kh * kw) as u64);
                        assert_eq!(g.shared_bytes, 0);
                        assert!(g.total_groups() >= g.tiles[0]);
                        if caps.loop_limit.is_none() {
                            assert_eq!(g.launches, 1, "{s:?}");
                        }
                        launches.push(g.launches);
                    }
                }
            }
        }
        // 101 × 325 = 32 825 values: three launches under lavapipe's
        // budget; 1 × 16 383 (one more than a launch holds): two.
        let s = Conv2dSpec {
            kh: 101,
            kw: 325,
            ..spec(5, 7, 1)
        };
        let g = geometry(&capped, &s, Elem::F32, Conv2dVariant::Direct).unwrap();
        assert_eq!((g.launches, g.chunk, g.loops), (3, 10_942, 10_943));
        let s = Conv2dSpec {
            kh: 1,
            kw: 16_383,
            ..spec(5, 7, 1)
        };
        let g = geometry(&capped, &s, Elem::F32, Conv2dVariant::Direct).unwrap();
        assert_eq!((g.launches, g.chunk), (2, 8_192));
        // Chunks forced smaller (conformance's `direct_in_chunks`).
        for most in [1, 7, 44, 10_000] {
            let s = Conv2dSpec {
                kh: 9,
                kw: 5,
                ..spec(29, 41, 1)
            };
            let g = direct_geometry(&uncapped, &s, Elem::F32, most).unwrap();
            check_chunks(&uncapped, &g, 45);
            assert!(g.chunk <= most);
            assert_eq!(g.launches, 45u64.div_ceil(most.min(45)));
        }
    }

    #[test]
    fn direct_refuses_more_launches_than_the_cap_and_budgets_below_one_value() {
        let caps = lavapipe();
        // 8193² values need 4098 launches of at most 16 382.
        let s = spec(64, 64, 8_193);
        assert!(matches!(
            geometry(&caps, &s, Elem::F32, Conv2dVariant::Direct),
            Err(Error::ExceedsLimit {
                requested: 4_098,
                limit: MAX_DIRECT_LAUNCHES,
                ..
            })
        ));
        let uncapped = Capabilities {
            loop_limit: None,
            ..lavapipe()
        };
        assert_eq!(
            geometry(&uncapped, &s, Elem::F32, Conv2dVariant::Direct)
                .unwrap()
                .launches,
            1
        );
        assert!(matches!(
            direct_chunks(MAX_DIRECT_LAUNCHES + 1, 1, u64::MAX, 1),
            Err(Error::ExceedsLimit { .. })
        ));
        assert_eq!(
            direct_chunks(MAX_DIRECT_LAUNCHES, 1, u64::MAX, 1).unwrap(),
            (1, MAX_DIRECT_LAUNCHES)
        );
        // A budget that cannot hold one value per launch (the grid-stride
        // loop's iteration and the value): refused.
        let tiny = Capabilities {
            loop_limit: Some(4),
            ..lavapipe()
        };
        assert!(matches!(
            geometry(&tiny, &spec(5, 5, 3), Elem::F32, Conv2dVariant::Direct),
            Err(Error::ExceedsLimit { .. })
        ));
        assert!(matches!(
            direct_chunks(9, 2, 3, u64::MAX),
            Err(Error::ExceedsLimit { .. })
        ));
        assert_eq!(direct_chunks(9, 2, 4, u64::MAX).unwrap(), (1, 9));
        // Past u32 positions and indices, as the other variants.
        assert!(matches!(
            geometry(
                &uncapped,
                &spec(65_536, 65_536, 3),
                Elem::U8,
                Conv2dVariant::Direct
            ),
            Err(Error::ExceedsLimit { .. })
        ));
        let wide = Conv2dSpec {
            kw: u32::MAX as usize,
            kh: 1,
            ..spec(1, 1, 1)
        };
        assert!(matches!(
            geometry(&uncapped, &wide, Elem::F32, Conv2dVariant::Direct),
            Err(Error::ExceedsLimit { .. })
        ));
    }

    #[test]
    fn register_windows_take_filters_up_to_9x9_and_16_rows() {
        let caps = lavapipe();
        for v in Conv2dVariant::ALL.into_iter().filter(|v| v.window()) {
            let g = geometry(&caps, &spec(300, 300, 9), Elem::F32, v);
            let (tw, th) = v.tile();
            let rows = u64::from(tw * th / preferred_group_size(&caps).min(tw * th));
            assert_eq!(g.is_ok(), rows <= WINDOW_MAX_ROWS, "{v:?}: {g:?}");
            assert!(matches!(
                geometry(&caps, &spec(300, 300, 11), Elem::F32, v),
                Err(Error::ExceedsLimit { .. })
            ));
            let tall = Conv2dSpec {
                kh: 81,
                kw: 1,
                ..spec(300, 300, 1)
            };
            assert_eq!(
                geometry(&caps, &tall, Elem::U8, v).is_ok(),
                rows <= WINDOW_MAX_ROWS
            );
        }
        // Workgroups of 64 give 32 × 64 tiles 32 rows per invocation: refused.
        let small = Capabilities {
            max_group_invocations: 64,
            ..lavapipe()
        };
        assert!(matches!(
            geometry(
                &small,
                &spec(64, 64, 3),
                Elem::F32,
                Conv2dVariant::Window32x64
            ),
            Err(Error::ExceedsLimit { .. })
        ));
    }

    #[test]
    fn the_wgsl_arrays_match_the_window_limits() {
        let wgsl = include_str!("conv2d.wgsl");
        assert!(wgsl.contains(&format!("const MAX_ROWS: u32 = {WINDOW_MAX_ROWS}u;")));
        assert!(wgsl.contains(&format!("const MAX_TAPS: u32 = {WINDOW_MAX_TAPS}u;")));
    }

    #[test]
    fn global_windows_need_workgroups_of_256_and_the_plan_falls_back_without_them() {
        let mut caps = lavapipe();
        caps.max_group_invocations = 128;
        caps.max_group_size = [128, 128, 64];
        let spec = spec(64, 64, 5);
        for v in [Conv2dVariant::Global128x32, Conv2dVariant::Global128x64] {
            assert!(matches!(
                geometry(&caps, &spec, Elem::F32, v),
                Err(Error::ExceedsLimit { .. })
            ));
            assert!(geometry(&lavapipe(), &spec, Elem::F32, v).is_ok());
        }
        let device = crate::op::test_device(rosetta_core::Api::Vulkan, caps.clone());
        let first = Conv2dVariant::default_order(&device)
            .into_iter()
            .find(|&v| geometry(&caps, &spec, Elem::F32, v).is_ok());
        assert_eq!(first, Some(Conv2dVariant::Window32x64));
    }

    #[test]
    fn global_windows_come_first_except_on_the_cpu_backend_then_halo_windows_except_on_pocl() {
        use rosetta_core::{Api, DeviceType};
        let device = |api, device_type| {
            let caps = Capabilities {
                device_type,
                ..lavapipe()
            };
            crate::op::test_device(api, caps)
        };
        for api in Api::ALL {
            for device_type in [DeviceType::Cpu, DeviceType::DiscreteGpu] {
                let order = Conv2dVariant::default_order(&device(api, device_type));
                let mut sorted = order.clone();
                sorted.sort_by_key(|v| Conv2dVariant::ALL.iter().position(|a| a == v));
                assert_eq!(sorted, Conv2dVariant::ALL, "every variant once");
                let pocl = api == Api::Opencl && device_type == DeviceType::Cpu;
                // The first variant after the global windows.
                let halo_first = if pocl {
                    Conv2dVariant::Tile32x32
                } else if api == Api::Cuda {
                    Conv2dVariant::Window32x128
                } else {
                    Conv2dVariant::Window32x64
                };
                let global_first = if device_type == DeviceType::Cpu && api != Api::Wgpu {
                    Conv2dVariant::Global128x64
                } else {
                    Conv2dVariant::Global128x32
                };
                assert_eq!(order.last(), Some(&Conv2dVariant::Direct), "{order:?}");
                if api == Api::Cpu {
                    assert_eq!(order[0], halo_first, "{api:?} {device_type:?}");
                    assert!(order[9..11].iter().all(|v| v.global()), "{order:?}");
                } else {
                    assert_eq!(order[0], global_first, "{api:?} {device_type:?}");
                    assert!(order[1].global());
                    assert_eq!(order[2], halo_first, "{api:?} {device_type:?}");
                }
            }
        }
    }
}
