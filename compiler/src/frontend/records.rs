//! C structs as arrays with one more dimension (pet's treatment of struct members, in
//! the form the issue asks for: arrays of structs as arrays with a field dimension).
//!
//! A struct whose members all have one arithmetic type `T` (scalars, fixed-size arrays
//! of `T`, nested such structs) and no padding has the memory layout of a `T[W]` array,
//! `W = sizeof(struct) / sizeof(T)`. A variable of that struct type is modelled as a
//! `T[W]` array, an array of them as one more dimension (`struct P pts[N]` is
//! `T pts[N][W]`), and a member access becomes a subscript of the last dimension: the
//! member's offset in elements plus its own subscripts times their strides
//! (`pts[i].c[j]` is `pts[i][off(c) + j]`). Members never overlap, so the polyhedral
//! model keeps them apart exactly, and the generated code reads and writes the
//! caller's memory in place.

use super::{elem_of, to_string};
use crate::scop::ElemTy;
use clang_sys::*;

/// The arithmetic element type of a type made only of `T` (a scalar, a fixed-size array,
/// a struct of them without padding) and its size in elements; why not otherwise.
pub(super) unsafe fn flat_layout(t: CXType) -> Result<(ElemTy, i64), String> {
    let t = clang_getCanonicalType(t);
    if let Some(e) = elem_of(t) {
        return Ok((e, 1));
    }
    match t.kind {
        CXType_ConstantArray => {
            let (e, w) = flat_layout(clang_getArrayElementType(t))?;
            Ok((e, w * clang_getArraySize(t)))
        }
        CXType_Record => record_layout(t),
        _ => Err(format!(
            "a member of type '{}' (only arithmetic types, fixed-size arrays and structs of them)",
            spelling_of(t)
        )),
    }
}

/// [`flat_layout`] of a struct: its members in order, each at the offset the ones
/// before it fill, all of one type.
unsafe fn record_layout(t: CXType) -> Result<(ElemTy, i64), String> {
    let decl = clang_getTypeDeclaration(t);
    if decl.kind == CXCursor_UnionDecl {
        return Err(format!("'{}' is a union", spelling_of(t)));
    }
    let mut common: Option<ElemTy> = None;
    let mut words = 0i64;
    for f in fields_of(t) {
        let name = to_string(clang_getCursorSpelling(f));
        if clang_Cursor_isBitField(f) != 0 {
            return Err(format!("member '{name}' is a bit-field"));
        }
        let (e, w) = flat_layout(clang_getCursorType(f))?;
        match common {
            Some(c) if c != e => {
                return Err(format!(
                    "its members mix element types ('{name}' is not of the type of the members before it)"
                ))
            }
            _ => common = Some(e),
        }
        if clang_Cursor_getOffsetOfField(f) != words * 8 * e.bytes() as i64 {
            return Err(format!("member '{name}' is preceded by padding"));
        }
        words += w;
    }
    let Some(e) = common else {
        return Err(format!("'{}' has no members", spelling_of(t)));
    };
    if clang_Type_getSizeOf(t) != words * e.bytes() as i64 {
        return Err(format!("'{}' ends with padding", spelling_of(t)));
    }
    Ok((e, words))
}

/// The number of subscripts a member path into `t` may need: one per struct level and
/// per array dimension on the way to an element.
pub(super) unsafe fn path_depth(t: CXType) -> usize {
    let t = clang_getCanonicalType(t);
    match t.kind {
        CXType_ConstantArray => 1 + path_depth(clang_getArrayElementType(t)),
        CXType_Record => {
            1 + fields_of(t)
                .iter()
                .map(|f| path_depth(clang_getCursorType(*f)))
                .max()
                .unwrap_or(0)
        }
        _ => 0,
    }
}

/// The member path (`Access::member`, before padding) of element `w` of a value of type
/// `t`: for each struct level the member's offset, for each array level the subscript.
pub(super) unsafe fn element_path(t: CXType, w: i64) -> Vec<i64> {
    let t = clang_getCanonicalType(t);
    let words = |t: CXType| flat_layout(t).map_or((ElemTy::F64, 1), |x| x);
    match t.kind {
        CXType_ConstantArray => {
            let elem = clang_getArrayElementType(t);
            let (_, ew) = words(elem);
            let mut p = vec![w / ew];
            p.extend(element_path(elem, w % ew));
            p
        }
        CXType_Record => {
            let bytes = words(t).0.bytes();
            for f in fields_of(t) {
                let off = member_offset(f, bytes);
                let ft = clang_getCursorType(f);
                if (off..off + words(ft).1).contains(&w) {
                    let mut p = vec![off];
                    p.extend(element_path(ft, w - off));
                    return p;
                }
            }
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// The offset of struct member `field` from the start of its struct, in elements of
/// the struct's element type of `bytes` bytes.
pub(super) unsafe fn member_offset(field: CXCursor, bytes: u32) -> i64 {
    clang_Cursor_getOffsetOfField(field) / 8 / bytes as i64
}

/// The struct type at the bottom of an array or pointer type, if any.
pub(super) unsafe fn innermost_record(t: CXType) -> Option<CXType> {
    let mut t = clang_getCanonicalType(t);
    loop {
        t = match t.kind {
            CXType_Pointer => clang_getCanonicalType(clang_getPointeeType(t)),
            CXType_ConstantArray
            | CXType_VariableArray
            | CXType_IncompleteArray
            | CXType_DependentSizedArray => clang_getCanonicalType(clang_getArrayElementType(t)),
            CXType_Record => return Some(t),
            _ => return None,
        }
    }
}

/// The members of a struct type, in declaration order.
unsafe fn fields_of(t: CXType) -> Vec<CXCursor> {
    let mut fields: Vec<CXCursor> = Vec::new();
    extern "C" fn visit(c: CXCursor, data: CXClientData) -> CXVisitorResult {
        unsafe { (*(data as *mut Vec<CXCursor>)).push(c) };
        CXVisit_Continue
    }
    clang_Type_visitFields(t, visit, &mut fields as *mut Vec<CXCursor> as CXClientData);
    fields
}

unsafe fn spelling_of(t: CXType) -> String {
    to_string(clang_getTypeSpelling(t))
}
