// Litmus harness — CPU workgroup model. mp.rs, sb.rs, lb.rs and corr.rs write
// each test as its program segments; this runs them (see mod.rs for the
// roles, locations, stress and the rules; common.wgsl / .cu / .comp / .cl are
// the same harness in the other languages).
//
// Roles: workgroup `wg` plays role plan[wg]; roles below test_groups test,
// the others stress. Invocation `lid` of a testing role is thread 0 of
// instance id_0 and thread 1 of instance id_1: in its own workgroup at SCOPE
// 0, in the partner role's workgroup (role ^ 1) at SCOPE 1.
// Locations: x and y of an instance are STRIDE words apart, y permuted over
// the instances by y_mul; in shared memory at SCOPE 0, in `locs` at SCOPE 1.
// Sync points (between two segments): SCOPE 0 with SYNC 1: a barrier, so
// each segment is a phase (one loop over the invocations). SCOPE 1 with
// SYNC 1: a device fence (`device_fence`) in each invocation. SYNC 0: nothing,
// each invocation runs its segments back to back.
// Barriers: one after the prologue (shared locations zeroed, pre-stress, the
// spin), plus the sync points at SCOPE 0 with SYNC 1.
// Memory: shared memory is plain words (the invocations of a group run on one
// thread); `locs`, `results` and `scratch` are relaxed atomics.

use rosetta_core::workgroup::{device_fence, Bindings, GlobalWord, Group};
use std::sync::atomic::AtomicU32;

/// What `record` adds to a result word: one per write (the host checks that
/// every word was written exactly once).
pub(super) const WRITTEN: u32 = 1 << 16;
/// Stress loads are compared with this (never reached; it keeps them alive).
const NEVER: u32 = 0x4000_0000;
/// Words per spin counter (one cache line); counter `p` of role pair `p`
/// is at `SPIN_WORDS * (1 + p)` of `scratch` (word 0 is the OpenCL model).
pub(super) const SPIN_WORDS: u32 = 16;

/// The params, in `KernelDef::params` order.
struct Params {
    test_groups: u32,
    groups: u32,
    local_mul: u32,
    y_mul: u32,
    stress_iters: u32,
    pre_iters: u32,
    pattern: u32,
    spin_iters: u32,
}

impl Params {
    fn read(words: &[u32]) -> Params {
        Params {
            test_groups: words[0],
            groups: words[1],
            local_mul: words[2],
            y_mul: words[3],
            stress_iters: words[4],
            pre_iters: words[5],
            pattern: words[6],
            spin_iters: words[7],
        }
    }
}

/// One invocation's two instances and their locations.
pub(super) struct At {
    /// The instance this invocation is thread 0 of.
    pub id_0: u32,
    /// The instance this invocation is thread 1 of.
    pub id_1: u32,
    /// `x` and `y` of instance `id_0`.
    pub x_0: u32,
    pub y_0: u32,
    /// `x` and `y` of instance `id_1`.
    pub x_1: u32,
    pub y_1: u32,
}

fn locations(p: &Params, group_size: u32, workgroup: bool, stride: u32, role: u32, lid: u32) -> At {
    let local_1 = lid * p.local_mul % group_size;
    let (id_0, id_1, n, k_0, k_1) = if workgroup {
        let (id_0, id_1) = (role * group_size + lid, role * group_size + local_1);
        (id_0, id_1, group_size, lid, local_1)
    } else {
        let (id_0, id_1) = (role * group_size + lid, (role ^ 1) * group_size + local_1);
        (id_0, id_1, p.test_groups * group_size, id_0, id_1)
    };
    At {
        id_0,
        id_1,
        x_0: k_0 * 2 * stride,
        y_0: (k_0 * p.y_mul % n) * 2 * stride + stride,
        x_1: k_1 * 2 * stride,
        y_1: (k_1 * p.y_mul % n) * 2 * stride + stride,
    }
}

/// The test locations and the results, as a test's segments use them.
pub(super) struct Mem<'a> {
    /// SCOPE 0: the locations are in shared memory.
    workgroup: bool,
    sync: bool,
    shared: &'a mut [u32],
    locs: &'a [AtomicU32],
    results: &'a [AtomicU32],
}

