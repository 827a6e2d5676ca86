//! Compiles the kernels of a gpu-dialect module into the sim device's compact form
//! ([`tessel_runtime::bytecode`]), once per kernel at build time.
//!
//! Preconditions: kernels are outlined (`gpu-kernel-outlining`) and their bodies use only
//! `cf` control flow (`lower-affine`, `convert-scf-to-cf`), with `arith`, `math`,
//! `memref` (load, store, static `alloca`, `cast`, `dim`) and `gpu` ids, dims and
//! barriers. Anything else is reported with the operation's name, so a kernel is never
//! silently run with different semantics.
//!
//! Before: `gpu.func @k(%A: memref<?xf32>) kernel { %t = gpu.thread_id x ... }`.
//! After: `Kernel { args: [MemRef { slot: 0, rank: 1 }], code: [Special { d: 1,
//! s: ThreadId(0) }, Load { .. }, ..., Return] }`: registers instead of SSA values,
//! constants hoisted, blocks laid out in order with resolved branch targets, block
//! arguments as parallel copies on the branches that reach them.

use crate::mlir::{from_string_ref as str_of, print_attr, print_type, string_ref as sref};
use mlir_sys::*;
use std::collections::HashMap;
use tessel_runtime::bytecode::*;

pub(crate) unsafe fn op_name(op: MlirOperation) -> String {
    str_of(mlirIdentifierStr(mlirOperationGetName(op)))
}

pub(crate) unsafe fn attr(op: MlirOperation, name: &str) -> Option<MlirAttribute> {
    let a = mlirOperationGetAttributeByName(op, sref(name));
    (!a.ptr.is_null()).then_some(a)
}

pub(crate) unsafe fn scalar_ty(t: MlirType) -> Result<Ty, String> {
    if mlirTypeIsAIndex(t) {
        return Ok(Ty::I64);
    }
    if mlirTypeIsAF32(t) {
        return Ok(Ty::F32);
    }
    if mlirTypeIsAF64(t) {
        return Ok(Ty::F64);
    }
    if mlirTypeIsAInteger(t) {
        return Ok(match mlirIntegerTypeGetWidth(t) {
            1 => Ty::I1,
            8 => Ty::I8,
            16 => Ty::I16,
            32 => Ty::I32,
            64 => Ty::I64,
            w => return Err(format!("integers of {w} bits")),
        });
    }
    Err(format!("type {}", print_type(t)))
}

struct MemInfo {
    elem: Ty,
    shape: Vec<i64>,
    workgroup: bool,
}

unsafe fn memref_info(t: MlirType) -> Result<MemInfo, String> {
    if !mlirTypeIsAMemRef(t) {
        return Err(format!("type {}", print_type(t)));
    }
    let rank = mlirShapedTypeGetRank(t);
    let shape = (0..rank)
        .map(|i| mlirShapedTypeGetDimSize(t, i as isize))
        .collect();
    let space = mlirMemRefTypeGetMemorySpace(t);
    let workgroup = !space.ptr.is_null() && {
        let s = print_attr(space);
        s.contains("workgroup") || s == "3" || s.starts_with("3 ")
    };
    Ok(MemInfo {
        elem: scalar_ty(mlirShapedTypeGetElementType(t))?,
        shape,
        workgroup,
    })
}

/// The bits of a constant operation's `value` (an integer, float or bool attribute) as
/// a register of type `ty` holds them.
pub(crate) unsafe fn constant_bits(op: MlirOperation, ty: Ty) -> Result<u64, String> {
    let a = attr(op, "value").ok_or("a constant without a value")?;
    Ok(if mlirAttributeIsAInteger(a) {
        mlirIntegerAttrGetValueInt(a) as u64 & ty.mask()
    } else if mlirAttributeIsAFloat(a) {
        let x = mlirFloatAttrGetValueDouble(a);
        if ty == Ty::F32 {
            (x as f32).to_bits() as u64
        } else {
            x.to_bits()
        }
    } else if mlirAttributeIsABool(a) {
        mlirBoolAttrGetValue(a) as u64
    } else {
        return Err(format!("the constant {}", print_attr(a)));
    })
}

pub(crate) struct Builder {
    pub(crate) name: String,
    pub(crate) regs: HashMap<usize, Reg>,
    pub(crate) consts: HashMap<usize, u64>,
    pub(crate) mems: HashMap<usize, u32>,
    pub(crate) k: Kernel,
    pub(crate) blocks: HashMap<usize, usize>,
    /// Code per block; branch targets hold block numbers until layout.
    pub(crate) code: Vec<Vec<Inst>>,
}

