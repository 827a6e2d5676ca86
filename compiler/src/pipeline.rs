//! The compilation flows `tesselc` runs, from C to each `--emit` form.
//!
//! C --frontend--> SCoP trees --affine printer--> `--emit=mlir`
//!   --passes (tessel-optimize{pipeline=default}, or --passes)--> `--emit=gpu`
//!   --tessel-gpu-to-nvvm--> `--emit=ptx` (--ptxas--> `cubin`), `--emit=llvm` (host + embedded PTX)
//!   --tessel-gpu-to-rocdl--> `--emit=amdgcn` (--llvm-mc, ld.lld--> `hsaco`)

use crate::codegen::affine;
use crate::frontend;
use crate::mlir::{self, MlirDiag, Session};
use crate::registry;
use crate::subcommand;
use melior::ir::Module;
use std::path::Path;
use std::process::Command;
use tessel_runtime::bytecode::{Code, CodeKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    Mlir,
    Gpu,
    Llvm,
    Ptx,
    Cubin,
    Amdgcn,
    Hsaco,
    /// A relocatable host object: C-ABI entry points that run the kernels through the
    /// runtime, with the kernels embedded (sim form, PTX and cubin, or HSACO).
    Object,
}

impl Emit {
    pub fn parse(s: &str) -> Option<Emit> {
        Some(match s {
            "mlir" => Emit::Mlir,
            "gpu" => Emit::Gpu,
            "llvm" => Emit::Llvm,
            "ptx" => Emit::Ptx,
            "cubin" => Emit::Cubin,
            "amdgcn" => Emit::Amdgcn,
            "hsaco" => Emit::Hsaco,
            "obj" => Emit::Object,
            _ => return None,
        })
    }
    pub fn is_binary(self) -> bool {
        matches!(self, Emit::Cubin | Emit::Hsaco | Emit::Object)
    }
    pub fn extension(self) -> &'static str {
        match self {
            Emit::Mlir | Emit::Gpu => "mlir",
            Emit::Llvm => "ll",
            Emit::Ptx => "ptx",
            Emit::Cubin => "cubin",
            Emit::Amdgcn => "s",
            Emit::Hsaco => "hsaco",
            Emit::Object => "o",
        }
    }
}

#[derive(Clone, Debug)]
pub struct CompileOptions {
    pub input: String,
    pub frontend: frontend::Options,
    pub opt_level: u8,
    /// `sm_XX` or `gfxNNN`, in command-line order; several only for objects and
    /// programs (a code object per architecture). None: sm_90, or gfx942 for AMD forms.
    pub offload_arch: Vec<String>,
    pub emit: Emit,
    /// With `--emit=obj`: the suffix of the C entry points' names (`""`: each replaces
    /// its C function; whole programs call `NAME__tessel` from the rewritten C).
    pub entry_suffix: &'static str,
    /// `-g`: line tables in the kernels (PTX `.loc`, cubin line info, HSACO) and the
    /// host object, from the C locations of the operations.
    pub debug: bool,
    /// The passes between the frontend and the lowering (`tessel-optimize{pipeline=...}`
    /// or `--passes`), on the scops' affine form; scops they leave in place run on the
    /// host. None: no passes (the affine form itself).
    pub passes: Option<String>,
}

/// Whether clang's options ask for debug information: the last of `-g`, `-gN`,
/// `-gline-tables-only` and `-g0` wins.
pub fn wants_debug(cflags: &[String]) -> bool {
    cflags
        .iter()
        .rev()
        .find(|a| a.starts_with("-g") && !a.starts_with("-gcc"))
        .is_some_and(|a| a != "-g0")
}

/// A failed compilation: diagnostics already formatted (`file:line:col: error: ...`).
#[derive(Debug)]
pub struct Failure(pub Vec<String>);

fn fail<T>(msg: impl Into<String>) -> Result<T, Failure> {
    Err(Failure(vec![format!("error: {}", msg.into())]))
}

