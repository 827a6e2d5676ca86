#![allow(non_upper_case_globals)]
//! C frontend: libclang 22 (through clang-sys) parses and type-checks the translation
//! unit with real preprocessing; this module turns each static control part into a
//! [`Scop`] tree (PPCG sec. 2 and 4: a SCoP is a sequence of loops and statements whose
//! bounds, conditions and subscripts are affine in loop iterators and parameters).
//!
//! A SCoP is either a `#pragma scop` ... `#pragma endscop` region or, with `--function`,
//! a whole function body. Everything clang's semantic analysis made implicit (integer
//! promotion, the usual arithmetic conversions, conversions on assignment) is taken from
//! clang's own implicit-cast nodes, so the kernel computes in exactly C's types.
//!
//! Anything that cannot be represented is a located [`Diagnostic`] naming the construct.

mod includes;
pub mod pragma;
mod records;

use crate::analysis::quasi;
use crate::diag::Diagnostic;
use crate::scop::*;
use clang_sys::*;
use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::os::raw::c_void;
use std::ptr;

/// What the user asked the frontend to compile.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `-I`, `-D` and other clang arguments.
    pub clang_args: Vec<String>,
    /// Compile these whole functions instead of `#pragma scop` regions.
    pub functions: Vec<String>,
    /// Print clang's warnings (`-W`, `-w` and `-Werror` in `clang_args` control them);
    /// off for a second parse of the same file.
    pub warnings: bool,
}

type Res<T> = Result<T, Diagnostic>;

/// Loads libclang once per process.
fn load_libclang() -> Result<(), String> {
    static ONCE: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    ONCE.get_or_init(|| {
        if std::env::var_os("LIBCLANG_PATH").is_none() {
            std::env::set_var("LIBCLANG_PATH", "/usr/lib/llvm-22/lib");
        }
        clang_sys::load().map_err(|e| format!("cannot load libclang 22: {e}"))
    })
    .clone()
}

/// Parses `path` and returns one [`Scop`] per static control part, in source order.
pub fn parse_file(path: &str, opts: &Options) -> Result<Vec<Scop>, Vec<Diagnostic>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| file_error(path, format!("cannot read '{path}': {e}")))?;
    let regions = pragma::find_regions(path, &text).map_err(|d| vec![d])?;
    with_translation_unit(path, &opts.clang_args, |tu| unsafe {
        lower_tu(tu, path, &text, &regions, opts)
    })?
}

/// The files clang reads to parse `path` (the file itself, then every header, each
/// once), with whether each is a system header: what a depfile lists (`-MD`, `-MMD`).
pub fn included_files(
    path: &str,
    clang_args: &[String],
) -> Result<Vec<(String, bool)>, Vec<Diagnostic>> {
    with_translation_unit(path, clang_args, |tu| unsafe { includes::files(tu) })
}

fn file_error(path: &str, message: String) -> Vec<Diagnostic> {
    let loc = Loc {
        file: path.into(),
        line: 0,
        col: 0,
    };
    vec![Diagnostic::new(loc, message)]
}

/// Runs `f` on the translation unit clang parses from `path` with `clang_args`.
fn with_translation_unit<R>(
    path: &str,
    clang_args: &[String],
    f: impl FnOnce(CXTranslationUnit) -> R,
) -> Result<R, Vec<Diagnostic>> {
    load_libclang().map_err(|e| file_error(path, e))?;
    unsafe {
        let index = clang_createIndex(0, 0);
        let mut args: Vec<CString> = vec![CString::new("-xc").unwrap()];
        for a in clang_args {
            args.push(CString::new(a.as_str()).unwrap_or_default());
        }
        let argv: Vec<*const i8> = args.iter().map(|a| a.as_ptr()).collect();
        let cpath = CString::new(path).unwrap_or_default();
        let mut tu: CXTranslationUnit = ptr::null_mut();
        let err = clang_parseTranslationUnit2(
            index,
            cpath.as_ptr(),
            argv.as_ptr(),
            argv.len() as i32,
            ptr::null_mut(),
            0,
            CXTranslationUnit_None,
            &mut tu,
        );
        if err != CXError_Success || tu.is_null() {
            clang_disposeIndex(index);
            return Err(file_error(
                path,
                "clang could not parse the file (or rejected its options)".into(),
            ));
        }
        let r = f(tu);
        clang_disposeTranslationUnit(tu);
        clang_disposeIndex(index);
        Ok(r)
    }
}

