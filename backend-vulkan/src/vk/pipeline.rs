//! Shader modules, layouts, compute pipelines and the pipeline cache, each an
//! owned handle destroyed in `Drop`.
//!
//! Pipelines are kept alive by the command batches that bind them (an `Arc`
//! each), and hold their layout the same way, so nothing is destroyed while
//! recorded or submitted work refers to it.

use crate::vk::device::Device;
use crate::vk::error::vk_error;
use crate::vk::live::{self, Kind};
use ash::vk;
use rosetta_core::{Error, Result};
use std::sync::Arc;

/// A `VkShaderModule`.
pub(crate) struct ShaderModule {
    raw: vk::ShaderModule,
    device: Arc<Device>,
}

impl ShaderModule {
    /// A module of `spirv`.
    ///
    /// # Safety
    /// `spirv` is a valid SPIR-V module for this device (the valid-usage
    /// rules of `VkShaderModuleCreateInfo`): well formed, of a SPIR-V version
    /// the device accepts (1.3 or lower for Vulkan 1.1), declaring only
    /// capabilities and extensions the device was created with (see
    /// `vk::device::Enabled`).
    pub(crate) unsafe fn new(device: &Arc<Device>, spirv: &[u32]) -> Result<Self> {
        let info = vk::ShaderModuleCreateInfo::default().code(spirv);
        // SAFETY: the code is valid SPIR-V for this device by this function's
        // contract; `info` lives across the call.
        let raw = unsafe { device.raw().create_shader_module(&info, None) }
            .map_err(|e| vk_error("vkCreateShaderModule", e))?;
        live::created(Kind::ShaderModule);
        Ok(ShaderModule {
            raw,
            device: Arc::clone(device),
        })
    }
}

impl Drop for ShaderModule {
    fn drop(&mut self) {
        // SAFETY: a module is only read while pipelines are created (which
        // borrow it); pipelines made from it stay valid without it.
        unsafe { self.device.raw().destroy_shader_module(self.raw, None) };
        live::destroyed(Kind::ShaderModule);
    }
}

/// A descriptor set layout of `bindings` storage buffers (set 0, bindings
/// `0..bindings`, compute stage) and a pipeline layout of that set plus one
/// push-constant range of `push_bytes` at offset 0.
pub(crate) struct Layout {
    set: vk::DescriptorSetLayout,
    pipeline: vk::PipelineLayout,
    bindings: u32,
    push_bytes: u32,
    device: Arc<Device>,
}

impl Layout {
    /// Both layouts. `bindings` must be within maxPerStageDescriptorStorageBuffers
    /// and `push_bytes` a multiple of 4 within maxPushConstantsSize
    /// ([`Error::ExceedsLimit`] otherwise).
    pub(crate) fn new(device: &Arc<Device>, bindings: u32, push_bytes: u32) -> Result<Arc<Self>> {
        let limits = device.limits();
        rosetta_core::check_limit(
            "storage buffers bound by one kernel",
            bindings.into(),
            limits.max_storage_buffers.into(),
        )?;
        rosetta_core::check_limit(
            "push constant bytes",
            push_bytes.into(),
            limits.max_push_bytes.into(),
        )?;
        if !push_bytes.is_multiple_of(4) {
            return Err(crate::vk::error::internal(format!(
                "push constant range of {push_bytes} bytes"
            )));
        }
        let list: Vec<vk::DescriptorSetLayoutBinding> = (0..bindings)
            .map(|i| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(i)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&list);
        // SAFETY: distinct binding numbers, a valid descriptor type and stage,
        // the count within the device limit (checked above); `info` and
        // `list` live across the call.
        let set = unsafe { device.raw().create_descriptor_set_layout(&info, None) }
            .map_err(|e| vk_error("vkCreateDescriptorSetLayout", e))?;
        live::created(Kind::Layout);
        let set_layouts = [set];
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .offset(0)
            .size(push_bytes)];
        let mut info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
        if push_bytes > 0 {
            info = info.push_constant_ranges(&ranges);
        }
        // SAFETY: the set layout is live; the push range is non-empty, a
        // multiple of 4 and within maxPushConstantsSize (checked above).
        let created = unsafe { device.raw().create_pipeline_layout(&info, None) };
        let pipeline = match created {
            Ok(layout) => layout,
            Err(e) => {
                // SAFETY: the set layout was just created and is used by
                // nothing.
                unsafe { device.raw().destroy_descriptor_set_layout(set, None) };
                live::destroyed(Kind::Layout);
                return Err(vk_error("vkCreatePipelineLayout", e));
            }
        };
        live::created(Kind::Layout);
        Ok(Arc::new(Layout {
            set,
            pipeline,
            bindings,
            push_bytes,
            device: Arc::clone(device),
        }))
    }

    /// Its device.
    pub(in crate::vk) fn device(&self) -> &Arc<Device> {
        &self.device
    }

    /// The descriptor set layout (for allocating sets in `vk::batch`).
    pub(in crate::vk) fn set_layout(&self) -> vk::DescriptorSetLayout {
        self.set
    }

    /// The pipeline layout (for binding in `vk::batch`).
    pub(in crate::vk) fn handle(&self) -> vk::PipelineLayout {
        self.pipeline
    }

    /// Storage buffers bound.
    pub(crate) fn bindings(&self) -> u32 {
        self.bindings
    }

    /// Bytes of push constants.
    pub(crate) fn push_bytes(&self) -> u32 {
        self.push_bytes
    }
}