/// An internal error: Tessel produced IR that MLIR rejected.
fn internal(stage: &str, text: &str, diags: Vec<MlirDiag>) -> Failure {
    let lines: Vec<&str> = text.lines().collect();
    Failure(
        diags
            .into_iter()
            .map(|d| {
                let src = lines.get(d.line.saturating_sub(1) as usize).unwrap_or(&"");
                format!(
                    "error: internal compiler error in {stage}: <{stage}>:{}:{}: {}\n  {}",
                    d.line,
                    d.col,
                    d.message,
                    src.trim()
                )
            })
            .collect(),
    )
}

/// NVIDIA targets of LLVM 22's NVPTX backend (`llc -march=nvptx64 -mcpu=help`).
const NVPTX_ARCHS: &[&str] = &[
    "sm_20", "sm_21", "sm_30", "sm_32", "sm_35", "sm_37", "sm_50", "sm_52", "sm_53", "sm_60",
    "sm_61", "sm_62", "sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89",
    "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f", "sm_101", "sm_101a", "sm_101f", "sm_103",
    "sm_103a", "sm_103f", "sm_110", "sm_110a", "sm_110f", "sm_120", "sm_120a", "sm_120f", "sm_121",
    "sm_121a", "sm_121f",
];

/// The subset ptxas (CUDA 12, the PyPI wheel setup.sh installs) assembles (`ptxas --help`):
/// a cubin for anything else fails in ptxas.
const PTXAS_ARCHS: &[&str] = &[
    "sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75", "sm_80",
    "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f", "sm_101",
    "sm_101a", "sm_101f", "sm_103", "sm_103a", "sm_103f", "sm_120", "sm_120a", "sm_120f", "sm_121",
    "sm_121a", "sm_121f",
];

/// AMD processors of LLVM 22's AMDGPU backend (`llc -march=amdgcn -mcpu=help`).
const AMDGPU_ARCHS: &[&str] = &[
    "gfx600",
    "gfx601",
    "gfx602",
    "gfx700",
    "gfx701",
    "gfx702",
    "gfx703",
    "gfx704",
    "gfx705",
    "gfx801",
    "gfx802",
    "gfx803",
    "gfx805",
    "gfx810",
    "gfx900",
    "gfx902",
    "gfx904",
    "gfx906",
    "gfx908",
    "gfx909",
    "gfx90a",
    "gfx90c",
    "gfx942",
    "gfx950",
    "gfx1010",
    "gfx1011",
    "gfx1012",
    "gfx1013",
    "gfx1030",
    "gfx1031",
    "gfx1032",
    "gfx1033",
    "gfx1034",
    "gfx1035",
    "gfx1036",
    "gfx1100",
    "gfx1101",
    "gfx1102",
    "gfx1103",
    "gfx1150",
    "gfx1151",
    "gfx1152",
    "gfx1153",
    "gfx1200",
    "gfx1201",
    "gfx1250",
    "gfx1251",
    "gfx9-generic",
    "gfx9-4-generic",
    "gfx10-1-generic",
    "gfx10-3-generic",
    "gfx11-generic",
    "gfx12-generic",
];

/// Checks an `--offload-arch` value against what the backends accept (and, when a cubin
/// is made with ptxas, what ptxas accepts); `Ok(true)` for NVIDIA, `Ok(false)` for AMD.
pub fn check_arch(arch: &str, with_ptxas: bool) -> Result<bool, String> {
    let listed = |list: &[&str]| list.join(", ");
    if arch.starts_with("sm_") {
        if !NVPTX_ARCHS.contains(&arch) {
            return Err(format!(
                "unknown --offload-arch '{arch}'; NVIDIA values: {}",
                listed(NVPTX_ARCHS)
            ));
        }
        if with_ptxas && !PTXAS_ARCHS.contains(&arch) {
            return Err(format!(
                "--offload-arch '{arch}' is not supported by ptxas (CUDA 12), which a cubin needs; values: {} (or --emit=ptx)",
                listed(PTXAS_ARCHS)
            ));
        }
        return Ok(true);
    }
    if AMDGPU_ARCHS.contains(&arch) {
        return Ok(false);
    }
    if arch.starts_with("gfx") {
        return Err(format!(
            "unknown --offload-arch '{arch}'; AMD values: {}",
            listed(AMDGPU_ARCHS)
        ));
    }
    Err(format!(
        "invalid --offload-arch '{arch}' (expected an NVIDIA sm_XX or an AMD gfxNNN, e.g. sm_90 or gfx942)"
    ))
}

