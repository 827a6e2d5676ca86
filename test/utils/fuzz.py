#!/usr/bin/env python3
"""Differential fuzzing of tesselc with random static control parts (randprog.py).

usage: fuzz.py [--seeds A:B] [--jobs J] [--keep DIR] [--timeout S] [--tesselc PATH]
               [--tesselc-flag=FLAG ...] [--max-stmts K] [--features=...] [-v]
       fuzz.py FILE.c ...        (check given programs the same way, e.g. test/e2e/regress/*.c)
       fuzz.py --reduce FILE.c   (shrink a failing program; prints it)

For each seed (default 0:100; `--seeds N` is 0:N) randprog.py's program is built by
`clang-22 -O0 -w prog.c -lm` (the reference) and by `tesselc prog.c -ffp-contract=off -o
prog` (values marked exact assume each operation rounds; a -ffp-contract flag given with
--tesselc-flag replaces it); the tesselc
build runs with TESSEL_DEVICE=sim and what it prints on stderr must match the
reference's. Each seed is one of

  passed   tesselc built it and it printed the reference's values;
  refused  tesselc exited 1 with a located `FILE:LINE:COL: error: ...` and wrote no
           output (a construct the frontend does not accept: not a failure, counted
           and grouped by message);
and the failures:
  wrong      it printed other values (the first difference is shown);
  sim-error  the program exited nonzero (a sim error: out of bounds, race, ...);
  crash      tesselc died on a signal, panicked, reported an internal error, or
             exited with a status other than 0 and 1;
  unlocated  tesselc exited 1 without a `FILE:LINE:COL: error:` diagnostic, or
             refused but left an output file;
  slow       tesselc took more than 10 s of CPU time (--slow) but the result was right;
  timeout    tesselc or the program ran past --timeout;
  invalid    the generator failed or clang's build did not compile or run (a bug in
             randprog.py, not in tesselc).

Comparison (line by line; the dump headers say each value's type and whether it is
exact, see randprog.py): integers exactly; floating-point values marked `exact` (only
IEEE-exact operations) exactly; values marked `inexact` (exp, log, sin, cos, tanh, pow
went into them) within |a-b| <= rtol * max(1, |a|) with rtol 1e-9 for double and 1e-4
for float; values without a header (hand-written programs) within 1e-9 like
differential.py (1e-4 when the program declares a float).

Prints one line per failing seed (sorted), then the counts of each class, the refusal
messages grouped (names replaced by X) with counts, the longest tesselc compile,
and last `N passed, M failed` (M counts every failure class; refusals are neither).
Exit status 1 when anything failed. --keep DIR saves every failing (and with
--keep-refused every refused) program as DIR/seedN-CLASS.c with the two outputs.
"""
import argparse
import collections
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import differential  # noqa: E402
import randprog  # noqa: E402

FAILURES = ["wrong", "sim-error", "crash", "unlocated", "slow", "timeout", "invalid"]
LOCATED = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$", re.M)


def run_timed(cmd, timeout, cwd):
    """Runs `cmd`: (exit code, stderr, CPU seconds of it and the tools it waited for), or
    None past `timeout` wall seconds. Compile time is CPU time, so that a loaded machine
    (the lit suite runs beside this) does not make a fast build look slow."""
    with tempfile.TemporaryFile(mode="w+") as errf:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=errf, cwd=cwd)
        timer = threading.Timer(timeout, p.kill)
        timer.start()
        try:
            _, status, ru = os.wait4(p.pid, 0)
        finally:
            timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode == -9 and timer.finished.is_set():
            return None
        errf.seek(0)
        return p.returncode, errf.read(), ru.ru_utime + ru.ru_stime


class Result:
    def __init__(self, name, cls, detail="", compile_s=0.0, src=None, want="", got="", refusal=None):
        self.name, self.cls, self.detail, self.compile_s = name, cls, detail, compile_s
        self.src, self.want, self.got, self.refusal = src, want, got, refusal


