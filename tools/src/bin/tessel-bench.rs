//! tessel-bench: builds C programs with a chosen mapping pipeline (and a baseline one),
//! runs them on a device with `TESSEL_PROFILE`, and prints one row per kernel: launches,
//! sectors per request of global loads and stores, shared-memory bank-conflict ways
//! (wavefronts over the conflict-free ones: 1.0 without conflicts, also for 8-byte
//! elements that take two wavefronts a warp), L1 and L2 hit rates and DRAM traffic (sim), occupancy, sim's estimated time, the measured time where a
//! GPU ran, the baseline's estimate beside it, and the time model's term that bounds the
//! kernel (`bound`: `dram`, `l2`, `l1`, `shared`, `compute` or `latency`, of its longest
//! launch; [`tessel_runtime::gpus`]). `--json` prints the rows as JSON.
//!
//! `--breakdown` instead builds each program once per stage of the optimizations (naive,
//! tiled, +shared, +padding, +registers, +coarsening: the block's outer thread
//! extent chosen at launch, `tessel-map-to-gpu{coarsen=auto}`, +ILP:
//! `tessel-ilp-unroll`), prints each stage's estimated time and speedup
//! over naive, and with `--breakdown-svg` draws them as a bar chart (paper 000 Fig. 7).
//!
//! Pipelines (`--pipeline`, `--baseline`): `default` and `naive`, tessel-optimize's (as
//! tesselc builds: tiles to blocks and points to threads; one thread per iteration of
//! the outer parallel loops, the baseline of every speedup); `mlir-upstream`, upstream
//! MLIR's own route to the GPU ([`tessel::registry::UPSTREAM_PIPELINE`]), so that
//! Tessel is measured beside it.

use clap::Parser;

#[path = "../cli.rs"]
mod cli;
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::process::{Command, ExitCode};
use tessel_runtime::profile::{parse_launches, Launch};

#[derive(Parser, Debug)]
#[command(
    name = "tessel-bench",
    version,
    about = "Build C programs with Tessel, run them, and tabulate per-kernel figures",
    after_help = "Examples:\n  tessel-bench test/kernels/*.c -I test/kernels -DSMALL_DATASET\n  tessel-bench polybench/*/*/*.c -I polybench/utilities --link polybench/utilities/polybench.c -DPOLYBENCH_DUMP_ARRAYS\n  tessel-bench test/kernels/gemm.c -I test/kernels --baseline=naive --json"
)]
struct Args {
    /// C programs (each with a main).
    #[arg(required = true)]
    programs: Vec<String>,
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<String>,
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    define: Vec<String>,
    /// A utility file (C source or object) built into every program, e.g. a benchmark
    /// suite's utilities/polybench.c (repeatable).
    #[arg(long = "link", value_name = "FILE")]
    link: Vec<String>,
    /// Pipeline to measure: default or naive (tessel-optimize's, as tesselc
    /// --pipeline), or mlir-upstream (upstream MLIR's affine-parallelize and
    /// convert-parallel-loops-to-gpu).
    #[arg(long, default_value = "default", value_parser = PIPELINES)]
    pipeline: String,
    /// Pipelines to compare with, side by side (one more build and run per program
    /// each; repeatable or comma-separated).
    #[arg(long, value_parser = PIPELINES, value_delimiter = ',')]
    baseline: Vec<String>,
    /// Build the measured programs with these passes on the scops' affine form instead
    /// of --pipeline's (tesselc --passes); the baseline keeps its own.
    #[arg(long, value_name = "PIPELINE")]
    passes: Option<String>,
    /// With --pipeline=default: choose its parameters per function by sim's estimate
    /// of the candidates on --gpu's model, or by timing them on the CUDA GPU present
    /// (tesselc --autotune).
    #[arg(long, default_value = "none", value_parser = ["none", "model", "measure"])]
    autotune: String,
    /// Device to run on: auto, cuda, hip or sim.
    #[arg(long, default_value = "sim", value_parser = ["auto", "cuda", "hip", "sim"])]
    device: String,
    /// GPU that sim models.
    #[arg(long)]
    gpu: Option<String>,
    /// Print JSON rows instead of a table.
    #[arg(long)]
    json: bool,
    /// One row per program, summed over all its launches (pipelines may fuse or split
    /// kernels differently, so whole programs compare where kernels cannot).
    #[arg(long)]
    per_program: bool,
    /// Instead of one pipeline: each program's estimated time (all its launches) with
    /// the optimizations added one by one, as paper 000 Fig. 7: naive, tiled, +shared
    /// (tessel-promote-shared, tessel-stage-rows), +padding (tessel-pad-banks), +registers
    /// (tessel-promote-registers, tessel-forward-stores), +coarsening (the block's outer
    /// thread extent chosen at launch), +ILP (tessel-ilp-unroll: the default pipeline),
    /// with --autotune
    /// +autotune (the default pipeline tuned for --gpu), and each one's speedup over
    /// naive.
    #[arg(long, conflicts_with_all = ["baseline", "passes", "pipeline", "json", "per_program"])]
    breakdown: bool,
    /// With --breakdown, also draw the speedups as a bar chart in this SVG file.
    #[arg(long, value_name = "FILE.svg", requires = "breakdown")]
    breakdown_svg: Option<String>,
}

