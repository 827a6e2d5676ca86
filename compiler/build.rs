//! Reads the list of upstream MLIR passes and pipelines off `mlir-opt --help` (the same
//! LLVM 22 build melior links) into `$OUT_DIR/upstream_passes.rs`, so tessel-opt can list
//! them and name them in diagnostics.
use std::process::Command;

fn main() {
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
