//! The checked layer: the one implementation of [`Backend`], over any
//! [`Driver`].
//!
//! Everything here is the same for every API, so it is written once:
//! - **Identity.** Every handle carries its device's tag; a foreign handle is
//!   [`Error::ForeignHandle`] before any driver call.
//! - **Checks.** Sizes against `max_buffer_bytes`, byte ranges against the
//!   allocation, launches against the device's limits and the kernel's
//!   interface, a kernel's language against the sources it has.
//! - **The kernel cache** (`cache.rs`), keyed by the kernel's identity.
//! - **The buffer pool** (`pool.rs`).
//! - **Timing tokens**: any number of marks outstanding; device clocks where
//!   the driver has them, the host clock after a drained queue where not.
//! - **Locking.** One mutex around the driver serialises its calls. Other
//!   locks are taken in the order cache → pool → driver, never the reverse,
//!   and none is held while a handle is dropped. A driver that panicked
//!   poisons the device: later calls return [`Error::Internal`].

mod cache;
mod pool;

use crate::caps::DeviceInfo;
use crate::device::{sealed, Backend, Buffer, Clock, DeviceTag, Kernel, PoolStats, Raw, Timestamp};
use crate::driver::Driver;
use crate::error::{check_limit, Error, Result};
use crate::kernel::{Access, KernelSpec};
use crate::launch::{check_byte_range, Launch};
use cache::KernelCache;
use pool::{size_class, Pool};
use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

/// Wrap an opened driver in the checked layer.
pub fn open<D: Driver>(info: DeviceInfo, driver: D) -> Arc<dyn Backend> {
    let pool_limit = pool_limit(&info);
    Arc::new_cyclic(|me: &Weak<Checked<D>>| Checked {
        me: me.clone(),
        tag: DeviceTag::fresh(),
        cache: Mutex::new(KernelCache::new(info.api.language())),
        pool: Mutex::new(Pool::new(pool_limit)),
        next_serial: AtomicU64::new(1),
        info,
        driver: Mutex::new(driver),
    })
}

/// Bytes the pool may hold: an eighth of device memory, at most 1 GiB
/// (`ROSETTA_POOL_BYTES` overrides; 0 turns pooling off; empty is the
/// default, as for the other variables).
pub(crate) fn pool_limit(info: &DeviceInfo) -> u64 {
    if let Some(value) = std::env::var("ROSETTA_POOL_BYTES")
        .ok()
        .filter(|v| !v.trim().is_empty())
    {
        match value.trim().parse::<u64>() {
            Ok(bytes) => return bytes,
            // Said once per process: a typo must not pass unseen.
            Err(_) => {
                static WARNED: std::sync::Once = std::sync::Once::new();
                WARNED.call_once(|| {
                    tracing::warn!(
                        "ROSETTA_POOL_BYTES={value:?} is not a number of bytes: ignored, the \
                         default pool limit applies"
                    )
                });
            }
        }
    }
    let memory = if info.caps.memory_bytes > 0 {
        info.caps.memory_bytes
    } else {
        2 << 30
    };
    (memory / 8).min(1 << 30)
}

/// The checked layer over driver `D` (see the module docs).
struct Checked<D: Driver> {
    me: Weak<Checked<D>>,
    tag: DeviceTag,
    info: DeviceInfo,
    // Field order is drop order: kernels and pooled buffers are released
    // (in `Drop`) while the driver still exists.
    cache: Mutex<KernelCache<D::Kernel>>,
    pool: Mutex<Pool<D::Buffer>>,
    next_serial: AtomicU64,
    driver: Mutex<D>,
}

impl<D: Driver> sealed::Sealed for Checked<D> {}

