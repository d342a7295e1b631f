//! Building a kernel: its OpenCL C with the spec's `-D NAME=valueu`
//! defines and the device's `-cl-std=`, for one device, and the persistent
//! cache of program binaries.
//!
//! # The binary cache
//! After a build from source the program's binary
//! (`clGetProgramInfo(CL_PROGRAM_BINARIES)`) is stored in
//! `DiskCache::new("kernels/opencl")` under a [`Fingerprint`] of the
//! platform, device and driver version ([`Target::identity`]), the kernel's
//! OpenCL fingerprint (interface + source text), the constants and the build
//! options. A later build of the same key, in any process, loads it with
//! `clCreateProgramWithBinary` and builds that. The driver is the judge of a
//! binary: one it rejects (`CL_INVALID_BINARY`), or whose build or kernel
//! creation fails, is rebuilt from source and its entry overwritten. (Damage
//! to the file itself is caught by the cache's checksum first.)

use crate::status::{self, Failure, API};
use crate::sys::{self, Context, DeviceId, Kernel, Program};
use crate::target::Target;
use rosetta_core::disk_cache::DiskCache;
use rosetta_core::{Error, Fingerprint, KernelSpec, Language, Result};
use std::ffi::CString;
use std::sync::Mutex;

const CL_INVALID_COMPILER_OPTIONS: i32 = -66;
const CL_INVALID_KERNEL_NAME: i32 = -46;
const CL_KERNEL_WORK_GROUP_SIZE: u32 = 0x11B0;
const CL_KERNEL_LOCAL_MEM_SIZE: u32 = 0x11B2;

/// A built kernel and what its launches need.
pub(crate) struct Compiled {
    /// Arguments are set and the NDRange enqueued with this held (the
    /// driver's lock already serialises launches; this makes `set_arg`'s
    /// exclusive access a fact of the types).
    pub(crate) kernel: Mutex<Kernel>,
    /// Takes a trailing `__local` argument of `Launch::shared_bytes`.
    pub(crate) dynamic_shared: bool,
    /// `CL_KERNEL_LOCAL_MEM_SIZE` before any `__local` argument is set: the
    /// kernel's own `__local` arrays.
    pub(crate) static_local_bytes: u64,
}

/// Extra OpenCL C build options, whitespace-separated, appended to every
/// build (e.g. `-cl-nv-maxrregcount=128` or `-cl-nv-verbose` on NVIDIA).
/// They are part of the persistent cache's key. Options that would change
/// what kernels compute are refused (`rosetta_core::options_from_env`).
pub const OPTIONS_ENV: &str = "ROSETTA_OPENCL_OPTIONS";

/// Builds kernels for one device, through the persistent binary cache.
pub(crate) struct Builder {
    cache: DiskCache,
    /// The options of `$ROSETTA_OPENCL_OPTIONS`.
    extra: Vec<String>,
}

/// Where a kernel is built.
pub(crate) struct Device<'a> {
    pub(crate) context: &'a Context,
    pub(crate) id: DeviceId,
    pub(crate) target: &'a Target,
}

impl Builder {
    /// A builder using the kernel cache (off when `ROSETTA_CACHE_DIR=off`);
    /// `InvalidArgument` where `$ROSETTA_OPENCL_OPTIONS` holds an option
    /// that would change what kernels compute
    /// (`rosetta_core::options_from_env`).
    pub(crate) fn new() -> Result<Self> {
        Ok(Builder {
            cache: DiskCache::new("kernels/opencl"),
            extra: rosetta_core::options_from_env(OPTIONS_ENV)?,
        })
    }

