//! One report from runs of one or several machines: machines told apart by
//! their identity, one column per device of each machine, columns grouped by
//! physical device, and the conformance matrix with cases matched by name.

use super::load::{self, Input, Sourced};
use super::model::{
    Absent, BenchRun, Cell, CellStatus, Column, ConformRun, MachineEntry, MatrixCase, Member,
    PhysicalDevice, Report, SCHEMA,
};
use super::physical::{self, normalize_name};
use crate::bench::BenchReport;
use crate::conform;
use crate::error::{Error, Result};
use crate::machine::Machine;
use rosetta_core::DeviceInfo;
use rosetta_kernels::op::CaseGroup;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// One report from result files (report, conformance or benchmark JSON, of
/// any machines). Errors name the file: not JSON, not a rosetta result, a
/// schema version this build does not read.
pub fn merge(paths: &[&Path]) -> Result<Report> {
    if paths.is_empty() {
        return Err(Error::Usage(
            "nothing to merge: no result files given".into(),
        ));
    }
    let mut all = Input::default();
    for path in paths {
        let input = load::read(path)?;
        all.machines.extend(input.machines);
        all.conformance.extend(input.conformance);
        all.bench.extend(input.bench);
    }
    Ok(build(all))
}

impl Report {
    /// The report of one run on this machine: its conformance and benchmark,
    /// and the APIs that found no device.
    pub fn new(absent: Vec<Absent>, conformance: conform::Report, bench: BenchReport) -> Self {
        build(Input {
            machines: vec![(conformance.machine.clone(), absent)],
            conformance: vec![Sourced {
                source: None,
                run: conformance,
            }],
            bench: vec![Sourced {
                source: None,
                run: bench,
            }],
        })
    }

    /// The report of a benchmark run alone (`rosetta bench --html`).
    pub fn from_bench(bench: BenchReport) -> Self {
        build(Input {
            machines: Vec::new(),
            conformance: Vec::new(),
            bench: vec![Sourced {
                source: None,
                run: bench,
            }],
        })
    }
}

/// A column before the columns are ordered by physical device.
struct Proto {
    machine: usize,
    device: String,
    name: String,
    generation: usize,
    info: DeviceInfo,
    conformance: Vec<usize>,
    bench: Vec<usize>,
}

/// Machines, in first-appearance order, identified by their whole identity.
#[derive(Default)]
struct Machines {
    entries: Vec<MachineEntry>,
}

impl Machines {
    fn index(&mut self, machine: &Machine) -> usize {
        if let Some(i) = self.entries.iter().position(|e| &e.machine == machine) {
            return i;
        }
        self.entries.push(MachineEntry {
            label: String::new(),
            machine: machine.clone(),
            absent: Vec::new(),
        });
        self.entries.len() - 1
    }

    /// Labels: the host name, `host #2` for a second machine of that name.
    fn labelled(mut self) -> Vec<MachineEntry> {
        let mut used = HashSet::new();
        for e in &mut self.entries {
            let host = match e.machine.host.trim() {
                "" => "unknown".to_string(),
                h => h.to_string(),
            };
            e.label = unique_label(&mut used, host);
        }
        self.entries
    }
}

/// `base`, or `base #2`, `#3`, … : the first not in `used` (which it joins).
/// Numbered by what is taken, not by how often `base` came: a host named
/// `vm #2` and two named `vm` gave two columns the label `vm #2`.
fn unique_label(used: &mut HashSet<String>, base: String) -> String {
    let mut label = base.clone();
    let mut n = 1;
    while used.contains(&label) {
        n += 1;
        label = format!("{base} #{n}");
    }
    used.insert(label.clone());
    label
}

