//! Conv1d: `out[i] = Σ_j taps[j] · x[i + j − TAPS/2]`, zero outside the signal
//! (cross-correlation — the filter is not flipped —, centred, same-size
//! output, an odd number of taps).
//!
//! Three kernels, each in every language: halo tiles in shared memory
//! (`conv1d.*`), a register window per invocation (`conv1d_window.*`), and
//! a direct sum from global memory for filters of any length
//! (`conv1d_direct.*`).
//!
//! # Algorithm: halo tiles (`conv1d.*`)
//! One tile of `TILE = GROUP_SIZE · ITEMS` outputs per workgroup.
//! 1. Load the taps into `shared_taps` (`for j = lid; j < TAPS; j += GROUP_SIZE`).
//! 2. Over tiles: `for t = first; t < tiles; t += groups` with
//!    `tiles = ceil(n / TILE)`, `first = group_id.y · num_groups.x + group_id.x`
//!    (the flat index over a 2-D grid) and `groups = num_groups.x · num_groups.y`.
//!    The plan launches one workgroup per tile, so this loop runs once unless
//!    the grid cannot hold every tile:
//!    a. load `shared_signal[s] = x[t·TILE + s − TAPS/2]` (0 outside `[0, n)`)
//!    for `s = lid; s < TILE + TAPS − 1; s += GROUP_SIZE`; barrier (this
//!    barrier also covers step 1 on the first tile);
//!    b. each invocation computes outputs `o = lid + r·GROUP_SIZE`, `r < ITEMS`
//!    (consecutive invocations, consecutive outputs):
//!    `Σ_j shared_taps[j] · shared_signal[o + j]`, taps in order, and stores
//!    those with `t·TILE + o < n`;
//!    c. barrier (before the next tile overwrites `shared_signal`).
//!
//! Indices are u32 in every language. Positions are offset by the radius
//! (`pos = t·TILE + s`, valid when `pos >= TAPS/2 && pos − TAPS/2 < n`), so
//! nothing goes negative; the plan keeps `n + TILE + TAPS` below 2^32.
//!
//! # Algorithm: register windows (`conv1d_window.*`)
//! No shared memory and no barriers. The same tiles and tile loop as above;
//! `ITEMS` is a multiple of 4, `HALO = ceil(RADIUS / 4)` vectors.
//! 1. Load the taps into registers (`weights`).
//! 2. Per tile, each invocation takes the vectors `v = t·TILE/4 + lid +
//!    r·GROUP_SIZE`, `r < ITEMS/4` (four consecutive outputs `o = 4v ..
//!    4v + 3` each; consecutive invocations, consecutive vectors), those
//!    with `o < n`:
//!    a. fill the window `x[o − 4·HALO, o + 4 + 4·HALO)`: `2·HALO + 1`
//!    16-byte loads when it lies inside the signal (`o >= 4·HALO` and
//!    `o + 4 + 4·HALO <= n`), else word by word, zero outside;
//!    b. output `o + k` sums `weights[j] · window[k + j + 4·HALO − RADIUS]`,
//!    taps in order;
//!    c. store the vector whole when `o + 4 <= n`, else the outputs below n.
//!
//! Neighbouring windows overlap by `2·HALO` vectors; the cache serves the
//! overlap, so DRAM sees each value about once, and no invocation waits at a
//! barrier. The plan keeps `n + TILE + TAPS + 8` below 2^32 (the last
//! window slot's position). The signal and output are read and written as
//! 16-byte vectors: bindings start at their allocation, whose size the
//! buffer pool rounds up to 16 bytes.
//!
//! # Algorithm: direct sum (`conv1d_direct.*`)
//! No shared memory, no barriers, no private arrays: for filters too long
//! for the others. Tiles of `GROUP_SIZE` outputs, the same tile loop as
//! above (`for t = first; t < tiles; t += groups`); invocation `lid`
//! computes output `o = t·GROUP_SIZE + lid`, if `o < n`:
//! a. the running sum: `0` when `f_begin = 0`, else `out[o]` (what the
//!    previous launch stored);
//! b. taps `j` in `[f_begin, f_end)`, in order: `sum += taps[j] ·
//!    x[o + j − TAPS/2]`, the taps read straight from global memory (the
//!    cache serves them: every invocation of a group reads the same tap at
//!    once), a zero outside the signal (multiplied, not skipped: `0 · Inf`
//!    is NaN there, as the reference says);
//! c. store the sum in `out[o]`.
//!
//! The plan splits the taps into consecutive chunks `[f_begin, f_end)`, one
//! launch each in order ([`crate::op::split_in_chunks`]), so no invocation loops
//! past the device's loop budget; launches on one backend run in order,
//! each seeing the previous one's stores, so every split sums the taps in
//! the order of one pass and gives the same bits. One launch where the
//! device does not cap loops. Positions are offset by the radius as above;
//! the plan keeps `n + GROUP_SIZE + TAPS` below 2^32.
//!
//! # Variants
//! - `items1`, `items2`, `items4`, `items8`, `items16`: halo tiles of that
//!   many outputs per invocation. Workgroups are the preferred size (256),
//!   halved down to 32 where the taps and halo tile do not fit in shared
//!   memory.
//! - `window4`, `window8`: register windows of one or two vectors per
//!   invocation, for filters of at most [`plan::MAX_WINDOW_TAPS`] (33) taps;
//!   longer filters are refused with `ExceedsLimit` (the plan then takes a
//!   tile).
//! - `direct`: the direct sum, one output per invocation in workgroups of
//!   the preferred size, any filter length, over as many launches as the
//!   loop budget needs (at most [`plan::MAX_DIRECT_LAUNCHES`]). Every tap
//!   is read from global memory for every output: slow, the fallback for
//!   filters no shared memory holds.
//!
//! [`Conv1dPlan::new`] takes the tuned variant ([`tune_class`]) or the first
//! of [`Conv1dVariant::default_order`] that fits: the windows first (on the
//! H200 about 1.4 times as fast as the best tile through every API), except
//! on the CPU backend, and `direct` last everywhere; conformance forces each
//! one.
//!
//! # Limits (issue 10)
//! - The signal is 1-D: `rosetta run conv1d` refuses a 2-D array
//!   ([`rosetta_core::Error::ShapeMismatch`]) instead of flattening it.
//! - Taps and length past u32, positions that would wrap:
//!   [`rosetta_core::Error::ExceedsLimit`] when the plan is made
//!   ([`plan::geometry`]).
//! - Filter length: the tiles hold as many taps as shared memory does (about
//!   4 080 in 32 KiB, [`plan::max_taps`]), the windows 33; longer filters
//!   run through `direct`, which takes any length up to
//!   [`plan::MAX_DIRECT_LAUNCHES`] launches of taps (on lavapipe 16 382 taps
//!   a launch, about 67 million taps), then `ExceedsLimit`.
//! - Loops: on drivers that stop loops silently (llvmpipe), every invocation
//!   stays within [`rosetta_core::Capabilities::loop_budget`] iterations —
//!   the taps load, and per tile the halo load and the `TAPS × ITEMS`
//!   products ([`plan::loop_iterations`]); for `direct`, per tile the
//!   chunk's taps ([`plan::direct_loop_iterations`]) — or the plan refuses
//!   with `ExceedsLimit`.
//! - More tiles than `max_groups[0]`: the grid goes on along y.
//!
//! # Interface (all three kernels)
//! - constants: `GROUP_SIZE`, `ITEMS` (a multiple of 4 for the window; none
//!   for `direct`), `TAPS` (odd; at most 33 for the window).
//! - bindings: 0 `x` (read, `n` f32), 1 `taps` (read, `TAPS` f32), 2 `out`
//!   (read-write, `n` f32; `direct` reads back its running sums).
//! - params: `n` (`direct`: `n`, `f_begin`, `f_end`, the launch's taps).
//! - grid: `[x, y, 1]` workgroups, `x · y >= tiles` where the device allows.
//! - shared (tiles): `shared_taps` (`TAPS` f32) then `shared_signal`
//!   (`GROUP_SIZE·ITEMS + TAPS − 1` f32); **dynamic** in CUDA and OpenCL (one
//!   block, `shared_signal` starting at word `TAPS`), static arrays in
//!   WGSL/GLSL. The window and `direct` use none.
//!
//! # Error bound
//! Each output is a dot product of at most `TAPS` terms: γ_TAPS·Σ|x·w|
//! ([`conv1d_bound`]), in any summation order, with or without FMA (for
//! `direct` over several launches too: one running sum, stored and reloaded
//! exactly as f32).

