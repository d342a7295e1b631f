//! Checking your own kernel on every device, the way the conformance suite
//! checks the built-in ones: the same inputs everywhere, each device's output
//! compared with one reference — the values you give, or what the kernel's
//! Rust version computes on the CPU backend — under a tolerance you choose.
//!
//! ```no_run
//! # use rosetta::user_kernel::{KernelTest, Data, Expected, Tolerance};
//! # fn demo(spec: rosetta::KernelSpec, devices: &[rosetta::Device]) -> rosetta::Result<()> {
//! let test = KernelTest {
//!     spec,
//!     launch: rosetta::Launch::linear(4, 64, 0),
//!     // The output is f32 values, so the tolerance applies to it (a
//!     // `Data::Zeros` output is compared exactly, as words).
//!     buffers: vec![Data::F32(vec![1.0; 256]), Data::F32(vec![0.0; 256])],
//!     params: vec![256],
//!     expected: Expected::CpuVersion,
//!     tolerance: Tolerance::Relative(1e-6),
//! };
//! // SAFETY: the kernel stays inside 256 elements of each buffer and ends.
//! let report = unsafe { test.run(devices) }?;
//! assert!(report.passed(), "{}", report.render());
//! # Ok(()) }
//! ```

use crate::device::Device;
use crate::error::{Error, Result};
use rosetta_core::{Access, Buffer, KernelSpec, Launch};
use rosetta_kernels::op::Status;
use serde::Serialize;
use std::sync::Arc;

/// The initial contents of one buffer binding.
#[derive(Debug, Clone, PartialEq)]
pub enum Data {
    /// f32 values (compared under the tolerance).
    F32(Vec<f32>),
    /// i32 values (compared exactly).
    I32(Vec<i32>),
    /// u32 values (compared exactly).
    U32(Vec<u32>),
    /// Bytes (compared exactly).
    U8(Vec<u8>),
    /// `bytes` of zeros (an output; compared exactly as words).
    Zeros {
        /// Size in bytes.
        bytes: u64,
    },
}

impl Data {
    fn bytes(&self) -> Vec<u8> {
        match self {
            Data::F32(v) => bytemuck::cast_slice(v).to_vec(),
            Data::I32(v) => bytemuck::cast_slice(v).to_vec(),
            Data::U32(v) => bytemuck::cast_slice(v).to_vec(),
            Data::U8(v) => v.clone(),
            Data::Zeros { bytes } => vec![0; *bytes as usize],
        }
    }

    fn len_bytes(&self) -> u64 {
        match self {
            Data::F32(v) => v.len() as u64 * 4,
            Data::I32(v) => v.len() as u64 * 4,
            Data::U32(v) => v.len() as u64 * 4,
            Data::U8(v) => v.len() as u64,
            Data::Zeros { bytes } => *bytes,
        }
    }

    /// Compared under the tolerance (f32), rather than exactly.
    fn is_float(&self) -> bool {
        matches!(self, Data::F32(_))
    }

    /// The same kind of data holding `bytes`.
    fn like(&self, bytes: &[u8]) -> Data {
        match self {
            Data::F32(_) => Data::F32(bytemuck::pod_collect_to_vec(bytes)),
            Data::I32(_) => Data::I32(bytemuck::pod_collect_to_vec(bytes)),
            Data::U32(_) => Data::U32(bytemuck::pod_collect_to_vec(bytes)),
            // Words where they are whole, else bytes (never padded).
            Data::Zeros { .. } if bytes.len().is_multiple_of(4) => {
                Data::U32(bytemuck::pod_collect_to_vec(bytes))
            }
            Data::Zeros { .. } => Data::U8(bytes.to_vec()),
            Data::U8(_) => Data::U8(bytes.to_vec()),
        }
    }
}

/// What the outputs should be.
#[derive(Debug, Clone)]
pub enum Expected {
    /// What the kernel's Rust version computes on the CPU backend (a kernel
    /// without one makes [`KernelTest::run`] return
    /// an `Unsupported` [`Error::Device`]: there is no reference at all).
    CpuVersion,
    /// The contents of each binding after the launch (`None`: not checked):
    /// one entry per binding, at least one of them `Some`.
    Given(Vec<Option<Data>>),
}

