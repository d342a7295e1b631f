//! NVRTC, loaded by this crate through libloading from the path the probe
//! found (cudarc's own NVRTC loader only searches by name, and panics when it
//! finds nothing).
//!
//! Only the handful of entry points a compile needs are resolved; all of them
//! exist since CUDA 11.2. NVRTC needs no driver and no GPU, so kernels can be
//! compiled (and checked) on any machine that has the library.

use crate::probe;
use libloading::Library;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::{Mutex, OnceLock};

type Program = *mut c_void;
type Status = c_int;
const SUCCESS: Status = 0;
const ERROR_COMPILATION: Status = 6;

/// The NVRTC entry points, copied out of the library (which stays loaded).
struct Api {
    version: unsafe extern "C" fn(*mut c_int, *mut c_int) -> Status,
    get_num_supported_archs: unsafe extern "C" fn(*mut c_int) -> Status,
    get_supported_archs: unsafe extern "C" fn(*mut c_int) -> Status,
    create_program: unsafe extern "C" fn(
        *mut Program,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> Status,
    compile_program: unsafe extern "C" fn(Program, c_int, *const *const c_char) -> Status,
    destroy_program: unsafe extern "C" fn(*mut Program) -> Status,
    get_program_log_size: unsafe extern "C" fn(Program, *mut usize) -> Status,
    get_program_log: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    get_cubin_size: unsafe extern "C" fn(Program, *mut usize) -> Status,
    get_cubin: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    get_ptx_size: unsafe extern "C" fn(Program, *mut usize) -> Status,
    get_ptx: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    get_error_string: unsafe extern "C" fn(Status) -> *const c_char,
}

/// What NVRTC is asked to produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// Machine code for `sm_XX` (`XX` = major·10 + minor).
    Cubin(u32),
    /// PTX for `compute_XX`, JIT-compiled by the driver (for devices newer
    /// than this NVRTC knows).
    Ptx(u32),
}

impl Target {
    /// The `--gpu-architecture` value.
    pub fn arch(self) -> String {
        match self {
            Target::Cubin(sm) => format!("sm_{sm}"),
            Target::Ptx(sm) => format!("compute_{sm}"),
        }
    }
}

/// The result of one successful compile.
#[derive(Debug, Clone)]
pub struct Image {
    pub target: Target,
    /// A cubin, or NUL-terminated PTX text: what `cuModuleLoadData` takes.
    pub bytes: Vec<u8>,
    /// NVRTC's log (warnings, and ptxas' report when asked for with
    /// `--ptxas-options=-v`).
    pub log: String,
}

/// A failed compile: NVRTC's log, or the failing call.
#[derive(Debug, Clone)]
pub struct CompileFailure {
    pub log: String,
}

/// A loaded NVRTC.
pub struct Nvrtc {
    api: Api,
    /// Where it was loaded from.
    pub path: String,
    pub version: (i32, i32),
    /// `sm_XX` values it can generate code for, ascending.
    pub archs: Vec<u32>,
    /// NVRTC calls are serialised: older releases were not thread safe, and
    /// compiles are cached, so nothing is lost.
    lock: Mutex<()>,
    _library: Library,
    /// NVRTC's builtins library, preloaded from NVRTC's own directory (see
    /// `preload_builtins`).
    _builtins: Option<Library>,
}

