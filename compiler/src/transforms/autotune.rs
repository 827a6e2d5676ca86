//! `tessel-autotune` (Autotune): chooses, for each function with scops, the tile sizes
//! and whether tiles copy their data to shared memory, by sim's estimate of the
//! function's kernels (issue 9 item 6, `--autotune=model`; paper 000 sec. 3 searches its
//! parameter space with a model in the same way).
//!
//! Candidates, in order, from the sizes `tessel-tile` picks by its rule (`D`, those of
//! the first band it tiles): the untuned build (every pass's own rule: the tuner never
//! keeps what its estimate finds slower than a build without it; gemm 1024^3 on gtx690
//! chose 32x128x64 tiles at 4478 us, estimated and run, where the untuned build runs
//! 4046); the rule's sizes with shared memory for any reuse worth a copy and without
//! (the tiles read global memory and its caches); the untiled
//! mapping (`tessel.tile = false`: a thread per iteration, as `pipeline=naive`, so that
//! tuning never keeps what the model finds slower than it); for bands of two or three
//! dimensions the rule's sizes with 2, 4 or 1 points per thread (`tessel.coarsen`)
//! instead of the count chosen at launch; `D` with its outermost member halved or
//! doubled and with its innermost member doubled, with shared memory, then without.
//! Right after the untuned build, where `tessel-time-tile` applies to a scop
//! ([`super::time_tile::applies`]), the untuned build with that scop's steps run 2, then
//! 4, per kernel, then with none, those its rule does not take already
//! (`tessel.time_tile`, 0 for none; without it the pass's rule decides).
//!
//! Each candidate runs, on a copy of the module in a context of its own (the candidates
//! on all cores), the rest of the default pipeline
//! ([`crate::registry::DEFAULT_MAPPING`]) and the device preparation; the host code is
//! interpreted and every launch estimated on a sampled sim of the GPU
//! ([`crate::estimate`]: a few waves' worth of each launch's blocks, spread over its
//! grid, fewer where these run past [`SAMPLE_WARP_INSTRUCTIONS`], and no estimate
//! where the sample runs past [`GIVE_UP_WARP_INSTRUCTIONS`]) with each integer
//! argument of a function set to one value ([`parameter_value`], or the `size`
//! option). The untuned candidate runs first, and only as many others follow as its
//! cost in simulated instructions fits in [`BUDGET`]; where no other candidate's
//! estimate is left to compare the first with, the function is left to the rules. A
//! function takes the candidate of least estimated time; ties keep the earlier; where
//! the value is below the arrays' extents, another candidate must lead the untuned one
//! by [`REDUCED_MARGIN`]. A candidate that fails to compile or estimate is skipped; when
//! the untuned one fails the function is left to the rules, with a remark. Tile sizes never change what a
//! program computes (tiling a permutable band is legal for any size), nor do leaving
//! an array in global memory, not tiling, or a thread's number of points, so every
//! candidate is correct.
//!
//! The choice is written on the function's scops, where the next passes read it:
//! `tile_sizes` or `tessel.tile = false` (`tessel-tile`), `tessel.shared = false`
//! (`tessel-promote-shared` leaves the scop alone) or `true` (it promotes for any
//! reuse of 2.5 reads per element, as the candidate with shared memory was
//! estimated) and `tessel.coarsen`
//! (`tessel-map-to-gpu`), with a remark giving the estimates. Decisions are cached in
//! a text file keyed by the function's IR (its name aside), the GPU and the parameter
//! value, so a second build skips the search.
//!
//! With `measure=true` (`--autotune=measure`, issue 9 item 6), each candidate is instead
//! compiled for the architecture of the CUDA GPU present
//! ([`crate::pipeline::containers`]) and its launches, as the host code makes them with
//! the integer arguments set as above, are timed on that GPU with CUDA events (the least
//! of [`MEASURE_REPEATS`] runs after an untimed one, [`crate::estimate::measure`]); the
//! candidates compile on all cores and run on the GPU one at a time. The decisions are
//! cached under `gpu`'s name (set it to the model of the GPU present), so a build with
//! a warm cache needs no GPU.
//!
//! Precondition: `tessel-schedule` ran. On a terminal, progress goes to stderr.
//!
//! ```mlir
//! tpoly.scop { affine.for %i ... {tpoly.band = 0, tpoly.member = 0, tpoly.permutable} }
//! // => (gtx690)
//! tpoly.scop attributes {tessel.shared = false, tile_sizes = array<i64: 16, 32>} { ... }
//! ```

use crate::mlir::{children, from_string_ref, op_name, string_ref, Session};
use crate::registry::Options;
use mlir_sys::*;
use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use tessel_runtime::gpus::{self, Gpu};

/// Warp instructions sim may run for all the candidates of a module together (2.4 to
/// 7 s of one core, [`tessel_runtime::sim::Sim::executed`]; the candidates run on all
/// cores): the untuned candidate runs first, and only as many candidates as its cost
/// fits in this budget follow, in [`candidates`]' order. Counted in instructions, not
/// seconds, so that the choice is the same on every machine. (At 1G thread
/// instructions, PolyBench's syr2k, symm and covariance at LARGE_DATASET took 12 to 17
/// s cold: their uncoalesced candidates simulate 30M thread instructions a second.)
const BUDGET: u64 = 8_000_000;

