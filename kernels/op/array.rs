//! Arrays on the host, as `rosetta run` reads and writes them.

use rosetta_core::{Elem, Error, Result};

/// An array's elements.
#[derive(Debug, Clone, PartialEq)]
pub enum ArrayData {
    /// float32
    F32(Vec<f32>),
    /// int32
    I32(Vec<i32>),
    /// uint32
    U32(Vec<u32>),
    /// uint8
    U8(Vec<u8>),
}

impl ArrayData {
    /// The element type.
    pub fn elem(&self) -> Elem {
        match self {
            ArrayData::F32(_) => Elem::F32,
            ArrayData::I32(_) => Elem::I32,
            ArrayData::U32(_) => Elem::U32,
            ArrayData::U8(_) => Elem::U8,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            ArrayData::F32(v) => v.len(),
            ArrayData::I32(v) => v.len(),
            ArrayData::U32(v) => v.len(),
            ArrayData::U8(v) => v.len(),
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A row-major array: shape and elements (`shape` multiplies to the length).
#[derive(Debug, Clone, PartialEq)]
pub struct HostArray {
    /// Extent of each axis; empty for a scalar.
    pub shape: Vec<usize>,
    /// The elements.
    pub data: ArrayData,
}

impl HostArray {
    /// An array, checking that `shape` multiplies (without overflow) to the
    /// number of elements.
    pub fn new(shape: Vec<usize>, data: ArrayData) -> Result<Self> {
        let count = shape
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| Error::ShapeMismatch(format!("shape {shape:?} overflows")))?;
        if count != data.len() {
            return Err(Error::ShapeMismatch(format!(
                "shape {shape:?} needs {count} elements, the data has {}",
                data.len()
            )));
        }
        Ok(HostArray { shape, data })
    }

    /// A 1-D array.
    pub fn vector(data: ArrayData) -> Self {
        HostArray {
            shape: vec![data.len()],
            data,
        }
    }

    /// The element type.
    pub fn elem(&self) -> Elem {
        self.data.elem()
    }

    /// The shape as `[rows, cols]` of a 2-D array, or a usage error naming
    /// `what`.
    pub fn matrix(&self, what: &str) -> Result<[usize; 2]> {
        match self.shape[..] {
            [rows, cols] => Ok([rows, cols]),
            _ => Err(Error::ShapeMismatch(format!(
                "{what} must be 2-D, got shape {:?}",
                self.shape
            ))),
        }
    }

    /// The length of a 1-D array, or a usage error naming `what` (a 2-D
    /// array is refused, not flattened).
    pub fn vector_len(&self, what: &str) -> Result<usize> {
        match self.shape[..] {
            [len] => Ok(len),
            _ => Err(Error::ShapeMismatch(format!(
                "{what} must be 1-D, got shape {:?}",
                self.shape
            ))),
        }
    }

    /// f32 elements, or a usage error naming `what`.
    pub fn f32s(&self, what: &str) -> Result<&[f32]> {
        match &self.data {
            ArrayData::F32(v) => Ok(v),
            other => Err(wrong_type(what, "float32", other.elem())),
        }
    }
}

/// Exactly `N` input arrays, or a usage error.
pub fn exactly<const N: usize>(inputs: Vec<HostArray>) -> Result<[HostArray; N]> {
    let got = inputs.len();
    inputs
        .try_into()
        .map_err(|_| Error::InvalidArgument(format!("expected {N} input arrays, got {got}")))
}

/// The usage error for an input of the wrong element type (named as numpy
/// names it).
pub fn wrong_type(what: &str, wanted: &str, got: Elem) -> Error {
    let got = match got {
        Elem::F32 => "float32",
        Elem::I32 => "int32",
        Elem::U32 => "uint32",
        Elem::U8 => "uint8",
    };
    Error::InvalidArgument(format!("{what} must be {wanted}, got {got}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_checked_without_overflow() {
        assert!(HostArray::new(vec![2, 3], ArrayData::F32(vec![0.0; 6])).is_ok());
        assert!(HostArray::new(vec![2, 3], ArrayData::F32(vec![0.0; 5])).is_err());
        assert!(HostArray::new(vec![1 << 32, 1 << 32], ArrayData::F32(vec![])).is_err());
        assert!(HostArray::new(vec![usize::MAX, usize::MAX], ArrayData::U8(vec![0])).is_err());
        assert!(HostArray::new(vec![], ArrayData::U32(vec![7])).is_ok());
        let m = HostArray::new(vec![2, 3], ArrayData::F32(vec![0.0; 6])).unwrap();
        assert!(m.vector_len("x").is_err(), "2-D is not flattened");
        assert_eq!(m.matrix("a").unwrap(), [2, 3]);
    }
}
