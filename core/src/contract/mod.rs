//! The contract every backend keeps, as one suite each backend crate runs on
//! its own devices (`rosetta_core::contract_tests!`), so no backend carries a
//! copy: buffers, queue order, handle identity, the kernel cache, typed
//! errors before the API is reached, compile errors with the compiler's log,
//! timing tokens, the pool, sharing across threads.
//!
//! What each op computes is the conformance suite's job, not this one's.

mod kernels;

pub use kernels::{broken, probe, probe_expected};

use crate::api::Api;
use crate::device::{Backend, Buffer, Clock};
use crate::error::{Error, Result};
use crate::kernel::{Access, KernelDef, KernelSpec};
use crate::launch::Launch;
use std::sync::Arc;

/// A contract check: `Err` says what broke.
pub type Check = fn(&Arc<dyn Backend>, &dyn Fn() -> Vec<Arc<dyn Backend>>) -> Result<(), String>;

/// Every check, by name.
pub const CHECKS: &[(&str, Check)] = &[
    ("capabilities_are_sane", capabilities_are_sane),
    (
        "buffers_are_zeroed_rounded_and_checked",
        buffers_are_zeroed_rounded_and_checked,
    ),
    (
        "large_buffers_round_trip_at_an_offset",
        large_buffers_round_trip_at_an_offset,
    ),
    (
        "calls_take_effect_in_queue_order",
        calls_take_effect_in_queue_order,
    ),
    (
        "buffers_freed_while_in_flight_are_safe",
        buffers_freed_while_in_flight_are_safe,
    ),
    (
        "pooled_buffers_come_back_zeroed",
        pooled_buffers_come_back_zeroed,
    ),
    ("copies_between_buffers", copies_between_buffers),
    (
        "compile_errors_carry_the_compilers_log",
        compile_errors_carry_the_compilers_log,
    ),
    (
        "kernels_are_cached_by_identity_not_name",
        kernels_are_cached_by_identity_not_name,
    ),
    (
        "missing_languages_are_unsupported",
        missing_languages_are_unsupported,
    ),
    (
        "launches_over_limits_are_refused",
        launches_over_limits_are_refused,
    ),
    ("foreign_handles_are_refused", foreign_handles_are_refused),
    (
        "workgroups_are_the_group_size",
        workgroups_are_the_group_size,
    ),
    ("parameters_are_the_interface", parameters_are_the_interface),
    (
        "byte_writes_change_only_their_bytes",
        byte_writes_change_only_their_bytes,
    ),
    ("timestamps_overlap", timestamps_overlap),
    ("marks_never_hold_back_work", marks_never_hold_back_work),
    (
        "devices_are_shareable_across_threads",
        devices_are_shareable_across_threads,
    ),
];

/// APIs named in `ROSETTA_REQUIRE` (comma-separated); unknown names are an
/// error.
pub fn required_apis() -> Result<Vec<Api>> {
    let Ok(text) = std::env::var("ROSETTA_REQUIRE") else {
        return Ok(Vec::new());
    };
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|name| {
            Api::from_name(name).ok_or_else(|| {
                Error::InvalidArgument(format!("ROSETTA_REQUIRE names unknown API '{name}'"))
            })
        })
        .collect()
}

/// Run one check on every device `open` finds. No device: a failure when
/// `api` is in `ROSETTA_REQUIRE`, else a loud skip (stderr).
pub fn run_check(
    api: Api,
    name: &str,
    check: Check,
    open: &dyn Fn() -> Result<Vec<Arc<dyn Backend>>>,
) -> Result<(), String> {
    let required = required_apis().map_err(|e| e.to_string())?.contains(&api);
    let devices = match open() {
        Ok(devices) => devices,
        Err(e) if required => return Err(format!("{api} is required but failed: {}", e.chain())),
        Err(e) => {
            eprintln!("SKIPPED {name}: {api} unavailable: {}", e.chain());
            return Ok(());
        }
    };
    if devices.is_empty() {
        if required {
            return Err(format!(
                "{api} is required (ROSETTA_REQUIRE) but has no device"
            ));
        }
        eprintln!("SKIPPED {name}: no {api} device");
        return Ok(());
    }
    let reopen = || open().unwrap_or_default();
    for device in &devices {
        check(device, &reopen)
            .map_err(|e| format!("{} ({}): {e}", device.info().id(), device.info().name))?;
    }
    Ok(())
}

