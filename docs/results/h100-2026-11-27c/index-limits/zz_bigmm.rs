//! Scratch (not committed): matmul with operands at the 32-bit index limits.
use rosetta::{discover, Api, Device, MatmulSpec};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let selectors: Vec<String> = std::env::args().skip(1).collect();
    let cases: Vec<[usize; 3]> = std::env::var("SHAPES").unwrap_or("1,4294967295,1;65537,65535,1;1,65535,65537;2,2147483647,3".into())
        .split(';').map(|c| { let v: Vec<usize> = c.split(',').map(|x| x.parse().unwrap()).collect(); [v[0], v[1], v[2]] }).collect();
    for device in discover(&Api::ALL).select(&selectors)? {
        let dev = Device::new(device.backend().clone());
        let id = dev.info().id();
        for &[m, k, n] in &cases {
            let t = Instant::now();
            // A: row i holds ones at columns j with (i + j) % 7 == 0 and at the last column.
            // B: row j holds 1 at column j % n, and 2 at every column in its last row.
            // C[i][c] = #{j : A[i][j] = 1 and j % n == c} + 2 (from j = k - 1, where A is 1), exactly
            // (all partial sums are small integers).
            let a: Vec<f32> = (0..m * k).map(|e| { let (i, j) = (e / k, e % k); if (i + j) % 7 == 0 || j == k - 1 { 1.0 } else { 0.0 } }).collect();
            let b: Vec<f32> = (0..k * n).map(|e| { let (j, c) = (e / n, e % n); if j == k - 1 { 2.0 } else if j % n == c { 1.0 } else { 0.0 } }).collect();
            let spec = MatmulSpec { m, k, n };
            match dev.matmul(&a, &b, &spec) {
                Ok(c) => {
                    let mut wrong = None;
                    for i in 0..m {
                        for col in 0..n {
                            // Count j < k - 1 with A[i][j] = 1 and j % n == col.
                            let mut count = 0u64;
                            let mut j = col;
                            while j < k - 1 { if (i + j) % 7 == 0 { count += 1; } j += n; }
                            let want = count as f32 + 2.0 + if (k - 1) % n == col && false { 0.0 } else { 0.0 };
                            let got = c[i * n + col];
                            if got != want && wrong.is_none() { wrong = Some(format!("C[{i}][{col}] = {got}, want {want}")); }
                        }
                    }
                    match wrong {
                        None => println!("ok    [{id}] matmul {m}x{k}x{n} ({:.1}s)", t.elapsed().as_secs_f64()),
                        Some(w) => println!("WRONG [{id}] matmul {m}x{k}x{n}: {w}"),
                    }
                }
                Err(e) => println!("error [{id}] matmul {m}x{k}x{n}: {e} (kind {:?})", e.kind()),
            }
        }
    }
    Ok(())
}
