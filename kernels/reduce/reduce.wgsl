// Reduce — WGSL (see mod.rs for the algorithm and interface).
//
// Values travel as their 32-bit patterns (u32); `combine` and `identity`
// reinterpret them by ELEM and OP, which are override constants, so the
// branches fold away when the pipeline is built.
//
// Shared memory: shared_values, GROUP_SIZE words (a workgroup array sized by
// the GROUP_SIZE override), the tree's scratch; with LAST_GROUP = 1 also
// is_last, the last-group flag. (`shared` is a reserved word in WGSL.)
// Barriers: after the accumulators (or the subgroups' values) are stored,
// and after each tree level; with LAST_GROUP = 1, the flag's uniform load.
// LAST_GROUP = 1 without a device-scope fence, which WGSL lacks (its
// storageBarrier is workgroup-scoped): a group publishes its value as two
// self-validating words (16 bits each, plus a marker bit that makes the word
// non-zero) with relaxed atomic stores, and the last group waits until each
// word it reads is non-zero. Atomics to one word are coherent, so a
// non-zero word is the whole half it carries; no ordering between two words
// is needed. (The packed flag-and-value of decoupled look-back in WebGPU.)
// The last group waits only after every other group has taken its ticket,
// that is, after every store it waits for was issued. The plan runs this
// only where no driver loop cap can cut the wait short.
// Subgroups (SUBGROUPS = 1): the subgroup_* helpers and SubgroupBuiltins are
// appended by the wgpu backend (the subgroup built-ins on devices that have
// them; on others, "subgroups of one invocation", and the plan passes
// SUBGROUPS = 0). The subgroup size comes from the built-in, never assumed.

override GROUP_SIZE: u32;
override ELEM: u32; // 0 f32, 1 i32, 2 u32
override OP: u32; // 0 sum, 1 min, 2 max
override SUBGROUPS: u32;
override LAST_GROUP: u32;

struct Params {
    n: u32,
}

@group(0) @binding(0) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
// LAST_GROUP = 1: scratch[0] the arrival counter, then two words per group.
@group(0) @binding(2) var<storage, read_write> scratch: array<atomic<u32>>;
@group(0) @binding(3) var<uniform> params: Params;

var<workgroup> shared_values: array<u32, GROUP_SIZE>;
var<workgroup> is_last: u32;

// A published half: 16 bits of a value and the marker bit (never zero).
const MARKER: u32 = 0x10000u;

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

// sum -0 (f32; x + -0 == x for every x, -0 included) / 0; min +Inf /
// i32::MAX / u32::MAX; max -Inf / i32::MIN / 0.
fn identity() -> u32 {
    if OP == 0u {
        return select(0u, 0x80000000u, ELEM == 0u);
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
        // f32 min / max: the quiet NaN 0x7fc00000 if either operand is NaN
        // (whatever its payload: the same bits on every device).
        if is_nan(a) | is_nan(b) {
            return 0x7fc00000u;
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
            let sum = subgroup_add_f32(bitcast<f32>(x));
            // A subgroup of -0s sums to -0, but drivers may add from +0
            // (lavapipe does): any other zeros, or values, sum as they are.
            if !subgroup_any(x != 0x80000000u) {
                return 0x80000000u;
            }
            return bitcast<u32>(sum);
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

// Phases 2 and 3: combine the workgroup's accumulators; invocation 0
// returns the group's value (the others their own accumulator).
fn group_combine(acc: u32, lid: u32, subgroup_builtins: SubgroupBuiltins) -> u32 {
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
    return select(acc, shared_values[0], lid == 0u);
}

// The value of group g (LAST_GROUP = 1): wait until both its words are
// published, read them, and clear them for the next launch.
fn take_published(g: u32) -> u32 {
    var low = atomicLoad(&scratch[1u + 2u * g]);
    while low == 0u {
        low = atomicLoad(&scratch[1u + 2u * g]);
    }
    var high = atomicLoad(&scratch[2u + 2u * g]);
    while high == 0u {
        high = atomicLoad(&scratch[2u + 2u * g]);
    }
    atomicStore(&scratch[1u + 2u * g], 0u);
    atomicStore(&scratch[2u + 2u * g], 0u);
    return ((high & 0xffffu) << 16u) | (low & 0xffffu);
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

    // Phases 2 and 3: the group's value (in invocation 0).
    let value = group_combine(acc, lid, subgroup_builtins);

    if LAST_GROUP == 1u {
        // Phase 4 (LAST_GROUP = 1): invocation 0 publishes the value as two
        // words in scratch[1 + 2 * group ..] (relaxed atomic stores; no
        // fence: the words validate themselves) and takes an arrival ticket
        // from scratch[0]; the group with the last ticket is the last to
        // arrive, and invocation 0 tells the group in is_last. -- barrier --
        let groups = num_groups.x;
        if lid == 0u {
            atomicStore(&scratch[1u + 2u * group_id.x], (value & 0xffffu) | MARKER);
            atomicStore(&scratch[2u + 2u * group_id.x], (value >> 16u) | MARKER);
            let ticket = atomicAdd(&scratch[0], 1u);
            is_last = select(0u, 1u, ticket == groups - 1u);
        }
        if workgroupUniformLoad(&is_last) == 0u {
            return; // the whole group: not the last
        }

        // Phase 5 (the last group): combine the groups' values in group
        // order (invocation lid takes lid, lid + GROUP_SIZE, ..., each once
        // both its words are published) with the same tree: the order
        // depends only on the grid, so the result is deterministic.
        // Invocation 0 writes it and resets the counter for the next launch
        // (every group has taken its ticket). -- barriers --
        var last = identity();
        for (var g = lid; g < groups; g += GROUP_SIZE) {
            last = combine(last, take_published(g));
        }
        let total = group_combine(last, lid, subgroup_builtins);
        if lid == 0u {
            out[0] = total;
            atomicStore(&scratch[0], 0u);
        }
        return;
    }

    // Last phase: invocation 0 writes the group's value.
    if lid == 0u {
        out[group_id.x] = value;
    }
}
