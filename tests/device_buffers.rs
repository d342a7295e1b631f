//! The device-resident API on every device found: what the conformance
//! suite (which runs ops on host slices) cannot reach — one buffer given as
//! two operands, and handles of another opening of the same device.

use rosetta::{discover, Api, MatmulSpec};

/// One buffer may be both read-only operands of an op (squaring a matrix,
/// correlating a signal with itself): the results are the host's.
#[test]
fn one_buffer_may_be_both_operands() {
    let found = discover(&Api::ALL);
    let devices: Vec<_> = found.devices().collect();
    assert!(
        !devices.is_empty(),
        "no device at all (the CPU backend is always there)"
    );
    for device in devices {
        let id = device.info().id();
        // A 3×3 matrix of small integers: A·A is exact in f32.
        let a: Vec<f32> = (0..9).map(|i| (i % 5) as f32 - 2.0).collect();
        let square: Vec<f32> = (0..9)
            .map(|e| (0..3).map(|k| a[e / 3 * 3 + k] * a[k * 3 + e % 3]).sum())
            .collect();
        let buffer = device.upload(&a).unwrap();
        let spec = MatmulSpec { m: 3, k: 3, n: 3 };
        let got = buffer.matmul(&buffer, &spec).unwrap().to_vec().unwrap();
        assert_eq!(got, square, "{id}: A·A");
        // x correlated with itself ("same" size, zero border), 5 taps.
        let x: Vec<f32> = vec![1.0, -2.0, 3.0, 0.5, 4.0];
        let expected: Vec<f32> = (0..5usize)
            .map(|i| {
                (0..5usize)
                    .filter_map(|t| {
                        (i + t)
                            .checked_sub(2)
                            .and_then(|j| x.get(j))
                            .map(|v| v * x[t])
                    })
                    .sum()
            })
            .collect();
        let signal = device.upload(&x).unwrap();
        let got = signal.conv1d(&signal).unwrap().to_vec().unwrap();
        assert_eq!(got, expected, "{id}: x ⋆ x");
    }
}

/// A buffer of one opening of a device used with another opening of the
/// same device is refused, and the message tells the two apart.
#[test]
fn handles_of_another_opening_are_refused_by_name() {
    let first = discover(&[Api::Cpu]);
    let second = discover(&[Api::Cpu]);
    let (a, b) = (
        first.devices().next().expect("the CPU backend"),
        second.devices().next().expect("the CPU backend"),
    );
    let x = a.upload(&[1.0f32; 4]).unwrap();
    let y = b.upload(&[1.0f32; 4]).unwrap();
    let e = x
        .matmul(&y, &MatmulSpec { m: 2, k: 2, n: 2 })
        .unwrap_err()
        .to_string();
    assert!(e.contains("made on device cpu:0 #"), "{e}");
    let tags: Vec<&str> = e
        .split('#')
        .skip(1)
        .map(|t| t.split(' ').next().unwrap_or(""))
        .collect();
    assert_eq!(tags.len(), 2, "{e}");
    assert_ne!(tags[0], tags[1], "{e}");
}
