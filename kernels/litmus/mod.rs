//! Memory-model litmus tests: the `memory-model` group of the conformance
//! suite. Message passing (MP), store buffering (SB), load buffering (LB)
//! and read-read coherence (CoRR), in every language, at workgroup scope
//! (shared memory) and device scope (a storage buffer, threads in different
//! workgroups), synchronised and relaxed.
//!
//! # The tests
//! Two threads, locations `x` and `y` (zero at the start), reads `r0`, `r1`;
//! `sync` is the variant's synchronisation (below):
//!
//! ```text
//! MP    T0: x = 1; sync; y = 1        T1: r0 = y; sync; r1 = x   weak (1, 0)
//! SB    T0: x = 1; sync; r0 = y       T1: y = 1; sync; r1 = x   weak (0, 0)
//! LB    T0: r0 = y; sync; x = 1       T1: r1 = x; sync; y = 1   weak (1, 1)
//! CoRR  T0: x = 1                     T1: r0 = x; r1 = x        weak (1, 0)
//! ```
//!
//! Each test's other three outcomes are sequentially consistent (`seq0`,
//! `seq1`, `interleaved`; see [`Test::classify`]).
//!
//! # The variants
//! - **workgroup sync**: the two threads in one workgroup, `x`, `y` in shared
//!   memory, a workgroup barrier at each sync point. Every API forbids the
//!   weak outcome.
//! - **device sync**: the threads in different workgroups, `x`, `y` in a
//!   storage buffer, a device-scope acquire/release fence at each sync point
//!   (`__threadfence()`, `memoryBarrier(gl_ScopeDevice, ...)`,
//!   `atomic_work_item_fence(..., memory_scope_device)`, `fence(AcqRel)`).
//!   Forbidden in CUDA, Vulkan, OpenCL C 2.0+ and Rust; WGSL cannot express
//!   it (no device-scope fence), and OpenCL C 1.2 cannot either (no
//!   consistency across work-groups): `Unsupported`.
//! - **relaxed** (both scopes): relaxed atomics, nothing at the sync points.
//!   Allowed everywhere; the weak count and rate are reported.
//! - **CoRR** (both scopes): no synchronisation; coherence of one location
//!   forbids the weak outcome (OpenCL C 1.2, whose accesses are only
//!   `volatile`, promises nothing: allowed there).
//!
//! Synchronised SB makes both accesses to `y` read-modify-writes
//! (`r0 = atomicAdd(y, 0)`, `atomicExchange(y, 1)`), as the WebGPU CTS does:
//! acquire/release alone does not forbid SB (only sequentially consistent
//! fences do, which Vulkan and WGSL lack), but if `r0 = 0` then thread 1's
//! exchange read thread 0's RMW, so thread 0's sync synchronises with thread
//! 1's and `r1 = 1`. [`spec::expect`] gives each (variant, API) its
//! expectation with the rule it rests on.
//!
//! # How a case runs (after the WebGPU CTS and Levine et al., "MC Mutants")
//! - **Many instances per launch.** Every invocation of a testing workgroup
//!   is thread 0 of one instance and thread 1 of another, so a launch runs
//!   one instance per testing invocation. Its program is thread 0's part then
//!   thread 1's (for MP: `x0 = 1; sync; y0 = 1; r0 = y1; sync; r1 = x1`).
//! - **Roles shuffled per launch.** A host-generated permutation (`plan`)
//!   maps workgroups to roles. At device scope role `r` pairs with `r ^ 1`:
//!   an invocation's second instance is in the partner's workgroup, at the
//!   local index `lid * local_mul % GROUP_SIZE` (an odd multiplier, 1 in half
//!   of the launches). The `y` locations are permuted across instances by a
//!   multiplier coprime with their count, and locations are `STRIDE` words
//!   apart (a cache line each on CPUs).
//! - **Stress.** Workgroups beyond the testing ones hammer 1 to 4 random
//!   words of a scratch region (store-store, store-load, load-store or
//!   load-load, random per launch) while the test runs; testing invocations
//!   pre-stress in half of the launches.
//! - **Partners together.** Before the test, invocation 0 of each testing
//!   workgroup counts itself in at its pair's counter and polls (a bounded
//!   spin) until the partner is in too, then a barrier releases the
//!   workgroup; so on CPUs, where workgroups are threads, the two run the
//!   same instances at the same moment.
//! - **Time-budgeted.** Launches repeat until the suite's budget is spent
//!   (`--quick`: 100 ms), each with a fresh seeded plan.
//! - **Checked counting.** Locations, results and counters are zeroed before
//!   every launch; each result word is written with `atomicAdd(1 << 16 | r)`,
//!   so a word written twice or never is a harness error, as is a value other
//!   than 0 or 1; the outcome counts must add up to the instances run.
//!   A forbidden weak outcome fails the case with the counts; an allowed one
//!   is reported in [`crate::op::Verdict::counts`] (`seq0`, `seq1`,
//!   `interleaved`, `weak`, `total`, `launches`) and the rate in the detail.
//!
//! # Files
//! `common.{wgsl,cu,comp,cl,rs}` is the device-side harness (bindings, roles
//! and locations, stress, spin, recording) and `{mp,sb,lb,corr}.*` the tests,
//! appended to it (the Rust tests are program segments that `common.rs`
//! runs). The interface of every kernel:
//! - constants: `GROUP_SIZE`, `SCOPE` (0 workgroup, 1 device), `SYNC` (1, 0),
//!   `STRIDE`, `SHARED_WORDS` (`2 * GROUP_SIZE * STRIDE` at workgroup scope);
//! - bindings: 0 `locs` (read-write), 1 `results` (read-write, `[r0, r1]` per
//!   instance), 2 `plan` (read: roles, then stress locations), 3 `scratch`
//!   (read-write: OpenCL's model word, spin counters, stress lines);
//! - params: `test_groups`, `groups`, `local_mul`, `y_mul`, `stress_iters`,
//!   `pre_iters`, `pattern`, `spin_iters`.

mod check;
mod common;
mod corr;
mod kernel;
mod lb;
mod mp;
mod sb;
pub mod spec;

pub use kernel::kernel;
pub use spec::{Expect, Outcome, Scope, Test, Variant};

use crate::op::{seed, Case, CaseGroup};
use check::LitmusCheck;

/// Every litmus case: one per [`Variant`], all part of `--quick` (which
/// shortens their budget).
pub fn cases() -> Vec<Case> {
    Variant::all()
        .into_iter()
        .map(|variant| {
            let name = format!("litmus {variant}");
            let s = seed(&name);
            Case::new(
                name,
                "memory-model",
                CaseGroup::MemoryModel,
                true,
                move || LitmusCheck::new(variant, s),
            )
        })
        .collect()
}
