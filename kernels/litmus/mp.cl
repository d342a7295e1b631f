
// MP (message passing) -- OpenCL C, appended to common.cl.
//
// Thread 0: x = 1; sync; y = 1          Thread 1: r0 = y; sync; r1 = x
// Outcomes (r0, r1): (0, 0) seq0, (1, 1) seq1, (0, 1) interleaved,
// (1, 0) weak: the flag y seen without the data x.
// Weak outcome: forbidden with SYNC 1 (SCOPE 0: barrier; SCOPE 1: device-scope
// acquire-release fence, OpenCL C 2.0+); allowed with SYNC 0.
// Each work-item is thread 0 of id_0, then thread 1 of id_1.

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void litmus_mp(LITMUS_ARGS)
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
        sync_point();
        st(t, a.y_0, 1u);
        const uint r0 = ld(t, a.y_1);
        sync_point();
        const uint r1 = ld(t, a.x_1);
        record(t, a.id_1, 0u, r0);
        record(t, a.id_1, 1u, r1);
    } else {
        stress(t, stress_iters, plan[groups + wg]);
    }
}