def find_tesselc(given):
    if given:
        return given
    p = shutil.which("tesselc")
    if p:
        return p
    p = os.path.join(HERE, "..", "..", "target", "debug", "tesselc")
    return os.path.abspath(p)


# ---------------------------------------------------------------- output comparison

HEADER = re.compile(r"^begin dump: (\S+)(?: (unsigned char|\S+))?(?: (exact|inexact))?\s*$")
SCALAR = re.compile(r"^scalar (\S+) (unsigned char|\S+)(?: (exact|inexact))?: (.*)$")
INT_TYPES = {"int", "long", "short", "unsigned char", "char"}


def fnum(x):
    try:
        return float(x)
    except ValueError:
        return None


def same(x, y, ty, exactness, default_rtol):
    """x from the reference, y from tesselc's build (strings)."""
    a, b = fnum(x), fnum(y)
    if a is None or b is None:
        return x == y
    if a != a and b != b:  # both nan
        return True
    if ty in INT_TYPES or exactness == "exact":
        return a == b
    if ty == "float":
        rtol = 1e-4
    elif ty == "double":
        rtol = 1e-9
    else:
        rtol = default_rtol
    return a == b or abs(a - b) <= rtol * max(1.0, abs(a))


def compare(src, want, got):
    """None when the outputs agree, else a description of the first difference."""
    default_rtol = 1e-4 if re.search(r"\bfloat\b", src or "") else 1e-9
    wl, gl = want.splitlines(), got.splitlines()
    if not differential.numbers(want):
        return "the reference printed no numbers"
    ty = ex = None
    name = "output"
    for ln, (w, g) in enumerate(zip(wl, gl), 1):
        m = HEADER.match(w)
        if m:
            name, ty, ex = m.group(1), m.group(2), m.group(3)
            idx = 0
            if w != g:
                return f"line {ln}: '{g}' instead of '{w}'"
            continue
        if w.startswith("end dump"):
            ty = ex = None
            name = "output"
            if w != g:
                return f"line {ln}: '{g}' instead of '{w}'"
            continue
        s = SCALAR.match(w)
        if s:
            gs = SCALAR.match(g)
            if not gs or gs.group(1) != s.group(1):
                return f"line {ln}: '{g}' instead of '{w}'"
            if not same(s.group(4).strip(), gs.group(4).strip(), s.group(2), s.group(3), default_rtol):
                return f"scalar {s.group(1)} ({s.group(2)}): {gs.group(4).strip()} instead of {s.group(4).strip()}"
            continue
        wt, gt = w.split(), g.split()
        if len(wt) != len(gt):
            return f"line {ln}: {len(gt)} values instead of {len(wt)}"
        for k, (x, y) in enumerate(zip(wt, gt)):
            if not same(x, y, ty, ex, default_rtol):
                where = f"{name}, value {idx + k}" if ty else f"line {ln}, value {k}"
                return f"{where}: {y} instead of {x}"
        if ty:
            idx += len(wt)
    if len(wl) != len(gl):
        return f"printed {len(gl)} lines, the reference {len(wl)}"
    return None


# ---------------------------------------------------------------- one program

