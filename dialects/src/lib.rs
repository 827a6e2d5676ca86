//! Tessel's custom dialects, `tpoly` (polyhedral level: static control parts, share hints,
//! tile sizes, mappings) and `tgpu` (GPU level: padded shared buffers, cooperative tile
//! copies). The operations are defined in ODS under `dialects/include`; this crate links
//! the library CMake builds from them and registers the dialects with a registry.

use melior::dialect::{DialectHandle, DialectRegistry};

extern "C" {
    fn mlirGetDialectHandle__tpoly__() -> mlir_sys::MlirDialectHandle;
    fn mlirGetDialectHandle__tgpu__() -> mlir_sys::MlirDialectHandle;
}

/// The `tpoly` dialect.
pub fn tpoly() -> DialectHandle {
    unsafe { DialectHandle::from_raw(mlirGetDialectHandle__tpoly__()) }
}

/// The `tgpu` dialect.
pub fn tgpu() -> DialectHandle {
    unsafe { DialectHandle::from_raw(mlirGetDialectHandle__tgpu__()) }
}

/// Adds both dialects to `registry`.
pub fn register(registry: &DialectRegistry) {
    tpoly().insert_dialect(registry);
    tgpu().insert_dialect(registry);
}
