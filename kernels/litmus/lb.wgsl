
// LB (load buffering) -- WGSL, appended to common.wgsl.
//
// Thread 0: r0 = y; sync; x = 1         Thread 1: r1 = x; sync; y = 1
// Outcomes (r0, r1): (0, 1) seq0, (1, 0) seq1, (0, 0) interleaved,
// (1, 1) weak: each load sees the other thread's later store.
// Weak outcome: forbidden at SCOPE 0 with SYNC 1 (workgroupBarrier); allowed
// with SYNC 0; SCOPE 1 with SYNC 1 does not exist in WGSL.

@compute @workgroup_size(GROUP_SIZE)
fn litmus_lb(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let role = plan[wg.x];
    prologue(role, lid, wg.x);
    if role < params.test_groups {
        let a = locations(role, lid);
        let r0 = ld(a.y_0);
        sync_point();
        st(a.x_0, 1u);
        let r1 = ld(a.x_1);
        sync_point();
        st(a.y_1, 1u);
        record(a.id_0, 0u, r0);
        record(a.id_1, 1u, r1);
    } else {
        stress(params.stress_iters, plan[params.groups + wg.x]);
    }
}
