//! Device timers on every device found: what an interval between two marks
//! holds, whichever command each API's interval starts from.

mod common;

use rosetta::core::{Buffer, Clock};
use rosetta::kernels::matmul::MatmulPlan;
use rosetta::MatmulSpec;

/// In queue order each later interval to the same end mark lies inside
/// each earlier one, and with a device timer an interval is longer than a
/// later one by the work between their marks: an interval that began at a
/// later command than its first (a mark resolved late, a timestamp written
/// after the work it should precede) would be no longer than the one from
/// the mark after that first command.
#[test]
fn intervals_hold_the_work_after_their_marks() {
    for device in common::all_devices() {
        let id = device.info().id();
        let backend = device.backend();
        let size = 192;
        let spec = MatmulSpec {
            m: size,
            k: size,
            n: size,
        };
        let values: Vec<f32> = (0..size * size).map(|i| (i % 7) as f32 - 3.0).collect();
        let lhs = Buffer::from_slice(backend, &values).unwrap();
        let rhs = Buffer::from_slice(backend, &values).unwrap();
        let out = backend.alloc((size * size * 4) as u64).unwrap();
        let plan = MatmulPlan::new(backend, &spec).unwrap();
        // Built and run once before the marks.
        plan.encode(&lhs, &rhs, &out).unwrap();
        backend.finish().unwrap();

        // Marks b0 and b1, a matmul (L1), a mark m, a second matmul (L2), a
        // mark e: b1's interval holds L1 whole, m's does not.
        let b0 = backend.timestamp().unwrap();
        let b1 = backend.timestamp().unwrap();
        plan.encode(&lhs, &rhs, &out).unwrap();
        let m = backend.timestamp().unwrap();
        plan.encode(&lhs, &rhs, &out).unwrap();
        let e = backend.timestamp().unwrap();
        let (from_b0, clock) = backend.elapsed(&b0, &e).unwrap();
        let (from_b1, _) = backend.elapsed(&b1, &e).unwrap();
        let (from_m, _) = backend.elapsed(&m, &e).unwrap();
        assert!(
            from_b0 >= from_b1 && from_b1 >= from_m,
            "{id}: nested intervals {from_b0:?} ≥ {from_b1:?} ≥ {from_m:?}"
        );
        if clock == Clock::Device {
            assert!(
                from_b1 > from_m,
                "{id}: the interval from b1 ({from_b1:?}) holds a matmul more than m's ({from_m:?})"
            );
        }

        // A mark b, a write, a mark m, a matmul, a mark e: b's interval
        // holds the write, so it is longer than m's.
        let b = backend.timestamp().unwrap();
        out.write(&values).unwrap();
        let m = backend.timestamp().unwrap();
        plan.encode(&lhs, &rhs, &out).unwrap();
        let e = backend.timestamp().unwrap();
        let (from_b, clock) = backend.elapsed(&b, &e).unwrap();
        let (from_m, _) = backend.elapsed(&m, &e).unwrap();
        assert!(from_b >= from_m, "{id}: {from_b:?} ≥ {from_m:?}");
        if clock == Clock::Device {
            assert!(
                from_b > from_m,
                "{id}: the interval from b ({from_b:?}) holds a write more than m's ({from_m:?})"
            );
        }
    }
}