/// The architectures to build for: `given` checked, duplicates dropped, or the default
/// for the output form; several only for objects (one code object per architecture).
/// `asked` is how the user asked for the form, for the message (`-S`), by default
/// `--emit=KIND`.
pub fn resolve_archs(
    given: &[String],
    emit: Emit,
    asked: Option<&str>,
) -> Result<Vec<String>, Failure> {
    let wants_nvidia = match emit {
        Emit::Ptx | Emit::Cubin => Some(true),
        Emit::Amdgcn | Emit::Hsaco => Some(false),
        _ => None,
    };
    let mut archs: Vec<String> = Vec::new();
    for a in given {
        let with_ptxas = matches!(emit, Emit::Cubin | Emit::Object) && ptxas_path().is_some();
        let nv = check_arch(a, with_ptxas).map_err(|e| Failure(vec![format!("error: {e}")]))?;
        if wants_nvidia.is_some_and(|w| w != nv) {
            return fail(
                format!("--offload-arch={a} does not match --emit={:?}", emit).to_lowercase(),
            );
        }
        if !archs.contains(a) {
            archs.push(a.clone());
        }
    }
    if archs.len() > 1 && !matches!(emit, Emit::Object | Emit::Mlir | Emit::Gpu) {
        return fail(format!(
            "{} makes one file for one architecture, but {} were given ({}); several --offload-arch are for -c and programs",
            asked.map_or_else(|| format!("--emit={}", emit.extension()), String::from),
            archs.len(),
            archs.join(", ")
        ));
    }
    if archs.is_empty() {
        archs.push(
            if wants_nvidia == Some(false) {
                "gfx942"
            } else {
                "sm_90"
            }
            .into(),
        );
    }
    Ok(archs)
}

/// Compiles one C file to the requested form.
pub fn compile(opts: &CompileOptions) -> Result<Vec<u8>, Failure> {
    compile_reporting(opts).map(|(bytes, _)| bytes)
}

