//! Unit tests of internals that need a CUDA device: the persistent cache's
//! rebuild path and both ways of freeing memory. Without a device they are
//! skipped loudly (a failure when `ROSETTA_REQUIRE` names cuda).

use crate::compile::{Compiler, DeviceKey};
use crate::gpu::{Context, DeviceMemory, Stream};
use crate::nvrtc::Nvrtc;
use crate::probe;
use crate::sys::driver::{self, CUdevice_attribute as Attr};
use crate::target::Target;
use rosetta_core::disk_cache::DiskCache;
use rosetta_core::{Api, Error, KernelSpec, Language, Source};
use std::sync::Arc;

/// Device 0: a stream on it, NVRTC, its target and key; `None` (after a
/// loud skip) where CUDA is unavailable.
fn device(test: &str) -> Option<(Arc<Stream>, &'static Nvrtc, Target, DeviceKey, bool)> {
    let required = rosetta_core::contract::required_apis()
        .map(|apis| apis.contains(&Api::Cuda))
        .unwrap_or(false);
    let found = (|| -> Result<_, String> {
        probe::driver()?;
        let nvrtc = Nvrtc::get()?;
        let fail = |e: driver::CuError| format!("{}: {e}", e.call());
        driver::init().map_err(fail)?;
        let device = driver::device_get(0).map_err(fail)?;
        let attr = |a| driver::device_attribute(device, a).map_err(fail);
        let compute = (
            attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        );
        let pools = attr(Attr::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)? != 0;
        let target = nvrtc.target_for(compute.0, compute.1)?;
        let key = DeviceKey {
            name: driver::device_name(device).map_err(fail)?,
            driver_version: driver::driver_version().map_err(fail)?,
            compute,
        };
        let context = Context::retain(device).map_err(|e| e.chain())?;
        let stream = Stream::new(&context).map_err(|e| e.chain())?;
        Ok((stream, nvrtc, target, key, pools))
    })();
    match found {
        Ok(found) => Some(found),
        Err(e) if required => panic!("cuda is required (ROSETTA_REQUIRE) but failed: {e}"),
        Err(e) => {
            eprintln!("SKIPPED {test}: cuda unavailable: {e}");
            None
        }
    }
}

#[test]
fn cache_entries_the_driver_refuses_are_rebuilt_and_overwritten() {
    let Some((stream, nvrtc, target, device, _)) = device("cache_entries_the_driver_refuses")
    else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("rosetta-cuda-refused-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let disk = DiskCache::at(&dir);
    let compiler = Compiler::new(nvrtc, target, device.clone(), disk.clone()).unwrap();
    let spec = KernelSpec::new(rosetta_core::contract::probe(), &[("GROUP_SIZE", 64)]).unwrap();
    let Some(Source::Text(text)) = spec.def().source(Language::Cuda) else {
        panic!("the probe has CUDA C");
    };
    let source = || Source::Text(text);
    let key = compiler.key(&spec, &compiler.options(&spec));

    // A miss compiles and stores.
    assert!(disk.get(&key).is_none());
    compiler.compile(&stream, &spec, source()).unwrap();
    let stored = disk.get(&key).expect("stored after the compile");

    // An image of the right shape that the driver refuses: the probe built
    // for an architecture of another generation.
    let sm = device.compute.0 * 10 + device.compute.1;
    let foreign = nvrtc.archs().iter().rev().copied().find(|&a| {
        i64::from(a / 10) != i64::from(device.compute.0)
            && (matches!(target, Target::Cubin(_)) || i64::from(a) > i64::from(sm))
    });
    match foreign {
        Some(arch) => {
            let other = match target {
                Target::Cubin(_) => Target::Cubin(arch),
                Target::Ptx(_) => Target::Ptx(arch),
            };
            let options = crate::options::build(&spec, other, &[]);
            let image = nvrtc
                .compile(text, "probe", other, &options)
                .unwrap_or_else(|_| panic!("the probe builds for {}", other.arch()));
            assert_ne!(image.bytes(), &stored[..]);
            disk.put(&key, image.bytes());
            compiler.compile(&stream, &spec, source()).expect("rebuilt");
            assert_eq!(
                disk.get(&key).as_deref(),
                Some(&stored[..]),
                "the entry was overwritten"
            );
        }
        None => eprintln!("no architecture of another generation to forge an entry with"),
    }

    // A payload that is no image at all is never handed to the driver.
    disk.put(&key, b"not an image");
    compiler.compile(&stream, &spec, source()).expect("rebuilt");
    assert_eq!(disk.get(&key).as_deref(), Some(&stored[..]));

    // A hit leaves the entry as it was.
    compiler.compile(&stream, &spec, source()).unwrap();
    assert_eq!(disk.get(&key).as_deref(), Some(&stored[..]));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn memory_is_freed_after_the_work_that_uses_it_both_ways() {
    let Some((stream, _, _, _, pools)) = device("memory_is_freed_after_the_work") else {
        return;
    };
    let words: Vec<u32> = (0..1u32 << 20)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let data: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let bytes = data.len() as u64;
    // Stream-ordered frees only where the device has memory pools; the
    // synchronising free everywhere.
    for ordered in [false, pools] {
        let target = DeviceMemory::zeroed(&stream, bytes, ordered).unwrap();
        let mut out = vec![0xffu8; data.len()];
        target.read(0, &mut out).unwrap();
        assert!(out.iter().all(|&b| b == 0), "zeroed (ordered: {ordered})");
        for _ in 0..8 {
            let source = DeviceMemory::zeroed(&stream, bytes, ordered).unwrap();
            source.write(0, &data).unwrap();
            source.copy_to(0, &target, 0, bytes).unwrap();
            // Dropped while the copy may still be queued.
            drop(source);
        }
        target.read(0, &mut out).unwrap();
        assert!(out == data, "copied before the free (ordered: {ordered})");
        // Ranges outside the allocation never reach the driver.
        for e in [
            target.write(bytes - 4, &[0; 8]).err(),
            target.read(u64::MAX - 3, &mut [0; 8]).err(),
            target.copy_to(0, &target, 4, 4).err(),
        ] {
            assert!(matches!(e, Some(Error::Internal(_))), "{e:?}");
        }
    }
    stream.synchronize().unwrap();
}
