//! Matmul: `C (m×n) = A (m×k) · B (k×n)`, row-major f32, any m, n, k ≥ 1.
//!
//! # Algorithm (every language)
//! Shared-memory tiles with register blocking. A workgroup computes a
//! `TILE_M × TILE_N` block of C; its `GROUP_SIZE = (TILE_M/THREAD_M)·(TILE_N/THREAD_N)`
//! invocations each own a `THREAD_M × THREAD_N` micro-tile at rows
//! `ty·THREAD_M + i`, columns `tx·THREAD_N + j`, with `tx = lid % (TILE_N/THREAD_N)`,
//! `ty = lid / (TILE_N/THREAD_N)`, accumulated in registers.
//! 1. Grid-stride over C tiles in both axes (`group_id.x` along n, `group_id.y`
//!    along m, as conv2d).
//! 2. For `k0 = 0, TILE_K, …` below k:
//!    a. load `shared_a[kk][mm] = A[tile_m·TILE_M + mm][k0 + kk]` (A's tile stored
//!    k-major, i.e. transposed) for flat `s = lid; s < TILE_M·TILE_K; s += GROUP_SIZE`,
//!    `mm = s / TILE_K`, `kk = s % TILE_K`; and
//!    `shared_b[kk][nn] = B[k0 + kk][tile_n·TILE_N + nn]` for flat `s < TILE_K·TILE_N`,
//!    `kk = s / TILE_N`, `nn = s % TILE_N` — zero outside the matrices
//!    (bounds-guarded ragged edges); barrier;
//!    b. for `kk < TILE_K`: read `THREAD_M` values of `shared_a[kk]` and
//!    `THREAD_N` of `shared_b[kk]` into registers and accumulate their outer
//!    product; barrier.
//! 3. Store the micro-tile's elements that lie inside C.
//!
//! Shared rows are padded by `PAD = 4` floats against bank conflicts (keeping
//! 16-byte alignment for vector reads).
//!
//! # Interface
//! - constants: `GROUP_SIZE`, `TILE_M`, `TILE_N`, `TILE_K`, `THREAD_M`, `THREAD_N`.
//! - bindings: 0 `a` (read, m·k f32), 1 `b` (read, k·n f32), 2 `c` (read-write, m·n f32).
//! - params: `m`, `n`, `k`.
//! - shared: `shared_a` (`TILE_K·(TILE_M + 4)` f32) then `shared_b`
//!   (`TILE_K·(TILE_N + 4)` f32); **dynamic** in CUDA and OpenCL (one block,
//!   `shared_b` at word `TILE_K·(TILE_M + 4)`), static in WGSL/GLSL.

#[path = "matmul.rs"]
mod cpu;

use crate::pass::compile;
use rosetta_core::ops::MatmulSpec;
use rosetta_core::{
    Access, Backend, Buffer, Error, KernelDef, KernelId, KernelSpec, Launch, Result, Sources,
};
use std::sync::Arc;

pub static KERNEL: KernelDef = KernelDef {
    name: "matmul",
    constants: &[
        "GROUP_SIZE",
        "TILE_M",
        "TILE_N",
        "TILE_K",
        "THREAD_M",
        "THREAD_N",
    ],
    bindings: &[Access::Read, Access::Read, Access::ReadWrite],
    params: &["m", "n", "k"],
    dynamic_shared: true,
    sources: Sources {
        wgsl: include_str!("matmul.wgsl"),
        cuda: include_str!("matmul.cu"),
        glsl: include_str!("matmul.comp"),
        opencl: include_str!("matmul.cl"),
    },
    cpu: cpu::matmul,
};

/// Shared-memory row padding, in floats.
pub const PAD: u32 = 4;

/// One tiling of C.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tiling {
    pub tile_m: u32,
    pub tile_n: u32,
    pub tile_k: u32,
    pub thread_m: u32,
    pub thread_n: u32,
}

impl Tiling {
    pub fn group_size(&self) -> u32 {
        (self.tile_m / self.thread_m) * (self.tile_n / self.thread_n)
    }

    pub fn shared_bytes(&self) -> u32 {
        self.tile_k * (self.tile_m + PAD + self.tile_n + PAD) * 4
    }
}

