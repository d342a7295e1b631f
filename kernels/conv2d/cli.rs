//! `rosetta run conv2d`: the op on host arrays.

use super::plan::{conv2d_f32, conv2d_u8};
use super::spec::{Border, Conv2dSpec};
use crate::op::{wrong_type, ArrayData, HostArray, Options};
use rosetta_core::{Backend, Error, Result};
use std::sync::Arc;

/// Run the op on `inputs` with `options` (see the op's `CliSpec`).
pub(crate) fn run(
    backend: &Arc<dyn Backend>,
    options: &Options,
    inputs: Vec<HostArray>,
) -> Result<HostArray> {
    let [image, filter] = crate::op::exactly::<2>(inputs)?;
    let name = options.get("border").unwrap_or("zero");
    let border = Border::from_name(name).ok_or_else(|| {
        Error::InvalidArgument(format!("--border must be zero or clamp, got '{name}'"))
    })?;
    let [height, width] = image.matrix("IMAGE")?;
    let [kh, kw] = filter.matrix("FILTER")?;
    let spec = Conv2dSpec {
        height,
        width,
        kh,
        kw,
        border,
    };
    let weights = filter.f32s("FILTER")?;
    let out = match &image.data {
        ArrayData::F32(pixels) => conv2d_f32(backend, pixels, weights, &spec)?,
        ArrayData::U8(pixels) => conv2d_u8(backend, pixels, weights, &spec)?,
        other => return Err(wrong_type("IMAGE", "float32 or uint8", other.elem())),
    };
    HostArray::new(vec![height, width], ArrayData::F32(out))
}
