//! GLSL → SPIR-V with glslang (target Vulkan 1.1, SPIR-V 1.3), and the
//! persistent SPIR-V cache.
//!
//! glslang is the slow part of building a kernel on lavapipe (and its run
//! time is the same on every device), so its output is kept on disk under
//! `kernels/vulkan/spirv/`, keyed by the source text, the defines, the target
//! and the versions of rosetta and glslang. SPIR-V does not depend on the
//! device: constants are specialization constants, applied when the pipeline
//! is created. A cached module is only a candidate: the caller parses and
//! checks it like a fresh one and compiles again if it is rejected.

use crate::stats;
use rosetta_core::disk_cache::DiskCache;
use rosetta_core::Fingerprint;
use std::sync::Mutex;

/// The version glslang reports of itself (`13.1.1`, and its flavor), part
/// of every SPIR-V key: cached modules of an older compiler are not read
/// after glslang is updated.
fn glslang_version() -> &'static str {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION.get_or_init(|| {
        let mut version = glslang_sys::glslang_version_t {
            major: 0,
            minor: 0,
            patch: 0,
            flavor: std::ptr::null(),
        };
        // SAFETY: glslang_get_version only fills in the struct it is given;
        // `flavor` then points at a static NUL-terminated string (or is null).
        unsafe { glslang_sys::glslang_get_version(&mut version) };
        let flavor = if version.flavor.is_null() {
            String::new()
        } else {
            // SAFETY: non-null, glslang's static NUL-terminated string.
            unsafe { std::ffi::CStr::from_ptr(version.flavor) }
                .to_string_lossy()
                .into_owned()
        };
        format!(
            "glslang {}.{}.{}{flavor}",
            version.major, version.minor, version.patch
        )
    })
}

/// The first word of every SPIR-V module.
const SPIRV_MAGIC: u32 = 0x0723_0203;

/// The define that tells kernels they may use subgroup arithmetic.
const SUBGROUPS_DEFINE: &str = "HAVE_SUBGROUPS";

/// Compile a GLSL compute shader to SPIR-V words, defining
/// `HAVE_SUBGROUPS=1` when `subgroups`; `Err` carries glslang's log.
pub(crate) fn compile(source: &str, subgroups: bool) -> Result<Vec<u32>, String> {
    use glslang::{
        Compiler, CompilerOptions, ShaderInput, ShaderMessage, ShaderSource, ShaderStage,
        SourceLanguage, SpirvVersion, Target, VulkanVersion,
    };
    // glslang's process-wide state is set up once; compiles are serialised
    // (it keeps global state, and the machines it matters on have few cores).
    static GLSLANG: Mutex<()> = Mutex::new(());
    if source.contains('\0') {
        return Err("the source contains a NUL byte".into());
    }
    if !source.is_ascii() {
        // glslang's log must be UTF-8 for the bindings; keep sources ASCII.
        return Err("the source contains non-ASCII characters".into());
    }
    let _guard = GLSLANG.lock().unwrap_or_else(|p| p.into_inner());
    let compiler = Compiler::acquire().ok_or("glslang could not be initialised")?;
    let source = ShaderSource::from(source);
    let defines: &[(&str, Option<&str>)] = if subgroups {
        &[(SUBGROUPS_DEFINE, Some("1"))]
    } else {
        &[]
    };
    let options = CompilerOptions {
        source_language: SourceLanguage::GLSL,
        target: Target::Vulkan {
            version: VulkanVersion::Vulkan1_1,
            spirv_version: SpirvVersion::SPIRV1_3,
        },
        version_profile: None,
        messages: ShaderMessage::DEFAULT | ShaderMessage::VULKAN_RULES | ShaderMessage::SPV_RULES,
    };
    let input = ShaderInput::new(&source, ShaderStage::Compute, &options, Some(defines), None)
        .map_err(|e| format!("glslang input: {e}"))?;
    let shader = glslang::Shader::new(compiler, input)
        .parse()
        .map_err(|e| e.to_string())?;
    let log = shader.get_log();
    if !log.trim().is_empty() {
        tracing::debug!("glslang: {}", log.trim());
    }
    shader.compile().map_err(|e| e.to_string())
}

/// Where a module came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// The disk cache (to be checked by the caller).
    Disk,
    /// glslang, just now.
    Compiled,
}