/// How much of each launch a candidate's estimate simulates: the whole waves holding
/// `sample` blocks (the pass's option), stopped early where its blocks have run
/// [`SAMPLE_WARP_INSTRUCTIONS`], and given up where the sample runs past
/// [`GIVE_UP_WARP_INSTRUCTIONS`] before it may stop (the candidate is then skipped, as
/// one that fails).
fn sample_of(blocks: u64) -> tessel_runtime::sim::Sample {
    tessel_runtime::sim::Sample {
        blocks,
        stop_after: SAMPLE_WARP_INSTRUCTIONS,
        give_up_after: GIVE_UP_WARP_INSTRUCTIONS,
    }
}

/// Warp instructions past which a launch's sample stops early (at the first count of
/// blocks [`tessel_runtime::sim::Sample`] allows), so that a module of heavy blocks
/// still has its candidates compared within [`BUDGET`]: a matrix product of 1024^3
/// runs 320K per block of 32x128, and its first candidate alone took 28 s over the 256
/// blocks of 512 sampled.
const SAMPLE_WARP_INSTRUCTIONS: u64 = 400_000;

/// Warp instructions past which a launch's sample gives up within its first blocks: a
/// quarter of [`BUDGET`]. syr2k's untiled candidate at LARGE_DATASET ran 13M in its
/// first block (12 s), where the rule's whole sample runs 1.8M.
const GIVE_UP_WARP_INSTRUCTIONS: u64 = BUDGET / 4;

/// How much faster than the untuned build a candidate must be estimated where the
/// estimate runs below the arrays' size ([`parameter_value`]'s cap): terms that grow at
/// different rates with the size (a latency chain along a row, DRAM traffic over the whole array)
/// may rank the candidates otherwise at the real size. matvec (4096 rows) on gtx690: a
/// thread per row reading A directly is estimated 8% faster than the rule's 256x8 boxes
/// at 1024 rows, and runs 3.7x slower at 4096 (its rows thrash L2).
const REDUCED_MARGIN: f64 = 1.25;

/// The parameters one scop gets.
#[derive(Clone, Debug, PartialEq)]
struct Choice {
    /// Tile sizes (`None`: `tessel-tile`'s rule, the scop without `tile_sizes`; empty:
    /// not tiled, `tessel.tile = false`).
    sizes: Option<Vec<i64>>,
    /// Shared memory for any reuse worth a copy (`true`), none (`false`), or
    /// `tessel-promote-shared`'s own rule (`None`, the scop without `tessel.shared`).
    shared: Option<bool>,
    /// Points per thread along the outermost thread dimension (`tessel-map-to-gpu`'s
    /// `coarsen`); `None`: chosen at launch.
    coarsen: Option<i64>,
    /// Steps per kernel of `tessel-time-tile` (`tessel.time_tile`; 0: none); `None`:
    /// the pass's rule.
    steps: Option<i64>,
}

impl Choice {
    fn text(&self) -> String {
        format!(
            "{}/{}/{}",
            match &self.sizes {
                None => "rule".into(),
                Some(s) if s.is_empty() => "untiled".into(),
                Some(s) => join(s, ","),
            },
            match self.shared {
                Some(true) => "shared",
                Some(false) => "global",
                None => "rule",
            },
            self.coarsen.map_or("auto".into(), |f| f.to_string())
        ) + &self.steps.map(|k| format!("/t{k}")).unwrap_or_default()
    }

    fn parse(t: &str) -> Option<Choice> {
        let mut f = t.split('/');
        let (sizes, mem, coarsen) = (f.next()?, f.next()?, f.next()?);
        let steps = match f.next() {
            Some(t) => Some(
                t.strip_prefix('t')?
                    .parse()
                    .ok()
                    .filter(|k: &i64| *k >= 0)?,
            ),
            None => None,
        };
        if f.next().is_some() {
            return None;
        }
        let sizes = match sizes {
            "rule" => None,
            "untiled" => Some(Vec::new()),
            s => Some(
                s.split(',')
                    .map(|n| n.parse().ok().filter(|n: &i64| *n > 0))
                    .collect::<Option<_>>()?,
            ),
        };
        Some(Choice {
            sizes,
            shared: match mem {
                "shared" => Some(true),
                "global" => Some(false),
                "rule" => None,
                _ => return None,
            },
            coarsen: match coarsen {
                "auto" => None,
                n => Some(n.parse().ok().filter(|n: &i64| *n > 0)?),
            },
            steps,
        })
    }

    /// What the pipeline does without the tuner: every rule its own.
    fn untuned() -> Choice {
        Choice {
            sizes: None,
            shared: None,
            coarsen: None,
            steps: None,
        }
    }

