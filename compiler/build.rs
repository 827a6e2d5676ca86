//! Reads the list of upstream MLIR passes and pipelines off `mlir-opt --help` (the same
//! LLVM 22 build melior links) into `$OUT_DIR/upstream_passes.rs`, so tessel-opt can list
//! them and name them in diagnostics; and records where python3 finds the CUDA wheels
//! (`TESSEL_BUILT_WHEEL_*`), so the compiler need not start python3 on each run.
use std::process::Command;

/// `cargo:rustc-env=TESSEL_BUILT_WHEEL_{KEY}` for each wheel module python3 finds: the
/// directory of its package, or empty (the compiler then asks python3 at run time).
fn wheel_dirs() {
    for (key, module) in [
        ("NVCC", "nvidia.cuda_nvcc"),
        ("CCCL", "nvidia.cuda_cccl"),
        ("RUNTIME", "nvidia.cuda_runtime"),
    ] {
        let dir = Command::new("python3")
            .args([
                "-c",
                &format!("import {module} as m; print(list(m.__path__)[0])"),
            ])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default();
        println!("cargo:rustc-env=TESSEL_BUILT_WHEEL_{key}={dir}");
    }
}

fn main() {
    wheel_dirs();
    let mlir_opt = std::env::var("MLIR_SYS_220_PREFIX")
        .map(|p| format!("{p}/bin/mlir-opt"))
        .unwrap_or_else(|_| "/usr/lib/llvm-22/bin/mlir-opt".into());
    println!("cargo:rerun-if-changed={mlir_opt}");
    let help = Command::new(&mlir_opt)
        .arg("--help")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let mut entries = Vec::new();
    let mut in_passes = false;
    for line in help.lines() {
        let t = line.trim_start();
        if t == "Passes:" || t == "Pass Pipelines:" {
            in_passes = true;
            continue;
        }
        if in_passes && !line.starts_with("    ") {
            in_passes = false;
        }
        if !in_passes || !line.starts_with("      --") || line.starts_with("       ") {
            continue;
        }
        let rest = &line[8..];
        let name: String = rest
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != '=')
            .collect();
        let summary = rest.split_once(" -   ").map(|x| x.1.trim()).unwrap_or("");
        entries.push(format!("({:?}, {:?})", name, summary));
    }
    if entries.is_empty() {
        println!("cargo:warning=could not read the pass list from {mlir_opt}; run tools/setup.sh");
    }
    let out =
        std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("upstream_passes.rs");
    std::fs::write(out, format!("&[{}]", entries.join(",\n"))).unwrap();
}
