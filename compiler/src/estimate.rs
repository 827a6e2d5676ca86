//! The estimated time of a compiled module's kernels on one of sim's GPU models, without
//! running the program: what `tessel-autotune` compares candidates by.
//!
//! Input: a module after `gpu-kernel-outlining` (host `func.func`s that launch
//! `gpu.func`s through `gpu.launch_func`), and the same module's kernels in sim's form.
//! Each host function with launches is interpreted with every integer argument (the
//! scop's parameters: sizes, time steps) set to one value: host loops run, their bounds
//! and the launches' grids, blocks and scalar arguments computed from the index
//! arithmetic (`arith`, `scf.for`, `scf.if`, `memref.dim`, the runtime's
//! `tessel_block_extent` for the GPU modelled); each `gpu.alloc` becomes zeroed memory
//! on a sampled sim ([`tessel_runtime::sim::Sim::sampled`]: a launch runs a few waves'
//! worth of blocks spread over its grid, fewer where these run long, its counters
//! scaled to the grid). A launch
//! repeated with the same kernel, grid, block and arguments (a time loop's) is simulated
//! once and counted as often as it runs; a kernel launched in many ways has some of
//! them simulated ([`SIMULATED_PER_KERNEL`]). Copies between host and device are not timed: they are
//! the same for every version of a kernel.
//!
//! An operation the interpreter does not know fails the estimate only where a launch or
//! a loop needs its result.

use crate::mlir::{block_ops, from_string_ref, op_name, string_ref};
use mlir_sys::*;
use std::collections::HashMap;
use std::ffi::c_void;
use tessel_runtime::api::Device;
use tessel_runtime::bytecode::{Arg, FatBinary, Kernel};
use tessel_runtime::gpus::Gpu;

/// Distinct launches of one kernel simulated; a kernel launched in more ways (a host
/// loop whose counter its bounds depend on: LU's `k`) has this many simulated, evenly
/// spaced in the order the host makes them (the first and the last among them), and
/// each other launch takes the time interpolated between its simulated neighbours.
const SIMULATED_PER_KERNEL: usize = 12;
/// Host operations interpreted per function before giving up: about 3 s (1.4 us each).
/// PolyBench's floyd-warshall at LARGE_DATASET launches a kernel for each `k` and `i`
/// (the `j` loop alone is parallel), over 20M operations at n = 1024, which took 28 s
/// before it gave up at 20M.
const MAX_STEPS: u64 = 2_000_000;

#[derive(Clone, Debug, PartialEq)]
enum Val {
    Int(i64),
    Float(f64),
    /// A memref: device allocation (index into [`Host::allocs`]) or host argument
    /// (`None`), and its shape.
    Mem(Option<usize>, Vec<i64>),
}

/// A launch as the host code makes it.
#[derive(Clone, Debug)]
struct HostLaunch {
    kernel: String,
    grid: [u64; 3],
    block: [u64; 3],
    args: Vec<Val>,
    count: u64,
}

struct Host<'g> {
    gpu: &'g Gpu,
    vals: HashMap<usize, Val>,
    /// Bytes of each `gpu.alloc`.
    allocs: Vec<u64>,
    launches: Vec<HostLaunch>,
    /// Each distinct launch's index in `launches`.
    seen: HashMap<String, usize>,
    steps: u64,
}

/// What a region's execution ended with.
enum Flow {
    Next,
    Yield(Vec<Val>),
    Return,
}

fn key(v: MlirValue) -> usize {
    v.ptr as usize
}

