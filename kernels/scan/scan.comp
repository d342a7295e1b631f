#version 450
// Scan -- GLSL for Vulkan (see mod.rs for the algorithm and interface).
//
// Reduce-then-scan, one tile of GROUP_SIZE*ITEMS elements per workgroup.
// PHASE 0: each invocation sums its ITEMS elements; a shared-memory tree
// gives the tile's sum, written to out_values[tile].
// PHASE 1: each invocation scans its ITEMS elements in private memory; a
// Hillis-Steele scan in shared memory of the invocation totals; each element
// gets the tile's offset (offsets[tile - 1]) plus the totals before it,
// stored 16 bytes at a time as it was loaded (out_vectors, a second view of
// the output's binding).
// Shared memory: shared_words (GROUP_SIZE words, sized by the
// specialization constant). Barriers: after the totals are stored; PHASE 0
// after each tree level; PHASE 1 twice per scan level (read, then add). The
// barriers are in uniform control flow: a workgroup past the last tile skips
// the work, not the barriers.
// Index arithmetic is uint (n < 2^32), written so nothing wraps near 2^32.

layout(constant_id = 0) const uint GROUP_SIZE = 256;
layout(constant_id = 1) const uint ITEMS = 8; // a multiple of 4, at most 16
layout(constant_id = 2) const uint ELEM = 0; // 0 f32, 1 i32, 2 u32
layout(constant_id = 3) const uint PHASE = 0; // 0 tile sums, 1 scan with offsets
layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) restrict readonly buffer Input { uvec4 input_vectors[]; };
layout(set = 0, binding = 1) buffer Out { uint out_values[]; };
// The same binding as 16-byte vectors, for PHASE 1's whole-vector stores.
layout(set = 0, binding = 1) writeonly buffer Out4 { uvec4 out_vectors[]; };
layout(set = 0, binding = 2) restrict readonly buffer Offsets { uint offsets[]; };
layout(push_constant) uniform Params { uint n; uint offsets_len; } params;

shared uint shared_words[GROUP_SIZE];

// Values travel as their 32-bit patterns; f32 adds as float, i32 and u32 as
// uint (wrapping).
uint add(uint a, uint b) {
    if (ELEM == 0u) {
        return floatBitsToUint(uintBitsToFloat(a) + uintBitsToFloat(b));
    }
    return a + b;
}

// The identity of add, zero_word(): -0.0 for f32 (-0 + x is x for every x, -0
// included, where +0 + -0 is +0: numpy.cumsum of -0s is -0s), 0 for
// integers. It pads past n and starts the sums and the first tile's offset.
uint zero_word() {
    return ELEM == 0u ? 0x80000000u : 0u;
}

// Element `i` (zero_word() at or past n).
uint element(uint i) {
    return i < params.n ? input_vectors[i / 4u][i % 4u] : zero_word();
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint n = params.n;
    uint tile_len = GROUP_SIZE * ITEMS;
    uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint tiles = n / tile_len + (n % tile_len != 0u ? 1u : 0u);
    bool live = tile < tiles;
    uint base = live ? tile * tile_len : 0u;
    uint first = base + lid * ITEMS;

    // This invocation's ITEMS elements (zero_word() past n), as 16-byte loads where
    // the whole vector lies below n.
    uint values[16];
    for (uint j = 0u; j < ITEMS / 4u; j++) {
        uint at = first + 4u * j;
        if (live && at < n && n - at >= 4u) {
            uvec4 v = input_vectors[at / 4u];
            values[4u * j] = v.x;
            values[4u * j + 1u] = v.y;
            values[4u * j + 2u] = v.z;
            values[4u * j + 3u] = v.w;
        } else {
            for (uint k = 0u; k < 4u; k++) {
                values[4u * j + k] = live ? element(at + k) : zero_word();
            }
        }
    }

    if (PHASE == 0u) {
        // Phase 1: this invocation's sum to shared memory. -- barrier --
        uint acc = zero_word();
        for (uint k = 0u; k < ITEMS; k++) {
            acc = add(acc, values[k]);
        }
        shared_words[lid] = acc;
        barrier();
        // Phase 2..: the tree, one barrier per level.
        for (uint s = GROUP_SIZE / 2u; s > 0u; s /= 2u) {
            if (lid < s) {
                shared_words[lid] = add(shared_words[lid], shared_words[lid + s]);
            }
            barrier();
        }
        // Last phase: invocation 0 writes the tile's sum.
        if (live && lid == 0u) {
            out_values[tile] = shared_words[0];
        }
        return;
    }

    // Phase 1: this invocation's inclusive scan in private memory; its total
    // to shared memory. -- barrier --
    for (uint k = 1u; k < ITEMS; k++) {
        values[k] = add(values[k - 1u], values[k]);
    }
    shared_words[lid] = values[ITEMS - 1u];
    barrier();
    // Phase 2..: Hillis-Steele scan of the totals: read (barrier), add
    // (barrier).
    for (uint s = 1u; s < GROUP_SIZE; s *= 2u) {
        uint earlier = lid >= s ? shared_words[lid - s] : 0u;
        barrier();
        if (lid >= s) {
            shared_words[lid] = add(earlier, shared_words[lid]);
        }
        barrier();
    }
    // Last phase: offset of the tile plus the totals before this invocation,
    // stored as the elements were loaded: 16 bytes where the whole vector
    // lies below n, else word by word below n.
    uint offset = (live && params.offsets_len > 0u && tile > 0u) ? offsets[tile - 1u] : zero_word();
    uint before = lid > 0u ? add(offset, shared_words[lid - 1u]) : offset;
    for (uint j = 0u; j < ITEMS / 4u; j++) {
        uint at = first + 4u * j;
        if (live && at < n && n - at >= 4u) {
            out_vectors[at / 4u] = uvec4(add(before, values[4u * j]), add(before, values[4u * j + 1u]),
                                         add(before, values[4u * j + 2u]), add(before, values[4u * j + 3u]));
        } else {
            for (uint k = 0u; k < 4u; k++) {
                if (live && at + k < n) {
                    out_values[at + k] = add(before, values[4u * j + k]);
                }
            }
        }
    }
}
