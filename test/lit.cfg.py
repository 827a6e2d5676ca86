# Lit configuration for Tessel's FileCheck suite. `cargo test` runs it through
# tools/tests/lit.rs, which points TESSEL_BIN_DIR at the freshly built tools.
import os
import shutil
import subprocess

import lit.formats

config.name = "Tessel"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".c", ".cu", ".test"]
config.excludes = ["Inputs", "utils", "lit.cfg.py", "lit.local.cfg", "README.md"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(
    os.environ.get("TESSEL_LIT_OUT", os.path.join(os.path.dirname(__file__), "..", "target", "lit")))

bin_dir = os.environ.get("TESSEL_BIN_DIR")
if not bin_dir:
    lit_config.fatal("set TESSEL_BIN_DIR to the directory holding tessel-opt and tesselc (cargo test does)")
llvm_bin = "/usr/lib/llvm-22/bin"
config.environment["PATH"] = os.pathsep.join([bin_dir, llvm_bin, config.environment.get("PATH", os.environ["PATH"])])
for var in ["HOME", "TESSEL_CUDA_NVCC_DIR", "TESSEL_CUDA_RUNTIME_DIR", "TESSEL_PTXAS", "LIBCLANG_PATH", "TESSEL_SIM_THREADS"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

kernels = os.path.join(os.path.dirname(__file__), "kernels")
config.substitutions.append(("%kernels", kernels))


def find_ptxas():
    if os.environ.get("TESSEL_PTXAS"):
        return os.environ["TESSEL_PTXAS"]
    try:
        d = subprocess.run(["python3", "-c", "import nvidia.cuda_nvcc as m; print(list(m.__path__)[0])"],
                           capture_output=True, text=True).stdout.strip()
    except OSError:
        return None
    p = os.path.join(d, "bin", "ptxas") if d else ""
    return p if p and os.path.exists(p) else None


ptxas = find_ptxas()
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
else:
    lit_config.note("ptxas not found: PTX is not checked by ptxas (run tools/setup.sh)")

# A CUDA driver (a machine with an NVIDIA GPU): tests of what fails without one are
# unsupported there.
import ctypes.util
if ctypes.util.find_library("cuda"):
    config.available_features.add("cuda-driver")

# The runtime library programs built from `tesselc -c` objects link with (`cargo test`
# leaves it in deps/ under a hashed name).
def find_runtime():
    p = os.path.join(bin_dir, "libtessel_runtime.a")
    if os.path.exists(p):
        return p
    deps = os.path.join(bin_dir, "deps")
    libs = [os.path.join(deps, f) for f in os.listdir(deps)
            if f.startswith("libtessel_runtime-") and f.endswith(".a")] if os.path.isdir(deps) else []
    return max(libs, key=os.path.getmtime) if libs else p


config.substitutions.append(("%tessel_runtime", find_runtime()))

# CMake and Ninja (tools/setup.sh installs them) for the tessel_compile_kernels project.
if shutil.which("cmake") and shutil.which("ninja"):
    config.available_features.add("cmake-ninja")
else:
    lit_config.note("cmake or ninja not found: the CMake project test is skipped (run tools/setup.sh)")
