//! GPU mapping and the gpu-dialect form of a SCoP (`tesselc --emit=gpu`).
//!
//! This is the simple, always-correct mapping of PPCG sec. 6 without tiling for reuse:
//! * every outermost parallel loop (parallel as decided by [`crate::analysis::deps`])
//!   becomes one kernel launch; when its body is a single loop that is parallel too and
//!   whose bounds do not depend on it, the pair maps to a 2-D grid (inner loop to x, so
//!   consecutive threads touch consecutive elements: the coalescing rule of paper 004
//!   sec. 3), otherwise the loop maps to a 1-D grid. Partial blocks are guarded.
//! * loops and statements inside a kernel run sequentially in each thread;
//! * sequential loops that contain parallel ones stay on the host around the launches
//!   (host/kernel split, PPCG sec. 6.3); runs of code without any parallel loop execute
//!   in a single-thread kernel, so data never leaves the device in between;
//! * the host allocates every array on the device, copies every array in, copies the
//!   written arrays out (PPCG sec. 7.1 with whole arrays); arrays declared in the region
//!   live on the device only. Scalars live in device memory, those of the enclosing
//!   function copied in from the reference the caller passes and, when the function may
//!   read them after the region, back out; in a parallel kernel each thread gets a private
//!   copy initialized from the device value (the analysis guarantees no value written
//!   there is live after the loop).
//!
//! Before (affine form):
//! ```text
//! affine.for %i = 0 to %n { affine.for %j = 0 to %m { affine.store ..., %C[%i, %j] } }
//! ```
//! After:
//! ```text
//! %C.dev = gpu.alloc(...)   gpu.memcpy %C.dev, %C
//! gpu.launch blocks(...) in (%gx = ceil(m/32), %gy = ceil(n/8), %gz = 1)
//!            threads(...) in (%sx = 32, %sy = 8, %sz = 1) {
//!   %j = bx*32+tx  %i = by*8+ty  scf.if (i < n && j < m) { memref.store ..., %C.dev[%i, %j] }
//! }
//! gpu.memcpy %C, %C.dev
//! ```

use super::affine::{dynamic_sizes, globals, iv_name, prologue, signature, Names};
use super::text::*;
use crate::analysis::deps::Parallelism;
use crate::scop::*;

/// The `gpu.module` that receives every kernel of a translation unit, so that one PTX or
/// HSACO object holds them all.
pub const KERNEL_MODULE: &str = "tessel_kernels";

/// Block shapes of the simple mapping.
#[derive(Clone, Copy, Debug)]
pub struct MapOptions {
    pub block_1d: i64,
    pub block_2d: (i64, i64),
    /// Print a CPU emulation instead of GPU code: every launch becomes loops over blocks
    /// and threads (in reverse order, so that a wrongly parallel loop changes the result),
    /// device buffers become `memref.alloc`, and a C-ABI entry point with the C function's
    /// name and signature wraps the function (`tesselc --emit=emulated`).
    pub emulate: bool,
    /// Also print a C-ABI entry point named after the C function plus `entry_suffix`,
    /// calling the memref-based `NAME.impl` (`tesselc -c` and whole programs).
    pub c_abi: bool,
    pub entry_suffix: &'static str,
}

impl Default for MapOptions {
    fn default() -> Self {
        MapOptions {
            block_1d: 256,
            block_2d: (32, 8),
            emulate: false,
            c_abi: false,
            entry_suffix: "",
        }
    }
}

struct Gpu<'a, 'n> {
    n: &'n mut Names<'a>,
    par: &'n Parallelism,
    opts: MapOptions,
    /// Device copies of arrays and scalars.
    dev_arrays: Vec<String>,
    dev_scalars: Vec<String>,
    /// Per-thread copies of scalars inside the current parallel kernel.
    private: Vec<Option<String>>,
    kernels: usize,
}

