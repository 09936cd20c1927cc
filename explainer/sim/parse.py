"""Reading a student's kernel: the preprocessor, then a real CUDA grammar.

The parser is **tree-sitter with the tree-sitter-cuda grammar** (both wheels on PyPI, no
compiler needed to install). Why this one:

* it is a CUDA grammar (C++ plus ``__global__``, ``__shared__``, ``<<<...>>>``, templates and
  their explicit instantiations, ``extern "C"``), so the ladder's files parse as they are, with
  no token-level rewriting of CUDA keywords (pycparser knows C99 only: it would need
  ``__shared__``, ``template <int TILE>``, ``bool``, ``extern "C"`` and the instantiation lines
  rewritten first; libclang needs a native libclang and CUDA headers);
* it gives exact line numbers for every node, and a syntax error comes back as an ``ERROR`` /
  ``MISSING`` node at its place, never as an exception, so a broken file gets a one-line answer;
* it is fast (C), and it does not recurse on the Python stack.

The grammar does no preprocessing: :mod:`.preprocess` expands ``#define``/``#include`` first,
keeping every line where it was. Nothing of the student's text is ever executed: the tree is
data that :mod:`.interp` walks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..resources import kernels_dir
from ..i18n import _
from .errors import SimError
from .preprocess import Macro, preprocess

MAX_SOURCE_BYTES = 256 * 1024  # a kernel is a few KB; past this the file is not a kernel
SIGNATURE = "(const float* A, const float* B, float* C, int M, int N, int K)"

_LANGUAGE = None


def language():
    global _LANGUAGE
    if _LANGUAGE is None:
        try:
            import tree_sitter
            import tree_sitter_cuda
        except ImportError as e:  # pragma: no cover - a dependency of the package
            raise SimError(_("the simulator needs tree-sitter and tree-sitter-cuda ({e}); pip install tree-sitter tree-sitter-cuda", e=e)) from None
        _LANGUAGE = tree_sitter.Language(tree_sitter_cuda.language())
    return _LANGUAGE


def text(node) -> str:
    return node.text.decode("utf-8", "replace")


def line_of(node) -> int:
    return node.start_point[0] + 1


@dataclass
class TemplateParam:
    name: str
    default: object  # a tree-sitter node (the default value) or None
    line: int


@dataclass
class KernelDecl:
    name: str
    line: int
    node: object  # the function_definition
    params: list[str]  # A, B, C, M, N, K as the student named them
    const_inputs: tuple[bool, bool]  # whether A and B point to const float
    template: TemplateParam | None
    extern_c: bool = False  # declared inside extern "C" (an unmangled name)


@dataclass
class Parsed:
    source: str  # as given
    text: str  # preprocessed (same lines)
    tree: object
    kernel: KernelDecl
    file_decls: list = field(default_factory=list)  # file-scope declarations (nodes)
    functions: dict[str, int] = field(default_factory=dict)  # other functions defined: name -> line
    macros: dict[str, Macro] = field(default_factory=dict)
    path: Path | None = None


def _first_error(root):
    """The first ERROR or MISSING node in source order, or None."""
    if not root.has_error:
        return None
    cur = root.walk()
    while True:
        n = cur.node
        if n.is_error or n.is_missing:
            return n
        if n.has_error and cur.goto_first_child():
            continue
        while not cur.goto_next_sibling():
            if not cur.goto_parent():
                return None


def _syntax_error(node) -> SimError:
    if node.is_missing:
        return SimError(_("syntax error: expected {type}", type=repr(node.type)), line_of(node))
    snippet = " ".join(text(node).split())
    if len(snippet) > 40:
        snippet = snippet[:40] + "..."
    return SimError(_("syntax error near {snippet}", snippet=repr(snippet)) if snippet else _("syntax error"),
                    line_of(node))


def _has_child(node, kind: str) -> bool:
    return any(c.type == kind for c in node.children)


def _function_name(fdef) -> tuple[str, object] | None:
    d = fdef.child_by_field_name("declarator")
    while d is not None and d.type in ("pointer_declarator", "reference_declarator"):
        d = d.child_by_field_name("declarator")
    if d is None or d.type != "function_declarator":
        return None
    name = d.child_by_field_name("declarator")
    return (text(name) if name is not None else "?"), d


def _param_signature(pdecl) -> tuple[str, bool, bool, str | None]:
    """(base type, is pointer, is const, name) of a parameter_declaration."""
    t = pdecl.child_by_field_name("type")
    base = " ".join(text(t).split()) if t is not None else "?"
    const = any(c.type == "type_qualifier" and text(c) == "const" for c in pdecl.children)
    d = pdecl.child_by_field_name("declarator")
    ptr = False
    name = None
    while d is not None:
        if d.type in ("pointer_declarator", "abstract_pointer_declarator"):
            if ptr:
                return base, True, const, "**"
            ptr = True
            d = d.child_by_field_name("declarator")
        elif d.type == "identifier":
            name = text(d)
            break
        else:
            return base, ptr, const, "?" + d.type
    return base, ptr, const, name


def _kernel_decl(fdef, template, extern_c=False) -> KernelDecl:
    name, fdecl = _function_name(fdef)
    line = line_of(fdef)
    plist = fdecl.child_by_field_name("parameters")
    params = [c for c in plist.children if c.type in ("parameter_declaration", "optional_parameter_declaration",
                                                      "variadic_parameter_declaration")]
    sig = [_param_signature(p) for p in params]
    want = [("float", True), ("float", True), ("float", True), ("int", False), ("int", False), ("int", False)]
    ok = len(sig) == 6 and all(s[0] == w[0] and s[1] == w[1] and s[3] and s[3][0] not in "?*"
                               for s, w in zip(sig, want))
    if not ok:
        raise SimError(_("kernel {name} must have the ladder's signature {SIGNATURE}", name=name, SIGNATURE=SIGNATURE), line)
    rtype = fdef.child_by_field_name("type")
    if rtype is None or text(rtype) != "void":
        raise SimError(_("kernel {name} must return void", name=name), line)
    tparam = None
    if template is not None:
        tl = template.child_by_field_name("parameters")
        tps = [c for c in tl.children if c.is_named and c.type != "comment"]
        if len(tps) != 1 or tps[0].type not in ("parameter_declaration", "optional_parameter_declaration") \
                or text(tps[0].child_by_field_name("type")) not in ("int", "unsigned", "unsigned int", "size_t"):
            raise SimError(_("kernel {name}: the simulator takes one template parameter, the tile (template <int TILE>)", name=name), line_of(template))
        tname = tps[0].child_by_field_name("declarator")
        tparam = TemplateParam(text(tname), tps[0].child_by_field_name("default_value"), line_of(tps[0]))
    return KernelDecl(name, line, fdef, [s[3] for s in sig], (sig[0][2], sig[1][2]), tparam, extern_c)


def parse_source(source: str, path: Path | str | None = None) -> Parsed:
    """Preprocess and parse ``source``; find its one ``__global__`` kernel.

    Raises :class:`SimError` (one line, with the source line) for anything the simulator cannot
    take: too large, a syntax error, no kernel or several, a signature not the ladder's."""
    if not isinstance(source, str):
        raise SimError(_("the kernel source must be text"))
    size = len(source.encode("utf-8", "replace"))
    if size > MAX_SOURCE_BYTES:
        raise SimError(_("the source is {size} bytes; the simulator takes kernels of at most {MAX_SOURCE_BYTES} bytes", size=size, MAX_SOURCE_BYTES=MAX_SOURCE_BYTES))
    if "\x00" in source:
        raise SimError(_("the source holds a NUL byte: not a text file"))
    path = Path(path) if path is not None else None
    pre = preprocess(source, path, include_dirs=[kernels_dir()])
    import tree_sitter

    tree = tree_sitter.Parser(language()).parse(pre.text.encode("utf-8"))
    err = _first_error(tree.root_node)
    if err is not None:
        raise _syntax_error(err)

    kernels: list[KernelDecl] = []
    file_decls = []
    functions: dict[str, int] = {}

    def visit(node, extern_c=False):
        for c in node.children:
            if c.type == "function_definition":
                nm = _function_name(c)
                if nm is None:
                    continue
                if _has_child(c, "__global__"):
                    kernels.append(_kernel_decl(c, None, extern_c))
                else:
                    functions.setdefault(nm[0], line_of(c))
            elif c.type == "template_declaration":
                inner = [x for x in c.children if x.type in ("function_definition", "declaration")]
                for x in inner:
                    if x.type == "function_definition":
                        nm = _function_name(x)
                        if nm is None:
                            continue
                        if _has_child(x, "__global__"):
                            kernels.append(_kernel_decl(x, c, extern_c))
                        else:
                            functions.setdefault(nm[0], line_of(x))
            elif c.type == "linkage_specification":
                body = c.child_by_field_name("body")
                if body is not None:
                    visit(body if body.type == "declaration_list" else _Wrap(body), True)
            elif c.type == "declaration":
                file_decls.append(c)
            # template_instantiation, prototypes, comments, host code: nothing to run

    visit(tree.root_node)
    if not kernels:
        raise SimError(_("no __global__ kernel in the file"))
    if len(kernels) > 1:
        names = ", ".join(f"{k.name} (line {k.line})" for k in kernels)
        raise SimError(_("the file defines {value} __global__ kernels ({names}); the simulator checks a file with one", value=len(kernels), names=names))
    return Parsed(source, pre.text, tree, kernels[0], file_decls, functions, pre.macros, path)


class _Wrap:
    """A single node seen as a node with that one child (``extern "C" __global__ void f...``)."""

    def __init__(self, node):
        self.children = [node]
