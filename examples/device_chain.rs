//! A chain of ops that stays on the device: a u8 image is uploaded once,
//! its histogram counted, blurred (5×5 box filter, f32 output), summed for
//! its mean brightness and scanned, and only the results come back. Each op returns a new
//! `DeviceBuffer` on the same device; memory of dropped buffers is pooled and
//! reused by the next op.
//!
//! ```text
//! cargo run --release --example device_chain --features vulkan -- vulkan
//! ```

use rosetta::{discover, Api, Border, Conv2dSpec, ReduceOp};

fn main() -> Result<(), rosetta::Error> {
    let selectors: Vec<String> = std::env::args().skip(1).collect();
    let selectors = if selectors.is_empty() {
        vec!["all".to_string()]
    } else {
        selectors
    };
    let (height, width) = (480, 640);
    // A synthetic 8-bit image: a gradient with a bright square.
    let pixels: Vec<u8> = (0..height * width)
        .map(|p| {
            let (y, x) = (p / width, p % width);
            if (200..280).contains(&y) && (280..360).contains(&x) {
                255
            } else {
                ((x + y) / 5) as u8
            }
        })
        .collect();
    let blur = vec![1.0f32 / 25.0; 25];
    let spec = Conv2dSpec {
        height,
        width,
        kh: 5,
        kw: 5,
        border: Border::Clamp,
    };

    for device in discover(&Api::ALL).select(&selectors)? {
        let image = device.upload(&pixels)?; // DeviceBuffer<u8>: 300 KiB, not 1.2 MiB of u32
        let histogram = image.histogram(256)?.to_vec()?; // counts of each byte value
        let filter = device.upload(&blur)?;
        let blurred = image.conv2d(&filter, &spec)?; // DeviceBuffer<f32>, on the device
        let total = blurred.reduce(ReduceOp::Sum)?.to_vec()?[0];
        let brightest = blurred.reduce(ReduceOp::Max)?.to_vec()?[0];
        let running = blurred.scan()?; // still on the device
        let last = running.to_vec()?[height * width - 1];
        println!(
            "{}: mean {:.2}, brightest {brightest:.1}, cumulative {last:.0} (pool: {:?})",
            device.info().id(),
            total / (height * width) as f32,
            device.backend().pool_stats()
        );
        assert!((brightest - 255.0).abs() < 1e-3);
        assert_eq!(
            histogram.iter().map(|&c| c as usize).sum::<usize>(),
            height * width
        );
        assert_eq!(histogram[255], 80 * 80);
        assert!((last - total).abs() <= 1e-3 * total.abs());
    }
    Ok(())
}
