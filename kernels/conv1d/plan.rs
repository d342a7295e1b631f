//! The conv1d plan: one launch of the tiled or window kernel, or the direct
//! kernel's launches over chunks of the filter, with the variant and grid
//! chosen for the device.

use super::spec::Conv1dSpec;
use crate::op::{
    check_apart, check_binding, chunk_ranges, plan_tuned, preferred_group_size, prepare_kernel,
    split_in_chunks, u32_param, ChunkLimits,
};
pub use crate::op::{direct_loop_iterations, MAX_DIRECT_LAUNCHES};
use rosetta_core::{
    check_limit, grid_2d, Backend, Buffer, Capabilities, Error, Kernel, Launch, Result,
};
use std::sync::Arc;

/// How many outputs each invocation computes per tile (the tile is
/// `GROUP_SIZE · items` outputs). Named as in reports, case names and the
/// tuning cache. A variant is one kernel and its tiling; another kernel (wide
/// loads, say) would be another variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conv1dVariant {
    /// One output per invocation: the smallest tile, the longest filters.
    Items1,
    /// Two outputs per invocation.
    Items2,
    /// Four outputs per invocation (each tap read from shared memory once
    /// for four outputs).
    Items4,
    /// Eight outputs per invocation.
    Items8,
    /// Sixteen outputs per invocation.
    Items16,
    /// The register window: four consecutive outputs per invocation from a
    /// window of the signal loaded as 16-byte vectors, no shared memory
    /// (filters of at most [`MAX_WINDOW_TAPS`] taps).
    Window4,
    /// The register window, two vectors of four outputs per invocation.
    Window8,
    /// One output per invocation summing the taps straight from global
    /// memory: no shared memory, no private arrays, filters of any length
    /// (split over launches to stay within the loop budget, see
    /// [`chunk_ranges`]). The fallback for filters nothing else holds; slow.
    Direct,
}

/// The most taps the window variants hold in registers: 33 taps, a window of
/// 36 values (4 halo vectors on each side).
pub const MAX_WINDOW_TAPS: u64 = 33;

impl Conv1dVariant {
    /// Every variant.
    pub const ALL: [Conv1dVariant; 8] = [
        Conv1dVariant::Items1,
        Conv1dVariant::Items2,
        Conv1dVariant::Items4,
        Conv1dVariant::Items8,
        Conv1dVariant::Items16,
        Conv1dVariant::Window4,
        Conv1dVariant::Window8,
        Conv1dVariant::Direct,
    ];

    /// The order [`Conv1dPlan::new`] tries variants in when nothing is
    /// tuned: the register windows first (`window8`, then `window4`), then
    /// the tiles of eight, four, two and one outputs per invocation for
    /// filters longer than a window holds; `items16` runs only where the
    /// tuner chose it. Measured with `rosetta tune --op conv1d --size large`
    /// (2^26 values, 9 taps on an H200, `docs/results/h200-2026-11-23g/`):
    /// window8 133.8 / 133.3 / 134.1 / 137.8 µs through CUDA / Vulkan /
    /// OpenCL / wgpu, against items8's 188.4 / 198.1 / 199.0 / 190.8; on
    /// this project's 2-core machine (2^24 values) lavapipe 256 ms against
    /// 1.37 s and PoCL 13.5 ms against 56 ms.
    ///
    /// The CPU backend keeps the tiles first: its Rust window runs a vector
    /// at a time, 50 ms against items8's 11.5 ms on the 2-core machine.
    ///
    /// `direct` comes last everywhere: it reads every tap from global memory
    /// for every output, the fallback for filters no shared memory or
    /// register window holds.
    pub fn default_order(device: &rosetta_core::DeviceInfo) -> Vec<Self> {
        let windows = [Conv1dVariant::Window8, Conv1dVariant::Window4];
        let tiles = [
            Conv1dVariant::Items8,
            Conv1dVariant::Items4,
            Conv1dVariant::Items2,
            Conv1dVariant::Items1,
        ];
        let fallback = [Conv1dVariant::Direct];
        if device.api == rosetta_core::Api::Cpu {
            tiles.into_iter().chain(windows).chain(fallback).collect()
        } else {
            windows.into_iter().chain(tiles).chain(fallback).collect()
        }
    }

