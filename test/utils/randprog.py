#!/usr/bin/env python3
"""Random C programs with one static control part, for differential testing of tesselc.

usage: randprog.py SEED [--max-stmts K] [--max-depth D] [--features=+a,-b,...]
                        [--prob NAME=P ...] [--no-calls]

Prints one complete C program, the same for the same seed and options (Csmith/YARPGen
style, restricted to what a `#pragma scop` region may hold). The program has

  * size macros N, M (and P, TSTEPS) and small helper functions (only when called);
  * `static void kernel_rand(int n, int m, int p, int tsteps, <scalar params>,
    <out pointer>, <arrays>)`: arrays of double, float, int (rarely long, short,
    unsigned char), 1-3 dimensions, fixed-size (`double A[N][M]`) or VLA
    (`double A[n][m]`) parameters;
  * local scalars declared (always initialized) before the region: accumulators and
    temporaries, constants (`const double c0 = 0.25;`, inlined by the frontend), live-in
    values computed before the region from arrays or parameters, and host writes to
    arrays before the region;
  * the region: 1..K top-level items -- loop nests of depth 1-3 (optionally inside a time
    loop) with bounds from constants, parameters and outer iterators (triangular `j <= i`,
    `j < i + 1`, `j = i + 1`), min/max bounds written as `&&` conditions, ternaries or
    MIN/MAX macros, decreasing loops, step-2 loops; affine ifs (with else) and ifs on data
    or on `i % 2`; neighbour reads (`A[i-1][j]`, in bounds by construction: the loop
    range or an enclosing guard keeps them inside); scalar temporaries (function locals
    or declared in the region); reductions into scalars and array elements; chained
    assignments; math calls; casts between the element types;
  * after the region: every local scalar the region writes is printed, some are stored
    into an array element or through the out pointer (live-out scalars);
  * main(): arrays on the heap initialized with small deterministic values, one call,
    then every array element printed to stderr (`%.10g` for floating point, `%d`/`%ld`
    for integers). Output format, read by fuzz.py (EXACTNESS is `exact` or `inexact`,
    see below):
        begin dump: NAME TYPE EXACTNESS     (values, 10 per line)     end dump: NAME
        scalar NAME TYPE EXACTNESS: VALUE

Every array access is in bounds for the sizes the program uses, no signed integer
overflows, nothing divides by zero, and no float-to-int conversion is out of range: the
generator tracks an interval per loop iterator (subscripts are only emitted when their
interval fits the dimension) and, after generating a program, runs an abstract
simulation of the whole region with a magnitude bound per variable (loops executed for
their trip counts until a fixpoint, both branches of every if); a program that could
overflow, or whose floating-point values could exceed 1e9, is discarded and another is
drawn from the same random stream (so the output stays deterministic per seed).
Floating-point values that come from non-correctly-rounded math (exp, log, sin, cos,
tanh, pow) only flow into arrays and scalars marked inexact; conditions and
float-to-int casts only read exact values, so a one-ulp library difference cannot flip a
branch or an integer. Values marked exact are computed with IEEE operations only (+ - * /,
sqrt, fabs, floor, ceil, fmin, fmax, conversions) in C's types, so a correct compiler
reproduces them bit for bit.

Features (program-level probabilities; `--features=-calls,+ro_livein` sets them to 0/1,
`--prob calls=0.3` to any value):
"""
import argparse
import math
import random
import re
import sys

FEATURES = {
    # name: (default probability, meaning)
    "calls": (0.3, "calls to small static helper functions with affine bodies (inlined)"),
    "ro_livein": (0.2, "a non-constant local computed before the region, only read in it"),
    "vla": (0.35, "arrays as C99 VLA parameters (else fixed-size)"),
    "time": (0.3, "a time loop around a top-level nest"),
    "reverse": (0.35, "decreasing loops"),
    "stride": (0.2, "loops with steps 2 and 3 (increasing or decreasing)"),
    "minmax": (0.45, "min/max bounds (&&, ternaries, MIN/MAX macros)"),
    "triangular": (0.55, "bounds from outer iterators"),
    "affif": (0.45, "affine ifs"),
    "dataif": (0.4, "ifs on data or on i % 2"),
    "math": (0.45, "math calls"),
    "inexact": (0.35, "exp/log/sin/cos/tanh/pow into arrays marked inexact"),
    "select": (0.35, "ternary selects on data"),
    "decl": (0.3, "scalars declared inside the region"),
    "chain": (0.1, "chained assignments a = b = e"),
    "livein": (0.4, "local scalars with values from before the region that the region updates"),
    "prewrite": (0.2, "host writes to arrays before the region"),
    "outptr": (0.25, "a pointer out-parameter written after the region"),
    "param_write": (0.1, "a scalar parameter assigned in the region and read after it"),
    "narrow": (0.12, "short / unsigned char / long arrays"),
    "dim3": (0.12, "a 3-D array"),
    "consts": (0.35, "constant locals (inlined)"),
    "toplevel": (0.4, "statements outside every loop"),
    "local_array": (0.25, "an array local to the function, set before the region and printed after it"),
    "iter_after": (0.3, "iterators read after their loops (in the region and after it)"),
    "quasi": (0.3, "quasi-affine subscripts and bounds: (aff) / k and (aff) % k, sometimes with a "
                   "negative dividend (an expected refusal where C's truncation would differ)"),
    "large": (0.25, "n up to 300 and m up to 40: launches of several blocks, partial blocks"),
    "exotic": (0.08, "one statement outside the usual subset: while/do/switch/break, a parametric step, "
                     "i % 2 or indirect subscripts (over-approximated accesses), bit operations, unsigned, else-if, "
                     "an iterator declared in its for"),
}

__doc__ += "".join(f"  {k:12s} {v[0]:4.2f}  {v[1]}\n" for k, v in FEATURES.items())

FLOAT_TYPES = ("double", "float")
RANK = {"unsigned char": 0, "short": 1, "int": 2, "long": 3, "float": 4, "double": 5}
INT_MAX = 2**31 - 1
LONG_MAX = 2**62
FLOAT_LIMIT = 1e9
SIM_STEP_LIMIT = 300000
WORK_LIMIT = 100000   # iterations of one nest (sim runs ~50M thread instructions a second)


class Reject(Exception):
    pass


def is_float(ty):
    return ty in FLOAT_TYPES


def promote(ty):
    return "int" if ty in ("unsigned char", "short") else ty


def usual(a, b):
    a, b = promote(a), promote(b)
    return a if RANK[a] >= RANK[b] else b


def int_limit(ty):
    return LONG_MAX if ty == "long" else INT_MAX


def fmt_float(v, ty):
    s = repr(float(v))
    if "e" not in s and "." not in s:
        s += ".0"
    return s + ("f" if ty == "float" else "")


# ---------------------------------------------------------------- symbols

class Sym:
    """An array or scalar of the program."""

    def __init__(self, name, ty, dims=(), exact=True, bound=1.0, kind="array"):
        self.name, self.ty, self.dims, self.exact, self.bound, self.kind = name, ty, list(dims), exact, bound, kind
        self.written = False

    @property
    def is_array(self):
        return self.kind == "array"


# ---------------------------------------------------------------- affine index expressions

class Aff:
    """sum(coef * var) + const over iterators and integer parameters."""

    def __init__(self, terms=None, const=0):
        self.terms = dict(terms or {})
        self.const = const

    def text(self):
        parts = []
        for v, c in self.terms.items():
            if c == 0:
                continue
            t = v if abs(c) == 1 else f"{abs(c)} * {v}"
            parts.append(("- " if c < 0 else "+ ") + t)
        if self.const or not parts:
            parts.append(("- " if self.const < 0 else "+ ") + str(abs(self.const)))
        s = " ".join(parts)
        if s.startswith("+ "):
            return s[2:]
        return "-" + s[2:]

    def interval(self, ctx):
        lo = hi = self.const
        for v, c in self.terms.items():
            a, b = ctx.range_of(v)
            lo += min(c * a, c * b)
            hi += max(c * a, c * b)
        return lo, hi


class QuasiAff(Aff):
    """`(inner) / k` or `(inner) % k` with C's truncating division (k > 0)."""

    def __init__(self, inner, op, k):
        super().__init__(inner.terms, 0)
        self.inner, self.op, self.k = inner, op, k

    def text(self):
        return f"({self.inner.text()}) {self.op} {self.k}"

    def interval(self, ctx):
        lo, hi = self.inner.interval(ctx)
        trunc = lambda x: int(x / self.k)
        if self.op == "/":
            return trunc(lo), trunc(hi)
        # C's remainder has the dividend's sign
        return (0 if lo >= 0 else -(self.k - 1)), (self.k - 1 if hi >= 0 else 0)


# ---------------------------------------------------------------- value expressions

class Expr:
    exact = True

    def walk(self):
        yield self


class Lit(Expr):
    def __init__(self, val, ty):
        self.val, self.ty = val, ty

    def c(self):
        if is_float(self.ty):
            t = fmt_float(self.val, self.ty)
            return f"({t})" if self.val < 0 else t
        return str(self.val) if self.val >= 0 else f"({self.val})"

    def bound(self, env):
        return float(abs(self.val))


class Ref(Expr):
    """A scalar variable (local, parameter, constant) or an array element."""

    def __init__(self, sym, subs=None):
        self.sym, self.subs, self.ty = sym, subs, sym.ty
        self.exact = sym.exact

    def c(self):
        if self.subs is None:
            return self.sym.name
        return self.sym.name + "".join(f"[{a.text()}]" for a in self.subs)

    def bound(self, env):
        return env[self.sym.name]


class IterVal(Expr):
    def __init__(self, name, lo, hi):
        self.name, self.lo, self.hi, self.ty = name, lo, hi, "int"

    def c(self):
        return self.name

    def bound(self, env):
        return float(max(abs(self.lo), abs(self.hi)))


class ParamVal(Expr):
    def __init__(self, name, value):
        self.name, self.value, self.ty = name, value, "int"

    def c(self):
        return self.name

    def bound(self, env):
        return float(abs(self.value))


