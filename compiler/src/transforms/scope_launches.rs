//! `tessel-scope-launches` (ScopeLaunches): gives the stack back after every host
//! `gpu.launch_func` that is not in its function's entry block: `llvm.intr.stacksave`
//! before it, `llvm.intr.stackrestore` after it. Translated to LLVM IR, a launch builds
//! its argument arrays with `alloca` where it stands; in a loop, each iteration took new
//! stack and kept it until the function returned, so a host loop of 30,000 launches
//! overflowed an 8 MB stack (random program seed 1916). The arrays are read when the
//! kernel is launched (as `cuLaunchKernel` and `hipModuleLaunchKernel` read theirs), so
//! they are dead after the call, also for an asynchronous launch. A launch in the entry
//! block runs once per call and is left alone. (`memref.alloca_scope` would say the same,
//! but its lowering cannot give an `!gpu.async.token` result.)
//!
//! Precondition: kernels outlined (`gpu.launch_func`); it is the last pass of the
//! device preparation that heads the lowering pipelines. Spec: ARCHITECTURE.md "IR at
//! each step", step 8 (conversion passes).
//!
//! ```mlir
//! ^bb1:
//!   %t = gpu.launch_func async [%d] @m::@k blocks in (...) threads in (...) args(...)
//! // =>
//! ^bb1:
//!   %sp = llvm.intr.stacksave : !llvm.ptr
//!   %t = gpu.launch_func async [%d] @m::@k blocks in (...) threads in (...) args(...)
//!   llvm.intr.stackrestore %sp : !llvm.ptr
//! ```

use crate::mlir::{children, op_name, string_ref};
use crate::registry::Options;
use mlir_sys::*;

pub fn run(op: MlirOperation, _options: &Options) -> Result<(), String> {
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe { visit(op) };
    Ok(())
}

unsafe fn visit(op: MlirOperation) {
    if unsafe { op_name(op) } == "gpu.module" {
        return;
    }
    for c in unsafe { children(op) } {
        unsafe { visit(c) };
    }
    if unsafe { op_name(op) } == "gpu.launch_func" && !unsafe { in_entry_block(op) } {
        unsafe { bracket(op) };
    }
}

/// Whether `op` stands in the first block of the region that holds it, directly in a
/// function (not nested in a loop or another region).
unsafe fn in_entry_block(op: MlirOperation) -> bool {
    unsafe {
        let block = mlirOperationGetBlock(op);
        let region = mlirBlockGetParentRegion(block);
        let parent = mlirOperationGetParentOperation(op);
        let function = matches!(op_name(parent).as_str(), "func.func" | "llvm.func");
        function && mlirRegionGetFirstBlock(region).ptr == block.ptr
    }
}

/// Saves the stack pointer before `launch` and restores it after.
unsafe fn bracket(launch: MlirOperation) {
    unsafe {
        let loc = mlirOperationGetLocation(launch);
        let ptr = mlirLLVMPointerTypeGet(mlirLocationGetContext(loc), 0);
        let mut save = mlirOperationStateGet(string_ref("llvm.intr.stacksave"), loc);
        mlirOperationStateAddResults(&mut save, 1, &ptr);
        let save = mlirOperationCreate(&mut save);
        let block = mlirOperationGetBlock(launch);
        mlirBlockInsertOwnedOperationBefore(block, launch, save);
        let sp = mlirOperationGetResult(save, 0);
        let mut restore = mlirOperationStateGet(string_ref("llvm.intr.stackrestore"), loc);
        mlirOperationStateAddOperands(&mut restore, 1, &sp);
        mlirBlockInsertOwnedOperationAfter(block, launch, mlirOperationCreate(&mut restore));
    }
}
