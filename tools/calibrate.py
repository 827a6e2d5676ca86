#!/usr/bin/env python3
"""Calibrates sim against a real GPU: sim's figures beside Nsight Compute's, per launch.

The programs are built where tesselc runs and measured where the GPU is, which may be
two machines (the built programs need only a driver there, not LLVM or the CUDA SDK):

    tools/calibrate.py build --dir D [--gpu h100] [--arch sm_90] [--suffix S]
        [--flag=TESSELC_FLAG ...] [-I DIR] [-D NAME] PROGRAM.c|PROGRAM.cu...
    tools/calibrate.py measure --dir D [--launches N] [--no-ncu | --only-ncu]  # on the GPU
    tools/calibrate.py table --dir D [--out table.md]

`build` builds each program with tesselc into D/bin/NAME (NAME: the file's name, plus
`--suffix`, so one source can be built with several flags), runs it on sim
(TESSEL_DEVICE=sim, TESSEL_GPU=<gpu>) and keeps its output (D/sim/NAME.out) and profile
(D/sim/NAME.json). `measure` runs each program on the GPU (TESSEL_DEVICE=cuda), keeps its
output and profile (the kernel times measured with CUDA events), compares its printed
numbers with sim's (relative tolerance 1e-5 for float programs, 1e-9 otherwise; GPU code
contracts multiply-adds, so the last bits may differ), and runs it under ncu
(`--csv --page raw`, the first N kernels, default 20; ncu's default cache control
flushes the caches before each kernel, as sim starts each launch cold, and its default
clock control locks the clocks at base). `table` writes one Markdown table: the
programs' results on the GPU, then per launch sim / ncu for each metric, then the
geometric mean of each ratio over the launches (what the model's constants in
runtime/src/gpus.rs are scaled by). With programs and no subcommand, the three steps
run in a temporary directory on one machine.

Without a GPU, the parsing and the table are checked on stored outputs:

    tools/calibrate.py --ncu-csv ncu.csv --sim-profile sim.json [--out table.md]

where ncu.csv is `ncu --csv --page raw --metrics <METRICS>` output and sim.json a
TESSEL_PROFILE file.
"""

import argparse
import csv
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

# ncu metric -> (what it is, how to read it from a sim launch)
METRICS = [
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "load sectors",
     lambda l: l["global_load_sectors"]),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "store sectors",
     lambda l: l["global_store_sectors"]),
    ("l1tex__t_sector_hit_rate.pct", "L1 hit %",
     lambda l: None if l.get("l1_hit_rate") is None else 100.0 * l["l1_hit_rate"]),
    ("lts__t_sector_hit_rate.pct", "L2 hit %",
     lambda l: None if l.get("l2_hit_rate") is None else 100.0 * l["l2_hit_rate"]),
    ("dram__bytes_read.sum", "DRAM read B", lambda l: l.get("dram_read_bytes")),
    ("dram__bytes_write.sum", "DRAM write B", lambda l: l.get("dram_write_bytes")),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "shared ld wavefronts",
     lambda l: l.get("shared_load_wavefronts")),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "shared st wavefronts",
     lambda l: l.get("shared_store_wavefronts")),
    ("launch__registers_per_thread", "registers", lambda l: l.get("registers_per_thread")),
    ("sm__maximum_warps_per_active_cycle_pct", "occupancy %",
     lambda l: None if l.get("occupancy") is None else 100.0 * l["occupancy"]),
    ("smsp__inst_executed.sum", "warp instructions", lambda l: l.get("warp_instructions")),
    ("gpu__time_duration.sum", "time us",
     lambda l: None if l.get("estimated_time_s") is None else l["estimated_time_s"] * 1e6),
    # Requests, for sectors per request on the hardware (ncu's counts of the loads and
    # stores the compiled code executes, which may be fewer than sim's: LLVM removes
    # loads of values it already holds).
    ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "load requests",
     lambda l: l.get("global_load_requests")),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "store requests",
     lambda l: l.get("global_store_requests")),
]

# Lines left out of the comparison: a CUDA program's own timer differs from run to run,
# and the GPU's name (cudaGetDeviceProperties) differs from sim's model's.
TIMER = re.compile(r"time|elapsed|\bms\b|\bsec|NVIDIA", re.IGNORECASE)

