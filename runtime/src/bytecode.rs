//! The compact form the sim device executes, and the container tesselc embeds.
//!
//! `tesselc` compiles every `gpu.func` of a gpu-dialect module (after `lower-affine` and
//! `convert-scf-to-cf`) once into a [`Kernel`]: a flat list of register instructions with
//! branch targets resolved, constants hoisted into registers, and every memref resolved
//! to a slot (a kernel argument, a shared buffer or a per-thread private buffer). The
//! kernels are serialized into a [`FatBinary`] next to the PTX, cubin or HSACO of the same
//! module; the runtime picks the entry its device needs.
//!
//! Container layout (little endian): `b"TESSELFB"`, `u32` version, `u32` entry count, then
//! per entry `u32` kind (1 sim, 2 PTX, 3 cubin, 4 HSACO), `u64` length, bytes.

/// Element and register types. `index` is `I64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    I1,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
}

impl Ty {
    pub fn bits(self) -> u32 {
        match self {
            Ty::I1 => 1,
            Ty::I8 => 8,
            Ty::I16 => 16,
            Ty::I32 | Ty::F32 => 32,
            Ty::I64 | Ty::F64 => 64,
        }
    }
    /// Bytes in memory (`i1` is stored as a byte).
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }
    pub fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }
    pub fn mask(self) -> u64 {
        match self.bits() {
            64 => u64::MAX,
            b => (1u64 << b) - 1,
        }
    }
    fn code(self) -> u8 {
        self as u8
    }
    fn from_code(c: u8) -> Option<Ty> {
        Some(match c {
            0 => Ty::I1,
            1 => Ty::I8,
            2 => Ty::I16,
            3 => Ty::I32,
            4 => Ty::I64,
            5 => Ty::F32,
            6 => Ty::F64,
            _ => return None,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    DivS,
    DivU,
    RemS,
    RemU,
    CeilDivS,
    CeilDivU,
    FloorDivS,
    And,
    Or,
    Xor,
    Shl,
    ShrS,
    ShrU,
    MaxS,
    MinS,
    MaxU,
    MinU,
    /// Float ops: the same names on floats.
    FAdd,
    FSub,
    FMul,
    FDiv,
    FRem,
    FMax,
    FMin,
    FMaxNum,
    FMinNum,
    FPow,
    FAtan2,
    FCopySign,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    FNeg,
    FAbs,
    FSqrt,
    FRsqrt,
    FExp,
    FExp2,
    FLog,
    FLog2,
    FLog10,
    FSin,
    FCos,
    FTan,
    FTanh,
    FAtan,
    FFloor,
    FCeil,
    FRound,
    FTrunc,
    FErf,
    AbsI,
    /// Bit counts and order of integers (`__clz`, `__ffs` via cttz, `__popc`, `__brev`).
    Clz,
    Ctz,
    Popc,
    BitRev,
}

/// Integer predicates 0..=9 as `arith.cmpi` numbers them; float predicates as
/// `arith.cmpf` numbers them, plus 100.
pub type Pred = u8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastOp {
    ExtS,
    ExtU,
    Trunc,
    SIToFP,
    UIToFP,
    FPToSI,
    FPToUI,
    FExt,
    FTrunc,
    Bitcast,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    ThreadId(u8),
    BlockId(u8),
    BlockDim(u8),
    GridDim(u8),
    LaneId,
    /// The warp's cycle counter (`clock()`): on sim, the cycles the time model's latency
    /// term has counted for the warp since its block started.
    Clock,
}

pub type Reg = u32;

#[derive(Clone, Debug, PartialEq)]
pub enum Inst {
    Bin {
        op: BinOp,
        ty: Ty,
        d: Reg,
        a: Reg,
        b: Reg,
    },
    Un {
        op: UnOp,
        ty: Ty,
        d: Reg,
        a: Reg,
    },
    Cmp {
        pred: Pred,
        ty: Ty,
        d: Reg,
        a: Reg,
        b: Reg,
    },
    Select {
        d: Reg,
        c: Reg,
        a: Reg,
        b: Reg,
    },
    Cast {
        op: CastOp,
        from: Ty,
        to: Ty,
        d: Reg,
        a: Reg,
    },
    Fma {
        ty: Ty,
        d: Reg,
        a: Reg,
        b: Reg,
        c: Reg,
    },
    Special {
        d: Reg,
        s: Special,
    },
    Load {
        d: Reg,
        mem: u32,
        idx: Vec<Reg>,
    },
    Store {
        v: Reg,
        mem: u32,
        idx: Vec<Reg>,
    },
    Dim {
        d: Reg,
        mem: u32,
        dim: u32,
    },
    /// Jump, first copying `moves` (dst, src) as a parallel copy (block arguments).
    Br {
        target: u32,
        moves: Vec<(Reg, Reg)>,
    },
    CondBr {
        c: Reg,
        t: u32,
        tmoves: Vec<(Reg, Reg)>,
        f: u32,
        fmoves: Vec<(Reg, Reg)>,
    },
    Barrier,
    Return,
    /// An atomic read-modify-write of a byte-addressed slot: `d` gets the old value;
    /// the new one is `op(old, v)` (`Cas`: `v` when `old == c`). The lanes of a warp
    /// take their turns in lane order.
    Atomic {
        op: AtomicOp,
        ty: Ty,
        d: Reg,
        mem: u32,
        idx: Vec<Reg>,
        v: Reg,
        c: Reg,
    },
    /// A warp-wide operation among the lanes of member mask `m`: for a shuffle, `d` gets
    /// `a` of the source lane that `b` (lane, delta or xor mask) and `c` (segment and
    /// clamp, PTX's packed operand) select, and `p` whether it was in range; for a vote,
    /// `d` gets the ballot of predicate `a` (or whether all or any lanes hold it).
    Warp {
        op: WarpOp,
        ty: Ty,
        d: Reg,
        p: Reg,
        m: Reg,
        a: Reg,
        b: Reg,
        c: Reg,
    },
}

impl Inst {
    /// The registers the instruction reads and writes, for sim's scoreboard (a branch's
    /// block-argument moves aside: they pass each source's readiness to its target).
    pub fn operands(&self) -> (Vec<Reg>, Vec<Reg>) {
        match self {
            Inst::Bin { d, a, b, .. } | Inst::Cmp { d, a, b, .. } => (vec![*a, *b], vec![*d]),
            Inst::Un { d, a, .. } | Inst::Cast { d, a, .. } => (vec![*a], vec![*d]),
            Inst::Select { d, c, a, b } => (vec![*c, *a, *b], vec![*d]),
            Inst::Fma { d, a, b, c, .. } => (vec![*a, *b, *c], vec![*d]),
            Inst::Special { d, .. } | Inst::Dim { d, .. } => (vec![], vec![*d]),
            Inst::Load { d, idx, .. } => (idx.clone(), vec![*d]),
            Inst::Store { v, idx, .. } => {
                let mut u = idx.clone();
                u.push(*v);
                (u, vec![])
            }
            Inst::Atomic { d, idx, v, c, .. } => {
                let mut u = idx.clone();
                u.extend([*v, *c]);
                (u, vec![*d])
            }
            Inst::Warp {
                d, p, m, a, b, c, ..
            } => (vec![*m, *a, *b, *c], vec![*d, *p]),
            Inst::CondBr { c, .. } => (vec![*c], vec![]),
            Inst::Br { .. } | Inst::Barrier | Inst::Return => (vec![], vec![]),
        }
    }
}

/// Operations across the lanes of a warp (CUDA's `__shfl*_sync` and `__ballot_sync`,
/// `__all_sync`, `__any_sync`, `__reduce_*_sync`, `__match_*_sync`), as PTX's
/// `shfl.sync`, `vote.sync`, `redux.sync` and `match.sync` define them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpOp {
    ShflIdx,
    ShflUp,
    ShflDown,
    ShflBfly,
    Ballot,
    All,
    Any,
    /// `redux.sync` (`__reduce_*_sync`): `d` gets the reduction of `a` over the lanes.
    ReduxAdd,
    ReduxMinS,
    ReduxMaxS,
    ReduxMinU,
    ReduxMaxU,
    ReduxAnd,
    ReduxOr,
    ReduxXor,
    /// `match.any.sync` (`__match_any_sync`): `d` gets the lanes of the member mask whose
    /// `a` equals this lane's.
    MatchAny,
    /// `match.all.sync` (`__match_all_sync`): `d` gets the member mask where every lane
    /// of it has the same `a`, else 0; `p` whether they have.
    MatchAll,
}

const WARPOPS: [WarpOp; 17] = {
    use WarpOp::*;
    [
        ShflIdx, ShflUp, ShflDown, ShflBfly, Ballot, All, Any, ReduxAdd, ReduxMinS, ReduxMaxS,
        ReduxMinU, ReduxMaxU, ReduxAnd, ReduxOr, ReduxXor, MatchAny, MatchAll,
    ]
};

/// What an atomic computes from the old value and the operand (CUDA's `atomic*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    Xchg,
    Add,
    Sub,
    And,
    Nand,
    Or,
    Xor,
    MaxS,
    MinS,
    MaxU,
    MinU,
    FAdd,
    FSub,
    FMax,
    FMin,
    /// `old >= v ? 0 : old + 1` (`atomicInc`).
    IncWrap,
    /// `old == 0 || old > v ? v : old - 1` (`atomicDec`).
    DecWrap,
    Cas,
}