def check(name, src, opts):
    """Builds and runs one program; returns a Result."""
    with tempfile.TemporaryDirectory(prefix="tessel-fuzz-") as t:
        path = os.path.join(t, "prog.c")
        with open(path, "w") as f:
            f.write(src)
        ref = os.path.join(t, "ref")
        try:
            p = subprocess.run([opts.clang, "-O0", "-w", path, "-lm", "-o", ref],
                               capture_output=True, text=True, timeout=120)
            if p.returncode != 0:
                return Result(name, "invalid", "clang: " + first_error(p.stderr), src=src)
            p = subprocess.run([ref], capture_output=True, text=True, timeout=opts.timeout)
            if p.returncode != 0:
                return Result(name, "invalid", f"clang's program exited {p.returncode}", src=src)
            want = p.stderr
        except subprocess.TimeoutExpired:
            return Result(name, "invalid", "clang's build or program timed out", src=src)
        exe = os.path.join(t, "prog")
        # Values marked `exact` assume each operation rounds, as the reference's x86-64
        # build does: tesselc's default contraction of a * b + c into one fma rounds once
        # (seed 41321: 2.8e-17 instead of 0 for a product less itself), so it is off
        # here unless a flag asks for it (the kernel differential and
        # test/Transforms/contract.mlir test it).
        contract = [] if any(f.startswith("-ffp-contract=") for f in opts.tesselc_flag) \
            else ["-ffp-contract=off"]
        timed = run_timed([opts.tesselc, path, *contract, *opts.tesselc_flag, "-o", exe],
                          opts.timeout, t)
        if timed is None:
            return Result(name, "timeout", f"tesselc ran past {opts.timeout} s", opts.timeout, src=src, want=want)
        code, err, dt = timed
        if code < 0 or code not in (0, 1):
            return Result(name, "crash", f"tesselc exit status {code}: {last_lines(err)}", dt, src=src,
                          want=want, got=err)
        if re.search(r"panicked|internal (compiler )?error|RUST_BACKTRACE|Assertion .* failed|LLVM ERROR|Stack dump", err):
            return Result(name, "crash", f"tesselc: {last_lines(err)}", dt, src=src, want=want, got=err)
        if code == 1:
            m = LOCATED.search(err)
            if not m or os.path.basename(m.group("file")) != "prog.c":
                return Result(name, "unlocated", f"tesselc exit 1 without a located error: {last_lines(err)}", dt,
                              src=src, want=want, got=err)
            if os.path.exists(exe):
                return Result(name, "unlocated", "tesselc refused but wrote its output", dt, src=src)
            return Result(name, "refused", m.group("msg"), dt, src=src, want=want, got=err,
                          refusal=(m.group("msg"), int(m.group("line"))))
        if not os.path.exists(exe):
            return Result(name, "crash", "tesselc exited 0 without writing the program", dt, src=src)
        try:
            r = subprocess.run([exe], capture_output=True, text=True, timeout=opts.timeout,
                               env={**os.environ, "TESSEL_DEVICE": "sim"})
        except subprocess.TimeoutExpired:
            return Result(name, "timeout", f"the program ran past {opts.timeout} s on sim", dt, src=src, want=want)
        if r.returncode != 0:
            return Result(name, "sim-error", f"exit status {r.returncode}: {first_error(r.stderr)}", dt, src=src,
                          want=want, got=r.stderr)
        diff = compare(src, want, r.stderr)
        if diff:
            return Result(name, "wrong", diff + (f" (and tesselc took {dt:.1f} s)" if dt > opts.slow else ""), dt,
                          src=src, want=want, got=r.stderr)
        if dt > opts.slow:
            return Result(name, "slow", f"tesselc took {dt:.1f} s", dt, src=src)
        return Result(name, "passed", "", dt)


def first_error(text):
    for line in text.splitlines():
        if "error" in line.lower():
            return line.strip()[:300]
    return last_lines(text)


def last_lines(text, n=2):
    lines = [x for x in text.strip().splitlines() if x.strip()]
    return " | ".join(lines[-n:])[:400]


KEYWORDS = {"break", "continue", "return", "goto", "switch", "while", "do", "for", "if", "else", "case"}


def normalize(msg):
    """Groups refusal messages: quoted names (not keywords or operators) become X."""
    return re.sub(r"'([A-Za-z_]\w*)'", lambda m: m.group(0) if m.group(1) in KEYWORDS else "'X'", msg)


# ---------------------------------------------------------------- reduction

