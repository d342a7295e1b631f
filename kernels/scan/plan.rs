//! The scan plan: reduce-then-scan over tiles, recursive over the tile sums.
//!
//! One tile of `GROUP_SIZE·ITEMS` elements per workgroup. Up to one tile:
//! one pass (PHASE 1, no offsets). More: PHASE 0 writes each tile's sum;
//! the sums are scanned by the same plan one level down (a few hundred
//! thousand tiles at most: three levels reach 2^32 elements); PHASE 1 then
//! scans each tile from its offset. Every pass is deterministic, so f32
//! results are bit-identical run to run and across APIs.
//!
//! Why not a single pass with decoupled look-back (CUB's scan)? A block waits
//! on its predecessors' flags, which needs forward progress between
//! workgroups: CUDA's scheduling gives it in practice, but Vulkan, OpenCL and
//! WebGPU promise none (a waiting workgroup may keep an earlier one from ever
//! being scheduled — lavapipe and PoCL run a few workgroups at a time on CPU
//! threads), and its f32 result depends on timing. rosetta chooses the same
//! reduce-then-scan on every API: portable, deterministic, and one algorithm
//! to compare across APIs, at the cost of reading the input twice.

use super::kernel::kernel;
use super::spec::ScanSpec;
use crate::op::{
    check_apart, check_binding, plan_tuned, preferred_group_size, prepare_kernel, u32_param,
};
use rosetta_core::{
    grid_2d, Backend, Buffer, Capabilities, Element, Error, Kernel, Launch, Result,
};
use std::sync::Arc;

/// Elements per invocation, as a variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanVariant {
    /// Elements each invocation scans in private memory (4, 8 or 16).
    pub items: u32,
}

impl ScanVariant {
    /// Every variant.
    pub const ALL: [ScanVariant; 3] = [
        ScanVariant { items: 4 },
        ScanVariant { items: 8 },
        ScanVariant { items: 16 },
    ];

    /// `items=N`.
    pub fn name(self) -> String {
        format!("items={}", self.items)
    }

    /// The variant called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.name() == name)
    }

    /// The untuned choice: 4 items per invocation on GPUs, 16 elsewhere.
    /// On an H100 with 16-byte stores, 2^28 f32 ran fastest with 4 through
    /// all four APIs (CUDA 1.128 ms against 1.170 with 8 and 1.299 with 16,
    /// Vulkan 1.174 / 1.180 / 1.557, OpenCL 1.145 / 1.170 / 1.529, wgpu 1.370
    /// / 1.380 / 1.821; `docs/results/h100-2026-11-27h/scan/`); on lavapipe,
    /// PoCL and the CPU backend 2^22 ran fastest with 16 (lavapipe 17.8 ms
    /// against 26.5 with 8 and 45.6 with 4), where every workgroup is a loop
    /// on a CPU thread and its barriers cost more than its loads.
    pub fn heuristic(caps: &Capabilities) -> Self {
        if caps.device_type.is_gpu() {
            ScanVariant { items: 4 }
        } else {
            ScanVariant { items: 16 }
        }
    }
}

/// The tuner's key: element type and length class.
pub fn tune_class(spec: &ScanSpec) -> String {
    let log2 = 64 - (spec.len.max(1) as u64 - 1).leading_zeros().min(63);
    format!("{} n<=2^{log2}", spec.elem)
}

/// One level: the passes over `len` elements, and the level below for the
/// tile sums when there is more than one tile.
struct Level {
    len: u64,
    sums_kernel: Kernel,
    scan_kernel: Kernel,
    grid: [u32; 3],
    group_size: u32,
    /// Tile sums and their scan, when there is more than one tile.
    below: Option<Box<(Buffer, Buffer, Level)>>,
}

