// Copy — CUDA C, compiled by NVRTC (see mod.rs): dst[i] = src[i] for n words.
//
// Algorithm: grid-stride over 4-word vectors (16-byte loads and stores),
// then the scalar tail, as reduce's loads. No shared memory, no barriers.
// Constants (-D NAME=valueu): GROUP_SIZE.

// Enough blocks per SM to fill it (2048 threads on sm_80/sm_90).
#define MIN_BLOCKS (GROUP_SIZE >= 64u ? 2048u / GROUP_SIZE : 32u)

extern "C" __global__ void __launch_bounds__(GROUP_SIZE, MIN_BLOCKS)
copy(const unsigned int* __restrict__ src, unsigned int* __restrict__ dst, unsigned int n)
{
    const unsigned int lid = threadIdx.x;
    const size_t stride = (size_t)GROUP_SIZE * gridDim.x;  // T: threads in the grid
    const size_t first = (size_t)blockIdx.x * GROUP_SIZE;  // t of this block's lid 0

    // Vectors: each row of the grid-stride loop is GROUP_SIZE vectors; two
    // rows per iteration keep two loads in flight per thread.
    const size_t vectors = n / 4u;
    const uint4* __restrict__ src4 = reinterpret_cast<const uint4*>(src);
    uint4* __restrict__ dst4 = reinterpret_cast<uint4*>(dst);
    size_t row = first + lid;
    for (; row + stride < vectors; row += 2 * stride) {
        const uint4 v0 = src4[row];
        const uint4 v1 = src4[row + stride];
        dst4[row] = v0;
        dst4[row + stride] = v1;
    }
    for (; row < vectors; row += stride) {
        dst4[row] = src4[row];
    }
    // Tail.
    for (size_t i = vectors * 4 + first + lid; i < n; i += stride) {
        dst[i] = src[i];
    }
}
