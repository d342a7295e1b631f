//! Users' extra compiler options (`ROSETTA_NVRTC_OPTIONS`,
//! `ROSETTA_OPENCL_OPTIONS`), checked before any build uses them.
//!
//! Backends append these after their own options, so an option that
//! defines a macro would override the constants rosetta passes as
//! `-DNAME=valueu` (a `-DOP=2` made PoCL's sum a max), and one that relaxes
//! floating-point rules would drop NaN, infinities, signed zeros or
//! subnormals that the ops' contracts keep. Either gives results that pass
//! for correct ones, so such options are refused, naming the option.

use crate::error::{Error, Result};

/// Option prefixes refused in users' extras, with why: defining, undefining
/// or including text into a kernel's source (NVRTC and OpenCL C spell them
/// alike), and the math relaxations of OpenCL C and NVRTC.
const REFUSED: [(&str, &str); 16] = [
    (
        "-D",
        "defines a macro, which can replace a constant rosetta defines",
    ),
    (
        "-U",
        "undefines a macro, which can remove a constant rosetta defines",
    ),
    (
        "--define-macro",
        "defines a macro, which can replace a constant rosetta defines",
    ),
    (
        "--undefine-macro",
        "undefines a macro, which can remove a constant rosetta defines",
    ),
    ("-include", "includes text before a kernel's source"),
    ("--pre-include", "includes text before a kernel's source"),
    (
        "-cl-fast-relaxed-math",
        "relaxes floating-point rules the ops' contracts keep",
    ),
    (
        "-cl-finite-math-only",
        "assumes no NaN or infinity, which the ops' contracts keep",
    ),
    (
        "-cl-unsafe-math-optimizations",
        "relaxes floating-point rules the ops' contracts keep",
    ),
    (
        "-cl-no-signed-zeros",
        "drops signed zeros, which the ops' contracts keep",
    ),
    (
        "-cl-denorms-are-zero",
        "flushes subnormals, which the ops' contracts keep",
    ),
    ("-cl-mad-enable", "allows multiply-adds of reduced accuracy"),
    (
        "--use_fast_math",
        "relaxes floating-point rules the ops' contracts keep",
    ),
    (
        "-use_fast_math",
        "relaxes floating-point rules the ops' contracts keep",
    ),
    (
        "-ftz=true",
        "flushes subnormals, which the ops' contracts keep",
    ),
    (
        "--ftz=true",
        "flushes subnormals, which the ops' contracts keep",
    ),
];

/// NVRTC's precision switches, refused when turned off.
const IMPRECISE: [&str; 4] = [
    "-prec-div=false",
    "--prec-div=false",
    "-prec-sqrt=false",
    "--prec-sqrt=false",
];

/// The compiler options a user put in environment variable `var`
/// (whitespace-separated; none when it is unset or empty): what backends
/// append to every kernel build after their own options. `InvalidArgument`
/// naming the option and `var` when one would change what kernels compute
/// (see the module's documentation).
pub fn options_from_env(var: &str) -> Result<Vec<String>> {
    match std::env::var(var) {
        Ok(text) => check_options(var, &text),
        Err(_) => Ok(Vec::new()),
    }
}

/// Split `text` (the value of `var`) into options and check each.
pub fn check_options(var: &str, text: &str) -> Result<Vec<String>> {
    let options: Vec<String> = text.split_whitespace().map(str::to_string).collect();
    for option in &options {
        let why = REFUSED
            .iter()
            .find(|(prefix, _)| option.starts_with(prefix))
            .map(|(_, why)| *why)
            .or_else(|| {
                IMPRECISE
                    .contains(&option.as_str())
                    .then_some("turns off IEEE-rounded division or square roots")
            });
        if let Some(why) = why {
            return Err(Error::InvalidArgument(format!(
                "{var}: option '{option}' {why}; rosetta refuses it (unset {var} or remove the option)"
            )));
        }
    }
    Ok(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harmless_options_pass_in_order() {
        let got = check_options("V", "  -cl-nv-verbose\t--ptxas-options=-v -lineinfo -G ").unwrap();
        assert_eq!(
            got,
            ["-cl-nv-verbose", "--ptxas-options=-v", "-lineinfo", "-G"]
        );
        assert!(check_options("V", "").unwrap().is_empty());
        // Precise settings stay allowed.
        assert!(check_options("V", "-prec-div=true --ftz=false -fmad=false").is_ok());
    }

    #[test]
    fn options_that_change_results_are_refused_by_name() {
        for bad in [
            "-DOP=2",
            "-D OP=2",
            "-UTILE_K",
            "--define-macro=TILE_K=4",
            "-include x.h",
            "-cl-fast-relaxed-math",
            "-cl-finite-math-only",
            "-cl-denorms-are-zero",
            "-cl-mad-enable",
            "--use_fast_math",
            "-ftz=true",
            "--prec-div=false",
            "-prec-sqrt=false",
        ] {
            let err = check_options("ROSETTA_X", &format!("-w {bad}")).unwrap_err();
            let first = bad.split_whitespace().next().unwrap();
            match err {
                Error::InvalidArgument(msg) => {
                    assert!(msg.contains(&format!("'{first}'")), "{msg}");
                    assert!(msg.starts_with("ROSETTA_X: "), "{msg}");
                }
                other => panic!("{bad}: {other}"),
            }
        }
    }
}