/// How close f32 outputs must be (integers and bytes are always exact).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tolerance {
    /// Bit-identical (NaNs too: payload and sign).
    Exact,
    /// |got − expected| ≤ this (equal values, infinities included, always
    /// pass; NaN must meet NaN; an infinity only the same infinity).
    Absolute(f64),
    /// |got − expected| ≤ this · |expected| (equal values always pass; NaN
    /// must meet NaN; an infinity only the same infinity).
    Relative(f64),
}

/// A user kernel's test: one launch on fresh buffers per device.
#[derive(Debug, Clone)]
pub struct KernelTest {
    /// The kernel and its constants.
    pub spec: KernelSpec,
    /// The launch (checked against each device).
    pub launch: Launch,
    /// Initial contents, one per binding.
    pub buffers: Vec<Data>,
    /// The param words.
    pub params: Vec<u32>,
    /// The reference.
    pub expected: Expected,
    /// For f32 outputs: bindings given as [`Data::F32`] (a [`Data::Zeros`]
    /// output is compared exactly, as words).
    pub tolerance: Tolerance,
}

/// One device's result.
#[derive(Debug, Clone, Serialize)]
pub struct DeviceResult {
    /// `api:index`.
    pub device: String,
    /// The device's name.
    pub name: String,
    /// Passed, failed, or unsupported (no source in the API's language).
    pub status: Status,
    /// The first difference, or the error.
    pub detail: String,
    /// Largest finite |got − expected| over the f32 outputs compared: every
    /// value of them, also past the first difference.
    pub max_error: Option<f64>,
}

/// The results on every device.
#[derive(Debug, Clone, Serialize)]
pub struct KernelReport {
    /// The kernel's label (name and constants).
    pub kernel: String,
    /// One per device.
    pub results: Vec<DeviceResult>,
}

impl KernelReport {
    /// Every device passed or lacks the kernel's language (none failed), and
    /// at least one passed.
    pub fn passed(&self) -> bool {
        self.results.iter().any(|r| r.status == Status::Passed)
            && self.results.iter().all(|r| r.status != Status::Failed)
    }

    /// One line per device.
    pub fn render(&self) -> String {
        let mut out = format!("{}\n", self.kernel);
        for r in &self.results {
            let status = match r.status {
                Status::Passed => "ok",
                Status::Failed => "FAIL",
                Status::Skipped => "skipped",
                Status::Unsupported => "unsupported",
            };
            out.push_str(&format!(
                "  {:<10} {status:<11} {} {}\n",
                r.device, r.name, r.detail
            ));
        }
        out
    }
}

