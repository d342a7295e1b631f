//! The matmul plan: variants (algorithm × tiling × split-K), launch geometry
//! under the device's limits and loop budget, and the passes.
//!
//! A variant names the kernel that computes C's tiles (an [`Algorithm`]),
//! its [`Tiling`], and optionally how many chunks k is split into. Names read
//! `128x128x8/8x8` (the tiled algorithm, split as the plan decides) or
//! `128x128x8/8x8+splitk4` (at least 4 chunks of k); another algorithm's
//! variants will read `name:tiling[+splitkS]`. A new algorithm is a new
//! [`Algorithm`] arm with its kernel, tilings and loop counts: the geometry,
//! split-K and the passes stay as they are.

use super::spec::{MatmulSpec, PAD};
use crate::op::{
    check_apart, check_binding, plan_tuned, prepare_kernel, u32_param, workgroup_model,
};
use rosetta_core::{
    Backend, Buffer, Capabilities, DeviceInfo, Error, Kernel, KernelDef, Language, Launch, Result,
};
use std::fmt;
use std::sync::Arc;

/// Workgroups per grid axis the plan uses at most, whatever the device
/// allows: kernels form the flat index `group_id.y·num_groups.x +
/// group_id.x` in 32 bits.
const MAX_GROUPS_PER_AXIS: u32 = 65_535;

/// Workgroups of one x/y grid at most: the tiled kernel's tile loop adds
/// `num_groups.x·num_groups.y` to an index below it, which stays below 2^32.
const MAX_GRID_GROUPS: u64 = 1 << 31;

/// Largest split-K scratch, in elements: partial-sum indices stay below
/// 2^31 in every language.
const MAX_SCRATCH_ELEMENTS: u64 = 1 << 31;

/// Least k per chunk the heuristic splits into (elements of k, whatever
/// the slice depth: 8 slices of 8, 4 of 16). Counted in slices, 16-deep
/// slices got half the chunks: CUDA's 1024³ ran split two ways in 68.5 µs
/// against 62.9 split four ways (H200, `rosetta tune` over forced splits,
/// `docs/results/h200-2026-11-26b/tune-splits.txt`). Chunks of 64 let small
/// products fill a GPU: 512³ in 128 × 64 tiles split eight ways ran 19.7
/// µs through Vulkan and CUDA on an H100, against 46.8 and 27.8 for the
/// unsplit 32 × 32 tiles that chunks of 256 left
/// (`docs/results/h100-2026-11-27g/shapes/`). See also
/// [`MIN_SPLIT_K_OPENCL`] and [`MAX_UNSPLIT_K`].
const MIN_SPLIT_K: u64 = 64;

/// [`MIN_SPLIT_K`] in OpenCL C: a launch there costs the host's enqueue
/// (about 7 µs on NVIDIA's OpenCL, ARCHITECTURE.md), so the sum pass of a
/// deep split does not pay for itself on small products: 256³ ran 20.1 µs
/// split four ways against 15.6 unsplit, 1024 × 256 × 1024 39.1 against
/// 31.3 (H100).
const MIN_SPLIT_K_OPENCL: u64 = 256;

/// The longest k the heuristic never splits: at k = 256 a split's sum pass
/// and launch cost more than the workgroups it adds give back (H100, 1024 ×
/// 256 × 1024: 9–25% slower split through every API).
const MAX_UNSPLIT_K: u64 = 256;

/// Largest scratch the heuristic allocates for split-K (bytes); a forced or
/// budget-required split may use more.
const HEURISTIC_SCRATCH_BYTES: u64 = 64 << 20;

/// The sum pass's loop iterations beyond the one loop over its planes.
const SUM_LOOP_SLACK: u64 = 2;

/// One tiling of C: a workgroup computes a `tile_m × tile_n` block, stepping
/// through k `tile_k` at a time; each invocation owns a `thread_m × thread_n`
/// micro-tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tiling {
    /// Rows of C per workgroup.
    pub tile_m: u32,
    /// Columns of C per workgroup.
    pub tile_n: u32,
    /// Depth of one k slice.
    pub tile_k: u32,
    /// Rows of C per invocation.
    pub thread_m: u32,
    /// Columns of C per invocation.
    pub thread_n: u32,
}

/// The tiled kernel's tilings, in the untuned plan's order of preference
/// (largest tiles of C first, but for the 8 × 4 micro-tiles: see below); all
/// use 256 invocations. The two 128 × 128 tilings differ in the slice
/// depth: 16 halves the barriers and copy bookkeeping per multiply-add
/// (CUDA on an H100, 4096³: 44.6 TFLOP/s against 41.5 with 8,
/// `scripts/matmul-explore/`), 8 takes half the shared memory and prefetch
/// registers. The two larger tiles hold 128 accumulators per invocation (one
/// workgroup per SM on NVIDIA), each for one way of filling shared memory:
/// 256 × 128 × 16 with 16 × 8 micro-tiles where the kernel copies
/// asynchronously (CUDA, H100, 4096³: 3.00 against 3.08 ms for 128 × 128 ×
/// 16), 128 × 256 × 8 with 8 × 16 where it prefetches through registers
/// (Vulkan 3.14 against 3.41 ms, wgpu 3.12 against 3.41;
/// `docs/results/h100-2026-11-26e/`); at 2048³ too, unsplit
/// (`fills_unsplit`), but not where k must be split to fill the device
/// (1024³). The 128 × 64 tile with 8 × 4 micro-tiles holds 32 accumulators
/// and 12 prefetched elements, so more workgroups share an SM: where C's
/// tiles do not fill a GPU by themselves it ran ahead of 128 × 128 × 8
/// through the register prefetch (H100, Vulkan and wgpu: 768³ 41.7 against
/// 49.2 µs, 1536³ 228 against 255, each split as `heuristic_chunks` would;
/// `docs/results/h100-2026-11-27g/shapes/`), so it comes before it; where
/// the kernel copies asynchronously 128 × 128 × 16 comes first and takes
/// those shapes.
pub const TILINGS: [Tiling; 7] = [
    Tiling::new(256, 128, 16, 16, 8),
    Tiling::new(128, 256, 8, 8, 16),
    Tiling::new(128, 128, 16, 8, 8),
    Tiling::new(128, 64, 16, 8, 4),
    Tiling::new(128, 128, 8, 8, 8),
    Tiling::new(64, 64, 8, 4, 4),
    Tiling::new(32, 32, 8, 2, 2),
];

/// Shared buffers the tiled kernel takes where it copies asynchronously
/// ([`Capabilities::async_copy`]: CUDA on sm_80 and later, OpenCL C through
/// NVIDIA's inline PTX): it keeps `STAGES` slices in flight (`matmul.cu`
/// and `matmul.cl`, whose `STAGES` must equal this; they trap on less).
/// Everywhere else the kernels use one buffer.
pub const ASYNC_STAGES: u32 = 4;

/// The OpenCL version's shared-memory budget for its asynchronous buffers:
/// [`ASYNC_STAGES`] buffers where they fit in it, else 2 (`matmul.cl`'s
/// `STAGES`, the same rule). NVIDIA's OpenCL gives a workgroup 48 KiB of
/// `__local` memory and has no opt-in to more: four 16-deep 128 × 128
/// buffers (67.6 KiB) do not fit, two do.
pub const OPENCL_ASYNC_BUDGET: u32 = 48 << 10;

/// The CPU backend's forms of [`TILINGS`], one per square tile of C up to
/// 128 × 128 (both 128 × 128 tilings take the first; the large ones and
/// the 128 × 64 one have none, and its heuristic never picks them): the
/// same tiles of C and invocations,
/// `TILE_K` 64 instead of 8 or 16, and the 128 × 128 tile's micro-tiles
/// 4 × 16 instead of 8 × 8. Why: under the workgroup
/// model phase b runs one invocation at a time, loading its accumulators
/// from `acc` into registers and storing them back once per slice; with
/// `TILE_K = 8` that round trip costs as much as the multiply-adds, with 64
/// a few percent, and the two 128 × 64 tiles (67 KiB) still sit in a core's
/// L2. A 4 × 16 register block is two 8-wide vectors per row, so each `kk`
/// step loads 2 vectors of `shared_b` and broadcasts 4 values of `shared_a`
/// for 8 vector multiply-adds, where 8 × 8 needs 1 + 8 loads (about 10%
/// faster measured). Only the Rust version runs them (most GPUs' shared
/// memory is smaller than their 64-deep tiles):
/// [`MatmulVariant::check`] refuses them on every other backend, and
/// [`MatmulPlan::new`] prefers them on the CPU backend where nothing is
/// tuned. Conformance forces [`TILINGS`] on every device, the CPU backend
/// included.
pub const CPU_TILINGS: [Tiling; 3] = [
    Tiling::new(128, 128, 64, 4, 16),
    Tiling::new(64, 64, 64, 4, 4),
    Tiling::new(32, 32, 64, 2, 2),
];

impl Tiling {
    /// A tiling.
    pub const fn new(tile_m: u32, tile_n: u32, tile_k: u32, thread_m: u32, thread_n: u32) -> Self {
        Tiling {
            tile_m,
            tile_n,
            tile_k,
            thread_m,
            thread_n,
        }
    }

    /// Whether an invocation holds more than 8 × 8 accumulators (the
    /// registers of one workgroup per SM on NVIDIA).
    pub fn large(&self) -> bool {
        self.thread_m * self.thread_n > 64
    }

    /// Whether an invocation holds at most 8 × 4 accumulators: registers
    /// for a 16-deep slice's prefetch beside them, and room for more
    /// workgroups per SM than 8 × 8 micro-tiles leave.
    pub fn small(&self) -> bool {
        self.thread_m * self.thread_n <= 32
    }

    /// Invocations per workgroup: one per micro-tile.
    pub fn group_size(&self) -> u32 {
        (self.tile_m / self.thread_m) * (self.tile_n / self.thread_n)
    }

    /// One buffer: `shared_a` then `shared_b`, rows padded by [`PAD`].
    pub fn shared_bytes(&self) -> u32 {
        self.tile_k * (self.tile_m + PAD + self.tile_n + PAD) * 4
    }

    /// What a launch in `language` on a device with `caps` takes:
    /// [`Tiling::shared_bytes`] times its buffers ([`Tiling::stages`]).
    pub fn launch_shared_bytes(&self, language: Language, caps: &Capabilities) -> u32 {
        self.shared_bytes() * self.stages(language, caps)
    }

