//! Tessel's passes and pipelines, declared as data: name, summary, options with defaults
//! and help, and an IR example. tessel-opt's `--help`, `--list-passes` and its pipeline
//! parsing come from this table; the upstream MLIR passes are listed beside it from the
//! table `build.rs` reads off mlir-opt 22.

/// One option of a pass.
#[derive(Clone, Copy, Debug)]
pub struct PassOption {
    pub name: &'static str,
    pub default: &'static str,
    pub help: &'static str,
}

/// How a Tessel pass runs.
#[derive(Clone, Copy, Debug)]
pub enum PassKind {
    /// A named pipeline of upstream passes, expanded from the option values.
    Pipeline(fn(&dyn Fn(&str) -> String) -> String),
}

#[derive(Clone, Copy, Debug)]
pub struct PassInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub options: &'static [PassOption],
    pub example: &'static str,
    pub kind: PassKind,
}

/// Where `ptxas` and `libdevice.10.bc` are: `$TESSEL_CUDA_NVCC_DIR`, else the
/// `nvidia-cuda-nvcc-cu12` wheel found through python3.
pub fn cuda_nvcc_dir() -> Option<std::path::PathBuf> {
    if let Some(d) = std::env::var_os("TESSEL_CUDA_NVCC_DIR") {
        return Some(d.into());
    }
    static DIR: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let out = std::process::Command::new("python3")
            .args([
                "-c",
                "import nvidia.cuda_nvcc as m; print(list(m.__path__)[0])",
            ])
            .output()
            .ok()?;
        let p = String::from_utf8(out.stdout).ok()?.trim().to_string();
        (!p.is_empty() && out.status.success()).then(|| p.into())
    })
    .clone()
}

/// ptxas: `TESSEL_PTXAS`, else the wheel's. The one lookup tesselc's cubins and the
/// NVVM pipeline's `format=bin` share.
pub fn ptxas() -> Option<std::path::PathBuf> {
    if let Some(p) = std::env::var_os("TESSEL_PTXAS") {
        return Some(p.into());
    }
    let p = cuda_nvcc_dir()?.join("bin/ptxas");
    p.exists().then_some(p)
}

/// The toolkit directory MLIR's NVPTX serializer runs `bin/ptxas` from: [`ptxas`]'s
/// grandparent (TESSEL_PTXAS must then name a `bin/ptxas` for the pipeline to use it).
fn cuda_toolkit() -> Option<String> {
    let p = ptxas()?;
    let bin = p.parent()?;
    (bin.file_name()? == "bin" && p.file_name()? == "ptxas")
        .then(|| bin.parent().map(|t| t.display().to_string()))
        .flatten()
}

/// `libdevice.10.bc`, when the wheel is installed.
pub fn libdevice() -> Option<String> {
    let p = cuda_nvcc_dir()?.join("nvvm/libdevice/libdevice.10.bc");
    p.exists().then(|| p.display().to_string())
}

/// A directory holding `amdgcn/bitcode/ocml.bc` (Debian's rocm-device-libs, or a ROCm
/// install): the toolkit path MLIR's ROCDL serializer links the device libraries from.
pub fn rocm_toolkit() -> Option<String> {
    let mut dirs: Vec<String> = std::env::var("ROCM_PATH").into_iter().collect();
    dirs.extend(["/usr/lib/x86_64-linux-gnu", "/usr/lib", "/opt/rocm"].map(String::from));
    dirs.into_iter().find(|d| {
        std::path::Path::new(d)
            .join("amdgcn/bitcode/ocml.bc")
            .exists()
    })
}

/// The part of both lowerings that keeps the gpu dialect: outlined kernels with `cf`
/// control flow, the form [`crate::simform`] compiles for the sim device.
pub const DEVICE_PREP: &str =
    "gpu-kernel-outlining, func.func(gpu-async-region), lower-affine, convert-scf-to-cf";

/// With `debug=true` (`-g`): line tables for the kernels and the host code from the
/// operations' source locations.
fn line_tables(opt: &dyn Fn(&str) -> String) -> &'static str {
    if opt("debug") == "true" {
        "ensure-debug-info-scope-on-llvm-func{emission-kind=DebugDirectivesOnly}, "
    } else {
        ""
    }
}

fn nvvm_pipeline(opt: &dyn Fn(&str) -> String) -> String {
    let chip = opt("chip");
    let o = opt("opt-level");
    let format = opt("format");
    let link = match opt("libdevice").as_str() {
        "" => libdevice().map(|l| format!(" l={l}")).unwrap_or_default(),
        "none" => String::new(),
        l => format!(" l={l}"),
    };
    let toolkit = cuda_toolkit()
        .map(|t| format!(" toolkit={t}"))
        .unwrap_or_default();
    let debug = line_tables(opt);
    format!(
        "{DEVICE_PREP}, nvvm-attach-target{{chip={chip} O={o}{link}}}, \
         gpu.module(convert-gpu-to-nvvm, canonicalize, cse, reconcile-unrealized-casts), \
         expand-strided-metadata, gpu-to-llvm, reconcile-unrealized-casts, {debug}\
         gpu-module-to-binary{{format={format}{toolkit}}}"
    )
}

fn rocdl_pipeline(opt: &dyn Fn(&str) -> String) -> String {
    let chip = opt("chip");
    let o = opt("opt-level");
    let format = opt("format");
    let toolkit = rocm_toolkit()
        .map(|t| format!(" toolkit={t}"))
        .unwrap_or_default();
    let debug = line_tables(opt);
    format!(
        "{DEVICE_PREP}, rocdl-attach-target{{chip={chip} O={o}}}, \
         gpu.module(convert-gpu-to-rocdl{{runtime=HIP}}, canonicalize, cse, reconcile-unrealized-casts), \
         expand-strided-metadata, gpu-to-llvm, reconcile-unrealized-casts, {debug}\
         gpu-module-to-binary{{format={format}{toolkit}}}"
    )
}