mod cases;
mod cli;
mod kernel;
pub mod plan;
mod spec;

pub use kernel::{direct_kernel, kernel, window_kernel};
pub use plan::{conv1d_f32, conv1d_slice, tune_class, Conv1dPlan, Conv1dVariant};
pub use spec::{conv1d_at, conv1d_bound, conv1d_reference, Conv1dSpec};

use crate::op::Case;
use crate::op::{
    checked_indices, made_on_device, CliSpec, HostArray, Metric, Op, Options, Prepared, Size,
    Workload,
};
use rosetta_core::{inputs, Backend, Buffer, DeviceInfo, KernelDef, Result};
use std::sync::Arc;

/// The conv1d op.
pub struct Conv1d;

struct Conv1dRun {
    plan: Conv1dPlan,
    input: Buffer,
    filter: Buffer,
    out: Buffer,
    x: Vec<f32>,
    taps: Vec<f32>,
}

impl Prepared for Conv1dRun {
    fn run(&mut self) -> Result<()> {
        self.plan.encode(&self.input, &self.filter, &self.out)
    }
    fn verify(&mut self) -> Result<Option<String>> {
        let got: Vec<f32> = self.out.read(self.x.len())?;
        let k = self.taps.len();
        Ok(checked_indices(got.len()).into_iter().find_map(|i| {
            let exact = conv1d_at(&self.x, &self.taps, i);
            let bound = conv1d_bound(k, &exact);
            (!rosetta_core::bounds::within(got[i], exact.value, bound)).then(|| {
                format!(
                    "output {i}: got {}, expected {} (bound {bound:.2e})",
                    got[i], exact.value
                )
            })
        }))
    }
    fn variant(&self) -> String {
        self.plan.variant().name().to_string()
    }
    fn tuned(&self) -> bool {
        self.plan.tuned()
    }
}

