//! `rosetta run OP --backend SEL [op options] IN.npy... [-o OUT.npy]`: one op
//! on .npy inputs, on one device. Each op's arguments come from its own
//! description (`Op::cli`), so a new op needs nothing here.

use super::out::Outcome;
use super::out::{Failure, Out};
use super::select::select;
use clap::{Arg, ArgAction, Command};
use rosetta::kernels::op::{CliSpec, Op, Options};
use rosetta::npy::{self, dtype_of, Array, ArrayData};
use std::ffi::OsString;
use std::path::PathBuf;

/// The `rosetta run OP` command for one op.
fn command(op: &dyn Op, spec: &CliSpec) -> Command {
    let mut cmd = Command::new(op.name())
        .bin_name(format!("rosetta run {}", op.name()))
        .about(op.about())
        .after_help(spec.about_inputs)
        .arg(
            Arg::new("backend")
                .long("backend")
                .value_name("SEL")
                .required(true)
                .help("The device (the first match if the selector names several)"),
        )
        .arg(
            Arg::new("output")
                .short('o')
                .long("output")
                .value_name("OUT.npy")
                .value_parser(clap::value_parser!(PathBuf))
                .help("Where to write the result (printed when omitted)"),
        );
    for option in &spec.options {
        let mut arg = Arg::new(option.name)
            .long(option.name)
            .value_name(option.value_name)
            .help(option.help)
            .allow_hyphen_values(true);
        if let Some(default) = option.default {
            arg = arg.default_value(default);
        }
        if !option.choices.is_empty() {
            arg = arg.value_parser(option.choices.to_vec());
        }
        cmd = cmd.arg(arg);
    }
    for (i, input) in spec.inputs.iter().enumerate() {
        cmd = cmd.arg(
            Arg::new(*input)
                .value_name(format!("{input}.npy"))
                .index(i + 1)
                .required(true)
                .value_parser(clap::value_parser!(PathBuf))
                .action(ArgAction::Set),
        );
    }
    cmd
}

fn list_ops() -> String {
    let mut text = String::from(
        "Usage: rosetta run OP --backend SEL [OPTIONS] IN.npy... [-o OUT.npy]\n\nOps:\n",
    );
    for op in rosetta::kernels::ops() {
        text.push_str(&format!("  {:<10} {}\n", op.name(), op.about()));
    }
    text.push_str("\n`rosetta run OP --help` lists an op's options and inputs.\n");
    text
}

/// `args`: the op, then its options and inputs, as given (file names need
/// not be UTF-8).
pub fn run(out: &mut Out, args: Vec<OsString>) -> Result<Outcome, Failure> {
    let Some(first) = args.first() else {
        return Err(Failure::Usage(
            "rosetta run needs an op (see 'rosetta run --help')".into(),
        ));
    };
    let name = first.to_string_lossy();
    if name == "--help" || name == "-h" || name == "help" {
        write!(out, "{}", list_ops())?;
        return Ok(Outcome::Success);
    }
    let op = rosetta::kernels::find_op(&name)
        .map_err(|e| Failure::Usage(format!("{e}; see 'rosetta run --help'")))?;
    let spec = op.cli();
    let matches = match command(op, &spec).try_get_matches_from(&args) {
        Ok(m) => m,
        Err(e) if matches!(e.kind(), clap::error::ErrorKind::DisplayHelp) => {
            write!(out, "{}", e.render())?;
            return Ok(Outcome::Success);
        }
        Err(e) => {
            let line = super::parse_error::one_line(&e, &format!("rosetta run {}", op.name()));
            return Err(Failure::Usage(
                line.trim_start_matches("error: ").to_string(),
            ));
        }
    };
    let options = Options::new(spec.options.iter().filter_map(|o| {
        matches
            .get_one::<String>(o.name)
            .map(|v| (o.name, v.clone()))
    }));
    options.check(&spec).map_err(|e| {
        Failure::Usage(format!(
            "{} (see 'rosetta run {} --help')",
            e.chain(),
            op.name()
        ))
    })?;
    let output = matches.get_one::<PathBuf>("output").cloned();
    if let Some(path) = &output {
        rosetta::output::check_file(path)?;
    }
    let options = Options::new(spec.options.iter().filter_map(|o| {
        matches
            .get_one::<String>(o.name)
            .map(|v| (o.name, v.clone()))
    }));
    let mut paths = Vec::new();
    let inputs = spec
        .inputs
        .iter()
        .map(|name| {
            let path = matches
                .get_one::<PathBuf>(name)
                .ok_or_else(|| Failure::Usage(format!("missing input {name}")))?;
            paths.push((*name, path.clone()));
            npy::read(path).map_err(Failure::from)
        })
        .collect::<Result<Vec<Array>, Failure>>()?;
    let selector = matches
        .get_one::<String>("backend")
        .cloned()
        .unwrap_or_default();
    let (_, devices) = select(std::slice::from_ref(&selector))?;
    let device = devices
        .into_iter()
        .next()
        .ok_or_else(|| Failure::Usage(format!("no device matches '{selector}'")))?;
    let result = op.run(device.backend(), &options, inputs).map_err(|e| {
        // An input the op refuses is named by its file, too: every input
        // the message names (as a whole word: `A`, not the A in `THREAD`),
        // after the message.
        if e.is_usage() {
            let text = e.chain();
            let named: Vec<String> = paths
                .iter()
                .filter(|(name, _)| rosetta::core::uses_word(&text, name))
                .map(|(name, path)| format!("{name}: {}", rosetta::core::shown_path(path)))
                .collect();
            Failure::Usage(if named.is_empty() {
                text
            } else {
                format!("{text} ({})", named.join(", "))
            })
        } else {
            Failure::from(e)
        }
    })?;
    match output {
        Some(path) => npy::write(&path, &result)?,
        None => print_values(out, &result)?,
    }
    Ok(Outcome::Success)
}

fn print_values(out: &mut Out, array: &Array) -> Result<(), Failure> {
    const SHOWN: usize = 16;
    fn first<T: ToString>(v: &[T]) -> Vec<String> {
        v.iter().take(SHOWN).map(T::to_string).collect()
    }
    let list = match &array.data {
        ArrayData::F32(v) => first(v),
        ArrayData::I32(v) => first(v),
        ArrayData::U32(v) => first(v),
        ArrayData::U8(v) => first(v),
    };
    let more = if array.data.len() > SHOWN {
        ", ..."
    } else {
        ""
    };
    writeln!(
        out,
        "shape {:?} {}: [{}{more}]",
        array.shape,
        dtype_of(&array.data),
        list.join(", ")
    )?;
    Ok(())
}