    /// The name in reports, case names and the tuning cache.
    pub fn name(self) -> &'static str {
        match self {
            Conv1dVariant::Items1 => "items1",
            Conv1dVariant::Items2 => "items2",
            Conv1dVariant::Items4 => "items4",
            Conv1dVariant::Items8 => "items8",
            Conv1dVariant::Items16 => "items16",
            Conv1dVariant::Window4 => "window4",
            Conv1dVariant::Window8 => "window8",
            Conv1dVariant::Direct => "direct",
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

    /// The kernel the variant launches: the halo tiles of `conv1d.*`, the
    /// register window of `conv1d_window.*` or the direct sum of
    /// `conv1d_direct.*` (all listed by [`crate::op::Op::kernels`]).
    pub fn kernel(self) -> &'static std::sync::Arc<rosetta_core::KernelDef> {
        if self.window() {
            super::kernel::window_kernel()
        } else if self.direct() {
            super::kernel::direct_kernel()
        } else {
            super::kernel::kernel()
        }
    }

    /// Whether the variant is a register window (no shared memory).
    pub fn window(self) -> bool {
        matches!(self, Conv1dVariant::Window4 | Conv1dVariant::Window8)
    }

    /// Whether the variant is the direct sum from global memory (no shared
    /// memory, no private arrays, any filter length).
    pub fn direct(self) -> bool {
        self == Conv1dVariant::Direct
    }

    /// Outputs per invocation per tile (the kernel's `ITEMS`).
    pub fn items(self) -> u32 {
        match self {
            Conv1dVariant::Items1 => 1,
            Conv1dVariant::Items2 => 2,
            Conv1dVariant::Items4 => 4,
            Conv1dVariant::Items8 => 8,
            Conv1dVariant::Items16 => 16,
            Conv1dVariant::Window4 => 4,
            Conv1dVariant::Window8 => 8,
            Conv1dVariant::Direct => 1,
        }
    }
}

/// The tuner's key: taps and length, each as a power-of-two class.
pub fn tune_class(spec: &Conv1dSpec) -> String {
    let log2 = |x: u64| 64 - (x.max(1) - 1).leading_zeros();
    format!(
        "taps<=2^{} n<=2^{}",
        log2(spec.taps as u64),
        log2(spec.len as u64)
    )
}

/// Workgroups shrink to this size (not below) to fit long filters.
const MIN_GROUP_SIZE: u32 = 32;

/// Shared memory of one configuration, in bytes: the taps, then the halo
/// tile of `group_size · items + taps − 1` values.
pub fn shared_bytes(group_size: u32, items: u32, taps: u64) -> u64 {
    (u64::from(group_size) * u64::from(items) + 2 * taps - 1) * 4
}

/// Loop iterations one invocation runs, counted generously (every loop of
/// the kernel as written, nested loops multiplied): the taps load, and per
/// tile the tile loop itself, the halo load, the `taps × items` products and
/// the accumulator set-up and stores.
pub fn loop_iterations(taps: u64, items: u32, group_size: u32, tiles_per_group: u64) -> u64 {
    let (gs, items) = (u64::from(group_size), u64::from(items));
    let halo = (gs * items + taps - 1).div_ceil(gs);
    taps.div_ceil(gs) + tiles_per_group * (1 + halo + taps * items + 2 * items)
}

/// Loop iterations one invocation of the window kernel runs, counted
/// generously (every loop as written, nested loops multiplied, the border's
/// word-by-word window load rather than the vector load): the taps load, and
/// per tile the tile loop and per vector the window, the `taps × 4` products
/// and the four stores.
pub fn window_loop_iterations(taps: u64, items: u32, tiles_per_group: u64) -> u64 {
    let window = 4 * (2 * (taps / 2).div_ceil(4) + 1);
    let vectors = u64::from(items) / 4;
    taps + tiles_per_group * (1 + vectors * (1 + window + 4 * taps + 4))
}

/// What the direct variant's split refuses, in conv1d's words.
const DIRECT_LIMITS: ChunkLimits = ChunkLimits {
    one_value: "conv1d loop iterations per invocation of a one-tap chunk (direct)",
    launches: "conv1d launches of the direct variant (chunks of taps within the loop budget)",
};

/// Launch geometry of one plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Invocations per workgroup.
    pub group_size: u32,
    /// Outputs per invocation per tile.
    pub items: u32,
    /// Tiles of `group_size · items` outputs.
    pub tiles: u64,
    /// The grid: one workgroup per tile, over x and then y.
    pub groups: [u32; 3],
    /// Loop iterations per invocation in one launch (see
    /// [`loop_iterations`], [`window_loop_iterations`] and
    /// [`direct_loop_iterations`] of the longest chunk).
    pub loops: u64,
    /// A register window (no shared memory), not halo tiles.
    pub window: bool,
    /// The direct sum from global memory (no shared memory).
    pub direct: bool,
    /// Taps per launch: all of them but for the direct variant, whose last
    /// launch may take fewer ([`chunk_ranges`]).
    pub chunk: u64,
    /// Launches, one per chunk of taps: 1 but for the direct variant.
    pub launches: u64,
}

