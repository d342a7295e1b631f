//! Inline PTX in OpenCL C on NVIDIA: what it adds, and the probe that
//! decides whether a device has it.
//!
//! NVIDIA's OpenCL compiles OpenCL C to PTX and accepts inline PTX
//! (`__asm__ __volatile__`, as in CUDA C). Through it rosetta's OpenCL
//! kernels get what OpenCL C 1.2 lacks and the same GPU has through CUDA:
//! - a device-scope fence (`membar.gl`) with relaxed device-scope loads and
//!   stores (`ld/st.relaxed.gpu`): a reduction finishes in one launch, the
//!   last workgroup combining the others' values
//!   ([`rosetta_core::Capabilities::device_fence`]; NVIDIA's OpenCL 3.0
//!   lists no device-scope atomic scope or acquire / release order);
//! - asynchronous copies from global to shared memory (`cp.async`, sm_80
//!   and later), into the kernel's `__local` argument, with
//!   `%dynamic_smem_size` to check that argument's size
//!   ([`rosetta_core::Capabilities::async_copy`]).
//!
//! Kernels see the features as defines ([`Ptx::defines`]):
//! `ROSETTA_PTX_FENCE` and `ROSETTA_PTX_ASYNC_COPY`. Only devices that list
//! `cl_nv_device_attribute_query` are probed; each feature is on only when
//! a kernel using exactly the PTX forms the kernels use builds **and runs
//! with the expected results** on the device (a build that succeeds is not
//! trusted alone: an address that maps wrongly would compile). Anything
//! else — a build error, a launch error, a wrong word — leaves the feature
//! off, logged at debug level, and the kernels keep their portable forms.
//!
//! The probes take a context, two builds and two launches at every opening
//! of the device, so their outcome is kept in the persistent cache
//! (`DiskCache::new("probes/opencl-ptx")`) under the device's identity
//! (platform, device and driver version) and the probe sources: a new
//! driver or a changed probe is a different key. Only outcomes that ran to
//! the end are kept (each probe built and ran, right or wrong results); an
//! error anywhere is not, so a passing failure is probed again next time.
//! An entry that does not decode to exactly the two flags is ignored.

use crate::sys::{self, Context, DeviceId, Mem, Queue};
use rosetta_core::disk_cache::DiskCache;
use rosetta_core::Fingerprint;
use std::ffi::CString;

/// The PTX features a device has (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Ptx {
    /// `membar.gl` and `ld/st.relaxed.gpu` run as the kernels use them.
    pub(crate) fence: bool,
    /// `cp.async` (4 and 16 bytes, with and without a source size) into a
    /// `__local` argument, and `%dynamic_smem_size`, run as the kernels use
    /// them.
    pub(crate) async_copy: bool,
}

impl Ptx {
    /// The build options that tell kernels about the features.
    pub(crate) fn defines(self) -> Vec<String> {
        let mut defines = Vec::new();
        if self.fence {
            defines.push("-DROSETTA_PTX_FENCE=1".to_string());
        }
        if self.async_copy {
            defines.push("-DROSETTA_PTX_ASYNC_COPY=1".to_string());
        }
        defines
    }
}

/// Invocations of each probe kernel (one workgroup).
const PROBE_GROUP: usize = 64;

