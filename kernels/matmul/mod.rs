//! Matmul: `C (m×n) = A (m×k) · B (k×n)`, row-major f32, any m, n, k ≥ 1.
//!
//! # Algorithm (every language)
//! **Pass 1 (`matmul`): shared-memory tiles with register blocking.** A
//! workgroup computes one `TILE_M × TILE_N` tile of C over one chunk of k;
//! its `GROUP_SIZE = THREADS_M·THREADS_N` invocations
//! (`THREADS_M = TILE_M/THREAD_M`, `THREADS_N = TILE_N/THREAD_N`) each own
//! a `THREAD_M × THREAD_N` micro-tile, accumulated in registers, with
//! `tx = lid % THREADS_N`, `ty = lid / THREADS_N`. The micro-tile's rows
//! come in runs of `RUN_M` consecutive rows, `THREADS_M·RUN_M` apart: its
//! row `i` is tile row `micro_row(ty, i) = (i / RUN_M)·THREADS_M·RUN_M +
//! ty·RUN_M + i % RUN_M`; its columns likewise (`micro_col(tx, j)` with
//! `RUN_N`, `THREADS_N`). `RUN_M` is 4 where `THREAD_M` is a multiple of 4,
//! else `THREAD_M` (one run: rows `ty·THREAD_M + i`). Why runs of 4: each
//! is one 16-byte shared read, and the 8 invocations of a quarter-warp then
//! read 128 consecutive bytes of `shared_b` — no bank conflicts, where
//! contiguous 8-wide micro-tiles put invocations 32 bytes apart (a 4-way
//! conflict per read on NVIDIA). Measured on an H200 with CUDA, 4096³:
//! 37.3 → 39.9 TFLOP/s. The Rust version keeps one run (whole micro-tile
//! rows contiguous): its vectors are 8 wide, and which invocation owns which
//! element changes no result.
//! 1. **Chunk and tile.** The chunk is `group_id.z`: k indices
//!    `[z·chunk, z·chunk + chunk)` clipped to k (`chunk` is a multiple of
//!    `TILE_K`, so slices never straddle two chunks). The tile loop starts at
//!    the flat workgroup index `tile = group_id.y·num_groups.x + group_id.x`
//!    and strides by `num_groups.x·num_groups.y` below `tiles_m·tiles_n`;
//!    `tile_m = tile / tiles_n`, `tile_n = tile % tiles_n`. The plan lays C's
//!    tiles over x and y (each extent below 2^16, at most 2^31 workgroups, so
//!    no index or stride wraps in 32 bits) with one workgroup per tile
//!    (`x·y >= tiles`, unit-tested), so the loop runs once (or not at all in
//!    the last row's spare workgroups); its bounds are the same for the whole
//!    workgroup, as the barriers inside need. CUDA and OpenCL C keep the
//!    loop: NVCC schedules it about 10% faster than an early return on an
//!    H100. GLSL and WGSL take their one tile with an `if (tile < tiles)`:
//!    through NVIDIA's Vulkan driver on an H200 that ran wgpu's 4096³ in
//!    3.46 against 3.55 ms (Vulkan 3.42 against 3.44).
//! 2. For each `TILE_K` slice `k0` of the chunk:
//!    a. load `shared_a[kk][mm] = A[tile_m·TILE_M + mm][k0 + kk]` (A's tile
//!    stored k-major, i.e. transposed) for flat `s = lid; s < TILE_M·TILE_K;
//!    s += GROUP_SIZE`, `mm = s / TILE_K`, `kk = s % TILE_K`; and
//!    `shared_b[kk][nn] = B[k0 + kk][tile_n·TILE_N + nn]` for flat
//!    `s < TILE_K·TILE_N`, `kk = s / TILE_N`, `nn = s % TILE_N` — zero
//!    outside the matrices (bounds-guarded ragged edges); barrier;
//!    b. for `kk < TILE_K`: read `THREAD_M` values of `shared_a[kk]` and
//!    `THREAD_N` of `shared_b[kk]` into registers and accumulate their outer
//!    product; barrier.
//!    (GLSL, WGSL, OpenCL without inline PTX, and CUDA before sm_80 load
//!    the next slice's elements into registers while the current slice is
//!    computed: the register prefetch. GLSL, WGSL and OpenCL C load a slice
//!    wholly inside both matrices without bounds checks — NVIDIA's Vulkan
//!    4096³ on an H100 3.41 against 3.61 ms; two shared buffers with one
//!    barrier per slice instead ran 3.91 — and CUDA makes the row and
//!    column checks once per tile. CUDA on sm_80 and later, and OpenCL
//!    C where NVIDIA's inline PTX has `cp.async`
//!    (`Capabilities::async_copy`), copy them asynchronously into
//!    [`ASYNC_STAGES`] buffers, three slices ahead of the one computed (in
//!    OpenCL two buffers where four exceed [`OPENCL_ASYNC_BUDGET`]), with
//!    one barrier per slice and no registers held for them: 41.1 against
//!    39.5 TFLOP/s at 4096³ on an H100 through CUDA; B's copies are
//!    16 or 4 bytes wide from one set of addresses, since two sets spilled
//!    registers and ran at 37.1, `docs/results/README.md`. Slices that lie
//!    wholly inside both matrices take the copies without bounds checks,
//!    and phase b reads row `kk + 1`'s values while it multiplies row
//!    `kk`'s: with 16-deep slices 44.6 TFLOP/s at 4096³, against 42.7
//!    without those two and 41.5 with 8-deep slices.)
//! 3. Store the micro-tile's elements that lie inside C to plane `z` of the
//!    output: `out[z·m·n + row·n + col]`. Without a split (one chunk) the
//!    output is C itself. Where a run of four columns lies inside C and
//!    n % 4 = 0 (so the run starts on a 16-byte boundary) it can be one
//!    16-byte store: CUDA always does that; GLSL and WGSL where the plan
//!    sets `VECTOR_STORES` ([`vector_stores`]); elsewhere, and OpenCL C
//!    always, one float at a time. (OpenCL C: with 16-byte stores, or only
//!    the store loop written as CUDA's, NVIDIA's OpenCL ran the 16-deep
//!    slice loop slower, 4096³ 41.3 against 44.5 TFLOP/s on the H200, and
//!    the split 1024³ did not gain, 30.7 against 30.6.) Why the plan decides: through NVIDIA's Vulkan driver the
//!    scalar stores cost about 4 µs more per launch on a 1024 × 1024 C (a
//!    quarter of each 16 bytes per store instruction) and 9 µs on the four
//!    planes of a split 1024³, but with 16-byte stores the driver compiled
//!    the slice loop of the 8 × 8 micro-tile 6% slower (4096³ 3.61 against
//!    3.41 ms on an H100; accumulators held as `vec4`s compiled the same).
//!    So 8 × 8 micro-tiles store 16 bytes only where k is split (few slices
//!    per workgroup, several planes to write), smaller micro-tiles always
//!    (`docs/results/h100-2026-11-26/matmul-stores/`).
//!
//! **Pass 2 (`matmul_sum`), only when k is split: a deterministic sum.**
//! Invocation `e = (group_id.y·num_groups.x + group_id.x)·GROUP_SIZE + lid`
//! (those with `e >= len` return) adds element `e` of input planes
//! `z·fan_in, z·fan_in + 1, …` (at most `fan_in`, below `planes`) in plane
//! order, starting from 0, and writes it to element `e` of output plane
//! `z = group_id.z`. The plan runs it until one plane is left, which it
//! writes to C: the same partial products are summed in the same order on
//! every run (no atomics), so results are bit-identical run to run.
//!
//! # Why split k
//! Some drivers stop a shader's loops silently after a fixed number of
//! iterations (llvmpipe/lavapipe: 65 535 in total per invocation): one
//! workgroup looping over all of a long k would drop most of it. The plan
//! keeps every invocation's loop count (counted generously, see
//! [`Algorithm::loops_per_slice`]) within [`rosetta_core::Capabilities::loop_budget`]
//! by cutting k into chunks along z, and keeps the sum's fan-in within it
//! too, or refuses with a typed error. Where C's tiles leave a GPU's units
//! short of the workgroups each can run, the split also fills them: the
//! untuned plan splits k as far as an estimate of pass 1's rounds of
//! workgroups plus the sum pass's traffic says it pays (`heuristic_chunks`).
//!
//! Shared rows are padded by [`PAD`]` = 4` floats against bank conflicts
//! (keeping 16-byte alignment for vector reads).
//!
//! # On the CPU backend
//! The Rust version runs every variant. Where nothing is tuned, the plan
//! runs the heuristic's tiling in its CPU form ([`CPU_TILINGS`]: `TILE_K`
//! 64, 4 × 16 micro-tiles for the 128 × 128 tile), which only the Rust
//! version runs; the tuner measures those too there. Its phase b uses AVX2 +
//! FMA where the CPU has them (detected at run time).
//!
//! # Interface
//! `matmul`:
//! - constants: `GROUP_SIZE`, `TILE_M`, `TILE_N`, `TILE_K`, `THREAD_M`,
//!   `THREAD_N`, `VECTOR_STORES` (0 / 1: step 3's stores, above; the CUDA,
//!   OpenCL C and Rust versions ignore it).
//! - bindings: 0 `a` (read, m·k f32), 1 `b` (read, k·n f32), 2 `c`
//!   (read-write, chunks·m·n f32: C, or the split's partial sums).
//! - params: `m`, `n`, `k`, `chunk` (k per chunk, a multiple of `TILE_K`).
//! - shared: `shared_a` (`TILE_K·(TILE_M + 4)` f32) then `shared_b`
//!   (`TILE_K·(TILE_N + 4)` f32); **dynamic** in CUDA and OpenCL (one block,
//!   `shared_b` at word `TILE_K·(TILE_M + 4)`), static in WGSL/GLSL. CUDA
//!   and OpenCL take [`Tiling::stages`] such buffers one after another
//!   where they copy asynchronously ([`Tiling::launch_shared_bytes`]).
//! - indices: 64-bit in CUDA and OpenCL; 32-bit in WGSL and GLSL, where the
//!   plan refuses matrices of more than 2^32 − 1 elements.
//!
//! `matmul_sum`:
//! - constants: `GROUP_SIZE`.
//! - bindings: 0 `partials` (read, planes·len f32), 1 `out` (read-write,
//!   ceil(planes / fan_in)·len f32).
//! - params: `len` (elements per plane, m·n), `planes`, `fan_in`.
//! - shared: none. The plan keeps planes·len below 2^31.