# Units ncu may print, to the unit the table uses (bytes, microseconds, percent).
SCALE = {
    "byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9,
    "nsecond": 1e-3, "usecond": 1, "msecond": 1e3, "second": 1e6, "ns": 1e-3, "us": 1,
    "ms": 1e3, "%": 1, "sector": 1, "": 1, "inst": 1, "register/thread": 1,
    "warp": 1, "Kinst": 1e3, "Minst": 1e6, "Ginst": 1e9, "Ksector": 1e3, "Msector": 1e6,
}


def fail(msg):
    print(f"error: {msg}", file=sys.stderr)
    sys.exit(1)


def number(text, unit):
    t = text.strip().replace(",", "")
    if t in ("", "n/a", "N/A"):
        return None
    try:
        v = float(t)
    except ValueError:
        return None
    if unit not in SCALE:
        fail(f"ncu output: unknown unit '{unit}'")
    return v * SCALE[unit]


def parse_ncu_csv(text):
    """Launches of an `ncu --csv --page raw` report: [(kernel name, {metric: value})]."""
    # ncu prints its own lines (==PROF== ...) before the table; the table starts at the
    # header row, whose first cell is "ID".
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        fail("ncu output: no CSV header (expected a line starting with \"ID\")")
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    if len(rows) < 2:
        fail("ncu output: no unit row after the header")
    header, units = rows[0], rows[1]
    if "Kernel Name" not in header:
        fail("ncu output: no 'Kernel Name' column")
    name_col = header.index("Kernel Name")
    launches = []
    for r in rows[2:]:
        if not r or len(r) != len(header):
            continue
        values = {}
        for m, _, _ in METRICS:
            if m in header:
                c = header.index(m)
                values[m] = number(r[c], units[c] if c < len(units) else "")
        # ncu names the kernel with its parameter list when it has one: keep the name.
        launches.append((r[name_col].split("(")[0].strip(), values))
    return launches


def parse_sim_profile(text):
    try:
        launches = json.loads(text)
    except json.JSONDecodeError as e:
        fail(f"sim profile: {e}")
    if not isinstance(launches, list):
        fail("sim profile: expected a JSON array of launches")
    return launches


def ratio(a, b):
    if a is None or b is None:
        return None
    if b == 0:
        return 1.0 if a == 0 else None
    return a / b


def fmt(v):
    if v is None:
        return "-"
    if abs(v) >= 1e4:
        return f"{v:.3g}"
    return f"{v:.2f}" if v != int(v) else f"{int(v)}"


def table(ncu, sim, title, level=1):
    """Markdown: one row per launch pair, sim / ncu per metric, then geometric means."""
    if len(ncu) != len(sim):
        print(f"warning: {len(sim)} sim launches but {len(ncu)} ncu launches; "
              "pairing the first ones in order", file=sys.stderr)
    out = ["#" * level + f" {title}", "",
           "Each cell: sim / ncu (ratio). Geometric means over the launches where both "
           "are known and non-zero.", ""]
    out.append("| kernel | " + " | ".join(label for _, label, _ in METRICS) + " |")
    out.append("|---" * (len(METRICS) + 1) + "|")
    logs = {m: [] for m, _, _ in METRICS}
    for (kname, nv), s in zip(ncu, sim):
        # ncu names a C++ kernel as written (`ns::scale<double>`), sim by its mangled
        # name, which holds the identifier.
        ident = kname.split("<")[0].split("::")[-1].split()[-1] if kname else kname
        if s.get("kernel") != kname and ident not in (s.get("kernel") or ""):
            print(f"warning: launch order differs: sim '{s.get('kernel')}' beside ncu "
                  f"'{kname}'", file=sys.stderr)
        cells = []
        for m, _, get in METRICS:
            a, b = get(s), nv.get(m)
            r = ratio(a, b)
            if r is not None and r > 0:
                logs[m].append(math.log(r))
            cells.append(f"{fmt(a)} / {fmt(b)}" + (f" ({r:.2f})" if r is not None else ""))
        out.append(f"| {kname} | " + " | ".join(cells) + " |")
    out.append("")
    out.append("| metric | launches | geometric mean of sim / ncu | typical factor off |")
    out.append("|---|---|---|---|")
    for m, label, _ in METRICS:
        v = logs[m]
        g = f"{math.exp(sum(v) / len(v)):.3f}" if v else "-"
        # exp(mean |ln(sim / ncu)|): 1 when every launch agrees; over- and
        # underestimates do not cancel.
        off = f"{math.exp(sum(map(abs, v)) / len(v)):.3f}" if v else "-"
        out.append(f"| {label} (`{m}`) | {len(v)} | {g} | {off} |")
    return "\n".join(out) + "\n"


