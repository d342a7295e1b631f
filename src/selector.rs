//! Device selectors: `api`, `api:N`, `api:text`, or `all`.

use crate::error::{Error, Result};
use rosetta_core::{Api, DeviceInfo};
use std::fmt;

/// Which devices a `--backend` argument names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// Every device of every API.
    All,
    /// Every device of one API.
    Api(Api),
    /// The device at this index in the API's list (`rosetta devices`).
    Index(Api, usize),
    /// Devices of the API whose name contains this text (case-insensitive).
    Name(Api, String),
}

impl Selector {
    /// Parse `all`, `api`, `api:N` or `api:text`.
    pub fn parse(text: &str) -> Result<Self> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("all") {
            return Ok(Selector::All);
        }
        let (api_text, rest) = match text.split_once(':') {
            Some((api, rest)) => (api, Some(rest)),
            None => (text, None),
        };
        if api_text.trim().eq_ignore_ascii_case("all") {
            return Err(Error::NoDevice {
                selector: text.to_string(),
                hint: ": 'all' names every device and takes no ':N' or ':text' \
                       (use API:N or API:text, e.g. vulkan:0)"
                    .into(),
            });
        }
        let api = Api::from_name(api_text).ok_or_else(|| Error::NoDevice {
            selector: text.to_string(),
            hint: format!(
                ": unknown API '{api_text}' (expected all, {})",
                Api::ALL.map(Api::name).join(", ")
            ),
        })?;
        Ok(match rest {
            None => Selector::Api(api),
            Some("") => {
                return Err(Error::NoDevice {
                    selector: text.to_string(),
                    hint: ": empty device after ':'".into(),
                })
            }
            // An index is digits only: `+1` is text, as `rosetta devices`
            // never writes it.
            Some(r) => match r.parse::<usize>() {
                Ok(index) if r.bytes().all(|b| b.is_ascii_digit()) => Selector::Index(api, index),
                _ => Selector::Name(api, r.to_string()),
            },
        })
    }

    /// The API this selector is limited to (`None` for `all`).
    pub fn api(&self) -> Option<Api> {
        match self {
            Selector::All => None,
            Selector::Api(api) | Selector::Index(api, _) | Selector::Name(api, _) => Some(*api),
        }
    }

    /// Whether the selector names this device.
    pub fn matches(&self, info: &DeviceInfo) -> bool {
        match self {
            Selector::All => true,
            Selector::Api(api) => info.api == *api,
            Selector::Index(api, index) => info.api == *api && info.index == *index,
            Selector::Name(api, text) => {
                info.api == *api && info.name.to_lowercase().contains(&text.to_lowercase())
            }
        }
    }

    /// The APIs a list of selectors needs probed.
    pub fn apis(selectors: &[Selector]) -> Vec<Api> {
        if selectors.iter().any(|s| s.api().is_none()) {
            return Api::ALL.to_vec();
        }
        Api::ALL
            .into_iter()
            .filter(|api| selectors.iter().any(|s| s.api() == Some(*api)))
            .collect()
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Selector::All => f.write_str("all"),
            Selector::Api(api) => write!(f, "{api}"),
            Selector::Index(api, i) => write!(f, "{api}:{i}"),
            Selector::Name(api, text) => write!(f, "{api}:{text}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form() {
        assert_eq!(Selector::parse("all").unwrap(), Selector::All);
        assert_eq!(Selector::parse("CUDA").unwrap(), Selector::Api(Api::Cuda));
        assert_eq!(
            Selector::parse("opencl:1").unwrap(),
            Selector::Index(Api::Opencl, 1)
        );
        assert_eq!(
            Selector::parse("wgpu:nvidia").unwrap(),
            Selector::Name(Api::Wgpu, "nvidia".into())
        );
        assert!(matches!(
            Selector::parse("metal"),
            Err(Error::NoDevice { .. })
        ));
        assert!(matches!(
            Selector::parse("cpu:"),
            Err(Error::NoDevice { .. })
        ));
    }

    /// `all` takes no device part, and says so rather than calling itself
    /// an unknown API; an index is digits only.
    #[test]
    fn all_takes_no_device_and_indices_are_digits() {
        for text in ["all:0", "ALL:nvidia", "all:"] {
            let err = Selector::parse(text).unwrap_err().to_string();
            assert!(
                err.contains("'all' names every device and takes no"),
                "{err}"
            );
            assert!(!err.contains("unknown API"), "{err}");
        }
        assert_eq!(
            Selector::parse("wgpu:+1").unwrap(),
            Selector::Name(Api::Wgpu, "+1".into())
        );
        assert_eq!(
            Selector::parse("wgpu:01").unwrap(),
            Selector::Index(Api::Wgpu, 1)
        );
    }

    #[test]
    fn apis_to_probe() {
        let sels = [Selector::Api(Api::Vulkan), Selector::Index(Api::Cpu, 0)];
        assert_eq!(Selector::apis(&sels), vec![Api::Cpu, Api::Vulkan]);
        assert_eq!(Selector::apis(&[Selector::All]).len(), 5);
    }
}