    /// Build `spec`'s kernel from `source` (its OpenCL C).
    pub(crate) fn build(
        &self,
        device: &Device<'_>,
        spec: &KernelSpec,
        source: &str,
    ) -> Result<Compiled> {
        let label = spec.label();
        let options = options(spec, device.target, &self.extra);
        let c_options = CString::new(options.clone()).map_err(|_| {
            Error::Internal(format!("the build options of '{label}' contain a NUL byte"))
        })?;
        let name = CString::new(spec.def().name()).map_err(|_| {
            Error::Internal(format!("the kernel name of '{label}' contains a NUL byte"))
        })?;
        let key = key(device.target, spec, &options);
        if let Some(binary) = self.cache.get(&key) {
            match from_binary(device, spec, &binary, &c_options, &name) {
                Ok(compiled) => {
                    tracing::debug!(kernel = %label, key = %key.hex(), "opencl: program cache hit");
                    return Ok(compiled);
                }
                Err(why) => tracing::debug!(
                    kernel = %label,
                    key = %key.hex(),
                    "opencl: cached program binary rejected ({why}); rebuilding from source"
                ),
            }
        } else if self.cache.enabled() {
            tracing::debug!(kernel = %label, key = %key.hex(), "opencl: program cache miss");
        }
        let program = from_source(device, spec, source, &options, &c_options)?;
        // The entry point is the def's name: a source without it is the
        // caller's mistake (one line, a usage error), as on every API.
        let kernel = sys::create_kernel(&program, &name).map_err(|f| match f.code {
            CL_INVALID_KERNEL_NAME => Error::InvalidArgument(format!(
                "kernel '{label}': the OpenCL C has no __kernel named '{}' (a kernel's entry \
                 point is its name)",
                spec.def().name()
            )),
            _ => f.error(),
        })?;
        let compiled = finish(device, spec, kernel)?;
        if self.cache.enabled() {
            match sys::program_binary(&program) {
                Ok(binary) if !binary.is_empty() => {
                    self.cache.put(&key, &binary);
                    tracing::debug!(
                        kernel = %label,
                        key = %key.hex(),
                        bytes = binary.len(),
                        "opencl: program binary stored"
                    );
                }
                Ok(_) => {
                    tracing::debug!(kernel = %label, "opencl: the driver gives no program binary")
                }
                Err(e) => tracing::debug!(kernel = %label, "opencl: no program binary ({e})"),
            }
        }
        Ok(compiled)
    }
}

/// The build options: the spec's defines, the device's PTX defines
/// (`ptx.rs`), its subgroup extension's define (`target.rs`), `-cl-std=`,
/// `-w` where the target is quiet (`target.rs`), then `extra`.
fn options(spec: &KernelSpec, target: &Target, extra: &[String]) -> String {
    let mut options = spec.defines();
    options.extend(target.ptx.defines());
    options.extend(
        target
            .subgroups
            .and_then(|s| s.define())
            .map(str::to_string),
    );
    if let Some(std) = target.cl_std {
        options.push(format!("-cl-std={std}"));
    }
    if target.quiet {
        options.push("-w".to_string());
    }
    options.extend(extra.iter().cloned());
    options.join(" ")
}

/// The cache key: everything the binary depends on.
fn key(target: &Target, spec: &KernelSpec, options: &str) -> Fingerprint {
    let mut key = Fingerprint::default()
        .str("rosetta opencl program binary v1")
        .str(&target.identity)
        .str(&spec.def().fingerprint(Language::OpenCl).hex())
        .u64(spec.values().len() as u64);
    for &value in spec.values() {
        key = key.u64(u64::from(value));
    }
    key.str(options)
}

/// Build a program from source; a failed build is [`Error::Compile`] with
/// the compiler's log.
fn from_source(
    device: &Device<'_>,
    spec: &KernelSpec,
    source: &str,
    options: &str,
    c_options: &CString,
) -> Result<Program> {
    let program = sys::program_from_source(device.context, source).map_err(Failure::error)?;
    match sys::build(&program, device.id, c_options) {
        Ok(()) => {
            let log = sys::build_log(&program, device.id);
            if !log.is_empty() {
                tracing::debug!(kernel = %spec.label(), "opencl: build log:\n{log}");
            }
            Ok(program)
        }
        Err(f)
            if matches!(
                f.code,
                status::CL_BUILD_PROGRAM_FAILURE
                    | status::CL_INVALID_BUILD_OPTIONS
                    | CL_INVALID_COMPILER_OPTIONS
            ) =>
        {
            let log = sys::build_log(&program, device.id);
            Err(Error::Compile {
                api: API,
                kernel: spec.label(),
                log: if log.is_empty() {
                    format!(
                        "{} (no build log; options: {options})",
                        status::name(f.code)
                    )
                } else {
                    log
                },
            })
        }
        Err(f) => Err(f.error()),
    }
}

