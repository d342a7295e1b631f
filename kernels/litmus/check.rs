//! The host side of a litmus case: the geometry for a device, a fresh
//! shuffled plan for every launch, launching until the time budget is spent,
//! counting the outcomes (checking the harness on the way), and the verdict.

use super::common::{SPIN_WORDS, WRITTEN};
use super::kernel::kernel;
use super::spec::{expect, Expect, OpenClModel, Outcome, Scope, Test, Variant};
use crate::op::{floor_pow2, Check, Context, Status, Verdict};
use rosetta_core::{inputs, Api, Buffer, DeviceInfo, Error, KernelDef, KernelSpec, Launch, Result};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The budget of one case on one device under `--quick` (the suite's budget
/// when that is shorter).
pub(crate) const QUICK_BUDGET: Duration = Duration::from_millis(100);

/// Words of one stress line (64 bytes) and lines in the stress region.
const LINE_WORDS: u32 = 16;
const STRESS_LINES: u32 = 64;

/// Odd multipliers for the y permutation; each launch takes one coprime with
/// its instance count (1 puts y next to x).
const Y_MULTIPLIERS: [u32; 12] = [1, 3, 5, 7, 13, 31, 61, 109, 127, 251, 419, 1021];

/// How a device runs a variant: fixed for the case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Geometry {
    /// Invocations per workgroup (a power of two).
    pub group_size: u32,
    /// Testing workgroups (even: at device scope role r pairs with r ^ 1).
    pub test_groups: u32,
    /// The most stressing workgroups a launch adds.
    pub max_stress_groups: u32,
    /// Words between an instance's x and y (and between instances' x).
    pub stride: u32,
    /// Shared memory words (the locations at workgroup scope).
    pub shared_words: u32,
    /// Stress iterations of a stressing invocation.
    pub stress_iters: u32,
    /// Pre-stress iterations of a testing invocation (when a launch uses it).
    pub pre_iters: u32,
    /// Bound of invocation 0's wait for the partner workgroup.
    pub spin_iters: u32,
}

impl Geometry {
    /// The geometry for `info`: CPU devices (the CPU backend, lavapipe, PoCL)
    /// run as many testing workgroups as they have cores, so that partners
    /// run at once, and stress with the cores left; GPUs fill the device with
    /// testing workgroups and as many stressing ones.
    pub(crate) fn new(info: &DeviceInfo, scope: Scope) -> Result<Geometry> {
        let caps = &info.caps;
        let cpu = caps.device_type.is_cpu();
        let wanted = if cpu { 64 } else { 256 };
        let mut group_size = floor_pow2(
            wanted
                .min(caps.max_group_invocations)
                .min(caps.max_group_size[0]),
        );
        let stride = match scope {
            Scope::Workgroup => 2,
            // A location per cache line on CPUs; GPUs spread less (as the CTS).
            Scope::Device if cpu => LINE_WORDS,
            Scope::Device => 4,
        };
        let shared_words = |g: u32| match scope {
            Scope::Workgroup => 2 * g * stride,
            Scope::Device => 1,
        };
        while shared_words(group_size) * 4 > caps.max_shared_bytes && group_size > 2 {
            group_size /= 2;
        }
        if group_size < 2 || shared_words(group_size) * 4 > caps.max_shared_bytes {
            return Err(Error::unsupported(
                info.api,
                format!(
                    "the litmus tests need workgroups of 2 invocations and {} bytes of shared memory",
                    shared_words(2) * 4
                ),
            ));
        }
        let units = caps.compute_units;
        let (test_groups, max_stress_groups) = if cpu {
            let test = (units / 2).max(1) * 2;
            (test, units.saturating_sub(test))
        } else {
            let test = if units == 0 {
                256
            } else {
                (units * 4).clamp(2, 1024) / 2 * 2
            };
            (test, test)
        };
        let max_groups = caps.max_groups[0].max(2);
        let test_groups = test_groups.min(max_groups / 2 * 2);
        let max_stress_groups = max_stress_groups.min(max_groups - test_groups);
        // Every loop of an invocation counts against a driver's silent loop
        // cap (lavapipe): keep the sum of the bounds under its budget.
        let budget = caps.loop_budget().min(u64::from(u32::MAX)) as u32;
        let quarter = (budget / 4).max(1);
        let (stress, pre, spin) = match (cpu, caps.loop_limit) {
            (true, None) => (64, 16, 1 << 15),
            (true, Some(_)) => (64, 16, 1024),
            (false, _) => (1024, 128, 1024),
        };
        Ok(Geometry {
            group_size,
            test_groups,
            max_stress_groups,
            stride,
            shared_words: shared_words(group_size),
            stress_iters: stress.min(quarter),
            pre_iters: pre.min(quarter),
            spin_iters: spin.min(quarter),
        })
    }

