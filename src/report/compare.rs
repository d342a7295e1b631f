//! Benchmark runs of different machines side by side: [`crate::bench::compare`]
//! matches results by device id, device name and workload label, which only
//! meets on one machine. Across machines the same GPU may have another index
//! (`cuda:1` there, `cuda:0` here), so a baseline device is first matched to
//! a current one: the same id and name, else the one device of the same API
//! with the same name (without API suffixes) on each side. Then the
//! comparison is `bench::compare`'s, thresholds and all.

use super::physical::normalize_name;
use crate::bench::{self, BenchReport, CompareError, Comparison};
use std::collections::BTreeMap;

/// A device as results name it: (id, name, api).
fn devices(report: &BenchReport) -> Vec<(&str, &str, &str)> {
    let mut out: Vec<(&str, &str, &str)> = Vec::new();
    for r in &report.results {
        if !out.iter().any(|d| d.0 == r.device && d.1 == r.device_name) {
            out.push((&r.device, &r.device_name, &r.api));
        }
    }
    out
}

/// Which current device each baseline device is: `(baseline id, current
/// id)` pairs, in baseline order; unmatched devices are left out.
pub fn device_map(baseline: &BenchReport, current: &BenchReport) -> Vec<(String, String)> {
    let (base, cur) = (devices(baseline), devices(current));
    let key = |d: &(&str, &str, &str)| (d.2.to_string(), normalize_name(d.1));
    let mut count: BTreeMap<(String, String), (usize, usize)> = BTreeMap::new();
    for d in &base {
        count.entry(key(d)).or_default().0 += 1;
    }
    for d in &cur {
        count.entry(key(d)).or_default().1 += 1;
    }
    base.iter()
        .filter_map(|b| {
            if cur.iter().any(|c| c.0 == b.0 && c.1 == b.1) {
                return Some((b.0.to_string(), b.0.to_string()));
            }
            let k = key(b);
            if count.get(&k) != Some(&(1, 1)) {
                return None;
            }
            cur.iter()
                .find(|c| key(c) == k)
                .map(|c| (b.0.to_string(), c.0.to_string()))
        })
        .collect()
}

/// `bench::compare` of `current` against `baseline` from any machine:
/// baseline devices renamed to the current devices they match (see the
/// module docs), results matched by workload label. Each comparison names
/// the current device.
pub fn compare_across(
    baseline: &BenchReport,
    current: &BenchReport,
) -> Result<Vec<Comparison>, CompareError> {
    let map = device_map(baseline, current);
    let names: BTreeMap<&str, &str> = current
        .results
        .iter()
        .map(|r| (r.device.as_str(), r.device_name.as_str()))
        .collect();
    let mut aligned = baseline.clone();
    // Matched here, device by device: `bench::compare` matches ids only
    // (its name fallback is for two machines).
    aligned.machine = current.machine.clone();
    aligned.results.retain_mut(|r| {
        let Some((_, to)) = map.iter().find(|(from, _)| *from == r.device) else {
            return false;
        };
        r.device_name = names.get(to.as_str()).copied().unwrap_or_default().into();
        r.device = to.clone();
        true
    });
    // The renamed results' devices are the current run's (a baseline must
    // list the device of each of its results).
    aligned.devices = current
        .devices
        .iter()
        .filter(|d| map.iter().any(|(_, to)| *to == d.id()))
        .cloned()
        .collect();
    bench::compare(&aligned, current)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::Change;
    use crate::report::fixtures;
    use rosetta_core::Api;

    #[test]
    fn the_same_gpu_under_another_index_is_compared() {
        // Machine a lists the H200 second; machine b first, and another GPU.
        let h200 = |i| fixtures::device(Api::Cuda, i, "NVIDIA H200", true, None, None);
        let l4 = |i| fixtures::device(Api::Cuda, i, "NVIDIA L4", true, None, None);
        let base = fixtures::bench("a", &[l4(0), h200(1)], 1.0);
        let cur = fixtures::bench("b", &[h200(0)], 2.0);
        assert_eq!(
            device_map(&base, &cur),
            [("cuda:1".to_string(), "cuda:0".to_string())]
        );
        // bench::compare finds the one H200 by name too; both name the
        // current run's device.
        assert_eq!(bench::compare(&base, &cur).unwrap().len(), 7);
        let c = compare_across(&base, &cur).unwrap();
        assert_eq!(c.len(), 7, "every workload of the H200");
        assert!(c
            .iter()
            .all(|x| x.device == "cuda:0" && x.change == Change::Faster));
        // Same id, other name: not the same device.
        let other = fixtures::bench("b", &[l4(1)], 2.0);
        assert!(compare_across(&cur, &other).unwrap().is_empty());
        // Two of a name on one side: ambiguous, left out.
        let twins = fixtures::bench("c", &[h200(0), h200(1)], 1.0);
        assert!(device_map(&twins, &fixtures::bench("d", &[h200(3)], 1.0)).is_empty());
        // A twin of a matched device is not set against its baseline too
        // (every result of `cuda:1` was compared with `cuda:0`'s and
        // called slower).
        let one = fixtures::bench("a", &[h200(0)], 1.0);
        let two = fixtures::bench("b", &[h200(0), h200(1)], 2.0);
        let c = compare_across(&one, &two).unwrap();
        assert_eq!(c.len(), 7);
        assert!(c.iter().all(|x| x.device == "cuda:0"));
        // Different APIs are never matched.
        let vk = fixtures::device(Api::Vulkan, 1, "NVIDIA H200", true, None, None);
        assert!(device_map(&cur, &fixtures::bench("e", &[vk], 1.0)).is_empty());
    }
}
