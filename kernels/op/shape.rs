//! Workload shapes a user names (`rosetta bench --shape`, `rosetta tune
//! --shape`): the presets measure a few shapes, a user's own products and
//! signals are others, and the tuner keeps one choice per shape class.
//!
//! A shape is sides joined by `x` (`512x768x1024`), each a number or a
//! power of two written `2^k`. Each op says what its sides mean
//! ([`crate::op::Op::shape_forms`]) and checks them with its spec.

use rosetta_core::{Error, Result};

/// The most a shape's sides may multiply to. Workloads count bytes and
/// operations in `u64` from products of at most four sides times small
/// constants; below 2^56 none of those overflow, and no device holds
/// anything near it.
pub const MAX_SHAPE_PRODUCT: u64 = 1 << 56;

/// Parse `text` (`512x768x1024`, `2^20`): sides of at least 1 whose product
/// is at most [`MAX_SHAPE_PRODUCT`]; an [`Error::InvalidArgument`] naming
/// what is wrong otherwise.
pub fn parse_shape(text: &str) -> Result<Vec<usize>> {
    let bad = |why: String| Error::InvalidArgument(format!("shape '{text}': {why}"));
    let mut sides = Vec::new();
    let mut product: u64 = 1;
    for part in text.split(['x', 'X', '×']) {
        let part = part.trim();
        let side = match part.split_once('^') {
            Some(("2", log)) => match log.parse::<u32>() {
                Ok(log) if log < 64 => 1u64 << log,
                _ => return Err(bad(format!("'{part}' is not a power of two below 2^64"))),
            },
            Some(_) => return Err(bad(format!("'{part}': only powers of two, 2^k"))),
            None => part
                .parse::<u64>()
                .map_err(|_| bad(format!("'{part}' is not a number (sides are joined by x)")))?,
        };
        if side == 0 {
            return Err(bad("every side must be at least 1".into()));
        }
        product = product
            .checked_mul(side)
            .filter(|&p| p <= MAX_SHAPE_PRODUCT)
            .ok_or_else(|| bad("its sides multiply to more than 2^56".into()))?;
        sides.push(
            usize::try_from(side).map_err(|_| bad(format!("{side} does not fit this machine")))?,
        );
    }
    Ok(sides)
}

/// The error for `dims` that fit none of `op`'s `forms`.
pub fn wrong_form(op: &str, dims: &[usize], forms: &[&str]) -> Error {
    Error::InvalidArgument(format!(
        "{op} takes a shape of the form {} (got {} side{})",
        forms.join(" or "),
        dims.len(),
        if dims.len() == 1 { "" } else { "s" }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_parse_sides_and_powers_of_two() {
        assert_eq!(parse_shape("512x768x1024").unwrap(), vec![512, 768, 1024]);
        assert_eq!(parse_shape("2^20").unwrap(), vec![1 << 20]);
        assert_eq!(parse_shape("3X2^4 x 5").unwrap(), vec![3, 16, 5]);
        assert_eq!(parse_shape("7×9").unwrap(), vec![7, 9]);
    }

    #[test]
    fn bad_shapes_are_usage_errors_that_say_why() {
        for (text, why) in [
            ("", "not a number"),
            ("12x", "not a number"),
            ("12,5", "not a number"),
            ("-4", "not a number"),
            ("0x5", "at least 1"),
            ("3^4", "only powers of two"),
            ("2^64", "below 2^64"),
            ("2^40x2^17", "more than 2^56"),
            ("4294967296x4294967296x4294967296", "more than 2^56"),
        ] {
            let e = parse_shape(text).unwrap_err();
            assert!(e.is_usage(), "{text}: {e}");
            assert!(e.to_string().contains(why), "{text}: {e}");
        }
        // The bound itself is allowed.
        assert_eq!(parse_shape("2^28x2^28").unwrap(), vec![1 << 28, 1 << 28]);
    }

    #[test]
    fn the_wrong_number_of_sides_names_the_forms() {
        let e = wrong_form("matmul", &[1, 2], &["MxKxN", "N"]);
        assert!(e.is_usage());
        assert_eq!(
            e.to_string(),
            "invalid argument: matmul takes a shape of the form MxKxN or N (got 2 sides)"
        );
    }
}