impl Level {
    /// The level of `spec`, its grid at most `max_x` workgroups wide where
    /// given (else the device's `max_groups[0]`).
    fn new(
        backend: &Arc<dyn Backend>,
        spec: &ScanSpec,
        items: u32,
        max_x: Option<u32>,
    ) -> Result<Self> {
        let mut narrowed: Capabilities = backend.info().caps.clone();
        if let Some(x) = max_x {
            narrowed.max_groups[0] = narrowed.max_groups[0].min(x.max(1));
        }
        let caps = &narrowed;
        let group_size = preferred_group_size(caps);
        let tile = u64::from(group_size) * u64::from(items);
        let len = spec.len as u64;
        let tiles = len.div_ceil(tile).max(1);
        let grid = grid_2d(tiles, caps).ok_or(Error::ExceedsLimit {
            what: "scan tiles (workgroups)",
            requested: tiles,
            limit: u64::from(caps.max_groups[0]) * u64::from(caps.max_groups[1]),
        })?;
        let launch = Launch {
            groups: grid,
            group_size,
            shared_bytes: group_size * 4,
        };
        let build = |phase| {
            prepare_kernel(
                backend,
                kernel(),
                &[
                    ("GROUP_SIZE", group_size),
                    ("ITEMS", items),
                    ("ELEM", spec.elem.code()),
                    ("PHASE", phase),
                ],
                &launch,
            )
        };
        let below = if tiles > 1 {
            let sums = backend.alloc(tiles * 4)?;
            let scanned = backend.alloc(tiles * 4)?;
            let level = Level::new(
                backend,
                &ScanSpec {
                    elem: spec.elem,
                    len: tiles as usize,
                },
                items,
                max_x,
            )?;
            Some(Box::new((sums, scanned, level)))
        } else {
            None
        };
        Ok(Level {
            len,
            sums_kernel: build(0)?,
            scan_kernel: build(1)?,
            grid,
            group_size,
            below,
        })
    }

    fn encode(
        &self,
        backend: &Arc<dyn Backend>,
        input: &Buffer,
        output: &Buffer,
        dummy: &Buffer,
    ) -> Result<()> {
        let n = self.len as u32; // checked in ScanPlan::with_variant
        let launch = Launch {
            groups: self.grid,
            group_size: self.group_size,
            shared_bytes: self.group_size * 4,
        };
        match &self.below {
            None => {
                // SAFETY: one tile: the kernel reads elements below n of
                // `input` and writes elements below n of `output` (both hold
                // n elements, checked by the plan), and reads no offsets
                // (offsets_len = 0).
                unsafe {
                    backend.launch(&self.scan_kernel, &launch, &[input, output, dummy], &[n, 0])
                }
            }
            Some(below) => {
                let (sums, scanned, level) = below.as_ref();
                let tiles = level.len as u32;
                // SAFETY: PHASE 0 reads elements below n and writes one word
                // per tile (tile < tiles) of `sums`, which holds `tiles`
                // words; it reads no offsets.
                unsafe {
                    backend.launch(&self.sums_kernel, &launch, &[input, sums, dummy], &[n, 0])
                }?;
                level.encode(backend, sums, scanned, dummy)?;
                // SAFETY: PHASE 1 reads elements below n of `input`, writes
                // them to `output` (n elements each), and reads
                // offsets[tile − 1] for tile < tiles from `scanned`, which
                // holds `tiles` words.
                unsafe {
                    backend.launch(
                        &self.scan_kernel,
                        &launch,
                        &[input, output, scanned],
                        &[n, tiles],
                    )
                }
            }
        }
    }

    fn passes(&self) -> usize {
        match &self.below {
            None => 1,
            Some(below) => 2 + below.2.passes(),
        }
    }
}

/// A compiled scan.
pub struct ScanPlan {
    backend: Arc<dyn Backend>,
    spec: ScanSpec,
    variant: ScanVariant,
    tuned: bool,
    level: Level,
    /// Bound where a kernel has no offsets (never read).
    dummy: Buffer,
}

