//! Scratch: zero a buffer past 16 GiB and read samples back.
use rosetta::{discover, Api};

fn main() {
    let sel: Vec<String> = std::env::args().skip(1).collect();
    for device in discover(&Api::ALL).select(&sel).unwrap() {
        let backend = device.backend();
        for gib in [1u64, 17, 20] {
            let bytes = gib << 30;
            if bytes > backend.info().caps.max_buffer_bytes {
                println!("{}: {gib} GiB over the limit", backend.info().id());
                continue;
            }
            let buffer = backend.alloc(bytes).unwrap();
            let offsets: Vec<u64> = (0..64).map(|i| (bytes / 64) * i + (i * 4096) % (bytes / 64)).map(|o| o / 16 * 16).chain([bytes - 16]).collect();
            let mut bad = 0;
            for &o in &offsets {
                let mut w = [0xffu8; 16];
                backend.read(&buffer, o, &mut w).unwrap();
                if w != [0; 16] { bad += 1; }
                backend.write(&buffer, o, &[0xab; 16]).unwrap();
            }
            let t = std::time::Instant::now();
            buffer.zero().unwrap();
            backend.finish().unwrap();
            let ms = t.elapsed().as_secs_f64() * 1e3;
            for &o in &offsets {
                let mut w = [0xffu8; 16];
                backend.read(&buffer, o, &mut w).unwrap();
                if w != [0; 16] { bad += 1; }
            }
            println!("{}: {gib} GiB zeroed in {ms:.2} ms, {} samples, {bad} nonzero", backend.info().id(), offsets.len() * 2);
        }
    }
}
