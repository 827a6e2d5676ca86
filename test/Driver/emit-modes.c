// Every --emit mode of tesselc on one kernel.
// RUN: tesselc %s --emit=mlir | FileCheck %s --check-prefix=MLIR
// RUN: tesselc %s --emit=gpu | FileCheck %s --check-prefix=GPU
// RUN: tesselc %s --emit=llvm | FileCheck %s --check-prefix=LLVM
// RUN: tesselc %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: tesselc %s --emit=ptx --offload-arch=sm_80 -O2 | FileCheck %s --check-prefix=PTX80
// RUN: tesselc %s --emit=amdgcn | FileCheck %s --check-prefix=AMD
// RUN: tesselc %s --emit=hsaco -o %t.hsaco && llvm-readobj --file-headers %t.hsaco | FileCheck %s --check-prefix=HSACO
// RUN: %if ptxas %{ tesselc %s --emit=cubin -o %t.cubin && llvm-readobj --file-headers %t.cubin | FileCheck %s --check-prefix=CUBIN %}
// RUN: tesselc %s -DSCALE=3.0 --emit=mlir | FileCheck %s --check-prefix=DEF
// RUN: tesselc %s --pipeline=mlir-upstream --emit=gpu | FileCheck %s --check-prefix=UPSTREAM

// MLIR-LABEL: func.func @scale(
// MLIR: tpoly.scop {
// MLIR: affine.for
// MLIR: arith.constant 2.0{{0*}}e+00 : f64
// GPU-LABEL: func.func @scale(
// GPU: gpu.alloc
// GPU: gpu.launch {{.*}} module(@tessel_kernels) function(@scale_k0)
// GPU: gpu.memcpy
// LLVM: define void @scale(
// LLVM: call ptr @mgpuModuleLoad
// PTX: .target sm_90
// PTX: .visible .entry scale_k0(
// PTX80: .target sm_80
// AMD: .amdgcn_target "amdgcn-amd-amdhsa--gfx942
// AMD: scale_k0:
// AMD: s_endpgm
// HSACO: Type: SharedObject
// HSACO: Machine: EM_AMDGPU
// CUBIN: Machine: EM_CUDA
// DEF: arith.constant 3.0{{0*}}e+00 : f64
// Upstream MLIR's route, with a copy in and out around its launch.
// UPSTREAM: gpu.memcpy
// UPSTREAM: gpu.launch {{.*}} module(@tessel_kernels) function(@scale_u0)
// UPSTREAM: gpu.memcpy

#ifndef SCALE
#define SCALE 2.0
#endif
void scale(int n, double A[1000]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = A[i] * SCALE;
#pragma endscop
}
