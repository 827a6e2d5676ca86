//! CUDA device code to sim's form: the kernels of an NVVM module (clang's
//! `--cuda-device-only` LLVM IR, imported into MLIR's `llvm` dialect) compiled into
//! [`tessel_runtime::bytecode::Kernel`]s, through the same builder as Tessel's own
//! kernels ([`crate::simform`]).
//!
//! Preconditions: the module is optimized (clang `-O3`, as nvcc builds device code), so
//! device functions are inlined and scalars live in registers; its kernels are the
//! `llvm.func`s with the `ptx_kernel` calling convention.
//!
//! Pointers: every pointer value is a root (a kernel parameter, a `__shared__` variable,
//! an `alloca`) plus a byte offset held in a register. The root is found statically
//! (through `getelementptr`, `addrspacecast`, `select` and block arguments); a load or
//! store goes to the byte-addressed slot of its root and type ([`MemSlot::bytes`]), so
//! sim checks bounds, alignment and races on every access as for its own kernels. What
//! has no static root (pointers loaded from memory, `inttoptr`, a pointer that may come
//! from two roots) is reported by name, as is every operation sim has no meaning for.
//!
//! Before: `%p = llvm.getelementptr inbounds %arg1[%i] : (!llvm.ptr, i64) -> !llvm.ptr,
//! f32` then `%v = llvm.load %p : !llvm.ptr -> f32`.
//! After: `Cast ExtS; Bin Mul %i, 4; Bin Add 0, ..; Load { mem: <arg 1 as f32>, idx:
//! [offset] }`.

use crate::mlir::{from_string_ref as str_of, print_attr, print_type, string_ref};
use crate::simform::{attr, block_moves, constant_bits, op_name, scalar_ty, Builder};
use mlir_sys::*;
use std::collections::HashMap;
use tessel_runtime::bytecode::*;

/// A type's layout on NVPTX (64-bit pointers, natural alignment).
#[derive(Clone, Debug, PartialEq)]
enum Layout {
    Scalar(u64),
    Array(u64, Box<Layout>),
    Struct(Vec<Layout>, bool),
}

impl Layout {
    fn align(&self) -> u64 {
        match self {
            Layout::Scalar(n) => *n,
            Layout::Array(_, e) => e.align(),
            Layout::Struct(f, packed) => {
                if *packed {
                    1
                } else {
                    f.iter().map(Layout::align).max().unwrap_or(1)
                }
            }
        }
    }
    /// Bytes between consecutive elements of an array of this type.
    fn size(&self) -> u64 {
        match self {
            Layout::Scalar(n) => *n,
            Layout::Array(n, e) => n * e.size(),
            Layout::Struct(..) => {
                let (end, _) = self.fields();
                end.next_multiple_of(self.align())
            }
        }
    }
    /// (end of the last field, offset of each field).
    fn fields(&self) -> (u64, Vec<u64>) {
        let Layout::Struct(f, packed) = self else {
            return (self.size(), Vec::new());
        };
        let mut off = 0;
        let mut offs = Vec::new();
        for t in f {
            if !packed {
                off = u64::next_multiple_of(off, t.align());
            }
            offs.push(off);
            off += t.size();
        }
        (off, offs)
    }
}

/// Parses a printed llvm-dialect type (`f32`, `!llvm.ptr<3>`, `!llvm.array<4 x f32>`,
/// `!llvm.struct<(i32, f64)>`) into its layout.
fn layout(text: &str) -> Result<Layout, String> {
    let mut p = TypeParser { s: text, i: 0 };
    let t = p.ty()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("the type {text}"));
    }
    Ok(t)
}

struct TypeParser<'a> {
    s: &'a str,
    i: usize,
}

impl TypeParser<'_> {
    fn ws(&mut self) {
        while self.s[self.i..].starts_with(' ') {
            self.i += 1;
        }
    }
    fn eat(&mut self, t: &str) -> bool {
        self.ws();
        if self.s[self.i..].starts_with(t) {
            self.i += t.len();
            true
        } else {
            false
        }
    }
    fn expect(&mut self, t: &str) -> Result<(), String> {
        if self.eat(t) {
            Ok(())
        } else {
            Err(format!("the type {}", self.s))
        }
    }
    fn number(&mut self) -> Result<u64, String> {
        self.ws();
        let n = self.s[self.i..]
            .chars()
            .take_while(char::is_ascii_digit)
            .count();
        let v = self.s[self.i..self.i + n]
            .parse()
            .map_err(|_| format!("the type {}", self.s))?;
        self.i += n;
        Ok(v)
    }
    fn ty(&mut self) -> Result<Layout, String> {
        self.eat("!llvm.");
        if self.eat("ptr") {
            if self.eat("<") {
                self.number()?;
                self.expect(">")?;
            }
            return Ok(Layout::Scalar(8));
        }
        if self.eat("array<") {
            let n = self.number()?;
            self.expect("x")?;
            let e = self.ty()?;
            self.expect(">")?;
            return Ok(Layout::Array(n, Box::new(e)));
        }
        if self.eat("struct<") {
            if self.eat("\"") {
                let end = self.s[self.i..]
                    .find('"')
                    .ok_or_else(|| format!("the type {}", self.s))?;
                self.i += end + 1;
                self.expect(",")?;
            }
            let packed = self.eat("packed");
            self.expect("(")?;
            let mut f = Vec::new();
            if !self.eat(")") {
                loop {
                    f.push(self.ty()?);
                    if self.eat(")") {
                        break;
                    }
                    self.expect(",")?;
                }
            }
            self.expect(">")?;
            return Ok(Layout::Struct(f, packed));
        }
        for (name, bytes) in [
            ("f64", 8),
            ("f32", 4),
            ("f16", 2),
            ("bf16", 2),
            ("i64", 8),
            ("i32", 4),
            ("i16", 2),
            ("i8", 1),
            ("i1", 1),
        ] {
            if self.eat(name) {
                return Ok(Layout::Scalar(bytes));
            }
        }
        Err(format!("the type {}", self.s))
    }
}

/// Where a pointer points.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Root {
    /// Kernel parameter `n` (global memory).
    Arg(usize),
    /// A `__shared__` variable, by symbol.
    Shared(String),
    /// A private array (`llvm.alloca`), by operation.
    Alloca(usize),
    /// Pointers from different roots meet here.
    Mixed,
}

struct Dev {
    b: Builder,
    roots: HashMap<usize, Root>,
    slots: HashMap<(Root, u8), u32>,
    /// Shared variables: offset in the block's shared memory, bytes (-1: dynamic).
    shared: HashMap<String, (u64, i64)>,
    /// Private arrays: offset in the thread's private memory, bytes.
    allocas: HashMap<usize, (u64, i64)>,
    konst: HashMap<(u64, u8), Reg>,
    /// Module variables (`__device__`, `__constant__`) the kernel reaches, by name: the
    /// hidden pointer parameter, after the kernel's own, that binds each.
    hidden: Vec<(String, usize)>,
    /// cmpxchg results: the registers of the old value and of the success flag.
    pairs: HashMap<usize, (Reg, Reg)>,
    /// The function's blocks, and the blocks `switch` adds after them.
    nblocks: u32,
    extra: Vec<Vec<Inst>>,
}

fn vkey(v: MlirValue) -> usize {
    v.ptr as usize
}

unsafe fn is_ptr(v: MlirValue) -> bool {
    mlirTypeIsALLVMPointerType(mlirValueGetType(v))
}

unsafe fn sym_of(op: MlirOperation, name: &str) -> Option<String> {
    attr(op, name).map(|a| {
        let s = print_attr(a);
        s.trim_start_matches('@').trim_matches('"').to_string()
    })
}

