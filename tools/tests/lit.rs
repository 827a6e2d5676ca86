//! Runs the lit + FileCheck suite under test/ against the tools this build produced.
use std::path::Path;
use std::process::Command;

#[test]
fn lit_suite() {
    let bin = Path::new(env!("CARGO_BIN_EXE_tesselc"))
        .parent()
        .expect("binaries live in a directory");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let lit = ["/usr/lib/llvm-22/bin/lit", "lit"]
        .into_iter()
        .find(|l| Path::new(l).exists() || *l == "lit")
        .unwrap();
    let filter: Vec<String> = std::env::var("TESSEL_LIT_FILTER")
        .map(|f| vec![format!("--filter={f}")])
        .unwrap_or_default();
    let status = Command::new(lit)
        .args(["-sv", "--order=lexical"])
        .args(&filter)
        .arg(root.join("test"))
        .env("TESSEL_BIN_DIR", bin)
        .env("TESSEL_LIT_OUT", root.join("target/lit"))
        .status()
        .expect("cannot run lit: run tools/setup.sh (installs llvm-22-tools)");
    assert!(status.success(), "lit reported failures (see above)");
}
