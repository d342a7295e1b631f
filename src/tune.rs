//! Tuning: measure every variant of each tunable workload on each device
//! and keep the fastest in the tuning cache, which plans use from then on
//! (`rosetta tune` is this with a progress bar).
//!
//! Each workload's variants are measured [`ROUNDS`] times, round-robin,
//! then, in a second stage, the neighbours the workload names around the
//! fastest (`Workload::refined`: matmul's fastest tiling at other chunk
//! counts of k, which around every tiling doubled the tuner's matmul time
//! for nothing on an H100), and each variant keeps its fastest round's
//! median: a slowdown that lasts a few seconds (another process on the
//! GPU, clocks ramping) only inflates the variants measured during it, and
//! noise can only add time. Seen on an H200 with one round: a transient
//! slowdown made the 128×128 matmul tiling measure 2.8 ms at 2048³ (0.51 ms
//! otherwise), and the tuner stored 64×64. A variant whose output is wrong
//! is never chosen and not measured again.
//!
//! ```no_run
//! use rosetta::{bench, discover, tune, Api};
//! use rosetta::kernels::op::{parse_shape, Size};
//!
//! // Tune the matmul at the shape this program multiplies, on every GPU.
//! let devices = discover(&Api::ALL).select(&["all"])?;
//! let options = tune::options(bench::Options {
//!     shapes: vec![parse_shape("3000x1000x2000")?],
//!     ..bench::Options::new(Size::Medium, vec!["matmul".into()])
//! });
//! let tuner = tune::Tuner::new(&devices, options)?;
//! for job in 0..tuner.jobs() {
//!     let tuned = tuner.tune(job, &|_| {})?;
//!     println!("{} {}: {:?}", tuned.device, tuned.label, tuned.choice);
//! }
//! # Ok::<(), rosetta::Error>(())
//! ```

use crate::bench::{run_workload, workloads, Options, Status};
use crate::{Device, Error, Result};
use rosetta_kernels::op::{TuningCache, TuningChoice, Workload};
use std::collections::BTreeMap;

/// Times each variant is measured (round-robin over the variants).
pub const ROUNDS: usize = 2;

/// `options` with the tuner's sampling: at least 5 samples, 0.2 s per
/// variant, at most 3 s (each variant runs [`ROUNDS`] times, and a
/// workload has up to a few dozen).
pub fn options(options: Options) -> Options {
    Options {
        min_samples: 5,
        target_seconds: 0.2,
        max_seconds: 3.0,
        ..options
    }
}

/// What tuning one workload on one device found (its choice is stored).
#[derive(Debug, Clone)]
pub struct Tuned {
    /// The device's id (`cuda:0`).
    pub device: String,
    /// The workload's label.
    pub label: String,
    /// The op.
    pub op: &'static str,
    /// The shape class the choice is stored under.
    pub class: String,
    /// The fastest variant and its median in seconds; `None` where no
    /// variant ran (nothing is stored then).
    pub choice: Option<(String, f64)>,
    /// Each variant's fastest median over its rounds, in seconds.
    pub measured: BTreeMap<String, f64>,
    /// Variants whose output was wrong, and how (never chosen).
    pub wrong: BTreeMap<String, String>,
}

/// Where the tuner is, for progress displays.
#[derive(Debug, Clone, Copy)]
pub struct Progress<'a> {
    /// Variant runs done in this job's stages so far.
    pub done: usize,
    /// Variant runs this job's stages hold so far (the second stage adds
    /// its runs once the first is measured).
    pub total: usize,
    /// The device.
    pub device: &'a str,
    /// The workload's label.
    pub label: &'a str,
    /// The variant about to run.
    pub variant: &'a str,
    /// Its round, from 1.
    pub round: usize,
}

/// The tunable workloads of `options` on `devices`, checked before any is
/// measured, tuned one job (a workload on a device) at a time.
pub struct Tuner<'a> {
    options: Options,
    jobs: Vec<(&'a Device, Workload)>,
}

impl<'a> Tuner<'a> {
    /// Every tunable workload of `options` (the ops' presets, or
    /// `options.shapes`) on each of `devices`. What would keep nothing is
    /// an error before anything is measured: caching off or no cache folder
    /// ([`Error::Usage`]), an op in `options.ops` with no variants on these
    /// devices ([`Error::Usage`]), a tuning cache that cannot be written
    /// ([`Error::TuningCache`]).
    pub fn new(devices: &'a [Device], options: Options) -> Result<Self> {
        // The tuner's choices live in the cache: without one it would
        // measure for nothing.
        if let Some(device) = devices.first() {
            if TuningCache::for_device(device.info()).path().is_none() {
                return Err(Error::Usage(
                    "tuning keeps its choices in the cache, and caching is off \
                     (ROSETTA_CACHE_DIR=off, or no home directory): set ROSETTA_CACHE_DIR to a folder"
                        .into(),
                ));
            }
        }
        let mut jobs = Vec::new();
        for device in devices {
            for workload in workloads(device.info(), &options)? {
                if workload.tune_class.is_some() && !workload.variants.is_empty() {
                    jobs.push((device, workload));
                }
            }
        }
        // An op named that has no variants here (copy, chain) is a usage
        // error, not a silent success.
        for op in &options.ops {
            if !jobs.iter().any(|(_, w)| w.op.eq_ignore_ascii_case(op)) {
                return Err(Error::Usage(format!(
                    "'{op}' has no variants to tune on the selected devices"
                )));
            }
        }
        // A cache it cannot write fails before anything is measured.
        for device in devices {
            TuningCache::for_device(device.info())
                .check_writable()
                .map_err(Error::TuningCache)?;
        }
        Ok(Tuner { options, jobs })
    }

