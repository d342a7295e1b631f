//! An op's command-line arguments, described as data so the CLI can build
//! `rosetta run <op>` from the list of ops.

use rosetta_core::{Error, Result};
use std::collections::BTreeMap;

/// What an option's value must be (checked before any input is read).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OptionKind {
    /// Any text (or one of [`CliOption::choices`]).
    #[default]
    Text,
    /// A whole number up to `u32::MAX`.
    Count,
    /// Two finite numbers `LO,HI`.
    Range,
}

/// One `--name VALUE` option.
#[derive(Debug, Clone)]
pub struct CliOption {
    /// The long name, without `--`.
    pub name: &'static str,
    /// The value's placeholder in `--help` (`N`, `LO,HI`).
    pub value_name: &'static str,
    /// One line of help.
    pub help: &'static str,
    /// The value when the option is absent (`None`: optional, no default).
    pub default: Option<&'static str>,
    /// The accepted values, when they are a fixed set.
    pub choices: &'static [&'static str],
    /// What the value must be.
    pub kind: OptionKind,
}

/// The arguments of `rosetta run <op>`.
#[derive(Debug, Clone, Default)]
pub struct CliSpec {
    /// Input files, in order (`IMAGE`, `FILTER`).
    pub inputs: Vec<&'static str>,
    /// Options.
    pub options: Vec<CliOption>,
    /// What the inputs must be, for `--help`.
    pub about_inputs: &'static str,
}

/// Parsed option values, by name (defaults filled in).
#[derive(Debug, Clone, Default)]
pub struct Options {
    values: BTreeMap<String, String>,
}

impl Options {
    /// Options from `(name, value)` pairs.
    pub fn new<K: Into<String>, V: Into<String>>(pairs: impl IntoIterator<Item = (K, V)>) -> Self {
        Options {
            values: pairs
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        }
    }

    /// The value of `name`, if given (or defaulted).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// Check every value given against its option's kind, before any work
    /// (a usage error naming the option).
    pub fn check(&self, spec: &CliSpec) -> Result<()> {
        for option in &spec.options {
            match option.kind {
                OptionKind::Text => {}
                OptionKind::Count => drop(self.u32(option.name)?),
                OptionKind::Range => drop(self.range(option.name)?),
            }
        }
        Ok(())
    }

    /// The value of `name` as an unsigned integer.
    pub fn u32(&self, name: &str) -> Result<Option<u32>> {
        self.get(name)
            .map(|v| {
                v.trim().parse::<u32>().map_err(|_| {
                    Error::InvalidArgument(format!(
                        "--{name} must be a whole number up to {}, got '{v}'",
                        u32::MAX
                    ))
                })
            })
            .transpose()
    }

    /// The value of `name` as `LO,HI` (two finite numbers).
    pub fn range(&self, name: &str) -> Result<Option<(f64, f64)>> {
        self.get(name)
            .map(|v| {
                let parts: Vec<&str> = v.split(',').map(str::trim).collect();
                match parts[..] {
                    [lo, hi] => match (lo.parse::<f64>(), hi.parse::<f64>()) {
                        (Ok(lo), Ok(hi)) if lo.is_finite() && hi.is_finite() => Ok((lo, hi)),
                        _ => Err(Error::InvalidArgument(format!(
                            "--{name} needs two finite numbers LO,HI, got '{v}'"
                        ))),
                    },
                    _ => Err(Error::InvalidArgument(format!(
                        "--{name} needs LO,HI, got '{v}'"
                    ))),
                }
            })
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse_with_typed_errors() {
        let o = Options::new([("bins", "16"), ("range", "0, 1.5"), ("bad", "x")]);
        assert_eq!(o.u32("bins").unwrap(), Some(16));
        assert_eq!(o.range("range").unwrap(), Some((0.0, 1.5)));
        assert!(o.u32("bad").is_err());
        assert!(o.range("bad").is_err());
        assert_eq!(o.u32("absent").unwrap(), None);
        assert!(Options::new([("r", "0,inf")]).range("r").is_err());
        assert!(Options::new([("n", "4294967296")]).u32("n").is_err());
    }
}
