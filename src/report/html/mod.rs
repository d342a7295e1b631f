//! The report as one self-contained HTML page: inline CSS and SVG, no
//! scripts, no network, no external files. Every text from a result file is
//! escaped.
//!
//! The page: machines and what each contributed; devices grouped by physical
//! device, with capabilities; conformance (by group, by op, memory model,
//! the matrix, failures) when there are conformance runs; the benchmark
//! (charts, each physical device through its APIs, runs compared, every
//! result) when there are benchmark runs.

mod bench;
mod conformance;
mod devices;
mod text;

use super::model::Report;

/// The page of `report`.
pub fn page(report: &Report) -> String {
    let title = if report.conformance.is_empty() {
        "rosetta benchmark"
    } else {
        "rosetta report"
    };
    let mut html = text::head(title);
    html.push_str(&devices::header(report, title));
    html.push_str(
        "<nav><a href=\"#devices\">Devices</a><a href=\"#physical\">Physical devices</a>",
    );
    if !report.conformance.is_empty() {
        html.push_str("<a href=\"#conformance\">Conformance</a>");
        if report
            .matrix
            .iter()
            .any(|c| c.group == rosetta_kernels::op::CaseGroup::MemoryModel)
        {
            html.push_str("<a href=\"#memory-model\">Memory model</a>");
        }
    }
    if !report.bench.is_empty() {
        html.push_str("<a href=\"#benchmark\">Benchmark</a><a href=\"#results\">Every result</a>");
    }
    html.push_str("</nav>");
    html.push_str(&devices::section(report));
    if !report.conformance.is_empty() {
        html.push_str(&conformance::section(report));
    }
    if !report.bench.is_empty() {
        html.push_str(&bench::section(report));
    }
    html.push_str(text::TAIL);
    html
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::Status;
    use crate::report::fixtures::{self, CASES};
    use crate::report::model::Absent;

    fn sample() -> Report {
        let devices = fixtures::gpu_machine_devices();
        let all: Vec<&str> = CASES.iter().map(|c| c.0).collect();
        let some: Vec<&str> = all
            .iter()
            .copied()
            .filter(|c| !c.contains("2^31"))
            .collect();
        let mut a = Report::new(
            vec![Absent {
                api: "metal".into(),
                reason: "not an API <rosetta> speaks".into(),
            }],
            fixtures::conformance("gpu-a", &devices, &all, false),
            fixtures::bench("gpu-a", &devices, 1.0),
        );
        let b = Report::new(
            Vec::new(),
            fixtures::conformance("gpu-b", &devices, &some, true),
            fixtures::bench("gpu-b", &devices, 1.3),
        );
        let mut input = crate::report::load::Input::default();
        for r in [&mut a, &mut b.clone()] {
            for m in &r.machines {
                input.machines.push((m.machine.clone(), m.absent.clone()));
            }
            for c in r.conformance.drain(..) {
                input.conformance.push(crate::report::load::Sourced {
                    source: Some("a <b>.json".into()),
                    run: c.run,
                });
            }
            for c in r.bench.drain(..) {
                input.bench.push(crate::report::load::Sourced {
                    source: None,
                    run: c.run,
                });
            }
        }
        crate::report::merge::build(input)
    }

    #[test]
    fn the_merged_sample_renders_everything() {
        let report = sample();
        let html = page(&report);
        assert!(!html.contains("<script"));
        for text in [
            "gpu-a",
            "gpu-b",
            "Physical devices",
            "pci:0000:1b:00.0",
            "UUID",
            "no id from wgpu",
            "By group",
            "memory-model",
            "forbidden: 0 / 235520",
            "✗ FORBIDDEN seen: 3 / 235520",
            "allowed: 490 / 235520",
            "not run",
            "skipped",
            "unsupported",
            "✗ FAIL",
            "tile64x64 (tuned)",
            "Each physical device through its APIs",
            "Runs compared",
            "not an API &lt;rosetta&gt; speaks",
            "a &lt;b&gt;.json",
            "median time (lower is better)",
            "error: workgroup storage exceeds",
        ] {
            assert!(html.contains(text), "'{text}' is missing");
        }
        assert!(!html.contains("<rosetta>") && !html.contains("<b>.json"));
        // Every litmus cell with counts shows them (OpenCL's verdicts carry a prefix).
        let start = html.find("id=\"memory-model\"").unwrap();
        let litmus = &html[start..start + html[start..].find("<h3 id=\"cases-").unwrap()];
        assert!(!litmus.contains("✓"), "{litmus}");
        assert_eq!(
            litmus.matches("allowed: 490 / 235520").count(),
            10,
            "every column but the wgpu ones"
        );
        if let Ok(dir) = std::env::var("ROSETTA_SAMPLE_REPORT") {
            report.write(std::path::Path::new(&dir)).unwrap();
        }
    }

    #[test]
    fn empty_and_bench_only_reports_render() {
        let empty = crate::report::merge::build(Default::default());
        let html = page(&empty);
        assert!(html.contains("No device was found"));
        assert!(!html.contains("Conformance"));
        let devices = fixtures::gpu_machine_devices();
        let mut bench = fixtures::bench("solo", &devices, 1.0);
        bench.results.truncate(3);
        let html = page(&Report::from_bench(bench));
        assert!(html.contains("rosetta benchmark") && html.contains("<svg"));
        assert!(!html.contains("id=\"conformance\""));
        let mut no_results = fixtures::bench("solo", &devices, 1.0);
        no_results.results.clear();
        assert!(page(&Report::from_bench(no_results)).contains("No benchmark results"));
    }

    #[test]
    fn odd_numbers_do_not_panic() {
        let devices = fixtures::gpu_machine_devices();
        let mut bench = fixtures::bench("odd", &devices, 1.0);
        let odd = [f64::NAN, f64::INFINITY, -1.0, 0.0, 1e-300, 1e300, f64::MAX];
        for (i, r) in bench.results.iter_mut().enumerate() {
            let v = odd[i % odd.len()];
            r.gbps = Some(v);
            r.gflops = Some(v);
            r.copy_fraction = Some(v);
            if let Some(t) = &mut r.device_time {
                t.median_s = v;
                t.spread = v;
            }
            r.elements = [0, 1, u64::MAX][i % 3];
            if i % 5 == 0 {
                r.status = Status::Wrong;
            }
        }
        let mut conf = fixtures::conformance("odd", &devices, &[CASES[0].0, CASES[4].0], false);
        for c in &mut conf.cases {
            for o in &mut c.results {
                o.error_ratio = Some(f64::NAN);
                o.seconds = f64::INFINITY;
                o.counts.insert("total".into(), 0);
                o.detail = "forbidden\n<x>".into();
            }
        }
        let report = Report::new(Vec::new(), conf, bench);
        let html = page(&report);
        assert!(html.contains("<svg") && html.ends_with("</html>\n"));
    }
}
