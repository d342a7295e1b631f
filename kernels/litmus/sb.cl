
// SB (store buffering) -- OpenCL C, appended to common.cl.
//
// Thread 0: x = 1; sync; r0 = y         Thread 1: y = 1; sync; r1 = x
// With SYNC 1 the accesses to y are read-modify-writes (r0 = fetch_add(y, 0),
// exchange(y, 1)): acquire/release fences alone do not forbid SB, but if
// r0 = 0 thread 1's exchange reads from thread 0's RMW, so the fences
// synchronise.
// Outcomes (r0, r1): (0, 1) seq0, (1, 0) seq1, (1, 1) interleaved,
// (0, 0) weak: both stores still buffered when the other thread loads.
// Weak outcome: forbidden with SYNC 1; allowed with SYNC 0.

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void litmus_sb(LITMUS_ARGS)
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
        const uint r0 = sync_ld(t, a.y_0);
        sync_st(t, a.y_1, 1u);
        sync_point();
        const uint r1 = ld(t, a.x_1);
        record(t, a.id_0, 0u, r0);
        record(t, a.id_1, 1u, r1);
    } else {
        stress(t, stress_iters, plan[groups + wg]);
    }
}