impl ValueEnv for Gpu<'_, '_> {
    fn load(&mut self, b: &mut Body, acc: &Access, _ty: ElemTy) -> String {
        let idx = subscripts(b, self, acc);
        let t = self.n.scop.arrays[acc.array].memref_type();
        b.op(format!(
            "memref.load {}[{}] : {t}",
            self.dev_arrays[acc.array],
            idx.join(", ")
        ))
    }
    fn load_scalar(&mut self, b: &mut Body, s: usize, ty: ElemTy) -> String {
        let m = self.scalar_mem(s);
        b.op(format!("memref.load {m}[] : memref<{}>", ty.mlir()))
    }
    fn index(&mut self, b: &mut Body, a: &Aff) -> String {
        let n = &*self.n;
        b.aff_value(a, "index", &|v| n.var_value(v))
    }
    fn param(&mut self, _b: &mut Body, p: usize) -> String {
        self.n.param_value(p)
    }
}

impl Gpu<'_, '_> {
    fn scalar_mem(&self, s: usize) -> String {
        self.private[s]
            .clone()
            .unwrap_or_else(|| self.dev_scalars[s].clone())
    }

    fn bound(&mut self, b: &mut Body, affs: &[Aff], max: bool) -> String {
        let mut v = self.index(b, &affs[0]);
        for a in &affs[1..] {
            let w = self.index(b, a);
            v = b.op(format!(
                "arith.{} {v}, {w} : index",
                if max { "maxsi" } else { "minsi" }
            ));
        }
        v
    }

    fn cond(&mut self, b: &mut Body, c: &Cond) -> String {
        let mut acc: Option<String> = None;
        for (a, eq) in &c.cons {
            let v = self.index(b, a);
            let z = b.const_index(0);
            let t = b.op(format!(
                "arith.cmpi {}, {v}, {z} : index",
                if *eq { "eq" } else { "sge" }
            ));
            acc = Some(match acc {
                None => t,
                Some(p) => b.op(format!("arith.andi {p}, {t} : i1")),
            });
        }
        acc.unwrap_or_else(|| b.op("arith.constant true"))
    }

    fn has_parallel(&self, nodes: &[Node]) -> bool {
        nodes.iter().any(|n| match n {
            Node::Loop(l) => self.par.parallel[l.id] || self.has_parallel(&l.body),
            Node::If { then, els, .. } => self.has_parallel(then) || self.has_parallel(els),
            // A condition on device data is evaluated on the device: its whole subtree
            // runs in one sequential kernel.
            Node::DataIf { .. } | Node::Stmt(_) => false,
        })
    }

    /// Host code: launches for parallel loops, host loops around them.
    fn host(&mut self, b: &mut Body, nodes: &[Node]) {
        let mut seq: Vec<&Node> = Vec::new();
        for node in nodes {
            let on_host = match node {
                Node::Loop(l) => self.par.parallel[l.id] || self.has_parallel(&l.body),
                Node::If { then, els, .. } => self.has_parallel(then) || self.has_parallel(els),
                _ => false,
            };
            if !on_host {
                seq.push(node);
                continue;
            }
            self.sequential_kernel(b, &std::mem::take(&mut seq));
            let outer = node.loc().map(|l| b.at(l));
            match node {
                Node::Loop(l) if self.par.parallel[l.id] => self.parallel_kernel(b, l),
                Node::Loop(l) => self.scf_for(b, l, Self::host),
                Node::If { cond, then, els } => {
                    let c = self.cond(b, cond);
                    self.scf_if(b, &c, then, els, Self::host);
                }
                _ => unreachable!("only loops and affine conditions stay on the host"),
            }
            if let Some(o) = outer {
                b.loc = o;
            }
        }
        self.sequential_kernel(b, &seq);
    }