impl Dev {
    fn err(&self, what: impl std::fmt::Display) -> String {
        format!("kernel '{}': sim cannot run {what}", self.b.name)
    }

    /// A register holding the constant `v` of type `ty`.
    fn konst(&mut self, v: u64, ty: Ty) -> Reg {
        let v = v & ty.mask();
        if let Some(r) = self.konst.get(&(v, ty as u8)) {
            return *r;
        }
        let r = self.b.reg();
        self.b.k.consts.push((r, v));
        self.konst.insert((v, ty as u8), r);
        r
    }

    fn root(&self, v: MlirValue) -> Result<Root, String> {
        match self.roots.get(&vkey(v)) {
            Some(Root::Mixed) => Err(self.err("a pointer that may point into different arrays")),
            Some(r) => Ok(r.clone()),
            None => Err(self.err("a pointer that does not come from a kernel parameter, a variable or a local array (a pointer loaded from memory, or made from an integer)")),
        }
    }

    /// The byte-addressed slot through which `root` is accessed as `ty`.
    fn slot(&mut self, root: &Root, ty: Ty) -> Result<u32, String> {
        if let Some(s) = self.slots.get(&(root.clone(), ty as u8)) {
            return Ok(*s);
        }
        let (space, arg, offset, size) = match root {
            Root::Arg(i) => (Space::Global, *i as u32, 0, -1),
            Root::Shared(g) => {
                let (o, n) = self.shared[g];
                (Space::Shared, 0, o, n)
            }
            Root::Alloca(a) => {
                let (o, n) = self.allocas[a];
                (Space::Private, 0, o, n)
            }
            Root::Mixed => return Err(self.err("a pointer into different arrays")),
        };
        self.b.k.slots.push(MemSlot {
            space,
            bytes: true,
            elem: ty,
            rank: 1,
            arg,
            offset,
            shape: vec![size],
        });
        let s = self.b.k.slots.len() as u32 - 1;
        if let Root::Arg(i) = root {
            if let Arg::Ptr { slots, .. } = &mut self.b.k.args[*i] {
                slots.push(s);
            }
        }
        self.slots.insert((root.clone(), ty as u8), s);
        Ok(s)
    }

    /// `dst` is the pointer `src` (same root and offset).
    fn alias(&mut self, dst: MlirValue, src: MlirValue) -> Result<(), String> {
        let r = self.b.use_(src)?;
        self.b.regs.insert(vkey(dst), r);
        Ok(())
    }
}

/// The initial value of a module variable.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    Zero,
    Bytes(Vec<u8>),
    /// An initializer this reader does not decode (the host shadow holds it).
    Unknown,
}

/// A module variable (`__device__`, `__constant__`) some kernel reaches.
#[derive(Clone, Debug)]
pub struct ModuleVar {
    pub name: String,
    pub bytes: u64,
    pub init: Init,
}

/// An NVVM module in sim's form.
pub struct DeviceModule {
    pub kernels: Vec<Kernel>,
    /// Per kernel, the variables bound to its hidden parameters, in order.
    pub kernel_vars: Vec<Vec<String>>,
    pub vars: Vec<ModuleVar>,
}

/// The initial value of `llvm.mlir.global` `op` of `bytes` bytes.
unsafe fn initial_value(op: MlirOperation, bytes: u64) -> Init {
    let Some(a) = attr(op, "value") else {
        // An initializer region: zero when it returns `llvm.mlir.zero`.
        let blk = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
        if blk.ptr.is_null() {
            return Init::Zero;
        }
        let first = mlirBlockGetFirstOperation(blk);
        let zero = !first.ptr.is_null()
            && op_name(first) == "llvm.mlir.zero"
            && op_name(mlirOperationGetNextInBlock(first)) == "llvm.return";
        return if zero { Init::Zero } else { Init::Unknown };
    };
    let n = bytes as usize;
    let mut v = if mlirAttributeIsADenseElements(a) {
        let raw = mlirDenseElementsAttrGetRawData(a) as *const u8;
        let elems = mlirElementsAttrGetNumElements(a).max(1) as usize;
        let each = n / elems;
        if mlirDenseElementsAttrIsSplat(a) {
            let one = std::slice::from_raw_parts(raw, each);
            one.repeat(elems)
        } else {
            std::slice::from_raw_parts(raw, n).to_vec()
        }
    } else if mlirAttributeIsAInteger(a) {
        mlirIntegerAttrGetValueInt(a).to_le_bytes().to_vec()
    } else if mlirAttributeIsAFloat(a) {
        let x = mlirFloatAttrGetValueDouble(a);
        if n == 4 {
            (x as f32).to_le_bytes().to_vec()
        } else {
            x.to_le_bytes().to_vec()
        }
    } else if mlirAttributeIsAString(a) {
        let s = mlirStringAttrGetValue(a);
        std::slice::from_raw_parts(s.data as *const u8, s.length).to_vec()
    } else {
        return Init::Unknown;
    };
    v.resize(n, 0);
    Init::Bytes(v)
}

/// Compiles every kernel of an NVVM module in the llvm dialect.
///
/// # Safety
/// `module` must be a valid `builtin.module` operation of a live context.
pub unsafe fn compile_module(module: MlirOperation) -> Result<DeviceModule, String> {
    let body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
    // Module-level variables: address space and layout.
    let mut globals: HashMap<String, (i64, String)> = HashMap::new();
    let mut defs: HashMap<String, MlirOperation> = HashMap::new();
    let mut op = mlirBlockGetFirstOperation(body);
    while !op.ptr.is_null() {
        if op_name(op) == "llvm.mlir.global" {
            let name = sym_of(op, "sym_name").unwrap_or_default();
            let space = attr(op, "addr_space")
                .map(|a| mlirIntegerAttrGetValueInt(a))
                .unwrap_or(0);
            let ty = attr(op, "global_type")
                .map(|a| print_type(mlirTypeAttrGetValue(a)))
                .unwrap_or_default();
            globals.insert(name.clone(), (space, ty));
            defs.insert(name, op);
        }
        op = mlirOperationGetNextInBlock(op);
    }
    let mut out = DeviceModule {
        kernels: Vec::new(),
        kernel_vars: Vec::new(),
        vars: Vec::new(),
    };
    let mut op = mlirBlockGetFirstOperation(body);
    while !op.ptr.is_null() {
        if op_name(op) == "llvm.func"
            && attr(op, "CConv").is_some_and(|a| print_attr(a).contains("ptx_kernel"))
        {
            let (k, vars) = compile_kernel(op, &globals)?;
            for v in &vars {
                if out.vars.iter().any(|m| m.name == *v) {
                    continue;
                }
                let bytes = layout(&globals[v].1)?.size();
                out.vars.push(ModuleVar {
                    name: v.clone(),
                    bytes,
                    init: initial_value(defs[v], bytes),
                });
            }
            out.kernels.push(k);
            out.kernel_vars.push(vars);
        }
        op = mlirOperationGetNextInBlock(op);
    }
    Ok(out)
}

/// Calls `f` on every operation of the function's blocks, in order.
unsafe fn each_op(
    blocks: &[MlirBlock],
    mut f: impl FnMut(MlirOperation) -> Result<(), String>,
) -> Result<(), String> {
    for blk in blocks {
        let mut op = mlirBlockGetFirstOperation(*blk);
        while !op.ptr.is_null() {
            f(op)?;
            op = mlirOperationGetNextInBlock(op);
        }
    }
    Ok(())
}

