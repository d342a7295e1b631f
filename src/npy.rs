//! `.npy` input and output: one C-ordered little-endian array of float32,
//! int32, uint32 or uint8.
//!
//! The format (numpy's `NEP 1`, versions 1.0, 2.0 and 3.0) is read here
//! directly: the magic `\x93NUMPY`, two version bytes, the header length
//! (2 bytes in 1.0, 4 in 2.0 and 3.0), a Python dict literal
//! `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`, then the raw
//! data. Nothing in a file is trusted: the element count is computed with
//! checked arithmetic and must match the data actually present, exactly, and
//! any malformed header is a typed [`Error::BadFile`] naming the file (a usage
//! error), never a panic.
//!
//! ```no_run
//! use rosetta::npy::{self, Array, ArrayData};
//! let a = npy::read("a.npy".as_ref())?;
//! npy::write("b.npy".as_ref(), &Array::new(vec![2], ArrayData::U8(vec![1, 2]))?)?;
//! # Ok::<(), rosetta::Error>(())
//! ```

use crate::error::{Error, Result};
use std::fmt;
use std::io::{self, Read, Write};
use std::path::Path;

const MAGIC: &[u8; 6] = b"\x93NUMPY";
/// numpy aligns the data to 64 bytes.
const ALIGN: usize = 64;
/// Far above any real header (numpy's own reader stops at 10 000 bytes).
const MAX_HEADER: usize = 1 << 20;
/// numpy's limit (NPY_MAXDIMS).
const MAX_DIMS: usize = 64;
/// How deeply a header's literal may nest (a structured dtype is the deepest).
const MAX_DEPTH: usize = 16;

/// The element types rosetta reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dtype {
    /// `<f4`
    F32,
    /// `<i4`
    I32,
    /// `<u4`
    U32,
    /// `|u1`
    U8,
}

