//! The CPU workgroup model: how the Rust versions of the kernels see the GPU
//! execution model.
//!
//! The CPU backend calls a kernel's Rust version ([`crate::CpuKernel`]) once per workgroup (workgroups run in
//! parallel on a thread pool). Inside, the kernel runs its invocations itself:
//!
//! - **Phases and barriers.** Code between two barriers is a *phase*; a kernel
//!   writes a phase as one loop over the local invocation index
//!   (`for lid in 0..group.size`). Every invocation finishes the phase before
//!   any starts the next, which is exactly what `workgroupBarrier()` /
//!   `__syncthreads()` / `barrier()` guarantee. Inside a phase, invocations are
//!   independent, so the loop may visit them in any order (kernels interleave
//!   them to keep memory access sequential, as a GPU's coalescing would).
//! - **Shared memory.** [`Group::shared`] is the workgroup's scratch array of
//!   [`crate::Launch::shared_bytes`] bytes. Its contents at the start of a
//!   workgroup are unspecified (a worker thread reuses its scratch), so kernels
//!   initialise what they read, as on a GPU. Invocations of one group run on one thread, so shared memory needs no
//!   atomics: a shared atomic is a plain read-modify-write.
//! - **Private memory.** Values an invocation keeps across a barrier live in
//!   arrays indexed by the local index.
//! - **Global memory and atomics.** Read-only bindings are `&[u32]`; writable
//!   bindings are `&[AtomicU32]`, so workgroups on different threads can write
//!   and atomically update them exactly like GPU global memory.

use std::sync::atomic::{fence, AtomicU32, Ordering};

/// One workgroup's view of the launch.
pub struct Group<'a> {
    /// This workgroup's index along x, y, z (`workgroup_id`, `blockIdx`).
    pub id: [u32; 3],
    /// Number of workgroups along x, y, z (`num_workgroups`, `gridDim`).
    pub count: [u32; 3],
    /// Invocations in the workgroup (`GROUP_SIZE`).
    pub size: u32,
    /// The kernel's constants, in [`crate::KernelDef::constants`] order.
    pub constants: &'a [u32],
    /// The launch's parameter words, in [`crate::KernelDef::params`] order.
    pub params: &'a [u32],
    /// Workgroup shared memory, `shared_bytes / 4` words.
    pub shared: &'a mut [u32],
}

impl Group<'_> {
    /// Parameter word `i` as f32 (params carry f32 values as their bits).
    pub fn param_f32(&self, i: usize) -> f32 {
        f32::from_bits(self.params[i])
    }
}

/// One buffer binding of a launch.
#[derive(Clone, Copy)]
pub enum Binding<'a> {
    /// A read-only buffer, as words.
    Read(&'a [u32]),
    /// A writable buffer, as atomics (global memory shared by workgroups).
    ReadWrite(&'a [AtomicU32]),
}

/// The buffers of a launch, in binding order.
pub struct Bindings<'a> {
    slots: Vec<Binding<'a>>,
}

impl<'a> Bindings<'a> {
    /// The bindings of one launch, in binding order.
    pub fn new(slots: Vec<Binding<'a>>) -> Self {
        Bindings { slots }
    }

    /// A read-only binding as 32-bit words. Panics if binding `i` is writable
    /// or missing: a mismatch between a kernel and its own definition. The
    /// CPU backend catches a kernel's panic and returns it as an error.
    pub fn read(&self, i: usize) -> &'a [u32] {
        match self.slots[i] {
            Binding::Read(words) => words,
            Binding::ReadWrite(_) => panic!("binding {i} is read-write, not read-only"),
        }
    }

    /// A read-only binding as f32.
    pub fn read_f32(&self, i: usize) -> &'a [f32] {
        bytemuck::cast_slice(self.read(i))
    }

    /// A writable binding (global memory with atomics). Panics like
    /// [`Bindings::read`] on a mismatch.
    pub fn write(&self, i: usize) -> &'a [AtomicU32] {
        match self.slots[i] {
            Binding::ReadWrite(words) => words,
            Binding::Read(_) => panic!("binding {i} is read-only, not read-write"),
        }
    }
}

/// Global-memory helpers that read like the GPU code they model.
pub trait GlobalWord {
    /// Store a word.
    fn store_u32(&self, value: u32);
    /// Store an f32 as its bits.
    fn store_f32(&self, value: f32);
    /// Load a word.
    fn load_u32(&self) -> u32;
    /// `atomicAdd` on a global word; returns the old value.
    fn atomic_add(&self, value: u32) -> u32;
    /// `atomicExchange` on a global word (relaxed); returns the old value.
    fn atomic_exchange(&self, value: u32) -> u32;
}

// `#[inline]`: kernels live in another crate and call these once per element.
impl GlobalWord for AtomicU32 {
    #[inline]
    fn store_u32(&self, value: u32) {
        self.store(value, Ordering::Relaxed);
    }
    #[inline]
    fn store_f32(&self, value: f32) {
        self.store(value.to_bits(), Ordering::Relaxed);
    }
    #[inline]
    fn load_u32(&self) -> u32 {
        self.load(Ordering::Relaxed)
    }
    #[inline]
    fn atomic_add(&self, value: u32) -> u32 {
        self.fetch_add(value, Ordering::Relaxed)
    }
    #[inline]
    fn atomic_exchange(&self, value: u32) -> u32 {
        self.swap(value, Ordering::Relaxed)
    }
}

/// A device-scope acquire/release fence between one invocation's
/// global-memory accesses: what `__threadfence()`,
/// `memoryBarrier(gl_ScopeDevice, ...)` and `atomic_work_item_fence(...,
/// memory_scope_device)` are on a GPU. Workgroups run on different threads,
/// so this is a real fence (`fence(AcqRel)`): a release fence synchronises
/// with an acquire fence when an atomic write after the first is read by an
/// atomic read before the second. The [`GlobalWord`] accesses are relaxed;
/// nothing else orders them across workgroups.
pub fn device_fence() {
    fence(Ordering::AcqRel);
}
