//! One device shared by several threads, on every device found: ops, chains
//! and drops from many threads at once give exactly the host's results (the
//! inputs are small integers, so every float result is exact), and buffers
//! outlive the device handle they came from. What the conformance suite
//! (one thread, one op at a time) cannot reach.

mod common;

use rosetta::{Border, Conv2dSpec, Device, MatmulSpec, ReduceOp};

const THREADS: usize = 4;
const ROUNDS: usize = 3;

/// A small deterministic generator (values below `bound`).
struct Values(u64);

impl Values {
    fn next(&mut self, bound: u32) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as u32) % bound
    }

    fn floats(&mut self, n: usize, bound: u32) -> Vec<f32> {
        (0..n).map(|_| self.next(bound) as f32).collect()
    }
}

/// Every op once on `device`, its inputs from `seed` and `n`, each result
/// compared with the host's; the first difference is returned.
fn round(device: &Device, seed: u64, n: usize) -> Result<(), String> {
    let id = device.info().id();
    let fail = |what: &str| format!("{id}: {what} differs from the host's (seed {seed}, n {n})");
    let err = |e: rosetta::Error| format!("{id}: {e} (seed {seed}, n {n})");
    let mut values = Values(seed);
    let xs: Vec<u32> = (0..n).map(|_| values.next(1000)).collect();
    let x = device.upload(&xs).map_err(err)?;

    let sum = x
        .reduce(ReduceOp::Sum)
        .and_then(|s| s.to_vec())
        .map_err(err)?;
    if sum != [xs.iter().sum::<u32>()] {
        return Err(fail("sum"));
    }
    // A chain: the scan stays on the device and is reduced there.
    let scan = x.scan().map_err(err)?;
    let prefix: Vec<u32> = xs
        .iter()
        .scan(0u32, |acc, &v| {
            *acc += v;
            Some(*acc)
        })
        .collect();
    if scan.to_vec().map_err(err)? != prefix {
        return Err(fail("scan"));
    }
    let last = scan
        .reduce(ReduceOp::Max)
        .and_then(|m| m.to_vec())
        .map_err(err)?;
    if last != [prefix[n - 1]] {
        return Err(fail("max of the scan"));
    }
    drop(scan);
    let counts = x.histogram(1000).and_then(|h| h.to_vec()).map_err(err)?;
    let mut expected = vec![0u32; 1000];
    for &v in &xs {
        expected[v as usize] += 1;
    }
    if counts != expected {
        return Err(fail("histogram"));
    }

    let spec = MatmulSpec {
        m: 17 + (seed as usize % 5),
        k: 33,
        n: 9,
    };
    let (a, b) = (
        values.floats(spec.m * spec.k, 7),
        values.floats(spec.k * spec.n, 7),
    );
    let c = device
        .upload(&a)
        .and_then(|a| a.matmul(&device.upload(&b)?, &spec))
        .and_then(|c| c.to_vec())
        .map_err(err)?;
    let product: Vec<f32> = (0..spec.m * spec.n)
        .map(|e| {
            let (i, j) = (e / spec.n, e % spec.n);
            (0..spec.k)
                .map(|l| a[i * spec.k + l] * b[l * spec.n + j])
                .sum()
        })
        .collect();
    if c != product {
        return Err(fail("matmul"));
    }

    let (signal, taps) = (values.floats(n, 5), values.floats(5, 3));
    let filtered = device
        .upload(&signal)
        .and_then(|s| s.conv1d(&device.upload(&taps)?))
        .and_then(|y| y.to_vec())
        .map_err(err)?;
    if filtered != common::correlate(&signal, &taps) {
        return Err(fail("conv1d"));
    }

    let spec = Conv2dSpec {
        height: 31,
        width: 45,
        kh: 3,
        kw: 3,
        border: Border::Zero,
    };
    let (image, filter) = (values.floats(31 * 45, 5), values.floats(9, 3));
    let blurred = device
        .upload(&image)
        .and_then(|i| i.conv2d(&device.upload(&filter)?, &spec))
        .and_then(|y| y.to_vec())
        .map_err(err)?;
    let at = |y: usize, x: usize, dy: usize, dx: usize| {
        let (py, px) = ((y + dy).checked_sub(1)?, (x + dx).checked_sub(1)?);
        (py < 31 && px < 45).then(|| image[py * 45 + px] * filter[dy * 3 + dx])
    };
    let expected: Vec<f32> = (0..31 * 45)
        .map(|e| {
            (0..9)
                .filter_map(|f| at(e / 45, e % 45, f / 3, f % 3))
                .sum()
        })
        .collect();
    if blurred != expected {
        return Err(fail("conv2d"));
    }
    Ok(())
}

/// `THREADS` threads share each device, each running `ROUNDS` rounds of
/// every op on its own inputs (lengths differ by thread and round).
#[test]
fn threads_sharing_a_device_get_the_hosts_results() {
    for device in &common::all_devices() {
        let failures: Vec<String> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..THREADS)
                .map(|t| {
                    scope.spawn(move || {
                        (0..ROUNDS)
                            .filter_map(|r| {
                                let seed = (t * 1000 + r) as u64;
                                round(device, seed, 3000 + t * 37 + r).err()
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().expect("a worker panicked"))
                .collect()
        });
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}

/// Buffers outlive their device handle, and are read and dropped on other
/// threads: a chain's result is still right.
#[test]
fn buffers_outlive_their_device_across_threads() {
    let values: Vec<u32> = (0..10_000).collect();
    let expected: u32 = values
        .iter()
        .scan(0u32, |acc, &v| {
            *acc = acc.wrapping_add(v);
            Some(*acc)
        })
        .fold(0u32, u32::wrapping_add);
    for _ in 0..2 {
        let devices = common::all_devices();
        let mut held = Vec::new();
        for device in &devices {
            let id = device.info().id();
            let x = device.upload(&values).unwrap();
            let scan = x.scan().unwrap();
            let sum = scan.reduce(ReduceOp::Sum).unwrap();
            held.push((id, x, scan, sum));
        }
        drop(devices);
        let readers: Vec<_> = held
            .into_iter()
            .map(|(id, x, scan, sum)| {
                std::thread::spawn(move || {
                    let got = sum.to_vec().unwrap();
                    drop((x, scan));
                    (id, got)
                })
            })
            .collect();
        for reader in readers {
            let (id, got) = reader.join().expect("a reader panicked");
            assert_eq!(got, [expected], "{id}");
        }
    }
}
