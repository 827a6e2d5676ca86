//! Tessel's passes and pipelines, declared as data: name, summary, options with defaults
//! and help, and an IR example. tessel-opt's `--help`, `--list-passes` and its pipeline
//! parsing come from this table; the upstream MLIR passes are listed beside it from the
//! table `build.rs` reads off mlir-opt 22.
//!
//! A pass written in Rust ([`PassKind::Rust`]) is registered with MLIR's own pass
//! registry ([`register_rust_passes`], through the C++ shim in `dialects/lib/CAPI`), so
//! it runs in any pass manager: named in a textual pipeline beside upstream passes, under
//! the verifier, in a tracing span named after it.

/// One option of a pass.
#[derive(Clone, Copy, Debug)]
pub struct PassOption {
    pub name: &'static str,
    pub default: &'static str,
    pub help: &'static str,
}

/// A pass written in Rust: runs on the operation the pass manager gives it (the module,
/// or the anchor's ops) with its options; errors are emitted as diagnostics on the IR
/// (an `Err` with a message is emitted at the operation's location).
pub type RustPassFn = fn(mlir_sys::MlirOperation, &Options) -> Result<(), String>;

/// How a Tessel pass runs.
#[derive(Clone, Copy, Debug)]
pub enum PassKind {
    /// A named pipeline of passes, expanded from the option values (an error for a
    /// value it does not know).
    Pipeline(fn(&dyn Fn(&str) -> String) -> Result<String, String>),
    /// A Rust pass anchored on operations named `anchor` ("" for any).
    Rust {
        anchor: &'static str,
        run: RustPassFn,
    },
}

#[derive(Clone, Copy, Debug)]
pub struct PassInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub options: &'static [PassOption],
    pub example: &'static str,
    pub kind: PassKind,
}

/// The directory of the python package `module` (a PyPI wheel): `built`, where python3
/// found it when Tessel was built, if it is still there, else found through python3
/// (starting python3 costs a fifth of a small kernel's compile time).
fn wheel_dir(module: &str, built: &str) -> Option<std::path::PathBuf> {
    if !built.is_empty() && std::path::Path::new(built).is_dir() {
        return Some(built.into());
    }
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            &format!("import {module} as m; print(list(m.__path__)[0])"),
        ])
        .output()
        .ok()?;
    let p = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!p.is_empty() && out.status.success()).then(|| p.into())
}

/// Where `ptxas` and `libdevice.10.bc` are: `$TESSEL_CUDA_NVCC_DIR`, else the
/// `nvidia-cuda-nvcc-cu12` wheel found through python3.
pub fn cuda_nvcc_dir() -> Option<std::path::PathBuf> {
    if let Some(d) = std::env::var_os("TESSEL_CUDA_NVCC_DIR") {
        return Some(d.into());
    }
    static DIR: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    DIR.get_or_init(|| wheel_dir("nvidia.cuda_nvcc", env!("TESSEL_BUILT_WHEEL_NVCC")))
        .clone()
}

/// Where CCCL's headers are (`include/nv/target`, which cooperative groups include):
/// `$TESSEL_CUDA_CCCL_DIR`, else the `nvidia-cuda-cccl-cu12` wheel.
pub fn cuda_cccl_dir() -> Option<std::path::PathBuf> {
    if let Some(d) = std::env::var_os("TESSEL_CUDA_CCCL_DIR") {
        return Some(d.into());
    }
    static DIR: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    DIR.get_or_init(|| wheel_dir("nvidia.cuda_cccl", env!("TESSEL_BUILT_WHEEL_CCCL")))
        .clone()
}