impl<D: Driver> Checked<D> {
    fn driver(&self) -> Result<MutexGuard<'_, D>> {
        self.driver.lock().map_err(|_| {
            Error::Internal(format!(
                "{}: a previous call on this device panicked; the device is unusable",
                self.info.id()
            ))
        })
    }

    fn this(&self) -> Result<Arc<dyn Backend>> {
        self.me
            .upgrade()
            .map(|me| me as Arc<dyn Backend>)
            .ok_or_else(|| Error::Internal("the device is being dropped".into()))
    }

    /// A handle of the device opened as `owner_tag` (`owner`: its id, where
    /// known) used on this one.
    fn foreign(&self, what: &'static str, owner: Option<String>, owner_tag: DeviceTag) -> Error {
        Error::foreign_handle(
            what,
            (owner.as_deref(), &owner_tag),
            (&self.info.id(), &self.tag),
        )
    }

    /// The driver's buffer behind a handle of this device.
    fn raw_buffer<'a>(&self, buffer: &'a Buffer) -> Result<&'a D::Buffer> {
        if buffer.tag() != self.tag {
            let owner = buffer.backend().info().id();
            return Err(self.foreign("buffer", Some(owner), buffer.tag()));
        }
        buffer
            .raw()
            .and_then(|raw| raw.downcast_ref::<D::Buffer>())
            .ok_or_else(|| Error::Internal("a buffer's driver object has the wrong type".into()))
    }

    fn raw_kernel<'a>(&self, kernel: &'a Kernel) -> Result<&'a D::Kernel> {
        if kernel.tag() != self.tag {
            let owner = kernel.backend().info().id();
            return Err(self.foreign("kernel", Some(owner), kernel.tag()));
        }
        kernel
            .raw()
            .downcast_ref::<D::Kernel>()
            .ok_or_else(|| Error::Internal("a kernel's driver object has the wrong type".into()))
    }

    fn mark<'a>(&self, stamp: &'a Timestamp) -> Result<Option<&'a D::Mark>> {
        if stamp.tag != self.tag {
            return Err(self.foreign("timestamp", None, stamp.tag));
        }
        match &stamp.mark {
            None => Ok(None),
            Some(raw) => raw.downcast_ref::<D::Mark>().map(Some).ok_or_else(|| {
                Error::Internal("a timestamp's driver object has the wrong type".into())
            }),
        }
    }

    fn range(&self, buffer: &Buffer, offset: u64, len: u64) -> Result<()> {
        check_byte_range(offset, len, buffer.capacity()).map(|_| ())
    }

    /// A fresh allocation from the driver; on out-of-memory, the pool is
    /// emptied and the allocation tried once more.
    fn alloc_from_driver(&self, capacity: u64) -> Result<D::Buffer> {
        let first = self.driver()?.alloc(capacity);
        match first {
            Err(Error::OutOfMemory { .. }) if self.pool_held() > 0 => {
                self.trim_pool();
                self.driver()?.alloc(capacity)
            }
            other => other,
        }
    }

    fn pool_held(&self) -> u64 {
        self.pool.lock().map(|p| p.held()).unwrap_or(0)
    }
}

impl<D: Driver> Backend for Checked<D> {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn tag(&self) -> DeviceTag {
        self.tag
    }

    fn alloc(&self, bytes: u64) -> Result<Buffer> {
        let limit = self.info.caps.max_buffer_bytes;
        let exact = bytes
            .max(16)
            .checked_next_multiple_of(16)
            .ok_or(Error::ExceedsLimit {
                what: "buffer size (bytes)",
                requested: bytes,
                limit,
            })?;
        check_limit("buffer size (bytes)", exact, limit)?;
        let class = size_class(exact);
        let capacity = if class <= limit { class } else { exact };
        let pooled = self
            .pool
            .lock()
            .map_err(|_| Error::Internal("the buffer pool's lock is poisoned".into()))?
            .take(capacity);
        let raw = match pooled {
            Some(raw) => {
                if let Err(e) = self.driver()?.zero(&raw) {
                    self.driver()?.free(raw);
                    return Err(e);
                }
                raw
            }
            None => {
                let raw = self.alloc_from_driver(capacity)?;
                if let Ok(mut pool) = self.pool.lock() {
                    pool.allocated += 1;
                }
                raw
            }
        };
        let serial = self.next_serial.fetch_add(1, Ordering::Relaxed);
        Ok(Buffer::from_raw(
            self.this()?,
            serial,
            bytes,
            capacity,
            Box::new(raw),
        ))
    }