/// One `#[test]` per contract check, run on the devices `$open` returns
/// (`Result<Vec<Arc<dyn Backend>>>`) for API `$api`.
#[macro_export]
macro_rules! contract_tests {
    ($api:expr, $open:expr) => {
        $crate::contract_tests!(@each $api, $open;
            capabilities_are_sane,
            buffers_are_zeroed_rounded_and_checked,
            large_buffers_round_trip_at_an_offset,
            calls_take_effect_in_queue_order,
            buffers_freed_while_in_flight_are_safe,
            pooled_buffers_come_back_zeroed,
            copies_between_buffers,
            compile_errors_carry_the_compilers_log,
            kernels_are_cached_by_identity_not_name,
            missing_languages_are_unsupported,
            launches_over_limits_are_refused,
            foreign_handles_are_refused,
            workgroups_are_the_group_size,
            parameters_are_the_interface,
            byte_writes_change_only_their_bytes,
            timestamps_overlap,
            marks_never_hold_back_work,
            devices_are_shareable_across_threads);
    };
    (@each $api:expr, $open:expr; $($name:ident),*) => {
        $(
            #[test]
            fn $name() {
                let check = $crate::contract::CHECKS
                    .iter()
                    .find(|(n, _)| *n == stringify!($name))
                    .map(|(_, c)| *c)
                    .expect("every listed check exists");
                if let Err(e) = $crate::contract::run_check($api, stringify!($name), check, &|| $open) {
                    panic!("{}", e);
                }
            }
        )*
    };
}

fn ensure(ok: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(what())
    }
}

fn ok<T>(r: Result<T>) -> Result<T, String> {
    r.map_err(|e| e.chain())
}

/// Launch the probe kernel over `n` words: output = reversed input + add.
fn run_probe(
    device: &Arc<dyn Backend>,
    kernel: &crate::device::Kernel,
    input: &Buffer,
    output: &Buffer,
    counter: &Buffer,
    n: u32,
    add: u32,
) -> Result<()> {
    let group = kernel.spec().group_size();
    let launch = Launch::linear(n.div_ceil(group).max(1), group, group * 4);
    // SAFETY: the probe reads input[i] and writes output[i] only for i < n,
    // and counter[0]; callers size input and output for n words.
    unsafe { device.launch(kernel, &launch, &[input, output, counter], &[n, add]) }
}

fn probe_kernel(device: &Arc<dyn Backend>, group: u32) -> Result<crate::device::Kernel> {
    device.compile(&KernelSpec::new(probe(), &[("GROUP_SIZE", group)])?)
}

fn capabilities_are_sane(
    device: &Arc<dyn Backend>,
    _: &dyn Fn() -> Vec<Arc<dyn Backend>>,
) -> Result<(), String> {
    let info = device.info();
    let caps = &info.caps;
    ensure(
        !info.name.trim().is_empty() && !info.driver.trim().is_empty(),
        || "empty name or driver".into(),
    )?;
    ensure(caps.max_shared_bytes >= 16 << 10, || {
        format!("max_shared_bytes {}", caps.max_shared_bytes)
    })?;
    ensure(
        caps.max_group_invocations >= 256 && caps.max_group_size[0] >= 256,
        || format!("{caps:?}"),
    )?;
    ensure(
        caps.max_groups[0] >= 65_535 && caps.max_groups[1] >= 65_535,
        || format!("{caps:?}"),
    )?;
    ensure(caps.max_buffer_bytes >= 128 << 20, || format!("{caps:?}"))?;
    if let Some([min, max]) = caps.subgroup_sizes {
        ensure(min >= 1 && min <= max, || {
            format!("subgroup sizes {min}..{max}")
        })?;
    }
    ensure(!caps.subgroup_ops || caps.subgroup_sizes.is_some(), || {
        "subgroup ops need a known size range".into()
    })
}

