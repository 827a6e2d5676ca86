//! Host code in process: the host module (the `llvm` dialect after the lowering
//! pipeline) translated to LLVM IR, optimized at the `-O` level by LLVM's pass builder
//! and emitted by a TargetMachine, as `clang -c -fPIC -O<n>` would, without a
//! subprocess or a temporary file (ARCHITECTURE.md: host objects through inkwell).
//!
//! The target is the machine's triple with its generic CPU (`x86-64` on x86), never the
//! host CPU's features: an object must not depend on the machine that built it, so that
//! builds are reproducible across machines and run anywhere the triple runs.

use inkwell::context::{AsContextRef, Context};
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine,
};
use inkwell::OptimizationLevel;

/// What [`emit`] produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// A relocatable ELF object.
    Object,
    /// The same as assembly text.
    Assembly,
}

/// Runs `f` on the LLVM IR of `m` (in a fresh LLVM context).
fn with_llvm_module<R>(
    m: &melior::ir::Module<'_>,
    f: impl FnOnce(&inkwell::module::Module<'_>) -> Result<R, String>,
) -> Result<R, String> {
    let ctx = Context::create();
    // SAFETY: the MLIR module and the LLVM context are alive for the call; the returned
    // module belongs to `ctx`, which outlives it (dropped after it, below).
    let raw = unsafe {
        mlir_sys::mlirTranslateModuleToLLVMIR(
            m.as_operation().to_raw(),
            (&ctx).as_ctx_ref() as mlir_sys::LLVMContextRef,
        )
    };
    if raw.is_null() {
        return Err("cannot translate the host module to LLVM IR".into());
    }
    // SAFETY: a module just created in `ctx`; the wrapper disposes of it once.
    let module = unsafe { inkwell::module::Module::new(raw as _) };
    let r = f(&module);
    drop(module);
    r
}

/// The host module as LLVM IR text (`--emit=llvm`).
pub fn llvm_ir(m: &melior::ir::Module<'_>) -> Result<String, String> {
    with_llvm_module(m, |module| Ok(module.print_to_string().to_string()))
}

/// The host module optimized at level `opt` (0 to 3) and compiled for this machine's
/// triple, as an object or as assembly.
pub fn emit(m: &melior::ir::Module<'_>, opt: u8, form: Form) -> Result<Vec<u8>, String> {
    Target::initialize_native(&InitializationConfig::default())
        .map_err(|e| format!("cannot initialize LLVM's host target: {e}"))?;
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple).map_err(|e| e.to_string())?;
    let cpu = match triple.as_str().to_str().unwrap_or("") {
        t if t.starts_with("x86_64") => "x86-64",
        _ => "generic",
    };
    let level = match opt {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    };
    let tm = target
        .create_target_machine(&triple, cpu, "", level, RelocMode::PIC, CodeModel::Default)
        .ok_or_else(|| format!("LLVM has no target machine for '{triple}'"))?;
    with_llvm_module(m, |module| {
        module.set_triple(&triple);
        module.set_data_layout(&tm.get_target_data().get_data_layout());
        module
            .run_passes(
                &format!("default<O{}>", opt.min(3)),
                &tm,
                PassBuilderOptions::create(),
            )
            .map_err(|e| format!("LLVM's optimizer failed on the host module: {e}"))?;
        let kind = match form {
            Form::Object => FileType::Object,
            Form::Assembly => FileType::Assembly,
        };
        tm.write_to_memory_buffer(module, kind)
            .map(|b| b.as_slice().to_vec())
            .map_err(|e| format!("LLVM cannot emit the host module: {e}"))
    })
}
