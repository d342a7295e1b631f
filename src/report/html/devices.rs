//! The page's header (machines) and its devices: physical devices with the
//! columns that reach them and how each was matched, capabilities, APIs
//! without devices.

use super::text::{badge, count, escape, format_bytes, yes_no};
use crate::report::charts::css_color;
use crate::report::model::{Matched, Report};
use rosetta_core::{DeviceInfo, DeviceType};
use std::fmt::Write as _;

/// Which column of its API `column` is (its colour's shade).
pub fn shade(report: &Report, column: usize) -> usize {
    let Some(col) = report.columns.get(column) else {
        return 0;
    };
    report.columns[..column]
        .iter()
        .filter(|c| c.info.api == col.info.api)
        .count()
}

/// A colour chip for a column.
pub fn chip(report: &Report, column: usize) -> String {
    let api = report
        .columns
        .get(column)
        .map(|c| c.info.api.name())
        .unwrap_or("");
    format!(
        "<span class=\"chip\" style=\"background:{}\"></span>",
        css_color(api, shade(report, column))
    )
}

/// The title, what the report holds, and the machines.
pub fn header(report: &Report, title: &str) -> String {
    let mut html = format!("<h1>{}</h1>", escape(title));
    let mut sizes: Vec<&str> = Vec::new();
    for b in &report.bench {
        if !sizes.contains(&b.run.size.as_str()) {
            sizes.push(&b.run.size);
        }
    }
    let _ = write!(
        html,
        "<p class=\"meta\">written by rosetta {} · {} machine(s) · {} device(s) on {} physical device(s)",
        escape(&report.rosetta_version),
        report.machines.len(),
        report.columns.len(),
        report.physical.len()
    );
    if !report.conformance.is_empty() {
        let _ = write!(html, " · conformance {}", badge(report.passed));
    }
    if !sizes.is_empty() {
        let _ = write!(
            html,
            " · benchmark size preset <b>{}</b>",
            escape(&sizes.join(", "))
        );
    }
    html.push_str("</p>");
    html.push_str(
        "<table><tr><th>machine</th><th>host</th><th>OS</th><th>CPU</th><th>rosetta</th>\
         <th>results</th></tr>",
    );
    for (m, entry) in report.machines.iter().enumerate() {
        let mut results: Vec<String> = Vec::new();
        let source = |s: &Option<String>| {
            s.as_deref()
                .map(|f| format!("<code>{}</code>", escape(f)))
                .unwrap_or_else(|| "this run".into())
        };
        for c in report.conformance.iter().filter(|c| c.machine == m) {
            results.push(format!(
                "conformance ({} cases) from {}",
                c.run.cases.len(),
                source(&c.source)
            ));
        }
        for b in report.bench.iter().filter(|b| b.machine == m) {
            results.push(format!(
                "benchmark ({}, {} results) from {}",
                escape(&b.run.size),
                b.run.results.len(),
                source(&b.source)
            ));
        }
        let _ = write!(
            html,
            "<tr><td class=\"nw\"><b>{}</b></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&entry.label),
            escape(&entry.machine.host),
            escape(&entry.machine.os),
            escape(&entry.machine.cpu),
            escape(&entry.machine.rosetta),
            results.join("<br>")
        );
    }
    html.push_str("</table>");
    html
}

fn device_type(t: DeviceType) -> &'static str {
    match t {
        DeviceType::Cpu => "CPU",
        DeviceType::DiscreteGpu => "discrete GPU",
        DeviceType::IntegratedGpu => "integrated GPU",
        DeviceType::VirtualGpu => "virtual GPU",
        DeviceType::Other => "other",
    }
}

fn matched_name(m: Matched) -> &'static str {
    match m {
        Matched::Pci => "PCI bus id",
        Matched::Uuid => "UUID",
        Matched::Cpu => "CPU",
        Matched::Name => "by name",
        Matched::Alone => "no id",
        Matched::Ambiguous => "kept apart",
    }
}

/// Physical devices, capabilities, APIs without devices.
pub fn section(report: &Report) -> String {
    let mut html = String::from("<h2 id=\"devices\">Devices</h2>");
    if report.columns.is_empty() {
        html.push_str("<p class=\"note\">No device was found or selected.</p>");
    } else {
        html.push_str(&physical_table(report));
        html.push_str(&capabilities_table(report));
    }
    html.push_str(&absent(report));
    html
}

fn physical_table(report: &Report) -> String {
    let mut html = String::from(
        "<h3 id=\"physical\">Physical devices</h3><p class=\"note\">One GPU reached through several APIs \
         is one physical device: devices are grouped by the PCI bus id or UUID their API reports. A device \
         whose API reports neither (wgpu on some drivers) joins the physical device of the same machine with \
         its name (ignoring suffixes such as “ (Vulkan)”) when exactly one has it, and is kept apart \
         otherwise. Every CPU-type device (the CPU backend, lavapipe, PoCL) runs on the machine's CPU. \
         Each device says how it was matched.</p>",
    );
    html.push_str(
        "<table><tr><th>machine</th><th>physical device</th><th>id</th><th>devices (how matched)</th></tr>",
    );
    for p in &report.physical {
        let machine = report
            .machines
            .get(p.machine)
            .map(|m| m.label.as_str())
            .unwrap_or("");
        let members: Vec<String> = p
            .members
            .iter()
            .map(|m| {
                let label = report
                    .columns
                    .get(m.column)
                    .map(|c| c.label.as_str())
                    .unwrap_or("?");
                format!(
                    "{}<b>{}</b> — {}: <span class=\"muted\">{}</span>",
                    chip(report, m.column),
                    escape(label),
                    matched_name(m.matched),
                    escape(&m.note)
                )
            })
            .collect();
        let _ = write!(
            html,
            "<tr><td class=\"nw\">{}</td><td class=\"nw\">{}</td><td class=\"nw\"><code>{}</code></td><td>{}</td></tr>",
            escape(machine),
            escape(&p.name),
            escape(p.key.as_deref().unwrap_or("—")),
            members.join("<br>")
        );
    }
    html.push_str("</table>");
    html
}

