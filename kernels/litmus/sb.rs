// SB (store buffering) — CPU workgroup model (see mod.rs; the harness is
// common.rs).
//
// Thread 0: x = 1; sync; r0 = y         Thread 1: y = 1; sync; r1 = x
// With SYNC 1 the accesses to y are read-modify-writes (r0 = atomicAdd(y, 0),
// atomicExchange(y, 1)): acquire/release fences alone do not forbid SB, but
// if r0 = 0 thread 1's exchange reads from thread 0's RMW, so thread 0's
// fence synchronises with thread 1's and x = 1 is visible to r1.
// Outcomes (r0, r1): (0, 1) seq0, (1, 0) seq1, (1, 1) interleaved,
// (0, 0) weak: both stores still buffered when the other thread loads.
// Weak outcome: forbidden with SYNC 1; allowed with SYNC 0 (x86 shows it:
// workgroups run on different threads, and TSO lets a load pass an earlier
// store to another location).
// Program: x_0 = 1 | r0 = y_0; y_1 = 1 | r1 = x_1.

use super::common::{run, Segment};
use rosetta_core::workgroup::{Bindings, Group};

const PROGRAM: [Segment; 3] = [
    |m, a, _| m.st(a.x_0, 1),
    |m, a, r| {
        r[0] = m.sync_ld(a.y_0);
        m.sync_st(a.y_1, 1);
    },
    |m, a, r| {
        r[1] = m.ld(a.x_1);
        m.record(a.id_0, 0, r[0]);
        m.record(a.id_1, 1, r[1]);
    },
];

pub(super) fn litmus_sb(group: &mut Group<'_>, bindings: &Bindings<'_>) {
    run(group, bindings, &PROGRAM);
}