/// The (destination block, operands) pairs of a branch.
unsafe fn successors(op: MlirOperation) -> Result<Vec<(MlirBlock, Vec<MlirValue>)>, String> {
    let n = mlirOperationGetNumOperands(op) as usize;
    let operand = |i: usize| mlirOperationGetOperand(op, i as isize);
    Ok(match op_name(op).as_str() {
        "llvm.br" => vec![(
            mlirOperationGetSuccessor(op, 0),
            (0..n).map(operand).collect(),
        )],
        "llvm.cond_br" => {
            let (t, f) = (
                mlirOperationGetSuccessor(op, 0),
                mlirOperationGetSuccessor(op, 1),
            );
            let nt = mlirBlockGetNumArguments(t) as usize;
            vec![
                (t, (1..1 + nt).map(operand).collect()),
                (f, (1 + nt..n).map(operand).collect()),
            ]
        }
        "llvm.switch" => {
            // Operands: the value, then the default's arguments, then each case's.
            let k = mlirOperationGetNumSuccessors(op) as usize;
            let mut v = Vec::new();
            let mut at = 1;
            for i in 0..k {
                let s = mlirOperationGetSuccessor(op, i as isize);
                let m = mlirBlockGetNumArguments(s) as usize;
                v.push((s, (at..at + m).map(operand).collect()));
                at += m;
            }
            v
        }
        _ => Vec::new(),
    })
}

/// The type of parameter `i` of kernel `f` where it is a structure passed by value (the
/// `llvm.byval` attribute clang gives a `__global__` function's structure parameter),
/// printed (`!llvm.struct<...>`).
unsafe fn byval_type(f: MlirOperation, i: usize) -> Option<String> {
    let attrs = attr(f, "arg_attrs").filter(|a| mlirAttributeIsAArray(*a))?;
    if i >= mlirArrayAttrGetNumElements(attrs) as usize {
        return None;
    }
    let dict = mlirArrayAttrGetElement(attrs, i as isize);
    if !mlirAttributeIsADictionary(dict) {
        return None;
    }
    let t = mlirDictionaryAttrGetElementByName(dict, string_ref("llvm.byval"));
    (!t.ptr.is_null() && mlirAttributeIsAType(t)).then(|| print_type(mlirTypeAttrGetValue(t)))
}

unsafe fn compile_kernel(
    f: MlirOperation,
    globals: &HashMap<String, (i64, String)>,
) -> Result<(Kernel, Vec<String>), String> {
    let name = sym_of(f, "sym_name").unwrap_or_default();
    let mut d = Dev {
        b: Builder::new(&name),
        roots: HashMap::new(),
        slots: HashMap::new(),
        shared: HashMap::new(),
        allocas: HashMap::new(),
        konst: HashMap::new(),
        hidden: Vec::new(),
        pairs: HashMap::new(),
        nblocks: 0,
        extra: Vec::new(),
    };
    d.b.k.source = tessel_runtime::bytecode::Source::Llvm;
    let region = mlirOperationGetRegion(f, 0);
    let entry = mlirRegionGetFirstBlock(region);
    if entry.ptr.is_null() {
        return Err(d.err("a kernel without a body"));
    }
    let mut blocks = Vec::new();
    let mut blk = entry;
    while !blk.ptr.is_null() {
        d.b.blocks.insert(blk.ptr as usize, blocks.len());
        blocks.push(blk);
        blk = mlirBlockGetNextInRegion(blk);
    }
    d.nblocks = blocks.len() as u32;
    // Parameters.
    for i in 0..mlirBlockGetNumArguments(entry) as usize {
        let v = mlirBlockGetArgument(entry, i as isize);
        if is_ptr(v) {
            let reg = d.b.reg();
            let byval = match byval_type(f, i) {
                Some(t) => {
                    let size = layout(&t).map_err(|w| d.err(w))?.size();
                    u32::try_from(size)
                        .ok()
                        .filter(|s| *s > 0)
                        .ok_or_else(|| d.err(format!("a structure parameter of {size} bytes")))?
                }
                None => 0,
            };
            d.b.k.args.push(Arg::Ptr {
                slots: Vec::new(),
                reg,
                byval,
            });
            d.roots.insert(vkey(v), Root::Arg(i));
            let z = d.konst(0, Ty::I64);
            d.b.regs.insert(vkey(v), z);
        } else {
            let ty = scalar_ty(mlirValueGetType(v)).map_err(|w| {
                d.err(format!(
                    "a parameter of {w} (structures passed by value are not supported yet)"
                ))
            })?;
            let reg = d.b.def(v);
            d.b.k.args.push(Arg::Scalar { ty, reg });
        }
    }
    // Shared variables (static ones first, dynamic ones after them) and private arrays.
    let mut dynamic = Vec::new();
    each_op(&blocks, |op| {
        match op_name(op).as_str() {
            "llvm.mlir.addressof" => {
                let g = sym_of(op, "global_name").unwrap_or_default();
                let Some((space, ty)) = globals.get(&g) else {
                    return Err(d.err(format!("the address of '{g}', which is not a variable")));
                };
                if *space != 3 {
                    if !d.hidden.iter().any(|h| h.0 == g) {
                        let reg = d.b.reg();
                        d.b.k.args.push(Arg::Ptr {
                            slots: Vec::new(),
                            reg,
                            byval: 0,
                        });
                        d.hidden.push((g, d.b.k.args.len() - 1));
                    }
                    return Ok(());
                }
                if d.shared.contains_key(&g) || dynamic.contains(&g) {
                    return Ok(());
                }
                let l = layout(ty).map_err(|w| d.err(w))?;
                if l.size() == 0 {
                    dynamic.push(g);
                } else {
                    let off = d.b.k.shared_bytes.next_multiple_of(16);
                    d.b.k.shared_bytes = off + l.size();
                    d.shared.insert(g, (off, l.size() as i64));
                }
            }
            "llvm.alloca" => {
                let ty = attr(op, "elem_type")
                    .map(|a| print_type(mlirTypeAttrGetValue(a)))
                    .unwrap_or_default();
                let l = layout(&ty).map_err(|w| d.err(w))?;
                let n = const_int(mlirOperationGetOperand(op, 0))
                    .ok_or_else(|| d.err("an alloca of dynamic size"))?;
                let off = d.b.k.private_bytes.next_multiple_of(16);
                let bytes = l.size() * n as u64;
                d.b.k.private_bytes = off + bytes;
                d.allocas.insert(op.ptr as usize, (off, bytes as i64));
            }
            _ => {}
        }
        Ok(())
    })?;
    if !dynamic.is_empty() {
        let off = d.b.k.shared_bytes.next_multiple_of(16);
        d.b.k.shared_bytes = off;
        for g in dynamic {
            d.shared.insert(g, (off, -1));
        }
    }
    find_roots(&mut d, &blocks)?;
    // Block arguments get registers (a pointer's: its offset).
    for blk in &blocks[1..] {
        for i in 0..mlirBlockGetNumArguments(*blk) {
            let v = mlirBlockGetArgument(*blk, i);
            if is_ptr(v) {
                d.root(v)?;
            } else {
                scalar_ty(mlirValueGetType(v))
                    .map_err(|w| d.err(format!("a block argument of {w}")))?;
            }
            d.b.def(v);
        }
    }
    // Values used in a block laid out before their definition's (LLVM's block order is
    // not a dominance order): their users read a register fixed in advance, which the
    // definition then copies its value into.
    let mut defined = std::collections::HashSet::new();
    let mut forward: HashMap<usize, Reg> = HashMap::new();
    each_op(&blocks, |op| {
        for i in 0..mlirOperationGetNumOperands(op) {
            let v = mlirOperationGetOperand(op, i);
            if mlirValueIsAOpResult(v)
                && !defined.contains(&vkey(v))
                && !forward.contains_key(&vkey(v))
            {
                let r = d.b.reg();
                forward.insert(vkey(v), r);
                d.b.regs.insert(vkey(v), r);
            }
        }
        for i in 0..mlirOperationGetNumResults(op) {
            defined.insert(vkey(mlirOperationGetResult(op, i)));
        }
        Ok(())
    })?;
    for blk in &blocks {
        let mut code = Vec::new();
        let mut op = mlirBlockGetFirstOperation(*blk);
        while !op.ptr.is_null() {
            lower(&mut d, op, &mut code).map_err(|e| {
                if e.starts_with("kernel '") {
                    e
                } else {
                    d.err(e)
                }
            })?;
            for i in 0..mlirOperationGetNumResults(op) {
                let v = mlirOperationGetResult(op, i);
                if let Some(r) = forward.get(&vkey(v)) {
                    let ty = if is_ptr(v) {
                        Ty::I64
                    } else {
                        scalar_ty(mlirValueGetType(v)).map_err(|w| d.err(w))?
                    };
                    let a = d.b.use_(v)?;
                    if a != *r {
                        code.push(Inst::Cast {
                            op: CastOp::Bitcast,
                            from: ty,
                            to: ty,
                            d: *r,
                            a,
                        });
                    }
                }
            }
            op = mlirOperationGetNextInBlock(op);
        }
        d.b.code.push(code);
    }
    let extra = std::mem::take(&mut d.extra);
    d.b.code.extend(extra);
    let vars = d.hidden.iter().map(|h| h.0.clone()).collect();
    Ok((d.b.finish()?, vars))
}

