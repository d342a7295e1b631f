//! `rosetta run conv1d`: the op on host arrays.

use super::plan::conv1d_f32;
use crate::op::{ArrayData, HostArray, Options};
use rosetta_core::{Backend, Result};
use std::sync::Arc;

/// Run the op on `inputs` with `options` (see the op's `CliSpec`).
pub(crate) fn run(
    backend: &Arc<dyn Backend>,
    _options: &Options,
    inputs: Vec<HostArray>,
) -> Result<HostArray> {
    let [signal, taps] = crate::op::exactly::<2>(inputs)?;
    // 1-D only: a 2-D signal is refused, never flattened.
    let len = signal.vector_len("SIGNAL")?;
    taps.vector_len("TAPS")?;
    let out = conv1d_f32(backend, signal.f32s("SIGNAL")?, taps.f32s("TAPS")?)?;
    HostArray::new(vec![len], ArrayData::F32(out))
}