fn buffers_are_zeroed_rounded_and_checked(
    device: &Arc<dyn Backend>,
    _: &dyn Fn() -> Vec<Arc<dyn Backend>>,
) -> Result<(), String> {
    let buffer = ok(device.alloc(4))?;
    ensure(
        buffer.capacity() >= 16 && buffer.capacity().is_multiple_of(16),
        || format!("capacity {}", buffer.capacity()),
    )?;
    let mut out = [0xffu8; 16];
    ok(device.read(&buffer, 0, &mut out))?;
    ensure(out == [0; 16], || {
        format!("fresh buffer not zeroed: {out:?}")
    })?;
    ok(device.write(&buffer, 8, &7u32.to_le_bytes()))?;
    let mut word = [0u8; 4];
    ok(device.read(&buffer, 8, &mut word))?;
    ensure(u32::from_le_bytes(word) == 7, || {
        "write/read round trip".into()
    })?;
    ok(buffer.zero())?;
    ok(device.read(&buffer, 8, &mut word))?;
    ensure(u32::from_le_bytes(word) == 0, || "zero".into())?;
    for e in [
        device.write(&buffer, 2, &[0; 4]).err(),
        device.read(&buffer, 0, &mut [0; 3]).err(),
        device.read(&buffer, buffer.capacity(), &mut [0; 4]).err(),
        device.read(&buffer, u64::MAX - 3, &mut [0; 8]).err(),
    ] {
        ensure(matches!(e, Some(Error::InvalidArgument(_))), || {
            format!("bad range accepted or wrong error: {e:?}")
        })?;
    }
    // Typed reads check the length before allocating anything.
    let huge = buffer.read::<u32>(1 << 40);
    ensure(matches!(huge, Err(Error::ShapeMismatch(_))), || {
        format!("read of 2^40 words: {huge:?}")
    })?;
    let limit = device.info().caps.max_buffer_bytes;
    for bytes in [limit + 1, u64::MAX, u64::MAX - 7] {
        let e = device.alloc(bytes).err();
        ensure(matches!(e, Some(Error::ExceedsLimit { .. })), || {
            format!("alloc({bytes}): {e:?}")
        })?;
    }
    let empty = ok(device.alloc(0))?;
    ok(device.read(&empty, 0, &mut []))?;
    // Odd byte counts (u8 data) round trip through the padded last word.
    let bytes = ok(Buffer::from_slice(device, &[1u8, 2, 3, 4, 5]))?;
    ensure(ok(bytes.read::<u8>(5))? == [1, 2, 3, 4, 5], || {
        "u8 round trip".into()
    })
}

fn large_buffers_round_trip_at_an_offset(
    device: &Arc<dyn Backend>,
    _: &dyn Fn() -> Vec<Arc<dyn Backend>>,
) -> Result<(), String> {
    let words: Vec<u32> = (0..(17u32 << 20) + 5)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let buffer = ok(device.alloc(words.len() as u64 * 4 + 64))?;
    let bytes: &[u8] = bytemuck::cast_slice(&words);
    ok(device.write(&buffer, 64, bytes))?;
    let mut back = vec![0u8; bytes.len()];
    ok(device.read(&buffer, 64, &mut back))?;
    ensure(back == bytes, || "large round trip differs".into())
}

fn calls_take_effect_in_queue_order(
    device: &Arc<dyn Backend>,
    _: &dyn Fn() -> Vec<Arc<dyn Backend>>,
) -> Result<(), String> {
    let n = 1000u32;
    let kernel = ok(probe_kernel(device, 64))?;
    let counter = ok(device.alloc(16))?;
    let a = ok(Buffer::from_slice(device, &vec![1u32; n as usize]))?;
    let b = ok(device.alloc(u64::from(n) * 4))?;
    let c = ok(device.alloc(u64::from(n) * 4))?;
    // a -> b, overwrite a, a -> c, zero a: b keeps the first, c sees the
    // overwrite, a ends zeroed.
    ok(run_probe(device, &kernel, &a, &b, &counter, n, 0))?;
    ok(a.write(&vec![2u32; n as usize]))?;
    ok(run_probe(device, &kernel, &a, &c, &counter, n, 0))?;
    ok(a.zero())?;
    let expect = |v: u32| probe_expected(&vec![v; n as usize], 64, 0);
    ensure(ok(b.read::<u32>(n as usize))? == expect(1), || {
        "b saw a later write".into()
    })?;
    ensure(ok(c.read::<u32>(n as usize))? == expect(2), || {
        "c missed the write".into()
    })?;
    ensure(
        ok(a.read::<u32>(n as usize))? == vec![0; n as usize],
        || "a not zeroed".into(),
    )?;
    ok(counter.zero())?;
    // Many dependent launches in a row; each adds 1 through the reversal
    // (n a multiple of the group, so two reversals restore the order).
    let n = 1024u32;
    let x: Vec<u32> = (0..n).collect();
    let x = ok(Buffer::from_slice(device, &x))?;
    let b = ok(device.alloc(u64::from(n) * 4))?;
    for i in 0..600 {
        if i % 2 == 0 {
            ok(run_probe(device, &kernel, &x, &b, &counter, n, 1))?;
        } else {
            ok(run_probe(device, &kernel, &b, &x, &counter, n, 1))?;
        }
    }
    ok(device.finish())?;
    let expected: Vec<u32> = (0..n).map(|i| i + 600).collect();
    ensure(ok(x.read::<u32>(n as usize))? == expected, || {
        "600 dependent launches".into()
    })?;
    ensure(ok(counter.read::<u32>(1))?[0] == 600 * n, || {
        "atomic counter".into()
    })
}

