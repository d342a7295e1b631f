//! Buffers, and moving bytes between host and device in chunks.
//!
//! Every transfer (write, read, copy, zero) is split into pieces of at most
//! [`CHUNK`] bytes, so no single API call moves more than 256 MiB, whatever
//! a driver's staging limits. (The reported failure of an 8 GiB
//! `clEnqueueWriteBuffer` on NVIDIA with `CL_OUT_OF_RESOURCES` was most
//! likely the zeroing fill before it breaking the queue, see [`zero`]: on
//! driver 580.159, with that fixed, unchunked 12 GiB writes and reads
//! worked too.)
//! Exhausted resources during an allocation or transfer are
//! [`rosetta_core::Error::OutOfMemory`].
//!
//! Queue order: writes and reads are blocking, in queue order; zeroing and
//! copies are enqueued. A read first waits for the queue, so a command that
//! failed earlier is reported as that command's failure (`clFinish`), and a
//! failure of the read itself as the read's.

use crate::status::Failure;
use crate::sys::{self, Context, Mem, Queue};
use rosetta_core::{Error, Result};

/// The most bytes one API transfer call moves.
pub(crate) const CHUNK: usize = 256 << 20;
const _: () = assert!(
    CHUNK.is_multiple_of(sys::MAX_PATTERN),
    "fills stay whole patterns"
);

/// One allocation: the memory object and its size in bytes.
pub(crate) struct ClBuffer {
    pub(crate) mem: Mem,
    pub(crate) bytes: u64,
}

/// `(start, len)` pieces of at most `chunk` bytes (`chunk > 0`) covering
/// `0..len`.
pub(crate) fn chunks(len: usize, chunk: usize) -> impl Iterator<Item = (usize, usize)> {
    let chunk = chunk.max(1);
    (0..len)
        .step_by(chunk)
        .map(move |start| (start, chunk.min(len - start)))
}

/// A byte count or offset inside an allocation as `size_t`.
fn size_t(value: u64) -> Result<usize> {
    usize::try_from(value).map_err(|_| {
        Error::Internal(format!(
            "a byte offset of {value} inside an OpenCL buffer does not fit in size_t"
        ))
    })
}

/// `bytes` of zeroed device memory, ready when this returns. `fill`: the
/// device has `clEnqueueFillBuffer` (OpenCL 1.2).
///
/// The queue is drained first and again after zeroing: drivers that back
/// allocations lazily (NVIDIA) report a failed backing at the first command
/// using the buffer, and only this way it is reported here, as out of
/// memory, while a failure of earlier work stays that work's.
pub(crate) fn alloc(context: &Context, queue: &Queue, bytes: u64, fill: bool) -> Result<ClBuffer> {
    let size = usize::try_from(bytes).map_err(|_| Error::ExceedsLimit {
        what: "buffer size (bytes)",
        requested: bytes,
        limit: usize::MAX as u64,
    })?;
    let oom = || format!("allocating {bytes} bytes");
    sys::finish(queue).map_err(Failure::error)?;
    let mem = sys::create_buffer(context, size).map_err(|f| f.memory_error(oom))?;
    let buffer = ClBuffer { mem, bytes };
    zero(queue, &buffer, fill)?;
    sys::finish(queue).map_err(|f| f.memory_error(oom))?;
    Ok(buffer)
}

/// Where fills switch from 16-byte to 128-byte zero patterns (see
/// [`fill_pattern`]).
const WIDE_PATTERN_FROM: usize = 16 << 30;

/// The zero pattern for a fill ending at byte `end`: 16 bytes up to
/// [`WIDE_PATTERN_FROM`], 128 beyond.
///
/// Why not one size: NVIDIA's driver (580.159, H100 and H200) breaks its
/// queue (`CL_INVALID_COMMAND_QUEUE` at the next wait) when a fill reaches
/// past 2³¹ patterns — a 4-byte-pattern fill past 8 GiB failed, 16-byte
/// patterns worked to 19 GiB, 128-byte ones to 33 GiB — but fills 128-byte
/// patterns at a twelfth of the speed of 16-byte ones: zeroing 256 MiB took
/// 1049 µs against 86 (4-byte: 169 µs; a zeroing kernel 69 µs), the whole
/// difference between the OpenCL and CUDA device-buffer chains of the
/// benchmark (`docs/results/h200-2026-11-26c/opencl-zero/`).
fn fill_pattern(end: usize) -> usize {
    if end <= WIDE_PATTERN_FROM {
        16
    } else {
        sys::MAX_PATTERN
    }
}