/// Load, build and open a cached binary; `Err` says why it was not usable.
fn from_binary(
    device: &Device<'_>,
    spec: &KernelSpec,
    binary: &[u8],
    c_options: &CString,
    name: &CString,
) -> std::result::Result<Compiled, String> {
    let program =
        sys::program_from_binary(device.context, device.id, binary).map_err(|f| f.to_string())?;
    sys::build(&program, device.id, c_options).map_err(|f| {
        format!(
            "{f}: {}",
            sys::build_log(&program, device.id)
                .lines()
                .next()
                .unwrap_or("")
        )
    })?;
    let kernel = sys::create_kernel(&program, name).map_err(|f| f.to_string())?;
    finish(device, spec, kernel).map_err(|e| e.chain())
}

/// Read what launches need from a created kernel, and refuse one the device
/// cannot run at its `GROUP_SIZE`.
fn finish(device: &Device<'_>, spec: &KernelSpec, mut kernel: Kernel) -> Result<Compiled> {
    let info = |kernel: &Kernel, param| sys::kernel_work_group_info(kernel, device.id, param);
    let max_group = info(&kernel, CL_KERNEL_WORK_GROUP_SIZE).map_err(Failure::error)?;
    let unset_local_bytes = info(&kernel, CL_KERNEL_LOCAL_MEM_SIZE).map_err(Failure::error)?;
    let group = u64::from(spec.group_size());
    // A `reqd_work_group_size` other than GROUP_SIZE: every launch would fail
    // with CL_INVALID_WORK_GROUP_SIZE; say why here, once.
    let required =
        sys::kernel_compile_work_group_size(&kernel, device.id).map_err(Failure::error)?;
    if required != [0, 0, 0] && required != [group, 1, 1] {
        let [x, y, z] = required;
        return Err(Error::InvalidArgument(format!(
            "kernel '{}' declares reqd_work_group_size({x}, {y}, {z}); a kernel's workgroup is \
             its GROUP_SIZE constant ({group})",
            spec.label()
        )));
    }
    // The interface in source order: the bindings, the params, then the
    // `__local` block where the def takes one. A source that declares
    // another count would fail at launch with a bare CL_INVALID_KERNEL_ARGS
    // (too many) or CL_INVALID_ARG_INDEX (too few).
    let def = spec.def();
    let expected = def.bindings().len() + def.params().len() + usize::from(def.dynamic_shared());
    let declared = sys::kernel_num_args(&kernel).map_err(Failure::error)?;
    if declared as usize != expected {
        return Err(Error::InvalidArgument(format!(
            "kernel '{}' declares {declared} arguments; its interface has {expected} ({} \
             buffers, then {} uint params{})",
            spec.label(),
            def.bindings().len(),
            def.params().len(),
            if def.dynamic_shared() {
                ", then the __local block"
            } else {
                ""
            }
        )));
    }
    check_arguments(spec, &mut kernel)?;
    let static_local_bytes = if def.dynamic_shared() {
        // `check_arguments` left the `__local` block PROBE_LOCAL_BYTES long.
        let with_probe = info(&kernel, CL_KERNEL_LOCAL_MEM_SIZE).map_err(Failure::error)?;
        own_local_bytes(unset_local_bytes, with_probe)
    } else {
        unset_local_bytes
    };
    tracing::debug!(
        kernel = %spec.label(),
        max_group,
        unset_local_bytes,
        static_local_bytes,
        "opencl: kernel created"
    );
    // Its own `__local` arrays beyond the device's: every launch would fail
    // (or, on PoCL, run them from host memory past its reported limit).
    if static_local_bytes > device.target.local_bytes {
        return Err(Error::ExceedsLimit {
            what: "workgroup shared memory (bytes; the kernel's __local arrays)",
            requested: static_local_bytes,
            limit: device.target.local_bytes,
        });
    }
    if group > max_group {
        return Err(Error::unsupported(
            API,
            format!(
                "kernel '{}' runs at most {max_group} invocations per workgroup on this device \
                 (CL_KERNEL_WORK_GROUP_SIZE), it was built for {group}",
                spec.label()
            ),
        ));
    }
    Ok(Compiled {
        kernel: Mutex::new(kernel),
        dynamic_shared: spec.def().dynamic_shared(),
        static_local_bytes,
    })
}

