
// LB (load buffering) -- OpenCL C, appended to common.cl.
//
// Thread 0: r0 = y; sync; x = 1         Thread 1: r1 = x; sync; y = 1
// Outcomes (r0, r1): (0, 1) seq0, (1, 0) seq1, (0, 0) interleaved,
// (1, 1) weak: each load sees the other thread's later store.
// Weak outcome: forbidden with SYNC 1; allowed with SYNC 0.

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void litmus_lb(LITMUS_ARGS)
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
        const uint r0 = ld(t, a.y_0);
        sync_point();
        st(t, a.x_0, 1u);
        const uint r1 = ld(t, a.x_1);
        sync_point();
        st(t, a.y_1, 1u);
        record(t, a.id_0, 0u, r0);
        record(t, a.id_1, 1u, r1);
    } else {
        stress(t, stress_iters, plan[groups + wg]);
    }
}
