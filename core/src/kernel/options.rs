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

const DEFINES: &str = "defines a macro, which can replace a constant rosetta defines";
const UNDEFINES: &str = "undefines a macro, which can remove a constant rosetta defines";
const INCLUDES: &str = "includes text before a kernel's source";
const RELAXES: &str = "relaxes floating-point rules the ops' contracts keep";
const FLUSHES: &str = "flushes subnormals, which the ops' contracts keep";
const IMPRECISE: &str = "turns off IEEE-rounded division or square roots";

/// Option prefixes refused in users' extras, with why: defining, undefining
/// or including text into a kernel's source (NVRTC and OpenCL C spell them
/// alike), and the math relaxations of OpenCL C and NVRTC.
const REFUSED: [(&str, &str); 20] = [
    ("-D", DEFINES),
    ("-U", UNDEFINES),
    ("--define-macro", DEFINES),
    ("--undefine-macro", UNDEFINES),
    ("-include", INCLUDES),
    ("--pre-include", INCLUDES),
    ("-cl-fast-relaxed-math", RELAXES),
    (
        "-cl-finite-math-only",
        "assumes no NaN or infinity, which the ops' contracts keep",
    ),
    ("-cl-unsafe-math-optimizations", RELAXES),
    (
        "-cl-no-signed-zeros",
        "drops signed zeros, which the ops' contracts keep",
    ),
    ("-cl-denorms-are-zero", FLUSHES),
    ("-cl-mad-enable", "allows multiply-adds of reduced accuracy"),
    ("--use_fast_math", RELAXES),
    ("-use_fast_math", RELAXES),
    ("-ftz=true", FLUSHES),
    ("--ftz=true", FLUSHES),
    ("-prec-div=false", IMPRECISE),
    ("--prec-div=false", IMPRECISE),
    ("-prec-sqrt=false", IMPRECISE),
    ("--prec-sqrt=false", IMPRECISE),
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
fn check_options(var: &str, text: &str) -> Result<Vec<String>> {
    let options: Vec<String> = text.split_whitespace().map(str::to_string).collect();
    for option in &options {
        if let Some((_, why)) = REFUSED
            .iter()
            .find(|(prefix, _)| option.starts_with(prefix))
        {
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
