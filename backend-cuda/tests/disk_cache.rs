//! The persistent kernel cache on a CUDA device: a compile stores the image,
//! a device opened later loads it without compiling (the entry is not
//! rewritten), and a damaged entry is rebuilt. Skipped where CUDA is
//! unavailable, unless `ROSETTA_REQUIRE` names cuda.
//!
//! One test in its own binary: it points `ROSETTA_CACHE_DIR` at a fresh
//! folder before any device opens.

mod common;

use rosetta_core::contract::{probe, probe_expected};
use rosetta_core::{Backend, Buffer, KernelSpec, Launch};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "bin"));
    files.sort();
    files
}

/// Compile the probe (GROUP_SIZE 64) on the first device and check it runs.
fn compile_and_run(device: &Arc<dyn Backend>) {
    let spec = KernelSpec::new(probe(), &[("GROUP_SIZE", 64)]).unwrap();
    let kernel = device.compile(&spec).expect("the probe builds");
    let input: Vec<u32> = (0..128).collect();
    let src = Buffer::from_slice(device, &input).unwrap();
    let (dst, counter) = (device.alloc(512).unwrap(), device.alloc(16).unwrap());
    // SAFETY: the probe touches words below n = 128 of 128-word buffers, and
    // counter[0].
    unsafe {
        device.launch(
            &kernel,
            &Launch::linear(2, 64, 256),
            &[&src, &dst, &counter],
            &[128, 3],
        )
    }
    .unwrap();
    assert_eq!(dst.read::<u32>(128).unwrap(), probe_expected(&input, 64, 3));
}

#[test]
fn compiled_kernels_persist_and_damaged_entries_are_rebuilt() {
    let root = std::env::temp_dir().join(format!("rosetta-cuda-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    // Before any device opens (the only test of this binary).
    std::env::set_var("ROSETTA_CACHE_DIR", &root);
    let dir = root.join("kernels").join("cuda");

    let Some(devices) = common::devices("compiled_kernels_persist_and_damaged_entries_are_rebuilt")
    else {
        return;
    };
    compile_and_run(&devices[0]);
    drop(devices);
    let stored = entries(&dir);
    assert_eq!(stored.len(), 1, "one entry per compiled kernel: {stored:?}");
    let path = stored[0].clone();
    let written = std::fs::read(&path).unwrap();
    let modified = std::fs::metadata(&path).unwrap().modified().unwrap();

    // A device opened later loads the entry: nothing is written.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let devices = common::devices("reopen").expect("the device opens again");
    compile_and_run(&devices[0]);
    drop(devices);
    assert_eq!(entries(&dir), stored);
    assert_eq!(std::fs::read(&path).unwrap(), written);
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        modified,
        "a hit rewrote the entry"
    );

    // A damaged entry is dropped by the cache, the kernel rebuilt and the
    // entry written again.
    let mut damaged = written.clone();
    let last = damaged.len() - 1;
    damaged[last] ^= 0x55;
    std::fs::write(&path, &damaged).unwrap();
    let devices = common::devices("damaged").expect("the device opens again");
    compile_and_run(&devices[0]);
    drop(devices);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        written,
        "rebuilt and stored again"
    );

    let _ = std::fs::remove_dir_all(&root);
}