/// The fence probe: the PTX forms of the one-launch sum, exactly as
/// `kernels/reduce/reduce.cl` writes them. (Each feature has its own
/// program: a GPU without `cp.async`, before sm_80, may still have these.)
const FENCE_SOURCE: &str = r#"
// probe_fence: word lid + 64 of `words` = word lid + 1, read and written
// with the relaxed device-scope forms, a device fence between.
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void probe_fence(__global uint* words)
{
    const uint lid = get_local_id(0);
    uint value;
    __asm__ __volatile__("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(value) : "l"((ulong)(words + lid)) : "memory");
    __asm__ __volatile__("membar.gl;" ::: "memory");
    __asm__ __volatile__("st.relaxed.gpu.global.u32 [%0], %1;" :: "l"((ulong)(words + 64 + lid)), "r"(value + 1u) : "memory");
}
"#;

/// The copy probe: the PTX forms of the matmul's asynchronous copies,
/// exactly as `kernels/matmul/matmul.cl` writes them.
const COPY_SOURCE: &str = r#"
// probe_copy: invocation lid copies vector lid of `from` to vector 63 - lid
// of the __local argument, by one of four forms (lid % 4): a 16-byte copy
// with a source size of 16, one without a source size, four 4-byte copies
// of which the last two have a source size of 0 (zeros), four 4-byte
// copies without. Then everyone waits, and vector lid of `to` takes
// vector lid of `staging`; info[0] = %dynamic_smem_size.
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void probe_copy(__global const float4* from, __global float4* to, __global uint* info,
                __local float4* staging)
{
    const uint lid = get_local_id(0);
    const uint at = (uint)(ulong)(staging + (63u - lid));
    const ulong source = (ulong)(from + lid);
    const uint form = lid % 4u;
    if (form == 0u) {
        __asm__ __volatile__("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(at), "l"(source), "r"(16u) : "memory");
    } else if (form == 1u) {
        __asm__ __volatile__("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(at), "l"(source) : "memory");
    } else if (form == 2u) {
        for (uint q = 0; q < 4u; q++) {
            __asm__ __volatile__("cp.async.ca.shared.global [%0], [%1], 4, %2;" :: "r"(at + 4u * q), "l"(source + 4u * q), "r"(q < 2u ? 4u : 0u) : "memory");
        }
    } else {
        for (uint q = 0; q < 4u; q++) {
            __asm__ __volatile__("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(at + 4u * q), "l"(source + 4u * q) : "memory");
        }
    }
    __asm__ __volatile__("cp.async.commit_group;" ::: "memory");
    __asm__ __volatile__("cp.async.wait_group 0;" ::: "memory");
    barrier(CLK_LOCAL_MEM_FENCE);
    to[lid] = staging[lid];
    if (lid == 0u) {
        uint bytes;
        __asm__ __volatile__("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
        info[0] = bytes;
    }
}
"#;

/// The device's PTX features (see the module docs): both off unless
/// `nvidia` (the device lists `cl_nv_device_attribute_query`); from the
/// persistent cache where an earlier probe of the same `identity` (driver)
/// is kept, else probed and kept.
pub(crate) fn probe(device: DeviceId, nvidia: bool, identity: &str) -> Ptx {
    if !nvidia {
        return Ptx::default();
    }
    probe_cached(&DiskCache::new("probes/opencl-ptx"), identity, || {
        run_probes(device)
    })
}

/// `run` (the probes: their features, and whether each ran to the end) unless
/// `cache` holds an outcome for `identity`; a whole outcome is stored.
fn probe_cached(cache: &DiskCache, identity: &str, run: impl FnOnce() -> (Ptx, bool)) -> Ptx {
    let key = cache_key(identity);
    if let Some(ptx) = cache.get(&key).as_deref().and_then(decode) {
        tracing::debug!(?ptx, "opencl: inline PTX features from the cache");
        return ptx;
    }
    let (ptx, whole) = run();
    if whole {
        cache.put(&key, &encode(ptx));
    }
    ptx
}

/// The cache key of a probe outcome: the device's identity and the probes.
fn cache_key(identity: &str) -> Fingerprint {
    Fingerprint::default()
        .str("rosetta opencl inline PTX probe v1")
        .str(identity)
        .str(FENCE_SOURCE)
        .str(COPY_SOURCE)
}

/// A cached outcome: one byte per feature, 0 or 1.
fn encode(ptx: Ptx) -> [u8; 2] {
    [u8::from(ptx.fence), u8::from(ptx.async_copy)]
}

fn decode(bytes: &[u8]) -> Option<Ptx> {
    let flag = |b: u8| match b {
        0 => Some(false),
        1 => Some(true),
        _ => None,
    };
    match bytes {
        [fence, async_copy] => Some(Ptx {
            fence: flag(*fence)?,
            async_copy: flag(*async_copy)?,
        }),
        _ => None,
    }
}

/// Run both probes in a context and queue of their own, so a probe that
/// faults (a form the driver mistranslates) leaves the device's own context
/// untouched: the features, and whether every probe ran to the end.
fn run_probes(device: DeviceId) -> (Ptx, bool) {
    let opened = sys::create_context(device).and_then(|context| {
        let queue = sys::create_queue(&context, device, false)?;
        Ok((context, queue))
    });
    let (context, queue) = match opened {
        Ok(opened) => opened,
        Err(f) => {
            tracing::debug!(?device, "opencl: no context for the PTX probes ({f})");
            return (Ptx::default(), false);
        }
    };
    let (context, queue) = (&context, &queue);
    let fence = run_probe(
        "probe_fence",
        FENCE_SOURCE,
        context,
        queue,
        device,
        fence_works,
    );
    let async_copy = run_probe(
        "probe_copy",
        COPY_SOURCE,
        context,
        queue,
        device,
        copy_works,
    );
    let ptx = Ptx {
        fence: fence == Some(true),
        async_copy: async_copy == Some(true),
    };
    tracing::debug!(?device, ?ptx, "opencl: inline PTX probed");
    // Every probe command has finished (each check waits for its kernel);
    // the queue and context are released here, queue first.
    (ptx, fence.is_some() && async_copy.is_some())
}

/// Build `name` from `source` and run `check` with its kernel: whether the
/// results were right, or `None` (logged) on any error.
fn run_probe(
    name: &'static str,
    source: &str,
    context: &Context,
    queue: &Queue,
    device: DeviceId,
    check: fn(&Context, &Queue, &mut sys::Kernel) -> Result<bool, String>,
) -> Option<bool> {
    let outcome = (|| {
        let program = sys::program_from_source(context, source).map_err(|f| f.to_string())?;
        let options = CString::default();
        sys::build(&program, device, &options)
            .map_err(|f| format!("{f}: {}", sys::build_log(&program, device)))?;
        let c_name = CString::new(name).map_err(|e| e.to_string())?;
        let mut kernel = sys::create_kernel(&program, &c_name).map_err(|f| f.to_string())?;
        check(context, queue, &mut kernel)
    })();
    match outcome {
        Ok(true) => Some(true),
        Ok(false) => {
            tracing::debug!(?device, "opencl: PTX probe {name} ran with wrong results");
            Some(false)
        }
        Err(why) => {
            tracing::debug!(?device, "opencl: PTX probe {name} failed: {why}");
            None
        }
    }
}

/// A new buffer holding `words`.
fn buffer(context: &Context, queue: &Queue, words: &[u32]) -> Result<Mem, String> {
    let mem = sys::create_buffer(context, words.len() * 4).map_err(|f| f.to_string())?;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    sys::write_blocking(queue, &mem, 0, &bytes).map_err(|f| f.to_string())?;
    Ok(mem)
}

/// The words of `mem`'s first `count`.
fn read_words(queue: &Queue, mem: &Mem, count: usize) -> Result<Vec<u32>, String> {
    let mut bytes = vec![0u8; count * 4];
    sys::read_blocking(queue, mem, 0, &mut bytes).map_err(|f| f.to_string())?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Run one workgroup of `kernel` and wait for it.
fn run_group(queue: &Queue, kernel: &sys::Kernel) -> Result<(), String> {
    // SAFETY: every argument of the probe kernel was set by the caller; one
    // workgroup of PROBE_GROUP invocations, as the kernel requires; the
    // kernels touch words below 2·PROBE_GROUP of `words` (probe_fence), or
    // vectors below PROBE_GROUP of `from`, `to` and a `__local` argument of
    // PROBE_GROUP vectors and word 0 of `info` (probe_copy): the sizes the
    // callers allocate. (A PTX form the driver mistranslates is what the
    // probe is for; the copies' shared addresses come from the `__local`
    // argument itself.)
    unsafe { sys::enqueue_kernel(queue, kernel, 1, [PROBE_GROUP, 1, 1], [PROBE_GROUP, 1, 1]) }
        .map_err(|f| f.to_string())?;
    sys::finish(queue).map_err(|f| f.to_string())
}

fn fence_works(context: &Context, queue: &Queue, kernel: &mut sys::Kernel) -> Result<bool, String> {
    let input: Vec<u32> = (0..2 * PROBE_GROUP as u32)
        .map(|i| {
            if i < PROBE_GROUP as u32 {
                1000 + 7 * i
            } else {
                0
            }
        })
        .collect();
    let words = buffer(context, queue, &input)?;
    sys::set_arg_mem(kernel, 0, &words).map_err(|f| f.to_string())?;
    run_group(queue, kernel)?;
    let out = read_words(queue, &words, 2 * PROBE_GROUP)?;
    Ok((0..PROBE_GROUP).all(|i| out[PROBE_GROUP + i] == input[i] + 1))
}

fn copy_works(context: &Context, queue: &Queue, kernel: &mut sys::Kernel) -> Result<bool, String> {
    let words = 4 * PROBE_GROUP;
    let input: Vec<u32> = (0..words as u32).map(|i| 0x1234_0000 + i).collect();
    let from = buffer(context, queue, &input)?;
    let to = buffer(context, queue, &vec![0xffff_ffff; words])?;
    let info = buffer(context, queue, &[0])?;
    let local_bytes = words * 4;
    sys::set_arg_mem(kernel, 0, &from).map_err(|f| f.to_string())?;
    sys::set_arg_mem(kernel, 1, &to).map_err(|f| f.to_string())?;
    sys::set_arg_mem(kernel, 2, &info).map_err(|f| f.to_string())?;
    sys::set_arg_local(kernel, 3, local_bytes).map_err(|f| f.to_string())?;
    run_group(queue, kernel)?;
    let out = read_words(queue, &to, words)?;
    let dynamic_bytes = read_words(queue, &info, 1)?[0];
    Ok(out == copy_expected(&input) && dynamic_bytes as usize >= local_bytes)
}

/// What probe_copy leaves in `to` for `input` (see its comment).
fn copy_expected(input: &[u32]) -> Vec<u32> {
    let mut expected = vec![0u32; input.len()];
    for lid in 0..PROBE_GROUP {
        let slot = PROBE_GROUP - 1 - lid;
        for q in 0..4 {
            let zero = lid % 4 == 2 && q >= 2;
            expected[slot * 4 + q] = if zero { 0 } else { input[lid * 4 + q] };
        }
    }
    expected
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defines_follow_the_features() {
        assert!(Ptx::default().defines().is_empty());
        let both = Ptx {
            fence: true,
            async_copy: true,
        };
        assert_eq!(
            both.defines(),
            ["-DROSETTA_PTX_FENCE=1", "-DROSETTA_PTX_ASYNC_COPY=1"]
        );
    }

    fn temp_cache(name: &str) -> (std::path::PathBuf, DiskCache) {
        let dir =
            std::env::temp_dir().join(format!("rosetta-ptx-probe-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        (dir.clone(), DiskCache::at(dir))
    }

    #[test]
    fn a_whole_probe_outcome_is_kept_per_identity() {
        let (dir, cache) = temp_cache("kept");
        let found = Ptx {
            fence: true,
            async_copy: false,
        };
        assert_eq!(probe_cached(&cache, "driver 1", || (found, true)), found);
        // Kept: the probes do not run again for the same identity.
        let again = probe_cached(&cache, "driver 1", || panic!("probed again"));
        assert_eq!(again, found);
        // Another identity (a new driver) probes afresh.
        let other = probe_cached(&cache, "driver 2", || (Ptx::default(), true));
        assert_eq!(other, Ptx::default());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn an_outcome_with_an_error_is_probed_again() {
        let (dir, cache) = temp_cache("error");
        let partial = Ptx {
            fence: true,
            async_copy: false,
        };
        assert_eq!(probe_cached(&cache, "driver", || (partial, false)), partial);
        let both = Ptx {
            fence: true,
            async_copy: true,
        };
        assert_eq!(probe_cached(&cache, "driver", || (both, true)), both);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_damaged_or_foreign_entry_is_probed_again() {
        let (dir, cache) = temp_cache("damaged");
        // A well-formed entry whose payload is not two flags.
        cache.put(&cache_key("driver"), &[1, 7]);
        let found = Ptx {
            fence: false,
            async_copy: true,
        };
        assert_eq!(probe_cached(&cache, "driver", || (found, true)), found);
        assert_eq!(
            probe_cached(&cache, "driver", || panic!("probed again")),
            found
        );
        assert_eq!(decode(&[1]), None);
        assert_eq!(decode(&[1, 0, 0]), None);
        assert_eq!(decode(&encode(found)), Some(found));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn the_copy_probe_expects_reversed_vectors_with_zeros_for_the_short_copies() {
        let input: Vec<u32> = (0..4 * PROBE_GROUP as u32).collect();
        let expected = copy_expected(&input);
        // Vector 63 holds invocation 0's (a whole 16-byte copy).
        assert_eq!(&expected[63 * 4..64 * 4], &[0, 1, 2, 3]);
        // Vector 61 holds invocation 2's: its last two words copied 0 bytes.
        assert_eq!(&expected[61 * 4..62 * 4], &[8, 9, 0, 0]);
        // Vector 0 holds invocation 63's (4-byte copies, all inside).
        assert_eq!(&expected[0..4], &[252, 253, 254, 255]);
    }
}
