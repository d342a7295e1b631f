//! Scratch: host time of each step of the bench's device-buffer chain.
use rosetta::{discover, Api, Border, Conv2dSpec, ReduceOp};
use std::time::Instant;

fn main() -> Result<(), rosetta::Error> {
    let selectors: Vec<String> = std::env::args().skip(1).collect();
    let side = 8192usize;
    let image: Vec<f32> = (0..side * side).map(|i| (i % 251) as f32 / 251.0).collect();
    let filter = vec![1.0f32 / 25.0; 25];
    let spec = Conv2dSpec { height: side, width: side, kh: 5, kw: 5, border: Border::Zero };
    for device in discover(&Api::ALL).select(&selectors)? {
        let img = device.upload(&image)?;
        let f = device.upload(&filter)?;
        for round in 0..6 {
            let t0 = Instant::now();
            let blurred = img.conv2d(&f, &spec)?;
            let t1 = Instant::now();
            let sum = blurred.reduce(ReduceOp::Sum)?;
            device.backend().finish()?;
            let t2 = Instant::now();
            let v = sum.to_vec()?[0];
            let t3 = Instant::now();
            drop(sum);
            drop(blurred);
            let t4 = Instant::now();
            device.backend().finish()?;
            let t5 = Instant::now();
            let us = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e6;
            println!(
                "{} round {round}: conv2d {:.0} µs, reduce+finish {:.0}, to_vec {:.0}, drop {:.0}, finish {:.0}, total {:.0} (sum {v})",
                device.info().id(), us(t0, t1), us(t1, t2), us(t2, t3), us(t3, t4), us(t4, t5), us(t0, t5)
            );
        }
        println!("pool {:?}", device.backend().pool_stats());
    }
    Ok(())
}
