//! The MLIR session both tools share: a context with every upstream dialect, Tessel's
//! dialects and the LLVM translations; parsing with located diagnostics; running textual
//! pass pipelines pass by pass (verifier after each, IR printing, a tracing span per
//! pass); reading the objects `gpu-module-to-binary` produced; translating to LLVM IR.

use melior::diagnostic::DiagnosticSeverity;
use melior::dialect::DialectRegistry;
use melior::ir::operation::OperationLike;
use melior::ir::Module;
use melior::pass::PassManager;
use melior::utility::{register_all_dialects, register_all_llvm_translations, register_all_passes};
use melior::Context;
use mlir_sys::*;
use std::cell::RefCell;
use std::ffi::c_void;
use std::rc::Rc;

/// One diagnostic MLIR reported, with its position in the parsed buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MlirDiag {
    pub severity: Severity,
    pub line: u32,
    pub col: u32,
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Note,
    Remark,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Remark => "remark",
        }
    }
}

pub(crate) fn string_ref(s: &str) -> MlirStringRef {
    MlirStringRef {
        data: s.as_ptr() as *const _,
        length: s.len(),
    }
}

/// # Safety
/// `s` points to `s.length` readable bytes (or is null).
pub(crate) unsafe fn from_string_ref(s: MlirStringRef) -> String {
    if s.data.is_null() {
        return String::new();
    }
    String::from_utf8_lossy(std::slice::from_raw_parts(s.data as *const u8, s.length)).into_owned()
}

/// Reads `line:col` out of a printed location such as `loc("f.mlir":3:7)`.
fn line_col(printed: &str) -> (u32, u32) {
    // The first `:<digits>:<digits>` after a quoted file name.
    let b = printed.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'"' {
            if let Some(end) = printed[i + 1..].find('"') {
                let rest = &printed[i + 1 + end + 1..];
                let mut it = rest.split(':').skip(1);
                let l = it.next().and_then(|s| {
                    s.trim_end_matches(|c: char| !c.is_ascii_digit())
                        .parse()
                        .ok()
                });
                let c = it
                    .next()
                    .map(|s| {
                        s.chars()
                            .take_while(|c| c.is_ascii_digit())
                            .collect::<String>()
                    })
                    .and_then(|s| s.parse().ok());
                if let (Some(l), Some(c)) = (l, c) {
                    return (l, c);
                }
                i += end + 2;
                continue;
            }
        }
        i += 1;
    }
    (0, 0)
}

/// A context ready for everything Tessel parses or produces.
pub struct Session {
    pub ctx: Context,
    diags: Rc<RefCell<Vec<MlirDiag>>>,
}

impl Default for Session {
    fn default() -> Self {
        Self::new()
    }
}

impl Session {
    pub fn new() -> Self {
        static PASSES: std::sync::Once = std::sync::Once::new();
        PASSES.call_once(|| {
            register_all_passes();
            crate::registry::register_rust_passes();
            // C's sqrtf is correctly rounded: make libdevice's __nv_sqrtf take its IEEE path
            // (as nvcc does without -use_fast_math) instead of sqrt.approx.f32.
            let args = [
                c"tessel".as_ptr(),
                c"-nvvm-reflect-add=__CUDA_PREC_SQRT=1".as_ptr(),
            ];
            unsafe { LLVMParseCommandLineOptions(args.len() as i32, args.as_ptr(), c"".as_ptr()) };
        });
        let registry = DialectRegistry::new();
        register_all_dialects(&registry);
        tessel_dialects::register(&registry);
        let ctx = Context::new();
        ctx.append_dialect_registry(&registry);
        ctx.load_all_available_dialects();
        register_all_llvm_translations(&ctx);
        let diags: Rc<RefCell<Vec<MlirDiag>>> = Rc::default();
        let sink = diags.clone();
        ctx.attach_diagnostic_handler(move |d| {
            let severity = match d.severity() {
                DiagnosticSeverity::Error => Severity::Error,
                DiagnosticSeverity::Warning => Severity::Warning,
                DiagnosticSeverity::Note => Severity::Note,
                _ => Severity::Remark,
            };
            let (line, col) = line_col(&d.location().to_string());
            sink.borrow_mut().push(MlirDiag {
                severity,
                line,
                col,
                message: d.to_string(),
            });
            for i in 0..d.note_count() {
                if let Ok(n) = d.note(i) {
                    let (line, col) = line_col(&n.location().to_string());
                    sink.borrow_mut().push(MlirDiag {
                        severity: Severity::Note,
                        line,
                        col,
                        message: n.to_string(),
                    });
                }
            }
            true
        });
        Session { ctx, diags }
    }

