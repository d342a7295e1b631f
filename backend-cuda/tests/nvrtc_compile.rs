//! Every CUDA kernel compiles with NVRTC for sm_90 (H100/H200) under several
//! constant sets — no driver or GPU needed, only NVRTC.
//!
//! NVRTC is found as the backend finds it: `ROSETTA_NVRTC=/path/libnvrtc.so.13`
//! (file or directory), else the loader's path, the CUDA toolkit, and Python
//! wheels (`pip install nvidia-cuda-nvrtc`). Without NVRTC, the test checks
//! that its absence is reported as `Error::Unavailable` naming NVRTC.
//!
//! `cargo test -p rosetta-backend-cuda --test nvrtc_compile -- --nocapture`
//! prints ptxas' register and spill report for each kernel; with
//! `ROSETTA_CUBIN_DIR=dir` the cubins are written there too (for
//! `cuobjdump -sass`).

use rosetta_backend_cuda::{compile_offline, Nvrtc, Target};
use rosetta_core::{Api, Error, KernelDef, KernelSpec};
use rosetta_kernels::{conv1d, conv2d, copy, histogram, matmul, reduce};

fn spec(def: &'static KernelDef, constants: &[(&str, u32)]) -> KernelSpec {
    KernelSpec::new(def, constants).expect("a valid constant set")
}

/// The constant sets the plans produce on an H100/H200, plus edge cases
/// (small groups, the other tilings, large filters, big shared histograms).
fn specs() -> Vec<KernelSpec> {
    let mut all = Vec::new();
    for group in [256, 64, 1024, 32, 16] {
        for elem in 0..3 {
            for op in 0..3 {
                for subgroups in 0..2 {
                    all.push(spec(
                        &reduce::KERNEL,
                        &[
                            ("GROUP_SIZE", group),
                            ("ELEM", elem),
                            ("OP", op),
                            ("SUBGROUPS", subgroups),
                        ],
                    ));
                }
            }
        }
    }
    for (group, bins, shared_bins) in [
        (256, 256, 256),
        (256, 1, 1),
        (256, 4096, 4096),
        (256, 65536, 1),
        (256, 49152, 49152),
        (128, 7, 7),
    ] {
        for input in 0..2 {
            all.push(spec(
                &histogram::KERNEL,
                &[
                    ("GROUP_SIZE", group),
                    ("BINS", bins),
                    ("SHARED_BINS", shared_bins),
                    ("INPUT", input),
                ],
            ));
        }
    }
    for (group, items, taps) in [
        (256, 4, 9),
        (256, 4, 1),
        (256, 4, 3),
        (256, 2, 1025),
        (64, 1, 4095),
        (256, 4, 101),
    ] {
        all.push(spec(
            &conv1d::KERNEL,
            &[("GROUP_SIZE", group), ("ITEMS", items), ("TAPS", taps)],
        ));
    }
    for (group, tile_w, tile_h, kh, kw) in [
        (256, 32, 32, 5, 5),
        (256, 32, 32, 1, 1),
        (256, 32, 32, 3, 3),
        (256, 32, 32, 7, 9),
        (256, 32, 16, 31, 31),
        (128, 16, 8, 9, 7),
        (64, 8, 8, 3, 5),
    ] {
        for border in 0..2 {
            all.push(spec(
                &conv2d::KERNEL,
                &[
                    ("GROUP_SIZE", group),
                    ("TILE_W", tile_w),
                    ("TILE_H", tile_h),
                    ("KH", kh),
                    ("KW", kw),
                    ("BORDER", border),
                ],
            ));
        }
    }
    for t in matmul::TILINGS {
        all.push(spec(
            &matmul::KERNEL,
            &[
                ("GROUP_SIZE", t.group_size()),
                ("TILE_M", t.tile_m),
                ("TILE_N", t.tile_n),
                ("TILE_K", t.tile_k),
                ("THREAD_M", t.thread_m),
                ("THREAD_N", t.thread_n),
            ],
        ));
    }
    for group in [256, 1024, 64] {
        all.push(spec(&copy::KERNEL, &[("GROUP_SIZE", group)]));
    }
    all
}