/// The value of an integer constant.
unsafe fn const_int(v: MlirValue) -> Option<i64> {
    if !mlirValueIsAOpResult(v) {
        return None;
    }
    let op = mlirOpResultGetOwner(v);
    if op_name(op) != "llvm.mlir.constant" {
        return None;
    }
    let a = attr(op, "value")?;
    mlirAttributeIsAInteger(a).then(|| mlirIntegerAttrGetValueInt(a))
}

/// The root of every pointer value, to a fixed point over the block arguments.
unsafe fn find_roots(d: &mut Dev, blocks: &[MlirBlock]) -> Result<(), String> {
    fn merge(roots: &mut HashMap<usize, Root>, v: usize, r: Option<Root>) -> bool {
        let Some(r) = r else { return false };
        match roots.get(&v) {
            None => {
                roots.insert(v, r);
                true
            }
            Some(old) if *old == r || *old == Root::Mixed => false,
            Some(_) => {
                roots.insert(v, Root::Mixed);
                true
            }
        }
    }
    loop {
        let mut changed = false;
        each_op(blocks, |op| {
            let name = op_name(op);
            let nres = mlirOperationGetNumResults(op);
            let res = (nres == 1 && is_ptr(mlirOperationGetResult(op, 0)))
                .then(|| vkey(mlirOperationGetResult(op, 0)));
            let of = |roots: &HashMap<usize, Root>, i: usize| {
                roots
                    .get(&vkey(mlirOperationGetOperand(op, i as isize)))
                    .cloned()
            };
            match (name.as_str(), res) {
                ("llvm.getelementptr" | "llvm.addrspacecast" | "llvm.freeze", Some(r)) => {
                    let root = of(&d.roots, 0);
                    changed |= merge(&mut d.roots, r, root);
                }
                ("llvm.select", Some(r)) => {
                    for i in [1, 2] {
                        let root = of(&d.roots, i);
                        changed |= merge(&mut d.roots, r, root);
                    }
                }
                ("llvm.mlir.addressof", Some(r)) => {
                    let g = sym_of(op, "global_name").unwrap_or_default();
                    let root = match d.hidden.iter().find(|h| h.0 == g) {
                        Some(h) => Root::Arg(h.1),
                        None => Root::Shared(g),
                    };
                    changed |= merge(&mut d.roots, r, Some(root));
                }
                ("llvm.alloca", Some(r)) => {
                    changed |= merge(&mut d.roots, r, Some(Root::Alloca(op.ptr as usize)));
                }
                _ => {}
            }
            for (dest, vals) in successors(op)? {
                for (i, v) in vals.into_iter().enumerate() {
                    if is_ptr(v) {
                        let root = d.roots.get(&vkey(v)).cloned();
                        let a = vkey(mlirBlockGetArgument(dest, i as isize));
                        changed |= merge(&mut d.roots, a, root);
                    }
                }
            }
            Ok(())
        })?;
        if !changed {
            return Ok(());
        }
    }
}

fn int_binop(name: &str) -> Option<BinOp> {
    use BinOp::*;
    Some(match name {
        "llvm.add" => Add,
        "llvm.sub" => Sub,
        "llvm.mul" => Mul,
        "llvm.sdiv" => DivS,
        "llvm.udiv" => DivU,
        "llvm.srem" => RemS,
        "llvm.urem" => RemU,
        "llvm.and" => And,
        "llvm.or" => Or,
        "llvm.xor" => Xor,
        "llvm.shl" => Shl,
        "llvm.ashr" => ShrS,
        "llvm.lshr" => ShrU,
        "llvm.fadd" => FAdd,
        "llvm.fsub" => FSub,
        "llvm.fmul" => FMul,
        "llvm.fdiv" => FDiv,
        "llvm.frem" => FRem,
        _ => return None,
    })
}

fn cast_op(name: &str) -> Option<CastOp> {
    use CastOp::*;
    Some(match name {
        "llvm.sext" => ExtS,
        "llvm.zext" => ExtU,
        "llvm.trunc" => Trunc,
        "llvm.sitofp" => SIToFP,
        "llvm.uitofp" => UIToFP,
        "llvm.fptosi" => FPToSI,
        "llvm.fptoui" => FPToUI,
        "llvm.fpext" => FExt,
        "llvm.fptrunc" => FTrunc,
        "llvm.bitcast" => Bitcast,
        _ => return None,
    })
}

/// What an intrinsic (by its LLVM name, type suffixes dropped) computes.
#[derive(Clone, Copy)]
enum Intr {
    Un(UnOp),
    Bin(BinOp),
    Fma,
    Rcp,
    Saturate,
    Barrier,
    Special(Special),
    /// A shuffle or vote; `true` when it also returns the in-range predicate.
    Warp(WarpOp, bool),
    Ignore,
}

