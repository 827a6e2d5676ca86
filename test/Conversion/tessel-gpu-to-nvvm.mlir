// The named lowering pipelines on a hand-written launch.
// RUN: tessel-opt %s --tessel-gpu-to-nvvm="chip=sm_80" | FileCheck %s --check-prefix=NVVM
// RUN: tessel-opt %s --pass-pipeline='builtin.module(tessel-gpu-to-rocdl{chip=gfx90a})' | FileCheck %s --check-prefix=ROCDL
// RUN: not tessel-opt %s --tessel-gpu-to-nvvm="arch=sm_80" 2>&1 | FileCheck %s --check-prefix=BADOPT
// A named pipeline runs pass by pass: the IR after each of its passes, or after all of it.
// RUN: tessel-opt %s --tessel-gpu-to-nvvm=libdevice=none --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=EACH
// RUN: tessel-opt %s --tessel-gpu-to-nvvm=libdevice=none --mlir-print-ir-after=tessel-gpu-to-nvvm -o /dev/null 2>&1 | FileCheck %s --check-prefix=WHOLE
// EACH: IR Dump After gpu-kernel-outlining
// EACH: IR Dump After convert-gpu-to-nvvm
// EACH: gpu.module @tessel_kernels
// EACH: llvm.func @k0
// EACH: IR Dump After gpu-to-llvm
// EACH: IR Dump After gpu-module-to-binary
// EACH: gpu.binary @tessel_kernels
// WHOLE-NOT: IR Dump After gpu-kernel-outlining
// WHOLE: IR Dump After tessel-gpu-to-nvvm
// WHOLE-NEXT: module
// WHOLE: gpu.binary @tessel_kernels
// WHOLE-NOT: IR Dump

// NVVM: llvm.func @sqrt_all(
// NVVM: gpu.launch_func <%{{.*}} : !llvm.ptr> @tessel_kernels::@k0
// NVVM: llvm.call @mgpuStreamSynchronize
// libdevice takes its IEEE sqrt path (C semantics), not sqrt.approx.f32.
// NVVM: gpu.binary @tessel_kernels [#gpu.object<#nvvm.target<{{.*}}chip = "sm_80"{{.*}}assembly = "{{.*}}.target sm_80{{.*}}.visible .entry k0{{.*}}sqrt.rn.f32
// ROCDL: gpu.binary @tessel_kernels [#gpu.object<#rocdl.target<{{.*}}chip = "gfx90a"{{.*}}k0:{{.*}}s_endpgm
// BADOPT: error: 'tessel-gpu-to-nvvm' has no option 'arch' (valid: chip, opt-level, format, libdevice, debug)

module attributes {gpu.container_module} {
  func.func @sqrt_all(%a: memref<256xf32>) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %d = gpu.alloc () : memref<256xf32>
    gpu.memcpy %d, %a : memref<256xf32>, memref<256xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
               module(@tessel_kernels) function(@k0) {
      %v = memref.load %d[%tx] : memref<256xf32>
      %r = math.sqrt %v : f32
      memref.store %r, %d[%tx] : memref<256xf32>
      gpu.terminator
    }
    gpu.memcpy %a, %d : memref<256xf32>, memref<256xf32>
    gpu.dealloc %d : memref<256xf32>
    return
  }
}