    /// Instances per launch: one per testing invocation.
    pub(crate) fn instances(&self) -> u32 {
        self.test_groups * self.group_size
    }

    /// The most workgroups a launch has.
    fn max_groups(&self) -> u32 {
        self.test_groups + self.max_stress_groups
    }

    /// Where the stress lines start in `scratch`: after word 0 (the OpenCL
    /// model) and the spin counters, on a line boundary.
    fn stress_base(&self) -> u32 {
        SPIN_WORDS * (1 + self.test_groups / 2)
    }

    fn scratch_words(&self) -> u32 {
        self.stress_base() + STRESS_LINES * LINE_WORDS
    }
}

/// A seeded stream of random words (each launch's plan comes from it, so a
/// case plans the same launches on every device of the same geometry).
struct Rng {
    seed: u64,
    next: u64,
}

impl Rng {
    fn below(&mut self, n: u32) -> u32 {
        self.next += 1;
        ((inputs::bits(self.seed, self.next) >> 32) % u64::from(n.max(1))) as u32
    }
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// One launch: its workgroups, its `plan` buffer and its params.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// Workgroups launched.
    pub groups: u32,
    /// `plan[wg]`: the role of workgroup `wg` (a shuffle of `0..groups`;
    /// roles below `test_groups` test); `plan[groups + wg]`: its stress
    /// location in `scratch`.
    pub words: Vec<u32>,
    /// The params, in [`super::kernel::PARAMS`] order.
    pub params: [u32; 8],
}

impl Plan {
    fn random(rng: &mut Rng, geo: &Geometry, scope: Scope) -> Plan {
        let stress_groups = rng.below(geo.max_stress_groups + 1);
        let groups = geo.test_groups + stress_groups;
        // Roles: a Fisher-Yates shuffle, so that partners (and the testing
        // workgroups) land on different workgroup ids every launch.
        let mut words: Vec<u32> = (0..groups).collect();
        for i in (1..groups as usize).rev() {
            let j = rng.below(i as u32 + 1) as usize;
            words.swap(i, j);
        }
        // Stress locations: 1 to 4 random lines, a random word of each,
        // dealt to the workgroups round-robin or in chunks.
        let lines = 1 + rng.below(4);
        let targets: Vec<u32> = (0..lines)
            .map(|_| {
                geo.stress_base() + rng.below(STRESS_LINES) * LINE_WORDS + rng.below(LINE_WORDS)
            })
            .collect();
        let round_robin = rng.below(2) == 0;
        words.extend((0..groups).map(|wg| {
            let k = if round_robin {
                wg % lines
            } else {
                (wg * lines / groups).min(lines - 1)
            };
            targets[k as usize]
        }));
        // Half the launches keep invocations in order (partners then run the
        // same instance at the same moment on CPUs); the rest permute them.
        let local_mul = if rng.below(2) == 0 {
            1
        } else {
            (rng.below(geo.group_size / 2) * 2 + 1) % geo.group_size.max(2)
        };
        let n = match scope {
            Scope::Workgroup => geo.group_size,
            Scope::Device => geo.instances(),
        };
        let coprime: Vec<u32> = Y_MULTIPLIERS
            .into_iter()
            .filter(|&m| gcd(m, n) == 1)
            .collect();
        let y_mul = coprime[rng.below(coprime.len() as u32) as usize];
        let pattern = rng.below(4);
        let pre_iters = if rng.below(2) == 0 { 0 } else { geo.pre_iters };
        Plan {
            groups,
            words,
            params: [
                geo.test_groups,
                groups,
                local_mul.max(1),
                y_mul,
                geo.stress_iters,
                pre_iters,
                pattern,
                geo.spin_iters,
            ],
        }
    }
}