    /// Diagnostics reported since the last call.
    pub fn take_diags(&self) -> Vec<MlirDiag> {
        std::mem::take(&mut *self.diags.borrow_mut())
    }

    /// Parses a module; top-level operations other than one `builtin.module` are wrapped
    /// in an implicit module, as mlir-opt does.
    pub fn parse(&self, text: &str, name: &str) -> Result<Module<'_>, Vec<MlirDiag>> {
        self.take_diags();
        let op = unsafe {
            mlirOperationCreateParse(self.ctx.to_raw(), string_ref(text), string_ref(name))
        };
        let mut diags = self.take_diags();
        let several = diags
            .iter()
            .any(|d| d.message.contains("single top-level operation"));
        if op.ptr.is_null() && !several {
            if diags.is_empty() {
                diags.push(MlirDiag {
                    severity: Severity::Error,
                    line: 1,
                    col: 1,
                    message: "cannot parse input".into(),
                });
            }
            return Err(diags);
        }
        let is_module = !op.ptr.is_null()
            && unsafe {
                from_string_ref(mlirIdentifierStr(mlirOperationGetName(op))) == "builtin.module"
            };
        if !is_module {
            if !op.ptr.is_null() {
                unsafe { mlirOperationDestroy(op) };
            }
            // Zero or several top-level operations: wrap them in a module (on the first
            // line, so lines keep their numbers).
            let wrapped = format!("module {{{text}\n}}");
            let op = unsafe {
                mlirOperationCreateParse(self.ctx.to_raw(), string_ref(&wrapped), string_ref(name))
            };
            let diags = self.take_diags();
            if op.ptr.is_null() {
                return Err(diags);
            }
            return Module::from_operation(unsafe { melior::ir::Operation::from_raw(op) })
                .ok_or_else(|| {
                    vec![MlirDiag {
                        severity: Severity::Error,
                        line: 1,
                        col: 1,
                        message: "expected a module".into(),
                    }]
                });
        }
        Module::from_operation(unsafe { melior::ir::Operation::from_raw(op) }).ok_or_else(|| {
            vec![MlirDiag {
                severity: Severity::Error,
                line: 1,
                col: 1,
                message: "expected a module".into(),
            }]
        })
    }

    /// Verifies a module, returning the verifier's diagnostics on failure.
    pub fn verify(&self, m: &Module<'_>) -> Result<(), Vec<MlirDiag>> {
        self.take_diags();
        if m.as_operation().verify() {
            Ok(())
        } else {
            Err(self.take_diags())
        }
    }

    /// Runs a textual pipeline (`builtin.module(...)` or a bare list of passes) on `m`.
    pub fn run_pipeline(&self, m: &mut Module<'_>, pipeline: &str) -> Result<(), Vec<MlirDiag>> {
        let pm = PassManager::new(&self.ctx);
        pm.enable_verifier(true);
        let full = if pipeline.trim_start().starts_with("builtin.module(") {
            pipeline.to_string()
        } else {
            format!("builtin.module({pipeline})")
        };
        self.take_diags();
        if let Err(e) = melior::utility::parse_pass_pipeline(pm.as_operation_pass_manager(), &full)
        {
            return Err(vec![MlirDiag {
                severity: Severity::Error,
                line: 0,
                col: 0,
                message: format!("invalid pass pipeline '{pipeline}': {e}"),
            }]);
        }
        let _span = tracing::info_span!("pipeline", pipeline = %pipeline).entered();
        match pm.run(m) {
            Ok(()) => Ok(()),
            Err(_) => {
                let mut d = self.take_diags();
                if d.is_empty() {
                    d.push(MlirDiag {
                        severity: Severity::Error,
                        line: 0,
                        col: 0,
                        message: format!("pass pipeline failed: {pipeline}"),
                    });
                }
                Err(d)
            }
        }
    }

    /// Checks that a pipeline parses, without running it.
    pub fn check_pipeline(&self, pipeline: &str) -> Result<(), String> {
        let pm = PassManager::new(&self.ctx);
        melior::utility::parse_pass_pipeline(pm.as_operation_pass_manager(), pipeline)
            .map_err(|e| e.to_string())
    }
}

/// Prints an operation in MLIR's generic or custom form.
pub fn print_module(m: &Module<'_>) -> String {
    format!("{}\n", m.as_operation())
}

/// How a module is printed: mlir-opt's `--mlir-print-op-generic` and
/// `--mlir-print-debuginfo` (locations, as `loc(...)`).
#[derive(Clone, Copy, Debug, Default)]
pub struct PrintOptions {
    pub generic: bool,
    pub debug_info: bool,
    /// Print every attribute and location in place, without aliases (`#loc3 = ...`).
    pub local_scope: bool,
}

