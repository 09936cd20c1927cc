"""Scratch: kernel 14 built from several trees (the kernels/ copies in the folders given after
FILE and ROUNDS, e.g. the last commit's, named by their folder; "new": the working tree's), the
same labels timed interleaved per shape (median of 20, L2 flushed), each launch checked against
float64 with C poisoned. Lines of FILE: shape label [label ...]."""
import sys
import numpy as np
from explainer import gpu
from explainer.gpu import launch as L
from explainer.gpu.launch import launch_config, parse_launch
from explainer.gpu.verify import _Problem, _check_on, _launch
from explainer.gpu.timing import _time_loop, _time_cublas_on

rt = gpu.runtime._runtime()
lines = [l.split() for l in open(sys.argv[1]) if l.strip()]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
builds = {}
regs = {}
import pathlib
TREES = {pathlib.Path(a).name: pathlib.Path(a).resolve() for a in sys.argv[3:]}
TREES["new"] = gpu.runtime.KERNELS_DIR
import os
NOCHECK = set(os.environ.get("NOCHECK", "").split(","))  # trees timed without the check (measurement-only builds)
from explainer.model import ladder
_expression = ladder.Rung.expression


def _bool_guard(self, guard, split=False, tail=False, aligned=True):  # a tree from before int GUARD
    e = _expression(self, guard, split, tail, aligned)
    return e[:e.rindex(", ")] + (", true>" if guard else ", false>") if self.splits_k else e


def _no_even(self, *args, even=False, wide=False, **kw):  # a tree from before GUARD 5 (pairs): GUARD 2 on even rows
    return _expression(self, *args, **kw)


def _no_wide(self, *args, wide=False, **kw):  # a tree from before GUARD + 16 (C's rows staged a warp tile wide)
    return _expression(self, *args, **kw)


# Each tree's own splitk_reduce on its own layout (before session 23's patch: a block per 128 floats
# of C, min(S, 8) warps; after: the tree's launch.py layout), switched with the tree being timed.
import cupy as _cp
REDUCE = {}
_layout_new = L.LaunchConfig.reduce_launch
CURRENT = ["new"]
for d, tree in TREES.items():
    src_r = (tree / "splitk_reduce.cu").read_text()
    REDUCE[d] = (_cp.RawModule(code=src_r).get_function("splitk_reduce"), "splits <= 8" in src_r)


def _layout(cfg):
    fn, new_layout = REDUCE[CURRENT[0]]
    if not cfg.reduce or new_layout:
        return _layout_new.fget(cfg)
    return (-(-cfg.M * cfg.N // 128), 1, 1), (32 * min(cfg.splits, 8), 1, 1)


L.LaunchConfig.reduce_launch = property(_layout)
rt.reduce_kernel = lambda: REDUCE[CURRENT[0]][0]
for d, tree in TREES.items():
    rt.modules.clear()
    gpu.runtime.KERNELS_DIR = tree
    src = (tree / "14_warptile.cu").read_text()
    old = "int MINB, bool GUARD>" in src
    ladder.Rung.expression = (_bool_guard if old else _expression if "GW & 15" in src else _no_wide if "GUARD <= 6" in src
                              else _no_even)
    builds[d] = {}
    for sh, *labels in lines:
        M, N, K = (int(x) for x in sh.split("x"))
        for lab in labels:
            name, S, T, pad, red = parse_launch(lab)
            cfg = launch_config(name, M, N, K, 16, S, T, pad, red)
            builds[d][(sh, lab)] = (cfg, rt.kernel(cfg))
            at = builds[d][(sh, lab)][1].attributes
            regs.setdefault(cfg.expression, {})[d] = f"{at['num_regs']}r/{at['local_size_bytes']}B"
for e, v in regs.items():
    print("regs", e, " ".join(f"{d}={x}" for d, x in v.items()), flush=True)
rt.modules.clear()
for sh, *labels in lines:
    M, N, K = (int(x) for x in sh.split("x"))
    prob = _Problem(rt, M, N, K, seed=M + N + K)
    out = {}
    for r in range(rounds):
        cub = _time_cublas_on(rt, prob, repeats=20, warmup=2, budget_s=2.0, flush_l2=True).median_ms
        order = [(d, lab) for lab in labels for d in TREES]
        if r % 2:
            order = order[::-1]
        for d, lab in order:
            cfg, kern = builds[d][(sh, lab)]
            CURRENT[0] = d
            chk = _check_on(rt, cfg, prob, kern=kern)
            assert d in NOCHECK or (chk["all_written"] and chk["rel_error"] < 1e-4), (sh, lab, d, chk)
            ts, _ = _time_loop(rt, lambda: _launch(rt, kern, cfg, prob.A, prob.B, prob.C), repeats=20, warmup=2,
                               budget_s=2.0, flush_l2=True)
            out.setdefault((d, lab), []).append((float(np.median(ts)), cub))
    prob.release(rt)
    row = [sh]
    for lab in labels:
        for d in TREES:
            v = out[(d, lab)]
            ms = np.median([x for x, _ in v]); pct = np.median([100 * c / x for x, c in v])
            row.append(f"{lab}[{d}] {ms:.4f} {pct:.1f}%")
    print(" | ".join(row), flush=True)
