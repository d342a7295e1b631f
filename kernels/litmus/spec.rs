//! What each litmus test is: its outcomes, its variants, and — per API — the
//! rule that forbids or allows its weak outcome. A leaf module: it runs
//! nothing.

use rosetta_core::Api;
use std::fmt;

/// One litmus test: two threads (thread 0, thread 1), two locations `x` and
/// `y` (zero at the start), two reads `r0` and `r1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Test {
    /// Message passing. Thread 0: `x = 1; sync; y = 1`. Thread 1:
    /// `r0 = y; sync; r1 = x`. Weak: `r0 = 1, r1 = 0` (the flag without the
    /// data).
    Mp,
    /// Store buffering. Thread 0: `x = 1; sync; r0 = y`. Thread 1:
    /// `y = 1; sync; r1 = x`. Weak: `r0 = 0, r1 = 0` (each thread's store
    /// still buffered when the other loads). Synchronised variants make the
    /// two accesses to `y` read-modify-writes (see [`Test::Sb`]'s rule).
    Sb,
    /// Load buffering. Thread 0: `r0 = y; sync; x = 1`. Thread 1:
    /// `r1 = x; sync; y = 1`. Weak: `r0 = 1, r1 = 1` (each load sees the
    /// other thread's later store).
    Lb,
    /// Read-read coherence. Thread 0: `x = 1`. Thread 1: `r0 = x; r1 = x`.
    /// Weak: `r0 = 1, r1 = 0` (the second read goes back in time). No
    /// synchronisation: coherence of one location forbids it.
    Corr,
}

impl Test {
    /// Every test, in report order.
    pub const ALL: [Test; 4] = [Test::Mp, Test::Sb, Test::Lb, Test::Corr];

    /// The short name (case names, kernel names).
    pub fn name(self) -> &'static str {
        match self {
            Test::Mp => "mp",
            Test::Sb => "sb",
            Test::Lb => "lb",
            Test::Corr => "corr",
        }
    }

    /// The outcome a pair of reads `(r0, r1)` is (reads are 0 or 1).
    pub fn classify(self, r0: u32, r1: u32) -> Outcome {
        use Outcome::*;
        match (self, r0, r1) {
            // MP: thread 1 entirely first / thread 0 entirely first.
            (Test::Mp, 0, 0) => Seq0,
            (Test::Mp, 1, 1) => Seq1,
            (Test::Mp, 0, 1) => Interleaved,
            (Test::Mp, _, _) => Weak,
            // SB: thread 0 first reads y = 0 and thread 1 then reads x = 1.
            (Test::Sb, 0, 1) => Seq0,
            (Test::Sb, 1, 0) => Seq1,
            (Test::Sb, 1, 1) => Interleaved,
            (Test::Sb, _, _) => Weak,
            (Test::Lb, 0, 1) => Seq0,
            (Test::Lb, 1, 0) => Seq1,
            (Test::Lb, 0, 0) => Interleaved,
            (Test::Lb, _, _) => Weak,
            // CoRR: both reads before / after the write, or between them.
            (Test::Corr, 0, 0) => Seq0,
            (Test::Corr, 1, 1) => Seq1,
            (Test::Corr, 0, 1) => Interleaved,
            (Test::Corr, _, _) => Weak,
        }
    }

    /// `(r0, r1)` of the weak outcome, for messages.
    pub fn weak_reads(self) -> (u32, u32) {
        match self {
            Test::Mp | Test::Corr => (1, 0),
            Test::Sb => (0, 0),
            Test::Lb => (1, 1),
        }
    }

    /// Whether the test has synchronised and relaxed variants (CoRR needs
    /// no synchronisation: it has one variant per scope).
    pub fn has_sync(self) -> bool {
        self != Test::Corr
    }
}

/// One of a test's four outcomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// As if thread 0 ran before thread 1 or the other way round (which one
    /// depends on the test, see [`Test::classify`]).
    Seq0,
    /// The other sequential order.
    Seq1,
    /// A sequentially consistent interleaving of the two threads.
    Interleaved,
    /// Not sequentially consistent: the weak outcome.
    Weak,
}