impl KernelTest {
    /// Run the test on every device and compare each with the reference.
    ///
    /// # Safety
    /// As [`Device::launch`]: for these params and this launch the kernel
    /// stays inside the buffers (sized by [`KernelTest::buffers`], rounded up
    /// to 16 bytes) and its shared memory, and terminates — in every
    /// language it has, and in its Rust version when the reference is
    /// [`Expected::CpuVersion`].
    pub unsafe fn run(&self, devices: &[Device]) -> Result<KernelReport> {
        let usage = |why: String| {
            Err(Error::Usage(format!(
                "kernel '{}': {why}",
                self.spec.def().name()
            )))
        };
        match self.tolerance {
            Tolerance::Absolute(t) | Tolerance::Relative(t) if !(t.is_finite() && t >= 0.0) => {
                return usage(format!(
                    "a tolerance must be finite and at least 0, got {t}"
                ));
            }
            _ => {}
        }
        if self.buffers.len() != self.spec.def().bindings().len() {
            return Err(Error::Usage(format!(
                "kernel '{}' has {} bindings, the test gives {} buffers",
                self.spec.def().name(),
                self.spec.def().bindings().len(),
                self.buffers.len()
            )));
        }
        let expected: Vec<Option<Data>> = match &self.expected {
            Expected::Given(outputs) => {
                // A verdict must check something, and each expectation must
                // belong to a binding.
                if outputs.len() != self.buffers.len() || outputs.iter().all(Option::is_none) {
                    return usage(format!(
                        "Expected::Given needs one entry per binding ({}), at least one of them \
                         Some; got {} entries, {} Some",
                        self.buffers.len(),
                        outputs.len(),
                        outputs.iter().filter(|o| o.is_some()).count()
                    ));
                }
                for (i, (given, buffer)) in outputs.iter().zip(&self.buffers).enumerate() {
                    if given
                        .as_ref()
                        .is_some_and(|g| g.is_float() != buffer.is_float())
                    {
                        return usage(format!(
                            "binding {i} holds {} data, its expectation {} (f32 is compared \
                             under the tolerance, other kinds exactly, so the kinds must agree)",
                            if buffer.is_float() { "f32" } else { "integer" },
                            if buffer.is_float() { "integers" } else { "f32" },
                        ));
                    }
                }
                outputs.clone()
            }
            Expected::CpuVersion => {
                let cpu = rosetta_backend_cpu::discover()?.remove(0);
                // SAFETY: passed on from this function's contract (the Rust
                // version is one of the kernel's languages).
                let outputs = unsafe { self.launch_on(&cpu) }?;
                outputs.into_iter().map(Some).collect()
            }
        };
        let results = devices
            .iter()
            .map(|device| {
                let info = device.info();
                let mut result = DeviceResult {
                    device: info.id(),
                    name: info.name.clone(),
                    status: Status::Passed,
                    detail: String::new(),
                    max_error: None,
                };
                // SAFETY: passed on from this function's contract.
                match unsafe { self.launch_on(device.backend()) } {
                    Err(rosetta_core::Error::Unsupported { what, .. }) => {
                        result.status = Status::Unsupported;
                        result.detail = what;
                    }
                    Err(e) => {
                        result.status = Status::Failed;
                        result.detail = format!("error: {}", e.chain());
                    }
                    Ok(outputs) => {
                        if let Err(why) = self.compare(&outputs, &expected, &mut result.max_error) {
                            result.status = Status::Failed;
                            result.detail = why;
                        }
                    }
                }
                result
            })
            .collect();
        Ok(KernelReport {
            kernel: self.spec.label(),
            results,
        })
    }

    /// One launch on fresh buffers; the contents of every binding after it.
    unsafe fn launch_on(
        &self,
        backend: &Arc<dyn rosetta_core::Backend>,
    ) -> rosetta_core::Result<Vec<Data>> {
        let kernel = backend.compile(&self.spec)?;
        let buffers = self
            .buffers
            .iter()
            .map(|data| {
                let buffer = backend.alloc(data.len_bytes())?;
                if !matches!(data, Data::Zeros { .. }) {
                    buffer.write_bytes(0, &data.bytes())?;
                }
                Ok(buffer)
            })
            .collect::<rosetta_core::Result<Vec<Buffer>>>()?;
        let refs: Vec<&Buffer> = buffers.iter().collect();
        // SAFETY: passed on from this function's contract.
        unsafe { backend.launch(&kernel, &self.launch, &refs, &self.params) }?;
        buffers
            .iter()
            .zip(&self.buffers)
            .map(|(buffer, data)| {
                let bytes: Vec<u8> = buffer.read(data.len_bytes() as usize)?;
                Ok(data.like(&bytes))
            })
            .collect()
    }

