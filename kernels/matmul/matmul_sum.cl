// Matmul's split-K sum — OpenCL C (see mod.rs for the algorithm and
// interface).
//
// Invocation e of the flat grid over x and y adds element e of input planes
// z·fan_in … (at most fan_in, below `planes`) in plane order and writes it
// to element e of output plane z. Deterministic: no atomics, a fixed order.
// Shared memory: none. Barriers: none. The plan keeps planes·len below 2^31.

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void matmul_sum(__global const float* restrict partials, __global float* restrict out,
                uint len, uint planes, uint fan_in)
{
    const uint flat = (uint)get_group_id(1) * (uint)get_num_groups(0) + (uint)get_group_id(0);
    const uint e = flat * GROUP_SIZE + (uint)get_local_id(0);
    if (e >= len) {
        return;
    }
    const uint z = (uint)get_group_id(2);
    const uint first = z * fan_in;
    const uint count = min(fan_in, planes - first);
    float acc = 0.0f;
    for (uint p = 0; p < count; p++) {
        acc += partials[(first + p) * len + e];
    }
    out[z * len + e] = acc;
}