class Bin(Expr):
    def __init__(self, op, a, b, ty=None):
        self.op, self.a, self.b = op, a, b
        self.ty = ty or usual(a.ty, b.ty)
        self.exact = a.exact and b.exact

    def walk(self):
        yield self
        yield from self.a.walk()
        yield from self.b.walk()

    def c(self):
        return f"({self.a.c()} {self.op} {self.b.c()})"

    def bound(self, env):
        x, y = self.a.bound(env), self.b.bound(env)
        op = self.op
        if op in "+-":
            r = x + y
        elif op == "*":
            r = x * y
        elif op == "/":
            # float: the divisor is a literal >= 1 or `fabs(e) + 1.0`; int: a literal >= 2
            r = x if is_float(self.ty) else x / max(1, self.b.val)
        elif op == "%":
            r = min(x, self.b.val - 1)
        elif op == "&":
            r = self.b.val
        elif op == ">>":
            r = x / (2 ** self.b.val)
        else:
            raise AssertionError(op)
        if not is_float(self.ty) and not r <= int_limit(self.ty):
            raise Reject(f"int overflow in {self.c()}")
        return r


class Neg(Expr):
    def __init__(self, a):
        self.a, self.ty, self.exact = a, promote(a.ty), a.exact

    def walk(self):
        yield self
        yield from self.a.walk()

    def c(self):
        return f"(-{self.a.c()})"

    def bound(self, env):
        return self.a.bound(env)


class FabsPlus1(Expr):
    """`(fabs(e) + 1.0)`: a divisor that is at least one."""

    def __init__(self, a, ty):
        self.a, self.ty, self.exact = a, ty, a.exact

    def walk(self):
        yield self
        yield from self.a.walk()

    def c(self):
        f = "fabsf" if self.ty == "float" else "fabs"
        return f"({f}({self.a.c()}) + {fmt_float(1.0, self.ty)})"

    def bound(self, env):
        return self.a.bound(env) + 1


class Call(Expr):
    # name: (arity, exact, bound function)
    MATH = {
        "sqrt": (1, True, lambda b: math.sqrt(b[0])),        # argument always fabs(..)
        "fabs": (1, True, lambda b: b[0]),
        "floor": (1, True, lambda b: b[0] + 1),
        "ceil": (1, True, lambda b: b[0] + 1),
        "fmin": (2, True, lambda b: max(b)),
        "fmax": (2, True, lambda b: max(b)),
        "exp": (1, False, lambda b: math.e),                 # argument always x / (1 + |x|)
        "log": (1, False, lambda b: math.log(b[0])),         # argument always 1 + |x|
        "sin": (1, False, lambda b: 1.0),
        "cos": (1, False, lambda b: 1.0),
        "tanh": (1, False, lambda b: 1.0),
        "pow": (2, False, lambda b: b[0] ** 2),              # pow(x, 2.0)
        "abs": (1, True, lambda b: b[0]),
    }

    def __init__(self, name, args, ty, bound_fn=None, exact=None):
        self.name, self.args, self.ty = name, args, ty
        base = name[:-1] if name.endswith("f") and name[:-1] in self.MATH else name
        info = self.MATH.get(base)
        self.bound_fn = bound_fn or info[2]
        self.exact = (info[1] if exact is None else exact) and all(a.exact for a in args)

    def walk(self):
        yield self
        for a in self.args:
            yield from a.walk()

    def c(self):
        return f"{self.name}({', '.join(a.c() for a in self.args)})"

    def bound(self, env):
        r = self.bound_fn([a.bound(env) for a in self.args])
        if not is_float(self.ty) and not r <= int_limit(self.ty):
            raise Reject(f"int overflow in {self.c()}")
        return r


class RowCall(Expr):
    def __init__(self, name, arr, subs):
        self.name, self.arr, self.subs, self.ty, self.exact = name, arr, subs, arr.ty, arr.exact

    def c(self):
        return f"{self.name}({self.arr.name}[{self.subs[0].text()}], {self.subs[1].text()})"

    def bound(self, env):
        r = 2 * env[self.arr.name]
        if not is_float(self.ty) and not r <= INT_MAX:
            raise Reject(f"int overflow in {self.c()}")
        return r


class Cast(Expr):
    def __init__(self, ty, a):
        self.ty, self.a, self.exact = ty, a, a.exact

    def walk(self):
        yield self
        yield from self.a.walk()

    def c(self):
        return f"(({self.ty}){self.a.c()})"

    def bound(self, env):
        return convert(self.a.ty, self.ty, self.a.bound(env), self.c())


class Cond(Expr):
    """A boolean condition: comparison, && / || / !."""

    def __init__(self, op, a, b=None):
        self.op, self.a, self.b, self.ty = op, a, b, "int"
        self.exact = a.exact and (b is None or b.exact)

    def walk(self):
        yield self
        yield from self.a.walk()
        if self.b is not None:
            yield from self.b.walk()

    def c(self):
        if self.op == "!":
            return f"!({self.a.c()})"
        return f"({self.a.c()} {self.op} {self.b.c()})"

    def bound(self, env):
        self.a.bound(env)
        if self.b is not None:
            self.b.bound(env)
        return 1


class Select(Expr):
    def __init__(self, cond, a, b):
        self.cond, self.a, self.b = cond, a, b
        self.ty = usual(a.ty, b.ty)
        self.exact = cond.exact and a.exact and b.exact

    def walk(self):
        yield self
        yield from self.cond.walk()
        yield from self.a.walk()
        yield from self.b.walk()

    def c(self):
        return f"({self.cond.c()} ? {self.a.c()} : {self.b.c()})"

    def bound(self, env):
        self.cond.bound(env)
        return max(self.a.bound(env), self.b.bound(env))


def convert(src, dst, b, what):
    """Bound of a value of bound b converted from type src to type dst (Reject on UB)."""
    if is_float(dst):
        return b
    if is_float(src) and not b < 2**31 - 2:
        raise Reject(f"float to int conversion out of range: {what}")
    if is_float(src) and (dst == "unsigned char" and b >= 1 or dst == "short" and b >= 32767):
        raise Reject(f"float to {dst} conversion may be out of range: {what}")
    if dst == "unsigned char":
        return min(b, 255) if not is_float(src) and b <= 255 else 255
    if dst == "short":
        return b if b <= 32767 else 32768
    if dst == "int" and b > INT_MAX:
        return 2**31  # long -> int: implementation-defined wrap (same in clang and tesselc)
    return b


# ---------------------------------------------------------------- statements

class Stmt:
    pass


class Assign(Stmt):
    def __init__(self, target, op, rhs):
        self.target, self.op, self.rhs = target, op, rhs

    def emit(self, out, ind):
        if self.op in ("++", "--"):
            out.append(f"{ind}{self.target.c()}{self.op};")
        else:
            out.append(f"{ind}{self.target.c()} {self.op} {self.rhs.c()};")

    def value_bound(self, env):
        t = self.target
        cur = env[t.sym.name]
        if self.op in ("++", "--"):
            return convert(promote(t.ty), t.ty, cur + 1, self.target.c()) if not is_float(t.ty) else cur + 1
        r = self.rhs.bound(env)
        if self.op == "=":
            return convert(self.rhs.ty, t.ty, r, self.rhs.c())
        ct = usual(t.ty, self.rhs.ty)
        if self.op in ("+=", "-="):
            v = cur + r
        elif self.op == "*=":
            v = cur * r
        elif self.op == "/=":
            v = cur if is_float(ct) else cur / max(1, getattr(self.rhs, "val", 1))
        elif self.op == "%=":
            v = min(cur, self.rhs.val - 1)
        else:
            raise AssertionError(self.op)
        if not is_float(ct) and not v <= int_limit(ct):
            raise Reject(f"int overflow in {self.target.c()} {self.op} ...")
        return convert(ct, t.ty, v, self.target.c())

    def sim(self, env, st):
        st.step()
        v = self.value_bound(env)
        n = self.target.sym.name
        if v > env[n]:
            env[n] = float(v)


class Chain(Stmt):
    """`outer = inner = rhs;`"""

    def __init__(self, outer, inner, rhs):
        self.outer, self.inner, self.rhs = outer, inner, rhs

    def emit(self, out, ind):
        out.append(f"{ind}{self.outer.c()} = {self.inner.c()} = {self.rhs.c()};")

    def sim(self, env, st):
        st.step()
        v = convert(self.rhs.ty, self.inner.ty, self.rhs.bound(env), self.rhs.c())
        env[self.inner.sym.name] = float(max(env[self.inner.sym.name], v))
        v = convert(self.inner.ty, self.outer.ty, v, self.inner.c())
        env[self.outer.sym.name] = float(max(env[self.outer.sym.name], v))


class Decl(Stmt):
    def __init__(self, sym, rhs):
        self.sym, self.rhs = sym, rhs

    def emit(self, out, ind):
        out.append(f"{ind}{self.sym.ty} {self.sym.name} = {self.rhs.c()};")

    def sim(self, env, st):
        st.step()
        v = convert(self.rhs.ty, self.sym.ty, self.rhs.bound(env), self.rhs.c())
        env[self.sym.name] = float(max(env.get(self.sym.name, 0.0), v))


class Loop(Stmt):
    def __init__(self, var, init, cond, inc, trips, body):
        self.var, self.init, self.cond, self.inc, self.trips, self.body = var, init, cond, inc, trips, body

    def emit(self, out, ind):
        out.append(f"{ind}for ({self.var} = {self.init}; {self.cond}; {self.inc}) {{")
        for s in self.body:
            s.emit(out, ind + "  ")
        out.append(f"{ind}}}")

    def sim(self, env, st):
        """Runs the body for the trip count, until the bounds stop changing; when they
        grow by the same amount in three iterations in a row, the growth is taken as
        linear and extrapolated to the remaining iterations (then run once more)."""
        prev = None
        same = 0
        for it in range(self.trips):
            before = dict(env)
            for s in self.body:
                s.sim(env, st)
            if env == before:
                break
            delta = {k: env[k] - before.get(k, 0.0) for k in env}
            same = same + 1 if delta == prev else 0
            prev = delta
            left = self.trips - it - 1
            if same >= 2 and left > 1:
                for k, d in delta.items():
                    env[k] += d * (left - 1)
                for s in self.body:
                    s.sim(env, st)
                break