/// [`compile`], also giving the number of loop nests of the scops that the passes left
/// to run on the host ([`mlir::host_loop_nests`]: 0 where every scop became kernels).
pub fn compile_reporting(opts: &CompileOptions) -> Result<(Vec<u8>, usize), Failure> {
    let archs = resolve_archs(&opts.offload_arch, opts.emit, None)?;
    let arch = archs[0].clone();

    let scops = {
        let _s = tracing::info_span!("frontend", file = %opts.input).entered();
        subcommand::in_process(&format!("frontend: {} (libclang)", opts.input));
        frontend::parse_file(&opts.input, &opts.frontend)
            .map_err(|ds| Failure(ds.into_iter().map(|d| d.to_string()).collect()))?
    };
    if scops.is_empty() {
        return Err(Failure(vec![format!(
            "{}:1:1: error: no '#pragma scop' region in this file (mark one, or name a function with --function)",
            opts.input
        )]));
    }
    tracing::info!(scops = scops.len(), "frontend done");
    if opts.emit == Emit::Object && opts.entry_suffix.is_empty() {
        // The entry point takes the C function's place: code of the function outside
        // the region would silently disappear.
        if let Some((loc, what)) = scops.iter().find_map(|s| s.outside_code.clone()) {
            return Err(Failure(vec![format!(
                "{loc}: error: -c replaces the whole function and would lose {what}; build the whole program instead (tesselc {} -o PROGRAM)",
                opts.input
            )]));
        }
    }
    let session = Session::new();
    let entries = (opts.emit == Emit::Object).then_some(opts.entry_suffix);
    // clang's -ffp-contract (on by default; fast contracts within expressions too).
    let contract = opts
        .frontend
        .clang_args
        .iter()
        .rev()
        .find_map(|a| a.strip_prefix("-ffp-contract="))
        .is_none_or(|v| v != "off");
    let mut m = affine::emit_module(&session, &scops, entries, contract)
        .map_err(|ds| Failure(ds.into_iter().map(|d| d.to_string()).collect()))?;
    mlir::inherit_locations(&m, "affine");
    // The module was built, not parsed: a verifier's diagnostic points at the C source.
    let text = String::new();
    session.verify(&m).map_err(|ds| {
        let mut f = Failure(
            ds.into_iter()
                .map(|d| {
                    format!(
                        "error: internal compiler error in the affine form: {}:{}:{}: {}",
                        opts.input, d.line, d.col, d.message
                    )
                })
                .collect(),
        );
        f.0.push(mlir::print_module_with(
            &m,
            mlir::PrintOptions {
                generic: true,
                debug_info: true,
                ..Default::default()
            },
        ));
        f
    })?;
    if let Some(passes) = &opts.passes {
        let _s = tracing::info_span!("passes", pipeline = %passes).entered();
        run_passes(&session, &mut m, passes, &opts.input)?;
    }
    // SAFETY: the module is live.
    let host = unsafe { mlir::host_loop_nests(m.as_operation().to_raw()) };
    if matches!(opts.emit, Emit::Mlir | Emit::Gpu) {
        // With -g, every operation's C source location is printed in place
        // (`loc("gemm.c":12:7)`).
        let print = mlir::PrintOptions {
            generic: false,
            debug_info: opts.debug,
            local_scope: opts.debug,
        };
        return Ok((mlir::print_module_with(&m, print).into_bytes(), host));
    }
    if opts.emit == Emit::Object {
        let _s = tracing::info_span!("lowering", archs = %archs.join(",")).entered();
        return object(
            &session,
            &mut m,
            &text,
            &archs,
            opts.opt_level,
            opts.debug,
            None,
        )
        .map(|o| (o, host));
    }
    let (lowering, pipeline) = lowering_pipeline(&arch, opts.opt_level, opts.debug)?;
    let _s = tracing::info_span!("lowering", pipeline = lowering).entered();
    subcommand::in_process(&format!("lowering for {arch}: {pipeline}"));
    session
        .run_pipeline(&mut m, &pipeline)
        .map_err(|d| internal(lowering, &text, d))?;
    let objects = mlir::gpu_objects(&m);
    let object = objects
        .into_iter()
        .find(|(n, _)| n == crate::transforms::map_to_gpu::KERNEL_MODULE)
        .map(|o| o.1)
        .unwrap_or_default();
    let bytes = match opts.emit {
        Emit::Llvm => crate::host::llvm_ir(&m)
            .map(String::into_bytes)
            .or_else(fail),
        Emit::Ptx | Emit::Amdgcn => Ok(object),
        Emit::Cubin => ptxas(&object, &arch, opts.opt_level, opts.debug),
        Emit::Hsaco => hsaco(&object, &arch),
        Emit::Mlir | Emit::Gpu | Emit::Object => unreachable!("returned above"),
    };
    bytes.map(|b| (b, host))
}

/// Checks a `--passes` pipeline before anything is built; the error is MLIR's, on one
/// line.
pub fn check_passes(passes: &str) -> Result<(), String> {
    let expanded = crate::registry::expand_pipeline(passes)
        .map_err(|e| format!("--passes='{passes}': {e}"))?;
    Session::new()
        .check_pipeline(&format!("builtin.module({expanded})"))
        .map_err(|e| {
            let line = e
                .lines()
                .find_map(|l| l.split_once("error: ").map(|x| x.1.to_string()));
            format!("--passes='{passes}': {}", line.unwrap_or(e))
        })
}

