//! The persistent pipeline cache across processes: the first compile of a
//! fresh process, cold (empty cache folder) and warm (the folder a previous
//! process left). Timings are printed, not asserted (they depend on the
//! driver: lavapipe's pipeline cache may hold little); that the cache is
//! written and read back is asserted.
//!
//! `cargo test --release -p rosetta-backend-wgpu --test pipeline_cache --
//! --nocapture` shows the timings.

use rosetta_core::{Access, KernelDef, KernelSpec, Language};
use std::process::Command;
use std::time::Instant;

const CHILD: &str = "ROSETTA_WGPU_CACHE_TEST_CHILD";
const TEST: &str = "first_compiles_of_fresh_processes";

/// A kernel whose pipeline takes the driver a while to build: a long chain
/// of integer hashing on a param, which no compiler can fold away.
fn heavy() -> KernelDef {
    let mut body = String::new();
    for i in 0..1500u32 {
        let k = 0x9e37_79b9u32.wrapping_mul(i + 1) | 1;
        body.push_str(&format!(
            "    x = (x ^ (x >> {}u)) * {k}u + {}u;\n",
            i % 13 + 3,
            i
        ));
    }
    let wgsl = format!(
        "override GROUP_SIZE: u32;\nstruct Params {{ n: u32 }}\n\
         @group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         @group(0) @binding(1) var<uniform> params: Params;\n\
         @compute @workgroup_size(GROUP_SIZE)\n\
         fn heavy(@builtin(global_invocation_id) id: vec3<u32>) {{\n\
         var x = params.n + id.x;\n{body}    out[id.x] = x;\n}}\n"
    );
    KernelDef::builder("heavy")
        .bindings([Access::ReadWrite])
        .params(["n"])
        .source(Language::Wgsl, wgsl)
        .build()
        .unwrap()
}

/// In the child: time the first compile on every device.
fn child() {
    let def = std::sync::Arc::new(heavy());
    let spec = KernelSpec::new(&def, &[("GROUP_SIZE", 64)]).unwrap();
    let other = KernelSpec::new(&def, &[("GROUP_SIZE", 128)]).unwrap();
    for device in rosetta_backend_wgpu::discover().unwrap() {
        let started = Instant::now();
        device.compile(&spec).unwrap();
        let first = started.elapsed().as_secs_f64() * 1e3;
        // The same shader module, another pipeline: the pipeline's share.
        let started = Instant::now();
        device.compile(&other).unwrap();
        let second = started.elapsed().as_secs_f64() * 1e3;
        let vulkan = device.info().driver.starts_with("wgpu 30 on Vulkan");
        println!(
            "\nFIRST-COMPILE {} {first:.1} {vulkan} {second:.1}",
            device.info().id()
        );
    }
}

#[test]
fn first_compiles_of_fresh_processes() {
    if std::env::var_os(CHILD).is_some() {
        child();
        return;
    }
    let dir = std::env::temp_dir().join(format!("rosetta-wgpu-fresh-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    type Times = Vec<(String, f64, bool, f64)>;
    let run = |what: &str, cache: &std::path::Path| -> Times {
        let output = Command::new(std::env::current_exe().unwrap())
            .args([TEST, "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD, "1")
            .env("ROSETTA_CACHE_DIR", cache)
            // Mesa's own shader cache (llvmpipe's GL driver has one) off,
            // so that only rosetta's cache differs between the runs.
            .env("MESA_SHADER_CACHE_DISABLE", "true")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let times: Times = String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| {
                let mut words = line.strip_prefix("FIRST-COMPILE ")?.split(' ');
                Some((
                    words.next()?.to_string(),
                    words.next()?.parse().ok()?,
                    words.next()? == "true",
                    words.next()?.parse().ok()?,
                ))
            })
            .collect();
        assert!(!times.is_empty(), "{what}: the child compiled nothing");
        times
    };
    let off: Vec<_> = (0..2)
        .map(|_| run("cache off", std::path::Path::new("off")))
        .collect();
    let cold = run("cold", &dir);
    let entries = std::fs::read_dir(dir.join("kernels/wgpu"))
        .map(|d| d.count())
        .unwrap_or(0);
    let warm: Vec<_> = (0..3).map(|_| run("warm", &dir)).collect();
    let times = |runs: &[Times], i: usize| {
        runs.iter()
            .map(|r| format!("{:.1}", r[i].1))
            .collect::<Vec<_>>()
            .join(" / ")
    };
    for (i, (device, ms, _, pipeline)) in cold.iter().enumerate() {
        eprintln!(
            "{device}: first compile, cache off {} ms; cold {ms:.1} ms; warm {} ms \
             (a second pipeline of the same module: {pipeline:.1} ms cold)",
            times(&off, i),
            times(&warm, i)
        );
    }
    eprintln!("{entries} pipeline-cache entries written");
    if cold.iter().any(|(_, _, vulkan, _)| *vulkan) {
        assert!(entries > 0, "a Vulkan device stored no pipeline cache");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
