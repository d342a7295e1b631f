//! The wgpu handles of one opened device and the calls every other module
//! makes on them: error-checked device work, waiting for the queue, reading
//! a mapped buffer — and the crate's only `unsafe` wgpu calls (trusted
//! shader modules and pipeline-cache data), so that everything whose
//! soundness rests on an argument sits in this one file.

use crate::errors::{scoped, Health};
use rosetta_core::disk_cache::DiskCache;
use rosetta_core::{Api, Error, Fingerprint, Result};
use std::sync::{mpsc, Arc};

/// One opened wgpu device.
pub(crate) struct Gpu {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    /// Device loss and uncaptured errors.
    pub(crate) health: Arc<Health>,
    /// The device has the `SUBGROUP` feature.
    pub(crate) subgroups: bool,
}

impl Gpu {
    /// Wrap an opened device, watching it for loss and uncaptured errors.
    pub(crate) fn new(device: wgpu::Device, queue: wgpu::Queue, name: &str) -> Self {
        Gpu {
            health: Health::watch(&device, name),
            subgroups: device.features().contains(wgpu::Features::SUBGROUP),
            device,
            queue,
        }
    }

    /// Run `f` (the wgpu call `call`) inside error scopes; what they catch
    /// is the typed error.
    pub(crate) fn checked<T>(&self, call: &str, f: impl FnOnce() -> T) -> Result<T> {
        let (value, error) = scoped(&self.device, f);
        match error {
            None => Ok(value),
            Some(error) => Err(self.health.to_error(call, error)),
        }
    }

