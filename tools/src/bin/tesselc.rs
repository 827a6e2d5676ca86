//! tesselc: compiles the static control parts of a C file to GPU code, with clang's
//! conventions for flags.

use clap::Parser;
use std::io::Write;
use std::process::ExitCode;
use tessel::pipeline::{compile, CompileOptions, Emit};

#[derive(Parser, Debug)]
#[command(
    name = "tesselc",
    version,
    about = "Compile C loop nests (#pragma scop regions or whole functions) to GPU kernels",
    after_help = "Examples:\n  tesselc gemm.c --emit=ptx -o gemm.ptx\n  tesselc gemm.c -DSMALL_DATASET --offload-arch=gfx942 --emit=hsaco -o gemm.hsaco\n  tesselc kernels.c --function kernel_gemm --emit=mlir"
)]
struct Args {
    /// The C source file.
    input: String,
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
    /// What to produce.
    #[arg(long = "emit", value_name = "KIND", default_value = "ptx",
          value_parser = ["mlir", "gpu", "llvm", "ptx", "cubin", "amdgcn", "hsaco", "emulated"])]
    emit: String,
    /// Output file ('-' for standard output; default: standard output for text, INPUT-STEM.cubin/.hsaco for binaries).
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
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
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
    let emit = Emit::parse(&args.emit).expect("clap restricts --emit to the known kinds");
    if !std::path::Path::new(&args.input).is_file() {
        eprintln!("error: no such file: '{}'", args.input);
        return ExitCode::from(1);
    }
    let mut clang_args = Vec::new();
    clang_args.extend(args.include.iter().map(|i| format!("-I{i}")));
    clang_args.extend(args.define.iter().map(|d| format!("-D{d}")));
    clang_args.extend(args.undefine.iter().map(|d| format!("-U{d}")));
    clang_args.extend(args.xclang.iter().cloned());
    let opts = CompileOptions {
        input: args.input.clone(),
        frontend: tessel::frontend::Options {
            clang_args,
            functions: args.function.clone(),
        },
        opt_level: args.opt,
        offload_arch: args.offload_arch.clone(),
        emit,
        map: Default::default(),
    };
    let started = std::time::Instant::now();
    let out = match compile(&opts) {
        Ok(o) => o,
        Err(f) => {
            for d in f.0 {
                eprintln!("{d}");
            }
            return ExitCode::from(1);
        }
    };
    tracing::info!(
        seconds = started.elapsed().as_secs_f64(),
        bytes = out.len(),
        "compiled"
    );
    let path = match &args.output {
        Some(p) => p.clone(),
        None if emit.is_binary() => {
            let stem = std::path::Path::new(&args.input)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or("out".into());
            format!("{stem}.{}", emit.extension())
        }
        None => "-".into(),
    };
    if path == "-" {
        let _ = std::io::stdout().write_all(&out);
        return ExitCode::SUCCESS;
    }
    // Write beside the target and rename, so a failure never leaves a partial file.
    let target = std::path::Path::new(&path);
    let dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let result = tempfile::NamedTempFile::new_in(dir).and_then(|mut t| {
        t.write_all(&out)?;
        t.persist(target).map_err(|e| e.error)?;
        Ok(())
    });
    if let Err(e) = result {
        eprintln!("error: cannot write '{path}': {e}");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
