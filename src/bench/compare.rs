//! `--compare BASELINE.json`: which results moved by more than they vary.

use super::result::{validate, BenchReport, BenchResult, Status};
use serde::Serialize;

/// How a result moved against its baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// Faster by more than the noise threshold.
    Faster,
    /// Slower by more than the noise threshold.
    Slower,
    /// Within the noise.
    Same,
}

/// One result next to its baseline.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// The device (its id in the current run).
    pub device: String,
    /// The workload's label.
    pub label: String,
    /// The baseline's median time.
    pub baseline_s: f64,
    /// The current median time.
    pub current_s: f64,
    /// current / baseline median time.
    pub ratio: f64,
    /// The larger relative spread of the two, the noise threshold.
    pub threshold: f64,
    /// The verdict.
    pub change: Change,
}

/// A report that cannot be compared, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompareError {
    /// The baseline file cannot be compared with.
    #[error("baseline: {0}")]
    Baseline(String),
    /// This run's results cannot be compared.
    #[error("this run: {0}")]
    Current(String),
}

/// Match results by device (id and name; across machines, the one device of
/// the same API and name) and workload label, and flag each
/// whose median moved by more than the larger of the two measured spreads
/// (and at least 1%). Both reports must pass [`validate`].
pub fn compare(
    baseline: &BenchReport,
    current: &BenchReport,
) -> Result<Vec<Comparison>, CompareError> {
    validate(baseline).map_err(CompareError::Baseline)?;
    validate(current).map_err(CompareError::Current)?;
    let timed = |r: &BenchResult| match (r.status, r.device_time) {
        (Status::Ok, Some(t)) => Some(t),
        _ => None,
    };
    // The devices of one API and name a report holds (distinct ids).
    let named = |report: &BenchReport, api: &str, name: &str| {
        let mut ids: Vec<&str> = report
            .results
            .iter()
            .filter(|r| r.api == api && r.device_name == name)
            .map(|r| r.device.as_str())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids.len()
    };
    let across_machines = baseline.machine != current.machine;
    Ok(current
        .results
        .iter()
        .filter_map(|cur| {
            // The same device (id and name), else — across machines, where
            // ids differ — the one device of that API and name, where each
            // run has exactly one (a twin of a matched device, or another
            // device of this machine, is never its baseline).
            let same_label = |b: &&BenchResult| b.label == cur.label && b.api == cur.api;
            let base = baseline
                .results
                .iter()
                .filter(same_label)
                .find(|b| b.device == cur.device && b.device_name == cur.device_name)
                .or_else(|| {
                    let one_each = across_machines
                        && named(baseline, &cur.api, &cur.device_name) == 1
                        && named(current, &cur.api, &cur.device_name) == 1;
                    if !one_each {
                        return None;
                    }
                    baseline
                        .results
                        .iter()
                        .filter(same_label)
                        .find(|b| b.device_name == cur.device_name)
                })?;
            let (b, c) = (timed(base)?, timed(cur)?);
            let ratio = c.median_s / b.median_s;
            let threshold = b.spread.max(c.spread).max(0.01);
            let change = if ratio > 1.0 + threshold {
                Change::Slower
            } else if ratio < 1.0 / (1.0 + threshold) {
                Change::Faster
            } else {
                Change::Same
            };
            Some(Comparison {
                device: cur.device.clone(),
                label: cur.label.clone(),
                baseline_s: b.median_s,
                current_s: c.median_s,
                ratio,
                threshold,
                change,
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::{Stats, SCHEMA};
    use crate::report::fixtures;
    use rosetta_core::Api;

    /// `compare` of the two runs with each one's devices listed as its
    /// results name them (a run must list the device of every result; the
    /// tests below rename results' devices freely).
    fn compare_listed(
        baseline: &BenchReport,
        current: &BenchReport,
    ) -> Result<Vec<Comparison>, CompareError> {
        compare(&listed(baseline), &listed(current))
    }

    fn listed(run: &BenchReport) -> BenchReport {
        let mut run = run.clone();
        run.devices.clear();
        for r in &run.results {
            let (api, index) = r.device.split_once(':').unwrap();
            let (api, index) = (Api::from_name(api).unwrap(), index.parse().unwrap());
            if !run.devices.iter().any(|d| d.id() == r.device) {
                let device = fixtures::device(api, index, &r.device_name, false, None, None);
                run.devices.push(device);
            }
        }
        run
    }

    fn report(median_s: f64, spread: f64) -> BenchReport {
        let stats = Stats {
            median_s,
            min_s: median_s,
            p90_s: median_s,
            spread,
        };
        let result = BenchResult {
            device: "cpu:0".into(),
            device_name: "cpu".into(),
            api: "cpu".into(),
            op: "reduce".into(),
            label: "sum f32 n=2^16".into(),
            series: "sum f32".into(),
            metric: rosetta_kernels::op::Metric::Time,
            variant: "tree".into(),
            tuned: false,
            elements: 1 << 16,
            bytes: 1 << 18,
            flops: None,
            status: Status::Ok,
            detail: String::new(),
            clock: None,
            samples: 10,
            device_time: Some(stats),
            host_time: Some(stats),
            gbps: None,
            gflops: None,
            copy_fraction: None,
        };
        BenchReport {
            schema: SCHEMA.into(),
            machine: crate::Machine::this(),
            size: "small".into(),
            devices: Vec::new(),
            results: vec![result],
        }
    }

    #[test]
    fn matches_devices_across_machines_by_name() {
        let base = report(1.0, 0.01);
        let mut other = report(2.0, 0.01);
        other.results[0].device = "cpu:3".into();
        // On one machine another id is another device (a baseline of
        // `cuda:1` is no baseline for `cuda:0`, twins or not).
        assert!(compare_listed(&base, &other).unwrap().is_empty());
        other.machine.host = "elsewhere".into();
        let c = compare_listed(&base, &other).unwrap();
        assert_eq!(c.len(), 1, "same API and name on another machine");
        assert_eq!(c[0].change, Change::Slower);
        // Two devices of that name in either run: which is which is not
        // known, so neither is compared by name (a twin of the matched
        // device was set against its baseline and called slower).
        let mut twins = other.clone();
        twins.results.push(other.results[0].clone());
        twins.results[1].device = "cpu:4".into();
        assert!(compare_listed(&base, &twins).unwrap().is_empty());
        assert!(compare_listed(&twins, &base).unwrap().is_empty());
        let mut matched = twins.clone();
        matched.results[0].device = "cpu:0".into();
        let c = compare_listed(&base, &matched).unwrap();
        assert_eq!(c.len(), 1, "only the device with the baseline's id");
        assert_eq!(c[0].device, "cpu:0");
        other.results[0].device_name = "another cpu".into();
        assert!(compare_listed(&base, &other).unwrap().is_empty());
    }

    #[test]
    fn flags_changes_beyond_the_spread() {
        let c = compare_listed(&report(1.0, 0.05), &report(1.2, 0.02)).unwrap();
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].change, Change::Slower);
        assert!((c[0].ratio - 1.2).abs() < 1e-12);
        let c = compare_listed(&report(1.0, 0.05), &report(0.97, 0.0)).unwrap();
        assert_eq!(c[0].change, Change::Same);
    }

    #[test]
    fn rejects_other_schemas_and_bad_medians() {
        let good = report(1e-3, 0.1);
        let mut other = good.clone();
        other.schema = "rosetta-bench/1".into();
        assert!(matches!(
            compare_listed(&other, &good),
            Err(CompareError::Baseline(why)) if why.contains("'rosetta-bench/1'")
        ));
        for (median, spread) in [
            (0.0, 0.0),
            (-1e-3, 0.0),
            (f64::NAN, 0.0),
            (f64::INFINITY, 0.0),
            (1e-3, f64::NAN),
            (1e-3, -0.5),
        ] {
            let bad = report(median, spread);
            assert!(matches!(
                compare_listed(&bad, &good),
                Err(CompareError::Baseline(_))
            ));
            let err = compare_listed(&good, &bad).unwrap_err();
            assert!(matches!(&err, CompareError::Current(why) if why.contains("sum f32")));
            assert!(err.to_string().starts_with("this run: "), "{err}");
        }
        // A workload twice on one device: refused, not decided by order.
        let mut twice = good.clone();
        twice.results.push(report(1.0, 0.1).results[0].clone());
        assert!(matches!(
            compare_listed(&twice, &good),
            Err(CompareError::Baseline(why)) if why.contains("listed twice")
        ));
        let mut no_time = good.clone();
        no_time.results[0].device_time = None;
        assert!(compare_listed(&no_time, &good).is_err());
        // Results that are not ok carry no time and are not compared; a
        // time they do carry must still be possible (as when read from a
        // file, and in `report --merge`).
        let mut wrong = report(1e-3, 0.0);
        wrong.results[0].status = Status::Wrong;
        wrong.results[0].device_time = None;
        wrong.results[0].host_time = None;
        assert_eq!(compare_listed(&wrong, &good).unwrap().len(), 0);
        wrong.results[0].device_time = report(0.0, 0.0).results[0].device_time;
        assert!(compare_listed(&wrong, &good).is_err());
    }
}