unsafe fn lower_tu(
    tu: CXTranslationUnit,
    path: &str,
    text: &str,
    regions: &[pragma::Region],
    opts: &Options,
) -> Result<Vec<Scop>, Vec<Diagnostic>> {
    // clang's own diagnostics first: warnings printed as clang prints them, with the
    // flag that controls them (`-Werror` makes them errors, `-w` silences them).
    // Tessel's own pragmas are not unknown to Tessel.
    let own_pragma = |loc: &Loc| {
        loc.file == path
            && regions.iter().any(|r| {
                r.begin == loc.line
                    || r.end == loc.line
                    || r.hints.iter().any(|h| h.loc.line == loc.line)
            })
    };
    let mut diags = Vec::new();
    for i in 0..clang_getNumDiagnostics(tu) {
        let d = clang_getDiagnostic(tu, i);
        let severity = clang_getDiagnosticSeverity(d);
        let loc = loc_of(clang_getDiagnosticLocation(d));
        let mut message = to_string(clang_getDiagnosticSpelling(d));
        let flag = to_string(clang_getDiagnosticOption(d, ptr::null_mut()));
        if flag == "-Wunknown-pragmas" && own_pragma(&loc) {
            clang_disposeDiagnostic(d);
            continue;
        }
        if !flag.is_empty() {
            let werror = if severity >= CXDiagnostic_Error {
                "-Werror,"
            } else {
                ""
            };
            message = format!("{message} [{werror}{flag}]");
        }
        if severity >= CXDiagnostic_Error {
            diags.push(Diagnostic::new(loc, message));
        } else if severity == CXDiagnostic_Warning && opts.warnings {
            eprintln!("{}", Diagnostic::warning(loc, message));
        }
        clang_disposeDiagnostic(d);
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    let root = clang_getTranslationUnitCursor(tu);
    let mut scops = Vec::new();
    // Every region's first error, as clang reports every error of a file.
    let mut errors = Vec::new();
    let mut used_regions = vec![false; regions.len()];
    let mut found_functions = Vec::new();
    for f in children(root) {
        if f.kind != CXCursor_FunctionDecl || clang_isCursorDefinition(f) == 0 {
            continue;
        }
        let floc = loc_of(clang_getCursorLocation(f));
        if floc.file != path {
            continue;
        }
        let name = spelling(f);
        let body = match children(f)
            .into_iter()
            .find(|c| c.kind == CXCursor_CompoundStmt)
        {
            Some(b) => b,
            None => continue,
        };
        let (fb, fe) = lines_of(f);
        if opts.functions.iter().any(|n| *n == name) {
            found_functions.push(name.clone());
            let stmts = children(body);
            match Lowerer::new(f, name.clone(), floc.clone(), Vec::new()).run(&stmts) {
                Ok(mut s) => {
                    let r = clang_getCursorExtent(body);
                    let (b, e) = (
                        offset_of(clang_getRangeStart(r)),
                        offset_of(clang_getRangeEnd(r)),
                    );
                    s.rewrite = rewrite_info(f, text, (b + 1, e.saturating_sub(1).max(b + 1)));
                    scops.push(s)
                }
                Err(d) => errors.extend(d),
            }
            continue;
        }
        if !opts.functions.is_empty() {
            continue;
        }
        let mine: Vec<usize> = (0..regions.len())
            .filter(|&i| regions[i].begin > fb && regions[i].end < fe)
            .collect();
        for (k, &ri) in mine.iter().enumerate() {
            used_regions[ri] = true;
            let r = &regions[ri];
            let stmts = match stmts_between(body, r.begin, r.end) {
                Some(s) => s,
                None => {
                    errors.push(Diagnostic::new(
                        Loc {
                            file: path.into(),
                            line: r.begin,
                            col: 1,
                        },
                        "'#pragma scop' region does not enclose whole statements of one block",
                    ));
                    continue;
                }
            };
            let sname = if mine.len() == 1 {
                name.clone()
            } else {
                format!("{name}_scop{k}")
            };
            let sloc = Loc {
                file: path.into(),
                line: r.begin,
                col: 1,
            };
            match Lowerer::new(f, sname, sloc, r.hints.clone()).run(&stmts) {
                Ok(mut s) => {
                    s.rewrite = rewrite_info(
                        f,
                        text,
                        (line_start(text, r.begin), line_start(text, r.end + 1)),
                    );
                    s.outside_code = outside_code(f, body, r.begin, r.end, &s);
                    scops.push(s)
                }
                Err(d) => errors.extend(d),
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    for n in &opts.functions {
        if !found_functions.contains(n) {
            return Err(vec![Diagnostic::new(
                Loc {
                    file: path.into(),
                    line: 1,
                    col: 1,
                },
                format!("no function named '{n}' is defined in this file"),
            )]);
        }
    }
    if let Some(i) = used_regions.iter().position(|u| !u) {
        if opts.functions.is_empty() {
            return Err(vec![Diagnostic::new(
                Loc {
                    file: path.into(),
                    line: regions[i].begin,
                    col: 1,
                },
                "'#pragma scop' outside a function body",
            )]);
        }
    }
    Ok(scops)
}

/// Byte offset of the start of 1-based line `line` (the end of the text past the last).
fn line_start(text: &str, line: u32) -> usize {
    if line <= 1 {
        return 0;
    }
    text.match_indices('\n')
        .nth(line as usize - 2)
        .map(|(i, _)| i + 1)
        .unwrap_or(text.len())
}

unsafe fn offset_of(l: CXSourceLocation) -> usize {
    let mut file: CXFile = ptr::null_mut();
    let (mut line, mut col, mut off) = (0u32, 0u32, 0u32);
    clang_getExpansionLocation(l, &mut file, &mut line, &mut col, &mut off);
    off as usize
}

/// The parameter list and names of function `f`, read from the source text, and the
/// range to replace; `None` when the text cannot be matched (a signature made by a
/// macro), in which case whole-program builds refuse the file.
unsafe fn rewrite_info(f: CXCursor, text: &str, replace: (usize, usize)) -> Option<Rewrite> {
    let name_at = offset_of(clang_getCursorLocation(f));
    let start = offset_of(clang_getRangeStart(clang_getCursorExtent(f)));
    let open = name_at + text.get(name_at..)?.find('(')?;
    let mut depth = 0;
    let mut close = None;
    for (i, c) in text.get(open..)?.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let n = clang_Cursor_getNumArguments(f).max(0) as u32;
    let names = (0..n)
        .map(|i| spelling(clang_Cursor_getArgument(f, i)))
        .collect();
    Some(Rewrite {
        replace,
        function_start: line_start(text, text.get(..start)?.matches('\n').count() as u32 + 1),
        params: text.get(open + 1..close?)?.to_string(),
        names,
    })
}

/// Adds to `out` the `static` locals declared under `c` (their keys, as [`decl_key`]).
unsafe fn statics(c: CXCursor, out: &mut Vec<(String, u32, u32)>) {
    for k in unsafe { children(c) } {
        if k.kind == CXCursor_VarDecl && unsafe { clang_Cursor_hasVarDeclGlobalStorage(k) } == 1 {
            out.push(unsafe { decl_key(k) });
        }
        unsafe { statics(k, out) };
    }
}

/// The variables that the code of a function outside its region (`stmts`, statements of
/// one block of `body`) may read while they still hold a value the region left: every
/// reference outside the region except the left side of a plain assignment and the uses
/// of a `for` loop's iterator after the loop's own initialization assigned it, and the
/// function's `static` locals (the next call reads them). `None`
/// when the region sits inside a loop of the function, where code before the region
/// runs after it too: then every variable is live.
unsafe fn live_after(body: CXCursor, stmts: &[CXCursor]) -> Option<Vec<(String, u32, u32)>> {
    let in_region = |c: CXCursor| stmts.iter().any(|s| clang_equalCursors(*s, c) != 0);
    let holds_region = |c: CXCursor| {
        let Some(first) = stmts.first() else {
            return false;
        };
        let (rb, re) = lines_of(*first);
        let (b, e) = lines_of(c);
        b <= rb && e >= re
    };
    struct Scan<'a> {
        live: Vec<(String, u32, u32)>,
        killed: Vec<(String, u32, u32)>,
        in_region: &'a dyn Fn(CXCursor) -> bool,
        holds_region: &'a dyn Fn(CXCursor) -> bool,
        in_loop: bool,
    }
    impl Scan<'_> {
        unsafe fn walk(&mut self, c: CXCursor) {
            if (self.in_region)(c) {
                return;
            }
            let is_loop = matches!(
                c.kind,
                CXCursor_ForStmt | CXCursor_WhileStmt | CXCursor_DoStmt
            );
            if is_loop && (self.holds_region)(c) {
                self.in_loop = true;
            }
            let assigned = |c: CXCursor| -> Option<CXCursor> {
                let k = operands(c);
                let l = strip(k[0]);
                (l.kind == CXCursor_DeclRefExpr).then(|| clang_getCursorReferenced(l))
            };
            match c.kind {
                CXCursor_DeclRefExpr => {
                    let key = decl_key(clang_getCursorReferenced(c));
                    if !self.killed.contains(&key) {
                        self.live.push(key);
                    }
                    return;
                }
                CXCursor_BinaryOperator
                    if clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Assign
                        && assigned(c).is_some() =>
                {
                    self.walk(operands(c)[1]);
                    return;
                }
                CXCursor_ForStmt if !(self.holds_region)(c) => {
                    let k = children(c);
                    let Some(init) = k.first() else { return };
                    let iter = match init.kind {
                        CXCursor_BinaryOperator
                            if clang_getCursorBinaryOperatorKind(*init)
                                == CXBinaryOperator_Assign =>
                        {
                            assigned(*init)
                        }
                        _ => None,
                    };
                    if let Some(v) = iter {
                        self.walk(*init);
                        self.killed.push(decl_key(v));
                        for x in k.iter().skip(1) {
                            self.walk(*x);
                        }
                        self.killed.pop();
                        return;
                    }
                }
                _ => {}
            }
            for k in children(c) {
                self.walk(k);
            }
        }
    }
    let mut scan = Scan {
        live: Vec::new(),
        killed: Vec::new(),
        in_region: &in_region,
        holds_region: &holds_region,
        in_loop: false,
    };
    scan.walk(body);
    // A static local's value outlives the call: the next call may read it.
    statics(body, &mut scan.live);
    (!scan.in_loop).then_some(scan.live)
}

/// The returned expression of a function whose body is a single `return e;`.
unsafe fn single_return(def: CXCursor) -> Option<CXCursor> {
    let body = children(def)
        .into_iter()
        .find(|k| k.kind == CXCursor_CompoundStmt)?;
    match children(body).as_slice() {
        [r] if r.kind == CXCursor_ReturnStmt => children(*r).into_iter().find(|k| is_expr(*k)),
        _ => None,
    }
}

/// The definition of the function a call refers to, when the translation unit has one.
unsafe fn callee_definition(call: CXCursor) -> Option<CXCursor> {
    let d = clang_getCursorReferenced(call);
    if clang_Cursor_isNull(d) != 0 {
        return None;
    }
    let def = clang_getCursorDefinition(d);
    (clang_Cursor_isNull(def) == 0 && def.kind == CXCursor_FunctionDecl).then_some(def)
}

/// The first code of function `f` outside the region between lines `begin` and `end`
/// that an entry point replacing the whole function would drop, with what it is.
unsafe fn outside_code(
    f: CXCursor,
    body: CXCursor,
    begin: u32,
    end: u32,
    scop: &Scop,
) -> Option<(Loc, String)> {
    if clang_getCursorResultType(f).kind != CXType_Void {
        return Some((cursor_loc(f), "its return value".into()));
    }
    let used: Vec<&str> = scop
        .scalars
        .iter()
        .filter(|s| s.outer)
        .map(|s| s.name.as_str())
        .chain(
            scop.arrays
                .iter()
                .filter(|a| a.kind == ArrayKind::Local)
                .map(|a| a.name.as_str()),
        )
        .collect();
    unsafe fn walk(block: CXCursor, begin: u32, end: u32, used: &[&str]) -> Option<(Loc, String)> {
        for c in children(block) {
            let (b, e) = lines_of(c);
            if b > begin && e < end || c.kind == CXCursor_NullStmt {
                continue;
            }
            if b <= begin && e >= end && c.kind == CXCursor_CompoundStmt {
                if let Some(r) = walk(c, begin, end, used) {
                    return Some(r);
                }
                continue;
            }
            if c.kind != CXCursor_DeclStmt {
                return Some((cursor_loc(c), "this statement outside the region".into()));
            }
            for v in children(c) {
                let init = clang_Cursor_getVarDeclInitializer(v);
                if v.kind == CXCursor_VarDecl
                    && clang_Cursor_isNull(init) == 0
                    && used.contains(&spelling(v).as_str())
                {
                    return Some((
                        cursor_loc(v),
                        format!(
                            "the initializer of '{}', which the region uses",
                            spelling(v)
                        ),
                    ));
                }
            }
        }
        None
    }
    walk(body, begin, end, &used)
}

/// Finds the statements of one compound statement that lie strictly between two lines,
/// searching nested blocks for the one that holds the region.
unsafe fn stmts_between(block: CXCursor, begin: u32, end: u32) -> Option<Vec<CXCursor>> {
    let kids = children(block);
    let inside: Vec<CXCursor> = kids
        .iter()
        .copied()
        .filter(|c| {
            let (b, e) = lines_of(*c);
            b > begin && e < end
        })
        .collect();
    if !inside.is_empty() {
        return Some(inside);
    }
    for c in kids {
        let (b, e) = lines_of(c);
        if b <= begin && e >= end {
            for g in children(c) {
                if g.kind == CXCursor_CompoundStmt {
                    if let Some(s) = stmts_between(g, begin, end) {
                        return Some(s);
                    }
                }
            }
            if c.kind == CXCursor_CompoundStmt {
                return stmts_between(c, begin, end);
            }
        }
    }
    None
}

// ---------------------------------------------------------------- libclang helpers

unsafe fn to_string(s: CXString) -> String {
    let p = clang_getCString(s);
    let r = if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    };
    clang_disposeString(s);
    r
}

unsafe fn spelling(c: CXCursor) -> String {
    to_string(clang_getCursorSpelling(c))
}

unsafe fn loc_of(l: CXSourceLocation) -> Loc {
    let mut file: CXFile = ptr::null_mut();
    let (mut line, mut col, mut off) = (0u32, 0u32, 0u32);
    clang_getSpellingLocation(l, &mut file, &mut line, &mut col, &mut off);
    let name = if file.is_null() {
        String::new()
    } else {
        to_string(clang_getFileName(file))
    };
    Loc {
        file: name,
        line,
        col,
    }
}

/// The expansion location (where a macro was used), which is what a user reads.
unsafe fn cursor_loc(c: CXCursor) -> Loc {
    let mut file: CXFile = ptr::null_mut();
    let (mut line, mut col, mut off) = (0u32, 0u32, 0u32);
    clang_getExpansionLocation(
        clang_getCursorLocation(c),
        &mut file,
        &mut line,
        &mut col,
        &mut off,
    );
    let name = if file.is_null() {
        String::new()
    } else {
        to_string(clang_getFileName(file))
    };
    Loc {
        file: name,
        line,
        col,
    }
}

unsafe fn lines_of(c: CXCursor) -> (u32, u32) {
    let r = clang_getCursorExtent(c);
    let line = |l: CXSourceLocation| {
        let mut file: CXFile = ptr::null_mut();
        let (mut line, mut col, mut off) = (0u32, 0u32, 0u32);
        clang_getExpansionLocation(l, &mut file, &mut line, &mut col, &mut off);
        line
    };
    (line(clang_getRangeStart(r)), line(clang_getRangeEnd(r)))
}

unsafe fn children(c: CXCursor) -> Vec<CXCursor> {
    extern "C" fn visit(c: CXCursor, _p: CXCursor, data: CXClientData) -> CXChildVisitResult {
        unsafe { (*(data as *mut Vec<CXCursor>)).push(c) };
        CXChildVisit_Continue
    }
    let mut v: Vec<CXCursor> = Vec::new();
    clang_visitChildren(c, visit, &mut v as *mut Vec<CXCursor> as *mut c_void);
    v
}

/// Children of an expression or statement, padded with null cursors to at least three,
/// so that reading an operand clang left out (GNU `a ?: b`, error recovery) is a
/// diagnostic about an unsupported construct instead of an out-of-range index.
unsafe fn operands(c: CXCursor) -> Vec<CXCursor> {
    pad(children(c))
}

unsafe fn pad(mut v: Vec<CXCursor>) -> Vec<CXCursor> {
    while v.len() < 3 {
        v.push(clang_getNullCursor());
    }
    v
}

unsafe fn is_expr(c: CXCursor) -> bool {
    clang_isExpression(c.kind) != 0
}

/// A declaration's identity: its spelling location.
unsafe fn decl_key(c: CXCursor) -> (String, u32, u32) {
    let l = cursor_loc(c);
    let mut file: CXFile = ptr::null_mut();
    let (mut line, mut col, mut off) = (0u32, 0u32, 0u32);
    clang_getSpellingLocation(
        clang_getCursorLocation(c),
        &mut file,
        &mut line,
        &mut col,
        &mut off,
    );
    (l.file, off, l.line)
}

/// Whether C compares the operands of comparison `c` in unsigned arithmetic: their type
/// after the usual arithmetic conversions is unsigned int, long or long long.
unsafe fn unsigned_compare(c: CXCursor) -> bool {
    operands(c).first().is_some_and(|a| {
        matches!(
            clang_getCanonicalType(clang_getCursorType(*a)).kind,
            CXType_UInt | CXType_ULong | CXType_ULongLong
        )
    })
}

/// Maps a C type to an arithmetic element type.
unsafe fn elem_of(t: CXType) -> Option<ElemTy> {
    let t = clang_getCanonicalType(t);
    Some(match t.kind {
        CXType_Bool => ElemTy::U8,
        CXType_Char_S | CXType_SChar => ElemTy::I8,
        CXType_Char_U | CXType_UChar => ElemTy::U8,
        CXType_Short => ElemTy::I16,
        CXType_UShort => ElemTy::U16,
        CXType_Int => ElemTy::I32,
        CXType_UInt => ElemTy::U32,
        CXType_Long | CXType_LongLong => ElemTy::I64,
        CXType_ULong | CXType_ULongLong => ElemTy::U64,
        CXType_Float => ElemTy::F32,
        CXType_Double | CXType_LongDouble => ElemTy::F64,
        CXType_Enum => ElemTy::I32,
        _ => return None,
    })
}

/// Element type and dimensions of an array or pointer type (`None` for a dimension whose
/// size the type does not state); a struct of one element type adds a last dimension
/// over its elements.
unsafe fn array_shape(t: CXType) -> Option<(ElemTy, Vec<Option<i64>>)> {
    let mut t = clang_getCanonicalType(t);
    let mut dims = Vec::new();
    if t.kind == CXType_Pointer {
        dims.push(None);
        t = clang_getCanonicalType(clang_getPointeeType(t));
    }
    loop {
        match t.kind {
            CXType_ConstantArray => {
                dims.push(Some(clang_getArraySize(t)));
                t = clang_getCanonicalType(clang_getArrayElementType(t));
            }
            CXType_VariableArray | CXType_IncompleteArray | CXType_DependentSizedArray => {
                dims.push(None);
                t = clang_getCanonicalType(clang_getArrayElementType(t));
            }
            _ => break,
        }
    }
    if t.kind == CXType_Record {
        // A struct of one element type: one more dimension (see `records`).
        let (e, words) = records::flat_layout(t).ok()?;
        dims.push(Some(words));
        return Some((e, dims));
    }
    if dims.is_empty() {
        return None;
    }
    elem_of(t).map(|e| (e, dims))
}

unsafe fn eval_int(c: CXCursor) -> Option<i64> {
    let r = clang_Cursor_Evaluate(c);
    if r.is_null() {
        return None;
    }
    let v = if clang_EvalResult_getKind(r) == CXEval_Int {
        Some(clang_EvalResult_getAsLongLong(r))
    } else {
        None
    };
    clang_EvalResult_dispose(r);
    v
}

unsafe fn eval_float(c: CXCursor) -> Option<f64> {
    let r = clang_Cursor_Evaluate(c);
    if r.is_null() {
        return None;
    }
    let v = match clang_EvalResult_getKind(r) {
        CXEval_Float => Some(clang_EvalResult_getAsDouble(r)),
        CXEval_Int => Some(clang_EvalResult_getAsLongLong(r) as f64),
        _ => None,
    };
    clang_EvalResult_dispose(r);
    v
}

/// Strips parentheses and implicit casts between integer types (used in affine contexts).
unsafe fn strip(c: CXCursor) -> CXCursor {
    let mut c = c;
    loop {
        if c.kind == CXCursor_ParenExpr
            || c.kind == CXCursor_UnexposedExpr
            || c.kind == CXCursor_CStyleCastExpr
        {
            let k: Vec<CXCursor> = children(c).into_iter().filter(|x| is_expr(*x)).collect();
            if k.len() == 1 {
                c = k[0];
                continue;
            }
        }
        return c;
    }
}

fn kind_name(k: CXCursorKind) -> String {
    unsafe { to_string(clang_getCursorKindSpelling(k)) }
}

// ---------------------------------------------------------------- lowering

#[derive(Clone, Copy, Debug)]
enum Binding {
    Loop {
        id: usize,
        sign: i64,
        ty: ElemTy,
    },
    /// An iterator whose loop has ended: its value is not modelled.
    DeadIter,
    Scalar(usize),
    Param(usize),
    Array(usize),
    /// A scalar the region only reads, whose value is a constant known at compile time
    /// (a `const` or never-reassigned local initialized with a constant expression).
    Const(i64, f64),
    /// A parameter of an inlined function bound to part of an array argument: the array
    /// and the subscripts the argument fixes (`row` bound to `A[i]`), in [`Lowerer::views`].
    View(usize),
    /// An integer parameter of an inlined function, never assigned there, bound to an
    /// affine argument (in [`Lowerer::values`]), of the parameter's type.
    Value(usize, ElemTy),
    /// A parameter of an inlined function whose body is a single `return`, bound to the
    /// argument's value (in [`Lowerer::args`]): nothing runs between the call and the use.
    Arg(usize),
}

/// One step of an lvalue from its variable: `[i]`, `->` (that is `[0]`), `.member`.
#[derive(Clone, Copy)]
enum Step {
    Index(CXCursor),
    Deref,
    Member(CXCursor),
}

/// The subscript `sum(sub * stride)` of a struct's element dimension: quasi-affine when
/// every part is, else a value computed from data.
fn flat_offset(parts: Vec<(Sub, i64)>) -> Sub {
    let mut aff = Aff::cst(0);
    let mut data: Vec<Expr> = Vec::new();
    for (s, k) in parts {
        match s {
            Sub::Aff(a) => aff = aff.add(&a.scale(k)),
            Sub::Data(e) => data.push(Expr::Bin(
                BinOp::Mul,
                Box::new(e.cast(ElemTy::I64)),
                Box::new(Expr::Int(k, ElemTy::I64)),
                ElemTy::I64,
            )),
        }
    }
    if data.is_empty() {
        return Sub::Aff(aff);
    }
    let sum = data
        .into_iter()
        .fold(Expr::Index(aff, ElemTy::I64), |acc, d| {
            Expr::Bin(BinOp::Add, Box::new(acc), Box::new(d), ElemTy::I64)
        });
    Sub::Data(sum)
}

struct Lowerer {
    func: CXCursor,
    scop: Scop,
    bind: HashMap<(String, u32, u32), Binding>,
    /// Variables the region assigns (not as loop iterators).
    written: Vec<(String, u32, u32)>,
    /// Variables used as loop iterators.
    iterators: Vec<(String, u32, u32)>,
    /// Variables the whole function assigns after their declaration.
    func_written: Vec<(String, u32, u32)>,
    /// Variables declared with an initializer (inside the scanned code).
    initialized: Vec<(String, u32, u32)>,
    /// Variables declared with an initializer inside the region.
    region_decls: Vec<(String, u32, u32)>,
    /// Every variable declared (in the scanned code).
    declared: Vec<(String, u32, u32)>,
    /// Every variable declared inside the region.
    region_vars: Vec<(String, u32, u32)>,
    /// Variables the function may read outside the region with a value the region left
    /// (see [`live_after`]); `None` when every variable must be taken as live.
    live_after: Option<Vec<(String, u32, u32)>>,
    /// Iterators of the `for` loops around the code being prescanned.
    iter_stack: Vec<(String, u32, u32)>,
    /// Variables the region references outside every loop they are the iterator of.
    free_refs: Vec<(String, u32, u32)>,
    /// Array arguments of inlined calls: the array and the leading subscripts.
    views: Vec<(usize, Vec<Aff>)>,
    /// Affine arguments of inlined calls.
    values: Vec<Aff>,
    /// Argument values of inlined single-`return` functions.
    args: Vec<Expr>,
    /// Functions being inlined, innermost last (to refuse recursion).
    call_stack: Vec<(String, u32, u32)>,
    /// Functions whose bodies have been prescanned.
    scanned: Vec<(String, u32, u32)>,
    /// Statements of functions inlined while evaluating an expression, emitted before the
    /// statement that holds the expression.
    pending: Vec<Node>,
    /// The loops around the code being lowered, outermost first, and the isl
    /// constraints of their bounds and of the affine conditions around it: where a
    /// quasi-affine expression is evaluated ([`quasi::c_division_agrees`]).
    ctx_loops: Vec<usize>,
    ctx: Vec<String>,
    /// Arrays of structs (or struct variables), whose last dimension runs over the
    /// elements of one struct, with the length of their member paths
    /// ([`records::path_depth`], the same for every access, as isl needs).
    record_arrays: HashMap<usize, usize>,
    /// Errors of statements already skipped: lowering goes on after a statement that
    /// fails, so that one compile reports every error of a region, as clang does.
    errors: Vec<Diagnostic>,
}

/// clang's default `-ferror-limit`: at most this many errors of one region are reported,
/// then one saying the rest were not looked at.
const ERROR_LIMIT: usize = 20;

impl Lowerer {
    fn new(func: CXCursor, name: String, loc: Loc, hints: Vec<ShareHint>) -> Self {
        Lowerer {
            func,
            scop: Scop {
                name,
                loc,
                args: Vec::new(),
                arrays: Vec::new(),
                scalars: Vec::new(),
                params: Vec::new(),
                body: Vec::new(),
                hints,
                num_loops: 0,
                num_stmts: 0,
                rewrite: None,
                outside_code: None,
            },
            bind: HashMap::new(),
            written: Vec::new(),
            iterators: Vec::new(),
            func_written: Vec::new(),
            initialized: Vec::new(),
            region_decls: Vec::new(),
            declared: Vec::new(),
            region_vars: Vec::new(),
            live_after: None,
            iter_stack: Vec::new(),
            free_refs: Vec::new(),
            views: Vec::new(),
            values: Vec::new(),
            args: Vec::new(),
            call_stack: Vec::new(),
            scanned: Vec::new(),
            pending: Vec::new(),
            ctx_loops: Vec::new(),
            ctx: Vec::new(),
            record_arrays: HashMap::new(),
            errors: Vec::new(),
        }
    }

    /// Lowers one statement of a list; when it fails (and is not a declaration, whose
    /// variable later statements would miss), records the error, restores the context
    /// stacks and goes on with the next statement, up to [`ERROR_LIMIT`] errors.
    unsafe fn stmt_or_record(&mut self, c: CXCursor, out: &mut Vec<Node>) -> Res<()> {
        let marks = (
            self.ctx_loops.len(),
            self.ctx.len(),
            self.iter_stack.len(),
            self.pending.len(),
            self.views.len(),
            self.values.len(),
            self.args.len(),
            self.call_stack.len(),
        );
        match self.stmt(c, out) {
            Err(d) if c.kind != CXCursor_DeclStmt && self.errors.len() < ERROR_LIMIT => {
                self.errors.push(d);
                self.ctx_loops.truncate(marks.0);
                self.ctx.truncate(marks.1);
                self.iter_stack.truncate(marks.2);
                self.pending.truncate(marks.3);
                self.views.truncate(marks.4);
                self.values.truncate(marks.5);
                self.args.truncate(marks.6);
                self.call_stack.truncate(marks.7);
                Ok(())
            }
            r => r,
        }
    }

    /// Whether the function may read variable `key` after the region.
    fn is_live_after(&self, key: &(String, u32, u32)) -> bool {
        self.live_after.as_ref().map_or(true, |l| l.contains(key))
    }

    fn err<T>(&self, c: CXCursor, msg: impl Into<String>) -> Res<T> {
        let mut loc = unsafe { cursor_loc(c) };
        if loc.file.is_empty() {
            loc = self.scop.loc.clone();
        }
        Err(Diagnostic::new(loc, msg))
    }

    /// Whether the floor divisions in `affs` equal C's divisions wherever the code being
    /// lowered runs (see [`quasi::c_division_agrees`]); `c` locates an isl failure.
    fn divisions_agree(
        &self,
        c: CXCursor,
        affs: &[Aff],
        upper_bounds_over: Option<&[Aff]>,
    ) -> Res<bool> {
        let at = quasi::Where {
            params: quasi::params_str(&self.scop),
            ivs: &self.ctx_loops,
            cons: &self.ctx,
        };
        quasi::c_division_agrees(&at, affs, upper_bounds_over).or_else(|e| self.err(c, e))
    }

    /// Whether every expression of `affs` is at least 0 wherever the code being lowered
    /// runs (the enclosing loops and conditions; unsigned parameters are not negative).
    fn nonnegative(&self, c: CXCursor, affs: &[Aff]) -> Res<bool> {
        let mut cons = self.ctx.clone();
        for (p, param) in self.scop.params.iter().enumerate() {
            if !param.ty.is_float() && !param.ty.is_signed() {
                cons.push(format!("p{p} >= 0"));
            }
        }
        let at = quasi::Where {
            params: quasi::params_str(&self.scop),
            ivs: &self.ctx_loops,
            cons: &cons,
        };
        quasi::nonnegative(&at, affs).or_else(|e| self.err(c, e))
    }

    /// Refuses quasi-affine `affs` whose floor divisions may differ from C's.
    fn exact_divisions(
        &self,
        c: CXCursor,
        affs: &[Aff],
        upper_bounds_over: Option<&[Aff]>,
    ) -> Res<()> {
        if self.divisions_agree(c, affs, upper_bounds_over)? {
            return Ok(());
        }
        self.err(
            c,
            "non-affine expression: the dividend of '/' or '%' may be negative here, where C's \
             truncating division differs from the floor division of the polyhedral model",
        )
    }

    fn run(mut self, stmts: &[CXCursor]) -> Result<Scop, Vec<Diagnostic>> {
        let r = self.lower(stmts);
        let mut errors = std::mem::take(&mut self.errors);
        match r {
            Err(d) if errors.len() >= ERROR_LIMIT => errors.push(Diagnostic::fatal(
                d.loc,
                "too many errors emitted, stopping now [-ferror-limit=]",
            )),
            Err(d) => errors.push(d),
            Ok(()) if errors.is_empty() => return Ok(self.scop),
            Ok(()) => {}
        }
        Err(errors)
    }

    fn lower(&mut self, stmts: &[CXCursor]) -> Res<()> {
        unsafe {
            // Assignments anywhere in the function (to recognize constants read in the region).
            if let Some(body) = children(self.func)
                .into_iter()
                .find(|c| c.kind == CXCursor_CompoundStmt)
            {
                self.prescan(body);
                self.func_written = std::mem::take(&mut self.written);
                self.func_written
                    .extend(std::mem::take(&mut self.iterators));
            }
            self.initialized.clear();
            self.declared.clear();
            self.free_refs.clear();
            for s in stmts {
                self.prescan(*s);
            }
            self.region_decls = self.initialized.clone();
            self.region_vars = std::mem::take(&mut self.declared);
            if let Some(body) = children(self.func)
                .into_iter()
                .find(|c| c.kind == CXCursor_CompoundStmt)
            {
                self.live_after = live_after(body, stmts);
            }
            self.bind_params()?;
            // Initializations of assigned parameters (from bind_params) run first.
            let mut body = std::mem::take(&mut self.scop.body);
            for s in stmts {
                self.stmt_or_record(*s, &mut body)?;
            }
            self.scop.body = body;
            // Variables of the function declared outside the region, by reference.
            for (i, sc) in self.scop.scalars.iter().enumerate() {
                if sc.outer {
                    self.scop.args.push(FuncArg::Outer(OuterVar::Scalar(i)));
                }
            }
            for (i, a) in self.scop.arrays.iter().enumerate() {
                if a.kind == ArrayKind::Local {
                    self.scop.args.push(FuncArg::Outer(OuterVar::Array(i)));
                }
            }
            for h in &self.scop.hints {
                if !self.scop.arrays.iter().any(|a| a.name == h.array) {
                    return Err(Diagnostic::new(
                        h.loc.clone(),
                        format!(
                            "share pragma names '{}', which is not an array used in the region",
                            h.array
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Records which variables the region writes and which it uses as loop iterators.
    unsafe fn prescan(&mut self, c: CXCursor) {
        let lhs_var = |c: CXCursor| -> Option<CXCursor> {
            let k = operands(c);
            let l = strip(*k.first()?);
            (l.kind == CXCursor_DeclRefExpr).then(|| clang_getCursorReferenced(l))
        };
        match c.kind {
            CXCursor_ForStmt => {
                let depth = self.iter_stack.len();
                if let Some(init) = children(c).first() {
                    match init.kind {
                        CXCursor_DeclStmt => {
                            for v in children(*init) {
                                self.iterators.push(decl_key(v));
                                self.iter_stack.push(decl_key(v));
                            }
                        }
                        CXCursor_BinaryOperator => {
                            if let Some(v) = lhs_var(*init) {
                                self.iterators.push(decl_key(v));
                                self.iter_stack.push(decl_key(v));
                            }
                        }
                        _ => {}
                    }
                }
                for k in children(c).into_iter().skip(1) {
                    self.prescan(k);
                }
                self.iter_stack.truncate(depth);
                return;
            }
            CXCursor_DeclRefExpr => {
                let key = decl_key(clang_getCursorReferenced(c));
                if !self.iter_stack.contains(&key) {
                    self.free_refs.push(key);
                }
            }
            CXCursor_BinaryOperator | CXCursor_CompoundAssignOperator => {
                let op = clang_getCursorBinaryOperatorKind(c);
                if (CXBinaryOperator_Assign..=CXBinaryOperator_OrAssign).contains(&op) {
                    if let Some(v) = lhs_var(c) {
                        self.written.push(decl_key(v));
                    }
                }
            }
            CXCursor_UnaryOperator => {
                let op = clang_getCursorUnaryOperatorKind(c);
                // `&x`: x may be written through the pointer (`sscanf(s, "%d", &n)`), so it
                // is no constant of its initializer.
                if (CXUnaryOperator_PostInc..=CXUnaryOperator_PreDec).contains(&op)
                    || op == CXUnaryOperator_AddrOf
                {
                    if let Some(v) = lhs_var(c) {
                        self.written.push(decl_key(v));
                    }
                }
            }
            CXCursor_VarDecl => {
                self.declared.push(decl_key(c));
                if children(c).iter().any(|k| is_expr(*k)) {
                    self.initialized.push(decl_key(c));
                }
            }
            _ => {}
        }
        for k in children(c) {
            self.prescan(k);
        }
    }

    /// Binds the function's parameters: arrays become memref arguments, scalars values.
    unsafe fn bind_params(&mut self) -> Res<()> {
        let n = clang_Cursor_getNumArguments(self.func);
        for i in 0..n.max(0) as u32 {
            let p = clang_Cursor_getArgument(self.func, i);
            let name = spelling(p);
            let ty = clang_getCursorType(p);
            let by_value_struct = clang_getCanonicalType(ty).kind == CXType_Record;
            if let (Some((elem, dims)), false) = (array_shape(ty), by_value_struct) {
                let id = self.add_array(p, name, elem, dims, ArrayKind::Param(i as usize))?;
                self.scop.args.push(FuncArg::Array(id));
            } else if let Some(e) = elem_of(ty) {
                let key = decl_key(p);
                if self.written.contains(&key) || self.iterators.contains(&key) {
                    // A parameter the region assigns is a scalar initialized from the argument.
                    let pid = self.scop.params.len();
                    self.scop.params.push(Param {
                        name: name.clone(),
                        ty: e,
                        index: i as usize,
                    });
                    self.scop.args.push(FuncArg::Param(pid));
                    let sid = self.scop.scalars.len();
                    let live_out = self.is_live_after(&key);
                    self.scop.scalars.push(Scalar {
                        name,
                        ty: e,
                        outer: true,
                        live_out,
                        written: true,
                    });
                    self.bind.insert(key, Binding::Scalar(sid));
                    self.scop.body.push(Node::Stmt(Stmt {
                        id: self.scop.num_stmts,
                        target: Target::Scalar(sid),
                        value: Expr::Param(pid, e),
                        loc: cursor_loc(p),
                    }));
                    self.scop.num_stmts += 1;
                    continue;
                }
                let pid = self.scop.params.len();
                self.scop.params.push(Param {
                    name,
                    ty: e,
                    index: i as usize,
                });
                self.bind.insert(key, Binding::Param(pid));
                self.scop.args.push(FuncArg::Param(pid));
            } else {
                let tys = to_string(clang_getTypeSpelling(ty));
                self.scop.args.push(FuncArg::Unused(name, tys));
            }
        }
        Ok(())
    }

    /// Creates an array from its declaration, reading VLA bounds from the declarator.
    unsafe fn add_array(
        &mut self,
        decl: CXCursor,
        name: String,
        elem: ElemTy,
        dims: Vec<Option<i64>>,
        kind: ArrayKind,
    ) -> Res<usize> {
        let size_exprs: Vec<CXCursor> =
            children(decl).into_iter().filter(|c| is_expr(*c)).collect();
        // libclang visits an array declarator's sizes innermost first.
        let mut size_exprs = size_exprs;
        size_exprs.reverse();
        let mut out = Vec::new();
        // The dimensions the declarator states (not the one over a struct's elements).
        let stated =
            dims.len() - records::innermost_record(clang_getCursorType(decl)).is_some() as usize;
        for (k, d) in dims.iter().enumerate() {
            // The declarator's size expressions, outermost first; a parameter's outer
            // size may be missing (it decays to a pointer), so align them on the inner end.
            let skip = stated.saturating_sub(size_exprs.len());
            let from_decl = (k >= skip && k < stated && size_exprs.len() <= stated)
                .then(|| size_exprs[k - skip]);
            out.push(match (d, from_decl) {
                (Some(n), _) => Dim::Static(*n),
                (None, Some(e)) => match eval_int(strip(e)) {
                    Some(n) if strip(e).kind == CXCursor_IntegerLiteral => Dim::Static(n),
                    _ => Dim::Dynamic(self.aff(e).ok()),
                },
                (None, None) => Dim::Dynamic(None),
            });
        }
        let id = self.scop.arrays.len();
        if let Some(r) = records::innermost_record(clang_getCursorType(decl)) {
            self.record_arrays.insert(id, records::path_depth(r));
        }
        self.scop.arrays.push(Array {
            name,
            elem,
            dims: out,
            kind,
        });
        self.bind.insert(decl_key(decl), Binding::Array(id));
        Ok(id)
    }

    /// An array declared inside the region: sizes must be affine in the parameters (the
    /// device buffer is allocated once, before the region runs), and no initializer.
    unsafe fn region_array(
        &mut self,
        v: CXCursor,
        elem: ElemTy,
        dims: Vec<Option<i64>>,
    ) -> Res<()> {
        let name = spelling(v);
        if clang_Cursor_isNull(clang_Cursor_getVarDeclInitializer(v)) == 0 {
            return self.err(
                v,
                format!("array '{name}' declared inside the region with an initializer"),
            );
        }
        let id = self.add_array(v, name.clone(), elem, dims, ArrayKind::Region)?;
        for d in &self.scop.arrays[id].dims {
            let ok = match d {
                Dim::Static(_) => true,
                Dim::Dynamic(Some(a)) => a.vars().iter().all(|x| matches!(x, Var::Param(_))),
                Dim::Dynamic(None) => false,
            };
            if !ok {
                return self.err(
                    v,
                    format!("array '{name}' declared inside the region has a size that is not affine in the function's parameters"),
                );
            }
        }
        Ok(())
    }

    /// Looks up (or creates on first use) what a referenced declaration stands for.
    unsafe fn binding(&mut self, use_site: CXCursor) -> Res<Binding> {
        let decl = clang_getCursorReferenced(use_site);
        if clang_Cursor_isNull(decl) != 0 {
            return self.err(use_site, "reference to an unknown declaration");
        }
        let key = decl_key(decl);
        if let Some(b) = self.bind.get(&key) {
            return Ok(*b);
        }
        let name = spelling(decl);
        if decl.kind == CXCursor_EnumConstantDecl {
            return self.err(
                use_site,
                format!("enumerator '{name}' used outside a constant expression"),
            );
        }
        let ty = clang_getCursorType(decl);
        if let Some(why) = records::innermost_record(ty).and_then(|r| records::flat_layout(r).err())
        {
            let tys = to_string(clang_getTypeSpelling(ty));
            return self.err(
                use_site,
                format!("'{name}' of type '{tys}' is not supported: only structs whose members share one arithmetic type, without padding, are ({why})"),
            );
        }
        if decl.kind == CXCursor_ParmDecl {
            let tys = to_string(clang_getTypeSpelling(ty));
            return self.err(
                use_site,
                format!("parameter '{name}' of type '{tys}' is not supported (pass a struct by pointer or as an array)"),
            );
        }
        if decl.kind != CXCursor_VarDecl {
            return self.err(use_site, format!("'{name}' is not a variable"));
        }
        // File-scope variables only: a function's `static` local lives as long, but only
        // the function names it, so the region receives it by reference as other locals.
        let global = clang_Cursor_hasVarDeclGlobalStorage(decl) == 1
            && clang_getCursorSemanticParent(decl).kind == CXCursor_TranslationUnit;
        if let Some((elem, dims)) = array_shape(ty) {
            if clang_getCanonicalType(ty).kind == CXType_Pointer {
                return self.err(
                    use_site,
                    format!("pointer variable '{name}' is not supported; use an array"),
                );
            }
            let kind = if global {
                ArrayKind::Global
            } else {
                ArrayKind::Local
            };
            let id = self.add_array(decl, name, elem, dims, kind)?;
            return Ok(Binding::Array(id));
        }
        let Some(e) = elem_of(ty) else {
            let tys = to_string(clang_getTypeSpelling(ty));
            return self.err(
                use_site,
                format!(
                    "variable '{name}' of type '{tys}' is not supported (struct, union or pointer)"
                ),
            );
        };
        // A scalar declared with an initializer inside the region is written there.
        let declared_here = self.region_decls.contains(&key);
        if !self.written.contains(&key) && !declared_here {
            if let Some(b) = self.constant_value(decl, global, &key) {
                self.bind.insert(key, b);
                return Ok(b);
            }
            if global {
                return self.err(
                    use_site,
                    format!("global scalar '{name}' is read but not written in the region; pass it as a parameter"),
                );
            }
            if self.region_vars.contains(&key) {
                return self.err(
                    use_site,
                    format!("scalar '{name}' is read in the region but never assigned"),
                );
            }
            // A local of the function that the region only reads: its value comes in by
            // reference like that of any outer scalar.
        }
        if global {
            return self.err(
                use_site,
                format!("file-scope scalar '{name}' is assigned in the region; only local scalars may be written"),
            );
        }
        let id = self.scop.scalars.len();
        let outer = !self.region_vars.contains(&key);
        self.scop.scalars.push(Scalar {
            name,
            ty: e,
            outer,
            live_out: outer && self.written.contains(&key) && self.is_live_after(&key),
            written: self.written.contains(&key) || declared_here,
        });
        self.bind.insert(key, Binding::Scalar(id));
        Ok(Binding::Scalar(id))
    }

    /// The value of a scalar the region reads but never writes, when it is a compile-time
    /// constant: a `const` variable, or a local never assigned after its constant initializer.
    unsafe fn constant_value(
        &self,
        decl: CXCursor,
        global: bool,
        key: &(String, u32, u32),
    ) -> Option<Binding> {
        let is_const = clang_isConstQualifiedType(clang_getCursorType(decl)) != 0;
        if !is_const && (global || self.func_written.contains(key)) {
            return None;
        }
        let init = children(decl).into_iter().filter(|k| is_expr(*k)).last()?;
        let r = clang_Cursor_Evaluate(init);
        if r.is_null() {
            return None;
        }
        let v = match clang_EvalResult_getKind(r) {
            CXEval_Int => {
                let i = clang_EvalResult_getAsLongLong(r);
                Some(Binding::Const(i, i as f64))
            }
            CXEval_Float => {
                let f = clang_EvalResult_getAsDouble(r);
                Some(Binding::Const(f as i64, f))
            }
            _ => None,
        };
        clang_EvalResult_dispose(r);
        v
    }

    // ------------------------------------------------------------ affine expressions

    /// Converts an integer expression to an affine form in loop counters and parameters.
    unsafe fn aff(&mut self, c: CXCursor) -> Res<Aff> {
        let c = strip(c);
        match c.kind {
            CXCursor_IntegerLiteral | CXCursor_CharacterLiteral => match eval_int(c) {
                Some(v) => Ok(Aff::cst(v)),
                None => self.err(c, "cannot evaluate integer literal"),
            },
            CXCursor_DeclRefExpr => {
                let decl = clang_getCursorReferenced(c);
                if decl.kind == CXCursor_EnumConstantDecl {
                    return Ok(Aff::cst(clang_getEnumConstantDeclValue(decl)));
                }
                match self.binding(c)? {
                    Binding::Loop { id, sign, .. } => Ok(Aff::var_times(Var::Iv(id), sign)),
                    Binding::Param(p) if !self.scop.params[p].ty.is_float() => Ok(Aff::var(Var::Param(p))),
                    Binding::Const(i, f) if i as f64 == f => Ok(Aff::cst(i)),
                    Binding::Value(v, _) => Ok(self.values[v].clone()),
                    Binding::DeadIter => self.err(c, format!("loop iterator '{}' is used after its loop", spelling(c))),
                    _ => self.err(
                        c,
                        format!("non-affine expression: '{}' is not a loop iterator or an integer parameter", spelling(c)),
                    ),
                }
            }
            CXCursor_BinaryOperator => {
                let k = operands(c);
                let op = clang_getCursorBinaryOperatorKind(c);
                match op {
                    CXBinaryOperator_Add => Ok(self.aff(k[0])?.add(&self.aff(k[1])?)),
                    CXBinaryOperator_Sub => Ok(self.aff(k[0])?.sub(&self.aff(k[1])?)),
                    CXBinaryOperator_Mul => {
                        let (a, b) = (self.aff(k[0])?, self.aff(k[1])?);
                        match (a.is_const(), b.is_const()) {
                            (Some(x), _) => Ok(b.scale(x)),
                            (_, Some(y)) => Ok(a.scale(y)),
                            _ => self.err(c, "non-affine expression: product of two variables"),
                        }
                    }
                    CXBinaryOperator_Div | CXBinaryOperator_Rem => {
                        let (a, b) = (self.aff(k[0])?, self.aff(k[1])?);
                        let div = op == CXBinaryOperator_Div;
                        match (a.is_const(), b.is_const()) {
                            (Some(x), Some(y)) if y != 0 => {
                                Ok(Aff::cst(if div { x / y } else { x % y }))
                            }
                            // Quasi-affine: isl's floor division, which is C's truncating
                            // division where the dividend is non-negative; the dependence
                            // analysis proves that it is wherever the value is used.
                            (_, Some(y)) if y > 0 => {
                                let q = Aff::floor_div(&a, y);
                                Ok(if div { q } else { a.sub(&q.scale(y)) })
                            }
                            (_, Some(_)) => self.err(
                                c,
                                "non-affine expression: division or remainder by a constant that is not positive",
                            ),
                            _ => self.err(
                                c,
                                "non-affine expression: division or remainder by a variable",
                            ),
                        }
                    }
                    _ => self.err(
                        c,
                        format!("non-affine expression: operator '{}'", op_spelling(c)),
                    ),
                }
            }
            CXCursor_UnaryOperator => {
                let k = operands(c);
                match clang_getCursorUnaryOperatorKind(c) {
                    CXUnaryOperator_Minus => Ok(self.aff(k[0])?.neg()),
                    CXUnaryOperator_Plus => self.aff(k[0]),
                    _ => self.err(c, "non-affine expression: unary operator"),
                }
            }
            CXCursor_ArraySubscriptExpr => self.err(
                c,
                "non-affine expression: array element used in a loop bound",
            ),
            CXCursor_CallExpr => match callee_definition(c) {
                Some(def) => self.inline_affine(c, def),
                None => self.err(
                    c,
                    "non-affine expression: function call used in a loop bound",
                ),
            },
            CXCursor_ConditionalOperator => {
                self.err(c, "non-affine expression: conditional outside a loop bound")
            }
            k => self.err(c, format!("non-affine expression: {}", kind_name(k))),
        }
    }

    /// A loop bound: a single affine expression, or a min (for an upper bound) / max (for a
    /// lower bound) written as a ternary `a < b ? a : b`.
    unsafe fn bound(&mut self, c: CXCursor, upper: bool) -> Res<Vec<Aff>> {
        let s = strip(c);
        if s.kind == CXCursor_ConditionalOperator {
            let k = operands(s);
            let cond = strip(k[0]);
            if cond.kind == CXCursor_BinaryOperator {
                let ck = operands(cond);
                let op = clang_getCursorBinaryOperatorKind(cond);
                let (x, y) = (self.aff(ck[0])?, self.aff(ck[1])?);
                let (t, f) = (self.bound(k[1], upper)?, self.bound(k[2], upper)?);
                // The condition as `g >= 0`. With t = {a} + S and f = {b} + S, the ternary
                // is min(a, b, S) when g holds exactly when a <= b (up to a == b, where
                // both picks agree), and max(a, b, S) when exactly when a >= b:
                // `w < n - 3 ? w + 3 : n` is min(w + 3, n).
                let g = match op {
                    CXBinaryOperator_LT => Some(y.sub(&x).sub(&Aff::cst(1))),
                    CXBinaryOperator_LE => Some(y.sub(&x)),
                    CXBinaryOperator_GT => Some(x.sub(&y).sub(&Aff::cst(1))),
                    CXBinaryOperator_GE => Some(x.sub(&y)),
                    _ => None,
                };
                if let Some(g) = g {
                    let is = |d: Aff| g == d || g == d.sub(&Aff::cst(1));
                    let without = |v: &[Aff], i: usize| {
                        let mut r: Vec<Aff> = v.to_vec();
                        r.remove(i);
                        r
                    };
                    let same_rest = |i: usize, j: usize| {
                        let (a, b) = (without(&t, i), without(&f, j));
                        a.iter().all(|x| b.contains(x)) && b.iter().all(|x| a.contains(x))
                    };
                    for (i, a) in t.iter().enumerate() {
                        for (j, b) in f.iter().enumerate() {
                            if !same_rest(i, j) {
                                continue;
                            }
                            let smaller = if is(b.sub(a)) {
                                true
                            } else if is(a.sub(b)) {
                                false
                            } else {
                                continue;
                            };
                            if smaller == upper {
                                let mut v = t.clone();
                                v.push(b.clone());
                                return Ok(v);
                            }
                            let which = if upper {
                                "max in an upper bound"
                            } else {
                                "min in a lower bound"
                            };
                            return self
                                .err(s, format!("non-affine loop bound: {which} is not convex"));
                        }
                    }
                }
            }
            return self.err(
                s,
                "non-affine loop bound: conditional that is not a min or max",
            );
        }
        Ok(vec![self.aff(c)?])
    }

    /// Affine condition: comparisons joined by `&&`. `None` when the condition is not affine.
    unsafe fn cond(&mut self, c: CXCursor, out: &mut Cond) -> Res<bool> {
        let c = strip(c);
        if c.kind != CXCursor_BinaryOperator {
            return Ok(false);
        }
        let k = operands(c);
        let op = clang_getCursorBinaryOperatorKind(c);
        if op == CXBinaryOperator_LAnd {
            return Ok(self.cond(k[0], out)? && self.cond(k[1], out)?);
        }
        let (a, b) = match (self.aff(k[0]), self.aff(k[1])) {
            (Ok(a), Ok(b)) => (a, b),
            _ => return Ok(false),
        };
        // In unsigned arithmetic a negative side wraps around: evaluated on data then.
        if unsigned_compare(c) && !self.nonnegative(c, &[a.clone(), b.clone()])? {
            return Ok(false);
        }
        match op {
            CXBinaryOperator_LT => out.cons.push((b.sub(&a).add(&Aff::cst(-1)), false)),
            CXBinaryOperator_LE => out.cons.push((b.sub(&a), false)),
            CXBinaryOperator_GT => out.cons.push((a.sub(&b).add(&Aff::cst(-1)), false)),
            CXBinaryOperator_GE => out.cons.push((a.sub(&b), false)),
            CXBinaryOperator_EQ => out.cons.push((a.sub(&b), true)),
            _ => return Ok(false),
        }
        Ok(true)
    }

    // ------------------------------------------------------------ statements

    unsafe fn stmt(&mut self, c: CXCursor, out: &mut Vec<Node>) -> Res<()> {
        match c.kind {
            CXCursor_CompoundStmt => {
                for k in children(c) {
                    self.stmt_or_record(k, out)?;
                }
                Ok(())
            }
            CXCursor_NullStmt => Ok(()),
            CXCursor_ForStmt => self.for_stmt(c, out),
            CXCursor_IfStmt => self.if_stmt(c, out),
            CXCursor_DeclStmt => {
                for v in children(c) {
                    if v.kind != CXCursor_VarDecl {
                        return self.err(v, "only variable declarations are supported here");
                    }
                    let ty = clang_getCursorType(v);
                    if let Some((elem, dims)) = array_shape(ty) {
                        self.region_array(v, elem, dims)?;
                        continue;
                    }
                    if elem_of(ty).is_none() {
                        return self
                            .err(v, format!("variable '{}' of unsupported type", spelling(v)));
                    }
                    let init: Vec<CXCursor> =
                        children(v).into_iter().filter(|k| is_expr(*k)).collect();
                    if let Some(e) = init.last() {
                        let key = decl_key(v);
                        let sid = match self.bind.get(&key) {
                            Some(Binding::Scalar(s)) => *s,
                            _ => {
                                let sid = self
                                    .region_scalar(spelling(v), elem_of(ty).unwrap_or(ElemTy::I32));
                                self.bind.insert(key, Binding::Scalar(sid));
                                sid
                            }
                        };
                        let ty = self.scop.scalars[sid].ty;
                        let value = self.expr(*e)?.cast(ty);
                        self.push_stmt(Target::Scalar(sid), value, v, out);
                    }
                }
                Ok(())
            }
            CXCursor_BinaryOperator | CXCursor_CompoundAssignOperator | CXCursor_UnaryOperator => {
                self.assign(c, out)
            }
            CXCursor_ParenExpr | CXCursor_UnexposedExpr => {
                let k = operands(c);
                if k.len() == 1 {
                    return self.stmt(k[0], out);
                }
                self.err(c, "unsupported statement")
            }
            CXCursor_WhileStmt => self.err(
                c,
                "'while' loop is not a static control part (use a 'for' loop with affine bounds)",
            ),
            CXCursor_DoStmt => self.err(c, "'do' loop is not a static control part"),
            CXCursor_GotoStmt => self.err(c, "'goto' is not supported in a static control part"),
            CXCursor_BreakStmt => self.err(c, "'break' is not supported in a static control part"),
            CXCursor_ContinueStmt => {
                self.err(c, "'continue' is not supported in a static control part")
            }
            CXCursor_ReturnStmt => {
                self.err(c, "'return' is not supported in a static control part")
            }
            CXCursor_SwitchStmt => {
                self.err(c, "'switch' is not supported in a static control part")
            }
            CXCursor_LabelStmt => self.err(c, "labels are not supported in a static control part"),
            CXCursor_CallExpr => match callee_definition(c) {
                Some(def) => self.inline_call(c, def, out).map(|_| ()),
                None => self.err(
                    c,
                    format!(
                        "call to function '{}' in a static control part (only functions defined in this file can be inlined)",
                        spelling(c)
                    ),
                ),
            },
            k => self.err(c, format!("unsupported statement: {}", kind_name(k))),
        }
    }

    fn push_stmt(&mut self, target: Target, value: Expr, c: CXCursor, out: &mut Vec<Node>) {
        // Inlined function bodies the value needs run first.
        out.append(&mut self.pending);
        let id = self.scop.num_stmts;
        self.scop.num_stmts += 1;
        out.push(Node::Stmt(Stmt {
            id,
            target,
            value,
            loc: unsafe { cursor_loc(c) },
        }));
    }

    /// `x = e`, `A[i] op= e`, `x++`.
    unsafe fn assign(&mut self, c: CXCursor, out: &mut Vec<Node>) -> Res<()> {
        let k = operands(c);
        let (lhs_c, op, rhs): (CXCursor, Option<BinOp>, Option<CXCursor>) = match c.kind {
            CXCursor_UnaryOperator => {
                let op = match clang_getCursorUnaryOperatorKind(c) {
                    CXUnaryOperator_PostInc | CXUnaryOperator_PreInc => BinOp::Add,
                    CXUnaryOperator_PostDec | CXUnaryOperator_PreDec => BinOp::Sub,
                    _ => return self.err(c, "expression statement has no effect"),
                };
                (k[0], Some(op), None)
            }
            _ => {
                let bop = clang_getCursorBinaryOperatorKind(c);
                let op = match bop {
                    CXBinaryOperator_Assign => None,
                    CXBinaryOperator_AddAssign => Some(BinOp::Add),
                    CXBinaryOperator_SubAssign => Some(BinOp::Sub),
                    CXBinaryOperator_MulAssign => Some(BinOp::Mul),
                    CXBinaryOperator_DivAssign => Some(BinOp::Div),
                    CXBinaryOperator_RemAssign => Some(BinOp::Rem),
                    CXBinaryOperator_ShlAssign => Some(BinOp::Shl),
                    CXBinaryOperator_ShrAssign => Some(BinOp::Shr),
                    CXBinaryOperator_AndAssign => Some(BinOp::And),
                    CXBinaryOperator_OrAssign => Some(BinOp::Or),
                    CXBinaryOperator_XorAssign => Some(BinOp::Xor),
                    CXBinaryOperator_Comma => {
                        return self.err(c, "comma operator is not supported")
                    }
                    _ => return self.err(c, "expression statement has no effect"),
                };
                (k[0], op, Some(k[1]))
            }
        };
        let lhs = strip(lhs_c);
        if let (None, Some(r)) = (op, rhs) {
            if clang_getCanonicalType(clang_getCursorType(lhs)).kind == CXType_Record {
                return self.struct_copy(c, lhs, r, out);
            }
        }
        let (target, lty) = match lhs.kind {
            CXCursor_DeclRefExpr => match self.binding(lhs)? {
                Binding::Scalar(s) => (Target::Scalar(s), self.scop.scalars[s].ty),
                Binding::Loop { .. } | Binding::DeadIter => {
                    return self.err(
                        lhs,
                        format!(
                            "assignment to loop iterator '{}' inside the loop",
                            spelling(lhs)
                        ),
                    )
                }
                Binding::Param(_) | Binding::Const(..) | Binding::Value(..) | Binding::Arg(_) => {
                    return self.err(lhs, "assignment to a parameter")
                }
                Binding::Array(_) | Binding::View(_) => {
                    return self.err(lhs, "assignment to a whole array")
                }
            },
            CXCursor_UnaryOperator => {
                return self.err(
                    lhs,
                    "pointer dereference is not supported (pointer arithmetic)",
                )
            }
            CXCursor_ArraySubscriptExpr | CXCursor_MemberRefExpr => {
                let (acc, ty) = self.access(lhs)?;
                (Target::Array(acc), ty)
            }
            _ => return self.err(lhs, "unsupported assignment target"),
        };
        let value = match (op, rhs) {
            (None, Some(r)) => {
                let rs = strip(r);
                let chained = (rs.kind == CXCursor_BinaryOperator
                    && clang_getCursorBinaryOperatorKind(rs) == CXBinaryOperator_Assign)
                    || rs.kind == CXCursor_CompoundAssignOperator;
                if chained {
                    // `a = b = e`: store into `b` first, then read `b` back (C's value of an assignment).
                    self.assign(rs, out)?;
                    let inner = match out.last() {
                        Some(Node::Stmt(st)) => st.target.clone(),
                        _ => unreachable!("assign always appends a statement"),
                    };
                    match inner {
                        Target::Array(a) => {
                            let t = self.scop.arrays[a.array].elem;
                            Expr::Load(a, t).cast(lty)
                        }
                        Target::Scalar(x) => Expr::ScalarLoad(x, self.scop.scalars[x].ty).cast(lty),
                    }
                } else {
                    self.expr(r)?.cast(lty)
                }
            }
            (Some(op), r) => {
                let rv = match r {
                    Some(r) => self.expr(r)?,
                    None => Expr::Int(1, ElemTy::I32),
                };
                let ct = if matches!(op, BinOp::Shl | BinOp::Shr) {
                    lty.promoted()
                } else {
                    ElemTy::usual(lty, rv.ty())
                };
                let cur = match &target {
                    Target::Array(a) => Expr::Load(a.clone(), lty),
                    Target::Scalar(s) => Expr::ScalarLoad(*s, lty),
                };
                Expr::Bin(op, Box::new(cur.cast(ct)), Box::new(rv.cast(ct)), ct).cast(lty)
            }
            (None, None) => unreachable!("an assignment always has a right-hand side"),
        };
        self.push_stmt(target, value, c, out);
        Ok(())
    }

    /// `b[i] = a` for structs of one element type: one statement per element, in order.
    unsafe fn struct_copy(
        &mut self,
        c: CXCursor,
        lhs: CXCursor,
        rhs: CXCursor,
        out: &mut Vec<Node>,
    ) -> Res<()> {
        let what = "struct assignment from something that is not a struct variable or an element of an array of structs";
        let (_, dst) = self.subscripted(lhs, what)?;
        let (_, src) = self.subscripted(rhs, what)?;
        for (acc, at) in [(&dst, lhs), (&src, rhs)] {
            let whole = self.record_arrays.contains_key(&acc.array)
                && acc.member.is_empty()
                && acc.idx.len() + 1 == self.scop.arrays[acc.array].dims.len();
            if !whole {
                return self.err(at, what);
            }
        }
        let rec = clang_getCanonicalType(clang_getCursorType(lhs));
        let (elem, words) = records::flat_layout(rec).or_else(|e| self.err(lhs, e))?;
        for w in 0..words {
            let path = self.member_path(
                dst.array,
                records::element_path(rec, w)
                    .into_iter()
                    .map(|k| Sub::Aff(Aff::cst(k)))
                    .collect(),
            );
            let element = |a: &Access| {
                let mut idx = a.idx.clone();
                idx.push(Sub::Aff(Aff::cst(w)));
                Access {
                    array: a.array,
                    idx,
                    member: path.clone(),
                }
            };
            let value = Expr::Load(element(&src), elem);
            self.push_stmt(Target::Array(element(&dst)), value, c, out);
        }
        Ok(())
    }

    /// Binds the parameters of function `def` to the arguments of `call` (pet's inlining):
    /// an array parameter to the array argument with the subscripts it fixes, an integer
    /// parameter the callee never assigns to an affine argument, any other parameter to a
    /// fresh scalar set from the argument by a statement in `out`. Returns the bindings to
    /// restore afterwards.
    unsafe fn bind_args(
        &mut self,
        call: CXCursor,
        def: CXCursor,
        out: &mut Vec<Node>,
    ) -> Res<Vec<((String, u32, u32), Option<Binding>)>> {
        let name = spelling(def);
        let key = decl_key(def);
        if self.call_stack.contains(&key) {
            return self.err(
                call,
                format!("recursive call to '{name}' cannot be inlined"),
            );
        }
        let n = clang_Cursor_getNumArguments(def).max(0) as u32;
        if clang_Cursor_getNumArguments(call) != n as i32 {
            return self.err(call, format!("'{name}' expects {n} arguments"));
        }
        if !self.scanned.contains(&key) {
            // The callee's assignments, iterators and declarations, as for the region.
            let init_len = self.initialized.len();
            for k in children(def) {
                self.prescan(k);
            }
            self.region_vars.append(&mut self.declared);
            self.region_decls
                .extend(self.initialized.drain(init_len..).collect::<Vec<_>>());
            self.scanned.push(key);
        }
        let mut bound = Vec::new();
        for i in 0..n {
            let p = clang_Cursor_getArgument(def, i);
            let a = clang_Cursor_getArgument(call, i);
            let pkey = decl_key(p);
            let pty = clang_getCursorType(p);
            let b = if let Some((_, dims)) = array_shape(pty) {
                let (array, prefix) = self.array_arg(a)?;
                let rank = self.scop.arrays[array].dims.len();
                if prefix.len() + dims.len() != rank {
                    return self.err(
                        a,
                        format!(
                            "argument has {} dimensions but parameter '{}' of '{name}' has {}",
                            rank - prefix.len(),
                            spelling(p),
                            dims.len()
                        ),
                    );
                }
                self.views.push((array, prefix));
                Binding::View(self.views.len() - 1)
            } else if let Some(ety) = elem_of(pty) {
                let assigned = self.written.contains(&pkey) || self.iterators.contains(&pkey);
                let affine = if assigned || ety.is_float() {
                    None
                } else {
                    self.aff(a).ok()
                };
                match affine {
                    Some(v) => {
                        self.values.push(v);
                        Binding::Value(self.values.len() - 1, ety)
                    }
                    None if !assigned && single_return(def).is_some() => {
                        let v = self.expr(a)?.cast(ety);
                        self.args.push(v);
                        Binding::Arg(self.args.len() - 1)
                    }
                    None => {
                        let v = self.expr(a)?.cast(ety);
                        let sid = self.region_scalar(spelling(p), ety);
                        self.push_stmt(Target::Scalar(sid), v, a, out);
                        Binding::Scalar(sid)
                    }
                }
            } else {
                return self.err(
                    p,
                    format!(
                        "parameter '{}' of '{name}' has an unsupported type",
                        spelling(p)
                    ),
                );
            };
            bound.push((pkey.clone(), self.bind.insert(pkey, b)));
        }
        Ok(bound)
    }

    /// A new scalar that lives only inside the region.
    fn region_scalar(&mut self, name: String, ty: ElemTy) -> usize {
        self.scop.scalars.push(Scalar {
            name,
            ty,
            outer: false,
            live_out: false,
            written: true,
        });
        self.scop.scalars.len() - 1
    }

    fn unbind(&mut self, saved: Vec<((String, u32, u32), Option<Binding>)>) {
        for (k, b) in saved.into_iter().rev() {
            match b {
                Some(b) => self.bind.insert(k, b),
                None => self.bind.remove(&k),
            };
        }
    }

    /// The array and leading subscripts an array argument stands for: `A`, or `A[i]`
    /// (a row of a two-dimensional `A`).
    unsafe fn array_arg(&mut self, a: CXCursor) -> Res<(usize, Vec<Aff>)> {
        let (_, acc) = self.subscripted(
            a,
            "array argument must be an array or a row of one (no pointer arithmetic)",
        )?;
        if !acc.member.is_empty() {
            return self.err(
                a,
                "a struct member passed to an inlined function is not supported",
            );
        }
        match acc.affine_idx() {
            Some(affs) => Ok((acc.array, affs.into_iter().cloned().collect())),
            None => self.err(
                a,
                "array argument whose subscript is computed from data cannot be inlined",
            ),
        }
    }

    /// An array name with subscripts (`A[i][j]`, `row[k]` for a row bound by an inlined
    /// call): the name's cursor, the array, and every subscript from the outermost,
    /// those a row binding fixes first. `what` is the error when the base is no name.
    unsafe fn subscripted(&mut self, c: CXCursor, what: &str) -> Res<(CXCursor, Access)> {
        // The path from the variable, outermost first: subscripts, `->` (subscript 0)
        // and struct members.
        let mut path = Vec::new();
        let mut cur = strip(c);
        loop {
            match cur.kind {
                CXCursor_ArraySubscriptExpr => {
                    let k = operands(cur);
                    path.push(Step::Index(k[1]));
                    cur = strip(k[0]);
                }
                CXCursor_MemberRefExpr => {
                    path.push(Step::Member(clang_getCursorReferenced(cur)));
                    let Some(base) = children(cur).into_iter().find(|k| is_expr(*k)) else {
                        return self.err(cur, what.to_string());
                    };
                    cur = strip(base);
                    if clang_getCanonicalType(clang_getCursorType(cur)).kind == CXType_Pointer {
                        path.push(Step::Deref);
                    }
                }
                _ => break,
            }
        }
        path.reverse();
        if cur.kind != CXCursor_DeclRefExpr {
            return self.err(cur, what.to_string());
        }
        let (array, affs) = match self.binding(cur)? {
            Binding::Array(x) => (x, Vec::new()),
            Binding::View(v) => self.views[v].clone(),
            _ => return self.err(cur, format!("'{}' is not an array", spelling(cur))),
        };
        let record = self.record_arrays.contains_key(&array);
        let rank = self.scop.arrays[array].dims.len() - record as usize;
        self.exact_divisions(cur, &affs, None)?;
        let mut subs: Vec<Sub> = affs.into_iter().map(Sub::Aff).collect();
        // Inside a struct: the element offset so far (subscripts with their strides),
        // the member path (`Access::member`) and the type reached.
        let mut member: Option<(Vec<(Sub, i64)>, Vec<Sub>, CXType)> = None;
        let bytes = self.scop.arrays[array].elem.bytes();
        for step in path {
            if let Some((offset, path, ty)) = &mut member {
                let t = clang_getCanonicalType(*ty);
                match step {
                    Step::Member(f) => {
                        let off = Sub::Aff(Aff::cst(records::member_offset(f, bytes)));
                        offset.push((off.clone(), 1));
                        path.push(off);
                        *ty = clang_getCursorType(f);
                    }
                    Step::Index(i) if t.kind == CXType_ConstantArray => {
                        let elem = clang_getArrayElementType(t);
                        let stride = records::flat_layout(elem).map_or(1, |(_, w)| w);
                        let sub = self.subscript(i)?;
                        offset.push((sub.clone(), stride));
                        path.push(sub);
                        *ty = elem;
                    }
                    _ => return self.err(c, "pointer inside a struct (pointer arithmetic)"),
                }
                continue;
            }
            match step {
                _ if subs.len() == rank && record => {
                    let Step::Member(f) = step else {
                        return self.err(
                            c,
                            format!(
                                "array '{}' is subscripted beyond its dimensions",
                                spelling(cur)
                            ),
                        );
                    };
                    let off = Sub::Aff(Aff::cst(records::member_offset(f, bytes)));
                    member = Some((vec![(off.clone(), 1)], vec![off], clang_getCursorType(f)));
                }
                _ if subs.len() == rank => {
                    return self.err(
                        c,
                        format!(
                            "array '{}' has {} dimensions but is subscripted with more",
                            spelling(cur),
                            rank
                        ),
                    )
                }
                Step::Index(i) => subs.push(self.subscript(i)?),
                Step::Deref => subs.push(Sub::Aff(Aff::cst(0))),
                Step::Member(_) => return self.err(c, "member of something that is not a struct"),
            }
        }
        let mut path = Vec::new();
        if let Some((offset, key, ty)) = member {
            if elem_of(ty).is_none() {
                return self.err(
                    c,
                    "a struct member that is itself an array or a struct is used as a whole (only elements of arithmetic type can be read or written)",
                );
            }
            subs.push(flat_offset(offset));
            path = self.member_path(array, key);
        }
        Ok((
            cur,
            Access {
                array,
                idx: subs,
                member: path,
            },
        ))
    }

    /// A member path of struct array `array` padded with zeros to the array's path
    /// length ([`Access::member`]).
    fn member_path(&self, array: usize, mut path: Vec<Sub>) -> Vec<Sub> {
        let depth = self.record_arrays.get(&array).copied().unwrap_or(0);
        path.resize(depth.max(path.len()), Sub::Aff(Aff::cst(0)));
        path
    }

    /// One subscript: quasi-affine when it is one and its divisions agree with C's,
    /// else an integer value computed from data (over-approximated in the model).
    unsafe fn subscript(&mut self, i: CXCursor) -> Res<Sub> {
        if let Ok(a) = self.aff(i) {
            if self.divisions_agree(i, std::slice::from_ref(&a), None)? {
                return Ok(Sub::Aff(a));
            }
        }
        let e = self.expr(i)?;
        if e.ty().is_float() {
            return self.err(i, "array subscript is not an integer");
        }
        Ok(Sub::Data(e))
    }

    /// Inlines a call to `def`, a function defined in the translation unit: its body is
    /// lowered into `out` with the parameters bound to the arguments. Returns the value of
    /// its final `return` (`None` for a function that returns nothing). When the body
    /// emitted statements, the value goes through a fresh scalar, so that a second call
    /// of the same function in one expression cannot change it.
    unsafe fn inline_call(
        &mut self,
        call: CXCursor,
        def: CXCursor,
        out: &mut Vec<Node>,
    ) -> Res<Option<Expr>> {
        let before = out.len();
        let saved = self.bind_args(call, def, out)?;
        self.call_stack.push(decl_key(def));
        let r = self.inline_body(call, def, out);
        self.call_stack.pop();
        self.unbind(saved);
        let Some(v) = r? else { return Ok(None) };
        out.append(&mut self.pending);
        if out.len() == before {
            return Ok(Some(v));
        }
        let ty = v.ty();
        let sid = self.region_scalar(format!("{}.ret", spelling(def)), ty);
        self.push_stmt(Target::Scalar(sid), v, call, out);
        Ok(Some(Expr::ScalarLoad(sid, ty)))
    }

    unsafe fn inline_body(
        &mut self,
        call: CXCursor,
        def: CXCursor,
        out: &mut Vec<Node>,
    ) -> Res<Option<Expr>> {
        let Some(body) = children(def)
            .into_iter()
            .find(|k| k.kind == CXCursor_CompoundStmt)
        else {
            return self.err(call, format!("'{}' has no body to inline", spelling(def)));
        };
        let stmts = children(body);
        for (i, st) in stmts.iter().enumerate() {
            if st.kind != CXCursor_ReturnStmt {
                self.stmt(*st, out)?;
                continue;
            }
            if i + 1 != stmts.len() {
                return self.err(
                    *st,
                    "'return' before the end of a function cannot be inlined",
                );
            }
            let Some(e) = children(*st).into_iter().find(|k| is_expr(*k)) else {
                return Ok(None);
            };
            let ty = elem_of(clang_getCursorResultType(def)).unwrap_or(ElemTy::F64);
            return Ok(Some(self.expr(e)?.cast(ty)));
        }
        Ok(None)
    }

    /// A call in an affine position (a subscript or bound): the callee must be a single
    /// `return` of an affine expression of its parameters.
    unsafe fn inline_affine(&mut self, call: CXCursor, def: CXCursor) -> Res<Aff> {
        let Some(e) = single_return(def) else {
            return self.err(
                call,
                format!(
                    "non-affine expression: '{}' is not a single affine 'return'",
                    spelling(def)
                ),
            );
        };
        let mut out = Vec::new();
        let saved = self.bind_args(call, def, &mut out)?;
        self.call_stack.push(decl_key(def));
        let r = if out.is_empty() {
            self.aff(e)
        } else {
            self.err(
                call,
                "non-affine expression: call with a non-affine argument",
            )
        };
        self.call_stack.pop();
        self.unbind(saved);
        r
    }

    unsafe fn access(&mut self, c: CXCursor) -> Res<(Access, ElemTy)> {
        let (name, acc) = self.subscripted(
            c,
            "array subscript of something that is not an array variable (pointer arithmetic)",
        )?;
        let (a, idx) = (acc.array, &acc.idx);
        let rank = self.scop.arrays[a].dims.len();
        if self.record_arrays.contains_key(&a) && idx.len() + 1 == rank {
            return self.err(
                c,
                "a whole struct is read or written (copy its members one by one)",
            );
        }
        if idx.len() != rank {
            let fixed = match self.binding(name)? {
                Binding::View(v) => self.views[v].1.len(),
                _ => 0,
            };
            return self.err(
                c,
                format!(
                    "array '{}' has {} dimensions but is subscripted with {}",
                    spelling(name),
                    rank - fixed,
                    idx.len() - fixed
                ),
            );
        }
        // A dimension without a size (a pointer, `A[]`, a size that is not affine) is
        // only known to hold the element the access names when that is element 0 of
        // the first dimension (`p->x`): the region copies whole arrays.
        for (k, d) in self.scop.arrays[a].dims.iter().enumerate() {
            let first_zero = k == 0 && acc.idx[0] == Sub::Aff(Aff::cst(0));
            if *d == Dim::Dynamic(None) && !first_zero {
                return self.err(
                    c,
                    format!(
                        "the size of dimension {} of '{}' is unknown (a pointer, an array parameter without its first size, or a size that is not affine in the parameters): declare it with its size, e.g. 'double A[n]'",
                        k + 1,
                        spelling(name)
                    ),
                );
            }
        }
        let ty = self.scop.arrays[a].elem;
        Ok((acc, ty))
    }

    unsafe fn for_stmt(&mut self, c: CXCursor, out: &mut Vec<Node>) -> Res<()> {
        let k = children(c);
        if k.len() != 4 {
            return self.err(
                c,
                "'for' loop must have an initializer, a condition and an increment",
            );
        }
        let (init, cond, inc, body) = (k[0], k[1], k[2], k[3]);
        // Initializer: `i = e` or `int i = e`.
        let (var, start) = match init.kind {
            CXCursor_DeclStmt => {
                let v = children(init);
                let e: Vec<CXCursor> = v
                    .first()
                    .map(|v| children(*v))
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|x| is_expr(*x))
                    .collect();
                match (v.len(), e.last()) {
                    (1, Some(e)) => (v[0], *e),
                    _ => {
                        return self.err(
                            init,
                            "'for' initializer must declare one iterator with an initial value",
                        )
                    }
                }
            }
            CXCursor_BinaryOperator
                if clang_getCursorBinaryOperatorKind(init) == CXBinaryOperator_Assign =>
            {
                let ik = operands(init);
                let l = strip(ik[0]);
                if l.kind != CXCursor_DeclRefExpr {
                    return self.err(init, "'for' initializer must assign the iterator");
                }
                (clang_getCursorReferenced(l), ik[1])
            }
            _ => return self.err(init, "'for' initializer must assign the iterator"),
        };
        let vty = elem_of(clang_getCursorType(var));
        if vty.map_or(true, |t| t.is_float()) {
            return self.err(var, "loop iterator must have an integer type");
        }
        let vkey = decl_key(var);
        let vname = spelling(var);
        // `for (i = ...) for (i = ...)`: the inner loop assigns the outer loop's iterator,
        // which changes how often the outer loop runs; a scop's loops are independent.
        if let Some(Binding::Loop { .. }) = self.bind.get(&vkey) {
            return self.err(
                init,
                format!("'for' loop assigns '{vname}', the iterator of an enclosing loop"),
            );
        }
        // Increment: step and direction.
        let step = self.step_of(inc, &vkey)?;
        let start_b = self.bound(start, step < 0)?;
        let id = self.scop.num_loops;
        self.scop.num_loops += 1;
        let sign = if step > 0 { 1 } else { -1 };
        // Condition, in terms of the C iterator.
        let mut ubs = Vec::new();
        let mut compared = Vec::new();
        self.loop_cond(cond, &vkey, sign, &mut ubs, &mut compared)?;
        if ubs.is_empty() {
            return self.err(
                cond,
                "'for' condition must compare the iterator with an affine bound",
            );
        }
        let lbs: Vec<Aff> = start_b.iter().map(|a| a.scale(sign)).collect();
        self.exact_divisions(start, &lbs, None)?;
        self.exact_divisions(cond, &ubs, Some(&lbs))?;
        // Compared in unsigned arithmetic: the model's comparison is C's where the
        // iterator's start, its bounds and the value a decreasing loop leaves at are not
        // negative (every value between them then is not either).
        if !compared.is_empty() {
            compared.extend(start_b.iter().cloned());
            if !self.nonnegative(cond, &compared)? {
                return self.err(
                    cond,
                    "'for' condition compares in unsigned arithmetic, and the iterator or its bound may be negative here, where C wraps it around to a large value (use signed types)",
                );
            }
        }
        let saved = self.bind.insert(
            vkey.clone(),
            Binding::Loop {
                id,
                sign,
                ty: vty.unwrap_or(ElemTy::I32),
            },
        );
        let mut inner = Vec::new();
        let before = self.ctx.len();
        self.ctx
            .extend(quasi::loop_constraints(id, &lbs, &ubs, step.abs()));
        self.ctx_loops.push(id);
        let r = self.stmt(body, &mut inner);
        self.ctx_loops.pop();
        self.ctx.truncate(before);
        // The iterator's value after the loop, when anything may read it: code later in
        // the region, the function after the region, or a scalar it also is.
        let outer = !self.region_vars.contains(&vkey);
        let final_to = match saved {
            Some(Binding::Scalar(s)) => Some(s),
            _ if self.free_refs.contains(&vkey) || outer && self.is_live_after(&vkey) => {
                let sid = self.scop.scalars.len();
                self.scop.scalars.push(Scalar {
                    name: vname.clone(),
                    ty: vty.unwrap_or(ElemTy::I32),
                    outer,
                    live_out: outer && self.is_live_after(&vkey),
                    written: true,
                });
                Some(sid)
            }
            _ => None,
        };
        match (saved, final_to) {
            (_, Some(s)) => {
                self.bind.insert(vkey, Binding::Scalar(s));
            }
            (Some(b), None) if !matches!(b, Binding::Loop { .. }) => {
                self.bind.insert(vkey, b);
            }
            _ => {
                self.bind.insert(vkey, Binding::DeadIter);
            }
        }
        r?;
        let l = Loop {
            id,
            name: vname,
            lbs,
            ubs,
            step: step.abs(),
            sign,
            body: inner,
            loc: cursor_loc(c),
        };
        let last = final_to.map(|s| (s, l.final_value(vty.unwrap_or(ElemTy::I32))));
        out.push(Node::Loop(l));
        if let Some((s, value)) = last {
            self.push_stmt(Target::Scalar(s), value, c, out);
        }
        Ok(())
    }

    unsafe fn is_var(&self, c: CXCursor, key: &(String, u32, u32)) -> bool {
        let s = strip(c);
        s.kind == CXCursor_DeclRefExpr && decl_key(clang_getCursorReferenced(s)) == *key
    }

    unsafe fn step_of(&mut self, inc: CXCursor, key: &(String, u32, u32)) -> Res<i64> {
        let k = operands(inc);
        let inc_loc = cursor_loc(inc);
        let bad = || -> Res<i64> {
            Err(Diagnostic::new(
                inc_loc.clone(),
                "'for' increment must add a constant to the iterator (i++, i--, i += c)",
            ))
        };
        if k.is_empty() || !self.is_var(k[0], key) {
            return bad();
        }
        match inc.kind {
            CXCursor_UnaryOperator => match clang_getCursorUnaryOperatorKind(inc) {
                CXUnaryOperator_PostInc | CXUnaryOperator_PreInc => Ok(1),
                CXUnaryOperator_PostDec | CXUnaryOperator_PreDec => Ok(-1),
                _ => bad(),
            },
            CXCursor_CompoundAssignOperator => {
                let v = self.aff(k[1])?.is_const();
                match (clang_getCursorBinaryOperatorKind(inc), v) {
                    (CXBinaryOperator_AddAssign, Some(v)) if v != 0 => Ok(v),
                    (CXBinaryOperator_SubAssign, Some(v)) if v != 0 => Ok(-v),
                    _ => bad(),
                }
            }
            CXCursor_BinaryOperator
                if clang_getCursorBinaryOperatorKind(inc) == CXBinaryOperator_Assign =>
            {
                let r = strip(k[1]);
                if r.kind == CXCursor_BinaryOperator {
                    let rk = operands(r);
                    let op = clang_getCursorBinaryOperatorKind(r);
                    if self.is_var(rk[0], key) {
                        if let Some(v) = self.aff(rk[1])?.is_const() {
                            match op {
                                CXBinaryOperator_Add if v != 0 => return Ok(v),
                                CXBinaryOperator_Sub if v != 0 => return Ok(-v),
                                _ => {}
                            }
                        }
                    }
                }
                bad()
            }
            _ => bad(),
        }
    }

    /// Turns `i < e`, `i <= e`, `i > e`, `i >= e` (either side), joined by `&&`, into
    /// exclusive upper bounds of the normalized counter `c = sign * i`.
    unsafe fn loop_cond(
        &mut self,
        c: CXCursor,
        key: &(String, u32, u32),
        sign: i64,
        ubs: &mut Vec<Aff>,
        compared: &mut Vec<Aff>,
    ) -> Res<()> {
        let c = strip(c);
        if c.kind != CXCursor_BinaryOperator {
            return self.err(
                c,
                "'for' condition must compare the iterator with an affine bound",
            );
        }
        let k = operands(c);
        let mut op = clang_getCursorBinaryOperatorKind(c);
        if op == CXBinaryOperator_LAnd {
            self.loop_cond(k[0], key, sign, ubs, compared)?;
            return self.loop_cond(k[1], key, sign, ubs, compared);
        }
        let (var_left, other) = if self.is_var(k[0], key) {
            (true, k[1])
        } else if self.is_var(k[1], key) {
            (false, k[0])
        } else {
            return self.err(
                c,
                "'for' condition must compare the iterator with an affine bound",
            );
        };
        if !var_left {
            op = match op {
                CXBinaryOperator_LT => CXBinaryOperator_GT,
                CXBinaryOperator_LE => CXBinaryOperator_GE,
                CXBinaryOperator_GT => CXBinaryOperator_LT,
                CXBinaryOperator_GE => CXBinaryOperator_LE,
                o => o,
            };
        }
        // i < e  (sign 1): c < e.   i > e (sign -1): c = -i < -e.
        let (upper_op, inclusive) = match op {
            CXBinaryOperator_LT => (1, false),
            CXBinaryOperator_LE => (1, true),
            CXBinaryOperator_GT => (-1, false),
            CXBinaryOperator_GE => (-1, true),
            _ => return self.err(c, "'for' condition must be <, <=, > or >= on the iterator"),
        };
        if upper_op != sign {
            return self.err(c, "'for' condition and increment go in opposite directions");
        }
        // An upper bound on `i` needs min (upper=true); for a decreasing loop the bound on
        // `i` is a lower one, so it must be a max.
        let unsigned = unsigned_compare(c);
        for b in self.bound(other, sign > 0)? {
            if unsigned {
                // A decreasing `i >= b` leaves the loop at b - 1, compared too.
                compared.push(match (sign < 0, inclusive) {
                    (true, true) => b.add(&Aff::cst(-1)),
                    _ => b.clone(),
                });
            }
            let b = b.scale(sign);
            ubs.push(if inclusive { b.add(&Aff::cst(1)) } else { b });
        }
        Ok(())
    }

    unsafe fn if_stmt(&mut self, c: CXCursor, out: &mut Vec<Node>) -> Res<()> {
        let k = children(c);
        if k.len() < 2 || k.len() > 3 {
            return self.err(c, "unsupported 'if' statement");
        }
        let mut then = Vec::new();
        let mut els = Vec::new();
        let mut cond = Cond::default();
        let affine = self.cond(k[0], &mut cond)?;
        // A condition whose divisions may differ from C's is evaluated on data instead.
        let affs: Vec<Aff> = cond.cons.iter().map(|(a, _)| a.clone()).collect();
        let affine = affine && self.divisions_agree(k[0], &affs, None)?;
        let data = if affine {
            None
        } else {
            let e = self.to_bool(k[0])?;
            out.append(&mut self.pending);
            Some(e)
        };
        let before = self.ctx.len();
        if affine {
            self.ctx.extend(quasi::cond_constraints(&cond));
        }
        let r = self.stmt(k[1], &mut then);
        self.ctx.truncate(before);
        r?;
        if k.len() == 3 {
            if affine {
                self.ctx.push(quasi::cond_negation(&cond));
            }
            let r = self.stmt(k[2], &mut els);
            self.ctx.truncate(before);
            r?;
        }
        out.push(match data {
            None => Node::If { cond, then, els },
            Some(e) => Node::DataIf {
                cond: e,
                then,
                els,
                loc: cursor_loc(c),
            },
        });
        Ok(())
    }

    // ------------------------------------------------------------ value expressions

    /// Inlined statements from an operand that C may leave unevaluated (a branch of `?:`,
    /// the right side of `&&` or `||`) run unconditionally: refuses them when they write
    /// an array, the only effect visible outside the inlined function.
    unsafe fn unconditional_effects(&self, from: usize, c: CXCursor) -> Res<()> {
        fn writes_array(n: &Node) -> bool {
            match n {
                Node::Stmt(s) => matches!(s.target, Target::Array(_)),
                Node::Loop(l) => l.body.iter().any(writes_array),
                Node::If { then, els, .. } | Node::DataIf { then, els, .. } => {
                    then.iter().chain(els).any(writes_array)
                }
            }
        }
        if self.pending[from..].iter().any(writes_array) {
            return self.err(
                c,
                "a call that writes an array in an operand that may not be evaluated cannot be inlined",
            );
        }
        Ok(())
    }

    unsafe fn to_bool(&mut self, c: CXCursor) -> Res<Expr> {
        let e = self.expr(c)?;
        Ok(bool_of(e))
    }

    unsafe fn expr(&mut self, c: CXCursor) -> Res<Expr> {
        let cty = elem_of(clang_getCursorType(c));
        match c.kind {
            CXCursor_ParenExpr => {
                let k = pad(children(c).into_iter().filter(|x| is_expr(*x)).collect());
                self.expr(k[0])
            }
            CXCursor_UnexposedExpr | CXCursor_CStyleCastExpr => {
                let k: Vec<CXCursor> = children(c).into_iter().filter(|x| is_expr(*x)).collect();
                if k.len() != 1 {
                    return self.err(c, "unsupported expression");
                }
                let e = self.expr(k[0])?;
                match cty {
                    Some(t) => Ok(e.cast(t)),
                    None => Ok(e),
                }
            }
            CXCursor_IntegerLiteral | CXCursor_CharacterLiteral => match (eval_int(c), cty) {
                (Some(v), Some(t)) => Ok(Expr::Int(v, t)),
                _ => self.err(c, "cannot evaluate literal"),
            },
            CXCursor_FloatingLiteral => match (eval_float(c), cty) {
                (Some(v), Some(t)) => Ok(Expr::Float(v, t)),
                _ => self.err(c, "cannot evaluate literal"),
            },
            CXCursor_DeclRefExpr => {
                let decl = clang_getCursorReferenced(c);
                if decl.kind == CXCursor_EnumConstantDecl {
                    return Ok(Expr::Int(clang_getEnumConstantDeclValue(decl), ElemTy::I32));
                }
                match self.binding(c)? {
                    Binding::Loop { id, sign, ty } => {
                        Ok(Expr::Index(Aff::var_times(Var::Iv(id), sign), ty))
                    }
                    Binding::Param(p) => Ok(Expr::Param(p, self.scop.params[p].ty)),
                    Binding::Scalar(s) => Ok(Expr::ScalarLoad(s, self.scop.scalars[s].ty)),
                    Binding::Const(i, f) => {
                        let ty = elem_of(clang_getCursorType(c)).unwrap_or(ElemTy::F64);
                        Ok(if ty.is_float() {
                            Expr::Float(f, ty)
                        } else {
                            Expr::Int(i, ty)
                        })
                    }
                    Binding::Value(v, ty) => {
                        self.exact_divisions(c, std::slice::from_ref(&self.values[v]), None)?;
                        Ok(Expr::Index(self.values[v].clone(), ty))
                    }
                    Binding::Arg(a) => Ok(self.args[a].clone()),
                    Binding::Array(_) | Binding::View(_) => {
                        self.err(c, format!("array '{}' used as a value", spelling(c)))
                    }
                    Binding::DeadIter => self.err(
                        c,
                        format!("loop iterator '{}' is used after its loop", spelling(c)),
                    ),
                }
            }
            CXCursor_ArraySubscriptExpr => {
                let (a, t) = self.access(c)?;
                Ok(Expr::Load(a, t))
            }
            CXCursor_BinaryOperator => {
                let k = operands(c);
                let op = clang_getCursorBinaryOperatorKind(c);
                let ty = cty.unwrap_or(ElemTy::I32);
                let bin = |op: BinOp, s: &mut Self| -> Res<Expr> {
                    let (a, b) = (s.expr(k[0])?, s.expr(k[1])?);
                    Ok(Expr::Bin(
                        op,
                        Box::new(a.cast(ty)),
                        Box::new(b.cast(ty)),
                        ty,
                    ))
                };
                let cmp = |op: CmpOp, s: &mut Self| -> Res<Expr> {
                    let (a, b) = (s.expr(k[0])?, s.expr(k[1])?);
                    let t = ElemTy::usual(a.ty(), b.ty());
                    Ok(Expr::Cmp(op, Box::new(a.cast(t)), Box::new(b.cast(t))))
                };
                match op {
                    CXBinaryOperator_Add => bin(BinOp::Add, self),
                    CXBinaryOperator_Sub => bin(BinOp::Sub, self),
                    CXBinaryOperator_Mul => bin(BinOp::Mul, self),
                    CXBinaryOperator_Div => bin(BinOp::Div, self),
                    CXBinaryOperator_Rem => bin(BinOp::Rem, self),
                    CXBinaryOperator_Shl => bin(BinOp::Shl, self),
                    CXBinaryOperator_Shr => bin(BinOp::Shr, self),
                    CXBinaryOperator_And => bin(BinOp::And, self),
                    CXBinaryOperator_Or => bin(BinOp::Or, self),
                    CXBinaryOperator_Xor => bin(BinOp::Xor, self),
                    CXBinaryOperator_LT => cmp(CmpOp::Lt, self),
                    CXBinaryOperator_LE => cmp(CmpOp::Le, self),
                    CXBinaryOperator_GT => cmp(CmpOp::Gt, self),
                    CXBinaryOperator_GE => cmp(CmpOp::Ge, self),
                    CXBinaryOperator_EQ => cmp(CmpOp::Eq, self),
                    CXBinaryOperator_NE => cmp(CmpOp::Ne, self),
                    CXBinaryOperator_LAnd | CXBinaryOperator_LOr => {
                        let a = self.to_bool(k[0])?;
                        let from = self.pending.len();
                        let b = self.to_bool(k[1])?;
                        self.unconditional_effects(from, c)?;
                        let (a, b) = (Box::new(a), Box::new(b));
                        Ok(if op == CXBinaryOperator_LAnd {
                            Expr::LAnd(a, b)
                        } else {
                            Expr::LOr(a, b)
                        })
                    }
                    CXBinaryOperator_Assign => {
                        self.err(c, "assignment inside an expression is not supported")
                    }
                    CXBinaryOperator_Comma => self.err(c, "comma operator is not supported"),
                    _ => self.err(c, format!("unsupported operator '{}'", op_spelling(c))),
                }
            }
            CXCursor_CompoundAssignOperator => {
                self.err(c, "assignment inside an expression is not supported")
            }
            CXCursor_UnaryOperator => {
                let k = operands(c);
                match clang_getCursorUnaryOperatorKind(c) {
                    CXUnaryOperator_Minus => Ok(Expr::Neg(Box::new(
                        self.expr(k[0])?.cast(cty.unwrap_or(ElemTy::I32)),
                    ))),
                    CXUnaryOperator_Plus => Ok(self.expr(k[0])?.cast(cty.unwrap_or(ElemTy::I32))),
                    CXUnaryOperator_LNot => Ok(Expr::Not(Box::new(self.to_bool(k[0])?))),
                    CXUnaryOperator_Not => Ok(Expr::BitNot(Box::new(
                        self.expr(k[0])?.cast(cty.unwrap_or(ElemTy::I32)),
                    ))),
                    CXUnaryOperator_Deref => self.err(
                        c,
                        "pointer dereference is not supported (pointer arithmetic)",
                    ),
                    CXUnaryOperator_AddrOf => self.err(c, "taking an address is not supported"),
                    CXUnaryOperator_PostInc
                    | CXUnaryOperator_PreInc
                    | CXUnaryOperator_PostDec
                    | CXUnaryOperator_PreDec => self.err(
                        c,
                        "increment or decrement inside an expression is not supported",
                    ),
                    _ => self.err(c, "unsupported unary operator"),
                }
            }
            CXCursor_ConditionalOperator => {
                let k = operands(c);
                let ty = cty.unwrap_or(ElemTy::I32);
                let cond = self.to_bool(k[0])?;
                let from = self.pending.len();
                let (a, b) = (self.expr(k[1])?, self.expr(k[2])?);
                self.unconditional_effects(from, c)?;
                Ok(Expr::Select(
                    Box::new(cond),
                    Box::new(a.cast(ty)),
                    Box::new(b.cast(ty)),
                    ty,
                ))
            }
            CXCursor_CallExpr => {
                let name = spelling(c);
                if let Some(def) = callee_definition(c) {
                    let mut body = Vec::new();
                    let value = self.inline_call(c, def, &mut body)?;
                    self.pending.extend(body);
                    return match value {
                        Some(v) => Ok(v),
                        None => self.err(c, format!("'{name}' returns no value")),
                    };
                }
                let Some((f, n)) = MathFn::from_c(&name) else {
                    return self.err(c, format!("call to unknown function '{name}' (only math functions such as sqrt, exp, pow, fabs are supported)"));
                };
                let nargs = clang_Cursor_getNumArguments(c);
                if nargs != n as i32 {
                    return self.err(c, format!("'{name}' expects {n} arguments"));
                }
                let ty = cty.unwrap_or(ElemTy::F64);
                let mut args = Vec::new();
                for i in 0..n {
                    args.push(self.expr(clang_Cursor_getArgument(c, i as u32))?.cast(ty));
                }
                Ok(Expr::Call(f, args, ty))
            }
            CXCursor_MemberRefExpr => {
                let (a, t) = self.access(c)?;
                Ok(Expr::Load(a, t))
            }
            CXCursor_StmtExpr => self.err(c, "statement expressions are not supported"),
            k => self.err(c, format!("unsupported expression: {}", kind_name(k))),
        }
    }
}

/// C's truth test: `e != 0` unless `e` already is a comparison.
fn bool_of(e: Expr) -> Expr {
    match e.ty() {
        ElemTy::Bool => e,
        t if t.is_float() => Expr::Cmp(CmpOp::Ne, Box::new(e), Box::new(Expr::Float(0.0, t))),
        t => Expr::Cmp(CmpOp::Ne, Box::new(e), Box::new(Expr::Int(0, t))),
    }
}

unsafe fn op_spelling(c: CXCursor) -> String {
    to_string(clang_getBinaryOperatorKindSpelling(
        clang_getCursorBinaryOperatorKind(c),
    ))
}
