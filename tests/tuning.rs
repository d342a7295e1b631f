//! The library's tuner (`rosetta::tune`): a user's shape tuned from code,
//! its choice stored and used by plans of that shape's class, and what
//! would keep nothing refused before anything is measured. Its own test
//! binary: it sets `ROSETTA_CACHE_DIR` for the whole process.

use rosetta::bench::Options;
use rosetta::kernels::matmul::MatmulPlan;
use rosetta::kernels::op::{parse_shape, Size};
use rosetta::tune::{self, Tuner, ROUNDS};
use rosetta::{discover, Api, ErrorKind, MatmulSpec};
use std::cell::RefCell;

#[test]
fn the_library_tunes_a_users_shape_and_plans_use_it() {
    let dir = std::env::temp_dir().join(format!("rosetta-tuning-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // Set before any cache is opened; no other test runs in this binary.
    std::env::set_var("ROSETTA_CACHE_DIR", &dir);
    let devices = discover(&[Api::Cpu]).select(&["cpu"]).unwrap();
    let matmul_at = |shapes: &[&str]| {
        tune::options(Options {
            shapes: shapes.iter().map(|s| parse_shape(s).unwrap()).collect(),
            ..Options::new(Size::Small, vec!["matmul".into()])
        })
    };

    // What would keep nothing, or names nothing to tune, is refused.
    let usage = |options: Options| match Tuner::new(&devices, options) {
        Err(e) => assert_eq!(e.kind(), ErrorKind::Usage, "{e}"),
        Ok(_) => panic!("accepted"),
    };
    usage(Options::new(Size::Small, vec!["copy".into()]));
    usage(tune::options(Options {
        shapes: vec![vec![64]],
        ..Options::new(Size::Small, Vec::new())
    }));
    usage(matmul_at(&["64x64"]));

    let tuner = Tuner::new(&devices, matmul_at(&["70x130x50"])).unwrap();
    assert_eq!(tuner.jobs(), 1);
    let variants = tuner.first_stage_runs() / ROUNDS;
    assert!(variants > 1, "{variants} variants");
    assert_eq!(tuner.tune(1, &|_| {}).unwrap_err().kind(), ErrorKind::Usage);
    let seen = RefCell::new(Vec::new());
    let tuned = tuner
        .tune(0, &|p| seen.borrow_mut().push((p.done, p.total, p.round)))
        .unwrap();
    let seen = seen.into_inner();
    // Every variant in each round, in order, within the job's runs.
    assert_eq!(seen.len(), variants * ROUNDS, "{seen:?}");
    for (i, &(done, total, round)) in seen.iter().enumerate() {
        assert_eq!(done, i + 1);
        assert!(done <= total && (1..=ROUNDS).contains(&round), "{seen:?}");
    }
    assert_eq!(tuned.op, "matmul");
    assert_eq!(tuned.label, "f32 M=70 K=130 N=50");
    assert!(tuned.wrong.is_empty(), "{:?}", tuned.wrong);
    let (best, median) = tuned.choice.clone().expect("a choice");
    assert_eq!(tuned.measured.len(), variants);
    assert_eq!(tuned.measured[&best], median);
    assert!(tuned.measured.values().all(|&t| t >= median));

    // Plans of the class use the stored choice; another class does not.
    let backend = devices[0].backend();
    for (m, k, n, tuned_class) in [
        (70, 130, 50, true),
        (65, 129, 33, true),
        (70, 130, 65, false),
    ] {
        let plan = MatmulPlan::new(backend, &MatmulSpec { m, k, n }).unwrap();
        assert_eq!(plan.tuned(), tuned_class, "{m}x{k}x{n}");
        if tuned_class {
            // The tiling; the plan names the chunks of k it splits into.
            let tiling = best.split("+splitk").next().unwrap();
            assert!(
                plan.variant().name().starts_with(tiling),
                "{m}x{k}x{n}: {} against {best}",
                plan.variant().name()
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