impl Builder {
    pub(crate) fn new(name: &str) -> Builder {
        Builder {
            name: name.to_string(),
            regs: HashMap::new(),
            consts: HashMap::new(),
            mems: HashMap::new(),
            k: Kernel {
                name: name.to_string(),
                args: Vec::new(),
                nregs: 0,
                consts: Vec::new(),
                code: Vec::new(),
                slots: Vec::new(),
                shared_bytes: 0,
                private_bytes: 0,
                registers: 0,
                source: Default::default(),
            },
            blocks: HashMap::new(),
            code: Vec::new(),
        }
    }

    /// Lays the blocks' code out in order, resolves branch targets and checks the kernel.
    pub(crate) fn finish(mut self) -> Result<Kernel, String> {
        let mut starts = Vec::new();
        let mut pc = 0u32;
        for c in &self.code {
            starts.push(pc);
            pc += c.len() as u32;
        }
        let mut code = Vec::new();
        for c in std::mem::take(&mut self.code) {
            for mut i in c {
                match &mut i {
                    Inst::Br { target, .. } => *target = starts[*target as usize],
                    Inst::CondBr { t, f, .. } => {
                        *t = starts[*t as usize];
                        *f = starts[*f as usize];
                    }
                    _ => {}
                }
                code.push(i);
            }
        }
        self.k.code = code;
        self.k.validate()?;
        Ok(self.k)
    }

    pub(crate) fn reg(&mut self) -> Reg {
        self.k.nregs += 1;
        self.k.nregs - 1
    }
    pub(crate) fn def(&mut self, v: MlirValue) -> Reg {
        let r = self.reg();
        self.regs.insert(v.ptr as usize, r);
        r
    }
    pub(crate) fn use_(&self, v: MlirValue) -> Result<Reg, String> {
        self.regs.get(&(v.ptr as usize)).copied().ok_or_else(|| {
            format!(
                "kernel '{}': a value is used that sim cannot represent",
                self.name
            )
        })
    }
    fn mem(&self, v: MlirValue) -> Result<u32, String> {
        self.mems
            .get(&(v.ptr as usize))
            .copied()
            .ok_or_else(|| format!("kernel '{}': a memref that is neither an argument, a workgroup/private buffer nor a static alloca", self.name))
    }
    fn slot(&mut self, v: MlirValue, space: Space, info: MemInfo, arg: u32) -> Result<u32, String> {
        let mut offset = 0;
        if space != Space::Global {
            if info.shape.iter().any(|d| *d < 0) {
                return Err(format!(
                    "kernel '{}': a shared or private buffer of dynamic size",
                    self.name
                ));
            }
            let bytes = info.shape.iter().product::<i64>() as u64 * info.elem.bytes() as u64;
            let total = if space == Space::Shared {
                &mut self.k.shared_bytes
            } else {
                &mut self.k.private_bytes
            };
            offset = total.next_multiple_of(16);
            *total = offset + bytes;
        }
        self.k.slots.push(MemSlot {
            space,
            bytes: false,
            elem: info.elem,
            rank: info.shape.len() as u32,
            arg,
            offset,
            shape: info.shape,
        });
        let s = self.k.slots.len() as u32 - 1;
        self.mems.insert(v.ptr as usize, s);
        Ok(s)
    }
}

/// Compiles every kernel (`gpu.func` with the `gpu.kernel` attribute) of every
/// `gpu.module` in `module` (an `MlirOperation` of `builtin.module`), by module name.
///
/// # Safety
/// `module` must be a valid operation of a live context.
pub unsafe fn compile_module(module: MlirOperation) -> Result<Vec<(String, Vec<Kernel>)>, String> {
    let mut out = Vec::new();
    let body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
    let mut op = mlirBlockGetFirstOperation(body);
    while !op.ptr.is_null() {
        if op_name(op) == "gpu.module" {
            let name = attr(op, "sym_name")
                .map(|a| str_of(mlirStringAttrGetValue(a)))
                .unwrap_or_default();
            let mut ks = Vec::new();
            let b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
            let mut f = mlirBlockGetFirstOperation(b);
            while !f.ptr.is_null() {
                if op_name(f) == "gpu.func" && attr(f, "gpu.kernel").is_some() {
                    ks.push(compile_kernel(f)?);
                }
                f = mlirOperationGetNextInBlock(f);
            }
            out.push((name, ks));
        }
        op = mlirOperationGetNextInBlock(op);
    }
    Ok(out)
}