impl Dtype {
    /// numpy's name (`float32`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "float32",
            Dtype::I32 => "int32",
            Dtype::U32 => "uint32",
            Dtype::U8 => "uint8",
        }
    }

    /// The `descr` this module writes.
    pub fn descr(self) -> &'static str {
        match self {
            Dtype::F32 => "<f4",
            Dtype::I32 => "<i4",
            Dtype::U32 => "<u4",
            Dtype::U8 => "|u1",
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Dtype::U8 => 1,
            _ => 4,
        }
    }

    /// The dtype of a `descr`; a single byte has no byte order (`|u1`, `<u1`,
    /// `>u1` are the same).
    fn from_descr(descr: &str) -> Option<Dtype> {
        Some(match descr {
            "<f4" => Dtype::F32,
            "<i4" => Dtype::I32,
            "<u4" => Dtype::U32,
            "|u1" | "<u1" | ">u1" | "=u1" | "u1" => Dtype::U8,
            _ => return None,
        })
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

pub use rosetta_kernels::op::{ArrayData, HostArray as Array};

/// The element type of an array's values.
pub fn dtype_of(data: &ArrayData) -> Dtype {
    match data {
        ArrayData::F32(_) => Dtype::F32,
        ArrayData::I32(_) => Dtype::I32,
        ArrayData::U32(_) => Dtype::U32,
        ArrayData::U8(_) => Dtype::U8,
    }
}

fn npy_error(path: &Path, reason: impl Into<String>) -> Error {
    Error::BadFile {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// A shape as numpy prints it: `()`, `(5,)`, `(2, 3)`.
fn shape_text(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => {
            let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
            format!("({})", dims.join(", "))
        }
    }
}

/// The number of elements, or `None` if it overflows.
fn element_count(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
}

/// Read one array. A file that cannot be opened or read, a malformed header, a
/// dtype other than float32 / int32 / uint32 (little-endian) / uint8, a
/// Fortran-ordered array of 2 or more dimensions, or data that do not match the
/// shape (too short, too long, a count that overflows) is an [`Error::BadFile`]
/// naming the file.
pub fn read(path: &Path) -> Result<Array> {
    let file =
        std::fs::File::open(path).map_err(|e| npy_error(path, format!("cannot open: {e}")))?;
    // The length of a regular file bounds what its header may claim.
    let len = file
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    decode(io::BufReader::new(file), len).map_err(|reason| npy_error(path, reason))
}

/// Write one array (through [`crate::output`]: an existing file is replaced
/// only once the new one is complete). A shape that does not hold the values
/// is an [`rosetta_core::Error::ShapeMismatch`]; a failed write an [`Error::Io`] naming the
/// path.
pub fn write(path: &Path, array: &Array) -> Result<()> {
    if element_count(&array.shape) != Some(array.data.len()) {
        return Err(rosetta_core::Error::ShapeMismatch(format!(
            "{}: shape {} does not hold {} values",
            rosetta_core::shown_path(path),
            shape_text(&array.shape),
            array.data.len()
        ))
        .into());
    }
    crate::output::write_with(path, |w| encode(array, w))
}

/// The file's bytes: header, then the values in little-endian order.
fn encode(array: &Array, w: &mut dyn Write) -> io::Result<()> {
    w.write_all(&header(dtype_of(&array.data), &array.shape))?;
    match &array.data {
        ArrayData::F32(v) => write_values(w, v),
        ArrayData::I32(v) => write_values(w, v),
        ArrayData::U32(v) => write_values(w, v),
        ArrayData::U8(v) => w.write_all(v),
    }
}

/// Magic, version, length and the dict padded with spaces and a newline so
/// that the data start at a multiple of 64 bytes (version 1.0 unless the
/// header needs more than 65535 bytes), as numpy writes it.
fn header(dtype: Dtype, shape: &[usize]) -> Vec<u8> {
    let dict = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
        dtype.descr(),
        shape_text(shape)
    );
    let padded = |preamble: usize| (preamble + dict.len() + 1).div_ceil(ALIGN) * ALIGN - preamble;
    let mut out = MAGIC.to_vec();
    let len = match u16::try_from(padded(10)) {
        Ok(len) => {
            out.extend_from_slice(&[1, 0]);
            out.extend_from_slice(&len.to_le_bytes());
            usize::from(len)
        }
        Err(_) => {
            let len = padded(12);
            out.extend_from_slice(&[2, 0]);
            out.extend_from_slice(&(len as u32).to_le_bytes());
            len
        }
    };
    out.extend_from_slice(dict.as_bytes());
    out.resize(out.len() + len - dict.len() - 1, b' ');
    out.push(b'\n');
    out
}

/// A value stored little-endian.
trait Scalar: bytemuck::Pod {
    fn le_to_native(self) -> Self;
    fn native_to_le(self) -> Self;
}

impl Scalar for f32 {
    fn le_to_native(self) -> Self {
        f32::from_bits(u32::from_le(self.to_bits()))
    }
    fn native_to_le(self) -> Self {
        f32::from_bits(self.to_bits().to_le())
    }
}

impl Scalar for i32 {
    fn le_to_native(self) -> Self {
        i32::from_le(self)
    }
    fn native_to_le(self) -> Self {
        i32::to_le(self)
    }
}

impl Scalar for u32 {
    fn le_to_native(self) -> Self {
        u32::from_le(self)
    }
    fn native_to_le(self) -> Self {
        u32::to_le(self)
    }
}

impl Scalar for u8 {
    fn le_to_native(self) -> Self {
        self
    }
    fn native_to_le(self) -> Self {
        self
    }
}

fn write_values<T: Scalar>(w: &mut dyn Write, values: &[T]) -> io::Result<()> {
    for chunk in values.chunks(16 * 1024) {
        let le: Vec<T> = chunk.iter().map(|&v| v.native_to_le()).collect();
        w.write_all(bytemuck::cast_slice(&le))?;
    }
    Ok(())
}

/// Parse a whole `.npy` stream; `len`, when known, is its length in bytes.
/// The error is the reason, without the path.
fn decode(mut r: impl Read, len: Option<u64>) -> std::result::Result<Array, String> {
    let mut preamble = [0u8; 8];
    read_exact(&mut r, &mut preamble, "too short to be a .npy file")?;
    if &preamble[..6] != MAGIC {
        return Err("not a .npy file (no \\x93NUMPY magic)".into());
    }
    let (major, minor) = (preamble[6], preamble[7]);
    let header_len = match (major, minor) {
        (1, 0) => {
            let mut b = [0u8; 2];
            read_exact(&mut r, &mut b, "truncated header")?;
            u16::from_le_bytes(b) as usize
        }
        (2, 0) | (3, 0) => {
            let mut b = [0u8; 4];
            read_exact(&mut r, &mut b, "truncated header")?;
            u32::from_le_bytes(b) as usize
        }
        _ => {
            return Err(format!(
                ".npy version {major}.{minor} is not supported (1.0, 2.0, 3.0 are)"
            ))
        }
    };
    if header_len > MAX_HEADER {
        return Err(format!(
            "header length {header_len} is over the {MAX_HEADER}-byte limit"
        ));
    }
    let mut text = Vec::new();
    (&mut r)
        .take(header_len as u64)
        .read_to_end(&mut text)
        .map_err(|e| format!("read failed: {e}"))?;
    if text.len() < header_len {
        return Err(format!(
            "truncated header: {header_len} bytes announced, {} present",
            text.len()
        ));
    }
    let header = Header::parse(&text)?;
    let offset = 6 + 2 + if major == 1 { 2 } else { 4 } + header_len as u64;
    let remaining = len.map(|len| len.saturating_sub(offset));
    let count = header.count()?;
    let data = match header.dtype {
        Dtype::F32 => ArrayData::F32(read_values(&mut r, count, remaining, &header)?),
        Dtype::I32 => ArrayData::I32(read_values(&mut r, count, remaining, &header)?),
        Dtype::U32 => ArrayData::U32(read_values(&mut r, count, remaining, &header)?),
        Dtype::U8 => ArrayData::U8(read_values(&mut r, count, remaining, &header)?),
    };
    Ok(Array {
        shape: header.shape,
        data,
    })
}

fn read_exact(r: &mut impl Read, buf: &mut [u8], short: &str) -> std::result::Result<(), String> {
    r.read_exact(buf).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => short.to_string(),
        _ => format!("read failed: {e}"),
    })
}

