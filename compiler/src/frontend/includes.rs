//! The files a translation unit reads, for dependency files (`-MD`, `-MMD`).

use super::to_string;
use clang_sys::*;

/// Every file of `tu` (the main file first, then headers in inclusion order, each once)
/// with whether it is a system header (`-MMD` leaves those out).
pub(super) unsafe fn files(tu: CXTranslationUnit) -> Vec<(String, bool)> {
    extern "C" fn visit(
        file: CXFile,
        _stack: *mut CXSourceLocation,
        _depth: u32,
        data: CXClientData,
    ) {
        unsafe {
            let out = &mut *(data as *mut Vec<(String, bool)>);
            let name = to_string(clang_getFileName(file));
            if !out.iter().any(|(n, _)| *n == name) {
                out.push((name, false));
            }
        }
    }
    let mut seen: Vec<(String, bool)> = Vec::new();
    clang_getInclusions(tu, visit, &mut seen as *mut _ as CXClientData);
    for (name, system) in seen.iter_mut() {
        let cname = std::ffi::CString::new(name.as_str()).unwrap_or_default();
        let file = clang_getFile(tu, cname.as_ptr());
        if !file.is_null() {
            *system = clang_Location_isInSystemHeader(clang_getLocationForOffset(tu, file, 0)) != 0;
        }
    }
    seen
}
