"""The interpreter: a kernel's syntax tree compiled into Python closures, run over all the
threads of a batch of blocks at once.

How a launch runs
  The grid's blocks run in batches (as many as fit in about 8,000 threads). Every per-thread
  variable is one numpy array over the batch's threads (or one scalar while every thread holds
  the same value: a loop counter, ``TILE``, ``M``). Control flow is a *mask* of the threads that
  execute: ``if`` runs each branch with its threads, a loop runs while any thread is still in
  it, ``break`` / ``continue`` / ``return`` take threads out. This is how a GPU runs a warp
  (lockstep with divergence masks), extended to the whole block; since the checks in
  :mod:`.memory` do not depend on the order threads run in between two barriers, the answer is
  the one for every legal schedule.

  ``__syncthreads()`` ends an *epoch* of the blocks whose threads reach it. A barrier that some
  live threads of a block reach and others do not is ``barrier_divergence`` (a thread that has
  returned does not count: on the GPU it no longer takes part).

Types follow C: ``int`` (computed in 64 bits: no 32-bit overflow), ``bool``, ``float``
(float32, as on the GPU; no fused multiply-add unless the kernel calls ``fmaf``), ``double``;
pointers into A, B, C or a shared array, with integer arithmetic on them.

Budget: every statement executed and every loop iteration is a step; a batch that runs past
``max_steps`` (or the time limit) stops with ``step_limit``.

Nothing of the student's text is executed as Python: the compiler builds closures from the
node types it knows and refuses every other node with a one-line :class:`SimError`.
"""

from __future__ import annotations

import operator
import time
from dataclasses import dataclass, field

import numpy as np

from ..i18n import _
from .errors import SimError
from .memory import GlobalMem, SharedMem
from .parse import Parsed, line_of, text
from .record import Recorder
from .values import (BOOL, COMPUTED, CONST, DOUBLE, DTYPE, FLOAT, INT, NUMERIC, VOID, Ptr, arith_type,
                     convert, int_div, int_mod, is_ptr, m_and, m_andnot, m_mask, m_or, truth)

MAX_DEPTH = 120  # nesting of statements and expressions the compiler follows
DEFAULT_MAX_STEPS = 200_000
MAX_BATCH_THREADS = 8192
MAX_BATCH_BYTES = 32 * 2**20  # shared-memory bookkeeping per batch
MAX_STATIC_SHARED = 48 * 1024  # bytes of static __shared__ arrays a block may declare (as nvcc)

BUILTIN_VECTORS = ("threadIdx", "blockIdx", "blockDim", "gridDim")
MATH = ("min", "max", "fminf", "fmaxf", "fmin", "fmax", "abs", "fabsf", "fabs", "sqrtf", "sqrt",
        "expf", "exp", "floorf", "floor", "ceilf", "ceil", "fmaf", "__fmaf_rn")

_WORDS = {
    "switch_statement": "a switch statement", "goto_statement": "goto", "labeled_statement": "a label",
    "case_statement": "a case label", "lambda_expression": "a lambda", "new_expression": "new",
    "delete_expression": "delete", "string_literal": "a string", "char_literal": "a character literal",
    "concatenated_string": "a string", "initializer_list": "an initializer list {...}",
    "template_function": "a template call", "qualified_identifier": "a name with ::",
    "field_expression": "member access (.)", "throw_statement": "throw", "try_statement": "try",
    "co_return_statement": "co_return", "compound_literal_expression": "a compound literal",
    "cast_expression": "this cast", "gnu_asm_expression": "inline asm", "attributed_statement": "an attribute",
    "user_defined_literal": "a user-defined literal", "null": "nullptr", "this": "this",
    "offsetof_expression": "offsetof", "generic_expression": "_Generic", "alignof_expression": "alignof",
    "type_definition": "typedef", "struct_specifier": "a struct", "class_specifier": "a class",
    "using_declaration": "using", "alias_declaration": "using", "static_assert_declaration": "static_assert",
    "for_range_loop": "a range-based for loop", "seh_try_statement": "__try",
}


def _what(node) -> str:
    return _WORDS.get(node.type, node.type.replace("_", " "))


def unsupported(node, what: str | None = None) -> SimError:
    return SimError(_("{value} is outside the simulator's subset", value=what or _what(node)), line_of(node))


class StepLimit(Exception):
    def __init__(self, line: int, mask, why: str):
        super().__init__(why)
        self.line, self.mask, self.why = line, mask, why


# ---- compile-time symbols -----------------------------------------------------------------
@dataclass(eq=False)
class MemSpec:
    """An array the kernel can reach: A, B, C (global) or a ``__shared__`` array."""

    name: str
    kind: str  # "global" | "shared"
    elem: str  # FLOAT | INT
    dims: tuple
    line: int
    index: int
    const: bool = False
    extern: bool = False
    matrix: int = 0  # 1 A, 2 B, 3 C

    @property
    def size(self) -> int:
        return int(np.prod(self.dims)) if self.dims else 0


class VarSym:
    __slots__ = ("slot", "ctype", "const", "name")

    def __init__(self, slot, ctype, const, name):
        self.slot, self.ctype, self.const, self.name = slot, ctype, const, name


class ConstSym:
    __slots__ = ("value", "ctype", "name")

    def __init__(self, value, ctype, name):
        self.value, self.ctype, self.name = value, ctype, name


class ArraySym:
    __slots__ = ("mem",)

    def __init__(self, mem):
        self.mem = mem


@dataclass(eq=False)
class LoopInfo:
    line: int
    nested: bool  # inside another loop
    marked: bool = False  # holds a __syncthreads() or a store into shared memory
    is_phase: bool = False


def _const(ctype, v, s=None):
    def f(st, m):
        return v, s
    f.cval = (v, s)
    f.ctype = ctype
    return f


def _is_const(f) -> bool:
    return hasattr(f, "cval")


def _conv(fn, frm, to):
    """``fn``'s value converted from type ``frm`` to ``to`` (folded when ``fn`` is constant)."""
    if frm == to or to == VOID:
        return fn
    if _is_const(fn):
        v, s = convert(*fn.cval, frm, to)
        return _const(to, v, s)

    def f(st, m):
        v, s = fn(st, m)
        return convert(v, s, frm, to)
    return f


def _shl(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.left_shift(a, np.clip(b, 0, 63))
    return a << b if 0 <= b < 64 else 0


def _shr(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.right_shift(a, np.clip(b, 0, 63))
    return a >> b if 0 <= b < 64 else (0 if a >= 0 else -1)


ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul}
INT_OPS = {"%": int_mod, "<<": _shl, ">>": _shr, "&": operator.and_, "|": operator.or_, "^": operator.xor}
COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
           "==": operator.eq, "!=": operator.ne}


def _inb(i, d):
    """Whether index ``i`` (scalar or array) lies in ``0 .. d-1``."""
    if isinstance(i, np.ndarray):
        return i.view(np.uint64) < d  # a negative index is a huge unsigned one
    return 0 <= i < d


def _all_ok(ok):
    if isinstance(ok, np.ndarray):
        return True if ok.all() else ok
    return bool(ok)


