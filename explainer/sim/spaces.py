"""Where each variable of a kernel lives: every declaration of a kernel file, found by the
simulator's CUDA parser (:mod:`.parse`, tree-sitter), with the memory space that
:func:`explainer.model.memspaces.classify` gives it and the line it is declared on.

What the walk reads from the tree, declaration by declaration:

* the template parameter (``template <int TILE>``): a compile-time constant, no memory;
* the kernel's parameters (``const float* A``, ``int M``): kernel parameters; a pointer's target;
* file-scope declarations (``__constant__``, ``__device__``) and every declaration in the kernel's
  body, ``for`` initialisers included: their qualifiers (``__shared__``, ``extern``, ``const``,
  ...), whether they declare an array or a pointer;
* for a local array: every subscript of it in the body. An index is known at compile time when
  it is built from numbers, the template parameter and the counters of ``#pragma unroll`` loops
  whose bounds are such constants (the compiler unrolls them, so each access names one element);
  any other index is computed at run time, and the array goes to local memory;
* for a local pointer: what its initialiser points into (``float* As = smem;`` -> shared).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..model import memspaces
from ..resources import kernels_dir
from .parse import Parsed, line_of, parse_source, text

#: Words before a declaration's type that say something about where it lives.
QUALIFIER_WORDS = ("__shared__", "__constant__", "__device__", "extern", "static", "const", "volatile",
                   "__restrict__", "register")
PRAGMA_UNROLL = re.compile(r"^\s*#\s*pragma\s+unroll\b")


@dataclass(frozen=True)
class Declaration:
    """One declared name of a kernel file and where it lives."""

    name: str
    line: int
    code: str  # the declaration's source line, its comment removed
    kind: str  # "template parameter" | "parameter" | "file scope" | "local"
    type: str  # "const float*", "float[TILE][TILE]", "int", ...
    placement: memspaces.Placement

    @property
    def space(self) -> str | None:
        return self.placement.space

    def to_dict(self) -> dict:
        return {"name": self.name, "line": self.line, "code": self.code, "kind": self.kind, "type": self.type,
                **self.placement.to_dict()}


def _qualifiers(decl) -> tuple[str, ...]:
    words = []
    for c in decl.children:
        if c.type in ("type_qualifier", "storage_class_specifier", "attribute_specifier") or c.type in QUALIFIER_WORDS:
            words += [w for w in text(c).split() if w in QUALIFIER_WORDS]
    return tuple(words)


def _declarators(decl):
    """``(name node, pointer, array dims text, initialiser node)`` of each name ``decl`` declares."""
    out = []
    for c in decl.children_by_field_name("declarator"):
        init = None
        d = c
        if d.type == "init_declarator":
            init = d.child_by_field_name("value")
            d = d.child_by_field_name("declarator")
        pointer, dims = False, []
        while d is not None and d.type != "identifier":
            if d.type == "pointer_declarator":
                pointer = True
            elif d.type == "array_declarator":
                size = d.child_by_field_name("size")
                dims.insert(0, "[" + (" ".join(text(size).split()) if size is not None else "") + "]")
            elif d.type not in ("parenthesized_declarator", "reference_declarator"):
                break
            d = d.child_by_field_name("declarator")
        if d is not None and d.type == "identifier":
            out.append((d, pointer, dims, init))
    return out


def _base_type(decl) -> str:
    t = decl.child_by_field_name("type")
    base = " ".join(text(t).split()) if t is not None else "?"
    return ("const " if "const" in _qualifiers(decl) else "") + base


def _walk(node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


class _Kernel:
    """The parsed file, and what the classification needs to know about its kernel's body."""

    def __init__(self, parsed: Parsed):
        self.parsed = parsed
        self.source_lines = parsed.source.splitlines()
        self.body = parsed.kernel.node.child_by_field_name("body")
        t = parsed.kernel.template
        self.constants = {t.name} if t is not None else set()

    def code(self, line: int) -> str:
        raw = self.source_lines[line - 1] if 0 < line <= len(self.source_lines) else ""
        return raw.split("//")[0].strip()

    def _unrolled(self, loop) -> str | None:
        """The counter of ``loop`` if it is a ``#pragma unroll`` loop over compile-time bounds."""
        line = line_of(loop)
        before = line - 2
        while before >= 0 and not self.source_lines[before].strip():
            before -= 1
        if before < 0 or not PRAGMA_UNROLL.match(self.source_lines[before]):
            return None
        init = loop.child_by_field_name("initializer")
        cond = loop.child_by_field_name("condition")
        if init is None or cond is None or init.type != "declaration":
            return None
        decls = _declarators(init)
        if len(decls) != 1 or decls[0][3] is None:
            return None
        counter = text(decls[0][0])
        if not (self._constant(decls[0][3]) and self._constant(cond, also=(counter,))):
            return None
        return counter

    def _constant(self, expr, also=()) -> bool:
        """Whether ``expr`` is built from numbers and compile-time names only."""
        ok = self.constants | set(also)
        return all(n.type != "identifier" or text(n) in ok for n in _walk(expr))

    def runtime_index(self, name: str) -> bool:
        """Whether some subscript of local array ``name`` is computed at run time."""
        for n in _walk(self.body):
            if n.type != "subscript_expression":
                continue
            arr = n.child_by_field_name("argument")
            if arr is None or arr.type != "identifier" or text(arr) != name:
                continue
            counters, p = set(), n.parent
            while p is not None and p != self.body.parent:
                if p.type == "for_statement":
                    c = self._unrolled(p)
                    if c:
                        counters.add(c)
                p = p.parent
            idx = n.child_by_field_name("indices") or n.child_by_field_name("index")
            if idx is None:
                idx = next((c for c in n.children if c.type == "subscript_argument_list"), None)
            if idx is not None and not self._constant(idx, also=counters):
                return True
        return False