fn intrinsic(full: &str) -> Option<Intr> {
    use Intr::*;
    let n = full
        .trim_start_matches("llvm.intr.")
        .trim_start_matches("llvm.");
    let base = |s: &str| n == s || n.starts_with(&format!("{s}."));
    if let Some(r) = n.strip_prefix("nvvm.read.ptx.sreg.") {
        let dim = |s: &str| match s {
            "x" => Some(0),
            "y" => Some(1),
            "z" => Some(2),
            _ => None,
        };
        let (k, c) = r.split_once('.').unwrap_or((r, ""));
        return Some(Special(match (k, dim(c)) {
            ("tid", Some(i)) => tessel_runtime::bytecode::Special::ThreadId(i),
            ("ctaid", Some(i)) => tessel_runtime::bytecode::Special::BlockId(i),
            ("ntid", Some(i)) => tessel_runtime::bytecode::Special::BlockDim(i),
            ("nctaid", Some(i)) => tessel_runtime::bytecode::Special::GridDim(i),
            ("laneid", _) => tessel_runtime::bytecode::Special::LaneId,
            ("clock" | "clock64", _) => tessel_runtime::bytecode::Special::Clock,
            _ => return None,
        }));
    }
    if let Some(r) = n.strip_prefix("nvvm.") {
        let rb = |s: &str| r == s || r.starts_with(&format!("{s}."));
        if let Some(m) = r.strip_prefix("shfl.sync.") {
            let (mode, ty) = m.split_once('.').unwrap_or((m, ""));
            let op = match mode {
                "idx" => WarpOp::ShflIdx,
                "up" => WarpOp::ShflUp,
                "down" => WarpOp::ShflDown,
                "bfly" => WarpOp::ShflBfly,
                _ => return None,
            };
            return Some(Warp(op, ty.ends_with('p')));
        }
        match r {
            "redux.sync.add" => return Some(Warp(WarpOp::ReduxAdd, false)),
            "redux.sync.min" => return Some(Warp(WarpOp::ReduxMinS, false)),
            "redux.sync.max" => return Some(Warp(WarpOp::ReduxMaxS, false)),
            "redux.sync.umin" => return Some(Warp(WarpOp::ReduxMinU, false)),
            "redux.sync.umax" => return Some(Warp(WarpOp::ReduxMaxU, false)),
            "redux.sync.and" => return Some(Warp(WarpOp::ReduxAnd, false)),
            "redux.sync.or" => return Some(Warp(WarpOp::ReduxOr, false)),
            "redux.sync.xor" => return Some(Warp(WarpOp::ReduxXor, false)),
            "vote.ballot.sync" => return Some(Warp(WarpOp::Ballot, false)),
            "vote.all.sync" => return Some(Warp(WarpOp::All, false)),
            "vote.any.sync" => return Some(Warp(WarpOp::Any, false)),
            "match.any.sync.i32" | "match.any.sync.i64" => {
                return Some(Warp(WarpOp::MatchAny, false))
            }
            "match.all.sync.i32p" | "match.all.sync.i64p" => {
                return Some(Warp(WarpOp::MatchAll, true))
            }
            _ => {}
        }
        if rb("fabs") || rb("abs") && r.ends_with('f') {
            return Some(Un(UnOp::FAbs));
        }
        return NVVM.iter().find(|(k, _)| rb(k)).map(|(_, w)| *w);
    }
    GENERIC.iter().find(|(k, _)| base(k)).map(|(_, w)| *w)
}

/// NVVM intrinsics (`llvm.nvvm.NAME`, any suffix) by name.
const NVVM: [(&str, Intr); 20] = [
    ("barrier0", Intr::Barrier),
    ("barrier.cta.sync", Intr::Barrier),
    ("barrier.sync", Intr::Barrier),
    ("sqrt", Intr::Un(UnOp::FSqrt)),
    ("rsqrt", Intr::Un(UnOp::FRsqrt)),
    ("ex2", Intr::Un(UnOp::FExp2)),
    ("lg2", Intr::Un(UnOp::FLog2)),
    ("sin", Intr::Un(UnOp::FSin)),
    ("cos", Intr::Un(UnOp::FCos)),
    ("floor", Intr::Un(UnOp::FFloor)),
    ("ceil", Intr::Un(UnOp::FCeil)),
    ("trunc", Intr::Un(UnOp::FTrunc)),
    ("fma", Intr::Fma),
    ("fmax", Intr::Bin(BinOp::FMaxNum)),
    ("fmin", Intr::Bin(BinOp::FMinNum)),
    ("div", Intr::Bin(BinOp::FDiv)),
    ("add", Intr::Bin(BinOp::FAdd)),
    ("mul", Intr::Bin(BinOp::FMul)),
    ("rcp", Intr::Rcp),
    ("saturate", Intr::Saturate),
];

/// LLVM's target-independent intrinsics (`llvm.NAME` or `llvm.intr.NAME`) by name.
const GENERIC: [(&str, Intr); 40] = [
    ("fmuladd", Intr::Fma),
    ("fma", Intr::Fma),
    ("fabs", Intr::Un(UnOp::FAbs)),
    ("sqrt", Intr::Un(UnOp::FSqrt)),
    ("floor", Intr::Un(UnOp::FFloor)),
    ("ceil", Intr::Un(UnOp::FCeil)),
    ("trunc", Intr::Un(UnOp::FTrunc)),
    ("round", Intr::Un(UnOp::FRound)),
    ("exp", Intr::Un(UnOp::FExp)),
    ("exp2", Intr::Un(UnOp::FExp2)),
    ("log", Intr::Un(UnOp::FLog)),
    ("log2", Intr::Un(UnOp::FLog2)),
    ("log10", Intr::Un(UnOp::FLog10)),
    ("sin", Intr::Un(UnOp::FSin)),
    ("cos", Intr::Un(UnOp::FCos)),
    ("tan", Intr::Un(UnOp::FTan)),
    ("tanh", Intr::Un(UnOp::FTanh)),
    ("atan", Intr::Un(UnOp::FAtan)),
    ("abs", Intr::Un(UnOp::AbsI)),
    ("ctlz", Intr::Un(UnOp::Clz)),
    ("cttz", Intr::Un(UnOp::Ctz)),
    ("ctpop", Intr::Un(UnOp::Popc)),
    ("bitreverse", Intr::Un(UnOp::BitRev)),
    ("pow", Intr::Bin(BinOp::FPow)),
    ("copysign", Intr::Bin(BinOp::FCopySign)),
    ("maxnum", Intr::Bin(BinOp::FMaxNum)),
    ("minnum", Intr::Bin(BinOp::FMinNum)),
    ("maximum", Intr::Bin(BinOp::FMax)),
    ("minimum", Intr::Bin(BinOp::FMin)),
    ("smax", Intr::Bin(BinOp::MaxS)),
    ("smin", Intr::Bin(BinOp::MinS)),
    ("umax", Intr::Bin(BinOp::MaxU)),
    ("umin", Intr::Bin(BinOp::MinU)),
    ("lifetime.start", Intr::Ignore),
    ("lifetime.end", Intr::Ignore),
    ("assume", Intr::Ignore),
    ("experimental.noalias.scope.decl", Intr::Ignore),
    ("dbg.value", Intr::Ignore),
    ("dbg.declare", Intr::Ignore),
    ("var.annotation", Intr::Ignore),
];