# ---- the compiled program --------------------------------------------------------------
@dataclass(eq=False)
class Program:
    name: str
    line: int
    T: int
    mems: list  # MemSpec by index
    n_slots: int
    body: object
    param_slots: list  # slots of A, B, C, M, N, K
    loops: list
    has_phase: bool
    dyn_floats: int

    @property
    def shared(self) -> list:
        return [m for m in self.mems if m.kind == "shared"]


class Access:
    """A memory location in an expression: which array, and a closure giving (flat, ok, parts)."""

    __slots__ = ("mem", "addr", "ctype", "line", "name")

    def __init__(self, mem, addr, ctype, line, name):
        self.mem, self.addr, self.ctype, self.line, self.name = mem, addr, ctype, line, name


class VarLV:
    __slots__ = ("slot", "ctype", "name")
    is_mem = False

    def __init__(self, sym):
        self.slot, self.ctype, self.name = sym.slot, sym.ctype, sym.name

    def locate(self, st, m):
        return None

    def get(self, st, m, loc):
        return st.slots[self.slot]

    def put(self, st, m, loc, v, s):
        slot = self.slot
        if m is None or m is st.declmask[slot]:
            st.slots[slot] = (v, s)
        else:
            ov, os_ = st.slots[slot]
            st.slots[slot] = (np.where(m, v, ov), None if s is None else np.where(m, s, os_))


class MemLV:
    __slots__ = ("acc", "ctype", "name")
    is_mem = True

    def __init__(self, acc):
        self.acc, self.ctype, self.name = acc, acc.ctype, acc.name

    def locate(self, st, m):
        return self.acc.addr(st, m)

    def get(self, st, m, loc):
        flat, ok, parts = loc
        v, s = st.mem[self.acc.mem.index].load(st, m, flat, ok, self.acc.line, parts)
        return (v, s) if self.ctype in (FLOAT, DOUBLE) else (v, None)

    def put(self, st, m, loc, v, s):
        flat, ok, parts = loc
        st.mem[self.acc.mem.index].store(st, m, flat, ok, v, COMPUTED if s is None else s, self.acc.line, parts)