/// Runs `--passes` on the affine module `m` of `input`; a pass's error points at the C
/// line of the operation it names.
fn run_passes(
    session: &Session,
    m: &mut Module<'_>,
    passes: &str,
    input: &str,
) -> Result<(), Failure> {
    let expanded = crate::registry::expand_pipeline(passes).map_err(|e| {
        Failure(vec![format!(
            "{input}:1:1: error: --passes='{passes}': {e}"
        )])
    })?;
    session
        .run_pipeline(m, &format!("builtin.module({expanded})"))
        .map_err(|ds| {
            Failure(
                ds.into_iter()
                    .filter(|d| d.severity == mlir::Severity::Error)
                    .map(|d| {
                        format!(
                            "{input}:{}:{}: error: {}",
                            d.line.max(1),
                            d.col.max(1),
                            d.message
                        )
                    })
                    .collect(),
            )
        })?;
    // The passes' remarks (a scop left on the host, a band tiled in part) for -v.
    for d in session.take_diags() {
        tracing::info!(
            "{input}:{}:{}: {}: {}",
            d.line.max(1),
            d.col.max(1),
            d.severity.as_str(),
            d.message
        );
    }
    Ok(())
}

/// The lowering pipeline for `arch` (NVVM or ROCDL, emitting PTX or AMDGCN text) and
/// its name.
fn lowering_pipeline(arch: &str, opt: u8, debug: bool) -> Result<(&'static str, String), Failure> {
    let lowering = if arch.starts_with("sm_") {
        "tessel-gpu-to-nvvm"
    } else {
        "tessel-gpu-to-rocdl"
    };
    let info = registry::find(lowering).expect("both lowering pipelines are registered");
    let pipeline = registry::expand(
        info,
        &format!("chip={arch} opt-level={opt} format=isa debug={debug}"),
    )
    .map_err(|e| Failure(vec![format!("error: {e}")]))?;
    Ok((lowering, pipeline))
}

/// `--emit=obj`: prepares the device code, embeds each `gpu.module`'s container
/// ([`containers`]) in place of its `gpu.binary` object, and compiles the host module
/// in process ([`crate::host`]).
fn object<'a>(
    session: &'a Session,
    m: &mut melior::ir::Module<'a>,
    text: &str,
    archs: &[String],
    opt: u8,
    debug: bool,
    located: Option<&dyn Fn(Vec<MlirDiag>) -> Failure>,
) -> Result<Vec<u8>, Failure> {
    // A module the user wrote (tessel-run's input) may be wrong in ways the verifier
    // does not see (a tgpu operation on the host): its errors are the user's.
    session
        .run_pipeline(m, registry::DEVICE_PREP)
        .map_err(|d| match located {
            Some(f) => f(d),
            None => internal("device preparation", text, d),
        })?;
    for (module, fb) in containers(session, m, text, archs, opt, debug)? {
        mlir::set_gpu_binary(m, &module, &fb.encode())
            .map_err(|e| Failure(vec![format!("error: internal: {e}")]))?;
    }
    subcommand::in_process(&format!(
        "host object: LLVM -O{} (TargetMachine)",
        opt.min(3)
    ));
    crate::host::emit(m, opt, crate::host::Form::Object)
        .map_err(|e| Failure(vec![format!("error: {e}")]))
}