impl Host<'_> {
    fn get(&self, v: MlirValue) -> Result<Val, String> {
        self.vals.get(&key(v)).cloned().ok_or_else(|| {
            // SAFETY: `v` is a live value of the interpreted function.
            unsafe {
                if mlirValueIsAOpResult(v) {
                    format!(
                        "the host value of '{}' is unknown to the estimate",
                        op_name(mlirOpResultGetOwner(v))
                    )
                } else {
                    "a host block argument is unknown to the estimate".into()
                }
            }
        })
    }

    fn int(&self, v: MlirValue) -> Result<i64, String> {
        match self.get(v)? {
            Val::Int(i) => Ok(i),
            other => Err(format!("expected an integer on the host, found {other:?}")),
        }
    }

    /// Runs the operations of `block`.
    unsafe fn run_block(&mut self, block: MlirBlock) -> Result<Flow, String> {
        for op in unsafe { block_ops(block) } {
            self.steps += 1;
            if self.steps > MAX_STEPS {
                return Err(format!(
                    "the host code runs more than {MAX_STEPS} operations"
                ));
            }
            match unsafe { self.run_op(op) }? {
                Flow::Next => {}
                f => return Ok(f),
            }
        }
        Ok(Flow::Next)
    }

    unsafe fn operands(&self, op: MlirOperation) -> Vec<MlirValue> {
        (0..unsafe { mlirOperationGetNumOperands(op) })
            .map(|i| unsafe { mlirOperationGetOperand(op, i) })
            .collect()
    }

    unsafe fn set(&mut self, op: MlirOperation, i: isize, v: Val) {
        self.vals
            .insert(key(unsafe { mlirOperationGetResult(op, i) }), v);
    }

    unsafe fn run_op(&mut self, op: MlirOperation) -> Result<Flow, String> {
        let name = unsafe { op_name(op) };
        let ops = unsafe { self.operands(op) };
        let int = |h: &Self, i: usize| h.int(ops[i]);
        match name.as_str() {
            "arith.constant" => {
                let a = unsafe { mlirOperationGetAttributeByName(op, string_ref("value")) };
                let v = unsafe {
                    if mlirAttributeIsAInteger(a) {
                        Val::Int(mlirIntegerAttrGetValueInt(a))
                    } else if mlirAttributeIsAFloat(a) {
                        Val::Float(mlirFloatAttrGetValueDouble(a))
                    } else {
                        return Ok(Flow::Next);
                    }
                };
                unsafe { self.set(op, 0, v) };
            }
            "arith.index_cast" | "arith.index_castui" | "arith.extsi" | "arith.extui"
            | "arith.trunci" => {
                if let Ok(v) = self.get(ops[0]) {
                    unsafe { self.set(op, 0, v) };
                }
            }
            "arith.addi" | "arith.subi" | "arith.muli" | "arith.divsi" | "arith.divui"
            | "arith.remsi" | "arith.remui" | "arith.ceildivsi" | "arith.floordivsi"
            | "arith.minsi" | "arith.maxsi" | "arith.minui" | "arith.maxui" | "arith.andi"
            | "arith.ori" | "arith.xori" | "arith.shli" | "arith.shrsi" => {
                let (Ok(a), Ok(b)) = (int(self, 0), int(self, 1)) else {
                    return Ok(Flow::Next);
                };
                let v = match name.as_str() {
                    "arith.addi" => a.wrapping_add(b),
                    "arith.subi" => a.wrapping_sub(b),
                    "arith.muli" => a.wrapping_mul(b),
                    "arith.minsi" | "arith.minui" => a.min(b),
                    "arith.maxsi" | "arith.maxui" => a.max(b),
                    "arith.andi" => a & b,
                    "arith.ori" => a | b,
                    "arith.xori" => a ^ b,
                    "arith.shli" => a.wrapping_shl(b as u32),
                    "arith.shrsi" => a.wrapping_shr(b as u32),
                    _ if b == 0 => return Ok(Flow::Next),
                    "arith.divsi" | "arith.divui" => a.wrapping_div(b),
                    "arith.remsi" | "arith.remui" => a.wrapping_rem(b),
                    "arith.ceildivsi" => floor_div(a.wrapping_neg(), b).wrapping_neg(),
                    _ => floor_div(a, b),
                };
                unsafe { self.set(op, 0, Val::Int(v)) };
            }
            "arith.cmpi" => {
                let (Ok(a), Ok(b)) = (int(self, 0), int(self, 1)) else {
                    return Ok(Flow::Next);
                };
                let p = unsafe {
                    mlirIntegerAttrGetValueInt(mlirOperationGetAttributeByName(
                        op,
                        string_ref("predicate"),
                    ))
                };
                let r = tessel_runtime::sim::cmp(
                    p as tessel_runtime::bytecode::Pred,
                    tessel_runtime::bytecode::Ty::I64,
                    a as u64,
                    b as u64,
                );
                unsafe { self.set(op, 0, Val::Int(r as i64)) };
            }
            "arith.sitofp" | "arith.uitofp" => {
                if let Ok(a) = int(self, 0) {
                    let v = unsafe { rounded(op, a as f64) };
                    unsafe { self.set(op, 0, Val::Float(v)) };
                }
            }
            "arith.fptosi" | "arith.fptoui" => {
                if let Ok(Val::Float(a)) = self.get(ops[0]) {
                    unsafe { self.set(op, 0, Val::Int(a as i64)) };
                }
            }
            "arith.cmpf" => {
                let (Ok(Val::Float(a)), Ok(Val::Float(b))) = (self.get(ops[0]), self.get(ops[1]))
                else {
                    return Ok(Flow::Next);
                };
                let p = unsafe {
                    mlirIntegerAttrGetValueInt(mlirOperationGetAttributeByName(
                        op,
                        string_ref("predicate"),
                    ))
                };
                if let Some(r) = cmpf(p, a, b) {
                    unsafe { self.set(op, 0, Val::Int(r as i64)) };
                }
            }
            n if n != "arith.select" && (n.starts_with("arith.") || n.starts_with("math.")) => {
                // Floating-point arithmetic on the host (deriche's coefficients from
                // `exp`): kernels take its results as arguments.
                let args: Option<Vec<f64>> = ops
                    .iter()
                    .map(|v| match self.get(*v) {
                        Ok(Val::Float(f)) => Some(f),
                        _ => None,
                    })
                    .collect();
                if let Some(v) = args.and_then(|a| float_op(n, &a)) {
                    if unsafe { mlirOperationGetNumResults(op) } == 1 {
                        let v = unsafe { rounded(op, v) };
                        unsafe { self.set(op, 0, Val::Float(v)) };
                    }
                }
            }
            "arith.select" => {
                if let Ok(c) = int(self, 0) {
                    if let Ok(v) = self.get(ops[if c != 0 { 1 } else { 2 }]) {
                        unsafe { self.set(op, 0, v) };
                    }
                }
            }
            "func.call" => {
                let callee = unsafe { crate::transforms::bound_blocks::callee(op) };
                if callee == crate::transforms::bound_blocks::EXTENT_FN && ops.len() == 4 {
                    let (b, t, e) = (int(self, 0)?, int(self, 1)?, int(self, 2)?);
                    let m = int(self, 3)?;
                    let capacity = self.gpu.sms as u64 * self.gpu.max_threads_per_sm as u64;
                    let v = if b > 0 && t > 0 && e > 0 && m > 0 {
                        let (b, t, e, m) = (b as u64, t as u64, e as u64, m as u64);
                        tessel_runtime::gpus::coarsened_extent(capacity, b, t, e, m) as i64
                    } else {
                        e
                    };
                    unsafe { self.set(op, 0, Val::Int(v)) };
                }
            }
            "memref.dim" => {
                if let (Ok(Val::Mem(_, shape)), Ok(d)) = (self.get(ops[0]), int(self, 1)) {
                    if let Some(&n) = shape.get(d as usize) {
                        unsafe { self.set(op, 0, Val::Int(n)) };
                    }
                }
            }
            "gpu.alloc" => {
                let t = unsafe { mlirValueGetType(mlirOperationGetResult(op, 0)) };
                let mut dynamic = ops.iter();
                let mut shape = Vec::new();
                for d in 0..unsafe { mlirShapedTypeGetRank(t) } {
                    shape.push(if unsafe { mlirShapedTypeIsDynamicDim(t, d as isize) } {
                        self.int(*dynamic.next().ok_or("gpu.alloc without its sizes")?)?
                    } else {
                        unsafe { mlirShapedTypeGetDimSize(t, d as isize) }
                    });
                }
                let elem = unsafe { elem_bytes(mlirShapedTypeGetElementType(t)) };
                let bytes = shape.iter().map(|&n| n.max(0) as u64).product::<u64>() * elem;
                self.allocs.push(bytes);
                let v = Val::Mem(Some(self.allocs.len() - 1), shape);
                unsafe { self.set(op, 0, v) };
            }
            "scf.for" => {
                let (lb, ub, step) = (int(self, 0)?, int(self, 1)?, int(self, 2)?);
                if step <= 0 {
                    return Err("a host loop with a step that is not positive".into());
                }
                let body = unsafe { crate::mlir::body(op) };
                let mut carried: Vec<Val> = ops[3..]
                    .iter()
                    .map(|v| self.get(*v).unwrap_or(Val::Int(0)))
                    .collect();
                let mut i = lb;
                while i < ub {
                    self.vals
                        .insert(key(unsafe { mlirBlockGetArgument(body, 0) }), Val::Int(i));
                    for (k, v) in carried.iter().enumerate() {
                        let a = unsafe { mlirBlockGetArgument(body, k as isize + 1) };
                        self.vals.insert(key(a), v.clone());
                    }
                    match unsafe { self.run_block(body) }? {
                        Flow::Return => return Ok(Flow::Return),
                        Flow::Yield(v) => carried = v,
                        Flow::Next => {}
                    }
                    i += step;
                }
                for (k, v) in carried.into_iter().enumerate() {
                    unsafe { self.set(op, k as isize, v) };
                }
            }
            "scf.if" => {
                let c = int(self, 0)?;
                let region = unsafe { mlirOperationGetRegion(op, if c != 0 { 0 } else { 1 }) };
                let block = unsafe { mlirRegionGetFirstBlock(region) };
                if !block.ptr.is_null() {
                    match unsafe { self.run_block(block) }? {
                        Flow::Return => return Ok(Flow::Return),
                        Flow::Yield(v) => {
                            for (k, v) in v.into_iter().enumerate() {
                                unsafe { self.set(op, k as isize, v) };
                            }
                        }
                        Flow::Next => {}
                    }
                }
            }
            "scf.yield" => {
                let v: Result<Vec<Val>, String> = ops.iter().map(|v| self.get(*v)).collect();
                return Ok(Flow::Yield(v.unwrap_or_default()));
            }
            "func.return" => return Ok(Flow::Return),
            "gpu.launch_func" => unsafe { self.launch(op, &ops)? },
            "gpu.launch" => {
                return Err("a gpu.launch not outlined (run gpu-kernel-outlining first)".into())
            }
            _ => {
                if unsafe { mlirOperationGetNumRegions(op) } > 0 {
                    return Err(format!(
                        "the host operation '{name}' is unknown to the estimate"
                    ));
                }
            }
        }
        Ok(Flow::Next)
    }

    unsafe fn launch(&mut self, op: MlirOperation, ops: &[MlirValue]) -> Result<(), String> {
        let sym = unsafe { mlirOperationGetAttributeByName(op, string_ref("kernel")) };
        let kernel = unsafe { from_string_ref(mlirSymbolRefAttrGetLeafReference(sym)) };
        let dim = |h: &Self, i: usize| -> Result<u64, String> {
            let n = h.int(ops[i])?;
            u64::try_from(n).map_err(|_| format!("kernel '{kernel}': a launch extent of {n}"))
        };
        let grid = [dim(self, 0)?, dim(self, 1)?, dim(self, 2)?];
        let block = [dim(self, 3)?, dim(self, 4)?, dim(self, 5)?];
        // The kernel's operands are the last ones (no async tokens before
        // gpu-async-region, no dynamic shared memory from Tessel's passes); how many
        // the kernel takes is checked at the simulated launch.
        let args: Vec<Val> = ops[6..]
            .iter()
            .map(|v| self.get(*v))
            .collect::<Result<_, _>>()?;
        // Launches told apart by kernel, shape and arguments (a host loop may make
        // thousands: a hash, not a search).
        let mut id = format!("{kernel} {grid:?} {block:?}");
        for a in &args {
            match a {
                Val::Int(i) => id += &format!(" i{i}"),
                Val::Float(f) => id += &format!(" f{:x}", f.to_bits()),
                Val::Mem(m, shape) => id += &format!(" m{m:?}{shape:?}"),
            }
        }
        match self.seen.get(&id) {
            Some(&i) => self.launches[i].count += 1,
            None => {
                self.seen.insert(id, self.launches.len());
                self.launches.push(HostLaunch {
                    kernel,
                    grid,
                    block,
                    args,
                    count: 1,
                });
            }
        }
        Ok(())
    }
}

