//! Compiling one pass of a plan, with its launch checked up front.

use rosetta_core::{Backend, KernelId, KernelSpec, Launch, Result};

/// Compile `spec` (cached by the backend) and check `launch` against the
/// device's limits now, so a plan fails in `new` rather than half-way through
/// `encode`.
pub(crate) fn compile(
    backend: &dyn Backend,
    spec: &KernelSpec,
    launch: &Launch,
) -> Result<KernelId> {
    launch.validate(&backend.info().caps)?;
    backend.compile(spec)
}