    /// The shared buffers of one launch: where the language's version copies
    /// asynchronously on this device (CUDA and OpenCL C with
    /// [`Capabilities::async_copy`]) [`ASYNC_STAGES`] — in OpenCL C 2 where
    /// those exceed [`OPENCL_ASYNC_BUDGET`] — else 1.
    pub fn stages(&self, language: Language, caps: &Capabilities) -> u32 {
        match language {
            Language::Cuda if caps.async_copy => ASYNC_STAGES,
            Language::OpenCl if caps.async_copy => {
                if ASYNC_STAGES * self.shared_bytes() <= OPENCL_ASYNC_BUDGET {
                    ASYNC_STAGES
                } else {
                    2
                }
            }
            Language::Cuda
            | Language::OpenCl
            | Language::Wgsl
            | Language::Glsl
            | Language::Rust => 1,
        }
    }

    /// `128x128x8/8x8`.
    pub fn name(&self) -> String {
        format!(
            "{}x{}x{}/{}x{}",
            self.tile_m, self.tile_n, self.tile_k, self.thread_m, self.thread_n
        )
    }

    /// Parse [`Tiling::name`]'s form (any values; [`Algorithm::tilings`]
    /// says which a kernel has).
    pub fn parse(name: &str) -> Option<Tiling> {
        let (tile, thread) = name.split_once('/')?;
        let tile: Vec<u32> = tile
            .split('x')
            .map(|v| v.parse().ok())
            .collect::<Option<_>>()?;
        let thread: Vec<u32> = thread
            .split('x')
            .map(|v| v.parse().ok())
            .collect::<Option<_>>()?;
        match (&tile[..], &thread[..]) {
            ([tm, tn, tk], [thm, thn]) => Some(Tiling::new(*tm, *tn, *tk, *thm, *thn)),
            _ => None,
        }
    }

    /// Whether the device can run a workgroup of this tiling in `language`.
    pub fn fits(&self, caps: &Capabilities, language: Language) -> bool {
        self.group_size() <= caps.max_group_invocations
            && self.group_size() <= caps.max_group_size[0]
            && self.launch_shared_bytes(language, caps) <= caps.max_shared_bytes
    }

    /// Elements of A's tile each invocation moves per slice.
    fn loads_a(&self) -> u64 {
        u64::from(self.tile_m * self.tile_k).div_ceil(u64::from(self.group_size()))
    }

    /// Elements of B's tile each invocation moves per slice.
    fn loads_b(&self) -> u64 {
        u64::from(self.tile_k * self.tile_n).div_ceil(u64::from(self.group_size()))
    }
}

impl fmt::Display for Tiling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// The kernels that compute C's tiles (pass 1). Each has its own source in
/// every language, tilings and loop counts; split-K and the sum pass are
/// common to all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Shared-memory tiles with register blocking (`matmul`).
    Tiled,
}

impl Algorithm {
    /// Every algorithm.
    pub const ALL: [Algorithm; 1] = [Algorithm::Tiled];

    /// The name in variant names (the tiled algorithm's variants leave it
    /// out).
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Tiled => "tiled",
        }
    }

    /// Its kernel.
    pub fn kernel(self) -> &'static Arc<KernelDef> {
        match self {
            Algorithm::Tiled => super::kernel::kernel(),
        }
    }

    /// Its tilings, largest first (every backend runs them).
    pub fn tilings(self) -> &'static [Tiling] {
        match self {
            Algorithm::Tiled => &TILINGS,
        }
    }

    /// Its CPU backend's tilings: the one with a tiling's tile of C is the
    /// CPU backend's form of it (see [`CPU_TILINGS`]). Only the Rust version
    /// runs them.
    pub fn cpu_tilings(self) -> &'static [Tiling] {
        match self {
            Algorithm::Tiled => &CPU_TILINGS,
        }
    }

    /// Whether a device can run it at all (beyond each tiling's fit).
    pub fn available(self, _caps: &Capabilities) -> bool {
        match self {
            Algorithm::Tiled => true,
        }
    }

    /// Loop iterations one invocation runs per `tile_k` slice of k, counted
    /// generously over every language's source (every loop; nested loops
    /// multiplied; `unroll` hints ignored): the prefetch and the shared
    /// stores (GLSL/CUDA), the slice loop itself, and per `kk` the reads of
    /// `shared_a` and `shared_b` and the outer product.
    pub fn loops_per_slice(self, t: &Tiling) -> u64 {
        match self {
            Algorithm::Tiled => {
                let (tm, tn) = (u64::from(t.thread_m), u64::from(t.thread_n));
                1 + 2 * (t.loads_a() + t.loads_b())
                    + u64::from(t.tile_k) * (1 + 2 * tm + tn + tm * tn)
            }
        }
    }

    /// Loop iterations per invocation outside the slice loop: the tile loop
    /// (one iteration: one workgroup per tile), clearing the accumulators
    /// (written nested in CUDA / OpenCL), storing them (per row, a loop over
    /// runs of four columns with a loop over a run's columns at the edge of
    /// C: at most `1 + 2·tn` per row), plus slack.
    pub fn loops_per_tile(self, t: &Tiling) -> u64 {
        match self {
            Algorithm::Tiled => {
                let (tm, tn) = (u64::from(t.thread_m), u64::from(t.thread_n));
                tm * (1 + tn) + tm * (1 + 2 * tn) + 4
            }
        }
    }
}

/// What the plan runs: the algorithm, its tiling, and the k split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MatmulVariant {
    /// The kernel of pass 1.
    pub algorithm: Algorithm,
    /// Its tiling.
    pub tiling: Tiling,
    /// Split k into at least this many chunks (more where the device's loop
    /// budget needs it, fewer where k has fewer slices); `None`: the plan
    /// decides (no split unless C has too few tiles to fill the device, or
    /// the loop budget needs one).
    pub split_k: Option<u32>,
}

impl MatmulVariant {
    /// The tiled algorithm with `tiling`, split as the plan decides.
    pub fn tiled(tiling: Tiling) -> Self {
        MatmulVariant {
            algorithm: Algorithm::Tiled,
            tiling,
            split_k: None,
        }
    }

    /// The same variant with k split into at least `chunks` chunks.
    pub fn split(self, chunks: u32) -> Self {
        MatmulVariant {
            split_k: Some(chunks),
            ..self
        }
    }

    /// Every algorithm × tiling, split as the plan decides: what every
    /// device runs (conformance forces each one).
    pub fn all() -> Vec<MatmulVariant> {
        Algorithm::ALL
            .iter()
            .flat_map(|&algorithm| {
                algorithm
                    .tilings()
                    .iter()
                    .map(move |&tiling| MatmulVariant {
                        algorithm,
                        tiling,
                        split_k: None,
                    })
            })
            .collect()
    }

    /// What a tuner chooses among on `device`: [`MatmulVariant::all`], and
    /// on the CPU backend its own tilings too ([`CPU_TILINGS`]).
    pub fn for_device(device: &DeviceInfo) -> Vec<MatmulVariant> {
        let mut all = Self::all();
        if workgroup_model(device) {
            for algorithm in Algorithm::ALL {
                all.extend(algorithm.cpu_tilings().iter().map(|&tiling| MatmulVariant {
                    algorithm,
                    tiling,
                    split_k: None,
                }));
            }
        }
        all
    }

    /// This variant's tiling at other chunk counts of k for `spec` on
    /// `device`: unsplit, half and twice the untuned plan's count
    /// (`split_alternatives`), none on the CPU backend (whose plans do not
    /// split) or where the tiling does not fit. The tuner measures them
    /// around the fastest tiling once the tilings are measured, each split
    /// as the plan would (`Workload::refined`): the plan's chunk counts
    /// come from a cost model fitted on an H100, and on other GPUs the
    /// tuner measures instead of trusting it. Each count is named by the
    /// chunks it gives `spec` (`+splitk1`: k whole); none gives the plan's
    /// own geometry again.
    pub fn tuning_splits(&self, device: &DeviceInfo, spec: &MatmulSpec) -> Vec<MatmulVariant> {
        let (caps, language) = (&device.caps, device.api.language());
        if workgroup_model(device) || !self.tiling.fits(caps, language) {
            return Vec::new();
        }
        let plain = MatmulVariant {
            split_k: None,
            ..*self
        };
        split_alternatives(caps, language, spec, &plain)
    }

    /// This variant as the CPU backend runs it by default where it fits:
    /// the CPU backend's form of its tiling ([`CPU_TILINGS`]).
    fn for_cpu_backend(self, caps: &Capabilities) -> Self {
        let algorithm = self.algorithm;
        let cpu = algorithm
            .cpu_tilings()
            .iter()
            .find(|t| (t.tile_m, t.tile_n) == (self.tiling.tile_m, self.tiling.tile_n))
            .filter(|_| algorithm.tilings().contains(&self.tiling))
            .filter(|t| t.fits(caps, Language::Rust));
        match cpu {
            Some(&tiling) => MatmulVariant { tiling, ..self },
            None => self,
        }
    }

    /// Whether its tiling is one of the CPU backend's own.
    fn cpu_only(&self) -> bool {
        self.algorithm.cpu_tilings().contains(&self.tiling)
    }

    /// The name in reports, the tuning cache and `--variant`.
    pub fn name(&self) -> String {
        let mut name = match self.algorithm {
            Algorithm::Tiled => self.tiling.name(),
        };
        if let Some(chunks) = self.split_k {
            name.push_str(&format!("+splitk{chunks}"));
        }
        name
    }

    /// The variant called `name` (one of the algorithm's own tilings, or of
    /// its CPU backend's tilings).
    pub fn from_name(name: &str) -> Option<Self> {
        let (base, split_k) = match name.split_once('+') {
            Some((base, split)) => (
                base,
                Some(split.strip_prefix("splitk")?.parse::<u32>().ok()?),
            ),
            None => (name, None),
        };
        let (algorithm, tiling) = match base.split_once(':') {
            Some((alg, tiling)) => (*Algorithm::ALL.iter().find(|a| a.name() == alg)?, tiling),
            None => (Algorithm::Tiled, base),
        };
        let tiling = Tiling::parse(tiling)?;
        let known =
            algorithm.tilings().contains(&tiling) || algorithm.cpu_tilings().contains(&tiling);
        (known && split_k != Some(0)).then_some(MatmulVariant {
            algorithm,
            tiling,
            split_k,
        })
    }

    /// Whether a device can run it, or why not.
    pub fn check(&self, backend: &Arc<dyn Backend>) -> Result<()> {
        let caps = &backend.info().caps;
        let language = backend.info().api.language();
        if self.cpu_only() && !workgroup_model(backend.info()) {
            return Err(Error::unsupported(
                backend.info().api,
                format!(
                    "matmul variant '{}' is the CPU backend's own (only the Rust version runs it)",
                    self.name()
                ),
            ));
        }
        if !self.algorithm.available(caps) || !self.tiling.fits(caps, language) {
            return Err(Error::unsupported(
                backend.info().api,
                format!(
                    "matmul variant '{}' needs workgroups of {} invocations and {} bytes of shared memory",
                    self.name(),
                    self.tiling.group_size(),
                    self.tiling.launch_shared_bytes(language, caps)
                ),
            ));
        }
        Ok(())
    }
}

