#!/usr/bin/env python3
"""Compile-time benchmark: each kernel of the suite through `tesselc --emit=ptx` (the
frontend, the passes of the default pipeline, the NVVM lowering and PTX), the best of
--repeat runs each, then the median over the suite. Build a release tesselc first
(`cargo build --release -p tessel-tools --bin tesselc`); the issue's target is a median
of at most 0.45 s per kernel on the development machine.

With --autotune=model (issue 9's targets: at most 5 s per kernel with tuning, within 10%
of a build without it once the decisions are cached), each kernel is also built with
`tesselc --autotune=model` once with an empty decision cache (cold) and then --repeat
times with the cache it left (warm), alternating with the untuned builds; TESSEL_GPU
picks the model tuned for. The summary splits the kernels whose tuned PTX is the
untuned one (the rule's choices kept: the difference is the tuner's own time) from the
others (other kernels, which take their own time to build).

usage: compile-time.py [--tesselc PATH] [--repeat N] [--pipeline NAME] [--autotune=model] [KERNEL_DIR] [-- CFLAGS]
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    args = sys.argv[1:]
    tesselc = os.path.join(os.path.dirname(__file__), "..", "target", "release", "tesselc")
    repeat, pipeline, cflags, autotune = 3, "default", [], None
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
        elif flag.startswith("--autotune="):
            autotune = flag.split("=", 1)[1]
        else:
            sys.exit(f"compile-time.py: unknown flag {flag}\n{__doc__}")
    kdir = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "test", "kernels")
    if not os.path.exists(tesselc):
        sys.exit(f"compile-time.py: no {tesselc}; build a release tesselc first")
    times, tuned = {}, {}
    for f in sorted(os.listdir(kdir)):
        if not f.endswith(".c"):
            continue

        def build(flags, env=None, out=os.devnull):
            start = time.perf_counter()
            p = subprocess.run([tesselc, os.path.join(kdir, f), "-I", kdir, *cflags, *flags,
                                f"--pipeline={pipeline}", "--emit=ptx", "-o", out],
                               capture_output=True, text=True, env=env)
            took = time.perf_counter() - start
            if p.returncode != 0:
                sys.exit(f"compile-time.py: {f} failed:\n{p.stderr[-2000:]}")
            return took

        if autotune is None:
            times[f] = min(build([]) for _ in range(repeat))
            print(f"{f:24s} {times[f]:7.3f} s", flush=True)
            continue
        with tempfile.TemporaryDirectory() as d:
            env = dict(os.environ, TESSEL_AUTOTUNE_CACHE=os.path.join(d, "cache"))
            flags = [f"--autotune={autotune}"]
            cold = build(flags, env)
            # Untuned and warm builds alternate, so that a change in the machine's load
            # weighs on both alike (one after the other, the same build differed by
            # 25%).
            untuned, warm = [], []
            ptx = [os.path.join(d, "untuned.ptx"), os.path.join(d, "tuned.ptx")]
            for _ in range(repeat):
                untuned.append(build([], out=ptx[0]))
                warm.append(build(flags, env, out=ptx[1]))
            # Whether the tuner kept the rule's choices (the same kernels): the warm
            # build then differs from the untuned one by the tuner's own time alone.
            same = open(ptx[0]).read() == open(ptx[1]).read()
        times[f] = min(untuned)
        warm = min(warm)
        tuned[f] = (cold, warm, same)
        print(f"{f:24s} {times[f]:7.3f} s  tuned: cold {cold:7.3f} s, warm {warm:7.3f} s "
              f"({warm / times[f]:.2f}x, {'same' if same else 'other'} PTX)", flush=True)
    vals = sorted(times.values())
    print(f"{len(vals)} kernels: median {statistics.median(vals):.3f} s, "
          f"mean {statistics.mean(vals):.3f} s, max {vals[-1]:.3f} s ({max(times, key=times.get)})")
    if tuned:
        colds = {f: c for f, (c, _, _) in tuned.items()}
        print(f"--autotune={autotune}: cold median {statistics.median(colds.values()):.3f} s, "
              f"max {max(colds.values()):.3f} s ({max(colds, key=colds.get)})")
        for what, pick in [("all kernels", lambda s: True), ("the same PTX", lambda s: s),
                           ("other PTX", lambda s: not s)]:
            ratios = {f: w / times[f] for f, (_, w, s) in tuned.items() if pick(s)}
            if ratios:
                worst = max(ratios, key=ratios.get)
                print(f"  warm over untuned, {what} ({len(ratios)}): median "
                      f"{statistics.median(ratios.values()):.2f}x, max {ratios[worst]:.2f}x "
                      f"({worst})")

if __name__ == "__main__":
    main()