/// `v` rounded to the type of `op`'s result (f32 or f64).
unsafe fn rounded(op: MlirOperation, v: f64) -> f64 {
    match unsafe { mlirTypeIsAF32(mlirValueGetType(mlirOperationGetResult(op, 0))) } {
        true => v as f32 as f64,
        false => v,
    }
}

/// The floating-point operation `name` of `arith` or `math` on `a` (`None`: not one the
/// estimate knows, or the wrong number of operands).
fn float_op(name: &str, a: &[f64]) -> Option<f64> {
    let op = name.split_once('.')?.1;
    Some(match (op, a) {
        ("addf", [x, y]) => x + y,
        ("subf", [x, y]) => x - y,
        ("mulf", [x, y]) => x * y,
        ("divf", [x, y]) => x / y,
        ("remf", [x, y]) => x % y,
        ("maximumf" | "maxnumf", [x, y]) => x.max(*y),
        ("minimumf" | "minnumf", [x, y]) => x.min(*y),
        ("powf", [x, y]) => x.powf(*y),
        ("atan2", [x, y]) => x.atan2(*y),
        ("copysign", [x, y]) => x.copysign(*y),
        ("fma", [x, y, z]) => x.mul_add(*y, *z),
        ("extf" | "truncf", [x]) => *x,
        ("negf", [x]) => -x,
        ("absf", [x]) => x.abs(),
        ("exp", [x]) => x.exp(),
        ("exp2", [x]) => x.exp2(),
        ("expm1", [x]) => x.exp_m1(),
        ("log", [x]) => x.ln(),
        ("log2", [x]) => x.log2(),
        ("log10", [x]) => x.log10(),
        ("log1p", [x]) => x.ln_1p(),
        ("sqrt", [x]) => x.sqrt(),
        ("rsqrt", [x]) => 1.0 / x.sqrt(),
        ("cbrt", [x]) => x.cbrt(),
        ("sin", [x]) => x.sin(),
        ("cos", [x]) => x.cos(),
        ("tan", [x]) => x.tan(),
        ("asin", [x]) => x.asin(),
        ("acos", [x]) => x.acos(),
        ("atan", [x]) => x.atan(),
        ("sinh", [x]) => x.sinh(),
        ("cosh", [x]) => x.cosh(),
        ("tanh", [x]) => x.tanh(),
        ("floor", [x]) => x.floor(),
        ("ceil", [x]) => x.ceil(),
        ("round", [x]) => x.round(),
        ("roundeven", [x]) => x.round_ties_even(),
        ("trunc", [x]) => x.trunc(),
        _ => return None,
    })
}