/// The stages of `--breakdown`: a name and the passes that build it, each adding one
/// optimization to the one before.
const STAGES: [(&str, &str); 7] = [
    ("naive", "tessel-optimize{pipeline=naive}"),
    (
        "tiled",
        "tessel-detect-scops, tessel-schedule, tessel-share, tessel-tile, tessel-map-to-gpu{coarsen=1}, tessel-uniform-loops",
    ),
    (
        "+shared",
        "tessel-detect-scops, tessel-schedule, tessel-share, tessel-tile, tessel-promote-shared, tessel-map-to-gpu{coarsen=1}, tessel-uniform-loops, tessel-stage-rows",
    ),
    (
        "+padding",
        "tessel-detect-scops, tessel-schedule, tessel-share, tessel-tile, tessel-promote-shared, tessel-pad-banks, tessel-map-to-gpu{coarsen=1}, tessel-uniform-loops, tessel-stage-rows",
    ),
    (
        "+registers",
        "tessel-detect-scops, tessel-schedule, tessel-share, tessel-tile, tessel-promote-shared, tessel-pad-banks, tessel-map-to-gpu{coarsen=1}, tessel-uniform-loops, tessel-stage-rows, tessel-promote-registers, tessel-forward-stores",
    ),
    (
        "+coarsening",
        "tessel-detect-scops, tessel-schedule, tessel-share, tessel-tile, tessel-promote-shared, tessel-pad-banks, tessel-map-to-gpu, tessel-uniform-loops, tessel-stage-rows, tessel-promote-registers, tessel-forward-stores",
    ),
    ("+ILP", "tessel-optimize{pipeline=default}"),
];

/// [`STAGES`], and with `--autotune` one more: the default pipeline tuned.
fn stages(args: &Args) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = STAGES
        .iter()
        .map(|(n, p)| (n.to_string(), p.to_string()))
        .collect();
    if args.autotune != "none" {
        v.push((
            "+autotune".into(),
            tuned("tessel-optimize{pipeline=default}", args),
        ));
    }
    v
}

