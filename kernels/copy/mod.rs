//! Copy: `dst[i] = src[i]` for `n` words — the benchmark's roofline, measured
//! through each API so "% of copy bandwidth" compares like with like.
//!
//! # Algorithm (every language)
//! Grid-stride over 4-word vectors (`v = t; v < n/4; v += T`), then the scalar
//! tail, as reduce's loads. No shared memory, no barriers.
//!
//! # Interface
//! - constants: `GROUP_SIZE`.
//! - bindings: 0 `src` (read, `n` words), 1 `dst` (read-write, `n` words).
//! - params: `n`.
//! - shared: none (`shared_bytes = 0`).

#[path = "copy.rs"]
mod cpu;

use crate::op::{
    check_apart, check_binding, compare_exact, preferred_group_size, prepare_kernel, seed,
    u32_param, ArrayData, Case, CaseGroup, Check, CliSpec, Context, HostArray, Metric, Op, Options,
    Prepared, Size, Verdict, Workload,
};
use rosetta_core::{
    inputs, Access, Backend, Buffer, DeviceInfo, Kernel, KernelDef, Launch, Result,
};
use std::sync::{Arc, LazyLock};

/// The copy kernel, in every language.
pub fn kernel() -> &'static Arc<KernelDef> {
    static KERNEL: LazyLock<Arc<KernelDef>> = LazyLock::new(|| {
        Arc::new(
            crate::with_sources!(
                KernelDef::builder("copy")
                    .bindings([Access::Read, Access::ReadWrite])
                    .params(["n"]),
                "copy"
            )
            .cpu(cpu::copy)
            .build()
            .expect("built-in kernel definitions are valid (tested)"),
        )
    });
    &KERNEL
}

/// A compiled copy of `words` 32-bit words.
pub struct CopyPlan {
    backend: Arc<dyn Backend>,
    words: u64,
    kernel: Kernel,
    launch: Launch,
}

impl CopyPlan {
    /// Plan a copy of `words` words on `backend`.
    pub fn new(backend: &Arc<dyn Backend>, words: u64) -> Result<Self> {
        u32_param("copy length (words)", words)?;
        let caps = &backend.info().caps;
        let group_size = preferred_group_size(caps);
        let wanted = words.div_ceil(u64::from(group_size) * 4).max(1);
        let groups = wanted.min(
            u64::from(caps.saturating_groups(group_size) * 4).min(u64::from(caps.max_groups[0])),
        );
        let launch = Launch::linear(groups as u32, group_size, 0);
        let kernel = prepare_kernel(backend, kernel(), &[("GROUP_SIZE", group_size)], &launch)?;
        Ok(CopyPlan {
            backend: Arc::clone(backend),
            words,
            kernel,
            launch,
        })
    }

    /// Enqueue the copy of the first `words` words of `src` into `dst`.
    pub fn encode(&self, src: &Buffer, dst: &Buffer) -> Result<()> {
        let bytes = self.words * 4;
        check_binding(&self.backend, "copy source", src, bytes)?;
        check_binding(&self.backend, "copy destination", dst, bytes)?;
        check_apart("copy", ("destination", dst), &[("source", src)])?;
        if self.words == 0 {
            return Ok(());
        }
        // SAFETY: the kernel touches words below n = self.words of both
        // buffers, which hold at least that many (checked above).
        unsafe {
            self.backend.launch(
                &self.kernel,
                &self.launch,
                &[src, dst],
                &[self.words as u32],
            )
        }
    }
}

/// The copy op.
pub struct Copy;

/// A copy between buffers longer than the data: the source followed by
/// other words, the destination holding [`SENTINEL`] past n, which must
/// still hold it (a copy that rounded n up to whole vectors wrote up to
/// three words past the end, and no case looked there).
struct CopyCheck {
    data: Vec<u32>,
}

/// What the destination holds past n, before and after.
const SENTINEL: u32 = 0xDEAD_BEEF;

/// Words past n in both buffers.
const PAST: usize = 8;

impl Check for CopyCheck {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let backend = ctx.backend;
        let len = self.data.len();
        let plan = CopyPlan::new(backend, len as u64)?;
        let mut source = self.data.clone();
        source.extend((0..PAST as u32).map(|j| 0x7fc0_0001 + j));
        let src = Buffer::from_slice(backend, &source)?;
        let dst = Buffer::from_slice(backend, &vec![SENTINEL; len + PAST])?;
        plan.encode(&src, &dst)?;
        let got = dst.read::<u32>(len + PAST)?;
        if let Some(i) = got[len..].iter().position(|&w| w != SENTINEL) {
            return Ok(Verdict::fail(format!(
                "word {} (past the {len} copied) changed to {:#x}",
                len + i,
                got[len + i]
            )));
        }
        Ok(compare_exact(&got[..len], &self.data))
    }
}

struct CopyRun {
    plan: CopyPlan,
    src: Buffer,
    dst: Buffer,
    data: Vec<u32>,
}