/// `arith.cmpf` with predicate `p` (MLIR's `CmpFPredicate`) on `a` and `b`.
fn cmpf(p: i64, a: f64, b: f64) -> Option<bool> {
    let unordered = a.is_nan() || b.is_nan();
    let ordered = |r: bool| !unordered && r;
    let or_unordered = |r: bool| unordered || r;
    Some(match p {
        0 => false,
        1 => ordered(a == b),
        2 => ordered(a > b),
        3 => ordered(a >= b),
        4 => ordered(a < b),
        5 => ordered(a <= b),
        6 => ordered(a != b),
        7 => !unordered,
        8 => or_unordered(a == b),
        9 => or_unordered(a > b),
        10 => or_unordered(a >= b),
        11 => or_unordered(a < b),
        12 => or_unordered(a <= b),
        13 => or_unordered(a != b),
        14 => unordered,
        15 => true,
        _ => return None,
    })
}

/// `a / b` rounded down (`b` not 0).
fn floor_div(a: i64, b: i64) -> i64 {
    let q = a.wrapping_div(b);
    match a.wrapping_rem(b) != 0 && ((a < 0) != (b < 0)) {
        true => q - 1,
        false => q,
    }
}

/// Bytes of one element of `t`.
unsafe fn elem_bytes(t: MlirType) -> u64 {
    unsafe {
        if mlirTypeIsAInteger(t) {
            (mlirIntegerTypeGetWidth(t) as u64).div_ceil(8).max(1)
        } else if mlirTypeIsAF64(t) || mlirTypeIsAIndex(t) {
            8
        } else if mlirTypeIsAF16(t) || mlirTypeIsABF16(t) {
            2
        } else {
            4
        }
    }
}