    /// `gpu.launch` with the given grid and block sizes; `body` prints the kernel body.
    fn launch(
        &mut self,
        b: &mut Body,
        grid: [String; 3],
        block: [i64; 3],
        body: &mut dyn FnMut(&mut Self, &mut Body, &[String; 6]),
    ) {
        let k = self.kernels;
        self.kernels += 1;
        let bs: Vec<String> = block.iter().map(|v| b.const_index(*v)).collect();
        let ids = [
            format!("%bx.{k}"),
            format!("%by.{k}"),
            format!("%bz.{k}"),
            format!("%tx.{k}"),
            format!("%ty.{k}"),
            format!("%tz.{k}"),
        ];
        if self.opts.emulate {
            // Blocks y, x, then threads y, x, each walked from last to first.
            let c0 = b.const_index(0);
            let c1 = b.const_index(1);
            let loops = [
                (&ids[1], grid[1].clone()),
                (&ids[0], grid[0].clone()),
                (&ids[4], bs[1].clone()),
                (&ids[3], bs[0].clone()),
            ];
            for (id, n) in loops {
                let r = format!("%r{}", &id[1..]);
                b.line(format!("scf.for {r} = {c0} to {n} step {c1} {{"));
                b.indent += 1;
                let last = b.op(format!("arith.subi {n}, {c1} : index"));
                b.line(format!("{id} = arith.subi {last}, {r} : index"));
            }
            b.line(format!("{} = arith.constant 0 : index", ids[2]));
            b.line(format!("{} = arith.constant 0 : index", ids[5]));
            body(self, b, &ids);
            for _ in 0..4 {
                b.indent -= 1;
                b.line("}");
            }
            return;
        }
        b.line(format!(
            "gpu.launch blocks({}, {}, {}) in (%gx.{k} = {}, %gy.{k} = {}, %gz.{k} = {}) threads({}, {}, {}) in (%sx.{k} = {}, %sy.{k} = {}, %sz.{k} = {}) module(@{KERNEL_MODULE}) function(@{}_k{k}) {{",
            ids[0], ids[1], ids[2], grid[0], grid[1], grid[2], ids[3], ids[4], ids[5], bs[0], bs[1], bs[2],
            ident(&self.n.scop.name)
        ));
        b.indent += 1;
        body(self, b, &ids);
        b.line("gpu.terminator");
        b.indent -= 1;
        b.line("}");
    }

    /// Runs code without parallelism in one thread on the device.
    fn sequential_kernel(&mut self, b: &mut Body, nodes: &[&Node]) {
        if nodes.is_empty() {
            return;
        }
        let first = nodes.iter().find_map(|n| n.loc());
        let outer = first.map(|l| b.at(l));
        tracing::info!(
            scop = %self.n.scop.name,
            at = %first.map(|l| l.to_string()).unwrap_or_default(),
            "mapping: no parallel loop here; one thread runs this code (grid 1, block 1)"
        );
        let one = b.const_index(1);
        let grid = [one.clone(), one.clone(), one];
        self.launch(b, grid, [1, 1, 1], &mut |g, b, _| {
            for n in nodes {
                g.device(b, std::slice::from_ref(*n));
            }
        });
        if let Some(o) = outer {
            b.loc = o;
        }
    }

    /// Trip count `max(0, ceil((ub - lb) / step))` of a loop, on the host.
    fn trip_count(&mut self, b: &mut Body, l: &Loop) -> (String, String) {
        let lb = self.bound(b, &l.lbs, true);
        let ub = self.bound(b, &l.ubs, false);
        let d = b.op(format!("arith.subi {ub}, {lb} : index"));
        let z = b.const_index(0);
        let d = b.op(format!("arith.maxsi {d}, {z} : index"));
        let n = if l.step == 1 {
            d
        } else {
            let s = b.const_index(l.step);
            b.op(format!("arith.ceildivsi {d}, {s} : index"))
        };
        (lb, n)
    }

