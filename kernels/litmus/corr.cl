
// CoRR (read-read coherence) -- OpenCL C, appended to common.cl.
//
// Thread 0: x = 1                       Thread 1: r0 = x; r1 = x
// Outcomes (r0, r1): (0, 0) seq0, (1, 1) seq1, (0, 1) interleaved,
// (1, 0) weak: the second read of x older than the first.
// Weak outcome: forbidden where the accesses are OpenCL 2.0 atomics
// (coherence of one atomic object); allowed in OpenCL C 1.2, which promises
// no consistency between work-items without a barrier. SYNC is always 0.

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void litmus_corr(LITMUS_ARGS)
{
    __local uint wg_locs[SHARED_WORDS];
    const Litmus l = LITMUS_INIT(LOCATIONS);
    const Litmus* t = &l;
    const uint lid = get_local_id(0), wg = get_group_id(0);
    const uint role = plan[wg];
    if (!model(t, lid, wg)) return;
    prologue(t, wg_locs, role, lid, wg);
    if (role < test_groups) {
        const At a = locations(t, role, lid);
        st(t, a.x_0, 1u);
        const uint r0 = ld(t, a.x_1);
        const uint r1 = ld(t, a.x_1);
        record(t, a.id_1, 0u, r0);
        record(t, a.id_1, 1u, r1);
    } else {
        stress(t, stress_iters, plan[groups + wg]);
    }
}
