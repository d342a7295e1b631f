//! Conv2d: `out[y][x] = Σ_{i<KH, j<KW} f[i][j] · img(y + i − KH/2, x + j − KW/2)`
//! (cross-correlation — the filter is not flipped —, centred, same-size
//! output, odd filter extents), where `img` outside the image is 0
//! (`BORDER = 0`, [`Border::Zero`]) or the nearest edge pixel (`BORDER = 1`,
//! [`Border::Clamp`], numpy's `edge` padding). Image pixels are f32 or u8;
//! the filter and the output are f32.
//!
//! Three kernels, each in every language: halo tiles in shared memory
//! (`conv2d.*`: the `tile*` and `window*` variants), register windows
//! read straight from global memory (`conv2d_global.*`: the `global*`
//! variants), and direct sums of any filter straight from global memory
//! (`conv2d_direct.*`: the `direct` variant).
//!
//! # Algorithm: halo tiles (`conv2d.*`)
//! One `TILE_W × TILE_H` tile of outputs per workgroup. The workgroup's `GROUP_SIZE` invocations cover it as `TILE_W`
//! columns by `GROUP_SIZE / TILE_W` rows, each invocation computing
//! `ROWS = TILE_W·TILE_H / GROUP_SIZE` outputs of its column (`tx = lid %
//! TILE_W`, `ty = lid / TILE_W`): rows `ty + k·GROUP_SIZE/TILE_W`
//! (`WINDOW = 0`), or the consecutive rows `ty·ROWS + k` (`WINDOW = 1`, the
//! register window).
//! 1. Load the filter into `shared_filter` (`KH·KW` f32); with `WINDOW = 1`
//!    each invocation loads it into its registers (`weight`) instead.
//! 2. Over tiles: `for t = first; t < tiles; t += groups` with
//!    `tiles = tiles_x · tiles_y` (`tiles_x = ceil(width / TILE_W)`,
//!    `tiles_y = ceil(height / TILE_H)`), tile `t` at tile row `t / tiles_x`
//!    and column `t % tiles_x`, `first = group_id.y · num_groups.x +
//!    group_id.x` and `groups = num_groups.x · num_groups.y`. The plan
//!    launches one workgroup per tile, so this loop runs once unless the grid
//!    cannot hold every tile:
//!    a. load the halo tile `shared_tile[r][c]` for `r < TILE_H + KH − 1`,
//!    `c < TILE_W + KW − 1` (row stride `TILE_W + KW − 1`, flat index
//!    `s = lid; s < …; s += GROUP_SIZE`) from image pixel
//!    `(y0 − KH/2 + r, x0 − KW/2 + c)` with the border rule, converted to f32
//!    (`inside`: a tile whose halo lies within the image — most tiles of a
//!    large one — skips the border rule and reads pixel
//!    `origin + r·width + c`); barrier;
//!    b. each invocation computes its outputs from shared memory, each the
//!    sum over the filter row by row, in order, and stores those inside the
//!    image. With `WINDOW = 1` it walks the `ROWS + KH − 1` halo rows its
//!    outputs cover once, reading each value it needs once and adding it to
//!    every output whose filter covers it (filter row `r − k` of output
//!    `k`): `(ROWS + KH − 1)·KW` shared reads instead of `ROWS·KH·KW`, the
//!    same products in the same order;
//!    c. barrier.
//!
//! # Algorithm: windows from global memory (`conv2d_global.*`)
//! No shared memory and no barriers. Tiles of `TILE_W × TILE_H` outputs,
//! `TILE_W = 4·COLUMNS` (`COLUMNS = 32` vectors), `TILE_H = GROUP_SIZE /
//! COLUMNS · ROWS`, with the same tile loop as above; `HALO =
//! ceil((KW/2) / 4)` vectors.
//! 1. Load the filter into registers (`weight`).
//! 2. Per tile, invocation `lid` computes columns `x .. x + 3` (`x = x0 +
//!    4·(lid % COLUMNS)`: consecutive invocations, consecutive vectors) of
//!    rows `y .. y + ROWS − 1` (`y = y0 + ROWS·(lid / COLUMNS)`), when
//!    `x < width` and `y < height`. For each of the `ROWS + KH − 1` image
//!    rows its outputs cover (`py = y + r`, image row `py − KH/2`):
//!    a. fill the window of columns `x − 4·HALO .. x + 4 + 4·HALO`:
//!    `2·HALO + 1` vector loads (16 bytes of f32, or one word of four u8)
//!    where the row lies inside the image, the rows start on a vector
//!    (`width % 4 == 0`) and the window's columns lie inside them; else
//!    pixel by pixel with the border rule;
//!    b. add the window to every output whose filter covers the row (filter
//!    row `r − k` of output row `k`; output column `c` takes window slot
//!    `c + j + 4·HALO − KW/2` for filter column `j`): each output sums the
//!    filter row by row, in order, as in the halo tiles.
//!
//!    c. Store the outputs inside the image, a whole vector in one 16-byte
//!    store where the rows start on a vector.
//!
//! Neighbouring windows overlap; the cache serves the overlap, so DRAM sees
//! each pixel about once. The plan keeps `width + TILE_W + KW + 8` below
//! 2^32 (the last window slot). 16-byte loads and stores need bindings that
//! start at their allocation, whose size the buffer pool rounds up to 16
//! bytes; WGSL and GLSL declare the image and output as 4-word vectors.
//!
//! # Algorithm: direct sums (`conv2d_direct.*`)
//! No shared memory, no barriers, no private arrays, any filter size: the
//! fallback for filters that neither shared memory nor registers hold.
//! 1. Over blocks of `GROUP_SIZE` consecutive outputs (flat, row-major):
//!    `for t = first; t < blocks; t += groups` with `blocks =
//!    ceil(height·width / GROUP_SIZE)` and `first`, `groups` as above;
//!    invocation `lid` computes output `o = t·GROUP_SIZE + lid` (row
//!    `o / width`, column `o % width`) where `o < height·width`. The plan
//!    launches one workgroup per block, so this loop runs once unless the
//!    grid cannot hold every block.
//! 2. One launch sums the filter values `[f_begin, f_end)` (flat,
//!    row-major; params) into each output, in order: value
//!    `f = row·KW + col` times the pixel at `(y + row − KH/2, x + col −
//!    KW/2)` with the border rule (a zero outside under the zero border,
//!    multiplied like any pixel: `0·Inf` is NaN there, as in the
//!    reference), each read straight from global memory (the cache serves
//!    the filter and the neighbourhood). Row and column are counters set
//!    once per invocation from `f_begin` (`col += 1`, and at `KW` the next
//!    row), not a division per value.
//! 3. The launch with `f_begin = 0` starts each sum from 0; later launches
//!    start from the sum the one before left in `out` (a read-write
//!    binding) and go on adding: the plan splits the filter into
//!    consecutive chunks, one launch each, in order (a backend runs a
//!    device's launches in order, each seeing what the one before wrote),
//!    so each output sums the filter row by row, in order, as in one pass —
//!    every split gives the same bits. The chunks keep each invocation's
//!    loop (`blocks per group × (1 + chunk)` iterations) within the
//!    device's loop budget: one launch where there is no cap, about 16 000
//!    values per launch on llvmpipe.
//!
//! Pixels (`ELEM`): f32 words (`ELEM = 0`), or u8 packed four to a 32-bit
//! word (`ELEM = 3`; a picture of `n` pixels is `ceil(n / 4)` words, pixel
//! `p` is byte `p % 4` — little-endian — of word `p / 4`). Kernels declare
//! the image as 32-bit words and convert each pixel to f32 as they load it.
//!
//! Indices are u32 in every language. Halo positions are offset by the
//! filter's radii (`py = y0 + r`, the pixel row is `py − KH/2`), so nothing
//! goes negative; the plan keeps `height · width`, `height + TILE_H + KH` and
//! `width + TILE_W + KW` below 2^32 (`direct`: `height · width +
//! GROUP_SIZE`, `height + KH`, `width + KW`, `KH · KW` and blocks +
//! workgroups).
//!
//! # Variants
//! - `global128x32`, `global128x64`: windows from global memory, 4 × 4 and
//!   4 × 8 outputs per invocation (filters of at most 81 values and 17
//!   columns: [`plan::WINDOW_MAX_TAPS`], [`plan::GLOBAL_MAX_KW`]; workgroups
//!   of [`plan::GLOBAL_GROUP_SIZE`]).
//! - Register windows over the halo tile `window32x64`, `window32x128`,
//!   `window32x32` (filters up to 9 × 9 values and 16 outputs per
//!   invocation: [`plan::WINDOW_MAX_TAPS`], [`plan::WINDOW_MAX_ROWS`]).
//! - Tile shapes `tile32x32`, `tile32x16`, `tile32x8`, `tile16x16`,
//!   `tile16x8`, `tile8x8`, any filter shared memory holds.
//! - `direct`: one output per invocation, the filter straight from global
//!   memory in chunks over launches, any filter size (at most
//!   [`plan::MAX_DIRECT_LAUNCHES`] launches); slow, so last in every default
//!   order.
//!
//! Halo-tile workgroups are the preferred size (256), or the tile's size
//! where smaller; `direct`'s the preferred size. [`Conv2dPlan::new`] takes
//! the tuned variant ([`tune_class`]) or the first of
//! [`Conv2dVariant::default_order`] that fits the device and filter —
//! `direct` where no other does (a filter larger than shared memory
//! holds); conformance forces each one (a window forced on a larger filter
//! is `Unsupported`).
//!
//! # Limits (issue 10)
//! - Every product of user sizes is checked: a filter of (2^63 + 9) ×
//!   (2^63 + 1) — whose product wraps to 9 — is
//!   [`rosetta_core::Error::ShapeMismatch`], not a 3 × 3
//!   ([`Conv2dSpec::validate`]); so is an image whose size overflows.
//! - Extents past u32, more than 2^32 − 1 pixels, shared memory too small for
//!   the filter and halo tile: [`rosetta_core::Error::ExceedsLimit`] when the
//!   plan is made ([`plan::geometry`]) for the variant it concerns. No
//!   filter size is refused as such: a filter no other variant holds runs
//!   through `direct`, which refuses only u32 overflows (more than 2^32 − 1
//!   filter values, `width + KW` or `height + KH` past u32) and filters
//!   that need more than [`plan::MAX_DIRECT_LAUNCHES`] launches within the loop
//!   budget (on llvmpipe, about 67 million values)
//!   ([`plan::direct_geometry`]).
//! - Loops: on drivers that stop loops silently (llvmpipe), every invocation
//!   stays within [`rosetta_core::Capabilities::loop_budget`] iterations —
//!   the filter load, and per tile the halo load and the `KH × KW × ROWS`
//!   products (windows: `(ROWS + KH − 1) × KW × KH`) — or the plan
//!   refuses with `ExceedsLimit`
//!   ([`plan::loop_iterations`]). `direct` splits the filter into as many
//!   launches as its budget needs instead ([`plan::direct_chunks`]), and
//!   refuses only where one value per launch exceeds it.
//! - More tiles than `max_groups[0]` (a very wide or tall image): the grid
//!   goes on along y.
//!
//! # Interface
//! - constants (`conv2d`): `GROUP_SIZE`, `TILE_W`, `TILE_H`, `KH`, `KW`
//!   (odd), `BORDER` (0 zero, 1 clamp), `ELEM` (0 f32, 3 u8:
//!   [`rosetta_core::Elem::code`]), `WINDOW` (0 tiles, 1 register window).
//!   `GROUP_SIZE` is a multiple of `TILE_W` and divides `TILE_W·TILE_H`.
//! - constants (`conv2d_global`): `GROUP_SIZE` (a multiple of 32), `ROWS`,
//!   `KH`, `KW`, `BORDER`, `ELEM`.
//! - constants (`conv2d_direct`): `GROUP_SIZE`, `KH`, `KW`, `BORDER`,
//!   `ELEM`.
//! - bindings: 0 `image` (read, `height·width` f32 words, or
//!   `ceil(height·width / 4)` words of u8 pixels), 1 `filter` (read, `KH·KW`
//!   f32, row-major), 2 `out` (read-write, `height·width` f32, row-major).
//! - params: `height`, `width` (`conv2d_direct`: and `f_begin`, `f_end`, its
//!   launch's filter values).
//! - grid: `[x, y, 1]` workgroups, `x · y >= tiles` (`direct`: blocks of
//!   `GROUP_SIZE` outputs) where the device allows.
//! - shared: `shared_filter` (`KH·KW` f32) then `shared_tile`
//!   (`(TILE_H + KH − 1)·(TILE_W + KW − 1)` f32); **dynamic** in CUDA and
//!   OpenCL (one block, `shared_tile` at word `KH·KW`), static in WGSL/GLSL;
//!   none for `conv2d_global` and `conv2d_direct`.
//!
//! # Error bound
//! Each output is a dot product of at most `KH·KW` terms: γ_(KH·KW)·Σ|x·w|
//! ([`conv2d_bound`]); u8 pixels convert to f32 exactly, so small integer
//! filters over u8 images give exact results.