mod cases;
mod kernel;
mod plan;
mod spec;

pub use kernel::{kernel, sum_kernel};
pub use plan::matmul_f32;
pub use plan::{
    geometry, heuristic_variant, tune_class, vector_stores, Algorithm, Geometry, MatmulPlan,
    MatmulVariant, SumPass, Tiling, ASYNC_STAGES, CPU_TILINGS, OPENCL_ASYNC_BUDGET, TILINGS,
};
pub use spec::{matmul_at, matmul_bound, matmul_ref, MatmulSpec, PAD};

use crate::op::{
    checked_indices, made_on_device, ArrayData, Case, CliSpec, HostArray, Metric, Op, Options,
    Prepared, Size, Workload,
};
use rosetta_core::{inputs, Backend, Buffer, DeviceInfo, Error, KernelDef, Result};
use std::sync::Arc;

/// The matmul op.
pub struct Matmul;

struct MatmulRun {
    plan: MatmulPlan,
    a_buf: Buffer,
    b_buf: Buffer,
    c_buf: Buffer,
    a: Vec<f32>,
    b: Vec<f32>,
}

impl Prepared for MatmulRun {
    fn run(&mut self) -> Result<()> {
        self.plan.encode(&self.a_buf, &self.b_buf, &self.c_buf)
    }

