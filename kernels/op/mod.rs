//! What describes an op: the one trait every op folder implements, and the
//! pieces it is made of. Nothing here knows any particular op.
//!
//! An op's folder (`kernels/<op>/`) holds everything about the op — its spec
//! and validation, host reference and error bound, plan, the kernel in every
//! language, conformance cases, benchmark workloads and their metric, and its
//! command-line arguments — behind [`Op`]. [`crate::ops`] lists the ops; the
//! conformance runner, the benchmark, `rosetta run`, the report and its
//! charts all iterate that list and never match on an op's name.

mod array;
mod case;
mod chunks;
mod cli;
mod exact;
mod geometry;
pub mod padding;
mod preset;
pub mod random;
mod shape;
mod tuning;
mod workload;

pub use array::{exactly, wrong_type, ArrayData, HostArray};
pub use case::{
    compare_bounded, compare_exact, fingerprint, seed, Case, CaseGroup, Check, Context,
    GeometryAudit, Rejects, Status, Verdict,
};
pub use chunks::{
    chunk_ranges, direct_loop_iterations, split_in_chunks, ChunkLimits, MAX_DIRECT_LAUNCHES,
};
pub use cli::{CliOption, CliSpec, OptionKind, Options};
pub use exact::Exact;
#[cfg(test)]
pub(crate) use geometry::test_device;
pub use geometry::{
    check_apart, check_binding, floor_pow2, preferred_group_size, prepare_kernel, u32_param,
    workgroup_model,
};
pub use preset::{big_log2, roofline_words};
pub use shape::{parse_shape, wrong_form, MAX_SHAPE_PRODUCT};
pub use tuning::{plan_tuned, TuningCache, TuningChoice};
pub use workload::{checked_indices, made_on_device, pow2_label, Metric, Prepared, Size, Workload};

use rosetta_core::{Backend, DeviceInfo, KernelDef, Result};
use std::sync::Arc;

/// One op, described once.
pub trait Op: Send + Sync {
    /// The op's name: `rosetta run <name>`, `--op <name>`, JSON, case names.
    fn name(&self) -> &'static str;

    /// One line for `--help`.
    fn about(&self) -> &'static str;

    /// Every kernel the op launches (each should exist in every language).
    fn kernels(&self) -> Vec<Arc<KernelDef>>;

    /// The conformance cases (every group: ops, errors, limits).
    fn cases(&self) -> Vec<Case>;

    /// One case of the `random` group, everything about it drawn from
    /// `draw`: a variant of the op's plan (every variant the tuner could
    /// pick, or the plan's own choice), a shape (lengths from
    /// [`random::Draw::length`], within [`random::MAX_LEN`] and
    /// [`random::MAX_WORK`]) and values, through buffers padded past the
    /// data where the op's checks allow. The name says what was drawn; the
    /// runner prefixes the seed and index and sets the group.
    fn random_case(&self, draw: &mut random::Draw) -> Case;

    /// Benchmark workloads for `device` at a size preset. Workloads whose
    /// plan has variants list them, and carry the class the tuner keys on.
    fn workloads(&self, size: Size, device: &DeviceInfo) -> Vec<Workload>;

    /// What the sides of a shape of the user's mean for this op's
    /// workloads, one form per accepted number of sides (`MxKxN`,
    /// `N (an NxNxN cube)`); usage errors list them.
    fn shape_forms(&self) -> &'static [&'static str];

    /// The workloads of [`Op::workloads`] at a shape of the user's
    /// (`rosetta bench --shape`, `rosetta tune --shape`): `dims` as
    /// [`parse_shape`] gives them, in one of [`Op::shape_forms`]. A shape
    /// that fits no form, or that the op's spec refuses, is a usage error.
    fn shaped_workloads(&self, dims: &[usize], device: &DeviceInfo) -> Result<Vec<Workload>>;

    /// Arguments of `rosetta run <name>`.
    fn cli(&self) -> CliSpec;

    /// `rosetta run <name>`: the op on `backend` with the parsed options and
    /// the input arrays (as many as [`CliSpec::inputs`]).
    fn run(
        &self,
        backend: &Arc<dyn Backend>,
        options: &Options,
        inputs: Vec<HostArray>,
    ) -> Result<HostArray>;
}