    fn parallel_kernel(&mut self, b: &mut Body, l: &Loop) {
        // A 2-D mapping needs a perfectly nested parallel loop whose bounds do not use `l`.
        let inner = match l.body.as_slice() {
            [Node::Loop(l2)]
                if self.par.parallel[l2.id]
                    && !l2.lbs.iter().chain(&l2.ubs).any(|a| a.uses(Var::Iv(l.id))) =>
            {
                Some(l2)
            }
            _ => None,
        };
        let (lb_y, n_y) = self.trip_count(b, l);
        let (lb_x, n_x, bx, by) = match inner {
            Some(l2) => {
                let (lb, n) = self.trip_count(b, l2);
                (lb, n, self.opts.block_2d.0, self.opts.block_2d.1)
            }
            None => (lb_y.clone(), n_y.clone(), self.opts.block_1d, 1),
        };
        match inner {
            Some(l2) => tracing::info!(
                scop = %self.n.scop.name,
                at = %l.loc,
                "mapping: loop '{}' on threads x, loop '{}' on threads y, block {bx}x{by}, grid ceil(trips/block) per dimension",
                l2.name,
                l.name
            ),
            None => tracing::info!(
                scop = %self.n.scop.name,
                at = %l.loc,
                "mapping: loop '{}' on threads x, block {bx}, grid ceil(trips/{bx})",
                l.name
            ),
        }
        let z = b.const_index(0);
        let mut nonempty = b.op(format!("arith.cmpi sgt, {n_x}, {z} : index"));
        if inner.is_some() {
            let t = b.op(format!("arith.cmpi sgt, {n_y}, {z} : index"));
            nonempty = b.op(format!("arith.andi {nonempty}, {t} : i1"));
        }
        b.line(format!("scf.if {nonempty} {{"));
        b.indent += 1;
        let bxv = b.const_index(bx);
        let gx = b.op(format!("arith.ceildivsi {n_x}, {bxv} : index"));
        let gy = if inner.is_some() {
            let byv = b.const_index(by);
            b.op(format!("arith.ceildivsi {n_y}, {byv} : index"))
        } else {
            b.const_index(1)
        };
        let gz = b.const_index(1);
        let private: Vec<usize> = {
            let mut v = self.par.written_scalars[l.id].clone();
            if let Some(l2) = inner {
                v.extend(self.par.written_scalars[l2.id].iter().copied());
            }
            v.sort();
            v.dedup();
            v
        };
        self.launch(b, [gx, gy, gz], [bx, by, 1], &mut |g, b, ids| {
            // Linear position along x (and y), guarded against the partial last block.
            let bxs = b.const_index(bx);
            let t = b.op(format!("arith.muli {}, {bxs} : index", ids[0]));
            let px = b.op(format!("arith.addi {t}, {} : index", ids[3]));
            let mut ok = b.op(format!("arith.cmpi slt, {px}, {n_x} : index"));
            let mut py = None;
            if inner.is_some() {
                let bys = b.const_index(by);
                let t = b.op(format!("arith.muli {}, {bys} : index", ids[1]));
                let p = b.op(format!("arith.addi {t}, {} : index", ids[4]));
                let oky = b.op(format!("arith.cmpi slt, {p}, {n_y} : index"));
                ok = b.op(format!("arith.andi {ok}, {oky} : i1"));
                py = Some(p);
            }
            b.line(format!("scf.if {ok} {{"));
            b.indent += 1;
            let iv_of = |b: &mut Body, pos: &str, lb: &str, step: i64| {
                if step == 1 {
                    b.op(format!("arith.addi {lb}, {pos} : index"))
                } else {
                    let s = b.const_index(step);
                    let m = b.op(format!("arith.muli {pos}, {s} : index"));
                    b.op(format!("arith.addi {lb}, {m} : index"))
                }
            };
            let body: &[Node] = match inner {
                Some(l2) => {
                    let iy = iv_of(b, py.as_deref().unwrap_or_default(), &lb_y, l.step);
                    let ix = iv_of(b, &px, &lb_x, l2.step);
                    g.n.ivs[l.id] = Some(iy);
                    g.n.ivs[l2.id] = Some(ix);
                    &l2.body
                }
                None => {
                    let ix = iv_of(b, &px, &lb_x, l.step);
                    g.n.ivs[l.id] = Some(ix);
                    &l.body
                }
            };
            for &s in &private {
                let ty = g.n.scop.scalars[s].ty.mlir();
                let p = b.op(format!("memref.alloca() : memref<{ty}>"));
                let v = b.op(format!("memref.load {}[] : memref<{ty}>", g.dev_scalars[s]));
                b.line(format!("memref.store {v}, {p}[] : memref<{ty}>"));
                g.private[s] = Some(p);
            }
            g.device(b, body);
            for &s in &private {
                g.private[s] = None;
            }
            g.n.ivs[l.id] = None;
            if let Some(l2) = inner {
                g.n.ivs[l2.id] = None;
            }
            b.indent -= 1;
            b.line("}");
        });
        b.indent -= 1;
        b.line("}");
    }