# ---- the compiler -----------------------------------------------------------------------
class Compiler:
    def __init__(self, parsed: Parsed, tile: int, dyn_floats: int | None = None):
        self.parsed = parsed
        self.k = parsed.kernel
        self.T = int(tile)
        self.dyn_floats = int(dyn_floats if dyn_floats is not None else 2 * self.T * self.T)
        self.scopes: list[dict] = [{}]
        self.n_slots = 0
        self.mems: list[MemSpec] = []
        self.depth = 0
        self.loop_stack: list[LoopInfo] = []
        self.loops: list[LoopInfo] = []

    # ---- scopes ---------------------------------------------------------------------------
    def lookup(self, name):
        for sc in reversed(self.scopes):
            if name in sc:
                return sc[name]
        return None

    def declare(self, name, sym, node):
        if name in self.scopes[-1]:
            raise SimError(_("'{name}' is declared twice in one scope", name=name), line_of(node))
        if name in BUILTIN_VECTORS:
            raise SimError(_("'{name}' is a CUDA built-in and cannot be declared", name=name), line_of(node))
        self.scopes[-1][name] = sym

    def new_slot(self) -> int:
        self.n_slots += 1
        return self.n_slots - 1

    def enter(self, node):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise SimError(_("the code is nested more than {MAX_DEPTH} levels deep", MAX_DEPTH=MAX_DEPTH), line_of(node))

    def mark_loops(self):
        for info in self.loop_stack:
            info.marked = True

    # ---- the kernel ---------------------------------------------------------------------------
    def compile(self) -> Program:
        k = self.k
        if k.template is not None:
            self.scopes[0][k.template.name] = ConstSym(self.T, INT, k.template.name)
        for d in self.parsed.file_decls:
            self.file_declaration(d)
        self.scopes.append({})
        slots = []
        names = k.params
        for i, (name, mat) in enumerate(zip(names[:3], (1, 2, 3))):
            const = k.const_inputs[i] if i < 2 else False
            mem = MemSpec(name, "global", FLOAT, (), k.line, len(self.mems), const=const, matrix=mat)
            self.mems.append(mem)
            slot = self.new_slot()
            self.declare(name, VarSym(slot, Ptr(mem, const), False, name), k.node)
            slots.append(slot)
        for name in names[3:]:
            slot = self.new_slot()
            self.declare(name, VarSym(slot, INT, False, name), k.node)
            slots.append(slot)
        body = self.statement(k.node.child_by_field_name("body"))
        for info in self.loops:
            info.is_phase = info.marked and not info.nested
        return Program(k.name, k.line, self.T, self.mems, self.n_slots, body, slots, self.loops,
                       any(i.is_phase for i in self.loops), self.dyn_floats)

    def file_declaration(self, node):
        d = node.child_by_field_name("declarator")
        if d is not None and d.type == "function_declarator":
            return  # a prototype
        if any(c.type == "function_declarator" for c in node.children_by_field_name("declarator")):
            return
        fn = self.declaration(node, file_scope=True)
        if fn is not None:
            raise unsupported(node, "a global variable that is not __shared__ or a constant")

    # ---- types --------------------------------------------------------------------------------
    def qualifiers(self, node) -> set:
        out = set()
        for c in node.children:
            if c.type in ("type_qualifier", "storage_class_specifier"):
                out.add(text(c))
            elif not c.is_named and c.type not in (";", ","):
                out.add(c.type)  # __device__, __constant__, ...
        return out

    def base_type(self, tnode):
        if tnode is None:
            raise SimError(_("a declaration without a type"), None)
        name = " ".join(text(tnode).split())
        if tnode.type == "primitive_type":
            if name in ("int", "char", "short", "long", "size_t", "ssize_t", "ptrdiff_t", "int32_t",
                        "int64_t", "uint32_t", "uint64_t", "int8_t", "uint8_t", "int16_t", "uint16_t"):
                return INT
            return {"float": FLOAT, "double": DOUBLE, "bool": BOOL, "void": VOID}.get(name) or \
                self._bad_type(tnode, name)
        if tnode.type == "sized_type_specifier":
            return DOUBLE if "double" in name else INT
        if tnode.type == "type_identifier" and name in ("size_t", "uint", "ssize_t", "ptrdiff_t"):
            return INT
        if tnode.type == "placeholder_type_specifier" or name == "auto":
            return "auto"
        return self._bad_type(tnode, name)

    def _bad_type(self, node, name):
        name = name if len(name) <= 40 else name[:40] + "..."
        raise SimError(_("the type {name} is outside the simulator's subset (int, float, double, bool and pointers to float)", name=name), line_of(node))

    # ---- declarations -------------------------------------------------------------------------
    def declaration(self, node, file_scope=False):
        """A closure initialising the declared variables (None when nothing runs)."""
        quals = self.qualifiers(node)
        bad = quals & {"__device__", "__constant__", "__managed__", "thread_local", "__global__"}
        if bad:
            raise unsupported(node, f"a {sorted(bad)[0]} variable")
        base = self.base_type(node.child_by_field_name("type"))
        fns = []
        for d in node.children_by_field_name("declarator"):
            f = self.declarator(d, base, quals, file_scope)
            if f is not None:
                fns.append(f)
        if not fns:
            return None
        if len(fns) == 1:
            return fns[0]

        def run(st, m):
            for f in fns:
                f(st, m)
            return m
        return run

    def declarator(self, d, base, quals, file_scope):
        init = None
        line = line_of(d)
        if d.type == "init_declarator":
            init = d.child_by_field_name("value")
            d = d.child_by_field_name("declarator")
        shared = "__shared__" in quals
        const = bool(quals & {"const", "constexpr"})
        if d.type == "array_declarator":
            return self.shared_array(d, base, quals, init)
        if shared:
            raise unsupported(d, "a __shared__ variable that is not an array")
        if d.type == "pointer_declarator":
            inner = d.child_by_field_name("declarator")
            if inner is None or inner.type != "identifier":
                raise unsupported(d, "a pointer to a pointer (or to an array)")
            return self.pointer_var(text(inner), base, const, init, d, file_scope)
        if d.type != "identifier":
            raise unsupported(d)
        name = text(d)
        if base == VOID:
            raise SimError(_("'{name}' cannot be void", name=name), line)
        it = fn = None
        if init is not None:
            if init.type in ("initializer_list", "argument_list"):
                raise unsupported(init)
            it, fn = self.expr(init)
            if base == "auto":
                base = it
            self.check_assign(it, base, init)
            fn = _conv(fn, it, base)
        elif base == "auto":
            raise SimError(_("'auto {name}' needs an initializer", name=name), line)
        if const and fn is not None and _is_const(fn):
            self.declare(name, ConstSym(fn.cval[0], base, name), d)
            return None
        if file_scope:
            raise unsupported(d, "a global variable that is not __shared__ or a constant")
        if const and fn is None:
            raise SimError(_("const '{name}' needs an initializer", name=name), line)
        slot = self.new_slot()
        self.declare(name, VarSym(slot, base, const, name), d)
        if fn is None:
            undef = (np.float32(np.nan), COMPUTED) if base == FLOAT else \
                (np.float64(np.nan), COMPUTED) if base == DOUBLE else (0, None)

            def run(st, m):
                st.slots[slot] = undef
                st.declmask[slot] = m
                return m
            return run

        def run(st, m):
            st.slots[slot] = fn(st, m)
            st.declmask[slot] = m
            return m
        return run

    def pointer_var(self, name, base, const, init, node, file_scope):
        if file_scope:
            raise unsupported(node, "a global pointer")
        if init is None:
            raise SimError(_("pointer '{name}' must be initialised where it is declared (e.g. float* As = smem;)", name=name), line_of(node))
        it, fn = self.expr(init)
        if not is_ptr(it):
            raise SimError(_("'{name}' is a pointer: its initializer must point into A, B, C or a __shared__ array", name=name), line_of(node))
        if it.mem.elem != base:
            raise SimError(_("'{name}' points to {base}, its initializer to {elem}", name=name, base=base, elem=it.mem.elem), line_of(node))
        if it.const and not const:
            raise SimError(_("'{name}' drops const: {name2} points to const {base}", name=name, name2=it.mem.name, base=base), line_of(node))
        slot = self.new_slot()
        self.declare(name, VarSym(slot, Ptr(it.mem, const), False, name), node)

        def run(st, m):
            st.slots[slot] = fn(st, m)
            st.declmask[slot] = m
            return m
        return run

    def shared_array(self, d, base, quals, init):
        line = line_of(d)
        if "__shared__" not in quals:
            raise unsupported(d, "a per-thread (local) array")
        if init is not None:
            raise SimError(_("a __shared__ array cannot have an initializer"), line)
        if base not in (FLOAT, INT):
            raise unsupported(d, f"a __shared__ array of {base}")
        sizes = []
        while d.type == "array_declarator":
            sizes.append(d.child_by_field_name("size"))
            d = d.child_by_field_name("declarator")
        if d.type != "identifier":
            raise unsupported(d, "this array declarator")
        name = text(d)
        sizes.reverse()
        extern = "extern" in quals
        if extern:
            if len(sizes) != 1 or sizes[0] is not None:
                raise SimError(_("extern __shared__ {name} must be declared as {name}[]", name=name), line)
            if base != FLOAT:
                raise unsupported(d, "extern __shared__ memory of another type than float")
            dims = (self.dyn_floats,)
        else:
            dims = []
            for s in sizes:
                if s is None:
                    raise SimError(_("__shared__ {name}[]: the size is missing (or declare it extern)", name=name), line)
                t, f = self.expr(s)
                if t not in (INT, BOOL) or not _is_const(f):
                    raise SimError(_("the size of __shared__ {name} must be a constant (a literal, a #define or the template parameter)", name=name), line)
                v = int(f.cval[0])
                if v < 1:
                    raise SimError(_("__shared__ {name}: size {v} must be at least 1", name=name, v=v), line)
                dims.append(v)
            dims = tuple(dims)
            used = 4 * (int(np.prod(dims)) + sum(m.size for m in self.mems if m.kind == "shared" and not m.extern))
            if used > MAX_STATIC_SHARED:
                raise SimError(_("__shared__ {name}: the kernel's static shared arrays take {used} bytes; CUDA allows {MAX_STATIC_SHARED} (48 KB) a block", name=name, used=used, MAX_STATIC_SHARED=MAX_STATIC_SHARED), line)
        mem = MemSpec(name, "shared", base, dims, line, len(self.mems), extern=extern)
        self.mems.append(mem)
        self.declare(name, ArraySym(mem), d)
        return None

    # ---- statements ---------------------------------------------------------------------------
    def statement(self, node):
        self.enter(node)
        try:
            h = getattr(self, "s_" + node.type, None)
            if h is None:
                raise unsupported(node)
            return h(node)
        finally:
            self.depth -= 1

    def s_compound_statement(self, node):
        self.scopes.append({})
        fns, lines = [], []
        for c in node.named_children:
            if c.type == "comment":
                continue
            f = self.statement(c)
            if f is not None:
                fns.append(f)
                lines.append(line_of(c))
        self.scopes.pop()
        pairs = list(zip(fns, lines))

        def run(st, m):
            for f, line in pairs:
                if m is False:
                    return False
                st.steps += 1
                if st.steps > st.check_at:
                    st.over(line, m)
                m = f(st, m)
            return m
        return run

    def s_declaration(self, node):
        return self.declaration(node)

    def s_expression_statement(self, node):
        kids = [c for c in node.named_children if c.type != "comment"]
        if not kids:
            return None
        e = kids[0]
        if e.type == "call_expression" and text(e.child_by_field_name("function")) == "__syncthreads":
            args = [a for a in e.child_by_field_name("arguments").named_children if a.type != "comment"]
            if args:
                raise SimError(_("__syncthreads() takes no arguments"), line_of(e))
            self.mark_loops()
            line = line_of(e)

            def sync(st, m):
                st.barrier(m, line)
                return m
            return sync
        _t, fn = self.expr(e)

        def run(st, m):
            fn(st, m)
            return m
        return run

    def condition(self, node):
        """A condition clause / expression as a closure giving C's truth per thread."""
        if node.type == "condition_clause":
            val = node.child_by_field_name("value")
            if val is None or val.type == "declaration":
                raise unsupported(node, "a declaration inside a condition")
            node = val
        t, fn = self.expr(node)
        if t not in NUMERIC and not is_ptr(t):
            raise SimError(_("a condition must be a number or a bool"), line_of(node))
        return fn

    def s_if_statement(self, node):
        if any(c.type == "constexpr" for c in node.children):
            raise unsupported(node, "if constexpr")
        cond = self.condition(node.child_by_field_name("condition"))
        then = self.statement(node.child_by_field_name("consequence")) or (lambda st, m: m)
        alt = node.child_by_field_name("alternative")
        els = None
        if alt is not None:
            inner = [c for c in alt.named_children if c.type != "comment"]
            els = self.statement(inner[0]) if inner else None

        def run(st, m):
            c = truth(cond(st, m)[0])
            if not isinstance(c, np.ndarray):
                if c:
                    return then(st, m)
                return els(st, m) if els is not None else m
            mt = m_and(m, c)
            mf = m_andnot(m, c)
            ot = then(st, mt) if mt is not False else False
            of = (els(st, mf) if els is not None else mf) if mf is not False else False
            if ot is mt and of is mf:
                return m  # every thread went on: the same mask (keeps scalars scalar)
            return m_or(ot, of)
        return run

    def _loop(self, node, init, cond, update, body_node, do_first=False):
        info = LoopInfo(line_of(node), nested=bool(self.loop_stack))
        self.loops.append(info)
        self.loop_stack.append(info)
        body = self.statement(body_node) or (lambda st, m: m)
        self.loop_stack.pop()
        line = info.line

        def run(st, m):
            if init is not None:
                init(st, m)
            ctx = [False, line]  # the threads that ran `continue` this iteration; the loop's line
            st.loops.append(ctx)
            active = m
            first = do_first
            st.in_phase += info.is_phase
            try:
                while True:
                    if first:
                        first = False
                    elif cond is not None:
                        c = truth(cond(st, active)[0])
                        if not isinstance(c, np.ndarray):
                            if not c:
                                break
                        else:
                            active = m_and(active, c)
                            if active is False:
                                break
                    st.steps += 1
                    if st.steps > st.check_at:
                        st.over(line, active)
                    ctx[0] = False
                    nxt = body(st, active)
                    if ctx[0] is not False:
                        nxt = m_or(nxt, ctx[0])
                    if info.is_phase:  # the threads that finished this iteration start the next phase
                        if nxt is None:
                            st.phase = st.phase + 1
                        elif nxt is not False:
                            st.phase = np.where(nxt, st.phase + 1, st.phase)
                    if nxt is False:
                        break
                    if update is not None:
                        update(st, nxt)
                    active = nxt
            finally:
                st.loops.pop()
                st.in_phase -= info.is_phase
            # every thread that entered and has not returned goes on after the loop
            return m_mask(m, st.live)
        return run

    def s_for_statement(self, node):
        self.scopes.append({})
        init_node = node.child_by_field_name("initializer")
        init = None
        if init_node is not None:
            if init_node.type == "declaration":
                init = self.declaration(init_node)
            else:
                _t, fi = self.expr(init_node)
                init = fi
        c = node.child_by_field_name("condition")
        cond = self.condition(c) if c is not None else None
        u = node.child_by_field_name("update")
        update = self.expr(u)[1] if u is not None else None
        run = self._loop(node, init, cond, update, node.child_by_field_name("body"))
        self.scopes.pop()
        return run

    def s_while_statement(self, node):
        cond = self.condition(node.child_by_field_name("condition"))
        return self._loop(node, None, cond, None, node.child_by_field_name("body"))

    def s_do_statement(self, node):
        cond = self.condition(node.child_by_field_name("condition"))
        return self._loop(node, None, cond, None, node.child_by_field_name("body"), do_first=True)

    def s_break_statement(self, node):
        if not self.loop_stack:
            raise SimError(_("break outside a loop"), line_of(node))
        return lambda st, m: False  # the threads leave the loop: they are not in its next mask

    def s_continue_statement(self, node):
        if not self.loop_stack:
            raise SimError(_("continue outside a loop"), line_of(node))

        def run(st, m):
            ctx = st.loops[-1]
            ctx[0] = m_or(ctx[0], m)
            return False
        return run

    def s_return_statement(self, node):
        if [c for c in node.named_children if c.type != "comment"]:
            raise SimError(_("a __global__ kernel returns void: 'return;' takes no value"), line_of(node))

        def run(st, m):
            st.retire(m)
            return False
        return run

    def s_comment(self, node):
        return None

    # ---- expressions --------------------------------------------------------------------------
    def expr(self, node):
        """``(ctype, closure)``; ``closure(st, mask) -> (value, src)``."""
        self.enter(node)
        try:
            h = getattr(self, "e_" + node.type, None)
            if h is None:
                raise unsupported(node)
            return h(node)
        finally:
            self.depth -= 1

    def e_parenthesized_expression(self, node):
        kids = [c for c in node.named_children if c.type != "comment"]
        if len(kids) != 1:
            raise unsupported(node)
        return self.expr(kids[0])

    def e_number_literal(self, node):
        s = text(node).replace("'", "")
        low = s.lower()
        hexa = low.startswith("0x")
        if not hexa and ("." in s or "e" in low or low.endswith("f")):
            body = s.rstrip("fFlL")
            try:
                val = float(body)
            except ValueError:
                raise SimError(_("cannot read the number {value}", value=repr(s)), line_of(node)) from None
            if low.endswith("f"):
                return FLOAT, _const(FLOAT, np.float32(val), CONST)
            return DOUBLE, _const(DOUBLE, np.float64(val), CONST)
        from .preprocess import parse_int
        v = parse_int(s, line_of(node))
        if v >= 2**63:
            raise SimError(_("the number {s} is too large", s=s), line_of(node))
        return INT, _const(INT, v, CONST)

    def e_true(self, node):
        return BOOL, _const(BOOL, True)

    def e_false(self, node):
        return BOOL, _const(BOOL, False)

    def undeclared(self, node, name):
        if name == self.k.name:
            raise SimError(_("{name} calls itself: recursion (and any function call) is outside the simulator's subset", name=name), line_of(node))
        if name in self.parsed.functions:
            raise SimError(_("{name}() is a function of the file: the simulator runs the kernel alone (__device__ functions are outside its subset)", name=name), line_of(node))
        raise SimError(_("'{name}' is not declared", name=name), line_of(node))

    def e_identifier(self, node):
        name = text(node)
        sym = self.lookup(name)
        if sym is None:
            if name == "warpSize":
                return INT, lambda st, m: (32, None)  # a run-time value in CUDA, not a constant
            if name in BUILTIN_VECTORS:
                raise SimError(_("{name} needs a component: {name}.x or {name}.y", name=name), line_of(node))
            self.undeclared(node, name)
        if isinstance(sym, ConstSym):
            return sym.ctype, _const(sym.ctype, sym.value, CONST if sym.ctype in (FLOAT, DOUBLE, INT) else None)
        if isinstance(sym, VarSym):
            slot = sym.slot

            def read(st, m):
                return st.slots[slot]
            return sym.ctype, read
        mem = sym.mem  # an array used as a pointer to its first element
        return Ptr(mem, False), _const(Ptr(mem, False), 0)

    def e_field_expression(self, node):
        arg = node.child_by_field_name("argument")
        fld = node.child_by_field_name("field")
        if arg is None or fld is None or arg.type != "identifier" or text(arg) not in BUILTIN_VECTORS \
                or self.lookup(text(arg)) is not None:
            raise unsupported(node)
        if any(c.type == "->" for c in node.children):
            raise unsupported(node)
        vec, comp = text(arg), text(fld)
        if comp not in ("x", "y", "z"):
            raise SimError(_("{vec}.{comp}: the components are x, y and z", vec=vec, comp=comp), line_of(node))
        T = self.T
        if vec == "blockDim" or comp == "z":
            # known here, but not a compile-time constant in CUDA (no __shared__ size from it)
            v = (T if comp != "z" else 1) if vec == "blockDim" else (1 if vec == "gridDim" else 0)

            def fixed(st, m):
                return v, None
            return INT, fixed
        get = operator.attrgetter({"threadIdx": "t", "blockIdx": "b", "gridDim": "g"}[vec] + comp)

        def read(st, m):  # BatchState.tx / ty / bx / by / gx / gy
            return get(st), None
        return INT, read

    def e_binary_expression(self, node):
        op = node.child_by_field_name("operator").type
        L, R = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op in ("&&", "||"):
            return self.logical(op, L, R)
        lt, fl = self.expr(L)
        rt, fr = self.expr(R)
        line = line_of(node)
        if is_ptr(lt) or is_ptr(rt):
            return self.pointer_arith(op, lt, fl, rt, fr, node)
        for t, n in ((lt, L), (rt, R)):
            if t not in NUMERIC:
                raise SimError(_("the operand of {op} must be a number", op=op), line_of(n))
        if op in COMPARE:
            ct = arith_type(lt, rt)
            fa, fb, f = _conv(fl, lt, ct), _conv(fr, rt, ct), COMPARE[op]

            def cmp(st, m):
                return f(fa(st, m)[0], fb(st, m)[0]), None
            return self.fold(BOOL, cmp, fa, fb)
        if op in INT_OPS:
            if lt not in (INT, BOOL) or rt not in (INT, BOOL):
                raise SimError(_("the operands of {op} must be integers", op=op), line)
            fa, fb, f = _conv(fl, lt, INT), _conv(fr, rt, INT), INT_OPS[op]

            def iop(st, m):
                return f(fa(st, m)[0], fb(st, m)[0]), None
            return self.fold(INT, iop, fa, fb)
        if op in ARITH or op == "/":
            ct = arith_type(lt, rt)
            fa, fb = _conv(fl, lt, ct), _conv(fr, rt, ct)
            f = (int_div if ct == INT else operator.truediv) if op == "/" else ARITH[op]
            src = None if ct == INT else COMPUTED

            def aop(st, m):
                return f(fa(st, m)[0], fb(st, m)[0]), src
            return self.fold(ct, aop, fa, fb)
        raise unsupported(node, f"the operator {op}")

    def fold(self, ctype, fn, *args):
        """``fn`` evaluated now when every operand is a compile-time constant."""
        if all(_is_const(a) for a in args):
            v, s = fn(None, None)
            if isinstance(v, np.generic) and ctype in (INT, BOOL):
                v = v.item()
            return ctype, _const(ctype, v, s if ctype in (FLOAT, DOUBLE) else None)
        return ctype, fn

    def logical(self, op, L, R):
        lt, fl = self.expr(L)
        rt, fr = self.expr(R)
        for t, n in ((lt, L), (rt, R)):
            if t not in NUMERIC:
                raise SimError(_("the operand of {op} must be a number or a bool", op=op), line_of(n))
        if op == "&&":
            def land(st, m):
                a = truth(fl(st, m)[0])
                if not isinstance(a, np.ndarray):
                    return (truth(fr(st, m)[0]) if a else False), None
                m2 = m_and(m, a)
                if m2 is False:
                    return a, None
                return a & truth(fr(st, m2)[0]), None
            return self.fold(BOOL, land, fl, fr)

        def lor(st, m):
            a = truth(fl(st, m)[0])
            if not isinstance(a, np.ndarray):
                return (True if a else truth(fr(st, m)[0])), None
            m2 = m_andnot(m, a)
            if m2 is False:
                return a, None
            return a | truth(fr(st, m2)[0]), None
        return self.fold(BOOL, lor, fl, fr)

    def pointer_arith(self, op, lt, fl, rt, fr, node):
        if op in ("+", "-") and is_ptr(lt) and rt in (INT, BOOL):
            fb = _conv(fr, rt, INT)
            sign = 1 if op == "+" else -1

            def padd(st, m):
                return fl(st, m)[0] + sign * fb(st, m)[0], None
            return lt, padd
        if op == "+" and is_ptr(rt) and lt in (INT, BOOL):
            fa = _conv(fl, lt, INT)

            def padd2(st, m):
                return fa(st, m)[0] + fr(st, m)[0], None
            return rt, padd2
        raise unsupported(node, f"the operator {op} on pointers")

    def e_unary_expression(self, node):
        op = node.child_by_field_name("operator").type
        t, f = self.expr(node.child_by_field_name("argument"))
        if t not in NUMERIC:
            raise SimError(_("the operand of unary {op} must be a number", op=op), line_of(node))
        if op == "!":
            def lnot(st, m):
                v = truth(f(st, m)[0])
                return (~v if isinstance(v, np.ndarray) else not v), None
            return self.fold(BOOL, lnot, f)
        if op == "~":
            if t not in (INT, BOOL):
                raise SimError(_("the operand of ~ must be an integer"), line_of(node))
            fi = _conv(f, t, INT)
            return self.fold(INT, lambda st, m: (~fi(st, m)[0], None), fi)
        rt = INT if t == BOOL else t
        fa = _conv(f, t, rt)
        src = None if rt == INT else COMPUTED
        if op == "-":
            return self.fold(rt, lambda st, m: (-fa(st, m)[0], src), fa)
        if op == "+":
            return rt, fa
        raise unsupported(node, f"the operator {op}")

    def e_conditional_expression(self, node):
        cond = self.condition(node.child_by_field_name("condition"))
        tt, ft = self.expr(node.child_by_field_name("consequence"))
        te, fe = self.expr(node.child_by_field_name("alternative"))
        if is_ptr(tt) or is_ptr(te):
            if not (is_ptr(tt) and is_ptr(te) and tt.mem is te.mem):
                raise unsupported(node, "?: choosing between pointers into different arrays")
            rt = Ptr(tt.mem, tt.const or te.const)
        else:
            if tt not in NUMERIC or te not in NUMERIC:
                raise SimError(_("the branches of ?: must be numbers"), line_of(node))
            rt = BOOL if tt == te == BOOL else arith_type(tt, te)
            ft, fe = _conv(ft, tt, rt), _conv(fe, te, rt)
        is_float = rt in (FLOAT, DOUBLE)

        def sel(st, m):
            c = truth(cond(st, m)[0])
            if not isinstance(c, np.ndarray):
                return ft(st, m) if c else fe(st, m)
            mt, mf = m_and(m, c), m_andnot(m, c)
            if mf is False:
                return ft(st, mt)
            if mt is False:
                return fe(st, mf)
            vt, st_ = ft(st, mt)
            ve, se = fe(st, mf)
            return np.where(c, vt, ve), (np.where(c, st_, se) if is_float else None)
        return self.fold(rt, sel, cond, ft, fe) if not is_ptr(rt) else (rt, sel)

    def e_comma_expression(self, node):
        _t, fl = self.expr(node.child_by_field_name("left"))
        rt, fr = self.expr(node.child_by_field_name("right"))

        def comma(st, m):
            fl(st, m)
            return fr(st, m)
        return rt, comma

    def type_of_descriptor(self, td):
        if any(c.type in ("abstract_pointer_declarator", "abstract_array_declarator", "abstract_reference_declarator")
               for c in td.children):
            raise unsupported(td, "a cast to a pointer type")
        return self.base_type(td.child_by_field_name("type"))

    def e_cast_expression(self, node):
        to = self.type_of_descriptor(node.child_by_field_name("type"))
        t, f = self.expr(node.child_by_field_name("value"))
        if to == VOID:
            return VOID, f
        if t not in NUMERIC or to not in NUMERIC:
            raise unsupported(node, "this cast")
        return to, _conv(f, t, to)

    def e_sizeof_expression(self, node):
        td = node.child_by_field_name("type")
        if td is not None:
            t = self.type_of_descriptor(td)
        else:
            t, _fn = self.expr(node.child_by_field_name("value"))
        size = {INT: 4, FLOAT: 4, DOUBLE: 8, BOOL: 1}.get(t, 8)
        return INT, _const(INT, size)

    def e_call_expression(self, node):
        fnode = node.child_by_field_name("function")
        name = text(fnode) if fnode is not None and fnode.type == "identifier" else None
        args = [a for a in node.child_by_field_name("arguments").named_children if a.type != "comment"]
        line = line_of(node)
        if name == "__syncthreads":
            raise SimError(_("__syncthreads() must be a statement of its own"), line)
        if name not in MATH:
            if name is None:
                raise unsupported(node, "this call")
            if name == self.k.name or name in self.parsed.functions:
                self.undeclared(fnode, name)
            raise SimError(_("{name}() is outside the simulator's subset (it knows __syncthreads() and {value})", name=name, value=', '.join(MATH)), line)
        want = 3 if name in ("fmaf", "__fmaf_rn") else 2 if name in ("min", "max", "fminf", "fmaxf", "fmin", "fmax") \
            else 1
        if len(args) != want:
            raise SimError(_("{name}() takes {want} argument(s)", name=name, want=want), line)
        typed = [self.expr(a) for a in args]
        for (t, _f), a in zip(typed, args):
            if t not in NUMERIC:
                raise SimError(_("the arguments of {name}() must be numbers", name=name), line_of(a))
        if name in ("min", "max"):
            rt = arith_type(typed[0][0], typed[1][0])
            f = np.minimum if name == "min" else np.maximum
        elif name in ("fminf", "fmaxf", "fmin", "fmax"):
            rt = FLOAT if name.endswith("f") else DOUBLE
            f = np.fmin if "min" in name else np.fmax
        elif name in ("abs",):
            rt = INT if typed[0][0] in (INT, BOOL) else typed[0][0]
            f = np.abs
        elif name in ("fmaf", "__fmaf_rn"):
            rt = FLOAT

            def f(a, b, c):  # one rounding, as the fused multiply-add
                return (np.float64(a) * np.float64(b) + np.float64(c)).astype(np.float32) \
                    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray) or isinstance(c, np.ndarray) \
                    else np.float32(np.float64(a) * np.float64(b) + np.float64(c))
        else:
            rt = FLOAT if name.endswith("f") else DOUBLE
            f = {"fabs": np.abs, "sqrt": np.sqrt, "exp": np.exp, "floor": np.floor, "ceil": np.ceil}[
                name[:-1] if name.endswith("f") and name != "fabs" else name]
        fs = [_conv(fa, t, rt) for t, fa in typed]
        src = COMPUTED if rt in (FLOAT, DOUBLE) else None
        dt = DTYPE[rt]

        def call(st, m):
            v = f(*[g(st, m)[0] for g in fs])
            if not isinstance(v, np.ndarray):
                v = v.item() if rt == INT else dt(v)
            return v, src
        return self.fold(rt, call, *fs)

    # ---- memory ---------------------------------------------------------------------------
    def access(self, node) -> Access:
        line = line_of(node)
        if node.type == "pointer_expression":
            op = node.child_by_field_name("operator").type
            if op != "*":
                raise unsupported(node, "taking an address with &")
            pt, pf = self.expr(node.child_by_field_name("argument"))
            if not is_ptr(pt):
                raise SimError(_("* needs a pointer"), line)
            return self._ptr_access(pt, pf, _const(INT, 0), line, text(node))
        idx_nodes = []
        base = node
        while base.type == "subscript_expression":
            il = base.child_by_field_name("indices")
            items = [c for c in il.named_children if c.type != "comment"] if il is not None else []
            if not items:
                ix = base.child_by_field_name("index")
                items = [ix] if ix is not None else []
            if len(items) != 1:
                raise unsupported(base, "this subscript")
            idx_nodes.append(items[0])
            base = base.child_by_field_name("argument")
        idx_nodes.reverse()
        idx = []
        for n in idx_nodes:
            t, f = self.expr(n)
            if t not in (INT, BOOL):
                raise SimError(_("an array index must be an integer"), line_of(n))
            idx.append(_conv(f, t, INT))
        if base.type == "identifier" and isinstance(self.lookup(text(base)), ArraySym):
            mem = self.lookup(text(base)).mem
            dims = mem.dims
            if len(idx) != len(dims):
                raise unsupported(node, f"{mem.name} with {len(idx)} of its {len(dims)} indices")
            return self._array_access(mem, idx, line, text(node))
        pt, pf = self.expr(base)
        if not is_ptr(pt):
            raise SimError(_("{value} is not an array or a pointer", value=text(base)), line)
        if len(idx) != 1:
            raise unsupported(node, "a pointer with several indices")
        return self._ptr_access(pt, pf, idx[0], line, text(node))

    def _array_access(self, mem, idx, line, name):
        dims = mem.dims
        if len(dims) == 1:
            (f0,), d0 = idx, dims[0]

            def addr1(st, m):
                i = f0(st, m)[0]
                return i, _all_ok(_inb(i, d0)), None
            return Access(mem, addr1, mem.elem, line, name)
        if len(dims) == 2:
            (f0, f1), (d0, d1) = idx, dims

            def addr2(st, m):
                i = f0(st, m)[0]
                j = f1(st, m)[0]
                ok = _inb(i, d0)
                if ok is not False:
                    ok = ok & _inb(j, d1)
                ok = _all_ok(ok)
                return i * d1 + j, ok, (None if ok is True else (i, j))
            return Access(mem, addr2, mem.elem, line, name)

        def addrn(st, m):
            vals = [f(st, m)[0] for f in idx]
            flat, ok = 0, True
            for v, d in zip(vals, dims):
                flat = flat * d + v
                ok = ok & _inb(v, d)
            ok = _all_ok(ok)
            return flat, ok, (None if ok is True else tuple(vals))
        return Access(mem, addrn, mem.elem, line, name)

    def _ptr_access(self, pt, pf, fi, line, name):
        mem = pt.mem
        if mem.kind == "shared":
            size = mem.size

            def addr(st, m):
                flat = pf(st, m)[0] + fi(st, m)[0]
                return flat, _all_ok(_inb(flat, size)), None
        else:
            k = mem.index

            def addr(st, m):
                flat = pf(st, m)[0] + fi(st, m)[0]
                return flat, _all_ok(_inb(flat, st.sizes[k])), None
        return Access(mem, addr, mem.elem, line, name)

    def load(self, node):
        acc = self.access(node)
        k, line, is_float = acc.mem.index, acc.line, acc.ctype in (FLOAT, DOUBLE)

        def ld(st, m):
            flat, ok, parts = acc.addr(st, m)
            v, s = st.mem[k].load(st, m, flat, ok, line, parts)
            return (v, s) if is_float else (v, None)
        return acc.ctype, ld

    e_subscript_expression = load

    def e_pointer_expression(self, node):
        return self.load(node)

    def lvalue(self, node):
        while node.type == "parenthesized_expression":
            kids = [c for c in node.named_children if c.type != "comment"]
            node = kids[0]
        if node.type == "identifier":
            sym = self.lookup(text(node))
            if sym is None:
                self.undeclared(node, text(node))
            if isinstance(sym, (ConstSym,)) or (isinstance(sym, VarSym) and sym.const):
                raise SimError(_("'{value}' is const: it cannot be assigned", value=text(node)), line_of(node))
            if isinstance(sym, ArraySym):
                raise SimError(_("'{value}' is an array: assign to its elements", value=text(node)), line_of(node))
            return VarLV(sym)
        if node.type in ("subscript_expression", "pointer_expression"):
            acc = self.access(node)
            if acc.mem.const:
                raise SimError(_("{name} points to const float: it cannot be stored into", name=acc.mem.name),
                               line_of(node))
            if acc.mem.kind == "shared":
                self.mark_loops()
            return MemLV(acc)
        raise unsupported(node, "assigning to this expression")

    def check_assign(self, frm, to, node):
        if is_ptr(to) or is_ptr(frm):
            if not (is_ptr(to) and is_ptr(frm)) or to.mem is not frm.mem:
                where_ = to.mem.name if is_ptr(to) else "a number"
                raise SimError(_("a pointer into {where} cannot take this value (pointers here keep the array they were declared with)", where=where_), line_of(node))
            return
        if frm not in NUMERIC or to not in NUMERIC:
            raise SimError(_("cannot assign {frm} to {to}", frm=frm, to=to), line_of(node))

    def e_assignment_expression(self, node):
        op = node.child_by_field_name("operator").type
        lv = self.lvalue(node.child_by_field_name("left"))
        R = node.child_by_field_name("right")
        rt, fr = self.expr(R)
        lt = lv.ctype
        if op == "=":
            self.check_assign(rt, lt, R)
            frc = _conv(fr, rt, lt)

            def assign(st, m):
                loc = lv.locate(st, m)
                v, s = frc(st, m)
                lv.put(st, m, loc, v, s)
                return v, s
            return lt, assign
        return lt, self.read_modify_write(lv, op[:-1], rt, fr, node)

    def read_modify_write(self, lv, op, rt, fr, node):
        lt = lv.ctype
        if is_ptr(lt):
            if op not in ("+", "-") or rt not in (INT, BOOL):
                raise unsupported(node, f"{op}= on a pointer")
            fb = _conv(fr, rt, INT)
            sign = 1 if op == "+" else -1

            def padd(st, m):
                loc = lv.locate(st, m)
                v = lv.get(st, m, loc)[0] + sign * fb(st, m)[0]
                lv.put(st, m, loc, v, None)
                return v, None
            return padd
        if lt not in NUMERIC or rt not in NUMERIC:
            raise SimError(_("{op}= needs numbers", op=op), line_of(node))
        if op in INT_OPS:
            if lt not in (INT, BOOL) or rt not in (INT, BOOL):
                raise SimError(_("the operands of {op}= must be integers", op=op), line_of(node))
            ct, f = INT, INT_OPS[op]
        elif op in ARITH or op == "/":
            ct = arith_type(lt, rt)
            f = (int_div if ct == INT else operator.truediv) if op == "/" else ARITH[op]
        else:
            raise unsupported(node, f"the operator {op}=")
        fb = _conv(fr, rt, ct)
        src = None if ct == INT else COMPUTED

        def rmw(st, m):
            loc = lv.locate(st, m)
            ov, _ot = lv.get(st, m, loc)
            a = convert(ov, None, lt, ct)[0]
            v, s = convert(f(a, fb(st, m)[0]), src, ct, lt)
            lv.put(st, m, loc, v, s)
            return v, s
        return rmw

    def e_update_expression(self, node):
        op = node.child_by_field_name("operator").type
        arg = node.child_by_field_name("argument")
        prefix = node.children[0].type == op
        lv = self.lvalue(arg)
        lt = lv.ctype
        if not (lt in NUMERIC or is_ptr(lt)):
            raise SimError(_("{op} needs a number", op=op), line_of(node))
        delta = 1 if op == "++" else -1
        src = COMPUTED if lt in (FLOAT, DOUBLE) else None
        dt = DTYPE.get(lt)

        def upd(st, m):
            loc = lv.locate(st, m)
            ov, os_ = lv.get(st, m, loc)
            if lt == BOOL:
                nv = True if delta > 0 else ~ov if isinstance(ov, np.ndarray) else not ov
            else:
                nv = ov + delta
                if dt is not None and lt in (FLOAT, DOUBLE):
                    nv = nv.astype(dt) if isinstance(nv, np.ndarray) else dt(nv)
            lv.put(st, m, loc, nv, src)
            return (nv, src) if prefix else (ov, os_)
        return lt, upd


