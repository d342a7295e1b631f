//! `.npy` input and output: one C-ordered array of f32, i32 or u32.

use rosetta_core::{Elem, Error, Result};
use std::io::BufWriter;
use std::path::Path;

/// The values of an array, by element type.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    F32(Vec<f32>),
    I32(Vec<i32>),
    U32(Vec<u32>),
}

impl Values {
    pub fn elem(&self) -> Elem {
        match self {
            Values::F32(_) => Elem::F32,
            Values::I32(_) => Elem::I32,
            Values::U32(_) => Elem::U32,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Values::F32(v) => v.len(),
            Values::I32(v) => v.len(),
            Values::U32(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One array: its shape (row-major) and values.
#[derive(Debug, Clone, PartialEq)]
pub struct Array {
    pub shape: Vec<usize>,
    pub values: Values,
}

impl Array {
    /// The f32 values, or a typed error naming the file.
    pub fn into_f32(self, path: &Path) -> Result<Vec<f32>> {
        match self.values {
            Values::F32(v) => Ok(v),
            other => Err(npy_error(
                path,
                format!("holds {} values, this input must be float32", other.elem()),
            )),
        }
    }

    /// The shape as rows × columns, for 2-D inputs.
    pub fn matrix_shape(&self, path: &Path) -> Result<[usize; 2]> {
        match self.shape[..] {
            [rows, cols] => Ok([rows, cols]),
            _ => Err(npy_error(
                path,
                format!("has shape {:?}, this input must be 2-D", self.shape),
            )),
        }
    }
}

fn npy_error(path: &Path, reason: impl Into<String>) -> Error {
    Error::Npy {
        path: path.display().to_string(),
        reason: reason.into(),
    }
}

/// Read one array; anything but a C-ordered little-endian f32 / i32 / u32
/// array is a typed [`Error::Npy`].
pub fn read(path: &Path) -> Result<Array> {
    let file =
        std::fs::File::open(path).map_err(|e| npy_error(path, format!("cannot open: {e}")))?;
    let npy = npyz::NpyFile::new(std::io::BufReader::new(file))
        .map_err(|e| npy_error(path, format!("not a readable .npy file: {e}")))?;
    if npy.order() == npyz::Order::Fortran {
        return Err(npy_error(
            path,
            "is Fortran-ordered; save it with numpy.ascontiguousarray first",
        ));
    }
    let shape: Vec<usize> = npy.shape().iter().map(|&d| d as usize).collect();
    let dtype = match npy.dtype() {
        npyz::DType::Plain(type_str) => type_str.to_string(),
        other => {
            return Err(npy_error(
                path,
                format!("has a structured dtype {}", other.descr()),
            ))
        }
    };
    let read_err = |e: std::io::Error| npy_error(path, format!("truncated or corrupt data: {e}"));
    let values = match dtype.as_str() {
        "<f4" => Values::F32(npy.into_vec().map_err(read_err)?),
        "<i4" => Values::I32(npy.into_vec().map_err(read_err)?),
        "<u4" => Values::U32(npy.into_vec().map_err(read_err)?),
        other => {
            return Err(npy_error(
                path,
                format!(
                    "has dtype {other}; rosetta reads float32, int32 or uint32 (little-endian)"
                ),
            ))
        }
    };
    Ok(Array { shape, values })
}

/// Write one array.
pub fn write(path: &Path, shape: &[usize], values: &Values) -> Result<()> {
    let file =
        std::fs::File::create(path).map_err(|e| npy_error(path, format!("cannot create: {e}")))?;
    let shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    let io_err = |e: std::io::Error| npy_error(path, format!("write failed: {e}"));
    fn write_all<T: npyz::AutoSerialize + Copy>(
        writer: BufWriter<std::fs::File>,
        shape: &[u64],
        data: &[T],
    ) -> std::io::Result<()> {
        use npyz::WriterBuilder;
        let mut out = npyz::WriteOptions::new()
            .default_dtype()
            .shape(shape)
            .writer(writer)
            .begin_nd()?;
        out.extend(data.iter().copied())?;
        out.finish()
    }
    let writer = BufWriter::new(file);
    match values {
        Values::F32(v) => write_all(writer, &shape, v),
        Values::I32(v) => write_all(writer, &shape, v),
        Values::U32(v) => write_all(writer, &shape, v),
    }
    .map_err(io_err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_each_type() {
        let dir = std::env::temp_dir().join(format!("rosetta-npy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, shape, values) in [
            (
                "f.npy",
                vec![2, 3],
                Values::F32(vec![1.5, -2.0, 0.0, 3.25, f32::NAN, 7.0]),
            ),
            ("i.npy", vec![3], Values::I32(vec![-1, 0, i32::MAX])),
            ("u.npy", vec![1], Values::U32(vec![u32::MAX])),
        ] {
            let path = dir.join(name);
            write(&path, &shape, &values).unwrap();
            let back = read(&path).unwrap();
            assert_eq!(back.shape, shape);
            match (&back.values, &values) {
                (Values::F32(a), Values::F32(b)) => {
                    assert!(a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()))
                }
                (a, b) => assert_eq!(a, b),
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_files_are_typed_errors() {
        let dir = std::env::temp_dir().join(format!("rosetta-npy-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let garbage = dir.join("garbage.npy");
        std::fs::write(&garbage, b"not an npy file").unwrap();
        assert!(matches!(read(&garbage), Err(Error::Npy { .. })));
        assert!(matches!(
            read(&dir.join("missing.npy")),
            Err(Error::Npy { .. })
        ));
        // float64 is not a rosetta dtype
        let f64_path = dir.join("f64.npy");
        npyz::to_file_1d(&f64_path, vec![1.0f64, 2.0]).unwrap();
        let err = read(&f64_path).unwrap_err();
        assert!(err.to_string().contains("<f8"), "{err}");
        assert!(err.is_usage());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