/// The `__local` memory a kernel with a trailing `__local` argument uses
/// beside that argument, from `CL_KERNEL_LOCAL_MEM_SIZE` read before the
/// argument is set (`unset`) and with it set to [`PROBE_LOCAL_BYTES`]
/// (`with_probe`). The size counts the arguments' sizes, and an argument
/// not set yet as 0 by the specification — but NVIDIA's OpenCL reports 1
/// byte for a kernel whose only `__local` memory is an unset argument, and
/// 16 more than the argument once it is set (H100, driver 580; a launch
/// whose argument takes the full 48 KiB fails there with
/// `CL_OUT_OF_RESOURCES`, so the 16 bytes are real). So what the second
/// reading reports beyond the argument is the kernel's own; a driver whose
/// second reading does not grow by about the argument does not count it,
/// and its first reading is the kernel's own. The driver still refuses a
/// launch over its limit itself; this is the check that says why first.
fn own_local_bytes(unset: u64, with_probe: u64) -> u64 {
    if with_probe >= unset.saturating_add(PROBE_LOCAL_BYTES / 2) {
        with_probe.saturating_sub(PROBE_LOCAL_BYTES)
    } else {
        unset
    }
}

/// Set every argument once as the interface will (a null buffer for each
/// binding, a word for each param, the `__local` block, left
/// [`PROBE_LOCAL_BYTES`] long for [`own_local_bytes`]), so that a source
/// that declares another type (a `ulong` param, a `__local` or by-value
/// binding) is refused here, naming the argument, and not at its first
/// launch as a bare `clSetKernelArg` failure.
fn check_arguments(spec: &KernelSpec, kernel: &mut Kernel) -> Result<()> {
    let def = spec.def();
    let bindings = def.bindings().len() as u32;
    let params = def.params();
    let interface = format!(
        "its interface is {bindings} `__global` buffers, then {} `uint` params{}",
        params.len(),
        if def.dynamic_shared() {
            ", then a `__local` pointer"
        } else {
            ""
        }
    );
    let refuse = |index: u32, role: String, failure: Failure| {
        Error::InvalidArgument(format!(
            "kernel '{}' argument {index} ({role}) is not what the interface passes \
             ({failure}); {interface}",
            spec.label()
        ))
    };
    for index in 0..bindings {
        sys::set_arg_null_mem(kernel, index)
            .map_err(|f| refuse(index, format!("binding {index}"), f))?;
    }
    for (i, name) in params.iter().enumerate() {
        let index = bindings + i as u32;
        sys::set_arg_word(kernel, index, 0)
            .map_err(|f| refuse(index, format!("param '{name}'"), f))?;
    }
    if def.dynamic_shared() {
        let index = bindings + params.len() as u32;
        sys::set_arg_local(kernel, index, PROBE_LOCAL_BYTES as usize)
            .map_err(|f| refuse(index, "the __local block".into(), f))?;
    }
    Ok(())
}

/// The size the `__local` argument has while [`own_local_bytes`]'s second
/// reading is taken.
const PROBE_LOCAL_BYTES: u64 = 1024;

#[cfg(test)]
mod tests {
    use super::*;
    use rosetta_core::{Access, KernelDef};

    /// The kernel's own `__local` bytes from the two readings: NVIDIA's
    /// (1 unset, 16 beyond the argument), the specification's (0, and the
    /// argument), a kernel with its own arrays, and a driver that does not
    /// count the argument at all.
    #[test]
    fn own_local_bytes_are_what_the_argument_does_not_explain() {
        let probe = PROBE_LOCAL_BYTES;
        assert_eq!(own_local_bytes(1, probe + 16), 16);
        assert_eq!(own_local_bytes(0, probe), 0);
        assert_eq!(own_local_bytes(4096, 4096 + probe), 4096);
        assert_eq!(own_local_bytes(4096, 4096), 4096);
        assert_eq!(own_local_bytes(0, 0), 0);
    }

