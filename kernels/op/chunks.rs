//! Work split over launches where one launch would pass the loop budget:
//! the convolutions' `direct` variant sums its filter in consecutive chunks,
//! one launch each, every launch adding to the sums the one before left in
//! the output (the order of one pass, so any split gives the same bits).

use rosetta_core::{check_limit, Result};

/// The most launches a plan splits its work over; more is refused with
/// `ExceedsLimit` (on lavapipe, 16 382 values a launch: about 67 million).
pub const MAX_DIRECT_LAUNCHES: u64 = 4096;

/// What the refusals of [`split_in_chunks`] say, per op.
pub struct ChunkLimits {
    /// Even a one-value chunk passes the loop budget.
    pub one_value: &'static str,
    /// More launches than [`MAX_DIRECT_LAUNCHES`].
    pub launches: &'static str,
}

/// Loop iterations one invocation runs in one launch of `chunk` values,
/// counted generously: the grid-stride loop over its `per_group` outputs,
/// each with one iteration of its own and `chunk` values (nothing else
/// loops).
pub fn direct_loop_iterations(chunk: u64, per_group: u64) -> u64 {
    per_group.saturating_mul(chunk.saturating_add(1))
}

/// `(chunk, launches)` for `values` values where `per_group` outputs fall to
/// each invocation: chunks of at most `most` values, each launch within
/// `budget` loop iterations per invocation ([`direct_loop_iterations`]), the
/// fewest launches, evened out (the last chunk may hold fewer; none is
/// empty). `ExceedsLimit` where even one value per launch passes the budget,
/// or more than [`MAX_DIRECT_LAUNCHES`] launches are needed.
pub fn split_in_chunks(
    values: u64,
    per_group: u64,
    budget: u64,
    most: u64,
    limits: &ChunkLimits,
) -> Result<(u64, u64)> {
    check_limit(
        limits.one_value,
        direct_loop_iterations(1, per_group),
        budget,
    )?;
    let within = (budget / per_group.max(1)).saturating_sub(1);
    let longest = within.min(most).max(1);
    let values = values.max(1);
    let launches = values.div_ceil(longest);
    check_limit(limits.launches, launches, MAX_DIRECT_LAUNCHES)?;
    let chunk = values.div_ceil(launches);
    Ok((chunk, values.div_ceil(chunk)))
}

/// The ranges `[begin, end)` of `values` values in chunks of `chunk`:
/// consecutive, in order, none empty, covering them exactly.
pub fn chunk_ranges(values: u64, chunk: u64) -> impl Iterator<Item = (u64, u64)> {
    let chunk = chunk.max(1);
    (0..values.div_ceil(chunk)).map(move |i| (i * chunk, ((i + 1) * chunk).min(values)))
}