    fn describe(&self) -> String {
        let sizes = match &self.sizes {
            None => "the rule's tile sizes".to_string(),
            Some(s) if s.is_empty() => "not tiled".to_string(),
            Some(s) => format!("tile sizes {}", join(s, "x")),
        };
        if *self == Choice::untuned() {
            return "the untuned choices (the rules)".into();
        }
        let memory = match self.shared {
            Some(true) => "shared memory",
            Some(false) => "no shared memory",
            None => "the rule's shared memory",
        };
        let points = self
            .coarsen
            .map(|f| format!(", {f} points per thread"))
            .unwrap_or_default();
        let steps = match self.steps {
            Some(0) => ", no time tiling".into(),
            Some(k) => format!(", {k} steps per kernel"),
            None => String::new(),
        };
        format!("{sizes}, {memory}{points}{steps}")
    }
}

fn join(v: &[i64], sep: &str) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(sep)
}

/// A function with scops: its name, scops (in order) and cache key.
struct Function {
    name: String,
    scops: Vec<MlirOperation>,
    param: i64,
    /// The parameter is below the arrays' extent (see [`REDUCED_MARGIN`]).
    reduced: bool,
    key: String,
}

pub fn run(op: MlirOperation, options: &Options) -> Result<(), String> {
    let gpu = match options.get("gpu") {
        g if g.is_empty() => gpus::from_env()?,
        g => gpus::GPUS
            .iter()
            .find(|m| m.name == g.to_lowercase())
            .ok_or_else(|| {
                let names: Vec<&str> = gpus::GPUS.iter().map(|g| g.name).collect();
                format!(
                    "'tessel-autotune' option gpu={g}: not a modelled GPU (one of: {})",
                    names.join(", ")
                )
            })?,
    };
    let size = match options.get("size").as_str() {
        "auto" => None,
        s => Some(s.parse::<i64>().ok().filter(|n| *n > 0).ok_or_else(|| {
            format!("'tessel-autotune' option size={s}: expected auto or a positive integer")
        })?),
    };
    let sample = match options.get("sample").parse::<u64>() {
        Ok(n) if n > 0 => n,
        _ => {
            return Err(format!(
                "'tessel-autotune' option sample={}: expected a positive integer",
                options.get("sample")
            ))
        }
    };
    let measured = match options.get("measure").as_str() {
        "false" => false,
        "true" => true,
        m => {
            return Err(format!(
                "'tessel-autotune' option measure={m}: expected true or false"
            ))
        }
    };
    // Decisions measured on a GPU are cached under the model's name (`gpu`, which
    // should name the GPU present), so that a build with a warm cache needs no GPU.
    let how = match measured {
        false => format!("model, {}", gpu.name),
        true => format!("measured, {}", gpu.name),
    };
    let cache = Cache::open(&options.get("cache"));
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    let funcs = unsafe { functions(op, gpu, &how, size, sample) };
    if funcs.is_empty() {
        return Ok(());
    }
    let mut todo = Vec::new();
    for f in &funcs {
        match cache.get(&f.key, f.scops.len()) {
            Some((Some(choices), note)) => unsafe {
                apply(f, &choices, &format!("{note} (cached)"))
            },
            Some((None, note)) => unsafe { remark(f.scops[0], &format!("{note} (cached)")) },
            None => todo.push(f),
        }
    }
    if todo.is_empty() {
        return Ok(());
    }
    let measure = match measured {
        true => Some(Measure::open()?),
        false => None,
    };
    let text = unsafe { print_op(op) };
    let all_scops: Vec<MlirOperation> = funcs.iter().flat_map(|f| f.scops.clone()).collect();
    let defaults = rule_sizes(&text, all_scops.len())?;
    // The scops whose steps `tessel-time-tile` can run several per kernel, and how many
    // its rule takes.
    let stepped: Vec<Option<i64>> = all_scops
        .iter()
        .map(|s| unsafe { super::time_tile::applies(*s) })
        .collect();
    let candidates = candidates(&defaults, &stepped);
    let params: HashMap<String, i64> = funcs.iter().map(|f| (f.name.clone(), f.param)).collect();
    // The rule's candidate first: what it cost to simulate bounds how many others are.
    let (times, within) = evaluate_all(&text, &candidates, gpu, &params, sample, &measure);
    let times: Vec<Result<HashMap<String, f64>, String>> =
        times.into_iter().map(|r| r.map(|e| e.times)).collect();
    let skipped = candidates.len() - within;
    let mut cache = cache;
    let mut first = 0;
    for f in &funcs {
        let range = first..first + f.scops.len();
        first = range.end;
        if !todo.iter().any(|t| t.name == f.name) {
            continue;
        }
        let time = |c: usize| times[c].as_ref().ok().and_then(|t| t.get(&f.name).copied());
        // Each candidate's estimate, or why it has none (`-vv`).
        for (c, t) in times.iter().enumerate() {
            let what: Vec<String> = candidates[c][range.clone()]
                .iter()
                .map(|x| x.describe())
                .collect();
            let what = what.join("; ");
            match (t, time(c)) {
                (_, Some(t)) => {
                    tracing::debug!(function = %f.name, candidate = %what, "estimated {:.1} us", t * 1e6)
                }
                (Err(e), None) => {
                    tracing::debug!(function = %f.name, candidate = %what, "no estimate: {e}")
                }
                (Ok(_), None) => {
                    tracing::debug!(function = %f.name, candidate = %what, "no launch estimated")
                }
            }
        }
        if skipped > 0 {
            tracing::debug!(function = %f.name, "{skipped} candidates left out by the estimate's budget");
        }
        let Some(base) = time(0) else {
            let why = match &times[0] {
                Err(e) => e.clone(),
                Ok(_) => "no launch of it was estimated".into(),
            };
            // Cached too: the estimate fails the same way next time, and a build with a
            // warm cache must not pay for it again.
            let note = format!(
                "autotune ({how}, parameters {}): left to the rule: {why}",
                f.param
            );
            unsafe { remark(f.scops[0], &note) };
            cache.put(&f.key, None, &note);
            continue;
        };
        let tried = (0..times.len()).filter(|c| time(*c).is_some()).count();
        if tried < 2 {
            // Nothing to compare the first candidate (the untuned build) with: the
            // rules decide. Others may have been left out by the budget or failed
            // (given up).
            let why = match skipped {
                0 => "gave an estimate".to_string(),
                n => format!("gave an estimate ({n} left out by the estimate's budget)"),
            };
            let note = format!(
                "autotune ({how}, parameters {}): left to the rule: no other candidate than the untuned choices ({:.1} us {}) {why}",
                f.param,
                base * 1e6,
                if measure.is_some() { "measured" } else { "estimated" },
            );
            unsafe { remark(f.scops[0], &note) };
            cache.put(&f.key, None, &note);
            continue;
        }
        let margin = if f.reduced { REDUCED_MARGIN } else { 1.0 };
        let best = (0..times.len())
            .filter_map(|c| time(c).map(|t| (c, t)))
            .filter(|&(c, t)| c == 0 || t * margin < base)
            .fold((0, base), |b, (c, t)| if t < b.1 { (c, t) } else { b });
        let choices = candidates[best.0][range].to_vec();
        let budget = match skipped {
            0 => String::new(),
            n => format!(", {n} left out by the estimate's budget"),
        };
        let budget = match f.reduced {
            true => {
                format!("{budget}; below the arrays' size, others must be {REDUCED_MARGIN}x faster")
            }
            false => budget,
        };
        let what = if measure.is_some() {
            "measured"
        } else {
            "estimated"
        };
        let note = format!(
            "autotune ({}, parameters {}): {}: {:.1} us {what} (untuned: {:.1} us; {tried} candidates{budget})",
            match &measure {
                Some(m) => format!("measured on {}, {}", m.name, gpu.name),
                None => how.clone(),
            },
            f.param,
            choices[0].describe(),
            best.1 * 1e6,
            base * 1e6,
        );
        unsafe { apply(f, &choices, &note) };
        cache.put(&f.key, Some(&choices), &note);
    }
    cache.save();
    Ok(())
}