/// Where the CUDA runtime headers are (`include/cuda_runtime.h`):
/// `$TESSEL_CUDA_RUNTIME_DIR`, else the `nvidia-cuda-runtime-cu12` wheel.
pub fn cuda_runtime_dir() -> Option<std::path::PathBuf> {
    if let Some(d) = std::env::var_os("TESSEL_CUDA_RUNTIME_DIR") {
        return Some(d.into());
    }
    static DIR: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    DIR.get_or_init(|| wheel_dir("nvidia.cuda_runtime", env!("TESSEL_BUILT_WHEEL_RUNTIME")))
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

macro_rules! device_outline {
    () => {
        "tessel-inline-scops, tessel-lower-shared, gpu-launch-sink-index-computations, gpu-kernel-outlining, tessel-bound-blocks"
    };
}
macro_rules! device_lower {
    () => {
        "func.func(gpu-async-region), lower-affine, tessel-contract, gpu.module(gpu.func(canonicalize, int-range-optimizations, canonicalize)), tessel-hoist-offsets, gpu.module(gpu.func(cse, loop-invariant-code-motion, canonicalize, cse)), convert-scf-to-cf, gpu.module(gpu.func(mem2reg)), tessel-scope-launches"
    };
}
/// The part of both lowerings that keeps the gpu dialect: outlined kernels with `cf`
/// control flow, the form [`crate::simform`] compiles for the sim device. Products and
/// the sums of the same C expression are fused (`tessel-contract`, before `cse` may
/// share a product between sums), so that sim counts the FMAs a GPU runs. The kernels
/// are simplified first (`canonicalize`, `cse`, `loop-invariant-code-motion`), as the
/// LLVM optimizer behind PTX and AMDGCN simplifies them anyway, so that sim counts
/// the index arithmetic a GPU runs rather than each thread id read and bound
/// recomputed where the passes left it; `mem2reg` keeps one-element private buffers
/// (`tessel-promote-registers`' registers) in registers, as SROA does behind PTX.
/// The constants and index computations a launch uses are sunk into it before
/// outlining (`gpu-launch-sink-index-computations`: `gpu-kernel-outlining` no longer
/// does it), so that a kernel's steps, trip counts and offsets are constants it folds
/// rather than parameters; `int-range-optimizations` then folds what the block's size
/// (`known_block_size`, or `tessel-bound-blocks`' bounds) decides, such as a tile
/// copy's guards that every thread of a full block passes. matvec 4096x4096 on sim's
/// gtx690: 520.8 us before, 442.6 after; the transpose 2048x2048 228.4 and 195.8.
pub const DEVICE_PREP: &str = concat!(device_outline!(), ", ", device_lower!());
/// The device preparation's first part: the kernels outlined, the host code still
/// structured (what `tessel-autotune`'s estimate interprets).
pub const DEVICE_OUTLINE: &str = device_outline!();
/// The rest of the device preparation.
pub const DEVICE_LOWER: &str = device_lower!();

/// With `debug=true` (`-g`): line tables for the kernels and the host code from the
/// operations' source locations.
fn line_tables(opt: &dyn Fn(&str) -> String) -> &'static str {
    if opt("debug") == "true" {
        "ensure-debug-info-scope-on-llvm-func{emission-kind=DebugDirectivesOnly}, "
    } else {
        ""
    }
}

fn nvvm_pipeline(opt: &dyn Fn(&str) -> String) -> Result<String, String> {
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
    Ok(format!(
        "{DEVICE_PREP}, nvvm-attach-target{{chip={chip} O={o}{link}}}, \
         gpu.module(convert-gpu-to-nvvm, canonicalize, cse, reconcile-unrealized-casts), \
         expand-strided-metadata, gpu-to-llvm, reconcile-unrealized-casts, {debug}\
         gpu-module-to-binary{{format={format}{toolkit}}}"
    ))
}

fn rocdl_pipeline(opt: &dyn Fn(&str) -> String) -> Result<String, String> {
    let chip = opt("chip");
    let o = opt("opt-level");
    let format = opt("format");
    let toolkit = rocm_toolkit()
        .map(|t| format!(" toolkit={t}"))
        .unwrap_or_default();
    let debug = line_tables(opt);
    Ok(format!(
        "{DEVICE_PREP}, rocdl-attach-target{{chip={chip} O={o}}}, \
         gpu.module(convert-gpu-to-rocdl{{runtime=HIP}}, canonicalize, cse, reconcile-unrealized-casts), \
         expand-strided-metadata, gpu-to-llvm, reconcile-unrealized-casts, {debug}\
         gpu-module-to-binary{{format={format}{toolkit}}}"
    ))
}

macro_rules! default_mapping {
    () => {
        "tessel-time-tile, tessel-tile, tessel-promote-shared, tessel-pad-banks, tessel-map-to-gpu, tessel-uniform-loops, tessel-stage-rows, tessel-promote-registers, tessel-forward-stores, tessel-ilp-unroll, tessel-reassociate-sums"
    };
}
/// The optimization pipelines between the frontend and the lowering, by name: `naive`,
/// the untiled mapping (one thread per iteration of the outermost parallel loops, the
/// baseline of every speedup); `default`, the tiled one. Both first wrap affine code
/// outside `tpoly.scop` (hand-written, from other tools) in scops.
pub const OPTIMIZE_PIPELINES: &[(&str, &str)] = &[
    (
        "naive",
        "tessel-detect-scops, tessel-schedule, tessel-map-to-gpu",
    ),
    (
        "default",
        concat!(
            "tessel-detect-scops, tessel-schedule, tessel-share, ",
            default_mapping!()
        ),
    ),
];

/// What the default pipeline runs after the schedule and the share pragma's plan (and
/// after `tessel-autotune`, whose candidates run it).
pub const DEFAULT_MAPPING: &str = default_mapping!();

/// Upstream MLIR's own route to the GPU, which tessel-bench measures beside Tessel's
/// (`--pipeline=mlir-upstream`): the scops run where they stand, `affine-parallelize`
/// turns the loops its dependence test finds parallel into `affine.parallel`, and
/// `gpu-map-parallel-loops` with `convert-parallel-loops-to-gpu` make launches of them
/// (outer parallel loops on blocks, the next level on threads, one thread per
/// iteration); `canonicalize, cse, loop-invariant-code-motion` first hoist the bounds
/// that `lower-affine` computes inside the loops, which the conversion needs outside
/// the launch, and `tessel-launch-copies` gives each launch device copies of its data.
pub const UPSTREAM_PIPELINE: &str =
    "tessel-inline-scops, func.func(affine-parallelize), lower-affine, \
     canonicalize, cse, loop-invariant-code-motion, func.func(gpu-map-parallel-loops), \
     convert-parallel-loops-to-gpu, tessel-launch-copies, canonicalize";