/// [`print_module`] with printing options.
pub fn print_module_with(m: &Module<'_>, o: PrintOptions) -> String {
    if !o.generic && !o.debug_info && !o.local_scope {
        return print_module(m);
    }
    let mut out = String::new();
    // SAFETY: the flags live for the call; the module is alive.
    unsafe {
        let flags = mlirOpPrintingFlagsCreate();
        if o.generic {
            mlirOpPrintingFlagsPrintGenericOpForm(flags);
        }
        if o.debug_info {
            mlirOpPrintingFlagsEnableDebugInfo(flags, true, false);
        }
        if o.local_scope {
            mlirOpPrintingFlagsUseLocalScope(flags);
        }
        mlirOperationPrintWithFlags(
            m.as_operation().to_raw(),
            flags,
            Some(print_to_string),
            &mut out as *mut String as *mut c_void,
        );
        mlirOpPrintingFlagsDestroy(flags);
    }
    out.push('\n');
    out
}

extern "C" fn push_bytes(s: MlirStringRef, data: *mut c_void) {
    // SAFETY: `data` is the `Vec<u8>` the writing call below passes; `s` is valid for it.
    unsafe {
        let bytes = std::slice::from_raw_parts(s.data as *const u8, s.length);
        (*(data as *mut Vec<u8>)).extend_from_slice(bytes);
    }
}

/// The module in MLIR's bytecode format (mlir-opt's `--emit-bytecode`).
pub fn module_bytecode(m: &Module<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    // SAFETY: the module is alive; the callback appends to `out`.
    unsafe {
        mlirOperationWriteBytecode(
            m.as_operation().to_raw(),
            Some(push_bytes),
            &mut out as *mut Vec<u8> as *mut c_void,
        );
    }
    out
}

/// The objects (PTX text, AMDGCN assembly or binaries) held by `gpu.binary` ops.
pub fn gpu_objects(m: &Module<'_>) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    unsafe {
        let body = mlirModuleGetBody(m.to_raw());
        let mut op = mlirBlockGetFirstOperation(body);
        while !op.ptr.is_null() {
            let name = from_string_ref(mlirIdentifierStr(mlirOperationGetName(op)));
            if name == "gpu.binary" {
                let sym = mlirOperationGetAttributeByName(op, string_ref("sym_name"));
                let sym_name = if sym.ptr.is_null() {
                    String::new()
                } else {
                    from_string_ref(mlirStringAttrGetValue(sym))
                };
                let objs = mlirOperationGetAttributeByName(op, string_ref("objects"));
                if !objs.ptr.is_null() && mlirAttributeIsAArray(objs) {
                    for i in 0..mlirArrayAttrGetNumElements(objs) {
                        let o = mlirArrayAttrGetElement(objs, i);
                        if mlirAttributeIsAGPUObjectAttr(o) {
                            let s = mlirGPUObjectAttrGetObject(o);
                            let bytes = if s.data.is_null() {
                                Vec::new()
                            } else {
                                std::slice::from_raw_parts(s.data as *const u8, s.length).to_vec()
                            };
                            out.push((sym_name.clone(), bytes));
                        }
                    }
                }
            }
            op = mlirOperationGetNextInBlock(op);
        }
    }
    out
}

extern "C" fn print_to_string(s: MlirStringRef, data: *mut c_void) {
    // SAFETY: `data` is the `String` the printing call below passes.
    unsafe { (*(data as *mut String)).push_str(&from_string_ref(s)) };
}

/// An attribute as MLIR prints it.
///
/// # Safety
/// `a` is a valid attribute of a live context.
pub(crate) unsafe fn print_attr(a: MlirAttribute) -> String {
    let mut out = String::new();
    mlirAttributePrint(
        a,
        Some(print_to_string),
        &mut out as *mut String as *mut c_void,
    );
    out
}

/// A type as MLIR prints it.
///
/// # Safety
/// `t` is a valid type of a live context.
pub(crate) unsafe fn print_type(t: MlirType) -> String {
    let mut out = String::new();
    mlirTypePrint(
        t,
        Some(print_to_string),
        &mut out as *mut String as *mut c_void,
    );
    out
}