unsafe fn compile_kernel(f: MlirOperation) -> Result<Kernel, String> {
    let name = attr(f, "sym_name")
        .map(|a| str_of(mlirStringAttrGetValue(a)))
        .unwrap_or_default();
    let fty = mlirTypeAttrGetValue(attr(f, "function_type").ok_or("gpu.func without a type")?);
    let nargs = mlirFunctionTypeGetNumInputs(fty) as usize;
    let nwg = attr(f, "workgroup_attributions")
        .map(|a| mlirIntegerAttrGetValueInt(a) as usize)
        .unwrap_or(0);
    let mut b = Builder::new(&name);
    let region = mlirOperationGetRegion(f, 0);
    let entry = mlirRegionGetFirstBlock(region);
    let unsupported = |what: String| format!("kernel '{name}': sim cannot run {what}");
    for i in 0..mlirBlockGetNumArguments(entry) as usize {
        let v = mlirBlockGetArgument(entry, i as isize);
        let t = mlirValueGetType(v);
        if i < nargs {
            if mlirTypeIsAMemRef(t) {
                let info =
                    memref_info(t).map_err(|w| unsupported(format!("an argument of {w}")))?;
                let rank = info.shape.len() as u32;
                let slot = b.slot(v, Space::Global, info, i as u32)?;
                b.k.args.push(Arg::MemRef { slot, rank });
            } else {
                let ty = scalar_ty(t).map_err(|w| unsupported(format!("an argument of {w}")))?;
                let reg = b.def(v);
                b.k.args.push(Arg::Scalar { ty, reg });
            }
        } else {
            let info = memref_info(t).map_err(|w| unsupported(format!("an attribution of {w}")))?;
            let space = if i < nargs + nwg {
                Space::Shared
            } else {
                Space::Private
            };
            b.slot(v, space, info, 0)?;
        }
    }
    // Number the blocks and give block arguments registers.
    let mut blk = entry;
    let mut order = Vec::new();
    while !blk.ptr.is_null() {
        b.blocks.insert(blk.ptr as usize, order.len());
        if blk.ptr != entry.ptr {
            for i in 0..mlirBlockGetNumArguments(blk) {
                let v = mlirBlockGetArgument(blk, i);
                scalar_ty(mlirValueGetType(v))
                    .map_err(|w| unsupported(format!("a block argument of {w}")))?;
                b.def(v);
            }
        }
        order.push(blk);
        blk = mlirBlockGetNextInRegion(blk);
    }
    for blk in &order {
        let mut code = Vec::new();
        let mut op = mlirBlockGetFirstOperation(*blk);
        while !op.ptr.is_null() {
            lower_op(&mut b, op, &mut code).map_err(|e| {
                if e.starts_with("kernel '") {
                    e
                } else {
                    unsupported(e)
                }
            })?;
            op = mlirOperationGetNextInBlock(op);
        }
        b.code.push(code);
    }
    b.finish()
}

fn binop(name: &str) -> Option<BinOp> {
    use BinOp::*;
    Some(match name {
        "arith.addi" => Add,
        "arith.subi" => Sub,
        "arith.muli" => Mul,
        "arith.divsi" => DivS,
        "arith.divui" => DivU,
        "arith.remsi" => RemS,
        "arith.remui" => RemU,
        "arith.ceildivsi" => CeilDivS,
        "arith.ceildivui" => CeilDivU,
        "arith.floordivsi" => FloorDivS,
        "arith.andi" => And,
        "arith.ori" => Or,
        "arith.xori" => Xor,
        "arith.shli" => Shl,
        "arith.shrsi" => ShrS,
        "arith.shrui" => ShrU,
        "arith.maxsi" => MaxS,
        "arith.minsi" => MinS,
        "arith.maxui" => MaxU,
        "arith.minui" => MinU,
        "arith.addf" => FAdd,
        "arith.subf" => FSub,
        "arith.mulf" => FMul,
        "arith.divf" => FDiv,
        "arith.remf" => FRem,
        "arith.maximumf" => FMax,
        "arith.minimumf" => FMin,
        "arith.maxnumf" => FMaxNum,
        "arith.minnumf" => FMinNum,
        "math.powf" => FPow,
        "math.atan2" => FAtan2,
        "math.copysign" => FCopySign,
        _ => return None,
    })
}