unsafe fn lower(d: &mut Dev, op: MlirOperation, code: &mut Vec<Inst>) -> Result<(), String> {
    let name = op_name(op);
    let operand = |i: usize| mlirOperationGetOperand(op, i as isize);
    let result = |i: usize| mlirOperationGetResult(op, i as isize);
    let rty = |i: usize| scalar_ty(mlirValueGetType(result(i)));
    if let Some(bop) = int_binop(&name) {
        let ty = rty(0)?;
        let (x, y) = (d.b.use_(operand(0))?, d.b.use_(operand(1))?);
        let r = d.b.def(result(0));
        code.push(Inst::Bin {
            op: bop,
            ty,
            d: r,
            a: x,
            b: y,
        });
        return Ok(());
    }
    if let Some(cop) = cast_op(&name) {
        let from = scalar_ty(mlirValueGetType(operand(0)))?;
        let to = rty(0)?;
        if cop == CastOp::Bitcast && from.bits() != to.bits() {
            return Err(format!("a bitcast from {from:?} to {to:?}"));
        }
        let a = d.b.use_(operand(0))?;
        let r = d.b.def(result(0));
        code.push(Inst::Cast {
            op: cop,
            from,
            to,
            d: r,
            a,
        });
        return Ok(());
    }
    match name.as_str() {
        "llvm.mlir.constant" => {
            let ty = rty(0).map_err(|w| format!("a constant of {w}"))?;
            let v = constant_bits(op, ty)?;
            let r = d.konst(v, ty);
            d.b.regs.insert(vkey(result(0)), r);
        }
        "llvm.mlir.undef" | "llvm.mlir.poison" | "llvm.mlir.zero" => {
            if is_ptr(result(0)) {
                // A null or undefined pointer has no root: using it is reported there.
                return Ok(());
            }
            let ty = rty(0).map_err(|w| format!("an undefined value of {w}"))?;
            let r = d.konst(0, ty);
            d.b.regs.insert(vkey(result(0)), r);
        }
        "llvm.fneg" => {
            let ty = rty(0)?;
            let a = d.b.use_(operand(0))?;
            let r = d.b.def(result(0));
            code.push(Inst::Un {
                op: UnOp::FNeg,
                ty,
                d: r,
                a,
            });
        }
        "llvm.freeze" => d.alias(result(0), operand(0))?,
        "llvm.icmp" | "llvm.fcmp" => {
            // Pointers with one root compare as their offsets; pointers into different
            // parameters, or a parameter and null, as their addresses (a vectorizer's
            // overlap test, `if (p)`).
            let ptrs = is_ptr(operand(0));
            let same = ptrs && !is_null(operand(0)) && !is_null(operand(1)) && {
                d.root(operand(0))? == d.root(operand(1))?
            };
            let vals = if ptrs && !same {
                [address(d, operand(0), code)?, address(d, operand(1), code)?]
            } else {
                [d.b.use_(operand(0))?, d.b.use_(operand(1))?]
            };
            let a = attr(op, "predicate").ok_or("a comparison without a predicate")?;
            let p = if mlirAttributeIsAInteger(a) {
                mlirIntegerAttrGetValueInt(a) as u8
            } else {
                return Err(format!("the predicate {}", print_attr(a)));
            };
            // Pointers with one root compare as their offsets.
            let ty = if is_ptr(operand(0)) {
                Ty::I64
            } else {
                scalar_ty(mlirValueGetType(operand(0)))?
            };
            let pred = if name == "llvm.fcmp" { p + 100 } else { p };
            let [x, y] = vals;
            let r = d.b.def(result(0));
            code.push(Inst::Cmp {
                pred,
                ty,
                d: r,
                a: x,
                b: y,
            });
        }
        "llvm.select" => {
            if is_ptr(result(0)) {
                d.root(result(0))?;
            } else {
                rty(0)?;
            }
            let (c, x, y) = (
                d.b.use_(operand(0))?,
                d.b.use_(operand(1))?,
                d.b.use_(operand(2))?,
            );
            let r = d.b.def(result(0));
            code.push(Inst::Select {
                d: r,
                c,
                a: x,
                b: y,
            });
        }
        "llvm.mlir.addressof" => {
            d.root(result(0))?;
            let z = d.konst(0, Ty::I64);
            d.b.regs.insert(vkey(result(0)), z);
        }
        "llvm.alloca" => {
            let z = d.konst(0, Ty::I64);
            d.b.regs.insert(vkey(result(0)), z);
        }
        "llvm.addrspacecast" => {
            d.root(result(0))?;
            d.alias(result(0), operand(0))?;
        }
        "llvm.getelementptr" => gep(d, op, code)?,
        "llvm.load" | "llvm.store"
            if (name == "llvm.load" && is_ptr(result(0)))
                || (name == "llvm.store" && is_ptr(operand(0))) =>
        {
            return Err(
                "a pointer stored in memory (arrays of pointers, pointers in structures)".into(),
            )
        }
        "llvm.load" => {
            let ty = rty(0).map_err(|w| format!("a load of {w}"))?;
            let root = d.root(operand(0))?;
            let mem = d.slot(&root, ty)?;
            let off = d.b.use_(operand(0))?;
            let r = d.b.def(result(0));
            code.push(Inst::Load {
                d: r,
                mem,
                idx: vec![off],
            });
        }
        "llvm.store" => {
            let ty =
                scalar_ty(mlirValueGetType(operand(0))).map_err(|w| format!("a store of {w}"))?;
            let root = d.root(operand(1))?;
            if let Root::Arg(i) = root {
                if matches!(d.b.k.args[i], Arg::Ptr { byval: 1.., .. }) {
                    return Err(
                        "a store into a structure passed by value (each thread's own copy)".into(),
                    );
                }
            }
            let mem = d.slot(&root, ty)?;
            let v = d.b.use_(operand(0))?;
            let off = d.b.use_(operand(1))?;
            code.push(Inst::Store {
                v,
                mem,
                idx: vec![off],
            });
        }
        "llvm.atomicrmw" | "llvm.cmpxchg" => atomic(d, op, code)?,
        "llvm.extractvalue" => {
            // Of a cmpxchg's {old, success} pair only.
            let Some(pair) = d.pairs.get(&vkey(operand(0))).copied() else {
                return Err("an extractvalue of an aggregate".into());
            };
            let pos = attr(op, "position")
                .filter(|a| mlirDenseArrayGetNumElements(*a) == 1)
                .map(|a| mlirDenseI64ArrayGetElement(a, 0))
                .ok_or("an extractvalue of a nested aggregate")?;
            let r = if pos == 0 { pair.0 } else { pair.1 };
            d.b.regs.insert(vkey(result(0)), r);
        }
        "llvm.br" | "llvm.cond_br" => {
            let succ = successors(op)?;
            let mut moves = Vec::new();
            for (dest, vals) in &succ {
                moves.push(block_moves(&d.b, *dest, vals.clone())?);
            }
            let target = |s: MlirBlock| d.b.blocks[&(s.ptr as usize)] as u32;
            if name == "llvm.br" {
                code.push(Inst::Br {
                    target: target(succ[0].0),
                    moves: moves.remove(0),
                });
            } else {
                let fmoves = moves.pop().unwrap_or_default();
                let tmoves = moves.pop().unwrap_or_default();
                code.push(Inst::CondBr {
                    c: d.b.use_(operand(0))?,
                    t: target(succ[0].0),
                    tmoves,
                    f: target(succ[1].0),
                    fmoves,
                });
            }
        }
        "llvm.switch" => switch(d, op, code)?,
        "llvm.return" => code.push(Inst::Return),
        "llvm.unreachable" => {
            return Err(
                "a path that ends in 'unreachable' (a trap or __builtin_unreachable)".into(),
            )
        }
        "nvvm.barrier0" | "nvvm.barrier" => code.push(Inst::Barrier),
        // Inline PTX without side effects whose results nothing reads does nothing (the
        // shared-memory base cooperative groups compute and may leave unused).
        "llvm.inline_asm"
            if attr(op, "has_side_effects").is_none()
                && (0..mlirOperationGetNumResults(op)).all(|i| {
                    mlirValueGetFirstUse(mlirOperationGetResult(op, i))
                        .ptr
                        .is_null()
                }) => {}
        "llvm.inline_asm" => return Err("inline PTX assembly".into()),
        "llvm.call_intrinsic" | "llvm.call" => {
            let callee = if name == "llvm.call" {
                sym_of(op, "callee").unwrap_or_default()
            } else {
                attr(op, "intrin")
                    .map(|a| str_of(mlirStringAttrGetValue(a)))
                    .unwrap_or_default()
            };
            if !callee.starts_with("llvm.") {
                return Err(format!(
                    "a call of '{callee}' (device functions must be inlined; is it defined in another file?)"
                ));
            }
            intrinsic_call(d, op, &callee, code)?;
        }
        n if n.starts_with("llvm.intr.") || n.starts_with("nvvm.read.ptx.sreg.") => {
            intrinsic_call(d, op, n, code)?
        }
        other => return Err(format!("operation '{other}'")),
    }
    Ok(())
}

