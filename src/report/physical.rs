//! Which devices of one machine are one physical device: the same GPU seen
//! through CUDA, Vulkan, OpenCL and wgpu.
//!
//! 1. Every CPU-type device (the CPU backend, lavapipe, PoCL) is the
//!    machine's CPU.
//! 2. Devices whose API reported a PCI bus id or UUID are one device when
//!    they share either (compared without case or dashes).
//! 3. A device whose API reported neither joins the physical device of step 2
//!    that has its name, when exactly one has it (names compared without
//!    case and without an API suffix such as wgpu's ` (Vulkan)`). When none
//!    has it, devices without ids that share the name are one device if no
//!    API lists two devices of that name. Otherwise it stays apart
//!    ([`Matched::Ambiguous`]).

use super::model::{Matched, Member};
use rosetta_core::DeviceInfo;

/// Suffixes an API appends to a device's name (wgpu: its backend).
const API_SUFFIXES: [&str; 6] = [
    " (vulkan)",
    " (metal)",
    " (dx12)",
    " (gl)",
    " (webgpu)",
    " (noop)",
];

/// A device name as compared across APIs: lower case, single spaces, no API
/// suffix.
pub fn normalize_name(name: &str) -> String {
    let mut n: String = name.split_whitespace().collect::<Vec<_>>().join(" ");
    n = n.to_lowercase();
    for suffix in API_SUFFIXES {
        if let Some(stripped) = n.strip_suffix(suffix) {
            n = stripped.to_string();
            break;
        }
    }
    n
}

/// A device's name without an API suffix, as shown (case kept).
pub fn display_name(name: &str) -> String {
    let trimmed = name.trim();
    for suffix in API_SUFFIXES {
        let cut = trimmed.len().saturating_sub(suffix.len());
        if let (Some(head), Some(tail)) = (trimmed.get(..cut), trimmed.get(cut..)) {
            if trimmed.len() >= suffix.len() && tail.eq_ignore_ascii_case(suffix) {
                return head.to_string();
            }
        }
    }
    trimmed.to_string()
}

/// The ids a device's API reported, as tokens (`pci:…`, `uuid:…`).
fn tokens(info: &DeviceInfo) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(p) = &info.physical.pci_bus_id {
        let p = p.trim().to_lowercase();
        if !p.is_empty() {
            out.push(format!("pci:{p}"));
        }
    }
    if let Some(u) = &info.physical.uuid {
        let u: String = u
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| *c != '-')
            .collect();
        if !u.is_empty() && u.chars().any(|c| c != '0') {
            out.push(format!("uuid:{u}"));
        }
    }
    out
}

/// One physical device found among a machine's devices.
#[derive(Debug, Clone)]
pub struct Group {
    /// Its name.
    pub name: String,
    /// `pci:…`, `uuid:…`, `host-cpu`, or `None`.
    pub key: Option<String>,
    /// Its members (the `column` values given to [`group`]).
    pub members: Vec<Member>,
}

struct Building {
    tokens: Vec<String>,
    members: Vec<Member>,
    names: Vec<String>,
    display: String,
}