const ATOMICS: [AtomicOp; 18] = {
    use AtomicOp::*;
    [
        Xchg, Add, Sub, And, Nand, Or, Xor, MaxS, MinS, MaxU, MinU, FAdd, FSub, FMax, FMin,
        IncWrap, DecWrap, Cas,
    ]
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// A kernel argument (`arg` indexes [`Kernel::args`]).
    Global,
    /// Shared memory of the block, at `offset` in the block's shared buffer.
    Shared,
    /// Per-thread memory, at `offset` in the thread's private buffer.
    Private,
}

/// A memref the kernel uses. Shared and private ones have static shapes and identity
/// layouts; global ones take shape, strides and offset from the argument's descriptor.
#[derive(Clone, Debug, PartialEq)]
pub struct MemSlot {
    pub space: Space,
    /// Byte-addressed (pointer code, such as CUDA kernels): the one index is a byte
    /// offset from the pointer (global) or from the buffer's start, `shape` is the
    /// buffer's size in bytes, `-1` for dynamic shared memory (to the end of the block's
    /// shared memory), and `elem` is the type this slot's loads and stores access.
    pub bytes: bool,
    pub elem: Ty,
    pub rank: u32,
    pub arg: u32,
    pub offset: u64,
    pub shape: Vec<i64>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A scalar parameter, loaded into register `reg`.
    Scalar { ty: Ty, reg: Reg },
    /// A memref parameter: `3 + 2 * rank` launch parameters (allocated pointer, aligned
    /// pointer, offset, sizes, strides), bound to slot `slot`.
    MemRef { slot: u32, rank: u32 },
    /// A pointer parameter (one launch parameter), bound to the byte-addressed slots
    /// `slots`, one per type the kernel accesses through it; its value (the address) is
    /// loaded into register `reg`, for comparisons of pointers into different arrays.
    /// With `byval` > 0 it is a structure of `byval` bytes passed by value (CUDA's
    /// `__global__ void k(Params p)`): the launch parameter points to the structure's
    /// bytes, which sim copies to device memory of its own for the launch.
    Ptr {
        slots: Vec<u32>,
        reg: Reg,
        byval: u32,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: String,
    pub args: Vec<Arg>,
    pub nregs: u32,
    /// Registers holding constants, set once per warp before the kernel runs.
    pub consts: Vec<(Reg, u64)>,
    pub code: Vec<Inst>,
    pub slots: Vec<MemSlot>,
    pub shared_bytes: u64,
    pub private_bytes: u64,
    /// Registers per thread reported by ptxas (0 when unknown).
    pub registers: u32,
    /// The form sim's code was compiled from, which sets how many machine instructions
    /// one of sim's stands for in the time model ([`crate::gpus::Gpu::estimate`]).
    pub source: Source,
}

/// What a kernel's sim form was compiled from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Source {
    /// Tessel's gpu-dialect kernels (`memref` accesses, structured index arithmetic).
    #[default]
    Mlir = 0,
    /// LLVM IR (CUDA programs' device code, NVVM from clang).
    Llvm = 1,
}

