// Reduce — WGSL (see mod.rs for the algorithm and interface).
//
// Values travel as their 32-bit patterns (u32); `combine` and `identity`
// reinterpret them by ELEM and OP, which are override constants, so the
// branches fold away when the pipeline is built.
//
// Shared memory: shared_values, GROUP_SIZE words (a workgroup array sized by
// the GROUP_SIZE override), the tree's scratch. (`shared` is a reserved word
// in WGSL.)
// Barriers: after the accumulators (or the subgroups' values) are stored,
// and after each tree level.
// Subgroups (SUBGROUPS = 1): the subgroup_* helpers and SubgroupBuiltins are
// appended by the wgpu backend (the subgroup built-ins on devices that have
// them; on others, "subgroups of one invocation", and the plan passes
// SUBGROUPS = 0). The subgroup size comes from the built-in, never assumed.

override GROUP_SIZE: u32;
override ELEM: u32; // 0 f32, 1 i32, 2 u32
override OP: u32; // 0 sum, 1 min, 2 max
override SUBGROUPS: u32;
// LAST_GROUP (one launch, the last workgroup combining the others' values)
// needs a device-scope fence, which WGSL lacks (its storageBarrier is
// workgroup-scoped): the plan never sets it here, and the kernel ignores it.
override LAST_GROUP: u32;

struct Params {
    n: u32,
}

@group(0) @binding(0) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read_write> scratch: array<u32>; // unused here (LAST_GROUP)
@group(0) @binding(3) var<uniform> params: Params;

var<workgroup> shared_values: array<u32, GROUP_SIZE>;

// NaN by bits: compilers may fold `x != x`.
fn is_nan(bits: u32) -> bool {
    return (bits & 0x7fffffffu) > 0x7f800000u;
}

// The total-order key of an f32's bits: keys compare as the floats do, and
// -0 below +0 (IEEE 754's minimum / maximum), so min and max give the same
// bits whatever the order of combining; exact also where a device flushes
// subnormals in float comparisons. from_key inverts it.
fn total_key(bits: u32) -> u32 {
    return select(bits | 0x80000000u, ~bits, (bits & 0x80000000u) != 0u);
}

fn from_key(key: u32) -> u32 {
    return select(~key, key & 0x7fffffffu, (key & 0x80000000u) != 0u);
}

// sum 0; min +Inf / i32::MAX / u32::MAX; max -Inf / i32::MIN / 0.
fn identity() -> u32 {
    if OP == 0u {
        return 0u;
    }
    if OP == 1u {
        return select(select(0x7fffffffu, 0xffffffffu, ELEM == 2u), 0x7f800000u, ELEM == 0u);
    }
    return select(select(0x80000000u, 0u, ELEM == 2u), 0xff800000u, ELEM == 0u);
}

fn combine(a: u32, b: u32) -> u32 {
    if OP == 0u {
        if ELEM == 0u {
            return bitcast<u32>(bitcast<f32>(a) + bitcast<f32>(b));
        }
        return a + b; // i32 and u32: wrapping addition of the same bits
    }
    if ELEM == 0u {
        // f32 min / max: NaN if either operand is NaN.
        if is_nan(a) | is_nan(b) {
            return select(b, a, is_nan(a));
        }
        // Ordered by key, not float comparison: exact with subnormals too.
        let ka = total_key(a);
        let kb = total_key(b);
        return select(a, b, select(kb > ka, kb < ka, OP == 1u));
    }
    if ELEM == 1u {
        let ia = bitcast<i32>(a);
        let ib = bitcast<i32>(b);
        return bitcast<u32>(select(max(ia, ib), min(ia, ib), OP == 1u));
    }
    return select(max(a, b), min(a, b), OP == 1u);
}

// combine over the four words of a vector.
fn combine4(x: vec4<u32>) -> u32 {
    return combine(combine(x.x, x.y), combine(x.z, x.w));
}

// combine over the active invocations of this invocation's subgroup.
fn subgroup_combine(x: u32) -> u32 {
    if OP == 0u {
        if ELEM == 0u {
            return bitcast<u32>(subgroup_add_f32(bitcast<f32>(x)));
        }
        return subgroup_add_u32(x);
    }
    if ELEM == 0u {
        // Subgroup float min/max need not propagate NaN: test for it first.
        if subgroup_any(is_nan(x)) {
            return 0x7fc00000u;
        }
        if OP == 1u {
            return from_key(subgroup_min_u32(total_key(x)));
        }
        return from_key(subgroup_max_u32(total_key(x)));
    }
    if ELEM == 1u {
        if OP == 1u {
            return bitcast<u32>(subgroup_min_i32(bitcast<i32>(x)));
        }
        return bitcast<u32>(subgroup_max_i32(bitcast<i32>(x)));
    }
    if OP == 1u {
        return subgroup_min_u32(x);
    }
    return subgroup_max_u32(x);
}

@compute @workgroup_size(GROUP_SIZE)
fn reduce(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) num_groups: vec3<u32>,
    subgroup_builtins: SubgroupBuiltins,
) {
    let n = params.n;
    let stride = GROUP_SIZE * num_groups.x; // T: invocations in the grid
    let first = group_id.x * GROUP_SIZE; // t of this group's lid 0
    let t = first + lid;

    // Phase 1: grid-stride accumulation into a private accumulator. Vectors
    // first (4 elements each; unrolled by four so that four independent
    // loads are in flight), then the scalar tail: the first n % 4 words of
    // vector n/4. (Counters stay below n/4 + T or below 4 + T, far from
    // wrapping around.)
    var acc = identity();
    let vectors = n / 4u;
    var v = t;
    for (; v + 3u * stride < vectors; v += 4u * stride) {
        let x0 = input[v];
        let x1 = input[v + stride];
        let x2 = input[v + 2u * stride];
        let x3 = input[v + 3u * stride];
        acc = combine(acc, combine(combine(combine4(x0), combine4(x1)), combine(combine4(x2), combine4(x3))));
    }
    for (; v < vectors; v += stride) {
        acc = combine(acc, combine4(input[v]));
    }
    for (var i = t; i < n % 4u; i += stride) {
        acc = combine(acc, input[vectors][i]);
    }

    // Phase 2: one value per tree leaf in shared memory. — barrier —
    // Without subgroups every invocation is a leaf; with them each subgroup
    // first combines its values and its first lane stores one leaf.
    var leaves = GROUP_SIZE;
    if SUBGROUPS == 1u {
        let subgroup = subgroup_of(subgroup_builtins);
        let value = subgroup_combine(acc);
        if subgroup.lane == 0u {
            shared_values[subgroup.id] = value;
        }
        leaves = subgroup.count;
    } else {
        shared_values[lid] = acc;
    }
    workgroupBarrier();

    // Phase 3..: the shared-memory tree over the leaves, one barrier per
    // level (`leaves` need not be a power of two: the first level folds the
    // upper part onto the lower one).
    var s = 1u;
    while s < leaves {
        s *= 2u;
    }
    s /= 2u;
    for (; s > 0u; s /= 2u) {
        if lid < s && lid + s < leaves {
            shared_values[lid] = combine(shared_values[lid], shared_values[lid + s]);
        }
        workgroupBarrier();
    }

    // Last phase: invocation 0 writes the group's value.
    if lid == 0u {
        out[group_id.x] = shared_values[0];
    }
}
