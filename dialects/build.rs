//! Builds the dialect library from its ODS definitions with CMake (cmake/CMakeLists.txt),
//! then links it statically; MLIR itself comes from melior's static link.
use std::path::PathBuf;
use std::process::Command;

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("..");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("cmake-build");
    println!(
        "cargo:rerun-if-changed={}",
        root.join("dialects/include").display()
    );
    println!(
        "cargo:rerun-if-changed={}",
        root.join("dialects/lib").display()
    );
    println!("cargo:rerun-if-changed={}", root.join("cmake").display());
    let run = |cmd: &mut Command| {
        let st = cmd
            .status()
            .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e} (run tools/setup.sh first)"));
        assert!(st.success(), "{cmd:?} failed");
    };
    run(Command::new("cmake")
        .arg("-S")
        .arg(root.join("cmake"))
        .arg("-B")
        .arg(&out)
        .args([
            "-G",
            "Ninja",
            "-DCMAKE_BUILD_TYPE=Release",
            "-DCMAKE_C_COMPILER=clang-22",
            "-DCMAKE_CXX_COMPILER=clang++-22",
        ]));
    run(Command::new("cmake").arg("--build").arg(&out));
    // Find the static library wherever the CMake project put it.
    let lib = walk(&out)
        .into_iter()
        .find(|p| p.file_name().is_some_and(|n| n == "libTesselDialects.a"))
        .expect("cmake did not produce libTesselDialects.a");
    println!(
        "cargo:rustc-link-search=native={}",
        lib.parent().unwrap().display()
    );
    println!("cargo:rustc-link-lib=static=TesselDialects");
    println!("cargo:rustc-link-lib=dylib=stdc++");
}

fn walk(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                v.extend(walk(&p));
            } else {
                v.push(p);
            }
        }
    }
    v
}