def _points_to(init, known: dict) -> str | None:
    """The space a pointer initialised with ``init`` points into, from the names it mentions."""
    if init is None:
        return None
    for n in _walk(init):
        if n.type == "identifier" and text(n) in known:
            d = known[text(n)]
            target = d.placement.points_to if d.type.endswith("*") else d.placement.space
            if target:
                return target
    return None


def declarations(source: str, path: Path | str | None = None) -> list[Declaration]:
    """Every declaration of the kernel file ``source``, in the order: file scope, the template
    parameter, the kernel's parameters, its body (source order). Raises
    :class:`explainer.sim.SimError` (one line) for a file the parser refuses."""
    parsed = parse_source(source, path)
    k = _Kernel(parsed)
    out: list[Declaration] = []
    known: dict[str, Declaration] = {}

    def add(d: Declaration):
        out.append(d)
        known[d.name] = d

    for decl in parsed.file_decls:
        q = _qualifiers(decl)
        if not {"__constant__", "__device__", "__shared__"} & set(q):
            continue  # a host variable: no kernel sees it
        for ident, pointer, dims, _ in _declarators(decl):
            add(Declaration(text(ident), line_of(decl), k.code(line_of(decl)), "file scope",
                            _base_type(decl) + ("*" if pointer else "") + "".join(dims),
                            memspaces.classify(q, file_scope=True, pointer=pointer, array=bool(dims))))
    t = parsed.kernel.template
    if t is not None:
        add(Declaration(t.name, t.line, k.code(t.line), "template parameter", "int", memspaces.TEMPLATE_CONSTANT))
    fdecl = parsed.kernel.node.child_by_field_name("declarator")
    while fdecl is not None and fdecl.type != "function_declarator":
        fdecl = fdecl.child_by_field_name("declarator")
    for p in fdecl.child_by_field_name("parameters").children:
        if p.type not in ("parameter_declaration", "optional_parameter_declaration"):
            continue
        for ident, pointer, dims, _ in _declarators(p):
            code = re.sub(r"\s*\*\s*", "* ", " ".join(text(p).split()))  # "const float* A"
            add(Declaration(text(ident), line_of(p), code, "parameter",
                            _base_type(p) + ("*" if pointer else "") + "".join(dims),
                            memspaces.classify(_qualifiers(p), parameter=True, pointer=pointer or bool(dims))))
    for n in _walk(k.body):
        if n.type != "declaration":
            continue
        q = _qualifiers(n)
        for ident, pointer, dims, init in _declarators(n):
            name = text(ident)
            array = bool(dims)
            runtime = array and "__shared__" not in q and k.runtime_index(name)
            add(Declaration(name, line_of(n), k.code(line_of(n)), "local",
                            _base_type(n) + ("*" if pointer else "") + "".join(dims),
                            memspaces.classify(q, pointer=pointer, array=array, runtime_index=runtime,
                                               points_to=_points_to(init, known) if pointer else None)))
    return out


def kernel_declarations(file: str) -> list[Declaration]:
    """:func:`declarations` of ``kernels/<file>`` (e.g. ``"03_tiled.cu"``)."""
    path = kernels_dir() / file
    return declarations(path.read_text(encoding="utf-8"), path)