pub const MAGIC: &[u8; 8] = b"TESSELFB";
pub const VERSION: u32 = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    Sim = 1,
    /// A GPU code object for one architecture ([`Code`]).
    Code = 2,
}

/// The form of a GPU code object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeKind {
    Ptx = 1,
    Cubin = 2,
    Hsaco = 3,
}

/// A GPU code object and the architecture it was built for (`sm_90`, `gfx942`).
#[derive(Clone, Debug, PartialEq)]
pub struct Code {
    pub kind: CodeKind,
    pub arch: String,
    pub bytes: Vec<u8>,
}

/// The module image tesselc embeds: the sim kernels and the GPU code objects of one
/// module, for every `--offload-arch` it was built for; the runtime picks the object
/// that the device present accepts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FatBinary {
    pub sim: Vec<Kernel>,
    pub code: Vec<Code>,
}

/// The number in an architecture name (`sm_90a` -> 90, `gfx90a` -> 0x90a read as
/// decimal digits where it can), to try newer objects first.
fn arch_number(arch: &str) -> u32 {
    let digits: String = arch
        .trim_start_matches(|c: char| !c.is_ascii_digit())
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().unwrap_or(0)
}

impl FatBinary {
    /// The code objects of one kind, newest architecture first: the first one a device
    /// accepts is the best it can run (a cubin runs on its own major architecture only,
    /// PTX on its architecture and later ones).
    pub fn objects(&self, kind: CodeKind) -> Vec<&Code> {
        let mut v: Vec<&Code> = self.code.iter().filter(|c| c.kind == kind).collect();
        v.sort_by_key(|c| std::cmp::Reverse(arch_number(&c.arch)));
        v
    }

