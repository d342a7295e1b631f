
// CoRR (read-read coherence) -- GLSL, appended to common.comp.
//
// Thread 0: x = 1                       Thread 1: r0 = x; r1 = x
// Outcomes (r0, r1): (0, 0) seq0, (1, 1) seq1, (0, 1) interleaved,
// (1, 0) weak: the second read of x older than the first.
// Weak outcome: forbidden at both scopes without synchronisation (atomic
// accesses to one location are coherent). SYNC is always 0.

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint wg = gl_WorkGroupID.x;
    uint role = plan[wg];
    prologue(role, lid, wg);
    if (role < params.test_groups) {
        At a = locations(role, lid);
        st(a.x_0, 1u);
        uint r0 = ld(a.x_1);
        uint r1 = ld(a.x_1);
        record(a.id_1, 0u, r0);
        record(a.id_1, 1u, r1);
    } else {
        stress(params.stress_iters, plan[params.groups + wg]);
    }
}