def run(cmd, env=None, cwd=None, timeout=None):
    r = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True,
                       timeout=timeout)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} failed (exit status {r.returncode}):\n{r.stderr[-2000:]}")
    return r


def numbers(text):
    """The numbers a program printed, without the lines [`TIMER`] matches."""
    kept, skip = [], False
    for l in text.splitlines():
        # A timer's value may come on the line after its label ("GPU Time in seconds:").
        skip, drop = bool(TIMER.search(l)) and l.rstrip().endswith(":"), skip or TIMER.search(l)
        if not drop:
            kept.append(l)
    text = "\n".join(kept)
    return [float(x) for x in
            re.findall(r"-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf", text)]


def same_numbers(want, got, tol):
    """None when the two outputs print the same numbers within `tol`, else why not."""
    a, b = numbers(want), numbers(got)
    if len(a) != len(b):
        return f"printed {len(b)} numbers, sim {len(a)}"
    worst = 0.0
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y or (math.isnan(x) and math.isnan(y)):
            continue
        err = abs(x - y) / max(1.0, abs(x))
        worst = max(worst, err)
        if err > tol:
            return f"value {i}: {y} instead of {x}"
    return None


def output_check(d, name, tolerance=None):
    """How the output of a run on the GPU compares with sim's."""
    want = read(os.path.join(d, "sim", name + ".out"))
    got = read(os.path.join(d, "gpu", name + ".out"))
    meta = json.loads(read(os.path.join(d, "sim", name + ".meta")))
    why = same_numbers(want, got, tolerance or meta["tolerance"])
    return "same as sim" if why is None else why


def programs_in(d):
    return sorted(os.listdir(os.path.join(d, "bin")))


def build(args):
    """Builds and runs on sim each program; one that fails is reported and left out."""
    tesselc = args.tesselc or shutil.which("tesselc") or "target/debug/tesselc"
    for sub in ("bin", "sim"):
        os.makedirs(os.path.join(args.dir, sub), exist_ok=True)
    failed = 0
    for src in args.programs:
        name = os.path.basename(src) + args.suffix
        exe = os.path.abspath(os.path.join(args.dir, "bin", name))
        flags = ([f"-I{os.path.abspath(i)}" for i in args.include]
                 + [f"-D{x}" for x in args.define])
        prof = os.path.abspath(os.path.join(args.dir, "sim", name + ".json"))
        env = dict(os.environ, TESSEL_DEVICE="sim", TESSEL_GPU=args.gpu, TESSEL_PROFILE=prof)
        links = [os.path.abspath(l) for l in args.link]
        steps = [([tesselc, os.path.abspath(src), *links, "-o", exe, f"--offload-arch={args.arch}"]
                  + flags + args.flag, None), ([exe], env)]
        for cmd, e in steps:
            r = subprocess.run(cmd, env=e, capture_output=True, text=True,
                               cwd=os.path.dirname(os.path.abspath(src)))
            if r.returncode != 0:
                print(f"FAIL {name}: {' '.join(cmd)} (exit status {r.returncode}):\n"
                      f"{r.stderr[-1500:]}", file=sys.stderr)
                if os.path.exists(exe):
                    os.remove(exe)
                failed += 1
                break
        else:
            with open(os.path.join(args.dir, "sim", name + ".out"), "w") as f:
                f.write(r.stdout + r.stderr)
            with open(src) as f:
                tol = 1e-5 if "float" in f.read() else 1e-9
            with open(os.path.join(args.dir, "sim", name + ".meta"), "w") as f:
                json.dump({"gpu": args.gpu, "tolerance": tol, "ncu": not args.no_ncu}, f)
            print(f"built {name}", file=sys.stderr)
    if failed:
        fail(f"{failed} of {len(args.programs)} programs failed to build or run on sim")