impl Outcome {
    /// Every outcome, in count order.
    pub const ALL: [Outcome; 4] = [
        Outcome::Seq0,
        Outcome::Seq1,
        Outcome::Interleaved,
        Outcome::Weak,
    ];

    /// The key in [`crate::op::Verdict::counts`].
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Seq0 => "seq0",
            Outcome::Seq1 => "seq1",
            Outcome::Interleaved => "interleaved",
            Outcome::Weak => "weak",
        }
    }
}

/// Where the two threads of an instance are and which memory they share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// Two invocations of one workgroup; `x` and `y` in shared memory.
    Workgroup,
    /// Two invocations of different workgroups; `x` and `y` in a storage
    /// buffer.
    Device,
}

impl Scope {
    /// The name in case names.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Workgroup => "workgroup",
            Scope::Device => "device",
        }
    }

    /// The `SCOPE` constant of the kernels.
    pub fn constant(self) -> u32 {
        match self {
            Scope::Workgroup => 0,
            Scope::Device => 1,
        }
    }
}

/// One variant of a test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Variant {
    /// The test.
    pub test: Test,
    /// Where its threads are.
    pub scope: Scope,
    /// Synchronised: a workgroup barrier (workgroup scope) or a device-scope
    /// acquire/release fence (device scope) at each sync point. Relaxed
    /// (false): nothing there; every access is a relaxed atomic.
    pub sync: bool,
}

impl Variant {
    /// Every variant: MP, SB and LB synchronised and relaxed at both scopes;
    /// CoRR at both scopes.
    pub fn all() -> Vec<Variant> {
        let mut all = Vec::new();
        for test in Test::ALL {
            for scope in [Scope::Workgroup, Scope::Device] {
                if test.has_sync() {
                    all.push(Variant {
                        test,
                        scope,
                        sync: true,
                    });
                }
                all.push(Variant {
                    test,
                    scope,
                    sync: false,
                });
            }
        }
        all
    }

