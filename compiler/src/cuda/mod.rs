//! CUDA programs: `tesselc prog.cu -o prog` (and `-c prog.cu`) builds a CUDA program
//! with clang's CUDA support and Tessel's runtime, so the same binary runs on sim (the
//! kernels compiled to sim's form), on an NVIDIA GPU (their PTX and cubin) or on any
//! device the runtime drives.
//!
//! Steps, each shown by `-v` and `-###`:
//! 1. a CUDA toolkit directory for clang (`--cuda-path`), assembled in the build's
//!    temporary directory from the PyPI wheels: headers of nvidia-cuda-runtime-cu12,
//!    nvidia-cuda-nvcc-cu12 and nvidia-cuda-cccl-cu12, libdevice, a `version.json` (no
//!    CUDA SDK needed);
//! 2. the device side, `clang --cuda-device-only -O3` (nvcc optimizes device code at
//!    every host `-O`): LLVM IR, imported into MLIR's llvm dialect
//!    (`mlir-translate --import-llvm`) and compiled to sim's form ([`device`]); and PTX
//!    per `--offload-arch` (default `sm_90`), with ptxas's cubin and register counts
//!    when the wheel's ptxas is there;
//! 3. the host side, `clang --cuda-host-only` at the program's `-O`: `<<<>>>` becomes
//!    `__cudaPushCallConfiguration` and a call of the kernel's stub, which calls
//!    `cudaLaunchKernel` (runtime/src/cudart.rs);
//! 4. a registration object: the module image and a constructor pairing each kernel's
//!    host stub with its name (what `__cudaRegisterFatBinary` does for nvcc);
//! 5. the program: those objects, the C++ part of the runtime layer
//!    (`runtime/cuda/tessel_cudart.cpp`, built against the same headers) and
//!    `libtessel_runtime.a`, linked by clang++.

pub mod device;

use crate::pipeline::Failure;
use crate::program::run;
use crate::subcommand;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The C++ part of the CUDA runtime layer.
const CUDART_CPP: &str = include_str!("../../../runtime/cuda/tessel_cudart.cpp");

/// `cuda_profiler_api.h`, for programs that bracket their kernels with the profiler.
const PROFILER_H: &str = "#pragma once\n#include <cuda_runtime_api.h>\n\
extern \"C\" cudaError_t cudaProfilerStart(void);\n\
extern \"C\" cudaError_t cudaProfilerStop(void);\n";

fn err(msg: impl Into<String>) -> Failure {
    Failure(vec![format!("error: {}", msg.into())])
}

/// Whether `input` is CUDA source.
pub fn is_cuda(input: &str) -> bool {
    input.ends_with(".cu")
}

/// Assembles a CUDA toolkit directory for clang under `dir` (see the module comment).
pub fn toolkit(dir: &Path) -> Result<PathBuf, Failure> {
    let runtime = crate::registry::cuda_runtime_dir().ok_or_else(|| {
        err("CUDA input needs the CUDA runtime headers: run tools/setup.sh (installs the PyPI wheel nvidia-cuda-runtime-cu12) or set TESSEL_CUDA_RUNTIME_DIR")
    })?;
    let nvcc = crate::registry::cuda_nvcc_dir().ok_or_else(|| {
        err("CUDA input needs libdevice: run tools/setup.sh (installs the PyPI wheel nvidia-cuda-nvcc-cu12) or set TESSEL_CUDA_NVCC_DIR")
    })?;
    let root = dir.join("cuda");
    let inc = root.join("include");
    let io = |e: std::io::Error| err(format!("cannot assemble the CUDA toolkit directory: {e}"));
    std::fs::create_dir_all(&inc).map_err(io)?;
    std::fs::create_dir_all(root.join("nvvm/libdevice")).map_err(io)?;
    std::fs::create_dir_all(root.join("bin")).map_err(io)?;
    std::fs::create_dir_all(root.join("lib64")).map_err(io)?;
    // CCCL (libcu++'s `nv/target`, CUB, Thrust) where its wheel is installed.
    let cccl = crate::registry::cuda_cccl_dir().map(|d| d.join("include"));
    for src in [runtime.join("include"), nvcc.join("include")]
        .into_iter()
        .chain(cccl)
    {
        for e in std::fs::read_dir(&src).map_err(io)?.flatten() {
            let to = inc.join(e.file_name());
            if !to.exists() {
                std::os::unix::fs::symlink(e.path(), to).map_err(io)?;
            }
        }
    }
    // clang's CUDA wrapper includes this cuRAND header; no program here uses it.
    let curand = inc.join("curand_mtgp32_kernel.h");
    if !curand.exists() {
        std::fs::write(curand, "").map_err(io)?;
    }
    // The profiler control API (its own wheel): the runtime layer's no-ops.
    let profiler = inc.join("cuda_profiler_api.h");
    if !profiler.exists() {
        std::fs::write(profiler, PROFILER_H).map_err(io)?;
    }
    let libdevice = nvcc.join("nvvm/libdevice/libdevice.10.bc");
    std::os::unix::fs::symlink(&libdevice, root.join("nvvm/libdevice/libdevice.10.bc"))
        .map_err(io)?;
    std::fs::write(
        root.join("version.json"),
        r#"{"cuda": {"name": "CUDA SDK", "version": "12.8.0"}}"#,
    )
    .map_err(io)?;
    Ok(root)
}

