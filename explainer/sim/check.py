"""Checking a kernel: launches, inputs, the numpy reference, and the report.

:func:`check_kernel` parses the source once, compiles it for each tile, runs every launch on
random non-symmetric float32 inputs (C starts as NaN, as the GPU checks poison it) and compares C
with the float64 numpy product. A launch passes when nothing is reported.

Report kinds (``Problem.kind``):

* ``wrong_result``: elements of C that differ from numpy by more than float32 rounding of a
  K-term sum allows (``K * 2^-22 * (|A| @ |B|)`` per element), or that no thread stored;
* ``race``: two threads access one shared cell, at least one storing, with no barrier between
  (``read-before-write``, ``write-before-read``, ``write-write``); also two threads storing the
  same element of C;
* ``out_of_bounds``: a load or store outside A, B, C or a shared array (per index of a
  multi-dimensional shared array);
* ``barrier_divergence``: a ``__syncthreads()`` that some live threads of a block reach and
  others do not;
* ``uninitialized``: a read of a shared cell that no thread of the block has stored;
* ``step_limit``: the kernel ran past the step budget (an endless loop?); the launch stopped
  there, and the launches after it were not run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..i18n import _
from .dynamic import DynamicShared
from .errors import SimError
from .interp import DEFAULT_MAX_STEPS, MAX_BATCH_THREADS, Program, compile_kernel, run_launch
from .parse import Parsed, parse_source
from .record import Recorder
from .trace import Trace

KINDS = ("wrong_result", "race", "out_of_bounds", "barrier_divergence", "uninitialized", "step_limit")
MAX_TILE = 32  # T*T <= 1024 threads per block
MAX_SIDE = 4096
MAX_WORK = 2 ** 24  # M * N * K the simulator takes (256^3): a CPU interpreter, not a GPU
DEFAULT_TILE = 16
WRONG_EXAMPLES = 3


@dataclass(frozen=True)
class LaunchSpec:
    """One launch with the ladder's geometry: blocks of T x T threads, a grid covering C."""

    M: int
    N: int
    K: int
    tile: int

    @property
    def grid(self) -> tuple[int, int]:
        T = self.tile
        return -(-self.N // T), -(-self.M // T)

    @property
    def label(self) -> str:
        return f"{self.M}x{self.N}x{self.K} T={self.tile}"

    def to_dict(self) -> dict:
        return {"M": self.M, "N": self.N, "K": self.K, "tile": self.tile, "grid": list(self.grid),
                "block": [self.tile, self.tile]}


def as_launch(x) -> LaunchSpec:
    if isinstance(x, LaunchSpec):
        L = x
    else:
        try:
            M, N, K, T = x
        except (TypeError, ValueError):
            raise SimError(_("a launch is (M, N, K, tile), got {value}", value=repr(x))) from None
        L = LaunchSpec(M, N, K, T)
    for name in ("M", "N", "K", "tile"):
        v = getattr(L, name)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise SimError(_("{name} must be a whole number of at least 1, got {value}", name=name, value=repr(v)))
    L = LaunchSpec(int(L.M), int(L.N), int(L.K), int(L.tile))
    if L.tile > MAX_TILE:
        raise SimError(_("tile must be at most {MAX_TILE} (a {tile}x{tile} block has {value3} threads; CUDA allows 1024)", MAX_TILE=MAX_TILE, tile=L.tile, value3=L.tile ** 2))
    if max(L.M, L.N, L.K) > MAX_SIDE or L.M * L.N * L.K > MAX_WORK:
        raise SimError(_("{M}x{N}x{K} is too large to simulate (at most {MAX_SIDE} a side and M*N*K <= {MAX_WORK}, e.g. 256x256x256)", M=L.M, N=L.N, K=L.K, MAX_SIDE=MAX_SIDE, MAX_WORK=MAX_WORK))
    return L


def default_launches(tile: int) -> list[LaunchSpec]:
    """Shapes that catch the usual mistakes: one whole block, one thread, odd shapes with edge
    blocks in both directions (non-square, K not a multiple of T), more than one phase."""
    T = tile
    shapes = [(T, T, T), (1, 1, 1), (35, 79, 19), (17, 5, 33), (2 * T + 1, T + 3, 2 * T + 3)]
    out = []
    for s in shapes:
        L = LaunchSpec(*s, T)
        if L not in out:
            out.append(L)
    return out


# ---- problems and the report -----------------------------------------------------------
def _thr(xy) -> str:
    return f"(x={xy[0]}, y={xy[1]})"


def _phase_text(p) -> str:
    return "-" if p is None else f"t = {p}"


@dataclass
class Problem:
    kind: str
    line: int | None
    message: str
    threads: list  # [[x, y], ...] the threads involved (first example)
    block: list | None  # [x, y]
    phase: int | None
    count: int
    launch: LaunchSpec
    detail: dict = field(default_factory=dict)
    examples: list = field(default_factory=list)
    launches: list = field(default_factory=list)  # labels of every launch where it occurred (merged)

    def key(self) -> tuple:
        d = self.detail
        return (self.kind, self.line, d.get("memory"), d.get("race"), d.get("access"))

    def text(self) -> str:
        where = _("line {n}", n=self.line) if self.line else _("no line")
        thr = " ".join(_thr(t) for t in self.threads) or "-"
        blk = _(" of block {block}", block=_thr(self.block)) if self.block else ""
        runs = self.launches or [self.launch.label]
        more = ((_("{n} time", n=self.count) if self.count == 1 else _("{n} times", n=self.count))
                if self.kind != "wrong_result" else "")
        run = (_("launch {label} and {n} more", label=runs[0], n=len(runs) - 1) if len(runs) > 1 else
               _("launch {label}", label=runs[0]))
        tail = _(", ").join(x for x in (more, run) if x)
        return _("{kind}, {where}, threads {threads}{block}, phase {phase}: {message} ({tail})", kind=self.kind,
                 where=where, threads=thr, block=blk, phase=_phase_text(self.phase), message=self.message, tail=tail)

    def to_dict(self) -> dict:
        out = {"kind": self.kind, "line": self.line, "threads": self.threads, "block": self.block,
               "phase": self.phase, "count": self.count, "message": self.message,
               "launch": self.launch.to_dict(), "launches": self.launches or [self.launch.label]}
        out.update({k: v for k, v in self.detail.items() if k not in out})
        out["examples"] = self.examples
        return out


def _message(kind, detail, ex, count, L: LaunchSpec) -> tuple[str, list]:
    """A problem's sentence and its threads, from its first example."""
    thr = ex.get("thread")
    if kind == "out_of_bounds":
        ext = ex["extent"]
        mem = detail["memory"]
        if len(ext) == 1 and "index" in ex and not isinstance(ex["index"], list):
            outside = (_("{mem} has {n} element", mem=mem, n=ext[0]) if ext[0] == 1 else
                       _("{mem} has {n} elements", mem=mem, n=ext[0]))
        else:
            outside = _("{mem} is {shape}", mem=mem, shape=f"[{']['.join(str(e) for e in ext)}]")
        if detail["access"] == "read":
            return _("thread {thread} reads {where}, outside its array ({outside})", thread=_thr(thr),
                     where=ex['where'], outside=outside), [thr]
        return _("thread {thread} stores into {where}, outside its array ({outside})", thread=_thr(thr),
                 where=ex['where'], outside=outside), [thr]
    if kind == "uninitialized":
        return _("thread {thread} reads {where} before any thread of its block stored it (on a GPU: whatever shared "
                 "memory held)", thread=_thr(thr), where=ex['where']), [thr]
    if kind == "race":
        sub = detail["race"]
        if detail["memory"] in ("A", "B", "C") or "element" in ex:
            other = ex["other"]
            return _("thread {thread} stores {where}, which thread {other} of block {block} also stores (line {line}): "
                     "which value stays depends on the order the blocks run (write-write)", thread=_thr(thr),
                     where=ex['where'], other=_thr(other['thread']), block=_thr(other['block']),
                     line=ex['other_line']), [thr, other["thread"]]
        if sub == "read-before-write":
            return _("thread {reader} reads {where}, which thread {writer} stores on line {line}, with no "
                     "__syncthreads() between: the read may come first (read-before-write)", reader=_thr(ex['reader']),
                     where=ex['where'], writer=_thr(ex['writer']), line=ex['other_line']), [ex["reader"], ex["writer"]]
        if sub == "write-before-read":
            r = ex["readers"]
            who = (_("thread {thread} and {n} more", thread=_thr(r[0]), n=ex['reader_count'] - 1)
                   if ex["reader_count"] > 1 else _("thread {thread}", thread=_thr(r[0])))
            return _("thread {writer} stores {where} while {who} may still read it (line {line}, phase {phase}) with "
                     "no __syncthreads() between: the store may come first (write-before-read)",
                     writer=_thr(ex['writer']), where=ex['where'], who=who, line=ex['other_line'],
                     phase=_phase_text(ex['phase'])), [ex["writer"]] + r[:1]
        other = (_("on this line") if ex["other_line"] == detail.get("line") else
                 _("(the other store: line {line})", line=ex['other_line']))
        return _("threads {writer} and {other_writer} both store {where} {other} with no __syncthreads() between "
                 "(write-write)", writer=_thr(ex['writer']), other_writer=_thr(ex['other_writer']), where=ex['where'],
                 other=other), [ex["writer"], ex["other_writer"]]
    if kind == "barrier_divergence":
        return _("__syncthreads() reached by {reached} of the block's {live} live threads: thread {thread} reaches it, "
                 "thread {missed} does not (on a GPU: a hang or undefined behaviour)", reached=ex['reached'],
                 live=ex['live'], thread=_thr(thr), missed=_thr(ex['missed'])), [thr, ex["missed"]]
    if kind == "step_limit":
        return _("the kernel {why} (an endless loop?) and was stopped here; later launches were not run",
                 why=detail['why']), [thr]
    raise AssertionError(kind)  # pragma: no cover


def _problems(rec: Recorder, L: LaunchSpec) -> list[Problem]:
    out = []
    for g in rec.groups.values():
        ex = g.examples[0] if g.examples else {}
        msg, threads = _message(g.kind, {**g.detail, "line": g.line}, ex, g.count, L)
        out.append(Problem(g.kind, g.line, msg, threads, ex.get("block"), ex.get("phase"), g.count, L,
                           dict(g.detail), list(g.examples)))
    return out


def _wrong_result(C, A, B, run, L: LaunchSpec) -> Problem | None:
    A64, B64 = A.astype(np.float64), B.astype(np.float64)
    ref = A64 @ B64
    tol = max(L.K, 1) * 2.0 ** -22 * (np.abs(A64) @ np.abs(B64)) + 1e-30
    got = C.astype(np.float64)
    bad = ~np.isfinite(got) | (np.abs(got - ref) > tol)
    n = int(bad.sum())
    if n == 0:
        return None
    T = L.tile
    gx = L.grid[0]
    rows, cols = np.nonzero(bad)
    examples, parts = [], []
    for r, c in zip(rows[:WRONG_EXAMPLES], cols[:WRONG_EXAMPLES]):
        r, c = int(r), int(c)
        lin = r * L.N + c
        gt = int(run.c_writer[lin]) if run.c_writer is not None else -1
        val = float(C[r, c])
        ex = {"element": [r, c], "got": None if not np.isfinite(val) else val, "expected": float(ref[r, c])}
        if gt >= 0:
            b, t = divmod(gt, T * T)
            ex.update(block=[b % gx, b // gx], thread=[t % T, t // T], line=int(run.c_line[lin]))
            got_s = f"{val:.6g}" if np.isfinite(val) else str(val)
            parts.append(_("{cell} = {got}, expected {want} (stored by thread {thread} of block {block})",
                           cell=f"C[{r}][{c}]", got=got_s, want=f"{ref[r, c]:.6g}", thread=_thr(ex['thread']),
                           block=_thr(ex['block'])))
        else:
            ex.update(block=None, thread=None, line=None)
            parts.append(_("{cell} was never stored (expected {want})", cell=f"C[{r}][{c}]", want=f"{ref[r, c]:.6g}"))
        examples.append(ex)
    unwritten = int((~np.isfinite(got)).sum())
    first = examples[0]
    msg = (_("{n} of {total} elements of C differ from numpy (float64)", n=n, total=L.M * L.N)
           + (_(", {n} of them NaN or never stored", n=unwritten) if unwritten else "") + _(": ")
           + _("; ").join(parts))
    return Problem("wrong_result", first["line"], msg, [first["thread"]] if first["thread"] else [],
                   first["block"], None, n, L, {"wrong": n, "elements": L.M * L.N, "unwritten": unwritten},
                   examples)


@dataclass
class LaunchResult:
    launch: LaunchSpec
    problems: list
    trace: Trace
    C: np.ndarray
    reference: np.ndarray
    races: dict  # shared-memory race pairs (columns), see Report
    c_races: dict
    stopped: bool
    seconds: float
    steps: int

    @property
    def passed(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict:
        return {**self.launch.to_dict(), "passed": self.passed, "problems": len(self.problems),
                "stopped": self.stopped, "seconds": round(self.seconds, 3)}


@dataclass
class Report:
    """The answer for one kernel: per launch its problems and trace; ``problems`` merges the same
    problem (kind, line, array, access) over the launches."""

    kernel: str
    line: int
    tile: int | None  # the template parameter's value, when the kernel has one
    launches: list
    skipped: list = field(default_factory=list)  # launches not run after a step_limit

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.launches) and not self.skipped

    @property
    def problems(self) -> list[Problem]:
        merged: dict[tuple, Problem] = {}
        for r in self.launches:
            for p in r.problems:
                k = p.key()
                if k in merged:
                    q = merged[k]
                    q.count += p.count
                    q.launches.append(p.launch.label)
                else:
                    q = Problem(p.kind, p.line, p.message, p.threads, p.block, p.phase, p.count, p.launch,
                                dict(p.detail), list(p.examples), [p.launch.label])
                    merged[k] = q
        order = {k: i for i, k in enumerate(KINDS)}
        return sorted(merged.values(), key=lambda p: (order[p.kind], p.line or 0))

    def lines(self) -> list[str]:
        return [p.text() for p in self.problems]

    def to_dict(self) -> dict:
        return {"passed": self.passed, "kernel": self.kernel, "line": self.line,
                "launches": [r.to_dict() for r in self.launches] +
                            [{**L.to_dict(), "passed": False, "skipped": True} for L in self.skipped],
                "problems": [p.to_dict() for p in self.problems]}


def _races(rec: Recorder) -> tuple[dict, dict]:
    cols = ("block", "cell", "phase", "writer", "reader")
    if rec.race_chunks:
        races = {c: np.concatenate([np.broadcast_to(ch[c], (len(ch["block"]),)) for ch in rec.race_chunks])
                 for c in cols}
        races["kind"] = np.concatenate([np.full(len(ch["block"]), ch["kind"]) for ch in rec.race_chunks])
        races["memory"] = np.concatenate([np.full(len(ch["block"]), ch["memory"]) for ch in rec.race_chunks])
        races["line"] = np.concatenate([np.full(len(ch["block"]), ch["line"]) for ch in rec.race_chunks])
    else:
        races = {c: np.zeros(0, np.int64) for c in cols}
        races.update(kind=np.zeros(0, str), memory=np.zeros(0, str), line=np.zeros(0, np.int64))
    if rec.c_race_chunks:
        c_races = {c: np.concatenate([np.asarray(ch[c]) for ch in rec.c_race_chunks])
                   for c in ("element", "writer", "other")}
    else:
        c_races = {c: np.zeros(0, np.int64) for c in ("element", "writer", "other")}
    return races, c_races


def inputs(L: LaunchSpec, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Random non-symmetric float32 A (M x K) and B (K x N) in [-1, 1), fresh per shape."""
    rng = np.random.default_rng([seed, L.M, L.N, L.K])
    return (rng.uniform(-1.0, 1.0, (L.M, L.K)).astype(np.float32),
            rng.uniform(-1.0, 1.0, (L.K, L.N)).astype(np.float32))


def kernel_tile(parsed: Parsed) -> int:
    """The tile a kernel asks for by itself: its template parameter's default, else the square
    of its ``__shared__`` arrays when their size is fixed (``#define TILE 16``), else 16."""
    k = parsed.kernel
    if k.template is not None:
        if k.template.default is not None:
            from .interp import Compiler
            c = Compiler(parsed, DEFAULT_TILE)
            t, f = c.expr(k.template.default)
            if hasattr(f, "cval") and isinstance(f.cval[0], (int, np.integer)) and 1 <= int(f.cval[0]) <= MAX_TILE:
                return int(f.cval[0])
            raise SimError(_("the default of template parameter {name} must be a tile 1..{MAX_TILE}", name=k.template.name, MAX_TILE=MAX_TILE), k.template.line)
        return DEFAULT_TILE
    prog = compile_kernel(parsed, DEFAULT_TILE)
    for m in prog.shared:
        if m.extern:
            continue
        if len(m.dims) == 2 and m.dims[0] == m.dims[1] and m.dims[0] <= MAX_TILE:
            return m.dims[0]
        if len(m.dims) == 1:
            r = int(round(m.dims[0] ** 0.5))
            if r * r == m.dims[0] and r <= MAX_TILE:
                return r
    return DEFAULT_TILE


def load_source(path) -> str:
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise SimError(_("cannot read {p}: {value}", p=p, value=e.strerror or e)) from None
    if len(data) > 256 * 1024:
        from .parse import MAX_SOURCE_BYTES
        raise SimError(_("{p} is {value} bytes; the simulator takes kernels of at most {MAX_SOURCE_BYTES} bytes", p=p, value=len(data), MAX_SOURCE_BYTES=MAX_SOURCE_BYTES))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SimError(_("{p} is not UTF-8 text", p=p)) from None


def check_kernel(source: str, launches=None, *, path=None, tile: int | None = None, seed: int = 0,
                 max_steps: int = DEFAULT_MAX_STEPS, time_limit: float = 20.0,
                 parsed: Parsed | None = None, batch_threads: int = MAX_BATCH_THREADS,
                 reads_for: tuple | None = None, dynamic_shared: str | None = None) -> Report:
    """Run the kernel in ``source`` on ``launches`` (``LaunchSpec`` or ``(M, N, K, tile)``; by
    default :func:`default_launches` of ``tile`` or :func:`kernel_tile`) and report.
    ``batch_threads``: how many threads run together (several blocks; ``1``: one block at a time,
    the same answer, slower). ``reads_for``: ``(M, N, K, tile)`` of a launch whose trace keeps
    every shared-memory read too (the small launch a stepper draws; a row per thread and read).
    ``dynamic_shared``: the floats each launch gives ``extern __shared__`` (the third ``<<< >>>``
    parameter) as an expression in M, N, K, T (:mod:`.dynamic`; default ``2*T*T``).

    Raises :class:`SimError` (one line, with the source line) for bad input: a syntax error, a
    construct outside the subset, a launch that is not one."""
    parsed = parsed or parse_source(source, path)
    if launches is None:
        t = tile if tile is not None else kernel_tile(parsed)
        launches = default_launches(as_launch((1, 1, 1, t)).tile)
    launches = [as_launch(x) for x in launches]
    if not launches:
        raise SimError(_("no launch to run"))
    dyn = DynamicShared.parse(dynamic_shared)
    programs: dict[tuple[int, int], Program] = {}
    keys = []
    for L in launches:  # every compile error before anything runs
        key = (L.tile, dyn.floats(L.M, L.N, L.K, L.tile))
        if key not in programs:
            programs[key] = compile_kernel(parsed, *key)
        keys.append(key)
    k = parsed.kernel
    report = Report(k.name, k.line, launches[0].tile if k.template else None, [])
    for i, L in enumerate(launches):
        prog = programs[keys[i]]
        A, B = inputs(L, seed)
        rec = Recorder(L, L.tile * L.tile, prog.has_phase)
        rec.reads = reads_for is not None and (L.M, L.N, L.K, L.tile) == tuple(reads_for)
        run = run_launch(prog, L, A, B, rec, max_steps=max_steps, time_limit=time_limit,
                         batch_threads=batch_threads)
        problems = _problems(rec, L)
        if not run.stopped:
            w = _wrong_result(run.C, A, B, run, L)
            if w is not None:
                problems.insert(0, w)
        races, c_races = _races(rec)
        report.launches.append(LaunchResult(L, problems, Trace.from_recorder(L, rec, prog), run.C,
                                            A.astype(np.float64) @ B.astype(np.float64), races, c_races,
                                            run.stopped, run.seconds, run.steps))
        if run.stopped:
            report.skipped = launches[i + 1:]
            break
    return report