#[test]
fn every_kernel_compiles_for_sm_90() {
    let nvrtc = match Nvrtc::get() {
        Ok(nvrtc) => nvrtc,
        Err(reason) => {
            // No NVRTC here: its absence must be a typed Unavailable error.
            let spec = spec(&copy::KERNEL, &[("GROUP_SIZE", 256)]);
            match compile_offline(&spec, Target::Cubin(90), &[]) {
                Err(Error::Unavailable {
                    api: Api::Cuda,
                    reason: r,
                }) => {
                    assert!(r.contains("NVRTC"), "reason should name NVRTC: {r}");
                    eprintln!("NVRTC not found, compile check skipped: {reason}");
                }
                other => panic!("expected Unavailable without NVRTC, got {other:?}"),
            }
            return;
        }
    };
    eprintln!(
        "NVRTC {}.{} from {} (archs {:?})",
        nvrtc.version.0, nvrtc.version.1, nvrtc.path, nvrtc.archs
    );
    assert!(nvrtc.archs.contains(&90), "NVRTC without sm_90");
    assert_eq!(nvrtc.target_for(9, 0), Ok(Target::Cubin(90)));
    let mut failures = Vec::new();
    for spec in specs() {
        match compile_offline(&spec, Target::Cubin(90), &["--ptxas-options=-v"]) {
            Ok(image) => {
                assert!(!image.bytes.is_empty(), "{}: empty cubin", spec.cache_key());
                if let Some(dir) = std::env::var_os("ROSETTA_CUBIN_DIR") {
                    let file = format!("{}.cubin", spec.cache_key().replace(' ', "_"));
                    std::fs::write(std::path::Path::new(&dir).join(file), &image.bytes)
                        .expect("write the cubin");
                }
                let report: Vec<&str> = image
                    .log
                    .lines()
                    .filter(|l| l.contains("registers") || l.contains("spill"))
                    .collect();
                eprintln!("{}: {}", spec.cache_key(), report.join(" | "));
            }
            Err(e) => failures.push(format!("{e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} kernels failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn a_bad_source_reports_nvrtc_log() {
    static BROKEN: KernelDef = KernelDef {
        name: "broken",
        constants: &["GROUP_SIZE"],
        bindings: &[],
        params: &[],
        dynamic_shared: false,
        sources: rosetta_core::Sources {
            wgsl: "",
            cuda: "extern \"C\" __global__ void broken() { this_is_not_defined(); }",
            glsl: "",
            opencl: "",
        },
        cpu: |_, _| {},
    };
    let spec = spec(&BROKEN, &[("GROUP_SIZE", 64)]);
    match compile_offline(&spec, Target::Cubin(90), &[]) {
        Err(Error::Compile {
            api: Api::Cuda,
            kernel,
            log,
        }) => {
            assert!(kernel.starts_with("broken"));
            assert!(
                log.contains("this_is_not_defined"),
                "log should quote the error: {log}"
            );
        }
        Err(Error::Unavailable {
            api: Api::Cuda,
            reason,
        }) => {
            assert!(reason.contains("NVRTC"), "{reason}");
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
}

#[test]
fn ptx_fallback_compiles() {
    if Nvrtc::get().is_err() {
        return;
    }
    let spec = spec(
        &reduce::KERNEL,
        &[
            ("GROUP_SIZE", 256),
            ("ELEM", 0),
            ("OP", 0),
            ("SUBGROUPS", 1),
        ],
    );
    let image = compile_offline(&spec, Target::Ptx(90), &[]).expect("PTX for compute_90");
    assert_eq!(
        image.bytes.last(),
        Some(&0),
        "PTX is NUL-terminated for cuModuleLoadData"
    );
    assert!(String::from_utf8_lossy(&image.bytes).contains(".entry reduce"));
}
