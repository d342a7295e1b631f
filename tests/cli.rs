//! The command-line contract scripts rely on (DESIGN.md): exit codes, one-line
//! errors, `.npy` in and out, JSON outputs, the report.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn rosetta(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rosetta"))
        .args(args)
        .env_remove("ROSETTA_REQUIRE")
        .output()
        .expect("rosetta runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A fresh scratch directory per test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rosetta-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn save_f32(p: &Path, shape: &[usize], data: &[f32]) {
    rosetta::npy::write(p, shape, &rosetta::npy::Values::F32(data.to_vec())).unwrap();
}

/// Exit code 2 and exactly one line on stderr, starting with `error:`.
fn assert_usage_error(out: &Output, mentions: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "expected one line, got: {err}");
    assert!(err.starts_with("error:"), "{err}");
    assert!(err.contains(mentions), "'{mentions}' not in: {err}");
}

#[test]
fn selector_naming_no_device_exits_2() {
    assert_usage_error(&rosetta(&["conform", "--backend", "metal"]), "unknown API");
    assert_usage_error(
        &rosetta(&["conform", "--backend", "cpu:7"]),
        "no device matches 'cpu:7'",
    );
    assert_usage_error(
        &rosetta(&["conform", "--backend", "cpu:no-such-name"]),
        "no device matches",
    );
}