impl Geometry {
    /// Workgroups in the grid.
    pub fn total_groups(&self) -> u64 {
        self.groups.iter().map(|&g| u64::from(g)).product()
    }

    /// Shared memory, in bytes (none for a window or the direct sum).
    pub fn shared_bytes(&self, taps: u64) -> u64 {
        if self.window || self.direct {
            0
        } else {
            shared_bytes(self.group_size, self.items, taps)
        }
    }

    /// The launches' ranges of taps `[f_begin, f_end)`, in order (one range
    /// of every tap but for the direct variant).
    pub fn chunks(&self, taps: u64) -> impl Iterator<Item = (u64, u64)> {
        chunk_ranges(taps, self.chunk)
    }
}

/// The geometry of `variant` for `spec` on a device, or the typed error that
/// says why it cannot run there: the taps and halo tile must fit in shared
/// memory (workgroups shrink to `MIN_GROUP_SIZE` first), the kernels' u32
/// positions (up to `len + tile + taps`) must not wrap, and no invocation may
/// loop more often than the device's loop budget allows (llvmpipe stops
/// loops silently past its cap). One workgroup per tile, the grid split over
/// x and y where the tiles outnumber `max_groups[0]`; the kernel strides
/// over the flat tile index, so a grid smaller than the tiles still covers
/// them (each group then loops over several).
///
/// The direct variant (tiles of one output per invocation) splits the taps
/// into the fewest launches whose chunks keep every invocation within the
/// loop budget, of equal length but the last ([`chunk_ranges`]); one
/// launch where the device has no loop cap. Refused when even a one-tap
/// chunk does not fit or more than [`MAX_DIRECT_LAUNCHES`] are needed.
pub fn geometry(
    caps: &Capabilities,
    spec: &Conv1dSpec,
    variant: Conv1dVariant,
) -> Result<Geometry> {
    geometry_in_chunks(caps, spec, variant, u64::MAX)
}

/// [`geometry`], the direct variant's chunks at most `most` taps long
/// (shorter where the loop budget says so; other variants ignore it).
fn geometry_in_chunks(
    caps: &Capabilities,
    spec: &Conv1dSpec,
    variant: Conv1dVariant,
    most: u64,
) -> Result<Geometry> {
    spec.validate()?;
    let n = u64::from(u32_param("conv1d signal length", spec.len as u64)?);
    let taps = u64::from(u32_param("conv1d filter taps", spec.taps as u64)?);
    let items = variant.items();
    let window = variant.window();
    let mut group_size = preferred_group_size(caps);
    if window {
        check_limit(
            "conv1d taps of a register window (the window variants)",
            taps,
            MAX_WINDOW_TAPS,
        )?;
    } else if !variant.direct() {
        let max_shared = u64::from(caps.max_shared_bytes);
        let floor = MIN_GROUP_SIZE.min(group_size);
        while shared_bytes(group_size, items, taps) > max_shared && group_size > floor {
            group_size /= 2;
        }
        check_limit(
            "conv1d shared memory (bytes) for the taps and the smallest halo tile",
            shared_bytes(group_size, items, taps),
            max_shared,
        )?;
    }
    let tile = u64::from(group_size) * u64::from(items);
    // Positions in the kernels are u32: offset by the radius, below
    // n + tile + taps − 1 (tiles); the window's last slot of the last
    // vector, below n + tile + taps + 8 (windows).
    check_limit(
        "conv1d signal length + tile + taps (u32 positions)",
        n + tile + taps + if window { 8 } else { 0 },
        u64::from(u32::MAX),
    )?;
    let tiles = n.div_ceil(tile).max(1);
    let groups = grid_2d(tiles, caps).unwrap_or([caps.max_groups[0], caps.max_groups[1], 1]);
    let total = groups.iter().map(|&g| u64::from(g)).product::<u64>();
    // The kernels' flat tile index `t + groups` stays below 2^32.
    check_limit("conv1d workgroups", total, 1 << 31)?;
    let tiles_per_group = tiles.div_ceil(total);
    let budget = caps.loop_budget();
    let (chunk, launches) = if variant.direct() {
        split_in_chunks(taps, tiles_per_group, budget, most, &DIRECT_LIMITS)?
    } else {
        (taps, 1)
    };
    let loops = if window {
        window_loop_iterations(taps, items, tiles_per_group)
    } else if variant.direct() {
        direct_loop_iterations(chunk, tiles_per_group)
    } else {
        loop_iterations(taps, items, group_size, tiles_per_group)
    };
    check_limit(
        "conv1d loop iterations per invocation (the driver stops longer loops silently)",
        loops,
        budget,
    )?;
    Ok(Geometry {
        group_size,
        items,
        tiles,
        groups,
        loops,
        window,
        direct: variant.direct(),
        chunk,
        launches,
    })
}

