
// LB (load buffering) -- GLSL, appended to common.comp.
//
// Thread 0: r0 = y; sync; x = 1         Thread 1: r1 = x; sync; y = 1
// Outcomes (r0, r1): (0, 1) seq0, (1, 0) seq1, (0, 0) interleaved,
// (1, 1) weak: each load sees the other thread's later store.
// Weak outcome: forbidden with SYNC 1; allowed with SYNC 0.

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint wg = gl_WorkGroupID.x;
    uint role = plan[wg];
    prologue(role, lid, wg);
    if (role < params.test_groups) {
        At a = locations(role, lid);
        uint r0 = ld(a.y_0);
        sync_point();
        st(a.x_0, 1u);
        uint r1 = ld(a.x_1);
        sync_point();
        st(a.y_1, 1u);
        record(a.id_0, 0u, r0);
        record(a.id_1, 1u, r1);
    } else {
        stress(params.stress_iters, plan[params.groups + wg]);
    }
}