/// The module container of each `gpu.module` of `m` (a module after the device
/// preparation, [`registry::DEVICE_PREP`]), by name: the kernels' gpu-dialect form
/// compiled for sim, and a copy of the module lowered for every architecture (PTX and
/// a cubin per NVIDIA one, an HSACO per AMD one). The sim kernels' register counts
/// come from the first NVIDIA architecture's ptxas. `m` itself is lowered for the
/// first architecture.
pub fn containers<'a>(
    session: &'a Session,
    m: &mut melior::ir::Module<'a>,
    text: &str,
    archs: &[String],
    opt: u8,
    debug: bool,
) -> Result<Vec<(String, tessel_runtime::bytecode::FatBinary)>, Failure> {
    // SAFETY: the module is alive for the call.
    let sims = unsafe { crate::simform::compile_module(m.as_operation().to_raw()) }
        .map_err(|e| Failure(vec![format!("error: {e}")]))?;
    let prepared = (archs.len() > 1).then(|| mlir::print_module(m));
    let mut code: Vec<(String, Code)> = Vec::new();
    let mut registers: Option<std::collections::HashMap<String, u32>> = None;
    for (i, arch) in archs.iter().enumerate() {
        let (lowering, pipeline) = lowering_pipeline(arch, opt, debug)?;
        subcommand::in_process(&format!("lowering for {arch}: {pipeline}"));
        let rest = pipeline
            .strip_prefix(registry::DEVICE_PREP)
            .map(|r| r.trim_start_matches([',', ' ']))
            .ok_or_else(|| {
                Failure(vec![format!(
                    "error: internal: {lowering} does not start with the device preparation"
                )])
            })?;
        let mut copy;
        let target: &mut melior::ir::Module<'_> = match (i, &prepared) {
            (0, _) | (_, None) => &mut *m,
            (_, Some(p)) => {
                copy = session
                    .parse(p, "prepared")
                    .map_err(|d| internal(lowering, p, d))?;
                &mut copy
            }
        };
        session
            .run_pipeline(target, rest)
            .map_err(|d| internal(lowering, text, d))?;
        for (module, object) in mlir::gpu_objects(target) {
            let mut push = |kind, bytes| {
                code.push((
                    module.clone(),
                    Code {
                        kind,
                        arch: arch.clone(),
                        bytes,
                    },
                ))
            };
            if arch.starts_with("sm_") {
                if ptxas_path().is_some() {
                    let (cubin, regs) = ptxas_verbose(&object, arch, opt, debug)?;
                    registers.get_or_insert(regs);
                    push(CodeKind::Cubin, cubin);
                }
                push(CodeKind::Ptx, object);
            } else {
                let h = hsaco(&object, arch)?;
                push(CodeKind::Hsaco, h);
            }
        }
    }
    let mut out = Vec::new();
    for (module, mut kernels) in sims {
        if let Some(regs) = &registers {
            for k in &mut kernels {
                k.registers = regs.get(&k.name).copied().unwrap_or(0);
            }
        }
        let fb = tessel_runtime::bytecode::FatBinary {
            sim: kernels,
            code: code
                .iter()
                .filter(|(n, _)| *n == module)
                .map(|(_, c)| c.clone())
                .collect(),
        };
        out.push((module, fb));
    }
    Ok(out)
}

/// `tessel-run`'s compilation: a gpu-dialect module (host functions and `gpu.module`s or
/// `gpu.launch` regions) to a host object with the kernels embedded, as `--emit=obj`.
pub fn object_from_mlir(text: &str, archs: &[String], opt: u8) -> Result<Vec<u8>, Failure> {
    let archs = resolve_archs(archs, Emit::Object, None)?;
    let session = Session::new();
    let located = |d: Vec<MlirDiag>| {
        Failure(
            d.into_iter()
                .map(|d| {
                    format!(
                        "{}:{}: {}: {}",
                        d.line,
                        d.col,
                        d.severity.as_str(),
                        d.message
                    )
                })
                .collect(),
        )
    };
    let mut m = session.parse(text, "input").map_err(located)?;
    session.verify(&m).map_err(located)?;
    object(&session, &mut m, text, &archs, opt, false, Some(&located))
}