    fn compare(
        &self,
        got: &[Data],
        expected: &[Option<Data>],
        max_error: &mut Option<f64>,
    ) -> Result<(), String> {
        let accesses = self.spec.def().bindings();
        // A read-only binding must come back as it went in, whatever the
        // reference: a kernel that writes one breaks its own interface
        // (and the aliasing of read-only bindings), even where the
        // reference's Rust version does not.
        for (i, (g, initial)) in got.iter().zip(&self.buffers).enumerate() {
            if accesses.get(i) == Some(&Access::Read) && g.bytes() != initial.bytes() {
                return Err(format!(
                    "binding {i} is read-only in the interface, but the kernel changed it"
                ));
            }
        }
        // Every value is compared, so that `max_error` is the largest error
        // of all the f32 outputs; the first difference is the one reported.
        let mut first: Option<String> = None;
        for (i, (g, e)) in got.iter().zip(expected).enumerate() {
            let Some(e) = e else { continue };
            if accesses.get(i) == Some(&Access::Read)
                && matches!(self.expected, Expected::CpuVersion)
            {
                continue;
            }
            // Sizes first: an expectation of 2^50 zero bytes is a
            // difference, not an allocation.
            if g.len_bytes() != e.len_bytes() {
                let (what, got_n, expected_n) = match (g, e) {
                    (Data::F32(_), Data::F32(_)) => {
                        ("values", g.len_bytes() / 4, e.len_bytes() / 4)
                    }
                    _ => ("bytes", g.len_bytes(), e.len_bytes()),
                };
                first.get_or_insert(format!(
                    "binding {i}: {got_n} {what}, expected {expected_n}"
                ));
                continue;
            }
            match (g, e) {
                (Data::F32(g), Data::F32(e)) => {
                    for (j, (&a, &b)) in g.iter().zip(e).enumerate() {
                        let err = (f64::from(a) - f64::from(b)).abs();
                        let ok = match self.tolerance {
                            // Bit-identical, NaN payloads and signs included.
                            Tolerance::Exact => a.to_bits() == b.to_bits(),
                            _ if a.is_nan() || b.is_nan() => a.is_nan() && b.is_nan(),
                            // Equal values pass whatever the tolerance: an
                            // infinity meets the same infinity (their
                            // difference is NaN).
                            _ if a == b => true,
                            // Else an infinity on either side fails: the
                            // relative bound of an infinite expectation is
                            // infinite itself, and passed any finite value
                            // (or the other infinity).
                            _ if a.is_infinite() || b.is_infinite() => false,
                            Tolerance::Absolute(t) => err <= t,
                            Tolerance::Relative(t) => err <= t * f64::from(b).abs(),
                        };
                        if err.is_finite() {
                            *max_error = Some(max_error.unwrap_or(0.0).max(err));
                        }
                        if !ok && first.is_none() {
                            first = Some(format!("binding {i}[{j}]: got {a:e}, expected {b:e}"));
                        }
                    }
                }
                (g, e) => {
                    let (gb, eb) = (g.bytes(), e.bytes());
                    if let Some(at) = gb.iter().zip(&eb).position(|(a, b)| a != b) {
                        let word = at / 4 * 4..(at / 4 * 4 + 4).min(gb.len());
                        first.get_or_insert(format!(
                            "binding {i}: first difference at byte {at} (got {:?}, expected {:?})",
                            g.like(&gb[word.clone()]),
                            e.like(&eb[word])
                        ));
                    }
                }
            }
        }
        first.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rosetta_core::workgroup::GlobalWord;
    use rosetta_core::KernelDef;

    /// A kernel with only a Rust version: word i of binding 0 becomes
    /// +inf for even i and 1.0 for odd i, for i < n.
    fn infinities() -> KernelTest {
        let def = KernelDef::builder("infinities")
            .bindings([Access::ReadWrite])
            .params(["n"])
            .cpu(|group, bindings| {
                let out = bindings.write(0);
                for lid in 0..group.size {
                    let i = group.id[0] * group.size + lid;
                    if i < group.params[0] {
                        let value = if i % 2 == 0 { f32::INFINITY } else { 1.0 };
                        out[i as usize].store_f32(value);
                    }
                }
            })
            .build_arc()
            .unwrap();
        KernelTest {
            spec: KernelSpec::new(&def, &[("GROUP_SIZE", 64)]).unwrap(),
            launch: Launch::linear(1, 64, 0),
            buffers: vec![Data::F32(vec![0.0; 64])],
            params: vec![64],
            expected: Expected::CpuVersion,
            tolerance: Tolerance::Relative(1e-6),
        }
    }

    /// A kernel with only a Rust version: word i of binding 0 becomes
    /// 10.5·i, for i < 4.
    fn ramp(output: Data, expected: Data, tolerance: Tolerance) -> KernelTest {
        let def = KernelDef::builder("ramp")
            .bindings([Access::ReadWrite])
            .cpu(|group, bindings| {
                let out = bindings.write(0);
                for lid in 0..group.size.min(4) {
                    out[lid as usize].store_f32(lid as f32 * 10.5);
                }
            })
            .build_arc()
            .unwrap();
        KernelTest {
            spec: KernelSpec::new(&def, &[("GROUP_SIZE", 4)]).unwrap(),
            launch: Launch::linear(1, 4, 0),
            buffers: vec![output],
            params: vec![],
            expected: Expected::Given(vec![Some(expected)]),
            tolerance,
        }
    }

    /// `max_error` is the largest error of all the values, not of those up
    /// to the first difference (it said 0.5 where 10.5·3 − 30 = 1.5).
    #[test]
    fn the_largest_error_counts_every_value() {
        let test = ramp(
            Data::F32(vec![0.0; 4]),
            Data::F32(vec![0.0, 10.0, 20.0, 30.0]),
            Tolerance::Absolute(0.1),
        );
        // SAFETY: the kernel writes words 0..4 of its 16-byte buffer.
        let report = unsafe { test.run(&cpu()) }.unwrap();
        let result = &report.results[0];
        assert!(!report.passed());
        assert!(result.detail.contains("binding 0[1]"), "{}", result.detail);
        assert_eq!(result.max_error, Some(1.5));
    }

    /// An expectation of more zero bytes than any buffer holds is a
    /// difference in size, not an allocation (2^50 bytes aborted the
    /// process).
    #[test]
    fn a_huge_zeros_expectation_is_a_size_difference() {
        let test = ramp(
            Data::Zeros { bytes: 16 },
            Data::Zeros { bytes: 1 << 50 },
            Tolerance::Exact,
        );
        // SAFETY: as above.
        let report = unsafe { test.run(&cpu()) }.unwrap();
        assert!(!report.passed());
        let detail = &report.results[0].detail;
        assert!(
            detail.contains("16 bytes, expected 1125899906842624"),
            "{detail}"
        );
    }

    fn cpu() -> Vec<Device> {
        vec![Device::new(
            rosetta_backend_cpu::discover().unwrap().remove(0),
        )]
    }

    #[test]
    fn equal_infinities_pass_under_every_tolerance() {
        let expected: Vec<f32> = (0..64)
            .map(|i| if i % 2 == 0 { f32::INFINITY } else { 1.0 })
            .collect();
        for tolerance in [
            Tolerance::Exact,
            Tolerance::Absolute(1e-3),
            Tolerance::Relative(1e-6),
        ] {
            let test = KernelTest {
                expected: Expected::Given(vec![Some(Data::F32(expected.clone()))]),
                tolerance,
                ..infinities()
            };
            // SAFETY: the kernel writes words 0..64 of its 256-byte buffer.
            let report = unsafe { test.run(&cpu()) }.unwrap();
            assert!(report.passed(), "{tolerance:?}: {}", report.render());
            // A finite value where an infinity is expected still fails.
            let mut wrong = expected.clone();
            wrong[0] = f32::MAX;
            let test = KernelTest {
                expected: Expected::Given(vec![Some(Data::F32(wrong))]),
                tolerance,
                ..infinities()
            };
            // SAFETY: as above.
            let report = unsafe { test.run(&cpu()) }.unwrap();
            assert!(!report.passed(), "{tolerance:?}: {}", report.render());
        }
    }

    /// A kernel with only a Rust version writing `bits` to word 0 of
    /// binding 0 (f32), with an untouched 5-byte binding 1.
    fn writes_bits(bits: u32) -> KernelTest {
        let def = KernelDef::builder("writes_bits")
            .bindings([Access::ReadWrite, Access::ReadWrite])
            .params(["bits"])
            .cpu(|group, bindings| {
                if group.id[0] == 0 {
                    bindings.write(0)[0].store_u32(group.params[0]);
                }
            })
            .build_arc()
            .unwrap();
        KernelTest {
            spec: KernelSpec::new(&def, &[("GROUP_SIZE", 64)]).unwrap(),
            launch: Launch::linear(1, 64, 0),
            buffers: vec![Data::F32(vec![0.0]), Data::Zeros { bytes: 5 }],
            params: vec![bits],
            expected: Expected::CpuVersion,
            tolerance: Tolerance::Exact,
        }
    }

    /// An infinity meets only the same infinity, under every tolerance and
    /// from either side: under `Relative` an expected infinity's bound was
    /// infinite, so any finite value passed for it.
    #[test]
    fn an_infinity_meets_only_the_same_infinity() {
        let values = [
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            f32::MIN,
            1.0,
            0.0,
            -0.0,
        ];
        for tolerance in [
            Tolerance::Exact,
            Tolerance::Absolute(1e30),
            Tolerance::Relative(0.5),
        ] {
            for expected in values {
                for got in values {
                    if !(expected.is_infinite() || got.is_infinite()) {
                        continue;
                    }
                    let test = KernelTest {
                        expected: Expected::Given(vec![Some(Data::F32(vec![expected])), None]),
                        tolerance,
                        ..writes_bits(got.to_bits())
                    };
                    // SAFETY: the kernel writes word 0 of its 4-byte buffer.
                    let report = unsafe { test.run(&cpu()) }.unwrap();
                    assert_eq!(
                        report.passed(),
                        got == expected,
                        "{tolerance:?}: got {got}, expected {expected}: {}",
                        report.render()
                    );
                }
            }
        }
    }

    #[test]
    fn exact_means_every_bit_of_a_nan() {
        let given = |bits: u32, tolerance| KernelTest {
            expected: Expected::Given(vec![
                Some(Data::F32(vec![f32::from_bits(0x7fc0_0000)])),
                Some(Data::Zeros { bytes: 5 }),
            ]),
            tolerance,
            ..writes_bits(bits)
        };
        let passed = |test: KernelTest| {
            // SAFETY: the kernel writes word 0 of binding 0 only.
            unsafe { test.run(&cpu()) }.unwrap().passed()
        };
        assert!(passed(given(0x7fc0_0000, Tolerance::Exact)));
        assert!(
            !passed(given(0x7fc0_0001, Tolerance::Exact)),
            "another payload"
        );
        assert!(
            !passed(given(0xffc0_0000, Tolerance::Exact)),
            "another sign"
        );
        // Under a tolerance, any NaN meets NaN.
        assert!(passed(given(0xffc0_0001, Tolerance::Relative(1e-6))));
    }

    #[test]
    fn odd_byte_counts_compare_as_bytes() {
        // Binding 1 (5 bytes of zeros) is untouched: it must pass as Zeros
        // and as U8, and fail against 6 bytes.
        for (expected, pass) in [
            (Data::Zeros { bytes: 5 }, true),
            (Data::U8(vec![0; 5]), true),
            (Data::U8(vec![0; 6]), false),
        ] {
            let test = KernelTest {
                expected: Expected::Given(vec![None, Some(expected.clone())]),
                ..writes_bits(0)
            };
            // SAFETY: as above.
            let report = unsafe { test.run(&cpu()) }.unwrap();
            assert_eq!(report.passed(), pass, "{expected:?}: {}", report.render());
        }
    }

    #[test]
    fn bad_tolerances_and_mismatched_kinds_are_refused() {
        for tolerance in [
            Tolerance::Absolute(-1.0),
            Tolerance::Absolute(f64::NAN),
            Tolerance::Relative(f64::INFINITY),
        ] {
            let test = KernelTest {
                tolerance,
                ..writes_bits(0)
            };
            // SAFETY: refused before any launch.
            let outcome = unsafe { test.run(&cpu()) };
            assert!(
                matches!(outcome, Err(Error::Usage(_))),
                "{tolerance:?}: {outcome:?}"
            );
        }
        // An f32 binding expected as integers.
        let test = KernelTest {
            expected: Expected::Given(vec![Some(Data::U32(vec![0])), None]),
            ..writes_bits(0)
        };
        // SAFETY: refused before any launch.
        let outcome = unsafe { test.run(&cpu()) };
        assert!(matches!(outcome, Err(Error::Usage(_))), "{outcome:?}");
    }

    #[test]
    fn given_outputs_must_check_something_and_match_the_bindings() {
        for given in [
            vec![],
            vec![None],
            vec![Some(Data::F32(vec![0.0; 64])), None],
        ] {
            let test = KernelTest {
                expected: Expected::Given(given.clone()),
                ..infinities()
            };
            // SAFETY: refused before any launch.
            let outcome = unsafe { test.run(&cpu()) };
            assert!(
                matches!(outcome, Err(Error::Usage(_))),
                "{given:?}: {outcome:?}"
            );
        }
    }
}
