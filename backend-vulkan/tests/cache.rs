//! The persistent caches: a cold open compiles with glslang and saves the
//! SPIR-V and the pipeline-cache data; a warm open reads both; damaged or
//! foreign entries are rejected and rebuilt, never trusted or fatal.
//!
//! One test in this binary: it points `ROSETTA_CACHE_DIR` at a fresh folder.

use rosetta_backend_vulkan::{cache_stats, discover};
use rosetta_core::contract::{probe, probe_expected};
use rosetta_core::{Backend, Buffer, Fingerprint, KernelSpec, Launch};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Compile the probe on every device and check what it computes.
fn use_every_device() {
    let devices: Vec<Arc<dyn Backend>> = discover().unwrap_or_else(|e| panic!("{}", e.chain()));
    assert!(!devices.is_empty(), "no Vulkan device");
    for device in &devices {
        let spec = KernelSpec::new(probe(), &[("GROUP_SIZE", 64)]).unwrap();
        let kernel = device.compile(&spec).unwrap();
        let input: Vec<u32> = (0..256).collect();
        let src = Buffer::from_slice(device, &input).unwrap();
        let dst = device.alloc(1024).unwrap();
        let counter = device.alloc(16).unwrap();
        // SAFETY: the probe touches src[i], dst[i] for i < 256 and counter[0].
        unsafe {
            device.launch(
                &kernel,
                &Launch::linear(4, 64, 256),
                &[&src, &dst, &counter],
                &[256, 5],
            )
        }
        .unwrap();
        assert_eq!(dst.read::<u32>(256).unwrap(), probe_expected(&input, 64, 5));
    }
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|list| {
            list.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "bin"))
                .collect()
        })
        .unwrap_or_default()
}

/// Overwrite a cache entry with `payload` in a whole, checksummed envelope
/// (the disk cache's format), so only the backend's own checks can reject it.
fn forge(path: &Path, payload: &[u8]) {
    let key = path.file_stem().unwrap().to_str().unwrap();
    let mut data = b"ROSETTA-CACHE-v1".to_vec();
    data.extend_from_slice(key.as_bytes());
    data.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    data.extend_from_slice(Fingerprint::default().bytes(payload).hex().as_bytes());
    data.extend_from_slice(payload);
    std::fs::write(path, data).unwrap();
}

#[test]
fn caches_persist_and_bad_entries_are_rebuilt() {
    let root = std::env::temp_dir().join(format!("rosetta-vulkan-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::env::set_var("ROSETTA_CACHE_DIR", &root);
    let spirv_dir = root.join("kernels/vulkan/spirv");
    let pipeline_dir = root.join("kernels/vulkan/pipelines");

    // Cold: glslang runs, both caches are written (the pipeline data when the
    // device closes at the latest).
    let s0 = cache_stats();
    use_every_device();
    let s1 = cache_stats();
    assert!(s1.spirv_misses > s0.spirv_misses, "{s0:?} -> {s1:?}");
    assert!(!entries(&spirv_dir).is_empty(), "no SPIR-V written");
    let saved_pipelines = !entries(&pipeline_dir).is_empty();
    assert_eq!(
        saved_pipelines,
        s1.pipeline_data_saved > s0.pipeline_data_saved
    );

    // Warm: no glslang; the pipeline data (where the driver gave some) loads.
    use_every_device();
    let s2 = cache_stats();
    assert_eq!(s2.spirv_misses, s1.spirv_misses, "{s1:?} -> {s2:?}");
    assert!(s2.spirv_hits > s1.spirv_hits, "{s1:?} -> {s2:?}");
    if saved_pipelines {
        assert!(
            s2.pipeline_data_loaded > s1.pipeline_data_loaded,
            "{s1:?} -> {s2:?}"
        );
    }

    // Foreign or broken entries in intact envelopes: SPIR-V with a capability
    // no device enables, pipeline data of another vendor. Both are rejected,
    // rebuilt, and the kernels still work.
    let bad_spirv: Vec<u8> = [0x0723_0203u32, 0x0001_0300, 0, 10, 0, 0x0002_0011, 4242]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    for path in entries(&spirv_dir) {
        forge(&path, &bad_spirv);
    }
    let mut foreign = Vec::new();
    for word in [32u32, 1, 0xdead, 0xbeef] {
        foreign.extend_from_slice(&word.to_le_bytes());
    }
    foreign.extend_from_slice(&[9; 16]);
    for path in entries(&pipeline_dir) {
        forge(&path, &foreign);
    }
    use_every_device();
    let s3 = cache_stats();
    assert!(s3.spirv_rejected > s2.spirv_rejected, "{s2:?} -> {s3:?}");
    if saved_pipelines {
        assert!(
            s3.pipeline_data_rejected > s2.pipeline_data_rejected,
            "{s2:?} -> {s3:?}"
        );
    }

    // Damaged files (checksum off, truncated): dropped by the disk cache,
    // compiled again.
    for path in entries(&spirv_dir).iter().chain(&entries(&pipeline_dir)) {
        let data = std::fs::read(path).unwrap();
        std::fs::write(path, &data[..data.len() / 2]).unwrap();
    }
    use_every_device();
    let s4 = cache_stats();
    assert!(s4.spirv_misses > s3.spirv_misses, "{s3:?} -> {s4:?}");
    let _ = std::fs::remove_dir_all(&root);
}
