//! The object-safe device trait every backend implements.
//!
//! A backend only moves bytes, compiles kernels and launches them; it holds no
//! op logic. The op plans in `rosetta-kernels` drive it.
//!
//! Ordering: calls on one backend execute in call order, as if on one in-order
//! queue. `write`, `zero`, `launch` and the timer marks may be deferred (recorded
//! into a command buffer); `read`, `finish` and `end_timer` wait for everything
//! recorded before them.

use crate::caps::DeviceInfo;
use crate::error::Result;
use crate::kernel::KernelSpec;
use crate::Error;

/// A device allocation, owned by the backend that made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BufferId(pub u64);

/// A compiled kernel (pipeline, module, program) in the backend's cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KernelId(pub u64);

/// The shape of one dispatch.
///
/// Workgroups are one-dimensional in rosetta (`group_size` invocations along
/// x; kernels derive 2-D positions from the local index); grids are up to 2-D.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    /// Number of workgroups along x, y, z.
    pub groups: [u32; 3],
    /// Invocations per workgroup; must equal the kernel's `GROUP_SIZE` constant.
    pub group_size: u32,
    /// Workgroup shared memory the kernel uses, in bytes. For kernels whose
    /// [`crate::KernelDef::dynamic_shared`] is set, CUDA passes it as dynamic
    /// `extern __shared__` memory and OpenCL as a trailing `__local` argument;
    /// WGSL and GLSL size their arrays from constants. Every backend checks it
    /// against [`crate::Capabilities::max_shared_bytes`].
    pub shared_bytes: u32,
}

impl Launch {
    pub fn linear(groups: u32, group_size: u32, shared_bytes: u32) -> Self {
        Launch {
            groups: [groups, 1, 1],
            group_size,
            shared_bytes,
        }
    }

    /// Refuse a launch that exceeds the device's limits, before any API call.
    pub fn validate(&self, caps: &crate::Capabilities) -> Result<()> {
        let exceeds = |what, requested: u64, limit: u64| {
            if requested > limit {
                Err(Error::ExceedsLimit {
                    what,
                    requested,
                    limit,
                })
            } else {
                Ok(())
            }
        };
        if self.group_size == 0 || self.groups.contains(&0) {
            return Err(Error::InvalidArgument(format!(
                "empty launch: {} groups of {} invocations",
                self.groups.iter().product::<u32>(),
                self.group_size
            )));
        }
        exceeds(
            "workgroup size",
            self.group_size.into(),
            caps.max_group_size[0].into(),
        )?;
        exceeds(
            "workgroup invocations",
            self.group_size.into(),
            caps.max_group_invocations.into(),
        )?;
        for (axis, (&n, &max)) in self.groups.iter().zip(&caps.max_groups).enumerate() {
            exceeds(
                [
                    "workgroups along x",
                    "workgroups along y",
                    "workgroups along z",
                ][axis],
                n.into(),
                max.into(),
            )?;
        }
        exceeds(
            "workgroup shared memory (bytes)",
            self.shared_bytes.into(),
            caps.max_shared_bytes.into(),
        )
    }
}

/// Check the byte range of a `write` or `read` against a buffer of `size`
/// bytes: offset and length multiples of 4, inside the buffer. Returns the
/// range's end.
pub fn check_byte_range(offset: u64, len: usize, size: u64) -> Result<u64> {
    match offset.checked_add(len as u64) {
        Some(end) if offset.is_multiple_of(4) && len.is_multiple_of(4) && end <= size => Ok(end),
        _ => Err(Error::InvalidArgument(format!(
            "byte range {offset}+{len} is unaligned or outside a buffer of {size} bytes"
        ))),
    }
}

/// Check an allocation against the device's largest buffer (`limit` bytes)
/// and return its size rounded up to 16 bytes, as every backend allocates.
pub fn check_buffer_bytes(bytes: u64, limit: u64) -> Result<u64> {
    match bytes.checked_next_multiple_of(16) {
        Some(rounded) if rounded <= limit => Ok(rounded),
        _ => Err(Error::ExceedsLimit {
            what: "buffer size (bytes)",
            requested: bytes,
            limit,
        }),
    }
}

/// Which clock a measured duration came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Clock {
    /// The API's own device timer (timestamp queries, events, profiling info).
    Device,
    /// Host wall clock around a synchronised region.
    Host,
}

/// A compute device behind one API.
///
/// Buffers hold 32-bit words; sizes and offsets passed to `write` / `read` are
/// multiples of 4. `alloc` rounds sizes up to a multiple of 16 bytes (so
/// kernels may bind any buffer as an array of 4-word vectors) and returns
/// zeroed memory.
pub trait Backend: Send + Sync {
    fn info(&self) -> &DeviceInfo;

    fn alloc(&self, bytes: u64) -> Result<BufferId>;
    fn free(&self, buffer: BufferId);
    fn write(&self, buffer: BufferId, offset: u64, data: &[u8]) -> Result<()>;
    fn read(&self, buffer: BufferId, offset: u64, out: &mut [u8]) -> Result<()>;
    /// Set every byte of the buffer to zero, in queue order.
    fn zero(&self, buffer: BufferId) -> Result<()>;

    /// Build (or fetch from the cache) the kernel for these constants.
    fn compile(&self, spec: &KernelSpec) -> Result<KernelId>;
    /// Enqueue one dispatch. `buffers` bind in the order of the kernel's
    /// [`crate::KernelDef::bindings`]; `params` are the kernel's 32-bit
    /// parameter words in the order of [`crate::KernelDef::params`].
    fn launch(
        &self,
        kernel: KernelId,
        launch: &Launch,
        buffers: &[BufferId],
        params: &[u32],
    ) -> Result<()>;
    /// Wait until everything enqueued has completed.
    fn finish(&self) -> Result<()>;

    /// Mark the start of a timed region in queue order.
    fn begin_timer(&self) -> Result<()>;
    /// Mark its end, wait for it, and return the elapsed time and the clock it
    /// was measured with ([`Clock::Device`] when the API has timers).
    fn end_timer(&self) -> Result<(std::time::Duration, Clock)>;

    /// Messages of warning or error severity that the API's validation layer
    /// reported since the last call (drained). Backends without a validation
    /// layer return nothing.
    fn take_diagnostics(&self) -> Vec<String> {
        Vec::new()
    }
}