fn optimize_pipeline(opt: &dyn Fn(&str) -> String) -> Result<String, String> {
    let name = opt("pipeline");
    let pipeline = OPTIMIZE_PIPELINES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, p)| p.to_string())
        .ok_or_else(|| {
            let names: Vec<&str> = OPTIMIZE_PIPELINES.iter().map(|(n, _)| *n).collect();
            format!(
                "'tessel-optimize' option pipeline={name}: expected {}",
                names.join(" or ")
            )
        })?;
    match (opt("autotune").as_str(), name.as_str()) {
        ("none", _) => Ok(pipeline),
        (how @ ("model" | "measure"), "default") => {
            let mut o = Vec::new();
            if how == "measure" {
                o.push("measure=true".to_string());
            }
            let gpu = opt("gpu");
            if !gpu.is_empty() {
                o.push(format!("gpu={gpu}"));
            }
            let tune = match o.is_empty() {
                true => "tessel-autotune".to_string(),
                false => format!("tessel-autotune{{{}}}", o.join(" ")),
            };
            Ok(pipeline.replacen("tessel-share, ", &format!("tessel-share, {tune}, "), 1))
        }
        (how @ ("model" | "measure"), _) => Err(format!(
            "'tessel-optimize' option autotune={how}: pipeline={name} has no parameters to choose (only pipeline=default)"
        )),
        (other, _) => Err(format!(
            "'tessel-optimize' option autotune={other}: expected none, model or measure"
        )),
    }
}