/// The workload of `len` outputs with `taps` taps (random values in [-1, 1)).
pub fn workload(len: usize, taps: usize) -> Workload {
    let spec = Conv1dSpec { len, taps };
    let n = len as u64;
    let k = taps as u64;
    Workload::new(
        "conv1d",
        format!("{taps} taps n={}", crate::op::pow2_label(n)),
        format!("{taps} taps"),
        n,
        // The signal and taps read once, the output written once.
        (2 * n + k) * 4,
        Some(2 * n * k),
        Metric::Flops,
        move |backend, variant| {
            let plan = match variant {
                Some(name) => Conv1dPlan::with_variant(backend, &spec, plan::variant_named(name)?)?,
                None => Conv1dPlan::new(backend, &spec)?,
            };
            // Device buffers before host values (`made_on_device`).
            let out = backend.alloc(spec.signal_bytes()?)?;
            let (filter, taps) = made_on_device(backend, spec.taps, || {
                inputs::f32_values(0x5eed_7a95, spec.taps)
            })?;
            let (input, x) = made_on_device(backend, len, || inputs::f32_values(0x5eed_c041, len))?;
            Ok(Box::new(Conv1dRun {
                plan,
                input,
                filter,
                out,
                x,
                taps,
            }) as Box<dyn Prepared>)
        },
    )
    .tunable(tune_class(&spec), Conv1dVariant::names())
}

/// `log2` of the signal length at a preset: 2^26 on GPUs at `large`, 2^24
/// on CPU-type devices (a quarter of the 1-D workloads' size).
fn len_log2(size: Size, device: &DeviceInfo) -> u32 {
    crate::op::big_log2(size, device) - 2
}

