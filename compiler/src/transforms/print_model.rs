//! `tessel-print-model` (PrintModel): reports the polyhedral model of every `tpoly.scop`
//! as a remark at the scop: iteration domains, the original schedule, reads, must-writes
//! and may-writes, and the dependences (exact flow; memory-based anti and output), in isl
//! notation, as [`crate::analysis::import`] reads them from the
//! affine operations. The IR is unchanged. It is how the import is tested, and how a
//! user sees what the polyhedral passes will work from.
//!
//! Precondition: verified IR. Spec: paper 001 (PPCG) sec. 5; ARCHITECTURE.md "IR at each
//! step" (a pass re-imports the model from the IR).
//!
//! ```mlir
//! tpoly.scop { affine.for %i = 0 to %n { affine.store %c, %A[%i] : memref<?xf32> } }
//! // remark: polyhedral model
//! //   domain: [arg1] -> { S0[i0] : 0 <= i0 < arg1 }
//! //   schedule: [arg1] -> { S0[i0] -> [0, i0, 0] }
//! //   must-writes: [arg1] -> { S0[i0] -> arg0[i0] : 0 <= i0 < arg1 }  ...
//! ```

use crate::mlir::{children, op_name, string_ref};
use crate::registry::Options;
use mlir_sys::*;

pub fn run(op: MlirOperation, _options: &Options) -> Result<(), String> {
    // SAFETY: a live operation, only read.
    unsafe { visit(op) }
}

unsafe fn visit(op: MlirOperation) -> Result<(), String> {
    if unsafe { op_name(op) } != "tpoly.scop" {
        for c in unsafe { children(op) } {
            unsafe { visit(c)? };
        }
        return Ok(());
    }
    let loc = unsafe { mlirOperationGetLocation(op) };
    let m = match crate::analysis::import::import(op) {
        Ok(m) => m,
        Err(e) => {
            let msg =
                std::ffi::CString::new(format!("cannot model this scop: {e}")).unwrap_or_default();
            // SAFETY: a live location and a NUL-terminated message.
            unsafe { mlirEmitError(loc, msg.as_ptr()) };
            return Err(String::new());
        }
    };
    let d = match crate::analysis::import::dependences(&m) {
        Ok(d) => d,
        Err(e) => {
            let msg =
                std::ffi::CString::new(format!("cannot compute the dependences of this scop: {e}"))
                    .unwrap_or_default();
            // SAFETY: as below.
            unsafe { mlirEmitError(loc, msg.as_ptr()) };
            return Err(String::new());
        }
    };
    let text = format!(
        "polyhedral model\n  domain: {}\n  schedule: {}\n  reads: {}\n  must-writes: {}\n  may-writes: {}\n  flow: {}\n  anti/output: {}",
        m.domain, m.schedule, m.reads, m.must_writes, m.may_writes, d.flow, d.memory
    );
    // SAFETY: as above.
    unsafe { tessel_dialects::tesselEmitRemark(loc, string_ref(&text)) };
    Ok(())
}
