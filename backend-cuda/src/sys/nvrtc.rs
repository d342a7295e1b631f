//! The NVRTC calls of this crate, through entry points resolved from the
//! library the probe loaded (cudarc's own NVRTC loader only searches by name
//! and panics when it finds nothing).
//!
//! Only what one compile needs is resolved; every entry point exists since
//! CUDA 11.2. NVRTC needs no driver and no GPU.

use super::library;
use libloading::Library;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::fmt;

/// An `nvrtcProgram` handle.
pub(crate) type Program = *mut c_void;
/// An `nvrtcResult`.
type Status = c_int;
const SUCCESS: Status = 0;
/// `NVRTC_ERROR_COMPILATION`: the source did not compile (see the log).
const ERROR_COMPILATION: Status = 6;

/// NVRTC's entry points, copied out of the loaded library.
pub(crate) struct Api {
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

/// A size getter and its matching data getter (log, cubin, PTX).
type Getter = (
    unsafe extern "C" fn(Program, *mut usize) -> Status,
    unsafe extern "C" fn(Program, *mut c_char) -> Status,
);

/// An NVRTC call that failed: the call, NVRTC's status and its description.
#[derive(Debug, Clone)]
pub(crate) struct NvrtcError {
    call: &'static str,
    status: i32,
    text: String,
}

impl NvrtcError {
    /// The entry point that failed.
    pub(crate) fn call(&self) -> &'static str {
        self.call
    }

    /// Whether the source failed to compile (the program log says why).
    pub(crate) fn is_compilation(&self) -> bool {
        self.status == ERROR_COMPILATION
    }
}

impl fmt::Display for NvrtcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (NVRTC status {})", self.text, self.status)
    }
}

impl std::error::Error for NvrtcError {}

impl Api {
    /// Resolve every entry point from `library`.
    ///
    /// # Safety
    /// `library` is NVRTC (each name below has the signature of `nvrtc.h`),
    /// and stays loaded for as long as the returned table is used.
    pub(crate) unsafe fn resolve(library: &Library) -> Result<Api, libloading::Error> {
        // SAFETY: each field's type is its entry point's signature in
        // nvrtc.h; the caller keeps the library loaded.
        unsafe {
            Ok(Api {
                version: library::function(library, "nvrtcVersion")?,
                get_num_supported_archs: library::function(library, "nvrtcGetNumSupportedArchs")?,
                get_supported_archs: library::function(library, "nvrtcGetSupportedArchs")?,
                create_program: library::function(library, "nvrtcCreateProgram")?,
                compile_program: library::function(library, "nvrtcCompileProgram")?,
                destroy_program: library::function(library, "nvrtcDestroyProgram")?,
                get_program_log_size: library::function(library, "nvrtcGetProgramLogSize")?,
                get_program_log: library::function(library, "nvrtcGetProgramLog")?,
                get_cubin_size: library::function(library, "nvrtcGetCUBINSize")?,
                get_cubin: library::function(library, "nvrtcGetCUBIN")?,
                get_ptx_size: library::function(library, "nvrtcGetPTXSize")?,
                get_ptx: library::function(library, "nvrtcGetPTX")?,
                get_error_string: library::function(library, "nvrtcGetErrorString")?,
            })
        }
    }

    fn check(&self, call: &'static str, status: Status) -> Result<(), NvrtcError> {
        if status == SUCCESS {
            Ok(())
        } else {
            Err(NvrtcError {
                call,
                status,
                text: self.error_string(status),
            })
        }
    }

    /// `nvrtcGetErrorString`.
    fn error_string(&self, status: Status) -> String {
        // SAFETY: an entry point of the loaded NVRTC (see `resolve`); it
        // takes a status by value and returns a static string or null.
        let text = unsafe { (self.get_error_string)(status) };
        if text.is_null() {
            return format!("NVRTC error {status}");
        }
        // SAFETY: non-null results are static NUL-terminated strings.
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    }

    /// `nvrtcVersion`: (major, minor).
    pub(crate) fn version(&self) -> Result<(i32, i32), NvrtcError> {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: an entry point of the loaded NVRTC; writes two ints through
        // valid out-pointers.
        let status = unsafe { (self.version)(&mut major, &mut minor) };
        self.check("nvrtcVersion", status)?;
        Ok((major, minor))
    }

    /// `nvrtcGetSupportedArchs`: the `sm_XX` numbers NVRTC generates code
    /// for.
    pub(crate) fn supported_archs(&self) -> Result<Vec<i32>, NvrtcError> {
        let mut count: c_int = 0;
        // SAFETY: an entry point of the loaded NVRTC; writes one int.
        let status = unsafe { (self.get_num_supported_archs)(&mut count) };
        self.check("nvrtcGetNumSupportedArchs", status)?;
        let mut archs: Vec<c_int> = vec![0; usize::try_from(count).unwrap_or(0)];
        if archs.is_empty() {
            return Ok(archs);
        }
        // SAFETY: an entry point of the loaded NVRTC; writes exactly the
        // `count` ints it just reported into a buffer of that length.
        let status = unsafe { (self.get_supported_archs)(archs.as_mut_ptr()) };
        self.check("nvrtcGetSupportedArchs", status)?;
        Ok(archs)
    }

