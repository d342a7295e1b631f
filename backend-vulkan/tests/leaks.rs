//! Every Vulkan object is destroyed when the devices close: after the whole
//! contract suite (plus work left in flight at close) in both memory paths,
//! dropping the devices brings every live-object counter back to zero. Also
//! reports how many memory allocations sub-allocation saved.
//!
//! One test in this binary: the counters are process-wide.

use rosetta_backend_vulkan::{
    allocation_counts, discover_with, live_objects, LiveObjects, Options,
};
use rosetta_core::contract::{probe, CHECKS};
use rosetta_core::{Backend, Buffer, KernelSpec, Launch};
use std::sync::Arc;

fn open(options: Options) -> Vec<Arc<dyn Backend>> {
    let devices =
        discover_with(options).unwrap_or_else(|e| panic!("no Vulkan device: {}", e.chain()));
    assert!(!devices.is_empty(), "no Vulkan device");
    devices
}

/// Run every contract check, then leave launches and a timestamp in flight
/// and buffers alive when the devices close.
fn session(options: Options) {
    let devices = open(options);
    let reopen = || discover_with(options).unwrap_or_default();
    for device in &devices {
        for (name, check) in CHECKS {
            check(device, &reopen).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
    assert_ne!(live_objects(), LiveObjects::default());
    for device in &devices {
        let n = 1 << 20;
        let input = Buffer::from_slice(device, &vec![3u32; n as usize]).unwrap();
        let output = device.alloc(u64::from(n) * 4).unwrap();
        let counter = device.alloc(16).unwrap();
        let spec = KernelSpec::new(probe(), &[("GROUP_SIZE", 64)]).unwrap();
        let kernel = device.compile(&spec).unwrap();
        let _mark = device.timestamp().unwrap();
        for _ in 0..3 {
            // SAFETY: the probe touches input[i], output[i] for i < n and
            // counter[0]; both arrays hold n words.
            unsafe {
                device.launch(
                    &kernel,
                    &Launch::linear(n / 64, 64, 256),
                    &[&input, &output, &counter],
                    &[n, 1],
                )
            }
            .unwrap();
        }
        device.flush().unwrap();
        // Everything here (buffers, kernel, mark, device) is dropped while the
        // launches may still run.
    }
    drop(devices);
}

/// Run a session and report its buffers and memory blocks.
fn counted(path: &str, options: Options) -> (u64, u64) {
    let before = allocation_counts();
    session(options);
    assert_eq!(
        live_objects(),
        LiveObjects::default(),
        "{path}: objects left"
    );
    let after = allocation_counts();
    let (buffers, blocks) = (
        after.buffers - before.buffers,
        after.memory_blocks - before.memory_blocks,
    );
    eprintln!(
        "{path}: {buffers} buffers created (one vkAllocateMemory each without \
         sub-allocation), {blocks} vkAllocateMemory calls made"
    );
    (buffers, blocks)
}

#[test]
fn closing_every_device_destroys_every_vulkan_object() {
    for (path, force_staging) in [("unified / default path", false), ("staging path", true)] {
        let (buffers, blocks) = counted(
            path,
            Options {
                validation: false,
                force_staging,
            },
        );
        assert!(
            blocks < buffers,
            "{path}: {blocks} blocks for {buffers} buffers"
        );
    }
}
