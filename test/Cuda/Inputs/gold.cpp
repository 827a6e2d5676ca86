// Host C++ of a CUDA program in its own file (the CPU reference), built by clang++ with
// the CUDA headers on the include path.
#include <cuda_runtime.h>

extern "C" unsigned bits_gold(unsigned x) { return __builtin_popcount(x) + __builtin_clz(x | 1); }

extern "C" int device_sms() {
  int n = 0;
  return cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess ? n : -1;
}
