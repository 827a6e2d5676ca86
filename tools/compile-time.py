#!/usr/bin/env python3
"""Compile-time benchmark: each kernel of the suite through `tesselc --emit=ptx` (the
frontend, the passes of the default pipeline, the NVVM lowering and PTX), the best of
--repeat runs each, then the median over the suite. Build a release tesselc first
(`cargo build --release -p tessel-tools --bin tesselc`); the issue's target is a median
of at most 0.45 s per kernel on the development machine.

usage: compile-time.py [--tesselc PATH] [--repeat N] [--pipeline NAME] [KERNEL_DIR] [-- CFLAGS]
"""
import os
import statistics
import subprocess
import sys
import time


def main():
    args = sys.argv[1:]
    tesselc = os.path.join(os.path.dirname(__file__), "..", "target", "release", "tesselc")
    repeat, pipeline, cflags = 3, "default", []
    if "--" in args:
        cflags = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    while args and args[0].startswith("--"):
        flag = args.pop(0)
        if flag == "--tesselc":
            tesselc = args.pop(0)
        elif flag == "--repeat":
            repeat = int(args.pop(0))
        elif flag == "--pipeline":
            pipeline = args.pop(0)
        else:
            sys.exit(f"compile-time.py: unknown flag {flag}\n{__doc__}")
    kdir = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "test", "kernels")
    if not os.path.exists(tesselc):
        sys.exit(f"compile-time.py: no {tesselc}; build a release tesselc first")
    times = {}
    for f in sorted(os.listdir(kdir)):
        if not f.endswith(".c"):
            continue
        best = None
        for _ in range(repeat):
            start = time.perf_counter()
            p = subprocess.run([tesselc, os.path.join(kdir, f), "-I", kdir, *cflags,
                                f"--pipeline={pipeline}", "--emit=ptx", "-o", os.devnull],
                               capture_output=True, text=True)
            took = time.perf_counter() - start
            if p.returncode != 0:
                sys.exit(f"compile-time.py: {f} failed:\n{p.stderr[-2000:]}")
            best = took if best is None else min(best, took)
        times[f] = best
        print(f"{f:24s} {best:7.3f} s", flush=True)
    vals = sorted(times.values())
    print(f"{len(vals)} kernels: median {statistics.median(vals):.3f} s, "
          f"mean {statistics.mean(vals):.3f} s, max {vals[-1]:.3f} s ({max(times, key=times.get)})")


if __name__ == "__main__":
    main()