impl Drop for Layout {
    fn drop(&mut self) {
        // SAFETY: pipelines hold an `Arc` of their layout and batches hold
        // the pipelines they bind until their fence signalled, so no command
        // buffer in the recording or pending state uses these layouts.
        unsafe {
            self.device
                .raw()
                .destroy_pipeline_layout(self.pipeline, None);
            self.device
                .raw()
                .destroy_descriptor_set_layout(self.set, None);
        }
        live::destroyed(Kind::Layout);
        live::destroyed(Kind::Layout);
    }
}

/// A `VkPipelineCache`. Pipeline creation through it needs `&mut` (Vulkan
/// requires external synchronisation of the cache).
pub(crate) struct PipelineCache {
    raw: vk::PipelineCache,
    device: Arc<Device>,
}

impl PipelineCache {
    /// An empty cache.
    pub(crate) fn empty(device: &Arc<Device>) -> Result<Self> {
        // SAFETY: `create`'s contract allows empty data.
        unsafe { Self::create(device, &[]) }
    }

    /// A cache starting from `data`.
    ///
    /// # Safety
    /// `data` is empty or a whole blob returned by `vkGetPipelineCacheData`
    /// (`VkPipelineCacheCreateInfo`'s valid-usage rules): the implementation
    /// then checks its header and ignores incompatible data itself.
    pub(crate) unsafe fn with_data(device: &Arc<Device>, data: &[u8]) -> Result<Self> {
        // SAFETY: passed on from this function's contract.
        unsafe { Self::create(device, data) }
    }

    /// # Safety
    /// As [`PipelineCache::with_data`].
    unsafe fn create(device: &Arc<Device>, data: &[u8]) -> Result<Self> {
        let info = vk::PipelineCacheCreateInfo::default().initial_data(data);
        // SAFETY: `data` is empty or a blob of vkGetPipelineCacheData (this
        // function's contract), its size passed with it; `info` lives across
        // the call.
        let raw = unsafe { device.raw().create_pipeline_cache(&info, None) }
            .map_err(|e| vk_error("vkCreatePipelineCache", e))?;
        live::created(Kind::PipelineCache);
        Ok(PipelineCache {
            raw,
            device: Arc::clone(device),
        })
    }

    /// The cache's contents (`vkGetPipelineCacheData`).
    pub(crate) fn data(&mut self) -> Result<Vec<u8>> {
        // SAFETY: the cache is live; `&mut self` is the external
        // synchronisation the call requires.
        unsafe { self.device.raw().get_pipeline_cache_data(self.raw) }
            .map_err(|e| vk_error("vkGetPipelineCacheData", e))
    }
}

impl Drop for PipelineCache {
    fn drop(&mut self) {
        // SAFETY: pipelines do not depend on the cache they were made with;
        // no creation is in progress (that borrows the cache mutably).
        unsafe { self.device.raw().destroy_pipeline_cache(self.raw, None) };
        live::destroyed(Kind::PipelineCache);
    }
}

/// A compute pipeline and the layout it binds with.
pub(crate) struct Pipeline {
    raw: vk::Pipeline,
    layout: Arc<Layout>,
}

