//! What a 2-D convolution takes, its validation, host reference and error
//! bound.

use crate::op::Exact;
use rayon::prelude::*;
use rosetta_core::{Elem, Error, Result};
use serde::Serialize;
use std::fmt;

/// How a 2-D convolution reads outside the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Border {
    /// Outside pixels are 0.
    Zero,
    /// Outside pixels repeat the nearest edge pixel (numpy's `edge` padding).
    Clamp,
}

impl Border {
    /// Both rules.
    pub const ALL: [Border; 2] = [Border::Zero, Border::Clamp];

    /// Value of the kernels' `BORDER` constant.
    pub fn code(self) -> u32 {
        match self {
            Border::Zero => 0,
            Border::Clamp => 1,
        }
    }

    /// `zero`, `clamp`.
    pub fn name(self) -> &'static str {
        match self {
            Border::Zero => "zero",
            Border::Clamp => "clamp",
        }
    }

    /// The rule called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Border::ALL
            .into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for Border {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `out[y][x] = Σ_ij f[i][j] · img(y + i − kh/2, x + j − kw/2)`
/// (cross-correlation, centred filter, output the image's size), `img`
/// outside the image given by `border`. The image's pixels are f32 or u8
/// (see [`check_image_elem`]); the filter and the output are f32.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Conv2dSpec {
    /// Image rows.
    pub height: usize,
    /// Image columns.
    pub width: usize,
    /// Filter rows (odd).
    pub kh: usize,
    /// Filter columns (odd).
    pub kw: usize,
    /// Outside the image.
    pub border: Border,
}

impl Conv2dSpec {
    /// Refuse even or zero filter extents ([`Error::InvalidFilter`]) and
    /// shapes whose products overflow ([`Error::ShapeMismatch`]: a filter of
    /// (2^63 + 9) × (2^63 + 1) would otherwise "hold" 9 values).
    pub fn validate(&self) -> Result<()> {
        for (what, extent) in [("height", self.kh), ("width", self.kw)] {
            if extent.is_multiple_of(2) {
                return Err(Error::InvalidFilter(format!(
                    "conv2d needs odd filter extents (centred filter); the filter {what} is {extent}"
                )));
            }
        }
        self.filter_len()?;
        self.pixels()?;
        Ok(())
    }

    /// Filter values, `kh · kw`, checked.
    pub fn filter_len(&self) -> Result<usize> {
        self.kh.checked_mul(self.kw).ok_or_else(|| {
            Error::ShapeMismatch(format!("a {}x{} filter's size overflows", self.kh, self.kw))
        })
    }

    /// Image pixels (and outputs), `height · width`, checked.
    pub fn pixels(&self) -> Result<usize> {
        self.height.checked_mul(self.width).ok_or_else(|| {
            Error::ShapeMismatch(format!(
                "a {}x{} image's size overflows",
                self.height, self.width
            ))
        })
    }

    /// Bytes of the image: 4 per f32 pixel, 1 per u8 pixel (packed four to
    /// a word on the device; kernels read the whole words, which a buffer's
    /// capacity — a multiple of 16 — always covers).
    pub fn image_bytes(&self, elem: Elem) -> Result<u64> {
        let pixels = self.pixels()? as u64;
        pixels.checked_mul(elem.size()).ok_or_else(|| {
            Error::ShapeMismatch(format!("{pixels} {elem} pixels overflow a buffer size"))
        })
    }

    /// Bytes of the output: 4 per pixel, checked.
    pub fn out_bytes(&self) -> Result<u64> {
        (self.pixels()? as u64)
            .checked_mul(4)
            .ok_or_else(|| Error::ShapeMismatch("conv2d output overflows a buffer size".into()))
    }

    /// Bytes of the filter: 4 per value, checked.
    pub fn filter_bytes(&self) -> Result<u64> {
        (self.filter_len()? as u64)
            .checked_mul(4)
            .ok_or_else(|| Error::ShapeMismatch("conv2d filter overflows a buffer size".into()))
    }
}

/// Image pixels are f32 or u8; anything else is [`Error::InvalidArgument`].
pub fn check_image_elem(elem: Elem) -> Result<()> {
    match elem {
        Elem::F32 | Elem::U8 => Ok(()),
        other => Err(Error::InvalidArgument(format!(
            "conv2d images are float32 or uint8, got {other}"
        ))),
    }
}

/// The error bound of one output: γ_k·Σ|x·w| with `k = kh · kw` taps (any
/// summation order, with or without fused multiply-add; u8 pixels convert
/// to f32 exactly), plus what underflow may lose
/// ([`Exact::dot_bound`]).
pub fn conv2d_bound(spec: &Conv2dSpec, exact: &Exact) -> f64 {
    exact.dot_bound(spec.kh.saturating_mul(spec.kw))
}

/// A pixel type of the host reference: f32, or u8 (converted exactly).
pub trait Pixel: Copy + Send + Sync {
    /// The pixel as the kernels see it.
    fn value(self) -> f32;
}

impl Pixel for f32 {
    fn value(self) -> f32 {
        self
    }
}