/// The allocations and launches of one host function's run.
pub struct Program {
    allocs: Vec<u64>,
    launches: Vec<HostLaunch>,
}

/// The launches of host function `f` with every integer argument `param`.
unsafe fn host_launches(f: MlirOperation, gpu: &Gpu, param: i64) -> Result<Program, String> {
    let mut h = Host {
        gpu,
        vals: HashMap::new(),
        allocs: Vec::new(),
        launches: Vec::new(),
        seen: HashMap::new(),
        steps: 0,
    };
    let entry = unsafe { crate::mlir::body(f) };
    for i in 0..unsafe { mlirBlockGetNumArguments(entry) } {
        let a = unsafe { mlirBlockGetArgument(entry, i) };
        let t = unsafe { mlirValueGetType(a) };
        let v = unsafe {
            if mlirTypeIsAMemRef(t) {
                let shape = (0..mlirShapedTypeGetRank(t))
                    .map(|d| match mlirShapedTypeIsDynamicDim(t, d as isize) {
                        true => param,
                        false => mlirShapedTypeGetDimSize(t, d as isize),
                    })
                    .collect();
                Val::Mem(None, shape)
            } else if mlirTypeIsAInteger(t) || mlirTypeIsAIndex(t) {
                Val::Int(param)
            } else {
                Val::Float(1.0)
            }
        };
        h.vals.insert(key(a), v);
    }
    unsafe { h.run_block(entry) }?;
    Ok(Program {
        allocs: h.allocs,
        launches: h.launches,
    })
}