/// Replaces the objects of the top-level `gpu.binary @name` by one object holding
/// `data` (format `bin`, same target), which `gpu-to-llvm`'s translation embeds and
/// passes to `mgpuModuleLoad`.
pub fn set_gpu_binary(m: &Module<'_>, name: &str, data: &[u8]) -> Result<(), String> {
    let mut esc = String::with_capacity(data.len() * 2);
    for &b in data {
        if (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\' {
            esc.push(b as char);
        } else {
            esc.push_str(&format!("\\{b:02X}"));
        }
    }
    unsafe {
        let body = mlirModuleGetBody(m.to_raw());
        let mut op = mlirBlockGetFirstOperation(body);
        while !op.ptr.is_null() {
            let opname = from_string_ref(mlirIdentifierStr(mlirOperationGetName(op)));
            let sym = mlirOperationGetAttributeByName(op, string_ref("sym_name"));
            if opname == "gpu.binary"
                && !sym.ptr.is_null()
                && from_string_ref(mlirStringAttrGetValue(sym)) == name
            {
                let objs = mlirOperationGetAttributeByName(op, string_ref("objects"));
                let first = mlirArrayAttrGetElement(objs, 0);
                let tt = print_attr(mlirGPUObjectAttrGetTarget(first));
                let text = format!("[#gpu.object<{tt}, bin = \"{esc}\">]");
                let ctx = mlirOperationGetContext(op);
                let attr = mlirAttributeParseGet(ctx, string_ref(&text));
                if attr.ptr.is_null() {
                    return Err("cannot build the gpu.object of the module container".into());
                }
                mlirOperationSetAttributeByName(op, string_ref("objects"), attr);
                return Ok(());
            }
            op = mlirOperationGetNextInBlock(op);
        }
    }
    Err(format!("no gpu.binary @{name} in the lowered module"))
}

extern "C" {
    fn LLVMParseCommandLineOptions(
        argc: i32,
        argv: *const *const std::os::raw::c_char,
        overview: *const std::os::raw::c_char,
    );
}

/// Gives every operation that still has a location in the generated text `buffer`
/// (loops, launches, index arithmetic: what the code generator prints without a C
/// statement of its own) the C location of the nearest enclosing operation that has
/// one, or, where none encloses it, the first C location inside it. Line tables and
/// diagnostics then name only C lines.
/// The operation's name, `dialect.op`.
///
/// # Safety
/// `op` is a live operation.
pub(crate) unsafe fn op_name(op: MlirOperation) -> String {
    unsafe { from_string_ref(mlirIdentifierStr(mlirOperationGetName(op))) }
}

/// The blocks of every region of `op`, in order.
///
/// # Safety
/// `op` is a live operation.
pub(crate) unsafe fn blocks(op: MlirOperation) -> Vec<MlirBlock> {
    let mut v = Vec::new();
    for r in 0..unsafe { mlirOperationGetNumRegions(op) } {
        let mut b = unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r)) };
        while !b.ptr.is_null() {
            v.push(b);
            b = unsafe { mlirBlockGetNextInRegion(b) };
        }
    }
    v
}

/// The operations of `block`, in order.
///
/// # Safety
/// `block` is a live block.
pub(crate) unsafe fn block_ops(block: MlirBlock) -> Vec<MlirOperation> {
    let mut v = Vec::new();
    let mut o = unsafe { mlirBlockGetFirstOperation(block) };
    while !o.ptr.is_null() {
        v.push(o);
        o = unsafe { mlirOperationGetNextInBlock(o) };
    }
    v
}

/// Where `v` is defined, as a key that orders values the same way on every run (their
/// addresses do not): the path of block and operation positions from the outermost
/// operation down to its definition.
///
/// # Safety
/// `v` is a live value.
pub(crate) unsafe fn value_position(v: MlirValue) -> Vec<usize> {
    unsafe fn block_path(b: MlirBlock) -> Vec<usize> {
        unsafe {
            let parent = mlirBlockGetParentOperation(b);
            if parent.ptr.is_null() {
                return Vec::new();
            }
            let mut path = op_path(parent);
            let index = blocks(parent)
                .iter()
                .position(|x| x.ptr == b.ptr)
                .unwrap_or(0);
            path.push(index);
            path
        }
    }
    unsafe fn op_path(op: MlirOperation) -> Vec<usize> {
        unsafe {
            let b = mlirOperationGetBlock(op);
            if b.ptr.is_null() {
                return Vec::new();
            }
            let mut path = block_path(b);
            let index = block_ops(b)
                .iter()
                .position(|x| x.ptr == op.ptr)
                .unwrap_or(0);
            path.push(1 + index);
            path
        }
    }
    unsafe {
        if mlirValueIsABlockArgument(v) {
            let mut path = block_path(mlirBlockArgumentGetOwner(v));
            path.extend([0, mlirBlockArgumentGetArgNumber(v) as usize]);
            path
        } else {
            let mut path = op_path(mlirOpResultGetOwner(v));
            path.extend([usize::MAX, mlirOpResultGetResultNumber(v) as usize]);
            path
        }
    }
}

