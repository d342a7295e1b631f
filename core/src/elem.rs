//! Element types of buffers and ops.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The element types rosetta's ops and device buffers hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Elem {
    /// 32-bit IEEE float.
    F32,
    /// 32-bit signed integer (sums wrap).
    I32,
    /// 32-bit unsigned integer (sums wrap).
    U32,
    /// 8-bit unsigned integer (image pixels); packed four to a word on devices.
    U8,
}

impl Elem {
    /// Every element type.
    pub const ALL: [Elem; 4] = [Elem::F32, Elem::I32, Elem::U32, Elem::U8];

    /// Value of the kernels' `ELEM` constant.
    pub fn code(self) -> u32 {
        match self {
            Elem::F32 => 0,
            Elem::I32 => 1,
            Elem::U32 => 2,
            Elem::U8 => 3,
        }
    }

    /// The name used in messages, case names and JSON (`f32`, `i32`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Elem::F32 => "f32",
            Elem::I32 => "i32",
            Elem::U32 => "u32",
            Elem::U8 => "u8",
        }
    }

    /// The element type called `name`.
    pub fn from_name(name: &str) -> Option<Elem> {
        Elem::ALL
            .into_iter()
            .find(|e| e.name().eq_ignore_ascii_case(name))
    }

    /// Bytes per element.
    pub fn size(self) -> u64 {
        match self {
            Elem::U8 => 1,
            _ => 4,
        }
    }
}

impl fmt::Display for Elem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Rust types that map to an [`Elem`].
pub trait Element:
    bytemuck::Pod + Default + PartialEq + Send + Sync + fmt::Debug + 'static
{
    /// The element type.
    const ELEM: Elem;
}

impl Element for f32 {
    const ELEM: Elem = Elem::F32;
}
impl Element for i32 {
    const ELEM: Elem = Elem::I32;
}
impl Element for u32 {
    const ELEM: Elem = Elem::U32;
}
impl Element for u8 {
    const ELEM: Elem = Elem::U8;
}

/// Size in bytes of `len` elements of `elem`, or an error if it overflows.
pub fn bytes_of(elem: Elem, len: usize) -> crate::Result<u64> {
    (len as u64).checked_mul(elem.size()).ok_or_else(|| {
        crate::Error::InvalidArgument(format!("{len} {elem} elements overflow a buffer size"))
    })
}
