//! Whole programs: `tesselc prog.c [more.c ...] -o prog`.
//!
//! Each input with static control parts is compiled twice: its SCoPs to a host object
//! (`--emit=obj`, entry points named `FUNC__tessel`), and its C text, with every SCoP
//! replaced by a call to that entry point, by clang. Inputs without SCoPs (a utility
//! file) go to clang as they are. The objects are linked with the runtime
//! (`libtessel_runtime.a`), so the program runs its kernels on the device
//! `TESSEL_DEVICE` chooses.
//!
//! Before (`gemm.c`): `void kernel_gemm(int ni, ..., double C[ni][nj]) { int i, j;
//! #pragma scop ... #pragma endscop }`.
//! After (the C clang compiles): `void kernel_gemm__tessel(int ni, ..., double C[ni][nj]);
//! void kernel_gemm(...) { int i, j; kernel_gemm__tessel(ni, ..., C); }`, with `#line`
//! directives so clang's diagnostics still name `gemm.c`.

use crate::pipeline::{compile_reporting, CompileOptions, Emit, Failure};
use crate::scop::{FuncArg, OuterVar};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The suffix of compiled SCoP entry points in whole programs.
pub const ENTRY_SUFFIX: &str = "__tessel";

#[derive(Clone, Debug)]
pub struct ProgramOptions {
    pub inputs: Vec<String>,
    /// clang options (-I/-D/-U/-std=/-W/-Xclang ...) in command-line order, for both the
    /// frontend and the host compile.
    pub cflags: Vec<String>,
    pub opt_level: u8,
    pub offload_arch: Vec<String>,
    pub output: PathBuf,
    /// Kernels only from these functions (`--function`), else `#pragma scop` regions.
    pub functions: Vec<String>,
    /// `-L DIR` and `-l NAME` for the link, after the objects.
    pub link_flags: Vec<String>,
    /// `--passes` (see [`crate::pipeline::CompileOptions::passes`]).
    pub passes: Option<String>,
}

/// Inputs tesselc does not compile: a CUDA header is refused by name rather than handed
/// to the linker as an object.
pub fn check_language(input: &str) -> Result<(), Failure> {
    if input.ends_with(".cuh") {
        return Err(err(format!(
            "'{input}': a CUDA header is not a compilation input (include it from a '.cu' file)"
        )));
    }
    Ok(())
}

/// C++ sources (a CUDA program's host files), compiled by clang++.
fn is_cxx(input: &str) -> bool {
    [".cpp", ".cc", ".cxx", ".C"]
        .iter()
        .any(|e| input.ends_with(e))
}

fn err(msg: impl Into<String>) -> Failure {
    Failure(vec![format!("error: {}", msg.into())])
}

/// The runtime library to link: `$TESSEL_RUNTIME_LIB`, else the newest of
/// `libtessel_runtime.a` next to the running executable or above it and the
/// `deps/libtessel_runtime-*.a` there (what `cargo test` builds without copying it up).
pub fn runtime_lib() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("TESSEL_RUNTIME_LIB") {
        return Some(p.into());
    }
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?;
    let dirs = [dir.to_path_buf(), dir.join(".."), dir.join("../..")];
    // The newest: `cargo build` copies the library up, `cargo test` leaves it in deps,
    // and either may have run last.
    let beside = dirs.iter().map(|d| d.join("libtessel_runtime.a"));
    let in_deps = dirs
        .iter()
        .filter_map(|d| std::fs::read_dir(d.join("deps")).ok())
        .flatten()
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.starts_with("libtessel_runtime-") && n.ends_with(".a")
        })
        .map(|e| e.path());
    beside
        .chain(in_deps)
        .filter_map(|p| Some((std::fs::metadata(&p).and_then(|m| m.modified()).ok()?, p)))
        .max()
        .map(|(_, p)| p)
}

/// Debian's clang 22 (the one the rest of the toolchain comes from), else `clang`.
pub fn clang() -> PathBuf {
    crate::pipeline::llvm_tool("clang")
}

/// Runs a tool (named `what` in errors): its warnings are printed, its errors returned
/// as the failure, its standard output returned.
pub(crate) fn run(cmd: &mut Command, what: &str) -> Result<Vec<u8>, Failure> {
    let out = crate::subcommand::output(cmd, what).map_err(err)?;
    if !out.status.success() {
        let msg = String::from_utf8_lossy(&out.stderr);
        return Err(Failure(
            msg.lines()
                .map(String::from)
                .chain([format!("error: {what} failed")])
                .collect(),
        ));
    }
    // Warnings of a step that succeeded, as the tool printed them.
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    Ok(out.stdout)
}