impl Op for Conv1d {
    fn name(&self) -> &'static str {
        "conv1d"
    }

    fn about(&self) -> &'static str {
        "same-size 1-D cross-correlation of a float32 signal with an odd float32 filter (zero border)"
    }

    fn kernels(&self) -> Vec<Arc<KernelDef>> {
        vec![
            Arc::clone(kernel()),
            Arc::clone(window_kernel()),
            Arc::clone(direct_kernel()),
        ]
    }

    fn cases(&self) -> Vec<Case> {
        cases::cases()
    }

    fn random_case(&self, draw: &mut crate::op::random::Draw) -> Case {
        cases::drawn_case(draw)
    }

    fn workloads(&self, size: Size, device: &DeviceInfo) -> Vec<Workload> {
        vec![workload(1 << len_log2(size, device), 9)]
    }

    fn shape_forms(&self) -> &'static [&'static str] {
        &["N (a signal of N values, 9 taps)", "NxTAPS (TAPS odd)"]
    }

    fn shaped_workloads(&self, dims: &[usize], _: &DeviceInfo) -> Result<Vec<Workload>> {
        let (len, taps) = match *dims {
            [len] => (len, 9),
            [len, taps] => (len, taps),
            _ => return Err(crate::op::wrong_form(self.name(), dims, self.shape_forms())),
        };
        Conv1dSpec { len, taps }.validate()?;
        Ok(vec![workload(len, taps)])
    }

    fn cli(&self) -> CliSpec {
        CliSpec {
            inputs: vec!["SIGNAL", "TAPS"],
            options: Vec::new(),
            about_inputs: "SIGNAL: a 1-D float32 array; TAPS: a 1-D float32 array of odd length (the filter, not flipped, centred); writes a float32 array of SIGNAL's length (zero outside the signal)",
        }
    }

    fn run(
        &self,
        backend: &Arc<dyn Backend>,
        options: &Options,
        inputs: Vec<HostArray>,
    ) -> Result<HostArray> {
        cli::run(backend, options, inputs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::ArrayData;
    use rosetta_core::Error;

    #[test]
    fn the_kernel_has_every_language() {
        assert_eq!(kernel().sources().languages().len(), 5);
        assert_eq!(window_kernel().sources().languages().len(), 5);
        assert_eq!(direct_kernel().sources().languages().len(), 5);
    }

    #[test]
    fn cli_takes_1d_float32_arrays_only() {
        let backend = rosetta_backend_cpu::discover().unwrap().remove(0);
        let run = |signal: HostArray, taps: HostArray| {
            Conv1d.run(&backend, &Options::default(), vec![signal, taps])
        };
        let f32s = |v: Vec<f32>| HostArray::vector(ArrayData::F32(v));
        let out = run(f32s(vec![1.0, 2.0, 3.0]), f32s(vec![1.0, 10.0, 100.0])).unwrap();
        assert_eq!(out.shape, vec![3]);
        assert_eq!(out.data, ArrayData::F32(vec![210.0, 321.0, 32.0]));
        let matrix = HostArray::new(vec![2, 2], ArrayData::F32(vec![1.0; 4])).unwrap();
        assert!(matches!(
            run(matrix.clone(), f32s(vec![1.0])),
            Err(Error::ShapeMismatch(_))
        ));
        assert!(matches!(
            run(f32s(vec![1.0; 4]), matrix),
            Err(Error::ShapeMismatch(_))
        ));
        assert!(matches!(
            run(f32s(vec![1.0; 4]), f32s(vec![1.0, 1.0])),
            Err(Error::InvalidFilter(_))
        ));
        let bytes = HostArray::vector(ArrayData::U8(vec![1, 2]));
        assert!(run(bytes, f32s(vec![1.0])).unwrap_err().is_usage());
        assert!(Conv1d
            .run(&backend, &Options::default(), vec![f32s(vec![1.0])])
            .unwrap_err()
            .is_usage());
    }
}
