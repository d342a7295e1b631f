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

use crate::op::random::{self, Draw};
use crate::op::{
    check_apart, check_binding, compare_exact, made_on_device, preferred_group_size,
    prepare_kernel, seed, u32_param, ArrayData, Case, CaseGroup, Check, CliSpec, Context,
    HostArray, Metric, Op, Options, Prepared, Size, Verdict, Workload,
};
use rosetta_core::{
    check_limit, inputs, Access, Backend, Buffer, Capabilities, DeviceInfo, Kernel, KernelDef,
    Launch, Result,
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
        Self::with_grid(backend, words, u32::MAX)
    }

    /// [`CopyPlan::new`] on a grid of at most `groups` workgroups (at least
    /// one), which then stride over the vectors: the kernels' grid-stride
    /// loop, unrolled four strides deep, runs its unrolled body only for
    /// invocations with four vectors or more, which the plan's own grid
    /// (one vector per invocation up to its cap) gives only past about 3 M
    /// words on llvmpipe. Conformance caps it on every device so that short
    /// copies run that body and end it at every offset.
    pub(crate) fn with_grid(backend: &Arc<dyn Backend>, words: u64, groups: u32) -> Result<Self> {
        u32_param("copy length (words)", words)?;
        let (group_size, groups) = grid(&backend.info().caps, words, groups)?;
        let launch = Launch::linear(groups, group_size, 0);
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

/// The workgroup size and grid of a copy of `words` words on a device with
/// `caps`, at most `most_groups` workgroups: one vector per invocation up
/// to four saturating grids; refused where an invocation would loop past
/// the device's loop budget.
fn grid(caps: &Capabilities, words: u64, most_groups: u32) -> Result<(u32, u32)> {
    let group_size = preferred_group_size(caps);
    let wanted = words.div_ceil(u64::from(group_size) * 4).max(1);
    let groups = wanted
        .min(u64::from(caps.saturating_groups(group_size) * 4).min(u64::from(caps.max_groups[0])))
        .min(u64::from(most_groups.max(1)));
    check_limit(
        "copy loop iterations per invocation",
        loop_iterations(words, groups * u64::from(group_size)),
        caps.loop_budget(),
    )?;
    Ok((group_size, groups as u32))
}

/// Loop iterations one invocation of a grid of `stride` invocations runs
/// for `words` words, counted generously: every vector loop iteration as if
/// none were unrolled, and the tail's.
fn loop_iterations(words: u64, stride: u64) -> u64 {
    (words / 4).div_ceil(stride) + 1
}

/// The copy op.
pub struct Copy;

/// A copy between buffers longer than the data: the source followed by
/// other words, the destination holding [`SENTINEL`] past n, which must
/// still hold it (a copy that rounded n up to whole vectors wrote up to
/// three words past the end, and no case looked there).
struct CopyCheck {
    data: Vec<u32>,
    /// The most workgroups of the grid ([`CopyPlan::with_grid`]); `None`:
    /// the plan's own.
    grid: Option<u32>,
}

/// What the destination holds past n, before and after.
const SENTINEL: u32 = 0xDEAD_BEEF;

/// Words past n in both buffers.
const PAST: usize = 8;

impl Check for CopyCheck {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let backend = ctx.backend;
        let len = self.data.len();
        let plan = match self.grid {
            Some(groups) => CopyPlan::with_grid(backend, len as u64, groups)?,
            None => CopyPlan::new(backend, len as u64)?,
        };
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
            // The plan and device buffers before the words are made on the
            // host (`made_on_device`).
            let plan = CopyPlan::new(backend, words)?;
            let dst = backend.alloc(words * 4)?;
            let len = words as usize;
            let (src, data) =
                made_on_device(backend, len, || inputs::u32_values(0x5eed_c0b1, len))?;
            Ok(Box::new(CopyRun {
                plan,
                src,
                dst,
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
                        grid: None,
                    }
                })
            })
            .collect()
    }

    fn random_case(&self, draw: &mut Draw) -> Case {
        Drawn::draw(draw).case()
    }

    fn workloads(&self, size: Size, device: &DeviceInfo) -> Vec<Workload> {
        vec![workload(crate::op::roofline_words(size, device))]
    }

    fn shape_forms(&self) -> &'static [&'static str] {
        &["N (32-bit words)"]
    }

    fn shaped_workloads(&self, dims: &[usize], _: &DeviceInfo) -> Result<Vec<Workload>> {
        match *dims {
            [words] => Ok(vec![workload(words as u64)]),
            _ => Err(crate::op::wrong_form(self.name(), dims, self.shape_forms())),
        }
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

/// The most workgroups a drawn capped grid has.
const DRAWN_MOST_GROUPS: usize = 4;

/// The longest drawn copy on a capped grid, in rows of the unrolled loop
/// (each four strides of vectors).
const DRAWN_MOST_ROWS: usize = 8;

/// A copy the `random` group drew.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Drawn {
    len: usize,
    /// The most workgroups ([`CopyPlan::with_grid`]); `None`: the plan's own
    /// grid.
    grid: Option<u32>,
    seed: u64,
}

