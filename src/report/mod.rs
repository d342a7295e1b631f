//! The report: one page (`index.html`) and one JSON (`results.json`,
//! `rosetta-report/2`, documented in `docs/report-json.md`) from the runs of
//! one or several machines.
//!
//! `rosetta` / `rosetta report` make one from their own run
//! ([`Report::new`]); `rosetta report --merge` from result files of any
//! machines ([`merge`]): reports, conformance runs, benchmark runs. Every
//! device of every machine is a column; devices that are one physical device
//! (the same GPU through CUDA, Vulkan, OpenCL and wgpu) are grouped; the
//! conformance matrix matches cases by name and shows a case a device did not
//! run as not run.
//!
//! Modules, each using only those listed before it:
//! - `model`: the data ([`Report`] and its parts);
//! - `load`: reading and checking one result file;
//! - `physical`: which devices of a machine are one physical device;
//! - `merge`: runs → report (machines, columns, physical devices, matrix);
//! - `compare`: benchmark runs of different machines side by side;
//! - `charts`: SVG charts of benchmark series;
//! - `html`: the page;
//! - `files`: writing the folder.

mod charts;
mod compare;
mod files;
#[cfg(test)]
pub(crate) mod fixtures;
mod html;
mod load;
mod merge;
mod model;
mod physical;

pub use compare::{compare_across, device_map};
pub use files::write_bench_html;
pub use merge::merge;
pub use model::{
    Absent, BenchRun, Cell, CellStatus, Column, ConformRun, MachineEntry, Matched, MatrixCase,
    Member, PhysicalDevice, Report, SCHEMA,
};
pub use physical::normalize_name;