# ---- running a launch ---------------------------------------------------------------------
class BatchState:
    """The threads of a batch of blocks, their variables and the batch's shared memory."""

    def __init__(self, prog: Program, launch, block_ids: np.ndarray, gmem: list, rec: Recorder,
                 max_steps: int, deadline: float):
        T = prog.T
        tpb = T * T
        nb = len(block_ids)
        n = nb * tpb
        self.T, self.tpb, self.nb, self.n = T, tpb, nb, n
        lane = np.arange(n, dtype=np.int64)
        self.all = lane
        self.lib = lane % tpb  # linear thread id in its block: tx + ty * blockDim.x
        self.blk_local = lane // tpb
        self.block_ids = np.asarray(block_ids, np.int64)
        self.gblk = self.block_ids[self.blk_local]
        gx, gy = launch.grid
        self.gx, self.gy = gx, gy
        self.bx, self.by = self.gblk % gx, self.gblk // gx
        self.tx, self.ty = self.lib % T, self.lib // T
        self.gtid = self.gblk * tpb + self.lib
        self.slots = [(0, None)] * prog.n_slots
        self.declmask = [None] * prog.n_slots
        self.live = None
        self.phase = 0  # iterations of the phase loop done, per thread (a scalar while all agree)
        self.in_phase = 0  # inside the phase loop (problems outside it have no phase)
        self.epoch_blk = np.zeros(nb, np.int64)
        self.epoch_lane = np.zeros(n, np.int64)
        self.loops: list = []
        self.rec = rec
        self.steps = 0
        self.max_steps = max_steps
        self.check_at = min(max_steps, 1024)
        self.deadline = deadline
        self.mem = []
        self.sizes = []
        for spec in prog.mems:
            if spec.kind == "global":
                g = gmem[spec.matrix - 1]
                self.mem.append(g)
                self.sizes.append(g.size)
            else:
                self.mem.append(SharedMem(spec, self.blk_local, nb, tpb))
                self.sizes.append(spec.size)
        M, N, K = launch.M, launch.N, launch.K
        for slot, v in zip(prog.param_slots, (0, 0, 0, M, N, K)):
            self.slots[slot] = (v, None)

    def lanes(self, m):
        return self.all if m is None else np.flatnonzero(m)

    def over(self, line, m):
        """The step counter passed its next check: the budget, or time to look at the clock."""
        where = self.loops[-1][1] if self.loops else line  # the innermost loop still running
        if self.steps > self.max_steps:
            raise StepLimit(where, m, _("ran past {n} steps", n=self.max_steps))
        if time.perf_counter() > self.deadline:
            raise StepLimit(where, m, _("ran past its time limit"))
        self.check_at = min(self.max_steps, self.steps + 1024)

    def retire(self, m):
        """``return``: the threads of ``m`` are done."""
        self.live = m_andnot(self.live, m)

    def live_counts(self):
        if self.live is None:
            return np.full(self.nb, self.tpb)
        if self.live is False:
            return np.zeros(self.nb, np.int64)
        return np.bincount(self.blk_local[self.live], minlength=self.nb)

    def barrier(self, m, line):
        if m is None:
            self.epoch_blk += 1
            self.epoch_lane += 1
            return
        idx = self.lanes(m)
        act = np.bincount(self.blk_local[idx], minlength=self.nb)
        live = self.live_counts()
        reached = act > 0
        div = reached & (act < live)
        if div.any():
            blocks = np.flatnonzero(div)
            ex = blocks[:3]
            live_mask = np.ones(self.n, bool) if self.live is None else self.live
            missed_mask = live_mask & ~m
            r_lane = [int(idx[np.argmax(self.blk_local[idx] == b)]) for b in ex]
            miss_idx = np.flatnonzero(missed_mask)
            m_lane = [int(miss_idx[np.argmax(self.blk_local[miss_idx] == b)]) for b in ex]
            self.rec.divergence(self, line, np.array(r_lane + [r_lane[0]] * (len(blocks) - len(ex))),
                                np.array(m_lane + [m_lane[0]] * (len(blocks) - len(ex))),
                                act[blocks], live[blocks])
        self.epoch_blk[reached] += 1
        self.epoch_lane = self.epoch_blk[self.blk_local]