fn buffers_freed_while_in_flight_are_safe(
    device: &Arc<dyn Backend>,
    _: &dyn Fn() -> Vec<Arc<dyn Backend>>,
) -> Result<(), String> {
    let n = 4096u32;
    let kernel = ok(probe_kernel(device, 64))?;
    let out = ok(device.alloc(u64::from(n) * 4))?;
    let counter = ok(device.alloc(16))?;
    {
        let src = ok(Buffer::from_slice(device, &vec![9u32; n as usize]))?;
        ok(run_probe(device, &kernel, &src, &out, &counter, n, 0))?;
        // `src` is dropped here, before the work is known to be done.
    }
    // A new buffer of the same size may reuse `src`'s memory: it must be
    // zeroed after the launch read it, not before.
    let reuse = ok(device.alloc(u64::from(n) * 4))?;
    ensure(
        ok(out.read::<u32>(n as usize))? == vec![9; n as usize],
        || "in-flight free".into(),
    )?;
    ensure(
        ok(reuse.read::<u32>(n as usize))?.iter().all(|&w| w == 0),
        || "reused memory not zeroed".into(),
    )
}

fn pooled_buffers_come_back_zeroed(
    device: &Arc<dyn Backend>,
    _: &dyn Fn() -> Vec<Arc<dyn Backend>>,
) -> Result<(), String> {
    let before = device.pool_stats();
    for round in 0..3u32 {
        let buffer = ok(device.alloc(40_000))?;
        ensure(
            ok(buffer.read::<u32>(10_000))?.iter().all(|&w| w == 0),
            || format!("round {round}: not zeroed"),
        )?;
        ok(buffer.write(&vec![round + 1; 10_000]))?;
    }
    let after = device.pool_stats();
    // A pool too small to keep one of these buffers reuses none (read as
    // the pool does: `00`, `+0` and `1` keep nothing either).
    if crate::checked::pool_limit(device.info()) < 40_000 {
        return Ok(());
    }
    ensure(after.reused >= before.reused + 2, || {
        format!("no reuse: {before:?} -> {after:?}")
    })?;
    device.trim_pool();
    ensure(device.pool_stats().pooled_bytes == 0, || {
        "trim left buffers".into()
    })
}

fn copies_between_buffers(
    device: &Arc<dyn Backend>,
    _: &dyn Fn() -> Vec<Arc<dyn Backend>>,
) -> Result<(), String> {
    let src = ok(Buffer::from_slice(
        device,
        &(0..1024u32).collect::<Vec<_>>(),
    ))?;
    let dst = ok(device.alloc(4096 + 64))?;
    ok(device.copy(&src, 16, &dst, 64, 1000 * 4))?;
    let back = ok(dst.read::<u32>(16 + 1000))?;
    ensure(
        back[..16].iter().all(|&w| w == 0) && back[16..] == (4..1004).collect::<Vec<u32>>()[..],
        || "copy".into(),
    )?;
    let e = device.copy(&src, 0, &src, 16, 16).err();
    ensure(matches!(e, Some(Error::InvalidArgument(_))), || {
        format!("copy onto itself: {e:?}")
    })?;
    let e = device.copy(&src, 4000, &dst, 0, 400).err();
    ensure(matches!(e, Some(Error::InvalidArgument(_))), || {
        format!("copy past the end: {e:?}")
    })
}

fn compile_errors_carry_the_compilers_log(
    device: &Arc<dyn Backend>,
    _: &dyn Fn() -> Vec<Arc<dyn Backend>>,
) -> Result<(), String> {
    let api = device.info().api;
    if api == Api::Cpu {
        return Ok(()); // Rust kernels are compiled with the program.
    }
    let spec = ok(KernelSpec::new(broken(), &[("GROUP_SIZE", 64)]))?;
    match device.compile(&spec) {
        Err(Error::Compile {
            api: reported,
            kernel,
            log,
        }) => {
            ensure(reported == api && kernel.contains("broken"), || {
                format!("{reported} {kernel}")
            })?;
            ensure(log.contains("undefined_name"), || {
                format!("log lacks the culprit: {log}")
            })?;
        }
        other => return Err(format!("expected a compile error, got {other:?}")),
    }
    // The device still works afterwards.
    let kernel = ok(probe_kernel(device, 64))?;
    let src = ok(Buffer::from_slice(device, &[1u32, 2, 3, 4]))?;
    let (dst, counter) = (ok(device.alloc(16))?, ok(device.alloc(16))?);
    ok(run_probe(device, &kernel, &src, &dst, &counter, 4, 0))?;
    let back = ok(dst.read::<u32>(4))?;
    ensure(back == probe_expected(&[1, 2, 3, 4], 64, 0), || {
        format!("after a compile error: {back:?}")
    })
}