    /// The architectures this image carries code for, in the order built.
    pub fn archs(&self) -> Vec<&str> {
        let mut v: Vec<&str> = Vec::new();
        for c in &self.code {
            if !v.contains(&c.arch.as_str()) {
                v.push(&c.arch);
            }
        }
        v
    }
}

struct W(Vec<u8>);
impl W {
    fn u8(&mut self, v: u8) {
        self.0.push(v)
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes())
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes())
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.0.extend_from_slice(b)
    }
    fn regs(&mut self, r: &[Reg]) {
        self.u32(r.len() as u32);
        r.iter().for_each(|x| self.u32(*x));
    }
    fn moves(&mut self, m: &[(Reg, Reg)]) {
        self.u32(m.len() as u32);
        for (a, b) in m {
            self.u32(*a);
            self.u32(*b);
        }
    }
}

struct R<'a>(&'a [u8], usize);
type Res<T> = Result<T, String>;
impl R<'_> {
    fn take(&mut self, n: usize) -> Res<&[u8]> {
        let s = self
            .0
            .get(self.1..self.1 + n)
            .ok_or_else(|| "truncated sim image".to_string())?;
        self.1 += n;
        Ok(s)
    }
    fn u8(&mut self) -> Res<u8> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Res<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn u64(&mut self) -> Res<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    fn bytes(&mut self) -> Res<Vec<u8>> {
        let n = self.u64()? as usize;
        Ok(self.take(n)?.to_vec())
    }
    fn ty(&mut self) -> Res<Ty> {
        let c = self.u8()?;
        Ty::from_code(c).ok_or_else(|| format!("bad type code {c} in sim image"))
    }
    fn regs(&mut self) -> Res<Vec<Reg>> {
        let n = self.u32()?;
        (0..n).map(|_| self.u32()).collect()
    }
    fn moves(&mut self) -> Res<Vec<(Reg, Reg)>> {
        let n = self.u32()?;
        (0..n).map(|_| Ok((self.u32()?, self.u32()?))).collect()
    }
}

// Enum <-> byte tables, in declaration order.
const BINOPS: [BinOp; 32] = {
    use BinOp::*;
    [
        Add, Sub, Mul, DivS, DivU, RemS, RemU, CeilDivS, CeilDivU, FloorDivS, And, Or, Xor, Shl,
        ShrS, ShrU, MaxS, MinS, MaxU, MinU, FAdd, FSub, FMul, FDiv, FRem, FMax, FMin, FMaxNum,
        FMinNum, FPow, FAtan2, FCopySign,
    ]
};
const UNOPS: [UnOp; 24] = {
    use UnOp::*;
    [
        FNeg, FAbs, FSqrt, FRsqrt, FExp, FExp2, FLog, FLog2, FLog10, FSin, FCos, FTan, FTanh,
        FAtan, FFloor, FCeil, FRound, FTrunc, FErf, AbsI, Clz, Ctz, Popc, BitRev,
    ]
};
const CASTS: [CastOp; 10] = {
    use CastOp::*;
    [
        ExtS, ExtU, Trunc, SIToFP, UIToFP, FPToSI, FPToUI, FExt, FTrunc, Bitcast,
    ]
};

fn lookup<T: Copy>(table: &[T], c: u8, what: &str) -> Res<T> {
    table
        .get(c as usize)
        .copied()
        .ok_or_else(|| format!("bad {what} code {c} in sim image"))
}

fn special_code(s: Special) -> (u8, u8) {
    match s {
        Special::ThreadId(d) => (0, d),
        Special::BlockId(d) => (1, d),
        Special::BlockDim(d) => (2, d),
        Special::GridDim(d) => (3, d),
        Special::LaneId => (4, 0),
        Special::Clock => (5, 0),
    }
}

