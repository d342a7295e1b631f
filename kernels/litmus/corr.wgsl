
// CoRR (read-read coherence) -- WGSL, appended to common.wgsl.
//
// Thread 0: x = 1                       Thread 1: r0 = x; r1 = x
// Outcomes (r0, r1): (0, 0) seq0, (1, 1) seq1, (0, 1) interleaved,
// (1, 0) weak: the second read of x older than the first.
// Weak outcome: forbidden at both scopes without synchronisation (atomic
// accesses to one location are coherent). SYNC is always 0.

@compute @workgroup_size(GROUP_SIZE)
fn litmus_corr(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let role = plan[wg.x];
    prologue(role, lid, wg.x);
    if role < params.test_groups {
        let a = locations(role, lid);
        st(a.x_0, 1u);
        let r0 = ld(a.x_1);
        let r1 = ld(a.x_1);
        record(a.id_1, 0u, r0);
        record(a.id_1, 1u, r1);
    } else {
        stress(params.stress_iters, plan[params.groups + wg.x]);
    }
}