impl fmt::Display for MatmulVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// The tuner's key for a product: the rounded-up `log2` of m, n and k.
pub fn tune_class(spec: &MatmulSpec) -> String {
    let log2 = |v: usize| 64 - (v.max(1) as u64 - 1).leading_zeros();
    format!(
        "m<=2^{} n<=2^{} k<=2^{}",
        log2(spec.m),
        log2(spec.n),
        log2(spec.k)
    )
}

/// The default variant: the first tiling in [`TILINGS`]'s order that fits
/// and is considered (`heuristic_considers`), whose tiles are at
/// least half C (not mostly padding), and that still gives every compute
/// unit a workgroup — C's tiles times the chunks of k the geometry would
/// split them into (`heuristic_chunks`) where `split` — else the smallest
/// that fits. Why the padding rule: a 1 × 1 product with k = 2^20 counted
/// one 128 × 128 tile times many chunks as filling the device, and ran
/// 16 384 padded outputs per useful one (13.7 s through wgpu on lavapipe
/// against 1.3 s with 32 × 32 tiles). Large matrices get large tiles; small ones large tiles
/// over a split k where k is long enough, else small tiles spread over the
/// device. Why count the split: on an H200 the 128 × 128 tiling split four
/// ways ran 1024³ faster than 64 × 64 tiles through all four APIs (CUDA 68.7
/// against 78.9 µs, Vulkan 95.7 against 99.7, OpenCL 74.4 against 93.0, wgpu
/// 89.4 against 102.9; `docs/results/h200-2026-11-24/tune-matmul.txt`).
/// The CPU backend passes `split = false`: its forms of the tilings take k
/// 64 deep ([`CPU_TILINGS`]), too few slices to split. `language` decides
/// what fits ([`Tiling::launch_shared_bytes`]) and whether 16-deep slices
/// are considered (`heuristic_considers`: where the kernel copies
/// asynchronously).
pub fn heuristic_variant(
    caps: &Capabilities,
    language: Language,
    spec: &MatmulSpec,
    split: bool,
) -> Option<MatmulVariant> {
    let units = units(caps);
    let elements_c = (spec.m as u64).saturating_mul(spec.n as u64);
    let workgroups = |t: &Tiling| {
        let tiles = tiles(spec, t);
        let chunks = if split {
            heuristic_chunks(caps, language, t, tiles, spec.k as u64, elements_c)
        } else {
            1
        };
        tiles.saturating_mul(chunks)
    };
    // Tiles that are mostly padding (a 1 × n row in 128 × 128 tiles) do
    // the work of the padding too: such a tiling does not count as filling
    // the device, however many chunks of k it splits into.
    let dense = |t: &Tiling| {
        let padded = tiles(spec, t)
            .saturating_mul(u64::from(t.tile_m))
            .saturating_mul(u64::from(t.tile_n));
        padded <= elements_c.saturating_mul(2)
    };
    let usable: Vec<Tiling> = TILINGS
        .into_iter()
        .filter(|t| t.fits(caps, language) && heuristic_considers(t, language, caps))
        .collect();
    // A large tiling only where C's tiles alone, unsplit, fill the device
    // (`fills_unsplit`): split over k it lost everywhere (1024³ on an H100:
    // 87–95 µs against 74–75 for 128 × 128 through Vulkan and wgpu), so
    // only the other tilings count their chunks; through the register
    // prefetch only over a long k (`LARGE_PREFETCH_MIN_K`). (For the other
    // tilings C's tiles filling the device unsplit is the case of one
    // chunk: `workgroups` counts at least the tiles.)
    let fills = |t: &Tiling| {
        if t.large() {
            let tiles = tiles(spec, t);
            let copying = t.stages(language, caps) > 1;
            fills_unsplit(t, tiles, units)
                && full_rounds(tiles, units, copying)
                && (copying || spec.k as u64 >= LARGE_PREFETCH_MIN_K)
        } else {
            workgroups(t) >= units
        }
    };
    usable
        .iter()
        .find(|t| dense(t) && fills(t))
        .or(usable.last())
        .map(|&t| MatmulVariant::tiled(t))
}

/// The least k for which the untuned plan takes a large tiling where the
/// kernel prefetches through registers (one workgroup per SM, 128
/// accumulators to store at the end): below it the 128 × 64 tiles ran
/// ahead. H100, Vulkan, 128 × 256 × 8 against 128 × 64 × 16: 2048 × k ×
/// 2048 with k = 128 58.5 against 38.5 µs, 256 82.3 / 67.1, 512 131.4 /
/// 127.4 (3072² × 512: 344 / 276), 1024 231.5 / 245.6 (4096² × 1024: 859
/// / 936); wgpu alike (`docs/results/h100-2026-11-27g/shapes/call9-large-k.txt`).
const LARGE_PREFETCH_MIN_K: u64 = 1024;

/// Whether `tiles` workgroups of `t` fill a device of `units` compute units
/// with no split of k. A large tiling ([`Tiling::large`]) runs one workgroup
/// per unit, so within an eighth of a round counts as full: on an H100 at
/// 2048³ its 128 tiles for 132 SMs ran unsplit in 418 µs through Vulkan, 414
/// through wgpu and 381 through CUDA, against 442, 443 and 394 for the best
/// 128 × 128 tiling, and split three ways in 488, 484 and 424
/// (`docs/results/h100-2026-11-26e/large-tiles/`). Other tilings run two or
/// more per unit; they fill it with one each, as before.
fn fills_unsplit(t: &Tiling, tiles: u64, units: u64) -> bool {
    if t.large() {
        tiles >= units - units / 8
    } else {
        tiles >= units
    }
}

/// Whether `tiles` workgroups of a large tiling, one per unit at a time,
/// run in rounds full enough to beat the next tiling: each round takes as
/// long however few of its units work, so a last round of 60 tiles on 132
/// SMs costs a whole one, where the smaller tiles, two or more per SM,
/// share the slack. How full depends on how far the next tiling lags at
/// full rounds (H100, 4608³: CUDA's 128 × 128 × 16 by 3%, the register
/// prefetch's 128 × 128 × 8 and 128 × 64 × 16 by 9% and 17%), so seven
/// eighths where the kernel copies asynchronously (`copying`), four fifths
/// through the register prefetch. Measured on an H100
/// (`docs/results/h100-2026-11-27i/`), the large tiling against the next:
/// CUDA 3000 × 1000 × 2000 (rounds 73% full) 394 against 314 µs, 3072³
/// (73%) 1689 / 1480, 5120³ (87%) 6540 / 6217, 2816³ (92%) 1031 / 1062;
/// Vulkan 3072³ 1760 / 1560, 2560³ (76%) 997 / 970, 5120³ 6716 / 7079.
/// Below one round [`fills_unsplit`] decides.
fn full_rounds(tiles: u64, units: u64, copying: bool) -> bool {
    let (least, of) = if copying { (7, 8) } else { (4, 5) };
    let rounds = tiles.div_ceil(units.max(1));
    tiles.saturating_mul(of) >= rounds.saturating_mul(units).saturating_mul(least)
}

/// Whether the untuned plan considers `t` in `language`: slices 16 deep
/// where the kernel copies asynchronously ([`Tiling::stages`] > 1), holding
/// no slice in registers, or, on GPUs, where the micro-tile is small
/// ([`Tiling::small`]). Elsewhere the register prefetch holds twice the
/// elements and the deeper slice lost (H100, 4096³: Vulkan 4.71 ms against
/// 4.41 with 8, OpenCL 3.63 against 3.43 before OpenCL had the copies;
/// CUDA 3.08 against 3.31). The tuner measures it everywhere. (The CPU
/// backend has no form of the small micro-tiles' 128 × 64 tile, and
/// lavapipe's and PoCL's choices stay as they were measured.)
///
/// Large tilings ([`Tiling::large`]) only on GPUs, each where its way of
/// filling shared memory is the kernel's: 16-deep slices as above, 8-deep
/// ones only through the register prefetch (one buffer). On an H100 at
/// 4096³ 128 × 256 × 8 lost to 128 × 128 × 16 where copies are asynchronous
/// (CUDA 3.18 against 3.08 ms, OpenCL 3.20 against 3.07); on lavapipe and
/// PoCL the tuner measures them.
fn heuristic_considers(t: &Tiling, language: Language, caps: &Capabilities) -> bool {
    let stages = t.stages(language, caps);
    let gpu = caps.device_type.is_gpu();
    let depth = t.tile_k <= 8 || stages > 1 || (gpu && t.small());
    let large = !t.large() || (gpu && (t.tile_k > 8 || stages == 1));
    depth && large
}

/// C's tiles under a tiling.
fn tiles(spec: &MatmulSpec, t: &Tiling) -> u64 {
    (spec.m as u64).div_ceil(u64::from(t.tile_m)) * (spec.n as u64).div_ceil(u64::from(t.tile_n))
}

/// Workgroups `total` laid over x and y (each at most
/// [`MAX_GROUPS_PER_AXIS`] and the device's limit, [`MAX_GRID_GROUPS`] in
/// all), x as large as allowed. Kernels take the flat index
/// `y·num_groups.x + x` and skip those `>= total`.
fn grid_xy(what: &'static str, total: u64, caps: &Capabilities) -> Result<[u32; 2]> {
    let max_x = u64::from(caps.max_groups[0].min(MAX_GROUPS_PER_AXIS));
    let max_y = u64::from(caps.max_groups[1].min(MAX_GROUPS_PER_AXIS));
    let x = total.clamp(1, max_x);
    let y = total.div_ceil(x).max(1);
    if y > max_y || x * y > MAX_GRID_GROUPS {
        return Err(Error::ExceedsLimit {
            what,
            requested: total,
            limit: (max_x * max_y).min(MAX_GRID_GROUPS),
        });
    }
    Ok([x as u32, y as u32])
}

/// One pass of the deterministic split-K sum: output plane `z` (of
/// `ceil(planes / fan_in)`) is the sum, in plane order, of input planes
/// `z·fan_in …` (at most `fan_in` of them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SumPass {
    /// The launch (x/y over the elements of a plane, z over output planes).
    pub launch: Launch,
    /// Input planes.
    pub planes: u32,
    /// Input planes per output plane.
    pub fan_in: u32,
    /// Whether it writes C (the last pass) rather than scratch.
    pub to_output: bool,
}

