//! The command-line contract scripts rely on (README.md, "Command line"): exit codes, one-line
//! errors, `.npy` in and out, JSON outputs, the report.

use rosetta::npy::{Array, ArrayData};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The binary with `args`, under the default log filter (no `RUST_LOG`).
fn rosetta(args: &[&str]) -> Output {
    rosetta_with_env(args, &[])
}

/// The same with these environment variables set (arguments as strings,
/// or as file names that need not be UTF-8).
fn rosetta_with_env<S: AsRef<std::ffi::OsStr>>(args: &[S], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rosetta"))
        .args(args)
        .env_remove("ROSETTA_REQUIRE")
        .env_remove("RUST_LOG")
        .envs(env.iter().copied())
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

fn save(p: &Path, shape: &[usize], data: ArrayData) {
    rosetta::npy::write(p, &Array::new(shape.to_vec(), data).unwrap()).unwrap();
}

fn save_f32(p: &Path, shape: &[usize], data: &[f32]) {
    save(p, shape, ArrayData::F32(data.to_vec()));
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
fn a_case_filter_that_matches_nothing_is_a_usage_error() {
    let out = rosetta(&["conform", "--backend", "cpu", "--case", "no such case"]);
    assert_usage_error(&out, "no case matches [\"no such case\"] in any group");
    let out = rosetta(&[
        "conform",
        "--backend",
        "cpu",
        "--group",
        "limits",
        "--case",
        "no such case",
    ]);
    assert_usage_error(&out, "in groups [\"limits\"]");
}

/// `--group` and `--case` match whatever their case, as `--op` does
/// (`--group LIMITS` was an unknown group, `--case CONV1D` matched nothing).
#[test]
fn group_and_case_filters_ignore_case() {
    let out = rosetta(&[
        "conform",
        "--backend",
        "cpu",
        "--quick",
        "--group",
        "OPS",
        "--case",
        "CONV1D N=1 ",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cases = json["cases"].as_array().unwrap();
    assert!(!cases.is_empty());
    for case in cases {
        let name = case["name"].as_str().unwrap();
        assert!(name.starts_with("conv1d n=1 "), "{name}");
    }
}

/// The random group: `--seed` draws the same cases every time and other
/// cases under another seed, `--random-cases` sets how many per op, and
/// both are refused beside a `--group` that leaves the group out.
#[test]
fn random_cases_follow_their_seed() {
    let names = |seed: &str| -> Vec<String> {
        let out = rosetta(&[
            "conform",
            "--backend",
            "cpu",
            "--group",
            "random",
            "--seed",
            seed,
            "--random-cases",
            "2",
            "--json",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let cases = json["cases"].as_array().unwrap();
        for case in cases {
            assert_eq!(case["group"], "random", "{case}");
            assert_ne!(case["results"][0]["status"], "failed", "{case}");
        }
        // A variant the CPU backend lacks is unsupported, never passed; most
        // draws run.
        let passed = cases
            .iter()
            .filter(|c| c["results"][0]["status"] == "passed")
            .count();
        assert!(passed * 2 >= cases.len(), "{passed} of {}", cases.len());
        cases
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect()
    };
    let first = names("17");
    let ops = rosetta::kernels::ops();
    assert_eq!(first.len(), 2 * ops.len(), "{first:?}");
    for op in ops {
        for i in 0..2 {
            let prefix = format!("random {} #{i} (seed 17): ", op.name());
            assert!(first.iter().any(|n| n.starts_with(&prefix)), "{prefix}");
        }
    }
    assert_eq!(names("17"), first);
    let other = names("18");
    assert_ne!(
        other
            .iter()
            .map(|n| n.split_once(": ").unwrap().1)
            .collect::<Vec<_>>(),
        first
            .iter()
            .map(|n| n.split_once(": ").unwrap().1)
            .collect::<Vec<_>>()
    );
    assert_usage_error(
        &rosetta(&[
            "conform",
            "--backend",
            "cpu",
            "--group",
            "ops",
            "--seed",
            "3",
        ]),
        "--group leaves it out",
    );
    assert_usage_error(
        &rosetta(&["conform", "--backend", "cpu", "--random-cases", "1000001"]),
        "more than 1000000",
    );
    assert_usage_error(
        &rosetta(&[
            "conform",
            "--backend",
            "cpu",
            "--group",
            "random",
            "--random-cases",
            "0",
        ]),
        "no case in groups [\"random\"] (--random-cases 0)",
    );
    assert_usage_error(
        &rosetta(&["conform", "--backend", "cpu", "--group", "chaos"]),
        "(groups: ops, errors, limits, memory-model, random)",
    );
}

/// `report --merge` runs nothing, so the options of a run are refused
/// beside it rather than ignored.
#[test]
fn merge_refuses_the_options_of_a_run() {
    for extra in [
        &["--backend", "cpu"][..],
        &["--size", "large"][..],
        &["--full"][..],
    ] {
        let mut args = vec!["report", "--merge", "a.json"];
        args.extend_from_slice(extra);
        let out = rosetta(&args);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", stderr(&out));
        assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    }
}

/// Host names come from the files merged: their control characters reach
/// the terminal escaped (an escape sequence and a newline were printed raw).
#[test]
fn merged_host_names_are_printed_escaped() {
    let dir = scratch("merge-host");
    let out = rosetta(&["conform", "--backend", "cpu", "--group", "errors", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut run: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    run["machine"]["host"] = "red\u{1b}[31m\nhost".into();
    let file = dir.join("c.json");
    std::fs::write(&file, run.to_string()).unwrap();
    let out = rosetta(&[
        "report",
        "--merge",
        path(&file),
        "--out",
        path(&dir.join("r")),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.contains("red\\u{1b}[31m\\nhost"), "{printed}");
    assert!(!printed.contains('\u{1b}'), "{printed}");
}

/// A pool limit that is not a number is said, once, and the run goes on.
#[test]
fn a_pool_limit_that_is_not_a_number_is_warned_about() {
    let x = scratch("pool-bytes").join("x.npy");
    save_f32(&x, &[3], &[1.0, 2.0, 3.0]);
    let out = rosetta_with_env(
        &["run", "reduce", "--backend", "cpu", path(&x)],
        &[("ROSETTA_POOL_BYTES", "lots")],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.matches("ROSETTA_POOL_BYTES").count(), 1, "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains('6'));
    // Empty is the default, as for the other variables: no warning.
    let out = rosetta_with_env(
        &["run", "reduce", "--backend", "cpu", path(&x)],
        &[("ROSETTA_POOL_BYTES", " ")],
    );
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{}",
        stderr(&out)
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
    assert_eq!(result.data, ArrayData::F32(vec![-1.0, 0.5]));
}

#[test]
fn run_reduce_keeps_the_dtype() {
    let dir = scratch("reduce");
    let x = dir.join("x.npy");
    let out_path = dir.join("s.npy");
    save(&x, &[3], ArrayData::U32(vec![u32::MAX, 2, 5]));
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
    assert_eq!(result.data, ArrayData::U32(vec![6]));
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
    let out = rosetta(&["run", "matmul", "--backend", "cpu", path(&a), path(&b)]);
    assert_usage_error(&out, "inner dimensions");
    // Both inputs the message names are named by their files, after it
    // (the file name once went inside the first word holding an `A`, and
    // B's file was never named).
    let err = stderr(&out);
    assert!(
        err.trim_end()
            .ends_with(&format!("(A: {}, B: {})", path(&a), path(&b))),
        "{err}"
    );
    assert_usage_error(
        &rosetta(&[
            "run",
            "conv1d",
            "--backend",
            "cpu",
            path(&even),
            path(&even),
        ]),
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
    save(&v, &[2], ArrayData::U32(vec![1, 2]));
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
    // An element type an op does not take is named, with the file.
    let bytes = dir.join("bytes.npy");
    save(&bytes, &[3], ArrayData::U8(vec![1, 2, 3]));
    let ints = dir.join("ints.npy");
    save(&ints, &[2], ArrayData::I32(vec![1, 2]));
    for (op, input, got) in [
        (&["reduce"][..], &bytes, "uint8"),
        (&["scan"], &bytes, "uint8"),
        (&["copy"], &bytes, "uint8"),
        (&["histogram", "--bins", "4"], &ints, "int32"),
    ] {
        let mut args = vec!["run"];
        args.extend(op);
        args.extend(["--backend", "cpu", path(input)]);
        let out = rosetta(&args);
        assert_usage_error(&out, &format!("got {got}"));
        assert!(stderr(&out).contains(path(input)), "{}", stderr(&out));
    }
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
    save(&ints, &[2, 2], ArrayData::I32(vec![1, 2, 3, 4]));
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
    // A newline in a file name is shown escaped: the one line keeps the
    // reason (it held only the name's first part), for an input and an
    // output alike, and the name's second line cannot pass for a line of
    // rosetta's own.
    let odd = dir.join("two\nlines.npy");
    assert_usage_error(
        &rosetta(&["run", "reduce", "--backend", "cpu", path(&odd)]),
        "two\\nlines.npy: cannot open",
    );
    save_f32(&odd, &[2], &[1.0, 2.0]);
    assert_usage_error(
        &rosetta(&["run", "matmul", "--backend", "cpu", path(&odd), path(&odd)]),
        "two\\nlines.npy",
    );
    let out = dir.join("no\tfolder\nhere/x.npy");
    assert_failure(
        &rosetta(&[
            "run",
            "reduce",
            "--backend",
            "cpu",
            path(&odd),
            "-o",
            path(&out),
        ]),
        "no\\tfolder\\nhere does not exist",
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
    // The small CPU sum, with what each run adds.
    let bench = |extra: &[&str]| {
        let mut args = vec![
            "bench",
            "--backend",
            "cpu",
            "--size",
            "small",
            "--op",
            "reduce",
        ];
        args.extend_from_slice(extra);
        rosetta(&args)
    };
    let out = bench(&[
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
    // The roofline and the launch floor run whatever the ops; the sums'
    // share of copy bandwidth is the roofline's, not the floor's.
    let copy = |metric| {
        report
            .results
            .iter()
            .find(|r| r.op == "copy" && r.metric == metric)
            .unwrap_or_else(|| panic!("no copy workload of metric {metric:?}"))
    };
    let roofline = copy(rosetta_kernels::op::Metric::Bandwidth);
    let floor = copy(rosetta_kernels::op::Metric::Time);
    assert_eq!((roofline.elements, floor.elements), (1 << 20, 1));
    let sum = report.results.iter().find(|r| r.op == "reduce").unwrap();
    let expected = sum.gbps.unwrap() / roofline.gbps.unwrap();
    assert!((sum.copy_fraction.unwrap() - expected).abs() <= 1e-9 * expected);
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
    // Every file written is announced.
    for file in [
        json.clone(),
        html.join("index.html"),
        html.join("results.json"),
    ] {
        assert!(file.exists(), "{}", file.display());
        let line = format!("wrote {}", file.display());
        assert!(
            stderr(&out).contains(&line),
            "no '{line}' in {}",
            stderr(&out)
        );
    }
    let compare_with = |baseline: &Path| bench(&["--compare", path(baseline)]);
    let again = compare_with(&json);
    assert!(again.status.success(), "{}", stderr(&again));
    let printed = String::from_utf8_lossy(&again.stdout).into_owned();
    assert!(
        printed.contains(&format!(" results with {}: ", path(&json))),
        "{printed}"
    );
    // A baseline of another device compares nothing, and says so (it
    // printed nothing at all).
    let mut other: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    other["devices"][0]["index"] = 9.into();
    other["devices"][0]["name"] = "another machine's cpu".into();
    for result in other["results"].as_array_mut().unwrap() {
        result["device"] = "cpu:9".into();
        result["device_name"] = "another machine's cpu".into();
    }
    let elsewhere = dir.join("elsewhere.json");
    std::fs::write(&elsewhere, serde_json::to_vec(&other).unwrap()).unwrap();
    let out = compare_with(&elsewhere);
    assert!(out.status.success(), "{}", stderr(&out));
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(printed.contains("compared nothing"), "{printed}");
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
    // A required API the run does not select is not missing (as in
    // `conform`): the report failed over cuda, never probed.
    let out = rosetta_with_env(
        &["report", "--backend", "cpu", "--out", path(&dir)],
        &[("ROSETTA_REQUIRE", "cpu,cuda")],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // The devices and the files are the report's output (stdout); stderr
    // has nothing but `wrote` lines and warnings on a successful run.
    let noise = stderr(&out);
    assert!(
        noise.lines().all(|l| l.starts_with("wrote ")),
        "stderr: {noise}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("device cpu:0"));
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

// ---------------------------------------------------------------------------
// Output that cannot be written, output files, parser errors, lying inputs.

/// Run with stdout sent to `stdout` (stderr captured).
fn rosetta_with_stdout(args: &[&str], stdout: std::process::Stdio) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rosetta"))
        .args(args)
        .env_remove("ROSETTA_REQUIRE")
        .stdout(stdout)
        .output()
        .expect("rosetta runs")
}

/// A pipe whose reading end is already closed: every write gets EPIPE.
fn closed_pipe() -> std::process::Stdio {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    writer.into()
}

/// `/dev/full`: every write gets ENOSPC.
fn dev_full() -> std::process::Stdio {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap()
        .into()
}

/// A raw `.npy` v1.0 file, written byte by byte (so a test can make it lie).
fn raw_npy(p: &Path, descr: &str, fortran: bool, shape: &str, data: &[u8]) {
    let fortran = if fortran { "True" } else { "False" };
    let mut header =
        format!("{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape}, }}");
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(data);
    std::fs::write(p, bytes).unwrap();
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Every subcommand, with work small enough to be quick.
fn each_subcommand(dir: &Path) -> Vec<Vec<String>> {
    let x = dir.join("x.npy");
    raw_npy(&x, "<f4", false, "(3,)", &f32_bytes(&[1.0, 2.0, 3.0]));
    let strs = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        strs(&["devices"]),
        strs(&["devices", "--json"]),
        strs(&[
            "conform",
            "--backend",
            "cpu",
            "--quick",
            "--case",
            "conv1d n=1 ",
        ]),
        strs(&[
            "conform",
            "--backend",
            "cpu",
            "--quick",
            "--json",
            "--case",
            "conv1d n=1 ",
        ]),
        strs(&["run", "reduce", "--backend", "cpu", path(&x)]),
        strs(&[
            "bench",
            "--backend",
            "cpu",
            "--size",
            "small",
            "--op",
            "reduce",
        ]),
        strs(&[
            "report",
            "--backend",
            "cpu",
            "--out",
            path(&dir.join("report")),
        ]),
        strs(&["--help"]),
        strs(&["--version"]),
        strs(&["bench", "--help"]),
    ]
}

#[test]
fn closed_stdout_exits_141_quietly() {
    let dir = scratch("closed-stdout");
    for args in each_subcommand(&dir) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = rosetta_with_stdout(&args, closed_pipe());
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(141), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(
            !err.contains("error"),
            "{args:?}: quiet on EPIPE, got {err}"
        );
    }
}

#[test]
fn full_stdout_is_one_error_line_and_exit_1() {
    let dir = scratch("full-stdout");
    for args in each_subcommand(&dir) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = rosetta_with_stdout(&args, dev_full());
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error")).collect();
        assert_eq!(
            errors,
            ["error: writing to stdout: No space left on device (os error 28)"],
            "{args:?}: {err}"
        );
    }
}

#[test]
fn failed_output_write_keeps_the_old_file() {
    let dir = scratch("keep-old");
    let (a, b, c) = (dir.join("a.npy"), dir.join("b.npy"), dir.join("c.npy"));
    raw_npy(&a, "<f4", false, "(64, 64)", &f32_bytes(&[1.0; 64 * 64]));
    raw_npy(&b, "<f4", false, "(64, 64)", &f32_bytes(&[0.5; 64 * 64]));
    raw_npy(&c, "<f4", false, "(2,)", &f32_bytes(&[7.0, 8.0]));
    let old = std::fs::read(&c).unwrap();
    // A file-size limit of 8 blocks (4 or 8 KiB) makes the 16 KiB result fail
    // part-way; SIGXFSZ is ignored so that the write returns EFBIG.
    let out = Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 8; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_rosetta"))
        .args([
            "run",
            "matmul",
            "--backend",
            "cpu",
            path(&a),
            path(&b),
            "-o",
            path(&c),
        ])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error:") && err.contains(path(&c)), "{err}");
    assert_eq!(std::fs::read(&c).unwrap(), old, "the old file is intact");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["a.npy", "b.npy", "c.npy"],
        "no temporary file is left"
    );
    // The same for bench --json (its JSON is several KiB).
    let json = dir.join("bench.json");
    std::fs::write(&json, b"{\"old\": true}").unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 2; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_rosetta"))
        .args([
            "bench",
            "--backend",
            "cpu",
            "--size",
            "small",
            "--op",
            "reduce",
        ])
        .args(["--json", path(&json)])
        .output()
        .unwrap();
    assert_failure(&out, path(&json));
    assert_eq!(std::fs::read(&json).unwrap(), b"{\"old\": true}");
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        4,
        "no temporary file is left"
    );
}

/// Exit code 1 and exactly one line on stderr that names `mentions`.
fn assert_failure(out: &Output, mentions: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "expected one line, got: {err}");
    assert!(err.starts_with("error:"), "{err}");
    assert!(err.contains(mentions), "'{mentions}' not in: {err}");
    for what in [
        "cannot write",
        "write failed",
        "cannot replace",
        "does not exist",
    ] {
        assert!(err.matches(what).count() <= 1, "the reason twice: {err}");
    }
}

/// `-o /dev/stdout` is written in place: a closed pipe ends the process as
/// a closed stdout does (exit 141, nothing on stderr), a full device with
/// one line that names the path and the reason once.
#[test]
fn output_to_dev_stdout_fails_as_stdout_does() {
    let dir = scratch("dev-stdout");
    let x = dir.join("x.npy");
    save_f32(&x, &[1 << 18], &vec![1.0; 1 << 18]);
    let args = [
        "run",
        "copy",
        "--backend",
        "cpu",
        path(&x),
        "-o",
        "/dev/stdout",
    ];
    let out = rosetta_with_stdout(&args, closed_pipe());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(141), "{err}");
    assert!(err.is_empty(), "quiet on EPIPE, got {err}");
    let out = rosetta_with_stdout(&args, dev_full());
    assert_failure(&out, "/dev/stdout: write failed: No space left on device");
}

/// `-o /dev/stdout` (and `/dev/fd/1`, `/proc/self/fd/1`, `/dev/stderr`)
/// where the stream is a regular file writes through the stream, as a
/// shell's redirection does: what the parent wrote before and after stays.
/// Replacing the file behind the link lost both, with exit 0.
#[test]
fn output_to_a_stream_holding_a_file_keeps_what_surrounds_it() {
    use std::io::Write;
    let dir = scratch("stream-file");
    let x = dir.join("x.npy");
    save_f32(&x, &[3], &[1.0, -2.5, 3.0]);
    let plain = dir.join("plain.npy");
    let x = path(&x);
    let run = |out: &'static str| ["run", "copy", "--backend", "cpu", x, "-o", out];
    let made = rosetta(&["run", "copy", "--backend", "cpu", x, "-o", path(&plain)]);
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    let array = std::fs::read(&plain).unwrap();

    let combined = dir.join("combined.txt");
    let mut file = std::fs::File::create(&combined).unwrap();
    file.write_all(b"HEADER\n").unwrap();
    for target in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
        let out = rosetta_with_stdout(&run(target), file.try_clone().unwrap().into());
        assert_eq!(out.status.code(), Some(0), "{target}: {}", stderr(&out));
        assert!(out.stderr.is_empty(), "{target}: {}", stderr(&out));
    }
    file.write_all(b"FOOTER\n").unwrap();
    drop(file);
    let mut expected = b"HEADER\n".to_vec();
    for _ in 0..3 {
        expected.extend_from_slice(&array);
    }
    expected.extend_from_slice(b"FOOTER\n");
    assert!(std::fs::read(&combined).unwrap() == expected);

    let errors = dir.join("errors.txt");
    let out = Command::new(env!("CARGO_BIN_EXE_rosetta"))
        .args(run("/dev/stderr"))
        .env_remove("ROSETTA_REQUIRE")
        .stderr(std::fs::File::create(&errors).unwrap())
        .output()
        .expect("rosetta runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(std::fs::read(&errors).unwrap() == array);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unwritable_output_paths_fail_before_any_work() {
    let dir = scratch("unwritable");
    let file = dir.join("plain-file");
    std::fs::write(&file, b"not a folder").unwrap();
    let x = dir.join("x.npy");
    raw_npy(&x, "<f4", false, "(3,)", &f32_bytes(&[1.0, 2.0, 3.0]));
    let under_file = file.join("x.json");
    let trailing_new = format!("{}/", path(&dir.join("new.json")));
    let trailing_x = format!("{}/", path(&x));
    for (args, mentions) in [
        (
            vec!["bench", "--json", "/nonexistent/dir/x.json"],
            "/nonexistent/dir/x.json",
        ),
        (
            vec!["bench", "--json", path(&under_file)],
            path(&under_file),
        ),
        (vec!["bench", "--json", path(&dir)], path(&dir)),
        // A name ending in a separator is a folder's, whether or not a file
        // of that name exists.
        (
            vec!["bench", "--json", &trailing_new],
            trailing_new.as_str(),
        ),
        (
            vec![
                "run",
                "reduce",
                "--backend",
                "cpu",
                path(&x),
                "-o",
                &trailing_x,
            ],
            trailing_x.as_str(),
        ),
        (
            vec!["bench", "--html", path(&file.join("html"))],
            path(&file.join("html")),
        ),
        (vec!["bench", "--html", path(&file)], path(&file)),
        (
            vec!["report", "--backend", "cpu", "--out", path(&file.join("r"))],
            path(&file.join("r")),
        ),
        (
            vec![
                "run",
                "reduce",
                "--backend",
                "cpu",
                path(&x),
                "-o",
                path(&under_file),
            ],
            path(&under_file),
        ),
        (
            vec![
                "run",
                "reduce",
                "--backend",
                "cpu",
                path(&x),
                "-o",
                path(&dir),
            ],
            path(&dir),
        ),
    ] {
        // Checked before any work (a benchmark takes seconds).
        let started = std::time::Instant::now();
        assert_failure(&rosetta(&args), mentions);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(1),
            "{args:?} took {:?}",
            started.elapsed()
        );
    }
    assert!(!file.join("html").exists() && std::fs::read(&file).unwrap() == b"not a folder");
}

#[test]
fn parser_errors_are_one_line_and_exit_2() {
    for (args, mentions) in [
        (vec!["bench", "--bogus"], "unexpected argument '--bogus'"),
        (vec!["--bogus"], "unexpected argument '--bogus'"),
        (vec!["bench", "--size"], "--size"),
        (vec!["bench", "--size", "huge"], "huge"),
        (vec!["frobnicate"], "frobnicate"),
        (vec!["run", "reduce"], "--backend"),
        (vec!["run", "matmul", "--backend"], "--backend"),
        (vec!["run", "blur", "--backend", "cpu", "x.npy"], "blur"),
        (
            vec![
                "run",
                "histogram",
                "--bins",
                "x",
                "--backend",
                "cpu",
                "v.npy",
            ],
            "--bins",
        ),
        (vec!["devices", "extra"], "extra"),
    ] {
        let out = rosetta(&args);
        assert_usage_error(&out, mentions);
        assert!(stderr(&out).contains("--help"), "{}", stderr(&out));
        assert!(out.stdout.is_empty());
    }
    for args in [
        vec!["--help"],
        vec!["-h"],
        vec!["bench", "--help"],
        vec!["help", "run"],
        vec!["--version"],
    ] {
        let out = rosetta(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert!(out.stderr.is_empty(), "{args:?}: {}", stderr(&out));
        assert!(!out.stdout.is_empty(), "{args:?}");
    }
    let version = rosetta(&["--version"]);
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        format!("rosetta {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn bench_compare_rejects_bad_baselines() {
    let dir = scratch("bad-baseline");
    let result = serde_json::json!({
        "device": "cpu:0", "device_name": "x", "api": "cpu", "op": "reduce",
        "label": "sum f32 n=2^16", "series": "sum f32", "metric": "time", "elements": 65536,
        "bytes": 262144, "flops": null, "status": "ok", "detail": "",
        "clock": "host", "samples": 10,
        "device_time": {"median_s": 1e-5, "min_s": 1e-5, "p90_s": 1e-5, "spread": 0.0},
        "host_time": {"median_s": 1e-5, "min_s": 1e-5, "p90_s": 1e-5, "spread": 0.0},
        "gbps": 26.2, "gflops": null, "copy_fraction": null
    });
    let report = |schema: &str, median: f64| {
        let mut r = result.clone();
        r["device_time"]["median_s"] = median.into();
        serde_json::json!({
            "schema": schema, "size": "small", "devices": [], "results": [r],
            "machine": {"host": "h", "os": "o", "cpu": "c", "rosetta": "0"}
        })
    };
    for (name, json, mentions) in [
        (
            "schema.json",
            report("rosetta-bench/1", 1e-5),
            "rosetta-bench/1",
        ),
        (
            "report.json",
            report("rosetta-report/1", 1e-5),
            "rosetta-report/1",
        ),
        ("zero.json", report("rosetta-bench/2", 0.0), "median"),
        ("negative.json", report("rosetta-bench/2", -1e-5), "median"),
        ("tiny.json", report("rosetta-bench/2", 5e-324), "median"),
        ("huge.json", report("rosetta-bench/2", 1e308), "median"),
        (
            "spread.json",
            with_time(&report, "device_time", "spread", 1e308),
            "spread",
        ),
        (
            "min.json",
            with_time(&report, "device_time", "min_s", 0.0),
            "min_s",
        ),
        (
            "p90.json",
            with_time(&report, "device_time", "p90_s", -1.0),
            "p90_s",
        ),
        (
            "host.json",
            with_time(&report, "host_time", "median_s", -1.0),
            "host_time",
        ),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, json.to_string()).unwrap();
        let started = std::time::Instant::now();
        let out = rosetta(&["bench", "--backend", "cpu", "--compare", path(&p)]);
        assert_usage_error(&out, mentions);
        assert!(stderr(&out).contains(path(&p)), "{}", stderr(&out));
        assert!(
            started.elapsed() < std::time::Duration::from_secs(2),
            "before the benchmark"
        );
        // `report --merge` refuses the same files by the same rule.
        if !name.starts_with("schema") && !name.starts_with("report") {
            let merged = dir.join(format!("merged-{name}"));
            let out = rosetta(&["report", "--merge", path(&p), "--out", path(&merged)]);
            assert_usage_error(&out, mentions);
        }
    }
}

/// A valid baseline (`report`'s) with one of its times replaced.
fn with_time(
    report: &dyn Fn(&str, f64) -> serde_json::Value,
    clock: &str,
    field: &str,
    value: f64,
) -> serde_json::Value {
    let mut json = report("rosetta-bench/2", 1e-5);
    json["results"][0][clock][field] = value.into();
    json
}

#[test]
fn npy_files_that_lie_about_their_shape_exit_2() {
    let dir = scratch("lying-npy");
    let file = |name: &str, descr: &str, fortran: bool, shape: &str, data: &[u8]| {
        let p = dir.join(name);
        raw_npy(&p, descr, fortran, shape, data);
        p
    };
    let huge = file("huge.npy", "<f4", false, "(4294967296, 4294967296)", &[]);
    let max = file(
        "max.npy",
        "<f4",
        false,
        "(18446744073709551615, 18446744073709551615)",
        &f32_bytes(&[1.0]),
    );
    let short = file(
        "short.npy",
        "<f4",
        false,
        "(4,)",
        &f32_bytes(&[1.0, 2.0, 3.0]),
    );
    let long = file(
        "long.npy",
        "<f4",
        false,
        "(2,)",
        &f32_bytes(&[1.0, 2.0, 3.0]),
    );
    let ragged = file("ragged.npy", "<f4", false, "(2,)", &[0, 0, 128, 63, 0, 0]);
    let fortran = file("fortran.npy", "<f4", true, "(2, 2)", &f32_bytes(&[1.0; 4]));
    let f64s = file("f64.npy", "<f8", false, "(1,)", &[0; 8]);
    let big_endian = file("be.npy", ">f4", false, "(1,)", &[0; 4]);
    for p in [
        &huge,
        &max,
        &short,
        &long,
        &ragged,
        &fortran,
        &f64s,
        &big_endian,
    ] {
        let out = rosetta(&["run", "reduce", "--backend", "cpu", path(p)]);
        assert_usage_error(&out, path(p));
    }
    // A 3x3 filter in disguise: its shape overflows.
    let image = file("image.npy", "<f4", false, "(4, 4)", &f32_bytes(&[1.0; 16]));
    let filter = file(
        "filter.npy",
        "<f4",
        false,
        "(9223372036854775817, 9223372036854775809)",
        &f32_bytes(&[1.0; 9]),
    );
    let out = rosetta(&[
        "run",
        "conv2d",
        "--backend",
        "cpu",
        path(&image),
        path(&filter),
    ]);
    assert_usage_error(&out, path(&filter));
    // More dimensions than the op takes.
    let cube = file("cube.npy", "<f4", false, "(1, 3, 3)", &f32_bytes(&[1.0; 9]));
    let out = rosetta(&[
        "run",
        "conv2d",
        "--backend",
        "cpu",
        path(&image),
        path(&cube),
    ]);
    assert_usage_error(&out, path(&cube));
    let rows = file("rows.npy", "<f4", false, "(2, 3)", &f32_bytes(&[1.0; 6]));
    let taps = file("taps.npy", "<f4", false, "(3,)", &f32_bytes(&[1.0; 3]));
    let out = rosetta(&[
        "run",
        "conv1d",
        "--backend",
        "cpu",
        path(&rows),
        path(&taps),
    ]);
    assert_usage_error(&out, path(&rows));
    // uint8 is read (and refused by an op that needs float32, naming the file).
    let bytes = file("bytes.npy", "|u1", false, "(2, 2)", &[1, 2, 3, 4]);
    let out = rosetta(&[
        "run",
        "matmul",
        "--backend",
        "cpu",
        path(&bytes),
        path(&bytes),
    ]);
    assert_usage_error(&out, path(&bytes));
    assert!(stderr(&out).contains("uint8"), "{}", stderr(&out));
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
        stdout.contains(&format!("from 2 machine(s): {host_a}, second-machine")),
        "{stdout}"
    );
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

/// Without XDG_RUNTIME_DIR (containers, CI), or with a relative one, probing
/// wgpu's GL adapter made libwayland print two `error: XDG_RUNTIME_DIR ...`
/// lines before rosetta's own output; an error must stay one line on stderr.
#[test]
fn no_runtime_dir_noise_without_xdg_runtime_dir() {
    // The private directory rosetta points the variable at, made by this
    // user with a umask's permissions (what `mkdir -p` gives): it is made
    // private and used, not skipped (the noise came back when it was).
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let uid = std::fs::metadata("/proc/self").unwrap().uid();
        let dir = std::env::temp_dir().join(format!("rosetta-runtime-{uid}"));
        let _ = std::fs::create_dir(&dir);
        if std::fs::metadata(&dir).is_ok_and(|m| m.uid() == uid) {
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    let dir = scratch("no-runtime-dir");
    // A directory others may enter is not a runtime directory either.
    let shared = dir.join("shared");
    std::fs::create_dir_all(&shared).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let x = dir.join("x.npy");
    save_f32(&x, &[3], &[1.0, 2.0, 3.0]);
    // Unset, relative (libwayland refuses it as if unset) and shared.
    for runtime_dir in [None, Some("."), Some(path(&shared))] {
        let run = |args: &[&str]| {
            let mut command = Command::new(env!("CARGO_BIN_EXE_rosetta"));
            command.args(args).env_remove("ROSETTA_REQUIRE");
            match runtime_dir {
                Some(value) => command.env("XDG_RUNTIME_DIR", value).current_dir(&dir),
                None => command.env_remove("XDG_RUNTIME_DIR"),
            };
            command.output().expect("rosetta runs")
        };
        let out = run(&["devices"]);
        assert!(out.status.success(), "{runtime_dir:?}: {}", stderr(&out));
        assert!(
            !stderr(&out).contains("XDG_RUNTIME_DIR"),
            "{runtime_dir:?}: {}",
            stderr(&out)
        );
        // Selecting a wgpu device probes every wgpu adapter, GL included.
        let out = run(&["run", "copy", "--backend", "wgpu:99", path(&x)]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{runtime_dir:?}: {}",
            stderr(&out)
        );
        assert_eq!(
            stderr(&out).lines().count(),
            1,
            "{runtime_dir:?}: {}",
            stderr(&out)
        );
    }
}

/// Logs written to a pipe or a file (CI logs) carry no terminal colour codes.
#[test]
fn logs_to_a_pipe_are_plain_text() {
    let out = Command::new(env!("CARGO_BIN_EXE_rosetta"))
        .args(["devices"])
        .env_remove("ROSETTA_REQUIRE")
        .env("RUST_LOG", "debug")
        .output()
        .expect("rosetta runs");
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("DEBUG"), "debug logs expected: {err}");
    assert!(!err.contains('\u{1b}'), "escape codes in: {err}");
}

/// A successful run prints nothing on stderr with the default log filter,
/// on every API the environment requires (`ROSETTA_REQUIRE`, as `make
/// test` sets it; the CPU backend otherwise): discovery probes adapters a
/// run does not use (NVIDIA's GL adapter through wgpu printed two wgpu
/// ERROR lines and a warning on every run), and a compiler may write to
/// the process's stderr (PoCL 5 warned about a subgroup pragma).
///
/// Compilers run with empty caches (rosetta's and PoCL's own), so that every
/// kernel is built: PoCL printed `1 warning generated.` where clang could not
/// fully unroll `conv2d_global` for a 31-row filter, on a build only.
#[test]
fn successful_runs_print_nothing_on_stderr() {
    let dir = scratch("quiet");
    let x = dir.join("x.npy");
    save_f32(
        &x,
        &[1000],
        &(0..1000).map(|i| i as f32).collect::<Vec<_>>(),
    );
    let (pixel, column) = (dir.join("pixel.npy"), dir.join("column.npy"));
    save_f32(&pixel, &[1, 1], &[2.0]);
    save_f32(&column, &[31, 1], &[0.5; 31]);
    let caches = [
        ("ROSETTA_CACHE_DIR", dir.join("cache")),
        ("POCL_CACHE_DIR", dir.join("pocl-cache")),
    ];
    let caches: Vec<(&str, &str)> = caches.iter().map(|(k, v)| (*k, path(v))).collect();
    let required = std::env::var("ROSETTA_REQUIRE").unwrap_or_else(|_| "cpu".into());
    for sel in required.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        for op in [
            &["reduce", path(&x)][..],
            &["reduce", "--reduce", "max", path(&x)],
            &["scan", path(&x)],
            &["conv2d", "--border", "clamp", path(&pixel), path(&column)],
        ] {
            let out_path = dir.join("out.npy");
            let mut args = vec!["run"];
            args.extend(op);
            args.extend(["--backend", sel, "-o", path(&out_path)]);
            let out = rosetta_with_env(&args, &caches);
            assert!(out.status.success(), "{sel} {op:?}: {}", stderr(&out));
            assert_eq!(stderr(&out), "", "{sel} {op:?}: stderr not empty");
        }
    }
}

/// `rosetta tune` keeps its choices in the tuning cache, so what would keep
/// nothing is an error, never a silent success: caching off, an op with
/// nothing to tune (usage errors, before any work), a cache that cannot be
/// written (a failure). A tuned choice is stored and found.
#[test]
fn tune_refuses_to_keep_nothing() {
    let dir = scratch("tune");
    let tune = ["tune", "--backend", "cpu", "--size", "small", "--op"];
    let with = |op: &str, cache: &str| {
        let mut args = tune.to_vec();
        args.push(op);
        rosetta_with_env(&args, &[("ROSETTA_CACHE_DIR", cache)])
    };
    assert_usage_error(&with("reduce", "off"), "caching is off");
    let cache = dir.join("cache");
    assert_usage_error(&with("copy", path(&cache)), "'copy' has no variants");
    assert_usage_error(&with("chain", path(&cache)), "'chain' has no variants");
    let file = dir.join("file");
    std::fs::write(&file, b"x").unwrap();
    let out = with("reduce", path(&file));
    assert_failure(&out, "tuning cache cannot be written");
    // Found before any workload is measured (none is printed).
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // Names match whatever their case; the choice lands in the cache.
    let out = with("REDUCE", path(&cache));
    assert!(out.status.success(), "{}", stderr(&out));
    let stored: Vec<_> = std::fs::read_dir(cache.join("tuning"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .collect();
    assert_eq!(stored.len(), 1, "one tuning file for the CPU");
    let text = std::fs::read_to_string(stored[0].path()).unwrap();
    assert!(text.contains("reduce/"), "{text}");

    // A damaged tuning file: the run is right, on the default choices, and
    // says once that the file is ignored (plans look it up each time);
    // the next tune replaces it.
    std::fs::write(stored[0].path(), b"{ not json").unwrap();
    let x = dir.join("x.npy");
    save_f32(&x, &[5000], &[1.0; 5000]);
    let sum = dir.join("sum.npy");
    let run = [
        "run",
        "reduce",
        "--backend",
        "cpu",
        path(&x),
        "-o",
        path(&sum),
    ];
    let out = rosetta_with_env(&run, &[("ROSETTA_CACHE_DIR", path(&cache))]);
    assert!(out.status.success(), "{}", stderr(&out));
    let warned = stderr(&out);
    assert_eq!(warned.matches("tuning cache").count(), 1, "{warned}");
    assert!(warned.contains("ignored (not a tuning file"), "{warned}");
    assert!(warned.contains("rosetta tune"), "{warned}");
    let back = rosetta::npy::read(&sum).unwrap();
    assert_eq!(back.data, ArrayData::F32(vec![5000.0]));
    let out = with("reduce", path(&cache));
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(stored[0].path()).unwrap();
    assert!(text.contains("reduce/"), "{text}");

    // A stored choice that does not plan the shape at hand (75 000 chunks
    // of one 8-deep slice, past the z grid's 65 535: a hand-edited file,
    // or a split the tuner measured on another shape of the class) is
    // passed over: the default runs and the answer is right, where the run
    // failed naming the grid.
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["choices"]["matmul/m<=2^0 n<=2^0 k<=2^20"] =
        serde_json::json!({"variant": "32x32x8/2x2+splitk4294967295", "median_s": 1.0});
    std::fs::write(stored[0].path(), json.to_string()).unwrap();
    let (a, b, c) = (dir.join("a.npy"), dir.join("b.npy"), dir.join("c.npy"));
    save_f32(&a, &[1, 600_000], &vec![1.0; 600_000]);
    save_f32(&b, &[600_000, 1], &vec![1.0; 600_000]);
    let out = rosetta_with_env(
        &[
            "run",
            "matmul",
            "--backend",
            "cpu",
            path(&a),
            path(&b),
            "-o",
            path(&c),
        ],
        &[("ROSETTA_CACHE_DIR", path(&cache))],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
    let product = rosetta::npy::read(&c).unwrap();
    assert_eq!(product.data, ArrayData::F32(vec![600_000.0]));

    // A cache folder that is a file: tuning cannot mend that, and the
    // warning does not send the user to it.
    let out = rosetta_with_env(&run, &[("ROSETTA_CACHE_DIR", path(&file))]);
    assert!(out.status.success(), "{}", stderr(&out));
    let warned = stderr(&out);
    assert_eq!(warned.matches("tuning cache").count(), 1, "{warned}");
    assert!(
        warned.contains("until the cache's path is mended"),
        "{warned}"
    );
    assert!(!warned.contains("rosetta tune"), "{warned}");
}

/// `--op` names match whatever their case in `bench` as in `run`: `MATMUL`
/// benchmarks the matmul (it used to be accepted and run nothing).
#[test]
fn bench_op_names_ignore_case() {
    let out = rosetta(&[
        "bench",
        "--backend",
        "cpu",
        "--size",
        "small",
        "--op",
        "MATMUL",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("matmul"), "{table}");
}

/// An unknown `--op` is a usage error that lists what the command takes,
/// the op chains included (which run by default and `--op chain` selects).
#[test]
fn unknown_ops_list_the_ops_and_the_chains() {
    let out = rosetta(&[
        "bench",
        "--backend",
        "cpu",
        "--size",
        "small",
        "--op",
        "nosuch",
    ]);
    assert_usage_error(&out, "unknown op 'nosuch' (ops: copy,");
    assert_usage_error(&out, "matmul), or chain for the op chains");
}

/// Users' extra compiler options come after the constants rosetta defines,
/// so `-DOP=2` in `ROSETTA_OPENCL_OPTIONS` turned PoCL's sum into a max
/// (exit 0, a wrong answer). Options that would change what kernels compute
/// are refused, naming the option, on every C-family API the environment
/// requires (`ROSETTA_REQUIRE`; the option checks themselves are unit
/// tests of `rosetta_core`).
#[test]
fn compiler_options_that_change_results_are_refused() {
    let dir = scratch("options");
    let x = dir.join("x.npy");
    save_f32(&x, &[12], &(0..12).map(|i| i as f32).collect::<Vec<_>>());
    let required = std::env::var("ROSETTA_REQUIRE").unwrap_or_default();
    for (api, var) in [
        ("opencl", "ROSETTA_OPENCL_OPTIONS"),
        ("cuda", "ROSETTA_NVRTC_OPTIONS"),
    ] {
        if !required.split(',').any(|r| r.trim() == api) {
            continue;
        }
        let cache = dir.join(format!("cache-{api}"));
        let args = ["run", "reduce", "--backend", api, path(&x)];
        let env = |options| [(var, options), ("ROSETTA_CACHE_DIR", path(&cache))];
        let fine = rosetta_with_env(&args, &env("-w"));
        assert!(fine.status.success(), "{api}: {}", stderr(&fine));
        assert!(String::from_utf8_lossy(&fine.stdout).contains("[66]"));
        for bad in ["-DOP=2", "-cl-fast-relaxed-math -w", "--use_fast_math"] {
            let out = rosetta_with_env(&args, &env(bad));
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{api} {bad}: {err}");
            // One line: the device's failure to open is the error, not
            // also a warning before it.
            assert_eq!(err.lines().count(), 1, "{api} {bad}: {err}");
            assert!(out.stdout.is_empty(), "{api} {bad}: an answer was printed");
            let first = bad.split_whitespace().next().unwrap();
            assert!(err.contains(&format!("{var}: option '{first}'")), "{err}");
        }
    }
}

/// File names need not be UTF-8 (Linux allows any bytes but `/` and NUL):
/// `rosetta run` took its arguments as strings and refused them all.
#[cfg(unix)]
#[test]
fn run_takes_file_names_that_are_not_utf8() {
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;
    let dir = scratch("bytes-names");
    let input = dir.join(OsString::from_vec(b"in-\xff\xfe.npy".to_vec()));
    let output = dir.join(OsString::from_vec(b"out-\xff.npy".to_vec()));
    save_f32(&input, &[3], &[1.0, 2.0, 3.0]);
    let mut args: Vec<OsString> = ["run", "scan", "--backend", "cpu"]
        .map(OsString::from)
        .into();
    args.extend([
        input.into_os_string(),
        "-o".into(),
        output.clone().into_os_string(),
    ]);
    let out = rosetta_with_env(&args, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let result = rosetta::npy::read(&output).unwrap();
    assert_eq!(result.data, ArrayData::F32(vec![1.0, 3.0, 6.0]));
}

/// On every required API but the CPU backend's, `rosetta tune` measures
/// the fastest matmul tiling at other chunk counts of k (each a time in the
/// stored choice), and a split it measured, kept as the choice, plans and
/// runs the benchmark's product right, reported as tuned (on each device
/// of the API: wgpu may list two adapters).
#[test]
fn tuned_matmul_splits_run_right() {
    let required = std::env::var("ROSETTA_REQUIRE").unwrap_or_default();
    for sel in required
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != "cpu")
    {
        let dir = scratch(&format!("tune-splits-{sel}"));
        let cache = dir.join("cache");
        let env = [("ROSETTA_CACHE_DIR", path(&cache))];
        // `tune` and `bench` of the small matmul on this API.
        let command = |name| vec![name, "--backend", sel, "--op", "matmul", "--size", "small"];
        let out = rosetta_with_env(&command("tune"), &env);
        assert!(out.status.success(), "{sel}: {}", stderr(&out));
        let files: Vec<PathBuf> = std::fs::read_dir(cache.join("tuning"))
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        assert!(!files.is_empty(), "{sel}: nothing stored");
        // Each device's choice becomes a split it measured.
        for file in &files {
            let mut json: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
            let choices = json["choices"].as_object_mut().unwrap();
            let choice = choices
                .iter_mut()
                .find(|(k, _)| k.starts_with("matmul/"))
                .map(|(_, v)| v)
                .unwrap_or_else(|| panic!("{sel}: no matmul choice in {file:?}"));
            let split = choice["measured"]
                .as_object()
                .unwrap()
                .keys()
                .find(|name| name.contains("+splitk") && !name.ends_with("+splitk1"))
                .unwrap_or_else(|| panic!("{sel}: no split measured: {choice}"))
                .clone();
            choice["variant"] = serde_json::json!(split);
            std::fs::write(file, json.to_string()).unwrap();
        }

        let report = dir.join("bench.json");
        let mut bench = command("bench");
        bench.extend(["--json", path(&report)]);
        let out = rosetta_with_env(&bench, &env);
        assert!(out.status.success(), "{sel}: {}", stderr(&out));
        let bench: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        let products: Vec<&serde_json::Value> = bench["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["op"] == "matmul")
            .collect();
        assert_eq!(products.len(), files.len(), "{sel}: {bench}");
        for product in products {
            assert_eq!(product["status"], "ok", "{sel}: {product}");
            assert_eq!(product["tuned"], true, "{sel}: {product}");
            let ran = product["variant"].as_str().unwrap();
            assert!(ran.contains("+splitk"), "{sel}: ran {ran}");
        }
    }
}

/// `--shape` runs the one op at a user's shapes: every op in each of its
/// forms benchmarks right (the label says the shape); what no op can take
/// is a usage error before any work; and `tune --shape` keeps a choice for
/// the shape's class, which the benchmark then runs, tuned, at that shape
/// and at any other of its class, but not at a shape of another class.
#[test]
fn bench_and_tune_take_a_users_shape() {
    let dir = scratch("shape");
    let cache = dir.join("cache");
    let env = [("ROSETTA_CACHE_DIR", path(&cache))];
    let bench = |op: &str, shapes: &[&str]| -> Vec<serde_json::Value> {
        let report = dir.join(format!("{op}.json"));
        let mut args = vec!["bench", "--backend", "cpu", "--size", "small", "--op", op];
        for shape in shapes {
            args.extend(["--shape", shape]);
        }
        args.extend(["--json", path(&report)]);
        let out = rosetta_with_env(&args, &env);
        assert!(out.status.success(), "{op} {shapes:?}: {}", stderr(&out));
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        json["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["op"] == op && !r["label"].as_str().unwrap().contains("launch floor"))
            .filter(|r| op != "copy" || r["label"] != "copy n=2^20")
            .cloned()
            .collect()
    };
    // Each op at each of its forms: (op, shapes, the labels they give).
    let table: [(&str, &[&str], &[&str]); 7] = [
        ("copy", &["1001"], &["copy n=1001"]),
        (
            "reduce",
            &["777", "2^12"],
            &["sum f32 n=777", "sum f32 n=2^12"],
        ),
        ("scan", &["4099"], &["scan f32 n=4099"]),
        (
            "histogram",
            &["5000", "3000x1000"],
            &[
                "u32 uniform 256 bins n=5000",
                "u8 uniform 256 bins n=5000",
                "u32 uniform 1000 bins n=3000",
            ],
        ),
        (
            "conv1d",
            &["3001", "999x5"],
            &["9 taps n=3001", "5 taps n=999"],
        ),
        (
            "conv2d",
            &["33", "40x70", "41x17x3", "19x23x1x7"],
            &[
                "f32 5x5 33x33",
                "u8 5x5 33x33",
                "f32 5x5 40x70",
                "u8 5x5 40x70",
                "f32 3x3 41x17",
                "u8 3x3 41x17",
                "f32 1x7 19x23",
                "u8 1x7 19x23",
            ],
        ),
        (
            "matmul",
            &["70x130x50", "33"],
            &["f32 M=70 K=130 N=50", "square f32 33x33x33"],
        ),
    ];
    for (op, shapes, labels) in table {
        let results = bench(op, shapes);
        let got: Vec<&str> = results
            .iter()
            .map(|r| r["label"].as_str().unwrap())
            .collect();
        assert_eq!(got, labels, "{op}");
        for r in &results {
            assert_eq!(r["status"], "ok", "{op}: {r}");
        }
    }

    // Usage errors, before any device work (nothing on stdout).
    let refused = |args: &[&str], mentions: &str| {
        let mut all = vec!["bench", "--backend", "cpu"];
        all.extend_from_slice(args);
        for command in ["bench", "tune"] {
            all[0] = command;
            let out = rosetta_with_env(&all, &env);
            assert_usage_error(&out, mentions);
            assert!(out.stdout.is_empty(), "{all:?}");
        }
    };
    refused(&["--shape", "64"], "exactly one --op");
    refused(
        &["--op", "scan", "--op", "matmul", "--shape", "64"],
        "exactly one --op",
    );
    refused(&["--op", "chain", "--shape", "64"], "exactly one --op");
    refused(&["--op", "matmul", "--shape", "64x"], "not a number");
    refused(&["--op", "matmul", "--shape", "0x4x4"], "at least 1");
    refused(
        &["--op", "matmul", "--shape", "2^30x2^30"],
        "more than 2^56",
    );
    refused(
        &["--op", "matmul", "--shape", "64x64"],
        "matmul takes a shape of the form MxKxN",
    );
    refused(&["--op", "scan", "--shape", "8x8"], "scan takes a shape");
    refused(&["--op", "conv2d", "--shape", "64x64x4"], "odd filter");
    refused(
        &["--op", "conv1d", "--shape", "640x2"],
        "odd number of taps",
    );
    refused(&["--op", "histogram", "--shape", "64x0"], "at least 1");
    refused(
        &["--op", "histogram", "--shape", "64x2^32"],
        "at most 2^32 - 1 bins",
    );

    // Shapes past the device's limits fail as device errors (exit 1), each
    // workload's own line, before the host makes their values: a petabyte
    // of A's values aborted the process allocating them.
    for (op, shape, mentions) in [
        ("matmul", "2^24x2^24x2^8", "exceeds the device limit"),
        ("reduce", "2^40", "exceeds the device limit"),
        ("scan", "2^36", "exceeds the device limit"),
        ("conv2d", "2^20x2^20", "exceeds the device limit"),
    ] {
        let out = rosetta_with_env(
            &[
                "bench",
                "--backend",
                "cpu",
                "--size",
                "small",
                "--op",
                op,
                "--shape",
                shape,
            ],
            &env,
        );
        assert_eq!(out.status.code(), Some(1), "{op} {shape}: {}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(mentions), "{op} {shape}: {text}");
    }

    // The tuner keeps a choice for 70x130x50's class; made a tiling the
    // plan would not pick, the benchmark runs it at that shape and at
    // 65x129x33 (one class: m<=2^7 n<=2^6 k<=2^8), and not at 70x130x65.
    let out = rosetta_with_env(
        &[
            "tune",
            "--backend",
            "cpu",
            "--op",
            "matmul",
            "--shape",
            "70x130x50",
        ],
        &env,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("f32 M=70 K=130 N=50"), "{text}");
    assert_eq!(
        text.matches(" -> ").count(),
        1,
        "one workload tuned: {text}"
    );
    let tuned_run = bench("matmul", &["70x130x50"]);
    assert_eq!(tuned_run[0]["tuned"], true, "{tuned_run:?}");
    let file = std::fs::read_dir(cache.join("tuning"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap();
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let key = "matmul/m<=2^7 n<=2^6 k<=2^8";
    let forced = if tuned_run[0]["variant"]
        .as_str()
        .unwrap()
        .starts_with("32x32x8/2x2")
    {
        "64x64x8/4x4"
    } else {
        "32x32x8/2x2"
    };
    assert!(json["choices"][key].is_object(), "{json}");
    json["choices"][key]["variant"] = serde_json::json!(forced);
    std::fs::write(&file, json.to_string()).unwrap();
    let results = bench("matmul", &["70x130x50", "65x129x33", "70x130x65"]);
    for (r, tuned) in results.iter().zip([true, true, false]) {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["tuned"], tuned, "{r}");
        let ran = r["variant"].as_str().unwrap();
        assert_eq!(ran.starts_with(forced), tuned, "{r}");
    }
}
