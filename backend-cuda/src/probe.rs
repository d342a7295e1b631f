//! The library probe: find the CUDA driver (`libcuda`) and NVRTC with
//! libloading *before* cudarc touches them.
//!
//! cudarc loads the driver lazily by name and panics when it is missing. The
//! probe opens the same names first and keeps the handle open for the life of
//! the process, so:
//! - a machine without the driver gets `Error::Unavailable` with a reason
//!   naming the missing library, and cudarc is never called;
//! - when the driver was found under an absolute path (outside the loader's
//!   search path), the library is already loaded when cudarc asks for it by
//!   name, and the dynamic loader hands back the loaded object (it matches
//!   loaded libraries by their SONAME, `libcuda.so.1`).
//!
//! The driver must also export every entry point this crate calls
//! (`sys::driver::SYMBOLS`): cudarc resolves them on first use and panics on
//! a missing one, so an older driver is reported here instead.
//!
//! NVRTC is loaded by this crate itself (`nvrtc.rs`), from the first path of
//! [`nvrtc_candidates`] that loads.

use crate::sys::{driver, library};
use libloading::Library;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Environment variable naming the NVRTC library to use (a file such as
/// `/path/libnvrtc.so.13`, or a directory holding one). When set, nothing else
/// is tried.
pub const NVRTC_ENV: &str = "ROSETTA_NVRTC";

/// Names of the driver library, in the order cudarc's loader would find them.
#[cfg(not(windows))]
const DRIVER_NAMES: &[&str] = &["libcuda.so.1", "libcuda.so"];
#[cfg(windows)]
const DRIVER_NAMES: &[&str] = &["nvcuda.dll"];

/// Absolute places of the driver library outside the default search path.
#[cfg(not(windows))]
const DRIVER_PATHS: &[&str] = &[
    "/usr/lib/wsl/lib/libcuda.so.1",
    "/usr/lib64/libcuda.so.1",
    "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
    "/usr/lib/aarch64-linux-gnu/libcuda.so.1",
];
#[cfg(windows)]
const DRIVER_PATHS: &[&str] = &[];

/// NVRTC file names, newest major version first (CUDA 13, then 12, then an
/// unversioned development symlink).
#[cfg(not(windows))]
const NVRTC_NAMES: &[&str] = &["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"];
#[cfg(windows)]
const NVRTC_NAMES: &[&str] = &[
    "nvrtc64_130_0.dll",
    "nvrtc64_120_0.dll",
    "nvrtc64_112_0.dll",
];

/// The loaded driver library: where it came from. The handle stays open for
/// the life of the process.
pub(crate) struct DriverLibrary {
    /// The name or path it was loaded by.
    pub(crate) path: String,
    /// It exports `cuFuncGetParamInfo` (CUDA 12.4 and later), so compiled
    /// kernels' parameters can be checked against their interface.
    pub(crate) param_info: bool,
    _library: Library,
}

/// Find and load the driver library once per process, and check that it
/// exports every entry point this crate calls.
pub(crate) fn driver() -> Result<&'static DriverLibrary, String> {
    static DRIVER: OnceLock<Result<DriverLibrary, String>> = OnceLock::new();
    DRIVER
        .get_or_init(|| {
            let candidates: Vec<String> = DRIVER_NAMES
                .iter()
                .chain(DRIVER_PATHS)
                .map(|s| s.to_string())
                .collect();
            // SAFETY: the candidates are the driver's own names and paths.
            match unsafe { open_first(&candidates) } {
                Ok((path, library)) => {
                    let missing: Vec<&str> = driver::SYMBOLS
                        .iter()
                        .copied()
                        .filter(|name| !library::has_symbol(&library, name))
                        .collect();
                    if !missing.is_empty() {
                        return Err(format!(
                            "the CUDA driver at {path} is too old for this build (CUDA 13.0 bindings): \
                             it lacks {}",
                            missing.join(", ")
                        ));
                    }
                    let absent: Vec<&str> = driver::OPTIONAL_SYMBOLS
                        .iter()
                        .copied()
                        .filter(|name| !library::has_symbol(&library, name))
                        .collect();
                    tracing::debug!(%path, ?absent, "cuda: driver library loaded (absent: optional entry points, whose checks are skipped)");
                    Ok(DriverLibrary {
                        path,
                        param_info: !absent.contains(&driver::PARAM_INFO),
                        _library: library,
                    })
                }
                Err(tried) => Err(format!(
                    "{} not found: no NVIDIA driver ({})",
                    DRIVER_NAMES[0],
                    summarize(&tried)
                )),
            }
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Open the first candidate that loads; on failure, every candidate with the
/// loader's message.
///
/// # Safety
/// Every candidate names the CUDA driver or NVRTC (see [`library::open`]).
pub(crate) unsafe fn open_first(candidates: &[String]) -> Result<(String, Library), Vec<String>> {
    let mut tried = Vec::new();
    for candidate in candidates {
        // SAFETY: the caller guarantees the candidates are the CUDA driver or
        // NVRTC, whose initialisers are sound to run in any process.
        match unsafe { library::open(candidate) } {
            Ok(library) => return Ok((candidate.clone(), library)),
            Err(e) => tried.push(format!("{candidate}: {}", error_chain(&e))),
        }
    }
    Err(tried)
}

/// An error with its sources ("dlopen failed: libx.so: cannot open shared
/// object file: No such file or directory").
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// Summarise failed candidates: the first one's full message, then the
/// other names tried.
pub(crate) fn summarize(tried: &[String]) -> String {
    match tried.split_first() {
        None => "no candidate".into(),
        Some((first, [])) => first.clone(),
        Some((first, rest)) => {
            let others: Vec<&str> = rest
                .iter()
                .map(|t| t.split(": ").next().unwrap_or(t))
                .collect();
            format!("{first}; also tried {}", others.join(", "))
        }
    }
}

/// Every place NVRTC may be, in search order:
/// 1. `$ROSETTA_NVRTC` (a file, or a directory holding one) — alone when set;
/// 2. the names alone, found through the loader's search path
///    (`LD_LIBRARY_PATH`, the ld cache, the system directories);
/// 3. the CUDA toolkit: `$CUDA_PATH`, `$CUDA_HOME`, `$CUDA_ROOT`,
///    `$CUDA_TOOLKIT_ROOT_DIR`, `/usr/local/cuda`, `/opt/cuda`
///    (`lib64`, `lib`, `targets/<arch>-linux/lib`);
/// 4. Python wheels (`nvidia-cuda-nvrtc`): `site-packages/nvidia/cu13/lib`
///    and `site-packages/nvidia/cuda_nvrtc/lib` under `$VIRTUAL_ENV`,
///    `$CONDA_PREFIX`, `$PYTHONPATH` entries, `~/.local`, `/usr/local`, `/usr`.
pub(crate) fn nvrtc_candidates() -> Vec<String> {
    if let Some(value) = std::env::var_os(NVRTC_ENV) {
        let path = PathBuf::from(value);
        return if path.is_dir() {
            libraries_in(&path)
        } else {
            vec![path.display().to_string()]
        };
    }
    let mut candidates: Vec<String> = NVRTC_NAMES.iter().map(|s| s.to_string()).collect();
    for dir in toolkit_dirs().iter().chain(&wheel_dirs()) {
        candidates.extend(libraries_in(dir));
    }
    let mut seen = std::collections::HashSet::new();
    candidates.retain(|c| seen.insert(c.clone()));
    candidates
}

/// The NVRTC libraries in one directory, newest major version first.
fn libraries_in(dir: &Path) -> Vec<String> {
    NVRTC_NAMES
        .iter()
        .map(|name| dir.join(name))
        .filter(|path| path.is_file())
        .map(|path| path.display().to_string())
        .collect()
}

fn toolkit_dirs() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = [
        "CUDA_PATH",
        "CUDA_HOME",
        "CUDA_ROOT",
        "CUDA_TOOLKIT_ROOT_DIR",
    ]
    .iter()
    .filter_map(std::env::var_os)
    .map(PathBuf::from)
    .collect();
    roots.push("/usr/local/cuda".into());
    roots.push("/opt/cuda".into());
    let target = format!("targets/{}-linux/lib", std::env::consts::ARCH);
    roots
        .iter()
        .flat_map(|root| {
            ["lib64", "lib", "bin", target.as_str()]
                .into_iter()
                .map(move |sub| root.join(sub))
        })
        .collect()
}

/// `nvidia/cu13/lib` and `nvidia/cuda_nvrtc/lib` in every Python
/// site-packages (or dist-packages) directory we can find without running
/// Python.
fn wheel_dirs() -> Vec<PathBuf> {
    let mut site_dirs: Vec<PathBuf> = Vec::new();
    if let Some(paths) = std::env::var_os("PYTHONPATH") {
        site_dirs.extend(std::env::split_paths(&paths));
    }
    let mut prefixes: Vec<PathBuf> = ["VIRTUAL_ENV", "CONDA_PREFIX"]
        .iter()
        .filter_map(std::env::var_os)
        .map(PathBuf::from)
        .collect();
    if let Some(home) = std::env::var_os("HOME") {
        prefixes.push(PathBuf::from(home).join(".local"));
    }
    prefixes.push("/usr/local".into());
    prefixes.push("/usr".into());
    for prefix in &prefixes {
        for lib in ["lib", "lib64"] {
            let Ok(entries) = std::fs::read_dir(prefix.join(lib)) else {
                continue;
            };
            let mut pythons: Vec<PathBuf> = entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
                .map(|e| e.path())
                .collect();
            pythons.sort();
            pythons.reverse(); // newest Python first
            for python in pythons {
                site_dirs.push(python.join("site-packages"));
                site_dirs.push(python.join("dist-packages"));
            }
        }
    }
    site_dirs
        .iter()
        .flat_map(|site| {
            ["nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib"]
                .into_iter()
                .map(move |sub| site.join(sub))
        })
        .filter(|dir| dir.is_dir())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_libraries_are_reported_not_panicked() {
        // SAFETY: the one candidate does not exist, so nothing is loaded.
        let tried = unsafe { open_first(&["/nonexistent/libcuda.so.1".to_string()]) }.unwrap_err();
        assert_eq!(tried.len(), 1);
        assert!(tried[0].contains("/nonexistent/libcuda.so.1"));
    }

    #[test]
    fn candidates_are_unique() {
        let all = nvrtc_candidates();
        let unique: std::collections::HashSet<_> = all.iter().collect();
        assert_eq!(all.len(), unique.len());
    }
}