/// The uses of `v`: (user, operand number).
///
/// # Safety
/// `v` is a live value.
pub(crate) unsafe fn uses(v: MlirValue) -> Vec<(MlirOperation, isize)> {
    let mut out = Vec::new();
    let mut u = unsafe { mlirValueGetFirstUse(v) };
    while !unsafe { mlirOpOperandIsNull(u) } {
        out.push(unsafe {
            (
                mlirOpOperandGetOwner(u),
                mlirOpOperandGetOperandNumber(u) as isize,
            )
        });
        u = unsafe { mlirOpOperandGetNextUse(u) };
    }
    out
}

/// The operation of `block` that is `op` or holds it, if any.
///
/// # Safety
/// `op` is a live operation (or null) and `block` a live block.
pub(crate) unsafe fn ancestor_in(mut op: MlirOperation, block: MlirBlock) -> Option<MlirOperation> {
    while !op.ptr.is_null() {
        if unsafe { mlirOperationGetBlock(op) }.ptr == block.ptr {
            return Some(op);
        }
        op = unsafe { mlirOperationGetParentOperation(op) };
    }
    None
}

/// `file:line:col` of `op`'s location (its C line after the frontend), or `?`.
///
/// # Safety
/// `op` is a live operation.
pub(crate) unsafe fn loc_text(op: MlirOperation) -> String {
    unsafe {
        let loc = mlirOperationGetLocation(op);
        if !mlirLocationIsAFileLineColRange(loc) {
            return "?".into();
        }
        let file = from_string_ref(mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(
            loc,
        )));
        let file = std::path::Path::new(&file)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or(file);
        format!(
            "{file}:{}:{}",
            mlirLocationFileLineColRangeGetStartLine(loc),
            mlirLocationFileLineColRangeGetStartColumn(loc)
        )
    }
}

/// For `-v`: `loop around FILE:LINE:COL` for a loop, naming its first statement (rebuilt
/// loops carry the scop's location, a statement its own C line).
///
/// # Safety
/// `op` is a live operation.
pub(crate) unsafe fn loop_text(op: MlirOperation) -> String {
    unsafe fn first_statement(op: MlirOperation) -> Option<MlirOperation> {
        unsafe {
            children(op)
                .into_iter()
                .find_map(|c| match op_name(c).as_str() {
                    "affine.for" | "affine.if" | "scf.for" | "scf.if" => first_statement(c),
                    "arith.constant" | "affine.apply" | "affine.min" | "affine.max" => None,
                    n if n.ends_with("yield") => None,
                    _ => Some(c),
                })
        }
    }
    let at = unsafe { first_statement(op) }.unwrap_or(op);
    format!("loop around {}", unsafe { loc_text(at) })
}

/// The symbol name of the function holding `op` (empty if none).
///
/// # Safety
/// `op` is a live operation.
pub(crate) unsafe fn function_name(mut op: MlirOperation) -> String {
    unsafe {
        while !op.ptr.is_null() {
            let a = mlirOperationGetAttributeByName(op, string_ref("sym_name"));
            if !a.ptr.is_null() && mlirAttributeIsAString(a) {
                return from_string_ref(mlirStringAttrGetValue(a));
            }
            op = mlirOperationGetParentOperation(op);
        }
    }
    String::new()
}