/// The column of each of `devices` for one run on `machine`: the first
/// column of the same device (id and name) that `clashes` does not refuse,
/// else a new one (`#2`, `#3`, …).
fn place(
    protos: &mut Vec<Proto>,
    machine: usize,
    devices: &[DeviceInfo],
    clashes: impl Fn(&Proto) -> bool,
) -> Vec<usize> {
    let mut placed = Vec::with_capacity(devices.len());
    for info in devices {
        let (id, name) = (info.id(), normalize_name(&info.name));
        let same = |p: &Proto| p.machine == machine && p.device == id && p.name == name;
        let found = protos.iter().position(|p| same(p) && !clashes(p));
        let index = found.unwrap_or_else(|| {
            let generation = protos.iter().filter(|p| same(p)).count();
            protos.push(Proto {
                machine,
                device: id.clone(),
                name: name.clone(),
                generation,
                info: info.clone(),
                conformance: Vec::new(),
                bench: Vec::new(),
            });
            protos.len() - 1
        });
        placed.push(index);
    }
    placed
}

/// The (op, label) workloads of `device` in a benchmark run.
fn workloads<'a>(run: &'a BenchReport, device: &str) -> HashSet<(&'a str, &'a str)> {
    run.results
        .iter()
        .filter(|r| r.device == device)
        .map(|r| (r.op.as_str(), r.label.as_str()))
        .collect()
}

/// The report of these runs (see the module docs).
pub(crate) fn build(input: Input) -> Report {
    let mut machines = Machines::default();
    for (machine, absent) in input.machines {
        let i = machines.index(&machine);
        for a in absent {
            if !machines.entries[i].absent.contains(&a) {
                machines.entries[i].absent.push(a);
            }
        }
    }
    // A device's runs share its column unless they repeat a case (or a
    // workload): a repeated run of the suite is a column of its own.
    let mut protos: Vec<Proto> = Vec::new();
    let mut conformance: Vec<ConformRun> = Vec::with_capacity(input.conformance.len());
    let mut case_names: Vec<HashSet<String>> = Vec::new();
    for s in input.conformance {
        let machine = machines.index(&s.run.machine);
        let names: HashSet<String> = s.run.cases.iter().map(|c| c.name.clone()).collect();
        let clashes = |p: &Proto| {
            p.conformance
                .iter()
                .any(|&c| !case_names[c].is_disjoint(&names))
        };
        let ci = conformance.len();
        for p in place(&mut protos, machine, &s.run.devices, clashes) {
            protos[p].conformance.push(ci);
        }
        case_names.push(names);
        conformance.push(ConformRun {
            source: s.source,
            machine,
            run: s.run,
        });
    }
    let mut bench: Vec<BenchRun> = Vec::with_capacity(input.bench.len());
    for s in input.bench {
        let machine = machines.index(&s.run.machine);
        let clashes = |p: &Proto| {
            let mine = workloads(&s.run, &p.device);
            p.bench
                .iter()
                .any(|&b| !workloads(&bench[b].run, &p.device).is_disjoint(&mine))
        };
        let bi = bench.len();
        for p in place(&mut protos, machine, &s.run.devices, clashes) {
            protos[p].bench.push(bi);
        }
        bench.push(BenchRun {
            source: s.source,
            machine,
            run: s.run,
        });
    }
    let machines = machines.labelled();
    let several = machines.len() > 1;

    // Physical devices per machine; columns in their order.
    let mut order: Vec<usize> = Vec::with_capacity(protos.len());
    let mut groups: Vec<(usize, physical::Group)> = Vec::new();
    for (m, entry) in machines.iter().enumerate() {
        let devices: Vec<(usize, &DeviceInfo)> = protos
            .iter()
            .enumerate()
            .filter(|(_, p)| p.machine == m)
            .map(|(i, p)| (i, &p.info))
            .collect();
        for g in physical::group(&entry.machine.cpu, &devices) {
            order.extend(g.members.iter().map(|mem| mem.column));
            groups.push((m, g));
        }
    }
    let mut new_index = vec![0; protos.len()];
    for (position, &p) in order.iter().enumerate() {
        new_index[p] = position;
    }
    let mut physical_devices: Vec<PhysicalDevice> = Vec::with_capacity(groups.len());
    let mut physical_of = vec![0; protos.len()];
    let mut labels = HashSet::new();
    for (m, g) in groups {
        let base = if several {
            format!("{}: {}", machines[m].label, g.name)
        } else {
            g.name.clone()
        };
        let label = unique_label(&mut labels, base);
        let members: Vec<Member> = g
            .members
            .into_iter()
            .map(|mut mem| {
                physical_of[mem.column] = physical_devices.len();
                mem.column = new_index[mem.column];
                mem
            })
            .collect();
        physical_devices.push(PhysicalDevice {
            label,
            machine: m,
            name: g.name,
            key: g.key,
            members,
        });
    }
    let mut slots: Vec<Option<Proto>> = protos.into_iter().map(Some).collect();
    let mut column_labels = HashSet::new();
    let columns: Vec<Column> = order
        .iter()
        .filter_map(|&p| {
            let proto = slots.get_mut(p)?.take()?;
            let mut label = if several {
                format!("{} {}", machines[proto.machine].label, proto.device)
            } else {
                proto.device.clone()
            };
            if proto.generation > 0 {
                label.push_str(&format!(" #{}", proto.generation + 1));
            }
            // Host names are free text: `vm cpu:0` could meet another's.
            let label = unique_label(&mut column_labels, label);
            Some(Column {
                label,
                machine: proto.machine,
                device: proto.device,
                info: proto.info,
                physical: physical_of[p],
                conformance: proto.conformance,
                bench: proto.bench,
            })
        })
        .collect();

    let matrix = matrix(&conformance, &columns);
    // A run's own `passed` is not taken on trust: the rule is re-applied
    // (nothing missing, some device, no failed cell), so a file that says
    // `passed` over a missing API or no devices does not pass the merge.
    let passed = (!conformance.is_empty()).then(|| {
        conformance
            .iter()
            .all(|c| c.run.passed && c.run.missing.is_empty() && !c.run.devices.is_empty())
            && matrix
                .iter()
                .all(|c| c.cells.iter().all(|cell| cell.status != CellStatus::Failed))
    });
    Report {
        schema: SCHEMA.into(),
        rosetta_version: env!("CARGO_PKG_VERSION").into(),
        machines,
        columns,
        physical: physical_devices,
        conformance,
        bench,
        matrix,
        passed,
    }
}

