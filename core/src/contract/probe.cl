// probe -- the contract suite's kernel, OpenCL C (see probe.wgsl).
// Shared memory: shared_words (GROUP_SIZE u32). Barriers: one, after the load.

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void probe(__global const uint* restrict input,
           __global uint* restrict output,
           __global uint* restrict counter,
           uint n, uint add) {
    __local uint shared_words[GROUP_SIZE];
    uint lid = get_local_id(0);
    uint base = get_group_id(0) * GROUP_SIZE;
    uint i = base + lid;
    // Phase 1: load. -- barrier --
    uint value = 0u;
    if (i < n) {
        value = input[i];
    }
    shared_words[lid] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    // Phase 2: store reversed, count.
    if (i < n) {
        output[i] = shared_words[GROUP_SIZE - 1u - lid] + add;
        atomic_add(&counter[0], 1u);
    }
}