/// Where every pass runs and what it needs, from the device's limits alone
/// (no device calls): testable for any capabilities.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Geometry {
    /// Pass 1: x/y over C's tiles, z over k's chunks.
    pub launch: Launch,
    /// C's tiles.
    pub tiles: u64,
    /// k per chunk (a multiple of `tile_k`).
    pub chunk: u32,
    /// Chunks of k (1: no split, pass 1 writes C).
    pub chunks: u32,
    /// The sum passes (none without a split).
    pub sums: Vec<SumPass>,
    /// Elements of the two scratch buffers (0: not needed).
    pub scratch: [u64; 2],
    /// Loop iterations one pass-1 invocation runs, counted generously.
    pub loops: u64,
}

/// Plan the passes of `variant` for `spec` under `caps` in `language`,
/// keeping every invocation's loop iterations within `budget`.
pub fn geometry(
    caps: &Capabilities,
    language: Language,
    spec: &MatmulSpec,
    variant: &MatmulVariant,
    budget: u64,
) -> Result<Geometry> {
    let t = &variant.tiling;
    let [_, _, elements_c] = spec.elements()?;
    let tiles = tiles(spec, t);
    let [x, y] = grid_xy("matmul tiles of C (workgroups over x and y)", tiles, caps)?;
    let slices = (spec.k as u64).div_ceil(u64::from(t.tile_k));

    // The most slices one invocation may run under the loop budget.
    let per_tile = variant.algorithm.loops_per_tile(t);
    let per_slice = variant.algorithm.loops_per_slice(t);
    let max_slices = budget.saturating_sub(per_tile) / per_slice;
    if max_slices == 0 {
        return Err(Error::ExceedsLimit {
            what: "matmul loop iterations per invocation (one slice of k)",
            requested: per_tile + per_slice,
            limit: budget,
        });
    }
    let needed = slices.div_ceil(max_slices);
    let wanted = match variant.split_k {
        Some(chunks) => u64::from(chunks),
        None => heuristic_chunks(caps, language, t, tiles, spec.k as u64, elements_c),
    };
    let asked = needed.max(wanted).clamp(1, slices);
    let chunk_slices = slices.div_ceil(asked);
    let chunks = slices.div_ceil(chunk_slices);
    let chunk = u32_param("matmul k per chunk", chunk_slices * u64::from(t.tile_k))?;
    if chunks > u64::from(caps.max_groups[2]) {
        return Err(Error::ExceedsLimit {
            what: "matmul chunks of k (workgroups along z)",
            requested: chunks,
            limit: caps.max_groups[2].into(),
        });
    }
    let launch = Launch {
        groups: [x, y, chunks as u32],
        group_size: t.group_size(),
        shared_bytes: t.launch_shared_bytes(language, caps),
    };

    let mut sums = Vec::new();
    let mut scratch = [0u64; 2];
    if chunks > 1 {
        let plane_elements = |planes: u64| planes.saturating_mul(elements_c);
        scratch[0] = plane_elements(chunks);
        if scratch[0] > MAX_SCRATCH_ELEMENTS || scratch[0].saturating_mul(4) > caps.max_buffer_bytes
        {
            return Err(Error::ExceedsLimit {
                what: "matmul split-k partial sums (elements)",
                requested: scratch[0],
                limit: MAX_SCRATCH_ELEMENTS.min(caps.max_buffer_bytes / 4),
            });
        }
        let fan_in = budget
            .saturating_sub(SUM_LOOP_SLACK)
            .min(u64::from(u32::MAX));
        if fan_in < 2 {
            return Err(Error::ExceedsLimit {
                what: "matmul loop iterations per invocation (split-k sum)",
                requested: SUM_LOOP_SLACK + 2,
                limit: budget,
            });
        }
        let group_size = sum_group_size(caps);
        let [sx, sy] = grid_xy(
            "matmul split-k sum (workgroups over x and y)",
            elements_c.div_ceil(u64::from(group_size)),
            caps,
        )?;
        let mut planes = chunks;
        while planes > 1 {
            let fan = planes.min(fan_in);
            let out_planes = planes.div_ceil(fan);
            if out_planes > 1 && scratch[1] == 0 {
                scratch[1] = plane_elements(out_planes);
            }
            sums.push(SumPass {
                launch: Launch {
                    groups: [sx, sy, out_planes as u32],
                    group_size,
                    shared_bytes: 0,
                },
                planes: planes as u32,
                fan_in: fan as u32,
                to_output: out_planes == 1,
            });
            planes = out_planes;
        }
    }
    Ok(Geometry {
        launch,
        tiles,
        chunk,
        chunks: chunks as u32,
        sums,
        scratch,
        loops: per_tile + chunk_slices * per_slice,
    })
}

/// Chunks of k worth splitting into on a device with no loop cap: the count
/// with the least estimated time ([`split_cost`]), each chunk at least
/// [`MIN_SPLIT_K`] deep ([`MIN_SPLIT_K_OPENCL`] in OpenCL C), with the
/// partial sums under [`HEURISTIC_SCRATCH_BYTES`]; ties go to fewer chunks.
/// A large tiling ([`Tiling::large`]) that fills the device unsplit, and a
/// k of at most [`MAX_UNSPLIT_K`], stay unsplit.
///
/// Why a cost and not "enough workgroups for every unit": C's 144 tiles of
/// 128 × 128 at 1536³ gave each of an H100's 132 SMs one, so the old rule
/// kept k whole, and the SMs, which hold two such workgroups, ran half
/// empty: 301.5 µs through CUDA against 222.3 split three ways (Vulkan
/// 332.6 against 255.0); at 768³ the old rule's 64 × 64 tiles ran 61–74 µs
/// where the 128 × 64 ones split three ways ran 41–47 through every API
/// (`docs/results/h100-2026-11-27g/shapes/`).
fn heuristic_chunks(
    caps: &Capabilities,
    language: Language,
    t: &Tiling,
    tiles: u64,
    k: u64,
    elements_c: u64,
) -> u64 {
    let units = units(caps);
    if (t.large() && fills_unsplit(t, tiles, units)) || k <= MAX_UNSPLIT_K {
        return 1;
    }
    let min_chunk = match language {
        Language::OpenCl => MIN_SPLIT_K_OPENCL,
        Language::Cuda | Language::Wgsl | Language::Glsl | Language::Rust => MIN_SPLIT_K,
    };
    // Past sixteen rounds of workgroups per unit a split only adds sums.
    let most = (k / min_chunk)
        .min(most_chunks_by_scratch(elements_c))
        .min((16 * units).div_ceil(tiles.max(1)))
        .max(1);
    // The first of equal costs: the fewest chunks.
    (1..=most)
        .min_by_key(|&chunks| split_cost(t, tiles, k, elements_c, units, chunks))
        .unwrap_or(1)
}

/// The compute units the heuristic plans for: the device's, or 64 where
/// its API does not say.
fn units(caps: &Capabilities) -> u64 {
    if caps.compute_units > 0 {
        u64::from(caps.compute_units)
    } else {
        64
    }
}

/// The most chunks of k whose partial sums of `elements_c` elements each
/// stay within [`HEURISTIC_SCRATCH_BYTES`].
fn most_chunks_by_scratch(elements_c: u64) -> u64 {
    HEURISTIC_SCRATCH_BYTES / 4 / elements_c.max(1)
}

/// `variant` (not split by name) at the chunk counts around the untuned
/// plan's that [`MatmulVariant::tuning_splits`] names: 1, half and twice
/// the plan's count for `spec`, each named by the chunks its geometry
/// gives (a count the loop budget or k's slices turn into the plan's own
/// is left out), and none whose partial sums pass
/// [`HEURISTIC_SCRATCH_BYTES`].
fn split_alternatives(
    caps: &Capabilities,
    language: Language,
    spec: &MatmulSpec,
    variant: &MatmulVariant,
) -> Vec<MatmulVariant> {
    let chunks_of = |v: &MatmulVariant| {
        geometry(caps, language, spec, v, caps.loop_budget())
            .ok()
            .map(|g| g.chunks)
    };
    let Some(planned) = chunks_of(variant) else {
        return Vec::new();
    };
    let elements_c = (spec.m as u64).saturating_mul(spec.n as u64);
    let mut seen = vec![planned];
    let mut alternatives = Vec::new();
    for wanted in [1, planned / 2, planned.saturating_mul(2)] {
        let split = variant.split(wanted.max(1));
        let Some(chunks) = chunks_of(&split) else {
            continue;
        };
        let past_scratch = u64::from(chunks) > most_chunks_by_scratch(elements_c);
        if seen.contains(&chunks) || (chunks > 1 && past_scratch) {
            continue;
        }
        seen.push(chunks);
        alternatives.push(variant.split(chunks));
    }
    alternatives
}

/// The FP32 multiply-adds a GPU runs per byte it moves to and from memory
/// (counting a multiply-add as two): on an H100 the tiled kernels run about
/// 45 TFLOP/s and a copy moves about 2.8 TB/s. The split's cost model weighs
/// the sum pass's traffic against pass 1's rounds with it.
const FLOPS_PER_BYTE: u64 = 16;

/// The estimated time of pass 1 of `t` over `tiles` split into `chunks`
/// chunks of k, and of the sum pass, in slice-rounds (one slice of one
/// workgroup on every unit). Pass 1: the rounds of workgroups per unit, at
/// least two (one workgroup alone on a unit leaves its load latency
/// exposed: 1024³ in 128 tiles of 128 × 64 on an H100's 132 SMs ran
/// fastest split two ways), times the slices per chunk. The sum pass reads
/// the chunks' planes of C and writes C once.
fn split_cost(t: &Tiling, tiles: u64, k: u64, elements_c: u64, units: u64, chunks: u64) -> u64 {
    let slices = k.div_ceil(u64::from(t.tile_k)).max(1);
    let chunk_slices = slices.div_ceil(chunks);
    let chunks = slices.div_ceil(chunk_slices);
    let rounds = tiles.saturating_mul(chunks).div_ceil(units).max(2);
    let pass_1 = rounds.saturating_mul(chunk_slices);
    if chunks == 1 {
        return pass_1;
    }
    let slice_flops = 2 * u64::from(t.tile_m) * u64::from(t.tile_n) * u64::from(t.tile_k);
    let sum_bytes = (chunks + 1).saturating_mul(elements_c).saturating_mul(4);
    let sum = sum_bytes.saturating_mul(FLOPS_PER_BYTE) / units.saturating_mul(slice_flops);
    pass_1.saturating_add(sum)
}