fn kernels_are_cached_by_identity_not_name(
    device: &Arc<dyn Backend>,
    _: &dyn Fn() -> Vec<Arc<dyn Backend>>,
) -> Result<(), String> {
    // A kernel named like the probe, with the same interface, that adds
    // twice: it must run its own code, not the cached probe.
    let twice = ok(kernels::probe_adding_twice())?;
    let probe_k = ok(probe_kernel(device, 64))?;
    let twice_k = ok(device.compile(&ok(KernelSpec::new(&twice, &[("GROUP_SIZE", 64)]))?))?;
    let src = ok(Buffer::from_slice(device, &[10u32; 64]))?;
    let (dst, counter) = (ok(device.alloc(256))?, ok(device.alloc(16))?);
    ok(run_probe(device, &probe_k, &src, &dst, &counter, 64, 1))?;
    ensure(ok(dst.read::<u32>(64))? == vec![11; 64], || "probe".into())?;
    ok(run_probe(device, &twice_k, &src, &dst, &counter, 64, 1))?;
    ensure(ok(dst.read::<u32>(64))? == vec![12; 64], || {
        "a same-named kernel ran the cached one".into()
    })
}

fn missing_languages_are_unsupported(
    device: &Arc<dyn Backend>,
    _: &dyn Fn() -> Vec<Arc<dyn Backend>>,
) -> Result<(), String> {
    let api = device.info().api;
    let other = if api == Api::Wgpu {
        crate::Language::Cuda
    } else {
        crate::Language::Wgsl
    };
    let mut builder = KernelDef::builder("only_one_language")
        .bindings([Access::ReadWrite])
        .params(["n"]);
    builder = if other == crate::Language::Rust {
        builder.cpu(|_, _| {})
    } else {
        builder.source(other, "not compiled")
    };
    let def = Arc::new(ok(builder.build())?);
    let e = device
        .compile(&ok(KernelSpec::new(&def, &[("GROUP_SIZE", 64)]))?)
        .err();
    ensure(matches!(e, Some(Error::Unsupported { .. })), || {
        format!("{e:?}")
    })
}

fn launches_over_limits_are_refused(
    device: &Arc<dyn Backend>,
    _: &dyn Fn() -> Vec<Arc<dyn Backend>>,
) -> Result<(), String> {
    let caps = device.info().caps.clone();
    let kernel = ok(probe_kernel(device, 64))?;
    let (a, b, c) = (
        ok(device.alloc(256))?,
        ok(device.alloc(256))?,
        ok(device.alloc(16))?,
    );
    let all = [&a, &b, &c];
    for launch in [
        Launch::linear(caps.max_groups[0].saturating_add(1), 64, 256),
        Launch::linear(1, caps.max_group_invocations + 1, 256),
        Launch::linear(1, 64, caps.max_shared_bytes + 4),
        Launch {
            groups: [1, caps.max_groups[1].saturating_add(1), 1],
            group_size: 64,
            shared_bytes: 256,
        },
    ] {
        if launch.groups.contains(&u32::MAX) {
            continue; // The limit is the whole u32 range: nothing is over it.
        }
        // SAFETY: refused before reaching the device.
        let e = unsafe { device.launch(&kernel, &launch, &all, &[16, 0]) }.err();
        ensure(matches!(e, Some(Error::ExceedsLimit { .. })), || {
            format!("{launch:?}: {e:?}")
        })?;
    }
    let good = Launch::linear(1, 64, 256);
    let cases: [(Launch, &[&Buffer], &[u32]); 6] = [
        (Launch::linear(1, 128, 256), &all, &[16, 0]), // not the built group size
        (good, &all[..2], &[16, 0]),                   // a buffer short
        (good, &all, &[16]),                           // a param short
        (good, &[&a, &a, &c], &[16, 0]),               // one buffer read and written
        (good, &[&a, &b, &b], &[16, 0]),               // one buffer written twice
        (Launch::linear(0, 64, 256), &all, &[16, 0]),  // no workgroups
    ];
    for (launch, buffers, params) in cases {
        // SAFETY: refused before reaching the device.
        let e = unsafe { device.launch(&kernel, &launch, buffers, params) }.err();
        ensure(matches!(e, Some(Error::InvalidArgument(_))), || {
            format!("{launch:?} {}: {e:?}", buffers.len())
        })?;
    }
    // A valid launch still works afterwards.
    ok(run_probe(device, &kernel, &a, &b, &c, 16, 0))?;
    ok(device.finish())
}