/// The SPIR-V cache on disk.
#[derive(Debug, Clone)]
pub(crate) struct SpirvCache {
    disk: DiskCache,
}

impl SpirvCache {
    /// The cache in `kernels/vulkan/spirv` of rosetta's cache folder (off
    /// when caching is off).
    pub(crate) fn new() -> Self {
        SpirvCache {
            disk: DiskCache::new("kernels/vulkan/spirv"),
        }
    }

    fn key(source: &str, subgroups: bool) -> Fingerprint {
        Fingerprint::default()
            .str("rosetta vulkan spirv v1")
            .str(env!("CARGO_PKG_VERSION"))
            .str(glslang_version())
            .str("vulkan1.1 spirv1.3")
            .str(if subgroups { SUBGROUPS_DEFINE } else { "" })
            .str(source)
    }

    /// The cached module of `source`, if there is one that looks like SPIR-V.
    pub(crate) fn get(&self, source: &str, subgroups: bool) -> Option<Vec<u32>> {
        if !self.disk.enabled() {
            return None;
        }
        let key = Self::key(source, subgroups);
        match self.disk.get(&key).map(|bytes| words(&bytes)) {
            Some(Some(words)) => {
                tracing::debug!(key = %key.hex(), "vulkan: SPIR-V cache hit");
                Some(words)
            }
            Some(None) => {
                tracing::debug!(key = %key.hex(), "vulkan: SPIR-V cache entry is not SPIR-V");
                stats::count(&stats::SPIRV_REJECTED);
                None
            }
            None => {
                tracing::debug!(key = %key.hex(), "vulkan: SPIR-V cache miss");
                None
            }
        }
    }

    /// Keep `spirv` as the module of `source`.
    pub(crate) fn put(&self, source: &str, subgroups: bool, spirv: &[u32]) {
        if self.disk.enabled() {
            self.disk
                .put(&Self::key(source, subgroups), bytemuck::cast_slice(spirv));
        }
    }

    /// The module of `source`: from the disk cache, else from glslang (and
    /// then stored). `Err` is glslang's log.
    pub(crate) fn load(&self, source: &str, subgroups: bool) -> Result<(Vec<u32>, Origin), String> {
        if let Some(words) = self.get(source, subgroups) {
            stats::count(&stats::SPIRV_HITS);
            return Ok((words, Origin::Disk));
        }
        stats::count(&stats::SPIRV_MISSES);
        let words = compile(source, subgroups)?;
        self.put(source, subgroups, &words);
        Ok((words, Origin::Compiled))
    }

    /// Compile `source` with glslang, bypassing the cache, and store the
    /// result (after a cached module was rejected).
    pub(crate) fn rebuild(&self, source: &str, subgroups: bool) -> Result<Vec<u32>, String> {
        let words = compile(source, subgroups)?;
        self.put(source, subgroups, &words);
        Ok(words)
    }
}

/// SPIR-V words from bytes (little-endian), checking length and magic.
fn words(bytes: &[u8]) -> Option<Vec<u32>> {
    if !bytes.len().is_multiple_of(4) || bytes.len() < 20 {
        return None;
    }
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    (words[0] == SPIRV_MAGIC).then_some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SPIR-V key names the compiler's own version (it named a fixed
    /// "glslang 0.9", so an updated glslang would have read the modules of
    /// the old one).
    #[test]
    fn the_spirv_key_holds_glslangs_version() {
        let version = glslang_version();
        let number = version.strip_prefix("glslang ").unwrap();
        let major: u32 = number.split('.').next().unwrap().parse().unwrap();
        assert!(major >= 11 && number.split('.').count() >= 3, "{version}");
    }

    #[test]
    fn spirv_bytes_need_whole_words_and_the_magic() {
        assert!(words(&[0u8; 7]).is_none());
        assert!(words(&[0u8; 20]).is_none());
        let mut bytes = SPIRV_MAGIC.to_le_bytes().to_vec();
        bytes.extend_from_slice(&[0u8; 16]);
        assert_eq!(words(&bytes).map(|w| w.len()), Some(5));
    }

    #[test]
    fn broken_sources_return_glslangs_log() {
        let log = compile("#version 450\nvoid main() { nope(); }\n", false).unwrap_err();
        assert!(log.contains("nope"), "{log}");
        assert!(compile("#version 450\n// \u{e9}\nvoid main() {}\n", false).is_err());
    }
}
