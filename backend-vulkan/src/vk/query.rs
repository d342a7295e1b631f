//! A pool of timestamp queries (`VkQueryPool`), written by command batches
//! (`vk::batch`) and read back here.

use crate::vk::device::Device;
use crate::vk::error::{internal, vk_error};
use crate::vk::live::{self, Kind};
use ash::vk;
use rosetta_core::Result;
use std::sync::Arc;

/// `count` timestamp queries. Batches that write one hold an `Arc` of the
/// pool until their fence signalled.
pub(crate) struct TimestampPool {
    raw: vk::QueryPool,
    count: u32,
    device: Arc<Device>,
}

impl TimestampPool {
    /// A pool of `count` (non-zero) timestamps; refused on a queue family
    /// without timestamps.
    pub(crate) fn new(device: &Arc<Device>, count: u32) -> Result<Arc<Self>> {
        if device.limits().timestamp_bits == 0 || count == 0 {
            return Err(internal("a timestamp pool on a queue without timestamps"));
        }
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(count);
        // SAFETY: a timestamp pool with a non-zero count; `info` lives across
        // the call.
        let raw = unsafe { device.raw().create_query_pool(&info, None) }
            .map_err(|e| vk_error("vkCreateQueryPool", e))?;
        live::created(Kind::QueryPool);
        Ok(Arc::new(TimestampPool {
            raw,
            count,
            device: Arc::clone(device),
        }))
    }

    /// The number of queries.
    pub(crate) fn count(&self) -> u32 {
        self.count
    }

    /// The pool handle (for recording in `vk::batch`).
    pub(in crate::vk) fn handle(&self) -> vk::QueryPool {
        self.raw
    }

    /// Its device.
    pub(in crate::vk) fn device(&self) -> &Arc<Device> {
        &self.device
    }

    /// The raw tick count of query `slot`, or `None` while it is not
    /// available (never written since its reset, or not yet executed).
    pub(crate) fn ticks(&self, slot: u32) -> Result<Option<u64>> {
        if slot >= self.count {
            return Err(internal(format!("timestamp slot {slot} of {}", self.count)));
        }
        // One query: its value and its availability word.
        let mut out = [[0u64; 2]];
        // SAFETY: the query exists (checked); `out` holds one 16-byte result
        // (value + availability, 64-bit each) as the flags ask; without
        // WAIT the call does not block.
        let result = unsafe {
            self.device.raw().get_query_pool_results(
                self.raw,
                slot,
                &mut out,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
            )
        };
        match result {
            Ok(()) | Err(vk::Result::NOT_READY) => Ok((out[0][1] != 0).then_some(out[0][0])),
            Err(e) => Err(vk_error("vkGetQueryPoolResults", e)),
        }
    }
}

impl Drop for TimestampPool {
    fn drop(&mut self) {
        // SAFETY: batches writing to the pool hold an `Arc` of it until their
        // fence signalled, so no recorded or pending work uses it.
        unsafe { self.device.raw().destroy_query_pool(self.raw, None) };
        live::destroyed(Kind::QueryPool);
    }
}