/// The functions of `module` with scops, in order.
unsafe fn functions(
    module: MlirOperation,
    gpu: &Gpu,
    how: &str,
    size: Option<i64>,
    sample: u64,
) -> Vec<Function> {
    let mut out = Vec::new();
    for f in unsafe { all_ops(module) } {
        if unsafe { op_name(f) } != "func.func" {
            continue;
        }
        let scops: Vec<MlirOperation> = unsafe { all_ops(f) }
            .into_iter()
            .filter(|o| unsafe { op_name(*o) } == "tpoly.scop")
            .collect();
        if scops.is_empty() {
            continue;
        }
        let (param, reduced) = match size {
            Some(n) => (n, false),
            None => unsafe { parameter_value(f) },
        };
        // The function without its name and visibility, which tesselc changes for a
        // program (`@k` becomes `private @k.impl`) and which do not change its kernels.
        let printed = unsafe { print_op(f) };
        let text = printed
            .find('(')
            .map_or(printed.as_str(), |i| &printed[i..]);
        let key = format!(
            "{:016x}",
            fnv(&format!(
                "tessel-autotune 13 {} {}\n{} {how}\n{param} {sample}\n{text}",
                env!("CARGO_PKG_VERSION"),
                crate::registry::DEFAULT_MAPPING,
                gpu.name
            ))
        );
        out.push(Function {
            name: unsafe { crate::mlir::function_name(f) },
            scops,
            param,
            reduced,
            key,
        });
    }
    out
}

/// Every operation under `op`, in pre-order.
unsafe fn all_ops(op: MlirOperation) -> Vec<MlirOperation> {
    let mut out = Vec::new();
    for c in unsafe { children(op) } {
        out.push(c);
        out.extend(unsafe { all_ops(c) });
    }
    out
}