/// Every Tessel pass and pipeline.
pub const PASSES: &[PassInfo] = &[
    PassInfo {
        name: "tessel-detect-scops",
        summary: "Wrap maximal affine regions (with at least one affine.for) of every function in tpoly.scop",
        options: &[],
        example: "affine.for %i = 0 to 10 { ... }  =>  tpoly.scop { affine.for %i = 0 to 10 { ... } }",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::detect_scops::run,
        },
    },
    PassInfo {
        name: "tessel-print-model",
        summary: "Report the polyhedral model of every tpoly.scop (domains, original schedule, reads, must- and may-writes) as a remark",
        options: &[],
        example: "tpoly.scop { affine.for %i = 0 to %n { affine.store ... } }  =>  remark: polyhedral model  domain: [arg1] -> { S0[i0] : 0 <= i0 < arg1 } ...",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::print_model::run,
        },
    },
    PassInfo {
        name: "tessel-expand-scalars",
        summary: "Give each iteration of a loop its own copy of a scop's local scalar that a nested loop carries (an accumulator such as gesummv's sa): an array of the loop's trip count allocated before the scop, where isl finds each live range within one iteration, so that tessel-schedule can tile the reduction loop with the parallel one (paper 004's row reductions); not in the default pipeline, where sim's estimates find it slower at most sizes",
        options: &[],
        example: "tpoly.scop { %s = memref.alloca() : memref<f64>  affine.for %i { affine.store %z, %s[]  affine.for %j { %s[] += ... } } }  =>  %e = memref.alloc(%n) : memref<?xf64>  tpoly.scop { affine.for %i { affine.store %z, %e[%i]  affine.for %j { %e[%i] += ... } } }  memref.dealloc %e",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::expand_scalars::run,
        },
    },
    PassInfo {
        name: "tessel-schedule",
        summary: "Reschedule every tpoly.scop with isl's scheduler (Pluto-style, maximal coincidence) and rebuild its loops: permutable bands and coincident (parallel) members marked on the loops",
        options: &[
            PassOption { name: "fuse", default: "auto", help: "max: isl may fuse strongly connected components; min: each scheduled on its own (isl's serialize-sccs); auto: max, or min where max nests a band's members imperfectly" },
            PassOption { name: "algorithm", default: "isl", help: "isl (Pluto-style bands, Feautrier's as the fallback) or feautrier" },
        ],
        example: "affine.for %i { S0 } affine.for %i { S1 }  =>  affine.for %i { S0 S1 } {tpoly.band = 0, tpoly.coincident, tpoly.member = 0, tpoly.permutable}",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::schedule::run,
        },
    },
    PassInfo {
        name: "tessel-autotune",
        summary: "Choose each function's tile sizes and whether its tiles copy data to shared memory by sim's model: every candidate runs the rest of the default pipeline and the function's launches are estimated on a sampled sim (paper 000 sec. 3's model-driven search, issue 9 item 6); the choice is written on the scops (tile_sizes, tessel.shared) and cached by function and GPU",
        options: &[
            PassOption { name: "gpu", default: "", help: "GPU model to tune for (default: TESSEL_GPU, else h100)" },
            PassOption { name: "size", default: "auto", help: "value of every integer parameter of a function during the estimate (auto: the smallest static extent of at least 32 among its array arguments, at most 1024, else 256)" },
            PassOption { name: "sample", default: "512", help: "blocks of each launch simulated (whole waves, spread over the grid; fewer where they run 400K warp instructions; their counters scaled to the grid)" },
            PassOption { name: "cache", default: "", help: "file of cached decisions (default: TESSEL_AUTOTUNE_CACHE, else $XDG_CACHE_HOME/tessel/autotune.txt or ~/.cache/tessel/autotune.txt); none: no cache" },
            PassOption { name: "measure", default: "false", help: "true: time each candidate's launches on the CUDA GPU present (compiled for its architecture; CUDA events, the least of 3 runs after one untimed) instead of estimating them on sim; the host's launch shapes still follow the gpu model" },
        ],
        example: "tpoly.scop { affine.for ... {tpoly.band = 0, tpoly.permutable} }  =>  tpoly.scop attributes {tile_sizes = array<i64: 16, 32>, tessel.shared = false} { ... }",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::autotune::run,
        },
    },
    PassInfo {
        name: "tessel-share",
        summary: "Turn a scop's share pragma into tile sizes and candidate arrays (paper 000 sec. 3.2): the seeds and the arrays a dependence links to them are the candidates for shared memory (tessel.share_candidates), and the band's tile sizes (tile_sizes) are the plan of highest profit (eq. 8: global bytes a block saves by reuse and by coalesced copies) among those whose boxes have the partitions' extents (TBX, TBY, TBZ: the tile sizes of the members threads x, y, z take; *: any) within a block's threads and theta of its shared memory (eqs. 9-11)",
        options: &[
            PassOption { name: "theta", default: "0.25", help: "theta_s: the part of a block's 48 KiB of shared memory the plan's boxes may take (paper 000 eq. 9: 0.125 to 0.25)" },
        ],
        example: "tpoly.scop share [#tpoly.share<\"A\"[TBY][*]>, #tpoly.share<\"B\"[*][TBX]>] { C[i][j] += A[i][k] * B[k][j] }  =>  tpoly.scop share [...] attributes {tessel.share_candidates = [\"A\", \"B\", \"C\"], tile_sizes = array<i64: 32, 32, 32>} { ... }",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::share::run,
        },
    },
    PassInfo {
        name: "tessel-time-tile",
        summary: "Overlapped time tiling of iterated stencils: a loop of steps over parallel stencil nests (the same box domain, accesses at the point plus constants) runs `steps` steps per kernel, each block computing its tile and the halo later steps read in shared memory, the written arrays double-buffered in global memory (see time_tile.rs)",
        options: &[
            PassOption { name: "steps", default: "auto", help: "steps of the loop per kernel, halved while the shared boxes exceed 48 KiB (auto: the scop's tessel.time_tile, tessel-autotune's choice, else 4 for grids of one or two dimensions whose written arrays have at most 4096 elements, whose steps are bound by launches; 0: none)" },
            PassOption { name: "sizes", default: "", help: "tile size of each dimension, outermost first, the last repeating (default 256; 32x32; 4x8x32)" },
        ],
        example: "affine.for %t = 0 to %T { B[i][j] = f(A[i-1..i+1][j-1..j+1]) ; A[i][j] = f(B[...]) }  =>  affine.for %p = 0 to %T ceildiv 4 { a block per tile {tessel.time_tiled}: tgpu.tile_copy A, B in; 2 steps in shared memory over the tile and its halo; tgpu.tile_copy out to the twins A2, B2 } ; the same from A2, B2 back to A, B }",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::time_tile::run,
        },
    },
    PassInfo {
        name: "tessel-tile",
        summary: "Tile the outermost permutable bands marked by tessel-schedule: tile loops outside, point loops inside, partial tiles guarded (isl scans skewed and triangular bands)",
        options: &[
            PassOption { name: "sizes", default: "", help: "tile size of each band member, outermost first, the last repeating (default: the scop's tile_sizes, else 256 for the one member mapped to threads (down to 64 for fewer than min-blocks tiles), 32 for each of two (the outer one down to 8 for fewer than min-blocks tiles), 8 for the others; see tile.rs)" },
            PassOption { name: "min-blocks", default: "64", help: "the grid the rule's sizes aim for where the loops' extents are known: tiles of the outermost thread dimension are halved (256 down to 64 of one mapped member, 32 down to 8 of two, 4 down to 2 then 8 down to 4 of three) while there would be fewer blocks; 1 keeps the full sizes" },
        ],
        example: "affine.for %i = 0 to 100 {tpoly.band = 0, tpoly.member = 0, tpoly.permutable}  =>  affine.for %t = 0 to 4 {tpoly.tile} { affine.for %i = 32 * %t to min(32 * %t + 32, 100) {tpoly.point} }",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::tile::run,
        },
    },
    PassInfo {
        name: "tessel-promote-shared",
        summary: "Give the blocks of each tiled kernel shared copies of the arrays it reads and does not write, where isl finds reuse between its threads (or an uncoalesced access to stage, or the scop's share pragma names the array) and a box of constant size per tile (tgpu.alloc_shared, tgpu.tile_copy, gpu.barrier; loads read the copy); and a shared box for a store thread x would make down a column, where isl finds that nothing in the kernel touches its elements later (the store writes the box; after a barrier the block copies it back by rows, where the elements isl finds it wrote lie: tgpu.tile_copy ... where)",
        options: &[
            PassOption { name: "min-reuse", default: "64", help: "promote an array only when a tile reads it at least this many times per element of its box (2.5: as paper 000 Fig. 2(b), and in scops tessel-autotune marks tessel.shared = true; 1: any reuse, for GPUs whose global loads skip L1)" },
        ],
        example: "affine.for %t {tpoly.tile} { affine.for %i {tpoly.point} { affine.load %A[%i - 1] ... affine.load %A[%i + 1] } }  =>  affine.for %t { %s = tgpu.alloc_shared [34]; tgpu.tile_copy %A to %s offsets [32 * %t - 1] tile [34]; gpu.barrier; affine.for %i { affine.load %s[%i - 1 - (32 * %t - 1)] ... } }",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::promote_shared::run,
        },
    },
    PassInfo {
        name: "tessel-pad-banks",
        summary: "Remove the bank conflicts of the shared buffers of tiled kernels (tgpu.alloc_shared) by paper 000 Fig. 4's decision tree: store a buffer as a structure of arrays or transposed (the copy's permutation, the subscripts reordered) and pad its rows by the smallest number of elements that spreads each warp's accesses over the 32 banks, from the affine subscripts and the loop thread x takes (eqs. 20-21); a 1-D buffer read along each thread's own stretch in a loop whose iterations may run in any order (no carried dependence, or exact integer reductions) has that loop start at an offset of each thread's (access reordering), and one whose conflicts that leaves is folded into padded rows of 32 words (copies with fold = 32)",
        options: &[],
        example: "%s = tgpu.alloc_shared [32, 32] padding [0, 0] : memref<32x32xf32, 3>; affine.load %s[%x, %i] (thread x on %x)  =>  %s = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xf32, 3>",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::pad_banks::run,
        },
    },
    PassInfo {
        name: "tessel-map-to-gpu",
        summary: "Map every tpoly.scop to host code and GPU kernels: coincident loops (from tessel-schedule) become gpu.launch, one thread per iteration (up to three nested ones in a 2-D or 3-D launch, thread x on the loop of highest coalescing priority, paper 003), or for tiled bands (tessel-tile) a block per tile and threads over its points; local scalars private to each thread; outer sequential loops stay on the host; arrays copied in where isl finds it needed, back when written",
        options: &[
            PassOption { name: "coarsen", default: "auto", help: "points per thread along the outermost thread dimension of a tiled 2-D or 3-D kernel (its extent divided by this); auto: the runtime chooses at launch the extent, a half or a quarter (or an eighth, where tessel-ilp-unroll runs 8 points side by side), the smallest whose grid still fills the device (tessel_block_extent)" },
        ],
        example: "tpoly.scop { affine.for %i = 0 to %n { S } {tpoly.coincident} }  =>  gpu.alloc, gpu.memcpy; gpu.launch blocks(...) in (ceil(n/256), 1, 1) threads(...) in (256, 1, 1) { scf.if (%x < %n) { S } }; gpu.memcpy back",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::map_to_gpu::run,
        },
    },
    PassInfo {
        name: "tessel-uniform-loops",
        summary: "Give a loop inside a kernel whose bounds depend on thread x (a triangular nest: symv's i from j + 1, j on thread x) the block's least lower and greatest upper bound, with the thread's own bounds as a guard around its body, where an access in it reads along thread x a row the loop's counter chooses: the lanes of a warp then read one row together (coalesced) instead of a diagonal ; and a coarsened loop of thread y or z (`for %i = %u + %ty to %hi step` the block's extent, syrk's rows) whose body is index arithmetic and the thread's guard around a row reduction runs from %u, the thread's row %ty further on, with %i < %hi added to the guard, so that tessel-stage-rows can stage the reduction; a loop whose row reduction reads its counter shifted by the thread's row (A[i][i + j], isl's skew of pdist's j > i) is first counted from the shift on; a coarsened loop whose start the thread-x bounds clip (`max(%u, %i + 1) + %ty`, correlation's mirror on the diagonal tiles) is versioned: unchanged where no thread of the block is clipped, else dealt out from the tile's first point %u + %ty with the thread's own bounds as its guard, where no state of the thread ties its points to it (paper 004 sec. 3; PPCG sec. 6)",
        options: &[],
        example: "scf.for %i = %j + 1 to %n { memref.load %A[%i, %j] }  =>  scf.for %i = %j - %tx + 1 to %n { scf.if (%i >= %j + 1 and %i < %n) { memref.load %A[%i, %j] } }",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::uniform_loops::run,
        },
    },
    PassInfo {
        name: "tessel-stage-rows",
        summary: "Stage through shared memory the rows the threads of a kernel each read along a loop (A[u + tx][c + j], a warp reading 32 rows): the loop runs in steps of `width` iterations that every thread of the block takes, each copying the box of the block's rows and the step's columns with consecutive threads on consecutive elements (coalesced), rows padded against bank conflicts (1 element for most boxes), the guard of the loop split around it, where nothing in the kernel writes the array and the loop stores nothing along its rows to global memory (with stores=true, those rows are staged too) (paper 004 sec. 3, Fig. 4's row reduction)",
        options: &[
            PassOption { name: "width", default: "auto", help: "iterations of the loop per step, the columns of a box (1 to 64); auto: the widest of 32, 16 and 8 whose boxes each thread of the smallest block copies with at most 16 elements (prefetched by tessel-lower-shared)" },
            PassOption { name: "stores", default: "false", help: "also stage a loop that stores its rows (paper 004's coalesced stores): the box of each array it writes is copied in, accessed in shared memory and copied back after each step, where every access to the array in the kernel is at the thread's own row and each block has rows of its own; off by default: sim finds it slower on deriche's recurrences and on small softmax rows" },
        ],
        example: "scf.if %valid { S0; scf.for %j ... { memref.load %A[%u + %tx, %j] }; S1 }  =>  scf.if %valid { S0 }; scf.for %jt ... step 8 { tgpu.tile_copy %A to %s ...; gpu.barrier; scf.if %valid { scf.for %j = %jt to min(%jt + 8, ...) { memref.load %s[%tx, %j - %jt] } }; gpu.barrier }; scf.if %valid { S1 }",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::stage_rows::run,
        },
    },
    PassInfo {
        name: "tessel-promote-registers",
        summary: "Keep in a register the array element a loop of a kernel reads or updates at the same subscripts in every iteration (gemm's C[i][j] across k): one load before the loop, a loop-carried value, one store after it, where no other access in the loop may touch it and the loop holds no barrier (paper 001 sec. 7.3); and a shared buffer each thread uses only at its own element (tgpu.alloc_shared indexed by the thread ids) as a one-element private buffer, dropping the launch's barriers where nothing is left for them to order (paper 002 sec. 3.1.1, Fig. 2); and an element a thread alone uses across a loop with barriers or conditions (matrix-vector's y[i] across the tile loop), loaded where the loop first loads it and stored once after it, where every access to its array in the launch is in the loop and, with a barrier, the threads' elements are distinct",
        options: &[],
        example: "scf.for %k ... { %c = memref.load %C[%i, %j]; ...; memref.store %s, %C[%i, %j] }  =>  %c0 = memref.load %C[%i, %j]; %r = scf.for %k ... iter_args(%c = %c0) { ...; scf.yield %s }; memref.store %r, %C[%i, %j]",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::promote_registers::run,
        },
    },
    PassInfo {
        name: "tessel-forward-stores",
        summary: "Carry in a register the value a loop of a kernel stores in one iteration and loads back in the next (a recurrence along a thread's loop: adi's p[i][j] from p[i][j - 1]): the load goes, the loop carries the stored value, one load before the loop reads what its first iteration read; where the store is the loop's only write to the array, runs in every iteration at subscripts that change with the loop, and no other write in the loop may touch the array; and a load of an element the thread loaded or stored before, with nothing between that may write it (looked for through the scf.if around it: a C conditional's operand loaded again in its branch), reuses that value (paper 001 sec. 7.3, paper 002 sec. 3)",
        options: &[],
        example: "scf.for %j ... { %p = memref.load %P[%i, %j - 1]; %d = f(%p); memref.store %d, %P[%i, %j] }  =>  %p0 = memref.load %P[%i, %lo - 1]; scf.for %j ... iter_args(%p = %p0) { %d = f(%p); memref.store %d, %P[%i, %j]; scf.yield %d }",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::forward_stores::run,
        },
    },
    PassInfo {
        name: "tessel-ilp-unroll",
        summary: "Unroll the point loop whose threads' extent is chosen at launch (tessel.coarsened) where every thread of a full tile has 8, 4 or 2 points (8 where the runtime may give them: the launch's tessel_block_extent then allows 8): each thread takes consecutive points, each operation repeated for them side by side (instruction-level parallelism, paper 000 Algorithm 1), each point with its own copy of the loop's private buffers (array expansion), and the index arithmetic they share computed once, so that cse keeps one load of each element (register reuse, paper 002); and the sequential innermost loops of kernels (no loop or barrier inside) unrolled by 8, 4 or 2 over the largest multiple of that many iterations, each load moved before the stores ahead of it that may not write its array, the loop as it was for the rest",
        options: &[],
        example: "scf.for %p = %l to %hi step %b { S(%p) } {tessel.coarsened}  =>  scf.if (%hi - %lo == 4 * %b) { S(%p0), S(%p0 + 1), S(%p0 + 2), S(%p0 + 3) interleaved } else { scf.if (... 2 ...) { ... } else { the loop } }",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::ilp_unroll::run,
        },
    },
    PassInfo {
        name: "tessel-reassociate-sums",
        summary: "Share the partial sums that the integer sums (arith.addi trees) of a block inside gpu.launch have in common (the points tessel-ilp-unroll put side by side): greedily, the pair of terms that most sums add becomes one add that each of them uses (Paar), loads of one element with no write between them counting as one term (register reuse, paper 002); integer adds are associative modulo 2^width, the rebuilt adds carry no overflow flags",
        options: &[],
        example: "%s0 = ((a[r0][c0] + a[r0][c1]) + a[r1][c0]) + a[r1][c1]; %s1 = ((a[r1][c0] + a[r1][c1]) + a[r2][c0]) + a[r2][c1]  =>  %g = a[r1][c0] + a[r1][c1]; %s0 = (a[r0][c0] + a[r0][c1]) + %g; %s1 = (%g + a[r2][c0]) + a[r2][c1]",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::reassociate_sums::run,
        },
    },
    PassInfo {
        name: "tessel-optimize",
        summary: "Optimize affine code for the GPU, as tesselc does between the frontend and the lowering: pipeline=naive (tessel-detect-scops, tessel-schedule, tessel-map-to-gpu) or default (the same with tessel-share, tessel-tile, tessel-promote-shared and tessel-pad-banks before the mapping and tessel-uniform-loops, tessel-stage-rows, tessel-promote-registers, tessel-forward-stores, tessel-ilp-unroll and tessel-reassociate-sums after it)",
        options: &[
            PassOption { name: "pipeline", default: "default", help: "naive: the untiled mapping, one thread per iteration of the outer parallel loops (the baseline); default: tiles to blocks, points to threads, shared copies of the arrays a tile reuses or reads uncoalesced, padded against bank conflicts, loop-invariant elements in registers, a thread's points unrolled side by side" },
            PassOption { name: "autotune", default: "none", help: "none: the default pipeline's fixed rules; model: tessel-autotune after tessel-share chooses each function's tile sizes and shared-memory promotion by sim's estimate; measure: the same by timing the candidates on the CUDA GPU present (pipeline=default only)" },
            PassOption { name: "gpu", default: "", help: "with autotune=model or measure: the GPU model to tune for (default: TESSEL_GPU, else h100)" },
        ],
        example: "tpoly.scop { affine.for %i ... }  =>  gpu.alloc, gpu.memcpy; gpu.launch ...; gpu.memcpy back",
        kind: PassKind::Pipeline(optimize_pipeline),
    },
    PassInfo {
        name: "tessel-bound-blocks",
        summary: "Give each kernel whose block size is chosen at launch (tessel_block_extent) the largest block it may get as nvvm.maxntid, so that ptxas keeps its registers within what that block can have (part of the device preparation)",
        options: &[],
        example: "gpu.launch_func @m::@k threads in (%c32, %y, %c1) with %y = call @tessel_block_extent(%n, %c1024, %c32)  =>  gpu.func @k(...) kernel attributes {nvvm.maxntid = array<i32: 32, 32, 1>}",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::bound_blocks::run,
        },
    },
    PassInfo {
        name: "tessel-launch-copies",
        summary: "Give each gpu.launch device copies of the host memrefs it uses (gpu.alloc, gpu.memcpy in, back if written, gpu.dealloc): what upstream's convert-parallel-loops-to-gpu output needs on a device with its own memory",
        options: &[],
        example: "gpu.launch { ... %A ... }  =>  %d = gpu.alloc; gpu.memcpy %d, %A; gpu.launch { ... %d ... }; gpu.memcpy %A, %d; gpu.dealloc %d",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::launch_copies::run,
        },
    },
    PassInfo {
        name: "tessel-inline-scops",
        summary: "Run every tpoly.scop where it stands, on the host: its body replaces it (heads the lowering pipelines)",
        options: &[],
        example: "tpoly.scop { affine.for %i = 0 to 10 { ... } }  =>  affine.for %i = 0 to 10 { ... }",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::inline_scops::run,
        },
    },
    PassInfo {
        name: "tessel-lower-shared",
        summary: "Lower the tgpu dialect inside gpu.launch: tgpu.alloc_shared to a workgroup attribution of the launch, tgpu.tile_copy to the block's cooperative copy (consecutive threads on consecutive elements, boundary elements skipped), prefetched into registers an iteration ahead at the top of a loop the kernel runs in sequence; part of the device preparation",
        options: &[],
        example: "%s = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xf32, 3>; tgpu.tile_copy %A to %s ...  =>  gpu.launch ... workgroup(%s : memref<32x33xf32, 3>) { scf.for %e = %tid to 1024 step %threads { ... } }",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::lower_shared::run,
        },
    },
    PassInfo {
        name: "tessel-contract",
        summary: "Fuse, in the kernels (gpu.func, gpu.launch), an arith.mulf and the arith.addf or arith.subf that alone uses it into math.fma where both carry fastmath<contract>, which the frontend sets on a product added or subtracted in the same C expression (C's FP_CONTRACT, clang's -ffp-contract=on): one rounding and one instruction instead of two (part of the device preparation)",
        options: &[],
        example: "%p = arith.mulf %a, %b fastmath<contract> : f32; %s = arith.subf %c, %p fastmath<contract> : f32  =>  %n = arith.negf %a : f32; %s = math.fma %n, %b, %c : f32",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::contract::run,
        },
    },
    PassInfo {
        name: "tessel-hoist-offsets",
        summary: "Move the constant terms of the kernels' index sums (gpu.func, gpu.launch) outward, (x + c) + y to (x + y) + c and (x + c) - y to (x - y) + c, so that cse shares the variable part of sums that differ by a constant (an unrolled loop's copies, a stencil's neighbours); index arithmetic is modular, the rebuilt operations carry no overflow flags (part of the device preparation)",
        options: &[],
        example: "%k1 = arith.addi %k, %c1 : index; %r = arith.subi %k1, %o : index  =>  %t = arith.subi %k, %o : index; %r = arith.addi %t, %c1 : index",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::hoist_offsets::run,
        },
    },
    PassInfo {
        name: "tessel-scope-launches",
        summary: "Save the stack pointer before each gpu.launch_func outside its function's entry block and restore it after, so its argument arrays leave the stack (part of the device preparation)",
        options: &[],
        example: "gpu.launch_func @m::@k ...  =>  %sp = llvm.intr.stacksave; gpu.launch_func @m::@k ...; llvm.intr.stackrestore %sp",
        kind: PassKind::Rust {
            anchor: "",
            run: crate::transforms::scope_launches::run,
        },
    },
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

