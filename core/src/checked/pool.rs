//! The buffer pool: dropped buffers are kept, by size class, for the next
//! allocation of that class, so chains of ops and repeated calls do not go
//! to the API for every intermediate.
//!
//! Size classes waste at most a quarter: a request of `b` bytes gets
//! `max(16, next_pow2(b))` up to 64 KiB, and above that the next of
//! `2^k · {1, 1.25, 1.5, 1.75}`. A reused buffer is zeroed (in queue order)
//! before it is handed out, as fresh ones are. The pool holds at most
//! `limit` bytes; a drop beyond that frees the buffer.

use std::collections::BTreeMap;

/// The allocation size for a request of `bytes` (>= 1).
pub(crate) fn size_class(bytes: u64) -> u64 {
    let rounded = bytes.max(16).div_ceil(16) * 16;
    if rounded <= 64 << 10 {
        return rounded.next_power_of_two();
    }
    let top = 63 - rounded.leading_zeros(); // 2^top <= rounded < 2^(top+1)
    let step = 1u64 << (top - 2);
    rounded.div_ceil(step).saturating_mul(step)
}

pub(crate) struct Pool<B> {
    free: BTreeMap<u64, Vec<B>>,
    held: u64,
    limit: u64,
    pub(crate) reused: u64,
    pub(crate) allocated: u64,
}

impl<B> Pool<B> {
    pub(crate) fn new(limit: u64) -> Self {
        Pool {
            free: BTreeMap::new(),
            held: 0,
            limit,
            reused: 0,
            allocated: 0,
        }
    }

    /// A pooled buffer of exactly `capacity` bytes.
    pub(crate) fn take(&mut self, capacity: u64) -> Option<B> {
        let list = self.free.get_mut(&capacity)?;
        let buffer = list.pop()?;
        if list.is_empty() {
            self.free.remove(&capacity);
        }
        self.held -= capacity;
        self.reused += 1;
        Some(buffer)
    }

    /// Keep a buffer, or give it back (`Err`) when the pool is full.
    pub(crate) fn put(&mut self, capacity: u64, buffer: B) -> Result<(), B> {
        if self.held.saturating_add(capacity) > self.limit {
            return Err(buffer);
        }
        self.held += capacity;
        self.free.entry(capacity).or_default().push(buffer);
        Ok(())
    }

    /// Every pooled buffer (to free them).
    pub(crate) fn drain(&mut self) -> Vec<B> {
        self.held = 0;
        std::mem::take(&mut self.free)
            .into_values()
            .flatten()
            .collect()
    }

    pub(crate) fn held(&self) -> u64 {
        self.held
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes_round_up_by_at_most_a_quarter() {
        assert_eq!(size_class(1), 16);
        assert_eq!(size_class(17), 32);
        assert_eq!(size_class(4000), 4096);
        assert_eq!(size_class(64 << 10), 64 << 10);
        for bytes in [
            65_537u64,
            100_000,
            1 << 20,
            (1 << 20) + 1,
            3 << 30,
            12_345_678_901,
        ] {
            let class = size_class(bytes);
            assert!(
                class >= bytes && class.is_multiple_of(16),
                "{bytes} -> {class}"
            );
            assert!(
                (class - bytes) as f64 <= bytes as f64 / 4.0 + 16.0,
                "{bytes} -> {class}"
            );
            assert_eq!(size_class(class), class, "classes are fixed points");
        }
    }

    #[test]
    fn the_pool_reuses_by_class_and_respects_its_limit() {
        let mut pool = Pool::new(128);
        assert!(pool.put(64, "a").is_ok());
        assert!(pool.put(64, "b").is_ok());
        assert_eq!(pool.put(64, "c"), Err("c"));
        assert_eq!(pool.take(32), None);
        assert!(pool.take(64).is_some());
        assert_eq!(pool.held(), 64);
        assert_eq!(pool.drain().len(), 1);
        assert_eq!(pool.held(), 0);
    }
}
