//! Loading shared libraries (the CUDA driver, NVRTC and NVRTC's builtins)
//! and looking up symbols, with libloading.

use libloading::Library;
use std::ffi::c_void;

/// Load the shared library `name` (a file name the loader searches for, or a
/// path).
///
/// # Safety
/// Loading runs the library's initialisers in this process. `name` must
/// designate a library whose initialisers are sound to run here, as those of
/// the CUDA driver and of NVRTC are (every CUDA program loads them).
pub(crate) unsafe fn open(name: &str) -> Result<Library, libloading::Error> {
    // SAFETY: the caller vouches for the library's initialisers.
    unsafe { Library::new(name) }
}

/// Whether `library` exports `name`.
pub(crate) fn has_symbol(library: &Library, name: &str) -> bool {
    // SAFETY: the symbol is looked up as an untyped data pointer and only
    // tested for presence: the pointer is never read, written or called.
    unsafe { library.get::<*const c_void>(name.as_bytes()) }.is_ok()
}

/// One function of `library`, copied out of its symbol.
///
/// # Safety
/// `T` must be the exact C signature of `name`, and `library` must stay
/// loaded for as long as the returned pointer is used.
pub(crate) unsafe fn function<T: Copy>(
    library: &Library,
    name: &str,
) -> Result<T, libloading::Error> {
    // SAFETY: the caller guarantees the signature and the library's lifetime.
    unsafe { library.get::<T>(name.as_bytes()).map(|symbol| *symbol) }
}