impl Kernel {
    fn write(&self, w: &mut W) {
        w.bytes(self.name.as_bytes());
        w.u32(self.args.len() as u32);
        for a in &self.args {
            match a {
                Arg::Scalar { ty, reg } => {
                    w.u8(0);
                    w.u8(ty.code());
                    w.u32(*reg);
                }
                Arg::MemRef { slot, rank } => {
                    w.u8(1);
                    w.u32(*slot);
                    w.u32(*rank);
                }
                Arg::Ptr { slots, reg, byval } => {
                    match byval {
                        0 => w.u8(2),
                        b => {
                            w.u8(3);
                            w.u32(*b);
                        }
                    }
                    w.regs(slots);
                    w.u32(*reg);
                }
            }
        }
        w.u32(self.nregs);
        w.u32(self.consts.len() as u32);
        for (r, v) in &self.consts {
            w.u32(*r);
            w.u64(*v);
        }
        w.u32(self.slots.len() as u32);
        for s in &self.slots {
            w.u8(s.space as u8);
            w.u8(s.bytes as u8);
            w.u8(s.elem.code());
            w.u32(s.rank);
            w.u32(s.arg);
            w.u64(s.offset);
            w.u32(s.shape.len() as u32);
            s.shape.iter().for_each(|d| w.u64(*d as u64));
        }
        w.u64(self.shared_bytes);
        w.u64(self.private_bytes);
        w.u32(self.registers);
        w.u8(self.source as u8);
        w.u32(self.code.len() as u32);
        for i in &self.code {
            match i {
                Inst::Bin { op, ty, d, a, b } => {
                    w.u8(0);
                    w.u8(BINOPS.iter().position(|x| x == op).unwrap() as u8);
                    w.u8(ty.code());
                    w.regs(&[*d, *a, *b]);
                }
                Inst::Un { op, ty, d, a } => {
                    w.u8(1);
                    w.u8(UNOPS.iter().position(|x| x == op).unwrap() as u8);
                    w.u8(ty.code());
                    w.regs(&[*d, *a]);
                }
                Inst::Cmp { pred, ty, d, a, b } => {
                    w.u8(2);
                    w.u8(*pred);
                    w.u8(ty.code());
                    w.regs(&[*d, *a, *b]);
                }
                Inst::Select { d, c, a, b } => {
                    w.u8(3);
                    w.regs(&[*d, *c, *a, *b]);
                }
                Inst::Cast { op, from, to, d, a } => {
                    w.u8(4);
                    w.u8(CASTS.iter().position(|x| x == op).unwrap() as u8);
                    w.u8(from.code());
                    w.u8(to.code());
                    w.regs(&[*d, *a]);
                }
                Inst::Fma { ty, d, a, b, c } => {
                    w.u8(5);
                    w.u8(ty.code());
                    w.regs(&[*d, *a, *b, *c]);
                }
                Inst::Special { d, s } => {
                    w.u8(6);
                    let (k, dim) = special_code(*s);
                    w.u8(k);
                    w.u8(dim);
                    w.u32(*d);
                }
                Inst::Load { d, mem, idx } => {
                    w.u8(7);
                    w.u32(*d);
                    w.u32(*mem);
                    w.regs(idx);
                }
                Inst::Store { v, mem, idx } => {
                    w.u8(8);
                    w.u32(*v);
                    w.u32(*mem);
                    w.regs(idx);
                }
                Inst::Dim { d, mem, dim } => {
                    w.u8(9);
                    w.regs(&[*d, *mem, *dim]);
                }
                Inst::Br { target, moves } => {
                    w.u8(10);
                    w.u32(*target);
                    w.moves(moves);
                }
                Inst::CondBr {
                    c,
                    t,
                    tmoves,
                    f,
                    fmoves,
                } => {
                    w.u8(11);
                    w.regs(&[*c, *t, *f]);
                    w.moves(tmoves);
                    w.moves(fmoves);
                }
                Inst::Barrier => w.u8(12),
                Inst::Return => w.u8(13),
                Inst::Atomic {
                    op,
                    ty,
                    d,
                    mem,
                    idx,
                    v,
                    c,
                } => {
                    w.u8(14);
                    w.u8(ATOMICS.iter().position(|x| x == op).unwrap() as u8);
                    w.u8(ty.code());
                    w.regs(&[*d, *v, *c]);
                    w.u32(*mem);
                    w.regs(idx);
                }
                Inst::Warp {
                    op,
                    ty,
                    d,
                    p,
                    m,
                    a,
                    b,
                    c,
                } => {
                    w.u8(15);
                    w.u8(WARPOPS.iter().position(|x| x == op).unwrap() as u8);
                    w.u8(ty.code());
                    w.regs(&[*d, *p, *m, *a, *b, *c]);
                }
            }
        }
    }

