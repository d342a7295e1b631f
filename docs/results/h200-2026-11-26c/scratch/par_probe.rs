//! Scratch: wgpu discovery and use from several threads at once.
use rosetta::{discover, Api, ReduceOp};
use std::time::Instant;

fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_thread_ids(true)
        .with_writer(std::io::stderr)
        .init();
    let threads: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(4);
    let t0 = Instant::now();
    let handles: Vec<_> = (0..threads)
        .map(|i| {
            std::thread::spawn(move || {
                let devices = discover(&[Api::Wgpu]);
                eprintln!("thread {i}: discovered at {:?}", t0.elapsed());
                let found = devices.select(&["wgpu:0".to_string()]).expect("wgpu:0");
                for device in &found {
                    let x = device.upload(&vec![1.0f32; 1 << 20]).unwrap();
                    let s = x.reduce(ReduceOp::Sum).unwrap().to_vec().unwrap()[0];
                    eprintln!("thread {i}: {} sum {s} at {:?}", device.info().id(), t0.elapsed());
                }
                drop(found);
                eprintln!("thread {i}: dropped selection at {:?}", t0.elapsed());
                drop(devices);
                eprintln!("thread {i}: dropped devices at {:?}", t0.elapsed());
            })
        })
        .collect();
    for (i, h) in handles.into_iter().enumerate() {
        h.join().unwrap();
        eprintln!("joined {i} at {:?}", t0.elapsed());
    }
    eprintln!("all {threads} threads done in {:?}", t0.elapsed());
}
