// Scan — CUDA C, compiled by NVRTC (see mod.rs for the algorithm and interface).
//
// Reduce-then-scan, one tile of GROUP_SIZE·ITEMS elements per block.
// PHASE 0: each thread sums its ITEMS elements; a shared-memory tree gives
// the tile's sum, written to out[tile].
// PHASE 1: each thread scans its ITEMS elements in registers; a Hillis–Steele
// scan in shared memory of the thread totals; each element gets the tile's
// offset (offsets[tile − 1], the inclusive scan of the tile sums) plus the
// totals of the threads before it, stored 16 bytes at a time as it was
// loaded.
// Shared memory: shared_words[GROUP_SIZE] (static), the tree's or the scan's
// scratch. Barriers: after the totals are stored; PHASE 0 after each tree
// level; PHASE 1 twice per scan level (read, then add). Every thread reaches
// every __syncthreads: the loops depend only on GROUP_SIZE, and a block whose
// tile is past the end returns before the first barrier (the whole block).
// Constants (-D NAME=valueu): GROUP_SIZE, ITEMS (a multiple of 4), ELEM
// (0 f32, 1 i32, 2 u32), PHASE (0 / 1).

// Values travel as their 32-bit patterns; f32 adds as float, i32 and u32 as
// unsigned (wrapping; the same bits as the i32 sum).
__forceinline__ unsigned int add(unsigned int a, unsigned int b)
{
#if ELEM == 0
    return __float_as_uint(__uint_as_float(a) + __uint_as_float(b));
#else
    return a + b;
#endif
}

#define VECTORS (ITEMS / 4u)

// The identity of add, ZERO: -0.0 for f32 (-0 + x is x for every x, -0
// included, where +0 + -0 is +0: numpy.cumsum of -0s is -0s), 0 for
// integers. It pads past n and starts the sums and the first tile's offset.
#if ELEM == 0
#define ZERO 0x80000000u
#else
#define ZERO 0u
#endif

extern "C" __global__ void __launch_bounds__(GROUP_SIZE)
scan(const unsigned int* __restrict__ input, unsigned int* __restrict__ out,
     const unsigned int* __restrict__ offsets, unsigned int n, unsigned int offsets_len)
{
    __shared__ unsigned int shared_words[GROUP_SIZE];
    const unsigned int lid = threadIdx.x;
    const unsigned long long tile_len = (unsigned long long)GROUP_SIZE * ITEMS;
    const unsigned long long tile = (unsigned long long)blockIdx.y * gridDim.x + blockIdx.x;
    const unsigned long long tiles = ((unsigned long long)n + tile_len - 1) / tile_len;
    if (tile >= tiles) return;  // the whole block: no barrier is skipped
    const unsigned long long base = tile * tile_len;
    const unsigned long long first = base + (unsigned long long)lid * ITEMS;

    // This thread's ITEMS elements (ZERO past n), as VECTORS 16-byte loads
    // where the whole vector lies below n.
    unsigned int values[ITEMS];
    const uint4* __restrict__ input4 = reinterpret_cast<const uint4*>(input);
#pragma unroll
    for (unsigned int j = 0; j < VECTORS; j++) {
        const unsigned long long at = first + 4ull * j;
        if (at < n && n - at >= 4ull) {
            const uint4 v = input4[at / 4ull];
            values[4 * j] = v.x; values[4 * j + 1] = v.y; values[4 * j + 2] = v.z; values[4 * j + 3] = v.w;
        } else {
#pragma unroll
            for (unsigned int k = 0; k < 4u; k++) {
                values[4 * j + k] = at + k < n ? input[at + k] : ZERO;
            }
        }
    }

#if PHASE == 0
    // Phase 1: this thread's sum to shared memory. -- barrier --
    unsigned int acc = ZERO;
#pragma unroll
    for (unsigned int k = 0; k < ITEMS; k++) acc = add(acc, values[k]);
    shared_words[lid] = acc;
    __syncthreads();
    // Phase 2..: the tree, one barrier per level.
    for (unsigned int s = GROUP_SIZE / 2u; s > 0u; s /= 2u) {
        if (lid < s) shared_words[lid] = add(shared_words[lid], shared_words[lid + s]);
        __syncthreads();
    }
    // Last phase: thread 0 writes the tile's sum.
    if (lid == 0u) out[tile] = shared_words[0];
#else
    // Phase 1: this thread's inclusive scan in registers; its total to
    // shared memory. -- barrier --
#pragma unroll
    for (unsigned int k = 1; k < ITEMS; k++) values[k] = add(values[k - 1], values[k]);
    shared_words[lid] = values[ITEMS - 1];
    __syncthreads();
    // Phase 2..: Hillis–Steele scan of the totals: read (barrier), add
    // (barrier).
    for (unsigned int s = 1u; s < GROUP_SIZE; s *= 2u) {
        const unsigned int earlier = lid >= s ? shared_words[lid - s] : 0u;
        __syncthreads();
        if (lid >= s) shared_words[lid] = add(earlier, shared_words[lid]);
        __syncthreads();
    }
    // Last phase: offset of the tile plus the totals before this thread,
    // stored as the elements were loaded: 16 bytes where the whole vector
    // lies below n, else word by word below n.
    const unsigned int offset = (offsets_len > 0u && tile > 0ull) ? offsets[tile - 1ull] : ZERO;
    const unsigned int before = lid > 0u ? add(offset, shared_words[lid - 1u]) : offset;
    uint4* out4 = reinterpret_cast<uint4*>(out);
#pragma unroll
    for (unsigned int j = 0; j < VECTORS; j++) {
        const unsigned long long at = first + 4ull * j;
        if (at < n && n - at >= 4ull) {
            out4[at / 4ull] = make_uint4(add(before, values[4 * j]), add(before, values[4 * j + 1]),
                                         add(before, values[4 * j + 2]), add(before, values[4 * j + 3]));
        } else {
#pragma unroll
            for (unsigned int k = 0; k < 4u; k++) {
                if (at + k < n) out[at + k] = add(before, values[4 * j + k]);
            }
        }
    }
#endif
}
