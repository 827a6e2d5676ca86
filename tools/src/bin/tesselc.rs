//! tesselc: compiles the static control parts of C files to GPU code, with clang's
//! conventions for flags: `tesselc prog.c [more.c ...] -o prog` builds a program that
//! runs its kernels through the runtime (sim when no GPU is present), `-c` an object
//! with the same C symbols, `--emit=KIND` one intermediate form.

use clap::Parser;

#[path = "../cli.rs"]
mod cli;
use std::io::Write;
use std::process::ExitCode;
use tessel::pipeline::{compile, CompileOptions, Emit};

#[derive(Parser, Debug)]
#[command(
    name = "tesselc",
    version,
    about = "Compile C loop nests (#pragma scop regions or whole functions) to GPU kernels",
    after_help = "Examples:\n  tesselc gemm.c -DSMALL_DATASET -o gemm && ./gemm      (runs on a GPU, else on sim)\n  tesselc -c gemm.c -o gemm.o                           (links in place of the C version)\n  tesselc gemm.c --emit=ptx -o gemm.ptx\n  tesselc gemm.c -DSMALL_DATASET --offload-arch=gfx942 --emit=hsaco -o gemm.hsaco\n  tesselc kernels.c --function kernel_gemm --emit=mlir"
)]
struct Args {
    /// C source files (and, for programs, objects or libraries to link).
    #[arg(required = true, value_name = "FILE")]
    inputs: Vec<String>,
    /// Compile to an object whose C functions run their SCoPs on the device (same as --emit=obj).
    #[arg(short = 'c')]
    compile_only: bool,
    /// Add a directory to the include search path.
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<String>,
    /// Define a macro (NAME or NAME=VALUE).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    define: Vec<String>,
    /// Undefine a macro.
    #[arg(short = 'U', value_name = "NAME")]
    undefine: Vec<String>,
    /// Compile this whole function instead of '#pragma scop' regions (repeatable).
    #[arg(long = "function", value_name = "NAME")]
    function: Vec<String>,
    /// Optimization level for the generated kernels (0 to 3).
    #[arg(short = 'O', value_name = "LEVEL", default_value = "3", value_parser = clap::value_parser!(u8).range(0..=3))]
    opt: u8,
    /// Target GPU: sm_XX (NVIDIA) or gfxNNN (AMD); default sm_90, or gfx942 for amdgcn/hsaco.
    #[arg(long = "offload-arch", value_name = "ARCH")]
    offload_arch: Option<String>,
    /// Produce one form instead of a program: mlir (affine), gpu (mapped), llvm (host IR),
    /// ptx, cubin, amdgcn, hsaco, emulated (launches as CPU loops), obj (as -c).
    #[arg(long = "emit", value_name = "KIND",
          value_parser = ["mlir", "gpu", "llvm", "ptx", "cubin", "amdgcn", "hsaco", "emulated", "obj"])]
    emit: Option<String>,
    /// Output file ('-' for standard output; default: a.out for programs, standard output for text, INPUT-STEM.cubin/.hsaco/.o for binaries).
    #[arg(short = 'o', value_name = "FILE")]
    output: Option<String>,
    /// Extra argument for clang's parser (repeatable), e.g. -Xclang=-std=c99.
    #[arg(long = "Xclang", value_name = "ARG", allow_hyphen_values = true)]
    xclang: Vec<String>,
    /// Print what each stage does (repeat for more detail).
    #[arg(short = 'v', action = clap::ArgAction::Count)]
    verbose: u8,
}

fn main() -> ExitCode {
    let (args, matches): (Args, _) = match cli::parse_with_matches() {
        Ok(a) => a,
        Err(code) => return code,
    };
    let level = match args.verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("TESSEL_LOG")
                .unwrap_or_else(|_| level.into()),
        )
        .with_target(false)
        .without_time()
        .init();
    let cflags = in_command_line_order(
        &matches,
        &[("include", "-I"), ("define", "-D"), ("undefine", "-U")],
    );
    let emit = match (&args.emit, args.compile_only) {
        (Some(e), false) => Emit::parse(e).expect("clap restricts --emit to the known kinds"),
        (Some(e), true) if e == "obj" => Emit::Object,
        (Some(e), true) => {
            eprintln!("error: -c conflicts with --emit={e}");
            return ExitCode::from(1);
        }
        (None, true) => Emit::Object,
        (None, false) => return build_program(&args, cflags),
    };
    if args.inputs.len() != 1 {
        eprintln!(
            "error: --emit and -c take one input file, got {}",
            args.inputs.len()
        );
        return ExitCode::from(1);
    }
    let input = args.inputs[0].clone();
    if !std::path::Path::new(&input).is_file() {
        eprintln!("error: no such file: '{input}'");
        return ExitCode::from(1);
    }
    let mut clang_args = cflags;
    clang_args.extend(args.xclang.iter().cloned());
    let opts = CompileOptions {
        input: input.clone(),
        frontend: tessel::frontend::Options {
            clang_args,
            functions: args.function.clone(),
        },
        opt_level: args.opt,
        offload_arch: args.offload_arch.clone(),
        emit,
        map: Default::default(),
    };
    let path = match &args.output {
        Some(p) => p.clone(),
        None if emit.is_binary() => {
            let stem = std::path::Path::new(&input)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or("out".into());
            format!("{stem}.{}", emit.extension())
        }
        None => "-".into(),
    };
    let started = std::time::Instant::now();
    let out = match compile(&opts) {
        Ok(o) => o,
        Err(f) => {
            for d in f.0 {
                eprintln!("{d}");
            }
            if path != "-" {
                tessel::output::remove_stale(std::path::Path::new(&path));
            }
            return ExitCode::from(1);
        }
    };
    tracing::info!(
        seconds = started.elapsed().as_secs_f64(),
        bytes = out.len(),
        "compiled"
    );
    if path == "-" {
        let _ = std::io::stdout().write_all(&out);
        return ExitCode::SUCCESS;
    }
    if let Err(e) = tessel::output::write(std::path::Path::new(&path), &out, false) {
        eprintln!("error: {e}");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

/// The values of the options `ids` (clap id, flag spelling) in the order the command
/// line gives them, as clang reads them: `-U X -D X` leaves X defined.
fn in_command_line_order(m: &clap::ArgMatches, ids: &[(&str, &str)]) -> Vec<String> {
    let mut all: Vec<(usize, String)> = Vec::new();
    for (id, flag) in ids {
        if let (Some(at), Some(values)) = (m.indices_of(id), m.get_many::<String>(id)) {
            all.extend(at.zip(values).map(|(i, v)| (i, format!("{flag}{v}"))));
        }
    }
    all.sort();
    all.into_iter().map(|(_, v)| v).collect()
}

/// `tesselc prog.c [more.c ...] -o prog`.
fn build_program(args: &Args, cflags: Vec<String>) -> ExitCode {
    let output = match args.output.as_deref() {
        Some("-") => {
            eprintln!("error: a program cannot be written to standard output");
            return ExitCode::from(1);
        }
        Some(o) => o.into(),
        None => "a.out".into(),
    };
    let p = tessel::program::ProgramOptions {
        inputs: args.inputs.clone(),
        cflags,
        xclang: args.xclang.clone(),
        opt_level: args.opt,
        offload_arch: args.offload_arch.clone(),
        map: Default::default(),
        output,
        functions: args.function.clone(),
    };
    match tessel::program::build_program(&p) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            for d in f.0 {
                eprintln!("{d}");
            }
            tessel::output::remove_stale(&p.output);
            ExitCode::from(1)
        }
    }
}
