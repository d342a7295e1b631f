//! With the Khronos validation layer on (whatever the environment says), in
//! both memory paths (mapped unified memory where the device has it, and
//! forced staging, the discrete-GPU path): a thousand mixed operations leave
//! the live Vulkan objects where they started and the layer reports nothing;
//! nor does it during the contract suite.
//!
//! One test in this binary: the live-object counters are process-wide.

use rosetta_backend_vulkan::{discover_with, live_objects, Options};
use rosetta_core::contract::{probe, probe_expected, CHECKS};
use rosetta_core::{Backend, Buffer, KernelSpec, Launch};
use std::sync::Arc;

fn run_probe(device: &Arc<dyn Backend>, group: u32, input: &Buffer, n: u32, add: u32) -> Vec<u32> {
    let spec = KernelSpec::new(probe(), &[("GROUP_SIZE", group)]).unwrap();
    let kernel = device.compile(&spec).unwrap();
    let output = device.alloc(u64::from(n) * 4).unwrap();
    let counter = device.alloc(16).unwrap();
    let launch = Launch::linear(n.div_ceil(group), group, group * 4);
    // SAFETY: the probe touches input[i], output[i] for i < n and counter[0];
    // both arrays hold n words.
    unsafe { device.launch(&kernel, &launch, &[input, &output, &counter], &[n, add]) }.unwrap();
    output.read::<u32>(n as usize).unwrap()
}

/// One operation of kind `i % 6`, every buffer dropped at the end.
fn one_op(device: &Arc<dyn Backend>, i: u32) {
    let n = 1000 + (i * 37) % 5000;
    let words: Vec<u32> = (0..n).map(|k| k.wrapping_mul(2_654_435_761) ^ i).collect();
    match i % 6 {
        0 => {
            let group = [32, 64, 128][(i as usize / 6) % 3];
            let input = Buffer::from_slice(device, &words).unwrap();
            assert_eq!(
                run_probe(device, group, &input, n, i),
                probe_expected(&words, group, i)
            );
        }
        1 => {
            // Large (staged or waited) and small (recorded) writes, a zero.
            let big: Vec<u32> = (0..70_000u32).map(|k| k ^ i).collect();
            let buffer = Buffer::from_slice(device, &big).unwrap();
            buffer.zero().unwrap();
            buffer.write(&big[..100]).unwrap();
            let back = buffer.read::<u32>(70_000).unwrap();
            assert_eq!(&back[..100], &big[..100]);
            assert!(back[100..].iter().all(|&w| w == 0));
        }
        2 => {
            let src = Buffer::from_slice(device, &words).unwrap();
            let dst = device.alloc(u64::from(n) * 4 + 64).unwrap();
            device.copy(&src, 0, &dst, 64, u64::from(n) * 4).unwrap();
            assert_eq!(dst.read::<u32>(n as usize + 16).unwrap()[16..], words[..]);
        }
        3 => {
            let input = Buffer::from_slice(device, &words).unwrap();
            let t0 = device.timestamp().unwrap();
            let out = run_probe(device, 64, &input, n, 1);
            let t1 = device.timestamp().unwrap();
            assert_eq!(out, probe_expected(&words, 64, 1));
            let (elapsed, _) = device.elapsed(&t0, &t1).unwrap();
            assert!(elapsed.as_secs() < 60);
        }
        4 => {
            let buffer = device.alloc(u64::from(n) * 4).unwrap();
            assert!(buffer
                .read::<u32>(n as usize)
                .unwrap()
                .iter()
                .all(|&w| w == 0));
        }
        _ => {
            // A launch reading a buffer, then a write to that buffer (in
            // queue order: the launch sees the old data).
            let input = Buffer::from_slice(device, &words).unwrap();
            let output = device.alloc(u64::from(n) * 4).unwrap();
            let counter = device.alloc(16).unwrap();
            let spec = KernelSpec::new(probe(), &[("GROUP_SIZE", 64)]).unwrap();
            let kernel = device.compile(&spec).unwrap();
            let launch = Launch::linear(n.div_ceil(64), 64, 256);
            // SAFETY: as in `run_probe`.
            unsafe { device.launch(&kernel, &launch, &[&input, &output, &counter], &[n, 0]) }
                .unwrap();
            input.write(&vec![7u32; n as usize]).unwrap();
            assert_eq!(
                output.read::<u32>(n as usize).unwrap(),
                probe_expected(&words, 64, 0)
            );
            assert_eq!(input.read::<u32>(n as usize).unwrap(), vec![7; n as usize]);
        }
    }
}

fn thousand_ops(force_staging: bool) {
    let options = Options {
        validation: true,
        force_staging,
    };
    let devices = discover_with(options)
        .unwrap_or_else(|e| panic!("no Vulkan device with the validation layer: {}", e.chain()));
    assert!(!devices.is_empty(), "no Vulkan device");
    for device in &devices {
        let info = device.info();
        assert!(info.driver.contains("validation"), "{}", info.driver);
        assert_eq!(info.driver.contains("staging forced"), force_staging);
        // Warm up: kernels compiled, batches, staging and the pool in place.
        for i in 0..36 {
            one_op(device, i);
        }
        device.finish().unwrap();
        // The checked layer's pool keeps freed buffers by size class; empty
        // it so the counts are the driver's own.
        device.trim_pool();
        let start = live_objects();
        for i in 0..1000 {
            one_op(device, i);
        }
        device.finish().unwrap();
        device.trim_pool();
        let end = live_objects();
        // gpu-allocator frees a block once it empties (keeping one per memory
        // type): blocks may be fewer than at the start, never more.
        assert!(
            end.memory_blocks <= start.memory_blocks,
            "{start:?} -> {end:?}"
        );
        assert_eq!(
            rosetta_backend_vulkan::LiveObjects {
                memory_blocks: start.memory_blocks,
                ..end
            },
            start,
            "{}: live objects changed",
            info.name
        );
        let diagnostics = device.take_diagnostics();
        assert!(
            diagnostics.is_empty(),
            "validation reported:\n{}",
            diagnostics.join("\n")
        );
        // The whole contract suite, validated too.
        let reopen = || discover_with(options).unwrap_or_default();
        for (name, check) in CHECKS {
            check(device, &reopen).unwrap_or_else(|e| panic!("{name}: {e}"));
            let diagnostics = device.take_diagnostics();
            assert!(
                diagnostics.is_empty(),
                "{name}: validation reported:\n{}",
                diagnostics.join("\n")
            );
        }
    }
}

#[test]
fn thousand_ops_validate_clean_and_leak_nothing_in_both_memory_paths() {
    thousand_ops(false);
    thousand_ops(true);
}
