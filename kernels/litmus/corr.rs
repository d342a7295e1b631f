// CoRR (read-read coherence) — CPU workgroup model (see mod.rs; the harness
// is common.rs).
//
// Thread 0: x = 1                       Thread 1: r0 = x; r1 = x
// Outcomes (r0, r1): (0, 0) seq0, (1, 1) seq1, (0, 1) interleaved,
// (1, 0) weak: the second read of x older than the first.
// Weak outcome: forbidden at both scopes, without synchronisation (read-read
// coherence of one atomic location). SYNC is always 0.
// Program: one segment: x_0 = 1; r0 = x_1; r1 = x_1.

use super::common::{run, Segment};
use rosetta_core::workgroup::{Bindings, Group};

const PROGRAM: [Segment; 1] = [|m, a, r| {
    m.st(a.x_0, 1);
    r[0] = m.ld(a.x_1);
    r[1] = m.ld(a.x_1);
    m.record(a.id_1, 0, r[0]);
    m.record(a.id_1, 1, r[1]);
}];

pub(super) fn litmus_corr(group: &mut Group<'_>, bindings: &Bindings<'_>) {
    run(group, bindings, &PROGRAM);
}