/// The option values of one pass: those given (`key=value`, the last one wins), else
/// the defaults.
pub struct Options {
    info: &'static PassInfo,
    given: Vec<(String, String)>,
}

impl Options {
    /// Parses `key=value ...`, checking every key against the pass's options.
    pub fn parse(info: &'static PassInfo, text: &str) -> Result<Options, String> {
        let mut given = Vec::new();
        for kv in text.split_whitespace() {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| format!("option '{kv}' of '{}' must be key=value", info.name))?;
            if !info.options.iter().any(|o| o.name == k) {
                let valid: Vec<&str> = info.options.iter().map(|o| o.name).collect();
                return Err(format!(
                    "'{}' has no option '{k}' (valid: {})",
                    info.name,
                    if valid.is_empty() {
                        "none".to_string()
                    } else {
                        valid.join(", ")
                    }
                ));
            }
            given.push((k.to_string(), v.to_string()));
        }
        Ok(Options { info, given })
    }

    /// The value of option `k`.
    pub fn get(&self, k: &str) -> String {
        self.given
            .iter()
            .rev()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .or_else(|| {
                self.info
                    .options
                    .iter()
                    .find(|o| o.name == k)
                    .map(|o| o.default.to_string())
            })
            .unwrap_or_default()
    }
}

/// Expands a Tessel pass with `key=value` options into pipeline text: a named pipeline
/// into its upstream passes, a Rust pass into itself (its options checked).
pub fn expand(info: &'static PassInfo, opts: &str) -> Result<String, String> {
    let o = Options::parse(info, opts)?;
    match info.kind {
        PassKind::Pipeline(f) => f(&|k| o.get(k)),
        PassKind::Rust { .. } if opts.trim().is_empty() => Ok(info.name.to_string()),
        PassKind::Rust { .. } => Ok(format!("{}{{{}}}", info.name, opts.trim())),
    }
}