/// A kernel whose source declares another workgroup size than its
/// `GROUP_SIZE` is refused (it would run every group with the wrong number
/// of invocations), and the device works on; where the size comes from the
/// launch (CUDA, Rust) it runs correctly.
fn workgroups_are_the_group_size(
    device: &Arc<dyn Backend>,
    _: &dyn Fn() -> Vec<Arc<dyn Backend>>,
) -> Result<(), String> {
    let def = ok(kernels::probe_of_fixed_size(32))?;
    let outcome = variant_then_probe(device, &def, 128)?;
    if matches!(device.info().api, Api::Wgpu | Api::Vulkan | Api::Opencl) {
        ensure(matches!(outcome, Err(Error::InvalidArgument(_))), || {
            format!("a kernel declaring 32 invocations, built for GROUP_SIZE 64: {outcome:?}")
        })
    } else {
        let expected = probe_expected(&(0..128).collect::<Vec<u32>>(), 64, 1);
        ensure(outcome.as_ref().ok() == Some(&expected), || {
            format!("the probe without a declared size: {outcome:?}")
        })
    }
}

/// A kernel whose source takes more parameter data than its interface
/// declares is refused on every API (at compile time where the API can
/// tell, else at launch), never run with arguments it reads as something
/// else; the device works on.
fn parameters_are_the_interface(
    device: &Arc<dyn Backend>,
    _: &dyn Fn() -> Vec<Arc<dyn Backend>>,
) -> Result<(), String> {
    let def = ok(kernels::probe_with_more_params())?;
    let outcome = variant_then_probe(device, &def, 64)?;
    ensure(outcome.is_err(), || {
        format!("a kernel taking more params than its interface ran: {outcome:?}")
    })
}

/// Run `variant` (a kernel with the probe's interface, built for
/// GROUP_SIZE 64) over words `0..n` with `add` = 1, then the probe itself
/// on the same buffers. Returns the variant's outcome (its `n` output
/// words where it ran); `Err` if the probe then failed or computed
/// anything but its result: a device works on after refusing a kernel.
fn variant_then_probe(
    device: &Arc<dyn Backend>,
    variant: &Arc<KernelDef>,
    n: u32,
) -> Result<Result<Vec<u32>>, String> {
    let input: Vec<u32> = (0..n).collect();
    let src = ok(Buffer::from_slice(device, &input))?;
    let (dst, counter) = (ok(device.alloc(u64::from(n) * 4))?, ok(device.alloc(16))?);
    let spec = ok(KernelSpec::new(variant, &[("GROUP_SIZE", 64)]))?;
    let outcome = device.compile(&spec).and_then(|kernel| {
        run_probe(device, &kernel, &src, &dst, &counter, n, 1)?;
        dst.read::<u32>(n as usize)
    });
    let kernel = ok(probe_kernel(device, 64))?;
    ok(run_probe(device, &kernel, &src, &dst, &counter, n, 1))?;
    ensure(
        ok(dst.read::<u32>(n as usize))? == probe_expected(&input, 64, 1),
        || format!("the probe after the variant (which gave {outcome:?})"),
    )?;
    Ok(outcome)
}

/// `Buffer::write_bytes` changes exactly the bytes it is given, whatever
/// their alignment; bytes past [`Buffer::bytes`] in the last word may be
/// zeroed.
fn byte_writes_change_only_their_bytes(
    device: &Arc<dyn Backend>,
    _: &dyn Fn() -> Vec<Arc<dyn Backend>>,
) -> Result<(), String> {
    let buffer = ok(Buffer::from_slice(device, &[0xAAu8; 23]))?;
    let mut expected = vec![0xAAu8; 23];
    for (offset, data) in [
        (0usize, &[1u8, 2, 3][..]),
        (5, &[9]),
        (6, &[4, 5, 6, 7, 8, 9, 10]),
        (13, &[11, 12]),
        (16, &[]),
        (20, &[13, 14, 15]),
        (21, &[16]),
    ] {
        ok(buffer.write_bytes(offset as u64, data))?;
        expected[offset..offset + data.len()].copy_from_slice(data);
        let got = ok(buffer.read::<u8>(23))?;
        ensure(got == expected, || {
            format!("after writing {data:?} at byte {offset}: {got:?}, expected {expected:?}")
        })?;
    }
    let past = buffer.write_bytes(buffer.capacity() - 1, &[1, 2]).err();
    ensure(matches!(past, Some(Error::InvalidArgument(_))), || {
        format!("a write past the capacity: {past:?}")
    })
}