    fn read(r: &mut R) -> Res<Kernel> {
        let name = String::from_utf8_lossy(&r.bytes()?).into_owned();
        let nargs = r.u32()?;
        let mut args = Vec::new();
        for _ in 0..nargs {
            args.push(match r.u8()? {
                0 => Arg::Scalar {
                    ty: r.ty()?,
                    reg: r.u32()?,
                },
                1 => Arg::MemRef {
                    slot: r.u32()?,
                    rank: r.u32()?,
                },
                tag => {
                    let byval = match tag {
                        3 => r.u32()?,
                        _ => 0,
                    };
                    Arg::Ptr {
                        slots: r.regs()?,
                        reg: r.u32()?,
                        byval,
                    }
                }
            });
        }
        let nregs = r.u32()?;
        let nc = r.u32()?;
        let consts = (0..nc)
            .map(|_| Ok((r.u32()?, r.u64()?)))
            .collect::<Res<Vec<_>>>()?;
        let ns = r.u32()?;
        let mut slots = Vec::new();
        for _ in 0..ns {
            let space = match r.u8()? {
                0 => Space::Global,
                1 => Space::Shared,
                _ => Space::Private,
            };
            let bytes = r.u8()? != 0;
            let elem = r.ty()?;
            let rank = r.u32()?;
            let arg = r.u32()?;
            let offset = r.u64()?;
            let n = r.u32()?;
            let shape = (0..n)
                .map(|_| Ok(r.u64()? as i64))
                .collect::<Res<Vec<_>>>()?;
            slots.push(MemSlot {
                space,
                bytes,
                elem,
                rank,
                arg,
                offset,
                shape,
            });
        }
        let shared_bytes = r.u64()?;
        let private_bytes = r.u64()?;
        let registers = r.u32()?;
        let source = match r.u8()? {
            0 => Source::Mlir,
            1 => Source::Llvm,
            v => return Err(format!("kernel '{name}': unknown source form {v}")),
        };
        let ncode = r.u32()?;
        let mut code = Vec::with_capacity(ncode as usize);
        for _ in 0..ncode {
            code.push(match r.u8()? {
                0 => {
                    let op = lookup(&BINOPS, r.u8()?, "binary op")?;
                    let ty = r.ty()?;
                    let v = r.regs()?;
                    Inst::Bin {
                        op,
                        ty,
                        d: v[0],
                        a: v[1],
                        b: v[2],
                    }
                }
                1 => {
                    let op = lookup(&UNOPS, r.u8()?, "unary op")?;
                    let ty = r.ty()?;
                    let v = r.regs()?;
                    Inst::Un {
                        op,
                        ty,
                        d: v[0],
                        a: v[1],
                    }
                }
                2 => {
                    let pred = r.u8()?;
                    let ty = r.ty()?;
                    let v = r.regs()?;
                    Inst::Cmp {
                        pred,
                        ty,
                        d: v[0],
                        a: v[1],
                        b: v[2],
                    }
                }
                3 => {
                    let v = r.regs()?;
                    Inst::Select {
                        d: v[0],
                        c: v[1],
                        a: v[2],
                        b: v[3],
                    }
                }
                4 => {
                    let op = lookup(&CASTS, r.u8()?, "cast")?;
                    let from = r.ty()?;
                    let to = r.ty()?;
                    let v = r.regs()?;
                    Inst::Cast {
                        op,
                        from,
                        to,
                        d: v[0],
                        a: v[1],
                    }
                }
                5 => {
                    let ty = r.ty()?;
                    let v = r.regs()?;
                    Inst::Fma {
                        ty,
                        d: v[0],
                        a: v[1],
                        b: v[2],
                        c: v[3],
                    }
                }
                6 => {
                    let k = r.u8()?;
                    let dim = r.u8()?;
                    let s = match k {
                        0 => Special::ThreadId(dim),
                        1 => Special::BlockId(dim),
                        2 => Special::BlockDim(dim),
                        3 => Special::GridDim(dim),
                        5 => Special::Clock,
                        _ => Special::LaneId,
                    };
                    Inst::Special { d: r.u32()?, s }
                }
                7 => Inst::Load {
                    d: r.u32()?,
                    mem: r.u32()?,
                    idx: r.regs()?,
                },
                8 => Inst::Store {
                    v: r.u32()?,
                    mem: r.u32()?,
                    idx: r.regs()?,
                },
                9 => {
                    let v = r.regs()?;
                    Inst::Dim {
                        d: v[0],
                        mem: v[1],
                        dim: v[2],
                    }
                }
                10 => Inst::Br {
                    target: r.u32()?,
                    moves: r.moves()?,
                },
                11 => {
                    let v = r.regs()?;
                    Inst::CondBr {
                        c: v[0],
                        t: v[1],
                        f: v[2],
                        tmoves: r.moves()?,
                        fmoves: r.moves()?,
                    }
                }
                12 => Inst::Barrier,
                13 => Inst::Return,
                14 => {
                    let op = lookup(&ATOMICS, r.u8()?, "atomic op")?;
                    let ty = r.ty()?;
                    let v = r.regs()?;
                    if v.len() != 3 {
                        return Err("malformed atomic in sim image".into());
                    }
                    Inst::Atomic {
                        op,
                        ty,
                        d: v[0],
                        v: v[1],
                        c: v[2],
                        mem: r.u32()?,
                        idx: r.regs()?,
                    }
                }
                15 => {
                    let op = lookup(&WARPOPS, r.u8()?, "warp op")?;
                    let ty = r.ty()?;
                    let v = r.regs()?;
                    if v.len() != 6 {
                        return Err("malformed warp operation in sim image".into());
                    }
                    Inst::Warp {
                        op,
                        ty,
                        d: v[0],
                        p: v[1],
                        m: v[2],
                        a: v[3],
                        b: v[4],
                        c: v[5],
                    }
                }
                c => return Err(format!("bad instruction code {c} in sim image")),
            });
        }
        let k = Kernel {
            name,
            args,
            nregs,
            consts,
            code,
            slots,
            shared_bytes,
            private_bytes,
            registers,
            source,
        };
        k.validate()?;
        Ok(k)
    }

