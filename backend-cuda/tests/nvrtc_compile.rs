//! The NVRTC path without a driver or a GPU: compiling, logs, targets.
//!
//! NVRTC is found as the backend finds it: `ROSETTA_NVRTC=/path/libnvrtc.so.13`
//! (file or folder), else the loader's path, the CUDA toolkit and Python
//! wheels (`pip install nvidia-cuda-nvrtc`). Without NVRTC each test checks
//! that its absence is an `Unavailable` error naming NVRTC.
//!
//! (The check that every op kernel compiles lives with the kernels.)

mod common;

use rosetta_backend_cuda::{compile_offline, Image, Nvrtc, Target};
use rosetta_core::contract::{broken, probe};
use rosetta_core::{Api, Error, KernelSpec, Result};

fn spec64(def: &std::sync::Arc<rosetta_core::KernelDef>) -> KernelSpec {
    KernelSpec::new(def, &[("GROUP_SIZE", 64)]).expect("a valid constant set")
}

/// The result, or `None` after checking that NVRTC's absence was reported.
fn compiled(result: Result<Image>) -> Option<Result<Image>> {
    match result {
        Err(Error::Unavailable {
            api: Api::Cuda,
            reason,
        }) => {
            assert!(
                reason.contains("NVRTC"),
                "reason should name NVRTC: {reason}"
            );
            assert!(Nvrtc::get().is_err(), "Unavailable although NVRTC loads");
            eprintln!("SKIPPED: {reason}");
            None
        }
        other => Some(other),
    }
}

/// Compile `spec` for sm_90, panicking with NVRTC's log if it fails; false
/// when NVRTC is absent (reported by [`compiled`]).
fn builds_for_sm90(spec: &KernelSpec) -> bool {
    let Some(result) = compiled(compile_offline(spec, Target::Cubin(90), &[])) else {
        return false;
    };
    if let Err(e) = result {
        panic!("{}: {}", spec.label(), e.chain());
    }
    true
}

#[test]
fn the_probe_compiles_to_a_cubin() {
    let Some(image) = compiled(compile_offline(&spec64(probe()), Target::Cubin(90), &[])) else {
        return;
    };
    let image = image.expect("the probe compiles for sm_90");
    assert_eq!(image.target(), Target::Cubin(90));
    assert_eq!(&image.bytes()[..4], b"\x7fELF");
}

#[test]
fn ptx_for_newer_devices_is_nul_terminated() {
    let Some(image) = compiled(compile_offline(&spec64(probe()), Target::Ptx(90), &[])) else {
        return;
    };
    let image = image.expect("PTX for compute_90");
    assert_eq!(
        image.bytes().last(),
        Some(&0),
        "cuModuleLoadData reads PTX up to its NUL"
    );
    let text = String::from_utf8_lossy(image.bytes());
    assert!(text.contains(".entry probe"), "{text}");
    assert!(text.contains(".target sm_90"), "{text}");
}