impl Drawn {
    /// Half the time a length up to [`random::MAX_LEN`] on the plan's own
    /// grid (one vector per invocation at these lengths); half the time a grid capped at 1 to [`DRAWN_MOST_GROUPS`]
    /// workgroups and a length that ends the kernels' unrolled loop (four
    /// strides of vectors a row) at a drawn offset: 0 to
    /// [`DRAWN_MOST_ROWS`] whole rows, then vectors up to a row more, half
    /// the time at an edge of a stride (0, 1, each multiple of the stride
    /// and one either side, a row less one), then a tail of 0 to 3 words.
    /// Strides count the least device's workgroups of 256 invocations
    /// (every device the suite runs takes them).
    fn draw(draw: &mut Draw) -> Drawn {
        if draw.chance(50) {
            let len = draw.length(random::MAX_LEN);
            return Drawn {
                len,
                grid: None,
                seed: draw.seed(),
            };
        }
        let groups = draw.between(1, DRAWN_MOST_GROUPS);
        let stride = groups * preferred_group_size(&random::least_device()) as usize;
        let row = 4 * stride;
        let rows = draw.between(0, DRAWN_MOST_ROWS);
        let within = if draw.chance(50) {
            let j = draw.between(0, 4);
            (j * stride + draw.between(0, 2))
                .saturating_sub(1)
                .min(row - 1)
        } else {
            draw.below(row)
        };
        let len = (4 * (rows * row + within) + draw.below(4)).clamp(1, random::MAX_LEN);
        Drawn {
            len,
            grid: Some(groups as u32),
            seed: draw.seed(),
        }
    }

    fn name(&self) -> String {
        match self.grid {
            None => format!("copy n={}", self.len),
            Some(1) => format!("copy n={} on 1 workgroup", self.len),
            Some(groups) => format!("copy n={} on {groups} workgroups", self.len),
        }
    }