/// `--breakdown`: builds and runs every program with each of [`stages`], prints a row
/// per program (estimated time of each stage, then each stage's speedup over naive) and
/// the geomeans, and draws the speedups into `svg` when given. The number of programs
/// that failed.
fn breakdown(args: &Args, dir: &std::path::Path, svg: Option<&str>) -> usize {
    let stages = stages(args);
    let mut rows: Vec<(String, Vec<Option<f64>>)> = Vec::new();
    let mut failures = 0;
    for prog in &args.programs {
        let name = std::path::Path::new(prog)
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut times = Vec::new();
        for (stage, passes) in &stages {
            let tag = stage.trim_start_matches('+');
            match measure(args, prog, tag, passes, dir) {
                Ok((l, _)) if !l.is_empty() => times.push(Some(
                    l.iter().map(|l| l.estimated_time_s.unwrap_or(0.0)).sum(),
                )),
                Ok(_) => {
                    eprintln!("note: {prog}: no kernel ran with the {stage} stage");
                    times.push(None);
                }
                Err(e) => {
                    eprintln!("error: {stage}: {e}");
                    times.push(None);
                }
            }
        }
        if times.iter().all(|t| t.is_none()) {
            failures += 1;
        }
        rows.push((name, times));
    }
    let mut head = format!("{:<14}", "program");
    for (stage, _) in &stages {
        head += &format!(" {:>14}", format!("{stage} (us)"));
    }
    for (stage, _) in &stages[1..] {
        head += &format!(" {:>9}", format!("{stage} x"));
    }
    println!("{head}");
    let speedup = |t: &[Option<f64>], k: usize| match (t[0], t[k]) {
        (Some(n), Some(x)) if x > 0.0 => Some(n / x),
        _ => None,
    };
    for (name, t) in &rows {
        let mut line = format!("{name:<14}");
        for v in t {
            line += &format!(" {:>14}", fmt(v.map(|v| v * 1e6), 2));
        }
        for k in 1..stages.len() {
            line += &format!(" {:>9}", fmt(speedup(t, k), 2));
        }
        println!("{line}");
    }
    let mut means = Vec::new();
    for (k, (stage, _)) in stages.iter().enumerate().skip(1) {
        let s: Vec<f64> = rows.iter().filter_map(|(_, t)| speedup(t, k)).collect();
        let g =
            (!s.is_empty()).then(|| (s.iter().map(|x| x.ln()).sum::<f64>() / s.len() as f64).exp());
        if let Some(g) = g {
            eprintln!(
                "tessel-bench: geomean speedup of {stage} over naive: {g:.2} ({} programs)",
                s.len()
            );
        }
        means.push(g);
    }
    if let Some(path) = svg {
        let bars: Vec<(String, Vec<Option<f64>>)> = rows
            .iter()
            .map(|(n, t)| {
                (
                    n.clone(),
                    (1..stages.len()).map(|k| speedup(t, k)).collect(),
                )
            })
            .chain(std::iter::once(("geomean".to_string(), means)))
            .collect();
        if let Err(e) = std::fs::write(path, chart(&bars, &stages)) {
            eprintln!("error: cannot write {path}: {e}");
            failures += 1;
        }
    }
    failures
}

/// A grouped bar chart in SVG: for each program, one bar per stage after naive (its
/// speedup over naive), a line at 1x, a legend.
fn chart(bars: &[(String, Vec<Option<f64>>)], stages: &[(String, String)]) -> String {
    const COLORS: [&str; 7] = [
        "#c6dbef", "#6baed6", "#2171b5", "#08519c", "#08306b", "#e6550d", "#31a354",
    ];
    let group = 22.0 * stages.len() as f64;
    let (left, top, height) = (60.0, 30.0, 240.0);
    let width = left + group * bars.len() as f64 + 20.0;
    let max = bars
        .iter()
        .flat_map(|(_, v)| v.iter().flatten())
        .fold(1.0f64, |m, x| m.max(*x))
        .ceil();
    let y = |v: f64| top + height * (1.0 - v / max);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{}\" font-family=\"sans-serif\" font-size=\"11\">\n",
        top + height + 60.0
    );
    s += &format!("<text x=\"{left}\" y=\"16\">estimated speedup over naive (sim)</text>\n");
    for tick in 0..=(max as usize) {
        let yy = y(tick as f64);
        s += &format!(
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{yy}\" y2=\"{yy}\" stroke=\"{}\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{tick}x</text>\n",
            width - 20.0,
            if tick == 1 { "#000" } else { "#ddd" },
            left - 6.0,
            yy + 4.0
        );
    }
    for (g, (name, vals)) in bars.iter().enumerate() {
        let x0 = left + group * g as f64 + 10.0;
        for (k, v) in vals.iter().enumerate() {
            if let Some(v) = v {
                let x = x0 + 22.0 * k as f64;
                s += &format!(
                    "<rect x=\"{x}\" y=\"{}\" width=\"20\" height=\"{}\" fill=\"{}\"><title>{name} {}: {v:.2}x</title></rect>\n",
                    y(*v),
                    top + height - y(*v),
                    COLORS[k % COLORS.len()],
                    stages[k + 1].0
                );
            }
        }
        s += &format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{name}</text>\n",
            x0 + 11.0 * (stages.len() - 1) as f64,
            top + height + 16.0
        );
    }
    for (k, (stage, _)) in stages.iter().enumerate().skip(1) {
        let x = left + 110.0 * (k - 1) as f64;
        s += &format!(
            "<rect x=\"{x}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{stage}</text>\n",
            top + height + 32.0,
            COLORS[(k - 1) % COLORS.len()],
            x + 16.0,
            top + height + 42.0
        );
    }
    s + "</svg>\n"
}