/// Every Tessel pass and pipeline.
pub const PASSES: &[PassInfo] = &[
    PassInfo {
        name: "tessel-gpu-to-nvvm",
        summary: "Lower a mapped gpu-dialect module to NVVM and serialize its kernels to PTX (host side to LLVM with mgpu* runtime calls)",
        options: &[
            PassOption { name: "chip", default: "sm_90", help: "NVIDIA architecture (sm_XX)" },
            PassOption { name: "opt-level", default: "3", help: "LLVM optimization level for the kernels" },
            PassOption { name: "format", default: "isa", help: "isa (PTX text), bin (cubin, needs ptxas), fatbin, offloading or llvm" },
            PassOption { name: "libdevice", default: "", help: "libdevice.10.bc to link (default: the nvidia-cuda-nvcc-cu12 wheel's; 'none' to link nothing)" },
            PassOption { name: "debug", default: "false", help: "true: line tables (.loc) from the operations' locations, as -g" },
        ],
        example: "gpu.launch ... { ... }  =>  gpu.launch_func @tessel_kernels::@k0 ...; gpu.binary @tessel_kernels [#gpu.object<#nvvm.target<chip = \"sm_90\">, \"...ptx...\">]",
        kind: PassKind::Pipeline(nvvm_pipeline),
    },
    PassInfo {
        name: "tessel-gpu-to-rocdl",
        summary: "Lower a mapped gpu-dialect module to ROCDL and serialize its kernels to AMDGCN (host side to LLVM with mgpu* runtime calls)",
        options: &[
            PassOption { name: "chip", default: "gfx942", help: "AMD architecture (gfxNNN)" },
            PassOption { name: "opt-level", default: "3", help: "LLVM optimization level for the kernels" },
            PassOption { name: "format", default: "isa", help: "isa (AMDGCN assembly), bin (HSACO), offloading or llvm" },
            PassOption { name: "debug", default: "false", help: "true: line tables from the operations' locations, as -g" },
        ],
        example: "gpu.launch ... { ... }  =>  gpu.binary @tessel_kernels [#gpu.object<#rocdl.target<chip = \"gfx942\">, \"...amdgcn...\">]",
        kind: PassKind::Pipeline(rocdl_pipeline),
    },
];

/// Looks a Tessel pass up by name.
pub fn find(name: &str) -> Option<&'static PassInfo> {
    PASSES.iter().find(|p| p.name == name)
}

/// Upstream MLIR passes and pipelines: (name, summary), as mlir-opt 22 lists them.
pub fn upstream() -> &'static [(&'static str, &'static str)] {
    include!(concat!(env!("OUT_DIR"), "/upstream_passes.rs"))
}

/// Expands a Tessel pass with `key=value` options into its upstream pipeline text.
pub fn expand(info: &PassInfo, opts: &str) -> Result<String, String> {
    let mut given: Vec<(String, String)> = Vec::new();
    for kv in opts.split_whitespace() {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("option '{kv}' of '{}' must be key=value", info.name))?;
        if !info.options.iter().any(|o| o.name == k) {
            let valid: Vec<&str> = info.options.iter().map(|o| o.name).collect();
            return Err(format!(
                "'{}' has no option '{k}' (valid: {})",
                info.name,
                valid.join(", ")
            ));
        }
        given.push((k.to_string(), v.to_string()));
    }
    let get = |k: &str| -> String {
        given
            .iter()
            .rev()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .or_else(|| {
                info.options
                    .iter()
                    .find(|o| o.name == k)
                    .map(|o| o.default.to_string())
            })
            .unwrap_or_default()
    };
    match info.kind {
        PassKind::Pipeline(f) => Ok(f(&get)),
    }
}

/// Replaces every Tessel pass in a textual pipeline by its expansion.
pub fn expand_pipeline(text: &str) -> Result<String, String> {
    let mut out = String::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        if c.is_ascii_alphabetic() {
            let s = i;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || b[i] == b'-' || b[i] == b'_' || b[i] == b'.')
            {
                i += 1;
            }
            let word = &text[s..i];
            let mut opts = "";
            let mut j = i;
            if j < b.len() && b[j] == b'{' {
                let close = text[j..]
                    .find('}')
                    .map(|p| j + p)
                    .ok_or("unbalanced '{' in pipeline")?;
                opts = &text[j + 1..close];
                j = close + 1;
            }
            match find(word) {
                Some(info) => {
                    out += &expand(info, opts)?;
                    i = j;
                }
                None => out += word,
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_named_pipelines_with_options() {
        let p = expand_pipeline(
            "builtin.module(canonicalize, tessel-gpu-to-nvvm{chip=sm_80 libdevice=none})",
        )
        .unwrap();
        assert!(p.starts_with("builtin.module(canonicalize, gpu-kernel-outlining"));
        assert!(p.contains("nvvm-attach-target{chip=sm_80 O=3}"));
        let e = expand_pipeline("tessel-gpu-to-nvvm{cpu=x}").unwrap_err();
        assert!(e.contains("has no option 'cpu'"));
    }

    #[test]
    fn upstream_list_is_complete() {
        let names: Vec<&str> = upstream().iter().map(|p| p.0).collect();
        for n in [
            "canonicalize",
            "cse",
            "affine-loop-tile",
            "gpu-kernel-outlining",
            "convert-gpu-to-nvvm",
        ] {
            assert!(names.contains(&n), "{n} missing");
        }
    }
}
