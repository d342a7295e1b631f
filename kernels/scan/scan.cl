// Scan — OpenCL C (see mod.rs for the algorithm and interface).
//
// Reduce-then-scan, one tile of GROUP_SIZE·ITEMS elements per work-group.
// PHASE 0: each work-item sums its ITEMS elements; a __local tree gives the
// tile's sum, written to out[tile].
// PHASE 1: each work-item scans its ITEMS elements in private memory; a
// Hillis–Steele scan in __local memory of the work-item totals; each element
// gets the tile's offset (offsets[tile − 1]) plus the totals before it,
// stored 16 bytes at a time as it was loaded.
// Shared memory: shared_words[GROUP_SIZE] (__local array). Barriers: after
// the totals are stored; PHASE 0 after each tree level; PHASE 1 twice per
// scan level (read, then add). A work-group past the last tile returns as a
// whole before the first barrier.

// Values travel as their 32-bit patterns; f32 adds as float, i32 and u32 as
// unsigned (wrapping).
inline uint add(uint a, uint b)
{
#if ELEM == 0
    return as_uint(as_float(a) + as_float(b));
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

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void scan(__global const uint* restrict input, __global uint* restrict out,
          __global const uint* restrict offsets, uint n, uint offsets_len)
{
    __local uint shared_words[GROUP_SIZE];
    const uint lid = get_local_id(0);
    const ulong tile_len = (ulong)GROUP_SIZE * ITEMS;
    const ulong tile = (ulong)get_group_id(1) * get_num_groups(0) + get_group_id(0);
    const ulong tiles = ((ulong)n + tile_len - 1) / tile_len;
    if (tile >= tiles) return;
    const ulong base = tile * tile_len;
    const ulong first = base + (ulong)lid * ITEMS;

    // This work-item's ITEMS elements (ZERO past n), as VECTORS 16-byte loads
    // where the whole vector lies below n.
    uint values[ITEMS];
    __global const uint4* input4 = (__global const uint4*)input;
    for (uint j = 0; j < VECTORS; j++) {
        const ulong at = first + 4ul * j;
        if (at < n && n - at >= 4ul) {
            const uint4 v = input4[at / 4ul];
            values[4 * j] = v.x; values[4 * j + 1] = v.y; values[4 * j + 2] = v.z; values[4 * j + 3] = v.w;
        } else {
            for (uint k = 0; k < 4u; k++) {
                values[4 * j + k] = at + k < n ? input[at + k] : ZERO;
            }
        }
    }

#if PHASE == 0
    // Phase 1: this work-item's sum to __local memory. -- barrier --
    uint acc = ZERO;
    for (uint k = 0; k < ITEMS; k++) acc = add(acc, values[k]);
    shared_words[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    // Phase 2..: the tree, one barrier per level.
    for (uint s = GROUP_SIZE / 2u; s > 0u; s /= 2u) {
        if (lid < s) shared_words[lid] = add(shared_words[lid], shared_words[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    // Last phase: work-item 0 writes the tile's sum.
    if (lid == 0u) out[tile] = shared_words[0];
#else
    // Phase 1: this work-item's inclusive scan in private memory; its total
    // to __local memory. -- barrier --
    for (uint k = 1; k < ITEMS; k++) values[k] = add(values[k - 1], values[k]);
    shared_words[lid] = values[ITEMS - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    // Phase 2..: Hillis–Steele scan of the totals: read (barrier), add
    // (barrier).
    for (uint s = 1u; s < GROUP_SIZE; s *= 2u) {
        const uint earlier = lid >= s ? shared_words[lid - s] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid >= s) shared_words[lid] = add(earlier, shared_words[lid]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    // Last phase: offset of the tile plus the totals before this work-item,
    // stored as the elements were loaded: 16 bytes where the whole vector
    // lies below n, else word by word below n.
    const uint offset = (offsets_len > 0u && tile > 0ul) ? offsets[tile - 1ul] : ZERO;
    const uint before = lid > 0u ? add(offset, shared_words[lid - 1u]) : offset;
    __global uint4* out4 = (__global uint4*)out;
    for (uint j = 0; j < VECTORS; j++) {
        const ulong at = first + 4ul * j;
        if (at < n && n - at >= 4ul) {
            out4[at / 4ul] = (uint4)(add(before, values[4 * j]), add(before, values[4 * j + 1]),
                                     add(before, values[4 * j + 2]), add(before, values[4 * j + 3]));
        } else {
            for (uint k = 0; k < 4u; k++) {
                if (at + k < n) out[at + k] = add(before, values[4 * j + k]);
            }
        }
    }
#endif
}
