"""Arrays for the browser: many numpy arrays packed into one ``bytes`` buffer plus a JSON index.

A view's Python side computes, once per launch, everything its front end draws (from
:mod:`explainer.model`), and sends it as one binary buffer (anywidget hands it to the ES module
as a ``DataView``) with an index ``{name: [dtype, byte offset, shape]}``. ``views/common.js``'s
``unpack`` turns it back into typed arrays. The same pair is embedded (base64) in the exported
static pages, so live and static pages draw from identical data.
"""

from __future__ import annotations

import numpy as np

#: numpy dtype -> the name of the JavaScript typed array ``unpack`` builds for it.
DTYPES = {"int8": "Int8Array", "uint8": "Uint8Array", "int16": "Int16Array", "int32": "Int32Array",
          "float32": "Float32Array", "float64": "Float64Array"}


def pack(arrays: dict[str, np.ndarray]) -> tuple[dict, bytes]:
    """``(index, buffer)``: each array C-contiguous, little-endian, 8-byte aligned."""
    index, parts, offset = {}, [], 0
    for name, a in arrays.items():
        a = np.ascontiguousarray(a)
        if a.dtype == np.bool_:
            a = a.astype(np.uint8)
        if a.dtype.name not in DTYPES:
            raise TypeError(f"{name}: dtype {a.dtype} cannot be sent to the browser")
        a = a.astype(a.dtype.newbyteorder("<"), copy=False)
        raw = a.tobytes()
        index[name] = [a.dtype.name, offset, list(a.shape)]
        pad = (-len(raw)) % 8
        parts.append(raw + b"\0" * pad)
        offset += len(raw) + pad
    return index, b"".join(parts)


def narrow(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The same arrays, each signed integer one in the smallest of int8 / int16 / int32 that holds
    its values (the browser reads any of them alike): a static page then holds more blocks."""
    out = {}
    for name, a in arrays.items():
        if a.dtype.kind == "i" and a.size:
            lo, hi = int(a.min()), int(a.max())
            for t in (np.int8, np.int16, np.int32):
                info = np.iinfo(t)
                if info.min <= lo and hi <= info.max and np.dtype(t).itemsize <= a.dtype.itemsize:
                    a = a.astype(t)
                    break
        out[name] = a
    return out


def unpack(index: dict, buffer: bytes) -> dict[str, np.ndarray]:
    """The inverse of :func:`pack` (the tests read what a view was sent)."""
    out = {}
    for name, (dtype, offset, shape) in index.items():
        n = int(np.prod(shape)) if shape else 1
        a = np.frombuffer(buffer, dtype=np.dtype(dtype).newbyteorder("<"), count=n, offset=offset)
        out[name] = a.reshape(shape)
    return out