/// Registers every Rust pass with MLIR's pass registry; once per process.
pub fn register_rust_passes() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for info in PASSES {
            if let PassKind::Rust { anchor, .. } = info.kind {
                // SAFETY: the strings and `info` are static; the callbacks match the
                // shim's signatures.
                unsafe {
                    tessel_dialects::tesselRegisterRustPass(
                        crate::mlir::string_ref(info.name),
                        crate::mlir::string_ref(info.summary),
                        crate::mlir::string_ref(anchor),
                        run_rust_pass,
                        check_rust_pass,
                        info as *const PassInfo as *mut std::ffi::c_void,
                    )
                };
            }
        }
    });
}

/// The shim's `run` callback: options parsed (checked already), the pass run in a
/// tracing span, an `Err` message or a panic emitted as an error on the operation.
unsafe extern "C" fn run_rust_pass(
    op: mlir_sys::MlirOperation,
    options: mlir_sys::MlirStringRef,
    data: *mut std::ffi::c_void,
) -> bool {
    // SAFETY: `data` is the `&'static PassInfo` given at registration.
    let info: &'static PassInfo = unsafe { &*(data as *const PassInfo) };
    let PassKind::Rust { run, .. } = info.kind else {
        return false;
    };
    // SAFETY: the shim passes the pass's own option text.
    let text = unsafe { crate::mlir::from_string_ref(options) };
    let _span = tracing::info_span!("pass", name = info.name).entered();
    let result = Options::parse(info, &text).and_then(|o| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(op, &o)))
            .unwrap_or_else(|_| Err(format!("internal error: pass '{}' panicked", info.name)))
    });
    match result {
        Ok(()) => true,
        Err(m) => {
            if !m.is_empty() {
                let msg = std::ffi::CString::new(m.replace('\0', " ")).unwrap_or_default();
                // SAFETY: a live operation and a NUL-terminated message.
                unsafe {
                    mlir_sys::mlirEmitError(mlir_sys::mlirOperationGetLocation(op), msg.as_ptr())
                };
            }
            false
        }
    }
}

/// The shim's `check` callback: the option text parses for this pass.
unsafe extern "C" fn check_rust_pass(
    options: mlir_sys::MlirStringRef,
    error: Option<unsafe extern "C" fn(mlir_sys::MlirStringRef, *mut std::ffi::c_void)>,
    error_data: *mut std::ffi::c_void,
    data: *mut std::ffi::c_void,
) -> bool {
    // SAFETY: as in `run_rust_pass`.
    let info: &'static PassInfo = unsafe { &*(data as *const PassInfo) };
    let text = unsafe { crate::mlir::from_string_ref(options) };
    match Options::parse(info, &text) {
        Ok(_) => true,
        Err(m) => {
            if let Some(f) = error {
                // SAFETY: the shim's error sink, called with a valid string.
                unsafe { f(crate::mlir::string_ref(&m), error_data) };
            }
            false
        }
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
        assert!(
            p.starts_with("builtin.module(canonicalize, tessel-inline-scops, tessel-lower-shared, gpu-launch-sink-index-computations, gpu-kernel-outlining")
        );
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