/// The C text of `input` with each SCoP replaced by a call to its compiled entry point.
fn rewrite(input: &str, text: &str, scops: &[crate::scop::Scop]) -> Result<String, Failure> {
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let quoted = format!("{input:?}");
    for s in scops {
        let Some(r) = &s.rewrite else {
            return Err(Failure(vec![format!(
                "{}: error: cannot read the signature of the function holding this region (is it made by a macro?)",
                s.loc
            )]));
        };
        let entry = format!("{}{ENTRY_SUFFIX}", s.name);
        let line_of = |off: usize| text[..off].matches('\n').count() + 1;
        // The function's own parameters, then its variables from outside the region by
        // reference (the entry point copies them in and back out).
        let mut params: Vec<String> = Vec::new();
        let own = r.params.trim();
        if !own.is_empty() && own != "void" {
            params.push(own.to_string());
        }
        let mut args = r.names.clone();
        for a in &s.args {
            match a {
                FuncArg::Outer(OuterVar::Scalar(i)) => {
                    params.push(format!("void *__tessel_ref{}", args.len()));
                    args.push(format!("&{}", s.scalars[*i].name));
                }
                FuncArg::Outer(OuterVar::Array(i)) => {
                    params.push(format!("void *__tessel_ref{}", args.len()));
                    // `&` also covers a struct variable (an array of its elements).
                    args.push(format!("&{}", s.arrays[*i].name));
                }
                _ => {}
            }
        }
        let proto = format!(
            "#line 1 \"<tessel>\"\nvoid {entry}({});\n#line {} {quoted}\n",
            if params.is_empty() {
                "void".to_string()
            } else {
                params.join(", ")
            },
            line_of(r.function_start)
        );
        edits.push((r.function_start, r.function_start, proto));
        let call = format!(
            "{entry}({});\n#line {} {quoted}\n",
            args.join(", "),
            line_of(r.replace.1)
        );
        edits.push((r.replace.0, r.replace.1, call));
    }
    // Apply from the end so offsets stay valid; insertions before replacements at one spot.
    edits.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    let mut out = text.to_string();
    for (b, e, t) in edits {
        out.replace_range(b..e, &t);
    }
    // File-scope arrays the kernels use must survive in clang's object even when only the
    // replaced regions used them; `globalize` then makes static ones visible to the linker.
    for g in global_arrays(scops) {
        out += &format!(
            "\nstatic void *const __tessel_keep_{g} __attribute__((used)) = (void *)&{g};\n"
        );
    }
    Ok(format!("#line 1 {quoted}\n{out}"))
}