impl Pipeline {
    /// The compute pipeline of entry point `main` of `module`, with
    /// specialization constant `i` set to `values[i]` (4 bytes each).
    ///
    /// A failure to build is returned as the `vk::Result` so the caller can
    /// tell a shader the driver rejects from other failures.
    ///
    /// # Safety
    /// `module` (of this device) has an entry point `main` of execution model
    /// GLCompute whose interface fits `layout`: the only descriptors it
    /// declares are storage buffers of set 0 at bindings below
    /// `layout.bindings()`, one each; at most one push-constant block, no
    /// larger than `layout.push_bytes()`; every specialization constant it
    /// declares with an id below `values.len()` is a 32-bit scalar or a
    /// boolean; and with these values its workgroup size and workgroup
    /// memory are within the device's limits.
    pub(crate) unsafe fn new(
        cache: &mut PipelineCache,
        module: &ShaderModule,
        layout: &Arc<Layout>,
        values: &[u32],
    ) -> Result<Self, PipelineError> {
        let device = &layout.device;
        if !Arc::ptr_eq(device, &module.device) || !Arc::ptr_eq(device, &cache.device) {
            return Err(PipelineError::Other(crate::vk::error::internal(
                "a pipeline from objects of different devices",
            )));
        }
        let entries: Vec<vk::SpecializationMapEntry> = (0..values.len() as u32)
            .map(|i| {
                vk::SpecializationMapEntry::default()
                    .constant_id(i)
                    .offset(i * 4)
                    .size(4)
            })
            .collect();
        let data: &[u8] = bytemuck::cast_slice(values);
        let specialization = vk::SpecializationInfo::default()
            .map_entries(&entries)
            .data(data);
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module.raw)
            .name(c"main")
            .specialization_info(&specialization);
        let flags = if device.enabled().pipeline_statistics {
            vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR
        } else {
            vk::PipelineCreateFlags::empty()
        };
        let info = [vk::ComputePipelineCreateInfo::default()
            .flags(flags)
            .stage(stage)
            .layout(layout.pipeline)];
        // SAFETY: module, layout and cache are live objects of one device
        // (checked above); the module's interface fits the layout and its
        // limits hold (this function's contract); each map entry's 4 bytes
        // lie inside `data`; `&mut cache` synchronises the cache.
        let created = unsafe {
            device
                .raw()
                .create_compute_pipelines(cache.raw, &info, None)
        };
        match created {
            Ok(list) => {
                let mut list = list.into_iter();
                let raw = list.next().ok_or_else(|| {
                    PipelineError::Other(crate::vk::error::internal(
                        "vkCreateComputePipelines returned no pipeline",
                    ))
                })?;
                live::created(Kind::Pipeline);
                Ok(Pipeline {
                    raw,
                    layout: Arc::clone(layout),
                })
            }
            Err((list, e)) => {
                for p in list.into_iter().filter(|p| *p != vk::Pipeline::null()) {
                    // SAFETY: a pipeline made by the failed call, never used.
                    unsafe { device.raw().destroy_pipeline(p, None) };
                }
                Err(PipelineError::Vulkan(e))
            }
        }
    }

    /// What the driver reports of the compiled pipeline (register count,
    /// spills, shared memory, ... as `name = value`), where the device was
    /// created with pipeline statistics (`vk::device::Wanted`); else empty.
    pub(crate) fn statistics(&self) -> Result<Vec<(String, String)>> {
        let device = &self.layout.device;
        if !device.enabled().pipeline_statistics {
            return Ok(Vec::new());
        }
        let ext = ash::khr::pipeline_executable_properties::Device::new(
            device.instance().raw(),
            device.raw(),
        );
        let info = vk::PipelineInfoKHR::default().pipeline(self.raw);
        // SAFETY: the pipeline is live, of this device, created with
        // CAPTURE_STATISTICS_KHR; the extension and its feature are enabled.
        let executables = unsafe { ext.get_pipeline_executable_properties(&info) }
            .map_err(|e| vk_error("vkGetPipelineExecutablePropertiesKHR", e))?;
        let mut out = Vec::new();
        for index in 0..executables.len() as u32 {
            let executable = vk::PipelineExecutableInfoKHR::default()
                .pipeline(self.raw)
                .executable_index(index);
            // SAFETY: as above; `index` is below the count just returned.
            let statistics = unsafe { ext.get_pipeline_executable_statistics(&executable) }
                .map_err(|e| vk_error("vkGetPipelineExecutableStatisticsKHR", e))?;
            for statistic in statistics {
                let name = statistic
                    .name_as_c_str()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                // SAFETY: `format` says which member of the union the driver
                // wrote.
                let value = unsafe {
                    match statistic.format {
                        vk::PipelineExecutableStatisticFormatKHR::BOOL32 => {
                            (statistic.value.b32 == vk::TRUE).to_string()
                        }
                        vk::PipelineExecutableStatisticFormatKHR::INT64 => {
                            statistic.value.i64.to_string()
                        }
                        vk::PipelineExecutableStatisticFormatKHR::UINT64 => {
                            statistic.value.u64.to_string()
                        }
                        vk::PipelineExecutableStatisticFormatKHR::FLOAT64 => {
                            statistic.value.f64.to_string()
                        }
                        _ => "?".to_string(),
                    }
                };
                out.push((name, value));
            }
        }
        Ok(out)
    }

    /// The pipeline handle (for binding in `vk::batch`).
    pub(in crate::vk) fn handle(&self) -> vk::Pipeline {
        self.raw
    }

    /// Its layout.
    pub(crate) fn layout(&self) -> &Arc<Layout> {
        &self.layout
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        // SAFETY: batches hold an `Arc` of every pipeline they bind until
        // their fence signalled, so no recorded or pending work uses it.
        unsafe { self.layout.device.raw().destroy_pipeline(self.raw, None) };
        live::destroyed(Kind::Pipeline);
    }
}

/// Why a pipeline was not created.
#[derive(Debug)]
pub(crate) enum PipelineError {
    /// `vkCreateComputePipelines` failed with this result.
    Vulkan(vk::Result),
    /// Something else went wrong.
    Other(Error),
}
