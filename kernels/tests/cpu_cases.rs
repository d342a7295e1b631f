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

/// A sum of no values builds no kernel and launches nothing: the plan
/// writes +0 itself, whatever the output held (the kernels' f32 identity
/// is −0).
#[test]
fn an_empty_sum_launches_nothing_and_writes_plus_zero() {
    use rosetta_kernels::reduce::{ReduceOp, ReducePlan, ReduceSpec};
    let backend = rosetta_backend_cpu::discover().unwrap().remove(0);
    for elem in [rosetta_core::Elem::F32, rosetta_core::Elem::U32] {
        let spec = ReduceSpec {
            elem,
            op: ReduceOp::Sum,
            len: 0,
        };
        let plan = ReducePlan::new(&backend, &spec).unwrap();
        assert_eq!(plan.launches(), 0);
        let input = backend.alloc(4).unwrap();
        let output = backend.alloc(4).unwrap();
        output.write(&[0x8000_0000u32]).unwrap();
        plan.encode(&input, &output).unwrap();
        assert_eq!(output.read::<u32>(1).unwrap()[0], 0, "{elem}");
    }
    // Min and max of nothing stay refused.
    let min = ReduceSpec {
        elem: rosetta_core::Elem::F32,
        op: ReduceOp::Min,
        len: 0,
    };
    assert!(ReducePlan::new(&backend, &min).is_err());
}
