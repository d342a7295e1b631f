//! NVRTC's options for one kernel: the architecture, the language settings,
//! the spec's constants as defines, then the user's extras.

use crate::target::Target;
use rosetta_core::{KernelSpec, Result};

/// Extra NVRTC options, whitespace-separated, appended to every compile
/// (e.g. `--ptxas-options=-v`, whose register report goes to the debug log).
/// They are part of the persistent cache's key. Options that would change
/// what kernels compute are refused (`rosetta_core::options_from_env`).
pub const OPTIONS_ENV: &str = "ROSETTA_NVRTC_OPTIONS";

/// The options of `$ROSETTA_NVRTC_OPTIONS` (refused where one would change
/// what kernels compute: `rosetta_core::options_from_env`).
pub(crate) fn extra_from_env() -> Result<Vec<String>> {
    rosetta_core::options_from_env(OPTIONS_ENV)
}

/// Every option of one compile, in order: `--gpu-architecture` for
/// `target`, C++17, functions `__device__` by default, line info (for
/// compute-sanitizer and profilers), `-DNAME=valueu` per constant, `extra`.
pub(crate) fn build(spec: &KernelSpec, target: Target, extra: &[String]) -> Vec<String> {
    let mut options = vec![
        format!("--gpu-architecture={}", target.arch()),
        "--std=c++17".to_string(),
        "-default-device".to_string(),
        "-lineinfo".to_string(),
    ];
    options.extend(spec.defines());
    options.extend(extra.iter().cloned());
    options
}

#[cfg(test)]
mod tests {
    use super::*;
    use rosetta_core::{Access, KernelDef, Language};

    #[test]
    fn options_carry_the_target_the_constants_and_the_extras() {
        let def = KernelDef::builder("k")
            .constants(["TILE"])
            .bindings([Access::Read])
            .source(
                Language::Cuda,
                "extern \"C\" __global__ void k(unsigned* a) { a[0] = TILE; }",
            )
            .build_arc()
            .unwrap();
        let spec = KernelSpec::new(&def, &[("GROUP_SIZE", 128), ("TILE", 7)]).unwrap();
        let options = build(&spec, Target::Cubin(90), &["-G".to_string()]);
        assert_eq!(options[0], "--gpu-architecture=sm_90");
        assert!(options.contains(&"--std=c++17".to_string()));
        assert!(options.contains(&"-DGROUP_SIZE=128u".to_string()));
        assert!(options.contains(&"-DTILE=7u".to_string()));
        assert_eq!(options.last().map(String::as_str), Some("-G"));
        let ptx = build(&spec, Target::Ptx(120), &[]);
        assert_eq!(ptx[0], "--gpu-architecture=compute_120");
        assert_eq!(ptx.len(), options.len() - 1);
    }
}