impl ScanPlan {
    /// Plan with the tuned variant for this device and shape, or the
    /// untuned choice ([`ScanVariant::heuristic`]).
    pub fn new(backend: &Arc<dyn Backend>, spec: &ScanSpec) -> Result<Self> {
        let default = || Ok(ScanVariant::heuristic(&backend.info().caps));
        let (mut plan, tuned) = plan_tuned(
            backend.info(),
            "scan",
            &tune_class(spec),
            ScanVariant::from_name,
            default,
            |v| Self::with_variant(backend, spec, v),
        )?;
        plan.tuned = tuned;
        Ok(plan)
    }

    /// Plan with a given variant (conformance forces each one).
    pub fn with_variant(
        backend: &Arc<dyn Backend>,
        spec: &ScanSpec,
        variant: ScanVariant,
    ) -> Result<Self> {
        Self::with_grid(backend, spec, variant, None)
    }

    /// [`ScanPlan::with_variant`] with every level's grid at most `max_x`
    /// workgroups wide, so that tiles lie along y at small lengths too (a
    /// kernel that ignored y passed every case a device could hold;
    /// conformance runs this on every device).
    pub(crate) fn with_grid(
        backend: &Arc<dyn Backend>,
        spec: &ScanSpec,
        variant: ScanVariant,
        max_x: Option<u32>,
    ) -> Result<Self> {
        spec.validate()?;
        u32_param("scan length (elements)", spec.len as u64)?;
        if !ScanVariant::ALL.contains(&variant) {
            return Err(Error::InvalidArgument(format!(
                "no scan variant {}",
                variant.name()
            )));
        }
        Ok(ScanPlan {
            backend: Arc::clone(backend),
            spec: *spec,
            variant,
            tuned: false,
            level: Level::new(backend, spec, variant.items, max_x)?,
            dummy: backend.alloc(16)?,
        })
    }

    /// What the plan scans.
    pub fn spec(&self) -> &ScanSpec {
        &self.spec
    }

    /// The variant it runs.
    pub fn variant(&self) -> ScanVariant {
        self.variant
    }

    /// Whether the variant came from the tuning cache.
    pub fn tuned(&self) -> bool {
        self.tuned
    }

    /// Launches per `encode`.
    pub fn passes(&self) -> usize {
        self.level.passes()
    }

    /// Enqueue the scan of `input` into `output` (`len` elements each; they
    /// must be different buffers).
    pub fn encode(&self, input: &Buffer, output: &Buffer) -> Result<()> {
        let bytes = self.spec.len as u64 * 4;
        check_binding(&self.backend, "scan input", input, bytes)?;
        check_binding(&self.backend, "scan output", output, bytes)?;
        check_apart("scan", ("output", output), &[("input", input)])?;
        if self.spec.len == 0 {
            return Ok(());
        }
        self.level.encode(&self.backend, input, output, &self.dummy)
    }
}

/// The inclusive prefix sum of `x` on `backend` (one upload, one download).
pub fn scan_slice<T: Element>(backend: &Arc<dyn Backend>, x: &[T]) -> Result<Vec<T>> {
    let spec = ScanSpec {
        elem: T::ELEM,
        len: x.len(),
    };
    let plan = ScanPlan::new(backend, &spec)?;
    let input = rosetta_core::Buffer::from_slice(backend, x)?;
    let output = backend.alloc(x.len() as u64 * 4)?;
    plan.encode(&input, &output)?;
    output.read(x.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rosetta_core::DeviceType;

    #[test]
    fn gpus_scan_four_items_per_invocation_and_cpus_sixteen() {
        let mut caps = Capabilities {
            device_type: DeviceType::DiscreteGpu,
            ..Capabilities::software_device()
        };
        assert_eq!(ScanVariant::heuristic(&caps).items, 4);
        caps.device_type = DeviceType::IntegratedGpu;
        assert_eq!(ScanVariant::heuristic(&caps).items, 4);
        caps.device_type = DeviceType::Cpu;
        assert_eq!(ScanVariant::heuristic(&caps).items, 16);
        for caps_type in [DeviceType::DiscreteGpu, DeviceType::Cpu] {
            caps.device_type = caps_type;
            assert!(ScanVariant::ALL.contains(&ScanVariant::heuristic(&caps)));
        }
    }
}