/// Exactly `count` values, then the end of the stream. `remaining` (the bytes
/// after the header, when known) is checked before anything is allocated.
fn read_values<T: Scalar>(
    r: &mut impl Read,
    count: usize,
    remaining: Option<u64>,
    header: &Header,
) -> std::result::Result<Vec<T>, String> {
    // `Header::count` checked that this does not overflow.
    let need = count.saturating_mul(std::mem::size_of::<T>());
    let mismatch = |present: &str| {
        format!(
            "shape {} of {} needs {need} bytes of data, {present}",
            shape_text(&header.shape),
            header.dtype
        )
    };
    let mut values: Vec<T> = match remaining {
        Some(rem) if rem < need as u64 => return Err(mismatch(&format!("only {rem} present"))),
        Some(rem) if rem > need as u64 => {
            return Err(mismatch(&format!("{rem} present (trailing bytes)")))
        }
        Some(_) => {
            let mut values = vec![T::zeroed(); count];
            r.read_exact(bytemuck::cast_slice_mut(&mut values))
                .map_err(|e| match e.kind() {
                    io::ErrorKind::UnexpectedEof => mismatch("fewer present"),
                    _ => format!("read failed: {e}"),
                })?;
            values
        }
        None => {
            // Unknown length (a pipe): read what is there, at most one byte
            // more than needed, growing as the data arrive.
            let mut bytes = Vec::new();
            r.take(need as u64 + 1)
                .read_to_end(&mut bytes)
                .map_err(|e| format!("read failed: {e}"))?;
            if bytes.len() != need {
                let present = if bytes.len() < need {
                    format!("only {} present", bytes.len())
                } else {
                    "more present (trailing bytes)".into()
                };
                return Err(mismatch(&present));
            }
            bytemuck::pod_collect_to_vec(&bytes)
        }
    };
    let mut probe = [0u8; 1];
    match r.read(&mut probe) {
        Ok(0) => {}
        Ok(_) => return Err(mismatch("more present (trailing bytes)")),
        Err(e) => return Err(format!("read failed: {e}")),
    }
    for v in &mut values {
        *v = v.le_to_native();
    }
    Ok(values)
}

/// What a header says.
#[derive(Debug)]
struct Header {
    dtype: Dtype,
    shape: Vec<usize>,
}

