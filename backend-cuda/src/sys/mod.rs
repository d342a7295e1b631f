//! The raw layer: every call into a foreign library this crate makes — the
//! CUDA driver (through cudarc's run-time-loaded bindings), NVRTC (resolved
//! here with libloading) and the loading of the libraries themselves — and
//! nothing else.
//!
//! Each call is one function here, returning the library's status as a
//! typed error ([`driver::CuError`], [`nvrtc::NvrtcError`]) that names the
//! call. A function whose soundness depends on its arguments (live handles,
//! pointer ranges, buffers that must outlive asynchronous work) is an
//! `unsafe fn` whose `# Safety` section says what the caller promises; one
//! that cannot go wrong whatever it is given is safe. The owned types that
//! keep those promises (`crate::gpu`, `crate::nvrtc`) sit above this layer,
//! as cudarc's own `safe` module sits above its `result` and `sys`.

pub(crate) mod driver;
pub(crate) mod library;
pub(crate) mod nvrtc;