/// The host functions of `module` that launch kernels, each with its run on `gpu`
/// (every integer argument of function `name` set to `param(name)`), for
/// [`simulate`].
///
/// # Safety
/// `module` is a live module after `gpu-kernel-outlining`, with affine operations
/// lowered on the host.
pub unsafe fn programs(
    module: MlirOperation,
    gpu: &Gpu,
    param: &dyn Fn(&str) -> i64,
) -> Result<Vec<(String, Program)>, String> {
    let mut out = Vec::new();
    for f in unsafe { crate::mlir::children(module) } {
        if unsafe { op_name(f) } != "func.func"
            || unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(f, 0)) }
                .ptr
                .is_null()
        {
            continue;
        }
        let name = unsafe { crate::mlir::function_name(f) };
        let p = unsafe { host_launches(f, gpu, param(&name)) }
            .map_err(|e| format!("function '{name}': {e}"))?;
        if !p.launches.is_empty() {
            out.push((name, p));
        }
    }
    Ok(out)
}

/// Runs `host`'s launches on a sim of `gpu` that runs `sample` of each
/// ([`tessel_runtime::sim::Sim::sampled`]) and returns their total estimated seconds and
/// the warp instructions simulated; `kernels`: the module's kernels in sim's form
/// (`simform::compile_module` of the module after the device preparation).
pub fn simulate(
    host: &Program,
    kernels: &[(String, Vec<Kernel>)],
    gpu: &'static Gpu,
    sample: tessel_runtime::sim::Sample,
) -> Result<(f64, u64), String> {
    let mut sim = tessel_runtime::sim::Sim::sampled(gpu, sample)?;
    let images: Vec<(Vec<u8>, &[Kernel])> = kernels
        .iter()
        .map(|(_, ks)| {
            let fb = FatBinary {
                sim: ks.clone(),
                code: Vec::new(),
            };
            (fb.encode(), ks.as_slice())
        })
        .collect();
    let total = run_launches(host, &images, &mut sim, |d, f, l, p| {
        Ok(d.launch(f, l.grid, l.block, 0, p)?
            .estimated_time_s
            .unwrap_or(0.0))
    })?;
    Ok((total, sim.executed()))
}

