
// MP (message passing) -- GLSL, appended to common.comp.
//
// Thread 0: x = 1; sync; y = 1          Thread 1: r0 = y; sync; r1 = x
// Outcomes (r0, r1): (0, 0) seq0, (1, 1) seq1, (0, 1) interleaved,
// (1, 0) weak: the flag y seen without the data x.
// Weak outcome: forbidden with SYNC 1 (SCOPE 0: controlBarrier; SCOPE 1:
// device-scope acquire-release memoryBarrier); allowed with SYNC 0.
// Each invocation is thread 0 of id_0, then thread 1 of id_1.

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint wg = gl_WorkGroupID.x;
    uint role = plan[wg];
    prologue(role, lid, wg);
    if (role < params.test_groups) {
        At a = locations(role, lid);
        st(a.x_0, 1u);
        sync_point();
        st(a.y_0, 1u);
        uint r0 = ld(a.y_1);
        sync_point();
        uint r1 = ld(a.x_1);
        record(a.id_1, 0u, r0);
        record(a.id_1, 1u, r1);
    } else {
        stress(params.stress_iters, plan[params.groups + wg]);
    }
}