    /// Checks register, slot and branch indices so that the interpreter can trust them.
    pub fn validate(&self) -> Res<()> {
        let n = self.nregs;
        let ok_r = |r: &Reg| *r < n;
        let ok_m = |m: &u32| (*m as usize) < self.slots.len();
        let ok_t = |t: &u32| (*t as usize) < self.code.len();
        let ok_mv = |m: &Vec<(Reg, Reg)>| m.iter().all(|(a, b)| ok_r(a) && ok_r(b));
        let good = self.consts.iter().all(|(r, _)| ok_r(r))
            && self.args.iter().all(|a| match a {
                Arg::Scalar { reg, .. } => ok_r(reg),
                Arg::MemRef { slot, .. } => ok_m(slot),
                Arg::Ptr { slots, reg, .. } => {
                    ok_r(reg)
                        && slots.iter().all(|s| {
                            ok_m(s)
                                && self.slots[*s as usize].bytes
                                && self.slots[*s as usize].space == Space::Global
                        })
                }
            })
            && self
                .slots
                .iter()
                .all(|s| !s.bytes || (s.rank == 1 && s.shape.len() == 1))
            && self.code.iter().all(|i| match i {
                Inst::Bin { d, a, b, .. } | Inst::Cmp { d, a, b, .. } => {
                    ok_r(d) && ok_r(a) && ok_r(b)
                }
                Inst::Un { d, a, .. } | Inst::Cast { d, a, .. } => ok_r(d) && ok_r(a),
                Inst::Select { d, c, a, b } | Inst::Fma { d, a, b, c, .. } => {
                    ok_r(d) && ok_r(c) && ok_r(a) && ok_r(b)
                }
                Inst::Special { d, .. } => ok_r(d),
                Inst::Load { d, mem, idx } | Inst::Store { v: d, mem, idx } => {
                    ok_r(d)
                        && ok_m(mem)
                        && idx.iter().all(ok_r)
                        && idx.len() == self.slots[*mem as usize].rank as usize
                }
                Inst::Dim { d, mem, dim } => {
                    ok_r(d) && ok_m(mem) && *dim < self.slots[*mem as usize].rank
                }
                Inst::Br { target, moves } => ok_t(target) && ok_mv(moves),
                Inst::CondBr {
                    c,
                    t,
                    tmoves,
                    f,
                    fmoves,
                } => ok_r(c) && ok_t(t) && ok_t(f) && ok_mv(tmoves) && ok_mv(fmoves),
                Inst::Barrier | Inst::Return => true,
                Inst::Warp {
                    d, p, m, a, b, c, ..
                } => [d, p, m, a, b, c].iter().all(|r| ok_r(r)),
                Inst::Atomic {
                    d, mem, idx, v, c, ..
                } => {
                    ok_r(d)
                        && ok_r(v)
                        && ok_r(c)
                        && ok_m(mem)
                        && idx.iter().all(ok_r)
                        && self.slots[*mem as usize].bytes
                        && self.slots[*mem as usize].space != Space::Private
                        && idx.len() == 1
                }
            })
            && matches!(
                self.code.last(),
                Some(Inst::Return | Inst::Br { .. } | Inst::CondBr { .. })
            );
        if good {
            Ok(())
        } else {
            Err(format!("malformed sim kernel '{}'", self.name))
        }
    }
}

