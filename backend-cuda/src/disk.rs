//! The persistent compiled-kernel cache (`kernels/cuda` under
//! `rosetta_core::disk_cache::root()`): cubins (or PTX) by a key of
//! everything the image depends on.
//!
//! The key holds the device's name, the driver's CUDA version, NVRTC's
//! version, the compute capability, the kernel's fingerprint in CUDA C
//! (interface + source text), the constants and every NVRTC option (which
//! names the target architecture), so a change of any of them is another
//! entry. An entry is loaded only when its payload has the shape of an image
//! (`crate::image::check`) and the driver accepts it; otherwise the kernel
//! is compiled again and the entry overwritten.

use rosetta_core::disk_cache::DiskCache;
use rosetta_core::Fingerprint;

/// The cache's folder under the root.
const KIND: &str = "kernels/cuda";

/// The persistent cache of compiled kernels (off when the root is).
pub(crate) fn cache() -> DiskCache {
    DiskCache::new(KIND)
}

/// Everything a compiled image depends on.
#[derive(Debug, Clone)]
pub(crate) struct KeyInputs<'a> {
    /// The device's name.
    pub(crate) device: &'a str,
    /// `cuDriverGetVersion` (1000·major + 10·minor).
    pub(crate) driver_version: i32,
    /// NVRTC's (major, minor).
    pub(crate) nvrtc_version: (i32, i32),
    /// The device's compute capability (major, minor).
    pub(crate) compute: (i32, i32),
    /// The kernel's fingerprint in CUDA C.
    pub(crate) source: Fingerprint,
    /// The constants' values.
    pub(crate) constants: &'a [u32],
    /// Every NVRTC option, in order.
    pub(crate) options: &'a [String],
}

/// The cache key of one compiled image.
pub(crate) fn key(inputs: &KeyInputs<'_>) -> Fingerprint {
    let int = |v: i32| u64::from(v as u32);
    let mut key = Fingerprint::default()
        .str("rosetta cuda kernel image v1")
        .str(rosetta_core::Api::Cuda.name())
        .str(inputs.device)
        .u64(int(inputs.driver_version))
        .u64(int(inputs.nvrtc_version.0))
        .u64(int(inputs.nvrtc_version.1))
        .u64(int(inputs.compute.0))
        .u64(int(inputs.compute.1))
        .str(&inputs.source.hex())
        .u64(inputs.constants.len() as u64);
    for &value in inputs.constants {
        key = key.u64(u64::from(value));
    }
    key = key.u64(inputs.options.len() as u64);
    for option in inputs.options {
        key = key.str(option);
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_changes_with_every_input() {
        let options = vec!["--gpu-architecture=sm_90".to_string(), "-DA=1u".to_string()];
        let base = KeyInputs {
            device: "NVIDIA H200",
            driver_version: 13000,
            nvrtc_version: (13, 0),
            compute: (9, 0),
            source: Fingerprint::default().str("source"),
            constants: &[256, 4],
            options: &options,
        };
        let reference = key(&base);
        assert_eq!(reference, key(&base.clone()), "stable");
        let other_options = vec![
            "--gpu-architecture=compute_90".to_string(),
            "-DA=1u".to_string(),
        ];
        let reordered = vec!["-DA=1u".to_string(), "--gpu-architecture=sm_90".to_string()];
        let fewer = vec!["--gpu-architecture=sm_90".to_string()];
        let variants = [
            KeyInputs {
                device: "NVIDIA H100",
                ..base.clone()
            },
            KeyInputs {
                driver_version: 12080,
                ..base.clone()
            },
            KeyInputs {
                nvrtc_version: (13, 1),
                ..base.clone()
            },
            KeyInputs {
                nvrtc_version: (12, 0),
                ..base.clone()
            },
            KeyInputs {
                compute: (9, 1),
                ..base.clone()
            },
            KeyInputs {
                compute: (10, 0),
                ..base.clone()
            },
            KeyInputs {
                source: Fingerprint::default().str("source2"),
                ..base.clone()
            },
            KeyInputs {
                constants: &[256, 5],
                ..base.clone()
            },
            KeyInputs {
                constants: &[256],
                ..base.clone()
            },
            KeyInputs {
                constants: &[4, 256],
                ..base.clone()
            },
            KeyInputs {
                options: &other_options,
                ..base.clone()
            },
            KeyInputs {
                options: &reordered,
                ..base.clone()
            },
            KeyInputs {
                options: &fewer,
                ..base.clone()
            },
        ];
        let mut seen = vec![reference];
        for (i, variant) in variants.iter().enumerate() {
            let k = key(variant);
            assert!(!seen.contains(&k), "variant {i} collides: {variant:?}");
            seen.push(k);
        }
    }

    #[test]
    fn entries_round_trip_under_their_key() {
        let dir = std::env::temp_dir().join(format!("rosetta-cuda-disk-{}", std::process::id()));
        let cache = DiskCache::at(&dir);
        let options = vec!["--gpu-architecture=sm_90".to_string()];
        let inputs = KeyInputs {
            device: "d",
            driver_version: 13000,
            nvrtc_version: (13, 0),
            compute: (9, 0),
            source: Fingerprint::default(),
            constants: &[64],
            options: &options,
        };
        cache.put(&key(&inputs), b"image");
        assert_eq!(cache.get(&key(&inputs)).as_deref(), Some(&b"image"[..]));
        let other = KeyInputs {
            constants: &[128],
            ..inputs
        };
        assert_eq!(cache.get(&key(&other)), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
