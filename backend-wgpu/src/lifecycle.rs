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
//! the process-wide [`Lifecycle`]; work on opened devices does not.
//!
//! The lock is re-entrant per thread: a discovery that fails halfway drops
//! the device it opened while still holding it.

use std::sync::{Condvar, Mutex, PoisonError};
use std::thread::ThreadId;

/// The thread holding the lifecycle, and how many times it entered.
static OWNER: Mutex<Option<(ThreadId, u32)>> = Mutex::new(None);
static RELEASED: Condvar = Condvar::new();

/// Held while wgpu instances or devices are created or torn down; released
/// on drop. `Send`, so that a driver can carry it into its own drop glue.
#[derive(Debug)]
pub(crate) struct Lifecycle(());

impl Lifecycle {
    /// Wait until no other thread holds the lifecycle, then hold it.
    pub(crate) fn enter() -> Lifecycle {
        let me = std::thread::current().id();
        let mut owner = OWNER.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            match &mut *owner {
                None => {
                    *owner = Some((me, 1));
                    break;
                }
                Some((thread, depth)) if *thread == me => {
                    *depth += 1;
                    break;
                }
                Some(_) => {
                    owner = RELEASED.wait(owner).unwrap_or_else(PoisonError::into_inner);
                }
            }
        }
        Lifecycle(())
    }
}

impl Drop for Lifecycle {
    fn drop(&mut self) {
        let mut owner = OWNER.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, depth)) = &mut *owner {
            *depth -= 1;
            if *depth == 0 {
                *owner = None;
                RELEASED.notify_all();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Lifecycle;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;

    #[test]
    fn one_thread_at_a_time_and_reentrant() {
        let inside = Arc::new(AtomicU32::new(0));
        let most = Arc::new(AtomicU32::new(0));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (inside, most) = (Arc::clone(&inside), Arc::clone(&most));
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        let _outer = Lifecycle::enter();
                        let _inner = Lifecycle::enter();
                        let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        std::thread::yield_now();
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), 1);
    }
}
