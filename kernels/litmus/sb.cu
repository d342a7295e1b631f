
// SB (store buffering) -- CUDA C, appended to common.cu.
//
// Thread 0: x = 1; sync; r0 = y         Thread 1: y = 1; sync; r1 = x
// With SYNC 1 the accesses to y are read-modify-writes (r0 = atomicAdd(y, 0),
// atomicExch(y, 1)), as in the other languages (fence.sc alone would forbid
// SB in PTX; the RMWs keep the test identical everywhere).
// Outcomes (r0, r1): (0, 1) seq0, (1, 0) seq1, (1, 1) interleaved,
// (0, 0) weak: both stores still buffered when the other thread loads.
// Weak outcome: forbidden with SYNC 1; allowed with SYNC 0.

extern "C" __global__ void __launch_bounds__(GROUP_SIZE) litmus_sb(LITMUS_ARGS)
{
    const Litmus t = LITMUS_INIT(LOCATIONS);
    const unsigned int lid = threadIdx.x, wg = blockIdx.x;
    const unsigned int role = plan[wg];
    prologue(t, role, lid, wg);
    if (role < test_groups) {
        const At a = locations(t, role, lid);
        st(t, a.x_0, 1u);
        sync_point();
        const unsigned int r0 = sync_ld(t, a.y_0);
        sync_st(t, a.y_1, 1u);
        sync_point();
        const unsigned int r1 = ld(t, a.x_1);
        record(t, a.id_0, 0u, r0);
        record(t, a.id_1, 1u, r1);
    } else {
        stress(t, stress_iters, plan[groups + wg]);
    }
}
