//! The subgroup prelude: how one `.wgsl` source serves devices with and
//! without subgroups.
//!
//! naga (wgpu 30) rejects `enable subgroups;` (not implemented yet) and
//! instead allows the subgroup built-ins whenever the device has the
//! `SUBGROUP` feature; on a device without it, any use of them, even in a
//! branch that `SUBGROUPS = 0` makes dead, fails validation. So kernels never
//! name a subgroup built-in themselves. They call the helpers below, and the
//! backend appends one of two versions to the source of every kernel that has
//! a `SUBGROUPS` constant:
//!
//! - [`SUBGROUPS`] (device has the feature): the helpers are the subgroup
//!   built-ins (`subgroupAdd`, `subgroupMin`, `subgroupMax`, `subgroupAny`)
//!   and `SubgroupBuiltins` carries `subgroup_invocation_id`, `subgroup_size`,
//!   `subgroup_id` and `num_subgroups`.
//! - [`SINGLE_INVOCATION`] (no feature): the same names, as if every
//!   subgroup were one invocation (the helpers return their argument; lane 0,
//!   size 1, subgroup id = local index, GROUP_SIZE subgroups). Correct, only
//!   slower, should a kernel take its subgroup path anyway; the plans pass
//!   `SUBGROUPS = 0` there and `compile` refuses `SUBGROUPS = 1`.
//!
//! The text is appended, not prepended (WGSL declarations are
//! order-independent), so line numbers in compiler logs match the kernel
//! file. Both versions rely on the kernel's `GROUP_SIZE` override, which
//! every kernel has.

/// The helpers on a device with subgroups.
pub(crate) const SUBGROUPS: &str = r#"
// ---- appended by rosetta-backend-wgpu: this device has subgroups ----
struct SubgroupBuiltins {
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
    @builtin(subgroup_id) id: u32,
    @builtin(num_subgroups) count: u32,
}
struct Subgroup { lane: u32, size: u32, id: u32, count: u32 }
fn subgroup_of(b: SubgroupBuiltins) -> Subgroup { return Subgroup(b.lane, b.size, b.id, b.count); }
fn subgroup_add_f32(x: f32) -> f32 { return subgroupAdd(x); }
fn subgroup_add_u32(x: u32) -> u32 { return subgroupAdd(x); }
fn subgroup_min_f32(x: f32) -> f32 { return subgroupMin(x); }
fn subgroup_min_i32(x: i32) -> i32 { return subgroupMin(x); }
fn subgroup_min_u32(x: u32) -> u32 { return subgroupMin(x); }
fn subgroup_max_f32(x: f32) -> f32 { return subgroupMax(x); }
fn subgroup_max_i32(x: i32) -> i32 { return subgroupMax(x); }
fn subgroup_max_u32(x: u32) -> u32 { return subgroupMax(x); }
fn subgroup_any(x: bool) -> bool { return subgroupAny(x); }
"#;

/// The same helpers on a device without subgroups: one invocation each.
pub(crate) const SINGLE_INVOCATION: &str = r#"
// ---- appended by rosetta-backend-wgpu: no subgroups; each invocation is its own subgroup ----
struct SubgroupBuiltins {
    @builtin(local_invocation_id) local_id: vec3<u32>,
}
struct Subgroup { lane: u32, size: u32, id: u32, count: u32 }
fn subgroup_of(b: SubgroupBuiltins) -> Subgroup { return Subgroup(0u, 1u, b.local_id.x, GROUP_SIZE); }
fn subgroup_add_f32(x: f32) -> f32 { return x; }
fn subgroup_add_u32(x: u32) -> u32 { return x; }
fn subgroup_min_f32(x: f32) -> f32 { return x; }
fn subgroup_min_i32(x: i32) -> i32 { return x; }
fn subgroup_min_u32(x: u32) -> u32 { return x; }
fn subgroup_max_f32(x: f32) -> f32 { return x; }
fn subgroup_max_i32(x: i32) -> i32 { return x; }
fn subgroup_max_u32(x: u32) -> u32 { return x; }
fn subgroup_any(x: bool) -> bool { return x; }
"#;

/// The WGSL text to compile for a kernel source on a device with or without
/// subgroups.
pub(crate) fn source(kernel: &rosetta_core::KernelDef, wgsl: &str, subgroups: bool) -> String {
    if kernel.constant_index("SUBGROUPS").is_none() {
        return wgsl.to_string();
    }
    let helpers = if subgroups {
        SUBGROUPS
    } else {
        SINGLE_INVOCATION
    };
    format!("{wgsl}\n{helpers}")
}
