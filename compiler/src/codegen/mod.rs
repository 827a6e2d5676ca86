//! Building MLIR from the SCoP tree (the affine form and the C entry points), and turning
//! MLIR into PTX, AMDGCN and host code.

pub mod affine;
pub mod build;
pub mod entry;