impl Header {
    fn parse(text: &[u8]) -> std::result::Result<Header, String> {
        let mut parser = Parser { s: text, pos: 0 };
        let dict = parser.value(0)?;
        parser.skip_space();
        if parser.pos != text.len() {
            return Err(format!(
                "malformed header: unexpected text at byte {}",
                parser.pos
            ));
        }
        let Lit::Dict(entries) = dict else {
            return Err("malformed header: not a dict".into());
        };
        let (mut descr, mut fortran, mut shape) = (None, None, None);
        for (key, value) in entries {
            let slot = match &key {
                Lit::Str(k) if k == "descr" => &mut descr,
                Lit::Str(k) if k == "fortran_order" => &mut fortran,
                Lit::Str(k) if k == "shape" => &mut shape,
                other => return Err(format!("malformed header: unexpected key {other}")),
            };
            if slot.replace(value).is_some() {
                return Err(format!("malformed header: key {key} appears twice"));
            }
        }
        let (Some(descr), Some(fortran), Some(shape)) = (descr, fortran, shape) else {
            return Err(
                "malformed header: needs the keys 'descr', 'fortran_order' and 'shape'".into(),
            );
        };
        let dtype = match &descr {
            Lit::Str(d) => Dtype::from_descr(d).ok_or_else(|| {
                format!(
                    "has dtype {}; rosetta reads float32, int32, uint32 \
                     (little-endian: <f4, <i4, <u4) and uint8 (|u1)",
                    quoted(d)
                )
            })?,
            Lit::List(_) => return Err(format!("has a structured dtype {descr}")),
            other => return Err(format!("malformed header: 'descr' is {other}")),
        };
        let Lit::Tuple(dims) = shape else {
            return Err(format!("malformed header: 'shape' is {shape}, not a tuple"));
        };
        if dims.len() > MAX_DIMS {
            return Err(format!(
                "shape has {} dimensions, more than {MAX_DIMS}",
                dims.len()
            ));
        }
        let shape = dims
            .iter()
            .map(|d| match d {
                Lit::Int(Some(n)) if *n >= 0 => {
                    usize::try_from(*n).map_err(|_| format!("shape dimension {n} is too large"))
                }
                Lit::Int(None) => Err("a shape dimension is too large".into()),
                other => Err(format!("malformed header: shape dimension {other}")),
            })
            .collect::<std::result::Result<Vec<usize>, String>>()?;
        match fortran {
            Lit::Bool(false) => {}
            // One dimension or none: both orders are the same bytes.
            Lit::Bool(true) if shape.len() <= 1 => {}
            Lit::Bool(true) => {
                return Err("is Fortran-ordered; save it with numpy.ascontiguousarray first".into())
            }
            other => return Err(format!("malformed header: 'fortran_order' is {other}")),
        }
        Ok(Header { dtype, shape })
    }

    /// The element count, if the array fits in memory: the product of the
    /// dimensions (zeros counted as 1) times the element size must fit in an
    /// `isize`, as numpy requires.
    fn count(&self) -> std::result::Result<usize, String> {
        let too_big = || {
            format!(
                "shape {} of {} is too large (its size overflows)",
                shape_text(&self.shape),
                self.dtype
            )
        };
        let fits = self
            .shape
            .iter()
            .try_fold(self.dtype.size(), |n, &d| n.checked_mul(d.max(1)))
            .is_some_and(|bytes| bytes <= isize::MAX as usize);
        if !fits {
            return Err(too_big());
        }
        element_count(&self.shape).ok_or_else(too_big)
    }
}

/// The Python literals a header may hold.
#[derive(Debug)]
enum Lit {
    Str(String),
    /// `None` when too large for an i128.
    Int(Option<i128>),
    Bool(bool),
    None,
    Tuple(Vec<Lit>),
    List(Vec<Lit>),
    Dict(Vec<(Lit, Lit)>),
}

impl fmt::Display for Lit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let seq = |f: &mut fmt::Formatter<'_>, items: &[Lit], open: &str, close: &str| {
            f.write_str(open)?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{item}")?;
            }
            f.write_str(close)
        };
        match self {
            Lit::Str(s) => f.write_str(&quoted(s)),
            Lit::Int(Some(n)) => write!(f, "{n}"),
            Lit::Int(None) => f.write_str("<huge integer>"),
            Lit::Bool(true) => f.write_str("True"),
            Lit::Bool(false) => f.write_str("False"),
            Lit::None => f.write_str("None"),
            Lit::Tuple(items) => seq(f, items, "(", if items.len() == 1 { ",)" } else { ")" }),
            Lit::List(items) => seq(f, items, "[", "]"),
            Lit::Dict(_) => f.write_str("{...}"),
        }
    }
}

/// A string from a file, quoted for a one-line message: escaped, and cut
/// short when long.
fn quoted(s: &str) -> String {
    const MAX: usize = 40;
    let escaped: String = s.escape_debug().collect();
    match escaped.char_indices().nth(MAX) {
        Some((end, _)) => format!("'{}...'", &escaped[..end]),
        None => format!("'{escaped}'"),
    }
}

