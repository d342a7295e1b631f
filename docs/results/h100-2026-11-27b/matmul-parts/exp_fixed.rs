//! Scratch: pass 1 of the matmul alone over k, to find its fixed cost per launch.
use rosetta::kernels::matmul::{MatmulPlan, MatmulVariant};
use rosetta::{discover, Api, MatmulSpec};
use rosetta::core::Buffer;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let selectors: Vec<String> = std::env::args().skip(1).collect();
    let ks: Vec<usize> = std::env::var("KS").unwrap_or("8,64,256,1024".into()).split(',').map(|s| s.parse().unwrap()).collect();
    let variants: Vec<String> = std::env::var("VARIANTS").unwrap_or("128x128x8/8x8+splitk1,64x64x8/4x4+splitk1".into()).split(',').map(String::from).collect();
    for device in discover(&Api::ALL).select(&selectors)? {
        let backend = device.backend();
        for v in &variants {
            let variant = MatmulVariant::from_name(v).expect("variant");
            for &k in &ks {
                let (m, n) = (1024usize, 1024usize);
                let spec = MatmulSpec { m, k, n };
                let plan = MatmulPlan::with_variant(backend, &spec, variant)?;
                let a: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32 - 3.0).collect();
                let b: Vec<f32> = (0..k * n).map(|i| (i % 5) as f32 - 2.0).collect();
                let ab = Buffer::from_slice(backend, &a)?;
                let bb = Buffer::from_slice(backend, &b)?;
                let cb = backend.alloc((m * n * 4) as u64)?;
                let start = Instant::now();
                while start.elapsed().as_secs_f64() < 0.2 {
                    plan.encode(&ab, &bb, &cb)?;
                    backend.finish()?;
                }
                let mut times = Vec::new();
                for _ in 0..60 {
                    let t0 = backend.timestamp()?;
                    plan.encode(&ab, &bb, &cb)?;
                    let t1 = backend.timestamp()?;
                    times.push(backend.elapsed(&t0, &t1)?.0.as_secs_f64() * 1e6);
                }
                times.sort_by(|x, y| x.partial_cmp(y).unwrap());
                let c: Vec<f32> = cb.read(4)?;
                println!("{:10} {:24} k={:5} median {:8.1} µs min {:8.1} (c[0..4] {:?})", device.info().id(), plan.variant().name(), k, times[30], times[0], c);
            }
        }
    }
    Ok(())
}