/// clang's options for one side of a CUDA compile.
fn clang_cuda(cuda: &Path, arch: &str, cflags: &[String]) -> Command {
    let mut c = Command::new(crate::pipeline::llvm_tool("clang++"));
    c.args(["-x", "cuda"])
        .arg(format!("--cuda-path={}", cuda.display()))
        .arg(format!("--cuda-gpu-arch={arch}"))
        .args(["-Wno-unknown-cuda-version", "-Wno-deprecated-declarations"])
        .args(cflags);
    c
}

/// clang's options for the device side: optimized as nvcc does at every host `-O`, and
/// with libdevice's correctly rounded `sqrtf` (nvcc's default without -use_fast_math).
fn clang_device(cuda: &Path, arch: &str, cflags: &[String]) -> Command {
    let mut c = clang_cuda(cuda, arch, cflags);
    c.args(["--cuda-device-only", "-O3"])
        .args(["-mllvm", "-nvvm-reflect-add=__CUDA_PREC_SQRT=1"]);
    c
}

/// The NVIDIA architectures to build PTX for: those of `--offload-arch`, else sm_90.
fn archs(offload_arch: &[String]) -> Result<Vec<String>, Failure> {
    let mut v = Vec::new();
    for a in offload_arch {
        if !a.starts_with("sm_") {
            return Err(err(format!(
                "--offload-arch={a}: CUDA input builds for NVIDIA architectures (sm_*) only"
            )));
        }
        if !v.contains(a) {
            v.push(a.clone());
        }
    }
    if v.is_empty() {
        v.push("sm_90".into());
    }
    Ok(v)
}

/// A kernel as the host registers it: its name, parameter count and the module
/// variables bound to its hidden parameters.
struct KernelInfo {
    name: String,
    nparams: usize,
    vars: Vec<String>,
}

