#!/usr/bin/env bash
# Installs everything Tessel needs to build and test, idempotently:
# Debian's LLVM/MLIR/clang/lld/polly 22 packages, the tools the isl and dialect builds use,
# ROCm device libraries (AMD math bitcode), and the PyPI wheels nvidia-cuda-nvcc-cu12
# (ptxas and libdevice.10.bc), nvidia-cuda-runtime-cu12 and nvidia-cuda-cccl-cu12 (the
# CUDA and CCCL headers that CUDA programs, `tesselc prog.cu`, are compiled against). Quick when everything is already
# there.
set -euo pipefail

PKGS=(llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22 libclang-22-dev lld-22
      libpolly-22-dev libzstd-dev autoconf automake libtool pkg-config cmake ninja-build make
      rocm-device-libs)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
if [ ${#missing[@]} -gt 0 ]; then
  echo "tessel-setup: installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
if ! $PY -c 'import nvidia.cuda_nvcc' 2>/dev/null; then
  echo "tessel-setup: installing the PyPI wheel nvidia-cuda-nvcc-cu12"
  $PY -m pip install -q --disable-pip-version-check nvidia-cuda-nvcc-cu12
fi
for w in cuda_runtime cuda_cccl; do
  if ! $PY -c "import nvidia.$w" 2>/dev/null; then
    echo "tessel-setup: installing the PyPI wheel nvidia-${w//_/-}-cu12"
    $PY -m pip install -q --disable-pip-version-check "nvidia-${w//_/-}-cu12"
  fi
done
NVCC_DIR=$($PY -c 'import nvidia.cuda_nvcc as m; print(list(m.__path__)[0])')
RUNTIME_DIR=$($PY -c 'import nvidia.cuda_runtime as m; print(list(m.__path__)[0])')

echo "tessel-setup: LLVM/MLIR 22      /usr/lib/llvm-22 ($(/usr/lib/llvm-22/bin/llvm-config --version))"
echo "tessel-setup: lit, FileCheck   /usr/lib/llvm-22/bin"
echo "tessel-setup: ptxas            $NVCC_DIR/bin/ptxas"
echo "tessel-setup: libdevice        $NVCC_DIR/nvvm/libdevice/libdevice.10.bc"
echo "tessel-setup: CUDA headers     $RUNTIME_DIR/include"
echo "tessel-setup: ROCm device libs $(dirname "$(dpkg -L rocm-device-libs | grep -m1 'ocml.bc$')")"
