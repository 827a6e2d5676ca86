//! tessel-run: runs the host function of a gpu-dialect module on a device, like
//! mlir-runner, so that the sim device can be tested on hand-written kernels.
//!
//! The module is compiled as `tesselc -c` compiles C (kernels to the sim form and PTX,
//! host code to an object that calls the runtime), linked with the runtime and a `main`
//! that calls the entry function (`--entry`, default `main`, taking no arguments), and
//! run. Host code can print with `func.call @tessel_print_f32(%v) : (f32) -> ()` (also
//! `_f64`, `_i32`, `_i64`).

use clap::Parser;

#[path = "../cli.rs"]
mod cli;
use std::process::{Command, ExitCode};
use tessel::program::{clang, runtime_lib};

#[derive(Parser, Debug)]
#[command(
    name = "tessel-run",
    version,
    about = "Run the host function of a gpu-dialect MLIR module on a device (sim when no GPU is present)",
    after_help = "Examples:\n  tessel-run copy.mlir\n  tessel-run copy.mlir --device=sim --profile=prof.json\n  TESSEL_GPU=a100 tessel-run k.mlir --entry=run"
)]
struct Args {
    /// The MLIR file.
    input: String,
    /// Host function to call (no arguments, no results).
    #[arg(long, default_value = "main")]
    entry: String,
    /// Device: auto, cuda, hip or sim (sets TESSEL_DEVICE).
    #[arg(long, value_parser = ["auto", "cuda", "hip", "sim"])]
    device: Option<String>,
    /// GPU that sim models (sets TESSEL_GPU).
    #[arg(long)]
    gpu: Option<String>,
    /// Write one JSON object per launch to FILE (sets TESSEL_PROFILE).
    #[arg(long, value_name = "FILE")]
    profile: Option<String>,
    /// NVIDIA architecture for the embedded PTX/cubin.
    #[arg(long = "offload-arch", default_value = "sm_90")]
    offload_arch: String,
    /// Print the device used.
    #[arg(short = 'v')]
    verbose: bool,
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(1)
}

fn main() -> ExitCode {
    let args: Args = match cli::parse() {
        Ok(a) => a,
        Err(code) => return code,
    };
    let text = match std::fs::read_to_string(&args.input) {
        Ok(t) => t,
        Err(e) => return fail(&format!("cannot read '{}': {e}", args.input)),
    };
    if !args
        .entry
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_')
        || args.entry.is_empty()
    {
        return fail(&format!(
            "--entry '{}' is not a plain symbol name",
            args.entry
        ));
    }
    let obj = match tessel::pipeline::object_from_mlir(
        &text,
        std::slice::from_ref(&args.offload_arch),
        3,
    ) {
        Ok(o) => o,
        Err(f) => {
            for d in f.0 {
                if d.starts_with(|c: char| c.is_ascii_digit()) {
                    eprintln!("{}:{d}", args.input);
                } else {
                    eprintln!("{d}");
                }
            }
            return ExitCode::from(1);
        }
    };
    let Some(rt) = runtime_lib() else {
        return fail("libtessel_runtime.a not found next to tessel-run (set TESSEL_RUNTIME_LIB)");
    };
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => return fail(&e.to_string()),
    };
    let host = dir.path().join("host.o");
    let stub = dir.path().join("main.c");
    let exe = dir.path().join("run");
    let entry = if args.entry == "main" {
        "__tessel_run_main"
    } else {
        args.entry.as_str()
    };
    let steps = || -> Result<(), String> {
        std::fs::write(&host, &obj).map_err(|e| e.to_string())?;
        if args.entry == "main" {
            let st = Command::new(tessel::pipeline::llvm_tool("llvm-objcopy"))
                .arg(format!("--redefine-sym=main={entry}"))
                .arg(&host)
                .status()
                .map_err(|e| format!("cannot run llvm-objcopy: {e}"))?;
            if !st.success() {
                return Err("llvm-objcopy failed".into());
            }
        }
        std::fs::write(
            &stub,
            format!("void {entry}(void);\nint main(void) {{ {entry}(); return 0; }}\n"),
        )
        .map_err(|e| e.to_string())?;
        let out = Command::new(clang())
            .arg(&stub)
            .arg(&host)
            .arg(&rt)
            .args(["-lm", "-ldl", "-lpthread", "-o"])
            .arg(&exe)
            .output()
            .map_err(|e| format!("cannot run clang: {e}"))?;
        if !out.status.success() {
            let log = String::from_utf8_lossy(&out.stderr);
            if log.contains(&format!("undefined reference to `{entry}'")) {
                return Err(format!("the module has no host function @{}", args.entry));
            }
            return Err(format!("link failed:\n{log}"));
        }
        Ok(())
    };
    if let Err(e) = steps() {
        return fail(&e);
    }
    let mut cmd = Command::new(&exe);
    if let Some(d) = &args.device {
        cmd.env("TESSEL_DEVICE", d);
    }
    if let Some(g) = &args.gpu {
        cmd.env("TESSEL_GPU", g);
    }
    if let Some(p) = &args.profile {
        cmd.env("TESSEL_PROFILE", p);
    }
    if args.verbose {
        cmd.env("TESSEL_VERBOSE", "1");
    }
    match cmd.status() {
        Ok(s) => ExitCode::from(s.code().unwrap_or(1).clamp(0, 255) as u8),
        Err(e) => fail(&format!("cannot run the program: {e}")),
    }
}