/// The value every integer argument of `f` takes in the estimate: the smallest static
/// extent of at least 8 among its memref arguments (each parameter of a scop usually
/// bounds a dimension of some array, so loops stay within all of them; tiny arrays,
/// such as a stencil's weights, do not count), else the largest, at most 1024; 256
/// without static extents. Also whether the cap cut it below that extent. (A larger
/// floor, 32, ran deriche's loops over 32 columns out of its 24-row arrays and failed
/// the estimate.)
unsafe fn parameter_value(f: MlirOperation) -> (i64, bool) {
    let entry = unsafe { crate::mlir::body(f) };
    let extents: Vec<i64> = (0..unsafe { mlirBlockGetNumArguments(entry) })
        .flat_map(|i| unsafe {
            let t = mlirValueGetType(mlirBlockGetArgument(entry, i));
            let dims = if mlirTypeIsAMemRef(t) {
                mlirShapedTypeGetRank(t)
            } else {
                0
            };
            (0..dims)
                .filter(|d| !mlirShapedTypeIsDynamicDim(t, *d as isize))
                .map(|d| mlirShapedTypeGetDimSize(t, d as isize))
                .collect::<Vec<_>>()
        })
        .collect();
    let value = extents
        .iter()
        .filter(|&&n| n >= 8)
        .min()
        .or(extents.iter().max())
        .copied()
        .unwrap_or(256);
    (value.min(1024), value > 1024)
}

unsafe fn print_op(op: MlirOperation) -> String {
    let mut out = String::new();
    unsafe extern "C" fn sink(s: MlirStringRef, data: *mut std::ffi::c_void) {
        // SAFETY: `data` is the String below; MLIR gives valid UTF-8 pieces.
        unsafe { (*(data as *mut String)).push_str(&from_string_ref(s)) };
    }
    unsafe {
        mlirOperationPrint(
            op,
            Some(sink),
            &mut out as *mut String as *mut std::ffi::c_void,
        )
    };
    out
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf29ce484222325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}

unsafe fn remark(op: MlirOperation, text: &str) {
    unsafe { tessel_dialects::tesselEmitRemark(mlirOperationGetLocation(op), string_ref(text)) };
}

/// Writes `choices` on `f`'s scops.
unsafe fn apply(f: &Function, choices: &[Choice], note: &str) {
    unsafe { set_choices(&f.scops, choices) };
    unsafe { remark(f.scops[0], note) };
}

unsafe fn set_choices(scops: &[MlirOperation], choices: &[Choice]) {
    for (s, c) in scops.iter().zip(choices) {
        unsafe {
            let ctx = mlirOperationGetContext(*s);
            mlirOperationRemoveAttributeByName(*s, string_ref("tile_sizes"));
            mlirOperationRemoveAttributeByName(*s, string_ref("tessel.tile"));
            match &c.sizes {
                Some(v) if v.is_empty() => mlirOperationSetAttributeByName(
                    *s,
                    string_ref("tessel.tile"),
                    mlirBoolAttrGet(ctx, 0),
                ),
                Some(v) => {
                    let a = mlirDenseI64ArrayGet(ctx, v.len() as isize, v.as_ptr());
                    mlirOperationSetAttributeByName(*s, string_ref("tile_sizes"), a);
                }
                None => {}
            }
            mlirOperationRemoveAttributeByName(*s, string_ref("tessel.shared"));
            if let Some(shared) = c.shared {
                mlirOperationSetAttributeByName(
                    *s,
                    string_ref("tessel.shared"),
                    mlirBoolAttrGet(ctx, shared as i32),
                );
            }
            match c.coarsen {
                Some(f) => mlirOperationSetAttributeByName(
                    *s,
                    string_ref("tessel.coarsen"),
                    mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), f),
                ),
                None => {
                    mlirOperationRemoveAttributeByName(*s, string_ref("tessel.coarsen"));
                }
            }
            let steps = string_ref(super::time_tile::STEPS);
            match c.steps {
                Some(k) => mlirOperationSetAttributeByName(
                    *s,
                    steps,
                    mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), k),
                ),
                None => {
                    mlirOperationRemoveAttributeByName(*s, steps);
                }
            }
        }
    }
}

/// The scops of module `text`, in order.
unsafe fn scops_of(m: MlirOperation) -> Vec<MlirOperation> {
    unsafe { all_ops(m) }
        .into_iter()
        .filter(|o| unsafe { op_name(*o) } == "tpoly.scop")
        .collect()
}

/// The sizes `tessel-tile`'s rule records on each of the `n` scops of module `text`
/// (those of the first band it tiles; `None` where it tiles none). The candidates'
/// sizes apply to every band of a scop, where the rule may have chosen differently for
/// each, but the rule itself is the first candidate.
fn rule_sizes(text: &str, n: usize) -> Result<Vec<Option<Vec<i64>>>, String> {
    let s = Session::new();
    let mut m = s.parse(text, "autotune").map_err(diags)?;
    s.run_pipeline(&mut m, "builtin.module(tessel-tile)")
        .map_err(diags)?;
    let scops = unsafe { scops_of(m.as_operation().to_raw()) };
    if scops.len() != n {
        return Err(format!(
            "internal: {} scops after tiling, {n} before",
            scops.len()
        ));
    }
    Ok(scops
        .iter()
        .map(|s| unsafe {
            let a = mlirOperationGetAttributeByName(*s, string_ref("tile_sizes"));
            (!a.ptr.is_null() && mlirAttributeIsADenseI64Array(a)).then(|| {
                (0..mlirDenseArrayGetNumElements(a))
                    .map(|k| mlirDenseI64ArrayGetElement(a, k))
                    .collect()
            })
        })
        .collect())
}

fn diags(d: Vec<crate::mlir::MlirDiag>) -> String {
    d.into_iter()
        .find(|d| d.severity == crate::mlir::Severity::Error)
        .map(|d| d.message)
        .unwrap_or_else(|| "the pipeline failed".into())
}

