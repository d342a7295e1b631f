//! `ROSETTA_VULKAN_FOLD_CONSTANTS=1`, the diagnostic that builds each Vulkan
//! kernel with its constants folded into the GLSL instead of specialization
//! constants: the quick `ops` cases pass through it on every Vulkan device,
//! as they do without it. (Its folded modules declare no specialization
//! constants, and the interface check once refused every kernel with a
//! constant besides `GROUP_SIZE` as "not declared in the source".)
//!
//! One test in this binary: it sets the variable for the whole process.
#![cfg(feature = "vulkan")]

mod common;

use rosetta::kernels::op::CaseGroup;
use rosetta::{conform, Api};

#[test]
fn folded_constants_build_and_pass_every_quick_op_case() {
    std::env::set_var("ROSETTA_VULKAN_FOLD_CONSTANTS", "1");
    let devices = common::devices_of(Api::Vulkan);
    let cases: Vec<_> = conform::all_cases()
        .into_iter()
        .filter(|c| c.quick && c.group == CaseGroup::Ops)
        .collect();
    assert!(!cases.is_empty());
    let options = conform::Options {
        quick: true,
        budget: std::time::Duration::from_millis(500),
    };
    let report = conform::run(&devices, &cases, Vec::new(), &options, &|_| {});
    for s in &report.summary {
        eprintln!(
            "{} (folded constants): {} passed, {} failed, {} skipped, {} unsupported",
            s.device, s.passed, s.failed, s.skipped, s.unsupported
        );
        assert_eq!(
            s.failed, 0,
            "{}: cases failed with folded constants",
            s.device
        );
        assert_eq!(
            s.unsupported, 0,
            "{}: cases unsupported with folded constants",
            s.device
        );
        assert!(
            s.passed >= cases.len() * 9 / 10,
            "{}: only {} of {} cases passed with folded constants",
            s.device,
            s.passed,
            cases.len()
        );
    }
}
