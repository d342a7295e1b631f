//! Devices and ops named on the command line.

use super::out::Failure;

/// Discover what `selectors` need and select their devices (`all` when empty).
pub fn select(selectors: &[String]) -> rosetta::Result<(rosetta::Discovery, Vec<rosetta::Device>)> {
    let selectors: Vec<String> = if selectors.is_empty() {
        vec!["all".into()]
    } else {
        selectors.to_vec()
    };
    let parsed = selectors
        .iter()
        .map(|s| rosetta::Selector::parse(s))
        .collect::<rosetta::Result<Vec<_>>>()?;
    let discovery = rosetta::discover(&rosetta::Selector::apis(&parsed));
    let devices = discovery.select(&selectors)?;
    Ok((discovery, devices))
}

/// Check `--op` names (`rosetta::bench::op_name`: the ops and `chain`, the
/// op chains, which the benchmark runs and the tuner says have no
/// variants); a usage error otherwise. Returns them as the ops spell them.
pub fn check_ops(ops: &[String]) -> Result<Vec<String>, Failure> {
    ops.iter()
        .map(|name| {
            rosetta::bench::op_name(name)
                .map(str::to_string)
                .map_err(Failure::Usage)
        })
        .collect()
}

/// Parse `--shape` texts (`rosetta::kernels::op::parse_shape`) for `ops`
/// (as [`check_ops`] gave them): with any shape exactly one op, not the
/// chains, must be named (`rosetta::bench::shaped_op`). A usage error
/// otherwise, before any device is opened.
pub fn check_shapes(ops: &[String], shapes: &[String]) -> Result<Vec<Vec<usize>>, Failure> {
    if shapes.is_empty() {
        return Ok(Vec::new());
    }
    rosetta::bench::shaped_op(ops)?;
    shapes
        .iter()
        .map(|text| rosetta::kernels::op::parse_shape(text).map_err(Failure::from))
        .collect()
}
