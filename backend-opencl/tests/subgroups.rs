//! The reduce kernel's SUBGROUPS = 1 path on every device, also those
//! without subgroups (PoCL's CPU device): a test-only prelude emulates
//! subgroups of one invocation, and workgroups are 96 invocations, so the
//! tree runs over a count of subgroup values that is not a power of two.
//!
//! The kernel's OpenCL C comes from the kernels crate's source file (only
//! the text: this crate does not depend on rosetta-kernels); the reference
//! results are computed here.

mod common;

use rosetta_core::bounds::{sum_bound, within};
use rosetta_core::{inputs, Access, Buffer, KernelDef, KernelSpec, Language, Launch};

const GROUP: u32 = 96;
const PARTIALS: u32 = 7;

/// `ELEM` codes of the reduce kernel: f32, i32, u32.
const F32: u32 = 0;
const I32: u32 = 1;
const U32: u32 = 2;
/// `OP` codes: sum, min, max.
const SUM: u32 = 0;
const MIN: u32 = 1;
const MAX: u32 = 2;

/// What the reduction of `words` (as `elem`) must give, as a check on the
/// result's bits.
fn check(elem: u32, op: u32, words: &[u32], got: u32) -> Result<(), String> {
    match elem {
        F32 => {
            let x: &[f32] = bytemuck::cast_slice(words);
            let got = f32::from_bits(got);
            match op {
                SUM => {
                    let exact: f64 = x.iter().map(|&v| f64::from(v)).sum();
                    let abs: f64 = x.iter().map(|&v| f64::from(v).abs()).sum();
                    let bound = sum_bound(x.len(), abs);
                    within(got, exact, bound)
                        .then_some(())
                        .ok_or(format!("sum {got}, exact {exact}, bound {bound:e}"))
                }
                _ => {
                    // Inputs lie in [-1, 1): no NaN, ordinary comparisons.
                    let want = x
                        .iter()
                        .copied()
                        .reduce(|a, b| if (b < a) == (op == MIN) { b } else { a })
                        .unwrap_or(0.0);
                    (got == want)
                        .then_some(())
                        .ok_or(format!("got {got}, expected {want}"))
                }
            }
        }
        I32 => {
            let x: &[i32] = bytemuck::cast_slice(words);
            let want = match op {
                SUM => x.iter().fold(0i32, |a, &b| a.wrapping_add(b)),
                MIN => x.iter().copied().min().unwrap_or(i32::MAX),
                _ => x.iter().copied().max().unwrap_or(i32::MIN),
            };
            (got as i32 == want)
                .then_some(())
                .ok_or(format!("got {}, expected {want}", got as i32))
        }
        _ => {
            let want = match op {
                SUM => words.iter().fold(0u32, |a, &b| a.wrapping_add(b)),
                MIN => words.iter().copied().min().unwrap_or(u32::MAX),
                _ => words.iter().copied().max().unwrap_or(0),
            };
            (got == want)
                .then_some(())
                .ok_or(format!("got {got}, expected {want}"))
        }
    }
}

#[test]
fn reduce_subgroup_path_with_emulated_subgroups() {
    let def = KernelDef::builder("reduce")
        .constants(["ELEM", "OP", "SUBGROUPS", "LAST_GROUP"])
        .bindings([Access::Read, Access::ReadWrite, Access::ReadWrite])
        .params(["n"])
        .source(
            Language::OpenCl,
            concat!(
                include_str!("emulation/subgroups_of_one.cl"),
                include_str!("../../kernels/reduce/reduce.cl")
            ),
        )
        .build_arc()
        .unwrap();
    for device in common::devices("reduce_subgroup_path_with_emulated_subgroups") {
        let id = device.info().id();
        for (elem, op) in [
            (F32, SUM),
            (F32, MIN),
            (F32, MAX),
            (I32, MIN),
            (U32, SUM),
            (U32, MAX),
        ] {
            let spec = KernelSpec::new(
                &def,
                &[
                    ("GROUP_SIZE", GROUP),
                    ("ELEM", elem),
                    ("OP", op),
                    ("SUBGROUPS", 1),
                    ("LAST_GROUP", 0),
                ],
            )
            .unwrap();
            let kernel = device
                .compile(&spec)
                .unwrap_or_else(|e| panic!("{id}: {}", e.chain()));
            for len in [1usize, 97, 1000, 100_003] {
                let words: Vec<u32> = match elem {
                    F32 => bytemuck::cast_vec(inputs::f32_values(len as u64, len)),
                    I32 => bytemuck::cast_vec(inputs::i32_values(len as u64, len)),
                    _ => inputs::u32_values(len as u64, len),
                };
                // Two passes, as the reduce plan runs them: 7 groups, then one.
                let input = Buffer::from_slice(&device, &words).unwrap();
                let partials = Buffer::new(&device, u64::from(PARTIALS) * 4).unwrap();
                let out = Buffer::new(&device, 4).unwrap();
                let scratch = Buffer::new(&device, 4).unwrap(); // unused: LAST_GROUP 0
                let passes = [
                    (PARTIALS, &input, &partials, len as u32),
                    (1, &partials, &out, PARTIALS),
                ];
                for (groups, from, to, n) in passes {
                    // SAFETY: the reduce kernel reads `n` elements of its
                    // input (which holds at least `n`) and writes one word
                    // per group to its output (sized for `groups` words);
                    // with LAST_GROUP 0 it never touches the scratch buffer.
                    unsafe {
                        device.launch(
                            &kernel,
                            &Launch::linear(groups, GROUP, GROUP * 4),
                            &[from, to, &scratch],
                            &[n],
                        )
                    }
                    .unwrap();
                }
                let got = out.read::<u32>(1).unwrap()[0];
                if let Err(e) = check(elem, op, &words, got) {
                    panic!("{id}: emulated subgroups, {}, n={len}: {e}", spec.label());
                }
            }
        }
    }
}