    /// Device code executed by one thread.
    fn device(&mut self, b: &mut Body, nodes: &[Node]) {
        for node in nodes {
            let outer = node.loc().map(|l| b.at(l));
            match node {
                Node::Loop(l) => self.scf_for(b, l, Self::device),
                Node::If { cond, then, els } => {
                    let c = self.cond(b, cond);
                    self.scf_if(b, &c, then, els, Self::device);
                }
                Node::DataIf {
                    cond, then, els, ..
                } => {
                    let c = emit_expr(b, self, cond);
                    self.scf_if(b, &c, then, els, Self::device);
                }
                Node::Stmt(s) => {
                    let v = emit_expr(b, self, &s.value);
                    match &s.target {
                        Target::Array(acc) => {
                            let idx = subscripts(b, self, acc);
                            let t = self.n.scop.arrays[acc.array].memref_type();
                            b.line(format!(
                                "memref.store {v}, {}[{}] : {t}",
                                self.dev_arrays[acc.array],
                                idx.join(", ")
                            ));
                        }
                        Target::Scalar(sc) => {
                            let ty = self.n.scop.scalars[*sc].ty.mlir();
                            let m = self.scalar_mem(*sc);
                            b.line(format!("memref.store {v}, {m}[] : memref<{ty}>"));
                        }
                    }
                }
            }
            if let Some(o) = outer {
                b.loc = o;
            }
        }
    }

    /// A sequential `scf.for` over a loop's normalized counter; `inner` prints the body.
    fn scf_for(&mut self, b: &mut Body, l: &Loop, inner: fn(&mut Self, &mut Body, &[Node])) {
        let lb = self.bound(b, &l.lbs, true);
        let ub = self.bound(b, &l.ubs, false);
        let st = b.const_index(l.step);
        let iv = iv_name(l);
        b.line(format!("scf.for {iv} = {lb} to {ub} step {st} {{"));
        self.n.ivs[l.id] = Some(iv);
        b.indent += 1;
        inner(self, b, &l.body);
        b.indent -= 1;
        self.n.ivs[l.id] = None;
        b.line("}");
    }

    /// `scf.if` on an `i1` value; `inner` prints the branches.
    fn scf_if(
        &mut self,
        b: &mut Body,
        c: &str,
        then: &[Node],
        els: &[Node],
        inner: fn(&mut Self, &mut Body, &[Node]),
    ) {
        b.line(format!("scf.if {c} {{"));
        if_regions(b, self, then, els, inner);
    }
}

/// Arrays the SCoP writes.
fn written_arrays(scop: &Scop) -> Vec<bool> {
    let mut w = vec![false; scop.arrays.len()];
    scop.visit_stmts(&mut |s, _| {
        if let Target::Array(a) = &s.target {
            w[a.array] = true;
        }
    });
    w
}

/// Prints the mapped module: one host function per SCoP with `gpu.launch` regions.
pub fn emit_module(scops: &[Scop], pars: &[Parallelism], opts: MapOptions) -> String {
    let mut out = String::from("module attributes {gpu.container_module} {\n");
    for g in globals(scops) {
        out += &format!("  {g}\n");
    }
    for (scop, par) in scops.iter().zip(pars) {
        let mut b = Body::new(2);
        let mut names = prologue(&mut b, scop, false);
        let mut dev_arrays = Vec::new();
        for (i, a) in scop.arrays.iter().enumerate() {
            let host = names.arrays[i].clone();
            let t = a.memref_type();
            let mem = DeviceMemory(opts.emulate);
            if a.kind == ArrayKind::Region {
                // Lives on the device only.
                let dyns = dynamic_sizes(&mut b, a, &names.param_index);
                let dev = format!("{host}.dev");
                b.line(format!("{dev} = {}", mem.alloc(&dyns.join(", "), &t)));
                dev_arrays.push(dev);
                continue;
            }
            let mut dyns = Vec::new();
            for (k, d) in a.dims.iter().enumerate() {
                if let Dim::Dynamic(_) = d {
                    let c = b.const_index(k as i64);
                    dyns.push(b.op(format!("memref.dim {host}, {c} : {t}")));
                }
            }
            let dev = format!("{host}.dev");
            b.line(format!("{dev} = {}", mem.alloc(&dyns.join(", "), &t)));
            b.line(mem.copy(&dev, &host, &t));
            dev_arrays.push(dev);
        }
        let mut dev_scalars = Vec::new();
        for (i, s) in scop.scalars.iter().enumerate() {
            let dev = format!("{}.dev", names.scalars[i]);
            let t = format!("memref<{}>", s.ty.mlir());
            let mem = DeviceMemory(opts.emulate);
            b.line(format!("{dev} = {}", mem.alloc("", &t)));
            if s.outer {
                // Its value before the region may be read in it.
                b.line(mem.copy(&dev, &names.scalars[i], &t));
            }
            dev_scalars.push(dev);
        }
        let mut g = Gpu {
            n: &mut names,
            par,
            opts,
            dev_arrays,
            dev_scalars,
            private: vec![None; scop.scalars.len()],
            kernels: 0,
        };
        g.host(&mut b, &scop.body);
        let written = written_arrays(scop);
        let mem = DeviceMemory(opts.emulate);
        for (i, a) in scop.arrays.iter().enumerate() {
            let t = a.memref_type();
            if written[i] && a.kind != ArrayKind::Region {
                b.line(mem.copy(&g.n.arrays[i], &g.dev_arrays[i], &t));
            }
            b.line(mem.free(&g.dev_arrays[i], &t));
        }
        for (i, s) in scop.scalars.iter().enumerate() {
            let t = format!("memref<{}>", s.ty.mlir());
            if s.live_out {
                // The value the region leaves, for the code after it: the device copy
                // holds the last write in program order, since parallel loops write
                // private copies, and a loop whose write may reach the end of the region
                // is not parallel.
                b.line(mem.copy(&g.n.scalars[i], &g.dev_scalars[i], &t));
            }
            b.line(mem.free(&g.dev_scalars[i], &t));
        }
        b.line("return");
        if opts.emulate || opts.c_abi {
            out += &format!(
                "  func.func private @\"{}.impl\"({}) {{\n{}  }}\n",
                ident(&scop.name),
                signature(scop).join(", "),
                b.out
            );
            out += &c_abi_wrapper(scop, opts.entry_suffix);
        } else {
            out += &format!(
                "  func.func @{}({}) {{\n{}  }}\n",
                ident(&scop.name),
                signature(scop).join(", "),
                b.out
            );
        }
    }
    out += "}\n";
    out
}

