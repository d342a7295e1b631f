//! What the contract does not cover, on every CUDA device: dynamic shared
//! memory past 48 KiB, static-shared kernels launched with large
//! `shared_bytes`, the device's identity, out-of-memory, and marks that
//! outlive their device. Skipped where CUDA is unavailable, unless
//! `ROSETTA_REQUIRE` names cuda.

mod common;

use rosetta_core::contract::{probe, probe_expected};
use rosetta_core::{Buffer, Clock, Error, KernelSpec, Launch};

#[test]
fn dynamic_shared_memory_past_48_kib() {
    let Some(devices) = common::devices("dynamic_shared_memory_past_48_kib") else {
        return;
    };
    for device in devices {
        let caps = device.info().caps.clone();
        let spec = KernelSpec::new(common::fill_shared(), &[("GROUP_SIZE", 256)]).unwrap();
        let kernel = device.compile(&spec).expect("fill_shared compiles");
        let out = device.alloc(4 * 8).unwrap();
        // 16 KiB, then the largest the device allows (past 48 KiB on every
        // GPU since Volta), then 16 KiB again (the raised limit stays).
        let largest = caps.max_shared_bytes / 4 * 4;
        for bytes in [16 << 10, largest, 16 << 10] {
            let words = bytes / 4;
            out.zero().unwrap();
            let launch = Launch::linear(8, 256, bytes);
            // SAFETY: fill_shared touches block[0 .. words) of the `bytes`
            // passed, and out[0 .. 8) of a buffer of 8 words.
            unsafe { device.launch(&kernel, &launch, &[&out], &[words]) }.unwrap_or_else(|e| {
                panic!("{bytes} bytes of dynamic shared memory: {}", e.chain())
            });
            let got = out.read::<u32>(8).unwrap();
            let want: Vec<u32> = (0..8)
                .map(|g| common::fill_shared_expected(words, g))
                .collect();
            assert_eq!(got, want, "{bytes} bytes");
        }
    }
}

#[test]
fn static_shared_kernels_get_no_dynamic_memory() {
    let Some(devices) = common::devices("static_shared_kernels_get_no_dynamic_memory") else {
        return;
    };
    for device in devices {
        // The probe's array is static; a launch that says it uses more than
        // 48 KiB (the device's maximum) must not pass that as dynamic memory
        // the kernel never asked for.
        let spec = KernelSpec::new(probe(), &[("GROUP_SIZE", 64)]).unwrap();
        let kernel = device.compile(&spec).unwrap();
        let input: Vec<u32> = (0..256).collect();
        let src = Buffer::from_slice(&device, &input).unwrap();
        let (dst, counter) = (device.alloc(1024).unwrap(), device.alloc(16).unwrap());
        let launch = Launch::linear(4, 64, device.info().caps.max_shared_bytes);
        // SAFETY: the probe touches input/output words below n = 256 (both
        // 256 words) and counter[0].
        unsafe { device.launch(&kernel, &launch, &[&src, &dst, &counter], &[256, 5]) }.unwrap();
        assert_eq!(dst.read::<u32>(256).unwrap(), probe_expected(&input, 64, 5));
    }
}

#[test]
fn devices_say_where_they_are() {
    let Some(devices) = common::devices("devices_say_where_they_are") else {
        return;
    };
    for (position, device) in devices.iter().enumerate() {
        let info = device.info();
        eprintln!(
            "{}: {} | {} | {} | {:?}",
            info.id(),
            info.name,
            info.driver,
            info.driver_version,
            info.physical
        );
        assert!(info.index >= position, "indices are ordinals, in order");
        assert!(info.driver_version.contains("NVRTC") && info.driver_version.contains("compute"));
        let pci = info.physical.pci_bus_id.as_deref().expect("a PCI bus id");
        let parts: Vec<&str> = pci.split([':', '.']).collect();
        assert_eq!(parts.len(), 4, "{pci}");
        assert!(
            parts[0].len() >= 4
                && parts[1].len() == 2
                && parts[2].len() == 2
                && parts[3].len() == 1,
            "{pci}"
        );
        assert!(
            pci.chars()
                .all(|c| c.is_ascii_digit() || "abcdef:.".contains(c)),
            "{pci}"
        );
        let uuid = info.physical.uuid.as_deref().expect("a UUID");
        assert!(
            uuid.len() == 32
                && uuid
                    .chars()
                    .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
            "{uuid}"
        );
        assert_eq!(info.caps.loop_limit, None);
        assert!(info.caps.timestamps && info.caps.subgroup_ops);
    }
}

#[test]
fn allocations_past_free_memory_are_out_of_memory() {
    let Some(devices) = common::devices("allocations_past_free_memory_are_out_of_memory") else {
        return;
    };
    for device in devices {
        let all = device.info().caps.max_buffer_bytes;
        match device.alloc(all) {
            Err(Error::OutOfMemory { .. }) => {}
            Ok(_) => panic!("all {all} bytes allocated"),
            Err(other) => panic!("expected OutOfMemory, got {}", other.chain()),
        }
        // The device still works.
        let buffer = Buffer::from_slice(&device, &[1u32, 2, 3]).unwrap();
        assert_eq!(buffer.read::<u32>(3).unwrap(), [1, 2, 3]);
    }
}

#[test]
fn marks_outlive_their_device_and_drop_in_any_order() {
    let Some(devices) = common::devices("marks_outlive_their_device_and_drop_in_any_order") else {
        return;
    };
    for device in devices {
        let marks: Vec<_> = (0..16).map(|_| device.timestamp().unwrap()).collect();
        let (elapsed, clock) = device.elapsed(&marks[0], &marks[15]).unwrap();
        assert_eq!(clock, Clock::Device);
        assert!(elapsed.as_secs() < 10);
        let (odd, even): (Vec<_>, Vec<_>) =
            marks.into_iter().enumerate().partition(|(i, _)| i % 2 == 1);
        drop(odd);
        let late = device.timestamp().unwrap();
        drop(device);
        drop(late);
        drop(even);
    }
}