fn not_run(detail: &str) -> Cell {
    Cell {
        status: CellStatus::NotRun,
        error_ratio: None,
        detail: detail.into(),
        seconds: None,
        counts: Default::default(),
    }
}

/// Every case of every run (by group, then in the order of the ops, then as
/// first seen) × every column.
fn matrix(runs: &[ConformRun], columns: &[Column]) -> Vec<MatrixCase> {
    let mut cases: Vec<(&str, &str, CaseGroup)> = Vec::new();
    let mut known: HashMap<&str, ()> = HashMap::new();
    let by_name: Vec<HashMap<&str, &conform::CaseReport>> = runs
        .iter()
        .map(|r| r.run.cases.iter().map(|c| (c.name.as_str(), c)).collect())
        .collect();
    for run in runs {
        for c in &run.run.cases {
            if known.insert(c.name.as_str(), ()).is_none() {
                cases.push((&c.name, &c.op, c.group));
            }
        }
    }
    let ops = rosetta_kernels::ops();
    let op_rank = |op: &str| ops.iter().position(|o| o.name() == op).unwrap_or(ops.len());
    cases.sort_by_key(|&(_, op, group)| (group, op_rank(op)));
    cases
        .into_iter()
        .map(|(name, op, group)| MatrixCase {
            name: name.to_string(),
            op: op.to_string(),
            group,
            cells: columns
                .iter()
                .map(|col| {
                    if col.conformance.is_empty() {
                        return not_run("no conformance run of this device");
                    }
                    let Some(case) = col
                        .conformance
                        .iter()
                        .find_map(|&ci| by_name.get(ci).and_then(|m| m.get(name)))
                    else {
                        return not_run("not in this device's conformance runs");
                    };
                    match case.results.iter().find(|o| o.device == col.device) {
                        None => not_run("its run has no result for this device"),
                        Some(o) => Cell {
                            status: o.status.into(),
                            error_ratio: o.error_ratio,
                            detail: o.detail.clone(),
                            seconds: Some(o.seconds),
                            counts: o.counts.clone(),
                        },
                    }
                })
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures::{self, CASES};
    use crate::report::model::Matched;
    use rosetta_core::Api;
    use std::path::PathBuf;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("rosetta-merge-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn save(dir: &Path, name: &str, value: &impl serde::Serialize) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, serde_json::to_string_pretty(value).unwrap()).unwrap();
        path
    }

    fn all_cases() -> Vec<&'static str> {
        CASES.iter().map(|c| c.0).collect()
    }

    /// Machine `gpu-a` with the H200 and CPU devices, all cases; machine
    /// `gpu-b` with the same kind of machine, but without the limits case.
    fn two_machines(dir: &Path) -> Vec<PathBuf> {
        let devices = fixtures::gpu_machine_devices();
        let mut fewer = all_cases();
        fewer.retain(|c| !c.contains("2^31"));
        vec![
            save(
                dir,
                "a-conform.json",
                &fixtures::conformance("gpu-a", &devices, &all_cases(), false),
            ),
            save(
                dir,
                "b-conform.json",
                &fixtures::conformance("gpu-b", &devices, &fewer, true),
            ),
            save(
                dir,
                "a-bench.json",
                &fixtures::bench("gpu-a", &devices, 1.0),
            ),
            save(
                dir,
                "b-bench.json",
                &fixtures::bench("gpu-b", &devices, 1.1),
            ),
        ]
    }

    fn refs(paths: &[PathBuf]) -> Vec<&Path> {
        paths.iter().map(PathBuf::as_path).collect()
    }

    /// Hosts `vm #2`, `vm`, `vm` were labelled `vm #2`, `vm`, `vm #2`: two
    /// machines' columns under one label.
    #[test]
    fn labels_are_unique_whatever_the_names() {
        let mut used = HashSet::new();
        let labels: Vec<String> = ["vm #2", "vm", "vm", "GPU", "GPU", "GPU #2"]
            .into_iter()
            .map(|base| unique_label(&mut used, base.to_string()))
            .collect();
        assert_eq!(
            labels,
            ["vm #2", "vm", "vm #3", "GPU", "GPU #2", "GPU #2 #2"]
        );
    }

    #[test]
    fn two_machines_conformance_and_bench() {
        let d = dir("two");
        let paths = two_machines(&d);
        let r = merge(&refs(&paths)).unwrap();
        assert_eq!(r.schema, SCHEMA);
        let labels: Vec<&str> = r.machines.iter().map(|m| m.label.as_str()).collect();
        assert_eq!(labels, ["gpu-a", "gpu-b"]);
        assert_eq!(r.columns.len(), 12, "six devices on each machine");
        assert!(r
            .columns
            .iter()
            .all(|c| c.conformance.len() == 1 && c.bench.len() == 1));
        assert_eq!(r.columns[0].label, "gpu-a cuda:0");
        assert!(r.columns.iter().any(|c| c.label == "gpu-b wgpu:0"));
        // Columns of one physical device are adjacent; each machine has its own.
        assert_eq!(r.physical.len(), 4, "an H200 and a CPU per machine");
        for p in &r.physical {
            let cols: Vec<usize> = p.members.iter().map(|m| m.column).collect();
            assert!(cols.windows(2).all(|w| w[1] == w[0] + 1), "{cols:?}");
            assert!(cols.iter().all(|&c| r.columns[c].machine == p.machine));
        }
        assert_eq!(r.physical[0].label, "gpu-a: NVIDIA H200");
        // Cases matched by name; the one machine b did not run is not run there.
        assert_eq!(r.matrix.len(), CASES.len());
        let limits = r.matrix.iter().find(|c| c.name.contains("2^31")).unwrap();
        for (i, col) in r.columns.iter().enumerate() {
            let status = limits.cells[i].status;
            match (
                r.machines[col.machine].label.as_str(),
                col.info.caps.device_type.is_cpu(),
            ) {
                ("gpu-b", _) => assert_eq!(status, CellStatus::NotRun, "{}", col.label),
                ("gpu-a", true) => assert_eq!(status, CellStatus::Skipped),
                _ => assert_eq!(status, CellStatus::Passed),
            }
        }
        // Groups order the matrix: ops, errors, limits, memory-model.
        let groups: Vec<CaseGroup> = r.matrix.iter().map(|c| c.group).collect();
        assert!(groups.windows(2).all(|w| w[0] <= w[1]));
        // b saw a forbidden outcome on vulkan, and wgpu fails a matmul.
        assert_eq!(r.passed, Some(false));
        let mp = r
            .matrix
            .iter()
            .find(|c| c.name.contains("mp workgroup"))
            .unwrap();
        let failed: Vec<&str> = mp
            .cells
            .iter()
            .enumerate()
            .filter(|(_, c)| c.status == CellStatus::Failed)
            .map(|(i, _)| r.columns[i].label.as_str())
            .collect();
        assert_eq!(failed, ["gpu-b vulkan:0", "gpu-b vulkan:1"]);
        assert_eq!(mp.cells[0].counts.get("weak"), Some(&0));
        // Benchmark results per column.
        let wgpu_b = r
            .columns
            .iter()
            .position(|c| c.label == "gpu-b wgpu:0")
            .unwrap();
        assert_eq!(r.results_of(wgpu_b).len(), 7);
        assert!(r.results_of(wgpu_b).iter().all(|x| x.device == "wgpu:0"));
        assert_eq!(r.machines().len(), 2);
    }

    #[test]
    fn the_merged_json_merges_again_to_the_same() {
        let d = dir("again");
        let paths = two_machines(&d);
        let first = merge(&refs(&paths)).unwrap();
        let merged = d.join("merged");
        first.write(&merged).unwrap();
        let again = merge(&[&merged.join("results.json")]).unwrap();
        assert_eq!(
            serde_json::to_value(&first.matrix).unwrap(),
            serde_json::to_value(&again.matrix).unwrap()
        );
        let labels = |r: &Report| {
            r.columns
                .iter()
                .map(|c| c.label.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(labels(&first), labels(&again));
        assert_eq!(first.physical.len(), again.physical.len());
        // Sources survive; results the report measured name the report.
        assert!(again.conformance[0]
            .source
            .as_deref()
            .unwrap()
            .ends_with("a-conform.json"));
        let page = std::fs::read_to_string(merged.join("index.html")).unwrap();
        assert!(page.contains("gpu-a") && page.contains("gpu-b"));
    }

    #[test]
    fn a_second_run_of_a_device_is_its_own_column() {
        let d = dir("twice");
        let devices = &fixtures::gpu_machine_devices()[4..];
        let run = fixtures::conformance("solo", devices, &all_cases(), false);
        let a = save(&d, "a.json", &run);
        let b = save(&d, "b.json", &run);
        let r = merge(&[&a, &b]).unwrap();
        let labels: Vec<&str> = r.columns.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["vulkan:1", "cpu:0", "vulkan:1 #2", "cpu:0 #2"]);
        assert_eq!(r.physical.len(), 1, "all on the host CPU");
        assert_eq!(r.passed, Some(true));
    }

    /// A run's `passed` is re-derived: one that says it passed over a
    /// missing required API, or with no devices at all, fails the merge.
    #[test]
    fn a_run_that_claims_to_pass_is_checked() {
        let d = dir("claims");
        let devices = &fixtures::gpu_machine_devices()[4..];
        let run = fixtures::conformance("solo", devices, &all_cases(), false);
        assert!(run.passed);
        let honest = save(&d, "honest.json", &run);
        assert_eq!(merge(&[&honest]).unwrap().passed, Some(true));
        let mut missing = run.clone();
        missing.missing = vec!["opencl".into()];
        let missing = save(&d, "missing.json", &missing);
        assert_eq!(merge(&[&missing]).unwrap().passed, Some(false));
        let mut empty = run;
        empty.devices.clear();
        empty.summary.clear();
        for case in &mut empty.cases {
            case.results.clear();
        }
        let empty = save(&d, "empty.json", &empty);
        assert_eq!(merge(&[&empty]).unwrap().passed, Some(false));
    }

    #[test]
    fn runs_of_other_cases_share_the_column() {
        let d = dir("split");
        let devices = &fixtures::gpu_machine_devices()[4..];
        let (ops, litmus): (Vec<&str>, Vec<&str>) = all_cases()
            .into_iter()
            .partition(|c| !c.starts_with("litmus"));
        let a = save(
            &d,
            "ops.json",
            &fixtures::conformance("solo", devices, &ops, false),
        );
        let b = save(
            &d,
            "litmus.json",
            &fixtures::conformance("solo", devices, &litmus, false),
        );
        let mut small = fixtures::bench("solo", devices, 1.0);
        small.results.retain(|r| r.op == "copy");
        let mut big = fixtures::bench("solo", devices, 1.0);
        big.results.retain(|r| r.op != "copy");
        let c = save(&d, "copy.json", &small);
        let e = save(&d, "rest.json", &big);
        let r = merge(&[&a, &b, &c, &e]).unwrap();
        let labels: Vec<&str> = r.columns.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["vulkan:1", "cpu:0"]);
        assert_eq!(r.columns[0].conformance, [0, 1]);
        assert_eq!(r.columns[0].bench, [0, 1]);
        assert_eq!(r.results_of(0).len(), 7);
        assert!(r
            .matrix
            .iter()
            .all(|c| c.cells.iter().all(|cell| cell.status != CellStatus::NotRun)));
        // The same workloads again: a column of their own.
        let r = merge(&[&a, &c, &c]).unwrap();
        assert_eq!(r.columns.len(), 4);
        assert_eq!(r.columns[2].label, "vulkan:1 #2");
        assert!(r.columns[2].conformance.is_empty());
        let cells = &r.matrix[0].cells;
        assert_eq!(cells[2].status, CellStatus::NotRun);
    }

    #[test]
    fn one_run_makes_a_one_machine_report() {
        let devices = fixtures::gpu_machine_devices();
        let r = Report::new(
            vec![Absent {
                api: "metal".into(),
                reason: "not an API rosetta speaks".into(),
            }],
            fixtures::conformance("here", &devices, &all_cases(), false),
            fixtures::bench("here", &devices, 1.0),
        );
        assert_eq!(r.machines.len(), 1);
        assert_eq!(r.machines[0].absent.len(), 1);
        assert_eq!(
            r.columns[0].label, "cuda:0",
            "one machine: no machine prefix"
        );
        assert!(r.conformance[0].source.is_none());
        let bench_only = Report::from_bench(fixtures::bench("here", &devices, 1.0));
        assert_eq!(bench_only.passed, None);
        assert!(bench_only.matrix.is_empty());
        assert!(bench_only.columns.iter().all(|c| c.bench == [0]));
    }

    #[test]
    fn physical_grouping_across_apis() {
        let devices = fixtures::gpu_machine_devices();
        let r = Report::from_bench(fixtures::bench("h", &devices, 1.0));
        let gpu = &r.physical[0];
        let how: Vec<(&str, Matched)> = gpu
            .members
            .iter()
            .map(|m| (r.columns[m.column].device.as_str(), m.matched))
            .collect();
        assert_eq!(
            how,
            [
                ("cuda:0", Matched::Pci),
                ("vulkan:0", Matched::Pci),
                ("opencl:1", Matched::Uuid),
                ("wgpu:0", Matched::Name)
            ]
        );
        assert_eq!(gpu.key.as_deref(), Some("pci:0000:1b:00.0"));
        assert_eq!(gpu.name, "NVIDIA H200");
        let cpu = &r.physical[1];
        assert_eq!(cpu.key.as_deref(), Some("host-cpu"));
        assert!(cpu.members.iter().all(|m| m.matched == Matched::Cpu));
        assert_eq!(r.member(3).map(|m| m.matched), Some(Matched::Name));
    }

    #[test]
    fn nothing_to_merge_is_a_usage_error() {
        assert!(merge(&[]).unwrap_err().is_usage());
        let e = merge(&[Path::new("/no/such/file.json")]).unwrap_err();
        assert!(
            e.is_usage() && e.to_string().contains("/no/such/file.json"),
            "{e}"
        );
        let _ = Api::Cpu;
    }
}
