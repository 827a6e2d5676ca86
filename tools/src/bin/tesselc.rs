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
    after_help = "clang's options, passed to the C parser in command-line order:\n  -D NAME[=VALUE]  -U NAME  -I DIR  -isystem DIR  -include FILE  -std=STD\n  -W... (-Wall, -Werror, -Wno-...)  -w  -pedantic  -Xclang ARG  -f[no-]color-diagnostics\n  -ffp-contract=on|fast|off   fuse a product and the sum of the same expression into\n                   one fma in the kernels (on, the default, as clang; fast: the same), or not\n  -g               line tables in the kernels (PTX .loc, cubin, HSACO) and host code;\n                   with --emit=mlir or gpu, each operation's C source location (loc(...))\n  -fsyntax-only    check the C and its static control parts, write nothing\n  -###             print the commands (ptxas, clang, the link) without running them\n  -E               preprocess only (clang -E with the same options)\n  -MD, -MMD, -MF FILE, -MT T, -MQ T, -MP   also write a dependency file, as clang\n\nExamples:\n  tesselc gemm.c -DSMALL_DATASET -o gemm && ./gemm      (runs on a GPU, else on sim)\n  tesselc -c gemm.c -o gemm.o                           (links in place of the C version)\n  tesselc gemm.c --emit=ptx -o gemm.ptx\n  tesselc gemm.c -DSMALL_DATASET --offload-arch=gfx942 --emit=hsaco -o gemm.hsaco\n  tesselc kernels.c --function kernel_gemm --emit=mlir"
)]
struct Args {
    /// C source files (and, for programs, objects or libraries to link).
    #[arg(required = true, value_name = "FILE")]
    inputs: Vec<String>,
    /// Compile to an object whose C functions run their SCoPs on the device (same as --emit=obj).
    #[arg(short = 'c')]
    compile_only: bool,
    /// Compile to the kernels' assembly: PTX for sm_XX, AMDGCN for gfxNNN (default
    /// output INPUT-STEM.s).
    #[arg(short = 'S', conflicts_with_all = ["compile_only", "emit"])]
    assembly: bool,
    /// Compile this whole function instead of '#pragma scop' regions (repeatable).
    #[arg(long = "function", value_name = "NAME")]
    function: Vec<String>,
    /// Optimization level for the generated kernels (0 to 3).
    #[arg(short = 'O', value_name = "LEVEL", default_value = "3", value_parser = clap::value_parser!(u8).range(0..=3))]
    opt: u8,
    /// Target GPU: sm_XX (NVIDIA) or gfxNNN (AMD); default sm_90, or gfx942 for amdgcn/hsaco.
    /// Repeatable (or comma-separated) for objects and programs: one code object per
    /// architecture, the one for the GPU present picked at run time.
    #[arg(long = "offload-arch", value_name = "ARCH", value_delimiter = ',')]
    offload_arch: Vec<String>,
    /// Produce one form instead of a program: mlir (affine), gpu (mapped), llvm (host IR),
    /// ptx, cubin, amdgcn, hsaco, obj (as -c).
    #[arg(long = "emit", value_name = "KIND",
          value_parser = ["mlir", "gpu", "llvm", "ptx", "cubin", "amdgcn", "hsaco", "obj"])]
    emit: Option<String>,
    /// Output file ('-' for standard output; default: a.out for programs, standard output for text, INPUT-STEM.cubin/.hsaco/.o for binaries).
    #[arg(short = 'o', value_name = "FILE")]
    output: Option<String>,
    /// Link a program with library NAME (`-lm`), as clang does.
    #[arg(short = 'l', value_name = "NAME")]
    libs: Vec<String>,
    /// Search DIR for `-l` libraries when linking a program.
    #[arg(short = 'L', value_name = "DIR")]
    lib_dirs: Vec<String>,
    /// Optimization pipeline between the frontend and the lowering, as tessel-opt's
    /// --tessel-optimize names them: default (tiles to blocks, points to threads, shared memory, registers) or
    /// naive (one thread per iteration of the outer parallel loops, the baseline); or
    /// mlir-upstream, upstream MLIR's affine-parallelize and convert-parallel-loops-to-gpu
    /// (for comparison, as tessel-bench names it)
    #[arg(long, value_name = "NAME", default_value = "default", value_parser = ["default", "naive", "mlir-upstream"])]
    pipeline: String,
    /// Run the scops' affine form (--emit=mlir) through these passes instead of
    /// --pipeline's, as tessel-opt's --pass-pipeline names them without builtin.module
    /// (for example 'tessel-schedule,tessel-map-to-gpu'): passes that leave the scops on
    /// the host run them there.
    #[arg(long = "passes", value_name = "PIPELINE")]
    passes: Option<String>,
    /// Choose the default pipeline's parameters (tile sizes, shared memory) per function:
    /// none (its fixed rules), model (estimates of the candidates on sim's model of
    /// TESSEL_GPU) or measure (the candidates timed on the CUDA GPU present); cached in
    /// TESSEL_AUTOTUNE_CACHE or ~/.cache/tessel/autotune.txt
    #[arg(long, value_name = "HOW", default_value = "none", value_parser = ["none", "model", "measure"])]
    autotune: String,
    /// Print what each stage decides and the commands it runs (repeat for more detail);
    /// -### prints the commands without running them.
    #[arg(short = 'v', action = clap::ArgAction::Count)]
    verbose: u8,
}