/// The candidates: for each, one choice per scop (see the module docs); the first is
/// the untuned build's.
fn candidates(defaults: &[Option<Vec<i64>>], stepped: &[Option<i64>]) -> Vec<Vec<Choice>> {
    let mut out: Vec<Vec<Choice>> = Vec::new();
    let mut push = |c: Vec<Choice>| {
        if !out.contains(&c) {
            out.push(c);
        }
    };
    let each = |f: &dyn Fn(&Option<Vec<i64>>) -> Choice| defaults.iter().map(f).collect();
    let rule = |shared, coarsen| Choice {
        sizes: None,
        shared: Some(shared),
        coarsen,
        steps: None,
    };
    push(each(&|_| Choice::untuned()));
    // Time tiling, 2 or 4 steps per kernel, or none, where it applies and the pass's
    // rule does otherwise (the rest untuned): early, as a loop of many steps makes each
    // candidate's estimate costly.
    for k in [2, 4, 0] {
        let c: Vec<Choice> = stepped
            .iter()
            .map(|s| Choice {
                steps: s.filter(|r| *r != k).map(|_| k),
                ..Choice::untuned()
            })
            .collect();
        if c.iter().any(|c| c.steps.is_some()) {
            push(c);
        }
    }
    push(each(&|_| rule(true, None)));
    push(each(&|_| rule(false, None)));
    let tiled = defaults.iter().any(|d| d.is_some());
    // The untiled mapping (a thread per iteration of the parallel loops, as
    // `pipeline=naive`).
    if tiled {
        push(each(&|_| Choice {
            sizes: Some(Vec::new()),
            shared: Some(false),
            coarsen: None,
            steps: None,
        }));
    }
    // The rule's tiles with a fixed number of points per thread, where a band is tiled
    // in two or three dimensions (coarsening applies to those).
    if defaults
        .iter()
        .any(|d| d.as_ref().is_some_and(|d| d.len() >= 2))
    {
        for f in [2, 4, 1] {
            push(each(&|_| rule(true, Some(f))));
        }
    }
    let variants: [fn(&[i64]) -> Option<Vec<i64>>; 3] = [
        |d| scaled(d, 0, 1, 2),
        |d| scaled(d, 0, 2, 1),
        |d| scaled(d, d.len().saturating_sub(1), 2, 1),
    ];
    for shared in [true, false] {
        for v in variants {
            push(each(&|d| Choice {
                sizes: d.as_deref().and_then(v).filter(|s| Some(s) != d.as_ref()),
                shared: Some(shared),
                coarsen: None,
                steps: None,
            }));
        }
    }
    out
}

/// `d` with member `k` multiplied by `num / den` (kept within 1..=1024).
fn scaled(d: &[i64], k: usize, num: i64, den: i64) -> Option<Vec<i64>> {
    let mut v = d.to_vec();
    let x = v.get_mut(k)?;
    *x = (*x * num / den).clamp(1, 1024);
    Some(v)
}

/// Each function's estimated seconds under each candidate the budget admits
/// (`[c][function]`, see [`BUDGET`]), and how many those are; the candidates evaluated
/// on all cores (each in an MLIR context and a sim of its own), with a progress line
/// on a terminal.
fn evaluate_all(
    text: &str,
    candidates: &[Vec<Choice>],
    gpu: &'static Gpu,
    params: &HashMap<String, i64>,
    sample: u64,
    measure: &Option<Measure>,
) -> (Vec<Result<Estimates, String>>, usize) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    // How many candidates the budget admits: all until the rule's (the first) cost is
    // known, so that the other cores start on the next ones meanwhile; those past the
    // budget are dropped, so the choice does not depend on timing.
    let within = AtomicUsize::new(candidates.len());
    let results: Mutex<Vec<Option<Result<Estimates, String>>>> =
        Mutex::new(vec![None; candidates.len()]);
    let progress = std::io::stderr().is_terminal();
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(candidates.len());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= within.load(Ordering::SeqCst) {
                    break;
                }
                let Some(c) = candidates.get(i) else { break };
                let r = evaluate(text, c, gpu, params, sample, measure.as_ref());
                if i == 0 {
                    // Where the rule's own candidate fails, the function is left to the
                    // rule: no other is needed (floyd-warshall at LARGE_DATASET, whose
                    // host code passes the interpreter's limit, took 109 s of 12 such).
                    let n = match &r {
                        Ok(e) => (BUDGET / e.executed.max(1)) as usize,
                        Err(_) => 1,
                    };
                    within.store(n.clamp(1, candidates.len()), Ordering::SeqCst);
                }
                results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
                let d = done.fetch_add(1, Ordering::SeqCst) + 1;
                if progress {
                    eprint!(
                        "\rtessel-autotune ({}): {d}/{} candidates {}",
                        gpu.name,
                        candidates.len(),
                        if measure.is_some() {
                            "measured"
                        } else {
                            "estimated"
                        }
                    );
                    let _ = std::io::stderr().flush();
                }
            });
        }
    });
    if progress {
        eprint!("\r{:60}\r", "");
    }
    let within = within.into_inner();
    let results = results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .take(within)
        .map(|r| r.unwrap_or_else(|| Err("not evaluated".into())))
        .collect();
    (results, within)
}