class If(Stmt):
    def __init__(self, cond, then, els=None):
        self.cond, self.then, self.els = cond, then, els

    def emit(self, out, ind):
        c = self.cond if isinstance(self.cond, str) else self.cond.c()
        if c.startswith("(") and c.endswith(")") and balanced(c[1:-1]):
            c = c[1:-1]
        out.append(f"{ind}if ({c}) {{")
        for s in self.then:
            s.emit(out, ind + "  ")
        if self.els:
            out.append(f"{ind}}} else {{")
            for s in self.els:
                s.emit(out, ind + "  ")
        out.append(f"{ind}}}")

    def sim(self, env, st):
        if not isinstance(self.cond, str):
            self.cond.bound(env)
        for s in self.then:
            s.sim(env, st)
        for s in self.els or []:
            s.sim(env, st)


class RawStmt(Stmt):
    """Literal C lines; `effects` are (name, op, bound function of env) for the simulation."""

    def __init__(self, lines, effects):
        self.lines, self.effects = lines, effects

    def emit(self, out, ind):
        for ln in self.lines:
            out.append(ind + ln)

    def sim(self, env, st):
        st.step()
        for name, op, fn in self.effects:
            v = fn(env)
            if op == "+=":
                v += env[name]
            if v > env[name]:
                env[name] = float(v)


class Block(Stmt):
    def __init__(self, body):
        self.body = body

    def emit(self, out, ind):
        out.append(f"{ind}{{")
        for s in self.body:
            s.emit(out, ind + "  ")
        out.append(f"{ind}}}")

    def sim(self, env, st):
        for s in self.body:
            s.sim(env, st)


def walk_stmts(st):
    yield st
    for attr in ("body", "then", "els"):
        for x in getattr(st, attr, None) or []:
            yield from walk_stmts(x)


def balanced(s):
    d = 0
    for ch in s:
        d += ch == "("
        d -= ch == ")"
        if d < 0:
            return False
    return d == 0


class SimState:
    def __init__(self):
        self.steps = 0

    def step(self):
        self.steps += 1
        if self.steps > SIM_STEP_LIMIT:
            raise Reject("simulation too long")


# ---------------------------------------------------------------- generation context

class Ctx:
    """Iterators in scope with their value intervals (outer first), scalars declared in
    the region, and the loop depth."""

    def __init__(self, gen):
        self.gen = gen
        self.iters = []       # [name, lo, hi]
        self.decls = []       # Sym declared inside the region, visible here
        self.pinned = {}      # array name -> subscripts: in a parallel nest, the only ones read
        self.work = 1         # iterations of the enclosing loops

    def copy(self):
        c = Ctx(self.gen)
        c.work = self.work
        c.iters = [list(x) for x in self.iters]
        c.decls = list(self.decls)
        c.pinned = dict(self.pinned)
        return c

    def range_of(self, v):
        for name, lo, hi in self.iters:
            if name == v:
                return lo, hi
        return self.gen.params[v], self.gen.params[v]

    def refine(self, v, lo=None, hi=None):
        for it in self.iters:
            if it[0] == v:
                if lo is not None:
                    it[1] = max(it[1], lo)
                if hi is not None:
                    it[2] = min(it[2], hi)
                return it[1] <= it[2]
        return True

    @property
    def space_iters(self):
        return [it for it in self.iters if it[0] != "t"]