/// The pipelines `--pipeline` and `--baseline` name.
const PIPELINES: [&str; 3] = ["default", "naive", "mlir-upstream"];

/// The passes of pipeline `name`.
fn passes_of(name: &str) -> String {
    match name {
        "mlir-upstream" => tessel::registry::UPSTREAM_PIPELINE.to_string(),
        _ => format!("tessel-optimize{{pipeline={name}}}"),
    }
}

/// `passes` with tessel-optimize's `autotune` and `gpu` from `--autotune` and `--gpu`
/// (`--pipeline=default` only; tessel-optimize refuses the others).
fn tuned(passes: &str, args: &Args) -> String {
    if args.autotune == "none" {
        return passes.to_string();
    }
    let gpu = args
        .gpu
        .as_ref()
        .map(|g| format!(" gpu={g}"))
        .unwrap_or_default();
    passes.replacen(
        "tessel-optimize{",
        &format!("tessel-optimize{{autotune={}{gpu} ", args.autotune),
        1,
    )
}

/// Per-kernel sums over a program's launches.
#[derive(Default, Clone)]
struct Row {
    launches: u64,
    ld_req: u64,
    ld_sec: u64,
    st_req: u64,
    st_sec: u64,
    /// Sectors the requests would touch with their bytes side by side (the ideal).
    ld_ideal: u64,
    st_ideal: u64,
    sh_wf: u64,
    sh_ideal: u64,
    occupancy: f64,
    est: f64,
    measured: Option<f64>,
    instructions: u64,
    wall: f64,
    l1: (u64, u64),
    l2: (u64, u64),
    dram_read: u64,
    dram_write: u64,
    /// The model's largest term in the launch that took longest ([`Launch::bound_by`]).
    bound: Option<(f64, String)>,
}

/// Sums per kernel, or with `whole` one row for all the launches (keyed "").
fn rows(launches: &[Launch], whole: bool) -> BTreeMap<String, Row> {
    let mut m: BTreeMap<String, Row> = BTreeMap::new();
    for l in launches {
        let key = if whole {
            String::new()
        } else {
            l.kernel.clone()
        };
        let r = m.entry(key).or_default();
        r.launches += 1;
        if let Some(c) = &l.counters {
            r.ld_req += c.global_load_requests;
            r.ld_sec += c.global_load_sectors;
            r.st_req += c.global_store_requests;
            r.st_sec += c.global_store_sectors;
            r.ld_ideal += c.global_load_ideal_sectors;
            r.st_ideal += c.global_store_ideal_sectors;
            r.sh_wf += c.shared_load_wavefronts + c.shared_store_wavefronts;
            r.sh_ideal += c.shared_ideal_wavefronts;
            r.instructions += c.instructions;
        }
        if let Some(k) = &l.caches {
            if k.l1_modelled {
                r.l1 = (r.l1.0 + k.l1_hits, r.l1.1 + k.l1_sectors);
            }
            if k.l2_modelled {
                r.l2 = (r.l2.0 + k.l2_hits, r.l2.1 + k.l2_sectors);
            }
            r.dram_read += k.dram_read_bytes;
            r.dram_write += k.dram_write_bytes;
        }
        r.occupancy = r.occupancy.max(l.occupancy.unwrap_or(0.0));
        r.est += l.estimated_time_s.unwrap_or(0.0);
        if let (Some(t), Some(b)) = (l.estimated_time_s, &l.bound_by) {
            if r.bound.as_ref().is_none_or(|(m, _)| t > *m) {
                r.bound = Some((t, b.clone()));
            }
        }
        if let Some(t) = l.measured_time_s {
            r.measured = Some(r.measured.unwrap_or(0.0) + t);
        }
        r.wall += l.wall_time_s;
    }
    m
}

fn ratio(a: u64, b: u64) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