/// A call before `at` of the runtime function `name` (declared `func.func private` at
/// the top of the enclosing module on first use) with `operands`, returning `result`
/// (none with `None`); returns the call's result. Built, not parsed: a template's call
/// would not find the declaration.
///
/// # Safety
/// `at` is a live operation in a block of a module; `operands` live values there.
pub(crate) unsafe fn runtime_call(
    at: MlirOperation,
    name: &str,
    operands: &[MlirValue],
    result: Option<MlirType>,
) -> Result<Option<MlirValue>, String> {
    unsafe {
        let mut m = at;
        while op_name(m) != "builtin.module" {
            m = mlirOperationGetParentOperation(m);
            if m.ptr.is_null() {
                return Err("internal: an operation outside a module".into());
            }
        }
        let ctx = mlirOperationGetContext(at);
        let loc = mlirOperationGetLocation(at);
        let named = |k: &str, v: MlirAttribute| {
            mlirNamedAttributeGet(mlirIdentifierGet(ctx, string_ref(k)), v)
        };
        let declared = children(m).iter().any(|f| {
            let a = mlirOperationGetAttributeByName(*f, string_ref("sym_name"));
            !a.ptr.is_null()
                && mlirAttributeIsAString(a)
                && from_string_ref(mlirStringAttrGetValue(a)) == name
        });
        let results: Vec<MlirType> = result.into_iter().collect();
        if !declared {
            let inputs: Vec<MlirType> = operands.iter().map(|v| mlirValueGetType(*v)).collect();
            let mut state = mlirOperationStateGet(string_ref("func.func"), loc);
            let ty = mlirFunctionTypeGet(
                ctx,
                inputs.len() as isize,
                inputs.as_ptr(),
                results.len() as isize,
                results.as_ptr(),
            );
            let attrs = [
                named("sym_name", mlirStringAttrGet(ctx, string_ref(name))),
                named("function_type", mlirTypeAttrGet(ty)),
                named(
                    "sym_visibility",
                    mlirStringAttrGet(ctx, string_ref("private")),
                ),
            ];
            mlirOperationStateAddAttributes(&mut state, 3, attrs.as_ptr());
            let region = mlirRegionCreate();
            mlirOperationStateAddOwnedRegions(&mut state, 1, &region);
            mlirBlockInsertOwnedOperation(body(m), 0, mlirOperationCreate(&mut state));
        }
        let mut state = mlirOperationStateGet(string_ref("func.call"), loc);
        mlirOperationStateAddOperands(&mut state, operands.len() as isize, operands.as_ptr());
        mlirOperationStateAddResults(&mut state, results.len() as isize, results.as_ptr());
        let callee = named("callee", mlirFlatSymbolRefAttrGet(ctx, string_ref(name)));
        mlirOperationStateAddAttributes(&mut state, 1, &callee);
        let call = mlirOperationCreate(&mut state);
        mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(at), at, call);
        Ok(result.map(|_| mlirOperationGetResult(call, 0)))
    }
}

/// Parses `text` (a `func.func` of arguments `args`' types) and moves its body before
/// `at` with its arguments replaced by `args`; returns what its `return` returns and
/// its operations (a pass builds a few operations this way from a readable template).
///
/// # Safety
/// `at` is a live operation in a block; `args` live values of the types `text` names.
pub(crate) unsafe fn instantiate(
    at: MlirOperation,
    text: &str,
    args: &[MlirValue],
) -> Result<(Vec<MlirValue>, Vec<MlirOperation>), String> {
    unsafe {
        let ctx = mlirOperationGetContext(at);
        let f = mlirOperationCreateParse(ctx, string_ref(text), string_ref("template"));
        if f.ptr.is_null() {
            return Err(format!("internal: a template does not parse: {text}"));
        }
        let b = mlirRegionGetFirstBlock(mlirOperationGetRegion(f, 0));
        for (k, v) in args.iter().enumerate() {
            mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(b, k as isize), *v);
        }
        let end = mlirBlockGetTerminator(b);
        let results = (0..mlirOperationGetNumOperands(end))
            .map(|k| mlirOperationGetOperand(end, k))
            .collect();
        let moved: Vec<MlirOperation> = block_ops(b)
            .into_iter()
            .filter(|o| o.ptr != end.ptr)
            .collect();
        let block = mlirOperationGetBlock(at);
        for &o in &moved {
            mlirOperationRemoveFromParent(o);
            mlirBlockInsertOwnedOperationBefore(block, at, o);
        }
        mlirOperationDestroy(f);
        Ok((results, moved))
    }
}

/// An `affine.max`, `affine.min` or `affine.apply` (`name`) of `map` on `operands`,
/// inserted before `at` at location `loc`; its `index` result.
///
/// # Safety
/// `at` is a live operation in a block; `operands` are live `index` values.
pub(crate) unsafe fn affine_op(
    name: &str,
    map: MlirAffineMap,
    operands: &[MlirValue],
    at: MlirOperation,
    loc: MlirLocation,
) -> MlirValue {
    unsafe {
        let ctx = mlirOperationGetContext(at);
        let index = mlirIndexTypeGet(ctx);
        let mut s = mlirOperationStateGet(string_ref(name), loc);
        mlirOperationStateAddOperands(&mut s, operands.len() as isize, operands.as_ptr());
        mlirOperationStateAddResults(&mut s, 1, &index);
        let a = mlirNamedAttributeGet(
            mlirIdentifierGet(ctx, string_ref("map")),
            mlirAffineMapAttrGet(map),
        );
        mlirOperationStateAddAttributes(&mut s, 1, &a);
        let op = mlirOperationCreate(&mut s);
        mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(at), at, op);
        mlirOperationGetResult(op, 0)
    }
}