/// Devices as columns, capabilities as rows; a first header row spans each
/// physical device's columns.
fn capabilities_table(report: &Report) -> String {
    type Row = (&'static str, fn(&DeviceInfo) -> String);
    let rows: [Row; 17] = [
        ("name", |d| escape(&d.name)),
        ("type", |d| device_type(d.caps.device_type).into()),
        ("driver", |d| escape(&d.driver)),
        ("driver version", |d| match d.driver_version.as_str() {
            "" => "—".into(),
            v => escape(v),
        }),
        ("PCI bus id / UUID", |d| {
            let ids: Vec<String> = [&d.physical.pci_bus_id, &d.physical.uuid]
                .into_iter()
                .flatten()
                .map(|s| escape(s))
                .collect();
            if ids.is_empty() {
                "—".into()
            } else {
                ids.join("<br>")
            }
        }),
        ("compute units", |d| match d.caps.compute_units {
            0 => "—".into(),
            n => n.to_string(),
        }),
        ("memory", |d| match d.caps.memory_bytes {
            0 => "—".into(),
            n => format_bytes(n),
        }),
        ("largest buffer", |d| format_bytes(d.caps.max_buffer_bytes)),
        ("shared memory per workgroup", |d| {
            format_bytes(u64::from(d.caps.max_shared_bytes))
        }),
        ("workgroup invocations", |d| {
            d.caps.max_group_invocations.to_string()
        }),
        ("workgroup size per axis", |d| {
            let [x, y, z] = d.caps.max_group_size;
            format!("{x}×{y}×{z}")
        }),
        ("workgroups per axis", |d| {
            let [x, y, z] = d.caps.max_groups;
            format!("{}×{}×{}", count(x), count(y), count(z))
        }),
        ("subgroup sizes", |d| match d.caps.subgroup_sizes {
            Some([lo, hi]) if lo == hi => lo.to_string(),
            Some([lo, hi]) => format!("{lo}–{hi}"),
            None => "—".into(),
        }),
        ("subgroup ops / float atomics", |d| {
            format!(
                "{} / {}",
                yes_no(d.caps.subgroup_ops),
                yes_no(d.caps.float_atomics)
            )
        }),
        ("device fence / async copy", |d| {
            format!(
                "{} / {}",
                yes_no(d.caps.device_fence),
                yes_no(d.caps.async_copy)
            )
        }),
        ("loop limit", |d| match d.caps.loop_limit {
            Some(n) => format!("{n} iterations"),
            None => "—".into(),
        }),
        ("timer", |d| {
            if d.caps.timestamps {
                "device timestamps".into()
            } else {
                "<b>host clock</b>".into()
            }
        }),
    ];
    let mut html = String::from(
        "<h3>Capabilities</h3><div class=\"scroll\"><table class=\"caps\"><tr><th></th>",
    );
    for p in &report.physical {
        let _ = write!(
            html,
            "<th class=\"phys\" colspan=\"{}\">{}</th>",
            p.members.len().max(1),
            escape(&p.label)
        );
    }
    html.push_str("</tr><tr><th></th>");
    for (i, c) in report.columns.iter().enumerate() {
        let _ = write!(html, "<th>{}{}</th>", chip(report, i), escape(&c.label));
    }
    html.push_str("</tr>");
    for (name, cell) in rows {
        let _ = write!(html, "<tr><th class=\"row\">{name}</th>");
        for c in &report.columns {
            let _ = write!(html, "<td>{}</td>", cell(&c.info));
        }
        html.push_str("</tr>");
    }
    html.push_str("</table></div>");
    html
}

fn absent(report: &Report) -> String {
    let rows: Vec<String> = report
        .machines
        .iter()
        .flat_map(|m| {
            m.absent.iter().map(move |a| {
                format!(
                    "<tr><td class=\"nw\">{}</td><td class=\"id\">{}</td><td>{}</td></tr>",
                    escape(&m.label),
                    escape(&a.api),
                    escape(&a.reason)
                )
            })
        })
        .collect();
    let mut html = String::from("<h3>APIs without devices</h3>");
    if rows.is_empty() {
        html.push_str(
            "<p class=\"note\">None reported (only <code>rosetta report</code> records the APIs it \
             probed; conformance and benchmark files do not).</p>",
        );
    } else {
        html.push_str("<table><tr><th>machine</th><th>API</th><th>why</th></tr>");
        html.push_str(&rows.concat());
        html.push_str("</table>");
    }
    html
}