/// Outcome counts over every launch, with the harness checks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Count per outcome, in [`Outcome::ALL`] order.
    pub counts: [u64; 4],
    /// Instances the launches ran.
    pub instances: u64,
    /// Launches.
    pub launches: u64,
}

impl Tally {
    /// Count one launch's `results` (`[r0, r1]` per instance, each
    /// `WRITTEN + value`). A word written other than once, a value other
    /// than 0 or 1, or a missing instance is a harness error.
    pub(crate) fn add(
        &mut self,
        test: Test,
        results: &[u32],
        instances: u32,
    ) -> std::result::Result<(), String> {
        if results.len() != 2 * instances as usize {
            return Err(format!(
                "{} result words for {instances} instances",
                results.len()
            ));
        }
        let mut counts = [0u64; 4];
        for (k, pair) in results.chunks_exact(2).enumerate() {
            for (which, &word) in pair.iter().enumerate() {
                let (writes, value) = (word / WRITTEN, word % WRITTEN);
                if writes != 1 {
                    return Err(format!(
                        "instance {k}: r{which} was written {writes} times (once expected)"
                    ));
                }
                if value > 1 {
                    return Err(format!(
                        "instance {k}: r{which} = {value} (0 or 1 expected)"
                    ));
                }
            }
            let outcome = test.classify(pair[0] % WRITTEN, pair[1] % WRITTEN);
            counts[outcome as usize] += 1;
        }
        for (total, c) in self.counts.iter_mut().zip(counts) {
            *total += c;
        }
        self.instances += u64::from(instances);
        self.launches += 1;
        Ok(())
    }

    /// The weak outcome's count.
    pub(crate) fn weak(&self) -> u64 {
        self.counts[Outcome::Weak as usize]
    }

    /// The counts as [`Verdict::counts`] reports them.
    fn named(&self) -> BTreeMap<String, u64> {
        let mut named: BTreeMap<String, u64> = Outcome::ALL
            .iter()
            .map(|o| (o.name().to_string(), self.counts[*o as usize]))
            .collect();
        named.insert("total".into(), self.instances);
        named.insert("launches".into(), self.launches);
        named
    }

    /// The verdict on these counts under `expect`.
    pub(crate) fn verdict(&self, test: Test, expect: &Expect) -> Verdict {
        let counted: u64 = self.counts.iter().sum();
        if counted != self.instances || self.launches == 0 {
            return Verdict::fail(format!(
                "harness: {counted} outcomes counted for {} instances in {} launches",
                self.instances, self.launches
            ));
        }
        let (r0, r1) = test.weak_reads();
        let weak = self.weak();
        let rate = weak as f64 / self.instances as f64;
        let seen = format!(
            "(r0, r1) = ({r0}, {r1}) seen {weak} times in {} instances ({rate:.2e}) over {} launches",
            self.instances, self.launches
        );
        let mut verdict = match expect {
            Expect::Forbidden(rule) if weak > 0 => {
                Verdict::fail(format!("forbidden weak outcome {seen} [{rule}]"))
            }
            Expect::Forbidden(rule) => {
                Verdict::pass(format!("forbidden weak outcome {seen} [{rule}]"))
            }
            Expect::Allowed(rule) => Verdict::pass(format!("allowed weak outcome {seen} [{rule}]")),
            Expect::Unsupported(why) => Verdict::new(Status::Unsupported, why.clone()),
        };
        verdict.counts = self.named();
        verdict
    }
}

/// One litmus variant, checked on a device.
pub(crate) struct LitmusCheck {
    /// The variant.
    pub variant: Variant,
    /// Its kernel (tests substitute broken ones).
    pub kernel: Arc<KernelDef>,
    /// Seeds the launch plans.
    pub seed: u64,
    /// Tests only: the expectation to hold every device to, instead of its
    /// API's.
    pub expect: Option<Expect>,
}

impl LitmusCheck {
    /// The check of `variant` with its kernel.
    pub(crate) fn new(variant: Variant, seed: u64) -> Self {
        LitmusCheck {
            variant,
            kernel: Arc::clone(kernel(variant.test)),
            seed,
            expect: None,
        }
    }