/// Each function's estimated seconds under candidate `c`, and the thread instructions
/// simulated for them; with `measure`, the seconds its launches take on the GPU.
fn evaluate(
    text: &str,
    c: &[Choice],
    gpu: &'static Gpu,
    params: &HashMap<String, i64>,
    sample: u64,
    measure: Option<&Measure>,
) -> Result<Estimates, String> {
    let s = Session::new();
    let mut m = s.parse(text, "autotune").map_err(diags)?;
    unsafe { set_choices(&scops_of(m.as_operation().to_raw()), c) };
    let pipeline = format!(
        "builtin.module({}, {}, lower-affine)",
        crate::registry::DEFAULT_MAPPING,
        crate::registry::DEVICE_OUTLINE
    );
    s.run_pipeline(&mut m, &pipeline).map_err(diags)?;
    let param = |f: &str| params.get(f).copied().unwrap_or(256);
    let programs = unsafe { crate::estimate::programs(m.as_operation().to_raw(), gpu, &param) }?;
    s.run_pipeline(
        &mut m,
        &format!("builtin.module({})", crate::registry::DEVICE_LOWER),
    )
    .map_err(diags)?;
    if let Some(g) = measure {
        let containers: Vec<_> =
            crate::pipeline::containers(&s, &mut m, text, std::slice::from_ref(&g.arch), 3, false)
                .map_err(|f| f.0.join("\n"))?
                .into_iter()
                .map(|(_, fb)| fb)
                .collect();
        let mut out = Estimates::default();
        // One candidate at a time on the GPU; the others compile meanwhile.
        let mut device = g.device.lock().unwrap_or_else(|e| e.into_inner());
        for (f, p) in &programs {
            let t = crate::estimate::measure(p, &containers, &mut *device, MEASURE_REPEATS)?;
            out.times.insert(f.clone(), t);
        }
        return Ok(out);
    }
    let kernels = unsafe { crate::simform::compile_module(m.as_operation().to_raw()) }?;
    let mut out = Estimates::default();
    for (f, p) in &programs {
        let (t, executed) = crate::estimate::simulate(p, &kernels, gpu, sample_of(sample))?;
        out.times.insert(f.clone(), t);
        out.executed += executed;
    }
    Ok(out)
}

/// Timed runs of each launch with `measure=true` (after one that is not timed); the
/// least counts.
const MEASURE_REPEATS: usize = 3;

/// The GPU that `measure=true` times candidates on, one at a time.
struct Measure {
    device: std::sync::Mutex<tessel_runtime::cuda::Cuda>,
    /// Its architecture (`sm_90`), which the candidates are compiled for.
    arch: String,
    name: String,
}

impl Measure {
    fn open() -> Result<Measure, String> {
        use tessel_runtime::api::Device;
        let fail =
            |e: String| format!("'tessel-autotune' option measure=true needs a CUDA GPU: {e}");
        let device = tessel_runtime::cuda::Cuda::open().map_err(fail)?;
        Ok(Measure {
            arch: device.arch().map_err(fail)?,
            name: device.gpu(),
            device: std::sync::Mutex::new(device),
        })
    }
}

/// A candidate's estimate: each function's seconds, and the warp instructions sim ran
/// for them.
#[derive(Clone, Default)]
struct Estimates {
    times: HashMap<String, f64>,
    executed: u64,
}

/// The decisions file: one line per function, `KEY<TAB>choice;choice...<TAB>note`.
struct Cache {
    path: Option<std::path::PathBuf>,
    entries: Vec<(String, String, String)>,
    changed: bool,
}

impl Cache {
    fn open(option: &str) -> Cache {
        let path = match option {
            "none" => None,
            "" => std::env::var_os("TESSEL_AUTOTUNE_CACHE")
                .map(std::path::PathBuf::from)
                .or_else(|| {
                    std::env::var_os("XDG_CACHE_HOME")
                        .map(std::path::PathBuf::from)
                        .or_else(|| {
                            std::env::var_os("HOME")
                                .map(|h| std::path::PathBuf::from(h).join(".cache"))
                        })
                        .map(|d| d.join("tessel").join("autotune.txt"))
                }),
            p => Some(p.into()),
        };
        let entries = path
            .as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .map(|t| {
                t.lines()
                    .filter_map(|l| {
                        let mut f = l.splitn(3, '\t');
                        Some((f.next()?.into(), f.next()?.into(), f.next()?.into()))
                    })
                    .collect()
            })
            .unwrap_or_default();
        Cache {
            path,
            entries,
            changed: false,
        }
    }

    /// The cached decision for `key`: the choices of its `scops` scops, or `None` where
    /// the function was left to the rule (written `rule`).
    #[allow(clippy::type_complexity)]
    fn get(&self, key: &str, scops: usize) -> Option<(Option<Vec<Choice>>, String)> {
        let (_, c, note) = self.entries.iter().rev().find(|e| e.0 == key)?;
        if c == "rule" {
            return Some((None, note.clone()));
        }
        let choices: Vec<Choice> = c.split(';').map(Choice::parse).collect::<Option<_>>()?;
        (choices.len() == scops).then(|| (Some(choices), note.clone()))
    }