fn unop(name: &str) -> Option<UnOp> {
    use UnOp::*;
    Some(match name {
        "arith.negf" => FNeg,
        "math.absf" => FAbs,
        "math.sqrt" => FSqrt,
        "math.rsqrt" => FRsqrt,
        "math.exp" => FExp,
        "math.exp2" => FExp2,
        "math.log" => FLog,
        "math.log2" => FLog2,
        "math.log10" => FLog10,
        "math.sin" => FSin,
        "math.cos" => FCos,
        "math.tan" => FTan,
        "math.tanh" => FTanh,
        "math.atan" => FAtan,
        "math.floor" => FFloor,
        "math.ceil" => FCeil,
        "math.round" => FRound,
        "math.trunc" => FTrunc,
        "math.erf" => FErf,
        "math.absi" => AbsI,
        _ => return None,
    })
}

fn castop(name: &str) -> Option<CastOp> {
    use CastOp::*;
    Some(match name {
        "arith.extsi" => ExtS,
        "arith.extui" => ExtU,
        "arith.trunci" => Trunc,
        "arith.sitofp" => SIToFP,
        "arith.uitofp" => UIToFP,
        "arith.fptosi" => FPToSI,
        "arith.fptoui" => FPToUI,
        "arith.extf" => FExt,
        "arith.truncf" => FTrunc,
        "arith.bitcast" => Bitcast,
        "arith.index_cast" => ExtS,
        "arith.index_castui" => ExtU,
        _ => return None,
    })
}

unsafe fn dim_of(op: MlirOperation) -> Result<u8, String> {
    let a = attr(op, "dimension").ok_or("a gpu id without a dimension")?;
    let s = print_attr(a);
    Ok(if s.contains('y') {
        1
    } else if s.contains('z') {
        2
    } else {
        0
    })
}

