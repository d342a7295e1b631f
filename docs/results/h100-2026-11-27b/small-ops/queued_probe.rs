//! Scratch (not committed): small workloads timed from idle and queued.
use rosetta::bench::{workloads, Options};
use rosetta::kernels::op::Size;
use rosetta::{discover, Api};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let selectors: Vec<String> = std::env::args().skip(1).collect();
    let pads: Vec<usize> = std::env::var("PADS").unwrap_or("0,1,4".into()).split(',').map(|s| s.parse().unwrap()).collect();
    let options = Options::new(Size::Large, vec!["reduce".into()]);
    for device in discover(&Api::ALL).select(&selectors)? {
        let backend = device.backend();
        for w in workloads(device.info(), &options)? {
            if !(w.label.contains("n=1 ") || w.label.contains("launch floor") || (w.label.starts_with("sum f32") && w.elements <= 1 << 22)) {
                continue;
            }
            let mut p = w.prepare(backend, None)?;
            let start = Instant::now();
            while start.elapsed().as_secs_f64() < 0.3 {
                p.run()?;
                backend.finish()?;
            }
            let mut line = format!("{:10} {:28}", device.info().id(), w.label);
            for &pad in &pads {
                let mut t = Vec::new();
                for _ in 0..200 {
                    for _ in 0..pad {
                        p.run()?;
                    }
                    let b = backend.timestamp()?;
                    p.run()?;
                    let e = backend.timestamp()?;
                    t.push(backend.elapsed(&b, &e)?.0.as_secs_f64() * 1e6);
                    backend.finish()?;
                }
                t.sort_by(|x, y| x.partial_cmp(y).unwrap());
                line += &format!("  pad{pad}: med {:6.1} min {:6.1}", t[100], t[0]);
            }
            let wrong = p.verify()?;
            println!("{line}  {}", wrong.unwrap_or_else(|| "ok".into()));
        }
    }
    Ok(())
}