unsafe fn intrinsic_call(
    d: &mut Dev,
    op: MlirOperation,
    callee: &str,
    code: &mut Vec<Inst>,
) -> Result<(), String> {
    let operand = |i: usize| mlirOperationGetOperand(op, i as isize);
    let result = mlirOperationGetResult(op, 0);
    let Some(what) = intrinsic(callee) else {
        return Err(format!("the intrinsic '{callee}'"));
    };
    let ty = || scalar_ty(mlirValueGetType(result));
    match what {
        Intr::Ignore => {}
        Intr::Warp(wop, pred) => {
            // shfl: (mask, value, b, c); vote: (mask, predicate); match: (mask, value);
            // redux: (value, mask).
            let redux = !matches!(
                wop,
                WarpOp::ShflIdx
                    | WarpOp::ShflUp
                    | WarpOp::ShflDown
                    | WarpOp::ShflBfly
                    | WarpOp::Ballot
                    | WarpOp::All
                    | WarpOp::Any
                    | WarpOp::MatchAny
                    | WarpOp::MatchAll
            );
            let matching = matches!(wop, WarpOp::MatchAny | WarpOp::MatchAll);
            let (mi, ai) = if redux { (1, 0) } else { (0, 1) };
            let m = d.b.use_(operand(mi))?;
            let a = d.b.use_(operand(ai))?;
            let shfl = matches!(
                wop,
                WarpOp::ShflIdx | WarpOp::ShflUp | WarpOp::ShflDown | WarpOp::ShflBfly
            );
            let (b, c) = if shfl {
                (d.b.use_(operand(2))?, d.b.use_(operand(3))?)
            } else {
                (a, a)
            };
            let ty = if shfl || redux || matching {
                scalar_ty(mlirValueGetType(operand(ai)))?
            } else {
                ty().unwrap_or(Ty::I32)
            };
            let (dv, p) = (d.b.reg(), d.b.reg());
            code.push(Inst::Warp {
                op: wop,
                ty,
                d: dv,
                p,
                m,
                a,
                b,
                c,
            });
            if pred {
                d.pairs.insert(vkey(result), (dv, p));
            } else {
                d.b.regs.insert(vkey(result), dv);
            }
        }
        Intr::Barrier => code.push(Inst::Barrier),
        Intr::Special(s) => {
            let ty = ty()?;
            let t = d.b.reg();
            code.push(Inst::Special { d: t, s });
            let r = d.b.def(result);
            code.push(Inst::Cast {
                op: CastOp::Trunc,
                from: Ty::I64,
                to: ty,
                d: r,
                a: t,
            });
        }
        Intr::Un(u) => {
            let ty = ty()?;
            let a = d.b.use_(operand(0))?;
            let r = d.b.def(result);
            code.push(Inst::Un { op: u, ty, d: r, a });
        }
        Intr::Bin(o) => {
            let ty = ty()?;
            let (a, b) = (d.b.use_(operand(0))?, d.b.use_(operand(1))?);
            let r = d.b.def(result);
            code.push(Inst::Bin {
                op: o,
                ty,
                d: r,
                a,
                b,
            });
        }
        Intr::Fma => {
            let ty = ty()?;
            let (a, b, c) = (
                d.b.use_(operand(0))?,
                d.b.use_(operand(1))?,
                d.b.use_(operand(2))?,
            );
            let r = d.b.def(result);
            code.push(Inst::Fma { ty, d: r, a, b, c });
        }
        Intr::Rcp => {
            let ty = ty()?;
            let one = match ty {
                Ty::F32 => d.konst(1f32.to_bits() as u64, ty),
                _ => d.konst(1f64.to_bits(), ty),
            };
            let a = d.b.use_(operand(0))?;
            let r = d.b.def(result);
            code.push(Inst::Bin {
                op: BinOp::FDiv,
                ty,
                d: r,
                a: one,
                b: a,
            });
        }
        Intr::Saturate => {
            let ty = ty()?;
            let (zero, one) = match ty {
                Ty::F32 => (0, 1f32.to_bits() as u64),
                _ => (0, 1f64.to_bits()),
            };
            let (zero, one) = (d.konst(zero, ty), d.konst(one, ty));
            let a = d.b.use_(operand(0))?;
            let t = d.b.reg();
            code.push(Inst::Bin {
                op: BinOp::FMaxNum,
                ty,
                d: t,
                a,
                b: zero,
            });
            let r = d.b.def(result);
            code.push(Inst::Bin {
                op: BinOp::FMinNum,
                ty,
                d: r,
                a: t,
                b: one,
            });
        }
    }
    Ok(())
}

/// Whether `v` is the null pointer (`llvm.mlir.zero`).
unsafe fn is_null(v: MlirValue) -> bool {
    mlirValueIsAOpResult(v) && op_name(mlirOpResultGetOwner(v)) == "llvm.mlir.zero"
}

/// A register holding pointer `v`'s address: null is 0, a pointer into a parameter its
/// base plus its offset. Other pointers have no address sim can compare.
unsafe fn address(d: &mut Dev, v: MlirValue, code: &mut Vec<Inst>) -> Result<Reg, String> {
    if is_null(v) {
        return Ok(d.konst(0, Ty::I64));
    }
    let base = match d.root(v)? {
        Root::Arg(i) => match &d.b.k.args[i] {
            Arg::Ptr { reg, .. } => *reg,
            _ => return Err(format!("a pointer from parameter {i}, a scalar")),
        },
        _ => {
            return Err(
                "a comparison of pointers into different arrays, not both parameters".into(),
            )
        }
    };
    let off = d.b.use_(v)?;
    let t = d.b.reg();
    code.push(Inst::Bin {
        op: BinOp::Add,
        ty: Ty::I64,
        d: t,
        a: base,
        b: off,
    });
    Ok(t)
}

/// `atomicrmw` and `cmpxchg` (CUDA's `atomic*`) on a parameter's or shared memory.
unsafe fn atomic(d: &mut Dev, op: MlirOperation, code: &mut Vec<Inst>) -> Result<(), String> {
    let operand = |i: usize| mlirOperationGetOperand(op, i as isize);
    let cas = op_name(op) == "llvm.cmpxchg";
    let value = operand(if cas { 2 } else { 1 });
    let ty = scalar_ty(mlirValueGetType(value)).map_err(|w| format!("an atomic on {w}"))?;
    let aop = if cas {
        AtomicOp::Cas
    } else {
        let a = attr(op, "bin_op").ok_or("an atomicrmw without an operation")?;
        let text = print_attr(a);
        // The dialect's AtomicBinOp, by number or by name.
        const NAMES: [(&str, AtomicOp); 17] = [
            ("xchg", AtomicOp::Xchg),
            ("add", AtomicOp::Add),
            ("sub", AtomicOp::Sub),
            ("_and", AtomicOp::And),
            ("nand", AtomicOp::Nand),
            ("_or", AtomicOp::Or),
            ("_xor", AtomicOp::Xor),
            ("max", AtomicOp::MaxS),
            ("min", AtomicOp::MinS),
            ("umax", AtomicOp::MaxU),
            ("umin", AtomicOp::MinU),
            ("fadd", AtomicOp::FAdd),
            ("fsub", AtomicOp::FSub),
            ("fmax", AtomicOp::FMax),
            ("fmin", AtomicOp::FMin),
            ("uinc_wrap", AtomicOp::IncWrap),
            ("udec_wrap", AtomicOp::DecWrap),
        ];
        let found = if mlirAttributeIsAInteger(a) {
            NAMES.get(mlirIntegerAttrGetValueInt(a) as usize)
        } else {
            NAMES.iter().find(|(n, _)| {
                text.split(|c: char| !c.is_alphanumeric() && c != '_')
                    .any(|w| w == *n)
            })
        };
        found
            .ok_or_else(|| format!("the atomic operation {text}"))?
            .1
    };
    let root = d.root(operand(0))?;
    if let Root::Alloca(_) = root {
        return Err("an atomic on a local array".into());
    }
    let mem = d.slot(&root, ty)?;
    let idx = d.b.use_(operand(0))?;
    let v = d.b.use_(value)?;
    let c = if cas { d.b.use_(operand(1))? } else { v };
    let result = mlirOperationGetResult(op, 0);
    let old = if cas { d.b.reg() } else { d.b.def(result) };
    code.push(Inst::Atomic {
        op: aop,
        ty,
        d: old,
        mem,
        idx: vec![idx],
        v,
        c,
    });
    if cas {
        let ok = d.b.reg();
        code.push(Inst::Cmp {
            pred: 0,
            ty,
            d: ok,
            a: old,
            b: c,
        });
        d.pairs.insert(vkey(result), (old, ok));
    }
    Ok(())
}

