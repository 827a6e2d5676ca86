#!/usr/bin/env python3
"""Calibrates sim against a real GPU: sim's figures beside Nsight Compute's, per launch.

On a machine with an NVIDIA GPU and ncu:

    tools/calibrate.py --gpu h100 --out calibration/h100.md test/kernels/*.c -I test/kernels

builds each program with tesselc, runs it on sim (TESSEL_DEVICE=sim, TESSEL_GPU=<gpu>,
TESSEL_PROFILE) and under ncu on the GPU (TESSEL_DEVICE=cuda), pairs the launches in
order, and writes a table: global load and store sectors, L1 and L2 hit rates, DRAM
bytes read and written, and time, each as sim / ncu, then the geometric mean of each
ratio over the launches (what the model's constants in runtime/src/gpus.rs are scaled
by). ncu runs with its default cache control (caches flushed before each kernel), as
sim starts each launch cold.

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
    ("gpu__time_duration.sum", "time us",
     lambda l: None if l.get("estimated_time_s") is None else l["estimated_time_s"] * 1e6),
]

# Units ncu may print, to the unit the table uses (bytes, microseconds, percent).
SCALE = {
    "byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9,
    "nsecond": 1e-3, "usecond": 1, "msecond": 1e3, "second": 1e6, "ns": 1e-3, "us": 1,
    "ms": 1e3, "%": 1, "sector": 1, "": 1,
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


def table(ncu, sim, title):
    """Markdown: one row per launch pair, sim / ncu per metric, then geometric means."""
    if len(ncu) != len(sim):
        print(f"warning: {len(sim)} sim launches but {len(ncu)} ncu launches; "
              "pairing the first ones in order", file=sys.stderr)
    out = [f"# {title}", "",
           "Each cell: sim / ncu (ratio). Geometric means over the launches where both "
           "are known and non-zero.", ""]
    out.append("| kernel | " + " | ".join(label for _, label, _ in METRICS) + " |")
    out.append("|---" * (len(METRICS) + 1) + "|")
    logs = {m: [] for m, _, _ in METRICS}
    for (kname, nv), s in zip(ncu, sim):
        if s.get("kernel") != kname:
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
    out.append("| metric | launches | geometric mean of sim / ncu |")
    out.append("|---|---|---|")
    for m, label, _ in METRICS:
        v = logs[m]
        g = f"{math.exp(sum(v) / len(v)):.3f}" if v else "-"
        out.append(f"| {label} (`{m}`) | {len(v)} | {g} |")
    return "\n".join(out) + "\n"


def run(cmd, env=None, capture=True):
    r = subprocess.run(cmd, env=env, capture_output=capture, text=True)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} failed:\n{r.stderr}")
    return r.stdout


def measure(args):
    ncu = shutil.which("ncu")
    if not ncu:
        fail("ncu not found (calibration needs a GPU machine; use --ncu-csv and "
             "--sim-profile to tabulate stored outputs)")
    tesselc = args.tesselc or shutil.which("tesselc") or "target/debug/tesselc"
    all_ncu, all_sim = [], []
    with tempfile.TemporaryDirectory() as d:
        for src in args.programs:
            exe = os.path.join(d, os.path.basename(src) + ".exe")
            flags = [f"-I{i}" for i in args.include] + [f"-D{x}" for x in args.define]
            run([tesselc, src, "-o", exe, f"--offload-arch={args.arch}"] + flags)
            prof = os.path.join(d, "sim.json")
            env = dict(os.environ, TESSEL_DEVICE="sim", TESSEL_GPU=args.gpu,
                       TESSEL_PROFILE=prof)
            run([exe], env=env)
            with open(prof) as f:
                all_sim += parse_sim_profile(f.read())
            env = dict(os.environ, TESSEL_DEVICE="cuda")
            env.pop("TESSEL_PROFILE", None)
            out = run([ncu, "--csv", "--page", "raw", "--metrics",
                       ",".join(m for m, _, _ in METRICS), exe], env=env)
            all_ncu += parse_ncu_csv(out)
    return all_ncu, all_sim


def main():
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
        title = f"sim beside ncu: {os.path.basename(args.ncu_csv)}"
    else:
        if not args.programs:
            fail("give C programs to measure, or --ncu-csv and --sim-profile")
        ncu, sim = measure(args)
        title = f"sim ({args.gpu}) beside ncu on the GPU present"
    text = table(ncu, sim, title)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
