//! Buffers longer than the data they hold, for cases that check where a
//! kernel reads and writes: inputs followed by NaN (a read past the data
//! turns outputs into NaN) and outputs followed by a sentinel (a write past
//! the data changes it). Plans accept buffers longer than they need, so a
//! user's buffers can look like this.

use super::Verdict;

/// Words after the data.
pub const PADDING: usize = 67;

/// What the output words after the data hold, and must still hold.
pub const SENTINEL: f32 = 12_345.0;

/// `values` followed by [`PADDING`] NaNs.
pub fn nan_padded(values: &[f32]) -> Vec<f32> {
    let mut padded = values.to_vec();
    padded.extend([f32::NAN; PADDING]);
    padded
}

/// An output of `len` words and the padding, every word [`SENTINEL`].
pub fn sentinel_output(len: usize) -> Vec<f32> {
    vec![SENTINEL; len + PADDING]
}

/// The failure when a word of `got` at or past `len` no longer holds
/// [`SENTINEL`]; `None` when every one does.
pub fn sentinel_changed(got: &[f32], len: usize) -> Option<Verdict> {
    let i = got
        .get(len..)?
        .iter()
        .position(|v| v.to_bits() != SENTINEL.to_bits())?;
    Some(Verdict::fail(format!(
        "output word {} (past the {len} outputs) changed to {}",
        len + i,
        got[len + i]
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_sentinel_fails_and_untouched_padding_passes() {
        let mut out = sentinel_output(3);
        out[..3].copy_from_slice(&[1.0, 2.0, 3.0]);
        assert!(sentinel_changed(&out, 3).is_none());
        out[3 + PADDING - 1] = 0.0;
        let v = sentinel_changed(&out, 3).expect("the last padding word changed");
        assert!(!v.passed());
        assert!(
            v.detail.contains(&format!("word {}", 3 + PADDING - 1)),
            "{}",
            v.detail
        );
        assert!(nan_padded(&[1.0])[1..].iter().all(|v| v.is_nan()));
    }
}
