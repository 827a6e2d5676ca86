#!/usr/bin/env python3
"""sim's speed on the kernel suite: each kernel built with tesselc (SMALL_DATASET unless
CFLAGS say otherwise), run on sim with TESSEL_SIM_THREADS=1 (one core) and with every
core, the best of --repeat runs each; then run once more with TESSEL_PROFILE to count
what sim executed (thread and warp instructions, launches). Prints one row per kernel
and the totals, with the rates (million thread instructions per second of one core).

Issue 8's target: the suite on sim with the caches and the parallel blocks takes no
longer than before the caches (commit f3fecbc). To compare with an older tree, build its
binaries with its own tesselc (`--keep DIR` leaves them there) and time them with
`--prebuilt DIR`: a binary carries the runtime (sim) it was linked with.

usage: sim-speed.py [--tesselc PATH | --prebuilt DIR] [--keep DIR] [--repeat N]
                    [--threads LIST] [KERNEL_DIR] [NAME...] [-- CFLAGS]
  LIST: comma-separated thread counts, `auto` for every core (default 1,auto)
  NAME: kernels to run (default: every KERNEL_DIR/*.c; with --prebuilt, those it holds)
"""
import glob
import json
import os
import subprocess
import sys
import tempfile
import time


def fail(msg):
    print(f"error: sim-speed.py: {msg}", file=sys.stderr)
    sys.exit(1)


def launches(path):
    """The launches of a TESSEL_PROFILE file (a JSON array; empty when no kernel ran)."""
    with open(path) as f:
        text = f.read()
    return json.loads(text) if text.strip() else []


def main():
    args = sys.argv[1:]
    here = os.path.dirname(os.path.abspath(__file__))
    tesselc = os.path.join(here, "..", "target", "release", "tesselc")
    kernel_dir = os.path.join(here, "..", "test", "kernels")
    repeat, threads, prebuilt, keep, cflags = 3, ["1", "auto"], None, None, ["-DSMALL_DATASET"]
    if "--" in args:
        cflags = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    while args and args[0].startswith("--"):
        flag = args.pop(0)
        if not args:
            fail(f"{flag} needs a value")
        value = args.pop(0)
        if flag == "--tesselc":
            tesselc = value
        elif flag == "--prebuilt":
            prebuilt = value
        elif flag == "--keep":
            keep = value
        elif flag == "--repeat":
            repeat = int(value)
        elif flag == "--threads":
            threads = value.split(",")
            if not all(t == "auto" or t.isdigit() and int(t) > 0 for t in threads):
                fail(f"--threads {value}: expected counts or 'auto', comma-separated")
        else:
            fail(f"unknown flag {flag}")
    if args and os.path.isdir(args[0]):
        kernel_dir = args.pop(0)
    names = args
    if not names:
        if prebuilt:
            names = sorted(n for n in os.listdir(prebuilt) if os.access(os.path.join(prebuilt, n), os.X_OK))
        else:
            names = sorted(os.path.basename(p)[:-2] for p in glob.glob(os.path.join(kernel_dir, "*.c")))
    if not names:
        fail("no kernels")
    bindir = prebuilt or keep or tempfile.mkdtemp(prefix="sim-speed-")
    os.makedirs(bindir, exist_ok=True)
    env = dict(os.environ, TESSEL_DEVICE="sim")
    rows, totals = [], {t: 0.0 for t in threads}
    sums = [0, 0, 0]
    for n in names:
        exe = os.path.join(bindir, n)
        if not prebuilt:
            r = subprocess.run([tesselc, os.path.join(kernel_dir, n + ".c"), "-I", kernel_dir, *cflags, "-o", exe],
                               capture_output=True, text=True)
            if r.returncode:
                print(f"{n}: build failed: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}")
                continue
        elif not os.path.exists(exe):
            fail(f"{exe}: no such program")
        times = {}
        for t in threads:
            e = dict(env)
            if t != "auto":
                e["TESSEL_SIM_THREADS"] = t
            else:
                e.pop("TESSEL_SIM_THREADS", None)
            best = float("inf")
            for _ in range(repeat):
                start = time.perf_counter()
                r = subprocess.run([exe], capture_output=True, env=e)
                best = min(best, time.perf_counter() - start)
                if r.returncode:
                    fail(f"{n} failed on sim (status {r.returncode}): {r.stderr.decode()[-300:]}")
            times[t] = best
            totals[t] += best
        with tempfile.NamedTemporaryFile(suffix=".json") as prof:
            subprocess.run([exe], capture_output=True, env=dict(env, TESSEL_PROFILE=prof.name), check=True)
            ls = launches(prof.name)
        counts = [sum(x["instructions"] for x in ls), sum(x["warp_instructions"] for x in ls), len(ls)]
        sums = [a + b for a, b in zip(sums, counts)]
        rows.append((n, times, counts))
        cols = " ".join(f"{times[t]:8.3f}" for t in threads)
        print(f"{n:16s} {cols} {counts[0] / 1e6:9.1f} {counts[1] / 1e6:8.2f} {counts[2]:7d}", flush=True)
    head = " ".join(f"{'t=' + t + ' s':>8s}" for t in threads)
    print(f"{'(columns)':16s} {head} {'Minstr':>9s} {'Mwarp':>8s} {'launch':>7s}")
    cols = " ".join(f"{totals[t]:8.2f}" for t in threads)
    print(f"{'TOTAL':16s} {cols} {sums[0] / 1e6:9.1f} {sums[1] / 1e6:8.2f} {sums[2]:7d}")
    for t in threads:
        if totals[t] > 0:
            print(f"threads={t}: {totals[t]:.2f} s, {sums[0] / totals[t] / 1e6:.0f} M thread instructions/s, "
                  f"{sums[1] / totals[t] / 1e6:.1f} M warp instructions/s")


if __name__ == "__main__":
    main()