/// Whether pass 1 stores runs of four columns of C 16 bytes at a time
/// (`VECTOR_STORES`, in GLSL and WGSL; the kernels fall back to 4-byte
/// stores where n % 4 ≠ 0 or a run crosses C's edge; CUDA's always store
/// 16 bytes, OpenCL C's 4, mod.rs step 3): where k is split
/// into `chunks > 1` planes, or the micro-tile is smaller than 8 × 8;
/// never for micro-tiles larger than 8 × 8 ([`Tiling::large`]).
/// Measured through NVIDIA's Vulkan on an H100 (mod.rs, step 3): 16-byte
/// stores took the split 1024³ from 82.7 to 73.3 µs and the 64 × 64
/// tiling's unsplit 1024³ from 97 to 81 µs, but slowed the 8 × 8 slice
/// loop by 6% (4096³ 3.41 → 3.61 ms), which only a split's short chunks
/// and extra planes outweigh. With 8 × 16 micro-tiles they ran the split
/// 2048³ in 10.6 ms against 0.49 with 4-byte stores: the driver kept the
/// store loops rolled, so the accumulators they index left the registers.
pub fn vector_stores(t: &Tiling, chunks: u32) -> bool {
    !t.large() && (chunks > 1 || t.thread_m * t.thread_n < 64)
}

/// The sum pass's workgroup size.
fn sum_group_size(caps: &Capabilities) -> u32 {
    crate::op::preferred_group_size(caps)
}

/// A compiled matrix product: pass 1 (C's tiles, per chunk of k) and, when k
/// is split, the sum passes.
pub struct MatmulPlan {
    backend: Arc<dyn Backend>,
    spec: MatmulSpec,
    variant: MatmulVariant,
    tuned: bool,
    geometry: Geometry,
    params: [u32; 4],
    kernel: Kernel,
    sum_kernel: Option<Kernel>,
    scratch: [Option<Buffer>; 2],
}

impl MatmulPlan {
    /// Plan with the tuned variant for this device and shape, or the
    /// heuristic's (on the CPU backend, its tiling's CPU form:
    /// [`CPU_TILINGS`]).
    pub fn new(backend: &Arc<dyn Backend>, spec: &MatmulSpec) -> Result<Self> {
        spec.validate()?;
        let caps = &backend.info().caps;
        // Nothing tuned: the heuristic's tiling, in its CPU backend's form
        // there (see `CPU_TILINGS`).
        let heuristic = || {
            let cpu_backend = workgroup_model(backend.info());
            heuristic_variant(caps, backend.info().api.language(), spec, !cpu_backend).map(|v| {
                if cpu_backend {
                    v.for_cpu_backend(caps)
                } else {
                    v
                }
            })
        };
        let default = || {
            heuristic().ok_or_else(|| {
                let smallest = TILINGS[TILINGS.len() - 1];
                Error::unsupported(
                    backend.info().api,
                    format!(
                        "matmul needs workgroups of {} invocations and {} bytes of shared memory",
                        smallest.group_size(),
                        smallest.launch_shared_bytes(
                            backend.info().api.language(),
                            &backend.info().caps
                        )
                    ),
                )
            })
        };
        let (mut plan, tuned) = plan_tuned(
            backend.info(),
            "matmul",
            &tune_class(spec),
            MatmulVariant::from_name,
            default,
            |v| Self::with_variant(backend, spec, v),
        )?;
        plan.tuned = tuned;
        Ok(plan)
    }

    /// Plan with a given variant (conformance forces each one).
    pub fn with_variant(
        backend: &Arc<dyn Backend>,
        spec: &MatmulSpec,
        variant: MatmulVariant,
    ) -> Result<Self> {
        Self::with_budget(backend, spec, variant, u64::MAX)
    }

    /// Plan with a given variant as if the device's loop budget were at most
    /// `budget`: conformance emulates a capped device on every device this
    /// way (deep split-K, several sum passes).
    pub fn with_budget(
        backend: &Arc<dyn Backend>,
        spec: &MatmulSpec,
        variant: MatmulVariant,
        budget: u64,
    ) -> Result<Self> {
        spec.validate()?;
        variant.check(backend)?;
        let info = backend.info();
        let caps = &info.caps;
        let params = [
            u32_param("matmul m", spec.m as u64)?,
            u32_param("matmul n", spec.n as u64)?,
            u32_param("matmul k", spec.k as u64)?,
            0,
        ];
        let geometry = geometry(
            caps,
            info.api.language(),
            spec,
            &variant,
            budget.min(caps.loop_budget()),
        )?;
        // WGSL and GLSL index with 32-bit words.
        if matches!(info.api.language(), Language::Wgsl | Language::Glsl) {
            for (what, elements) in [
                "matmul A (elements)",
                "matmul B (elements)",
                "matmul C (elements)",
            ]
            .into_iter()
            .zip(spec.elements()?)
            {
                u32_param(what, elements)?;
            }
        }
        let t = &variant.tiling;
        let kernel = prepare_kernel(
            backend,
            variant.algorithm.kernel(),
            &[
                ("GROUP_SIZE", t.group_size()),
                ("TILE_M", t.tile_m),
                ("TILE_N", t.tile_n),
                ("TILE_K", t.tile_k),
                ("THREAD_M", t.thread_m),
                ("THREAD_N", t.thread_n),
                (
                    "VECTOR_STORES",
                    u32::from(vector_stores(t, geometry.chunks)),
                ),
            ],
            &geometry.launch,
        )?;
        let sum_kernel = match geometry.sums.first() {
            Some(pass) => Some(prepare_kernel(
                backend,
                super::kernel::sum_kernel(),
                &[("GROUP_SIZE", pass.launch.group_size)],
                &pass.launch,
            )?),
            None => None,
        };
        let scratch = [
            alloc_scratch(backend, geometry.scratch[0])?,
            alloc_scratch(backend, geometry.scratch[1])?,
        ];
        Ok(MatmulPlan {
            backend: Arc::clone(backend),
            spec: *spec,
            variant,
            tuned: false,
            params: [params[0], params[1], params[2], geometry.chunk],
            geometry,
            kernel,
            sum_kernel,
            scratch,
        })
    }

    /// The device it runs on.
    pub fn backend(&self) -> &Arc<dyn Backend> {
        &self.backend
    }

    /// What the plan multiplies.
    pub fn spec(&self) -> &MatmulSpec {
        &self.spec
    }

    /// The variant as it runs: the split shows the chunks k was cut into.
    pub fn variant(&self) -> MatmulVariant {
        MatmulVariant {
            split_k: (self.geometry.chunks > 1).then_some(self.geometry.chunks),
            ..self.variant
        }
    }

    /// Whether the variant came from the tuning cache.
    pub fn tuned(&self) -> bool {
        self.tuned
    }

    /// The passes' geometry.
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// Enqueue the passes: `c` receives `A·B` (m·n f32, row-major).
    pub fn encode(&self, a: &Buffer, b: &Buffer, c: &Buffer) -> Result<()> {
        let [ea, eb, ec] = self.spec.elements()?;
        check_binding(&self.backend, "matmul A", a, ea * 4)?;
        check_binding(&self.backend, "matmul B", b, eb * 4)?;
        check_binding(&self.backend, "matmul C", c, ec * 4)?;
        check_apart("matmul", ("C", c), &[("A", a), ("B", b)])?;
        let g = &self.geometry;
        let first = match &self.scratch[0] {
            Some(partials) if g.chunks > 1 => partials,
            _ => c,
        };
        check_binding(
            &self.backend,
            "matmul partial sums",
            first,
            u64::from(g.chunks) * ec * 4,
        )?;
        // SAFETY: pass 1's workgroup (x, y, z) computes tile
        // `y·groups[0] + x` of C (skipping indices at or past the tile
        // count) over chunk z of k: it reads A's rows of the tile and
        // columns [z·chunk, min(k, (z+1)·chunk)) only where they lie inside
        // A (m×k, `a` holds m·k elements, checked above), the same rows of B
        // inside B (k×n, checked), and writes the tile's elements inside C to
        // plane z of its output: `first` holds `chunks` planes of m·n
        // (checked above; one plane, `c`, without a split). Shared memory is
        // the tiling's `shared_bytes` (the launch's). Every loop runs to a
        // count below the loop budget, so it terminates.
        unsafe {
            self.backend
                .launch(&self.kernel, &g.launch, &[a, b, first], &self.params)?;
        }
        let Some(sum_kernel) = &self.sum_kernel else {
            return Ok(());
        };
        let len = u32_param("matmul C (elements)", ec)?;
        let mut source = 0;
        for pass in &g.sums {
            let input = self.scratch[source]
                .as_ref()
                .ok_or_else(|| Error::Internal("matmul: missing split-k scratch".into()))?;
            let output = if pass.to_output {
                c
            } else {
                self.scratch[1 - source]
                    .as_ref()
                    .ok_or_else(|| Error::Internal("matmul: missing split-k scratch".into()))?
            };
            let out_planes = u64::from(pass.launch.groups[2]);
            check_binding(
                &self.backend,
                "matmul partial sums",
                input,
                u64::from(pass.planes) * ec * 4,
            )?;
            check_binding(
                &self.backend,
                "matmul partial sums",
                output,
                out_planes * ec * 4,
            )?;
            // SAFETY: invocation e of the flat x/y grid (skipping e >= len)
            // reads element e of input planes z·fan_in .. min(planes,
            // (z+1)·fan_in) — `input` holds `planes` planes of `len`
            // elements (checked above) — and writes element e of output
            // plane z < out_planes (checked above). Its one loop runs at
            // most `fan_in` times.
            unsafe {
                self.backend.launch(
                    sum_kernel,
                    &pass.launch,
                    &[input, output],
                    &[len, pass.planes, pass.fan_in],
                )?;
            }
            source = 1 - source;
        }
        Ok(())
    }
}

fn alloc_scratch(backend: &Arc<dyn Backend>, elements: u64) -> Result<Option<Buffer>> {
    if elements == 0 {
        return Ok(None);
    }
    Ok(Some(backend.alloc(elements * 4)?))
}

/// `C = A·B` on `backend` for row-major `A (m×k)` and `B (k×n)` (one upload
/// each, one download).
pub fn matmul_f32(
    backend: &Arc<dyn Backend>,
    a: &[f32],
    b: &[f32],
    spec: &MatmulSpec,
) -> Result<Vec<f32>> {
    spec.validate()?;
    spec.check_lengths(a.len(), b.len())?;
    let plan = MatmulPlan::new(backend, spec)?;
    run_plan(&plan, a, b)
}