    fn case(self) -> Case {
        Case::new(self.name(), "copy", CaseGroup::Random, true, move || {
            CopyCheck {
                data: inputs::u32_values(self.seed, self.len),
                grid: self.grid,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::random::testing;

    #[test]
    fn the_kernel_has_every_language() {
        assert_eq!(super::kernel().sources().languages().len(), 5);
    }

    fn draws(seed: u64, count: u64) -> Vec<Drawn> {
        testing::draws("copy", seed, count, Drawn::draw)
    }

    /// Where the unrolled loop of a drawn copy on a capped grid of `groups`
    /// workgroups of 256 ends: its vectors' offset in the last row (four
    /// strides), and whether a whole row ran before it.
    fn offset(d: &Drawn, groups: u32) -> (usize, bool) {
        let row = 4 * 256 * groups as usize;
        let vectors = d.len / 4;
        (vectors % row, vectors >= row)
    }

    #[test]
    fn draws_cap_the_grid_and_end_the_unrolled_loop_everywhere() {
        let drawn = draws(3, 2000);
        let capped: Vec<(&Drawn, u32)> = drawn
            .iter()
            .filter_map(|d| d.grid.map(|g| (d, g)))
            .collect();
        assert!(
            capped.len() > 800 && capped.len() < 1200,
            "{}",
            capped.len()
        );
        assert!(drawn.iter().any(|d| d.grid.is_none() && d.len > 100_000));
        for d in &drawn {
            assert!(d.len >= 1 && d.len <= random::MAX_LEN, "{}", d.name());
            if let Some(g) = d.grid {
                assert!((1..=DRAWN_MOST_GROUPS as u32).contains(&g), "{}", d.name());
            }
        }
        for groups in 1..=DRAWN_MOST_GROUPS as u32 {
            let stride = 256 * groups as usize;
            let of = |f: &dyn Fn(usize, bool, usize) -> bool| {
                capped
                    .iter()
                    .filter(|(d, g)| *g == groups && f(offset(d, *g).0, offset(d, *g).1, d.len % 4))
                    .count()
            };
            // Every quarter of the row, after whole rows and not, each tail.
            for quarter in 0..4 {
                for after_rows in [false, true] {
                    assert!(
                        of(&|at, rows, _| at / stride == quarter && rows == after_rows) > 0,
                        "{groups} groups, quarter {quarter}, after rows {after_rows}"
                    );
                }
            }
            for tail in 0..4 {
                assert!(of(&|_, _, t| t == tail) > 0, "{groups} groups, tail {tail}");
            }
            // The edges of each stride, and a row less one.
            for at in [
                0,
                1,
                stride - 1,
                stride,
                3 * stride - 1,
                3 * stride,
                3 * stride + 1,
                4 * stride - 1,
            ] {
                assert!(of(&|a, _, _| a == at) > 0, "{groups} groups, offset {at}");
            }
        }
        // The unrolled loop's last row ends in its last stride (the
        // invocations at its end run the four loads and stores): in a
        // tenth of all draws, so that a default run meets it.
        let last_stride = capped
            .iter()
            .filter(|(d, g)| offset(d, *g).0 >= 3 * 256 * *g as usize)
            .count();
        assert!(
            last_stride * 10 >= drawn.len(),
            "{last_stride} of {}",
            drawn.len()
        );
    }

    /// A default run (24 copies) ends the unrolled loop in its last stride
    /// in nine seeds of ten or more (measured: 194 of 200).
    #[test]
    fn most_default_runs_end_the_unrolled_loop_in_its_last_stride() {
        let last_stride = |d: &Drawn| {
            d.grid
                .is_some_and(|g| offset(d, g).0 >= 3 * 256 * g as usize)
        };
        let seeds = testing::seeds_meeting("copy", 200, Drawn::draw, last_stride);
        assert!(seeds >= 180, "{seeds} of 200 seeds");
    }

    #[test]
    fn drawn_grids_fit_every_device() {
        for d in draws(5, 1000) {
            for caps in testing::devices() {
                let most = d.grid.unwrap_or(u32::MAX);
                let (group_size, groups) = grid(&caps, d.len as u64, most)
                    .unwrap_or_else(|e| panic!("{} on {caps:?}: {e}", d.name()));
                assert_eq!(group_size, 256, "{}", d.name());
                if let Some(g) = d.grid {
                    assert!(groups <= g, "{}", d.name());
                }
            }
        }
        // A grid the loop budget refuses: one workgroup over 2^24 words.
        let lavapipe = Capabilities::software_device();
        assert!(grid(&lavapipe, 1 << 24, 1).is_err());
        assert!(grid(&lavapipe, 1 << 24, u32::MAX).is_ok());
    }

    #[test]
    fn a_draw_repeats_and_its_name_says_what_was_drawn() {
        assert_eq!(draws(4, 50), draws(4, 50));
        assert_ne!(draws(4, 50), draws(5, 50));
        let d = Drawn {
            len: 3079,
            grid: Some(3),
            seed: 1,
        };
        assert_eq!(d.name(), "copy n=3079 on 3 workgroups");
        assert_eq!(
            Drawn { grid: Some(1), ..d }.name(),
            "copy n=3079 on 1 workgroup"
        );
        assert_eq!(Drawn { grid: None, ..d }.name(), "copy n=3079");
    }

    #[test]
    fn drawn_cases_pass_on_the_cpu_backend() {
        let verdicts = testing::drawn_on_cpu("copy", 1, 48, |draw| Drawn::draw(draw).case());
        let failed = testing::not_passed(&verdicts);
        assert!(failed.is_empty(), "{}", failed.join("\n"));
    }
}