impl Pixel for u8 {
    fn value(self) -> f32 {
        f32::from(self)
    }
}

/// One output pixel of the convolution, accumulated in f64 (with Σ|x·w|).
/// `image` holds `height · width` pixels and `filter` `kh · kw` values.
/// Under the zero border, filter values outside the image multiply a zero,
/// as the contract's formula says: 0 · ±Inf and 0 · NaN are NaN there, as
/// in numpy.
pub fn conv2d_at<P: Pixel>(
    image: &[P],
    filter: &[f32],
    spec: &Conv2dSpec,
    y: usize,
    x: usize,
) -> Exact {
    let (h, w) = (spec.height as isize, spec.width as isize);
    let (ry, rx) = ((spec.kh / 2) as isize, (spec.kw / 2) as isize);
    let mut acc = Exact::default();
    for i in 0..spec.kh {
        for j in 0..spec.kw {
            let (mut sy, mut sx) = (y as isize + i as isize - ry, x as isize + j as isize - rx);
            let pixel = match spec.border {
                Border::Zero if sy < 0 || sy >= h || sx < 0 || sx >= w => 0.0,
                Border::Zero => image[(sy * w + sx) as usize].value(),
                Border::Clamp => {
                    sy = sy.clamp(0, h - 1);
                    sx = sx.clamp(0, w - 1);
                    image[(sy * w + sx) as usize].value()
                }
            };
            acc.add_product(pixel, filter[i * spec.kw + j]);
        }
    }
    acc
}

/// Every output of the convolution (the host reference).
pub fn conv2d_reference<P: Pixel>(image: &[P], filter: &[f32], spec: &Conv2dSpec) -> Vec<Exact> {
    let width = spec.width.max(1);
    (0..spec.height * spec.width)
        .into_par_iter()
        .map(|p| conv2d_at(image, filter, spec, p / width, p % width))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(height: usize, width: usize, kh: usize, kw: usize, border: Border) -> Conv2dSpec {
        Conv2dSpec {
            height,
            width,
            kh,
            kw,
            border,
        }
    }

    #[test]
    fn reference_follows_the_border_rule() {
        // Column filter [1, 0, 0] reads the pixel above: clamped at the top
        // row, zero above it.
        let img = [1.0f32, 2.0, 3.0, 4.0];
        let clamp = conv2d_reference(&img, &[1.0, 0.0, 0.0], &spec(2, 2, 3, 1, Border::Clamp));
        let values: Vec<f64> = clamp.iter().map(|e| e.value).collect();
        assert_eq!(values, vec![1.0, 2.0, 1.0, 2.0]);
        let zero = conv2d_reference(&img, &[1.0, 0.0, 0.0], &spec(2, 2, 3, 1, Border::Zero));
        let values: Vec<f64> = zero.iter().map(|e| e.value).collect();
        assert_eq!(values, vec![0.0, 0.0, 1.0, 2.0]);
        // u8 pixels convert exactly; cross-correlation: not flipped.
        let bytes = [10u8, 200];
        let out = conv2d_reference(&bytes, &[1.0, 2.0, 3.0], &spec(1, 2, 1, 3, Border::Zero));
        assert_eq!(out[0].value, 2.0 * 10.0 + 3.0 * 200.0);
        assert_eq!(out[1].value, 10.0 + 2.0 * 200.0);
        // A filter value over the zero border multiplies a zero (0 · Inf is
        // NaN); clamped, it multiplies the edge pixel.
        let inf_above = [f32::INFINITY, 1.0, 1.0];
        let zero = conv2d_reference(&img, &inf_above, &spec(2, 2, 3, 1, Border::Zero));
        assert!(zero[0].value.is_nan() && zero[1].value.is_nan());
        assert_eq!(zero[2].value, f64::INFINITY);
        let clamp = conv2d_reference(&img, &inf_above, &spec(2, 2, 3, 1, Border::Clamp));
        assert!(clamp.iter().all(|e| e.value == f64::INFINITY));
    }

    #[test]
    fn bad_filters_and_overflowing_shapes_are_refused() {
        assert!(matches!(
            spec(4, 4, 3, 4, Border::Zero).validate(),
            Err(Error::InvalidFilter(_))
        ));
        assert!(matches!(
            spec(4, 4, 0, 3, Border::Zero).validate(),
            Err(Error::InvalidFilter(_))
        ));
        // (2^63 + 9)(2^63 + 1) = 9 mod 2^64: refused, not a 3x3.
        let wraps = spec(4, 4, (1 << 63) + 9, (1 << 63) + 1, Border::Zero);
        assert_eq!(wraps.kh.wrapping_mul(wraps.kw), 9);
        assert!(matches!(wraps.validate(), Err(Error::ShapeMismatch(_))));
        let image = spec(1 << 33, 1 << 33, 3, 3, Border::Clamp);
        assert!(matches!(image.validate(), Err(Error::ShapeMismatch(_))));
        assert!(check_image_elem(Elem::I32).is_err());
        assert_eq!(
            spec(3, 3, 1, 1, Border::Zero)
                .image_bytes(Elem::U8)
                .unwrap(),
            9
        );
    }
}