def measure(args):
    ncu = shutil.which("ncu")
    if not ncu:
        fail("ncu not found (measure runs on a machine with an NVIDIA GPU and ncu)")
    for sub in ("gpu", "ncu"):
        os.makedirs(os.path.join(args.dir, sub), exist_ok=True)
    results = json.loads(read(os.path.join(args.dir, "gpu", "results.json")) or "{}")
    for name in programs_in(args.dir):
        exe = os.path.abspath(os.path.join(args.dir, "bin", name))
        prof = os.path.abspath(os.path.join(args.dir, "gpu", name + ".json"))
        # Modules loaded when the program loads them, not at a kernel's first launch,
        # whose CUDA events would then time the loading too.
        env = dict(os.environ, TESSEL_DEVICE="cuda", TESSEL_PROFILE=prof,
                   CUDA_MODULE_LOADING="EAGER")
        if not args.only_ncu:
            if not run_on_gpu(args, name, exe, env, results) or args.no_ncu:
                continue
        if not json.loads(read(os.path.join(args.dir, "sim", name + ".meta")))["ncu"]:
            continue
        env.pop("TESSEL_PROFILE")
        try:
            r = subprocess.run([ncu, "--csv", "--page", "raw", "-c", str(args.launches),
                                "--metrics", ",".join(m for m, _, _ in METRICS), exe],
                               env=env, capture_output=True, text=True,
                               timeout=args.timeout)
            with open(os.path.join(args.dir, "ncu", name + ".csv"), "w") as f:
                f.write(r.stdout)
        except subprocess.TimeoutExpired:
            print(f"{name}: ncu timeout", file=sys.stderr)