/// Runs `host`'s launches on a real GPU (`device`) and returns their total seconds,
/// each launch's the least of `repeats` runs measured with CUDA events after one run
/// that is not timed (which loads the code and warms the caches as a time loop would);
/// `containers`: each `gpu.module`'s container, with code for the device's
/// architecture ([`crate::pipeline::containers`]).
pub fn measure(
    host: &Program,
    containers: &[FatBinary],
    device: &mut dyn Device,
    repeats: usize,
) -> Result<f64, String> {
    let images: Vec<(Vec<u8>, &[Kernel])> = containers
        .iter()
        .map(|fb| (fb.encode(), fb.sim.as_slice()))
        .collect();
    run_launches(host, &images, device, |d, f, l, p| {
        d.launch(f, l.grid, l.block, 0, p)?;
        let mut best = f64::INFINITY;
        for _ in 0..repeats.max(1) {
            let t = d.launch(f, l.grid, l.block, 0, p)?.measured_time_s;
            best = best.min(t.ok_or("the device does not time launches")?);
        }
        Ok(best)
    })
}

type Time<'a> =
    dyn FnMut(&mut dyn Device, usize, &HostLaunch, &[*mut c_void]) -> Result<f64, String> + 'a;

/// Loads `images` (module images, each with the kernels in sim's form that give their
/// arguments' layout) on `device`, allocates the host's buffers zeroed, runs the
/// launches [`SIMULATED_PER_KERNEL`] picks and returns the total of the seconds `time`
/// gives them, the others interpolated; the buffers and modules are freed.
fn run_launches(
    host: &Program,
    images: &[(Vec<u8>, &[Kernel])],
    device: &mut dyn Device,
    mut time: impl FnMut(&mut dyn Device, usize, &HostLaunch, &[*mut c_void]) -> Result<f64, String>,
) -> Result<f64, String> {
    let mut modules = Vec::new();
    let mut ptrs = Vec::new();
    let r = (|| {
        let mut functions: HashMap<&str, (usize, &Kernel)> = HashMap::new();
        for (image, ks) in images {
            let m = device.load(image)?;
            modules.push(m);
            for k in ks.iter() {
                functions.insert(&k.name, (device.function(m, &k.name)?, k));
            }
        }
        for &bytes in &host.allocs {
            let p = device.alloc(bytes)?;
            ptrs.push(p as u64);
            // sim's memory starts zeroed; a GPU's is set so, as the estimate assumes.
            if device.kind() != "sim" {
                device.memset(p, 0, 1, bytes)?;
            }
        }
        launches_time(host, &functions, &ptrs, device, &mut time)
    })();
    for p in ptrs {
        let _ = device.free(p as *mut c_void);
    }
    for m in modules {
        device.unload(m);
    }
    r
}

/// The host's launches' total seconds: each kernel's distinct launches, in the order the
/// host makes them, some run through `time` and the rest interpolated.
fn launches_time(
    host: &Program,
    functions: &HashMap<&str, (usize, &Kernel)>,
    ptrs: &[u64],
    device: &mut dyn Device,
    time: &mut Time<'_>,
) -> Result<f64, String> {
    let mut by_kernel: Vec<(&str, Vec<&HostLaunch>)> = Vec::new();
    for l in &host.launches {
        match by_kernel.iter_mut().find(|(k, _)| *k == l.kernel) {
            Some((_, v)) => v.push(l),
            None => by_kernel.push((&l.kernel, vec![l])),
        }
    }
    let mut total = 0.0;
    for (kernel, launches) in by_kernel {
        let (f, k) = *functions
            .get(kernel)
            .ok_or_else(|| format!("no kernel '{kernel}' in sim's form"))?;
        let n = launches.len();
        let picked: Vec<usize> = match n <= SIMULATED_PER_KERNEL {
            true => (0..n).collect(),
            false => {
                let m = SIMULATED_PER_KERNEL;
                let mut v: Vec<usize> = (0..m).map(|i| i * (n - 1) / (m - 1)).collect();
                v.dedup();
                v
            }
        };
        let mut times = Vec::with_capacity(picked.len());
        for &i in &picked {
            let l = launches[i];
            let mut words = params(k, &l.args, ptrs)?;
            let p: Vec<*mut c_void> = words
                .iter_mut()
                .map(|w| w as *mut u64 as *mut c_void)
                .collect();
            times.push(time(device, f, l, &p)?);
        }
        for (i, l) in launches.iter().enumerate() {
            // The simulated launches at or around position `i`.
            let after = picked.partition_point(|&p| p < i).min(picked.len() - 1);
            let t = if picked[after] == i || after == 0 {
                times[after]
            } else {
                let (a, b) = (picked[after - 1], picked[after]);
                let w = (i - a) as f64 / (b - a) as f64;
                times[after - 1] * (1.0 - w) + times[after] * w
            };
            total += t * l.count as f64;
        }
    }
    Ok(total)
}

