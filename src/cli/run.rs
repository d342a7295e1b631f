//! `rosetta run OP --backend SEL [op options] IN.npy... [-o OUT.npy]`: one op on
//! .npy inputs, on one device.

use super::{select, OpArg, Outcome};
use clap::{Args, ValueEnum};
use rosetta::npy::{self, Values};
use rosetta::{Border, Conv2dSpec, Device, Error, MatmulSpec, ReduceOp};
use std::path::PathBuf;

#[derive(Args)]
pub struct RunArgs {
    /// The op.
    #[arg(value_enum)]
    op: OpArg,
    /// The device (the first match if the selector names several).
    #[arg(long = "backend", value_name = "SEL")]
    backend: String,
    /// reduce: which reduction.
    #[arg(long, value_enum, default_value_t = ReduceArg::Sum)]
    reduce: ReduceArg,
    /// histogram: number of bins.
    #[arg(long)]
    bins: Option<u32>,
    /// histogram of float32 values: the range, as LO,HI.
    #[arg(long, value_name = "LO,HI", allow_hyphen_values = true)]
    range: Option<String>,
    /// conv2d: how the image is read outside its border.
    #[arg(long, value_enum, default_value_t = BorderArg::Zero)]
    border: BorderArg,
    /// Input arrays: reduce X; histogram VALUES; conv1d SIGNAL TAPS; conv2d IMAGE FILTER; matmul A B.
    #[arg(value_name = "IN.npy", required = true)]
    inputs: Vec<PathBuf>,
    /// Where to write the result (printed when omitted).
    #[arg(short = 'o', long = "output", value_name = "OUT.npy")]
    output: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum ReduceArg {
    Sum,
    Min,
    Max,
}

#[derive(Clone, Copy, ValueEnum)]
enum BorderArg {
    Zero,
    Clamp,
}

pub fn run(args: RunArgs) -> rosetta::Result<Outcome> {
    let wanted = match args.op {
        OpArg::Reduce | OpArg::Histogram => 1,
        _ => 2,
    };
    if args.inputs.len() != wanted {
        return Err(Error::InvalidArgument(format!(
            "this op takes {wanted} input file(s), got {}",
            args.inputs.len()
        )));
    }
    // Read the inputs before touching any device: bad files fail fast.
    let arrays = args
        .inputs
        .iter()
        .map(|p| npy::read(p))
        .collect::<rosetta::Result<Vec<_>>>()?;
    let (_, devices) = select(std::slice::from_ref(&args.backend))?;
    let device = devices.into_iter().next().ok_or_else(|| Error::NoDevice {
        selector: args.backend.clone(),
        hint: String::new(),
    })?;
    tracing::info!(device = %device.info().id(), "running on {}", device.info().name);
    let (shape, values) = compute(&device, &args, arrays)?;
    match &args.output {
        Some(path) => npy::write(path, &shape, &values)?,
        None => print_values(&shape, &values),
    }
    Ok(Outcome::Success)
}

fn compute(
    device: &Device,
    args: &RunArgs,
    mut arrays: Vec<npy::Array>,
) -> rosetta::Result<(Vec<usize>, Values)> {
    let path = |i: usize| args.inputs[i].as_path();
    Ok(match args.op {
        OpArg::Reduce => {
            let op = match args.reduce {
                ReduceArg::Sum => ReduceOp::Sum,
                ReduceArg::Min => ReduceOp::Min,
                ReduceArg::Max => ReduceOp::Max,
            };
            let values = match arrays.remove(0).values {
                Values::F32(x) => Values::F32(vec![device.reduce(&x, op)?]),
                Values::I32(x) => Values::I32(vec![device.reduce(&x, op)?]),
                Values::U32(x) => Values::U32(vec![device.reduce(&x, op)?]),
            };
            (vec![1], values)
        }
        OpArg::Histogram => {
            let bins = args
                .bins
                .ok_or_else(|| Error::InvalidArgument("histogram needs --bins N".into()))?;
            let counts = match (arrays.remove(0).values, &args.range) {
                (Values::U32(x), None) => device.histogram(&x, bins)?,
                (Values::U32(_), Some(_)) => {
                    return Err(Error::InvalidArgument(
                        "--range is for float32 values; uint32 value v counts in bin v".into(),
                    ))
                }
                (Values::F32(x), Some(range)) => {
                    device.histogram_f32(&x, bins, parse_range(range)?)?
                }
                (Values::F32(_), None) => {
                    return Err(Error::InvalidArgument(
                        "float32 values need --range LO,HI".into(),
                    ))
                }
                (Values::I32(_), _) => {
                    return Err(Error::Npy {
                        path: path(0).display().to_string(),
                        reason: "holds int32 values; a histogram takes uint32 or float32".into(),
                    })
                }
            };
            (vec![bins as usize], Values::U32(counts))
        }
        OpArg::Conv1d => {
            let taps = arrays.remove(1).into_f32(path(1))?;
            let signal = arrays.remove(0);
            let shape = signal.shape.clone();
            let x = signal.into_f32(path(0))?;
            (shape, Values::F32(device.conv1d(&x, &taps)?))
        }
        OpArg::Conv2d => {
            let filter = arrays.remove(1);
            let image = arrays.remove(0);
            let [height, width] = image.matrix_shape(path(0))?;
            let [kh, kw] = filter.matrix_shape(path(1))?;
            let border = match args.border {
                BorderArg::Zero => Border::Zero,
                BorderArg::Clamp => Border::Clamp,
            };
            let spec = Conv2dSpec {
                height,
                width,
                kh,
                kw,
                border,
            };
            let out =
                device.conv2d(&image.into_f32(path(0))?, &filter.into_f32(path(1))?, &spec)?;
            (vec![height, width], Values::F32(out))
        }
        OpArg::Matmul => {
            let b = arrays.remove(1);
            let a = arrays.remove(0);
            let spec = MatmulSpec::from_shapes(a.matrix_shape(path(0))?, b.matrix_shape(path(1))?)?;
            let c = device.matmul(&a.into_f32(path(0))?, &b.into_f32(path(1))?, &spec)?;
            (vec![spec.m, spec.n], Values::F32(c))
        }
    })
}

fn parse_range(text: &str) -> rosetta::Result<(f64, f64)> {
    let bad =
        || Error::InvalidArgument(format!("--range must be LO,HI (two numbers), got '{text}'"));
    let (lo, hi) = text.split_once(',').ok_or_else(bad)?;
    Ok((
        lo.trim().parse().map_err(|_| bad())?,
        hi.trim().parse().map_err(|_| bad())?,
    ))
}

fn print_values(shape: &[usize], values: &Values) {
    const SHOWN: usize = 16;
    let list = match values {
        Values::F32(v) => v
            .iter()
            .take(SHOWN)
            .map(|x| x.to_string())
            .collect::<Vec<_>>(),
        Values::I32(v) => v.iter().take(SHOWN).map(|x| x.to_string()).collect(),
        Values::U32(v) => v.iter().take(SHOWN).map(|x| x.to_string()).collect(),
    };
    let more = if values.len() > SHOWN { ", ..." } else { "" };
    println!(
        "shape {shape:?} {}: [{}{more}]",
        values.elem(),
        list.join(", ")
    );
}
