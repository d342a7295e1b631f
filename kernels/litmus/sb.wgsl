
// SB (store buffering) -- WGSL, appended to common.wgsl.
//
// Thread 0: x = 1; sync; r0 = y         Thread 1: y = 1; sync; r1 = x
// With SYNC 1 the accesses to y are read-modify-writes (r0 = atomicAdd(y, 0),
// atomicExchange(y, 1)), as in the WebGPU CTS: acquire/release alone does not
// forbid SB, but if r0 = 0 thread 1's exchange reads from thread 0's RMW.
// Outcomes (r0, r1): (0, 1) seq0, (1, 0) seq1, (1, 1) interleaved,
// (0, 0) weak: both stores still buffered when the other thread loads.
// Weak outcome: forbidden at SCOPE 0 with SYNC 1 (workgroupBarrier); allowed
// with SYNC 0; SCOPE 1 with SYNC 1 does not exist in WGSL.

@compute @workgroup_size(GROUP_SIZE)
fn litmus_sb(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let role = plan[wg.x];
    prologue(role, lid, wg.x);
    if role < params.test_groups {
        let a = locations(role, lid);
        st(a.x_0, 1u);
        sync_point();
        let r0 = sync_ld(a.y_0);
        sync_st(a.y_1, 1u);
        sync_point();
        let r1 = ld(a.x_1);
        record(a.id_0, 0u, r0);
        record(a.id_1, 1u, r1);
    } else {
        stress(params.stress_iters, plan[params.groups + wg.x]);
    }
}
