//! The shape of one dispatch, and its check against a device's limits.

use crate::caps::Capabilities;
use crate::error::{check_limit, Error, Result};

/// The shape of one dispatch.
///
/// Workgroups are one-dimensional in rosetta (`group_size` invocations along
/// x; kernels derive 2-D positions from the local index); grids are up to 3-D.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Launch {
    /// Number of workgroups along x, y, z.
    pub groups: [u32; 3],
    /// Invocations per workgroup; must equal the kernel's `GROUP_SIZE` constant.
    pub group_size: u32,
    /// Workgroup shared memory the kernel uses, in bytes. For kernels whose
    /// [`crate::KernelDef::dynamic_shared`] is set, CUDA passes it as dynamic
    /// `extern __shared__` memory and OpenCL as a trailing `__local` argument;
    /// WGSL and GLSL size their arrays from constants.
    pub shared_bytes: u32,
}

impl Launch {
    /// `groups` workgroups along x.
    pub fn linear(groups: u32, group_size: u32, shared_bytes: u32) -> Self {
        Launch {
            groups: [groups, 1, 1],
            group_size,
            shared_bytes,
        }
    }

    /// Total workgroups.
    pub fn total_groups(&self) -> u64 {
        self.groups.iter().map(|&g| u64::from(g)).product()
    }

    /// Refuse a launch that exceeds the device's limits, before any API call.
    pub fn validate(&self, caps: &Capabilities) -> Result<()> {
        if self.group_size == 0 || self.groups.contains(&0) {
            return Err(Error::InvalidArgument(format!(
                "empty launch: {:?} groups of {} invocations",
                self.groups, self.group_size
            )));
        }
        check_limit(
            "workgroup size",
            self.group_size.into(),
            caps.max_group_size[0].into(),
        )?;
        check_limit(
            "workgroup invocations",
            self.group_size.into(),
            caps.max_group_invocations.into(),
        )?;
        const AXES: [&str; 3] = [
            "workgroups along x",
            "workgroups along y",
            "workgroups along z",
        ];
        for ((&n, &max), what) in self.groups.iter().zip(&caps.max_groups).zip(AXES) {
            check_limit(what, n.into(), max.into())?;
        }
        check_limit(
            "workgroup shared memory (bytes)",
            self.shared_bytes.into(),
            caps.max_shared_bytes.into(),
        )
    }
}

/// Split `total` workgroups over x and y so neither axis exceeds the device's
/// limits: `[x, y, 1]` with `x·y >= total`, x as large as allowed. Kernels
/// recover the flat group index as `group_id.y·num_groups.x + group_id.x` and
/// skip flat indices `>= total`. `None` when even `max_x·max_y` is too few.
pub fn grid_2d(total: u64, caps: &Capabilities) -> Option<[u32; 3]> {
    let max_x = u64::from(caps.max_groups[0]);
    let max_y = u64::from(caps.max_groups[1]);
    if total == 0 {
        return Some([1, 1, 1]);
    }
    let x = total.min(max_x);
    let y = total.div_ceil(x);
    (y <= max_y).then_some([x as u32, y as u32, 1])
}

/// Check the byte range of a `write` or `read` against a buffer of `size`
/// bytes: offset and length multiples of 4, inside the buffer. Returns the
/// range's end.
pub fn check_byte_range(offset: u64, len: u64, size: u64) -> Result<u64> {
    match offset.checked_add(len) {
        Some(end) if offset.is_multiple_of(4) && len.is_multiple_of(4) && end <= size => Ok(end),
        _ => Err(Error::InvalidArgument(format!(
            "byte range {offset}+{len} is unaligned or outside a buffer of {size} bytes"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::caps::DeviceType;

    fn caps(max_groups: [u32; 3]) -> Capabilities {
        Capabilities {
            device_type: DeviceType::Cpu,
            max_shared_bytes: 32 << 10,
            max_group_size: [1024, 1024, 64],
            max_group_invocations: 1024,
            max_groups,
            subgroup_sizes: None,
            subgroup_ops: false,
            float_atomics: false,
            timestamps: false,
            max_buffer_bytes: 1 << 30,
            memory_bytes: 0,
            compute_units: 4,
            loop_limit: None,
            device_fence: false,
            async_copy: false,
        }
    }

    #[test]
    fn grids_split_over_two_axes() {
        let c = caps([65_535, 65_535, 65_535]);
        assert_eq!(grid_2d(10, &c), Some([10, 1, 1]));
        assert_eq!(grid_2d(65_536, &c), Some([65_535, 2, 1]));
        let g = grid_2d(1 << 31, &c).unwrap();
        assert!(u64::from(g[0]) * u64::from(g[1]) >= 1 << 31);
        assert_eq!(grid_2d(u64::MAX, &c), None);
    }

    #[test]
    fn launches_over_limits_are_refused() {
        let c = caps([65_535, 65_535, 65_535]);
        assert!(Launch::linear(65_535, 256, 0).validate(&c).is_ok());
        assert!(matches!(
            Launch::linear(65_536, 256, 0).validate(&c),
            Err(Error::ExceedsLimit { .. })
        ));
        assert!(matches!(
            Launch::linear(1, 256, (32 << 10) + 4).validate(&c),
            Err(Error::ExceedsLimit { .. })
        ));
        assert!(matches!(
            Launch::linear(0, 256, 0).validate(&c),
            Err(Error::InvalidArgument(_))
        ));
    }

    #[test]
    fn byte_ranges_are_checked_without_overflow() {
        assert_eq!(check_byte_range(4, 8, 16).unwrap(), 12);
        assert!(check_byte_range(2, 4, 16).is_err());
        assert!(check_byte_range(0, 20, 16).is_err());
        assert!(check_byte_range(u64::MAX - 3, 8, u64::MAX).is_err());
    }
}
