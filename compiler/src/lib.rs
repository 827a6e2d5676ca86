//! Tessel: a polyhedral compiler from C loop nests to GPU kernels, on MLIR 22.
//!
//! The stages, in pipeline order: [`frontend`] (C to a [`scop::Scop`] tree), [`analysis`]
//! (isl model and dependences), [`codegen`] (affine and GPU MLIR, PTX, AMDGCN).

pub mod analysis;
pub mod codegen;
pub mod cuda;
pub mod diag;
pub mod estimate;
pub mod frontend;
pub mod host;
pub mod mlir;
pub mod output;
pub mod pipeline;
pub mod program;
pub mod rebuild;
pub mod registry;
pub mod scop;
pub mod simform;
pub mod subcommand;
pub mod transforms;
