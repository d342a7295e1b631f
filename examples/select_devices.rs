//! Choosing devices: by cargo feature (which backends are compiled in) and by
//! selector string (which of their devices to use).
//!
//! ```text
//! cargo run --example select_devices                         # CPU backend only
//! cargo run --example select_devices --features vulkan -- vulkan
//! cargo run --example select_devices --features wgpu,opencl -- all
//! cargo run --example select_devices --features opencl -- opencl:0 'opencl:pthread'
//! ```
//!
//! A selector is `all`, an API name (`cpu`, `wgpu`, `vulkan`, `opencl`,
//! `cuda`), `api:N` (the N-th device of that API, as `rosetta devices` lists
//! them) or `api:text` (devices whose name contains `text`).

use rosetta::{discover, Api, ApiStatus, ReduceOp};

fn main() -> Result<(), rosetta::Error> {
    let selectors: Vec<String> = std::env::args().skip(1).collect();
    let selectors = if selectors.is_empty() {
        vec!["all".to_string()]
    } else {
        selectors
    };

    // Probe every API this build has (one per enabled cargo feature, plus
    // the CPU), and say what each found.
    let discovery = discover(&Api::ALL);
    for entry in &discovery.apis {
        match &entry.status {
            ApiStatus::NotCompiled => println!(
                "{:<7} not compiled in (cargo feature `{}`)",
                entry.api, entry.api
            ),
            ApiStatus::Unavailable(why) => println!("{:<7} unavailable: {why}", entry.api),
            ApiStatus::Devices(devices) => {
                for d in devices {
                    println!("{:<7} {} {}", entry.api, d.info().id(), d.info().name);
                }
            }
        }
    }

    // The devices the selectors name (an error names what is available).
    let devices = discovery.select(&selectors)?;
    let x: Vec<f32> = (1..=1000).map(|i| i as f32).collect();
    for device in &devices {
        let sum = device.reduce(&x, ReduceOp::Sum)?;
        println!("{}: sum of 1..=1000 = {sum}", device.info().id());
        assert_eq!(sum, 500_500.0);
    }
    Ok(())
}