    fn verify(&mut self) -> Result<Option<String>> {
        let spec = *self.plan.spec();
        let got: Vec<f32> = self.c_buf.read(spec.m * spec.n)?;
        for i in checked_indices(got.len()) {
            let exact = matmul_at(&self.a, &self.b, &spec, i / spec.n, i % spec.n);
            let bound = matmul_bound(&spec, &exact);
            if !rosetta_core::bounds::within(got[i], exact.value, bound) {
                return Ok(Some(format!(
                    "C[{}][{}] = {}, expected {} (bound {bound:.2e})",
                    i / spec.n,
                    i % spec.n,
                    got[i],
                    exact.value
                )));
            }
        }
        Ok(None)
    }

    fn variant(&self) -> String {
        self.plan.variant().name()
    }

    fn tuned(&self) -> bool {
        self.plan.tuned()
    }
}

/// The workload `C (m×n) = A (m×k)·B (k×n)` with seeded inputs in [-1, 1),
/// tunable among [`MatmulVariant::all`].
pub fn workload(m: usize, n: usize, k: usize) -> Workload {
    workload_among(m, n, k, MatmulVariant::all())
}

/// The workload, tunable among `variants`.
fn workload_among(m: usize, n: usize, k: usize, variants: Vec<MatmulVariant>) -> Workload {
    let spec = MatmulSpec { m, k, n };
    let (series, label) = if m == n && n == k {
        ("square f32".to_string(), format!("square f32 {m}x{n}x{k}"))
    } else {
        (format!("f32 k={k}"), format!("f32 M={m} K={k} N={n}"))
    };
    let (mu, nu, ku) = (m as u64, n as u64, k as u64);
    Workload::new(
        "matmul",
        label,
        series,
        mu * nu,
        4 * (mu * ku + ku * nu + mu * nu),
        Some(spec.flops()),
        Metric::Flops,
        move |backend, variant| {
            let plan = match variant {
                None => MatmulPlan::new(backend, &spec)?,
                Some(name) => {
                    let v = MatmulVariant::from_name(name).ok_or_else(|| {
                        Error::InvalidArgument(format!("no matmul variant '{name}'"))
                    })?;
                    MatmulPlan::with_variant(backend, &spec, v)?
                }
            };
            // Device buffers before host values (`made_on_device`); the
            // spec checked m·k and k·n.
            let c_buf = backend.alloc(mu * nu * 4)?;
            let (a_buf, a) =
                made_on_device(backend, m * k, || inputs::f32_values(0x5eed_a0a0, m * k))?;
            let (b_buf, b) =
                made_on_device(backend, k * n, || inputs::f32_values(0x5eed_b0b0, k * n))?;
            Ok(Box::new(MatmulRun {
                a_buf,
                b_buf,
                c_buf,
                plan,
                a,
                b,
            }) as Box<dyn Prepared>)
        },
    )
    .tunable(
        tune_class(&spec),
        variants.iter().map(MatmulVariant::name).collect(),
    )
}