    /// `mp workgroup sync`, `sb device relaxed`, `corr device`.
    pub fn name(self) -> String {
        let mut name = format!("{} {}", self.test.name(), self.scope.name());
        if self.test.has_sync() {
            name.push_str(if self.sync { " sync" } else { " relaxed" });
        }
        name
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// What an API's memory model says about a variant's weak outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// Forbidden: seeing it is a conformance failure. Carries the rule.
    Forbidden(&'static str),
    /// Allowed: its count is reported. Carries the rule.
    Allowed(&'static str),
    /// The API cannot express the variant. Carries why.
    Unsupported(String),
}

/// What an OpenCL kernel reports about the OpenCL C it was built as (the
/// backend picks `-cl-std`; the kernel sees the result): the word the
/// OpenCL versions write to `scratch[0]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenClModel {
    /// `__OPENCL_C_VERSION__` (120, 200, 300).
    pub version: u32,
    /// The accesses are OpenCL 2.0 atomics (`atomic_load_explicit`, ...) at
    /// the variant's scope (OpenCL C 2.0, or 3.0 with
    /// `__opencl_c_atomic_scope_device` at device scope); otherwise they are
    /// `volatile` loads and stores.
    pub c11_atomics: bool,
    /// Device-scope acquire/release fences (`atomic_work_item_fence`):
    /// OpenCL C 2.0, or 3.0 with `__opencl_c_atomic_order_acq_rel` and
    /// `__opencl_c_atomic_scope_device`.
    pub device_fences: bool,
}

impl OpenClModel {
    /// Bit 31 marks a written word.
    const PRESENT: u32 = 1 << 31;
    const C11: u32 = 1 << 16;
    const FENCES: u32 = 1 << 17;

    /// Decode the word; `None` when the kernel wrote none.
    pub fn decode(word: u32) -> Option<OpenClModel> {
        (word & Self::PRESENT != 0).then_some(OpenClModel {
            version: word & 0xffff,
            c11_atomics: word & Self::C11 != 0,
            device_fences: word & Self::FENCES != 0,
        })
    }

    /// `OpenCL C 1.2`.
    pub fn version_name(&self) -> String {
        format!(
            "OpenCL C {}.{}",
            self.version / 100,
            self.version % 100 / 10
        )
    }
}

// The rules. Each variant's expectation cites the specification text that
// makes it so; "allowed" means no rule forbids it (the test reports how often
// it is seen).

const WGSL_BARRIER: &str = "WGSL: workgroupBarrier() is a control barrier with workgroup memory \
     scope and AcquireRelease semantics on workgroup memory (WGSL spec, synchronization built-in \
     functions); accesses before it happen-before accesses after it in every invocation of the \
     workgroup";
const WGSL_RELAXED: &str = "WGSL: every atomic operation is Relaxed (WGSL spec, memory model: \
     atomic operations) and nothing else orders the two locations";
const WGSL_COHERENCE: &str = "WGSL: atomic accesses to one location are coherent (the WGSL memory \
     model is the Vulkan memory model: one modification order per location, read-read coherence)";
const WGSL_NO_DEVICE_SYNC: &str = "WGSL cannot express it: all WGSL atomics are Relaxed and its \
     only synchronisation (workgroupBarrier, storageBarrier) has workgroup scope, so nothing orders \
     accesses of invocations in different workgroups";

const CUDA_SYNCTHREADS: &str = "CUDA: __syncthreads() waits until all threads of the block reach \
     it and all global and shared memory accesses made by them before it are visible to all \
     threads of the block (CUDA C++ Programming Guide, synchronization functions)";
const CUDA_THREADFENCE: &str = "CUDA: __threadfence() is fence.sc.gpu (membar.gl); a fence then a \
     strong write (st.relaxed.gpu) forms a release pattern, a strong read (ld.relaxed.gpu) then a \
     fence an acquire pattern, and a release pattern observed by an acquire pattern synchronises \
     (PTX ISA, memory consistency model: causality order); fence.sc also orders SB";
const CUDA_RELAXED: &str = "CUDA: relaxed accesses (ld/st.relaxed.cta or .gpu) to different \
     locations without fences are not ordered for other threads (PTX ISA memory consistency model)";
const CUDA_COHERENCE: &str =
    "CUDA: morally strong accesses (ld/st.relaxed at a scope holding both \
     threads) to one location are coherent (PTX ISA memory consistency model, axiom 'SC per \
     location')";

const VULKAN_BARRIER: &str = "Vulkan: controlBarrier(Workgroup, Workgroup, Shared, AcquireRelease) \
     is OpControlBarrier with AcquireRelease|WorkgroupMemory semantics: a release and an acquire \
     fence at workgroup scope plus the rendezvous, so writes before it happen-before reads after it \
     (Vulkan spec, memory model: synchronizes-with)";
const VULKAN_FENCE: &str =
    "Vulkan: memoryBarrier(Device, Buffer, AcquireRelease) is OpMemoryBarrier \
     with AcquireRelease|UniformMemory semantics at Device scope; a release fence, an atomic write \
     read by an atomic read, then an acquire fence, all at Device scope, synchronise (Vulkan spec, \
     memory model: synchronizes-with for fences); SB needs its y accesses to be atomic RMWs since \
     the model has no sequentially consistent fence";
const VULKAN_RELAXED: &str = "Vulkan: Relaxed atomics (atomicLoad/atomicStore, \
     GL_KHR_memory_scope_semantics) order nothing between different locations (Vulkan memory model)";
const VULKAN_COHERENCE: &str =
    "Vulkan: atomic accesses to one location are coherent (Vulkan memory \
     model: location-ordered, scoped modification order, read-read coherence)";

const OPENCL_BARRIER: &str = "OpenCL: barrier(CLK_LOCAL_MEM_FENCE) — all work-items of the \
     work-group reach it, and local memory is consistent across the work-group's work-items at a \
     work-group barrier (OpenCL 1.2 spec 3.3.1 and 6.12.8; OpenCL 2.0: work_group_barrier with \
     acquire/release semantics)";
const OPENCL_FENCE: &str = "OpenCL C 2.0+: atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, \
     memory_order_acq_rel, memory_scope_device): a release fence synchronises with an acquire fence \
     when an atomic write after the one is read by an atomic read before the other (OpenCL 2.0 \
     spec 3.3.6, fences); SB needs its y accesses to be atomic RMWs (acq_rel fences do not \
     forbid it)";
const OPENCL_RELAXED: &str = "OpenCL: relaxed atomics (OpenCL C 2.0+) or volatile accesses (1.2) \
     without barriers or fences order nothing between work-items";
const OPENCL_COHERENCE: &str = "OpenCL C 2.0+: atomic accesses to one atomic object are coherent \
     (OpenCL 2.0 spec 3.3.4, read-read coherence)";
const OPENCL_12_NO_COHERENCE: &str = "OpenCL C 1.2: no consistency guarantee between work-items \
     without a barrier (OpenCL 1.2 spec 3.3.1: memory is consistent across work-items of one \
     work-group only at a barrier, never across work-groups), and the loads are volatile, not atomic";

const RUST_PHASES: &str = "CPU workgroup model: a barrier ends a phase; every invocation finishes \
     a phase before any starts the next, on one thread (rosetta_core::workgroup)";
const RUST_FENCE: &str = "Rust/C++20 atomics: a release fence synchronises with an acquire fence \
     when an atomic write after the one is read by an atomic read before the other \
     ([atomics.fences]; device_fence is fence(AcqRel)); SB needs its y accesses to be RMWs, since \
     acquire/release fences do not forbid it";
const RUST_RELAXED: &str = "Rust/C++20 atomics: Relaxed accesses to different locations are not \
     ordered for other threads (workgroups run on different threads)";
const RUST_COHERENCE: &str = "Rust/C++20 atomics: read-read coherence of one atomic object \
     ([intro.races])";

/// What `api`'s memory model says about `variant`'s weak outcome. For
/// OpenCL, `model` (reported by the kernel after a launch) refines it; with
/// `None` the static answer is given (OpenCL C 2.0 assumed).
pub fn expect(variant: Variant, api: Api, model: Option<OpenClModel>) -> Expect {
    use Expect::*;
    let Variant { test, scope, sync } = variant;
    if test == Test::Corr {
        return match api {
            Api::Wgpu => Forbidden(WGSL_COHERENCE),
            Api::Cuda => Forbidden(CUDA_COHERENCE),
            Api::Vulkan => Forbidden(VULKAN_COHERENCE),
            Api::Cpu => Forbidden(RUST_COHERENCE),
            Api::Opencl => match model {
                Some(m) if !m.c11_atomics => Allowed(OPENCL_12_NO_COHERENCE),
                _ => Forbidden(OPENCL_COHERENCE),
            },
        };
    }
    if !sync {
        return Allowed(match api {
            Api::Wgpu => WGSL_RELAXED,
            Api::Cuda => CUDA_RELAXED,
            Api::Vulkan => VULKAN_RELAXED,
            Api::Opencl => OPENCL_RELAXED,
            Api::Cpu => RUST_RELAXED,
        });
    }
    match (scope, api) {
        (Scope::Workgroup, Api::Wgpu) => Forbidden(WGSL_BARRIER),
        (Scope::Workgroup, Api::Cuda) => Forbidden(CUDA_SYNCTHREADS),
        (Scope::Workgroup, Api::Vulkan) => Forbidden(VULKAN_BARRIER),
        (Scope::Workgroup, Api::Opencl) => Forbidden(OPENCL_BARRIER),
        (Scope::Workgroup, Api::Cpu) => Forbidden(RUST_PHASES),
        (Scope::Device, Api::Wgpu) => Unsupported(WGSL_NO_DEVICE_SYNC.into()),
        (Scope::Device, Api::Cuda) => Forbidden(CUDA_THREADFENCE),
        (Scope::Device, Api::Vulkan) => Forbidden(VULKAN_FENCE),
        (Scope::Device, Api::Cpu) => Forbidden(RUST_FENCE),
        (Scope::Device, Api::Opencl) => match model {
            Some(m) if !m.device_fences => Unsupported(format!(
                "{} (the OpenCL C this device's kernels are built as) has no device-scope fence: \
                 OpenCL 1.2 gives no memory consistency between work-groups (spec 3.3.1); the \
                 variant needs OpenCL C 2.0, or 3.0 with __opencl_c_atomic_order_acq_rel and \
                 __opencl_c_atomic_scope_device",
                m.version_name()
            )),
            _ => Forbidden(OPENCL_FENCE),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_read_pair_has_one_outcome_and_one_is_weak() {
        for test in Test::ALL {
            let mut seen = Vec::new();
            for r0 in 0..2 {
                for r1 in 0..2 {
                    seen.push(test.classify(r0, r1));
                }
            }
            seen.sort();
            assert_eq!(seen, Outcome::ALL.to_vec(), "{test:?}");
            let (r0, r1) = test.weak_reads();
            assert_eq!(test.classify(r0, r1), Outcome::Weak, "{test:?}");
        }
    }

    #[test]
    fn the_classic_weak_outcomes() {
        assert_eq!(Test::Mp.classify(1, 0), Outcome::Weak);
        assert_eq!(Test::Mp.classify(1, 1), Outcome::Seq1);
        assert_eq!(Test::Sb.classify(0, 0), Outcome::Weak);
        assert_eq!(Test::Sb.classify(1, 1), Outcome::Interleaved);
        assert_eq!(Test::Lb.classify(1, 1), Outcome::Weak);
        assert_eq!(Test::Lb.classify(0, 0), Outcome::Interleaved);
        assert_eq!(Test::Corr.classify(1, 0), Outcome::Weak);
        assert_eq!(Test::Corr.classify(0, 1), Outcome::Interleaved);
    }

    #[test]
    fn variants_and_expectations() {
        let all = Variant::all();
        assert_eq!(all.len(), 14);
        let mut names: Vec<String> = all.iter().map(|v| v.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 14);
        for v in &all {
            for api in Api::ALL {
                let e = expect(*v, api, None);
                match (v.test, v.sync, v.scope, api) {
                    (Test::Corr, ..) => assert!(matches!(e, Expect::Forbidden(_)), "{v} {api}"),
                    (_, false, ..) => assert!(matches!(e, Expect::Allowed(_)), "{v} {api}"),
                    (_, true, Scope::Device, Api::Wgpu) => {
                        assert!(matches!(e, Expect::Unsupported(_)), "{v} {api}")
                    }
                    _ => assert!(matches!(e, Expect::Forbidden(_)), "{v} {api}"),
                }
            }
        }
    }

    #[test]
    fn opencl_expectations_follow_the_model_the_kernel_reports() {
        let word = (1 << 31) | 120;
        let m = OpenClModel::decode(word).unwrap();
        assert_eq!(m.version_name(), "OpenCL C 1.2");
        assert!(!m.c11_atomics && !m.device_fences);
        assert_eq!(OpenClModel::decode(120), None, "no presence bit");
        let sync = Variant {
            test: Test::Mp,
            scope: Scope::Device,
            sync: true,
        };
        assert!(matches!(
            expect(sync, Api::Opencl, Some(m)),
            Expect::Unsupported(_)
        ));
        let corr = Variant {
            test: Test::Corr,
            scope: Scope::Device,
            sync: false,
        };
        assert!(matches!(
            expect(corr, Api::Opencl, Some(m)),
            Expect::Allowed(_)
        ));
        let m2 = OpenClModel::decode((1 << 31) | (3 << 16) | 200).unwrap();
        assert!(m2.c11_atomics && m2.device_fences);
        assert!(matches!(
            expect(sync, Api::Opencl, Some(m2)),
            Expect::Forbidden(_)
        ));
        assert!(matches!(
            expect(corr, Api::Opencl, Some(m2)),
            Expect::Forbidden(_)
        ));
        let wg = Variant {
            scope: Scope::Workgroup,
            ..sync
        };
        assert!(matches!(
            expect(wg, Api::Opencl, Some(m)),
            Expect::Forbidden(_)
        ));
    }
}