/// Builds and runs one program with one pipeline; returns its launches, and how many
/// loop nests of its scops the pipeline left to run on the host (untimed).
fn measure(
    args: &Args,
    program: &str,
    tag: &str,
    passes: &str,
    dir: &std::path::Path,
) -> Result<(Vec<Launch>, usize), String> {
    let mut cflags: Vec<String> = args.include.iter().map(|i| format!("-I{i}")).collect();
    cflags.extend(args.define.iter().map(|d| format!("-D{d}")));
    let stem = std::path::Path::new(program)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let exe = dir.join(format!("{stem}.{tag}"));
    let p = tessel::program::ProgramOptions {
        inputs: std::iter::once(program.to_string())
            .chain(args.link.iter().cloned())
            .collect(),
        cflags,
        opt_level: 3,
        offload_arch: Vec::new(),
        output: exe.clone(),
        functions: Vec::new(),
        link_flags: Vec::new(),
        passes: Some(passes.to_string()),
    };
    let host = tessel::program::build_program(&p).map_err(|f| f.0.join("\n"))?;
    let prof = dir.join(format!("{stem}.{tag}.json"));
    let mut cmd = Command::new(&exe);
    cmd.env("TESSEL_DEVICE", &args.device)
        .env("TESSEL_PROFILE", &prof);
    if let Some(g) = &args.gpu {
        cmd.env("TESSEL_GPU", g);
    }
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(3).collect();
        return Err(format!(
            "{program} exited with {}: {}",
            out.status,
            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
        ));
    }
    // The runtime writes a profile at the first launch: none means every scop ran on
    // the host.
    let launches = match std::fs::read_to_string(&prof) {
        Ok(text) => parse_launches(&text).map_err(|e| format!("{program}: {e}"))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(format!("{program}: cannot read the profile: {e}")),
    };
    Ok((launches, host))
}

fn fmt(v: Option<f64>, prec: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.prec$}"))
}