/// Runs ptxas with `-v`: the cubin and the registers each kernel uses.
pub(crate) fn ptxas_verbose(
    ptx: &[u8],
    arch: &str,
    opt: u8,
    debug: bool,
) -> Result<(Vec<u8>, std::collections::HashMap<String, u32>), Failure> {
    let Some(ptxas) = ptxas_path() else {
        return fail("ptxas not found");
    };
    let dir = tempfile::tempdir().map_err(|e| Failure(vec![format!("error: {e}")]))?;
    let src = dir.path().join("k.ptx");
    let dst = dir.path().join("k.cubin");
    std::fs::write(&src, ptx).map_err(|e| Failure(vec![format!("error: {e}")]))?;
    let mut cmd = Command::new(ptxas);
    cmd.arg(format!("-arch={arch}"))
        .arg(format!("-O{}", opt.min(3)))
        .arg("-v")
        .args(debug.then_some("-lineinfo"))
        .arg(&src)
        .arg("-o")
        .arg(&dst);
    let out =
        subcommand::output(&mut cmd, "ptxas").map_err(|e| Failure(vec![format!("error: {e}")]))?;
    let log = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return fail(format!("ptxas failed:\n{log}"));
    }
    let mut regs = std::collections::HashMap::new();
    let mut cur = String::new();
    for line in log.lines() {
        if let Some(r) = line.split("function '").nth(1) {
            cur = r.split('\'').next().unwrap_or_default().to_string();
        } else if let Some(r) = line.split("Used ").nth(1) {
            if let Some(n) = r
                .split(" registers")
                .next()
                .and_then(|n| n.trim().parse().ok())
            {
                regs.insert(cur.clone(), n);
            }
        }
    }
    let cubin = subcommand::read(&dst).map_err(|e| Failure(vec![format!("error: {e}")]))?;
    Ok((cubin, regs))
}

/// Where ptxas is, if the wheel is installed.
pub fn ptxas_path() -> Option<std::path::PathBuf> {
    registry::ptxas()
}

fn run_tool(cmd: &mut Command, what: &str) -> Result<(), Failure> {
    let out = subcommand::output(cmd, what).map_err(|e| Failure(vec![format!("error: {e}")]))?;
    if !out.status.success() {
        return Err(Failure(vec![format!(
            "error: {what} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )]));
    }
    Ok(())
}

fn ptxas(ptx: &[u8], arch: &str, opt: u8, debug: bool) -> Result<Vec<u8>, Failure> {
    let Some(ptxas) = ptxas_path() else {
        return fail("ptxas not found: run tools/setup.sh (installs the PyPI wheel nvidia-cuda-nvcc-cu12) or set TESSEL_PTXAS");
    };
    let dir = tempfile::tempdir().map_err(|e| Failure(vec![format!("error: {e}")]))?;
    let src = dir.path().join("k.ptx");
    let dst = dir.path().join("k.cubin");
    std::fs::write(&src, ptx).map_err(|e| Failure(vec![format!("error: {e}")]))?;
    run_tool(
        Command::new(ptxas)
            .arg(format!("-arch={arch}"))
            .arg(format!("-O{}", opt.min(3)))
            .args(debug.then_some("-lineinfo"))
            .arg(&src)
            .arg("-o")
            .arg(&dst),
        "ptxas",
    )?;
    subcommand::read(&dst).map_err(|e| Failure(vec![format!("error: {e}")]))
}

/// A tool of Debian's LLVM 22 (`/usr/lib/llvm-22/bin`), else the one on PATH.
pub fn llvm_tool(name: &str) -> std::path::PathBuf {
    let p = Path::new("/usr/lib/llvm-22/bin").join(name);
    if p.exists() {
        p
    } else {
        name.into()
    }
}

/// Assembles AMDGCN with llvm-mc and links the code object with ld.lld.
fn hsaco(asm: &[u8], arch: &str) -> Result<Vec<u8>, Failure> {
    let dir = tempfile::tempdir().map_err(|e| Failure(vec![format!("error: {e}")]))?;
    let (s, o, h) = (
        dir.path().join("k.s"),
        dir.path().join("k.o"),
        dir.path().join("k.hsaco"),
    );
    std::fs::write(&s, asm).map_err(|e| Failure(vec![format!("error: {e}")]))?;
    run_tool(
        Command::new(llvm_tool("llvm-mc"))
            .args([
                "-triple=amdgcn-amd-amdhsa",
                &format!("-mcpu={arch}"),
                "-filetype=obj",
            ])
            .arg(&s)
            .arg("-o")
            .arg(&o),
        "llvm-mc",
    )?;
    run_tool(
        Command::new(llvm_tool("ld.lld"))
            .args(["-shared"])
            .arg(&o)
            .arg("-o")
            .arg(&h),
        "ld.lld",
    )?;
    subcommand::read(&h).map_err(|e| Failure(vec![format!("error: {e}")]))
}
