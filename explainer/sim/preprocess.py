"""The C preprocessor, the part of it a kernel of the ladder uses, done on tokens.

What it does (in the order a compiler does it):

* comments become spaces (newlines kept), backslash-continued lines are joined;
* ``#define`` (object-like and function-like, no ``#``/``##``/variadics), ``#undef``,
  ``#ifdef``/``#ifndef``/``#if``/``#elif``/``#else``/``#endif`` (``#if`` takes integer
  expressions with ``defined``), ``#include "file"`` (searched beside the file, then in
  ``kernels/``: ``common.cuh`` gives ``CEIL_DIV`` and the ``TRACE_*`` macros, which are no-ops
  without ``-DEXPLAINER_TRACE``), ``#include <...>`` ignored (system headers), ``#pragma``
  ignored (``#pragma unroll`` changes no result), ``#error`` an error;
* macros expanded with the standard rule that a macro is not expanded inside its own expansion
  (so ``#define X X + 1`` ends), and a cap on the tokens an expansion may produce.

An included file contributes its macros only: its code (``common.cuh``'s device helpers) is not
part of what the simulator runs.

Line numbers are kept exactly: the output has one line per line of the input file, a directive
becomes an empty line, and the tokens a macro expands to sit on the line of the macro's name. So
every line number the parser and the interpreter report is a line of the student's file.

The tokenizer is a regular expression over C's token classes (as every C lexer is); parsing is
done by a real grammar afterwards (:mod:`.parse`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..i18n import _
from .errors import SimError

MAX_TOKENS = 200_000  # tokens the expansions of a file may produce (a macro bomb stops here)
MAX_INCLUDE_DEPTH = 8

_TOKEN = re.compile(r"""
 (?P<ws>[ \t\r\f\v]+)
