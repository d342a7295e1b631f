
// MP (message passing) -- WGSL, appended to common.wgsl.
//
// Thread 0: x = 1; sync; y = 1          Thread 1: r0 = y; sync; r1 = x
// Outcomes (r0, r1): (0, 0) seq0, (1, 1) seq1, (0, 1) interleaved,
// (1, 0) weak: the flag y seen without the data x.
// Weak outcome: forbidden at SCOPE 0 with SYNC 1 (workgroupBarrier); allowed
// with SYNC 0 (relaxed atomics); SCOPE 1 with SYNC 1 does not exist in WGSL.
// Each invocation is thread 0 of id_0, then thread 1 of id_1.

@compute @workgroup_size(GROUP_SIZE)
fn litmus_mp(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let role = plan[wg.x];
    prologue(role, lid, wg.x);
    if role < params.test_groups {
        let a = locations(role, lid);
        st(a.x_0, 1u);
        sync_point();
        st(a.y_0, 1u);
        let r0 = ld(a.y_1);
        sync_point();
        let r1 = ld(a.x_1);
        record(a.id_1, 0u, r0);
        record(a.id_1, 1u, r1);
    } else {
        stress(params.stress_iters, plan[params.groups + wg.x]);
    }
}