    fn expect(&self, api: Api, model: Option<OpenClModel>) -> Expect {
        self.expect
            .clone()
            .unwrap_or_else(|| expect(self.variant, api, model))
    }
}

/// Read `out.len()` words of `buffer` from word `offset`.
fn read_words(ctx: &Context<'_>, buffer: &Buffer, offset: u64, out: &mut [u32]) -> Result<()> {
    ctx.backend
        .read(buffer, offset * 4, bytemuck::cast_slice_mut(out))
}

impl Check for LitmusCheck {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let info = ctx.backend.info();
        let api = info.api;
        let Variant { test, scope, sync } = self.variant;
        if let Expect::Unsupported(why) = self.expect(api, None) {
            return Ok(Verdict::new(Status::Unsupported, why));
        }
        let geo = Geometry::new(info, scope)?;
        let spec = KernelSpec::new(
            &self.kernel,
            &[
                ("GROUP_SIZE", geo.group_size),
                ("SCOPE", scope.constant()),
                ("SYNC", u32::from(sync)),
                ("STRIDE", geo.stride),
                ("SHARED_WORDS", geo.shared_words),
            ],
        )?;
        let instances = geo.instances();
        let shared_bytes = geo.shared_words * 4;
        Launch::linear(geo.max_groups(), geo.group_size, shared_bytes).validate(&info.caps)?;
        let kernel = ctx.backend.compile(&spec)?;
        let loc_words = match scope {
            Scope::Workgroup => 4,
            Scope::Device => 2 * instances * geo.stride,
        };
        let locs = ctx.backend.alloc(u64::from(loc_words) * 4)?;
        let results = ctx.backend.alloc(u64::from(instances) * 8)?;
        let plan = ctx.backend.alloc(u64::from(geo.max_groups()) * 8)?;
        let scratch = ctx.backend.alloc(u64::from(geo.scratch_words()) * 4)?;

        let budget = if ctx.quick {
            ctx.budget.min(QUICK_BUDGET)
        } else {
            ctx.budget
        };
        let mut rng = Rng {
            seed: self.seed,
            next: 0,
        };
        let mut words = vec![0u32; 2 * instances as usize];
        let mut model_word = [0u32];
        let mut model = None;
        let mut tally = Tally::default();
        let started = Instant::now();
        loop {
            let launch = Plan::random(&mut rng, &geo, scope);
            // Fresh locations, results and counters for every launch.
            ctx.backend.zero(&locs)?;
            ctx.backend.zero(&results)?;
            ctx.backend.zero(&scratch)?;
            plan.write(&launch.words)?;
            // SAFETY: the kernel touches only its bindings. Locations: x and
            // y of instances below `instances` (2 * instances * stride words
            // at device scope), or `shared_words` words of shared memory at
            // workgroup scope (`shared_bytes` of the launch). Results: words
            // 2 * id + {0, 1} with id < test_groups * group_size (roles
            // below the even test_groups pair as r, r ^ 1). Plan: words
            // below 2 * groups (written above, groups <= max_groups). Scratch:
            // word 0, spin counters below stress_base, stress locations below
            // scratch_words. Every loop is bounded by a param (stress, pre,
            // spin) or by SHARED_WORDS, so the kernel terminates.
            unsafe {
                ctx.backend.launch(
                    &kernel,
                    &Launch::linear(launch.groups, geo.group_size, shared_bytes),
                    &[&locs, &results, &plan, &scratch],
                    &launch.params,
                )?;
            }
            read_words(ctx, &results, 0, &mut words)?;
            read_words(ctx, &scratch, 0, &mut model_word)?;
            if api == Api::Opencl {
                let Some(m) = OpenClModel::decode(model_word[0]) else {
                    return Ok(Verdict::fail(format!(
                        "harness: the OpenCL kernel reported no model (scratch[0] = {:#x})",
                        model_word[0]
                    )));
                };
                if let Expect::Unsupported(why) = self.expect(api, Some(m)) {
                    return Ok(Verdict::new(Status::Unsupported, why));
                }
                model = Some(m);
            }
            if let Err(e) = tally.add(test, &words, instances) {
                return Ok(Verdict::fail(format!(
                    "harness: launch {}: {e}",
                    tally.launches + 1
                )));
            }
            if started.elapsed() >= budget {
                break;
            }
        }
        let mut verdict = tally.verdict(test, &self.expect(api, model));
        if let Some(m) = model {
            verdict.detail = format!("{}: {}", m.version_name(), verdict.detail);
        }
        Ok(verdict)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::Case;
    use rosetta_core::{Backend, Language};

