"""What kernel 17 (Hopper: TMA, mbarrier, wgmma) needs beyond the other kernels: a build for the
architecture-specific target sm_90a, and the two tensor maps its TMA copies read.

* CuPy's ``RawModule`` always compiles for the plain target (``-arch=sm_90``), on which ``wgmma``
  and ``setmaxnreg`` do not exist, so :func:`compile_sm90a` asks NVRTC (the same compiler CuPy
  uses) for an sm_90a cubin and loads it with ``RawModule(path=...)``.
* A tensor map (``CUtensorMap``, 128 bytes) describes a matrix in global memory and the box the
  TMA copies (here with the 128-byte swizzle). The driver encodes it (``cuTensorMapEncodeTiled``,
  called through ctypes: CuPy does not wrap it); it lives in global memory, one per matrix
  buffer and box, cached by the runtime.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import tempfile
from pathlib import Path

import numpy as np

# CUtensorMapDataType / Interleave / Swizzle / L2promotion / FloatOOBfill (cuda.h)
DTYPE_FLOAT32 = 7
DTYPE_TFLOAT32 = 11  # float32 in memory, rounded to TF32 (nearest, ties to even) by the copy
INTERLEAVE_NONE = 0
SWIZZLE_128B = 3
L2_PROMOTION_256B = 3
OOB_FILL_ZERO = 0
MAP_BYTES = 128
#: What the TMA is told the elements are. TFLOAT32: the copy rounds each float to TF32 (measured
#: on the H100: the product equals that of round-to-nearest-even inputs, relative error 2.6e-4 like
#: cuBLAS TF32); FLOAT32 leaves the floats whole and wgmma drops their low 13 bits (6.9e-4).
MAP_DTYPE = DTYPE_TFLOAT32


def compile_sm90a(rt, path: Path, source: str, options: tuple):
    """The module of ``source`` (the file at ``path``) built for sm_90a by NVRTC (a
    ``RawModule``); the cubin is cached on disk by the hash of source and options (like CuPy's
    own cache)."""
    from cupy_backends.cuda.libs import nvrtc

    opts = tuple(options) + ("--gpu-architecture=sm_90a",)
    key = hashlib.sha256(("\0".join(opts) + "\0" + source + str(nvrtc.getVersion())).encode()).hexdigest()[:24]
    cache = Path(os.environ.get("CUPY_CACHE_DIR", Path.home() / ".cupy" / "kernel_cache"))
    cubin_path = cache / f"explainer_{path.stem}_{key}.cubin"
    if not cubin_path.exists():
        prog = nvrtc.createProgram(source, path.name, (), ())
        try:
            try:
                nvrtc.compileProgram(prog, list(opts))
            except Exception:
                raise RuntimeError(nvrtc.getProgramLog(prog)) from None
            cubin = nvrtc.getCUBIN(prog)
        finally:
            nvrtc.destroyProgram(prog)
        cache.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache, suffix=".cubin")
        with os.fdopen(fd, "wb") as f:
            f.write(cubin)
        os.replace(tmp, cubin_path)  # atomic: a concurrent reader sees all of it or nothing
    return rt.cp.RawModule(path=str(cubin_path))


_encode = None


def _encoder():
    global _encode
    if _encode is None:
        lib = ctypes.CDLL("libcuda.so.1")
        fn = lib.cuTensorMapEncodeTiled
        u32p, u64p = ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint64)
        fn.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p, u64p, u64p,
                       u32p, u32p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
        fn.restype = ctypes.c_int
        _encode = fn
    return _encode


def encode_map(ptr: int, rows: int, cols: int, box_rows: int, box_cols: int, dtype: int | None = None) -> bytes:
    """The 128-byte tensor map of a row-major float32 ``rows x cols`` matrix at device address
    ``ptr``, copied in boxes of ``box_rows x box_cols`` with the 128-byte swizzle, rounded to
    TF32 (:data:`MAP_DTYPE`); elements outside the matrix arrive as zeros."""
    if (cols * 4) % 16 or ptr % 16:
        raise ValueError(f"a TMA row must start 16 bytes after the last: {cols} floats per row")
    buf = np.zeros(MAP_BYTES + 64, np.uint8)  # the map must be 64-byte aligned
    off = (-buf.ctypes.data) % 64
    dims = (ctypes.c_uint64 * 2)(cols, rows)  # innermost first
    strides = (ctypes.c_uint64 * 1)(cols * 4)  # bytes from one row to the next
    box = (ctypes.c_uint32 * 2)(box_cols, box_rows)
    step = (ctypes.c_uint32 * 2)(1, 1)
    err = _encoder()(buf.ctypes.data + off, MAP_DTYPE if dtype is None else dtype, 2, ctypes.c_void_p(ptr), dims, strides,
                     box, step, INTERLEAVE_NONE, SWIZZLE_128B, L2_PROMOTION_256B, OOB_FILL_ZERO)
    if err:
        raise RuntimeError(f"cuTensorMapEncodeTiled failed (CUresult {err}) for a {rows} x {cols} "
                           f"matrix, box {box_rows} x {box_cols}")
    return bytes(buf[off:off + MAP_BYTES])


def tensor_map(rt, arr, box_rows: int, box_cols: int, dtype: int | None = None):
    """The device copy of ``arr``'s tensor map (a 2D float32 CuPy array), cached by address,
    shape, box and element type (default :data:`MAP_DTYPE`): a timed loop encodes and uploads
    it once."""
    rows, cols = arr.shape
    dtype = MAP_DTYPE if dtype is None else dtype
    key = (int(arr.data.ptr), rows, cols, box_rows, box_cols, dtype)
    maps = rt.tensor_maps
    if key not in maps:
        if len(maps) > 64:  # old buffers' maps: dropped, not grown without bound
            maps.clear()
        host = np.frombuffer(encode_map(key[0], rows, cols, box_rows, box_cols, dtype), np.uint8)
        maps[key] = rt.cp.asarray(host)
    return maps[key]