    /// Block until all submitted work is done.
    pub(crate) fn wait_idle(&self) -> Result<()> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| {
                self.health
                    .check()
                    .err()
                    .unwrap_or_else(|| Error::device(Api::Wgpu, "wgpu::Device::poll", e))
            })?;
        self.health.check()
    }

    /// Map the first `out.len()` bytes of a `MAP_READ` buffer whose copy
    /// has been submitted, copy them out and unmap.
    pub(crate) fn map_read(&self, staging: &wgpu::Buffer, out: &mut [u8]) -> Result<()> {
        if out.is_empty() {
            return Ok(());
        }
        let slice = staging.slice(0..out.len() as u64);
        let (sender, receiver) = mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |result| {
            // The receiver waits below; if it is gone nobody needs to know.
            let _ = sender.send(result);
        });
        self.wait_idle()?;
        let lost_or = |e: Error| self.health.check().err().unwrap_or(e);
        let mapped = receiver.try_recv().map_err(|_| {
            lost_or(Error::Internal(
                "wgpu: a buffer mapping did not complete after the device went idle".into(),
            ))
        })?;
        mapped.map_err(|e| lost_or(Error::device(Api::Wgpu, "wgpu::Buffer::map_async", e)))?;
        let copied = slice
            .get_mapped_range()
            .map(|view| out.copy_from_slice(&view))
            .map_err(|e| Error::device(Api::Wgpu, "wgpu::BufferSlice::get_mapped_range", e));
        staging.unmap();
        copied
    }

    /// Create a shader module from WGSL with wgpu's runtime checks on except
    /// forced loop bounding, inside error scopes; returns the module and the
    /// error they caught (a compile error: the module is then invalid).
    ///
    /// Forced loop bounding adds a 64-bit counter and an extra exit to every
    /// loop; that keeps drivers from unrolling the kernels' constant loops
    /// and can cost an order of magnitude (gfx-rs/wgpu#7698). It guards only
    /// against backend compilers exploiting loops that never end. Bounds
    /// checks and division checks stay on.
    ///
    /// With `bounds_checked` false, naga's bounds checks go too (for kernels
    /// whose definition says they are in bounds by construction).
    ///
    /// # Safety
    /// Every pipeline built from the module is dispatched only for launches
    /// that terminate and, without bounds checks, stay inside their buffers
    /// and workgroup memory: the caller guarantees that each dispatch of it
    /// is made by [`rosetta_core::Driver::launch`] on behalf of a caller of
    /// the `unsafe` `Backend::launch`, whose contract requires exactly that
    /// for the launch's params and geometry.
    pub(crate) unsafe fn trusted_module(
        &self,
        label: &str,
        wgsl: &str,
        bounds_checked: bool,
    ) -> (wgpu::ShaderModule, Option<wgpu::Error>) {
        let checks = if bounds_checked {
            wgpu::ShaderRuntimeChecks {
                force_loop_bounding: false,
                ..wgpu::ShaderRuntimeChecks::checked()
            }
        } else {
            wgpu::ShaderRuntimeChecks::unchecked()
        };
        scoped(&self.device, || {
            // SAFETY: `force_loop_bounding: false` is the only check turned
            // off; wgpu then requires that the shader has no infinite loop,
            // because backend compilers may assume loops end and draw
            // conclusions from that. Kernels now also come from users, so
            // rosetta cannot vouch for their loops itself: instead, by this
            // function's contract, the module only ever runs through
            // launches whose caller (of the `unsafe` `Backend::launch`)
            // guarantees termination. An assumption of termination is only
            // wrong for an execution that does not terminate, which that
            // contract rules out; compiling alone runs nothing. (wgpu's
            // docs word the rule per shader — no infinite loop at all;
            // this relies on the per-execution reading, that a loop which
            // would spin only for params never launched is harmless.)
            // Without bounds checks, memory safety rests on the same
            // contract (accesses stay inside the bound buffers), which
            // rosetta's own plans establish by checking every binding.
            unsafe {
                self.device.create_shader_module_trusted(
                    wgpu::ShaderModuleDescriptor {
                        label: Some(label),
                        source: wgpu::ShaderSource::Wgsl(wgsl.into()),
                    },
                    checks,
                )
            }
        })
    }

    /// A pipeline cache seeded from what [`save_pipeline_cache`] stored
    /// under `key` in `disk`, or empty when nothing (usable) is stored, with
    /// the bytes of stored data handed to wgpu (0: none). `None` if even an
    /// empty cache cannot be created. Only for devices opened with
    /// `Features::PIPELINE_CACHE`.
    pub(crate) fn load_pipeline_cache(
        &self,
        disk: &DiskCache,
        key: &Fingerprint,
    ) -> Option<(wgpu::PipelineCache, usize)> {
        let data = disk.get(&entry_key(key));
        match &data {
            Some(bytes) => tracing::debug!(bytes = bytes.len(), "wgpu: pipeline cache hit"),
            None => tracing::debug!("wgpu: pipeline cache miss"),
        }
        let create = |data: Option<&[u8]>| {
            self.checked("wgpu::Device::create_pipeline_cache", || {
                // SAFETY: wgpu requires `data` to be the output of an earlier
                // `PipelineCache::get_data`. It is `None`, or a payload
                // `DiskCache::get` returned for `entry_key(key)`: that call
                // checked the file's header, its key and a checksum of the
                // payload, so the bytes are exactly what was stored under
                // that key, and entries under `entry_key` keys are written
                // only by `save_pipeline_cache` (this file), with `get_data`'s
                // output. On top, wgpu checks its own header (format, ABI,
                // backend, the adapter's vendor and device, the driver's
                // cache UUID, the length) and the Vulkan driver checks its
                // own; data from another device or driver is dropped
                // (`fallback: true`) and the cache starts empty.
                unsafe {
                    self.device
                        .create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
                            label: Some("rosetta pipeline cache"),
                            data,
                            fallback: true,
                        })
                }
            })
        };
        match create(data.as_deref()) {
            Ok(cache) => Some((cache, data.map_or(0, |d| d.len()))),
            Err(e) if data.is_some() => {
                tracing::debug!(
                    "wgpu: stored pipeline cache rejected ({}); starting empty",
                    e.chain()
                );
                create(None).ok().map(|cache| (cache, 0))
            }
            Err(e) => {
                tracing::debug!("wgpu: no pipeline cache: {}", e.chain());
                None
            }
        }
    }
}

/// Store the cache's data under `key` in `disk`, for
/// [`Gpu::load_pipeline_cache`]; returns the bytes written, 0 when the
/// backend has no data.
pub(crate) fn save_pipeline_cache(
    cache: &wgpu::PipelineCache,
    disk: &DiskCache,
    key: &Fingerprint,
) -> usize {
    match cache.get_data() {
        Some(data) => {
            disk.put(&entry_key(key), &data);
            data.len()
        }
        None => 0,
    }
}

/// The key under which pipeline-cache data is stored: `key` in a namespace
/// no other writer of the disk cache uses, so an entry under it is always
/// `get_data`'s output (see the SAFETY note of `load_pipeline_cache`).
pub(crate) fn entry_key(key: &Fingerprint) -> Fingerprint {
    Fingerprint::default()
        .str("rosetta-backend-wgpu: wgpu::PipelineCache::get_data")
        .str(&key.hex())
}