    fn write(&self, buffer: &Buffer, offset: u64, data: &[u8]) -> Result<()> {
        let raw = self.raw_buffer(buffer)?;
        self.range(buffer, offset, data.len() as u64)?;
        if data.is_empty() {
            return Ok(());
        }
        self.driver()?.write(raw, offset, data)
    }

    fn read(&self, buffer: &Buffer, offset: u64, out: &mut [u8]) -> Result<()> {
        let raw = self.raw_buffer(buffer)?;
        self.range(buffer, offset, out.len() as u64)?;
        if out.is_empty() {
            return self.finish();
        }
        self.driver()?.read(raw, offset, out)
    }

    fn zero(&self, buffer: &Buffer) -> Result<()> {
        let raw = self.raw_buffer(buffer)?;
        self.driver()?.zero(raw)
    }

    fn copy(
        &self,
        src: &Buffer,
        src_offset: u64,
        dst: &Buffer,
        dst_offset: u64,
        bytes: u64,
    ) -> Result<()> {
        let (raw_src, raw_dst) = (self.raw_buffer(src)?, self.raw_buffer(dst)?);
        if src.serial() == dst.serial() {
            return Err(Error::InvalidArgument(
                "copy needs two different buffers".into(),
            ));
        }
        self.range(src, src_offset, bytes)?;
        self.range(dst, dst_offset, bytes)?;
        if bytes == 0 {
            return Ok(());
        }
        self.driver()?
            .copy(raw_src, src_offset, raw_dst, dst_offset, bytes)
    }

    fn compile(&self, spec: &KernelSpec) -> Result<Kernel> {
        let source = spec.def().require(self.info.api)?;
        let mut cache = self
            .cache
            .lock()
            .map_err(|_| Error::Internal("the kernel cache's lock is poisoned".into()))?;
        let compiled = match cache.get(spec) {
            Some(compiled) => compiled,
            None => {
                tracing::debug!(device = %self.info.id(), kernel = %spec.label(), "compiling");
                let started = Instant::now();
                let compiled = Arc::new(self.driver()?.compile(spec, source)?);
                tracing::debug!(
                    device = %self.info.id(),
                    kernel = %spec.label(),
                    ms = started.elapsed().as_secs_f64() * 1e3,
                    cached = cache.len() + 1,
                    "compiled"
                );
                cache.insert(spec, Arc::clone(&compiled));
                compiled
            }
        };
        drop(cache);
        Ok(Kernel::from_raw(
            self.this()?,
            spec.clone(),
            compiled as Arc<dyn Any + Send + Sync>,
        ))
    }

    unsafe fn launch(
        &self,
        kernel: &Kernel,
        launch: &Launch,
        buffers: &[&Buffer],
        params: &[u32],
    ) -> Result<()> {
        let compiled = self.raw_kernel(kernel)?;
        let spec = kernel.spec();
        let def = spec.def();
        let wrong = |what: String| {
            Err(Error::InvalidArgument(format!(
                "kernel '{}' {what}",
                def.name()
            )))
        };
        if buffers.len() != def.bindings().len() {
            return wrong(format!(
                "takes {} buffers, got {}",
                def.bindings().len(),
                buffers.len()
            ));
        }
        if params.len() != def.params().len() {
            return wrong(format!(
                "takes {} params, got {}",
                def.params().len(),
                params.len()
            ));
        }
        let raws = buffers
            .iter()
            .map(|b| self.raw_buffer(b))
            .collect::<Result<Vec<_>>>()?;
        // One buffer may fill several bindings only where all of them are
        // read-only (squaring a matrix): a written binding that aliases
        // another would race with it.
        let accesses = def.bindings();
        for i in 1..buffers.len() {
            if let Some(j) = (0..i).find(|&j| buffers[j].serial() == buffers[i].serial()) {
                if accesses[i] != Access::Read || accesses[j] != Access::Read {
                    return wrong(format!(
                        "has one buffer bound to bindings {j} and {i}; a buffer may fill \
                         several bindings only where all of them are read-only"
                    ));
                }
            }
        }
        launch.validate(&self.info.caps)?;
        if launch.group_size != spec.group_size() {
            return wrong(format!(
                "was built for workgroups of {} invocations, launched with {}",
                spec.group_size(),
                launch.group_size
            ));
        }
        let mut driver = self.driver()?;
        // SAFETY: the checks above establish the driver's preconditions
        // (handles of this device, counts, no aliasing, limits, group
        // size); the rest is this function's own contract, passed on from
        // our caller.
        unsafe { driver.launch(compiled, launch, &raws, params) }
    }

