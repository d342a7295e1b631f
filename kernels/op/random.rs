//! The `random` group's draws: each op's [`super::Op::random_case`] takes a
//! [`Draw`] seeded by (suite seed, op, case index) and draws a variant of its
//! plan, a shape and values from it. The same seed gives the same cases on
//! every device, run and machine, so a failure is reproduced by its seed and
//! index alone (`rosetta conform --group random --seed S --case '#I '`).
//!
//! Fixed cases test the shapes their author thought of; drawn ones test the
//! rest: every variant (the tuner may pick any of them for any shape of its
//! class) over shapes around the boundaries of vectors, workgroups and tiles
//! and far from them.

use rosetta_core::Capabilities;

/// Longest 1-D input a random case draws (lavapipe and PoCL on two cores
/// run a case in milliseconds).
pub const MAX_LEN: usize = 1 << 19;

/// Most multiply-adds one random conv1d, conv2d or matmul case may take.
/// Ops count what their kernels compute, whole tiles included, not only
/// the outputs asked for: a 1-pixel-wide image through 32-wide tiles does
/// 32 times the work it checks.
pub const MAX_WORK: usize = 1 << 23;

/// splitmix64's step: 2^64 / φ.
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// splitmix64's finaliser: every bit of `z` moves about half the bits of
/// the result.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A deterministic generator (splitmix64).
#[derive(Debug, Clone)]
pub struct Draw {
    state: u64,
}