fn main() -> ExitCode {
    let args: Args = match cli::parse() {
        Ok(a) => a,
        Err(code) => return code,
    };
    if let Some(Err(e)) = args.passes.as_deref().map(tessel::pipeline::check_passes) {
        eprintln!("error: {e}");
        return ExitCode::from(1);
    }
    if args.autotune != "none" && (args.pipeline != "default" || args.passes.is_some()) {
        eprintln!(
            "error: --autotune={} tunes --pipeline=default only (not --pipeline={} or --passes)",
            args.autotune, args.pipeline
        );
        return ExitCode::from(1);
    }
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    if args.breakdown {
        let failures = breakdown(&args, dir.path(), args.breakdown_svg.as_deref());
        return match failures {
            0 => ExitCode::SUCCESS,
            _ => ExitCode::from(1),
        };
    }
    let tty = std::io::stderr().is_terminal();
    let n = args.programs.len();
    let mut table: Vec<(String, String, Row, Vec<Option<Row>>)> = Vec::new();
    let mut failures = 0;
    let (mut instr, mut wall) = (0u64, 0f64);
    let started = std::time::Instant::now();
    for (i, prog) in args.programs.iter().enumerate() {
        let name = std::path::Path::new(prog)
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if tty {
            let done = i * 30 / n.max(1);
            eprint!(
                "\r[{}{}] {}/{} {:<24}",
                "#".repeat(done),
                " ".repeat(30 - done),
                i + 1,
                n,
                name
            );
            let _ = std::io::stderr().flush();
        }
        let main = measure(
            &args,
            prog,
            &args.pipeline,
            &args
                .passes
                .clone()
                .unwrap_or_else(|| tuned(&passes_of(&args.pipeline), &args)),
            dir.path(),
        );
        let bases: Vec<Result<(Vec<Launch>, usize), String>> = args
            .baseline
            .iter()
            .map(|b| {
                let tag = format!("{b}.baseline");
                measure(&args, prog, &tag, &passes_of(b), dir.path())
            })
            .collect();
        let main = match main {
            Ok((m, host)) => {
                if host > 0 && !m.is_empty() {
                    if tty {
                        eprintln!();
                    }
                    eprintln!("note: {prog}: the {} pipeline left {host} loop nest(s) of its scops on the host, which its estimate does not include", args.pipeline);
                }
                m
            }
            Err(e) => {
                if tty {
                    eprintln!();
                }
                eprintln!("error: {e}");
                failures += 1;
                continue;
            }
        };
        // A baseline's failure (upstream's route can make launches it cannot run) is
        // reported, and the row keeps no figure for it; so is a baseline that left part
        // of the scops to run on the host (upstream's route, where it finds no parallel
        // loop), since its launches do not time all the work the measured pipeline's do.
        let bases: Vec<Option<Vec<Launch>>> = bases
            .into_iter()
            .zip(&args.baseline)
            .map(|(b, which)| match b {
                Ok((b, host)) if host > 0 && !b.is_empty() => {
                    if tty {
                        eprintln!();
                    }
                    eprintln!("note: {prog}: the {which} pipeline left {host} loop nest(s) of its scops on the host, which sim does not time: no figure for it");
                    None
                }
                Ok((b, _)) => Some(b),
                Err(e) => {
                    if tty {
                        eprintln!();
                    }
                    eprintln!("warning: baseline {which}: {e}");
                    None
                }
            })
            .collect();
        let ran = std::iter::once((Some(&main), &args.pipeline))
            .chain(bases.iter().map(|b| b.as_ref()).zip(&args.baseline));
        for (launches, which) in ran {
            if launches.is_some_and(|l| l.is_empty()) {
                if tty {
                    eprintln!();
                }
                eprintln!("note: {prog}: no kernel ran with the {which} pipeline (every scop ran on the host)");
            }
        }
        let whole = args.per_program;
        let base_rows: Vec<Option<BTreeMap<String, Row>>> = bases
            .iter()
            .map(|b| b.as_deref().map(|b| rows(b, whole)))
            .collect();
        for (k, r) in rows(&main, whole) {
            instr += r.instructions;
            wall += r.wall;
            let b: Vec<Option<Row>> = base_rows
                .iter()
                .map(|m| m.as_ref().and_then(|m| m.get(&k).cloned()))
                .collect();
            // A whole program is named by its kernels' count.
            let k = match whole {
                true => {
                    let mut names: Vec<&str> = main.iter().map(|l| l.kernel.as_str()).collect();
                    names.sort_unstable();
                    names.dedup();
                    format!("({} kernels)", names.len())
                }
                false => k,
            };
            table.push((name.clone(), k, r, b));
        }
    }
    if tty {
        eprint!("\r{}\r", " ".repeat(70));
    }
    if args.json {
        let body: Vec<String> = table
            .iter()
            .map(|(p, k, r, b)| {
                let opt = |v: Option<f64>| v.map_or("null".into(), |x| format!("{x:e}"));
                let kernel = match args.per_program {
                    true => format!(
                        "\"kernels\": {}",
                        k.trim_start_matches('(').split(' ').next().unwrap_or("0")
                    ),
                    false => format!("\"kernel\": {}", tessel_runtime::profile::json_str(k)),
                };
                let each: Vec<String> = args
                    .baseline
                    .iter()
                    .zip(b)
                    .map(|(n, b)| {
                        format!(
                            "{}: {}",
                            tessel_runtime::profile::json_str(n),
                            opt(b.as_ref().map(|b| b.est))
                        )
                    })
                    .collect();
                format!(
                    "  {{\"program\": {}, {kernel}, \"launches\": {}, \"load_sectors_per_request\": {}, \"store_sectors_per_request\": {}, \"load_sectors_over_ideal\": {}, \"store_sectors_over_ideal\": {}, \"bank_conflict_ways\": {}, \"l1_hit_rate\": {}, \"l2_hit_rate\": {}, \"dram_read_bytes\": {}, \"dram_write_bytes\": {}, \"occupancy\": {}, \"estimated_time_s\": {}, \"bound_by\": {}, \"measured_time_s\": {}, \"baseline_estimated_time_s\": {}, \"baselines_estimated_time_s\": {{{}}}}}",
                    tessel_runtime::profile::json_str(p),
                    r.launches,
                    opt(ratio(r.ld_sec, r.ld_req)),
                    opt(ratio(r.st_sec, r.st_req)),
                    opt(ratio(r.ld_sec, r.ld_ideal)),
                    opt(ratio(r.st_sec, r.st_ideal)),
                    opt(ratio(r.sh_wf, r.sh_ideal)),
                    opt(ratio(r.l1.0, r.l1.1)),
                    opt(ratio(r.l2.0, r.l2.1)),
                    r.dram_read,
                    r.dram_write,
                    opt(Some(r.occupancy)),
                    opt(Some(r.est)),
                    r.bound
                        .as_ref()
                        .map_or("null".into(), |(_, b)| tessel_runtime::profile::json_str(b)),
                    opt(r.measured),
                    opt(b.first().and_then(|b| b.as_ref()).map(|b| b.est)),
                    each.join(", "),
                )
            })
            .collect();
        println!("[\n{}\n]", body.join(",\n"));
    } else {
        let mut head = format!(
            "{:<14} {:<22} {:>6} {:>8} {:>8} {:>5} {:>5} {:>6} {:>6} {:>6} {:>10} {:>6} {:>12} {:>12}",
            "program",
            "kernel",
            "launch",
            "ld s/r",
            "st s/r",
            "ld x",
            "st x",
            "bank",
            "L1 hit",
            "L2 hit",
            "DRAM (KB)",
            "occ",
            "est (us)",
            "meas (us)",
        );
        for name in &args.baseline {
            head += &format!(" {:>14} {:>8}", format!("{name} (us)"), "speedup");
        }
        head += &format!(" {:>8}", "bound");
        println!("{head}");
        for (p, k, r, b) in &table {
            let mut line = format!(
                "{:<14} {:<22} {:>6} {:>8} {:>8} {:>5} {:>5} {:>6} {:>6} {:>6} {:>10} {:>6.2} {:>12.2} {:>12}",
                p,
                k,
                r.launches,
                fmt(ratio(r.ld_sec, r.ld_req), 2),
                fmt(ratio(r.st_sec, r.st_req), 2),
                fmt(ratio(r.ld_sec, r.ld_ideal), 2),
                fmt(ratio(r.st_sec, r.st_ideal), 2),
                fmt(ratio(r.sh_wf, r.sh_ideal), 2),
                fmt(ratio(r.l1.0, r.l1.1), 2),
                fmt(ratio(r.l2.0, r.l2.1), 2),
                fmt(
                    (r.l2.1 > 0 || r.dram_read + r.dram_write > 0)
                        .then(|| (r.dram_read + r.dram_write) as f64 / 1e3),
                    1
                ),
                r.occupancy,
                r.est * 1e6,
                fmt(r.measured.map(|m| m * 1e6), 2),
            );
            for b in b {
                let be = b.as_ref().map(|b| b.est * 1e6);
                line += &format!(
                    " {:>14} {:>8}",
                    fmt(be, 2),
                    fmt(be.map(|b| b / (r.est * 1e6)), 2)
                );
            }
            line += &format!(" {:>8}", r.bound.as_ref().map_or("-", |(_, b)| b.as_str()));
            println!("{line}");
        }
        // The geometric mean of each baseline's estimate over this pipeline's, over the
        // rows both have.
        for (i, name) in args.baseline.iter().enumerate() {
            let speedups: Vec<f64> = table
                .iter()
                .filter_map(|(_, _, r, b)| b[i].as_ref().map(|b| b.est / r.est))
                .filter(|x| x.is_finite() && *x > 0.0)
                .collect();
            if !speedups.is_empty() {
                let g =
                    (speedups.iter().map(|x| x.ln()).sum::<f64>() / speedups.len() as f64).exp();
                eprintln!(
                    "tessel-bench: geomean speedup of {} over {name}: {g:.2} ({} rows)",
                    args.pipeline,
                    speedups.len()
                );
            }
        }
        let rows = match args.per_program {
            true => String::new(),
            false => format!("{} kernels of ", table.len()),
        };
        eprintln!(
            "tessel-bench: {rows}{} programs in {:.1} s; sim ran {} thread instructions in {:.2} s ({:.1} M/s)",
            n - failures,
            started.elapsed().as_secs_f64(),
            instr,
            wall,
            if wall > 0.0 { instr as f64 / wall / 1e6 } else { 0.0 }
        );
    }
    if failures > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
