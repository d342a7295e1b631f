//! Every op's quick conformance cases on the CPU backend: the ops crate
//! checked on its own, without the facade.

use rosetta_kernels::op::{Context, Status};
use std::time::Duration;

#[test]
fn quick_cases_pass_on_the_cpu() {
    let backend = rosetta_backend_cpu::discover().unwrap().remove(0);
    let ctx = Context {
        backend: &backend,
        quick: true,
        budget: Duration::from_millis(200),
    };
    let mut failures = Vec::new();
    let mut ran = 0;
    for op in rosetta_kernels::ops() {
        for case in op.cases().into_iter().filter(|c| c.quick) {
            let verdict = case.run_on(case.prepare().as_ref(), &ctx);
            ran += 1;
            // Forced variants the CPU lacks (subgroups) are Unsupported, which
            // is what they must say; everything else must pass.
            if !matches!(verdict.status, Status::Passed | Status::Unsupported) {
                failures.push(format!(
                    "{}: {:?} {}",
                    case.name, verdict.status, verdict.detail
                ));
            }
        }
    }
    assert!(ran > 50, "only {ran} quick cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
