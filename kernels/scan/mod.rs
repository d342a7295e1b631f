//! Scan: the inclusive prefix sum of f32, i32 or u32 values (numpy.cumsum):
//! `out[i] = x[0] + … + x[i]`, integers wrapping, f32 output `i` within
//! `i·2⁻²⁴·Σ_{j≤i}|x_j|` of the f64 prefix sum.
//!
//! # Algorithm (every language): reduce-then-scan
//! Tiles of `TILE = GROUP_SIZE·ITEMS` elements, one per workgroup (flat tile
//! index `group_id.y·num_groups.x + group_id.x`, so grids go past 65 535
//! workgroups). Invocation `lid` owns the `ITEMS` consecutive elements from
//! `tile·TILE + lid·ITEMS` (16-byte loads where a whole vector lies below
//! `n`; 0 past `n`).
//! - `PHASE = 0` (**tile sums**): each invocation sums its elements; a
//!   shared-memory tree (one barrier per level) gives the tile's sum,
//!   written by invocation 0 to `out[tile]`.
//! - `PHASE = 1` (**scan**): each invocation scans its elements in private
//!   memory (inclusive); the invocation totals go to shared memory and a
//!   Hillis–Steele scan (read, barrier, add, barrier per level) makes them
//!   inclusive; element `k` of invocation `lid` is then
//!   `(offset + shared[lid − 1]) + private[k]`, where `offset =
//!   offsets[tile − 1]` (the inclusive scan of the tile sums, 0 for tile 0 or
//!   when `offsets_len = 0`), stored as it was loaded: 16 bytes where a whole
//!   vector lies below `n`, word by word below `n` elsewhere. With 4-byte
//!   stores, each warp's store touched 32 places `ITEMS` words apart; the
//!   16-byte stores took the scan of 2^28 f32 on an H100 from 2.53 to 1.17
//!   ms through CUDA, 3.17 to 1.18 through Vulkan, 2.84 to 1.17 through
//!   OpenCL and 3.56 to 1.58 through wgpu (torch.cumsum 1.03 ms, CUB
//!   through cupy 2.16; `docs/results/h100-2026-11-27h/scan/`). With 4 items
//!   per invocation, the GPUs' untuned choice (`ScanVariant::heuristic`), and
//!   WGSL's elements held as vectors: CUDA 1.13 ms, Vulkan 1.17, OpenCL
//!   1.15, wgpu 1.37. The read of PHASE 0 and the read and write of PHASE 1
//!   at the copy's speed would take 1.11 ms.
//!
//! The plan (`plan.rs`) runs PHASE 1 alone for one tile; otherwise PHASE 0,
//! the scan of the tile sums (the same plan, recursively), then PHASE 1 with
//! those as offsets. Why reduce-then-scan on every API rather than a single
//! pass with decoupled look-back is in `plan.rs`.
//!
//! # Interface
//! - constants: `GROUP_SIZE`, `ITEMS` (4, 8 or 16), `ELEM` (0 f32, 1 i32,
//!   2 u32), `PHASE` (0 / 1).
//! - bindings: 0 `input` (read, `n` elements), 1 `out` (read-write: `n`
//!   elements, or one word per tile for PHASE 0), 2 `offsets` (read, the
//!   scanned tile sums; a dummy when `offsets_len = 0`).
//! - params: `n`, `offsets_len`.
//! - shared: `GROUP_SIZE` words (static).
//!
//! # Arithmetic
//! Values are 32-bit words: f32 adds as float, i32 and u32 as unsigned
//! (wrapping; the i32 sum is the u32 sum of the same bits). Index arithmetic
//! is 32-bit where the language has no 64-bit integers (WGSL, GLSL) and never
//! wraps: a tile's base is below `n < 2^32`, and "a whole vector below n" is
//! tested as `n − at >= 4`.

mod cases;
mod kernel;
mod plan;
mod spec;

pub use kernel::kernel;
pub use plan::{scan_slice, tune_class, ScanPlan, ScanVariant};
pub use spec::{prefix_bound, prefix_f32, prefix_words, ScanSpec};

use crate::op::{
    checked_indices, made_on_device, ArrayData, Case, CliSpec, HostArray, Metric, Op, Options,
    Prepared, Size, Workload,
};
use rosetta_core::{bounds, inputs, Backend, Buffer, DeviceInfo, Elem, Error, KernelDef, Result};
use std::sync::Arc;

/// The scan op.
pub struct Scan;