fn foreign_handles_are_refused(
    device: &Arc<dyn Backend>,
    reopen: &dyn Fn() -> Vec<Arc<dyn Backend>>,
) -> Result<(), String> {
    let Some(other) = reopen()
        .into_iter()
        .find(|d| d.info().index == device.info().index)
    else {
        return Err("could not open the device a second time".into());
    };
    ensure(other.tag() != device.tag(), || {
        "two opened devices share a tag".into()
    })?;
    let mine = ok(Buffer::from_slice(device, &[5u32; 64]))?;
    let theirs = ok(other.alloc(256))?;
    let e = other.read(&mine, 0, &mut [0; 4]).err();
    ensure(matches!(e, Some(Error::ForeignHandle { .. })), || {
        format!("read of a foreign buffer: {e:?}")
    })?;
    let e = other.copy(&mine, 0, &theirs, 0, 16).err();
    ensure(matches!(e, Some(Error::ForeignHandle { .. })), || {
        format!("copy from a foreign buffer: {e:?}")
    })?;
    let kernel = ok(probe_kernel(device, 64))?;
    let their_kernel = ok(probe_kernel(&other, 64))?;
    let counter = ok(other.alloc(16))?;
    let launch = Launch::linear(1, 64, 256);
    // SAFETY: refused before reaching the device.
    let e =
        unsafe { other.launch(&kernel, &launch, &[&theirs, &theirs, &counter], &[64, 0]) }.err();
    ensure(matches!(e, Some(Error::ForeignHandle { .. })), || {
        format!("foreign kernel: {e:?}")
    })?;
    let out = ok(other.alloc(256))?;
    // SAFETY: refused before reaching the device.
    let e =
        unsafe { other.launch(&their_kernel, &launch, &[&mine, &out, &counter], &[64, 0]) }.err();
    ensure(matches!(e, Some(Error::ForeignHandle { .. })), || {
        format!("foreign buffer in a launch: {e:?}")
    })?;
    let stamp = ok(device.timestamp())?;
    let e = other.elapsed(&stamp, &stamp).err();
    ensure(matches!(e, Some(Error::ForeignHandle { .. })), || {
        format!("foreign timestamp: {e:?}")
    })?;
    // Nothing was written by the refused calls.
    ensure(ok(out.read::<u32>(64))? == vec![0; 64], || {
        "a refused launch ran".into()
    })
}

fn timestamps_overlap(
    device: &Arc<dyn Backend>,
    _: &dyn Fn() -> Vec<Arc<dyn Backend>>,
) -> Result<(), String> {
    let n = 1u32 << 20;
    let kernel = ok(probe_kernel(device, 64))?;
    let (a, b, c) = (
        ok(device.alloc(u64::from(n) * 4))?,
        ok(device.alloc(u64::from(n) * 4))?,
        ok(device.alloc(16))?,
    );
    let t0 = ok(device.timestamp())?;
    ok(run_probe(device, &kernel, &a, &b, &c, n, 1))?;
    let t1 = ok(device.timestamp())?;
    for _ in 0..3 {
        ok(run_probe(device, &kernel, &a, &b, &c, n, 1))?;
    }
    let t2 = ok(device.timestamp())?;
    let (whole, clock) = ok(device.elapsed(&t0, &t2))?;
    let (first, _) = ok(device.elapsed(&t0, &t1))?;
    let (rest, _) = ok(device.elapsed(&t1, &t2))?;
    let expected = if device.info().caps.timestamps {
        Clock::Device
    } else {
        Clock::Host
    };
    ensure(clock == expected, || {
        format!("clock {clock:?}, caps say {expected:?}")
    })?;
    ensure(whole.as_nanos() > 0 && whole.as_secs() < 60, || {
        format!("{whole:?}")
    })?;
    // Nested regions: the whole is the sum of its parts (within a tick).
    let sum = first + rest;
    let slack = std::time::Duration::from_micros(50).max(whole / 100);
    ensure(whole + slack >= sum && sum + slack >= whole, || {
        format!("{first:?} + {rest:?} vs {whole:?}")
    })?;
    // Marks the wrong way round are refused on every API (Vulkan's
    // subtraction wrapped to 584 years; the others gave 0); a mark with
    // itself is no time.
    let swapped = device.elapsed(&t2, &t0);
    ensure(matches!(swapped, Err(Error::InvalidArgument(_))), || {
        format!("marks swapped: {swapped:?}")
    })?;
    let (none, _) = ok(device.elapsed(&t1, &t1))?;
    ensure(none.is_zero(), || format!("a mark with itself: {none:?}"))
}