    fn target(identity: &str) -> Target {
        Target {
            cl_std: Some("CL1.2"),
            subgroups: None,
            version_1_2: true,
            profiling: true,
            local_bytes: 65536,
            identity: identity.into(),
            nvidia: false,
            quiet: false,
            ptx: crate::ptx::Ptx::default(),
        }
    }

    #[test]
    fn keys_follow_device_source_constants_and_options() {
        let def = KernelDef::builder("k")
            .constants(["A"])
            .bindings([Access::ReadWrite])
            .source(
                Language::OpenCl,
                "__kernel void k(__global uint* x) { x[0] = A; }",
            )
            .build_arc()
            .unwrap();
        let other = KernelDef::builder("k")
            .constants(["A"])
            .bindings([Access::ReadWrite])
            .source(
                Language::OpenCl,
                "__kernel void k(__global uint* x) { x[0] = A;}",
            )
            .build_arc()
            .unwrap();
        let spec = |def, a| KernelSpec::new(def, &[("GROUP_SIZE", 64), ("A", a)]).unwrap();
        let t = target("PoCL 3.1 / cpu / 3.1");
        let s = spec(&def, 1);
        let o = options(&s, &t, &[]);
        assert_eq!(o, "-DGROUP_SIZE=64u -DA=1u -cl-std=CL1.2");
        let extra = options(&s, &t, &["-cl-nv-verbose".to_string()]);
        assert_eq!(
            extra,
            "-DGROUP_SIZE=64u -DA=1u -cl-std=CL1.2 -cl-nv-verbose"
        );
        assert_ne!(key(&t, &s, &o), key(&t, &s, &extra));
        let base = key(&t, &s, &o);
        assert_eq!(base, key(&t, &spec(&def, 1), &o));
        assert_ne!(base, key(&target("PoCL 3.1 / cpu / 3.2"), &s, &o));
        assert_ne!(base, key(&t, &spec(&other, 1), &o));
        assert_ne!(base, key(&t, &spec(&def, 2), &o));
        assert_ne!(base, key(&t, &s, "-DGROUP_SIZE=64u -DA=1u"));
        // The PTX features are defines, so part of the key.
        let nv = Target {
            ptx: crate::ptx::Ptx {
                fence: true,
                async_copy: false,
            },
            ..t.clone()
        };
        let with_fence = options(&s, &nv, &[]);
        assert_eq!(
            with_fence,
            "-DGROUP_SIZE=64u -DA=1u -DROSETTA_PTX_FENCE=1 -cl-std=CL1.2"
        );
        assert_ne!(base, key(&nv, &s, &with_fence));
        // The subgroup extension's define, where it needs a pragma.
        use crate::target::Subgroups;
        let with = |subgroups| {
            let t = Target {
                subgroups: Some(subgroups),
                ..t.clone()
            };
            options(&s, &t, &[])
        };
        assert_eq!(
            with(Subgroups::Intel),
            "-DGROUP_SIZE=64u -DA=1u -DROSETTA_SUBGROUPS_INTEL=1 -cl-std=CL1.2"
        );
        assert_eq!(
            with(Subgroups::Khr),
            "-DGROUP_SIZE=64u -DA=1u -DROSETTA_SUBGROUPS_KHR=1 -cl-std=CL1.2"
        );
        assert_eq!(with(Subgroups::Feature), o);
        // A quiet target's builds inhibit warnings, before the user's extras.
        let quiet = Target {
            quiet: true,
            ..t.clone()
        };
        assert_eq!(
            options(&s, &quiet, &["-cl-opt-disable".to_string()]),
            "-DGROUP_SIZE=64u -DA=1u -cl-std=CL1.2 -w -cl-opt-disable"
        );
    }
}
