//! Transfers larger than one API call moves (256 MiB pieces): writes,
//! reads and copies at unaligned-to-chunk offsets across several piece
//! boundaries. (NVIDIA fails one 8 GiB `clEnqueueWriteBuffer`; the pieces
//! are what makes such buffers work.)

mod common;

use rosetta_core::Buffer;

#[test]
fn transfers_cross_chunk_boundaries() {
    const MIB: u64 = 1 << 20;
    for device in common::devices("transfers_cross_chunk_boundaries") {
        let id = device.info().id();
        let bytes = 600 * MIB;
        if device.info().caps.max_buffer_bytes < bytes + 4096 {
            eprintln!("SKIPPED on {id}: buffers of 600 MiB exceed the device limit");
            continue;
        }
        let words: Vec<u32> = (0..(bytes / 4) as u32)
            .map(|i| i.wrapping_mul(2_654_435_761) ^ 0x5a5a_5a5a)
            .collect();
        let data: &[u8] = bytemuck::cast_slice(&words);
        let a = Buffer::new(&device, bytes + 4096).unwrap();
        device.write(&a, 1024, data).unwrap();
        let mut back = vec![0u8; data.len()];
        device.read(&a, 1024, &mut back).unwrap();
        assert!(back == data, "{id}: write/read round trip differs");
        drop(back);

        // Copy the middle 520 MiB to another offset of another buffer.
        let b = Buffer::new(&device, bytes + 4096).unwrap();
        let (from, to, len) = (1024 + 40 * MIB, 12, 520 * MIB);
        device.copy(&a, from, &b, to, len).unwrap();
        let mut copied = vec![0u8; len as usize];
        device.read(&b, to, &mut copied).unwrap();
        let start = (40 * MIB) as usize;
        assert!(
            copied[..] == data[start..start + len as usize],
            "{id}: copy differs"
        );
        let mut head = [0xffu8; 12];
        device.read(&b, 0, &mut head).unwrap();
        assert_eq!(head, [0; 12], "{id}: copy wrote before its range");
        // Zeroing covers every piece.
        b.zero().unwrap();
        device.read(&b, to, &mut copied).unwrap();
        assert!(copied.iter().all(|&x| x == 0), "{id}: zero missed bytes");
    }
}
