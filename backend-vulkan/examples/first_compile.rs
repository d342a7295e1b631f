//! How long the first kernel of a fresh process takes to build, for measuring
//! the persistent caches: run it twice with the same `ROSETTA_CACHE_DIR`
//! (cold, then warm).
//!
//! ```text
//! first_compile                                  # the contract probe
//! first_compile FILE.comp BINDINGS PARAMS NAME=VALUE...   # any GLSL kernel
//! ```
//! The constants are given in order, `GROUP_SIZE` first.

use rosetta_core::{Access, KernelDef, KernelSpec, Language};
use std::sync::Arc;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let start = Instant::now();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (def, values): (Arc<KernelDef>, Vec<(String, u32)>) = match args.as_slice() {
        [] => (
            Arc::clone(rosetta_core::contract::probe()),
            vec![("GROUP_SIZE".into(), 64)],
        ),
        [file, bindings, params, constants @ ..] => {
            let source = std::fs::read_to_string(file)?;
            let values: Vec<(String, u32)> = constants
                .iter()
                .map(|c| {
                    let (name, value) = c.split_once('=').ok_or("constants are NAME=VALUE")?;
                    Ok::<_, Box<dyn std::error::Error>>((name.to_string(), value.parse()?))
                })
                .collect::<Result<_, _>>()?;
            let def = KernelDef::builder("main")
                .constants(values.iter().skip(1).map(|(n, _)| n.clone()))
                .bindings((0..bindings.parse::<usize>()?).map(|_| Access::ReadWrite))
                .params((0..params.parse::<usize>()?).map(|i| format!("p{i}")))
                .source(Language::Glsl, source)
                .build_arc()?;
            (def, values)
        }
        _ => return Err("usage: first_compile [FILE.comp BINDINGS PARAMS NAME=VALUE...]".into()),
    };
    let pairs: Vec<(&str, u32)> = values.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    let spec = KernelSpec::new(&def, &pairs)?;
    let devices = rosetta_backend_vulkan::discover()?;
    let opened = start.elapsed();
    for device in &devices {
        let before = Instant::now();
        device.compile(&spec)?;
        let info = device.info();
        println!(
            "{} {} | driver {} | version {} | {:?}",
            info.id(),
            info.name,
            info.driver,
            info.driver_version,
            info.physical
        );
        println!(
            "{}: opened after {:.1} ms, first compile {:.1} ms, {:.1} ms since start",
            device.info().id(),
            opened.as_secs_f64() * 1e3,
            before.elapsed().as_secs_f64() * 1e3,
            start.elapsed().as_secs_f64() * 1e3
        );
    }
    drop(devices);
    println!("{:?}", rosetta_backend_vulkan::cache_stats());
    Ok(())
}