#[test]
fn compile_errors_carry_nvrtcs_log() {
    let Some(result) = compiled(compile_offline(&spec64(broken()), Target::Cubin(90), &[])) else {
        return;
    };
    match result {
        Err(Error::Compile {
            api: Api::Cuda,
            kernel,
            log,
        }) => {
            assert_eq!(kernel, "broken GROUP_SIZE=64");
            assert!(
                log.contains("undefined_name"),
                "the log should quote the error: {log}"
            );
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
}

#[test]
fn options_nvrtc_refuses_are_compile_errors() {
    let spec = spec64(probe());
    let Some(result) = compiled(compile_offline(
        &spec,
        Target::Cubin(90),
        &["--no-such-option"],
    )) else {
        return;
    };
    match result {
        Err(Error::Compile { log, .. }) => {
            assert!(
                log.contains("no-such-option") || log.contains("INVALID_OPTION"),
                "{log}"
            )
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
}

#[test]
fn dynamic_shared_kernels_compile_and_ptxas_reports_reach_the_log() {
    let spec = spec64(common::fill_shared());
    let Some(image) = compiled(compile_offline(
        &spec,
        Target::Cubin(90),
        &["--ptxas-options=-v"],
    )) else {
        return;
    };
    let image = image.expect("fill_shared compiles");
    assert!(
        image.log().contains("registers"),
        "ptxas' report: {}",
        image.log()
    );
}

#[test]
fn kernels_without_cuda_c_are_unsupported() {
    let def = rosetta_core::KernelDef::builder("wgsl_only")
        .bindings([rosetta_core::Access::Read])
        .source(rosetta_core::Language::Wgsl, "fn main() {}")
        .build_arc()
        .expect("a valid definition");
    match compile_offline(&spec64(&def), Target::Cubin(90), &[]) {
        Err(Error::Unsupported { api: Api::Cuda, .. }) | Err(Error::Unavailable { .. }) => {}
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

#[test]
fn targets_follow_the_loaded_nvrtc() {
    let Ok(nvrtc) = Nvrtc::get() else {
        eprintln!("SKIPPED: no NVRTC");
        return;
    };
    eprintln!(
        "NVRTC {:?} from {} (archs {:?})",
        nvrtc.version(),
        nvrtc.path(),
        nvrtc.archs()
    );
    assert!(nvrtc.archs().windows(2).all(|w| w[0] < w[1]), "ascending");
    let newest = *nvrtc.archs().last().expect("at least one architecture");
    if nvrtc.archs().contains(&90) {
        assert_eq!(nvrtc.target_for(9, 0), Ok(Target::Cubin(90)));
    }
    assert_eq!(nvrtc.target_for(99, 9), Ok(Target::Ptx(newest)));
    assert!(nvrtc.target_for(1, 0).is_err());
}

/// The reduce kernel builds in every configuration the plan can choose,
/// the one-launch path (`LAST_GROUP = 1`, inline PTX) included.
#[test]
fn the_reduce_kernel_builds_in_every_configuration() {
    let def = rosetta_kernels::reduce::kernel();
    for elem in 0..3 {
        for op in 0..3 {
            for subgroups in 0..2 {
                for last_group in 0..2 {
                    let spec = KernelSpec::new(
                        def,
                        &[
                            ("GROUP_SIZE", 256),
                            ("ELEM", elem),
                            ("OP", op),
                            ("SUBGROUPS", subgroups),
                            ("LAST_GROUP", last_group),
                        ],
                    )
                    .expect("a valid constant set");
                    // The two ends of what CUDA 13 builds for.
                    for arch in [90, 75] {
                        let Some(result) =
                            compiled(compile_offline(&spec, Target::Cubin(arch), &[]))
                        else {
                            return;
                        };
                        if let Err(e) = result {
                            panic!("{} sm_{arch}: {}", spec.label(), e.chain());
                        }
                    }
                }
            }
        }
    }
}

/// The conv2d kernel builds for every register-window shape the plan allows
/// (up to 9 × 9 filters, 16 rows per thread: fully unrolled), and for the
/// tiles with a filter the unroll pragmas leave as loops.
#[test]
fn the_conv2d_kernel_builds_as_windows_and_tiles() {
    let def = rosetta_kernels::conv2d::kernel();
    let configs = [
        // (TILE_W, TILE_H, KH, KW, WINDOW)
        (32, 32, 1, 1, 1),
        (32, 64, 5, 5, 1),
        (32, 128, 9, 9, 1),
        (32, 128, 1, 9, 1),
        (32, 32, 31, 31, 0),
        (8, 8, 3, 5, 0),
    ];
    for (tile_w, tile_h, kh, kw, window) in configs {
        for (border, elem) in [(0, 0), (1, 3)] {
            let spec = KernelSpec::new(
                def,
                &[
                    ("GROUP_SIZE", 256.min(tile_w * tile_h)),
                    ("TILE_W", tile_w),
                    ("TILE_H", tile_h),
                    ("KH", kh),
                    ("KW", kw),
                    ("BORDER", border),
                    ("ELEM", elem),
                    ("WINDOW", window),
                ],
            )
            .expect("a valid constant set");
            if !builds_for_sm90(&spec) {
                return;
            }
        }
    }
}

/// The conv1d register window builds for every filter it takes (1 to 33
/// taps: windows of 4 to 36 words, fully unrolled), one and two vectors per
/// thread.
#[test]
fn the_conv1d_window_kernel_builds_for_every_filter_it_takes() {
    let def = rosetta_kernels::conv1d::window_kernel();
    for items in [4, 8] {
        for taps in [1, 3, 9, 15, 33] {
            let spec = KernelSpec::new(
                def,
                &[("GROUP_SIZE", 256), ("ITEMS", items), ("TAPS", taps)],
            )
            .expect("a valid constant set");
            if !builds_for_sm90(&spec) {
                return;
            }
        }
    }
}

/// The conv2d kernel that reads straight from global memory builds for every
/// filter shape it takes (up to 9 × 9 and 17 columns), both row counts, both
/// pixel types and borders.
#[test]
fn the_conv2d_global_kernel_builds_for_every_filter_it_takes() {
    let def = rosetta_kernels::conv2d::global_kernel();
    for rows in [4, 8] {
        for (kh, kw) in [(1, 1), (5, 5), (9, 9), (3, 17), (9, 1)] {
            for (border, elem) in [(0, 0), (1, 3)] {
                let spec = KernelSpec::new(
                    def,
                    &[
                        ("GROUP_SIZE", 256),
                        ("ROWS", rows),
                        ("KH", kh),
                        ("KW", kw),
                        ("BORDER", border),
                        ("ELEM", elem),
                    ],
                )
                .expect("a valid constant set");
                if !builds_for_sm90(&spec) {
                    return;
                }
            }
        }
    }
}

/// The direct conv kernels (filters from global memory, any size) build for
/// short and long filters, both pixel types and borders.
#[test]
fn the_direct_conv_kernels_build_for_any_filter() {
    let conv1d = rosetta_kernels::conv1d::direct_kernel();
    for taps in [1, 33, 20_001] {
        let spec = KernelSpec::new(conv1d, &[("GROUP_SIZE", 256), ("TAPS", taps)])
            .expect("a valid constant set");
        if !builds_for_sm90(&spec) {
            return;
        }
    }
    let conv2d = rosetta_kernels::conv2d::direct_kernel();
    for (kh, kw) in [(1, 1), (63, 63), (3, 4001)] {
        for (border, elem) in [(0, 0), (1, 3), (0, 3), (1, 0)] {
            let spec = KernelSpec::new(
                conv2d,
                &[
                    ("GROUP_SIZE", 256),
                    ("KH", kh),
                    ("KW", kw),
                    ("BORDER", border),
                    ("ELEM", elem),
                ],
            )
            .expect("a valid constant set");
            if !builds_for_sm90(&spec) {
                return;
            }
        }
    }
}