|(?P<num>\.?\d(?:[eEpP][+-]|[\w.])*)
|(?P<id>[A-Za-z_]\w*)
|(?P<str>"(?:\\.|[^"\\\n])*")
|(?P<chr>'(?:\\.|[^'\\\n])*')
|(?P<punct>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\#\#|::|[][(){}.,;:?~!<>=+\-*/%&|^\#])
""", re.X)

_COMMENT = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


@dataclass
class Tok:
    kind: str  # num | id | str | chr | punct
    text: str
    line: int
    hide: frozenset = frozenset()


@dataclass
class Macro:
    name: str
    params: list[str] | None  # None: object-like
    body: list[Tok]
    line: int
    file: str


@dataclass
class Preprocessed:
    text: str  # the expanded source, one line per input line
    macros: dict[str, Macro] = field(default_factory=dict)


def strip_comments(src: str) -> str:
    """Comments replaced by spaces (a block comment keeps its newlines); strings untouched."""
    def repl(m):
        s = m.group(0)
        if s.startswith("//"):
            return " "
        if s.startswith("/*"):
            return " " + "\n" * s.count("\n")
        return s
    out = _COMMENT.sub(repl, src)
    i = out.find("/*")
    if i >= 0:
        raise SimError(_("unterminated /* comment"), out.count("\n", 0, i) + 1)
    return out


def tokenize(text: str, line: int) -> list[Tok]:
    out = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            ch = text[pos]
            raise SimError(_("unexpected character {value}", value=repr(ch)), line)
        kind = m.lastgroup
        if kind != "ws":
            out.append(Tok(kind, m.group(), line))
        pos = m.end()
    return out


def _logical_lines(src: str):
    """``(first line number, text, physical lines)`` with backslash continuations joined."""
    phys = src.split("\n")
    i = 0
    while i < len(phys):
        start, text, n = i + 1, phys[i], 1
        while text.endswith("\\") and i + n < len(phys):
            text = text[:-1] + " " + phys[i + n]
            n += 1
        if text.endswith("\\"):
            text = text[:-1]
        yield start, text, n
        i += n


class _Cond:
    __slots__ = ("active", "taken", "seen_else", "line")

    def __init__(self, active: bool, taken: bool, line: int):
        self.active, self.taken, self.seen_else, self.line = active, taken, False, line


class Preprocessor:
    def __init__(self, include_dirs=(), predefined: dict[str, str] | None = None):
        self.include_dirs = [Path(d) for d in include_dirs]
        self.macros: dict[str, Macro] = {}
        self.once: set[Path] = set()
        self.produced = 0
        for name, value in (predefined or {"__CUDACC__": "1"}).items():
            self.macros[name] = Macro(name, None, tokenize(value, 0), 0, "<built-in>")

    # ---- the file ---------------------------------------------------------------------
    def run(self, src: str, path: Path | None = None, depth: int = 0, emit: bool = True) -> list[str]:
        """The file's lines, expanded (``emit=False``: an included file, only its directives
        take effect)."""
        src = strip_comments(src.replace("\r\n", "\n"))
        n_lines = src.count("\n") + 1
        out = [""] * n_lines
        pending: list[Tok] = []
        conds: list[_Cond] = []

        def active() -> bool:
            return all(c.active for c in conds)

        def flush():
            if pending and emit:
                for tok in self.expand(pending):
                    out[tok.line - 1] = (out[tok.line - 1] + " " + tok.text) if out[tok.line - 1] else tok.text
            pending.clear()

        for line, text, _n in _logical_lines(src):
            stripped = text.lstrip()
            if stripped.startswith("#"):
                flush()
                self._directive(stripped[1:].strip(), line, conds, active, path, depth)
                continue
            if emit and active() and stripped:
                pending.extend(tokenize(text, line))
        flush()
        if conds:
            raise SimError(_("#if without #endif"), conds[-1].line)
        return out

    # ---- directives -------------------------------------------------------------------
    def _directive(self, text: str, line: int, conds: list, active, path, depth):
        m = re.match(r"([A-Za-z_]\w*)?\s*(.*)$", text, re.S)
        name, rest = (m.group(1) or ""), m.group(2).strip()
        if name in ("ifdef", "ifndef"):
            ident = rest.split()[0] if rest.split() else ""
            if not re.fullmatch(r"[A-Za-z_]\w*", ident):
                raise SimError(_("#{name} needs a macro name", name=name), line)
            on = (ident in self.macros) == (name == "ifdef")
            outer = active()
            conds.append(_Cond(outer and on, on, line))
            return
        if name == "if":
            outer = active()
            on = bool(self._if_value(rest, line)) if outer else False
            conds.append(_Cond(outer and on, on, line))
            return
        if name in ("elif", "else", "endif"):
            if not conds:
                raise SimError(_("#{name} without #if", name=name), line)
            c = conds[-1]
            if name == "endif":
                conds.pop()
                return
            if c.seen_else:
                raise SimError(_("#{name} after #else", name=name), line)
            outer = all(x.active for x in conds[:-1])
            if name == "else":
                c.seen_else = True
                c.active = outer and not c.taken
                c.taken = True
            else:
                on = (not c.taken) and outer and bool(self._if_value(rest, line))
                c.active = on
                c.taken = c.taken or on
            return
        if not active():
            return
        if name == "define":
            self._define(rest, line, path)
        elif name == "undef":
            self.macros.pop(rest.split()[0] if rest else "", None)
        elif name == "include":
            self._include(rest, line, path, depth)
        elif name in ("pragma", "warning", ""):
            return  # #pragma unroll / once (handled by _include) / a null directive
        elif name == "error":
            raise SimError(_("#error {rest}", rest=rest), line)
        else:
            raise SimError(_("the preprocessor directive #{name} is outside the simulator's subset", name=name), line)

    def _define(self, rest: str, line: int, path):
        m = re.match(r"([A-Za-z_]\w*)(\()?", rest)
        if not m:
            raise SimError(_("#define needs a macro name"), line)
        name = m.group(1)
        params = None
        body_text = rest[m.end():]
        if m.group(2):  # function-like: '(' right after the name
            close = body_text.find(")")
            if close < 0:
                raise SimError(_("#define {name}(: missing ')'", name=name), line)
            plist = [p.strip() for p in body_text[:close].split(",")] if body_text[:close].strip() else []
            for p in plist:
                if p == "..." or not re.fullmatch(r"[A-Za-z_]\w*", p):
                    raise SimError(_("#define {name}: parameter {value} is outside the simulator's subset (plain names only)", name=name, value=repr(p)), line)
            params = plist
            body_text = body_text[close + 1:]
        body = tokenize(body_text, line)
        if any(t.text in ("#", "##") for t in body):
            raise SimError(_("#define {name}: the # and ## operators are outside the simulator's subset", name=name), line)
        self.macros[name] = Macro(name, params, body, line, str(path) if path else "<source>")

    def _include(self, rest: str, line: int, path, depth: int):
        if rest.startswith("<"):
            return  # a system header (cuda_runtime.h, stdio.h): nothing the kernel body needs
        m = re.match(r'"([^"]+)"', rest)
        if not m:
            raise SimError(_('#include {rest}: expected "file" or <file>', rest=rest), line)
        if depth >= MAX_INCLUDE_DEPTH:
            raise SimError(_("#include nested more than {MAX_INCLUDE_DEPTH} deep", MAX_INCLUDE_DEPTH=MAX_INCLUDE_DEPTH), line)
        name = m.group(1)
        dirs = ([path.parent] if path is not None else []) + self.include_dirs
        for d in dirs:
            cand = (d / name)
            if cand.is_file():
                cand = cand.resolve()
                if cand in self.once:
                    return
                try:
                    text = cand.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError) as e:
                    raise SimError(_('cannot read #include "{name}": {e}', name=name, e=e), line) from None
                if "#pragma once" in text:
                    self.once.add(cand)
                try:
                    self.run(text, cand, depth + 1, emit=False)
                except SimError as e:
                    raise SimError(_('in #include "{name}" (line {line}): {reason}', name=name, line=e.line, reason=e.reason), line) from None
                return
        raise SimError(_('cannot find #include "{name}" (looked in {value})', name=name, value=', '.join(str(d) for d in dirs)), line)

    # ---- #if --------------------------------------------------------------------------
    def _if_value(self, text: str, line: int) -> int:
        toks = tokenize(text, line)
        # `defined X` / `defined(X)` before expansion
        out: list[Tok] = []
        i = 0
        while i < len(toks):
            t = toks[i]
            if t.kind == "id" and t.text == "defined":
                if i + 1 < len(toks) and toks[i + 1].text == "(":
                    if i + 3 >= len(toks) or toks[i + 3].text != ")":
                        raise SimError(_("#if defined( needs a name and ')'"), line)
                    name, i = toks[i + 2].text, i + 4
                elif i + 1 < len(toks):
                    name, i = toks[i + 1].text, i + 2
                else:
                    raise SimError(_("#if defined needs a name"), line)
                out.append(Tok("num", "1" if name in self.macros else "0", line))
                continue
            out.append(t)
            i += 1
        expanded = [Tok("num", "0", line) if t.kind == "id" else t for t in self.expand(out)]
        return _IfParser(expanded, line).parse()

    # ---- macro expansion ----------------------------------------------------------------
    def expand(self, tokens: list[Tok]) -> list[Tok]:
        out: list[Tok] = []
        stack = list(reversed(tokens))
        macros = self.macros
        while stack:
            tok = stack.pop()
            m = macros.get(tok.text) if tok.kind == "id" else None
            if m is None or m.name in tok.hide:
                out.append(tok)
                continue
            hide = tok.hide | {m.name}
            if m.params is None:
                body = [Tok(b.kind, b.text, tok.line, hide) for b in m.body]
            else:
                if not stack or stack[-1].text != "(":
                    out.append(tok)  # a function-like macro's name without '(' is just a name
                    continue
                args = self._collect_args(stack, m, tok.line)
                if len(args) != len(m.params) and not (len(m.params) == 0 and args == [[]]):
                    raise SimError(_("macro {name} takes {value2} argument(s), got {value3}", name=m.name, value2=len(m.params), value3=len(args)), tok.line)
                expanded = {p: self.expand(a) for p, a in zip(m.params, args)}
                body = []
                for b in m.body:
                    if b.kind == "id" and b.text in expanded:
                        body.extend(Tok(a.kind, a.text, tok.line, a.hide | hide) for a in expanded[b.text])
                    else:
                        body.append(Tok(b.kind, b.text, tok.line, hide))
            self.produced += len(body)
            if self.produced > MAX_TOKENS:
                raise SimError(_("macro {name} expands to more than {MAX_TOKENS} tokens", name=m.name, MAX_TOKENS=MAX_TOKENS), tok.line)
            stack.extend(reversed(body))
        return out

    @staticmethod
    def _collect_args(stack: list[Tok], m: Macro, line: int) -> list[list[Tok]]:
        stack.pop()  # '('
        args: list[list[Tok]] = [[]]
        depth = 0
        while stack:
            t = stack.pop()
            if t.text == "(":
                depth += 1
            elif t.text == ")":
                if depth == 0:
                    return args
                depth -= 1
            elif t.text == "," and depth == 0:
                args.append([])
                continue
            args[-1].append(t)
        raise SimError(_("macro {name}( has no closing ')'", name=m.name), line)


class _IfParser:
    """Integer constant expressions of ``#if``: a small recursive-descent parser."""

    BIN = [("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="),
           ("<<", ">>"), ("+", "-"), ("*", "/", "%")]

    def __init__(self, toks: list[Tok], line: int):
        self.toks, self.i, self.line = toks, 0, line

    def peek(self):
        return self.toks[self.i].text if self.i < len(self.toks) else None

    def take(self, text=None):
        if self.i >= len(self.toks) or (text is not None and self.toks[self.i].text != text):
            raise SimError(_("#if: cannot read this expression"), self.line)
        self.i += 1
        return self.toks[self.i - 1]

    def parse(self) -> int:
        v = self.cond()
        if self.i != len(self.toks):
            raise SimError(_("#if: cannot read this expression"), self.line)
        return v

    def cond(self):
        c = self.binary(0)
        if self.peek() == "?":
            self.take()
            a = self.cond()
            self.take(":")
            b = self.cond()
            return a if c else b
        return c

    def binary(self, level):
        if level == len(self.BIN):
            return self.unary()
        v = self.binary(level + 1)
        while self.peek() in self.BIN[level]:
            op = self.take().text
            w = self.binary(level + 1)
            if op in ("/", "%") and w == 0:
                raise SimError(_("#if: division by zero"), self.line)
            v = {"||": lambda: int(bool(v) or bool(w)), "&&": lambda: int(bool(v) and bool(w)),
                 "|": lambda: v | w, "^": lambda: v ^ w, "&": lambda: v & w,
                 "==": lambda: int(v == w), "!=": lambda: int(v != w), "<": lambda: int(v < w),
                 ">": lambda: int(v > w), "<=": lambda: int(v <= w), ">=": lambda: int(v >= w),
                 "<<": lambda: v << w, ">>": lambda: v >> w, "+": lambda: v + w, "-": lambda: v - w,
                 "*": lambda: v * w, "/": lambda: int(v / w), "%": lambda: v - w * int(v / w)}[op]()
        return v

    def unary(self):
        p = self.peek()
        if p in ("!", "-", "+", "~"):
            self.take()
            v = self.unary()
            return {"!": int(not v), "-": -v, "+": v, "~": ~v}[p]
        if p == "(":
            self.take()
            v = self.cond()
            self.take(")")
            return v
        t = self.take()
        if t.kind == "num":
            return parse_int(t.text, self.line)
        if t.kind == "chr" and len(t.text) == 3:
            return ord(t.text[1])
        raise SimError(_("#if: unexpected {text}", text=repr(t.text)), self.line)


def parse_int(text: str, line: int) -> int:
    s = text.rstrip("uUlL")
    try:
        if s.lower().startswith("0x"):
            return int(s, 16)
        if s.lower().startswith("0b"):
            return int(s, 2)
        if len(s) > 1 and s.startswith("0"):
            return int(s, 8)
        return int(s)
    except ValueError:
        raise SimError(_("{value} is not an integer", value=repr(text)), line) from None


def preprocess(source: str, path: Path | None = None, include_dirs=()) -> Preprocessed:
    pp = Preprocessor(include_dirs)
    lines = pp.run(source, path)
    return Preprocessed("\n".join(lines), pp.macros)