#[test]
fn bad_arguments_exit_2() {
    let out = rosetta(&["bench", "--size", "huge"]);
    assert_eq!(out.status.code(), Some(2));
    let out = rosetta(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn run_matmul_writes_npy() {
    let dir = scratch("matmul");
    let (a, b, c) = (dir.join("a.npy"), dir.join("b.npy"), dir.join("c.npy"));
    save_f32(&a, &[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    save_f32(&b, &[3, 1], &[1.0, 0.5, -1.0]);
    let out = rosetta(&[
        "run",
        "matmul",
        "--backend",
        "cpu",
        path(&a),
        path(&b),
        "-o",
        path(&c),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let result = rosetta::npy::read(&c).unwrap();
    assert_eq!(result.shape, vec![2, 1]);
    assert_eq!(result.values, rosetta::npy::Values::F32(vec![-1.0, 0.5]));
}

#[test]
fn run_reduce_keeps_the_dtype() {
    let dir = scratch("reduce");
    let x = dir.join("x.npy");
    let out_path = dir.join("s.npy");
    rosetta::npy::write(&x, &[3], &rosetta::npy::Values::U32(vec![u32::MAX, 2, 5])).unwrap();
    let out = rosetta(&[
        "run",
        "reduce",
        "--backend",
        "cpu",
        path(&x),
        "-o",
        path(&out_path),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let result = rosetta::npy::read(&out_path).unwrap();
    assert_eq!(result.values, rosetta::npy::Values::U32(vec![6]));
    let printed = rosetta(&[
        "run",
        "reduce",
        "--reduce",
        "max",
        "--backend",
        "cpu",
        path(&x),
    ]);
    assert!(String::from_utf8_lossy(&printed.stdout).contains("4294967295"));
}

#[test]
fn bad_op_inputs_are_usage_errors() {
    let dir = scratch("bad-inputs");
    let (a, b, even, x) = (
        dir.join("a.npy"),
        dir.join("b.npy"),
        dir.join("even.npy"),
        dir.join("x.npy"),
    );
    save_f32(&a, &[2, 3], &[0.0; 6]);
    save_f32(&b, &[4, 2], &[0.0; 8]);
    save_f32(&even, &[2], &[1.0, 1.0]);
    save_f32(&x, &[0], &[]);
    assert_usage_error(
        &rosetta(&["run", "matmul", "--backend", "cpu", path(&a), path(&b)]),
        "inner dimensions",
    );
    assert_usage_error(
        &rosetta(&["run", "conv1d", "--backend", "cpu", path(&a), path(&even)]),
        "odd",
    );
    assert_usage_error(
        &rosetta(&[
            "run",
            "reduce",
            "--reduce",
            "min",
            "--backend",
            "cpu",
            path(&x),
        ]),
        "empty",
    );
    let v = dir.join("v.npy");
    rosetta::npy::write(&v, &[2], &rosetta::npy::Values::U32(vec![1, 2])).unwrap();
    assert_usage_error(
        &rosetta(&[
            "run",
            "histogram",
            "--bins",
            "0",
            "--backend",
            "cpu",
            path(&v),
        ]),
        "bins",
    );
}

#[test]
fn unreadable_or_mistyped_npy_exits_2() {
    let dir = scratch("npy");
    let garbage = dir.join("garbage.npy");
    std::fs::write(&garbage, b"definitely not numpy").unwrap();
    assert_usage_error(
        &rosetta(&["run", "reduce", "--backend", "cpu", path(&garbage)]),
        "garbage.npy",
    );
    let missing = dir.join("missing.npy");
    assert_usage_error(
        &rosetta(&["run", "reduce", "--backend", "cpu", path(&missing)]),
        "cannot open",
    );
    let ints = dir.join("ints.npy");
    rosetta::npy::write(&ints, &[2, 2], &rosetta::npy::Values::I32(vec![1, 2, 3, 4])).unwrap();
    assert_usage_error(
        &rosetta(&[
            "run",
            "matmul",
            "--backend",
            "cpu",
            path(&ints),
            path(&ints),
        ]),
        "must be float32",
    );
}

#[test]
fn devices_json_lists_the_cpu() {
    let out = rosetta(&["devices", "--json"]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let apis = json["apis"].as_array().unwrap();
    assert_eq!(apis.len(), 5, "every API is listed, compiled in or not");
    assert_eq!(apis[0]["api"], "cpu");
    assert_eq!(apis[0]["status"], "available");
    assert!(
        apis[0]["devices"][0]["caps"]["max_shared_bytes"]
            .as_u64()
            .unwrap()
            > 0
    );
}

#[test]
fn conform_json_passes_on_the_cpu() {
    let out = rosetta(&["conform", "--backend", "cpu", "--quick", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["passed"], true);
    assert!(json["cases"].as_array().unwrap().len() >= 60);
}

#[test]
fn bench_json_compare_and_html() {
    let dir = scratch("bench");
    let json = dir.join("bench.json");
    let html = dir.join("html");
    let out = rosetta(&[
        "bench",
        "--backend",
        "cpu",
        "--size",
        "small",
        "--op",
        "reduce",
        "--op",
        "matmul",
        "--json",
        path(&json),
        "--html",
        path(&html),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: rosetta::bench::BenchReport =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report.schema, rosetta::bench::SCHEMA);
    assert!(report.results.iter().any(|r| r.op == "copy"));
    assert!(report
        .results
        .iter()
        .any(|r| r.op == "matmul" && r.gflops.unwrap() > 0.0));
    assert!(report
        .results
        .iter()
        .all(|r| r.status == rosetta::bench::Status::Ok && r.samples >= 3));
    let page = std::fs::read_to_string(html.join("index.html")).unwrap();
    assert!(page.contains("<svg"), "the page has charts");
    let again = rosetta(&[
        "bench",
        "--backend",
        "cpu",
        "--size",
        "small",
        "--op",
        "reduce",
        "--compare",
        path(&json),
    ]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_usage_error(
        &rosetta(&[
            "bench",
            "--backend",
            "cpu",
            "--compare",
            path(&dir.join("nope.json")),
        ]),
        "baseline",
    );
}

#[test]
fn report_writes_html_and_json() {
    let dir = scratch("report");
    let out = rosetta(&["report", "--backend", "cpu", "--out", path(&dir)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    assert_eq!(json["schema"], rosetta::report::SCHEMA);
    assert_eq!(json["passed"], true);
    assert!(!json["bench"][0]["run"]["results"]
        .as_array()
        .unwrap()
        .is_empty());
    let page = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(page.contains("Conformance") && page.contains("<svg"));
}

/// `path` rewritten as if it came from machine `host`; `edit` changes more.
fn as_from(path: &Path, host: &str, to: &Path, edit: impl Fn(&mut serde_json::Value)) {
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    json["machine"]["host"] = host.into();
    edit(&mut json);
    std::fs::write(to, serde_json::to_string_pretty(&json).unwrap()).unwrap();
}

#[test]
fn report_merge_of_two_machines() {
    let dir = scratch("merge");
    let (a, b, c, d) = (
        dir.join("a.json"),
        dir.join("b.json"),
        dir.join("c.json"),
        dir.join("d.json"),
    );
    let out = rosetta(&[
        "conform",
        "--backend",
        "cpu",
        "--quick",
        "--case",
        "reduce",
        "--out",
        path(&a),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = rosetta(&[
        "bench",
        "--backend",
        "cpu",
        "--size",
        "small",
        "--op",
        "reduce",
        "--json",
        path(&c),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Machine "second-machine": one case fewer, and its CPU device listed as cpu:3.
    as_from(&a, "second-machine", &b, |json| {
        json["cases"].as_array_mut().unwrap().remove(0);
    });
    as_from(&c, "second-machine", &d, |json| {
        json["devices"][0]["index"] = 3.into();
        for r in json["results"].as_array_mut().unwrap() {
            r["device"] = "cpu:3".into();
        }
    });
    let report = dir.join("report");
    let out = rosetta(&[
        "report",
        "--merge",
        path(&a),
        path(&b),
        path(&c),
        path(&d),
        "--out",
        path(&report),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("2 machine(s)"), "{stdout}");
    let page = std::fs::read_to_string(report.join("index.html")).unwrap();
    let host_a: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&a).unwrap()).unwrap();
    let host_a = host_a["machine"]["host"].as_str().unwrap().to_string();
    assert!(
        page.contains(&format!("{host_a} cpu:0")),
        "machine a's column"
    );
    assert!(page.contains("second-machine cpu:0"), "machine b's column");
    assert!(
        page.contains("second-machine cpu:3"),
        "machine b's benchmark series"
    );
    assert!(
        page.contains("<td class=\"id\">cpu:0</td><td class=\"id\">cpu:3</td>"),
        "machine b's cpu:3 is compared with machine a's cpu:0 (same API and name)"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.join("results.json")).unwrap())
            .unwrap();
    assert_eq!(json["schema"], rosetta::report::SCHEMA);
    assert_eq!(json["machines"].as_array().unwrap().len(), 2);
    // The case machine b did not run is not run there, never passed.
    let dropped: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&a).unwrap()).unwrap();
    let name = dropped["cases"][0]["name"].as_str().unwrap();
    let columns = json["columns"].as_array().unwrap();
    let b_column = columns
        .iter()
        .position(|c| c["label"] == "second-machine cpu:0")
        .unwrap();
    let case = json["matrix"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap();
    assert_eq!(case["cells"][b_column]["status"], "not-run");
    // The merged file merges again.
    let again = dir.join("again");
    let out = rosetta(&[
        "report",
        "--merge",
        path(&report.join("results.json")),
        "--out",
        path(&again),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn report_merge_refuses_what_it_cannot_read() {
    let dir = scratch("merge-refuse");
    let out_dir = dir.join("out");
    let merge = |file: &Path| rosetta(&["report", "--merge", path(file), "--out", path(&out_dir)]);
    let cases = [
        ("notjson.json", "this is not JSON", "not JSON"),
        (
            "other.json",
            r#"{"name": "left-pad"}"#,
            "not a rosetta result",
        ),
        (
            "old.json",
            r#"{"schema": "rosetta-report/1"}"#,
            "rosetta-report/1",
        ),
        (
            "future.json",
            r#"{"schema": "rosetta-bench/9"}"#,
            "rosetta-bench/9",
        ),
        (
            "foreign.json",
            r#"{"schema": "other/1"}"#,
            "not a rosetta result",
        ),
    ];
    for (name, text, mentions) in cases {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        let out = merge(&file);
        assert_usage_error(&out, mentions);
        assert_usage_error(&out, name);
    }
    assert_usage_error(&merge(&dir.join("missing.json")), "missing.json");
    assert!(!out_dir.join("index.html").exists(), "nothing is written");
}
