// Litmus harness -- WGSL. Each test (mp.wgsl, sb.wgsl, lb.wgsl, corr.wgsl) is
// appended to this file; see mod.rs for the roles, locations, stress and the
// rule behind each expected outcome (common.rs / .cu / .comp / .cl are the
// same harness in the other languages).
//
// Roles: workgroup `wg` plays role plan[wg]; roles below test_groups test,
// the others stress. Invocation `lid` of a testing role is thread 0 of
// instance id_0 and thread 1 of instance id_1: in its own workgroup at SCOPE
// 0, in the partner role's workgroup (role ^ 1) at SCOPE 1.
// Locations: x and y of an instance are STRIDE words apart, y permuted over
// the instances by y_mul; in shared memory (wg_locs) at SCOPE 0, in `locs` at
// SCOPE 1. Every access to them is a (relaxed) atomic.
// Sync points (sync_point()): SCOPE 0 with SYNC 1: workgroupBarrier(). SCOPE 1
// with SYNC 1 does not exist in WGSL: all its atomics are relaxed and its
// barriers have workgroup scope, so nothing orders accesses of different
// workgroups; the host reports that variant unsupported and never builds it.
// SYNC 0: nothing.
// Barriers: one after the prologue (shared locations zeroed, pre-stress, the
// spin), plus the sync points at SCOPE 0 with SYNC 1. Every barrier is in
// workgroup-uniform control flow: `role` is read from a read-only buffer at
// the workgroup's index.

override GROUP_SIZE: u32;
override SCOPE: u32; // 0 workgroup (shared memory), 1 device (storage, across workgroups)
override SYNC: u32; // 1 synchronised, 0 relaxed
override STRIDE: u32; // words between an instance's x and y
override SHARED_WORDS: u32; // 2 * GROUP_SIZE * STRIDE at SCOPE 0, else 1

struct Params {
    test_groups: u32, // testing roles (even at SCOPE 1: role r pairs with r ^ 1)
    groups: u32, // workgroups launched; plan[groups + wg] is wg's stress location
    local_mul: u32, // odd: lid -> lid * local_mul % GROUP_SIZE permutes a group
    y_mul: u32, // coprime with the instance count: permutes the y locations
    stress_iters: u32, // per invocation of a stressing workgroup
    pre_iters: u32, // per testing invocation, before the test
    pattern: u32, // 0 store-store, 1 store-load, 2 load-store, 3 load-load
    spin_iters: u32, // bound of the wait for the partner workgroup
}

@group(0) @binding(0) var<storage, read_write> locs: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> results: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read> plan: array<u32>;
@group(0) @binding(3) var<storage, read_write> scratch: array<atomic<u32>>;
@group(0) @binding(4) var<uniform> params: Params;

var<workgroup> wg_locs: array<atomic<u32>, SHARED_WORDS>;

// What record() adds to a result word: one per write (the host checks that
// every word was written exactly once).
const WRITTEN: u32 = 0x10000u;
// Stress loads are compared with this (never reached; it keeps them alive).
const NEVER: u32 = 0x40000000u;
// Words per spin counter (one cache line); role pair p's is at
// SPIN_WORDS * (1 + p) of scratch.
const SPIN_WORDS: u32 = 16u;

// One invocation's two instances and their locations.
struct At {
    id_0: u32, // the instance it is thread 0 of
    id_1: u32, // the instance it is thread 1 of
    x_0: u32,
    y_0: u32,
    x_1: u32,
    y_1: u32,
}