/// Group one machine's devices (`(column, device)`, in column order) by
/// physical device (see the module docs). `cpu` names the machine's CPU.
/// GPUs (and other devices) come first, in order of their first column; the
/// CPU last.
pub fn group(cpu: &str, devices: &[(usize, &DeviceInfo)]) -> Vec<Group> {
    let mut cpu_members = Vec::new();
    let mut keyed: Vec<Building> = Vec::new();
    let mut unkeyed: Vec<(usize, &DeviceInfo)> = Vec::new();
    for &(column, info) in devices {
        if info.caps.device_type.is_cpu() {
            cpu_members.push(Member {
                column,
                matched: Matched::Cpu,
                note: "a CPU-type device: the machine's CPU".into(),
            });
            continue;
        }
        let ts = tokens(info);
        if ts.is_empty() {
            unkeyed.push((column, info));
            continue;
        }
        let (matched, note) = match ts[0].split_once(':') {
            Some(("pci", id)) => (Matched::Pci, format!("PCI bus id {id}")),
            Some((_, id)) => (Matched::Uuid, format!("UUID {id}")),
            None => (Matched::Uuid, ts[0].clone()),
        };
        let member = Member {
            column,
            matched,
            note,
        };
        // Every group sharing a token with this device becomes one.
        let hits: Vec<usize> = (0..keyed.len())
            .filter(|&g| keyed[g].tokens.iter().any(|t| ts.contains(t)))
            .collect();
        match hits.split_first() {
            None => keyed.push(Building {
                tokens: ts,
                members: vec![member],
                names: vec![normalize_name(&info.name)],
                display: display_name(&info.name),
            }),
            Some((&first, rest)) => {
                for &g in rest.iter().rev() {
                    let other = keyed.remove(g);
                    keyed[first].tokens.extend(other.tokens);
                    keyed[first].members.extend(other.members);
                    keyed[first].names.extend(other.names);
                }
                let b = &mut keyed[first];
                for t in ts {
                    if !b.tokens.contains(&t) {
                        b.tokens.push(t);
                    }
                }
                b.members.push(member);
                b.names.push(normalize_name(&info.name));
                b.members.sort_by_key(|m| m.column);
            }
        }
    }

    // Devices without ids: by name.
    let mut loose: Vec<Building> = Vec::new();
    let mut placed = vec![false; unkeyed.len()];
    for i in 0..unkeyed.len() {
        if placed[i] {
            continue;
        }
        let (column, info) = unkeyed[i];
        let name = normalize_name(&info.name);
        let candidates: Vec<usize> = (0..keyed.len())
            .filter(|&g| keyed[g].names.contains(&name))
            .collect();
        match candidates.as_slice() {
            [g] => {
                placed[i] = true;
                keyed[*g].members.push(Member {
                    column,
                    matched: Matched::Name,
                    note: format!(
                        "no id from {}; the only physical device of this machine named '{}'",
                        info.api,
                        display_name(&info.name)
                    ),
                });
                keyed[*g].members.sort_by_key(|m| m.column);
            }
            [] => {
                // Other devices without ids of the same name.
                let same: Vec<usize> = (0..unkeyed.len())
                    .filter(|&j| normalize_name(&unkeyed[j].1.name) == name)
                    .collect();
                let peers: Vec<usize> = same.iter().copied().filter(|&j| !placed[j]).collect();
                let mut per_api: Vec<(rosetta_core::Api, String)> = same
                    .iter()
                    .map(|&j| (unkeyed[j].1.api, unkeyed[j].1.id()))
                    .collect();
                per_api.sort_by_key(|(api, id)| (api.name(), id.clone()));
                per_api.dedup();
                let one_each = per_api.windows(2).all(|w| w[0].0 != w[1].0);
                let apis: Vec<rosetta_core::Api> = per_api.iter().map(|(a, _)| *a).collect();
                if one_each {
                    let several = apis.len() > 1;
                    let members = peers
                        .iter()
                        .map(|&j| {
                            placed[j] = true;
                            let (column, info) = unkeyed[j];
                            if several {
                                Member {
                                    column,
                                    matched: Matched::Name,
                                    note: format!(
                                        "no API reported an id; each of {} lists one device named '{}'",
                                        apis.iter().map(|a| a.name()).collect::<Vec<_>>().join(", "),
                                        display_name(&info.name)
                                    ),
                                }
                            } else {
                                Member {
                                    column,
                                    matched: Matched::Alone,
                                    note: format!(
                                        "no id from {}; no other device of this machine is named '{}'",
                                        info.api,
                                        display_name(&info.name)
                                    ),
                                }
                            }
                        })
                        .collect();
                    loose.push(Building {
                        tokens: Vec::new(),
                        members,
                        names: vec![name],
                        display: display_name(&info.name),
                    });
                } else {
                    placed[i] = true;
                    let twice = per_api
                        .windows(2)
                        .find(|w| w[0].0 == w[1].0)
                        .map_or(info.api, |w| w[0].0);
                    loose.push(Building {
                        tokens: Vec::new(),
                        members: vec![Member {
                            column,
                            matched: Matched::Ambiguous,
                            note: format!(
                                "no id from {}, and {twice} lists several devices named '{}': kept apart",
                                info.api,
                                display_name(&info.name)
                            ),
                        }],
                        names: vec![name],
                        display: display_name(&info.name),
                    });
                }
            }
            several => {
                placed[i] = true;
                loose.push(Building {
                    tokens: Vec::new(),
                    members: vec![Member {
                        column,
                        matched: Matched::Ambiguous,
                        note: format!(
                            "no id from {}, and {} physical devices of this machine are named '{}': kept apart",
                            info.api,
                            several.len(),
                            display_name(&info.name)
                        ),
                    }],
                    names: vec![name],
                    display: display_name(&info.name),
                });
            }
        }
    }

    let mut groups: Vec<Group> = keyed
        .into_iter()
        .chain(loose)
        .map(|b| Group {
            name: b.display,
            key: b
                .tokens
                .iter()
                .find(|t| t.starts_with("pci:"))
                .or(b.tokens.first())
                .cloned(),
            members: b.members,
        })
        .collect();
    groups.sort_by_key(|g| g.members.first().map_or(usize::MAX, |m| m.column));
    if !cpu_members.is_empty() {
        groups.push(Group {
            name: if cpu.trim().is_empty() {
                "host CPU".into()
            } else {
                cpu.trim().to_string()
            },
            key: Some("host-cpu".into()),
            members: cpu_members,
        });
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures::device;
    use rosetta_core::Api;

    fn how(groups: &[Group]) -> Vec<Vec<(usize, Matched)>> {
        groups
            .iter()
            .map(|g| g.members.iter().map(|m| (m.column, m.matched)).collect())
            .collect()
    }

    #[test]
    fn names_without_api_suffixes() {
        assert_eq!(normalize_name("NVIDIA  H200 (Vulkan)"), "nvidia h200");
        assert_eq!(normalize_name("NVIDIA H200"), "nvidia h200");
        assert_eq!(
            normalize_name("llvmpipe (LLVM 15.0.6, 256 bits)"),
            "llvmpipe (llvm 15.0.6, 256 bits)"
        );
        assert_eq!(display_name("Radeon (DX12)"), "Radeon");
        assert_eq!(display_name("İİ (gl)"), "İİ");
        assert_eq!(display_name("(gl)"), "(gl)");
        assert_eq!(display_name(""), "");
    }

    #[test]
    fn two_gpus_by_pci_id_and_wgpu_by_unique_name() {
        let devices = [
            device(
                Api::Cuda,
                0,
                "NVIDIA H200",
                true,
                Some("0000:1b:00.0"),
                None,
            ),
            device(Api::Cuda, 1, "NVIDIA L4", true, Some("0000:2c:00.0"), None),
            device(
                Api::Vulkan,
                0,
                "NVIDIA L4",
                true,
                Some("0000:2C:00.0"),
                None,
            ),
            device(
                Api::Vulkan,
                1,
                "NVIDIA H200",
                true,
                Some("0000:1B:00.0"),
                None,
            ),
            device(Api::Wgpu, 0, "NVIDIA L4 (Vulkan)", true, None, None),
            device(Api::Wgpu, 1, "NVIDIA H200 (Vulkan)", true, None, None),
        ];
        let list: Vec<(usize, &DeviceInfo)> = devices.iter().enumerate().collect();
        let groups = group("cpu", &list);
        assert_eq!(
            how(&groups),
            [
                vec![(0, Matched::Pci), (3, Matched::Pci), (5, Matched::Name)],
                vec![(1, Matched::Pci), (2, Matched::Pci), (4, Matched::Name)],
            ]
        );
        assert_eq!(groups[1].key.as_deref(), Some("pci:0000:2c:00.0"));
    }

    #[test]
    fn identical_gpus_keep_an_unidentified_device_apart() {
        let devices = [
            device(
                Api::Cuda,
                0,
                "NVIDIA H200",
                true,
                Some("0000:1b:00.0"),
                None,
            ),
            device(
                Api::Cuda,
                1,
                "NVIDIA H200",
                true,
                Some("0000:2c:00.0"),
                None,
            ),
            device(Api::Wgpu, 0, "NVIDIA H200 (Vulkan)", true, None, None),
        ];
        let list: Vec<(usize, &DeviceInfo)> = devices.iter().enumerate().collect();
        let groups = group("cpu", &list);
        assert_eq!(groups.len(), 3);
        assert_eq!(groups[2].members[0].matched, Matched::Ambiguous);
        assert!(groups[2].members[0].note.contains("2 physical devices"));
    }

    #[test]
    fn devices_without_any_id() {
        // One per API: one device.
        let devices = [
            device(Api::Vulkan, 0, "Radeon RX 7900", true, None, None),
            device(Api::Wgpu, 0, "Radeon RX 7900 (Vulkan)", true, None, None),
            device(Api::Opencl, 0, "Mystery GPU", true, None, None),
        ];
        let list: Vec<(usize, &DeviceInfo)> = devices.iter().enumerate().collect();
        assert_eq!(
            how(&group("cpu", &list)),
            [
                vec![(0, Matched::Name), (1, Matched::Name)],
                vec![(2, Matched::Alone)]
            ]
        );
        // Two of one API with that name: nothing can be told apart.
        let devices = [
            device(Api::Vulkan, 0, "Radeon RX 7900", true, None, None),
            device(Api::Vulkan, 1, "Radeon RX 7900", true, None, None),
            device(Api::Wgpu, 0, "Radeon RX 7900 (Vulkan)", true, None, None),
        ];
        let list: Vec<(usize, &DeviceInfo)> = devices.iter().enumerate().collect();
        let groups = group("cpu", &list);
        assert_eq!(groups.len(), 3);
        assert!(groups
            .iter()
            .all(|g| g.members.len() == 1 && g.members[0].matched == Matched::Ambiguous));
    }

    #[test]
    fn a_uuid_links_pci_groups_and_zero_uuids_are_ignored() {
        let zero = "00000000-0000-0000-0000-000000000000";
        let devices = [
            device(Api::Cuda, 0, "A", true, Some("0000:01:00.0"), Some("ABCD")),
            device(Api::Opencl, 0, "A", true, None, Some("ab-cd")),
            device(Api::Vulkan, 0, "A", true, Some("0000:01:00.0"), None),
            device(Api::Vulkan, 1, "B", true, None, Some(zero)),
            device(Api::Cpu, 0, "cpu", false, None, None),
        ];
        let list: Vec<(usize, &DeviceInfo)> = devices.iter().enumerate().collect();
        let groups = group("Some CPU", &list);
        assert_eq!(
            how(&groups),
            [
                vec![(0, Matched::Pci), (1, Matched::Uuid), (2, Matched::Pci)],
                vec![(3, Matched::Alone)],
                vec![(4, Matched::Cpu)],
            ]
        );
        assert_eq!(groups[2].name, "Some CPU");
        assert!(group("", &[]).is_empty());
    }
}