impl FatBinary {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = W(MAGIC.to_vec());
        w.u32(VERSION);
        let mut sim = W(Vec::new());
        sim.u32(self.sim.len() as u32);
        self.sim.iter().for_each(|k| k.write(&mut sim));
        let mut entries: Vec<(EntryKind, Vec<u8>)> = vec![(EntryKind::Sim, sim.0)];
        for c in &self.code {
            let mut e = W(Vec::new());
            e.u32(c.kind as u32);
            e.bytes(c.arch.as_bytes());
            e.bytes(&c.bytes);
            entries.push((EntryKind::Code, e.0));
        }
        w.u32(entries.len() as u32);
        for (k, b) in entries {
            w.u32(k as u32);
            w.bytes(&b);
        }
        w.0
    }

    /// Decodes a container; `None` when `data` is not one (a plain cubin or PTX image).
    pub fn decode(data: &[u8]) -> Option<Res<FatBinary>> {
        if !data.starts_with(MAGIC) {
            return None;
        }
        Some((|| {
            let mut r = R(data, MAGIC.len());
            let v = r.u32()?;
            if v != VERSION {
                return Err(format!(
                    "module image version {v}, this runtime reads version {VERSION}: rebuild the program"
                ));
            }
            let mut fb = FatBinary::default();
            for _ in 0..r.u32()? {
                let kind = r.u32()?;
                let bytes = r.bytes()?;
                match kind {
                    1 => {
                        let mut s = R(&bytes, 0);
                        for _ in 0..s.u32()? {
                            fb.sim.push(Kernel::read(&mut s)?);
                        }
                    }
                    2 => {
                        let mut c = R(&bytes, 0);
                        let kind = match c.u32()? {
                            1 => CodeKind::Ptx,
                            2 => CodeKind::Cubin,
                            3 => CodeKind::Hsaco,
                            k => return Err(format!("unknown code object kind {k}")),
                        };
                        let arch = String::from_utf8(c.bytes()?)
                            .map_err(|_| "malformed architecture name")?;
                        fb.code.push(Code {
                            kind,
                            arch,
                            bytes: c.bytes()?,
                        });
                    }
                    _ => {}
                }
            }
            Ok(fb)
        })())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn container_round_trips() {
        let k = Kernel {
            name: "k".into(),
            args: vec![
                Arg::MemRef { slot: 0, rank: 1 },
                Arg::Scalar {
                    ty: Ty::I64,
                    reg: 0,
                },
            ],
            nregs: 3,
            consts: vec![(1, 7)],
            code: vec![
                Inst::Special {
                    d: 2,
                    s: Special::ThreadId(0),
                },
                Inst::Bin {
                    op: BinOp::Add,
                    ty: Ty::I64,
                    d: 2,
                    a: 2,
                    b: 1,
                },
                Inst::Store {
                    v: 2,
                    mem: 0,
                    idx: vec![2],
                },
                Inst::CondBr {
                    c: 2,
                    t: 4,
                    tmoves: vec![(0, 1)],
                    f: 4,
                    fmoves: vec![],
                },
                Inst::Return,
            ],
            slots: vec![MemSlot {
                space: Space::Global,
                bytes: false,
                elem: Ty::I64,
                rank: 1,
                arg: 0,
                offset: 0,
                shape: vec![-1],
            }],
            shared_bytes: 0,
            private_bytes: 0,
            registers: 12,
            source: Source::Llvm,
        };
        let code = |kind, arch: &str| Code {
            kind,
            arch: arch.into(),
            bytes: arch.as_bytes().to_vec(),
        };
        let fb = FatBinary {
            sim: vec![k],
            code: vec![
                code(CodeKind::Cubin, "sm_80"),
                code(CodeKind::Ptx, "sm_80"),
                code(CodeKind::Cubin, "sm_90"),
                code(CodeKind::Hsaco, "gfx942"),
            ],
        };
        let bytes = fb.encode();
        assert_eq!(FatBinary::decode(&bytes).unwrap().unwrap(), fb);
        let cubins: Vec<&str> = fb
            .objects(CodeKind::Cubin)
            .iter()
            .map(|c| c.arch.as_str())
            .collect();
        assert_eq!(cubins, ["sm_90", "sm_80"]);
        assert_eq!(fb.archs(), ["sm_80", "sm_90", "gfx942"]);
        assert!(FatBinary::decode(b"\x7fELF").is_none());
        assert!(FatBinary::decode(&bytes[..bytes.len() - 3])
            .unwrap()
            .is_err());
    }
}