def run_on_gpu(args, name, exe, env, results):
    """Runs one program on the GPU and checks its output against sim's: whether it ran."""
    try:
        r = subprocess.run([exe], env=env, capture_output=True, text=True,
                           timeout=args.timeout)
    except subprocess.TimeoutExpired:
        results[name] = "timeout"
        print(f"{name}: timeout", file=sys.stderr)
        return False
    out = r.stdout + r.stderr
    with open(os.path.join(args.dir, "gpu", name + ".out"), "w") as f:
        f.write(out)
    results[name] = (f"exit status {r.returncode}: {r.stderr.strip()[-300:]}"
                     if r.returncode != 0 else output_check(args.dir, name, args.tolerance))
    print(f"{name}: {results[name]}", file=sys.stderr)
    with open(os.path.join(args.dir, "gpu", "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    return True


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def tabulate_dir(args):
    d = args.dir
    results = json.loads(read(os.path.join(d, "gpu", "results.json")) or "{}")
    # Compared again here (the comparison may have changed since the run), for the
    # programs built.
    results = {name: r if r.startswith("exit status") or r == "timeout"
               else output_check(d, name)
               for name, r in results.items() if name in programs_in(d)}
    gpus = {json.loads(read(os.path.join(d, "sim", n + ".meta")) or "{}").get("gpu", "?")
            for n in programs_in(d)}
    out = [f"# sim ({', '.join(sorted(gpus))}) beside the GPU", "",
           "## Programs on the GPU", "",
           "Output: the numbers a program printed on the GPU beside those it printed "
           "on sim. Kernel time: the sum over its launches, measured with CUDA events "
           "(boost clocks, caches as the previous launch left them) and sim's estimate.",
           "", "| program | output on the GPU | launches | GPU time us | sim estimate us "
           "| sim / GPU |", "|---|---|---|---|---|---|"]
    ncu_all, sim_all = [], []
    for name in programs_in(d):
        sim = parse_sim_profile(read(os.path.join(d, "sim", name + ".json")) or "[]")
        gpu_text = read(os.path.join(d, "gpu", name + ".json"))
        gpu = parse_sim_profile(gpu_text) if gpu_text else []
        t_gpu = sum(l.get("measured_time_s") or 0 for l in gpu) * 1e6
        t_sim = sum(l.get("estimated_time_s") or 0 for l in sim) * 1e6
        r = ratio(t_sim, t_gpu) if gpu else None
        out.append(f"| {name} | {results.get(name, 'not run')} | {len(gpu)} | "
                   f"{fmt(t_gpu) if gpu else '-'} | {fmt(t_sim)} | "
                   f"{f'{r:.2f}' if r else '-'} |")
        text = read(os.path.join(d, "ncu", name + ".csv"))
        if text and any(l.startswith('"ID"') for l in text.splitlines()):
            ncu = parse_ncu_csv(text)
            ncu_all += ncu
            sim_all += sim[:len(ncu)]
    same = sum(1 for v in results.values() if v == "same as sim")
    out += ["", f"{same} of {len(results)} programs printed on the GPU what they printed "
            "on sim.", "", table(ncu_all, sim_all, "Per launch: sim beside ncu", level=2)]
    return "\n".join(out)


def main():
    modes = {"build", "measure", "table"}
    if len(sys.argv) > 1 and sys.argv[1] in modes:
        p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
        p.add_argument("mode", choices=sorted(modes))
        p.add_argument("programs", nargs="*", help="C or CUDA programs to build")
        p.add_argument("--dir", required=True, help="where the programs and results go")
        p.add_argument("-I", dest="include", action="append", default=[])
        p.add_argument("-D", dest="define", action="append", default=[])
        p.add_argument("--flag", action="append", default=[], help="a flag for tesselc")
        p.add_argument("--suffix", default="", help="added to each built program's name")
        p.add_argument("--link", action="append", default=[],
                       help="a source built into every program (a suite's utilities)")
        p.add_argument("--no-ncu", action="store_true",
                       help="measure runs these programs on the GPU but not under ncu")
        p.add_argument("--only-ncu", action="store_true",
                       help="measure runs the programs under ncu only (after a --no-ncu run)")
        p.add_argument("--gpu", default="h100", help="sim's model of the GPU present")
        p.add_argument("--arch", default="sm_90", help="--offload-arch for tesselc")
        p.add_argument("--tesselc")
        p.add_argument("--launches", type=int, default=20,
                       help="kernels per program that ncu profiles")
        p.add_argument("--timeout", type=int, default=300, help="seconds per run")
        p.add_argument("--tolerance", type=float)
        p.add_argument("--out", help="write the table here (default: standard output)")
        args = p.parse_intermixed_args()
        if args.mode == "build":
            if not args.programs:
                fail("build: give C or CUDA programs")
            build(args)
            return
        if not os.path.isdir(os.path.join(args.dir, "bin")):
            fail(f"{args.dir}: no bin/ (run build first)")
        if args.mode == "measure":
            measure(args)
            return
        text = tabulate_dir(args) + "\n"
    else:
        p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
        p.add_argument("programs", nargs="*", help="C programs to build and measure")
        p.add_argument("-I", dest="include", action="append", default=[])
        p.add_argument("-D", dest="define", action="append", default=[])
        p.add_argument("--gpu", default="h100", help="sim's model of the GPU present")
        p.add_argument("--arch", default="sm_90", help="--offload-arch for tesselc")
        p.add_argument("--tesselc")
        p.add_argument("--ncu-csv", help="tabulate a stored ncu report instead of measuring")
        p.add_argument("--sim-profile", help="the TESSEL_PROFILE file beside --ncu-csv")
        p.add_argument("--out", help="write the table here (default: standard output)")
        args = p.parse_args()
        if args.ncu_csv or args.sim_profile:
            if not (args.ncu_csv and args.sim_profile):
                fail("--ncu-csv and --sim-profile go together")
            try:
                with open(args.ncu_csv) as f:
                    ncu = parse_ncu_csv(f.read())
                with open(args.sim_profile) as f:
                    sim = parse_sim_profile(f.read())
            except OSError as e:
                fail(str(e))
            text = table(ncu, sim, f"sim beside ncu: {os.path.basename(args.ncu_csv)}")
        else:
            if not args.programs:
                fail("give C programs to measure, or --ncu-csv and --sim-profile")
            with tempfile.TemporaryDirectory() as d:
                args.dir, args.suffix, args.flag, args.link, args.no_ncu = d, "", [], [], False
                args.launches, args.timeout, args.tolerance = 20, 600, None
                build(args)
                measure(args)
                text = tabulate_dir(args) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
