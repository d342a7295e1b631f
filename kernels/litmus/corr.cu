
// CoRR (read-read coherence) -- CUDA C, appended to common.cu.
//
// Thread 0: x = 1                       Thread 1: r0 = x; r1 = x
// Outcomes (r0, r1): (0, 0) seq0, (1, 1) seq1, (0, 1) interleaved,
// (1, 0) weak: the second read of x older than the first.
// Weak outcome: forbidden at both scopes without synchronisation (relaxed
// accesses are morally strong; the PTX model keeps one location coherent).
// SYNC is always 0. (With ld.volatile instead, ptxas swapped the two reads'
// values on sm_90: this test saw (1, 0) in 5% of instances, never (0, 1).)

extern "C" __global__ void __launch_bounds__(GROUP_SIZE) litmus_corr(LITMUS_ARGS)
{
    const Litmus t = LITMUS_INIT(LOCATIONS);
    const unsigned int lid = threadIdx.x, wg = blockIdx.x;
    const unsigned int role = plan[wg];
    prologue(t, role, lid, wg);
    if (role < test_groups) {
        const At a = locations(t, role, lid);
        st(t, a.x_0, 1u);
        const unsigned int r0 = ld(t, a.x_1);
        const unsigned int r1 = ld(t, a.x_1);
        record(t, a.id_1, 0u, r0);
        record(t, a.id_1, 1u, r1);
    } else {
        stress(t, stress_iters, plan[groups + wg]);
    }
}
