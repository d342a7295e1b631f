
// MP (message passing) -- CUDA C, appended to common.cu.
//
// Thread 0: x = 1; sync; y = 1          Thread 1: r0 = y; sync; r1 = x
// Outcomes (r0, r1): (0, 0) seq0, (1, 1) seq1, (0, 1) interleaved,
// (1, 0) weak: the flag y seen without the data x.
// Weak outcome: forbidden with SYNC 1 (SCOPE 0: __syncthreads(); SCOPE 1:
// __threadfence()); allowed with SYNC 0.
// Each thread is thread 0 of id_0, then thread 1 of id_1.

extern "C" __global__ void __launch_bounds__(GROUP_SIZE) litmus_mp(LITMUS_ARGS)
{
    const Litmus t = LITMUS_INIT(LOCATIONS);
    const unsigned int lid = threadIdx.x, wg = blockIdx.x;
    const unsigned int role = plan[wg];
    prologue(t, role, lid, wg);
    if (role < test_groups) {
        const At a = locations(t, role, lid);
        st(t, a.x_0, 1u);
        sync_point();
        st(t, a.y_0, 1u);
        const unsigned int r0 = ld(t, a.y_1);
        sync_point();
        const unsigned int r1 = ld(t, a.x_1);
        record(t, a.id_1, 0u, r0);
        record(t, a.id_1, 1u, r1);
    } else {
        stress(t, stress_iters, plan[groups + wg]);
    }
}
