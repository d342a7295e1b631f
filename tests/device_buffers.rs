//! The device-resident API on every device found: what the conformance
//! suite (which runs ops on host slices) cannot reach — one buffer given as
//! two operands, and handles of another opening of the same device.

mod common;

use rosetta::{discover, Api, MatmulSpec};

/// One buffer may be both read-only operands of an op (squaring a matrix,
/// correlating a signal with itself): the results are the host's.
#[test]
fn one_buffer_may_be_both_operands() {
    for device in &common::all_devices() {
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
        let signal = device.upload(&x).unwrap();
        let got = signal.conv1d(&signal).unwrap().to_vec().unwrap();
        assert_eq!(got, common::correlate(&x, &x), "{id}: x ⋆ x");
    }
}

/// `try_clone` of a buffer wrapped from a larger raw one copies the values
/// only: the clone holds `len` values in a buffer sized for them (it used to
/// copy, and allocate, the whole raw buffer), for u8 tails that end inside a
/// word too.
#[test]
fn a_clone_of_a_wrapped_buffer_holds_only_its_values() {
    for device in &common::all_devices() {
        let id = device.info().id();
        let backend = device.backend();
        let words: Vec<u32> = (0..(1u32 << 18))
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect();
        let raw = rosetta::core::Buffer::from_slice(backend, &words).unwrap();
        let wrapped = rosetta::DeviceBuffer::<u32>::from_raw(raw, 3).unwrap();
        let clone = wrapped.try_clone().unwrap();
        assert_eq!(clone.len(), 3, "{id}");
        assert_eq!(clone.raw().bytes(), 12, "{id}: the clone's size");
        assert_eq!(clone.to_vec().unwrap(), words[..3], "{id}: u32 values");
        drop(wrapped);
        assert_eq!(
            clone.to_vec().unwrap(),
            words[..3],
            "{id}: after the original is gone"
        );

        let bytes: Vec<u8> = (0..4096u32).map(|i| (i * 7 + 3) as u8).collect();
        for len in [0usize, 1, 5, 6, 7, 8, 4095] {
            let raw = rosetta::core::Buffer::from_slice(backend, &bytes).unwrap();
            let wrapped = rosetta::DeviceBuffer::<u8>::from_raw(raw, len).unwrap();
            let clone = wrapped.try_clone().unwrap();
            drop(wrapped);
            assert_eq!(
                clone.raw().bytes(),
                len as u64,
                "{id}: u8 x {len}, the clone's size"
            );
            assert_eq!(clone.to_vec().unwrap(), bytes[..len], "{id}: u8 x {len}");
        }
    }
}

/// A buffer of one opening of a device used with another opening of the
/// same device is refused, and the message tells the two apart — the
/// facade's check and a plan's own (which said "made on device cpu:0 used
/// on device cpu:0").
#[test]
fn handles_of_another_opening_are_refused_by_name() {
    use rosetta::core::Elem;
    use rosetta::kernels::reduce::{ReducePlan, ReduceSpec};
    use rosetta::ReduceOp;
    let first = discover(&[Api::Cpu]);
    let second = discover(&[Api::Cpu]);
    let (a, b) = (
        first.devices().next().expect("the CPU backend"),
        second.devices().next().expect("the CPU backend"),
    );
    let x = a.upload(&[1.0f32; 4]).unwrap();
    let y = b.upload(&[1.0f32; 4]).unwrap();
    let facade = x
        .matmul(&y, &MatmulSpec { m: 2, k: 2, n: 2 })
        .unwrap_err()
        .to_string();
    let spec = ReduceSpec {
        elem: Elem::F32,
        op: ReduceOp::Sum,
        len: 4,
    };
    let plan = ReducePlan::new(a.backend(), &spec).unwrap();
    let out = a.zeros::<f32>(1).unwrap();
    let planned = plan.encode(y.raw(), out.raw()).unwrap_err().to_string();
    for e in [facade, planned] {
        assert!(e.contains("made on device cpu:0 #"), "{e}");
        let tags: Vec<&str> = e
            .split('#')
            .skip(1)
            .map(|t| t.split(' ').next().unwrap_or(""))
            .collect();
        assert_eq!(tags.len(), 2, "{e}");
        assert_ne!(tags[0], tags[1], "{e}");
    }
}

