"""Differential check of the GPU mapping without a GPU.

For each kernel of the suite, the program's printed arrays must match those of the
program built by clang alone (relative tolerance 1e-9 for double, 1e-5 for float, exact
for integers; and one unit in the last printed digit, which a value within the
tolerance still differs by where it straddles a rounding boundary of the print:
tesselc contracts `a * b + c` into one fma in the kernels, as C allows, where clang's
x86-64 build rounds twice). The whole program is built by `tesselc prog.c -o prog` and run on the sim
device (TESSEL_DEVICE=sim), which also fails a run on any memory error or conflict.
Prints one line per kernel and 'N passed, M failed'.

usage: differential.py [--mode=sim] [--tesselc=FLAG ...] KERNEL_DIR [KERNEL.c ...]
                       [-- extra C flags]
  --tesselc=FLAG: a flag for tesselc only (`--tesselc=--passes=tessel-schedule`)
       differential.py --numdiff EXPECTED GOT [--float]   (compare two outputs' numbers)
"""
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise RuntimeError("$ " + " ".join(cmd) + "\n" + p.stdout[-2000:] + p.stderr[-2000:])
    return p


NUMBER = r"-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf"


def numbers(text):
    return [float(x) for x in re.findall(NUMBER, text)]


def last_digit(token):
    """One unit in the last digit `token` prints (0 for an integer)."""
    m = re.fullmatch(r"-?\d*\.(\d*)(?:[eE]([-+]?\d+))?", token)
    if not m:
        return 0.0
    return 10.0 ** (int(m.group(2) or 0) - len(m.group(1)))


def check(kdir, path, flags, own=()):
    name = os.path.basename(path)
    src = open(path).read()
    with tempfile.TemporaryDirectory() as t:
        cflags = ["-I", kdir, *flags]
        ref = os.path.join(t, "ref")
        run(["clang-22", "-O0", "-w", *cflags, path, "-lm", "-o", ref])
        want = subprocess.run([ref], capture_output=True, text=True, timeout=300).stderr
        exe = os.path.join(t, "tessel")
        run(["tesselc", path, *cflags, *own, "-o", exe])
        p = subprocess.run([exe], capture_output=True, text=True, timeout=600,
                           env={**os.environ, "TESSEL_DEVICE": "sim"})
        if p.returncode != 0:
            return name, "exit status %d: %s" % (p.returncode, p.stderr[-600:])
        return compare(name, src, want, p.stderr)


def compare(name, src, want, got):
    tokens = re.findall(NUMBER, want)
    a, b = [float(x) for x in tokens], numbers(got)
    if len(a) != len(b) or not a:
        return name, f"printed {len(b)} numbers, clang's program {len(a)}"
    tol = 1e-5 if "float" in src or "DATA_TYPE float" in src else 1e-9
    for i, (x, y) in enumerate(zip(a, b)):
        # Within the tolerance, two values may still print one digit apart where they
        # straddle a boundary of the printed precision: 0.0078125 prints 0.007813, and
        # its fma-contracted value a rounding below it 0.007812.
        if x != y and abs(x - y) > tol * max(1.0, abs(x)) + last_digit(tokens[i]):
            return name, f"value {i}: {y} instead of {x}"
    return name, None


def main():
    args = sys.argv[1:]
    if args and args[0] == "--numdiff":
        src = "float" if "--float" in args else ""
        _, err = compare(args[2], src, open(args[1]).read(), open(args[2]).read())
        print(f"numdiff: {err}" if err else "numdiff: same numbers")
        sys.exit(1 if err else 0)
    if args and args[0].startswith("--mode="):
        mode = args.pop(0).split("=", 1)[1]
        if mode != "sim":
            sys.exit(f"differential.py: unknown mode '{mode}' (sim is the only one)")
    own = []
    while args and args[0].startswith("--tesselc="):
        own.append(args.pop(0).split("=", 1)[1])
    flags = []
    if "--" in args:
        flags = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    kdir = args[0]
    files = args[1:] or sorted(os.path.join(kdir, f) for f in os.listdir(kdir) if f.endswith(".c"))
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        futs = {ex.submit(check, kdir, f, flags, own): f for f in files}
        for fut in concurrent.futures.as_completed(futs):
            try:
                name, err = fut.result()
            except Exception as e:  # a tool failed
                name, err = os.path.basename(futs[fut]), str(e)
            if err:
                failed += 1
                print(f"FAIL {name}: {err}")
            else:
                passed += 1
                print(f"ok   {name}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