    fn put(&mut self, key: &str, choices: Option<&[Choice]>, note: &str) {
        let c = match choices {
            Some(c) => c.iter().map(Choice::text).collect::<Vec<_>>().join(";"),
            None => "rule".into(),
        };
        self.entries.retain(|e| e.0 != key);
        self.entries
            .push((key.into(), c, note.replace(['\t', '\n'], " ")));
        self.changed = true;
    }

    /// Writes the file (a failure only loses the cache).
    fn save(&self) {
        let Some(p) = self.path.as_ref().filter(|_| self.changed) else {
            return;
        };
        let mut text = String::new();
        for (k, c, n) in &self.entries {
            text.push_str(&format!("{k}\t{c}\t{n}\n"));
        }
        if let Some(d) = p.parent() {
            let _ = std::fs::create_dir_all(d);
        }
        // Written whole and renamed, so that a concurrent build reads an old or a new
        // file, never half of one.
        let tmp = p.with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&tmp, text).is_ok() {
            let _ = std::fs::rename(&tmp, p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_vary_the_rule_sizes_and_shared_memory() {
        let c = candidates(&[Some(vec![32, 32])], &[None]);
        let texts: Vec<String> = c.iter().map(|c| c[0].text()).collect();
        assert_eq!(
            texts,
            [
                "rule/rule/auto",
                "rule/shared/auto",
                "rule/global/auto",
                "untiled/global/auto",
                "rule/shared/2",
                "rule/shared/4",
                "rule/shared/1",
                "16,32/shared/auto",
                "64,32/shared/auto",
                "32,64/shared/auto",
                "16,32/global/auto",
                "64,32/global/auto",
                "32,64/global/auto",
            ]
        );
        // One member: outermost and innermost are the same; no coarsening.
        assert_eq!(candidates(&[Some(vec![256])], &[None]).len(), 8);
        assert_eq!(candidates(&[None, Some(vec![8])], &[None, None]).len(), 8);
        // No band tiled: the rule's sizes only.
        assert_eq!(candidates(&[None], &[None]).len(), 3);
        // A scop whose steps can be time-tiled, the rule taking none: 2 and 4 steps per
        // kernel, the rest untuned; the other scops untuned. With the rule taking 4: 2
        // and none.
        let t = candidates(&[Some(vec![32, 32]), None], &[None, Some(0)]);
        assert_eq!(t.len(), c.len() + 2);
        let stepped: Vec<String> = t[1..3].iter().map(|c| c[1].text()).collect();
        assert_eq!(stepped, ["rule/rule/auto/t2", "rule/rule/auto/t4"]);
        assert_eq!(t[2][0], Choice::untuned());
        assert_eq!(Choice::parse("rule/rule/auto/t4"), Some(t[2][1].clone()));
        let r = candidates(&[None], &[Some(4)]);
        let texts: Vec<String> = r.iter().map(|c| c[0].text()).collect();
        assert_eq!(
            texts,
            [
                "rule/rule/auto",
                "rule/rule/auto/t2",
                "rule/rule/auto/t0",
                "rule/shared/auto",
                "rule/global/auto"
            ]
        );
        assert_eq!(Choice::parse("rule/rule/auto/4"), None);
        assert_eq!(Choice::parse("rule/rule/auto/t0"), Some(r[2][0].clone()));
        assert_eq!(Choice::parse("rule/rule/auto/t-1"), None);
        assert_eq!(Choice::parse("16,32/global/auto"), Some(c[10][0].clone()));
        assert_eq!(Choice::parse("rule/rule/auto"), Some(Choice::untuned()));
        assert_eq!(
            Choice::parse("rule/shared/2").map(|c| c.coarsen),
            Some(Some(2))
        );
        assert_eq!(
            Choice::parse("rule/shared/auto").map(|c| c.sizes),
            Some(None)
        );
        assert_eq!(Choice::parse("untiled/global/auto"), Some(c[3][0].clone()));
        assert_eq!(Choice::parse("0/shared/auto"), None);
        assert_eq!(Choice::parse("rule/shared"), None);
    }

    #[test]
    fn the_cache_keeps_functions_left_to_the_rule() {
        let path = std::env::temp_dir().join(format!("tessel-autotune-{}", std::process::id()));
        let mut cache = Cache::open(path.to_str().unwrap());
        let chosen = [Choice::parse("16,32/global/auto").unwrap()];
        cache.put("a", Some(&chosen), "chosen");
        cache.put("b", None, "left\tto the rule");
        cache.save();
        let cache = Cache::open(path.to_str().unwrap());
        std::fs::remove_file(&path).unwrap();
        assert_eq!(
            cache.get("a", 1),
            Some((Some(chosen.to_vec()), "chosen".into()))
        );
        // Another number of scops: not the same function.
        assert_eq!(cache.get("a", 2), None);
        assert_eq!(cache.get("b", 1), Some((None, "left to the rule".into())));
        assert_eq!(cache.get("c", 1), None);
    }
}