class Gen:
    def __init__(self, seed, opts):
        self.rng = random.Random(seed)
        self.seed = seed
        self.opts = opts

    # -------------------------------------------------- helpers
    def chance(self, p):
        return self.rng.random() < p

    def pick(self, weighted):
        """weighted: list of (weight, value)."""
        weighted = [(w, v) for w, v in weighted if w > 0]
        total = sum(w for w, _ in weighted)
        r = self.rng.random() * total
        for w, v in weighted:
            r -= w
            if r <= 0:
                return v
        return weighted[-1][1]

    def feat(self, name):
        return self.features[name]

    # -------------------------------------------------- program level
    def setup(self):
        r = self.rng
        probs = {k: v[0] for k, v in FEATURES.items()}
        probs.update(self.opts.get("probs", {}))
        self.features = {k: r.random() < p for k, p in sorted(probs.items())}
        if self.feat("large"):
            n, m = r.randint(33, 300), r.randint(4, 40)
        else:
            n, m = r.randint(4, 12), r.randint(4, 12)
        self.params = {"n": n, "m": m, "p": r.randint(1, 3), "tsteps": r.randint(1, 3)}
        self.sizes = {"n": "N", "m": "M"}
        self.arrays = []
        self.scalars = []       # locals declared before the region
        self.sparams = []       # scalar parameters
        self.helpers = {}       # name -> C definition
        self.pre = []           # host statements before the region (C text)
        self.uid = 0
        self.used_minmax_macro = False
        self.exotic_done = False
        nar = r.randint(2, 5)
        names = "ABCDEFG"
        dim3_done = False
        for k in range(nar):
            if self.feat("narrow") and r.random() < 0.35:
                ty = r.choice(["short", "unsigned char", "long"])
            else:
                ty = self.pick([(5, "double"), (2.5, "float"), (2.5, "int")])
            if self.feat("dim3") and not dim3_done and r.random() < 0.5:
                dims = [r.choice("nm") for _ in range(3)]
                dim3_done = True
            else:
                dims = [r.choice("nm") for _ in range(self.pick([(1, 1), (1.3, 2)]))]
            while math.prod(self.params[d] for d in dims) > 40000 and "n" in dims:
                dims[dims.index("n")] = "m"  # keep arrays (and what is printed) small
            exact = not is_float(ty) or not self.feat("inexact") or r.random() < 0.5
            a = Sym(names[k], ty, dims, exact=exact)
            a.vla = self.feat("vla") and r.random() < 0.8
            a.init = self.init_formula(a)
            self.arrays.append(a)
        for a in self.arrays:
            a.local = False
        if self.feat("local_array"):
            ty = self.pick([(3, "double"), (1, "float"), (1.5, "int")])
            dims = [r.choice("nm") for _ in range(r.choice([1, 2]))]
            while math.prod(self.params[d] for d in dims) > 40000 and "n" in dims:
                dims[dims.index("n")] = "m"
            a = Sym("T", ty, dims, exact=not is_float(ty) or not self.feat("inexact") or r.random() < 0.5)
            a.vla, a.local = False, True
            a.zero_init = r.random() < 0.5
            a.init = self.init_formula(a)
            if a.zero_init:
                a.bound = 0.0
            self.arrays.append(a)
        # scalar parameters (read-only live-in values)
        if r.random() < 0.6:
            self.sparams.append(Sym("alpha", "double", kind="param", bound=1.5))
        if r.random() < 0.3:
            self.sparams.append(Sym("beta", "float", kind="param", bound=0.5))
        if r.random() < 0.45:
            self.sparams.append(Sym("k0", "int", kind="param", bound=3))
        self.param_values = {"alpha": "1.5", "beta": "0.5f", "k0": "3"}
        if self.feat("param_write") and self.sparams:
            sp = r.choice(self.sparams)
            sp.writable = True
        # locals
        for k in range(r.randint(1, 3)):
            ty = self.pick([(5, "double"), (2, "float"), (2.5, "int")])
            s = Sym(f"s{k}", ty, kind="local", exact=not is_float(ty) or not self.feat("inexact") or r.random() < 0.6)
            s.init = fmt_float(0.0, ty) if is_float(ty) else "0"
            s.bound = 0.0
            s.liveout = r.random() < 0.6
            if self.feat("livein") and r.random() < 0.5:
                s.init, s.bound = self.livein_init(s)
            self.scalars.append(s)
        self.consts = []
        if self.feat("consts"):
            for k in range(r.randint(1, 2)):
                ty = r.choice(["double", "float", "int"])
                v = r.choice([0.25, 0.5, 1.5, 2.0, 3.0]) if is_float(ty) else r.randint(1, 5)
                c = Sym(f"c{k}", ty, kind="const", bound=abs(v))
                c.init = fmt_float(v, ty) if is_float(ty) else str(v)
                c.const_kw = r.random() < 0.5
                self.consts.append(c)
        self.ro = []
        if self.feat("ro_livein"):
            src = self.sparams[0].name if self.sparams else "n"
            w = Sym("w0", "double", kind="ro", bound=self.params["n"] * 2 + 3)
            w.init = f"{src} * 2.0 + 1.0"
            self.ro.append(w)
        if self.feat("prewrite"):
            a = r.choice(self.arrays)
            subs = "".join("[1]" for _ in a.dims)
            val = "alpha" if any(s.name == "alpha" for s in self.sparams) else "2"
            if not is_float(a.ty):
                val = "7"
            self.pre.append(f"{a.name}{subs} = {val};")
            a.bound = max(a.bound, 7)

    def livein_init(self, s):
        """A value computed before the region (not a compile-time constant)."""
        r = self.rng
        a = r.choice([a for a in self.arrays if not a.local])
        ref = a.name + "".join("[0]" for _ in a.dims)
        if is_float(s.ty):
            if is_float(a.ty) and not a.exact and s.exact:
                return f"(double)n * 0.5", self.params["n"] * 0.5
            return f"{ref} * 0.5 + 1.0", a.bound * 0.5 + 1.0
        if is_float(a.ty):
            return "n + m", self.params["n"] + self.params["m"]
        return f"{ref} + 1", a.bound + 1

    def init_formula(self, a):
        r = self.rng
        idx = ["i", "j", "k"][:len(a.dims)]
        coefs = [r.randint(1, 9) for _ in idx]
        c = r.randint(0, 9)
        lin = " + ".join(f"{x} * {k}" for x, k in zip(idx, coefs)) + f" + {c}"
        if a.ty == "unsigned char":
            a.bound = 255
            return f"({lin}) % 256"
        q = r.randint(7, 17)
        if is_float(a.ty):
            off = r.choice([0, 0, q // 2])
            a.bound = 1.0
            cast = "(double)" if a.ty == "double" else "(float)"
            return f"{cast}(({lin}) % {q} - {off}) / {q}"
        off = r.choice([0, q // 2])
        a.bound = q
        return f"({lin}) % {q} - {off}"

    # -------------------------------------------------- expressions
    def readable_scalars(self, ctx, exact, want=None):
        out = []
        for s in self.sparams + self.scalars + self.consts + self.ro + ctx.decls:
            if exact and not s.exact:
                continue
            out.append(s)
        return out

    def gen_subs(self, a, ctx, write=False):
        subs = []
        used = set()
        siters = ctx.space_iters
        for d, sym in enumerate(a.dims):
            D = self.params[sym]
            cands = []
            for depth, (v, lo, hi) in enumerate(siters):
                fresh = v not in used
                # natural mapping: the d-th innermost loop on the d-th last dimension
                w_nat = 1.0
                for off, w in ((0, 5.0), (-1, 1.5), (1, 1.5), (-2, 0.4), (2, 0.4)):
                    if write and off != 0:
                        w *= 0.3
                    if lo + off >= 0 and hi + off <= D - 1:
                        cands.append((w * w_nat * (2.5 if fresh else 0.25), Aff({v: 1}, off)))
                if 0 <= D - 1 - hi and D - 1 - lo <= D - 1:
                    cands.append((0.5 * (2 if fresh else 0.3), Aff({sym: 1, v: -1}, -1)))
                if 2 * hi + 1 <= D - 1 and lo >= 0:
                    cands.append((0.2, Aff({v: 2}, self.rng.choice([0, 1]))))
                for (v2, lo2, hi2) in siters:
                    if v2 != v and lo + lo2 >= 0 and hi + hi2 <= D - 1:
                        cands.append((0.15, Aff({v: 1, v2: 1}, 0)))
                    if v2 != v and lo - hi2 >= 0 and hi - lo2 <= D - 1:
                        cands.append((0.15, Aff({v: 1, v2: -1}, 0)))
            # the time iterator, rarely
            for (v, lo, hi) in ctx.iters:
                if v == "t" and hi <= D - 1:
                    cands.append((0.1, Aff({"t": 1}, 0)))
            if not cands or not siters or self.chance(0.08):
                c = self.rng.choice([0, 1, min(2, D - 1), D - 1])
                cands.append((1.0, Aff({}, c)))
                cands.append((0.5, Aff({sym: 1}, -1)))
            e = self.pick(cands)
            if self.feat("quasi") and e.terms and self.chance(0.3):
                e = self.quasi(e, ctx, D)
            lo, hi = e.interval(ctx)
            assert 0 <= lo and hi <= D - 1, (a.name, e.text(), lo, hi, D)
            used.update(e.terms)
            subs.append(e)
        return subs

    def quasi(self, e, ctx, D):
        """e / k or e % k, in 0 .. D-1 like e; sometimes with a dividend shifted below
        zero where C's division still gives an index in range."""
        k = self.rng.choice([2, 3, 4])
        num = e
        if self.chance(0.05):
            num = Aff(e.terms, e.const - self.rng.randint(1, k - 1))
        q = QuasiAff(num, "/" if k > D or self.chance(0.6) else "%", k)
        lo, hi = q.interval(ctx)
        return q if 0 <= lo and hi <= D - 1 else e

    def lit(self, ty, small=False):
        r = self.rng
        if is_float(ty):
            return Lit(r.choice([0.5, 0.25, 1.5, 2.0, 1.0, 3.0, 0.75, -1.0, -0.5, 0.125]), ty)
        return Lit(r.choice([1, 2, 3, 5, 7, -1, -2]) if not small else r.randint(1, 4), "int")

    def leaf(self, ctx, kind, exact, fty):
        """kind: 'f' floating point or 'i' integer."""
        r = self.rng
        opts = []
        arrs = [a for a in self.arrays if not exact or a.exact]
        farrs = [a for a in arrs if is_float(a.ty)]
        iarrs = [a for a in arrs if not is_float(a.ty)]
        scal = self.readable_scalars(ctx, exact)
        fscal = [s for s in scal if is_float(s.ty)]
        iscal = [s for s in scal if not is_float(s.ty)]
        if kind == "f":
            opts += [(6, ("arr", farrs)), (1.2, ("arr", iarrs)), (2, ("sc", fscal)), (0.5, ("sc", iscal)),
                     (1.5, ("lit", fty)), (0.8, ("iter", None))]
        else:
            opts += [(6, ("arr", iarrs)), (2, ("sc", iscal)), (1.5, ("lit", "int")), (2, ("iter", None)),
                     (0.5, ("param", None))]
        opts = [(w, o) for w, o in opts if o[1] or o[0] in ("lit", "param") or (o[0] == "iter" and ctx.iters)]
        what, arg = self.pick(opts)
        if what == "arr":
            a = r.choice(arg)
            if a.name in ctx.pinned:
                return Ref(a, ctx.pinned[a.name])
            return Ref(a, self.gen_subs(a, ctx))
        if what == "sc":
            return Ref(r.choice(arg))
        if what == "lit":
            return self.lit(arg)
        if what == "iter":
            v, lo, hi = r.choice(ctx.iters)
            e = IterVal(v, lo, hi)
            if kind == "f":
                return Bin("*", e, Lit(r.choice([0.5, 0.25, 0.1]), fty))
            return e
        pname = r.choice(["n", "m", "p"])
        return ParamVal(pname, self.params[pname])

    def gen_expr(self, ctx, kind, exact, depth, fty="double"):
        r = self.rng
        if depth <= 0 or r.random() < 0.28:
            return self.leaf(ctx, kind, exact, fty)
        sub = lambda k=kind, e=exact: self.gen_expr(ctx, k, e, depth - 1, fty)
        if kind == "f":
            ch = [(4, "add"), (3, "mulc"), (1.2, "mul"), (1.5, "avg"), (0.8, "div"), (0.5, "neg"),
                  (1.2, "divc")]
            if self.feat("math"):
                ch += [(1.5, "math")]
                if not exact and self.feat("inexact"):
                    ch += [(2.0, "imath")]
            if self.feat("select"):
                ch += [(0.8, "sel")]
            ch += [(0.5, "fromint")]
            if self.feat("calls"):
                ch += [(1.5, "call")]
            what = self.pick(ch)
            if what == "add":
                return Bin(r.choice("+-"), sub(), sub())
            if what == "mulc":
                return Bin("*", sub(), self.lit(fty))
            if what == "mul":
                return Bin("*", sub(), sub())
            if what == "avg":
                return Bin("*", Bin("+", sub(), sub()), Lit(0.5, fty))
            if what == "div":
                return Bin("/", sub(), FabsPlus1(sub(), fty))
            if what == "divc":
                return Bin("/", sub(), Lit(r.choice([2.0, 4.0, 3.0]), fty))
            if what == "neg":
                return Neg(sub())
            if what == "math":
                f = self.pick([(3, "sqrt"), (2, "fabs"), (0.7, "floor"), (0.5, "ceil"), (1, "fmin"), (1, "fmax")])
                sfx = "f" if fty == "float" and r.random() < 0.6 else ""
                if f == "sqrt":
                    return Call("sqrt" + sfx, [Call("fabs" + sfx, [sub()], fty)], fty)
                if f in ("fmin", "fmax"):
                    return Call(f + sfx, [sub(), sub()], fty)
                return Call(f + sfx, [sub()], fty)
            if what == "imath":
                f = self.pick([(2, "exp"), (1, "log"), (1, "sin"), (1, "cos"), (1, "tanh"), (1, "pow")])
                sfx = "f" if fty == "float" and r.random() < 0.6 else ""
                x = sub()
                if f == "exp":
                    return Call("exp" + sfx, [Bin("/", x, FabsPlus1(x, fty))], fty)
                if f == "log":
                    return Call("log" + sfx, [FabsPlus1(x, fty)], fty)
                if f == "pow":
                    return Call("pow" + sfx, [x, Lit(2.0, fty)], fty)
                return Call(f + sfx, [x], fty)
            if what == "sel":
                return Select(self.gen_cond(ctx, depth - 1), sub(), sub())
            if what == "fromint":
                return Cast(r.choice(FLOAT_TYPES), sub("i", True))
            if what == "call":
                rows = [a for a in self.arrays if len(a.dims) == 2 and is_float(a.ty) and (a.exact or not exact)]
                if rows and r.random() < 0.35:
                    return self.row_call(ctx, r.choice(rows))
                return self.helper_call(sub(), "f")
        ch = [(4, "add"), (2.5, "mulc"), (0.8, "mul"), (1.5, "mod"), (1, "divc"), (0.4, "and"), (0.4, "shr"),
              (0.4, "neg"), (0.8, "fromf")]
        if self.feat("math"):
            ch += [(0.6, "abs")]
        if self.feat("select"):
            ch += [(0.8, "sel")]
        if self.feat("calls"):
            ch += [(1.0, "call")]
        what = self.pick(ch)
        if what == "add":
            return Bin(r.choice("+-"), sub(), sub())
        if what == "mulc":
            return Bin("*", sub(), self.lit("int", small=True))
        if what == "mul":
            return Bin("*", Bin("%", sub(), Lit(r.choice([10, 16, 32]), "int")), sub())
        if what == "mod":
            return Bin("%", sub(), Lit(r.choice([7, 10, 13, 100, 1000, 1009]), "int"))
        if what == "divc":
            return Bin("/", sub(), Lit(r.choice([2, 3, 4]), "int"))
        if what == "and":
            return Bin("&", sub(), Lit(r.choice([7, 15, 255]), "int"))
        if what == "shr":
            return Bin(">>", sub(), Lit(1, "int"))
        if what == "neg":
            return Neg(sub())
        if what == "abs":
            return Call("abs", [sub()], "int")
        if what == "sel":
            return Select(self.gen_cond(ctx, depth - 1), sub(), sub())
        if what == "fromf":
            return Cast("int", Bin("*", sub("f", True), Lit(r.choice([2.0, 4.0, 10.0]), "double")))
        if what == "call":
            if ctx.space_iters and r.random() < 0.4:
                it = [IterVal(*x) for x in ctx.space_iters]
                a, b = r.choice(it), r.choice(it + [Lit(1, "int")])
                self.helpers["isum"] = "static int isum(int a, int b) { return a + 2 * b; }"
                return Call("isum", [a, b], "int", bound_fn=lambda v: v[0] + 2 * v[1], exact=True)
            rows = [a for a in self.arrays if len(a.dims) == 2 and a.ty == "int"]
            if rows and r.random() < 0.3:
                return self.row_call(ctx, r.choice(rows))
            return self.helper_call(sub(), "i")
        raise AssertionError(what)

    def row_call(self, ctx, a):
        """`row2_T(A[i], j)`: a helper that reads an element of an array row."""
        subs = ctx.pinned.get(a.name) or self.gen_subs(a, ctx)
        ty = a.ty
        name = {"double": "row2_d", "float": "row2_f", "int": "row2_i"}[ty]
        two = {"double": "2.0", "float": "2.0f", "int": "2"}[ty]
        self.helpers[name] = f"static {ty} {name}({ty} row[], int j) {{ return {two} * row[j]; }}"
        return RowCall(name, a, subs)

    def helper_call(self, arg, kind):
        r = self.rng
        if kind == "f":
            name = r.choice(["lin_d", "lin_f", "mix_d"])
        else:
            name = r.choice(["lin_i", "wrap_i"])
        defs = {
            "lin_d": ("double", "static double lin_d(double x) { return 0.5 * x + 1.0; }",
                      lambda b: 0.5 * b[0] + 1.0, 1),
            "lin_f": ("float", "static float lin_f(float x) { return 2.0f * x - 0.5f; }",
                      lambda b: 2.0 * b[0] + 0.5, 1),
            "mix_d": ("double", "static double mix_d(double x, double y) { return x - 0.25 * y + 2.0; }",
                      lambda b: b[0] + 0.25 * b[1] + 2.0, 2),
            "lin_i": ("int", "static int lin_i(int x) { return 3 * x + 1; }", lambda b: 3 * b[0] + 1, 1),
            "wrap_i": ("int", "static int wrap_i(int x) { return (x + 5) % 17; }", lambda b: 16, 1),
        }
        ty, text, fn, arity = defs[name]
        self.helpers[name] = text
        args = [arg] if arity == 1 else [arg, self.lit("double")]
        return Call(name, args, ty, bound_fn=fn, exact=True)

    def gen_cond(self, ctx, depth):
        """A data condition (exact values only), or a non-affine condition on iterators."""
        r = self.rng
        ch = [(4, "fcmp"), (2, "icmp")]
        if ctx.iters:
            ch += [(1.5, "itmod"), (0.7, "ine")]
        what = self.pick(ch)
        if what == "fcmp":
            a = self.gen_expr(ctx, "f", True, min(depth, 1))
            b = self.lit("double") if r.random() < 0.6 else self.gen_expr(ctx, "f", True, 0)
            c = Cond(r.choice(["<", ">", "<=", ">="]), a, b)
        elif what == "icmp":
            a = self.gen_expr(ctx, "i", True, min(depth, 1))
            if r.random() < 0.5:
                c = Cond(r.choice(["==", "!="]), Bin("%", a, Lit(r.choice([2, 3]), "int")), Lit(0, "int"))
            else:
                c = Cond(r.choice(["<", ">", ">="]), a, self.lit("int"))
        elif what == "itmod":
            v, lo, hi = r.choice(ctx.iters)
            e = IterVal(v, lo, hi)
            if len(ctx.iters) > 1 and r.random() < 0.4:
                v2, lo2, hi2 = r.choice(ctx.iters)
                e = Bin("+", e, IterVal(v2, lo2, hi2))
            c = Cond(r.choice(["==", "!="]), Bin("%", e, Lit(r.choice([2, 3]), "int")), Lit(0, "int"))
        else:
            (v, lo, hi), (v2, lo2, hi2) = r.choice(ctx.iters), r.choice(ctx.iters)
            c = Cond("!=", IterVal(v, lo, hi), IterVal(v2, lo2, hi2) if v2 != v else Lit(1, "int"))
        if r.random() < 0.12:
            c = Cond(r.choice(["&&", "||"]), c, self.gen_cond(ctx, 0))
        elif r.random() < 0.05:
            c = Cond("!", c)
        return c

    # -------------------------------------------------- statements
    def writable_targets(self, ctx):
        t = [(3, ("arr", a)) for a in self.arrays]
        for s in self.scalars:
            t.append((0.8, ("sc", s)))
        for s in self.sparams:
            if getattr(s, "writable", False):
                t.append((0.6, ("sc", s)))
        for s in ctx.decls:
            t.append((0.5, ("sc", s)))
        return t

    def rhs_for(self, ctx, sym, depth=None):
        kind = "f" if is_float(sym.ty) else "i"
        fty = "float" if sym.ty == "float" else "double"
        d = depth if depth is not None else self.rng.choice([1, 2, 2, 3])
        return self.gen_expr(ctx, kind, sym.exact, d, fty)

    def mark(self, sym):
        sym.written = True

    def gen_assign(self, ctx):
        r = self.rng
        what, sym = self.pick(self.writable_targets(ctx))
        target = Ref(sym, self.gen_subs(sym, ctx, write=True) if what == "arr" else None)
        self.mark(sym)
        ops = [(6, "="), (3, "+="), (1, "-=")]
        if is_float(sym.ty):
            ops += [(0.6, "*="), (0.5, "/=")]
        else:
            ops += [(0.3, "%="), (0.3, "++"), (0.2, "--")]
        op = self.pick(ops)
        if op in ("++", "--"):
            return [Assign(target, op, None)]
        if op == "*=":
            return [Assign(target, op, Lit(r.choice([0.5, 0.75, 1.25, -1.0]), sym.ty))]
        if op == "/=":
            fty = "float" if sym.ty == "float" else "double"
            rhs = Lit(r.choice([2.0, 4.0]), fty) if r.random() < 0.4 else FabsPlus1(self.rhs_for(ctx, sym, 1), fty)
            return [Assign(target, op, rhs)]
        if op == "%=":
            return [Assign(target, op, Lit(r.choice([7, 100, 1000]), "int"))]
        rhs = self.rhs_for(ctx, sym)
        if op == "=" and not is_float(sym.ty) and r.random() < 0.5:
            rhs = Bin("%", rhs, Lit(r.choice([100, 1000, 1009]), "int"))
        if op == "=" and self.feat("chain") and r.random() < 0.3:
            others = [s for s in self.scalars if s is not sym and is_float(s.ty) == is_float(sym.ty)]
            if others:
                inner = r.choice(others)
                self.mark(inner)
                # the value flows into both: exact if either must stay exact
                kind = "f" if is_float(inner.ty) else "i"
                fty = "float" if inner.ty == "float" else "double"
                rhs = self.gen_expr(ctx, kind, sym.exact or inner.exact, r.choice([1, 2]), fty)
                return [Chain(target, Ref(inner), rhs)]
        return [Assign(target, op, rhs)]

    def gen_temp(self, ctx):
        """`t = e; X[..] = f(t)` with t a function local or declared here."""
        r = self.rng
        if self.feat("decl") and r.random() < 0.5:
            ty = self.pick([(3, "double"), (1, "float"), (1.5, "int")])
            self.uid += 1
            s = Sym(f"tmp{self.uid}", ty, kind="decl", exact=True)
            s.exact = not is_float(ty) or not self.feat("inexact") or r.random() < 0.6
            rhs = self.rhs_for(ctx, s)
            first = Decl(s, rhs)
            ctx.decls.append(s)
        else:
            s = r.choice(self.scalars)
            self.mark(s)
            first = Assign(Ref(s), "=", self.rhs_for(ctx, s))
        out = [first]
        for _ in range(r.choice([1, 1, 2])):
            out += self.gen_assign(ctx)
        return out

    def gen_scalar_reduction(self, ctx, depth_left):
        """`s = init; for (..) s += e; X[..] = g(s);` (gemm's acc pattern)."""
        r = self.rng
        s = r.choice(self.scalars)
        self.mark(s)
        out = []
        if r.random() < 0.75:
            out.append(Assign(Ref(s), "=", self.lit(s.ty) if r.random() < 0.7 else self.rhs_for(ctx, s, 1)))
        out.append(self.gen_nest(ctx, max(1, min(depth_left, r.choice([1, 1, 2]))), lambda c: [
            Assign(Ref(s), self.pick([(5, "+="), (1, "-=")]), self.rhs_for(c, s))]))
        if r.random() < 0.85:
            cands = [a for a in self.arrays if (is_float(a.ty) == is_float(s.ty)) and (a.exact or not s.exact or True)]
            cands = [a for a in cands if s.exact or not a.exact]
            if cands:
                a = r.choice(cands)
                self.mark(a)
                tgt = Ref(a, self.gen_subs(a, ctx, write=True))
                val = Ref(s)
                if r.random() < 0.5:
                    other = self.rhs_for(ctx, a, 1)
                    val = Bin("+", Bin("*", val, self.lit(a.ty if is_float(a.ty) else "int", small=True)), other)
                out.append(Assign(tgt, r.choice(["=", "=", "+="]), val))
        return out

    def gen_affine_if(self, ctx, depth_left):
        r = self.rng
        ctx2 = ctx.copy()
        conds = []
        siters = ctx.space_iters
        forms = [(1, "param")]
        if siters:
            forms += [(3, "lo"), (2.5, "hi"), (1.5, "both"), (1, "eq")]
            if len(siters) > 1:
                forms += [(2, "rel"), (1, "sum")]
        form = self.pick(forms)
        ok = True
        if form == "param":
            name = "k0" if any(s.name == "k0" for s in self.sparams) else r.choice(["p", "n", "tsteps"])
            conds.append(f"{name} {r.choice(['>', '>=', '<'])} {r.randint(1, 3)}")
        else:
            v, lo, hi = r.choice(siters)
            if form == "lo":
                c = r.choice([1, 1, 2])
                conds.append(f"{v} >= {c}" if r.random() < 0.6 else f"{v} > {c - 1}")
                ok = ctx2.refine(v, lo=c)
            elif form == "hi":
                S = r.choice(["n", "m"])
                c = r.choice([1, 1, 2])
                conds.append(f"{v} < {S} - {c}" if r.random() < 0.6 else f"{v} <= {S} - {c + 1}")
                ok = ctx2.refine(v, hi=self.params[S] - c - 1)
            elif form == "both":
                S = r.choice(["n", "m"])
                conds.append(f"{v} >= 1 && {v} < {S} - 1")
                ok = ctx2.refine(v, lo=1, hi=self.params[S] - 2)
            elif form == "eq":
                if r.random() < 0.5:
                    c = r.randint(0, 2)
                    conds.append(f"{v} == {c}")
                    ok = ctx2.refine(v, lo=c, hi=c)
                else:
                    S = r.choice(["n", "m"])
                    conds.append(f"{v} == {S} - 1")
                    ok = ctx2.refine(v, lo=self.params[S] - 1, hi=self.params[S] - 1)
            elif form == "rel":
                v2 = r.choice([x[0] for x in siters if x[0] != v])
                conds.append(f"{v} {r.choice(['>', '<=', '>=', '<'])} {v2}{r.choice(['', ' + 1', ' - 1'])}")
            elif form == "sum":
                v2 = r.choice([x[0] for x in siters if x[0] != v])
                conds.append(f"{v} + {v2} {r.choice(['<', '>='])} {r.choice(['n', 'm'])}")
            if r.random() < 0.2 and siters:
                v3, lo3, hi3 = r.choice(siters)
                conds.append(f"{v3} >= 1")
                ok = ok and ctx2.refine(v3, lo=1)
        if not ok:
            return self.gen_assign(ctx)
        then = self.gen_body(ctx2, depth_left, max_items=2)
        els = None
        if r.random() < 0.3:
            els = self.gen_body(ctx.copy(), depth_left, max_items=1)
        return [If(" && ".join(conds), then, els)]

    def gen_data_if(self, ctx, depth_left):
        r = self.rng
        cond = self.gen_cond(ctx, 1)
        then = self.gen_body(ctx.copy(), depth_left, max_items=2)
        els = self.gen_body(ctx.copy(), depth_left, max_items=1) if r.random() < 0.3 else None
        return [If(cond, then, els)]

    def gen_item(self, ctx, depth_left):
        r = self.rng
        ch = [(5, "assign"), (2, "temp")]
        if ctx.iters and depth_left > 0:
            ch += [(3, "loop"), (1.2, "sred")]
        if self.feat("affif"):
            ch += [(1.3, "affif")]
        if self.feat("dataif"):
            ch += [(1.0, "dataif")]
        if self.feat("exotic") and not self.exotic_done:
            ch += [(1.5, "exotic")]
        what = self.pick(ch)
        if what == "exotic":
            return self.gen_exotic(ctx)
        if what == "assign":
            return self.gen_assign(ctx)
        if what == "temp":
            return self.gen_temp(ctx)
        if what == "loop":
            return [self.gen_loop(ctx, depth_left)]
        if what == "sred":
            return self.gen_scalar_reduction(ctx, depth_left)
        if what == "affif":
            return self.gen_affine_if(ctx, depth_left)
        return self.gen_data_if(ctx, depth_left)

    def gen_exotic(self, ctx):
        r = self.rng
        self.exotic_done = True
        a = r.choice([x for x in self.arrays if x.ty != "unsigned char"] or self.arrays)
        self.mark(a)
        subs = ctx.pinned.get(a.name) or self.gen_subs(a, ctx, write=True)
        tgt = a.name + "".join(f"[{x.text()}]" for x in subs)
        one, two = ("1.0", "2.0") if is_float(a.ty) else ("1", "2")
        siters = ctx.space_iters
        v = siters[-1][0] if siters else None
        ints = [x for x in self.arrays if x.ty == "int" and (x.exact or not a.exact)]
        same = [x for x in self.arrays if is_float(x.ty) == is_float(a.ty) and (x.exact or not a.exact)
                and x.ty != "long"]
        forms = ["while", "do", "pstep", "elseif", "decliter", "switch"]
        if ints:
            forms += ["bitops", "unsigned"]
        if v:
            # `same` is empty for a `long` target with no other `long`-free array of its
            # kind (seed 41410).
            forms += ["break", "mod_sub"] if same else ["break"]
            if ints and same:
                forms += ["indirect"]
        f = r.choice(forms)
        add = lambda k: [(a.name, "+=", lambda env: k)]
        sel = v or "n"
        if f == "while":
            return [RawStmt(["e0 = 0;", "while (e0 < 2) {", f"  {tgt} += {one};", "  e0++;", "}"], add(2))]
        if f == "do":
            return [RawStmt(["do {", f"  {tgt} += {one};", "} while (0);"], add(1))]
        if f == "pstep":
            return [RawStmt([f"for (e0 = 0; e0 < n; e0 += p)", f"  {tgt} += {one};"], add(self.params["n"]))]
        if f == "elseif":
            return [RawStmt([f"if ({sel} % 3 == 0)", f"  {tgt} = {one};", f"else if ({sel} % 3 == 1)",
                             f"  {tgt} = {two};", "else", f"  {tgt} += {one};"], add(2))]
        if f == "decliter":
            return [RawStmt([f"for (int ii = 0; ii < 2; ii++)", f"  {tgt} += {one};"], add(2))]
        if f == "switch":
            return [RawStmt([f"switch ({sel} % 2) {{", f"case 0:", f"  {tgt} = {one};", "  break;", "default:",
                             f"  {tgt} = {two};", "}"], add(2))]
        if f == "break":
            return [RawStmt([f"if ({v} == n + 5)", "  break;"], [])]
        if f in ("bitops", "unsigned"):
            e = r.choice(ints)
            es = ctx.pinned.get(e.name) or self.gen_subs(e, ctx)
            ref = e.name + "".join(f"[{x.text()}]" for x in es)
            if f == "bitops":
                return [RawStmt([f"{tgt} = (({ref} & 15) << 2) ^ ({ref} | 5);"], [(a.name, "=", lambda env: 127)])]
            return [RawStmt([f"{tgt} = (unsigned)({ref} & 255) % 7u;"], [(a.name, "=", lambda env: 7)])]
        if f == "mod_sub":
            b = r.choice(same)
            ref = b.name + f"[{v} % 2]" + "".join("[0]" for _ in b.dims[1:])
            return [RawStmt([f"{tgt} = {ref};"], [(a.name, "=", lambda env, b=b: env[b.name])])]
        e, b = r.choice(ints), r.choice(same)
        es = ctx.pinned.get(e.name) or self.gen_subs(e, ctx)
        ref = e.name + "".join(f"[{x.text()}]" for x in es)
        bref = b.name + f"[{ref} & 1]" + "".join("[0]" for _ in b.dims[1:])
        return [RawStmt([f"{tgt} = {bref};"], [(a.name, "=", lambda env, b=b: env[b.name])])]

    def gen_body(self, ctx, depth_left, max_items=3):
        ctx = ctx.copy()
        out = []
        for _ in range(self.rng.randint(1, max_items)):
            out += self.gen_item(ctx, depth_left)
        return out

    def loop_header(self, ctx, v, size=None):
        """Chooses bounds for iterator v: (init, cond, inc, lo, hi, trips). With `size`
        (a size parameter), the iterator stays inside 0 .. size-1."""
        r = self.rng
        P = self.params
        siters = ctx.space_iters
        S = size or r.choice(["n", "m"])
        Sv = P[S]
        forms = [(4, "basic"), (1.5, "interior"), (0.8, "le"), (0.4, "const")]
        if self.feat("triangular") and siters:
            forms += [(1.5, "tri_le"), (1, "tri_lt"), (1.2, "tri_up"), (0.8, "tri_from")]
        if self.feat("minmax") and siters:
            forms += [(1.2, "min_and"), (1.2, "minmax_tern"), (0.6, "min_macro")]
        if self.feat("reverse"):
            forms += [(1.5, "rev")]
            if siters:
                forms += [(0.6, "rev_tri")]
        if self.feat("stride"):
            forms += [(1.0, "stride"), (0.4, "rev_stride")]
        if self.feat("quasi"):
            forms += [(0.8, "quasi")]
        for _ in range(20):
            f = self.pick(forms)
            u = r.choice(siters) if siters else None
            step = 1
            if f == "basic":
                res = ("0", f"{v} < {S}", 0, Sv - 1)
            elif f == "interior":
                res = ("1", f"{v} < {S} - 1", 1, Sv - 2)
            elif f == "le":
                res = ("0", f"{v} <= {S} - 1", 0, Sv - 1)
            elif f == "const":
                c = r.randint(2, 4)
                res = ("0", f"{v} < {c}", 0, c - 1)
            elif f == "tri_le":
                res = ("0", f"{v} <= {u[0]}", 0, u[2])
            elif f == "tri_lt":
                res = ("0", f"{v} < {u[0]} + 1", 0, u[2])
            elif f == "tri_up":
                res = (f"{u[0]} + 1", f"{v} < {S}", u[1] + 1, Sv - 1)
            elif f == "tri_from":
                res = (f"{u[0]}", f"{v} < {S}", u[1], Sv - 1)
            elif f == "min_and":
                if r.random() < 0.5:
                    res = ("0", f"{v} < {S} && {v} < {u[0]} + p", 0, min(Sv - 1, u[2] + P["p"] - 1))
                else:
                    res = ("0", f"{v} <= {u[0]} + 2 && {v} < {S}", 0, min(Sv - 1, u[2] + 2))
            elif f == "minmax_tern":
                res = (f"({u[0]} - 2 > 0 ? {u[0]} - 2 : 0)" if r.random() < 0.5 else f"(0 > {u[0]} - 2 ? 0 : {u[0]} - 2)",
                       f"{v} < ({S} < {u[0]} + 3 ? {S} : {u[0]} + 3)", max(0, u[1] - 2), min(Sv - 1, u[2] + 2))
            elif f == "min_macro":
                self.used_minmax_macro = True
                res = (f"MAX(0, {u[0]} - 1)", f"{v} <= MIN({S} - 1, {u[0]} + 1)", max(0, u[1] - 1), min(Sv - 1, u[2] + 1))
            elif f == "rev":
                if r.random() < 0.6:
                    res = (f"{S} - 1", f"{v} >= 0", 0, Sv - 1)
                else:
                    res = (f"{S} - 2", f"{v} > 0", 1, Sv - 2)
                step = -1
            elif f == "rev_tri":
                res = (f"{u[0]}", f"{v} >= 0", 0, u[2])
                step = -1
            elif f == "stride":
                s0 = r.choice([0, 1])
                res = (str(s0), f"{v} < {S}", s0, Sv - 1)
                step = self.pick([(3, 2), (1, 3)])
            elif f == "quasi":
                k = r.choice([2, 3])
                if siters and r.random() < 0.5:
                    res = ("0", f"{v} < ({u[0]} + 1) / {k}", 0, (u[2] + 1) // k - 1)
                else:
                    res = ("0", f"{v} < {S} / {k}", 0, Sv // k - 1)
            elif f == "rev_stride":
                res = (f"{S} - 1", f"{v} >= 0", 0, Sv - 1)
                step = -2
            init, cond, lo, hi = res
            if lo <= hi and lo >= 0 and hi <= Sv - 1:
                if step == 1:
                    inc = f"{v}++" if r.random() < 0.85 else f"{v} += 1"
                elif step == -1:
                    inc = f"{v}--" if r.random() < 0.85 else f"{v} -= 1"
                elif step > 0:
                    inc = f"{v} += {step}"
                else:
                    inc = f"{v} -= {-step}"
                trips = (hi - lo) // abs(step) + 1
                return init, cond, inc, lo, hi, trips
        return "0", f"{v} < {S}", f"{v}++", 0, Sv - 1, Sv

    def loop_range(self, lp):
        return lp.lo, lp.hi

    def gen_loop(self, ctx, depth_left, body_fn=None, var=None, size=None):
        used = {it[0] for it in ctx.iters}
        v = var or next(x for x in "ijkl" if x not in used)
        if var == "t":
            init, cond, inc, lo, hi, trips = "0", "t < tsteps", "t++", 0, self.params["tsteps"] - 1, self.params["tsteps"]
        else:
            init, cond, inc, lo, hi, trips = self.loop_header(ctx, v, size)
            if ctx.work * trips > WORK_LIMIT:
                c = self.rng.randint(2, 4)
                init, cond, inc, lo, hi, trips = "0", f"{v} < {c}", f"{v}++", 0, c - 1, c
        c2 = ctx.copy()
        c2.iters.append([v, lo, hi])
        c2.work = ctx.work * trips
        if body_fn:
            body = body_fn(c2)
        else:
            body = self.gen_body(c2, depth_left - 1)
        lp = Loop(v, init, cond, inc, trips, body)
        lp.lo, lp.hi = lo, hi
        return lp

    def gen_nest(self, ctx, depth, inner_fn):
        """A perfect nest of `depth` loops around inner_fn's statements."""
        if depth <= 1:
            return self.gen_loop(ctx, 1, body_fn=inner_fn)
        return self.gen_loop(ctx, depth, body_fn=lambda c: [self.gen_nest(c, depth - 1, inner_fn)])

    def gen_pnest(self, ctx, maxd):
        """A nest in PolyBench's parallel style: loop k runs over dimension k of a target
        array (possibly permuted), the targets are written at the loop iterators, arrays
        written in the nest are read only at those subscripts, temporaries are declared
        in the body (or are function locals), and an inner loop may reduce into an
        accumulator (gemm's acc). Most of its loops are parallel."""
        r = self.rng
        cands = [a for a in self.arrays if len(a.dims) <= maxd]
        if not cands:
            return [self.gen_loop(ctx, maxd)]
        tgt = r.choice(cands)
        rank = len(tgt.dims)
        order = list(range(rank))
        if rank > 1 and r.random() < 0.2:
            r.shuffle(order)
        targets = [tgt]
        for b in self.arrays:
            if b is not tgt and len(targets) < 3 and r.random() < 0.35 and sorted(b.dims) == sorted(tgt.dims):
                targets.append(b)

        def build(c, k, iters):
            if k == rank:
                return self.pnest_body(c, targets, iters, tgt, maxd - rank)
            v = next(x for x in "ijkl" if x not in {it[0] for it in c.iters})
            return [self.gen_loop(c, 1, size=tgt.dims[order[k]], var=None,
                                  body_fn=lambda c2: build(c2, k + 1, iters + [(order[k], v)]))]
        return build(ctx, 0, [])

    def pnest_body(self, ctx, targets, iters, tgt, depth_left):
        r = self.rng
        ctx = ctx.copy()
        by_dim = dict(iters)                  # dimension of tgt -> iterator
        pins = {}
        for b in targets:
            if b is tgt:
                subs = [Aff({by_dim[d]: 1}) for d in range(len(tgt.dims))]
            else:
                # b's dims are a permutation of tgt's sizes: give each an iterator over that size
                free = list(range(len(tgt.dims)))
                subs = []
                for sz in b.dims:
                    d = next(d for d in free if tgt.dims[d] == sz)
                    free.remove(d)
                    subs.append(Aff({by_dim[d]: 1}))
            pins[b.name] = subs
        ctx.pinned.update(pins)
        out = []
        for _ in range(r.randint(1, 3)):
            b = r.choice(targets)
            self.mark(b)
            target = Ref(b, pins[b.name])
            what = self.pick([(4, "assign"), (2, "temp"), (2 if depth_left > 0 else 0, "acc"), (1, "if"),
                              (1.5 if self.feat("exotic") and not self.exotic_done else 0, "exotic")])
            if what == "exotic":
                out += self.gen_exotic(ctx)
            elif what == "assign":
                op = self.pick([(5, "="), (2, "+="), (0.5, "-="), (0.4 if is_float(b.ty) else 0, "*=")])
                rhs = Lit(r.choice([0.5, 1.25]), b.ty) if op == "*=" else self.rhs_for(ctx, b)
                out.append(Assign(target, op, rhs))
            elif what == "temp":
                tcands = [x for x in self.scalars if x.exact or not b.exact]
                if self.feat("decl") or r.random() < 0.5 or not tcands:
                    ty = b.ty if b.ty in ("double", "float", "int") else "int"
                    self.uid += 1
                    t = Sym(f"tmp{self.uid}", ty, kind="decl", exact=b.exact)
                    out.append(Decl(t, self.rhs_for(ctx, t)))
                    ctx.decls.append(t)
                else:
                    t = r.choice(tcands)
                    self.mark(t)
                    out.append(Assign(Ref(t), "=", self.rhs_for(ctx, t)))
                val = self.gen_expr(ctx, "f" if is_float(b.ty) else "i", b.exact, 1,
                                    "float" if b.ty == "float" else "double")
                out.append(Assign(target, "=", Bin(r.choice("+-*") if is_float(b.ty) else "+", Ref(t), val)))
            elif what == "acc":
                ty = "double" if is_float(b.ty) else "int"
                if self.feat("decl") and r.random() < 0.6:
                    self.uid += 1
                    acc = Sym(f"acc{self.uid}", ty, kind="decl", exact=b.exact)
                    out.append(Decl(acc, Lit(0.0, ty) if is_float(ty) else Lit(0, ty)))
                    ctx.decls.append(acc)
                else:
                    acc = r.choice([x for x in self.scalars if (x.exact or not b.exact)
                                    and is_float(x.ty) == is_float(b.ty)] or [None])
                    if acc is None:
                        continue
                    self.mark(acc)
                    out.append(Assign(Ref(acc), "=", self.lit(acc.ty) if r.random() < 0.3 else
                                      (Lit(0.0, acc.ty) if is_float(acc.ty) else Lit(0, "int"))))
                out.append(self.gen_nest(ctx, max(1, min(depth_left, r.choice([1, 1, 2]))), lambda c: [
                    Assign(Ref(acc), self.pick([(5, "+="), (1, "-=")]), self.rhs_for(c, acc, r.choice([1, 2])))]))
                val = Ref(acc)
                if r.random() < 0.5:
                    val = Bin("+", Bin("*", val, self.lit(b.ty if is_float(b.ty) else "int", small=True)),
                              self.rhs_for(ctx, b, 1))
                out.append(Assign(target, r.choice(["=", "=", "+="]), val))
            else:
                sub = [Assign(target, "=", self.rhs_for(ctx, b))]
                els = [Assign(target, r.choice(["=", "+="]), self.rhs_for(ctx, b))] if r.random() < 0.5 else None
                if self.feat("affif") and r.random() < 0.5 and ctx.space_iters:
                    v, lo, hi = r.choice(ctx.space_iters)
                    w = r.choice(ctx.space_iters)[0]
                    cond = r.choice([f"{v} >= 1", f"{v} < {r.choice('nm')} - 1", f"{v} <= {w}",
                                     f"{v} + {w} < n", f"{v} == 0", f"{v} > {w} + 1"])
                    out.append(If(cond, sub, els))
                else:
                    out.append(If(self.gen_cond(ctx, 1), sub, els))
        return out

    def gen_top(self):
        r = self.rng
        ctx = Ctx(self)
        items = []
        mx = self.opts.get("max_stmts", 4)
        k = r.randint(min(2, mx), mx)
        maxd = self.opts.get("max_depth", 3)
        for _ in range(k):
            ch = [(5, "pnest"), (4, "nest"), (1.2, "sred")]
            if self.feat("time"):
                ch += [(2, "time")]
            if self.feat("toplevel"):
                ch += [(1.0, "flat")]
            what = self.pick(ch)
            if items and isinstance(items[-1], Loop) and self.feat("iter_after") and r.random() < 0.5:
                lp = items[-1]
                lo, hi = self.loop_range(lp)
                a = r.choice(self.arrays)
                self.mark(a)
                subs = [Aff({}, r.randint(0, 1)) for _ in a.dims]
                it = IterVal(lp.var, lo - 2, hi + 2)
                val = Bin("*", it, Lit(0.5, "double")) if is_float(a.ty) else Bin("+", it, Lit(1, "int"))
                items.append(Assign(Ref(a, subs), r.choice(["=", "+="]), val))
            if what == "pnest":
                items += self.gen_pnest(ctx, maxd)
            elif what == "nest":
                items.append(self.gen_loop(ctx, r.randint(1, maxd)))
            elif what == "time":
                d = max(1, maxd - 1)

                def tbody(c, d=d):
                    out = []
                    for _ in range(r.randint(1, 2)):
                        if r.random() < 0.6:
                            out += self.gen_pnest(c, d)
                        else:
                            out.append(self.gen_loop(c, r.randint(1, d)))
                    if r.random() < 0.2:
                        out += self.gen_assign(c)
                    return out
                items.append(self.gen_loop(ctx, d + 1, var="t", body_fn=tbody))
            elif what == "sred":
                items += self.gen_scalar_reduction(ctx, r.randint(1, maxd))
            else:
                items += self.gen_assign(ctx)
        if self.feat("exotic") and not self.exotic_done:
            items += self.gen_exotic(ctx)
        return items

    # -------------------------------------------------- checking
    def simulate(self, region, post):
        env = {}
        for a in self.arrays:
            env[a.name] = float(a.bound)
        for s in self.sparams + self.scalars + self.consts + self.ro:
            env[s.name] = float(s.bound)
        st = SimState()
        try:
            for s in region + post:
                s.sim(env, st)
        except (OverflowError, ZeroDivisionError) as e:
            raise Reject(str(e))
        for name, b in env.items():
            if not b <= FLOAT_LIMIT:
                raise Reject(f"{name} may reach {b!r:.40}")
        return env

    def gen_post(self):
        """Host code after the region: store some written scalars into arrays."""
        r = self.rng
        post = []
        written = [s for s in self.scalars + [p for p in self.sparams if getattr(p, "writable", False)]
                   if s.written and getattr(s, "liveout", True)]
        for s in written:
            if r.random() < 0.4:
                cands = [a for a in self.arrays if is_float(a.ty) == is_float(s.ty) and a.ty != "unsigned char"
                         and (s.exact or not a.exact)]
                if cands:
                    a = r.choice(cands)
                    subs = [Aff({}, r.randint(0, min(1, self.params[d] - 1))) for d in a.dims]
                    post.append(Assign(Ref(a, subs), r.choice(["=", "+="]), Ref(s)))
        return post

    def generate(self):
        for attempt in range(200):
            try:
                self.setup()
                region = self.gen_top()
                post = self.gen_post()
                self.simulate(region, post)
            except (Reject, OverflowError) as e:
                self.last_reject = str(e)
                continue
            self.attempts = attempt + 1
            return self.render(region, post)
        raise RuntimeError(f"seed {self.seed}: no valid program in 200 attempts ({self.last_reject})")

    # -------------------------------------------------- output
    def decl_array(self, a):
        if a.vla:
            return f"{a.ty} {a.name}" + "".join(f"[{d}]" for d in a.dims)
        return f"{a.ty} {a.name}" + "".join(f"[{self.sizes[d]}]" for d in a.dims)

    def dump_lines(self, a, ref, idx, ind):
        """C lines printing every element of array a (as `ref`) in the dump format."""
        sz = {"n": "N", "m": "M"}
        idx = idx[:len(a.dims)]
        ex = "exact" if a.exact else "inexact"
        L = [f'{ind}fprintf(stderr, "begin dump: {a.name} {a.ty} {ex}\\n");', f"{ind}c = 0;"]
        i2 = ind
        for x, d in zip(idx, a.dims):
            L.append(f"{i2}for ({x} = 0; {x} < {sz[d]}; {x}++)")
            i2 += "  "
        el = ref + "".join(f"[{x}]" for x in idx)
        if is_float(a.ty):
            pr = f'fprintf(stderr, "%.10g ", (double){el});'
        elif a.ty == "long":
            pr = f'fprintf(stderr, "%ld ", {el});'
        else:
            pr = f'fprintf(stderr, "%d ", (int){el});'
        L.append(f"{i2}{{ {pr} if (++c % 10 == 0) fprintf(stderr, \"\\n\"); }}")
        L.append(f'{ind}fprintf(stderr, "\\nend dump: {a.name}\\n");')
        return L

    def render(self, region, post):
        r = self.rng
        P = self.params
        L = []
        L.append(f"/* randprog.py seed {self.seed}: features "
                 + " ".join(k for k, v in sorted(self.features.items()) if v) + " */")
        L.append("#include <stdio.h>\n#include <stdlib.h>\n#include <math.h>\n")
        L.append(f"#define N {P['n']}\n#define M {P['m']}\n#define P {P['p']}\n#define TSTEPS {P['tsteps']}")
        if self.used_minmax_macro:
            L.append("#define MIN(a, b) ((a) < (b) ? (a) : (b))\n#define MAX(a, b) ((a) > (b) ? (a) : (b))")
        L.append("")
        for name in sorted(self.helpers):
            L.append(self.helpers[name])
        if self.helpers:
            L.append("")
        outptr = self.feat("outptr")
        written = [s for s in self.scalars if s.written and s.liveout]
        wparams = [s for s in self.sparams if getattr(s, "writable", False) and s.written]
        params = ["int n", "int m", "int p", "int tsteps"]
        params += [f"{s.ty} {s.name}" for s in self.sparams]
        if outptr:
            params.append("double *res")
        params += [self.decl_array(a) for a in self.arrays if not a.local]
        locals_ = [a for a in self.arrays if a.local]
        L.append("static void kernel_rand(" + ", ".join(params) + ")")
        L.append("{")
        if self.feat("iter_after"):
            L.append("  int i = 0, j = 0, k = 0, l = 0, t = 0;")
        else:
            L.append("  int i, j, k, l, t;")
        if locals_:
            L.append("  int q0, q1, q2, c;")
        if self.exotic_done:
            L.append("  int e0 = 0;")
        for a in locals_:
            dims = "".join(f"[{self.sizes[d]}]" for d in a.dims)
            L.append(f"  {a.ty} {a.name}{dims}" + (" = {0};" if a.zero_init else ";"))
        for s in self.scalars:
            # a live-in value the region never writes would be refused (not a constant)
            init = s.init if s.written else (fmt_float(0.0, s.ty) if is_float(s.ty) else "0")
            L.append(f"  {s.ty} {s.name} = {init};")
        for c in self.consts:
            L.append(f"  {'const ' if c.const_kw else ''}{c.ty} {c.name} = {c.init};")
        for w in self.ro:
            L.append(f"  double {w.name} = {w.init};")
        for a in locals_:
            if a.zero_init:
                continue
            idx = ["q0", "q1", "q2"][:len(a.dims)]
            ind = "  "
            for x, d in zip(idx, a.dims):
                L.append(f"{ind}for ({x} = 0; {x} < {self.sizes[d]}; {x}++)")
                ind += "  "
            init = a.init
            for x, y in zip(["i", "j", "k"], idx):
                init = re.sub(rf"\b{x}\b", y, init)
            L.append(f"{ind}{a.name}" + "".join(f"[{x}]" for x in idx) + f" = {init};")
        for p in self.pre:
            L.append("  " + p)
        L.append("#pragma scop")
        body = []
        for s in region:
            s.emit(body, "  ")
        L += body
        L.append("#pragma endscop")
        out = []
        for s in post:
            s.emit(out, "  ")
        L += out
        if outptr:
            src = [s for s in written if is_float(s.ty)]
            written = [src[0]] + [s for s in written if s is not src[0]] if src else written
            if src:
                L.append(f"  *res = {src[0].name} + 1.0;")
            else:
                L.append(f"  *res = (double)({written[0].name if written else 'n'}) * 0.5;")
        for s in written + wparams:
            fmt, cast = ("%.10g", "(double)") if is_float(s.ty) else ("%d", "")
            ex = "exact" if s.exact else "inexact"
            L.append(f'  fprintf(stderr, "scalar {s.name} {s.ty} {ex}: {fmt}\\n", {cast}{s.name});')
        if self.feat("iter_after"):
            used = []
            for st in region:
                for x in walk_stmts(st):
                    if isinstance(x, Loop) and x.var not in used:
                        used.append(x.var)
            for v in used:
                L.append(f'  fprintf(stderr, "scalar {v} int exact: %d\\n", {v});')
        for a in locals_:
            L += self.dump_lines(a, a.name, ["q0", "q1", "q2"], "  ")
        L.append("}")
        L.append("")
        # main
        L.append("int main(void)")
        L.append("{")
        L.append("  int n = N, m = M, p = P, tsteps = TSTEPS;")
        L.append("  int i, j, k, c;")
        if outptr:
            L.append("  double res = 0.0;")
        sz = {"n": "N", "m": "M"}
        heap = [a for a in self.arrays if not a.local]
        for a in heap:
            dims = "".join(f"[{sz[d]}]" for d in a.dims)
            L.append(f"  {a.ty} (*{a.name}){dims} = malloc(sizeof({a.ty}{dims}));")
        for a in heap:
            idx = ["i", "j", "k"][:len(a.dims)]
            ind = "  "
            for x, d in zip(idx, a.dims):
                L.append(f"{ind}for ({x} = 0; {x} < {sz[d]}; {x}++)")
                ind += "  "
            L.append(f"{ind}(*{a.name})" + "".join(f"[{x}]" for x in idx) + f" = {a.init};")
        args = ["n", "m", "p", "tsteps"] + [self.param_values[s.name] for s in self.sparams]
        if outptr:
            args.append("&res")
        args += [f"*{a.name}" for a in heap]
        L.append(f"  kernel_rand({', '.join(args)});")
        for a in heap:
            L += self.dump_lines(a, f"(*{a.name})", ["i", "j", "k"], "  ")
        if outptr:
            ex = "exact" if all(s.exact for s in written) else "inexact"
            L.append(f'  fprintf(stderr, "scalar res double {ex}: %.10g\\n", res);')
        for a in heap:
            L.append(f"  free({a.name});")
        L.append("  return 0;")
        L.append("}")
        return "\n".join(L) + "\n"


def parse_features(spec, probs):
    for item in filter(None, (spec or "").split(",")):
        on = not item.startswith("-")
        name = item.lstrip("+-")
        if name not in FEATURES:
            raise SystemExit(f"randprog.py: unknown feature '{name}' (known: {', '.join(FEATURES)})")
        probs[name] = 1.0 if on else 0.0
    return probs


def generate(seed, max_stmts=4, max_depth=3, probs=None):
    """The program for this seed, as C text."""
    g = Gen(seed, {"max_stmts": max_stmts, "max_depth": max_depth, "probs": dict(probs or {})})
    return g.generate()


def main():
    ap = argparse.ArgumentParser(description="Random static-control-part C programs.", epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("seed", type=int)
    ap.add_argument("--max-stmts", type=int, default=4, help="most top-level items in the region (default 4)")
    ap.add_argument("--max-depth", type=int, default=3, help="deepest loop nest (default 3)")
    ap.add_argument("--features", default="", help="comma-separated +NAME / -NAME (always / never)")
    ap.add_argument("--prob", action="append", default=[], metavar="NAME=P", help="a feature's probability")
    ap.add_argument("--no-calls", action="store_true", help="same as --features=-calls")
    a = ap.parse_args()
    probs = parse_features(a.features, {})
    for kv in a.prob:
        k, _, v = kv.partition("=")
        if k not in FEATURES:
            raise SystemExit(f"randprog.py: unknown feature '{k}'")
        probs[k] = float(v)
    if a.no_calls:
        probs["calls"] = 0.0
    sys.stdout.write(generate(a.seed, a.max_stmts, a.max_depth, probs))


if __name__ == "__main__":
    main()
