#version 450
#extension GL_KHR_memory_scope_semantics : require
// Litmus harness -- GLSL for Vulkan. Each test (mp.comp, sb.comp, lb.comp,
// corr.comp) is appended to this file; see mod.rs for the roles, locations,
// stress and the rule behind each expected outcome (common.wgsl / .rs / .cu /
// .cl are the same harness in the other languages).
//
// Roles: workgroup `wg` plays role plan[wg]; roles below test_groups test,
// the others stress. Invocation `lid` of a testing role is thread 0 of
// instance id_0 and thread 1 of instance id_1: in its own workgroup at SCOPE
// 0, in the partner role's workgroup (role ^ 1) at SCOPE 1.
// Locations: x and y of an instance are STRIDE words apart, y permuted over
// the instances by y_mul; in shared memory (wg_locs) at SCOPE 0, in `locs` at
// SCOPE 1. Every access to them is an atomic (GL_KHR_memory_scope_semantics
// atomicLoad / atomicStore, relaxed, at workgroup or device scope).
// Sync points (sync_point()): SCOPE 0 with SYNC 1: controlBarrier(workgroup,
// workgroup, shared, acquire-release). SCOPE 1 with SYNC 1: memoryBarrier(
// device, buffer, acquire-release), a fence. SYNC 0: nothing. (The shader
// keeps the GLSL450 memory model: Vulkan device scope needs no
// vulkanMemoryModel feature there.)
// Barriers: one after the prologue (shared locations zeroed, pre-stress, the
// spin), plus the sync points at SCOPE 0 with SYNC 1. Every barrier is in
// uniform control flow: `role` is read from a read-only buffer at the
// workgroup's index.

layout(constant_id = 0) const uint GROUP_SIZE = 64;
layout(constant_id = 1) const uint SCOPE = 0; // 0 workgroup (shared), 1 device (storage, across workgroups)
layout(constant_id = 2) const uint SYNC = 0; // 1 synchronised, 0 relaxed
layout(constant_id = 3) const uint STRIDE = 1; // words between an instance's x and y
layout(constant_id = 4) const uint SHARED_WORDS = 1; // 2 * GROUP_SIZE * STRIDE at SCOPE 0, else 1
layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) coherent buffer Locs { uint locs[]; };
layout(set = 0, binding = 1) buffer Results { uint results[]; };
layout(set = 0, binding = 2) restrict readonly buffer Plan { uint plan[]; };
layout(set = 0, binding = 3) coherent buffer Scratch { uint scratch[]; };
layout(push_constant) uniform Params {
    uint test_groups; // testing roles (even at SCOPE 1: role r pairs with r ^ 1)
    uint groups; // workgroups launched; plan[groups + wg] is wg's stress location
    uint local_mul; // odd: lid -> lid * local_mul % GROUP_SIZE permutes a group
    uint y_mul; // coprime with the instance count: permutes the y locations
    uint stress_iters; // per invocation of a stressing workgroup
    uint pre_iters; // per testing invocation, before the test
    uint pattern; // 0 store-store, 1 store-load, 2 load-store, 3 load-load
    uint spin_iters; // bound of the wait for the partner workgroup
} params;

shared uint wg_locs[SHARED_WORDS];

// What record() adds to a result word: one per write (the host checks that
// every word was written exactly once).
const uint WRITTEN = 0x10000u;
// Stress loads are compared with this (never reached; it keeps them alive).
const uint NEVER = 0x40000000u;
// Words per spin counter (one cache line); role pair p's is at
// SPIN_WORDS * (1 + p) of scratch.
const uint SPIN_WORDS = 16u;

// One invocation's two instances and their locations.
struct At {
    uint id_0; // the instance it is thread 0 of
    uint id_1; // the instance it is thread 1 of
    uint x_0;
    uint y_0;
    uint x_1;
    uint y_1;
};

At locations(uint role, uint lid) {
    uint local_1 = lid * params.local_mul % GROUP_SIZE;
    At a;
    uint n;
    uint k_0;
    uint k_1;
    if (SCOPE == 0u) {
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
uint ld(uint i) {
    if (SCOPE == 0u) {
        return atomicLoad(wg_locs[i], gl_ScopeWorkgroup, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
    }
    return atomicLoad(locs[i], gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
}

void st(uint i, uint value) {
    if (SCOPE == 0u) {
        atomicStore(wg_locs[i], value, gl_ScopeWorkgroup, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
    } else {
        atomicStore(locs[i], value, gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
    }
}

// A load / store that synchronised variants make read-modify-writes
// (relaxed; atomicAdd and atomicExchange have device scope, which includes
// the workgroup).
uint sync_ld(uint i) {
    if (SYNC == 0u) {
        return ld(i);
    }
    if (SCOPE == 0u) {
        return atomicAdd(wg_locs[i], 0u);
    }
    return atomicAdd(locs[i], 0u);
}

void sync_st(uint i, uint value) {
    if (SYNC == 0u) {
        st(i, value);
    } else if (SCOPE == 0u) {
        atomicExchange(wg_locs[i], value);
    } else {
        atomicExchange(locs[i], value);
    }
}

void sync_point() {
    if (SYNC == 1u) {
        if (SCOPE == 0u) {
            controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsAcquireRelease);
        } else {
            memoryBarrier(gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
        }
    }
}

// Result `which` (0: r0, 1: r1) of `instance`.
void record(uint instance, uint which, uint value) {
    atomicAdd(results[2u * instance + which], WRITTEN + value);
}

uint stress_ld(uint at) {
    return atomicLoad(scratch[at], gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
}

void stress_st(uint at, uint value) {
    atomicStore(scratch[at], value, gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
}

// `iters` iterations of the stress pattern on scratch[at].
void stress(uint iters, uint at) {
    if (params.pattern == 0u) {
        for (uint i = 0u; i < iters; i++) {
            stress_st(at, i);
            stress_st(at, i + 1u);
        }
    } else if (params.pattern == 1u) {
        for (uint i = 0u; i < iters; i++) {
            stress_st(at, i);
            if (stress_ld(at) > NEVER) {
                break;
            }
        }
    } else if (params.pattern == 2u) {
        for (uint i = 0u; i < iters; i++) {
            if (stress_ld(at) > NEVER) {
                break;
            }
            stress_st(at, i);
        }
    } else {
        for (uint i = 0u; i < iters; i++) {
            if (stress_ld(at) > NEVER || stress_ld(at) > NEVER) {
                break;
            }
        }
    }
}

// Invocation 0's bounded wait for the partner workgroup: count this one in,
// then poll until both are in or spin_iters polls have passed.
void spin(uint counter) {
    uint seen = atomicAdd(scratch[counter], 1u) + 1u;
    for (uint i = 0u; i < params.spin_iters && seen < 2u; i++) {
        seen = atomicAdd(scratch[counter], 0u);
    }
}

// Zero the shared locations, pre-stress, and at SCOPE 1 let invocation 0 wait
// for the partner workgroup, so that the two run the test together.
// -- barrier --
void prologue(uint role, uint lid, uint wg) {
    for (uint i = lid; i < SHARED_WORDS; i += GROUP_SIZE) {
        atomicStore(wg_locs[i], 0u, gl_ScopeWorkgroup, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
    }
    if (role < params.test_groups) {
        stress(params.pre_iters, plan[params.groups + wg]);
        if (SCOPE == 1u && lid == 0u) {
            spin(SPIN_WORDS * (1u + role / 2u));
        }
    }
    barrier();
}