/// Tilings to try, largest first; all use 256 invocations.
pub const TILINGS: [Tiling; 3] = [
    Tiling {
        tile_m: 128,
        tile_n: 128,
        tile_k: 8,
        thread_m: 8,
        thread_n: 8,
    },
    Tiling {
        tile_m: 64,
        tile_n: 64,
        tile_k: 8,
        thread_m: 4,
        thread_n: 4,
    },
    Tiling {
        tile_m: 32,
        tile_n: 32,
        tile_k: 8,
        thread_m: 2,
        thread_n: 2,
    },
];

pub struct MatmulPlan {
    backend: Arc<dyn Backend>,
    spec: MatmulSpec,
    tiling: Tiling,
    kernel: KernelId,
    launch: Launch,
}

impl MatmulPlan {
    /// The largest tiling that fits the device and still gives every compute
    /// unit a tile (so large matrices get large tiles and small ones still
    /// spread over the device).
    pub fn choose_tiling(caps: &rosetta_core::Capabilities, spec: &MatmulSpec) -> Result<Tiling> {
        let fits = |t: &Tiling| {
            t.group_size() <= caps.max_group_invocations
                && t.group_size() <= caps.max_group_size[0]
                && t.shared_bytes() <= caps.max_shared_bytes
        };
        let wanted_tiles = if caps.compute_units > 0 {
            u64::from(caps.compute_units)
        } else {
            64
        };
        let tiles = |t: &Tiling| {
            (spec.m as u64).div_ceil(u64::from(t.tile_m))
                * (spec.n as u64).div_ceil(u64::from(t.tile_n))
        };
        let usable: Vec<Tiling> = TILINGS.into_iter().filter(fits).collect();
        usable
            .iter()
            .find(|t| tiles(t) >= wanted_tiles)
            .or(usable.last())
            .copied()
            .ok_or_else(|| {
                Error::Unsupported(format!(
                    "matmul needs workgroups of 256 invocations and {} bytes of shared memory",
                    TILINGS[2].shared_bytes()
                ))
            })
    }

    pub fn new(backend: &Arc<dyn Backend>, spec: &MatmulSpec) -> Result<Self> {
        Self::with_tiling(backend, spec, None)
    }

    /// A plan with a given tiling (benchmarks and tests sweep them), or the
    /// chosen one.
    pub fn with_tiling(
        backend: &Arc<dyn Backend>,
        spec: &MatmulSpec,
        tiling: Option<Tiling>,
    ) -> Result<Self> {
        spec.validate()?;
        let caps = &backend.info().caps;
        let tiling = match tiling {
            Some(t) => t,
            None => Self::choose_tiling(caps, spec)?,
        };
        let tiles_n = (spec.n as u64).div_ceil(u64::from(tiling.tile_n));
        let tiles_m = (spec.m as u64).div_ceil(u64::from(tiling.tile_m));
        let launch = Launch {
            groups: [
                tiles_n.min(u64::from(caps.max_groups[0])) as u32,
                tiles_m.min(u64::from(caps.max_groups[1])) as u32,
                1,
            ],
            group_size: tiling.group_size(),
            shared_bytes: tiling.shared_bytes(),
        };
        let kernel_spec = KernelSpec::new(
            &KERNEL,
            &[
                ("GROUP_SIZE", tiling.group_size()),
                ("TILE_M", tiling.tile_m),
                ("TILE_N", tiling.tile_n),
                ("TILE_K", tiling.tile_k),
                ("THREAD_M", tiling.thread_m),
                ("THREAD_N", tiling.thread_n),
            ],
        )?;
        let kernel = compile(backend.as_ref(), &kernel_spec, &launch)?;
        Ok(MatmulPlan {
            backend: Arc::clone(backend),
            spec: *spec,
            tiling,
            kernel,
            launch,
        })
    }

    pub fn spec(&self) -> &MatmulSpec {
        &self.spec
    }

    pub fn tiling(&self) -> Tiling {
        self.tiling
    }

    pub fn encode(&self, a: &Buffer, b: &Buffer, c: &Buffer) -> Result<()> {
        let dim = |what, v: usize| {
            u32::try_from(v).map_err(|_| Error::ExceedsLimit {
                what,
                requested: v as u64,
                limit: u64::from(u32::MAX),
            })
        };
        let params = [
            dim("matmul m", self.spec.m)?,
            dim("matmul n", self.spec.n)?,
            dim("matmul k", self.spec.k)?,
        ];
        self.backend.launch(
            self.kernel,
            &self.launch,
            &[a.id(), b.id(), c.id()],
            &params,
        )
    }
}
