// MP (message passing) — CPU workgroup model (see mod.rs; the harness is
// common.rs).
//
// Thread 0: x = 1; sync; y = 1          Thread 1: r0 = y; sync; r1 = x
// Outcomes (r0, r1): (0, 0) seq0, (1, 1) seq1, (0, 1) interleaved,
// (1, 0) weak: the flag y seen without the data x.
// Weak outcome: forbidden with SYNC 1 (SCOPE 0: the barrier ends a phase;
// SCOPE 1: device_fence, acquire/release); allowed with SYNC 0.
// Each invocation is thread 0 of id_0, then thread 1 of id_1; its program is
// three segments: x_0 = 1 | y_0 = 1; r0 = y_1 | r1 = x_1.

use super::common::{run, Segment};
use rosetta_core::workgroup::{Bindings, Group};

const PROGRAM: [Segment; 3] = [
    |m, a, _| m.st(a.x_0, 1),
    |m, a, r| {
        m.st(a.y_0, 1);
        r[0] = m.ld(a.y_1);
    },
    |m, a, r| {
        r[1] = m.ld(a.x_1);
        m.record(a.id_1, 0, r[0]);
        m.record(a.id_1, 1, r[1]);
    },
];

pub(super) fn litmus_mp(group: &mut Group<'_>, bindings: &Bindings<'_>) {
    run(group, bindings, &PROGRAM);
}