/// A function with the C function's name and C signature (arrays as plain pointers) that
/// builds memref descriptors from the pointers and the sizes C gives, and calls the
/// memref-based function `NAME.impl`.
///
/// With a `suffix` (whole programs) the caller is the C function itself, which passes the
/// variables it declares outside the region by reference after its own parameters
/// ([`FuncArg::Outer`]). Without one, the entry point replaces the whole C function
/// (`-c`, `--emit=emulated`): there is no caller that holds those variables, so the entry
/// point allocates them for the duration of the call.
fn c_abi_wrapper(scop: &Scop, suffix: &str) -> String {
    let by_ref = !suffix.is_empty();
    let mut b = Body::new(2);
    let mut params = Vec::new();
    let mut call_args = Vec::new();
    let mut call_types = Vec::new();
    let mut after_call = Vec::new();
    // Integer parameters as i64, for sizes.
    let mut p64: Vec<Option<String>> = vec![None; scop.params.len()];
    for (i, p) in scop.params.iter().enumerate() {
        if !p.ty.is_float() {
            let ext = if p.ty.is_signed() {
                "arith.extsi"
            } else {
                "arith.extui"
            };
            let v = format!("%{}", ident(&p.name));
            p64[i] = Some(if p.ty.bits() == 64 {
                v
            } else {
                b.op(format!("{ext} {v} : {} to i64", p.ty.mlir()))
            });
        }
    }
    for a in &scop.args {
        match a {
            FuncArg::Array(i) | FuncArg::Outer(OuterVar::Array(i)) => {
                let arr = &scop.arrays[*i];
                let name = format!("%{}", ident(&arr.name));
                let sizes = array_sizes(&mut b, arr, &p64);
                let m = if by_ref || matches!(a, FuncArg::Array(_)) {
                    params.push(format!("{name}: !llvm.ptr"));
                    descriptor(&mut b, &name, &arr.memref_type(), &sizes)
                } else {
                    let mut dyns = Vec::new();
                    for (d, sz) in arr.dims.iter().zip(&sizes) {
                        if let Dim::Dynamic(_) = d {
                            dyns.push(b.op(format!("arith.index_cast {sz} : i64 to index")));
                        }
                    }
                    let t = arr.memref_type();
                    let m = b.op(format!("memref.alloc({}) : {t}", dyns.join(", ")));
                    after_call.push(format!("memref.dealloc {m} : {t}"));
                    m
                };
                call_args.push(m);
                call_types.push(arr.memref_type());
            }
            FuncArg::Param(p) => {
                let p = &scop.params[*p];
                params.push(format!("%{}: {}", ident(&p.name), p.ty.mlir()));
                call_args.push(format!("%{}", ident(&p.name)));
                call_types.push(p.ty.mlir().to_string());
            }
            FuncArg::Unused(n, _) => params.push(format!("%{}: !llvm.ptr", ident(n))),
            FuncArg::Outer(OuterVar::Scalar(i)) => {
                let t = format!("memref<{}>", scop.scalars[*i].ty.mlir());
                let m = if by_ref {
                    let name = format!("%{}.ref{i}", ident(&scop.scalars[*i].name));
                    params.push(format!("{name}: !llvm.ptr"));
                    descriptor(&mut b, &name, &t, &[])
                } else {
                    b.op(format!("memref.alloca() : {t}"))
                };
                call_args.push(m);
                call_types.push(t);
            }
        }
    }
    b.line(format!(
        "func.call @\"{}.impl\"({}) : ({}) -> ()",
        ident(&scop.name),
        call_args.join(", "),
        call_types.join(", ")
    ));
    for l in after_call {
        b.line(l);
    }
    b.line("return");
    format!(
        "  func.func @{}{suffix}({}) {{\n{}  }}\n",
        ident(&scop.name),
        params.join(", "),
        b.out
    )
}