    /// `nvrtcCreateProgram` with no headers. The program is destroyed with
    /// [`Api::destroy_program`] (a program never destroyed only leaks).
    pub(crate) fn create_program(&self, source: &CStr, name: &CStr) -> Result<Program, NvrtcError> {
        let mut program: Program = std::ptr::null_mut();
        // SAFETY: an entry point of the loaded NVRTC; the source and name are
        // NUL-terminated and outlive the call (NVRTC copies them); no
        // headers (count 0, null arrays).
        let status = unsafe {
            (self.create_program)(
                &mut program,
                source.as_ptr(),
                name.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        self.check("nvrtcCreateProgram", status)?;
        Ok(program)
    }

    /// `nvrtcCompileProgram`.
    ///
    /// # Safety
    /// `program` came from [`Api::create_program`] and is not destroyed, nor
    /// used by another thread during the call.
    pub(crate) unsafe fn compile_program(
        &self,
        program: Program,
        options: &[CString],
    ) -> Result<(), NvrtcError> {
        let pointers: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
        let count = c_int::try_from(pointers.len()).map_err(|_| NvrtcError {
            call: "nvrtcCompileProgram",
            status: 3, // NVRTC_ERROR_INVALID_INPUT
            text: "too many options".into(),
        })?;
        // SAFETY: an entry point of the loaded NVRTC; the caller guarantees
        // the program; `pointers` holds `count` NUL-terminated strings owned
        // by `options`, which outlive the call.
        let status = unsafe { (self.compile_program)(program, count, pointers.as_ptr()) };
        self.check("nvrtcCompileProgram", status)
    }

    /// `nvrtcGetProgramLog`, without its NUL.
    ///
    /// # Safety
    /// As [`Api::compile_program`].
    pub(crate) unsafe fn program_log(&self, program: Program) -> Result<String, NvrtcError> {
        let getter: Getter = (self.get_program_log_size, self.get_program_log);
        // SAFETY: the caller guarantees the program.
        let bytes = unsafe { self.read(program, getter, "nvrtcGetProgramLog") }?;
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        Ok(String::from_utf8_lossy(&bytes[..end]).into_owned())
    }

    /// `nvrtcGetCUBIN` of a program compiled for an `sm_XX` architecture.
    ///
    /// # Safety
    /// As [`Api::compile_program`].
    pub(crate) unsafe fn cubin(&self, program: Program) -> Result<Vec<u8>, NvrtcError> {
        let getter: Getter = (self.get_cubin_size, self.get_cubin);
        // SAFETY: the caller guarantees the program.
        unsafe { self.read(program, getter, "nvrtcGetCUBIN") }
    }

    /// `nvrtcGetPTX`, with its terminating NUL (which `cuModuleLoadData`
    /// reads up to).
    ///
    /// # Safety
    /// As [`Api::compile_program`].
    pub(crate) unsafe fn ptx(&self, program: Program) -> Result<Vec<u8>, NvrtcError> {
        let getter: Getter = (self.get_ptx_size, self.get_ptx);
        // SAFETY: the caller guarantees the program.
        unsafe { self.read(program, getter, "nvrtcGetPTX") }
    }

    /// One of a program's outputs, exactly as long as NVRTC sizes it.
    ///
    /// # Safety
    /// As [`Api::compile_program`]; `getter` is a size getter and its
    /// matching data getter of this table.
    unsafe fn read(
        &self,
        program: Program,
        (size, get): Getter,
        call: &'static str,
    ) -> Result<Vec<u8>, NvrtcError> {
        let mut len = 0usize;
        // SAFETY: a size getter of the loaded NVRTC on a live program (the
        // caller's promise); writes one size_t.
        let status = unsafe { size(program, &mut len) };
        self.check(call, status)?;
        let mut bytes = vec![0u8; len];
        if len > 0 {
            // SAFETY: the matching data getter writes exactly the `len` bytes
            // its size getter just reported, into a buffer of that length.
            let status = unsafe { get(program, bytes.as_mut_ptr().cast::<c_char>()) };
            self.check(call, status)?;
        }
        Ok(bytes)
    }

    /// `nvrtcDestroyProgram`.
    ///
    /// # Safety
    /// `program` came from [`Api::create_program`], is destroyed once, and is
    /// not used again.
    pub(crate) unsafe fn destroy_program(&self, program: Program) -> Result<(), NvrtcError> {
        let mut program = program;
        // SAFETY: the caller guarantees a live program destroyed once.
        let status = unsafe { (self.destroy_program)(&mut program) };
        self.check("nvrtcDestroyProgram", status)
    }
}