/// File-scope arrays the SCoPs use (the kernel object refers to them by name).
fn global_arrays(scops: &[crate::scop::Scop]) -> Vec<String> {
    let mut v: Vec<String> = scops
        .iter()
        .flat_map(|s| &s.arrays)
        .filter(|a| a.kind == crate::scop::ArrayKind::Global)
        .map(|a| a.name.clone())
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Builds and links the program; returns how many loop nests of its scops the passes
/// left to run on the host ([`crate::mlir::host_loop_nests`]).
pub fn build_program(p: &ProgramOptions) -> Result<usize, Failure> {
    let Some(rt) = runtime_lib() else {
        return Err(err(
            "libtessel_runtime.a not found next to tesselc (build the workspace, or set TESSEL_RUNTIME_LIB)",
        ));
    };
    let dir = tempfile::tempdir().map_err(|e| err(e.to_string()))?;
    let mut objects = Vec::new();
    let mut any_scop = false;
    let mut cuda_kit: Option<PathBuf> = None;
    let mut any_cxx = false;
    let mut host_loop_nests = 0;
    for (i, input) in p.inputs.iter().enumerate() {
        if !Path::new(input).is_file() {
            return Err(err(format!("no such file: '{input}'")));
        }
        check_language(input)?;
        if crate::cuda::is_cuda(input) {
            let kit = match &cuda_kit {
                Some(k) => k.clone(),
                None => cuda_kit.insert(crate::cuda::toolkit(dir.path())?).clone(),
            };
            let o = dir.path().join(format!("{i}.o"));
            let opts = crate::cuda::CudaOptions {
                cflags: &p.cflags,
                opt_level: p.opt_level,
                offload_arch: &p.offload_arch,
            };
            crate::cuda::compile_object(input, &opts, &kit, dir.path(), &o)?;
            objects.push(o);
            continue;
        }
        if is_cxx(input) {
            // C++ host code (a CUDA program's .cpp files) sees the CUDA headers.
            let kit = match &cuda_kit {
                Some(k) => Some(k.clone()),
                None if crate::registry::cuda_runtime_dir().is_some() => {
                    Some(cuda_kit.insert(crate::cuda::toolkit(dir.path())?).clone())
                }
                None => None,
            };
            let o = dir.path().join(format!("{i}.o"));
            let src_dir = Path::new(input)
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let mut cmd = Command::new(crate::pipeline::llvm_tool("clang++"));
            cmd.args(["-c", "-O2"]).arg("-iquote").arg(src_dir);
            if let Some(k) = kit {
                cmd.arg("-isystem").arg(k.join("include"));
            }
            run(
                cmd.args(&p.cflags).arg(input).arg("-o").arg(&o),
                &format!("clang++ ({input})"),
            )?;
            objects.push(o);
            any_cxx = true;
            continue;
        }
        let is_c = input.ends_with(".c");
        if !is_c {
            // Objects and libraries go to the linker as they are.
            objects.push(PathBuf::from(input));
            continue;
        }
        let fe_args = p.cflags.clone();
        let fe = crate::frontend::Options {
            clang_args: fe_args,
            functions: p.functions.clone(),
            warnings: true,
        };
        let text = std::fs::read_to_string(input)
            .map_err(|e| err(format!("cannot read '{input}': {e}")))?;
        let has_scop = !p.functions.is_empty() || text.contains("pragma") && text.contains("scop");
        let scops = if has_scop {
            crate::frontend::parse_file(input, &fe)
                .map_err(|ds| Failure(ds.into_iter().map(|d| d.to_string()).collect()))?
        } else {
            Vec::new()
        };
        let src_dir = Path::new(input)
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        any_scop |= !scops.is_empty();
        let c_src = if scops.is_empty() {
            PathBuf::from(input)
        } else {
            let opts = CompileOptions {
                input: input.clone(),
                // The file's warnings were printed by the parse above.
                frontend: crate::frontend::Options {
                    warnings: false,
                    ..fe
                },
                opt_level: p.opt_level,
                offload_arch: p.offload_arch.clone(),
                emit: Emit::Object,
                debug: crate::pipeline::wants_debug(&p.cflags),
                passes: p.passes.clone(),
                entry_suffix: ENTRY_SUFFIX,
            };
            let (obj, host) = compile_reporting(&opts)?;
            host_loop_nests += host;
            let k = dir.path().join(format!("{i}.kernels.o"));
            std::fs::write(&k, obj).map_err(|e| err(e.to_string()))?;
            objects.push(k);
            let rewritten = rewrite(input, &text, &scops)?;
            let c = dir.path().join(format!("{i}.c"));
            std::fs::write(&c, rewritten).map_err(|e| err(e.to_string()))?;
            c
        };
        let o = dir.path().join(format!("{i}.o"));
        // A file with regions had its warnings printed by the frontend; its rewritten
        // form is compiled silently. Any other file gets clang's warnings as usual.
        let quiet: &[&str] = if scops.is_empty() { &[] } else { &["-w"] };
        run(
            Command::new(clang())
                .args(["-c", "-O2"])
                .args(quiet)
                .arg("-iquote")
                .arg(src_dir)
                .args(&p.cflags)
                .arg(&c_src)
                .arg("-o")
                .arg(&o),
            &format!("clang ({input})"),
        )?;
        let globals = global_arrays(&scops);
        if !globals.is_empty() {
            // A `static` array keeps its name in the symbol table; make it global so the
            // kernel object's reference resolves to it.
            let mut cmd = Command::new(crate::pipeline::llvm_tool("llvm-objcopy"));
            for g in &globals {
                cmd.arg(format!("--globalize-symbol={g}"));
            }
            run(cmd.arg(&o), "llvm-objcopy")?;
        }
        objects.push(o);
    }
    // Objects may be CUDA ones (`tesselc -c prog.cu`): they need the runtime layer's
    // C++ part too, when the headers to build it are there.
    let objects_only = p
        .inputs
        .iter()
        .all(|i| !i.ends_with(".c") && !crate::cuda::is_cuda(i));
    if cuda_kit.is_none() && objects_only && crate::registry::cuda_runtime_dir().is_some() {
        cuda_kit = Some(crate::cuda::toolkit(dir.path())?);
    }
    if let Some(kit) = &cuda_kit {
        objects.push(crate::cuda::runtime_object(kit, dir.path())?);
    }
    if !any_scop && cuda_kit.is_none() && !objects_only && !any_cxx {
        let first = p
            .inputs
            .iter()
            .find(|i| i.ends_with(".c"))
            .unwrap_or(&p.inputs[0]);
        return Err(Failure(vec![format!(
            "{first}:1:1: error: no '#pragma scop' region in this file (mark one, or name a function with --function)"
        )]));
    }
    let tmp_out = dir.path().join("a.out");
    // CUDA host code is C++: clang++ links its library.
    let linker = if cuda_kit.is_some() || any_cxx {
        crate::pipeline::llvm_tool("clang++")
    } else {
        clang()
    };
    run(
        Command::new(linker)
            .args(&objects)
            .args(&p.link_flags)
            .arg(&rt)
            .args(["-lm", "-ldl", "-lpthread", "-lrt"])
            .arg("-o")
            .arg(&tmp_out),
        "link",
    )?;
    if !crate::subcommand::show_only() {
        crate::output::copy(&tmp_out, &p.output, true).map_err(err)?;
    }
    Ok(host_loop_nests)
}