/// A recursive-descent parser for the literals above, over the header's
/// bytes: a subset of what `ast.literal_eval` accepts, which holds every
/// header numpy writes. What it refuses rather than read differently from
/// Python: backslash escapes in strings (`'<f\\4'` is not `'<f4'`) and
/// integers with leading zeros (`010` is an error in Python 3 and 8 in
/// Python 2); numpy writes neither.
struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn error(&self, what: &str) -> String {
        match self.peek() {
            Some(c) => format!(
                "malformed header: {what} at byte {} ('{}')",
                self.pos,
                (c as char).escape_default()
            ),
            None => format!("malformed header: {what} at its end"),
        }
    }

    fn value(&mut self, depth: usize) -> std::result::Result<Lit, String> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        self.skip_space();
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                let mut entries = Vec::new();
                loop {
                    self.skip_space();
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        return Ok(Lit::Dict(entries));
                    }
                    let key = self.value(depth + 1)?;
                    self.skip_space();
                    if self.peek() != Some(b':') {
                        return Err(self.error("expected ':'"));
                    }
                    self.pos += 1;
                    let value = self.value(depth + 1)?;
                    entries.push((key, value));
                    if !self.separator(b'}')? {
                        self.pos += 1;
                        return Ok(Lit::Dict(entries));
                    }
                }
            }
            Some(open @ (b'(' | b'[')) => {
                self.pos += 1;
                let close = if open == b'(' { b')' } else { b']' };
                let mut items = Vec::new();
                let mut trailing_comma = false;
                loop {
                    self.skip_space();
                    if self.peek() == Some(close) {
                        self.pos += 1;
                        break;
                    }
                    items.push(self.value(depth + 1)?);
                    trailing_comma = self.separator(close)?;
                    if !trailing_comma {
                        self.pos += 1;
                        break;
                    }
                }
                Ok(match open {
                    // `(x)` is x; `(x,)` is a tuple.
                    b'(' if items.len() == 1 && !trailing_comma => items.pop().unwrap_or(Lit::None),
                    b'(' => Lit::Tuple(items),
                    _ => Lit::List(items),
                })
            }
            Some(quote @ (b'\'' | b'"')) => {
                self.pos += 1;
                let mut bytes = Vec::new();
                loop {
                    match self.peek() {
                        None => return Err(self.error("unterminated string")),
                        Some(c) if c == quote => break,
                        Some(b'\\') => {
                            return Err(self.error("a backslash escape (numpy writes none)"))
                        }
                        Some(c) => bytes.push(c),
                    }
                    self.pos += 1;
                }
                self.pos += 1;
                Ok(Lit::Str(String::from_utf8_lossy(&bytes).into_owned()))
            }
            Some(b'0'..=b'9' | b'-' | b'+') => {
                let negative = self.peek() == Some(b'-');
                if matches!(self.peek(), Some(b'-' | b'+')) {
                    self.pos += 1;
                }
                let start = self.pos;
                let mut n: Option<i128> = Some(0);
                while let Some(c @ b'0'..=b'9') = self.peek() {
                    n = n
                        .and_then(|n| n.checked_mul(10))
                        .and_then(|n| n.checked_add(i128::from(c - b'0')));
                    self.pos += 1;
                }
                if self.pos == start {
                    return Err(self.error("expected a digit"));
                }
                let digits = &self.s[start..self.pos];
                if digits.len() > 1 && digits[0] == b'0' && digits.iter().any(|&d| d != b'0') {
                    self.pos = start;
                    return Err(self.error("an integer with a leading zero"));
                }
                // Python 2 wrote long integers as `3L`.
                if matches!(self.peek(), Some(b'L' | b'l')) {
                    self.pos += 1;
                }
                Ok(Lit::Int(if negative { n.map(|n| -n) } else { n }))
            }
            Some(b'A'..=b'Z' | b'a'..=b'z') => {
                let start = self.pos;
                while matches!(
                    self.peek(),
                    Some(b'A'..=b'Z' | b'a'..=b'z' | b'_' | b'0'..=b'9')
                ) {
                    self.pos += 1;
                }
                match &self.s[start..self.pos] {
                    b"True" => Ok(Lit::Bool(true)),
                    b"False" => Ok(Lit::Bool(false)),
                    b"None" => Ok(Lit::None),
                    _ => {
                        self.pos = start;
                        Err(self.error("unknown name"))
                    }
                }
            }
            _ => Err(self.error("expected a value")),
        }
    }

    /// After an item: `,` (true: more may follow) or `close` (false, left in
    /// place for the caller to consume).
    fn separator(&mut self, close: u8) -> std::result::Result<bool, String> {
        self.skip_space();
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                Ok(true)
            }
            Some(c) if c == close => Ok(false),
            _ => Err(self.error(&format!("expected ',' or '{}'", close as char))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("rosetta-npy-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn encoded(array: &Array) -> Vec<u8> {
        let mut bytes = Vec::new();
        encode(array, &mut bytes).unwrap();
        bytes
    }

    /// A header as numpy writes it, with any dict text.
    fn raw(dict: &str, data: &[u8]) -> Vec<u8> {
        let mut header = dict.to_string();
        while !(10 + header.len() + 1).is_multiple_of(64) {
            header.push(' ');
        }
        header.push('\n');
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&[1, 0]);
        bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend_from_slice(data);
        bytes
    }

    fn decode_all(bytes: &[u8]) -> std::result::Result<Array, String> {
        let known = decode(bytes, Some(bytes.len() as u64));
        let unknown = decode(bytes, None);
        assert_eq!(
            known.is_ok(),
            unknown.is_ok(),
            "{known:?} vs {unknown:?} for {bytes:?}"
        );
        known
    }

    #[test]
    fn round_trip_each_type() {
        let dir = scratch("round-trip");
        for array in [
            Array::new(
                vec![2, 3],
                ArrayData::F32(vec![1.5, -2.0, 0.0, 3.25, f32::NAN, 7.0]),
            ),
            Array::new(vec![3], ArrayData::I32(vec![-1, 0, i32::MAX])),
            Array::new(vec![], ArrayData::U32(vec![u32::MAX])),
            Array::new(vec![2, 0, 3], ArrayData::F32(vec![])),
            Array::new(vec![2, 2], ArrayData::U8(vec![0, 1, 128, 255])),
            Array::new(vec![1; 40], ArrayData::U8(vec![9])),
        ] {
            let array = array.unwrap();
            let path = dir.join("a.npy");
            write(&path, &array).unwrap();
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(bytes, encoded(&array));
            let data_at = bytes.len() - array.data.len() * dtype_of(&array.data).size();
            assert_eq!(data_at % ALIGN, 0, "data aligned to 64 bytes");
            let back = read(&path).unwrap();
            assert_eq!(back.shape, array.shape);
            match (&back.data, &array.data) {
                (ArrayData::F32(a), ArrayData::F32(b)) => {
                    assert!(a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()))
                }
                (a, b) => assert_eq!(a, b),
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn reads_what_numpy_writes() {
        // numpy.save(f, numpy.arange(3, dtype=numpy.uint8)): header and data.
        let bytes = raw(
            "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }",
            &[0, 1, 2],
        );
        let a = decode_all(&bytes).unwrap();
        assert_eq!((a.shape, a.data), (vec![3], ArrayData::U8(vec![0, 1, 2])));
        // The same header as this module writes.
        let ours = Array::new(vec![3], ArrayData::U8(vec![0, 1, 2])).unwrap();
        assert_eq!(encoded(&ours), bytes);
        // Version 2.0 and 3.0 (4-byte length), double quotes, odd spacing.
        for major in [2u8, 3] {
            let dict = b"{\"shape\":(2,),\"fortran_order\":False,\"descr\":\"<i4\"}\n";
            let mut bytes = MAGIC.to_vec();
            bytes.extend_from_slice(&[major, 0]);
            bytes.extend_from_slice(&(dict.len() as u32).to_le_bytes());
            bytes.extend_from_slice(dict);
            bytes.extend_from_slice(&[1, 0, 0, 0, 255, 255, 255, 255]);
            let a = decode_all(&bytes).unwrap();
            assert_eq!((a.shape, a.data), (vec![2], ArrayData::I32(vec![1, -1])));
        }
        // A 1-D Fortran-ordered array is the same bytes.
        let bytes = raw(
            "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }",
            &1.0f32.to_le_bytes(),
        );
        assert_eq!(decode_all(&bytes).unwrap().data, ArrayData::F32(vec![1.0]));
    }

    #[test]
    fn lying_or_unsupported_headers_are_errors() {
        let header = |descr: &str, fortran: &str, shape: &str| {
            format!("{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape}, }}")
        };
        for (dict, data, reason) in [
            (
                header("<f4", "False", "(4294967296, 4294967296)"),
                vec![],
                "too large",
            ),
            (
                header(
                    "<f4",
                    "False",
                    "(18446744073709551615, 18446744073709551615)",
                ),
                vec![0; 4],
                "too large",
            ),
            (
                header("<f4", "False", "(9223372036854775817, 9223372036854775809)"),
                vec![0; 36],
                "too large",
            ),
            (
                header("<f4", "False", "(0, 18446744073709551615)"),
                vec![],
                "too large",
            ),
            (
                header(
                    "<f4",
                    "False",
                    "(1, 340282366920938463463374607431768211456)",
                ),
                vec![],
                "too large",
            ),
            (header("<f4", "False", "(-1,)"), vec![], "dimension"),
            (
                header("<f4", "False", "(1048576, 1048576)"),
                vec![0; 8],
                "only 8 present",
            ),
            (header("<f4", "False", "(3,)"), vec![0; 8], "only 8 present"),
            (header("<f4", "False", "(1,)"), vec![0; 8], "trailing"),
            (header("<f4\n", "False", "(1,)"), vec![0; 4], "'<f4\\n'"),
            (
                header(&"x".repeat(100), "False", "(1,)"),
                vec![0; 4],
                "xxxx...'",
            ),
            (header("<f4", "False", "()"), vec![0; 5], "trailing"),
            (header("<f4", "True", "(2, 2)"), vec![0; 16], "Fortran"),
            (header("<f8", "False", "(1,)"), vec![0; 8], "'<f8'"),
            (header(">f4", "False", "(1,)"), vec![0; 4], "'>f4'"),
            (header("|b1", "False", "(1,)"), vec![0; 1], "'|b1'"),
            // numpy reads '\4' as the byte 4 and '\f' as a form feed; both
            // were read as '<f4' when the parser dropped backslashes.
            (header("<f\\4", "False", "(1,)"), vec![0; 4], "backslash"),
            (header("<\\f4", "False", "(1,)"), vec![0; 4], "backslash"),
            (header("<f4", "False", "(04,)"), vec![0; 16], "leading zero"),
            (
                header("<f4", "False", "(2, 010)"),
                vec![0; 80],
                "leading zero",
            ),
            (header("<f4", "False", "(3)"), vec![0; 12], "not a tuple"),
            (header("<f4", "False", "[3]"), vec![0; 12], "not a tuple"),
            (header("<f4", "0", "(3,)"), vec![0; 12], "fortran_order"),
            (
                "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }".into(),
                vec![0; 4],
                "structured",
            ),
            (
                "{'descr': '<f4', 'shape': (1,), }".into(),
                vec![0; 4],
                "needs the keys",
            ),
            (
                "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}".into(),
                vec![0; 4],
                "twice",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}".into(),
                vec![0; 4],
                "unexpected key",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (1,) } junk".into(),
                vec![0; 4],
                "unexpected text",
            ),
            (
                format!("{}{}", "(".repeat(100), ")".repeat(100)),
                vec![],
                "nested too deeply",
            ),
            (
                header("<f4", "False", &format!("({})", "1, ".repeat(65))),
                vec![],
                "more than 64",
            ),
        ] {
            let err = decode_all(&raw(&dict, &data)).unwrap_err();
            assert!(err.contains(reason), "{dict}: '{reason}' not in '{err}'");
        }
        for (bytes, reason) in [
            (&b""[..], "too short"),
            (b"\x93NUMP", "too short"),
            (b"\x93NUMPX\x01\x00", "magic"),
            (b"\x93NUMPY\x04\x00\x00\x00", "version 4.0"),
            (b"\x93NUMPY\x01\x00\x10", "truncated header"),
            (
                b"\x93NUMPY\x01\x00\x10\x00{}",
                "truncated header: 16 bytes announced, 2",
            ),
            (b"\x93NUMPY\x02\x00\xff\xff\xff\xff{}", "over the"),
        ] {
            let err = decode_all(bytes).unwrap_err();
            assert!(err.contains(reason), "{bytes:?}: '{reason}' not in '{err}'");
        }
    }

    #[test]
    fn files_name_their_path() {
        let dir = scratch("paths");
        let garbage = dir.join("garbage.npy");
        std::fs::write(&garbage, b"not an npy file").unwrap();
        let missing = dir.join("missing.npy");
        for p in [&garbage, &missing] {
            let err = read(p).unwrap_err();
            assert!(matches!(err, Error::BadFile { .. }) && err.is_usage());
            assert!(
                err.to_string().starts_with(&p.display().to_string()),
                "{err}"
            );
        }
        let bad = Array {
            shape: vec![2, 2],
            data: ArrayData::F32(vec![1.0]),
        };
        let err = write(&dir.join("bad.npy"), &bad).unwrap_err();
        assert!(err.to_string().contains("bad.npy"), "{err}");
        assert!(!dir.join("bad.npy").exists());
        let err = write(
            &dir.join("no/such/dir.npy"),
            &Array::new(vec![], ArrayData::U8(vec![1])).unwrap(),
        )
        .unwrap_err();
        assert!(
            !err.is_usage() && err.to_string().contains("dir.npy"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// xorshift64*: a seeded stream of pseudo-random numbers, no crates.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
    }

    /// Random and mutated byte strings: the parser returns Ok or Err, never
    /// panics, and whatever it accepts is consistent.
    #[test]
    fn fuzz_never_panics() {
        let mut rng = Rng(0x5eed_1234_abcd_0001);
        let seeds: Vec<Vec<u8>> = [
            Array::new(vec![2, 3], ArrayData::F32(vec![1.0; 6])),
            Array::new(vec![5], ArrayData::I32(vec![-3; 5])),
            Array::new(vec![], ArrayData::U32(vec![7])),
            Array::new(vec![3, 1], ArrayData::U8(vec![1, 2, 3])),
            Array::new(vec![0], ArrayData::F32(vec![])),
        ]
        .into_iter()
        .map(|a| encoded(&a.unwrap()))
        .collect();
        const TOKENS: &[&[u8]] = &[
            b"(",
            b")",
            b"[",
            b"]",
            b"{",
            b"}",
            b",",
            b":",
            b"'",
            b"\"",
            b"\\",
            b" ",
            b"\n",
            b"True",
            b"False",
            b"None",
            b"-",
            b"0",
            b"-1",
            b"4294967296",
            b"18446744073709551615",
            b"99999999999999999999999999999999999999999",
            b"'<f4'",
            b"'|u1'",
            b"'descr'",
            b"'shape'",
            b"'fortran_order'",
            b"L",
            b"\xff",
            b"\x00",
        ];
        let mut accepted = 0;
        for i in 0..20_000 {
            let bytes: Vec<u8> = if i % 5 == 0 {
                // Pure noise, sometimes behind a valid magic and version.
                let mut b: Vec<u8> = if rng.below(2) == 0 {
                    let mut b = MAGIC.to_vec();
                    b.extend_from_slice(&[1 + rng.below(3) as u8, 0]);
                    b
                } else {
                    Vec::new()
                };
                let n = rng.below(200);
                b.extend((0..n).map(|_| rng.next() as u8));
                b
            } else {
                let mut b = seeds[rng.below(seeds.len())].clone();
                for _ in 0..1 + rng.below(4) {
                    let at = rng.below(b.len() + 1);
                    match rng.below(6) {
                        0 if !b.is_empty() => {
                            let at = at.min(b.len() - 1);
                            b[at] ^= 1 << rng.below(8);
                        }
                        1 => b.truncate(at),
                        2 => {
                            let extra: Vec<u8> =
                                (0..1 + rng.below(8)).map(|_| rng.next() as u8).collect();
                            b.splice(at..at, extra);
                        }
                        3 => {
                            // A token in the header text.
                            let at = 10 + rng.below(60);
                            if at <= b.len() {
                                let token = TOKENS[rng.below(TOKENS.len())];
                                let end = (at + rng.below(6)).min(b.len());
                                b.splice(at..end, token.iter().copied());
                            }
                        }
                        4 if b.len() >= 10 => {
                            // Lie about the header length.
                            let len = rng.below(300) as u16;
                            b[8..10].copy_from_slice(&len.to_le_bytes());
                        }
                        _ => b.extend((0..rng.below(9)).map(|_| rng.next() as u8)),
                    }
                }
                b
            };
            if let Ok(array) = decode_all(&bytes) {
                accepted += 1;
                assert_eq!(element_count(&array.shape), Some(array.data.len()));
            }
        }
        assert!(
            accepted > 100,
            "the mutations keep some files valid: {accepted}"
        );
    }
}