fn locations(role: u32, lid: u32) -> At {
    let local_1 = lid * params.local_mul % GROUP_SIZE;
    var a: At;
    var n: u32;
    var k_0: u32;
    var k_1: u32;
    if SCOPE == 0u {
        a.id_0 = role * GROUP_SIZE + lid;
        a.id_1 = role * GROUP_SIZE + local_1;
        n = GROUP_SIZE;
        k_0 = lid;
        k_1 = local_1;
    } else {
        a.id_0 = role * GROUP_SIZE + lid;
        a.id_1 = (role ^ 1u) * GROUP_SIZE + local_1;
        n = params.test_groups * GROUP_SIZE;
        k_0 = a.id_0;
        k_1 = a.id_1;
    }
    a.x_0 = k_0 * 2u * STRIDE;
    a.y_0 = (k_0 * params.y_mul % n) * 2u * STRIDE + STRIDE;
    a.x_1 = k_1 * 2u * STRIDE;
    a.y_1 = (k_1 * params.y_mul % n) * 2u * STRIDE + STRIDE;
    return a;
}

// Relaxed atomic load / store of a test location.
fn ld(i: u32) -> u32 {
    if SCOPE == 0u {
        return atomicLoad(&wg_locs[i]);
    }
    return atomicLoad(&locs[i]);
}

fn st(i: u32, value: u32) {
    if SCOPE == 0u {
        atomicStore(&wg_locs[i], value);
    } else {
        atomicStore(&locs[i], value);
    }
}

// A load / store that synchronised variants make read-modify-writes.
fn sync_ld(i: u32) -> u32 {
    if SYNC == 0u {
        return ld(i);
    }
    if SCOPE == 0u {
        return atomicAdd(&wg_locs[i], 0u);
    }
    return atomicAdd(&locs[i], 0u);
}

fn sync_st(i: u32, value: u32) {
    if SYNC == 0u {
        st(i, value);
    } else if SCOPE == 0u {
        _ = atomicExchange(&wg_locs[i], value);
    } else {
        _ = atomicExchange(&locs[i], value);
    }
}

fn sync_point() {
    if SYNC == 1u && SCOPE == 0u {
        workgroupBarrier();
    }
}

// Result `which` (0: r0, 1: r1) of `instance`.
fn record(instance: u32, which: u32, value: u32) {
    _ = atomicAdd(&results[2u * instance + which], WRITTEN + value);
}

// `iters` iterations of the stress pattern on scratch[at].
fn stress(iters: u32, at: u32) {
    switch params.pattern {
        case 0u: {
            for (var i = 0u; i < iters; i++) {
                atomicStore(&scratch[at], i);
                atomicStore(&scratch[at], i + 1u);
            }
        }
        case 1u: {
            for (var i = 0u; i < iters; i++) {
                atomicStore(&scratch[at], i);
                if atomicLoad(&scratch[at]) > NEVER {
                    break;
                }
            }
        }
        case 2u: {
            for (var i = 0u; i < iters; i++) {
                if atomicLoad(&scratch[at]) > NEVER {
                    break;
                }
                atomicStore(&scratch[at], i);
            }
        }
        default: {
            for (var i = 0u; i < iters; i++) {
                if atomicLoad(&scratch[at]) > NEVER || atomicLoad(&scratch[at]) > NEVER {
                    break;
                }
            }
        }
    }
}

// Invocation 0's bounded wait for the partner workgroup: count this one in,
// then poll until both are in or spin_iters polls have passed.
fn spin(counter: u32) {
    var seen = atomicAdd(&scratch[counter], 1u) + 1u;
    for (var i = 0u; i < params.spin_iters && seen < 2u; i++) {
        seen = atomicAdd(&scratch[counter], 0u);
    }
}

// Zero the shared locations, pre-stress, and at SCOPE 1 let invocation 0 wait
// for the partner workgroup, so that the two run the test together.
// -- barrier --
fn prologue(role: u32, lid: u32, wg: u32) {
    for (var i = lid; i < SHARED_WORDS; i += GROUP_SIZE) {
        atomicStore(&wg_locs[i], 0u);
    }
    if role < params.test_groups {
        stress(params.pre_iters, plan[params.groups + wg]);
        if SCOPE == 1u && lid == 0u {
            spin(SPIN_WORDS * (1u + role / 2u));
        }
    }
    workgroupBarrier();
}