/// The workload on `device`: tunable among the device's own variants (the
/// CPU backend's tilings there too), then, but on the CPU backend, the
/// fastest at other chunk counts of k.
fn device_workload(m: usize, n: usize, k: usize, device: &DeviceInfo) -> Workload {
    let spec = MatmulSpec { m, k, n };
    let device = device.clone();
    workload_among(m, n, k, MatmulVariant::for_device(&device)).refined(move |fastest| {
        match MatmulVariant::from_name(fastest) {
            Some(v) => v
                .tuning_splits(&device, &spec)
                .iter()
                .map(MatmulVariant::name)
                .collect(),
            None => Vec::new(),
        }
    })
}

impl Op for Matmul {
    fn name(&self) -> &'static str {
        "matmul"
    }

    fn about(&self) -> &'static str {
        "matrix product C = A·B (float32, row-major)"
    }

    fn kernels(&self) -> Vec<Arc<KernelDef>> {
        vec![Arc::clone(kernel()), Arc::clone(sum_kernel())]
    }

    fn cases(&self) -> Vec<Case> {
        cases::cases()
    }

    fn random_case(&self, draw: &mut crate::op::random::Draw) -> Case {
        cases::drawn_case(draw)
    }

    fn workloads(&self, size: Size, device: &DeviceInfo) -> Vec<Workload> {
        // Square products; the large GPU preset also gives cuBLAS's smaller
        // reference points.
        let sides: &[usize] = match (size, device.caps.device_type.is_cpu()) {
            (Size::Small, _) => &[256],
            (Size::Medium, false) => &[1024],
            (Size::Medium, true) => &[512],
            (Size::Large, false) => &[4096, 2048, 1024],
            (Size::Large, true) => &[1024],
        };
        sides
            .iter()
            .map(|&s| device_workload(s, s, s, device))
            .collect()
    }

    fn shape_forms(&self) -> &'static [&'static str] {
        &["MxKxN (A is MxK, B is KxN)", "N (an NxNxN product)"]
    }

    fn shaped_workloads(&self, dims: &[usize], device: &DeviceInfo) -> Result<Vec<Workload>> {
        let (m, k, n) = match *dims {
            [m, k, n] => (m, k, n),
            [s] => (s, s, s),
            _ => return Err(crate::op::wrong_form(self.name(), dims, self.shape_forms())),
        };
        MatmulSpec { m, k, n }.validate()?;
        Ok(vec![device_workload(m, n, k, device)])
    }

    fn cli(&self) -> CliSpec {
        CliSpec {
            inputs: vec!["A", "B"],
            options: Vec::new(),
            about_inputs:
                "A: a 2-D float32 array (m×k); B: a 2-D float32 array (k×n); writes C = A·B (m×n)",
        }
    }

    fn run(
        &self,
        backend: &Arc<dyn Backend>,
        _: &Options,
        inputs: Vec<HostArray>,
    ) -> Result<HostArray> {
        let [a, b] = crate::exactly::<2>(inputs)?;
        let spec = MatmulSpec::from_shapes(a.matrix("A")?, b.matrix("B")?)?;
        let c = matmul_f32(backend, a.f32s("A")?, b.f32s("B")?, &spec)?;
        HostArray::new(vec![spec.m, spec.n], ArrayData::F32(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernels_have_every_language() {
        assert_eq!(kernel().sources().languages().len(), 5);
        assert_eq!(sum_kernel().sources().languages().len(), 5);
    }

    #[test]
    fn workloads_are_square_and_tunable() {
        let backend = rosetta_backend_cpu_free_info();
        let list = Matmul.workloads(Size::Large, &backend);
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].flops, Some(2 * 1024u64.pow(3)));
        assert_eq!(list[0].variants.len(), TILINGS.len() + CPU_TILINGS.len());
        assert_eq!(
            list[0].tune_class.as_deref(),
            Some("m<=2^10 n<=2^10 k<=2^10")
        );
        let mut gpu = backend.clone();
        gpu.api = rosetta_core::Api::Cuda;
        // Elsewhere the tilings, then the fastest at other chunk counts;
        // on the CPU backend no second stage.
        let workload = &Matmul.workloads(Size::Large, &gpu)[0];
        assert_eq!(workload.variants.len(), TILINGS.len());
        let first = &workload.variants[0];
        let splits = workload.refinements(first);
        assert!(!splits.is_empty());
        assert!(splits
            .iter()
            .all(|v| v.starts_with(&format!("{first}+splitk"))));
        assert!(list[0].refinements(&list[0].variants[0]).is_empty());
        gpu.caps.device_type = rosetta_core::DeviceType::DiscreteGpu;
        let sides: Vec<u64> = Matmul
            .workloads(Size::Large, &gpu)
            .iter()
            .map(|w| w.elements)
            .collect();
        assert_eq!(sides, vec![4096 * 4096, 2048 * 2048, 1024 * 1024]);
    }

    /// A CPU-type device description (no backend needed).
    fn rosetta_backend_cpu_free_info() -> DeviceInfo {
        let caps = rosetta_core::Capabilities {
            device_type: rosetta_core::DeviceType::Cpu,
            max_shared_bytes: 32 << 10,
            max_group_size: [1024, 1024, 64],
            max_group_invocations: 1024,
            max_groups: [65_535; 3],
            subgroup_sizes: None,
            subgroup_ops: false,
            float_atomics: false,
            timestamps: false,
            max_buffer_bytes: 1 << 30,
            memory_bytes: 1 << 32,
            compute_units: 2,
            loop_limit: None,
            device_fence: true,
            async_copy: false,
        };
        crate::op::test_device(rosetta_core::Api::Cpu, caps)
    }
}
