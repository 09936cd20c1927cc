"""Checking a kernel: inputs on the device (outputs poisoned with NaN), the float64 reference
on the host, and the comparison."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ..model import hopper as hopper_model
from . import hopper
from .launch import KERNELS, LaunchConfig, launch_config
from .runtime import _Runtime, _public

# --------------------------------------------------------------------------------------
# Problems: inputs on the device, the float64 reference on the host
# --------------------------------------------------------------------------------------
class _Problem:
    """Random, non-symmetric inputs in [-1, 1) (fresh per seed), C, and the numpy float64
    reference, computed once."""

    def __init__(self, rt: _Runtime, M: int, N: int, K: int, seed: int = 0):
        cp = rt.cp
        rng = np.random.default_rng(seed)
        self.M, self.N, self.K = M, N, K
        self.A_host = rng.uniform(-1.0, 1.0, (M, K)).astype(np.float32)
        self.B_host = rng.uniform(-1.0, 1.0, (K, N)).astype(np.float32)
        self.A = cp.asarray(self.A_host)
        self.B = cp.asarray(self.B_host)
        self.C = cp.empty((M, N), dtype=cp.float32)
        self._ref = self._ref_dev = None

    @property
    def reference(self) -> np.ndarray:
        if self._ref is None:
            self._ref = self.A_host.astype(np.float64) @ self.B_host.astype(np.float64)
        return self._ref

    def check_C(self, rt: _Runtime) -> dict:
        """:func:`_compare` of C (as the last launch left it) with the reference, on the device:
        the numpy float64 reference is copied there once, so that a check moves no C to the host
        (a 4095 x 4095 C took ~0.2 s a check that way; ``tune`` checks every launch it times)."""
        if self._ref_dev is None:
            self._ref_dev = rt.cp.asarray(self.reference)
        return _compare(self.C, self._ref_dev, xp=rt.cp)

    def release(self, rt: _Runtime):
        self.A = self.B = self.C = self._ref_dev = None
        rt.cp.get_default_memory_pool().free_all_blocks()


#: Columns of a padded row that one block of kernels/tuned/pad_rows.cu copies (its CHUNK).
PAD_CHUNK = 1024


def _pad_inputs(rt: _Runtime, cfg: LaunchConfig, A, B) -> tuple:
    """A padded launch's copies (kernels/tuned/pad_rows.cu, one launch): A (where K is not a multiple of
    4) and / or B (where N is not) into the runtime's padded buffers, rows ``cfg.ld`` floats apart.
    Returns (A', B') for the kernel: the matrix itself where it needs no copy; A' points past its
    first row's leading zeros (``lda - K`` of them: K's lead modulo 4, see kernels/tuned/pad_rows.cu)."""
    Ap, Bp = rt.pad_buffers(cfg)
    lda, ldb = cfg.ld
    np32 = np.int32
    # (source, copy, rows, columns, ld, zeros before each row, chunks of PAD_CHUNK columns per row):
    # one block per chunk of a row of the copy
    jobs = ([(A, Ap, cfg.M, cfg.K, lda, lda - cfg.K, -(-lda // PAD_CHUNK))] if Ap is not None else []) + \
           ([(B, Bp, cfg.K, cfg.N, ldb, 0, -(-ldb // PAD_CHUNK))] if Bp is not None else [])
    (s0, d0, rows0, *rest0), (s1, d1, rows1, *rest1) = jobs[0], jobs[-1]
    if len(jobs) == 1:
        rows1 = 0  # job 1 gets no blocks
    blocks = rows0 * rest0[-1] + rows1 * rest1[-1]
    rt.pad_kernel()((blocks,), (256,), (s0, d0, *map(np32, (rows0, *rest0)), s1, d1, *map(np32, rest1)))
    return (A if Ap is None else Ap[lda - cfg.K:]), (B if Bp is None else Bp)


def _launch(rt: _Runtime, kern, cfg: LaunchConfig, A, B, C, map_dtype: int | None = None) -> None:
    rt.allow_dynamic(kern, cfg.dynamic_shared_bytes)
    np32 = np.int32
    if cfg.kernel in hopper_model.KERNELS:  # kernel 17 reads A and B through TMA tensor maps
        k = hopper_model.KERNELS[cfg.kernel]
        A = hopper.tensor_map(rt, A, k.BM, k.BK, map_dtype)
        B = hopper.tensor_map(rt, B, k.BK, k.box_b, map_dtype)
    M, N, K = cfg.M, cfg.N, cfg.K
    if cfg.pad:  # rows padded to 4 floats: the kernel reads the padded copies, stores C in place
        A, B = _pad_inputs(rt, cfg, A, B)
    args = (A, B, C, np32(M), np32(N), np32(K))
    if cfg.ld:  # kernel 14: the rows' strides
        args += (np32(cfg.ld[0]), np32(cfg.ld[1]))
    if cfg.splits > 1:
        W, done = rt.split_workspace(cfg)
        args += (W, np.uint64(0) if cfg.reduce else done)  # +reduce: no tile counters (a null pointer)
    if cfg.tail:  # the split tail: whole tiles first, then the last ones in slices
        args += (np32(cfg.whole_tiles), np32(cfg.splits), np32(cfg.tile_grid[0]))
    kern(cfg.grid, cfg.block[:2], args, shared_mem=cfg.dynamic_shared_bytes)
    if cfg.reduce:  # the slices added over every SM (kernels/tuned/splitk_reduce.cu)
        grid, block = cfg.reduce_launch
        rt.reduce_kernel()(grid, block, (W, C, np.int64(M * N), np32(cfg.splits)))


def _compare(out, ref, xp=np) -> dict:
    """``out`` (float32, NaN where no thread stored) against the float64 ``ref``: both numpy arrays,
    or both on the device with ``xp`` the cupy module (the same float64 sums, computed there)."""
    finite = xp.isfinite(out)
    unwritten = int(out.size - int(xp.count_nonzero(finite)))
    ref_norm = float(xp.linalg.norm(ref))
    diff = out.astype(xp.float64) - ref
    norm = float(xp.linalg.norm(diff))
    rel = norm / ref_norm if ref_norm > 0 else norm
    max_abs = float(xp.max(xp.abs(diff))) if out.size else 0.0
    return {"rel_error": rel, "max_abs_error": max_abs, "all_written": unwritten == 0,
            "unwritten": unwritten}


@dataclass(frozen=True)
class CheckResult:
    kernel: str
    M: int
    N: int
    K: int
    tile: int
    rel_error: float  # ||out - ref|| / ||ref||, Frobenius, against numpy float64 (NaN if unwritten)
    max_abs_error: float
    all_written: bool  # C was NaN-poisoned before the run: every element was stored
    unwritten: int
    tol: float
    seed: int

    ok = True

    @property
    def passed(self) -> bool:
        return self.all_written and self.rel_error <= self.tol

    def to_dict(self) -> dict:
        return {**asdict(self), "passed": self.passed}


def _check_on(rt: _Runtime, cfg: LaunchConfig, prob: _Problem, trace: bool = False, kern=None):
    kern = kern or rt.kernel(cfg, trace)
    prob.C.fill(np.nan)  # poison: an element no thread stores stays NaN
    if cfg.splits > 1:  # and a slice of split-K's workspace that no block stores is read as NaN
        rt.split_workspace(cfg)[0][:cfg.workspace_floats].fill(np.nan)
    for buf in rt.pad_buffers(cfg) if cfg.pad else ():  # and the padded copies: each launch writes them whole
        if buf is not None:
            buf.fill(np.nan)
    _launch(rt, kern, cfg, prob.A, prob.B, prob.C)
    rt.cp.cuda.Device().synchronize()
    return prob.check_C(rt)


#: float32 against float64 with K up to a few thousand lands far below this; TF32 (~3e-4) or a
#: wrong index (~1) do not.
DEFAULT_TOL = 1e-4
#: The tensor-core kernels (TF32 inputs: 10 mantissa bits) land near 3e-4 on uniform inputs; a
#: wrong index still gives ~1. Their sharper check is against the TF32-rounded product
#: (tests/test_gpu_mma.py).
TF32_TOL = 2e-3


def default_tol(kernel: str) -> float:
    return TF32_TOL if kernel in KERNELS and KERNELS[kernel].math == "tf32" else DEFAULT_TOL


def passes(chk: dict, kernel: str) -> bool:
    """Whether a check of ``kernel`` (:func:`_check_on`'s dict) passed: every element of C written
    and the relative error within :func:`default_tol`. What ``benchmark`` records as ``passed``
    and what ``time_launches`` times."""
    return bool(chk["all_written"] and chk["rel_error"] <= default_tol(kernel))


@_public
def check(rt: _Runtime, kernel: str, M: int, N: int, K: int, tile: int = 16, *,
          seed: int = 0, tol: float | None = None, splits: int = 1, tail: int = 0,
          pad: bool = False, reduce: bool = False) -> CheckResult:
    """Run ``kernel`` once on random non-symmetric inputs with C poisoned by NaN and compare
    with numpy float64: relative error and whether every element of C was written. ``splits``:
    split-K (the tuning engine's configurations; their workspace is poisoned too); ``tail``: only the last
    ``tail`` tiles of C split (the split tail); ``pad``: A and / or B (whichever has unaligned
    rows) copied into rows padded to 4 floats first (the copies poisoned too; C stored in place); ``reduce``: split-K's slices added by a separate
    kernel. ``tol``: by default
    the kernel's math (float32, or TF32 for the tensor-core kernels)."""
    tol = default_tol(kernel) if tol is None else tol
    cfg = launch_config(kernel, M, N, K, tile, splits, tail, pad, reduce)
    rt.check_fits(cfg)
    prob = _Problem(rt, cfg.M, cfg.N, cfg.K, seed)
    try:
        r = _check_on(rt, cfg, prob)
    finally:
        prob.release(rt)
    return CheckResult(kernel, cfg.M, cfg.N, cfg.K, cfg.tile, r["rel_error"],
                       r["max_abs_error"], r["all_written"], r["unwritten"], tol, seed)


@_public
def matmul(rt: _Runtime, kernel: str, A, B, tile: int = 16, splits: int = 1, tail: int = 0,
           pad: bool = False, reduce: bool = False) -> np.ndarray:
    """C = A @ B computed by ``kernel`` on the GPU (float32), for the pages' demo matrices."""
    A = np.ascontiguousarray(A, dtype=np.float32)
    B = np.ascontiguousarray(B, dtype=np.float32)
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[0]:
        raise ValueError(f"shapes {A.shape} and {B.shape} do not multiply")
    cfg = launch_config(kernel, A.shape[0], B.shape[1], A.shape[1], tile, splits, tail, pad, reduce)
    rt.check_fits(cfg)
    cp = rt.cp
    dA, dB = cp.asarray(A), cp.asarray(B)
    dC = cp.full((cfg.M, cfg.N), np.nan, dtype=cp.float32)
    _launch(rt, rt.kernel(cfg), cfg, dA, dB, dC)
    return dC.get()