impl Prepared for CopyRun {
    fn run(&mut self) -> Result<()> {
        self.plan.encode(&self.src, &self.dst)
    }
    fn verify(&mut self) -> Result<Option<String>> {
        let got: Vec<u32> = self.dst.read(self.data.len())?;
        Ok(got
            .iter()
            .zip(&self.data)
            .position(|(g, d)| g != d)
            .map(|i| format!("word {i} not copied")))
    }
    fn variant(&self) -> String {
        format!("groups={}", self.plan.launch.groups[0])
    }
}

/// The copy workload of `words` words (the roofline of every preset).
pub fn workload(words: u64) -> Workload {
    Workload::new(
        "copy",
        format!("copy n={}", crate::op::pow2_label(words)),
        "copy",
        words,
        2 * words * 4,
        None,
        Metric::Bandwidth,
        move |backend, _| {
            let data = inputs::u32_values(0x5eed_c0b1, words as usize);
            Ok(Box::new(CopyRun {
                plan: CopyPlan::new(backend, words)?,
                src: Buffer::from_slice(backend, &data)?,
                dst: backend.alloc(words * 4)?,
                data,
            }) as Box<dyn Prepared>)
        },
    )
}

/// The launch floor: a copy of one word, one workgroup in one launch,
/// timed like every workload. What an API's timers measure around the least
/// launch it can make (enqueue, the GPU waking, the timestamps), to set the
/// latency-bound workloads (the small sums) against. It runs in every
/// benchmark, beside the roofline.
pub fn floor_workload() -> Workload {
    Workload::new(
        "copy",
        "copy n=1 (launch floor)",
        "launch floor",
        1,
        2 * 4,
        None,
        Metric::Time,
        move |backend, _| {
            let data = inputs::u32_values(0x5eed_f100, 1);
            Ok(Box::new(CopyRun {
                plan: CopyPlan::new(backend, 1)?,
                src: Buffer::from_slice(backend, &data)?,
                dst: backend.alloc(4)?,
                data,
            }) as Box<dyn Prepared>)
        },
    )
}

impl Op for Copy {
    fn name(&self) -> &'static str {
        "copy"
    }

    fn about(&self) -> &'static str {
        "copy an array of 32-bit words: float32, int32 or uint32 (the bandwidth roofline)"
    }

    fn kernels(&self) -> Vec<Arc<KernelDef>> {
        vec![Arc::clone(kernel())]
    }

    fn cases(&self) -> Vec<Case> {
        [1usize, 3, 4, 1023, 1025, 65_537, 1_000_003]
            .into_iter()
            .map(|len| {
                let name = format!("copy n={len}");
                let s = seed(&name);
                Case::new(name, "copy", CaseGroup::Ops, len <= 70_000, move || {
                    CopyCheck {
                        data: inputs::u32_values(s, len),
                    }
                })
            })
            .collect()
    }

    fn random_case(&self, draw: &mut crate::op::random::Draw) -> Case {
        // One plan, no variants: a drawn length and words.
        let len = draw.length(crate::op::random::MAX_LEN);
        let s = draw.seed();
        Case::new(
            format!("copy n={len}"),
            "copy",
            CaseGroup::Random,
            true,
            move || CopyCheck {
                data: inputs::u32_values(s, len),
            },
        )
    }

    fn workloads(&self, size: Size, device: &DeviceInfo) -> Vec<Workload> {
        vec![workload(crate::op::roofline_words(size, device))]
    }

    fn cli(&self) -> CliSpec {
        CliSpec {
            inputs: vec!["X"],
            options: Vec::new(),
            about_inputs: "X: any float32, int32 or uint32 array",
        }
    }

    fn run(
        &self,
        backend: &Arc<dyn Backend>,
        _: &Options,
        inputs: Vec<HostArray>,
    ) -> Result<HostArray> {
        let [x] = crate::op::exactly::<1>(inputs)?;
        let words: Vec<u32> = match &x.data {
            ArrayData::F32(v) => bytemuck::cast_slice(v).to_vec(),
            ArrayData::I32(v) => bytemuck::cast_slice(v).to_vec(),
            ArrayData::U32(v) => v.clone(),
            ArrayData::U8(_) => {
                return Err(crate::op::wrong_type(
                    "X",
                    "float32, int32 or uint32 (32-bit)",
                    rosetta_core::Elem::U8,
                ))
            }
        };
        let plan = CopyPlan::new(backend, words.len() as u64)?;
        let src = Buffer::from_slice(backend, &words)?;
        let dst = backend.alloc(words.len() as u64 * 4)?;
        plan.encode(&src, &dst)?;
        let out: Vec<u32> = dst.read(words.len())?;
        let data = match x.data {
            ArrayData::F32(_) => ArrayData::F32(bytemuck::cast_vec(out)),
            ArrayData::I32(_) => ArrayData::I32(bytemuck::cast_vec(out)),
            _ => ArrayData::U32(out),
        };
        HostArray::new(x.shape, data)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_kernel_has_every_language() {
        assert_eq!(super::kernel().sources().languages().len(), 5);
    }
}
