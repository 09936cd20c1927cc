"""Values and masks of the vectorised interpreter.

A value is a pair ``(v, s)``: ``v`` a Python / numpy scalar (the same for every thread of the
batch) or a numpy array with one entry per thread; ``s`` (floats only, else ``None``) says
where a float came from, per thread: ``CONST`` (a literal, e.g. a padding zero), ``COMPUTED``, or
``matrix << MATRIX_SHIFT | index`` for an element loaded from A (1), B (2) or C (3). Shared cells
keep it too, so the trace can say which global element a thread copied into which cell.

A mask says which threads of the batch execute: ``None`` (all of them), ``False`` (none), or a
boolean array. Keeping "all" and "none" as constants lets uniform code (the same branch for every
thread, a loop counter every thread shares) run on scalars, without numpy work per thread.
"""

from __future__ import annotations

import numpy as np

INT, BOOL, FLOAT, DOUBLE, VOID = "int", "bool", "float", "double", "void"
NUMERIC = (INT, BOOL, FLOAT, DOUBLE)
DTYPE = {INT: np.int64, BOOL: np.bool_, FLOAT: np.float32, DOUBLE: np.float64}

CONST = -1  # a float that came from a literal (the padding zero of a guarded load)
COMPUTED = -2  # a float computed from others
MATRIX_SHIFT = 40
MATRICES = {1: "A", 2: "B", 3: "C"}


class Ptr:
    """A pointer's static type: into which memory (``MemSpec``), and whether it points to const."""

    __slots__ = ("mem", "const")

    def __init__(self, mem, const: bool = False):
        self.mem, self.const = mem, const

    def __repr__(self):
        return f"Ptr({self.mem.name})"


def is_ptr(t) -> bool:
    return isinstance(t, Ptr)


# ---- masks ------------------------------------------------------------------------------
def norm(a):
    """A boolean array as a mask: ``None`` when all are set, ``False`` when none is."""
    if a.all():
        return None
    if not a.any():
        return False
    return a


def m_and(m, c):
    """Threads of mask ``m`` where condition ``c`` (a bool scalar or array) holds."""
    if not isinstance(c, np.ndarray):
        return m if c else False
    if m is False:
        return False
    if m is None:
        return norm(c)
    return norm(m & c)


def m_andnot(m, c):
    """Threads of ``m`` where ``c`` does not hold (``c``: a bool scalar, array, or a mask)."""
    if c is None:
        return False
    if c is False:
        return m
    if not isinstance(c, np.ndarray):
        return False if c else m
    if m is False:
        return False
    if m is None:
        return norm(~c)
    return norm(m & ~c)


def m_or(a, b):
    if a is False:
        return b
    if b is False:
        return a
    if a is None or b is None:
        return None
    return norm(a | b)


def m_mask(m, other):
    """``m`` and ``other``, both masks."""
    if other is None:
        return m
    if other is False:
        return False
    return m_and(m, other)


def lanes(m, n):
    """Indices of the threads in mask ``m`` (``None``: all ``n``)."""
    return np.arange(n) if m is None else np.flatnonzero(m)


def where(m, new, old):
    """``new`` where mask ``m`` holds, else ``old`` (either may be a scalar)."""
    if m is None:
        return new
    if m is False:
        return old
    return np.where(m, new, old)


def truth(v):
    """C's truth of a value: a Python bool, or a bool array."""
    if isinstance(v, np.ndarray):
        return v if v.dtype == np.bool_ else v != 0
    return bool(v)


def at(v, i):
    """Thread ``i``'s entry of ``v`` (scalar or per-thread array)."""
    return v[i] if isinstance(v, np.ndarray) else v


# ---- arithmetic with C's semantics ------------------------------------------------------
def convert(v, s, frm, to):
    """``(v, s)`` of type ``frm`` as type ``to`` (C's implicit conversions)."""
    if frm == to or to == VOID:
        return v, s
    if to in (FLOAT, DOUBLE):
        dt = DTYPE[to]
        if isinstance(v, np.ndarray):
            v = v.astype(dt)
        else:
            v = dt(v)
        if frm in (FLOAT, DOUBLE):
            return v, s
        return v, (CONST if s == CONST else COMPUTED) if not isinstance(s, np.ndarray) else COMPUTED
    if to == INT:
        if frm in (FLOAT, DOUBLE):
            if isinstance(v, np.ndarray):
                v = np.where(np.isfinite(v), np.trunc(v), 0).astype(np.int64)
            else:
                v = int(np.trunc(v)) if np.isfinite(v) else 0
        elif isinstance(v, np.ndarray):
            v = v.astype(np.int64)
        else:
            v = int(v)
        return v, (CONST if s is not None and not isinstance(s, np.ndarray) and s == CONST else None)
    if to == BOOL:
        return truth(v), None
    raise TypeError(f"cannot convert {frm} to {to}")  # pragma: no cover - the compiler checks


def int_div(a, b):
    """C's integer division (truncates toward zero); division by zero gives 0 here."""
    if not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray):
        if b == 0:
            return 0
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b > 0) else -q
    b_safe = np.where(b == 0, 1, b)
    q = np.abs(a) // np.abs(b_safe)
    q = np.where((np.asarray(a) >= 0) == (b_safe > 0), q, -q)
    return np.where(b == 0, 0, q)


def int_mod(a, b):
    """C's ``%``: the sign of the dividend (``a - (a / b) * b``)."""
    return a - int_div(a, b) * b


def arith_type(a, b):
    """The usual arithmetic conversions of C, for our types."""
    if DOUBLE in (a, b):
        return DOUBLE
    if FLOAT in (a, b):
        return FLOAT
    return INT