    fn cpu() -> Arc<dyn Backend> {
        rosetta_backend_cpu::discover().unwrap().remove(0)
    }

    fn ctx(backend: &Arc<dyn Backend>, budget: Duration) -> Context<'_> {
        Context {
            backend,
            quick: false,
            budget,
        }
    }

    fn word(value: u32) -> u32 {
        WRITTEN + value
    }

    #[test]
    fn tallies_count_outcomes_and_catch_harness_errors() {
        let mut t = Tally::default();
        // MP: (0,0) seq0, (1,1) seq1, (0,1) interleaved, (1,0) weak.
        let results = [
            word(0),
            word(0),
            word(1),
            word(1),
            word(0),
            word(1),
            word(1),
            word(0),
        ];
        t.add(Test::Mp, &results, 4).unwrap();
        assert_eq!(t.counts, [1, 1, 1, 1]);
        assert_eq!((t.instances, t.launches, t.weak()), (4, 1, 1));
        let v = t.verdict(Test::Mp, &Expect::Forbidden("rule"));
        assert_eq!(v.status, Status::Failed, "{}", v.detail);
        assert!(v
            .detail
            .contains("forbidden weak outcome (r0, r1) = (1, 0) seen 1 times"));
        assert_eq!(v.counts["weak"], 1);
        assert_eq!(v.counts["total"], 4);
        let v = t.verdict(Test::Mp, &Expect::Allowed("rule"));
        assert!(v.passed(), "{}", v.detail);
        assert!(v.detail.contains("2.50e-1"), "{}", v.detail);

        // An unwritten word (a slot no invocation recorded), a word written
        // twice, an impossible value, a short buffer: harness errors.
        let mut t = Tally::default();
        assert!(t
            .add(Test::Sb, &[word(0), 0], 1)
            .unwrap_err()
            .contains("0 times"));
        assert!(t
            .add(Test::Sb, &[word(0), 2 * WRITTEN], 1)
            .unwrap_err()
            .contains("2 times"));
        assert!(t
            .add(Test::Sb, &[word(2), word(0)], 1)
            .unwrap_err()
            .contains("r0 = 2"));
        assert!(t.add(Test::Sb, &[word(0), word(0)], 2).is_err());
        assert_eq!(t, Tally::default(), "failed launches count nothing");
        // No launch, or counts that do not add up: a failure, never a pass.
        assert_eq!(
            t.verdict(Test::Sb, &Expect::Allowed("rule")).status,
            Status::Failed
        );
        t.instances = 3;
        t.launches = 1;
        assert_eq!(
            t.verdict(Test::Sb, &Expect::Allowed("rule")).status,
            Status::Failed
        );
    }

    #[test]
    fn plans_are_permutations_within_bounds() {
        let info = cpu().info().clone();
        for scope in [Scope::Workgroup, Scope::Device] {
            let geo = Geometry::new(&info, scope).unwrap();
            assert_eq!(geo.test_groups % 2, 0);
            let mut rng = Rng { seed: 7, next: 0 };
            for _ in 0..200 {
                let plan = Plan::random(&mut rng, &geo, scope);
                let g = plan.groups as usize;
                let mut roles = plan.words[..g].to_vec();
                roles.sort_unstable();
                assert_eq!(roles, (0..plan.groups).collect::<Vec<_>>());
                assert!(plan.words[g..]
                    .iter()
                    .all(|&a| a >= geo.stress_base() && a < geo.scratch_words()));
                let [_, _, local_mul, y_mul, ..] = plan.params;
                assert_eq!(local_mul % 2, 1);
                // Both multipliers permute: every instance gets one thread 0
                // and one thread 1, and x and y never collide.
                let mut seen = vec![false; geo.group_size as usize];
                for lid in 0..geo.group_size {
                    seen[(lid * local_mul % geo.group_size) as usize] = true;
                }
                assert!(seen.iter().all(|&s| s));
                let n = match scope {
                    Scope::Workgroup => geo.group_size,
                    Scope::Device => geo.instances(),
                };
                assert_eq!(gcd(y_mul, n), 1);
            }
        }
    }

    fn run_variant(variant: Variant, check: LitmusCheck, budget: Duration) -> Verdict {
        let backend = cpu();
        let case = Case::new(
            format!("test {variant}"),
            "memory-model",
            crate::op::CaseGroup::MemoryModel,
            true,
            move || LitmusCheck::new(variant, 1),
        );
        case.run_on(&check, &ctx(&backend, budget))
    }

    #[test]
    fn every_variant_passes_on_the_cpu() {
        for variant in Variant::all() {
            let v = run_variant(
                variant,
                LitmusCheck::new(variant, 1),
                Duration::from_millis(30),
            );
            assert_eq!(v.status, Status::Passed, "{variant}: {}", v.detail);
            let total: u64 = Outcome::ALL.iter().map(|o| v.counts[o.name()]).sum();
            assert_eq!(total, v.counts["total"], "{variant}");
            assert!(v.counts["launches"] > 0, "{variant}");
        }
    }

    /// A kernel whose one instance always shows MP's weak outcome: the
    /// harness must call it a failure where the outcome is forbidden.
    #[test]
    fn a_broken_kernel_is_caught() {
        use rosetta_core::workgroup::GlobalWord;
        let variant = Variant {
            test: Test::Mp,
            scope: Scope::Workgroup,
            sync: true,
        };
        let broken = KernelDef::builder("litmus_mp")
            .constants(super::super::kernel::CONSTANTS)
            .bindings(super::super::kernel::BINDINGS)
            .params(super::super::kernel::PARAMS)
            .source(Language::Wgsl, "unused")
            .cpu(|group, bindings| {
                let role = bindings.read(2)[group.id[0] as usize];
                if role >= group.params[0] {
                    return;
                }
                let results = bindings.write(1);
                for lid in 0..group.size {
                    let id = (role * group.size + lid) as usize;
                    // Instance 0 reads the flag but not the data.
                    let (r0, r1) = if id == 0 { (1, 0) } else { (1, 1) };
                    results[2 * id].atomic_add(WRITTEN + r0);
                    results[2 * id + 1].atomic_add(WRITTEN + r1);
                }
            })
            .build_arc()
            .unwrap();
        let check = LitmusCheck {
            kernel: broken,
            ..LitmusCheck::new(variant, 1)
        };
        let v = run_variant(variant, check, Duration::from_millis(20));
        assert_eq!(v.status, Status::Failed, "{}", v.detail);
        assert!(v.detail.contains("forbidden weak outcome"), "{}", v.detail);
        assert_eq!(v.counts["weak"], v.counts["launches"]);
    }

    /// Store buffering on real threads: the relaxed device-scope SB goes weak
    /// on the CPU backend (x86 and Arm both let a load pass an earlier store
    /// to another location), so the test can see weak outcomes; held to
    /// "forbidden", it fails. Runs until the first weak outcome (or 30 s).
    #[test]
    fn relaxed_store_buffering_goes_weak_on_real_threads() {
        let variant = Variant {
            test: Test::Sb,
            scope: Scope::Device,
            sync: false,
        };
        let check = LitmusCheck {
            expect: Some(Expect::Forbidden("held to forbidden by the test")),
            ..LitmusCheck::new(variant, 2)
        };
        let backend = cpu();
        let started = Instant::now();
        let mut last = None;
        while started.elapsed() < Duration::from_secs(30) {
            let v = check
                .run(&ctx(&backend, Duration::from_millis(250)))
                .unwrap();
            if v.status == Status::Failed {
                assert!(
                    v.detail
                        .contains("forbidden weak outcome (r0, r1) = (0, 0)"),
                    "{}",
                    v.detail
                );
                assert!(v.counts["weak"] > 0);
                return;
            }
            last = Some(v);
        }
        panic!(
            "no store buffering seen in 30 s: {:?}",
            last.map(|v| v.counts)
        );
    }
}