def _batch_blocks(prog: Program, nblocks: int, max_threads: int = MAX_BATCH_THREADS) -> int:
    """How many blocks run together: about ``max_threads`` threads, and the shared-memory
    bookkeeping within ``MAX_BATCH_BYTES`` (``max_threads`` <= T*T: one block at a time)."""
    tpb = prog.T * prog.T
    per_block = sum(m.size for m in prog.shared) * (tpb * 4 + 80)
    k = max(1, max_threads // tpb)
    if per_block:
        k = min(k, max(1, MAX_BATCH_BYTES // per_block))
    return max(1, min(k, nblocks))


@dataclass
class LaunchRun:
    C: np.ndarray
    stopped: bool
    steps: int
    c_writer: np.ndarray | None
    c_line: np.ndarray | None
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)


def run_launch(prog: Program, launch, A: np.ndarray, B: np.ndarray, rec: Recorder,
               max_steps: int = DEFAULT_MAX_STEPS, time_limit: float = 20.0,
               batch_threads: int = MAX_BATCH_THREADS) -> LaunchRun:
    """Run every block of ``launch`` (M, N, K, grid) on float32 ``A`` (M x K) and ``B`` (K x N);
    C starts as NaN (as the project's GPU checks poison it)."""
    t0 = time.perf_counter()
    deadline = t0 + time_limit
    M, N = launch.M, launch.N
    gx, gy = launch.grid
    mems = [m for m in prog.mems if m.kind == "global"]
    gmem = [GlobalMem(mems[0], np.array(A, np.float32).ravel(), 1),
            GlobalMem(mems[1], np.array(B, np.float32).ravel(), 2),
            GlobalMem(mems[2], np.full(M * N, np.nan, np.float32), 3)]
    nblocks = gx * gy
    k = _batch_blocks(prog, nblocks, batch_threads)
    stopped = False
    steps = 0
    with np.errstate(all="ignore"):
        for b0 in range(0, nblocks, k):
            ids = np.arange(b0, min(b0 + k, nblocks))
            st = BatchState(prog, launch, ids, gmem, rec, max_steps, deadline)
            try:
                prog.body(st, None)
            except StepLimit as e:
                lanes_ = st.lanes(e.mask) if e.mask is not False else np.arange(0)
                rec.step_limit(st, e.line, lanes_ if lanes_.size else np.arange(1), st.steps, e.why)
                stopped = True
                steps = max(steps, st.steps)
                break
            steps = max(steps, st.steps)
    c = gmem[2]
    return LaunchRun(c.data.reshape(M, N), stopped, steps, c.writer, c.wline, time.perf_counter() - t0)


def compile_kernel(parsed: Parsed, tile: int, dyn_floats: int | None = None) -> Program:
    try:
        return Compiler(parsed, tile, dyn_floats).compile()
    except RecursionError:
        raise SimError(_("the code is nested too deeply for the simulator (more than {MAX_DEPTH} levels)", MAX_DEPTH=MAX_DEPTH)) from None


__all__ = ["Program", "MemSpec", "compile_kernel", "run_launch", "LaunchRun", "StepLimit", "DEFAULT_MAX_STEPS"]
