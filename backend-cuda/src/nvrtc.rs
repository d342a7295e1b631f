//! NVRTC, found by the probe and loaded once per process: what it can
//! target, and compiling one translation unit to a cubin or PTX.
//!
//! NVRTC needs no driver and no GPU, so kernels can be compiled (and
//! checked) on any machine that has the library (`crate::compile_offline`).

use crate::image::Image;
use crate::probe;
use crate::sys::library;
use crate::sys::nvrtc::{self as raw, Api, NvrtcError};
use crate::target::{self, Target};
use libloading::Library;
use std::ffi::{CStr, CString};
use std::sync::{Mutex, OnceLock};

/// A loaded NVRTC.
pub struct Nvrtc {
    api: Api,
    path: String,
    version: (i32, i32),
    archs: Vec<u32>,
    /// Compiles are serialised: older releases were not thread safe, and
    /// compiled kernels are cached, so little is lost.
    lock: Mutex<()>,
    // The libraries `api` points into: loaded for the life of the process
    // (the value lives in a static).
    _library: Library,
    /// NVRTC's builtins, preloaded from NVRTC's own folder (see
    /// [`preload_builtins`]).
    _builtins: Option<Library>,
}

/// Why a compile failed.
#[derive(Debug)]
pub(crate) enum CompileError {
    /// The source did not build (or NVRTC refused an option): the log.
    Log(String),
    /// An NVRTC call failed for another reason.
    Call(NvrtcError),
}

