// Copy — OpenCL C (see mod.rs for the algorithm and interface).
//
// Grid-stride over 4-word vectors (uint4 loads and stores; every buffer is
// allocated in multiples of 16 bytes), then the scalar tail.
// No shared memory, no barriers.

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void copy(__global const uint* restrict src, __global uint* restrict dst, uint n)
{
    const uint group_size = GROUP_SIZE;
    const uint lid = get_local_id(0);
    const uint stride = get_num_groups(0) * group_size; // invocations in the grid
    const uint first = get_group_id(0) * group_size;    // t of this group's lid 0

    // Vectors: each row of the grid-stride loop is GROUP_SIZE vectors.
    const uint vectors = n / 4;
    __global const uint4* src4 = (__global const uint4*)src;
    __global uint4* dst4 = (__global uint4*)dst;
    for (uint v = first + lid; v < vectors; v += stride) {
        dst4[v] = src4[v];
    }

    // Tail (64-bit index: it starts past 4·(n/4) and must not wrap).
    for (ulong i = (ulong)vectors * 4 + first + lid; i < n; i += stride) {
        dst[i] = src[i];
    }
}