/// The operations named `name` nested in `op`, not looking inside those found.
///
/// # Safety
/// `op` is a live operation.
pub(crate) unsafe fn outermost_named(op: MlirOperation, name: &str) -> Vec<MlirOperation> {
    let mut out = Vec::new();
    for c in unsafe { children(op) } {
        match unsafe { op_name(c) } == name {
            true => out.push(c),
            false => out.extend(unsafe { outermost_named(c, name) }),
        }
    }
    out
}

/// The names of the loop operations of the dialects Tessel meets.
pub(crate) const LOOPS: [&str; 5] = [
    "scf.for",
    "scf.while",
    "scf.parallel",
    "affine.for",
    "affine.parallel",
];

/// The loop nests of host code under `op` that launch nothing: what a pipeline left of
/// the scops to run on the host, which sim and profilers do not time. Device code
/// (`gpu.module`, `gpu.launch` bodies) is not looked into; a host loop around launches
/// (time steps) is, for nests of its own beside them.
///
/// # Safety
/// `op` is a live operation.
pub unsafe fn host_loop_nests(op: MlirOperation) -> usize {
    unsafe fn launches(op: MlirOperation) -> bool {
        let n = unsafe { op_name(op) };
        n == "gpu.launch"
            || n == "gpu.launch_func"
            || unsafe { children(op) }
                .into_iter()
                .any(|c| unsafe { launches(c) })
    }
    let n = unsafe { op_name(op) };
    if n == "gpu.module" || n == "gpu.launch" {
        return 0;
    }
    if LOOPS.contains(&n.as_str()) && !unsafe { launches(op) } {
        return 1;
    }
    unsafe { children(op) }
        .into_iter()
        .map(|c| unsafe { host_loop_nests(c) })
        .sum()
}

/// The integer attribute `name` of `op`, if it has one.
///
/// # Safety
/// `op` is a live operation.
pub(crate) unsafe fn int_attr(op: MlirOperation, name: &str) -> Option<i64> {
    let a = unsafe { mlirOperationGetAttributeByName(op, string_ref(name)) };
    (!a.ptr.is_null() && unsafe { mlirAttributeIsAInteger(a) })
        .then(|| unsafe { mlirIntegerAttrGetValueInt(a) })
}

/// Whether `op` is `ancestor` or nested in it.
///
/// # Safety
/// Both are live operations.
pub(crate) unsafe fn within(op: MlirOperation, ancestor: MlirOperation) -> bool {
    let mut p = op;
    while !p.ptr.is_null() {
        if unsafe { mlirOperationEqual(p, ancestor) } {
            return true;
        }
        p = unsafe { mlirOperationGetParentOperation(p) };
    }
    false
}

/// Whether `op` has the attribute `name`.
///
/// # Safety
/// `op` is a live operation.
pub(crate) unsafe fn has_attr(op: MlirOperation, name: &str) -> bool {
    !unsafe { mlirOperationGetAttributeByName(op, string_ref(name)) }
        .ptr
        .is_null()
}

/// Whether `op` has the attribute `name` set to `false` (a choice written on a scop
/// by `tessel-autotune`, read by the passes it concerns).
///
/// # Safety
/// `op` is a live operation.
pub(crate) unsafe fn is_false(op: MlirOperation, name: &str) -> bool {
    let a = unsafe { mlirOperationGetAttributeByName(op, string_ref(name)) };
    !a.ptr.is_null() && unsafe { mlirAttributeIsABool(a) && !mlirBoolAttrGetValue(a) }
}

/// Whether `op` has the boolean attribute `name` set to true.
///
/// # Safety
/// `op` is a live operation.
pub(crate) unsafe fn is_true(op: MlirOperation, name: &str) -> bool {
    let a = unsafe { mlirOperationGetAttributeByName(op, string_ref(name)) };
    !a.ptr.is_null() && unsafe { mlirAttributeIsABool(a) && mlirBoolAttrGetValue(a) }
}

/// The first block of `op`'s first region (a loop's body).
///
/// # Safety
/// `op` is a live operation with a region.
pub(crate) unsafe fn body(op: MlirOperation) -> MlirBlock {
    unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0)) }
}

/// The counter of the loop `op`: its body's first argument.
///
/// # Safety
/// `op` is a live loop.
/// Whether `op` is integer or index arithmetic that cannot fail or trap, whatever its
/// operands (no division): computing it where its result goes unused is harmless, so
/// passes may move it out of a condition.
///
/// # Safety
/// `op` is a live operation.
pub(crate) unsafe fn harmless_arith(op: MlirOperation) -> bool {
    matches!(
        unsafe { op_name(op) }.as_str(),
        "arith.constant"
            | "arith.addi"
            | "arith.subi"
            | "arith.muli"
            | "arith.minsi"
            | "arith.maxsi"
            | "arith.cmpi"
            | "arith.andi"
            | "arith.ori"
            | "arith.xori"
            | "arith.select"
            | "arith.index_cast"
    )
}