/// Inside a timed interval every call still completes and sees the work
/// before it: drivers may hold commands back between marks (wgpu defers
/// its timestamps to the passes around them; a driver may batch commands
/// until a flush), but a transfer, an allocation or a wait must let them
/// run. A device closed with an interval
/// still open closes. (On a thread with a time limit: a call that waits on
/// held-back work fails the check instead of hanging it.)
fn marks_never_hold_back_work(
    device: &Arc<dyn Backend>,
    open: &dyn Fn() -> Vec<Arc<dyn Backend>>,
) -> Result<(), String> {
    let fresh: Vec<Arc<dyn Backend>> = open()
        .into_iter()
        .filter(|d| d.info().id() == device.info().id())
        .collect();
    let device = Arc::clone(device);
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done
            .send(work_inside_an_interval(&device).and_then(|()| close_inside_an_interval(fresh)));
    });
    finished
        .recv_timeout(std::time::Duration::from_secs(120))
        .unwrap_or_else(|_| Err("calls inside a timed interval did not return in 120 s".into()))
}

/// Transfers, an allocation and waits between marks, each checked.
fn work_inside_an_interval(device: &Arc<dyn Backend>) -> Result<(), String> {
    let n = 4096u32;
    let kernel = ok(probe_kernel(device, 64))?;
    let input: Vec<u32> = (0..n).map(|i| i * 3 + 1).collect();
    let (a, b, counter) = (
        ok(device.alloc(u64::from(n) * 4))?,
        ok(device.alloc(u64::from(n) * 4))?,
        ok(device.alloc(16))?,
    );
    let t0 = ok(device.timestamp())?;
    ok(device.write(&a, 0, bytemuck::cast_slice(&input)))?;
    ok(run_probe(device, &kernel, &a, &b, &counter, n, 5))?;
    let once = probe_expected(&input, 64, 5);
    ensure(ok(b.read::<u32>(n as usize))? == once, || {
        "a read inside an interval missed the launch before it".into()
    })?;
    let c = ok(device.alloc(u64::from(n) * 4))?;
    ok(run_probe(device, &kernel, &b, &c, &counter, n, 0))?;
    let t1 = ok(device.timestamp())?;
    ensure(
        ok(c.read::<u32>(n as usize))? == probe_expected(&once, 64, 0),
        || "a launch after an allocation inside an interval".into(),
    )?;
    let t2 = ok(device.timestamp())?;
    ok(device.finish())?;
    for (from, to) in [(&t0, &t1), (&t1, &t2), (&t0, &t2)] {
        ok(device.elapsed(from, to))?;
    }
    Ok(())
}

/// Fresh devices closed with an interval open and a launch after its mark.
fn close_inside_an_interval(fresh: Vec<Arc<dyn Backend>>) -> Result<(), String> {
    for device in fresh {
        let kernel = ok(probe_kernel(&device, 64))?;
        let (a, b, counter) = (
            ok(device.alloc(256))?,
            ok(device.alloc(256))?,
            ok(device.alloc(16))?,
        );
        ok(device.timestamp())?;
        ok(run_probe(&device, &kernel, &a, &b, &counter, 64, 1))?;
    }
    Ok(())
}

fn devices_are_shareable_across_threads(
    device: &Arc<dyn Backend>,
    _: &dyn Fn() -> Vec<Arc<dyn Backend>>,
) -> Result<(), String> {
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4u32)
            .map(|t| {
                scope.spawn(move || -> Result<(), String> {
                    let n = 10_000 + t;
                    let kernel = ok(probe_kernel(device, 64))?;
                    let src = ok(Buffer::from_slice(device, &vec![t; n as usize]))?;
                    let dst = ok(device.alloc(u64::from(n) * 4))?;
                    let counter = ok(device.alloc(16))?;
                    for _ in 0..20 {
                        ok(run_probe(device, &kernel, &src, &dst, &counter, n, 0))?;
                    }
                    let expected = probe_expected(&vec![t; n as usize], 64, 0);
                    ensure(ok(dst.read::<u32>(n as usize))? == expected, || {
                        format!("thread {t}")
                    })?;
                    ensure(ok(counter.read::<u32>(1))?[0] == 20 * n, || {
                        format!("thread {t}: counter")
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| match h.join() {
                Ok(Ok(())) => None,
                Ok(Err(e)) => Some(e),
                Err(_) => Some("a thread panicked".into()),
            })
            .collect()
    });
    ensure(failures.is_empty(), || failures.join("; "))
}
