//! The persistent program-binary cache (`ROSETTA_CACHE_DIR/kernels/opencl`):
//! a build stores the binary, a freshly opened device loads it instead of
//! compiling, and a binary the driver rejects, or a damaged file, is
//! rebuilt from source and its entry overwritten, never a failure.
//!
//! One test in its own binary: it points `ROSETTA_CACHE_DIR` at a fresh
//! folder for the whole process. Unix only: a hit is told from a rewrite
//! by the entry's inode.

#![cfg(unix)]

mod common;

use rosetta_core::contract::{probe, probe_expected};
use rosetta_core::{Backend, Buffer, Fingerprint, KernelSpec, Launch};
use std::collections::BTreeSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn entries(dir: &Path) -> BTreeSet<PathBuf> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "bin"))
                .collect()
        })
        .unwrap_or_default()
}

/// A fresh opening of device `index`.
fn reopen(index: usize) -> Arc<dyn Backend> {
    rosetta_backend_opencl::discover()
        .unwrap()
        .into_iter()
        .find(|d| d.info().index == index)
        .unwrap()
}

/// Compile the probe on `device` and check that it runs.
fn compile_and_run(device: &Arc<dyn Backend>) {
    let spec = KernelSpec::new(probe(), &[("GROUP_SIZE", 64)]).unwrap();
    let kernel = device.compile(&spec).unwrap();
    let input: Vec<u32> = (0..100).collect();
    let src = Buffer::from_slice(device, &input).unwrap();
    let (dst, counter) = (
        Buffer::new(device, 400).unwrap(),
        Buffer::new(device, 4).unwrap(),
    );
    // SAFETY: the probe reads and writes words below n = 100 of buffers of
    // 100 words, and counter[0].
    unsafe {
        device.launch(
            &kernel,
            &Launch::linear(2, 64, 256),
            &[&src, &dst, &counter],
            &[100, 3],
        )
    }
    .unwrap();
    assert_eq!(
        dst.read::<u32>(100).unwrap(),
        probe_expected(&input, 64, 3),
        "{}",
        device.info().id()
    );
}

/// A cache file as `rosetta_core::disk_cache` writes it (magic, key,
/// length, checksum, payload), holding `payload`: intact for the cache,
/// garbage for the driver.
fn well_formed_entry(path: &Path, payload: &[u8]) -> Vec<u8> {
    let key = path.file_stem().unwrap().to_str().unwrap();
    let mut out = b"ROSETTA-CACHE-v1".to_vec();
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(Fingerprint::default().bytes(payload).hex().as_bytes());
    out.extend_from_slice(payload);
    out
}

#[test]
fn program_binaries_are_cached_and_rejected_ones_rebuilt() {
    let root = std::env::temp_dir().join(format!("rosetta-opencl-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::env::set_var("ROSETTA_CACHE_DIR", &root);
    let dir = root.join("kernels/opencl");

    for device in common::devices("program_binaries_are_cached_and_rejected_ones_rebuilt") {
        let (index, id) = (device.info().index, device.info().id());
        drop(device);

        // Miss: built from source, one entry stored.
        let before = entries(&dir);
        compile_and_run(&reopen(index));
        let new: Vec<_> = entries(&dir).difference(&before).cloned().collect();
        let [entry] = &new[..] else {
            if new.is_empty() {
                eprintln!("{id}: the driver gives no program binary; nothing to cache");
                continue;
            }
            panic!("{id}: one build stored {} entries", new.len());
        };
        let stored = std::fs::read(entry).unwrap();
        let inode = std::fs::metadata(entry).unwrap().ino();

        // Hit: a fresh device loads the entry and does not write it again
        // (a write renames a new file into place: a new inode).
        compile_and_run(&reopen(index));
        assert_eq!(
            std::fs::metadata(entry).unwrap().ino(),
            inode,
            "{id}: rewritten on a hit"
        );

        // An intact entry with a binary the driver rejects: rebuilt, and
        // the entry overwritten with a good binary.
        let garbage = well_formed_entry(entry, b"not a program binary at all");
        std::fs::write(entry, &garbage).unwrap();
        compile_and_run(&reopen(index));
        let rewritten = std::fs::read(entry).unwrap();
        assert_ne!(rewritten, garbage, "{id}: rejected binary left in place");
        assert!(
            rewritten.len() > garbage.len(),
            "{id}: rebuilt entry too short"
        );

        // A damaged file (truncated): the cache drops it, the kernel is
        // rebuilt and stored again.
        std::fs::write(entry, &stored[..stored.len() / 2]).unwrap();
        compile_and_run(&reopen(index));
        assert!(
            std::fs::read(entry).unwrap().len() > stored.len() / 2,
            "{id}: the damaged entry was not replaced"
        );
    }
    let _ = std::fs::remove_dir_all(&root);
}