/// The launch parameters of kernel `k` (as `gpu-to-llvm` passes them: memrefs as
/// unpacked descriptors), one word each.
fn params(k: &Kernel, args: &[Val], ptrs: &[u64]) -> Result<Vec<u64>, String> {
    if args.len() != k.args.len() {
        return Err(format!(
            "kernel '{}' takes {} arguments, the launch gives {}",
            k.name,
            k.args.len(),
            args.len()
        ));
    }
    let mut w = Vec::new();
    for (a, v) in k.args.iter().zip(args) {
        match (a, v) {
            (Arg::Scalar { ty, .. }, Val::Int(i)) => w.push(*i as u64 & ty.mask()),
            (Arg::Scalar { ty, .. }, Val::Float(f)) => w.push(match ty.bytes() {
                8 => f.to_bits(),
                _ => (*f as f32).to_bits() as u64,
            }),
            (Arg::MemRef { rank, .. }, Val::Mem(Some(a), shape))
                if shape.len() == *rank as usize =>
            {
                w.extend([ptrs[*a], ptrs[*a], 0]);
                w.extend(shape.iter().map(|&n| n as u64));
                let mut strides = vec![1i64; shape.len()];
                for d in (0..shape.len().saturating_sub(1)).rev() {
                    strides[d] = strides[d + 1] * shape[d + 1];
                }
                w.extend(strides.iter().map(|&s| s as u64));
            }
            _ => {
                return Err(format!(
                    "kernel '{}': an argument the estimate cannot give ({v:?})",
                    k.name
                ))
            }
        }
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    #[test]
    fn floor_and_ceiling_division() {
        use super::floor_div;
        let ceil = |a: i64, b: i64| -floor_div(-a, b);
        assert_eq!(
            [
                floor_div(7, 2),
                floor_div(-7, 2),
                floor_div(7, -2),
                floor_div(-7, -2)
            ],
            [3, -4, -4, 3]
        );
        assert_eq!(
            [ceil(7, 2), ceil(-7, 2), ceil(7, -2), ceil(-7, -2)],
            [4, -3, -3, 4]
        );
        assert_eq!([floor_div(6, 3), ceil(6, 3)], [2, 2]);
    }

    #[test]
    fn host_floating_point() {
        use super::{cmpf, float_op};
        assert_eq!(float_op("math.exp", &[0.0]), Some(1.0));
        assert_eq!(float_op("arith.subf", &[1.0, 3.0]), Some(-2.0));
        assert_eq!(float_op("math.powf", &[2.0, 10.0]), Some(1024.0));
        assert_eq!(float_op("math.fma", &[2.0, 3.0, 1.0]), Some(7.0));
        // Wrong arity or an unknown operation: no value.
        assert_eq!(float_op("arith.addf", &[1.0]), None);
        assert_eq!(float_op("math.frobnicate", &[1.0]), None);
        // olt, uge, ord and uno, with a NaN.
        assert_eq!(cmpf(4, 1.0, 2.0), Some(true));
        assert_eq!(cmpf(4, f64::NAN, 2.0), Some(false));
        assert_eq!(cmpf(10, f64::NAN, 2.0), Some(true));
        assert_eq!(cmpf(7, 1.0, f64::NAN), Some(false));
        assert_eq!(cmpf(14, 1.0, f64::NAN), Some(true));
        assert_eq!(cmpf(16, 1.0, 1.0), None);
    }
}