struct ScanRun {
    plan: ScanPlan,
    input: Buffer,
    output: Buffer,
    x: Vec<f32>,
}

impl Prepared for ScanRun {
    fn run(&mut self) -> Result<()> {
        self.plan.encode(&self.input, &self.output)
    }
    fn verify(&mut self) -> Result<Option<String>> {
        let got: Vec<f32> = self.output.read(self.x.len())?;
        // Prefix sums at sampled outputs, from a running f64 sum.
        let exact = prefix_f32(&self.x);
        Ok(checked_indices(got.len()).into_iter().find_map(|i| {
            let bound = prefix_bound(i, &exact[i]);
            (!bounds::within(got[i], exact[i].value, bound)).then(|| {
                format!(
                    "output {i}: got {}, expected {} (bound {bound:.2e})",
                    got[i], exact[i].value
                )
            })
        }))
    }
    fn variant(&self) -> String {
        self.plan.variant().name()
    }
    fn tuned(&self) -> bool {
        self.plan.tuned()
    }
}

fn workload(len: usize) -> Workload {
    let spec = ScanSpec {
        elem: Elem::F32,
        len,
    };
    Workload::new(
        "scan",
        format!("scan f32 n={}", crate::op::pow2_label(len as u64)),
        "scan f32",
        len as u64,
        2 * len as u64 * 4,
        None,
        Metric::Bandwidth,
        move |backend, variant| {
            let plan = match variant {
                Some(name) => {
                    let v = ScanVariant::from_name(name).ok_or_else(|| {
                        Error::InvalidArgument(format!("no scan variant '{name}'"))
                    })?;
                    ScanPlan::with_variant(backend, &spec, v)?
                }
                None => ScanPlan::new(backend, &spec)?,
            };
            // Device buffers before host values (`made_on_device`).
            let output = backend.alloc(len as u64 * 4)?;
            let (input, x) = made_on_device(backend, len, || inputs::f32_values(0x5eed_5ca1, len))?;
            Ok(Box::new(ScanRun {
                input,
                output,
                plan,
                x,
            }) as Box<dyn Prepared>)
        },
    )
    .tunable(
        tune_class(&spec),
        ScanVariant::ALL.iter().map(|v| v.name()).collect(),
    )
}

impl Op for Scan {
    fn name(&self) -> &'static str {
        "scan"
    }

    fn about(&self) -> &'static str {
        "inclusive prefix sum (numpy.cumsum) of f32, i32 or u32"
    }

    fn kernels(&self) -> Vec<Arc<KernelDef>> {
        vec![Arc::clone(kernel())]
    }

    fn cases(&self) -> Vec<Case> {
        cases::cases()
    }

    fn random_case(&self, draw: &mut crate::op::random::Draw) -> Case {
        cases::drawn_case(draw)
    }

    fn workloads(&self, size: Size, device: &DeviceInfo) -> Vec<Workload> {
        vec![workload(1 << crate::op::big_log2(size, device))]
    }

    fn shape_forms(&self) -> &'static [&'static str] {
        &["N (f32 values)"]
    }

    fn shaped_workloads(&self, dims: &[usize], _: &DeviceInfo) -> Result<Vec<Workload>> {
        match *dims {
            [len] => Ok(vec![workload(len)]),
            _ => Err(crate::op::wrong_form(self.name(), dims, self.shape_forms())),
        }
    }

    fn cli(&self) -> CliSpec {
        CliSpec {
            inputs: vec!["X"],
            options: Vec::new(),
            about_inputs: "X: a 1-D float32, int32 or uint32 array; writes its inclusive prefix sum (numpy.cumsum; integers wrap)",
        }
    }

    fn run(
        &self,
        backend: &Arc<dyn Backend>,
        _: &Options,
        inputs: Vec<HostArray>,
    ) -> Result<HostArray> {
        let [x] = crate::op::exactly::<1>(inputs)?;
        x.vector_len("X")?;
        let data = match &x.data {
            ArrayData::F32(v) => ArrayData::F32(scan_slice(backend, v)?),
            ArrayData::I32(v) => ArrayData::I32(scan_slice(backend, v)?),
            ArrayData::U32(v) => ArrayData::U32(scan_slice(backend, v)?),
            ArrayData::U8(_) => {
                return Err(crate::op::wrong_type(
                    "X",
                    "float32, int32 or uint32",
                    Elem::U8,
                ))
            }
        };
        HostArray::new(x.shape, data)
    }
}