/// Upload, run `plan`, download C.
pub(crate) fn run_plan(plan: &MatmulPlan, a: &[f32], b: &[f32]) -> Result<Vec<f32>> {
    let spec = plan.spec();
    spec.check_lengths(a.len(), b.len())?;
    let [_, _, elements_c] = spec.elements()?;
    let backend = plan.backend();
    let a_buf = Buffer::from_slice(backend, a)?;
    let b_buf = Buffer::from_slice(backend, b)?;
    let c_buf = backend.alloc(elements_c * 4)?;
    plan.encode(&a_buf, &b_buf, &c_buf)?;
    c_buf.read(elements_c as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rosetta_core::DeviceType;

    fn caps(loop_limit: Option<u32>, compute_units: u32) -> Capabilities {
        Capabilities {
            device_type: DeviceType::Cpu,
            max_shared_bytes: 32 << 10,
            max_group_size: [1024, 1024, 64],
            max_group_invocations: 1024,
            max_groups: [65_535, 65_535, 65_535],
            subgroup_sizes: None,
            subgroup_ops: false,
            float_atomics: false,
            timestamps: false,
            max_buffer_bytes: 1 << 32,
            memory_bytes: 1 << 34,
            compute_units,
            loop_limit,
            device_fence: false,
            async_copy: false,
        }
    }

    fn spec(m: usize, n: usize, k: usize) -> MatmulSpec {
        MatmulSpec { m, k, n }
    }

    /// An H100-like GPU (132 units) with `max_shared_bytes` of shared
    /// memory, copying asynchronously or not.
    fn gpu(max_shared_bytes: u32, async_copy: bool) -> Capabilities {
        Capabilities {
            device_type: DeviceType::DiscreteGpu,
            max_shared_bytes,
            async_copy,
            ..caps(None, 132)
        }
    }

    /// The untuned plan's variant name and chunks of k for `s`.
    fn untuned(c: &Capabilities, language: Language, s: MatmulSpec) -> (String, u32) {
        let v = heuristic_variant(c, language, &s, true).unwrap();
        let chunks = geometry(c, language, &s, &v, u64::MAX).unwrap().chunks;
        (v.name(), chunks)
    }

    /// The language the geometry tests plan for (one shared buffer).
    const L: Language = Language::Wgsl;

    /// The stage count of the CUDA and OpenCL versions is the plan's: the
    /// plan passes `ASYNC_STAGES` buffers' worth of shared memory where the
    /// device copies asynchronously, the kernels use `STAGES` (and trap on
    /// less).
    #[test]
    fn async_stages_match_the_kernels() {
        let cuda = include_str!("matmul.cu");
        assert!(cuda.contains(&format!(
            "#define STAGES {ASYNC_STAGES}u  // = ASYNC_STAGES"
        )));
        let opencl = include_str!("matmul.cl");
        assert!(opencl.contains(&format!(
            "#define STAGES (ASYNC_STAGES * STAGE_FLOATS * 4u <= {OPENCL_ASYNC_BUDGET}u ? ASYNC_STAGES : 2u)"
        )));
        assert!(opencl.contains(&format!(
            "#define ASYNC_STAGES {ASYNC_STAGES}u  // = ASYNC_STAGES"
        )));
        let t = TILINGS[4];
        let copying = Capabilities {
            async_copy: true,
            ..caps(None, 1)
        };
        // 16-deep 128 × 128 buffers: four in CUDA, two in OpenCL C.
        let deep = TILINGS[2];
        assert!(ASYNC_STAGES * deep.shared_bytes() > OPENCL_ASYNC_BUDGET);
        assert_eq!(deep.stages(Language::Cuda, &copying), ASYNC_STAGES);
        assert_eq!(deep.stages(Language::OpenCl, &copying), 2);
        for language in [Language::Cuda, Language::OpenCl] {
            assert_eq!(
                t.launch_shared_bytes(language, &copying),
                ASYNC_STAGES * t.shared_bytes()
            );
            assert_eq!(
                t.launch_shared_bytes(language, &caps(None, 1)),
                t.shared_bytes()
            );
        }
        for language in [Language::Wgsl, Language::Glsl, Language::Rust] {
            assert_eq!(t.launch_shared_bytes(language, &copying), t.shared_bytes());
        }
        // A device with room for one buffer but not four runs the tiling
        // only where it takes one.
        let one = Capabilities {
            max_shared_bytes: t.shared_bytes(),
            ..copying.clone()
        };
        assert!(t.fits(&one, L) && !t.fits(&one, Language::Cuda));
        assert!(!t.fits(&one, Language::OpenCl));
        let g = geometry(
            &copying,
            Language::OpenCl,
            &spec(9, 9, 9),
            &MatmulVariant::tiled(TILINGS[6]),
            u64::MAX,
        )
        .unwrap();
        assert_eq!(
            g.launch.shared_bytes,
            ASYNC_STAGES * TILINGS[6].shared_bytes()
        );
    }

    /// 16-deep slices are the untuned choice only where the kernel copies
    /// asynchronously.
    #[test]
    fn eight_by_eight_micro_tiles_store_vectors_only_where_k_is_split() {
        // What the plan gives pass 1 on an H200-like device: the unsplit
        // 4096³ keeps 4-byte stores for its 8 × 8 micro-tiles, the split
        // 1024³ takes 16-byte ones, and smaller micro-tiles always do.
        let device = Capabilities {
            max_shared_bytes: 48 << 10,
            ..caps(None, 132)
        };
        let chunks = |t: Tiling, side: usize| {
            let v = MatmulVariant::tiled(t);
            geometry(
                &device,
                Language::Glsl,
                &spec(side, side, side),
                &v,
                u64::MAX,
            )
            .unwrap()
            .chunks
        };
        let eight = TILINGS[4];
        assert_eq!(chunks(eight, 4096), 1);
        assert!(!vector_stores(&eight, chunks(eight, 4096)));
        assert!(chunks(eight, 1024) > 1);
        assert!(vector_stores(&eight, chunks(eight, 1024)));
        for t in [TILINGS[5], TILINGS[6]] {
            assert!(t.thread_m * t.thread_n < 64);
            assert!(vector_stores(&t, 1), "{t}");
        }
    }

    #[test]
    fn sixteen_deep_slices_only_with_asynchronous_copies() {
        let big = spec(4096, 4096, 4096);
        let plain = Capabilities {
            max_shared_bytes: 227 << 10,
            compute_units: 132,
            ..caps(None, 132)
        };
        let copying = Capabilities {
            async_copy: true,
            ..plain.clone()
        };
        for language in [Language::Cuda, Language::OpenCl] {
            let v = heuristic_variant(&copying, language, &big, true).unwrap();
            assert_eq!(v.tiling.tile_k, 16, "{language:?}");
            let v = heuristic_variant(&plain, language, &big, true).unwrap();
            assert_eq!(v.tiling.tile_k, 8, "{language:?}");
        }
        for language in [Language::Wgsl, Language::Glsl] {
            let v = heuristic_variant(&copying, language, &big, true).unwrap();
            assert_eq!(v.tiling.tile_k, 8, "{language:?}");
        }
    }

    /// The large tilings are the untuned choice only on GPUs, only where
    /// C's tiles alone nearly fill the device (one workgroup per unit) and,
    /// through the register prefetch, k is long, and then unsplit; each
    /// only with its way of filling shared memory; they never store 16
    /// bytes at a time.
    #[test]
    fn large_tiles_only_where_they_fill_a_gpu_unsplit() {
        let gpu = gpu(227 << 10, false);
        let copying = Capabilities {
            async_copy: true,
            ..gpu.clone()
        };
        let opencl = Capabilities {
            max_shared_bytes: 48 << 10,
            ..copying.clone()
        };
        let plan = untuned;
        let cube = |side| spec(side, side, side);
        let cuda = |side| plan(&copying, Language::Cuda, cube(side));
        assert_eq!(cuda(4096), ("256x128x16/16x8".into(), 1));
        // 128 tiles for 132 units: within an eighth of a round, unsplit.
        assert_eq!(cuda(2048), ("256x128x16/16x8".into(), 1));
        // 32 tiles: the 128 × 128 tiling, split over k.
        let (name, chunks) = cuda(1024);
        assert_eq!(name, "128x128x16/8x8");
        assert!(chunks > 1);
        assert_eq!(plan(&gpu, Language::Cuda, cube(4096)).0, "128x256x8/8x16");
        assert_eq!(
            plan(&opencl, Language::OpenCl, cube(4096)).0,
            "128x128x16/8x8"
        );
        for language in [Language::Glsl, Language::Wgsl] {
            let glsl = |s| plan(&copying, language, s);
            assert_eq!(glsl(cube(4096)), ("128x256x8/8x16".into(), 1));
            assert_eq!(glsl(cube(2048)), ("128x256x8/8x16".into(), 1));
            // 64 tiles of 128 × 128: the 128 × 64 tiling split two ways
            // (`heuristic_chunks`).
            assert_eq!(glsl(cube(1024)), ("128x64x16/8x4".into(), 2));
            // 132 − 132 / 8 = 116 tiles fill the device; 115 do not.
            assert_eq!(
                glsl(spec(128 * 4, 256 * 29, 1024)),
                ("128x256x8/8x16".into(), 1)
            );
            assert_eq!(glsl(spec(128 * 5, 256 * 23, 1024)).0, "128x64x16/8x4");
            // Through the register prefetch, only where k is at least
            // LARGE_PREFETCH_MIN_K; the asynchronous copies' large tiling
            // at any k.
            assert_eq!(glsl(spec(2048, 2048, 1023)), ("128x64x16/8x4".into(), 1));
            assert_eq!(
                plan(&copying, Language::Cuda, spec(2048, 2048, 128)).0,
                "256x128x16/16x8"
            );
        }
        // Not where the last round of workgroups leaves too many units idle
        // (`full_rounds`): seven eighths full where the kernel copies
        // asynchronously, four fifths through the register prefetch. Per
        // cube: (side, CUDA takes it, GLSL and WGSL take it).
        for (side, copying_large, prefetch_large) in [
            (2304, false, false),
            (2560, false, false),
            (2816, true, true),
            (3072, false, false),
            (3584, true, true),
            (4608, true, true),
            (5120, false, true),
        ] {
            let (name, _) = cuda(side);
            assert_eq!(name == "256x128x16/16x8", copying_large, "{side}³: {name}");
            for language in [Language::Glsl, Language::Wgsl] {
                let (name, _) = plan(&gpu, language, cube(side));
                let large = name == "128x256x8/8x16";
                assert_eq!(large, prefetch_large, "{language:?} {side}³: {name}");
            }
        }
        assert_eq!(
            plan(&copying, Language::Cuda, spec(3000, 2000, 1000)).0,
            "128x128x16/8x8"
        );
        assert_eq!(
            plan(&copying, Language::Cuda, spec(6144, 1024, 1024)).0,
            "128x128x16/8x8"
        );
        for language in [Language::Glsl, Language::Wgsl] {
            let (name, _) = plan(&gpu, language, spec(6144, 1024, 1024));
            assert_ne!(name, "128x256x8/8x16");
        }
        // Two rounds of 132: at least 231 tiles (7/8 of 264), or 212 (4/5).
        assert!(full_rounds(231, 132, true) && !full_rounds(230, 132, true));
        assert!(full_rounds(212, 132, false) && !full_rounds(211, 132, false));
        assert!(full_rounds(132 * 7, 132, true) && full_rounds(132, 132, true));
        // Not on CPUs (lavapipe, PoCL), however many tiles.
        let cpu = Capabilities {
            device_type: DeviceType::Cpu,
            ..gpu.clone()
        };
        for language in [Language::Glsl, Language::OpenCl, Language::Rust] {
            let v = heuristic_variant(&cpu, language, &spec(8192, 8192, 64), true).unwrap();
            assert!(!v.tiling.large(), "{language:?}: {v}");
        }
        for t in TILINGS.into_iter().filter(Tiling::large) {
            assert!(!vector_stores(&t, 1) && !vector_stores(&t, 4), "{t}");
        }
    }

    /// The untuned plan on an H100-like GPU (132 units) at the shapes whose
    /// variants were timed through all four APIs
    /// (`docs/results/h100-2026-11-27g/shapes/`): each pick here was the
    /// fastest measured there or within 5% of it. The old rule ("a
    /// workgroup for every unit") left 1536³ unsplit and took 64 × 64
    /// tiles at 768³, 28–42% slower.
    #[test]
    fn mid_size_products_split_as_measured_on_an_h100() {
        let gpu = gpu(48 << 10, false);
        let cuda = Capabilities {
            max_shared_bytes: 227 << 10,
            async_copy: true,
            ..gpu.clone()
        };
        let plan = |c: &Capabilities, language, (m, k, n): (usize, usize, usize)| {
            untuned(c, language, spec(m, n, k))
        };
        let small = "128x64x16/8x4".to_string();
        let deep = "128x128x16/8x8".to_string();
        for language in [Language::Glsl, Language::Wgsl] {
            let glsl = |shape| plan(&gpu, language, shape);
            // Vulkan, H100: 41.7 µs (64 × 64 unsplit: 61.2).
            assert_eq!(glsl((768, 768, 768)), (small.clone(), 3));
            // 71.8 (split 3: 73.7; 128 × 128 × 8 split 4: 73.0).
            assert_eq!(glsl((1024, 1024, 1024)), (small.clone(), 2));
            // 227.9 (split 3: 232.2; 128 × 128 × 8 unsplit: 332.6).
            assert_eq!(glsl((1536, 1536, 1536)), (small.clone(), 4));
            // 71.6 (split 4: 76.5; 128 × 128 × 8 split 16: 73.5).
            assert_eq!(glsl((512, 4096, 512)), (small.clone(), 8));
            // k = 512: 127.4 (the large tiling, which fills the device
            // unsplit: 131.4; `LARGE_PREFETCH_MIN_K`).
            assert_eq!(glsl((2048, 512, 2048)), (small.clone(), 1));
            assert_eq!(glsl((2048, 1024, 2048)), ("128x256x8/8x16".into(), 1));
        }
        // Small products: chunks of 64 (MIN_SPLIT_K). Vulkan, H100: 19.7
        // µs (unsplit 32 × 32 tiles: 46.8); CUDA alike (19.7 against
        // 27.8). Through OpenCL chunks of 256 (MIN_SPLIT_K_OPENCL): too
        // short to split 512³.
        assert_eq!(
            plan(&gpu, Language::Glsl, (512, 512, 512)),
            (small.clone(), 8)
        );
        let opencl = Capabilities {
            async_copy: true,
            ..gpu.clone()
        };
        assert_eq!(
            plan(&opencl, Language::OpenCl, (512, 512, 512)),
            ("32x32x8/2x2".into(), 1)
        );
        // k = 256 is never split (MAX_UNSPLIT_K): 1024 × 256 × 1024 ran
        // 9–25% slower split through every API.
        for (c, language) in [
            (&gpu, Language::Glsl),
            (&cuda, Language::Cuda),
            (&opencl, Language::OpenCl),
        ] {
            assert_eq!(plan(c, language, (1024, 256, 1024)).1, 1, "{language:?}");
        }
        let cuda = |shape| plan(&cuda, Language::Cuda, shape);
        // CUDA, H100: 37.7 µs (128 × 64 × 16 split 3: 41.3; 128 × 128 × 16
        // split 3: 42.4).
        assert_eq!(cuda((768, 768, 768)), (deep.clone(), 7));
        // 65.2 (split 3: 78.9).
        assert_eq!(cuda((1024, 1024, 1024)), (deep.clone(), 4));
        // 217.5 (split 3: 223.6; unsplit: 301.5).
        assert_eq!(cuda((1536, 1536, 1536)), (deep.clone(), 6));
        // 64.6 (split 6: 87.2).
        assert_eq!(cuda((512, 4096, 512)), (deep.clone(), 16));
    }

    /// The split's cost: more chunks shorten pass 1 until every unit holds
    /// two rounds, and then only add sums; one chunk costs no sum.
    #[test]
    fn the_split_cost_counts_rounds_per_unit_and_the_sums() {
        let t = Tiling::new(128, 64, 16, 8, 4);
        // 128 tiles, 64 slices, 132 units: unsplit, one workgroup per unit
        // counts as two rounds of 64 slices.
        assert_eq!(split_cost(&t, 128, 1024, 1 << 20, 132, 1), 2 * 64);
        // Two chunks: two rounds of 32 slices, plus the sums.
        let two = split_cost(&t, 128, 1024, 1 << 20, 132, 2);
        assert!(two > 2 * 32 && two < 2 * 64, "{two}");
        // Four: four rounds of 16, and more sums than two chunks.
        let four = split_cost(&t, 128, 1024, 1 << 20, 132, 4);
        assert!(four > two, "{four} against {two}");
        // Asking for 9 chunks of 64 slices gives 8 chunks of 8 (no ninth
        // is left): the cost of the chunks the geometry makes, 8.
        assert_eq!(
            split_cost(&t, 128, 1024, 1 << 20, 132, 9),
            split_cost(&t, 128, 1024, 1 << 20, 132, 8)
        );
        // No overflow at the extremes.
        let huge = split_cost(&t, u64::MAX / 2, u64::MAX / 2, u64::MAX / 2, 1, 3);
        assert!(huge > 0);
    }

    /// The WGSL version sizes its register arrays for micro-tiles up to
    /// 16 × 16 (`MAX_THREAD`) and prefetches at most 16 elements of each tile
    /// per invocation (`MAX_LOADS`): every tiling the GPU languages run
    /// must fit both.
    #[test]
    fn gpu_tilings_fit_the_wgsl_register_arrays() {
        let wgsl = include_str!("matmul.wgsl");
        assert!(wgsl.contains("const MAX_THREAD: u32 = 16u;"));
        assert!(wgsl.contains("const MAX_LOADS: u32 = 16u;"));
        for algorithm in Algorithm::ALL {
            for t in algorithm.tilings() {
                assert!(t.thread_m <= 16 && t.thread_n <= 16, "{t}");
                assert!(t.loads_a() <= 16 && t.loads_b() <= 16, "{t}");
            }
        }
    }

    #[test]
    fn names_round_trip() {
        for v in MatmulVariant::all() {
            assert_eq!(MatmulVariant::from_name(&v.name()), Some(v));
            let s = v.split(7);
            assert_eq!(s.name(), format!("{}+splitk7", v.tiling));
            assert_eq!(MatmulVariant::from_name(&s.name()), Some(s));
        }
        let names: Vec<String> = MatmulVariant::all().iter().map(|v| v.name()).collect();
        assert_eq!(
            names[..5],
            [
                "256x128x16/16x8",
                "128x256x8/8x16",
                "128x128x16/8x8",
                "128x64x16/8x4",
                "128x128x8/8x8"
            ]
        );
        for t in CPU_TILINGS {
            let v = MatmulVariant::tiled(t);
            assert!(v.cpu_only() && !MatmulVariant::all().contains(&v));
            assert_eq!(MatmulVariant::from_name(&v.name()), Some(v));
        }
        assert_eq!(
            MatmulVariant::tiled(CPU_TILINGS[0]).name(),
            "128x128x64/4x16"
        );
        assert_eq!(
            MatmulVariant::from_name("tiled:64x64x8/4x4"),
            Some(MatmulVariant::tiled(TILINGS[5]))
        );
        for bad in [
            "",
            "64x64x8",
            "64x64x8/4x4+splitk0",
            "64x64x8/4x4+k4",
            "16x16x8/2x2",
            "x:64x64x8/4x4",
        ] {
            assert_eq!(MatmulVariant::from_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_cpu_backend_form_keeps_the_tile_and_falls_back_where_it_does_not_fit() {
        let roomy = Capabilities {
            max_shared_bytes: 1 << 20,
            ..caps(None, 2)
        };
        let small = caps(None, 2); // 32 KiB of shared memory

        // The large tilings and the 128 × 64 one have no CPU form: they run
        // as they are (the CPU backend's heuristic picks none of them).
        let formless = |t: &Tiling| t.large() || (t.tile_m, t.tile_n) == (128, 64);
        for t in TILINGS.into_iter().filter(formless) {
            assert_eq!(MatmulVariant::tiled(t).for_cpu_backend(&roomy).tiling, t);
            let cpu = Capabilities {
                max_shared_bytes: 1 << 20,
                ..caps(None, 16)
            };
            for side in [64, 256, 768, 1024, 1536, 4096] {
                let v = heuristic_variant(&cpu, Language::Rust, &spec(side, side, side), false);
                assert_ne!(v.unwrap().tiling, t, "{side}");
            }
        }
        for t in TILINGS.into_iter().filter(|t| !formless(t)) {
            let cpu = MatmulVariant::tiled(t).for_cpu_backend(&roomy).tiling;
            assert!(CPU_TILINGS.contains(&cpu), "{t} -> {cpu}");
            assert_eq!(
                (cpu.tile_m, cpu.tile_n, cpu.group_size()),
                (t.tile_m, t.tile_n, t.group_size())
            );
            let fallback = MatmulVariant::tiled(t).for_cpu_backend(&small).tiling;
            assert!(fallback.fits(&small, Language::Rust));
            assert_eq!(fallback == t, !cpu.fits(&small, Language::Rust));
        }
        let split = MatmulVariant::tiled(TILINGS[2]).split(3);
        assert_eq!(split.for_cpu_backend(&roomy).split_k, Some(3));
    }

    #[test]
    fn capped_devices_split_long_k_within_the_budget() {
        let capped = caps(Some(65_535), 2);
        let budget = capped.loop_budget();
        for v in MatmulVariant::all() {
            for k in [1usize, 7, 1 << 20, (1 << 20) + 3, 200_000] {
                let g = geometry(&capped, L, &spec(1, 1, k), &v, budget).unwrap();
                assert!(g.loops <= budget, "{v} k={k}: {} loops", g.loops);
                assert_eq!(g.chunk % v.tiling.tile_k, 0);
                assert!(u64::from(g.chunk) * u64::from(g.chunks) >= k as u64);
                assert!(u64::from(g.chunk) * u64::from(g.chunks - 1) < k as u64);
                for pass in &g.sums {
                    assert!(u64::from(pass.fan_in) + SUM_LOOP_SLACK <= budget);
                }
                assert!(g.sums.last().is_none_or(|p| p.to_output));
            }
            let long = geometry(&capped, L, &spec(1, 1, 1 << 20), &v, budget).unwrap();
            assert!(long.chunks > 1, "{v}");
        }
        // Without a cap, a single tile of C still splits (to fill the
        // device), but a large C does not.
        let free = caps(None, 132);
        let v = MatmulVariant::tiled(TILINGS[5]);
        let g = geometry(&free, L, &spec(64, 64, 200_000), &v, u64::MAX).unwrap();
        assert!(g.chunks > 100 && g.sums.len() == 1, "{g:?}");
        let g = geometry(&free, L, &spec(4096, 4096, 4096), &v, u64::MAX).unwrap();
        assert_eq!((g.chunks, g.sums.len(), g.scratch), (1, 0, [0, 0]));
    }

    #[test]
    fn tight_budgets_sum_in_several_passes_or_refuse() {
        let c = caps(None, 1);
        let v = MatmulVariant::tiled(TILINGS[6]);
        let per = Algorithm::Tiled.loops_per_slice(&TILINGS[6])
            + Algorithm::Tiled.loops_per_tile(&TILINGS[6]);
        let g = geometry(&c, L, &spec(3, 5, 20_000), &v, per).unwrap();
        assert_eq!(g.chunks, 2500);
        assert!(g.sums.len() >= 2, "{g:?}");
        let planes: Vec<u32> = g.sums.iter().map(|p| p.planes).collect();
        for pair in planes.windows(2) {
            assert!(pair[1] < pair[0]);
        }
        assert!(g.scratch[1] > 0);
        assert!(matches!(
            geometry(&c, L, &spec(3, 5, 20_000), &v, per - 1),
            Err(Error::ExceedsLimit { .. })
        ));
        // More chunks than z allows.
        let mut few_z = caps(None, 1);
        few_z.max_groups[2] = 100;
        assert!(matches!(
            geometry(&few_z, L, &spec(3, 5, 20_000), &v, per),
            Err(Error::ExceedsLimit { .. })
        ));
    }

    /// The GLSL and WGSL kernels take one tile per workgroup (no loop), so
    /// every grid the plan launches must cover every tile of C: a grid
    /// short of a tile would leave part of C unwritten.
    #[test]
    fn every_grid_covers_every_tile() {
        let mut limited = caps(None, 1);
        limited.max_groups = [7, 5000, 64];
        let mut checked = 0;
        for c in [caps(None, 1), caps(None, 132), limited] {
            for &v in &MatmulVariant::all() {
                for (m, n, k) in [
                    (1, 1, 1),
                    (129, 1, 7),
                    (1, 4097, 9),
                    (1000, 1000, 64),
                    (32 * 65_537, 1, 3),
                ] {
                    if let Ok(g) = geometry(&c, L, &spec(m, n, k), &v, u64::MAX) {
                        let [x, y, _] = g.launch.groups;
                        assert!(
                            u64::from(x) * u64::from(y) >= g.tiles,
                            "{v:?} on {m}x{n}x{k}: {x}x{y} groups for {} tiles",
                            g.tiles
                        );
                        checked += 1;
                    }
                }
            }
        }
        // Multi-row grids (the limited x axis) among them.
        assert!(checked >= 40, "only {checked} geometries planned");
    }

    #[test]
    fn grids_beyond_one_axis_use_two() {
        let c = caps(None, 1);
        let v = MatmulVariant::tiled(TILINGS[6]);
        let g = geometry(&c, L, &spec(1, 65_536 * 32 + 1, 3), &v, u64::MAX).unwrap();
        assert_eq!(g.tiles, 65_537);
        assert_eq!(g.launch.groups, [65_535, 2, 1]);
        let mut small = caps(None, 1);
        small.max_groups = [10, 10, 10];
        assert!(matches!(
            geometry(&small, L, &spec(32 * 101, 1, 3), &v, u64::MAX),
            Err(Error::ExceedsLimit { .. })
        ));
        assert_eq!(
            geometry(&small, L, &spec(32 * 100, 1, 3), &v, u64::MAX)
                .unwrap()
                .launch
                .groups,
            [10, 10, 1]
        );
    }

    #[test]
    fn heuristic_prefers_large_tiles_that_fill_the_device() {
        let c = caps(None, 132);
        let tiling = |m, n, k, split| {
            heuristic_variant(&c, L, &spec(m, n, k), split)
                .unwrap()
                .tiling
        };
        assert_eq!(tiling(4096, 4096, 4096, true), TILINGS[4]);
        // CUDA copying asynchronously (with room for its four buffers) takes
        // the 16-deep slices.
        let roomy = Capabilities {
            max_shared_bytes: 227 << 10,
            async_copy: true,
            ..c.clone()
        };
        let cuda = heuristic_variant(&roomy, Language::Cuda, &spec(4096, 4096, 4096), true);
        assert_eq!(cuda.unwrap().tiling, TILINGS[2]);
        assert_eq!(
            heuristic_variant(&roomy, L, &spec(4096, 4096, 4096), true)
                .unwrap()
                .tiling,
            TILINGS[4]
        );
        // 1024²: 64 large tiles, split four ways over k (256 workgroups):
        // 8 deep here, 16 deep in CUDA (asynchronous copies), where chunks
        // of 16 slices are as deep as 32 of 8.
        assert_eq!(tiling(1024, 1024, 1024, true), TILINGS[4]);
        let v = heuristic_variant(&c, L, &spec(1024, 1024, 1024), true).unwrap();
        let g = geometry(&c, L, &spec(1024, 1024, 1024), &v, u64::MAX).unwrap();
        assert_eq!(g.launch.groups[2], 4);
        let cuda = heuristic_variant(&roomy, Language::Cuda, &spec(1024, 1024, 1024), true);
        assert_eq!(cuda.unwrap().tiling, TILINGS[2]);
        let g = geometry(
            &roomy,
            Language::Cuda,
            &spec(1024, 1024, 1024),
            &cuda.unwrap(),
            u64::MAX,
        );
        assert_eq!(g.unwrap().launch.groups[2], 4);
        // Without the split (the CPU backend), or with k too short to split
        // at all (MAX_UNSPLIT_K), smaller tiles fill the device by
        // themselves.
        assert_eq!(tiling(1024, 1024, 1024, false), TILINGS[5]);
        assert_eq!(tiling(1024, 1024, 256, true), TILINGS[5]);
        assert_eq!(tiling(1024, 1024, 264, true), TILINGS[4]);
        assert_eq!(tiling(1, 1, 1, true), TILINGS[6]);
        assert_eq!(tiling(1, 1, 1, false), TILINGS[6]);
        // Skinny products with a long k: the split would "fill" the device
        // with tiles of padding; the smallest tiles waste the least.
        for (m, n) in [(1, 1), (1, 4096), (4096, 1), (3, 200), (100, 33)] {
            assert_eq!(tiling(m, n, 1 << 20, true), TILINGS[6], "{m}x{n}");
        }
        // Tiles at least half full still take the large tiling.
        assert_eq!(tiling(91, 91, 1 << 20, true), TILINGS[4]);
        assert_eq!(tiling(1000, 1000, 1000, true), TILINGS[4]);
        let mut tiny = c.clone();
        tiny.max_group_invocations = 128;
        assert!(heuristic_variant(&tiny, L, &spec(4, 4, 4), true).is_none());
        assert_eq!(tune_class(&spec(4096, 1000, 1)), "m<=2^12 n<=2^10 k<=2^0");
    }

    /// The tuner's second stage measures the fastest tiling at 1, half and
    /// twice the untuned plan's chunk count, named by the chunks each gives
    /// the shape, never the plan's own geometry again, never past the
    /// heuristic's scratch; the CPU backend's plans do not split, so none
    /// there.
    #[test]
    fn the_tuner_measures_chunk_counts_around_the_plans() {
        let c = gpu(100 << 10, false);
        let device = crate::op::test_device(rosetta_core::Api::Vulkan, c.clone());
        let s = spec(1024, 1024, 1024);
        let names = |v: MatmulVariant, s: MatmulSpec| -> Vec<String> {
            v.tuning_splits(&device, &s)
                .iter()
                .map(MatmulVariant::name)
                .collect()
        };
        // The untuned plan (128 x 64 split two ways here) and its neighbours.
        assert_eq!(untuned(&c, Language::Glsl, s), ("128x64x16/8x4".into(), 2));
        let small = MatmulVariant::tiled(TILINGS[3]);
        assert_eq!(
            names(small, s),
            ["128x64x16/8x4+splitk1", "128x64x16/8x4+splitk4"]
        );
        // A split variant's neighbours are its tiling's.
        assert_eq!(names(small.split(4), s), names(small, s));
        let chunks = |v: &MatmulVariant| {
            geometry(&c, Language::Glsl, &s, v, u64::MAX)
                .unwrap()
                .chunks
        };
        for t in TILINGS {
            let plain = MatmulVariant::tiled(t);
            let splits = plain.tuning_splits(&device, &s);
            let mut seen: Vec<u32> = splits.iter().map(chunks).collect();
            seen.push(chunks(&plain));
            let count = seen.len();
            seen.sort();
            seen.dedup();
            assert_eq!(seen.len(), count, "{}: {seen:?}", t.name());
            for split in &splits {
                assert_eq!(Some(chunks(split)), split.split_k, "{}", split.name());
            }
        }
        // A large tiling fills the device unsplit at 2048^3: its one
        // alternative is 2 chunks (1 is the plan's own); at 4096^3 two
        // planes of C are past the heuristic's scratch, so none.
        let large = MatmulVariant::tiled(TILINGS[1]);
        assert_eq!(
            names(large, spec(2048, 2048, 2048)),
            ["128x256x8/8x16+splitk2"]
        );
        assert!(names(large, spec(4096, 4096, 4096)).is_empty());
        // None where the tiling does not fit, none on the CPU backend.
        let tiny = crate::op::test_device(rosetta_core::Api::Vulkan, gpu(8 << 10, false));
        assert!(large.tuning_splits(&tiny, &s).is_empty());
        let cpu = crate::op::test_device(rosetta_core::Api::Cpu, caps(None, 2));
        assert!(small.tuning_splits(&cpu, &s).is_empty());
    }
}
