
// SB (store buffering) -- GLSL, appended to common.comp.
//
// Thread 0: x = 1; sync; r0 = y         Thread 1: y = 1; sync; r1 = x
// With SYNC 1 the accesses to y are read-modify-writes (r0 = atomicAdd(y, 0),
// atomicExchange(y, 1)): the Vulkan memory model has no sequentially
// consistent fence, and acquire/release alone does not forbid SB; but if
// r0 = 0 thread 1's exchange reads from thread 0's RMW, so the fences
// synchronise.
// Outcomes (r0, r1): (0, 1) seq0, (1, 0) seq1, (1, 1) interleaved,
// (0, 0) weak: both stores still buffered when the other thread loads.
// Weak outcome: forbidden with SYNC 1; allowed with SYNC 0.

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint wg = gl_WorkGroupID.x;
    uint role = plan[wg];
    prologue(role, lid, wg);
    if (role < params.test_groups) {
        At a = locations(role, lid);
        st(a.x_0, 1u);
        sync_point();
        uint r0 = sync_ld(a.y_0);
        sync_st(a.y_1, 1u);
        sync_point();
        uint r1 = ld(a.x_1);
        record(a.id_0, 0u, r0);
        record(a.id_1, 1u, r1);
    } else {
        stress(params.stress_iters, plan[params.groups + wg]);
    }
}