mod cases;
mod cli;
mod kernel;
pub mod plan;
mod spec;

pub use kernel::{direct_kernel, global_kernel, kernel};
pub use plan::{conv2d_f32, conv2d_slice, conv2d_u8, tune_class, Conv2dPlan, Conv2dVariant};
pub use spec::{
    check_image_elem, conv2d_at, conv2d_bound, conv2d_reference, Border, Conv2dSpec, Pixel,
};

use crate::op::{
    checked_indices, made_on_device, Case, CliOption, CliSpec, HostArray, Metric, Op, Options,
    Prepared, Size, Workload,
};
use rosetta_core::{inputs, Backend, Buffer, DeviceInfo, Element, KernelDef, Result};
use std::sync::Arc;

/// The conv2d op.
pub struct Conv2d;

struct Conv2dRun<P> {
    plan: Conv2dPlan,
    input: Buffer,
    weights: Buffer,
    out: Buffer,
    image: Vec<P>,
    filter: Vec<f32>,
}

impl<P: Pixel> Prepared for Conv2dRun<P> {
    fn run(&mut self) -> Result<()> {
        self.plan.encode(&self.input, &self.weights, &self.out)
    }
    fn verify(&mut self) -> Result<Option<String>> {
        let spec = *self.plan.spec();
        let got: Vec<f32> = self.out.read(self.image.len())?;
        Ok(checked_indices(got.len()).into_iter().find_map(|p| {
            let (y, x) = (p / spec.width, p % spec.width);
            let exact = conv2d_at(&self.image, &self.filter, &spec, y, x);
            let bound = conv2d_bound(&spec, &exact);
            (!rosetta_core::bounds::within(got[p], exact.value, bound)).then(|| {
                format!(
                    "output ({y}, {x}): got {}, expected {} (bound {bound:.2e})",
                    got[p], exact.value
                )
            })
        }))
    }
    fn variant(&self) -> String {
        self.plan.variant().name().to_string()
    }
    fn tuned(&self) -> bool {
        self.plan.tuned()
    }
}

