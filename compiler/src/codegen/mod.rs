//! Printing MLIR from the SCoP tree, and turning MLIR into PTX, AMDGCN and host code.

pub mod affine;
pub mod gpu;
pub mod text;
