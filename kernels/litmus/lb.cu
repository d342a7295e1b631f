
// LB (load buffering) -- CUDA C, appended to common.cu.
//
// Thread 0: r0 = y; sync; x = 1         Thread 1: r1 = x; sync; y = 1
// Outcomes (r0, r1): (0, 1) seq0, (1, 0) seq1, (0, 0) interleaved,
// (1, 1) weak: each load sees the other thread's later store.
// Weak outcome: forbidden with SYNC 1; allowed with SYNC 0.

extern "C" __global__ void __launch_bounds__(GROUP_SIZE) litmus_lb(LITMUS_ARGS)
{
    const Litmus t = LITMUS_INIT(LOCATIONS);
    const unsigned int lid = threadIdx.x, wg = blockIdx.x;
    const unsigned int role = plan[wg];
    prologue(t, role, lid, wg);
    if (role < test_groups) {
        const At a = locations(t, role, lid);
        const unsigned int r0 = ld(t, a.y_0);
        sync_point();
        st(t, a.x_0, 1u);
        const unsigned int r1 = ld(t, a.x_1);
        sync_point();
        st(t, a.y_1, 1u);
        record(t, a.id_0, 0u, r0);
        record(t, a.id_1, 1u, r1);
    } else {
        stress(t, stress_iters, plan[groups + wg]);
    }
}