/// The module image of `input`'s kernels (sim's form, and PTX and cubin per
/// architecture), its kernels and its module variables.
fn device_image(
    input: &str,
    cuda: &Path,
    cflags: &[String],
    archs: &[String],
    dir: &Path,
) -> Result<(Vec<u8>, Vec<KernelInfo>, Vec<device::ModuleVar>), Failure> {
    use tessel_runtime::bytecode::{Code, CodeKind, FatBinary};
    let ll = dir.join("device.ll");
    run(
        clang_device(cuda, &archs[0], cflags)
            .args(["-emit-llvm", "-S"])
            .arg(input)
            .arg("-o")
            .arg(&ll),
        &format!("clang (device side of {input})"),
    )?;
    // The importer's warnings (data layout tokens, module flags it does not model) are
    // about the import, not the program: not shown.
    let out = subcommand::output(
        Command::new(crate::pipeline::llvm_tool("mlir-translate"))
            .arg("--import-llvm")
            .arg(&ll),
        "mlir-translate --import-llvm",
    )
    .map_err(err)?;
    if !out.status.success() {
        return Err(err(format!(
            "internal: mlir-translate cannot import the device code of {input}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let mlir = out.stdout;
    let dm = if subcommand::show_only() {
        device::DeviceModule {
            kernels: Vec::new(),
            kernel_vars: Vec::new(),
            vars: Vec::new(),
        }
    } else {
        subcommand::in_process("device kernels to sim's form");
        let session = crate::mlir::Session::new();
        let text = String::from_utf8_lossy(&mlir);
        let m = session.parse(&text, input).map_err(|d| {
            err(format!(
                "internal: cannot read the imported device module: {}",
                d.first().map_or(String::new(), |d| d.message.clone())
            ))
        })?;
        // SAFETY: the module is alive for the call.
        unsafe { device::compile_module(m.as_operation().to_raw()) }
            .map_err(|e| err(format!("{input}: {e}")))?
    };
    let mut sim = dm.kernels;
    let mut code = Vec::new();
    for (i, arch) in archs.iter().enumerate() {
        let ptx = dir.join(format!("device.{arch}.ptx"));
        run(
            clang_device(cuda, arch, cflags)
                .arg("-S")
                .arg(input)
                .arg("-o")
                .arg(&ptx),
            &format!("clang (PTX for {arch})"),
        )?;
        if subcommand::show_only() {
            continue;
        }
        let text = std::fs::read(&ptx).map_err(|e| err(e.to_string()))?;
        if crate::pipeline::ptxas_path().is_some()
            && crate::pipeline::check_arch(arch, true).is_ok()
        {
            let (cubin, regs) = crate::pipeline::ptxas_verbose(&text, arch, 3, false)?;
            if i == 0 {
                for k in &mut sim {
                    k.registers = regs.get(&k.name).copied().unwrap_or(0);
                }
            }
            code.push(Code {
                kind: CodeKind::Cubin,
                arch: arch.clone(),
                bytes: cubin,
            });
        }
        code.push(Code {
            kind: CodeKind::Ptx,
            arch: arch.clone(),
            bytes: text,
        });
    }
    let kernels = sim
        .iter()
        .zip(dm.kernel_vars)
        .map(|(k, vars)| KernelInfo {
            name: k.name.clone(),
            nparams: k.args.len() - vars.len(),
            vars,
        })
        .collect();
    Ok((FatBinary { sim, code }.encode(), kernels, dm.vars))
}

/// The kernel a host stub launches: `_Z18__device_stub__addPfi` -> `_Z3addPfi`,
/// `__device_stub__add` -> `add` (the identifier's length prefix, if mangled, shrinks by
/// the prefix's 15 characters).
fn kernel_of_stub(stub: &str) -> Option<String> {
    const P: &str = "__device_stub__";
    let at = stub.find(P)?;
    let head = &stub[..at];
    let tail = &stub[at + P.len()..];
    let digits = head.len() - head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return Some(format!("{head}{tail}"));
    }
    let n: usize = head[head.len() - digits..].parse().ok()?;
    Some(format!(
        "{}{}{tail}",
        &head[..head.len() - digits],
        n.checked_sub(P.len())?
    ))
}

/// What the registration object registers: each kernel by its host stub, and each
/// module variable with its host shadow (when the host object defines one) and its
/// initial value.
struct Registration<'a> {
    image: &'a [u8],
    /// (stub, kernel)
    kernels: Vec<(String, &'a KernelInfo)>,
    /// (variable, host shadow defined)
    vars: Vec<(&'a device::ModuleVar, bool)>,
}

/// LLVM IR text of the registration module: the image, and a constructor registering
/// it, each kernel's stub and each module variable.
fn registration_ir(r: &Registration<'_>) -> String {
    use std::fmt::Write;
    let bytes = |b: &[u8]| {
        let mut s = String::with_capacity(b.len() * 3);
        for x in b {
            let _ = write!(s, "\\{x:02X}");
        }
        s
    };
    let mut ir = String::new();
    let cstr = |ir: &mut String, name: &str, text: &str| {
        let mut z = text.as_bytes().to_vec();
        z.push(0);
        let _ = writeln!(
            ir,
            "@{name} = private constant [{} x i8] c\"{}\"",
            z.len(),
            bytes(&z)
        );
    };
    let _ = writeln!(
        ir,
        "@__tessel_cuda_image = private constant [{} x i8] c\"{}\", align 16",
        r.image.len(),
        bytes(r.image)
    );
    for (i, (_, k)) in r.kernels.iter().enumerate() {
        cstr(&mut ir, &format!("__tessel_cuda_name{i}"), &k.name);
        cstr(
            &mut ir,
            &format!("__tessel_cuda_vars{i}"),
            &k.vars.join(","),
        );
    }
    for (stub, _) in &r.kernels {
        let _ = writeln!(ir, "declare void @\"{stub}\"()");
    }
    for (i, (v, shadow)) in r.vars.iter().enumerate() {
        cstr(&mut ir, &format!("__tessel_cuda_var{i}"), &v.name);
        if let device::Init::Bytes(b) = &v.init {
            let _ = writeln!(
                ir,
                "@__tessel_cuda_init{i} = private constant [{} x i8] c\"{}\", align 16",
                b.len(),
                bytes(b)
            );
        }
        if *shadow {
            let _ = writeln!(ir, "@\"{}\" = external global i8", v.name);
        }
    }
    ir += "declare i64 @__tessel_cuda_register_image(ptr, i64)\n";
    ir += "declare void @__tessel_cuda_register_function(i64, ptr, ptr, i32, ptr)\n";
    ir += "declare void @__tessel_cuda_register_var(i64, ptr, ptr, i64, ptr)\n";
    ir += "define internal void @__tessel_cuda_ctor() {\n";
    let _ = writeln!(
        ir,
        "  %h = call i64 @__tessel_cuda_register_image(ptr @__tessel_cuda_image, i64 {})",
        r.image.len()
    );
    for (i, (stub, k)) in r.kernels.iter().enumerate() {
        let _ = writeln!(
            ir,
            "  call void @__tessel_cuda_register_function(i64 %h, ptr @\"{stub}\", ptr @__tessel_cuda_name{i}, i32 {}, ptr @__tessel_cuda_vars{i})",
            k.nparams
        );
    }
    for (i, (v, shadow)) in r.vars.iter().enumerate() {
        let host = if *shadow {
            format!("@\"{}\"", v.name)
        } else {
            "null".into()
        };
        // The initial value: the device's initializer, else the host shadow's (clang
        // gives it the same initializer), else zero.
        let init = match &v.init {
            device::Init::Bytes(_) => format!("@__tessel_cuda_init{i}"),
            device::Init::Unknown if *shadow => host.clone(),
            _ => "null".into(),
        };
        let _ = writeln!(
            ir,
            "  call void @__tessel_cuda_register_var(i64 %h, ptr {host}, ptr @__tessel_cuda_var{i}, i64 {}, ptr {init})",
            v.bytes
        );
    }
    ir += "  ret void\n}\n";
    ir += "@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @__tessel_cuda_ctor, ptr null }]\n";
    ir
}

/// Options of a CUDA compile.
pub struct CudaOptions<'a> {
    pub cflags: &'a [String],
    pub opt_level: u8,
    pub offload_arch: &'a [String],
}

/// Compiles `input` (a `.cu` file) to one relocatable object `out`: its host code and
/// the registration of its kernels.
pub fn compile_object(
    input: &str,
    o: &CudaOptions<'_>,
    cuda: &Path,
    dir: &Path,
    out: &Path,
) -> Result<(), Failure> {
    if !Path::new(input).is_file() {
        return Err(err(format!("no such file: '{input}'")));
    }
    let archs = archs(o.offload_arch)?;
    let work = tempfile::tempdir_in(dir).map_err(|e| err(e.to_string()))?;
    let w = work.path();
    let (image, kernels, vars) = device_image(input, cuda, o.cflags, &archs, w)?;
    let host = w.join("host.o");
    run(
        clang_cuda(cuda, &archs[0], o.cflags)
            .args(["--cuda-host-only", "-c", "-fPIC"])
            .arg(format!("-O{}", o.opt_level.min(3)))
            .arg(input)
            .arg("-o")
            .arg(&host),
        &format!("clang (host side of {input})"),
    )?;
    if subcommand::show_only() {
        return Ok(());
    }
    // The stubs the host object defines, paired with their kernels.
    let nm = run(
        Command::new(crate::pipeline::llvm_tool("llvm-nm"))
            .args(["--defined-only", "--format=just-symbols"])
            .arg(&host),
        "llvm-nm",
    )?;
    let defined: Vec<String> = String::from_utf8_lossy(&nm)
        .lines()
        .map(String::from)
        .collect();
    let mut reg = Registration {
        image: &image,
        kernels: Vec::new(),
        vars: Vec::new(),
    };
    let mut local = Vec::new();
    for stub in &defined {
        let Some(k) = kernel_of_stub(stub) else {
            continue;
        };
        if let Some(info) = kernels.iter().find(|i| i.name == k) {
            reg.kernels.push((stub.clone(), info));
            local.push(format!("--globalize-symbol={stub}"));
        }
    }
    for v in &vars {
        let shadow = defined.contains(&v.name);
        if v.init == device::Init::Unknown && !shadow {
            return Err(err(format!(
                "{input}: the initial value of the device variable '{}' is not a constant sim can read",
                v.name
            )));
        }
        if shadow {
            local.push(format!("--globalize-symbol={}", v.name));
        }
        reg.vars.push((v, shadow));
    }
    // A `static __global__` kernel's stub, or a `static __constant__` variable's host
    // shadow, is local to the host object: make it visible to the registration object.
    run(
        Command::new(crate::pipeline::llvm_tool("llvm-objcopy"))
            .args(&local)
            .arg(&host),
        "llvm-objcopy",
    )?;
    let reg_ll = w.join("register.ll");
    std::fs::write(&reg_ll, registration_ir(&reg)).map_err(|e| err(e.to_string()))?;
    let reg_o = w.join("register.o");
    run(
        Command::new(crate::pipeline::llvm_tool("clang"))
            .args(["-c", "-fPIC", "-O1", "-Wno-override-module"])
            .arg(&reg_ll)
            .arg("-o")
            .arg(&reg_o),
        "clang (kernel registration)",
    )?;
    run(
        Command::new(crate::pipeline::llvm_tool("ld.lld"))
            .arg("-r")
            .arg(&host)
            .arg(&reg_o)
            .arg("-o")
            .arg(out),
        "ld.lld -r",
    )?;
    Ok(())
}

/// `tesselc -c prog.cu -o prog.o`: the object of [`compile_object`], written to `out`
/// only when the compile succeeds.
pub fn compile_to(input: &str, o: &CudaOptions<'_>) -> Result<Vec<u8>, Failure> {
    let dir = tempfile::tempdir().map_err(|e| err(e.to_string()))?;
    let kit = toolkit(dir.path())?;
    let out = dir.path().join("out.o");
    compile_object(input, o, &kit, dir.path(), &out)?;
    if subcommand::show_only() {
        return Ok(Vec::new());
    }
    std::fs::read(&out).map_err(|e| err(e.to_string()))
}

/// Compiles the C++ part of the runtime layer against the toolkit's headers.
pub fn runtime_object(cuda: &Path, dir: &Path) -> Result<PathBuf, Failure> {
    let src = dir.join("tessel_cudart.cpp");
    let obj = dir.join("tessel_cudart.o");
    std::fs::write(&src, CUDART_CPP).map_err(|e| err(e.to_string()))?;
    run(
        Command::new(crate::pipeline::llvm_tool("clang++"))
            .args(["-c", "-O2", "-fPIC", "-x", "c++"])
            .arg("-I")
            .arg(cuda.join("include"))
            .arg(&src)
            .arg("-o")
            .arg(&obj),
        "clang++ (CUDA runtime layer)",
    )?;
    Ok(obj)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stubs_name_their_kernels() {
        assert_eq!(
            kernel_of_stub("_Z18__device_stub__addPfPKfi").as_deref(),
            Some("_Z3addPfPKfi")
        );
        assert_eq!(kernel_of_stub("__device_stub__add").as_deref(), Some("add"));
        assert_eq!(
            kernel_of_stub("_ZN2ns24__device_stub__kernel1EPf").as_deref(),
            Some("_ZN2ns9kernel1EPf")
        );
        assert_eq!(kernel_of_stub("main"), None);
    }

    #[test]
    fn registration_names_stubs_and_kernels() {
        let k = KernelInfo {
            name: "k".into(),
            nparams: 2,
            vars: vec!["table".into()],
        };
        let v = device::ModuleVar {
            name: "table".into(),
            bytes: 2,
            init: device::Init::Bytes(vec![7, 8]),
        };
        let ir = registration_ir(&Registration {
            image: b"AB",
            kernels: vec![("__device_stub__k".into(), &k)],
            vars: vec![(&v, true)],
        });
        assert!(ir.contains("c\"\\41\\42\""), "{ir}");
        assert!(ir.contains(
            "ptr @\"__device_stub__k\", ptr @__tessel_cuda_name0, i32 2, ptr @__tessel_cuda_vars0"
        ));
        assert!(ir.contains("@__tessel_cuda_init0 = private constant [2 x i8] c\"\\07\\08\""));
        assert!(ir.contains(
            "register_var(i64 %h, ptr @\"table\", ptr @__tessel_cuda_var0, i64 2, ptr @__tessel_cuda_init0)"
        ));
    }
}