unsafe fn lower_op(b: &mut Builder, op: MlirOperation, code: &mut Vec<Inst>) -> Result<(), String> {
    let name = op_name(op);
    let nops = mlirOperationGetNumOperands(op) as usize;
    let operand = |i: usize| mlirOperationGetOperand(op, i as isize);
    let result = |i: usize| mlirOperationGetResult(op, i as isize);
    let rty = |i: usize| scalar_ty(mlirValueGetType(result(i)));
    if let Some(bop) = binop(&name) {
        let ty = rty(0)?;
        let (x, y) = (b.use_(operand(0))?, b.use_(operand(1))?);
        let d = b.def(result(0));
        code.push(Inst::Bin {
            op: bop,
            ty,
            d,
            a: x,
            b: y,
        });
        return Ok(());
    }
    if let Some(uop) = unop(&name) {
        let ty = rty(0)?;
        let a = b.use_(operand(0))?;
        let d = b.def(result(0));
        code.push(Inst::Un { op: uop, ty, d, a });
        return Ok(());
    }
    if let Some(cop) = castop(&name) {
        let from = scalar_ty(mlirValueGetType(operand(0)))?;
        let to = rty(0)?;
        let op = match cop {
            CastOp::ExtS | CastOp::ExtU if to.bits() < from.bits() => CastOp::Trunc,
            c => c,
        };
        let a = b.use_(operand(0))?;
        let d = b.def(result(0));
        code.push(Inst::Cast { op, from, to, d, a });
        return Ok(());
    }
    match name.as_str() {
        "arith.constant" => {
            let ty = rty(0)?;
            let v = constant_bits(op, ty)?;
            let d = b.def(result(0));
            b.consts.insert(result(0).ptr as usize, v);
            b.k.consts.push((d, v));
        }
        // An undefined value (`mem2reg`'s for a register read before any store): any
        // value is right; sim takes 0.
        "ub.poison" => {
            rty(0)?;
            let d = b.def(result(0));
            b.consts.insert(result(0).ptr as usize, 0);
            b.k.consts.push((d, 0));
        }
        "arith.cmpi" | "arith.cmpf" => {
            let p = mlirIntegerAttrGetValueInt(
                attr(op, "predicate").ok_or("a comparison without a predicate")?,
            ) as u8;
            let ty = scalar_ty(mlirValueGetType(operand(0)))?;
            let pred = if name == "arith.cmpf" { p + 100 } else { p };
            let (x, y) = (b.use_(operand(0))?, b.use_(operand(1))?);
            let d = b.def(result(0));
            code.push(Inst::Cmp {
                pred,
                ty,
                d,
                a: x,
                b: y,
            });
        }
        "arith.select" => {
            rty(0)?;
            let (c, x, y) = (
                b.use_(operand(0))?,
                b.use_(operand(1))?,
                b.use_(operand(2))?,
            );
            let d = b.def(result(0));
            code.push(Inst::Select { d, c, a: x, b: y });
        }
        "math.fma" => {
            let ty = rty(0)?;
            let (x, y, z) = (
                b.use_(operand(0))?,
                b.use_(operand(1))?,
                b.use_(operand(2))?,
            );
            let d = b.def(result(0));
            code.push(Inst::Fma {
                ty,
                d,
                a: x,
                b: y,
                c: z,
            });
        }
        "math.fpowi" => {
            let ty = rty(0)?;
            let ity = scalar_ty(mlirValueGetType(operand(1)))?;
            let (x, e) = (b.use_(operand(0))?, b.use_(operand(1))?);
            let t = b.reg();
            code.push(Inst::Cast {
                op: CastOp::SIToFP,
                from: ity,
                to: ty,
                d: t,
                a: e,
            });
            let d = b.def(result(0));
            code.push(Inst::Bin {
                op: BinOp::FPow,
                ty,
                d,
                a: x,
                b: t,
            });
        }
        "gpu.thread_id" | "gpu.block_id" | "gpu.block_dim" | "gpu.grid_dim" | "gpu.lane_id" => {
            let s = match name.as_str() {
                "gpu.thread_id" => Special::ThreadId(dim_of(op)?),
                "gpu.block_id" => Special::BlockId(dim_of(op)?),
                "gpu.block_dim" => Special::BlockDim(dim_of(op)?),
                "gpu.grid_dim" => Special::GridDim(dim_of(op)?),
                _ => Special::LaneId,
            };
            let d = b.def(result(0));
            code.push(Inst::Special { d, s });
        }
        "gpu.barrier" => code.push(Inst::Barrier),
        "gpu.return" | "func.return" => code.push(Inst::Return),
        "memref.load" => {
            let mem = b.mem(operand(0))?;
            let idx = (1..nops)
                .map(|i| b.use_(operand(i)))
                .collect::<Result<Vec<_>, _>>()?;
            let d = b.def(result(0));
            code.push(Inst::Load { d, mem, idx });
        }
        "memref.store" => {
            let v = b.use_(operand(0))?;
            let mem = b.mem(operand(1))?;
            let idx = (2..nops)
                .map(|i| b.use_(operand(i)))
                .collect::<Result<Vec<_>, _>>()?;
            code.push(Inst::Store { v, mem, idx });
        }
        "memref.alloca" => {
            if nops > 0 {
                return Err("a memref.alloca of dynamic size".into());
            }
            let info = memref_info(mlirValueGetType(result(0)))?;
            let space = if info.workgroup {
                Space::Shared
            } else {
                Space::Private
            };
            b.slot(result(0), space, info, 0)?;
        }
        "memref.cast" | "memref.assume_alignment" => {
            let s = b.mem(operand(0))?;
            b.mems.insert(result(0).ptr as usize, s);
        }
        "memref.dim" => {
            let mem = b.mem(operand(0))?;
            let dim = *b
                .consts
                .get(&(operand(1).ptr as usize))
                .ok_or("memref.dim of a non-constant dimension")? as u32;
            if dim >= b.k.slots[mem as usize].rank {
                return Err("memref.dim out of range".into());
            }
            let d = b.def(result(0));
            code.push(Inst::Dim { d, mem, dim });
        }
        "cf.br" => {
            let dest = mlirOperationGetSuccessor(op, 0);
            let moves = block_moves(b, dest, (0..nops).map(operand).collect())?;
            code.push(Inst::Br {
                target: b.blocks[&(dest.ptr as usize)] as u32,
                moves,
            });
        }
        "cf.cond_br" => {
            let (t, f) = (
                mlirOperationGetSuccessor(op, 0),
                mlirOperationGetSuccessor(op, 1),
            );
            let nt = mlirBlockGetNumArguments(t) as usize;
            let c = b.use_(operand(0))?;
            let tmoves = block_moves(b, t, (1..1 + nt).map(operand).collect())?;
            let fmoves = block_moves(b, f, (1 + nt..nops).map(operand).collect())?;
            code.push(Inst::CondBr {
                c,
                t: b.blocks[&(t.ptr as usize)] as u32,
                tmoves,
                f: b.blocks[&(f.ptr as usize)] as u32,
                fmoves,
            });
        }
        other => return Err(format!("operation '{other}'")),
    }
    Ok(())
}

pub(crate) unsafe fn block_moves(
    b: &Builder,
    dest: MlirBlock,
    vals: Vec<MlirValue>,
) -> Result<Vec<(Reg, Reg)>, String> {
    vals.into_iter()
        .enumerate()
        .map(|(i, v)| Ok((b.use_(mlirBlockGetArgument(dest, i as isize))?, b.use_(v)?)))
        .collect()
}