def signature(r):
    """What a reduced program must keep showing: the class, and for tesselc's own
    errors the message with names and numbers blanked."""
    if r.cls in ("crash", "unlocated", "sim-error", "refused"):
        return r.cls, re.sub(r"%[\w.]+|\d+|'[^']*'", "#", r.detail)[:160]
    return r.cls, ""


def sanitizer_clean(src, opts):
    """The reference built with ASan and UBSan runs cleanly (the program has no UB)."""
    with tempfile.TemporaryDirectory(prefix="tessel-reduce-") as t:
        path = os.path.join(t, "p.c")
        with open(path, "w") as f:
            f.write(src)
        exe = os.path.join(t, "p")
        p = subprocess.run([opts.clang, "-O0", "-w", "-fsanitize=address,undefined,float-cast-overflow",
                            "-fno-sanitize-recover=all", path, "-lm", "-o", exe], capture_output=True, text=True)
        if p.returncode != 0:
            return False
        try:
            return subprocess.run([exe], capture_output=True, timeout=60).returncode == 0
        except subprocess.TimeoutExpired:
            return False


def chunks(lines):
    """Candidate edits, biggest first: (start, end, replacement lines)."""
    out = []
    for i, ln in enumerate(lines):
        s = ln.strip()
        if s.endswith("{") and not s.startswith(("static", "int main", "{")) and "(" in s or s == "} else {":
            depth, j = 0, i
            for j in range(i, len(lines)):
                depth += lines[j].count("{") - lines[j].count("}")
                if depth <= 0 and j > i or (depth == 0 and j == i and s != "} else {"):
                    break
                if s == "} else {" and depth < 0:
                    break
            if s == "} else {":
                # drop the else branch: keep the closing brace
                out.append((j - i, i, j + 1, [lines[i].replace("} else {", "}")]))
                continue
            out.append((j - i + 1, i, j + 1, []))                                   # the whole block
            indent = len(lines[i]) - len(lines[i].lstrip())
            out.append((1, i, j + 1, [x[2:] if x.startswith(" " * (indent + 2)) else x for x in lines[i + 1:j]]))
        elif s.endswith(";") and not s.startswith(("return", "#", "int i", "int n")):
            a = i
            while a > 0 and lines[a - 1].strip().startswith(("for (", "if (")) and lines[a - 1].rstrip().endswith(")"):
                a -= 1  # a brace-less loop or if goes with its statement
            out.append((i + 1 - a, a, i + 1, []))
    out.sort(key=lambda c: -c[0])
    return [c[1:] for c in out]


def reduce(path, opts):
    src = open(path).read()
    want = signature(check("reduce", src, opts))
    print(f"reducing {path}: {want[0]} {want[1]}", file=sys.stderr)
    if want[0] == "passed":
        return src
    lines = src.splitlines()
    changed = True
    while changed:
        changed = False
        for (a, b, rep) in chunks(lines):
            if b > len(lines):
                continue
            cand = lines[:a] + rep + lines[b:]
            text = "\n".join(cand) + "\n"
            r = check("reduce", text, opts)
            if signature(r) != want:
                continue
            if r.cls in ("wrong", "sim-error") and not sanitizer_clean(text, opts):
                continue
            lines = cand
            changed = True
            print(f"  {len(lines)} lines", file=sys.stderr)
            break
    return "\n".join(lines) + "\n"


def seed_result(seed, opts):
    try:
        src = randprog.generate(seed, opts.max_stmts, opts.max_depth, opts.probs)
    except Exception as e:  # a generator bug
        return Result(f"seed {seed}", "invalid", f"randprog.py: {type(e).__name__}: {e}")
    return check(f"seed {seed}", src, opts)


def file_result(path, opts):
    with open(path) as f:
        return check(os.path.basename(path), f.read(), opts)