/// `getelementptr`: the base's offset plus each index times its stride.
unsafe fn gep(d: &mut Dev, op: MlirOperation, code: &mut Vec<Inst>) -> Result<(), String> {
    let result = mlirOperationGetResult(op, 0);
    d.root(result)?;
    let elem = attr(op, "elem_type")
        .map(|a| print_type(mlirTypeAttrGetValue(a)))
        .ok_or("a getelementptr without an element type")?;
    let mut ty = layout(&elem)?;
    let raw = attr(op, "rawConstantIndices").ok_or("a getelementptr without indices")?;
    let n = mlirDenseArrayGetNumElements(raw);
    let mut off = d.b.use_(mlirOperationGetOperand(op, 0))?;
    let mut dynamic = 1;
    let mut constant: i64 = 0;
    for k in 0..n {
        let c = mlirDenseI32ArrayGetElement(raw, k);
        // The first index steps over whole elements; later ones into arrays or fields.
        let (stride, next) = if k == 0 {
            (ty.size(), ty.clone())
        } else {
            match &ty {
                Layout::Array(_, e) => (e.size(), (**e).clone()),
                Layout::Struct(f, _) => {
                    if c == i32::MIN {
                        return Err("a getelementptr into a structure by a variable".into());
                    }
                    let offs = ty.fields().1;
                    let (Some(o), Some(field)) = (offs.get(c as usize), f.get(c as usize)) else {
                        return Err(format!(
                            "a getelementptr to field {c} of a structure of {}",
                            f.len()
                        ));
                    };
                    constant += *o as i64;
                    ty = field.clone();
                    continue;
                }
                Layout::Scalar(_) => return Err("a getelementptr into a scalar".into()),
            }
        };
        if c == i32::MIN {
            let v = mlirOperationGetOperand(op, dynamic);
            dynamic += 1;
            let ity = scalar_ty(mlirValueGetType(v))?;
            let mut i = d.b.use_(v)?;
            if ity != Ty::I64 {
                let t = d.b.reg();
                code.push(Inst::Cast {
                    op: CastOp::ExtS,
                    from: ity,
                    to: Ty::I64,
                    d: t,
                    a: i,
                });
                i = t;
            }
            if stride != 1 {
                let s = d.konst(stride, Ty::I64);
                let t = d.b.reg();
                code.push(Inst::Bin {
                    op: BinOp::Mul,
                    ty: Ty::I64,
                    d: t,
                    a: i,
                    b: s,
                });
                i = t;
            }
            let t = d.b.reg();
            code.push(Inst::Bin {
                op: BinOp::Add,
                ty: Ty::I64,
                d: t,
                a: off,
                b: i,
            });
            off = t;
        } else {
            constant += c as i64 * stride as i64;
        }
        ty = next;
    }
    if constant != 0 {
        let c = d.konst(constant as u64, Ty::I64);
        let t = d.b.reg();
        code.push(Inst::Bin {
            op: BinOp::Add,
            ty: Ty::I64,
            d: t,
            a: off,
            b: c,
        });
        off = t;
    }
    d.b.regs.insert(vkey(result), off);
    Ok(())
}

/// `switch`: a chain of equality tests, one extra block per case after the function's
/// own blocks.
unsafe fn switch(d: &mut Dev, op: MlirOperation, code: &mut Vec<Inst>) -> Result<(), String> {
    let v = mlirOperationGetOperand(op, 0);
    let ty = scalar_ty(mlirValueGetType(v))?;
    let x = d.b.use_(v)?;
    let cases = attr(op, "case_values");
    let n = cases.map_or(0, |c| mlirElementsAttrGetNumElements(c) as usize);
    // Successor 0 is the default; case i goes to successor i + 1.
    let mut targets = Vec::new();
    for (dest, vals) in successors(op)? {
        let moves = block_moves(&d.b, dest, vals)?;
        targets.push((d.b.blocks[&(dest.ptr as usize)] as u32, moves));
    }
    let mut next = d.nblocks + d.extra.len() as u32;
    if n == 0 {
        let (target, moves) = targets[0].clone();
        code.push(Inst::Br { target, moves });
        return Ok(());
    }
    code.push(Inst::Br {
        target: next,
        moves: vec![],
    });
    for i in 0..n {
        let c = cases.expect("cases");
        let value = if ty.bits() > 32 {
            mlirDenseElementsAttrGetInt64Value(c, i as isize) as u64
        } else {
            mlirDenseElementsAttrGetInt32Value(c, i as isize) as u32 as u64
        };
        let k = d.konst(value, ty);
        let t = d.b.reg();
        next += 1;
        let (f, fmoves) = if i + 1 == n {
            targets[0].clone()
        } else {
            (next, vec![])
        };
        let (case, tmoves) = targets[i + 1].clone();
        d.extra.push(vec![
            Inst::Cmp {
                pred: 0,
                ty,
                d: t,
                a: x,
                b: k,
            },
            Inst::CondBr {
                c: t,
                t: case,
                tmoves,
                f,
                fmoves,
            },
        ]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts() {
        assert_eq!(layout("f32").unwrap().size(), 4);
        assert_eq!(
            layout("!llvm.array<16 x array<17 x f64>>").unwrap().size(),
            16 * 17 * 8
        );
        let s = layout("!llvm.struct<(i8, f64, i32)>").unwrap();
        assert_eq!((s.size(), s.fields().1), (24, vec![0, 8, 16]));
        let p = layout("!llvm.struct<packed (i8, i32)>").unwrap();
        assert_eq!(p.size(), 5);
        assert_eq!(
            layout("!llvm.struct<\"struct.P\", (f32, ptr)>")
                .unwrap()
                .size(),
            16
        );
        assert!(layout("vector<4xf32>").is_err());
    }

    #[test]
    fn intrinsic_names() {
        assert!(matches!(intrinsic("llvm.fmuladd.f32"), Some(Intr::Fma)));
        assert!(matches!(intrinsic("llvm.intr.fmuladd"), Some(Intr::Fma)));
        assert!(matches!(
            intrinsic("llvm.nvvm.sqrt.approx.f"),
            Some(Intr::Un(UnOp::FSqrt))
        ));
        assert!(matches!(
            intrinsic("llvm.nvvm.barrier.cta.sync.aligned.all"),
            Some(Intr::Barrier)
        ));
        assert!(matches!(
            intrinsic("llvm.nvvm.read.ptx.sreg.ctaid.y"),
            Some(Intr::Special(Special::BlockId(1)))
        ));
        assert!(matches!(
            intrinsic("llvm.exp2.f64"),
            Some(Intr::Un(UnOp::FExp2))
        ));
        assert!(matches!(
            intrinsic("llvm.exp.f64"),
            Some(Intr::Un(UnOp::FExp))
        ));
        assert!(matches!(
            intrinsic("llvm.nvvm.shfl.sync.down.i32"),
            Some(Intr::Warp(WarpOp::ShflDown, false))
        ));
        assert!(matches!(
            intrinsic("llvm.nvvm.shfl.sync.bfly.f32p"),
            Some(Intr::Warp(WarpOp::ShflBfly, true))
        ));
        assert!(matches!(
            intrinsic("llvm.nvvm.match.all.sync.i64p"),
            Some(Intr::Warp(WarpOp::MatchAll, true))
        ));
        assert!(intrinsic("llvm.nvvm.fns").is_none());
    }
}
