//! Tests of what only the driver itself shows (the contract suite sees the
//! device through the checked layer): the bind-group cache across frees, and
//! the persistent pipeline cache with stored, damaged and rejected entries.

use crate::adapter::open_all;
use crate::driver::WgpuDriver;
use crate::memory::WgpuBuffer;
use rosetta_core::contract::{probe, probe_expected};
use rosetta_core::disk_cache::DiskCache;
use rosetta_core::{Api, DeviceInfo, Driver, KernelSpec, Launch};
use std::path::PathBuf;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rosetta-wgpu-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Every device, opened on the driver level (wgpu must be there: lavapipe
/// on machines without a GPU).
fn drivers(disk: &DiskCache) -> Vec<(DeviceInfo, WgpuDriver)> {
    let devices = open_all(disk).expect("wgpu must find an adapter here");
    assert!(!devices.is_empty());
    devices
}

fn upload(driver: &mut WgpuDriver, words: &[u32]) -> WgpuBuffer {
    let buffer = driver.alloc((words.len() as u64 * 4).max(16)).unwrap();
    driver
        .write(&buffer, 0, bytemuck::cast_slice(words))
        .unwrap();
    buffer
}

fn download(driver: &mut WgpuDriver, buffer: &WgpuBuffer, words: usize) -> Vec<u32> {
    let mut out = vec![0u8; words * 4];
    driver.read(buffer, 0, &mut out).unwrap();
    bytemuck::cast_slice(&out).to_vec()
}

/// Compile the probe and run it once over 64 words of `input` into `output`.
fn run_probe(driver: &mut WgpuDriver, input: &WgpuBuffer, output: &WgpuBuffer, add: u32) {
    let spec = KernelSpec::new(probe(), &[("GROUP_SIZE", 64)]).unwrap();
    let kernel = driver
        .compile(&spec, probe().require(Api::Wgpu).unwrap())
        .unwrap();
    let counter = driver.alloc(16).unwrap();
    // SAFETY: the probe with n = 64 reads input[0..64], writes
    // output[0..64] and counter[0] (all allocated, 256 and 16 bytes), and
    // has no loop.
    unsafe {
        driver
            .launch(
                &kernel,
                &Launch::linear(1, 64, 256),
                &[input, output, &counter],
                &[64, add],
            )
            .unwrap();
    }
    driver.free(counter);
    driver.release_kernel(kernel);
}

#[test]
fn bind_groups_never_outlive_a_freed_buffer() {
    for (info, mut driver) in drivers(&DiskCache::at(temp_dir("bind-groups"))) {
        let a = upload(&mut driver, &[1; 64]);
        let out = driver.alloc(256).unwrap();
        let before = driver.cached_bind_groups();
        run_probe(&mut driver, &a, &out, 0);
        assert_eq!(
            download(&mut driver, &out, 64),
            probe_expected(&[1; 64], 64, 0)
        );
        // The probe's counter was freed after the launch: its bind group
        // went with it.
        assert_eq!(driver.cached_bind_groups(), before, "{}", info.id());
        // Free `a` and allocate a buffer of the same size, which wgpu may
        // place in the same memory: the launch must bind the new buffer.
        driver.free(a);
        let b = upload(&mut driver, &[5; 64]);
        run_probe(&mut driver, &b, &out, 0);
        assert_eq!(
            download(&mut driver, &out, 64),
            probe_expected(&[5; 64], 64, 0),
            "{}: a launch bound a freed buffer",
            info.id()
        );
        driver.free(b);
        driver.free(out);
        assert_eq!(driver.cached_bind_groups(), 0, "{}", info.id());
    }
}

#[test]
fn bind_groups_are_reused_while_their_buffers_live() {
    for (info, mut driver) in drivers(&DiskCache::at(temp_dir("bind-reuse"))) {
        let spec = KernelSpec::new(probe(), &[("GROUP_SIZE", 64)]).unwrap();
        let kernel = driver
            .compile(&spec, probe().require(Api::Wgpu).unwrap())
            .unwrap();
        let input = upload(&mut driver, &[3; 64]);
        let (out, counter) = (driver.alloc(256).unwrap(), driver.alloc(16).unwrap());
        for add in 0..10 {
            // SAFETY: as in `run_probe`.
            unsafe {
                driver
                    .launch(
                        &kernel,
                        &Launch::linear(1, 64, 256),
                        &[&input, &out, &counter],
                        &[64, add],
                    )
                    .unwrap();
            }
        }
        assert_eq!(driver.cached_bind_groups(), 1, "{}", info.id());
        assert_eq!(
            download(&mut driver, &out, 64),
            probe_expected(&[3; 64], 64, 9),
            "{}: each launch reads its own params",
            info.id()
        );
        assert_eq!(download(&mut driver, &counter, 1), [640]);
    }
}

#[test]
fn the_pipeline_cache_survives_damage() {
    let dir = temp_dir("pipeline-cache");
    let disk = DiskCache::at(&dir);
    let entries = || std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
    let check = |driver: &mut WgpuDriver| {
        let input = upload(driver, &[7; 64]);
        let out = driver.alloc(256).unwrap();
        run_probe(driver, &input, &out, 1);
        assert_eq!(download(driver, &out, 64), probe_expected(&[7; 64], 64, 1));
    };
    // Cold: nothing stored; closing the device stores its pipelines.
    let mut with_cache = 0;
    for (info, mut driver) in drivers(&disk) {
        let Some(cache) = driver.persistent_cache() else {
            eprintln!("{} ({}): no pipeline cache", info.id(), info.name);
            continue;
        };
        assert_eq!(cache.seeded(), 0);
        check(&mut driver);
        with_cache += 1;
    }
    if with_cache == 0 {
        return;
    }
    assert!(entries() > 0, "closing stored no pipeline cache");
    // Warm: seeded from the entry.
    for (_, mut driver) in drivers(&disk) {
        if let Some(cache) = driver.persistent_cache() {
            assert!(cache.seeded() > 0, "the stored entry was not read");
            check(&mut driver);
        }
        // Rejected by wgpu: well-formed in the disk cache, garbage inside
        // (stored after the compile's save, so closing keeps it). The next
        // open falls back to an empty cache.
        if let Some(cache) = driver.persistent_cache() {
            cache.store_raw(b"not a pipeline cache");
        }
    }
    for (_, mut driver) in drivers(&disk) {
        if let Some(cache) = driver.persistent_cache() {
            assert_eq!(cache.seeded(), b"not a pipeline cache".len());
            check(&mut driver);
        }
    }
    // Damaged on disk: the disk cache drops it; compiles still work, and
    // closing stores a whole entry again.
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let mut bytes = std::fs::read(entry.path()).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0x55;
        std::fs::write(entry.path(), bytes).unwrap();
    }
    for (_, mut driver) in drivers(&disk) {
        if let Some(cache) = driver.persistent_cache() {
            assert_eq!(cache.seeded(), 0, "a damaged entry was used");
            check(&mut driver);
        }
    }
    for (_, driver) in drivers(&disk) {
        if let Some(cache) = driver.persistent_cache() {
            assert!(cache.seeded() > 0, "no whole entry after the damage");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The probe compiled, 64 words of `value` uploaded, and its output and
/// counter buffers.
fn probe_setup(
    driver: &mut WgpuDriver,
    value: u32,
) -> (crate::compile::WgpuKernel, [WgpuBuffer; 3]) {
    let spec = KernelSpec::new(probe(), &[("GROUP_SIZE", 64)]).unwrap();
    let kernel = driver
        .compile(&spec, probe().require(Api::Wgpu).unwrap())
        .unwrap();
    let input = upload(driver, &[value; 64]);
    let (out, counter) = (driver.alloc(256).unwrap(), driver.alloc(16).unwrap());
    (kernel, [input, out, counter])
}

/// The probe once over 64 words (compiled by the caller), without freeing.
fn launch_probe(
    driver: &mut WgpuDriver,
    kernel: &crate::compile::WgpuKernel,
    buffers: [&WgpuBuffer; 3],
    add: u32,
) {
    // SAFETY: as in `run_probe` (64 words in, 64 out, a 16-byte counter).
    unsafe {
        driver
            .launch(kernel, &Launch::linear(1, 64, 256), &buffers, &[64, add])
            .unwrap();
    }
}

/// Marks land where they are taken whichever way the recorder writes them
/// (a pass's end, the next pass's beginning, or the encoder): nested
/// intervals add up, every interval resolves, and the work between marks
/// still computes its result.
#[test]
fn marks_keep_their_place_in_the_queue() {
    for (info, mut driver) in drivers(&DiskCache::at(temp_dir("marks"))) {
        if !driver.has_timer() {
            eprintln!("{}: no timestamps", info.id());
            continue;
        }
        let (kernel, [input, out, counter]) = probe_setup(&mut driver, 2);
        let buffers = [&input, &out, &counter];
        let mark = |driver: &mut WgpuDriver| driver.timestamp().unwrap().unwrap();

        // mark, launches (one pass), mark, launch, zero, launch, mark, mark.
        let m0 = mark(&mut driver);
        launch_probe(&mut driver, &kernel, buffers, 1);
        launch_probe(&mut driver, &kernel, buffers, 2);
        let m1 = mark(&mut driver);
        launch_probe(&mut driver, &kernel, buffers, 3);
        driver.zero(&counter).unwrap();
        launch_probe(&mut driver, &kernel, buffers, 4);
        let m2 = mark(&mut driver);
        let m3 = mark(&mut driver);
        // A launch right after a claimed pass end: a new pass.
        launch_probe(&mut driver, &kernel, buffers, 5);
        let m4 = mark(&mut driver);

        let us = |d: std::time::Duration| d.as_secs_f64() * 1e6;
        let e = |driver: &mut WgpuDriver, a, b| us(driver.elapsed(a, b).unwrap());
        let (a, b, c, d) = (
            e(&mut driver, &m0, &m1),
            e(&mut driver, &m1, &m2),
            e(&mut driver, &m2, &m3),
            e(&mut driver, &m3, &m4),
        );
        let whole = e(&mut driver, &m0, &m4);
        assert!(
            (whole - (a + b + c + d)).abs() <= 1.0,
            "{}: {a} + {b} + {c} + {d} µs against {whole} µs",
            info.id()
        );
        assert_eq!(
            download(&mut driver, &out, 64),
            probe_expected(&[2; 64], 64, 5),
            "{}",
            info.id()
        );
        // Zeroed between the third and fourth launch.
        assert_eq!(download(&mut driver, &counter, 1), [128], "{}", info.id());
    }
}

/// A pass may end with the next mark's timestamp slot; the mark that held
/// that slot before (taken a ring ago) is refused from then on, never read
/// as the pass's time. The run first takes a mark on the ring's last slot
/// with a pass right after it, whose end is the ring's first slot.
#[test]
fn pass_ends_never_overwrite_a_held_mark() {
    use crate::timing::RING_SLOTS;
    // `count` marks; the last one.
    fn marks(driver: &mut WgpuDriver, count: u32) -> crate::timing::Mark {
        let mut last = None;
        for _ in 0..count {
            last = driver.timestamp().unwrap();
        }
        last.unwrap()
    }
    for (info, mut driver) in drivers(&DiskCache::at(temp_dir("ring"))) {
        if !driver.has_timer() {
            continue;
        }
        let (kernel, [input, out, counter]) = probe_setup(&mut driver, 1);
        let buffers = [&input, &out, &counter];

        // Slots 0 ..= RING_SLOTS - 1, then a pass ending on slot 0 that the
        // next mark claims.
        let at_last_slot = marks(&mut driver, RING_SLOTS);
        launch_probe(&mut driver, &kernel, buffers, 6);
        let after = marks(&mut driver, 1);
        assert!(
            driver.elapsed(&at_last_slot, &after).is_ok(),
            "{}",
            info.id()
        );
        assert_eq!(download(&mut driver, &counter, 1), [64]);

        // `held` takes slot 1, `next` slot 2; marks round to slot 0, so a
        // pass opening now reserves slot 1 and writes it as it ends (no
        // mark claims it: a download ends the pass).
        let held = marks(&mut driver, 1);
        let next = marks(&mut driver, 1);
        let last = marks(&mut driver, RING_SLOTS - 2);
        launch_probe(&mut driver, &kernel, buffers, 7);
        assert_eq!(download(&mut driver, &counter, 1), [128]);
        let refused = driver.elapsed(&held, &next);
        assert!(
            matches!(
                refused,
                Err(rosetta_core::Error::ExceedsLimit { requested, limit, .. }) if requested > limit
            ),
            "{}: a mark overwritten by a pass's end was read: {refused:?}",
            info.id()
        );
        assert!(driver.elapsed(&next, &last).is_ok(), "{}", info.id());
        assert_eq!(
            download(&mut driver, &out, 64),
            probe_expected(&[1; 64], 64, 7),
            "{}",
            info.id()
        );
    }
}

/// A WGSL kernel with the probe's interface (`input`, `output`, `counter`,
/// params `n`, `add`) and the given declarations of `input` and `Params`.
fn probe_like(input: &str, params: &str) -> std::sync::Arc<rosetta_core::KernelDef> {
    let wgsl = format!(
        "override GROUP_SIZE: u32 = 64u;\n\
         struct Params {{ {params} }}\n\
         @group(0) @binding(0) var<storage, read> input: {input};\n\
         @group(0) @binding(1) var<storage, read_write> output: array<u32>;\n\
         @group(0) @binding(2) var<storage, read_write> counter: array<atomic<u32>>;\n\
         @group(0) @binding(3) var<uniform> params: Params;\n\
         @compute @workgroup_size(GROUP_SIZE)\n\
         fn probe(@builtin(local_invocation_index) lid: u32) {{\n\
             if (lid < params.n) {{ output[lid] = input[lid] + params.add; }}\n\
         }}\n"
    );
    rosetta_core::KernelDef::builder("probe")
        .bindings([
            rosetta_core::Access::Read,
            rosetta_core::Access::ReadWrite,
            rosetta_core::Access::ReadWrite,
        ])
        .params(["n", "add"])
        .source(rosetta_core::Language::Wgsl, wgsl)
        .build_arc()
        .unwrap()
}

/// wgpu checks binding sizes only when a batch is submitted, and drops the
/// whole batch when one fails: a kernel whose params struct or buffer types
/// need more than it is given must be refused on its own, and the ops
/// recorded before it must keep their results.
#[test]
fn binding_sizes_are_checked_before_the_batch() {
    for (info, mut driver) in drivers(&DiskCache::at(temp_dir("binding-sizes"))) {
        let input = upload(&mut driver, &[7; 64]);
        let out = driver.alloc(256).unwrap();
        let counter = driver.alloc(16).unwrap();
        let probe_spec = KernelSpec::new(probe(), &[("GROUP_SIZE", 64)]).unwrap();
        let probe_kernel = driver
            .compile(&probe_spec, probe().require(Api::Wgpu).unwrap())
            .unwrap();
        // SAFETY: the probe with n = 64 stays inside 64 words of `input` and
        // `out` and counter[0], and has no loop.
        unsafe {
            driver
                .launch(
                    &probe_kernel,
                    &Launch::linear(1, 64, 256),
                    &[&input, &out, &counter],
                    &[64, 1],
                )
                .unwrap();
        }
        // Params structs larger than the two params declared: by a vec4, and
        // by one word (which the 16-byte params slot would hold, as a zero).
        for fields in [
            "n: u32, add: u32, more: vec4<u32>",
            "n: u32, add: u32, more: u32",
        ] {
            let wide = probe_like("array<u32>", fields);
            let spec = KernelSpec::new(&wide, &[("GROUP_SIZE", 64)]).unwrap();
            let e = driver
                .compile(&spec, wide.require(Api::Wgpu).unwrap())
                .err();
            assert!(
                matches!(e, Some(rosetta_core::Error::InvalidArgument(_))),
                "{} {fields}: {e:?}",
                info.id()
            );
        }
        // A fixed-size input of 128 words bound to a buffer of 64.
        let fixed = probe_like("array<u32, 128>", "n: u32, add: u32");
        let spec = KernelSpec::new(&fixed, &[("GROUP_SIZE", 64)]).unwrap();
        let kernel = driver
            .compile(&spec, fixed.require(Api::Wgpu).unwrap())
            .unwrap();
        // SAFETY: refused before it is recorded (and in bounds if it were).
        let e = unsafe {
            driver.launch(
                &kernel,
                &Launch::linear(1, 64, 0),
                &[&input, &out, &counter],
                &[64, 1],
            )
        }
        .err();
        assert!(
            matches!(e, Some(rosetta_core::Error::InvalidArgument(_))),
            "{}: {e:?}",
            info.id()
        );
        // The probe recorded first still ran.
        assert_eq!(
            download(&mut driver, &out, 64),
            probe_expected(&[7; 64], 64, 1),
            "{}",
            info.id()
        );
        driver.release_kernel(kernel);
        driver.release_kernel(probe_kernel);
        for buffer in [input, out, counter] {
            driver.free(buffer);
        }
    }
}

/// The backstop: a batch wgpu refuses at submission (here a dispatch
/// recorded past the binding-size check) loses the ops recorded before it,
/// so the device must refuse further work rather than let their outputs be
/// read back as results (they read as zeros).
#[test]
fn a_refused_batch_loses_the_device_not_the_results() {
    for (info, mut driver) in drivers(&DiskCache::at(temp_dir("refused-batch"))) {
        let input = upload(&mut driver, &[7; 64]);
        let out = driver.alloc(256).unwrap();
        let counter = driver.alloc(16).unwrap();
        let probe_spec = KernelSpec::new(probe(), &[("GROUP_SIZE", 64)]).unwrap();
        let probe_kernel = driver
            .compile(&probe_spec, probe().require(Api::Wgpu).unwrap())
            .unwrap();
        let fixed = probe_like("array<u32, 128>", "n: u32, add: u32");
        let spec = KernelSpec::new(&fixed, &[("GROUP_SIZE", 64)]).unwrap();
        let kernel = driver
            .compile(&spec, fixed.require(Api::Wgpu).unwrap())
            .unwrap();
        let launch = Launch::linear(1, 64, 256);
        // SAFETY: the probe with n = 64 stays inside 64 words of `input` and
        // `out` and counter[0]; the second kernel reads input[0..64] only
        // (wgpu refuses its binding of 64 words for 128 before it runs).
        unsafe {
            driver
                .launch(&probe_kernel, &launch, &[&input, &out, &counter], &[64, 1])
                .unwrap();
            driver
                .record_unchecked(&kernel, &launch, &[&input, &out, &counter], &[64, 1])
                .unwrap();
        }
        let mut bytes = vec![0u8; 256];
        assert!(driver.read(&out, 0, &mut bytes).is_err(), "{}", info.id());
        let again = driver.read(&out, 0, &mut bytes);
        assert!(
            matches!(again, Err(rosetta_core::Error::DeviceLost { .. })),
            "{}: {again:?}",
            info.id()
        );
    }
}
