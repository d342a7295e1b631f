// Test-only prelude: OpenCL subgroups emulated with one invocation per
// subgroup, so the SUBGROUPS = 1 path of a kernel (per-subgroup results in
// shared memory, the tree over get_num_sub_groups() values) runs on devices
// without the extension. Prepended to the kernel's own source.
#define __opencl_c_subgroups 1
#define get_sub_group_size() 1u
#define get_sub_group_local_id() 0u
#define get_sub_group_id() ((uint)get_local_id(0))
#define get_num_sub_groups() ((uint)get_local_size(0))
#define sub_group_reduce_add(x) (x)
#define sub_group_reduce_min(x) (x)
#define sub_group_reduce_max(x) (x)
#define sub_group_any(p) ((int)(p))
#define sub_group_all(p) ((int)(p))
