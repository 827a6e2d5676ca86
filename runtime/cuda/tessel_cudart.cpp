// The part of Tessel's CUDA runtime layer (runtime/src/cudart.rs) that needs the CUDA
// headers' struct layouts: tesselc compiles it with the same headers as the program and
// links it into every CUDA program it builds. The figures come from the device the
// runtime drives (the modelled GPU on sim) through __tessel_cuda_device_info.
#include <cuda_runtime_api.h>
#include <string.h>

extern "C" int __tessel_cuda_device_info(int device, char *name, size_t len, long long *out,
                                         size_t n);

namespace {
enum { SMS, CLOCK_KHZ, MAJOR, MINOR, SMEM_BLOCK, SMEM_SM, REGS_SM, THREADS_SM, L2_BYTES,
       BUS_BITS, MEM_KHZ, GLOBAL_BYTES, FIGURES };
}

static cudaError_t tessel_properties(cudaDeviceProp *p, int device) {
  if (!p)
    return cudaErrorInvalidValue;
  memset(p, 0, sizeof *p);
  long long f[FIGURES];
  if (__tessel_cuda_device_info(device, p->name, sizeof p->name, f, FIGURES) != FIGURES)
    return cudaErrorInvalidDevice;
  p->totalGlobalMem = (size_t)f[GLOBAL_BYTES];
  p->sharedMemPerBlock = 48 * 1024 < f[SMEM_BLOCK] ? 48 * 1024 : (size_t)f[SMEM_BLOCK];
  p->sharedMemPerBlockOptin = (size_t)f[SMEM_BLOCK];
  p->sharedMemPerMultiprocessor = (size_t)f[SMEM_SM];
  p->regsPerBlock = (int)(f[REGS_SM] < 65536 ? f[REGS_SM] : 65536);
  p->regsPerMultiprocessor = (int)f[REGS_SM];
  p->warpSize = 32;
  p->memPitch = (size_t)1 << 31;
  p->maxThreadsPerBlock = f[THREADS_SM] < 1024 ? (int)f[THREADS_SM] : 1024;
  p->maxThreadsDim[0] = p->maxThreadsDim[1] = p->maxThreadsPerBlock;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647;
  p->maxGridSize[1] = p->maxGridSize[2] = 65535;
  p->totalConstMem = 64 * 1024;
  p->major = (int)f[MAJOR];
  p->minor = (int)f[MINOR];
  p->multiProcessorCount = (int)f[SMS];
  p->maxThreadsPerMultiProcessor = (int)f[THREADS_SM];
  p->l2CacheSize = (int)f[L2_BYTES];
  p->memoryBusWidth = (int)f[BUS_BITS];
  p->clockRate = (int)f[CLOCK_KHZ];
  p->memoryClockRate = (int)f[MEM_KHZ];
  p->textureAlignment = 512;
  p->texturePitchAlignment = 32;
  p->deviceOverlap = 1;
  p->asyncEngineCount = 1;
  p->concurrentKernels = 1;
  p->unifiedAddressing = 1;
  p->canMapHostMemory = 1;
  p->computeMode = cudaComputeModeDefault;
  return cudaSuccess;
}

extern "C" cudaError_t cudaGetDeviceProperties_v2(cudaDeviceProp *p, int device) {
  return tessel_properties(p, device);
}

#undef cudaGetDeviceProperties
extern "C" cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int device) {
  return tessel_properties(p, device);
}

extern "C" cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device) {
  cudaDeviceProp p;
  cudaError_t e = tessel_properties(&p, device);
  if (e != cudaSuccess || !value)
    return e != cudaSuccess ? e : cudaErrorInvalidValue;
  switch (attr) {
  case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
  case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
  case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
  case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
  case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
  case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
  case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
  case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int)p.sharedMemPerBlock; break;
  case cudaDevAttrWarpSize: *value = p.warpSize; break;
  case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
  case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
  case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
  case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
  case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
  case cudaDevAttrComputeMode: *value = p.computeMode; break;
  case cudaDevAttrClockRate: *value = p.clockRate; break;
  case cudaDevAttrMemoryClockRate: *value = p.memoryClockRate; break;
  case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
  case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
  case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
  case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = (int)p.sharedMemPerMultiprocessor; break;
  case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int)p.sharedMemPerBlockOptin; break;
  case cudaDevAttrTotalConstantMemory: *value = (int)p.totalConstMem; break;
  case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; break;
  case cudaDevAttrUnifiedAddressing: *value = p.unifiedAddressing; break;
  case cudaDevAttrCanMapHostMemory: *value = p.canMapHostMemory; break;
  case cudaDevAttrAsyncEngineCount: *value = p.asyncEngineCount; break;
  case cudaDevAttrIntegrated: *value = 0; break;
  case cudaDevAttrEccEnabled: *value = 0; break;
  default: return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

extern "C" cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes) {
  cudaDeviceProp p;
  cudaError_t e = tessel_properties(&p, 0);
  if (free_bytes)
    *free_bytes = p.totalGlobalMem;
  if (total_bytes)
    *total_bytes = p.totalGlobalMem;
  return e;
}