/// The sizes of an array's dimensions as `i64` values, from the C parameters.
fn array_sizes(b: &mut Body, arr: &Array, p64: &[Option<String>]) -> Vec<String> {
    arr.dims
        .iter()
        .map(|d| match d {
            Dim::Static(n) => b.op(format!("arith.constant {n} : i64")),
            Dim::Dynamic(Some(aff)) => b.aff_value(aff, "i64", &|v| match v {
                Var::Param(p) => p64[p].clone().unwrap_or_default(),
                Var::Iv(_) => String::new(),
            }),
            Dim::Dynamic(None) => b.op("arith.constant 1 : i64"),
        })
        .collect()
}

/// A row-major memref descriptor of type `t` over the C pointer `ptr` with `sizes`.
fn descriptor(b: &mut Body, ptr: &str, t: &str, sizes: &[String]) -> String {
    let r = sizes.len();
    let st = if r == 0 {
        "!llvm.struct<(ptr, ptr, i64)>".to_string()
    } else {
        format!("!llvm.struct<(ptr, ptr, i64, array<{r} x i64>, array<{r} x i64>)>")
    };
    let mut d = b.op(format!("llvm.mlir.poison : {st}"));
    d = b.op(format!("llvm.insertvalue {ptr}, {d}[0] : {st}"));
    d = b.op(format!("llvm.insertvalue {ptr}, {d}[1] : {st}"));
    let z = b.op("arith.constant 0 : i64");
    d = b.op(format!("llvm.insertvalue {z}, {d}[2] : {st}"));
    let mut stride = b.op("arith.constant 1 : i64");
    for k in (0..r).rev() {
        d = b.op(format!("llvm.insertvalue {}, {d}[3, {k}] : {st}", sizes[k]));
        d = b.op(format!("llvm.insertvalue {stride}, {d}[4, {k}] : {st}"));
        stride = b.op(format!("arith.muli {stride}, {} : i64", sizes[k]));
    }
    b.op(format!(
        "builtin.unrealized_conversion_cast {d} : {st} to {t}"
    ))
}

/// Spellings of device memory operations: `gpu.*` for the GPU, `memref.*` for the CPU
/// emulation (`true`).
struct DeviceMemory(bool);

impl DeviceMemory {
    /// The right-hand side of an allocation with dynamic sizes `dyns`.
    fn alloc(&self, dyns: &str, t: &str) -> String {
        let op = if self.0 { "memref.alloc" } else { "gpu.alloc" };
        format!("{op}({dyns}) : {t}")
    }
    fn copy(&self, dst: &str, src: &str, t: &str) -> String {
        if self.0 {
            format!("memref.copy {src}, {dst} : {t} to {t}")
        } else {
            format!("gpu.memcpy {dst}, {src} : {t}, {t}")
        }
    }
    fn free(&self, v: &str, t: &str) -> String {
        let op = if self.0 {
            "memref.dealloc"
        } else {
            "gpu.dealloc"
        };
        format!("{op} {v} : {t}")
    }
}