/// The workload of `spec`'s image of `P` pixels (f32 in [-1, 1) or u8 over
/// 0..=255) with a random filter of its shape. `spec` must be valid
/// ([`Conv2dSpec::validate`]).
fn workload<P: Pixel + Element>(spec: Conv2dSpec, pixels: fn(u64, usize) -> Vec<P>) -> Workload {
    let elem = P::ELEM;
    let (height, width, kh, kw) = (spec.height, spec.width, spec.kh, spec.kw);
    let n = height as u64 * width as u64;
    let taps = kh as u64 * kw as u64;
    let series = format!("{elem} {kh}x{kw}");
    Workload::new(
        "conv2d",
        format!("{series} {height}x{width}"),
        series,
        n,
        // The image and filter read once, the output written once.
        n * elem.size() + taps * 4 + n * 4,
        Some(2 * n * taps),
        Metric::Flops,
        move |backend, variant| {
            let plan = match variant {
                Some(name) => {
                    Conv2dPlan::with_variant(backend, &spec, elem, plan::variant_named(name)?)?
                }
                None => Conv2dPlan::new(backend, &spec, elem)?,
            };
            // Device buffers before host values (`made_on_device`).
            let out = backend.alloc(spec.out_bytes()?)?;
            let taps = spec.filter_len()?;
            let (weights, filter) =
                made_on_device(backend, taps, || inputs::f32_values(0x5eed_f117, taps))?;
            let pixel_count = spec.pixels()?;
            let (input, image) =
                made_on_device(backend, pixel_count, || pixels(0x5eed_c042, pixel_count))?;
            Ok(Box::new(Conv2dRun {
                plan,
                input,
                weights,
                out,
                image,
                filter,
            }) as Box<dyn Prepared>)
        },
    )
    .tunable(tune_class(&spec, elem), Conv2dVariant::names())
}