def parse_seeds(s):
    if ":" in s:
        a, b = s.split(":", 1)
        return range(int(a or 0), int(b))
    return range(int(s))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", help="C programs to check instead of generated ones")
    ap.add_argument("--seeds", default="0:100", help="A:B (seeds A..B-1) or N (0..N-1); default 0:100")
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--keep", metavar="DIR", help="save failing programs (and their outputs) here")
    ap.add_argument("--keep-refused", action="store_true", help="with --keep, save refused programs too")
    ap.add_argument("--timeout", type=float, default=120.0, help="limit for each build and run (s)")
    ap.add_argument("--slow", type=float, default=10.0, help="a tesselc build longer than this fails (s)")
    ap.add_argument("--tesselc", help="the compiler (default: tesselc on PATH, else target/debug/tesselc)")
    ap.add_argument("--tesselc-flag", action="append", default=[], metavar="FLAG",
                    help="a flag for tesselc only, repeatable (--tesselc-flag=--passes=tessel-schedule)")
    ap.add_argument("--clang", default="clang-22")
    ap.add_argument("--max-stmts", type=int, default=4)
    ap.add_argument("--max-depth", type=int, default=3)
    ap.add_argument("--features", default="", help="passed to randprog.py (+NAME / -NAME)")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per program, and progress")
    ap.add_argument("--reduce", metavar="FILE.c",
                    help="shrink a failing program (dropping statements, blocks, loops, ifs) while it fails "
                         "the same way, keeping it free of UB (ASan/UBSan); prints the result")
    opts = ap.parse_args()
    opts.tesselc = find_tesselc(opts.tesselc)
    opts.probs = randprog.parse_features(opts.features, {})
    if opts.reduce:
        sys.stdout.write(reduce(opts.reduce, opts))
        return
    if opts.files:
        jobs = [(f, lambda f=f: file_result(f, opts)) for f in opts.files]
    else:
        jobs = [(s, lambda s=s: seed_result(s, opts)) for s in parse_seeds(opts.seeds)]
    results = []
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as ex:
        futs = {ex.submit(fn): key for key, fn in jobs}
        for fut in concurrent.futures.as_completed(futs):
            key = futs[fut]
            try:
                r = fut.result()
            except Exception as e:  # a tool could not be started
                r = Result(str(key), "invalid", f"{type(e).__name__}: {e}")
            r.key = key
            results.append(r)
            if opts.verbose:
                print(f"[{len(results)}/{len(jobs)}] {r.name}: {r.cls} {r.detail}", file=sys.stderr, flush=True)
    results.sort(key=lambda r: (isinstance(r.key, str), r.key))
    counts = collections.Counter(r.cls for r in results)
    for r in results:
        if r.cls in FAILURES:
            print(f"FAIL {r.name}: {r.cls}: {r.detail}")
        if opts.keep and r.src and (r.cls in FAILURES or (r.cls == "refused" and opts.keep_refused)):
            os.makedirs(opts.keep, exist_ok=True)
            stem = os.path.join(opts.keep, re.sub(r"\W+", "", r.name.replace("seed ", "seed")) + "-" + r.cls)
            with open(stem + ".c", "w") as f:
                f.write(r.src)
            if r.want:
                with open(stem + ".want", "w") as f:
                    f.write(r.want)
            if r.got:
                with open(stem + ".got", "w") as f:
                    f.write(r.got)
    refusals = collections.Counter(normalize(r.refusal[0]) for r in results if r.refusal)
    print(f"programs: {len(results)}" + (f" (seeds {opts.seeds})" if not opts.files else ""))
    for cls in ["passed", "refused"] + FAILURES:
        print(f"{cls}: {counts.get(cls, 0)}")
    for msg, n in refusals.most_common():
        print(f"refused {n:4d}: {msg}")
    timed = [r for r in results if r.compile_s]
    if timed:
        worst = max(timed, key=lambda r: r.compile_s)
        print(f"max compile time: {worst.compile_s:.2f} s ({worst.name}); wall time {time.monotonic() - t0:.0f} s")
    failed = sum(counts.get(c, 0) for c in FAILURES)
    print(f"{counts.get('passed', 0)} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
