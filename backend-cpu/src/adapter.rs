//! Device discovery and capabilities: one device, the host CPU, with limits
//! read from the machine (cache size, memory, thread count).

use crate::driver::CpuDriver;
use rosetta_core::{
    checked, Api, Backend, Capabilities, DeviceInfo, DeviceType, PhysicalId, Result,
};
use std::sync::Arc;

/// The CPU is always there: one device, opened fresh on every call.
pub fn discover() -> Result<Vec<Arc<dyn Backend>>> {
    Ok(vec![checked::open(info(), CpuDriver)])
}

fn info() -> DeviceInfo {
    let threads = rayon::current_num_threads() as u32;
    let memory = meminfo_total().unwrap_or(8 << 30);
    DeviceInfo {
        api: Api::Cpu,
        index: 0,
        name: format!(
            "{} ({threads} threads)",
            cpu_model().unwrap_or_else(|| "CPU".into())
        ),
        driver: format!(
            "rosetta workgroup model on rayon, {}",
            std::env::consts::ARCH
        ),
        driver_version: env!("CARGO_PKG_VERSION").to_string(),
        physical: PhysicalId::default(),
        caps: Capabilities {
            device_type: DeviceType::Cpu,
            // A workgroup's scratch should stay in the core's own cache: the
            // L2 size, as the L1 is too small for privatized histograms.
            max_shared_bytes: l2_cache_bytes().unwrap_or(256 << 10),
            max_group_size: [1024, 1024, 64],
            max_group_invocations: 1024,
            max_groups: [i32::MAX as u32, 65535, 65535],
            subgroup_sizes: None,
            subgroup_ops: false,
            float_atomics: true,
            timestamps: false,
            max_buffer_bytes: memory / 2,
            memory_bytes: memory,
            compute_units: threads,
            loop_limit: None,
            // The workgroup model's `device_fence` (a sequentially
            // consistent fence between the host threads running groups).
            device_fence: true,
            async_copy: false,
        },
    }
}

fn cpu_model() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    text.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map(|s| s.trim().to_string())
}

fn meminfo_total() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = text
        .lines()
        .find(|l| l.starts_with("MemTotal:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(kib * 1024)
}

/// The unified level-2 cache of cpu0, from sysfs (e.g. "1024K").
fn l2_cache_bytes() -> Option<u32> {
    let dir = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    for entry in dir.flatten() {
        let read = |name: &str| std::fs::read_to_string(entry.path().join(name)).ok();
        if read("level")?.trim() == "2" {
            let size = read("size")?;
            let size = size.trim();
            let (digits, scale) = match size.strip_suffix('K') {
                Some(d) => (d, 1024),
                None => match size.strip_suffix('M') {
                    Some(d) => (d, 1 << 20),
                    None => (size, 1),
                },
            };
            return digits.parse::<u32>().ok().map(|v| v.saturating_mul(scale));
        }
    }
    None
}
