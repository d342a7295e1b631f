//! A process-wide lock that one thread may take again while it holds it.
//!
//! Backends whose drivers misbehave when several threads set up, use or
//! tear down devices at once serialise those sections with one `static`
//! [`ProcessLock`] each (NVIDIA's Vulkan driver deadlocked,
//! `backend-vulkan/src/vk/live.rs`; wgpu instances torn down at once hung,
//! `backend-wgpu/src/lifecycle.rs`). Re-entry matters: a discovery that
//! fails halfway drops the devices it opened while it still holds the lock,
//! and a driver call may destroy objects. A poisoned lock (a thread
//! panicked inside) is still usable: what it guards is the driver's state,
//! not data of its own.

use std::sync::{Condvar, Mutex, PoisonError};
use std::thread::ThreadId;

/// A lock held by at most one thread at a time, any number of times by
/// that thread.
#[derive(Debug)]
pub struct ProcessLock {
    /// The thread holding the lock, and how many sections it has open.
    owner: Mutex<Option<(ThreadId, u32)>>,
    released: Condvar,
}

/// One open section of a [`ProcessLock`]: the lock is released when the
/// thread's last section drops. `Send`, so that a value can carry a section
/// into its own drop glue (a field declared last drops last).
#[derive(Debug)]
#[must_use = "the section ends when this is dropped"]
pub struct Section {
    lock: &'static ProcessLock,
}

impl ProcessLock {
    /// A lock no thread holds.
    pub const fn new() -> Self {
        ProcessLock {
            owner: Mutex::new(None),
            released: Condvar::new(),
        }
    }

    /// Wait until no other thread holds the lock, then open a section.
    pub fn enter(&'static self) -> Section {
        let me = std::thread::current().id();
        let mut owner = self.owner.lock().unwrap_or_else(PoisonError::into_inner);
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
                    owner = self
                        .released
                        .wait(owner)
                        .unwrap_or_else(PoisonError::into_inner);
                }
            }
        }
        Section { lock: self }
    }

    /// Run `f` inside a section.
    pub fn run<T>(&'static self, f: impl FnOnce() -> T) -> T {
        let _section = self.enter();
        f()
    }
}

impl Default for ProcessLock {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Section {
    fn drop(&mut self) {
        let mut owner = self
            .lock
            .owner
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some((_, depth)) = &mut *owner {
            *depth -= 1;
            if *depth == 0 {
                *owner = None;
                self.lock.released.notify_all();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ProcessLock;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;

    #[test]
    fn one_thread_at_a_time_and_reentrant() {
        static LOCK: ProcessLock = ProcessLock::new();
        let inside = Arc::new(AtomicU32::new(0));
        let most = Arc::new(AtomicU32::new(0));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (inside, most) = (Arc::clone(&inside), Arc::clone(&most));
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        let _outer = LOCK.enter();
                        LOCK.run(|| {
                            let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                            most.fetch_max(now, Ordering::SeqCst);
                            std::thread::yield_now();
                            inside.fetch_sub(1, Ordering::SeqCst);
                        });
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_panic_inside_releases_the_lock() {
        static LOCK: ProcessLock = ProcessLock::new();
        let panicked = std::thread::spawn(|| LOCK.run(|| panic!("inside"))).join();
        assert!(panicked.is_err());
        // Another thread gets in (it would wait forever otherwise).
        std::thread::spawn(|| LOCK.run(|| ())).join().unwrap();
    }
}