    /// How many jobs (a workload on a device) there are.
    pub fn jobs(&self) -> usize {
        self.jobs.len()
    }

    /// Variant runs the jobs' first stages take (the second stages add a
    /// few each).
    pub fn first_stage_runs(&self) -> usize {
        self.jobs
            .iter()
            .map(|(_, w)| w.variants.len() * ROUNDS)
            .sum()
    }

    /// Measure job `job` (below [`Tuner::jobs`]) in its stages and store
    /// the fastest variant in its device's tuning cache; `progress` hears
    /// of each variant run before it starts. An error where the choice
    /// cannot be stored ([`Error::TuningCache`]: storing is what tuning is for).
    pub fn tune(&self, job: usize, progress: &dyn Fn(Progress<'_>)) -> Result<Tuned> {
        let (device, workload) = self
            .jobs
            .get(job)
            .ok_or_else(|| Error::Usage(format!("no tuning job {job} of {}", self.jobs.len())))?;
        let mut stage = Stage {
            device,
            workload,
            options: &self.options,
            progress,
            done: 0,
            total: workload.variants.len() * ROUNDS,
            rounds: BTreeMap::new(),
            wrong: BTreeMap::new(),
        };
        stage.measure(&workload.variants);
        // The second stage: the fastest's neighbours (matmul: its tiling at
        // other chunk counts of k), each not measured yet.
        if let Some((winner, _)) = fastest(&fastest_rounds(&stage.rounds)) {
            let more: Vec<String> = workload
                .refinements(winner)
                .into_iter()
                .filter(|v| !workload.variants.contains(v))
                .collect();
            stage.total += more.len() * ROUNDS;
            stage.measure(&more);
        }
        let measured = fastest_rounds(&stage.rounds);
        let choice = fastest(&measured).map(|(v, t)| (v.clone(), *t));
        let class = workload.tune_class.clone().unwrap_or_default();
        if let Some((variant, median_s)) = &choice {
            TuningCache::for_device(device.info())
                .store(
                    device.info(),
                    workload.op,
                    &class,
                    TuningChoice {
                        variant: variant.clone(),
                        median_s: *median_s,
                        measured: measured.clone(),
                    },
                )
                .map_err(Error::TuningCache)?;
        }
        Ok(Tuned {
            device: device.info().id(),
            label: workload.label.clone(),
            op: workload.op,
            class,
            choice,
            measured,
            wrong: stage.wrong,
        })
    }
}

/// One workload on one device, measured in stages.
struct Stage<'a> {
    device: &'a Device,
    workload: &'a Workload,
    options: &'a Options,
    progress: &'a dyn Fn(Progress<'_>),
    done: usize,
    total: usize,
    /// Each variant's median per round.
    rounds: BTreeMap<String, Vec<f64>>,
    /// Variants whose output was wrong, and how.
    wrong: BTreeMap<String, String>,
}

impl Stage<'_> {
    /// Each of `variants` [`ROUNDS`] times, round-robin.
    fn measure(&mut self, variants: &[String]) {
        let (device, workload) = (self.device, self.workload);
        let id = device.info().id();
        for round in 0..ROUNDS {
            for variant in variants {
                self.done += 1;
                if self.wrong.contains_key(variant) {
                    continue;
                }
                (self.progress)(Progress {
                    done: self.done,
                    total: self.total,
                    device: &id,
                    label: &workload.label,
                    variant,
                    round: round + 1,
                });
                let result = run_workload(device, workload, self.options, Some(variant));
                match (result.status, result.device_time) {
                    (Status::Ok, Some(t)) => {
                        self.rounds
                            .entry(variant.clone())
                            .or_default()
                            .push(t.median_s);
                    }
                    (Status::Wrong, _) => {
                        self.rounds.remove(variant);
                        self.wrong.insert(variant.clone(), result.detail);
                    }
                    _ => {
                        tracing::debug!(variant = %variant, detail = %result.detail, "variant not run")
                    }
                }
            }
        }
    }
}

/// The variant with the least time in `measured`, and its time.
fn fastest(measured: &BTreeMap<String, f64>) -> Option<(&String, &f64)> {
    measured.iter().min_by(|a, b| a.1.total_cmp(b.1))
}

/// Each variant's fastest median over the rounds it ran in.
fn fastest_rounds(rounds: &BTreeMap<String, Vec<f64>>) -> BTreeMap<String, f64> {
    rounds
        .iter()
        .filter_map(|(variant, medians)| {
            let best = medians.iter().copied().min_by(f64::total_cmp)?;
            Some((variant.clone(), best))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_variant_keeps_its_fastest_round() {
        let rounds: BTreeMap<String, Vec<f64>> = [
            // Slowed down in round 1, the fastest in round 2.
            ("128x128".to_string(), vec![2.8e-3, 0.51e-3]),
            ("64x64".to_string(), vec![0.63e-3, 0.62e-3]),
            ("ran once".to_string(), vec![0.9e-3]),
            ("never ran".to_string(), vec![]),
        ]
        .into_iter()
        .collect();
        let fastest_each = fastest_rounds(&rounds);
        assert_eq!(fastest_each.len(), 3);
        assert_eq!(fastest_each["128x128"], 0.51e-3);
        assert_eq!(fastest_each["64x64"], 0.62e-3);
        assert_eq!(fastest_each["ran once"], 0.9e-3);
        assert_eq!(fastest(&fastest_each).unwrap().0, "128x128");
    }
}
