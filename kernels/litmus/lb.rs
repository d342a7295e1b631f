// LB (load buffering) — CPU workgroup model (see mod.rs; the harness is
// common.rs).
//
// Thread 0: r0 = y; sync; x = 1         Thread 1: r1 = x; sync; y = 1
// Outcomes (r0, r1): (0, 1) seq0, (1, 0) seq1, (0, 0) interleaved,
// (1, 1) weak: each load sees the other thread's later store.
// Weak outcome: forbidden with SYNC 1; allowed with SYNC 0 (never seen on
// x86, whose loads are not reordered with later stores).
// Program: r0 = y_0 | x_0 = 1; r1 = x_1 | y_1 = 1.

use super::common::{run, Segment};
use rosetta_core::workgroup::{Bindings, Group};

const PROGRAM: [Segment; 3] = [
    |m, a, r| r[0] = m.ld(a.y_0),
    |m, a, r| {
        m.st(a.x_0, 1);
        r[1] = m.ld(a.x_1);
    },
    |m, a, r| {
        m.st(a.y_1, 1);
        m.record(a.id_0, 0, r[0]);
        m.record(a.id_1, 1, r[1]);
    },
];

pub(super) fn litmus_lb(group: &mut Group<'_>, bindings: &Bindings<'_>) {
    run(group, bindings, &PROGRAM);
}