impl Mem<'_> {
    /// Relaxed atomic load.
    pub(super) fn ld(&self, i: u32) -> u32 {
        if self.workgroup {
            self.shared[i as usize]
        } else {
            self.locs[i as usize].load_u32()
        }
    }

    /// Relaxed atomic store.
    pub(super) fn st(&mut self, i: u32, value: u32) {
        if self.workgroup {
            self.shared[i as usize] = value;
        } else {
            self.locs[i as usize].store_u32(value);
        }
    }

    /// A load that synchronised variants make a read-modify-write
    /// (`atomicAdd(p, 0)`).
    pub(super) fn sync_ld(&mut self, i: u32) -> u32 {
        match (self.sync, self.workgroup) {
            (false, _) => self.ld(i),
            (true, true) => self.shared[i as usize],
            (true, false) => self.locs[i as usize].atomic_add(0),
        }
    }

    /// A store that synchronised variants make a read-modify-write
    /// (`atomicExchange`).
    pub(super) fn sync_st(&mut self, i: u32, value: u32) {
        match (self.sync, self.workgroup) {
            (true, false) => {
                self.locs[i as usize].atomic_exchange(value);
            }
            _ => self.st(i, value),
        }
    }

    /// Result `which` (0: r0, 1: r1) of `instance`.
    pub(super) fn record(&self, instance: u32, which: u32, value: u32) {
        self.results[(2 * instance + which) as usize].atomic_add(WRITTEN + value);
    }
}

/// One segment of an invocation's program (code between two sync points):
/// the memory, the invocation's locations, and its private reads `[r0, r1]`.
pub(super) type Segment = fn(&mut Mem<'_>, &At, &mut [u32; 2]);

/// `iters` iterations of the stress `pattern` on `scratch[at]` (0
/// store-store, 1 store-load, 2 load-store, 3 load-load).
fn stress(scratch: &[AtomicU32], at: u32, iters: u32, pattern: u32) {
    let word = &scratch[at as usize];
    match pattern {
        0 => (0..iters).for_each(|i| {
            word.store_u32(i);
            word.store_u32(i + 1);
        }),
        1 => {
            for i in 0..iters {
                word.store_u32(i);
                if word.load_u32() > NEVER {
                    break;
                }
            }
        }
        2 => {
            for i in 0..iters {
                if word.load_u32() > NEVER {
                    break;
                }
                word.store_u32(i);
            }
        }
        _ => {
            for _ in 0..iters {
                if word.load_u32() > NEVER || word.load_u32() > NEVER {
                    break;
                }
            }
        }
    }
}

/// Invocation 0's bounded wait for the partner workgroup: count this one in,
/// then poll until both are in or `iters` polls have passed.
fn spin(counter: &AtomicU32, iters: u32) {
    let mut seen = counter.atomic_add(1) + 1;
    let mut i = 0;
    while i < iters && seen < 2 {
        seen = counter.atomic_add(0);
        i += 1;
    }
}

/// Run a test's program in one workgroup.
pub(super) fn run(group: &mut Group<'_>, bindings: &Bindings<'_>, program: &[Segment]) {
    let size = group.size;
    let workgroup = group.constants[1] == 0;
    let sync = group.constants[2] == 1;
    let stride = group.constants[3];
    let shared_words = group.constants[4] as usize;
    let p = Params::read(group.params);
    let (locs, results) = (bindings.write(0), bindings.write(1));
    let (plan, scratch) = (bindings.read(2), bindings.write(3));
    let wg = group.id[0];
    let role = plan[wg as usize];
    let stress_at = plan[(p.groups + wg) as usize];

    if role >= p.test_groups {
        // A stressing workgroup: every invocation hammers its location.
        for _lid in 0..size {
            stress(scratch, stress_at, p.stress_iters, p.pattern);
        }
        return;
    }

    // Prologue: zero the shared locations, pre-stress, and at SCOPE 1 let
    // invocation 0 wait for the partner workgroup. — barrier —
    group.shared[..shared_words].fill(0);
    for _lid in 0..size {
        stress(scratch, stress_at, p.pre_iters, p.pattern);
    }
    if !workgroup {
        let counter = SPIN_WORDS * (1 + role / 2);
        spin(&scratch[counter as usize], p.spin_iters);
    }

    // The test.
    let at: Vec<At> = (0..size)
        .map(|lid| locations(&p, size, workgroup, stride, role, lid))
        .collect();
    let mut regs = vec![[0u32; 2]; size as usize];
    let mut mem = Mem {
        workgroup,
        sync,
        shared: &mut group.shared[..shared_words],
        locs,
        results,
    };
    if workgroup && sync {
        // Each sync point is a barrier: one phase per segment.
        for segment in program {
            for (a, r) in at.iter().zip(&mut regs) {
                segment(&mut mem, a, r);
            }
        }
    } else {
        // No barriers: each invocation runs its segments in order, with a
        // device fence at each sync point in synchronised device variants.
        for (a, r) in at.iter().zip(&mut regs) {
            for (i, segment) in program.iter().enumerate() {
                if i > 0 && sync {
                    device_fence();
                }
                segment(&mut mem, a, r);
            }
        }
    }
}