    fn flush(&self) -> Result<()> {
        self.driver()?.flush()
    }

    fn finish(&self) -> Result<()> {
        self.driver()?.finish()
    }

    fn timestamp(&self) -> Result<Timestamp> {
        let mut driver = self.driver()?;
        let mark = driver.timestamp()?;
        if mark.is_none() {
            driver.finish()?;
        }
        Ok(Timestamp {
            tag: self.tag,
            mark: mark.map(|m| Box::new(m) as Raw),
            host: Instant::now(),
            // Taken under the driver's lock: serials follow queue order.
            serial: self.next_serial.fetch_add(1, Ordering::Relaxed),
        })
    }

    fn elapsed(&self, begin: &Timestamp, end: &Timestamp) -> Result<(Duration, Clock)> {
        let (b, e) = (self.mark(begin)?, self.mark(end)?);
        // Drivers subtract `begin` from `end` (Vulkan's ticks wrapped to
        // 584 years where they came the other way round).
        if begin.serial > end.serial {
            return Err(Error::InvalidArgument(
                "elapsed: `begin` was recorded after `end` (pass the earlier mark first)".into(),
            ));
        }
        match (b, e) {
            (Some(b), Some(e)) => Ok((self.driver()?.elapsed(b, e)?, Clock::Device)),
            (None, None) => Ok((end.host.saturating_duration_since(begin.host), Clock::Host)),
            _ => Err(Error::InvalidArgument(
                "timestamps from different clocks".into(),
            )),
        }
    }

    fn take_diagnostics(&self) -> Vec<String> {
        self.driver()
            .map(|mut d| d.diagnostics())
            .unwrap_or_default()
    }

    fn pool_stats(&self) -> PoolStats {
        self.pool
            .lock()
            .map(|p| PoolStats {
                reused: p.reused,
                allocated: p.allocated,
                pooled_bytes: p.held(),
            })
            .unwrap_or_default()
    }

    fn trim_pool(&self) {
        let freed = match self.pool.lock() {
            Ok(mut pool) => pool.drain(),
            Err(_) => return,
        };
        if let Ok(mut driver) = self.driver.lock() {
            for raw in freed {
                driver.free(raw);
            }
        }
    }

    fn release_buffer(&self, raw: Raw, capacity: u64) {
        let Ok(raw) = raw.downcast::<D::Buffer>() else {
            tracing::error!("a buffer of another driver type was released; leaked");
            return;
        };
        let rejected = match self.pool.lock() {
            Ok(mut pool) => pool.put(capacity, *raw).err(),
            Err(_) => Some(*raw),
        };
        if let Some(raw) = rejected {
            if let Ok(mut driver) = self.driver.lock() {
                driver.free(raw);
            }
        }
    }
}

impl<D: Driver> Drop for Checked<D> {
    fn drop(&mut self) {
        let driver = self
            .driver
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Err(e) = driver.finish() {
            tracing::warn!(device = %self.info.id(), "draining the queue on close: {}", e.chain());
        }
        let pool = self.pool.get_mut().unwrap_or_else(|p| p.into_inner());
        for raw in pool.drain() {
            driver.free(raw);
        }
        let cache = self.cache.get_mut().unwrap_or_else(|p| p.into_inner());
        for entry in cache.drain() {
            match Arc::try_unwrap(entry.compiled) {
                Ok(kernel) => driver.release_kernel(kernel),
                // Unreachable: every `Kernel` handle keeps the device alive.
                Err(_) => tracing::error!("a kernel outlived its device; leaked"),
            }
        }
    }
}