/// Every plan refuses to write a buffer it reads, before it touches either
/// — whatever the length (a histogram zeroed its counts before the launch
/// refused them, so its values were lost; an empty plan returned early) and
/// whatever the device's variant (two-pass reductions bind input and output
/// in different launches, and so ran in place where one-launch ones were
/// refused).
#[test]
fn plans_refuse_to_write_what_they_read_before_touching_it() {
    use rosetta::core::{Elem, ErrorKind};
    use rosetta::kernels::conv1d::Conv1dPlan;
    use rosetta::kernels::conv2d::Conv2dPlan;
    use rosetta::kernels::copy::CopyPlan;
    use rosetta::kernels::histogram::{HistogramInput, HistogramPlan, HistogramSpec};
    use rosetta::kernels::matmul::MatmulPlan;
    use rosetta::kernels::reduce::{ReducePlan, ReduceSpec};
    use rosetta::kernels::scan::{ScanPlan, ScanSpec};
    use rosetta::{Border, Conv1dSpec, Conv2dSpec, ReduceOp};

    let found = discover(&Api::ALL);
    let mut checked = 0;
    for device in found.devices() {
        let id = device.info().id();
        let backend = device.backend();
        for len in [0usize, 1, 9, 100_003] {
            let values: Vec<u32> = (0..len as u32).map(|i| i % 7 + 1).collect();
            // At least 16 words, so that every op's one-word or 3×3 needs fit.
            let mut words = values.clone();
            words.resize(len.max(16), 5);
            let buffer = device.upload(&words).unwrap();
            let raw = buffer.raw();
            let mut refusals: Vec<(&str, rosetta::core::Error)> = Vec::new();
            let mut refuse = |what: &'static str, r: rosetta::core::Result<()>| match r {
                Err(e) => refusals.push((what, e)),
                Ok(()) => panic!("{id}: {what} in place (len {len}) was accepted"),
            };
            let histogram = HistogramSpec {
                input: HistogramInput::U32,
                len,
                bins: 8,
            };
            let plan = HistogramPlan::new(backend, &histogram).unwrap();
            refuse("histogram", plan.encode(raw, raw));
            for op in [ReduceOp::Sum, ReduceOp::Max] {
                let spec = ReduceSpec {
                    elem: Elem::U32,
                    op,
                    len: len.max(1),
                };
                let plan = ReducePlan::new(backend, &spec).unwrap();
                refuse("reduce", plan.encode(raw, raw));
            }
            let spec = ScanSpec {
                elem: Elem::U32,
                len,
            };
            refuse(
                "scan",
                ScanPlan::new(backend, &spec).unwrap().encode(raw, raw),
            );
            refuse(
                "copy",
                CopyPlan::new(backend, len as u64).unwrap().encode(raw, raw),
            );
            let f32_words = device.upload(&vec![0.5f32; words.len()]).unwrap();
            let f = f32_words.raw();
            let spec = Conv1dSpec { len, taps: 3 };
            let plan = Conv1dPlan::new(backend, &spec).unwrap();
            refuse("conv1d", plan.encode(f, raw, f));
            let spec = Conv2dSpec {
                height: len.min(3),
                width: len.min(3),
                kh: 3,
                kw: 3,
                border: Border::Zero,
            };
            let plan = Conv2dPlan::new(backend, &spec, Elem::F32).unwrap();
            refuse("conv2d", plan.encode(raw, f, f));
            let side = len.clamp(1, 3);
            let spec = MatmulSpec {
                m: side,
                k: side,
                n: side,
            };
            let plan = MatmulPlan::new(backend, &spec).unwrap();
            refuse("matmul", plan.encode(raw, f, raw));
            for (what, e) in refusals {
                assert_eq!(e.kind(), ErrorKind::Usage, "{id} {what} (len {len}): {e}");
                assert!(e.to_string().contains("must be another buffer"), "{e}");
            }
            // Nothing was written: not zeroed, not reduced in place.
            assert_eq!(buffer.to_vec().unwrap(), words, "{id} (len {len})");
            assert!(
                f32_words.to_vec().unwrap().iter().all(|&v| v == 0.5),
                "{id}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 4, "the CPU backend is always there");
}

/// Filters past what shared memory or a register window holds (the
/// convolutions' `direct` variant) through the facade, on every device:
/// all-ones data, so every output is a count of filter values over the input,
/// exact in f32 — a dropped tap, row or launch shows.
#[test]
fn filters_of_any_size_run_through_the_facade() {
    use rosetta::{Border, Conv2dSpec};
    for device in &common::all_devices() {
        let id = device.info().id();
        // conv1d: 20 001 taps over 5 003 values (zero border).
        let (n, taps) = (5_003usize, 20_001usize);
        let radius = taps / 2;
        let expected: Vec<f32> = (0..n)
            .map(|i| {
                (0..taps)
                    .filter(|&j| (i + j).checked_sub(radius).is_some_and(|p| p < n))
                    .count() as f32
            })
            .collect();
        let got = device.conv1d(&vec![1.0; n], &vec![1.0; taps]).unwrap();
        assert_eq!(got, expected, "{id}: conv1d of {taps} taps");
        let signal = device.upload(&vec![1.0f32; n]).unwrap();
        let filter = device.upload(&vec![1.0f32; taps]).unwrap();
        let got = signal.conv1d(&filter).unwrap().to_vec().unwrap();
        assert_eq!(got, expected, "{id}: conv1d of {taps} taps, device buffers");
        // conv2d: 67 × 65 over a 19 × 23 u8 image of ones; clamped, every
        // output counts the whole filter.
        let spec = Conv2dSpec {
            height: 19,
            width: 23,
            kh: 67,
            kw: 65,
            border: Border::Clamp,
        };
        let got = device
            .conv2d_u8(&[1u8; 19 * 23], &vec![1.0; 67 * 65], &spec)
            .unwrap();
        assert_eq!(
            got,
            vec![(67 * 65) as f32; 19 * 23],
            "{id}: conv2d 67x65 clamp"
        );
        // The zero border: output (y, x) counts the filter's values over the image.
        let spec = Conv2dSpec {
            border: Border::Zero,
            ..spec
        };
        let inside = |p: usize, k: usize, len: usize| {
            (0..k)
                .filter(|&t| (p + t).checked_sub(k / 2).is_some_and(|q| q < len))
                .count()
        };
        let expected: Vec<f32> = (0..19 * 23)
            .map(|o| (inside(o / 23, 67, 19) * inside(o % 23, 65, 23)) as f32)
            .collect();
        let got = device
            .conv2d(&vec![1.0; 19 * 23], &vec![1.0; 67 * 65], &spec)
            .unwrap();
        assert_eq!(got, expected, "{id}: conv2d 67x65 zero");
    }
}

/// Sizes from user input are checked before anything is allocated, and the
/// same mistake gives the same error whichever call makes it: a length
/// whose bytes overflow u64 is an invalid argument (a usage error) through
/// `zeros` and `from_raw` alike; one past the device's largest buffer is
/// over that device's limit (kind `Device`: another device may hold it).
#[test]
fn oversized_buffers_are_refused_alike() {
    use rosetta::core::Error as CoreError;
    use rosetta::{DeviceBuffer, Error};
    for device in &common::all_devices() {
        let id = device.info().id();
        let device_error = |e: Error| match e {
            Error::Device(e) => e,
            other => panic!("{id}: {other:?} is not a device error"),
        };
        let overflow = device_error(device.zeros::<f32>(usize::MAX).err().unwrap());
        assert!(
            matches!(overflow, CoreError::InvalidArgument(_)),
            "{id}: {overflow:?}"
        );
        let raw = || device.backend().alloc(16).unwrap();
        let raw_overflow = DeviceBuffer::<f32>::from_raw(raw(), usize::MAX);
        let raw_overflow = device_error(raw_overflow.err().unwrap());
        assert_eq!(raw_overflow.to_string(), overflow.to_string(), "{id}");
        let too_long = DeviceBuffer::<f32>::from_raw(raw(), 5).err().unwrap();
        assert!(too_long.is_usage(), "{id}: {too_long:?}");
        let limit = device.info().caps.max_buffer_bytes;
        let past = usize::try_from(limit / 4 + 1).unwrap();
        let over = device_error(device.zeros::<f32>(past).err().unwrap());
        assert!(
            matches!(over, CoreError::ExceedsLimit { .. }),
            "{id}: {over:?}"
        );
        assert!(overflow.is_usage(), "{id}");
        assert_eq!(over.kind(), rosetta::ErrorKind::Device, "{id}");
    }
}

/// Filling a GPU's memory with buffers ends in a typed error (out of
/// memory, or the device's limit), never a crash, a hang or a buffer that
/// is not there; once the buffers are dropped the device allocates and
/// computes again. Ignored by default: it fills the memory of every GPU it
/// finds (CPU-type devices are skipped: their memory is the host's). Run it
/// on a GPU machine with `cargo test --release --test device_buffers --
/// --ignored`.
#[test]
#[ignore = "fills every GPU's memory: run on a GPU machine with --ignored"]
fn filling_a_gpus_memory_is_a_typed_error_and_the_device_recovers() {
    use rosetta::core::{DeviceType, Error as CoreError};
    use rosetta::{Error, ReduceOp};
    const GIB: u64 = 1 << 30;
    let gpus: Vec<_> = common::all_devices()
        .into_iter()
        .filter(|d| d.info().caps.device_type != DeviceType::Cpu)
        .collect();
    assert!(!gpus.is_empty(), "no GPU: this test is for a GPU machine");
    for device in gpus {
        let info = device.info();
        let id = info.id();
        let chunk = info.caps.max_buffer_bytes.min(GIB) / 4 * 4;
        // Twice the memory, or 256 GiB where the API does not say: a driver
        // that lends host memory beyond that is not an error, only noted.
        let memory = if info.caps.memory_bytes > 0 {
            info.caps.memory_bytes
        } else {
            256 * GIB
        };
        let most = usize::try_from(2 * memory / chunk + 4).unwrap();
        let len = usize::try_from(chunk / 4).unwrap();
        let mut held = Vec::new();
        let refused = loop {
            // `finish` waits for the zero fill: an API that allocates at
            // first use (OpenCL) fails there, not at `zeros`.
            match device
                .zeros::<f32>(len)
                .and_then(|b| device.finish().map(|()| b))
            {
                Ok(buffer) if held.len() < most => held.push(buffer),
                Ok(_) => break None,
                Err(e) => break Some(e),
            }
        };
        let filled = held.len() as u64 * chunk;
        match refused {
            None => eprintln!(
                "{id}: {} GiB allocated without an error (the driver lends more than it has)",
                filled / GIB
            ),
            Some(e) => {
                eprintln!("{id}: refused after {} GiB: {e}", filled / GIB);
                let Error::Device(core) = &e else {
                    panic!("{id}: {e:?} is not a device error");
                };
                assert!(
                    matches!(
                        core,
                        CoreError::OutOfMemory { .. } | CoreError::ExceedsLimit { .. }
                    ),
                    "{id}: {core:?}"
                );
                assert!(!e.to_string().contains('\n'), "{id}: {e}");
            }
        }
        // The buffers held are usable: the last one takes a write and reads
        // it back.
        if let Some(last) = held.last() {
            last.write(&vec![7.0f32; len]).unwrap();
            let back = last.to_vec().unwrap();
            assert_eq!((back[0], back[len - 1]), (7.0, 7.0), "{id}");
        }
        drop(held);
        // After the drop: as many buffers of another size class (the pool's
        // buffers of the first class are given back when memory runs out),
        // then an op with a known answer.
        let again = usize::try_from(filled / (chunk / 4 * 3)).unwrap().max(1) / 2;
        let others: Vec<_> = (0..again)
            .map(|i| {
                let b = device.zeros::<f32>(len / 4 * 3);
                let b = b.and_then(|b| device.finish().map(|()| b));
                b.unwrap_or_else(|e| panic!("{id}: buffer {i} of {again} after the drop: {e}"))
            })
            .collect();
        drop(others);
        let values: Vec<u32> = (1..=1000).collect();
        let sum = device
            .upload(&values)
            .and_then(|x| x.reduce(ReduceOp::Sum))
            .and_then(|s| s.to_vec())
            .unwrap_or_else(|e| panic!("{id}: a sum after the drop: {e}"));
        assert_eq!(sum, vec![500_500], "{id}");
    }
}
