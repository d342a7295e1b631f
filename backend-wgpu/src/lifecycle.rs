//! One wgpu instance created or torn down at a time in the process.
//!
//! Each discovery creates its own `wgpu::Instance` (which, on Linux, holds
//! an EGL display for the GL backend besides the Vulkan instance), and the
//! instance is torn down with the last device opened from it. On the GPU
//! machine (NVIDIA driver 580) four threads dropping the devices of
//! separate discoveries at once hung in 3 runs of 10, and this crate's
//! tests run in parallel in 2 of 3 (`docs/results/h200-2026-11-26c/`). A
//! single shared instance is no cure: wgpu's GL backend then panicked with
//! `BadAccess` making its EGL context current while another thread had it.
//! So discovery (`adapter::open_all`) and a device's teardown
//! (`WgpuDriver`'s drop, through the end of its fields' drops) each hold
//! the process-wide lifecycle ([`enter`]); work on opened devices does not.
//!
//! The lock is re-entrant per thread (`rosetta_core::process_lock`): a
//! discovery that fails halfway drops the device it opened while still
//! holding it.

use rosetta_core::process_lock::{ProcessLock, Section};

/// Held while wgpu instances or devices are created or torn down.
static LIFECYCLE: ProcessLock = ProcessLock::new();

/// Wait until no other thread creates or tears down wgpu instances, then
/// hold the lifecycle until the section drops.
pub(crate) fn enter() -> Section {
    LIFECYCLE.enter()
}