/// The benchmark's filter over `height × width`: `kh × kw`, zero border.
fn zero_border(height: usize, width: usize, kh: usize, kw: usize) -> Conv2dSpec {
    Conv2dSpec {
        height,
        width,
        kh,
        kw,
        border: Border::Zero,
    }
}

/// `spec`'s workloads, one per pixel type (f32, u8); `spec` must be valid.
fn image_workloads(spec: Conv2dSpec) -> Vec<Workload> {
    vec![
        workload::<f32>(spec, inputs::f32_values),
        workload::<u8>(spec, u8_pixels),
    ]
}

fn u8_pixels(seed: u64, len: usize) -> Vec<u8> {
    inputs::u32_below(seed, len, 256)
        .into_iter()
        .map(|v| v as u8)
        .collect()
}

/// The image side at a preset: 8192 on GPUs at `large`, 2048 on CPU-type
/// devices.
fn side(size: Size, device: &DeviceInfo) -> usize {
    match (size, device.caps.device_type.is_cpu()) {
        (Size::Small, _) => 512,
        (Size::Medium, false) => 2048,
        (Size::Medium, true) => 1024,
        (Size::Large, false) => 8192,
        (Size::Large, true) => 2048,
    }
}

impl Op for Conv2d {
    fn name(&self) -> &'static str {
        "conv2d"
    }

    fn about(&self) -> &'static str {
        "same-size 2-D cross-correlation of a float32 or uint8 image with an odd float32 filter (zero or clamped border)"
    }

    fn kernels(&self) -> Vec<Arc<KernelDef>> {
        vec![
            Arc::clone(kernel()),
            Arc::clone(global_kernel()),
            Arc::clone(direct_kernel()),
        ]
    }

    fn cases(&self) -> Vec<Case> {
        cases::cases()
    }

    fn random_case(&self, draw: &mut crate::op::random::Draw) -> Case {
        cases::drawn_case(draw)
    }

    fn workloads(&self, size: Size, device: &DeviceInfo) -> Vec<Workload> {
        let side = side(size, device);
        image_workloads(zero_border(side, side, 5, 5))
    }

    fn shape_forms(&self) -> &'static [&'static str] {
        &[
            "S (an SxS image, a 5x5 filter)",
            "HxW (an H-row image, a 5x5 filter)",
            "HxWxK (a KxK filter)",
            "HxWxKHxKW (a filter of KH rows, KW columns)",
        ]
    }

    fn shaped_workloads(&self, dims: &[usize], _: &DeviceInfo) -> Result<Vec<Workload>> {
        let (height, width, kh, kw) = match *dims {
            [s] => (s, s, 5, 5),
            [h, w] => (h, w, 5, 5),
            [h, w, k] => (h, w, k, k),
            [h, w, kh, kw] => (h, w, kh, kw),
            _ => return Err(crate::op::wrong_form(self.name(), dims, self.shape_forms())),
        };
        let spec = zero_border(height, width, kh, kw);
        spec.validate()?;
        Ok(image_workloads(spec))
    }

    fn cli(&self) -> CliSpec {
        CliSpec {
            inputs: vec!["IMAGE", "FILTER"],
            options: vec![CliOption {
                name: "border",
                value_name: "RULE",
                help: "how the image is read outside its border: zero (0s) or clamp (the nearest edge pixel, numpy's `edge`)",
                default: Some("zero"),
                choices: &["zero", "clamp"],
                kind: crate::op::OptionKind::Text,
            }],
            about_inputs: "IMAGE: a 2-D float32 or uint8 array; FILTER: a 2-D float32 array with odd extents (not flipped, centred); writes a float32 array of IMAGE's shape",
        }
    }

    fn run(
        &self,
        backend: &Arc<dyn Backend>,
        options: &Options,
        inputs: Vec<HostArray>,
    ) -> Result<HostArray> {
        cli::run(backend, options, inputs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::ArrayData;
    use rosetta_core::Error;

    #[test]
    fn the_kernel_has_every_language() {
        for def in [kernel(), global_kernel(), direct_kernel()] {
            assert_eq!(def.sources().languages().len(), 5, "{}", def.name());
        }
    }

    #[test]
    fn cli_takes_2d_float32_or_uint8_images() {
        let backend = rosetta_backend_cpu::discover().unwrap().remove(0);
        let run = |image: HostArray, filter: HostArray, border: &str| {
            Conv2d.run(
                &backend,
                &Options::new([("border", border)]),
                vec![image, filter],
            )
        };
        let matrix = |shape: Vec<usize>, data| HostArray::new(shape, data).unwrap();
        let column = matrix(vec![3, 1], ArrayData::F32(vec![1.0, 0.0, 0.0]));
        let f32s = matrix(vec![2, 2], ArrayData::F32(vec![1.0, 2.0, 3.0, 4.0]));
        let out = run(f32s.clone(), column.clone(), "clamp").unwrap();
        assert_eq!(out.shape, vec![2, 2]);
        assert_eq!(out.data, ArrayData::F32(vec![1.0, 2.0, 1.0, 2.0]));
        let u8s = matrix(vec![2, 2], ArrayData::U8(vec![1, 2, 3, 4]));
        let out = run(u8s, column.clone(), "zero").unwrap();
        assert_eq!(out.data, ArrayData::F32(vec![0.0, 0.0, 1.0, 2.0]));
        assert!(run(f32s.clone(), column.clone(), "wrap")
            .unwrap_err()
            .is_usage());
        let vector = HostArray::vector(ArrayData::F32(vec![1.0; 4]));
        assert!(matches!(
            run(vector.clone(), column.clone(), "zero"),
            Err(Error::ShapeMismatch(_))
        ));
        assert!(matches!(
            run(f32s.clone(), vector, "zero"),
            Err(Error::ShapeMismatch(_))
        ));
        let even = matrix(vec![2, 1], ArrayData::F32(vec![1.0, 1.0]));
        assert!(matches!(
            run(f32s.clone(), even, "zero"),
            Err(Error::InvalidFilter(_))
        ));
        let ints = matrix(vec![2, 2], ArrayData::I32(vec![1; 4]));
        assert!(run(ints, column, "zero").unwrap_err().is_usage());
        let u8_filter = matrix(vec![1, 1], ArrayData::U8(vec![1]));
        assert!(run(f32s, u8_filter, "zero").unwrap_err().is_usage());
    }
}
