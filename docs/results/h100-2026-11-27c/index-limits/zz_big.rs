//! Scratch (not committed): sizes near the kernels' 32-bit index limits, per device.
use rosetta::{discover, Api, Border, Conv2dSpec, Device, ReduceOp};
use std::time::Instant;

fn report(dev: &Device, what: &str, t: Instant, outcome: Result<Option<String>, rosetta::Error>) {
    let id = dev.info().id();
    let s = t.elapsed().as_secs_f64();
    match outcome {
        Ok(None) => println!("ok    [{id}] {what} ({s:.1}s)"),
        Ok(Some(why)) => println!("WRONG [{id}] {what}: {why} ({s:.1}s)"),
        Err(e) => println!("error [{id}] {what}: {e} (kind {:?}) ({s:.1}s)", e.kind()),
    }
}

fn first_diff<T: PartialEq + std::fmt::Debug>(got: &[T], want: impl Fn(usize) -> T) -> Option<String> {
    got.iter().enumerate().find(|(i, g)| **g != want(*i)).map(|(i, g)| format!("at {i} of {}: got {g:?}, want {:?}", got.len(), want(i)))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let selectors: Vec<String> = std::env::args().skip(1).collect();
    let big: usize = std::env::var("BIG").map(|s| s.parse().unwrap()).unwrap_or((1usize << 32) - 1);
    let half: usize = std::env::var("HALF").map(|s| s.parse().unwrap()).unwrap_or((1usize << 31) + 13);
    let side: usize = std::env::var("SIDE").map(|s| s.parse().unwrap()).unwrap_or(65535);
    let big8: usize = std::env::var("BIG8").map(|s| s.parse().unwrap()).unwrap_or(big);
    let only = std::env::var("ONLY").unwrap_or_default();
    let want = |name: &str| only.is_empty() || only.split(',').any(|o| o == name);
    for device in discover(&Api::ALL).select(&selectors)? {
        let dev = Device::new(device.backend().clone());
        if want("reduce") {
            let mut x = vec![1u32; big];
            x[big - 1] = 7;
            let t = Instant::now();
            let r = dev.reduce(&x, ReduceOp::Sum).map(|s| (s != (big as u32).wrapping_add(6)).then(|| format!("sum {s}")));
            report(&dev, &format!("reduce u32 sum n={big}"), t, r);
            let t = Instant::now();
            let r = dev.reduce(&x, ReduceOp::Max).map(|s| (s != 7).then(|| format!("max {s}")));
            report(&dev, &format!("reduce u32 max n={big} (last)"), t, r);
            x[big - 2] = 0;
            let t = Instant::now();
            let r = dev.reduce(&x, ReduceOp::Min).map(|s| (s != 0).then(|| format!("min {s}")));
            report(&dev, &format!("reduce u32 min n={big} (second last)"), t, r);
        }
        if want("scan") {
            let x = vec![1u32; big];
            let t = Instant::now();
            let r = dev.scan(&x).map(|out| first_diff(&out, |i| (i as u32).wrapping_add(1)));
            report(&dev, &format!("scan u32 n={big}"), t, r);
        }
        if want("copy") {
            let x: Vec<u32> = (0..big).map(|i| i as u32 ^ 0x5a5a_5a5a).collect();
            let t = Instant::now();
            let r = (|| {
                let buf = dev.upload(&x)?;
                let clone = buf.try_clone()?;
                drop(buf);
                let back = clone.to_vec()?;
                Ok(first_diff(&back, |i| i as u32 ^ 0x5a5a_5a5a))
            })();
            report(&dev, &format!("upload + try_clone + read u32 n={big}"), t, r);
        }
        if want("hist8") {
            let x: Vec<u8> = (0..big8).map(|i| i as u8).collect();
            let t = Instant::now();
            let r = dev.histogram_u8(&x, 256).map(|h| first_diff(&h, |b| (big8 / 256 + usize::from(b < big8 % 256)) as u32));
            report(&dev, &format!("histogram u8 n={big8}"), t, r);
        }
        if want("hist32") {
            let x: Vec<u32> = (0..big).map(|i| (i % 3) as u32).collect();
            let t = Instant::now();
            let r = dev.histogram(&x, 3).map(|h| first_diff(&h, |b| (big / 3 + usize::from(b < big % 3)) as u32));
            report(&dev, &format!("histogram u32 bins=3 n={big}"), t, r);
        }
        if want("histf") {
            let x: Vec<f32> = (0..half).map(|i| (i % 1000) as f32 + 0.5).collect();
            let t = Instant::now();
            let r = dev.histogram_f32(&x, 1000, (0.0, 1000.0)).map(|h| first_diff(&h, |b| (half / 1000 + usize::from(b < half % 1000)) as u32));
            report(&dev, &format!("histogram f32 bins=1000 n={half}"), t, r);
        }
        if want("conv1d") {
            let n = big - (1 << 21);
            let x = vec![1f32; n];
            let t = Instant::now();
            let r = dev.conv1d(&x, &[1.0, 1.0, 1.0]).map(|out| first_diff(&out, |i| if i == 0 || i == n - 1 { 2.0 } else { 3.0 }));
            report(&dev, &format!("conv1d 3 taps n={n}"), t, r);
        }
        if want("conv2d") {
            let (h, w) = (side, side);
            let x = vec![1f32; h * w];
            let spec = Conv2dSpec { height: h, width: w, kh: 3, kw: 3, border: Border::Zero };
            let t = Instant::now();
            let r = dev.conv2d(&x, &[1.0; 9], &spec).map(|out| {
                first_diff(&out, |i| {
                    let (y, xx) = (i / w, i % w);
                    let rows = 3 - usize::from(y == 0) - usize::from(y == h - 1);
                    let cols = 3 - usize::from(xx == 0) - usize::from(xx == w - 1);
                    (rows * cols) as f32
                })
            });
            report(&dev, &format!("conv2d 3x3 zero {h}x{w}"), t, r);
        }
    }
    Ok(())
}
