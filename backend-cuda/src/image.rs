//! A compiled kernel image: a cubin or NUL-terminated PTX, as
//! `cuModuleLoadData` takes it, checked for shape before the driver sees it.
//!
//! Images come from NVRTC or from the persistent cache. The driver parses an
//! image as trusted input, so a cached payload is refused here unless it has
//! the shape of what NVRTC writes: PTX ends in its NUL; a cubin is a 64-bit
//! little-endian ELF for `EM_CUDA` whose header tables lie inside the file.

use crate::target::Target;

/// `e_machine` of NVIDIA GPU code.
const EM_CUDA: u16 = 190;

/// One compiled kernel.
#[derive(Debug, Clone)]
pub struct Image {
    target: Target,
    bytes: Vec<u8>,
    log: String,
}

impl Image {
    /// An image of `target` with NVRTC's `log`, if `bytes` have its shape.
    pub(crate) fn new(target: Target, bytes: Vec<u8>, log: String) -> Result<Self, String> {
        check(target, &bytes)?;
        Ok(Image { target, bytes, log })
    }

    /// What it was compiled for.
    pub fn target(&self) -> Target {
        self.target
    }

    /// The cubin, or PTX text with its terminating NUL.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// NVRTC's log (warnings; ptxas' report with `--ptxas-options=-v`); empty
    /// for an image read from the cache.
    pub fn log(&self) -> &str {
        &self.log
    }
}

/// Whether `bytes` have the shape of a `target` image (see the module docs).
pub(crate) fn check(target: Target, bytes: &[u8]) -> Result<(), String> {
    match target {
        Target::Ptx(_) => match bytes.split_last() {
            Some((0, text)) if !text.is_empty() && !text.contains(&0) => Ok(()),
            _ => Err("PTX must be non-empty text ending in one NUL".into()),
        },
        Target::Cubin(_) => check_elf(bytes),
    }
}

fn check_elf(bytes: &[u8]) -> Result<(), String> {
    let u16_at = |at: usize| -> Option<u16> {
        Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
    };
    let u64_at = |at: usize| -> Option<u64> {
        Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
    };
    if bytes.len() < 64 || bytes[..4] != *b"\x7fELF" {
        return Err("not an ELF file".into());
    }
    if bytes[4] != 2 || bytes[5] != 1 {
        return Err("not a 64-bit little-endian ELF file".into());
    }
    if u16_at(18) != Some(EM_CUDA) {
        return Err(format!(
            "ELF machine {:?}, not CUDA ({EM_CUDA})",
            u16_at(18)
        ));
    }
    let len = bytes.len() as u64;
    // (offset, entry size, count) of the program and section header tables.
    for (what, offset, size, count) in [
        ("program headers", u64_at(32), u16_at(54), u16_at(56)),
        ("section headers", u64_at(40), u16_at(58), u16_at(60)),
    ] {
        let (Some(offset), Some(size), Some(count)) = (offset, size, count) else {
            return Err("truncated ELF header".into());
        };
        let end = u64::from(size)
            .checked_mul(u64::from(count))
            .and_then(|table| table.checked_add(offset));
        if count > 0 && !matches!(end, Some(end) if end <= len) {
            return Err(format!("the {what} lie outside the file"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal ELF header with one section header table at the end.
    fn elf(machine: u16) -> Vec<u8> {
        let mut bytes = vec![0u8; 64 + 64];
        bytes[..4].copy_from_slice(b"\x7fELF");
        bytes[4] = 2;
        bytes[5] = 1;
        bytes[18..20].copy_from_slice(&machine.to_le_bytes());
        bytes[40..48].copy_from_slice(&64u64.to_le_bytes()); // e_shoff
        bytes[58..60].copy_from_slice(&64u16.to_le_bytes()); // e_shentsize
        bytes[60..62].copy_from_slice(&1u16.to_le_bytes()); // e_shnum
        bytes
    }

    #[test]
    fn ptx_must_end_in_its_nul() {
        let ptx = Target::Ptx(90);
        assert!(check(ptx, b".version 8.8\n.entry k {}\n\0").is_ok());
        assert!(check(ptx, b".version 8.8").is_err(), "no NUL");
        assert!(check(ptx, b"\0").is_err(), "empty");
        assert!(check(ptx, b"a\0b\0").is_err(), "NUL inside");
        assert!(check(ptx, b"").is_err());
    }

    #[test]
    fn cubins_must_be_whole_cuda_elf_files() {
        let cubin = Target::Cubin(90);
        assert!(check(cubin, &elf(EM_CUDA)).is_ok());
        assert!(check(cubin, &elf(62)).is_err(), "x86-64, not CUDA");
        let mut truncated = elf(EM_CUDA);
        truncated.truncate(100);
        assert!(check(cubin, &truncated).is_err(), "table past the end");
        let mut huge = elf(EM_CUDA);
        huge[40..48].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(check(cubin, &huge).is_err(), "offset overflows");
        let mut big_endian = elf(EM_CUDA);
        big_endian[5] = 2;
        assert!(check(cubin, &big_endian).is_err());
        assert!(check(cubin, b"garbage").is_err());
        assert!(check(cubin, &[0u8; 200]).is_err());
        assert!(Image::new(cubin, elf(EM_CUDA), String::new()).is_ok());
    }
}