/// The most taps a variant that keeps the filter on chip (halo tiles in
/// shared memory, register windows) runs on a device with `caps` (shared
/// memory and the loop budget decide): what the `limits` cases use. The
/// direct variant runs longer filters.
pub fn max_taps(caps: &Capabilities) -> u64 {
    let fits = |taps: u64| {
        let spec = Conv1dSpec {
            len: 4099,
            taps: taps as usize,
        };
        Conv1dVariant::ALL
            .into_iter()
            .filter(|v| !v.direct())
            .any(|v| geometry(caps, &spec, v).is_ok())
    };
    // Largest odd count that fits: binary search over t with taps = 2t + 1.
    let (mut lo, mut hi) = (0u64, u64::from(caps.max_shared_bytes) / 8 + 1);
    if !fits(1) {
        return 0;
    }
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

/// The first variant of [`Conv1dVariant::default_order`] that fits `spec`
/// on `device`, if any.
pub fn default_variant(
    device: &rosetta_core::DeviceInfo,
    spec: &Conv1dSpec,
) -> Option<Conv1dVariant> {
    Conv1dVariant::default_order(device)
        .into_iter()
        .find(|&v| geometry(&device.caps, spec, v).is_ok())
}

/// A compiled conv1d: one launch (the direct variant: one per chunk of taps).
pub struct Conv1dPlan {
    backend: Arc<dyn Backend>,
    spec: Conv1dSpec,
    variant: Conv1dVariant,
    tuned: bool,
    kernel: Kernel,
    launch: Launch,
    geometry: Geometry,
    /// Each launch's param words, in order: `n` (and for the direct
    /// variant the chunk's `f_begin`, `f_end`).
    params: Vec<Vec<u32>>,
}

impl Conv1dPlan {
    /// Plan with the tuned variant for this device and shape, or the first of
    /// [`Conv1dVariant::default_order`] that fits the device.
    pub fn new(backend: &Arc<dyn Backend>, spec: &Conv1dSpec) -> Result<Self> {
        spec.validate()?;
        // Nothing fits: the fallback's error says why.
        let default = || Ok(default_variant(backend.info(), spec).unwrap_or(Conv1dVariant::Direct));
        let (mut plan, tuned) = plan_tuned(
            backend.info(),
            "conv1d",
            &tune_class(spec),
            Conv1dVariant::from_name,
            default,
            |v| Self::with_variant(backend, spec, v),
        )?;
        plan.tuned = tuned;
        Ok(plan)
    }

    /// Plan with a given variant (conformance forces each one). Limits are
    /// checked before anything is built.
    pub fn with_variant(
        backend: &Arc<dyn Backend>,
        spec: &Conv1dSpec,
        variant: Conv1dVariant,
    ) -> Result<Self> {
        let geometry = geometry(&backend.info().caps, spec, variant)?;
        Self::build(backend, spec, variant, geometry)
    }

    /// [`Conv1dPlan::with_variant`] as on a device whose grid holds at most
    /// `groups_x` workgroups (along x, one along y): each workgroup then
    /// strides over several tiles, a path real inputs reach only past
    /// `max_groups[0] · max_groups[1]` tiles (conformance runs it on every
    /// device this way). Returns the plan and its tile (outputs).
    pub(crate) fn with_grid(
        backend: &Arc<dyn Backend>,
        spec: &Conv1dSpec,
        variant: Conv1dVariant,
        groups_x: u32,
    ) -> Result<(Self, u64)> {
        let mut caps = backend.info().caps.clone();
        caps.max_groups[0] = caps.max_groups[0].min(groups_x.max(1));
        caps.max_groups[1] = 1;
        let geometry = geometry(&caps, spec, variant)?;
        let tile = u64::from(geometry.group_size) * u64::from(geometry.items);
        Ok((Self::build(backend, spec, variant, geometry)?, tile))
    }

    /// `direct` with at most `chunk` taps per launch (fewer where the loop
    /// budget says so): the same sums, in the same order, over more
    /// launches, which conformance compares with the plan's own (on devices
    /// without a loop cap the plan makes one launch, and this is what runs
    /// the later launches' path there).
    pub(crate) fn direct_in_chunks(
        backend: &Arc<dyn Backend>,
        spec: &Conv1dSpec,
        chunk: u64,
    ) -> Result<Self> {
        let variant = Conv1dVariant::Direct;
        let geometry = geometry_in_chunks(&backend.info().caps, spec, variant, chunk)?;
        Self::build(backend, spec, variant, geometry)
    }

    /// Compile `variant` for `geometry` (checked) and set out its launches.
    fn build(
        backend: &Arc<dyn Backend>,
        spec: &Conv1dSpec,
        variant: Conv1dVariant,
        geometry: Geometry,
    ) -> Result<Self> {
        let taps = spec.taps as u64;
        let launch = Launch {
            groups: geometry.groups,
            group_size: geometry.group_size,
            // At most max_shared_bytes (a u32), checked in `geometry`.
            shared_bytes: geometry.shared_bytes(taps) as u32,
        };
        let constants: &[(&str, u32)] = if variant.direct() {
            &[
                ("GROUP_SIZE", geometry.group_size),
                ("TAPS", spec.taps as u32),
            ]
        } else {
            &[
                ("GROUP_SIZE", geometry.group_size),
                ("ITEMS", geometry.items),
                ("TAPS", spec.taps as u32),
            ]
        };
        let kernel = prepare_kernel(backend, variant.kernel(), constants, &launch)?;
        // Lengths and taps fit a u32 (checked in `geometry`).
        let n = spec.len as u32;
        let params = if variant.direct() {
            geometry
                .chunks(taps)
                .map(|(begin, end)| vec![n, begin as u32, end as u32])
                .collect()
        } else {
            vec![vec![n]]
        };
        Ok(Conv1dPlan {
            backend: Arc::clone(backend),
            spec: *spec,
            variant,
            tuned: false,
            kernel,
            launch,
            geometry,
            params,
        })
    }

    /// What the plan convolves.
    pub fn spec(&self) -> &Conv1dSpec {
        &self.spec
    }

    /// The variant it runs.
    pub fn variant(&self) -> Conv1dVariant {
        self.variant
    }

    /// Whether the variant came from the tuning cache.
    pub fn tuned(&self) -> bool {
        self.tuned
    }

    /// The launch it enqueues (each of them, for the direct variant's chunks).
    pub fn launch(&self) -> &Launch {
        &self.launch
    }

    /// Its geometry (tiles, grid, loop count, launches).
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// Enqueue the convolution of the signal `x` (`len` f32) with `taps`
    /// (`taps` f32) into `out` (`len` f32).
    pub fn encode(&self, x: &Buffer, taps: &Buffer, out: &Buffer) -> Result<()> {
        let backend = &self.backend;
        let signal_bytes = self.spec.signal_bytes()?;
        check_binding(backend, "conv1d signal", x, signal_bytes)?;
        check_binding(backend, "conv1d taps", taps, self.spec.taps_bytes()?)?;
        check_binding(backend, "conv1d output", out, signal_bytes)?;
        check_apart("conv1d", ("output", out), &[("signal", x), ("taps", taps)])?;
        if self.spec.len == 0 {
            return Ok(());
        }
        for params in &self.params {
            // SAFETY: with n = len (checked to fit a u32, with n + tile +
            // taps (+ 8 for a window) below 2^32, in `geometry`), the kernel
            // reads x[i] only for i < n (positions are tested against n
            // before the load; a window's 16-byte loads only when its last
            // word is below n), taps[j] for j < TAPS = spec.taps (the direct
            // kernel: j in the chunk [f_begin, f_end), f_end <= TAPS), and
            // reads (direct, after the first chunk) and writes out[i] only
            // for i < n (a whole vector only when its last word is); the
            // three buffers hold at least that many f32 (checked above),
            // start at their allocation, 16-byte aligned, and the output is
            // neither input (checked above). The tiles index shared memory
            // below TAPS + GROUP_SIZE·ITEMS + TAPS − 1 words, what
            // `launch.shared_bytes` holds; a window and the direct sum use
            // none, and a window's private arrays hold TAPS <=
            // MAX_WINDOW_TAPS taps and the window those taps need. Every
            // loop is bounded (by TAPS or the chunk, the halo tile or window,
            // ITEMS, and the tile count), and the flat tile index stays
            // below 2^32 (tiles < 2^27, workgroups <= 2^31). The direct
            // kernel's launches run in order on the backend's queue, each
            // seeing the previous one's sums in `out`.
            unsafe {
                backend.launch(&self.kernel, &self.launch, &[x, taps, out], params)?;
            }
        }
        Ok(())
    }
}

/// The convolution of `x` with `taps` on `backend`, with `variant` forced
/// when given: one upload each, one download.
pub fn conv1d_slice(
    backend: &Arc<dyn Backend>,
    x: &[f32],
    taps: &[f32],
    variant: Option<Conv1dVariant>,
) -> Result<Vec<f32>> {
    let spec = Conv1dSpec {
        len: x.len(),
        taps: taps.len(),
    };
    let plan = match variant {
        Some(v) => Conv1dPlan::with_variant(backend, &spec, v)?,
        None => Conv1dPlan::new(backend, &spec)?,
    };
    let input = Buffer::from_slice(backend, x)?;
    let filter = Buffer::from_slice(backend, taps)?;
    let out = backend.alloc(spec.signal_bytes()?)?;
    plan.encode(&input, &filter, &out)?;
    out.read(x.len())
}

/// Refuse names that are not variants (workloads and the tuner pass names).
pub fn variant_named(name: &str) -> Result<Conv1dVariant> {
    Conv1dVariant::from_name(name)
        .ok_or_else(|| Error::InvalidArgument(format!("no conv1d variant '{name}'")))
}

/// The same-size, zero-border cross-correlation of `x` with an odd filter
/// `taps`, on `backend`: one upload each, one download.
pub fn conv1d_f32(backend: &Arc<dyn Backend>, x: &[f32], taps: &[f32]) -> Result<Vec<f32>> {
    conv1d_slice(backend, x, taps, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// lavapipe-like: a loop cap, 32 KiB shared, 65 535 groups per axis.
    fn lavapipe() -> Capabilities {
        Capabilities {
            max_buffer_bytes: 1 << 31,
            ..Capabilities::software_device()
        }
    }

    #[test]
    fn every_geometry_stays_within_the_loop_budget_or_is_refused() {
        let caps = lavapipe();
        let budget = caps.loop_budget();
        for len in [
            0usize,
            1,
            4099,
            1 << 24,
            (1 << 26) + 3,
            u32::MAX as usize - 9000,
        ] {
            for taps in [1usize, 9, 257, 1025, 4097, 8191, 16_383, 65_535] {
                for v in Conv1dVariant::ALL {
                    let spec = Conv1dSpec { len, taps };
                    match geometry(&caps, &spec, v) {
                        Ok(g) => {
                            assert!(g.loops <= budget, "{spec:?} {v:?}: {g:?}");
                            assert!(g.total_groups() >= g.tiles.min(65_535 * 65_535));
                            assert!(g.groups.iter().zip(&caps.max_groups).all(|(a, b)| a <= b));
                            assert!(
                                g.shared_bytes(taps as u64) <= u64::from(caps.max_shared_bytes)
                            );
                        }
                        Err(Error::ExceedsLimit { .. }) => {}
                        Err(e) => panic!("{spec:?} {v:?}: {e}"),
                    }
                }
            }
        }
    }

    #[test]
    fn long_signals_get_a_two_dimensional_grid() {
        let caps = lavapipe();
        let spec = Conv1dSpec {
            len: 1 << 26,
            taps: 9,
        };
        let g = geometry(&caps, &spec, Conv1dVariant::Items1).unwrap();
        assert_eq!(g.tiles, 1 << 18);
        assert_eq!(g.groups, [65_535, 5, 1]);
        assert_eq!(g.loops, loop_iterations(9, 1, 256, 1));
    }

    #[test]
    fn windows_take_filters_up_to_their_register_window_and_no_shared_memory() {
        let caps = lavapipe();
        for v in [Conv1dVariant::Window4, Conv1dVariant::Window8] {
            let at = |taps: usize| geometry(&caps, &Conv1dSpec { len: 4099, taps }, v);
            let g = at(MAX_WINDOW_TAPS as usize).unwrap();
            assert!(g.window);
            assert_eq!(g.shared_bytes(MAX_WINDOW_TAPS), 0);
            assert_eq!(g.tiles, 4099u64.div_ceil(256 * u64::from(v.items())));
            assert!(matches!(
                at(MAX_WINDOW_TAPS as usize + 2),
                Err(Error::ExceedsLimit { .. })
            ));
            assert!(std::ptr::eq(
                v.kernel(),
                super::super::kernel::window_kernel()
            ));
        }
        // Positions up to the last window slot stay below 2^32.
        let spec = Conv1dSpec {
            len: u32::MAX as usize - 256 * 8 - 33 - 4,
            taps: 33,
        };
        assert!(geometry(&caps, &spec, Conv1dVariant::Window8).is_err());
        let spec = Conv1dSpec {
            len: u32::MAX as usize - 256 * 8 - 33 - 8,
            taps: 33,
        };
        assert!(geometry(&caps, &spec, Conv1dVariant::Window8).is_ok());
    }

    #[test]
    fn windows_come_first_except_on_the_cpu_backend_and_tiles_follow() {
        use rosetta_core::Api;
        for api in Api::ALL {
            let order = Conv1dVariant::default_order(&crate::op::test_device(api, lavapipe()));
            let windows = order.iter().take_while(|v| v.window()).count();
            let first_window = order.iter().position(|v| v.window()).unwrap();
            if api == Api::Cpu {
                assert_eq!(order[0], Conv1dVariant::Items8, "{order:?}");
                assert!(order[..first_window].iter().all(|v| !v.window()));
            } else {
                assert_eq!(order[0], Conv1dVariant::Window8, "{api:?}");
                assert_eq!(windows, 2, "{order:?}");
            }
            // A filter too long for a window still finds a tile.
            assert!(order.contains(&Conv1dVariant::Items1));
            assert!(!order.contains(&Conv1dVariant::Items16));
            // The direct sum is the last resort, everywhere.
            assert_eq!(order.last(), Some(&Conv1dVariant::Direct), "{api:?}");
            assert_eq!(order.iter().filter(|v| v.direct()).count(), 1);
        }
    }

    /// Check the direct variant's chunks for `spec`: they cover [0, taps)
    /// in order, none empty, every launch within the budget, as many as
    /// the geometry says.
    fn check_chunks(caps: &Capabilities, spec: &Conv1dSpec) -> Geometry {
        let g = geometry(caps, spec, Conv1dVariant::Direct).unwrap();
        let taps = spec.taps as u64;
        let per_group = g.tiles.div_ceil(g.total_groups());
        let mut next = 0;
        let mut count = 0;
        for (begin, end) in g.chunks(taps) {
            assert_eq!(begin, next, "{spec:?} {g:?}");
            assert!(begin < end && end - begin <= g.chunk, "{spec:?} {g:?}");
            assert!(direct_loop_iterations(end - begin, per_group) <= caps.loop_budget());
            next = end;
            count += 1;
        }
        assert_eq!(next, taps, "{spec:?} {g:?}");
        assert_eq!(count, g.launches, "{spec:?} {g:?}");
        assert!(g.loops <= caps.loop_budget());
        assert!(g.direct && g.shared_bytes(taps) == 0 && g.items == 1);
        g
    }

    #[test]
    fn direct_chunks_cover_the_filter_in_order_within_the_loop_budget() {
        // lavapipe's budget: 65 535 / 4 = 16 383 iterations, one tile per
        // group, so 16 382 taps per launch.
        let caps = lavapipe();
        assert_eq!(caps.loop_budget(), 16_383);
        for len in [1usize, 4099, (1 << 26) + 3, u32::MAX as usize - (1 << 20)] {
            for taps in [1usize, 9, 16_381, 16_383, 16_385, 32_765, 32_767, 100_001] {
                let g = check_chunks(&caps, &Conv1dSpec { len, taps });
                assert_eq!(g.launches, (taps as u64).div_ceil(16_382), "{len} {taps}");
            }
        }
        let g = check_chunks(
            &caps,
            &Conv1dSpec {
                len: 50,
                taps: 32_765,
            },
        );
        assert_eq!((g.launches, g.chunk), (3, 10_922));
        // A small grid: several tiles per group, shorter chunks.
        let small = Capabilities {
            max_groups: [1000, 1, 1],
            ..lavapipe()
        };
        let g = check_chunks(
            &small,
            &Conv1dSpec {
                len: 1 << 26,
                taps: 1001,
            },
        );
        assert_eq!(g.groups, [1000, 1, 1]);
        assert_eq!(g.tiles.div_ceil(1000), 263);
        assert!(direct_loop_iterations(g.chunk, 263) <= 16_383);
        assert_eq!(g.launches, 1001u64.div_ceil(g.chunk));
        // No loop cap: one launch of every tap.
        let uncapped = Capabilities {
            loop_limit: None,
            ..lavapipe()
        };
        for taps in [1usize, 32_765, 100_000_001] {
            let g = check_chunks(&uncapped, &Conv1dSpec { len: 4099, taps });
            assert_eq!((g.launches, g.chunk), (1, taps as u64));
        }
    }

    #[test]
    fn direct_refuses_too_many_launches_and_a_budget_below_one_tap() {
        let caps = lavapipe();
        let at = |caps: &Capabilities, taps: u64| {
            geometry(
                caps,
                &Conv1dSpec {
                    len: 4099,
                    taps: taps as usize,
                },
                Conv1dVariant::Direct,
            )
        };
        let most = MAX_DIRECT_LAUNCHES * 16_382;
        assert_eq!(at(&caps, most - 1).unwrap().launches, MAX_DIRECT_LAUNCHES);
        assert!(matches!(
            at(&caps, most + 1),
            Err(Error::ExceedsLimit { requested, limit, .. })
                if requested == MAX_DIRECT_LAUNCHES + 1 && limit == MAX_DIRECT_LAUNCHES
        ));
        // A budget of one iteration holds no tap.
        let tiny = Capabilities {
            loop_limit: Some(4),
            ..lavapipe()
        };
        assert!(matches!(at(&tiny, 1), Err(Error::ExceedsLimit { .. })));
        let two = Capabilities {
            loop_limit: Some(8),
            ..lavapipe()
        };
        let g = at(&two, 9).unwrap();
        assert_eq!((g.chunk, g.launches, g.loops), (1, 9, 2));
        // Positions stay u32: n + GROUP_SIZE + taps below 2^32.
        let spec = Conv1dSpec {
            len: u32::MAX as usize - 256 - 100,
            taps: 101,
        };
        assert!(geometry(&caps, &spec, Conv1dVariant::Direct).is_err());
        let spec = Conv1dSpec {
            len: u32::MAX as usize - 256 - 101,
            taps: 101,
        };
        assert!(geometry(&caps, &spec, Conv1dVariant::Direct).is_ok());
    }

    #[test]
    fn a_filter_nothing_else_holds_picks_direct() {
        use rosetta_core::Api;
        let caps = lavapipe();
        let max = max_taps(&caps);
        for api in Api::ALL {
            let device = crate::op::test_device(api, caps.clone());
            let at = |taps: u64| {
                default_variant(
                    &device,
                    &Conv1dSpec {
                        len: 4099,
                        taps: taps as usize,
                    },
                )
            };
            assert!(at(max).is_some_and(|v| !v.direct()), "{api:?}");
            assert_eq!(at(max + 2), Some(Conv1dVariant::Direct), "{api:?}");
            assert_eq!(at(1 << 20 | 1), Some(Conv1dVariant::Direct), "{api:?}");
            assert_eq!(at(MAX_DIRECT_LAUNCHES * 16_382 + 1), None, "{api:?}");
        }
    }

    #[test]
    fn lengths_and_taps_past_u32_are_refused() {
        let caps = lavapipe();
        for (len, taps) in [
            (1usize << 32, 3usize),
            (u32::MAX as usize, 3),
            (8, (1 << 32) + 1),
        ] {
            assert!(matches!(
                geometry(&caps, &Conv1dSpec { len, taps }, Conv1dVariant::Items1),
                Err(Error::ExceedsLimit { .. })
            ));
        }
    }

    #[test]
    fn max_taps_fit_and_one_more_does_not() {
        let caps = lavapipe();
        let max = max_taps(&caps);
        assert!(max % 2 == 1 && max > 1000, "{max}");
        let fits = |taps: u64| {
            Conv1dVariant::ALL
                .into_iter()
                .filter(|v| !v.direct())
                .any(|v| {
                    geometry(
                        &caps,
                        &Conv1dSpec {
                            len: 4099,
                            taps: taps as usize,
                        },
                        v,
                    )
                    .is_ok()
                })
        };
        assert!(fits(max));
        assert!(!fits(max + 2));
        // The loop budget, not shared memory, limits a large-shared capped device.
        let mut big = caps.clone();
        big.max_shared_bytes = 1 << 20;
        let max = max_taps(&big);
        assert!(max <= big.loop_budget(), "{max}");
        big.loop_limit = None;
        assert!(max_taps(&big) > 100_000);
    }
}