/// Zero the whole buffer, in queue order.
///
/// With `clEnqueueFillBuffer`, in [`CHUNK`]s, each with the pattern
/// [`fill_pattern`] picks for where it ends. The tail that is not a
/// multiple of 128 bytes (buffers are multiples of 16) is written from a
/// static block of zeros, without waiting.
pub(crate) fn zero(queue: &Queue, buffer: &ClBuffer, fill: bool) -> Result<()> {
    static ZEROS: [u8; sys::MAX_PATTERN] = [0; sys::MAX_PATTERN];
    let bytes = size_t(buffer.bytes)?;
    let oom = || format!("zeroing {bytes} bytes");
    if fill {
        let bulk = bytes / sys::MAX_PATTERN * sys::MAX_PATTERN;
        for (start, len) in chunks(bulk, CHUNK) {
            sys::fill_zero(queue, &buffer.mem, start, len, fill_pattern(start + len))
                .map_err(|f| f.memory_error(oom))?;
        }
        if bulk < bytes {
            sys::write_static(queue, &buffer.mem, bulk, &ZEROS[..bytes - bulk])
                .map_err(|f| f.memory_error(oom))?;
        }
    } else {
        let zeros = vec![0u8; bytes.min(CHUNK)];
        for (start, len) in chunks(bytes, CHUNK) {
            sys::write_blocking(queue, &buffer.mem, start, &zeros[..len])
                .map_err(|f| f.memory_error(oom))?;
        }
    }
    Ok(())
}

/// Copy `data` into the buffer at `offset`; returns once `data` is no
/// longer needed.
pub(crate) fn write(queue: &Queue, buffer: &ClBuffer, offset: u64, data: &[u8]) -> Result<()> {
    let offset = size_t(offset)?;
    for (start, len) in chunks(data.len(), CHUNK) {
        sys::write_blocking(
            queue,
            &buffer.mem,
            offset + start,
            &data[start..start + len],
        )
        .map_err(|f| f.memory_error(|| format!("writing {} bytes", data.len())))?;
    }
    Ok(())
}

/// Copy bytes from `offset` into `out`, after everything enqueued before.
pub(crate) fn read(queue: &Queue, buffer: &ClBuffer, offset: u64, out: &mut [u8]) -> Result<()> {
    let offset = size_t(offset)?;
    sys::finish(queue).map_err(Failure::error)?;
    let total = out.len();
    for (start, len) in chunks(total, CHUNK) {
        sys::read_blocking(
            queue,
            &buffer.mem,
            offset + start,
            &mut out[start..start + len],
        )
        .map_err(|f| f.memory_error(|| format!("reading {total} bytes")))?;
    }
    Ok(())
}

/// Enqueue a copy of `bytes` between two buffers.
pub(crate) fn copy(
    queue: &Queue,
    src: &ClBuffer,
    src_offset: u64,
    dst: &ClBuffer,
    dst_offset: u64,
    bytes: u64,
) -> Result<()> {
    let (src_offset, dst_offset, bytes) =
        (size_t(src_offset)?, size_t(dst_offset)?, size_t(bytes)?);
    for (start, len) in chunks(bytes, CHUNK) {
        sys::copy(
            queue,
            &src.mem,
            src_offset + start,
            &dst.mem,
            dst_offset + start,
            len,
            false,
        )
        .map_err(|f| f.memory_error(|| format!("copying {bytes} bytes")))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::chunks;

    #[test]
    fn fill_patterns_stay_below_the_drivers_pattern_count() {
        use super::{fill_pattern, CHUNK, WIDE_PATTERN_FROM};
        // Every chunk's end, in patterns of its size, stays far below 2^31
        // (NVIDIA breaks its queue past it), and chunk boundaries are
        // multiples of every pattern used.
        for end in (CHUNK..=64usize << 30).step_by(CHUNK) {
            let pattern = fill_pattern(end);
            assert!((end / pattern) as u64 <= 1 << 30, "{end}: {pattern}");
            assert!(end.is_multiple_of(pattern) && CHUNK.is_multiple_of(pattern));
        }
        assert_eq!(fill_pattern(256 << 20), 16);
        assert_eq!(
            fill_pattern(WIDE_PATTERN_FROM + CHUNK),
            crate::sys::MAX_PATTERN
        );
    }

    #[test]
    fn chunks_cover_the_range_exactly() {
        assert_eq!(chunks(0, 4).count(), 0);
        assert_eq!(chunks(4, 4).collect::<Vec<_>>(), vec![(0, 4)]);
        assert_eq!(
            chunks(10, 4).collect::<Vec<_>>(),
            vec![(0, 4), (4, 4), (8, 2)]
        );
        let big = (8usize << 30) + 12;
        let pieces: Vec<_> = chunks(big, super::CHUNK).collect();
        assert_eq!(pieces.len(), 33);
        assert_eq!(pieces.iter().map(|p| p.1).sum::<usize>(), big);
        assert!(pieces.windows(2).all(|w| w[0].0 + w[0].1 == w[1].0));
    }
}
