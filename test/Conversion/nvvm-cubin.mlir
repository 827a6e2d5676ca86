// The NVVM pipeline's `format=bin` finds ptxas where tesselc does (registry::ptxas:
// TESSEL_PTXAS, else the PyPI wheel), and embeds a cubin (an ELF image).
// REQUIRES: ptxas
// RUN: tessel-opt %S/tessel-gpu-to-nvvm.mlir --tessel-gpu-to-nvvm="chip=sm_80 format=bin" | FileCheck %s
// CHECK: gpu.binary @{{.*}}chip = "sm_80"{{.*}}bin = "\7FELF