impl Nvrtc {
    /// Find and load NVRTC once per process (see `probe::nvrtc_candidates`);
    /// the reason when there is none that works.
    pub fn get() -> Result<&'static Nvrtc, String> {
        static NVRTC: OnceLock<Result<Nvrtc, String>> = OnceLock::new();
        NVRTC
            .get_or_init(Nvrtc::load)
            .as_ref()
            .map_err(Clone::clone)
    }

    fn load() -> Result<Nvrtc, String> {
        let candidates = probe::nvrtc_candidates();
        // SAFETY: every candidate is an NVRTC library file name or path.
        let (path, library) = unsafe { probe::open_first(&candidates) }.map_err(|tried| {
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
        // SAFETY: `library` is NVRTC, and the table is stored next to it in
        // the same `Nvrtc`, which lives in a static (never unloaded).
        let api = unsafe { Api::resolve(&library) }
            .map_err(|e| format!("{path} is not a usable NVRTC: {e}"))?;
        let version = api.version().map_err(|e| format!("{path}: {e}"))?;
        let mut archs: Vec<u32> = api
            .supported_archs()
            .map_err(|e| format!("{path}: {e}"))?
            .into_iter()
            .filter_map(|a| u32::try_from(a).ok())
            .collect();
        archs.sort_unstable();
        if archs.is_empty() {
            return Err(format!("{path}: NVRTC supports no architecture"));
        }
        let builtins = preload_builtins(&path, version);
        tracing::debug!(%path, ?version, ?archs, builtins = builtins.is_some(), "cuda: NVRTC loaded");
        Ok(Nvrtc {
            api,
            path,
            version,
            archs,
            lock: Mutex::new(()),
            _library: library,
            _builtins: builtins,
        })
    }

    /// Where it was loaded from.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// (major, minor).
    pub fn version(&self) -> (i32, i32) {
        self.version
    }

    /// The `sm_XX` numbers it generates code for, ascending.
    pub fn archs(&self) -> &[u32] {
        &self.archs
    }

    /// What to compile for on a device of compute capability `major.minor`
    /// (see [`Target`]), or why nothing fits.
    pub fn target_for(&self, major: i32, minor: i32) -> Result<Target, String> {
        target::pick(&self.archs, major, minor).ok_or_else(|| {
            format!(
                "NVRTC {}.{} cannot generate code for compute capability {major}.{minor} (supports {:?})",
                self.version.0, self.version.1, self.archs
            )
        })
    }

    /// Compile one translation unit named `name.cu` with `options` as given
    /// (they must hold the `--gpu-architecture` of `target`; see
    /// `crate::options`), and take the cubin or the PTX as `target` says.
    pub(crate) fn compile(
        &self,
        source: &str,
        name: &str,
        target: Target,
        options: &[String],
    ) -> Result<Image, CompileError> {
        let text = |what: &str| CompileError::Log(format!("{name}: {what} contains a NUL byte"));
        let source = CString::new(source).map_err(|_| text("the source"))?;
        let file = CString::new(format!("{name}.cu")).map_err(|_| text("the name"))?;
        let options = options
            .iter()
            .map(|o| CString::new(o.as_str()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| text("an option"))?;
        let _serial = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        let program = Program::new(&self.api, &source, &file).map_err(CompileError::Call)?;
        // SAFETY: `program` is live until it drops at the end of this
        // function, and only this thread uses it (it is local, and NVRTC
        // calls are serialised by the lock).
        let compiled = unsafe { self.api.compile_program(program.raw, &options) };
        // SAFETY: as above.
        let log = unsafe { self.api.program_log(program.raw) }
            .unwrap_or_else(|e| format!("(no log: {e})"));
        if let Err(e) = compiled {
            let log = if e.is_compilation() && !log.trim().is_empty() {
                log
            } else {
                format!("{log}\n{}: {e}", e.call()).trim().to_string()
            };
            return Err(CompileError::Log(log));
        }
        let bytes = match target {
            // SAFETY: as above; the program compiled.
            Target::Cubin(_) => unsafe { self.api.cubin(program.raw) },
            // SAFETY: as above; the program compiled.
            Target::Ptx(_) => unsafe { self.api.ptx(program.raw) },
        }
        .map_err(CompileError::Call)?;
        Image::new(target, bytes, log.clone()).map_err(|why| {
            CompileError::Log(format!(
                "{log}\nNVRTC's output is not a usable {}: {why}",
                target.kind()
            ))
        })
    }
}

/// One NVRTC program, destroyed on drop.
struct Program<'a> {
    api: &'a Api,
    raw: raw::Program,
}

impl<'a> Program<'a> {
    fn new(api: &'a Api, source: &CStr, name: &CStr) -> Result<Self, NvrtcError> {
        let raw = api.create_program(source, name)?;
        Ok(Program { api, raw })
    }
}

impl Drop for Program<'_> {
    fn drop(&mut self) {
        // SAFETY: `raw` came from create_program in `Program::new`, is owned
        // by this value alone, and is destroyed once, here.
        if let Err(e) = unsafe { self.api.destroy_program(self.raw) } {
            tracing::warn!("cuda: {}: {e}", e.call());
        }
    }
}

/// NVRTC opens `libnvrtc-builtins.so.MAJOR.MINOR` by name when it compiles,
/// through the loader's search path, which need not include NVRTC's own
/// folder (Python wheels, `$ROSETTA_NVRTC`). Loading it from that folder
/// first makes the later lookup by name find the loaded library (the loader
/// matches loaded libraries by SONAME).
fn preload_builtins(path: &str, (major, minor): (i32, i32)) -> Option<Library> {
    let dir = std::path::Path::new(path)
        .parent()
        .filter(|d| !d.as_os_str().is_empty())?;
    let builtins = dir.join(format!("libnvrtc-builtins.so.{major}.{minor}"));
    if !builtins.is_file() {
        return None;
    }
    let name = builtins.to_string_lossy();
    // SAFETY: NVRTC's own builtins library, which NVRTC itself loads into
    // this process when it compiles.
    match unsafe { library::open(&name) } {
        Ok(library) => Some(library),
        Err(e) => {
            tracing::warn!(path = %name, error = %e, "cuda: cannot preload NVRTC's builtins");
            None
        }
    }
}