/// The passes run on the scops' affine form for `emit` (`None`: a program or object):
/// `--passes`, else `--pipeline`'s. None for `--emit=mlir` without `--passes`: the
/// frontend's affine form, the pipeline's input.
fn passes_of(args: &Args, emit: Option<Emit>) -> Option<String> {
    match (&args.passes, args.pipeline.as_str(), emit) {
        (Some(p), _, _) => Some(p.clone()),
        (None, _, Some(Emit::Mlir)) => None,
        (None, "mlir-upstream", _) => Some(tessel::registry::UPSTREAM_PIPELINE.to_string()),
        (None, "default", _) if args.autotune != "none" => Some(format!(
            "tessel-optimize{{pipeline=default autotune={}}}",
            args.autotune
        )),
        (None, name, _) => Some(format!("tessel-optimize{{pipeline={name}}}")),
    }
}

fn main() -> ExitCode {
    let raw: Vec<String> = std::env::args().collect();
    let (rest, clang) = match take_clang_options(raw) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let args: Args = match cli::parse_from(rest) {
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
    tessel::subcommand::set_mode(if clang.show_only {
        tessel::subcommand::Mode::ShowOnly
    } else if args.verbose > 0 {
        tessel::subcommand::Mode::Show
    } else {
        tessel::subcommand::Mode::Run
    });
    let cflags = clang.args;
    let color = match cflags
        .iter()
        .rev()
        .find(|a| a.ends_with("color-diagnostics"))
    {
        Some(a) => a == "-fcolor-diagnostics",
        None => std::io::IsTerminal::is_terminal(&std::io::stderr()),
    };
    tessel::diag::set_color(color);
    if clang.syntax_only {
        return syntax_only(&args, cflags);
    }
    if clang.preprocess {
        return preprocess(&args, &cflags);
    }
    if let Some(Err(e)) = args.passes.as_deref().map(tessel::pipeline::check_passes) {
        eprintln!("error: {e}");
        return ExitCode::from(1);
    }
    let deps = clang.deps;
    let assembly = args.assembly.then(|| match args.offload_arch.first() {
        Some(a) if a.starts_with("gfx") => Emit::Amdgcn,
        _ => Emit::Ptx,
    });
    if let Some(e) = assembly {
        if let Err(f) = tessel::pipeline::resolve_archs(&args.offload_arch, e, Some("-S")) {
            report(f.0);
            return ExitCode::from(1);
        }
    }
    let emit = match (&args.emit, args.compile_only) {
        _ if let Some(e) = assembly => e,
        (Some(e), false) => Emit::parse(e).expect("clap restricts --emit to the known kinds"),
        (Some(e), true) if e == "obj" => Emit::Object,
        (Some(e), true) => {
            eprintln!("error: -c conflicts with --emit={e}");
            return ExitCode::from(1);
        }
        (None, true) => Emit::Object,
        (None, false) => return build_program(&args, cflags, deps.as_ref()),
    };
    for a in link_flags(&args) {
        eprintln!(
            "tesselc: warning: argument unused during compilation: '{a}' [-Wunused-command-line-argument]"
        );
    }
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
    if let Err(f) = tessel::program::check_language(&input) {
        report(f.0);
        return ExitCode::from(1);
    }
    if tessel::cuda::is_cuda(&input) && emit != Emit::Object {
        eprintln!(
            "error: '{input}': CUDA input builds programs and objects (-c) only, not --emit={}",
            emit.extension()
        );
        return ExitCode::from(1);
    }
    let debug = tessel::pipeline::wants_debug(&cflags);
    let opts = CompileOptions {
        input: input.clone(),
        frontend: tessel::frontend::Options {
            clang_args: cflags,
            functions: args.function.clone(),
            warnings: true,
        },
        opt_level: args.opt,
        offload_arch: args.offload_arch.clone(),
        emit,
        entry_suffix: "",
        debug,
        passes: passes_of(&args, Some(emit)),
    };
    let stem = || {
        std::path::Path::new(&input)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or("out".into())
    };
    let path = match &args.output {
        Some(p) => p.clone(),
        None if args.assembly => format!("{}.s", stem()),
        None if emit.is_binary() => format!("{}.{}", stem(), emit.extension()),
        None => "-".into(),
    };
    let started = std::time::Instant::now();
    let out = match if tessel::cuda::is_cuda(&input) {
        tessel::cuda::compile_to(
            &input,
            &tessel::cuda::CudaOptions {
                cflags: &opts.frontend.clang_args,
                opt_level: opts.opt_level,
                offload_arch: &opts.offload_arch,
            },
        )
    } else {
        compile(&opts)
    } {
        Ok(o) => o,
        Err(f) => {
            report(f.0);
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
    if tessel::subcommand::show_only() {
        return ExitCode::SUCCESS;
    }
    if path == "-" {
        let _ = std::io::stdout().write_all(&out);
    } else if let Err(e) = tessel::output::write(std::path::Path::new(&path), &out, false) {
        eprintln!("error: {e}");
        return ExitCode::from(1);
    }
    write_depfile(deps.as_ref(), &path, &[input], &opts.frontend.clang_args)
}

/// Writes the dependency file `-MD`/`-MMD` ask for, naming `output` (or the `-MT`/`-MQ`
/// targets) and every file the C `inputs` read.
fn write_depfile(
    d: Option<&DepOptions>,
    output: &str,
    inputs: &[String],
    cflags: &[String],
) -> ExitCode {
    let Some(d) = d else {
        return ExitCode::SUCCESS;
    };
    let mut files: Vec<String> = Vec::new();
    for input in inputs.iter().filter(|i| i.ends_with(".c")) {
        match tessel::frontend::included_files(input, cflags) {
            Ok(fs) => {
                for (f, system) in fs {
                    // Absolute, so that the file means the same to a build system that
                    // runs tesselc from another directory (CMake's WORKING_DIRECTORY).
                    let f = std::path::absolute(&f)
                        .map(|p| p.to_string_lossy().into_owned())
                        .unwrap_or(f);
                    if !(d.user_only && system) && !files.contains(&f) {
                        files.push(f);
                    }
                }
            }
            Err(ds) => {
                report(ds);
                return ExitCode::from(1);
            }
        }
    }
    let target = if output == "-" {
        inputs[0].clone()
    } else {
        output.to_string()
    };
    let targets = if d.targets.is_empty() {
        vec![tessel::output::make_escape(&target)]
    } else {
        d.targets.clone()
    };
    let file = d.file.clone().unwrap_or_else(|| {
        std::path::Path::new(&target)
            .with_extension("d")
            .to_string_lossy()
            .into_owned()
    });
    let text = tessel::output::depfile(&targets, &files, d.phony);
    match tessel::output::write(std::path::Path::new(&file), text.as_bytes(), false) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// Prints diagnostics, then clang's count of the located errors among them.
fn report<D: std::fmt::Display>(diags: Vec<D>) {
    let mut errors = 0;
    for d in diags {
        let text = d.to_string();
        let first = text.lines().next().unwrap_or("").replace("\x1b[0m", "");
        errors += (first.contains(": error: ") || first.contains(": \x1b[31merror: ")) as usize;
        eprintln!("{text}");
    }
    match errors {
        0 => {}
        1 => eprintln!("1 error generated."),
        n => eprintln!("{n} errors generated."),
    }
}

/// clang's options that tesselc hands to its C parser, in command-line order (the
/// order matters: `-U X -D X` leaves X defined, include directories are searched in
/// turn), and the driver modes among them.
#[derive(Default)]
struct ClangOptions {
    args: Vec<String>,
    syntax_only: bool,
    /// `-###`: print the commands, run none.
    show_only: bool,
    /// `-E`: preprocess only.
    preprocess: bool,
    deps: Option<DepOptions>,
}

/// `-MD`/`-MMD` and the options that shape the dependency file, as clang reads them.
#[derive(Default)]
struct DepOptions {
    /// `-MMD`: leave system headers out.
    user_only: bool,
    /// `-MF FILE`; default: the output with its extension replaced by `.d`.
    file: Option<String>,
    /// `-MT` targets as given, `-MQ` targets quoted for make; default: the output.
    targets: Vec<String>,
    /// `-MP`: an empty rule per header.
    phony: bool,
}

/// Takes clang's options out of the command line before clap reads the rest: `-D`,
/// `-U`, `-I`, `-isystem`, `-include` (value joined or separate), `-Xclang ARG` (also
/// `-Xclang=ARG`), `-std=`, `-ffp-contract=`, `-W...` (warnings, `-Werror`), `-w`,
/// `-pedantic`, `-f[no-]color-diagnostics`, and the mode `-fsyntax-only`.
fn take_clang_options(raw: Vec<String>) -> Result<(Vec<String>, ClangOptions), String> {
    const SEPARATE: [&str; 6] = ["-D", "-U", "-I", "-isystem", "-include", "-Xclang"];
    const JOINED: [&str; 4] = ["-isystem", "-D", "-U", "-I"];
    const FLAGS: [&str; 8] = [
        "-g",
        "-g0",
        "-gline-tables-only",
        "-w",
        "-pedantic",
        "-pedantic-errors",
        "-fcolor-diagnostics",
        "-fno-color-diagnostics",
    ];
    let mut rest = Vec::new();
    let mut clang = ClangOptions::default();
    let mut it = raw.into_iter();
    rest.extend(it.next());
    while let Some(a) = it.next() {
        let xclang = a
            .strip_prefix("--Xclang=")
            .or_else(|| a.strip_prefix("-Xclang="));
        if let Some(v) = xclang {
            clang.args.extend(["-Xclang".to_string(), v.to_string()]);
        } else if let Some(flag) = SEPARATE
            .iter()
            .find(|f| a == **f || (**f == "-Xclang" && a == "--Xclang"))
        {
            let v = it
                .next()
                .ok_or_else(|| format!("argument to '{a}' is missing (expected 1 value)"))?;
            clang.args.extend([flag.to_string(), v]);
        } else if let Some(v) = a
            .strip_prefix("-ffp-contract=")
            .filter(|v| !["on", "off", "fast", "fast-honor-pragmas"].contains(v))
        {
            return Err(format!(
                "unsupported argument '{v}' to option '-ffp-contract=' (on, off, fast or fast-honor-pragmas)"
            ));
        } else if a == "-fsyntax-only" {
            clang.syntax_only = true;
        } else if a == "-E" {
            clang.preprocess = true;
        } else if a == "-###" {
            clang.show_only = true;
        } else if let Some(dep) = a.strip_prefix("-M").filter(|d| {
            ["D", "MD", "P"].contains(d) || ["F", "T", "Q"].iter().any(|k| d.starts_with(k))
        }) {
            let o = clang.deps.get_or_insert_with(DepOptions::default);
            let mut value = |k: &str| -> Result<String, String> {
                match dep.strip_prefix(k).filter(|v| !v.is_empty()) {
                    Some(v) => Ok(v.to_string()),
                    None => it.next().ok_or_else(|| {
                        format!("argument to '-M{k}' is missing (expected 1 value)")
                    }),
                }
            };
            match dep {
                "D" => {}
                "MD" => o.user_only = true,
                "P" => o.phony = true,
                d if d.starts_with('F') => o.file = Some(value("F")?),
                d if d.starts_with('T') => o.targets.push(value("T")?),
                _ => o.targets.push(tessel::output::make_escape(&value("Q")?)),
            }
        } else if a.starts_with("-std=")
            || a.starts_with("-ffp-contract=")
            || (a.starts_with("-W") && !["-Wl,", "-Wa,", "-Wp,"].iter().any(|p| a.starts_with(p)))
            || FLAGS.contains(&a.as_str())
            || (!a.starts_with("-include") && JOINED.iter().any(|f| a.starts_with(f)))
        {
            // A flag, or a joined value (`-DX`, `-Ipath`, `-isystempath`).
            clang.args.push(a);
        } else {
            rest.push(a);
        }
    }
    Ok((rest, clang))
}

/// `-E`: the inputs preprocessed by clang with the same options, to `-o` or standard
/// output, as `clang -E` (Tessel's pragmas stay in the text).
fn preprocess(args: &Args, cflags: &[String]) -> ExitCode {
    let mut text = Vec::new();
    for input in &args.inputs {
        let out = tessel::subcommand::output(
            std::process::Command::new(tessel::program::clang())
                .args(["-E", "-xc"])
                .args(cflags)
                .arg(input),
            "clang",
        );
        match out {
            Ok(o) if o.status.success() => {
                eprint!("{}", String::from_utf8_lossy(&o.stderr));
                text.extend(o.stdout);
            }
            Ok(o) => {
                eprint!("{}", String::from_utf8_lossy(&o.stderr));
                if let Some(p) = args.output.as_deref().filter(|p| *p != "-") {
                    tessel::output::remove_stale(std::path::Path::new(p));
                }
                return ExitCode::from(1);
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        }
    }
    if tessel::subcommand::show_only() {
        return ExitCode::SUCCESS;
    }
    match args.output.as_deref() {
        None | Some("-") => {
            let _ = std::io::stdout().write_all(&text);
            ExitCode::SUCCESS
        }
        Some(p) => match tessel::output::write(std::path::Path::new(p), &text, false) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(1)
            }
        },
    }
}

/// `-fsyntax-only`: every C input through clang's checks and the frontend (is each
/// region a static control part Tessel accepts?); nothing is written.
fn syntax_only(args: &Args, cflags: Vec<String>) -> ExitCode {
    let mut failed = false;
    for input in args.inputs.iter().filter(|i| i.ends_with(".c")) {
        let fe = tessel::frontend::Options {
            clang_args: cflags.clone(),
            functions: args.function.clone(),
            warnings: true,
        };
        if let Err(ds) = tessel::frontend::parse_file(input, &fe) {
            report(ds);
            failed = true;
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The `-L` and `-l` options, for the link.
fn link_flags(args: &Args) -> Vec<String> {
    let dirs = args.lib_dirs.iter().map(|d| format!("-L{d}"));
    dirs.chain(args.libs.iter().map(|l| format!("-l{l}")))
        .collect()
}

/// `tesselc prog.c [more.c ...] -o prog`.
fn build_program(args: &Args, cflags: Vec<String>, deps: Option<&DepOptions>) -> ExitCode {
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
        opt_level: args.opt,
        offload_arch: args.offload_arch.clone(),
        output,
        functions: args.function.clone(),
        link_flags: link_flags(args),
        passes: passes_of(args, None),
    };
    match tessel::program::build_program(&p) {
        Ok(_) if tessel::subcommand::show_only() => ExitCode::SUCCESS,
        Ok(_) => write_depfile(deps, &p.output.to_string_lossy(), &args.inputs, &p.cflags),
        Err(f) => {
            report(f.0);
            tessel::output::remove_stale(&p.output);
            ExitCode::from(1)
        }
    }
}