impl Nvrtc {
    /// Find and load NVRTC once per process (see `probe::nvrtc_candidates`).
    pub fn get() -> Result<&'static Nvrtc, String> {
        static NVRTC: OnceLock<Result<Nvrtc, String>> = OnceLock::new();
        NVRTC
            .get_or_init(Nvrtc::load)
            .as_ref()
            .map_err(Clone::clone)
    }

    fn load() -> Result<Nvrtc, String> {
        let candidates = probe::nvrtc_candidates();
        let (path, library) = probe::open_first(&candidates).map_err(|tried| {
            let how = match std::env::var_os(probe::NVRTC_ENV) {
                Some(v) => format!("{}={}", probe::NVRTC_ENV, v.to_string_lossy()),
                None => format!(
                    "set {}=/path/to/libnvrtc.so.13, or install CUDA / `pip install nvidia-cuda-nvrtc`",
                    probe::NVRTC_ENV
                ),
            };
            if tried.is_empty() {
                format!("NVRTC (libnvrtc) not found: no candidate library exists ({how})")
            } else {
                format!("NVRTC (libnvrtc) not found ({how}): {}", probe::summarize(&tried))
            }
        })?;
        let api = resolve(&library).map_err(|e| format!("{path} is not a usable NVRTC: {e}"))?;
        let (mut major, mut minor) = (0, 0);
        // SAFETY: `version` is nvrtcVersion, resolved from the loaded library
        // with its C signature; it writes two ints through valid pointers.
        let status = unsafe { (api.version)(&mut major, &mut minor) };
        if status != SUCCESS {
            return Err(format!("{path}: nvrtcVersion failed ({status})"));
        }
        let mut count: c_int = 0;
        // SAFETY: nvrtcGetNumSupportedArchs writes one int.
        let status = unsafe { (api.get_num_supported_archs)(&mut count) };
        if status != SUCCESS || count <= 0 {
            return Err(format!(
                "{path}: nvrtcGetNumSupportedArchs failed ({status})"
            ));
        }
        let mut archs: Vec<c_int> = vec![0; count as usize];
        // SAFETY: nvrtcGetSupportedArchs writes `count` ints into a buffer of
        // exactly that many.
        let status = unsafe { (api.get_supported_archs)(archs.as_mut_ptr()) };
        if status != SUCCESS {
            return Err(format!("{path}: nvrtcGetSupportedArchs failed ({status})"));
        }
        let mut archs: Vec<u32> = archs
            .into_iter()
            .filter_map(|a| u32::try_from(a).ok())
            .collect();
        archs.sort_unstable();
        let builtins = preload_builtins(&path, major, minor);
        tracing::debug!(%path, major, minor, ?archs, builtins = builtins.is_some(), "cuda: NVRTC loaded");
        Ok(Nvrtc {
            api,
            path,
            version: (major, minor),
            archs,
            lock: Mutex::new(()),
            _library: library,
            _builtins: builtins,
        })
    }

    /// The best target for a device of compute capability `major.minor`: its
    /// own `sm_XX` when this NVRTC supports it, else PTX for the highest
    /// architecture below it (the driver JIT-compiles PTX forward).
    pub fn target_for(&self, major: i32, minor: i32) -> Result<Target, String> {
        pick_target(&self.archs, major, minor).ok_or_else(|| {
            format!(
                "NVRTC {}.{} cannot generate code for compute capability {major}.{minor} (supports {:?})",
                self.version.0, self.version.1, self.archs
            )
        })
    }

    /// Compile one translation unit. `options` go to nvrtcCompileProgram as
    /// given (the target's `--gpu-architecture` is added here).
    pub fn compile(
        &self,
        source: &str,
        name: &str,
        target: Target,
        options: &[String],
    ) -> Result<Image, CompileFailure> {
        let fail = |log: String| CompileFailure { log };
        let source =
            CString::new(source).map_err(|_| fail("the source contains a NUL byte".into()))?;
        let file =
            CString::new(format!("{name}.cu")).map_err(|_| fail("bad kernel name".into()))?;
        let mut all = vec![format!("--gpu-architecture={}", target.arch())];
        all.extend(options.iter().cloned());
        let all: Vec<CString> = all
            .into_iter()
            .map(CString::new)
            .collect::<Result<_, _>>()
            .map_err(|_| fail("an option contains a NUL byte".into()))?;
        let option_ptrs: Vec<*const c_char> = all.iter().map(|o| o.as_ptr()).collect();

        let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        let mut program: Program = std::ptr::null_mut();
        // SAFETY: nvrtcCreateProgram with a NUL-terminated source and name
        // that outlive the call, and no headers (null arrays, count 0).
        let status = unsafe {
            (self.api.create_program)(
                &mut program,
                source.as_ptr(),
                file.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        if status != SUCCESS {
            return Err(fail(format!(
                "nvrtcCreateProgram: {}",
                self.error_string(status)
            )));
        }
        let result = self.compile_program(program, &option_ptrs, target);
        // SAFETY: `program` was created above and is destroyed exactly once.
        unsafe { (self.api.destroy_program)(&mut program) };
        result
    }

    fn compile_program(
        &self,
        program: Program,
        options: &[*const c_char],
        target: Target,
    ) -> Result<Image, CompileFailure> {
        // SAFETY: `program` is live; `options` holds pointers to NUL-terminated
        // strings that outlive the call (owned by the caller).
        let status = unsafe {
            (self.api.compile_program)(program, options.len() as c_int, options.as_ptr())
        };
        let log = self
            .read_text(
                program,
                self.api.get_program_log_size,
                self.api.get_program_log,
            )
            .unwrap_or_else(|e| format!("(no log: {e})"));
        if status != SUCCESS {
            let log = if status == ERROR_COMPILATION || !log.trim().is_empty() {
                log
            } else {
                format!("nvrtcCompileProgram: {}", self.error_string(status))
            };
            return Err(CompileFailure { log });
        }
        // A cubin as is; PTX keeps its terminating NUL (cuModuleLoadData
        // reads text up to it).
        let bytes = match target {
            Target::Cubin(_) => {
                self.read_bytes(program, self.api.get_cubin_size, self.api.get_cubin)
            }
            Target::Ptx(_) => self.read_bytes(program, self.api.get_ptx_size, self.api.get_ptx),
        }
        .map_err(|e| CompileFailure {
            log: format!("{log}\n{e}"),
        })?;
        Ok(Image { target, bytes, log })
    }

    /// Read one of a program's outputs as text (the log).
    fn read_text(
        &self,
        program: Program,
        size: unsafe extern "C" fn(Program, *mut usize) -> Status,
        get: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    ) -> Result<String, String> {
        let bytes = self.read_bytes(program, size, get)?;
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        Ok(String::from_utf8_lossy(&bytes[..end]).into_owned())
    }

    /// Read one of a program's outputs as bytes, exactly as NVRTC sizes it.
    fn read_bytes(
        &self,
        program: Program,
        size: unsafe extern "C" fn(Program, *mut usize) -> Status,
        get: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    ) -> Result<Vec<u8>, String> {
        let mut len = 0usize;
        // SAFETY: a size getter of a live program writes one size_t.
        let status = unsafe { size(program, &mut len) };
        if status != SUCCESS {
            return Err(self.error_string(status));
        }
        let mut bytes = vec![0u8; len];
        if len > 0 {
            // SAFETY: the matching getter writes exactly `len` bytes (the size
            // it just reported) into a buffer of that length.
            let status = unsafe { get(program, bytes.as_mut_ptr().cast()) };
            if status != SUCCESS {
                return Err(self.error_string(status));
            }
        }
        Ok(bytes)
    }

    fn error_string(&self, status: Status) -> String {
        // SAFETY: nvrtcGetErrorString returns a pointer to a static
        // NUL-terminated string (or null for unknown codes).
        let text = unsafe { (self.api.get_error_string)(status) };
        if text.is_null() {
            format!("NVRTC error {status}")
        } else {
            // SAFETY: non-null, static and NUL-terminated (see above).
            unsafe { CStr::from_ptr(text) }
                .to_string_lossy()
                .into_owned()
        }
    }
}

/// The target for compute capability `major.minor` given the `sm_XX` values
/// NVRTC supports (ascending): the device's own, else PTX for the highest
/// below it; `None` for a device older than every supported architecture.
fn pick_target(archs: &[u32], major: i32, minor: i32) -> Option<Target> {
    let sm = u32::try_from(major * 10 + minor).ok()?;
    if archs.contains(&sm) {
        return Some(Target::Cubin(sm));
    }
    archs
        .iter()
        .rev()
        .find(|&&a| a < sm)
        .map(|&below| Target::Ptx(below))
}

/// NVRTC opens `libnvrtc-builtins.so.MAJOR.MINOR` by name when it compiles,
/// through the loader's search path, which need not include NVRTC's own
/// directory (Python wheels, `$ROSETTA_NVRTC`). Loading it from that
/// directory first makes the later lookup by name find the loaded library
/// (the loader matches loaded libraries by SONAME).
fn preload_builtins(path: &str, major: i32, minor: i32) -> Option<Library> {
    let dir = std::path::Path::new(path)
        .parent()
        .filter(|d| !d.as_os_str().is_empty())?;
    let builtins = dir.join(format!("libnvrtc-builtins.so.{major}.{minor}"));
    if !builtins.is_file() {
        return None;
    }
    // SAFETY: NVRTC's own builtins library, which NVRTC itself would load
    // into this process; its initialisers have no preconditions.
    match unsafe { Library::new(&builtins) } {
        Ok(library) => Some(library),
        Err(e) => {
            tracing::warn!(path = %builtins.display(), error = %e, "cuda: cannot preload NVRTC's builtins");
            None
        }
    }
}

fn resolve(library: &Library) -> Result<Api, libloading::Error> {
    /// One entry point, copied out of its symbol.
    ///
    /// # Safety
    /// `T` must be the C signature of `name`.
    unsafe fn sym<T: Copy>(library: &Library, name: &[u8]) -> Result<T, libloading::Error> {
        // SAFETY: guaranteed by the caller (the signature matches); the
        // library stays loaded as long as the copied pointer is used (both
        // live in `Nvrtc`).
        unsafe { library.get::<T>(name).map(|s| *s) }
    }
    // SAFETY: each signature below is the one declared in nvrtc.h.
    unsafe {
        Ok(Api {
            version: sym(library, b"nvrtcVersion\0")?,
            get_num_supported_archs: sym(library, b"nvrtcGetNumSupportedArchs\0")?,
            get_supported_archs: sym(library, b"nvrtcGetSupportedArchs\0")?,
            create_program: sym(library, b"nvrtcCreateProgram\0")?,
            compile_program: sym(library, b"nvrtcCompileProgram\0")?,
            destroy_program: sym(library, b"nvrtcDestroyProgram\0")?,
            get_program_log_size: sym(library, b"nvrtcGetProgramLogSize\0")?,
            get_program_log: sym(library, b"nvrtcGetProgramLog\0")?,
            get_cubin_size: sym(library, b"nvrtcGetCUBINSize\0")?,
            get_cubin: sym(library, b"nvrtcGetCUBIN\0")?,
            get_ptx_size: sym(library, b"nvrtcGetPTXSize\0")?,
            get_ptx: sym(library, b"nvrtcGetPTX\0")?,
            get_error_string: sym(library, b"nvrtcGetErrorString\0")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_prefer_the_device_then_ptx_below() {
        let archs = [75, 80, 86, 89, 90, 100, 120];
        assert_eq!(pick_target(&archs, 9, 0), Some(Target::Cubin(90)));
        assert_eq!(pick_target(&archs, 8, 0), Some(Target::Cubin(80)));
        // A newer GPU than this NVRTC knows: PTX, JIT-compiled by the driver.
        assert_eq!(pick_target(&archs, 13, 0), Some(Target::Ptx(120)));
        assert_eq!(pick_target(&archs, 8, 7), Some(Target::Ptx(86)));
        // Older than every supported architecture.
        assert_eq!(pick_target(&archs, 6, 1), None);
        assert_eq!(Target::Cubin(90).arch(), "sm_90");
        assert_eq!(Target::Ptx(120).arch(), "compute_120");
    }
}
