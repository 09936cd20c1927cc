"""Traces: what the ``-DEXPLAINER_TRACE`` build of a kernel recorded (which global element
each thread stored into As / Bs in each phase), read back for the model to be compared with."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .verify import _Problem, _check_on, _launch
from ..model import hopper as hopper_model
from ..model import mma
from . import hopper
from .launch import KERNELS, LaunchConfig, NEVER_WRITTEN, launch_config
from .runtime import _Runtime, _public

# --------------------------------------------------------------------------------------
# Traces: what the -DEXPLAINER_TRACE build recorded
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class KernelTrace:
    """What the kernel itself recorded (layout in kernels/common.cuh).

    Without ``blocks``: ``a``, ``b`` have shape (gy, gx, phases, T, T) indexed
    [by, bx, t, ty, tx] and ``c`` (gy, gx, T, T). For a ladder kernel ``a``/``b`` are
    (gy, gx, phases, slots) indexed by shared slot and ``c`` (gy, gx, threads, outputs per
    thread), as :func:`explainer.model.ladder.predict_trace` predicts them. With ``blocks=[(bx, by), ...]`` the first two
    axes become one axis over the listed blocks. ``a``/``b`` hold ``r*K + c`` / ``r*N + c`` or -1
    (padding zero); ``c`` holds ``row*N + col`` or -2 (never written). The naive kernels record
    ``c`` only (``a`` and ``b`` are ``None``).
    """

    config: LaunchConfig
    a: np.ndarray | None
    b: np.ndarray | None
    c: np.ndarray
    blocks: tuple[tuple[int, int], ...] | None
    rel_error: float  # the trace build's C against numpy float64
    all_written: bool

    ok = True


def _set_pointer(rt: _Runtime, mod, name: str, ptr: int) -> None:
    cp = rt.cp
    slot = cp.ndarray((1,), dtype=cp.uint64, memptr=mod.get_global(name))
    slot[...] = cp.asarray(np.array([ptr], dtype=np.uint64))


#: Kernel 17's trace inputs hold index + 1 as float32: exact below 2^24.
INDEX_CODED_LIMIT = 2**24 - 1


def _launch_index_coded(rt: _Runtime, cfg, kern, map_dtype=None) -> None:
    """A trace build once more, on inputs whose values are their linear index + 1
    (A[r][c] = r * K + c + 1): what it records from each shared slot (kernel 17, its tensor
    maps FLOAT32 so that the TMA copies unrounded) or fragment register (kernel 16, recorded
    before its cvt) is then the index of the element there (0 - 1 = -1: a zero fill)."""
    cp = rt.cp
    A = (cp.arange(cfg.M * cfg.K, dtype=cp.float32) + 1).reshape(cfg.M, cfg.K)
    B = (cp.arange(cfg.K * cfg.N, dtype=cp.float32) + 1).reshape(cfg.K, cfg.N)
    C = cp.empty((cfg.M, cfg.N), dtype=cp.float32)
    _launch(rt, kern, cfg, A, B, C, map_dtype=map_dtype)
    cp.cuda.Device().synchronize()


@_public
def trace(rt: _Runtime, kernel: str, M: int, N: int, K: int, tile: int = 16, *,
          blocks=None, seed: int = 0, splits: int = 1, tail: int = 0, reduce: bool = False,
          pad: bool = False) -> KernelTrace:
    """Launch the trace build of ``kernel`` once and return its recorded shared and C stores.

    ``blocks``: optional list of ``(blockIdx.x, blockIdx.y)`` to return (the whole launch is
    recorded on the device either way; only those blocks come back to the host). ``splits``:
    split-K; every phase is still recorded once, by the block of its slice, and each output by
    the block that adds the slices, so the layout (and the model's prediction) is the same;
    ``tail``: the split tail (only the last ``tail`` tiles split), recorded the same way;
    ``reduce``: split-K whose slices a separate kernel adds (its blocks store no output of C);
    ``pad``: kernel 14 on padded copies of A and / or B (``+pad``; indices still into A and B).
    """
    cfg = launch_config(kernel, M, N, K, tile, splits, tail, pad, reduce)
    spec = KERNELS[kernel]
    cp = rt.cp
    gx, gy = cfg.tile_grid or cfg.grid[:2]  # tiles of C: what the trace is laid out by
    T, P = cfg.tile, cfg.phases
    if spec.rung:  # by shared slot and by output (explainer.model.ladder.predict_trace's layout)
        r = spec.ladder
        shape_a, shape_b = (gy, gx, P, r.slots_a), (gy, gx, P, r.slots_b)
        shape_c = (gy, gx, r.threads, r.outputs_per_thread)
    elif spec.model == "hopper":  # by shared slot and by accumulator (explainer.model.hopper)
        shapes = hopper_model.KERNELS[kernel].trace_shapes(cfg.M, cfg.N, cfg.K)
        shape_a, shape_b, shape_c = shapes["a"], shapes["b"], shapes["c"]
    elif spec.model == "mma":  # by fragment register (explainer.model.mma.predict_trace's layout)
        shapes = mma.KERNELS[kernel].trace_shapes(cfg.M, cfg.N, cfg.K)
        shape_a, shape_b, shape_c = shapes["a"], shapes["b"], shapes["c"]
    elif spec.rect is not None:  # kernel 03b: by shared cell and by thread (explainer.model.rect.RectTile.predict_trace)
        r = spec.rect
        shape_a, shape_b, shape_c = (gy, gx, P, r.cells_a), (gy, gx, P, r.cells_b), (gy, gx, r.TY, r.TX)
    else:
        shape_a = shape_b = (gy, gx, P, T, T) if spec.traces_tiles else None
        shape_c = (gy, gx, T, T)
    index_coded = spec.model == "hopper" or (spec.model == "mma" and mma.KERNELS[kernel].dynamic)
    if index_coded and max(cfg.M * cfg.K, cfg.K * cfg.N) >= INDEX_CODED_LIMIT:
        raise ValueError(f"the trace of {kernel} codes each element's index in its value (exact below "
                         f"2^24): {cfg.M}x{cfg.N}x{cfg.K} has more elements in A or B")
    n_a = int(np.prod(shape_a)) if shape_a else 0
    n_b = int(np.prod(shape_b)) if shape_b else 0
    n_c = int(np.prod(shape_c))
    rt.check_fits(cfg, extra_bytes=4 * (n_a + n_b + n_c))
    if blocks is not None:
        blocks = tuple((int(bx), int(by)) for bx, by in blocks)
        for bx, by in blocks:
            if not (0 <= bx < gx and 0 <= by < gy):
                raise ValueError(f"block (x={bx}, y={by}) is outside the {gx}x{gy} grid")

    mod = rt.module_for(cfg, trace=True)
    kern = mod.get_function(cfg.on_device(rt.sm_count))
    buf_c = cp.full(n_c, NEVER_WRITTEN, dtype=cp.int32)
    buf_a = cp.full(n_a, NEVER_WRITTEN, dtype=cp.int32) if n_a else None
    buf_b = cp.full(n_b, NEVER_WRITTEN, dtype=cp.int32) if n_b else None
    _set_pointer(rt, mod, "g_trace_c", buf_c.data.ptr)
    _set_pointer(rt, mod, "g_trace_a", buf_a.data.ptr if n_a else 0)
    _set_pointer(rt, mod, "g_trace_b", buf_b.data.ptr if n_b else 0)
    prob = _Problem(rt, cfg.M, cfg.N, cfg.K, seed)
    try:
        r = _check_on(rt, cfg, prob, kern=kern)
    finally:
        prob.release(rt)
    if index_coded:  # what landed where, seen in the values themselves
        _launch_index_coded(rt, cfg, kern, hopper.DTYPE_FLOAT32 if spec.model == "hopper" else None)

    def pick(buf, shape):
        if buf is None:
            return None
        arr = buf.reshape(shape)
        if blocks is None:
            return arr.get()
        by = cp.asarray([b[1] for b in blocks])
        bx = cp.asarray([b[0] for b in blocks])
        return arr[by, bx].get()

    out = KernelTrace(
        config=cfg,
        a=pick(buf_a, shape_a),
        b=pick(buf_b, shape_b),
        c=pick(buf_c, shape_c),
        blocks=blocks, rel_error=r["rel_error"], all_written=r["all_written"],
    )
    _set_pointer(rt, mod, "g_trace_a", 0)
    _set_pointer(rt, mod, "g_trace_b", 0)
    _set_pointer(rt, mod, "g_trace_c", 0)
    return out


