//! Scratch (not committed): matmul variants per shape, timed per API.
use rosetta::kernels::matmul::{MatmulPlan, MatmulVariant, Tiling};
use rosetta::{discover, Api, MatmulSpec};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let selectors: Vec<String> = std::env::args().skip(1).collect();
    let shapes: Vec<[usize; 3]> = std::env::var("SHAPES").unwrap_or("1024x1024x1024".into()).split(',').map(|s| { let v: Vec<usize> = s.split('x').map(|x| x.parse().unwrap()).collect(); [v[0], v[1], v[2]] }).collect();
    let list = std::env::var("VARIANTS").unwrap_or("default".into());
    let samples: usize = std::env::var("SAMPLES").unwrap_or("40".into()).parse()?;
    for device in discover(&Api::ALL).select(&selectors)? {
        let backend = device.backend();
        for &[m, k, n] in &shapes {
            let spec = MatmulSpec { m, k, n };
            let mut seed = 12345u64;
            let mut rnd = || { seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); ((seed >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0 };
            let a: Vec<f32> = (0..m * k).map(|_| rnd()).collect();
            let b: Vec<f32> = (0..k * n).map(|_| rnd()).collect();
            let ab = rosetta::core::Buffer::from_slice(backend, &a)?;
            let bb = rosetta::core::Buffer::from_slice(backend, &b)?;
            let cb = backend.alloc((m * n * 4) as u64)?;
            let reference = MatmulPlan::new(backend, &spec)?;
            let default_name = reference.variant().name();
            reference.encode(&ab, &bb, &cb)?;
            let want: Vec<f32> = cb.read(m * n)?;
            for name in list.split(',') {
                let plan = if name == "default" { MatmulPlan::new(backend, &spec)? } else {
                    let (base, split) = match name.split_once("+splitk") { Some((b, k)) => (b, Some(k.parse::<u32>()?)), None => (name, None) };
                    let Some(tiling) = Tiling::parse(base) else { println!("bad {name}"); continue };
                    let mut v = MatmulVariant::tiled(tiling);
                    if let Some(k) = split { v = v.split(k); }
                    match MatmulPlan::with_variant(backend, &spec, v) { Ok(p) => p, Err(e) => { println!("{:10} {m}x{k}x{n} {name:28} error: {e}", device.info().id()); continue } }
                };
                cb.write(&vec![0f32; m * n])?;
                plan.encode(&ab, &bb, &cb)?;
                let got: Vec<f32> = cb.read(m * n)?;
                let worst = got.iter().zip(&want).map(|(g, w)| (g - w).abs()).fold(0f32, f32::max);
                for _ in 0..10 { plan.encode(&ab, &bb, &cb)?; }
                backend.finish()?;
                let mut t = Vec::new();
                for _ in 0..samples {
                    let b0 = backend.timestamp()?;
                    plan.encode(&ab, &bb, &cb)?;
                    let e0 = backend.timestamp()?;
                    t.push(backend.elapsed(&b0, &e0)?.0.as_secs_f64() * 1e6);
                    backend.finish()?;
                }
                t.sort_by(|x, y| x.partial_cmp(y).unwrap());
                let tflops = 2.0 * (m * n * k) as f64 / t[samples / 2] / 1e6;
                println!("{:10} {m}x{k}x{n} {:28} med {:8.1} us min {:8.1}  {:5.1} TFLOP/s  maxdiff {:.2e} {} (default {default_name})", device.info().id(), plan.variant().name(), t[samples / 2], t[0], tflops, worst, if worst < 1e-2 { "ok" } else { "WRONG" });
            }
        }
    }
    Ok(())
}