impl Draw {
    /// The draw of case `index` of op `op` under suite seed `seed`.
    ///
    /// The seed, the op and the index are each mixed before they are
    /// combined: a state of `seed·φ + …` made seed S + 1's draws seed S's
    /// shifted by one step (each step adds φ), so that neighbouring seeds
    /// drew the same cases one value apart.
    pub fn new(seed: u64, op: &str, index: u64) -> Draw {
        let mut draw = Draw {
            state: mix(seed.wrapping_add(GOLDEN))
                ^ mix(super::seed(op)).wrapping_add(mix(index.wrapping_mul(0xD1B5_4A32_D192_ED03))),
        };
        draw.next_u64();
        draw
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN);
        mix(self.state)
    }

    /// A seed for [`rosetta_core::inputs`].
    pub fn seed(&mut self) -> u64 {
        self.next_u64()
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Uniform in `lo..=hi` (`lo` when `hi < lo`).
    pub fn between(&mut self, lo: usize, hi: usize) -> usize {
        if hi <= lo {
            return lo;
        }
        lo + self.below(hi - lo + 1)
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One of `items` (which must not be empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A length in `1..=max` (1 when `max` is 0): half the time next to a
    /// power of two (2^k − 1, 2^k or 2^k + 1: the edges of vectors,
    /// workgroups and tiles), a quarter log-uniform, a quarter uniform.
    pub fn length(&mut self, max: usize) -> usize {
        let max = max.max(1);
        let bits = usize::BITS - max.leading_zeros(); // 2^(bits-1) <= max
        match self.below(4) {
            0 | 1 => {
                let k = self.below(bits as usize);
                let around = (1usize << k) as i64 + self.between(0, 2) as i64 - 1;
                (around.max(1) as usize).min(max)
            }
            2 => {
                let k = self.below(bits as usize);
                let lo = 1usize << k;
                self.between(lo, (lo.saturating_mul(2) - 1).min(max))
            }
            _ => self.between(1, max),
        }
    }

    /// An odd length in `1..=max` (1 when `max` < 1), small ones likelier.
    pub fn odd(&mut self, max: usize) -> usize {
        let n = self.length(max.max(1));
        if n % 2 == 1 {
            n
        } else {
            n - 1
        }
    }
}

/// The least device a drawn shape must fit, so that no device refuses it:
/// lavapipe's limits — its loop budget (the only driver whose loops stop),
/// 32 KiB of shared memory (what the fixed cases already need: `conv2d`'s
/// `window32x128` takes 16 388 bytes for a 1 × 1 filter, 22 084 for 9 × 9)
/// and 65 535 workgroups per axis — with workgroups of 256 (what the plans
/// prefer, which every device the suite runs on holds). A device with more
/// of each takes every shape this one does: larger workgroups mean fewer
/// tiles and fewer loop iterations per invocation.
pub fn least_device() -> Capabilities {
    Capabilities {
        max_group_invocations: 256,
        max_group_size: [256, 256, 64],
        ..Capabilities::software_device()
    }
}

/// The largest `x` in `lo..=hi` with `fits(x)`, where `fits` holds up to
/// some point and not past it (`lo` if not even `lo` fits): a binary
/// search, so a draw's limits come from the plan's own checks rather than
/// a copy of them.
pub fn largest(lo: usize, hi: usize, fits: impl Fn(usize) -> bool) -> usize {
    if hi <= lo || !fits(lo) {
        return lo;
    }
    if fits(hi) {
        return hi;
    }
    // fits(lo) and not fits(hi).
    let (mut lo, mut hi) = (lo, hi);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The largest odd `x` in `1..=hi` with `fits(x)` (as [`largest`]).
pub fn largest_odd(hi: usize, fits: impl Fn(usize) -> bool) -> usize {
    2 * largest(0, hi.saturating_sub(1) / 2, |t| fits(2 * t + 1)) + 1
}

/// Cases per op a `random` run draws by default (`rosetta conform` without
/// `--random-cases`).
pub const DEFAULT_PER_OP: usize = 24;

/// Of those, the cases `--quick` runs (the first ones).
pub const DEFAULT_QUICK_PER_OP: usize = 6;

/// What the ops' tests of their draws share.
#[cfg(test)]
pub(crate) mod testing {
    use super::{least_device, Draw};
    use crate::op::{Case, CaseGroup, Context, Verdict};
    use rosetta_core::Capabilities;
    use std::time::Duration;

    /// `run` with a context on the CPU backend.
    pub(crate) fn on_cpu<R>(run: impl FnOnce(&Context<'_>) -> R) -> R {
        let backend = rosetta_backend_cpu::discover()
            .expect("the CPU backend")
            .remove(0);
        run(&Context {
            backend: &backend,
            quick: true,
            budget: Duration::from_millis(100),
        })
    }

    /// What `draw` makes of draws `0..count` of `op` under `seed`.
    pub(crate) fn draws<T>(
        op: &str,
        seed: u64,
        count: u64,
        draw: impl Fn(&mut Draw) -> T,
    ) -> Vec<T> {
        (0..count)
            .map(|i| draw(&mut Draw::new(seed, op, i)))
            .collect()
    }

    /// Of `seeds` seeds from 1, how many draw at least one case meeting
    /// `meets` among a default run's [`super::DEFAULT_PER_OP`] of `op`.
    pub(crate) fn seeds_meeting<T>(
        op: &str,
        seeds: u64,
        draw: impl Fn(&mut Draw) -> T,
        meets: impl Fn(&T) -> bool,
    ) -> u64 {
        (1..=seeds)
            .filter(|&seed| {
                draws(op, seed, super::DEFAULT_PER_OP as u64, &draw)
                    .iter()
                    .any(&meets)
            })
            .count() as u64
    }

    /// Cases `0..count` that `drawn_case` draws for `op` under `seed`, each
    /// checked to sit in the random group and run on the CPU backend: every
    /// name with its verdict.
    pub(crate) fn drawn_on_cpu(
        op: &str,
        seed: u64,
        count: u64,
        drawn_case: fn(&mut Draw) -> Case,
    ) -> Vec<(String, Verdict)> {
        on_cpu(|ctx| {
            draws(op, seed, count, drawn_case)
                .into_iter()
                .map(|case| {
                    assert_eq!(case.group, CaseGroup::Random, "{}", case.name);
                    let verdict = case.run_on(case.prepare().as_ref(), ctx);
                    (case.name, verdict)
                })
                .collect()
        })
    }

    /// Devices as their plans see them: the least one, lavapipe (32 KiB,
    /// loops capped), the CPU backend (256 KiB), PoCL (1 MiB, groups of
    /// 4096) and a large GPU (48 KiB, 2^31 − 1 groups along x).
    pub(crate) fn devices() -> Vec<Capabilities> {
        let lavapipe = Capabilities::software_device();
        let uncapped = |shared: u32, invocations: u32| Capabilities {
            max_shared_bytes: shared,
            max_group_invocations: invocations,
            max_group_size: [invocations, invocations, 64],
            loop_limit: None,
            ..lavapipe.clone()
        };
        let gpu = Capabilities {
            max_groups: [u32::MAX >> 1, 65_535, 65_535],
            ..uncapped(48 << 10, 1024)
        };
        vec![
            least_device(),
            lavapipe.clone(),
            uncapped(256 << 10, 1024),
            uncapped(1 << 20, 4096),
            gpu,
        ]
    }

    /// The lines of the verdicts that did not pass (empty when all did).
    pub(crate) fn not_passed(verdicts: &[(String, Verdict)]) -> Vec<String> {
        verdicts
            .iter()
            .filter(|(_, v)| !v.passed())
            .map(|(name, v)| format!("{name}: {:?} {}", v.status, v.detail))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_repeat_for_a_seed_and_differ_between_seeds() {
        let take = |seed, op, index| {
            let mut d = Draw::new(seed, op, index);
            (0..8).map(|_| d.next_u64()).collect::<Vec<_>>()
        };
        assert_eq!(take(1, "matmul", 3), take(1, "matmul", 3));
        assert_ne!(take(1, "matmul", 3), take(2, "matmul", 3));
        assert_ne!(take(1, "matmul", 3), take(1, "matmul", 4));
        assert_ne!(take(1, "matmul", 3), take(1, "conv1d", 3));
    }

    /// Neighbouring seeds and indices draw unrelated values: no value of
    /// one draw's first eight appears among another's (seed S + 1 drew
    /// seed S's values one step later before seeds were mixed).
    #[test]
    fn neighbouring_seeds_and_indices_share_no_values() {
        let take = |seed, index| {
            let mut d = Draw::new(seed, "matmul", index);
            (0..8).map(|_| d.next_u64()).collect::<Vec<_>>()
        };
        let mut seen = std::collections::HashMap::new();
        for seed in 0..64u64 {
            for index in 0..64u64 {
                for value in take(seed, index) {
                    let before = seen.insert(value, (seed, index));
                    assert_eq!(before, None, "({seed}, {index}) drew a value of {before:?}");
                }
            }
        }
    }

    #[test]
    fn largest_finds_the_last_fitting_value() {
        assert_eq!(largest(1, 1000, |x| x <= 37), 37);
        assert_eq!(largest(1, 1000, |x| x <= 5000), 1000);
        assert_eq!(largest(10, 1000, |x| x <= 5), 10);
        assert_eq!(largest(7, 3, |_| true), 7);
        assert_eq!(largest_odd(100, |x| x <= 38), 37);
        assert_eq!(largest_odd(100, |x| x <= 37), 37);
        assert_eq!(largest_odd(1, |_| true), 1);
        assert_eq!(largest_odd(0, |_| false), 1);
    }

    #[test]
    fn drawn_values_stay_in_their_ranges_and_cover_them() {
        let mut d = Draw::new(7, "x", 0);
        let mut seen_edges = [false; 3];
        for _ in 0..20_000 {
            assert!(d.below(5) < 5);
            assert_eq!(d.below(0), 0);
            let b = d.between(3, 9);
            assert!((3..=9).contains(&b));
            assert_eq!(d.between(4, 4), 4);
            assert_eq!(d.between(5, 2), 5);
            for max in [0, 1, 2, 3, 1000, 1 << 19] {
                let n = d.length(max);
                assert!(n >= 1 && n <= max.max(1), "{n} for max {max}");
                let o = d.odd(max);
                assert!(o % 2 == 1 && o <= max.max(1), "{o} for max {max}");
            }
            let n = d.length(1 << 19);
            if n.is_power_of_two() && n > 2 {
                seen_edges[1] = true;
            }
            if (n + 1).is_power_of_two() && n > 2 {
                seen_edges[0] = true;
            }
            if (n - 1).is_power_of_two() && n > 3 {
                seen_edges[2] = true;
            }
        }
        assert_eq!(seen_edges, [true; 3]);
        // `below` reaches both ends.
        let hits: std::collections::BTreeSet<usize> = (0..1000).map(|_| d.below(3)).collect();
        assert_eq!(hits.len(), 3);
    }
}
