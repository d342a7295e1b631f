//! A timestamp holds the OpenCL queue behind a closed user event until the
//! next call that is not a launch or a timestamp (so a timed batch runs
//! back to back). Every call that waits must open it first, or it would
//! wait forever: transfers between marks, `finish` and `elapsed` after
//! them, and dropping the device with the gate closed all complete.

mod common;

use rosetta_core::Buffer;

#[test]
fn a_closed_timing_gate_never_blocks_a_wait() {
    for device in common::devices("a_closed_timing_gate_never_blocks_a_wait") {
        let id = device.info().id();
        let buffer = Buffer::new(&device, 16).unwrap();
        let begin = device.timestamp().unwrap();
        // A blocking write and read between marks.
        buffer.write(&[1u32, 2, 3, 4]).unwrap();
        let _middle = device.timestamp().unwrap();
        assert_eq!(buffer.read::<u32>(4).unwrap(), vec![1, 2, 3, 4], "{id}");
        let end = device.timestamp().unwrap();
        device.finish().unwrap();
        let (elapsed, _) = device.elapsed(&begin, &end).unwrap();
        assert!(elapsed.as_secs() < 10, "{id}: {elapsed:?}");
        // Marks followed directly by elapsed, twice (the gate closes again).
        for _ in 0..2 {
            let begin = device.timestamp().unwrap();
            let end = device.timestamp().unwrap();
            device.elapsed(&begin, &end).unwrap();
        }
        // The device dropped with the gate closed.
        let _left = device.timestamp().unwrap();
        drop(buffer);
    }
}