/// The operands of the `arith.addi` or `arith.subi` that computes `v`, and whether it
/// subtracts, where one does.
///
/// # Safety
/// `v` is a live value.
pub(crate) unsafe fn add_or_sub(v: MlirValue) -> Option<(bool, MlirValue, MlirValue)> {
    unsafe {
        if !mlirValueIsAOpResult(v) {
            return None;
        }
        let def = mlirOpResultGetOwner(v);
        let sub = match op_name(def).as_str() {
            "arith.addi" => false,
            "arith.subi" => true,
            _ => return None,
        };
        Some((
            sub,
            mlirOperationGetOperand(def, 0),
            mlirOperationGetOperand(def, 1),
        ))
    }
}

/// The integer constant `v` is (an `arith.constant`), where it is one.
pub(crate) unsafe fn constant_value(v: MlirValue) -> Option<i64> {
    unsafe {
        if !mlirValueIsAOpResult(v) {
            return None;
        }
        let def = mlirOpResultGetOwner(v);
        (op_name(def) == "arith.constant")
            .then(|| int_attr(def, "value"))
            .flatten()
    }
}

pub(crate) unsafe fn iv(op: MlirOperation) -> MlirValue {
    unsafe { mlirBlockGetArgument(body(op), 0) }
}

/// The operations directly inside `op`'s regions.
///
/// # Safety
/// `op` is a live operation.
pub(crate) unsafe fn children(op: MlirOperation) -> Vec<MlirOperation> {
    unsafe { blocks(op) }
        .into_iter()
        .flat_map(|b| unsafe { block_ops(b) })
        .collect()
}

pub fn inherit_locations(m: &Module<'_>, buffer: &str) {
    unsafe fn c_loc(op: MlirOperation, buffer: &str) -> Option<MlirLocation> {
        let loc = mlirOperationGetLocation(op);
        (mlirLocationIsAFileLineColRange(loc)
            && from_string_ref(mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(
                loc,
            ))) != buffer)
            .then_some(loc)
    }
    unsafe fn first(op: MlirOperation, buffer: &str) -> Option<MlirLocation> {
        c_loc(op, buffer).or_else(|| children(op).into_iter().find_map(|c| first(c, buffer)))
    }
    unsafe fn fix(op: MlirOperation, inherited: Option<MlirLocation>, buffer: &str) {
        let here = match c_loc(op, buffer) {
            Some(l) => Some(l),
            None => {
                let l = inherited.or_else(|| first(op, buffer));
                if let Some(l) = l {
                    mlirOperationSetLocation(op, l);
                }
                l
            }
        };
        for c in children(op) {
            fix(c, here, buffer);
        }
    }
    // SAFETY: walks operations of a live module; locations are uniqued in its context.
    unsafe { fix(m.as_operation().to_raw(), None, buffer) }
}

#[cfg(test)]
mod tests {
    use super::line_col;

    #[test]
    fn reads_locations() {
        assert_eq!(line_col("loc(\"a.mlir\":3:7)"), (3, 7));
        assert_eq!(
            line_col("loc(callsite(\"x\"(\"f.mlir\":12:1) at \"g\":1:1))"),
            (12, 1)
        );
        assert_eq!(line_col("loc(unknown)"), (0, 0));
    }
}

#[cfg(test)]
mod builder_tests {
    use super::Session;
    use melior::ir::attribute::DenseI64ArrayAttribute;
    use melior::ir::operation::OperationLike;
    use melior::ir::{Block, BlockLike, Location, Module, Type};

    /// The typed builders melior generates from the tgpu ODS file build a valid op.
    #[test]
    fn typed_builder_makes_a_padded_shared_buffer() {
        let s = Session::new();
        let ctx = &s.ctx;
        let loc = Location::unknown(ctx);
        let module = Module::new(loc);
        let ty = Type::parse(ctx, "memref<32x33xf32, #gpu.address_space<workgroup>>")
            .expect("a valid type");
        let op = tessel_dialects::ods::tgpu::alloc_shared(
            ctx,
            ty,
            DenseI64ArrayAttribute::new(ctx, &[32, 32]).into(),
            DenseI64ArrayAttribute::new(ctx, &[0, 1]).into(),
            loc,
        );
        let block: &Block = &module.body();
        block.append_operation(op.into());
        assert!(module.as_operation().verify());
        let text = module.as_operation().to_string();
        assert!(
            text.contains("tgpu.alloc_shared [32, 32] padding [0, 1]"),
            "{text}"
        );
    }
}
