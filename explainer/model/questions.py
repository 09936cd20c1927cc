"""Predict, then reveal: a few questions per page whose answers the model computes.

Each generator is ``make(seed, pool=None) -> Question`` for one page (:data:`PAGES`): the seed
draws a launch (or an architecture, a GPU, a rung of the ladder, a tensor-core tiling) and a
block, thread, phase or warp of it; every number of the answer comes from :mod:`explainer.model`
(``Launch.c_index`` / ``c_owner`` / ``a_load`` / ``b_load``, ``ThreadView.load`` / ``compute``,
``barriers_per_block``, :mod:`.hazards`, :mod:`.memory`, :func:`.hardware.occupancy`,
``Launch.stats``, :mod:`.roofline`, :mod:`.ladder`'s rungs, :mod:`.mma`'s fragments), never written
by hand. A ``pool`` (``(M, N, K, T, blocks)`` entries, ``blocks`` None for every block of the
grid) limits the launches and blocks to those a page's stepper holds (an exported static page
holds only some); without one a launch is drawn freely.

A :class:`Question` carries its prompt, the ``form`` of the answer a student types (see
:func:`parse`), the answer, and ``why``: the model's reason per part of the answer, which a wrong
answer gets, ending in the part the student typed (``row = blockIdx.y*blockDim.y + threadIdx.y =
1*4 + 2 = 6, not 5``). ``show`` (stepper pages) names the block, thread and step of the page's
stepper that shows the answer. The browser (``views/quiz.js``) reads and checks typed answers the
same way as :func:`parse` / :meth:`Question.check` (a browser test holds the two together).
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, replace
from collections.abc import Callable
from typing import Any

import numpy as np

from . import blockshape, hardware, hazards, ladder, memory, memspaces, mma, roofline, strip
from .launch import PAD, Launch, Step, count_label, phase_label, steps
from ..i18n import N_, _


class AnswerError(ValueError):
    """A typed answer that cannot be read as the question's form: one line that says why."""


@dataclass(frozen=True)
class Verdict:
    status: str  # "right" | "wrong" | "unreadable"
    message: str


@dataclass(frozen=True)
class Question:
    page: str
    key: str
    prompt: str
    form: dict  # how a typed answer is read (parse)
    answer: Any  # what parse() returns for the right answer
    answer_text: str
    why: tuple[str, ...]  # the model's reason, one per part of the answer
    working: str  # the whole derivation (Reveal)
    params: dict  # what the question was drawn with (launch, block, thread, phase, ...)
    show: dict | None = None  # the page stepper's state that shows the answer

    def parse(self, text: str):
        return parse(self.form, text)

    def check(self, text: str) -> Verdict:
        return check(self, text)

    def to_dict(self) -> dict:
        return {"page": self.page, "key": self.key, "prompt": self.prompt, "form": self.form,
                "answer": self.answer, "answer_text": self.answer_text, "why": list(self.why),
                "working": self.working, "params": self.params, "show": self.show}


# ---------------------------------------------------------------------------------------------
# Reading what a student types (views/quiz.js reads it the same way)
# ---------------------------------------------------------------------------------------------
NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")
GROUPED = re.compile(r"([0-9])[,_](?=[0-9]{3}(?![0-9]))")  # 1,048,576 -> 1048576 (single numbers only)
CELL = re.compile(r"(?:\b(as|bs|a|b|c)\s*)?(?:\[\s*([0-9]+)\s*\]\s*\[\s*([0-9]+)\s*\]|\[\s*([0-9]+)\s*,\s*([0-9]+)\s*\]"
                  r"|\(\s*([0-9]+)\s*,\s*([0-9]+)\s*\))", re.I)
#: Words that stand for "no element" in a cells answer: a padding zero, or no C element at all.
#: (The Chinese words too: 填充零 for a padding zero, 无 / 没有 for none; views/quiz.js reads the same.)
EMPTY_WORDS = {"pad": re.compile(r"0\s*\(\s*pad(?:ding)?\s*\)|\bpadding\s+zeros?\b|\bpad(?:ding)?\b|\bzero\b|填充零|填充", re.I),
               "none": re.compile(r"\bnone\b|\bnothing\b|\bno element\b|没有|无", re.I)}
EMPTY_TEXT = {"pad": N_("a padding zero"), "none": N_("none")}  # (in the reader's language: _(EMPTY_TEXT[...]))
NAMES = {"as": "As", "bs": "Bs", "a": "A", "b": "B", "c": "C"}


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def _numbers(text: str) -> list[str]:
    return NUMBER.findall(text)


def _one_number(text: str, what: str = "number") -> str:
    nums = _numbers(GROUPED.sub(r"\1", text))
    if not nums:
        raise AnswerError(_("Type one {what}.", what=_(what)))
    if len(nums) > 1:
        raise AnswerError(_("Type one {what}; this has {n}: {nums}.", what=_(what), n=len(nums), nums=", ".join(nums)))
    return nums[0]


def _cells(form: dict, text: str) -> list[tuple[int, str | None, list | None]]:
    """``(position, name or None, [row, col] or None)`` of every element typed, in order."""
    items = []
    for m in CELL.finditer(text):
        g = m.groups()
        rc = next([int(g[i]), int(g[i + 1])] for i in (1, 3, 5) if g[i] is not None)
        items.append((m.start(), NAMES[g[0].lower()] if g[0] else None, rc))
    rest = text
    for m in CELL.finditer(text):
        rest = _blank(rest, m.start(), m.end())
    empty = form.get("empty")
    if empty:
        for m in EMPTY_WORDS[empty].finditer(rest):
            items.append((m.start(), None, None))
        rest = EMPTY_WORDS[empty].sub(lambda m: " " * len(m.group(0)), rest)
    loose = list(NUMBER.finditer(rest))
    if any("." in m.group(0) for m in loose):
        raise AnswerError(_("Rows and columns are whole numbers."))
    if len(loose) % 2:
        raise AnswerError(_("Type each element as {example}: a row and a column; {n} number(s) here do not make "
                            "whole pairs.", example=_example(form), n=len(loose)))
    for i in range(0, len(loose), 2):
        items.append((loose[i].start(), None, [int(loose[i].group(0)), int(loose[i + 1].group(0))]))
    return sorted(items, key=lambda it: it[0])


def _example(form: dict) -> str:
    return _(" and ").join(f"{n}[row][col]" for n in form["names"])


def _describe(form: dict) -> str:
    n = len(form["names"])
    count = _("one element") if n == 1 else _("two elements") if n == 2 else _("{n} elements", n=n)
    text = f"{count}, {_example(form)}"
    if form.get("empty") == "pad":
        text += _(" (pad for a padding zero)")
    elif form.get("empty") == "none":
        text += _(", or none")
    return text


#: Where a choice answer is split to find its head (the same in views/quiz.js): Chinese 的 and
#: English 's, whose head comes after them (a 的 that ends a clause, 是共享内存的, is no split).
POSSESSIVE = re.compile(r"的(?![\s\u3000,.;:!?，。；：！？、）)]|$)|['’]s\b", re.I | re.A)


def _word(word: str) -> re.Pattern:
    """How a choice option's word is found in what was typed (the same in views/quiz.js): an ASCII
    word as a whole word, case-insensitively, by ASCII word boundaries (as JavaScript's ``\\b``);
    a word with other characters (Chinese) anywhere, as Chinese has no spaces between words."""
    if word.isascii():
        return re.compile(r"\b" + re.escape(word) + r"\b", re.I | re.A)
    return re.compile(re.escape(word), re.I)


def _labelled(word: str) -> re.Pattern:
    """A number labelled with ``word`` (``lane 20``, ``x=3``, ``线程束：1``; the same in
    views/quiz.js): an ASCII word from a word boundary, a Chinese one anywhere."""
    start = r"\b" if word.isascii() else ""
    return re.compile(start + re.escape(word) + r"[\s\u3000]*[=:\uff1a]?[\s\u3000]*([0-9]+)", re.I | re.A)


#: What an ``ints`` answer's numbers are called, by the names the form gives them: the word its
#: messages show in the reader's language, and the Chinese words a number may be labelled with
#: (``lane 20，线程束 1``) whatever the page's language. Identifiers (blockIdx.x, x, A,
#: mma.sync) are not here: they stay as they are.
INT_NAMES = {
    "warp": (N_("warp"), ["线程束"]),
    "lane": (N_("lane"), []),
    "rows": (N_("rows"), ["行数"]),
    "sectors": (N_("sectors"), ["扇区数"]),
    "threads": (N_("threads"), ["线程数"]),
    "outputs": (N_("outputs"), ["输出数"]),
    "register": (N_("register"), ["寄存器"]),
    "warps": (N_("warps"), ["线程束数"]),
}


def _ints(*names: str) -> dict:
    """An ``ints`` form: ``names`` (as typed in English and in the answer's order), ``shown`` (the
    names in the reader's language) and ``words`` (what may label each number: its name and its
    Chinese words, :data:`INT_NAMES`)."""
    return {"kind": "ints", "names": list(names),
            "shown": [_(INT_NAMES[n][0]) if n in INT_NAMES else n for n in names],
            "words": [[n, *INT_NAMES.get(n, ("", []))[1]] for n in names]}


def parse(form: dict, text: str):
    """What ``text`` says in the question's ``form``, or :class:`AnswerError` with one line:

    * ``int``: one whole number (``12``, ``12 barriers``, ``1,048,576``);
    * ``number`` / ``percent``: one number (a percent may be typed as ``50%``, ``50`` or ``0.5``);
    * ``ints``: ``n`` whole numbers in the order of ``names``, or each labelled once by one of
      its ``words`` (``lane 20, warp 1``, ``x=3, y=1``, ``lane 20，线程束 1``; :func:`_ints`);
    * ``cells``: one element per name of ``names``, as ``C[5][2]``, ``(5, 2)``, ``5,2``, ``5 2``
      (named ones go to their name: ``B[4][9] and A[3][4]`` is read as A first); ``empty``
      ("pad" / "none") names the word for no element; returns ``[[row, col] or None, ...]``;
    * ``cellset``: named cells in any order (``As[2][1], Bs[2][1]``); returns them sorted;
    * ``choice``: one of ``options`` (``[[key, label, [words...]], ...]``), the one whose word
      comes first (at the same place the longer word) in the last part after a possessive (的,
      's) that names one; returns its key. English words count as
      whole words, Chinese ones anywhere (:func:`_word`).
    """
    kind = form["kind"]
    if not text or not text.strip():
        raise AnswerError(_("Type an answer first."))
    if kind == "int":
        num = _one_number(text, "whole number")
        if "." in num:
            raise AnswerError(_("Type a whole number, not {num}.", num=num))
        return int(num)
    if kind == "number":
        return float(_one_number(text))
    if kind == "percent":
        num = _one_number(text)
        value = float(num)
        return value * 100 if "%" not in text and "." in num and value <= 1 else value
    if kind == "ints":
        names, n = form["names"], len(form["names"])
        labelled = {}
        for name, words in zip(names, form.get("words") or [[name] for name in names]):
            hits = [m.group(1) for w in words for m in _labelled(w).finditer(text)]
            if len(hits) == 1:
                labelled[name] = int(hits[0])
        if len(labelled) == n:
            return [labelled[name] for name in names]
        nums = _numbers(text)
        if any("." in x for x in nums):
            raise AnswerError(_("Type whole numbers."))
        if len(nums) != n:
            raise AnswerError(_("Type {n} whole numbers ({names}); this has {count}.", n=n,
                                names=", ".join(form.get("shown") or names), count=len(nums)))
        return [int(x) for x in nums]
    if kind == "cells":
        items = _cells(form, text)
        names = form["names"]
        if len(items) != len(names):
            raise AnswerError(_("Type {what}; this has {n}.", what=_describe(form), n=len(items)))
        slots: list = [None] * len(names)
        filled = [False] * len(names)
        for _pos, name, rc in items:
            if name is None:
                continue
            if name not in names:
                raise AnswerError(_("The question asks for {names}, not {name}.", names=_(" and ").join(names), name=name))
            i = names.index(name)
            if filled[i]:
                raise AnswerError(_("{name} is typed twice.", name=name))
            slots[i], filled[i] = rc, True
        for _pos, name, rc in items:
            if name is None:
                i = filled.index(False)
                slots[i], filled[i] = rc, True
        return slots
    if kind == "cellset":
        items = _cells(form, text)
        each = _(" or ").join(f"{n}[row][col]" for n in form["names"])
        if not items:
            raise AnswerError(_("Type the cells, each as {each}.", each=each))
        out = set()
        for _pos, name, rc in items:
            if name is None:
                raise AnswerError(_("Name each cell: {each}.", each=each))
            if name not in form["names"]:
                raise AnswerError(_("The cells are in {names}, not {name}.", names=_(" and ").join(form["names"]), name=name))
            out.add((name, rc[0], rc[1]))
        return [list(c) for c in sorted(out)]
    if kind == "choice":
        # A possessive puts its head after it ("每个线程的寄存器", "a thread's registers": registers):
        # the last part, split at 的 / 's, that names an option is read. In it, the option named
        # first ("registers per thread": registers); at the same place the longer word ("thread
        # block" over "thread", 线程块 over 线程), then the key.
        for part in reversed(POSSESSIVE.split(text)):
            found = []
            for key, _label, words in form["options"]:
                at = [(m.start(), -len(w)) for w in words for m in _word(w).finditer(part)]
                if at:
                    found.append((*min(at), key))
            if found:
                return min(found)[2]
        raise AnswerError(_("Type one of: {options}.", options=", ".join(label for _k, label, _w in form["options"])))
    raise ValueError(f"unknown answer form {kind!r}")


def _cell_text(form: dict, name: str, rc) -> str:
    return _(EMPTY_TEXT[form.get("empty") or "none"]) if rc is None else f"{name}[{rc[0]}][{rc[1]}]"


def check(q: Question, text: str) -> Verdict:
    """Right, wrong (with the model's reason for each wrong part, ending in what was typed:
    "..., not 5"), or unreadable (with :func:`parse`'s line)."""
    try:
        got = q.parse(text)
    except AnswerError as e:
        return Verdict("unreadable", str(e))
    kind, form = q.form["kind"], q.form
    right = _("Right: {answer}.", answer=q.answer_text)

    def wrong_one(why, typed) -> str:
        return _("{why}, not {typed}", why=why, typed=typed)

    def wrong_all(parts) -> str:
        return _("; ").join(parts) + _(".")

    if kind in ("int", "choice"):
        if got == q.answer:
            return Verdict("right", right)
        typed = str(got) if kind == "int" else next(label for key, label, _w in form["options"] if key == got)
        return Verdict("wrong", wrong_all([wrong_one(q.why[0], typed)]))
    if kind in ("number", "percent"):
        if abs(got - q.answer) <= form["tol"]:
            return Verdict("right", right)
        return Verdict("wrong", wrong_all([wrong_one(q.why[0], text.strip())]))
    if kind == "ints":
        wrong = [wrong_one(q.why[i], got[i]) for i in range(len(got)) if got[i] != q.answer[i]]
        return Verdict("right", right) if not wrong else Verdict("wrong", wrong_all(wrong))
    if kind == "cells":
        wrong = [wrong_one(q.why[i], _cell_text(form, form["names"][i], got[i]))
                 for i in range(len(got)) if got[i] != q.answer[i]]
        return Verdict("right", right) if not wrong else Verdict("wrong", wrong_all(wrong))
    if kind == "cellset":
        want = {tuple(c) for c in q.answer}
        have = {tuple(c) for c in got}
        if want == have:
            return Verdict("right", right)
        parts = [q.why[0]]
        missing, extra = sorted(want - have), sorted(have - want)
        if missing:
            parts.append(_("missing: {cells}", cells=", ".join(f"{n}[{r}][{c}]" for n, r, c in missing)))
        if extra:
            parts.append(_("not in the answer: {cells}", cells=", ".join(f"{n}[{r}][{c}]" for n, r, c in extra)))
        return Verdict("wrong", _("; ").join(parts) + _("."))
    raise ValueError(f"unknown answer form {kind!r}")


# ---------------------------------------------------------------------------------------------
# Drawing launches
# ---------------------------------------------------------------------------------------------
def _rng(seed: int, key: str) -> np.random.Generator:
    """The draws of one question of one seed: independent of the other questions' draws."""
    return np.random.default_rng([int(seed), zlib.crc32(key.encode())])


def _choice(rng, items):
    return items[int(rng.integers(len(items)))]


def _launch(rng, kernel: str, pool=None, tiles=(2, 4, 8), edges: bool = True, phases: int = 1):
    """``(Launch, blocks)``: from ``pool`` (its blocks, or every block) or drawn freely (T from
    ``tiles``, M, N, K between T + 1 and 5T, so that T seldom divides them when ``edges``), with
    at least ``phases`` phases for a tiled kernel."""
    if pool:
        fits = [p for p in pool if Launch(kernel, *p[:4]).phases >= phases or not Launch(kernel, *p[:4]).is_tiled]
        M, N, K, T, blocks = _choice(rng, fits or list(pool))
        L = Launch(kernel, M, N, K, T)
    else:
        T = int(_choice(rng, list(tiles)))
        lo, hi = (T + 1, 5 * T) if edges else (T, 4 * T)
        M, N = (int(v) for v in rng.integers(lo, hi + 1, size=2))
        K = int(rng.integers(max(lo, phases * T - T + 1), max(hi, phases * T) + 1))
        L, blocks = Launch(kernel, M, N, K, T), None
    if blocks is None:
        gx, gy = L.grid
        blocks = [(x, y) for y in range(gy) for x in range(gx)]
    return L, [tuple(b) for b in blocks]


def _launch_params(L: Launch) -> dict:
    return {"kernel": L.kernel, "M": L.M, "N": L.N, "K": L.K, "T": L.T}


def _launch_text(L: Launch) -> str:
    return _("M×N×K = {M}×{N}×{K}, T = {T} ({T}×{T} threads per block)", M=L.M, N=L.N, K=L.K, T=L.T)


def stepper_target(L: Launch, block, thread, kind: str, phase: int | None = None, k: int | None = None) -> dict:
    """Where the page's stepper shows something: the launch, the block, the pinned thread and
    the step (its index in both stepper modes: one k per step, the whole loop per step)."""
    loop_k = None if kind == "compute" else k
    per_k = steps(L, per_k=True).index(Step(kind, phase, k))
    loop = steps(L, per_k=False).index(Step(kind, phase, loop_k))
    bx, by = (int(v) for v in block)
    tx, ty = (int(v) for v in thread)
    where = _("block (x={bx}, y={by}) · thread (x={tx}, y={ty}) pinned", bx=bx, by=by, tx=tx, ty=ty)
    if kind == "store":
        where += _(" · storing C")
    else:
        where += f" · {phase_label(phase, L.phases)}"
        if k is not None:
            where += f" · {count_label('k', k, L.T)}"
    return {"view": "tiled", **_launch_params(L), "block": [bx, by], "thread": [tx, ty],
            "p": int(L.linear_thread(tx, ty)), "steps": {"k": per_k, "loop": loop}, "where": where}


def _question(page, key, prompt, form, answer, answer_text, why, params, show=None, working=None) -> Question:
    why = tuple(why)
    return Question(page, key, prompt, form, answer, answer_text, why,
                    working if working is not None else _("; ").join(why) + _("."), params, show)


# ---------------------------------------------------------------------------------------------
# 01 · the naive kernel
# ---------------------------------------------------------------------------------------------
#: The naive kernels' index expressions, as kernels/01_naive.cu and 02_naive_col.cu write them.
NAIVE_FORMULAS = {
    "naive": ("blockIdx.y*blockDim.y + threadIdx.y", "blockIdx.x*blockDim.x + threadIdx.x"),
    "naive_col": ("blockIdx.y*blockDim.x + threadIdx.x", "blockIdx.x*blockDim.y + threadIdx.y"),
}


def _naive_parts(L: Launch, bx, by, tx, ty) -> tuple[str, str]:
    """``row = ... = v`` and ``col = ... = v``, the values from :meth:`Launch.c_index`."""
    r, c = (int(v) for v in L.c_index(bx, by, tx, ty))
    T = L.T
    if L.kernel == "naive_col":
        return (f"row = {NAIVE_FORMULAS[L.kernel][0]} = {by}*{T} + {tx} = {r}",
                f"col = {NAIVE_FORMULAS[L.kernel][1]} = {bx}*{T} + {ty} = {c}")
    return (f"row = {NAIVE_FORMULAS[L.kernel][0]} = {by}*{T} + {ty} = {r}",
            f"col = {NAIVE_FORMULAS[L.kernel][1]} = {bx}*{T} + {tx} = {c}")


def naive_element(seed: int, pool=None) -> Question:
    """Which element of C thread (x, y) of block (x, y) computes (or none: outside C)."""
    rng = _rng(seed, "01.element")
    kernel = "naive_col" if rng.random() < 0.3 else "naive"
    L, blocks = _launch(rng, kernel, pool, tiles=(4, 8, 16))
    gx, gy = L.grid
    # an edge block half the time: its threads may fall outside C
    edge = [b for b in blocks if b[0] == gx - 1 or b[1] == gy - 1]
    bx, by = _choice(rng, edge if edge and rng.random() < 0.5 else blocks)
    tx, ty = (int(v) for v in rng.integers(0, L.T, size=2))
    r, c = (int(v) for v in L.c_index(bx, by, tx, ty))
    inside = bool(L.writes_c(bx, by, tx, ty))
    row, col = _naive_parts(L, bx, by, tx, ty)
    if inside:
        why = _("{row} and {col}: {cell}", row=row, col=col, cell=f"C[{r}][{c}]")
        answer, text = [[r, c]], f"C[{r}][{c}]"
    else:
        why = _("{row} and {col}: {cell} lies outside the {M}×{N} matrix C, so the guard "
                "if (row < M && col < N) skips the thread: none", row=row, col=col, cell=f"C[{r}][{c}]", M=L.M, N=L.N)
        answer, text = [None], _("none ({cell} is outside C)", cell=f"C[{r}][{c}]")
    mapping = _("threadIdx.x walks columns") if kernel == "naive" else _("threadIdx.x walks rows")
    prompt = _("Kernel {kernel} ({mapping}), {launch}. Which element of C does thread (x={tx}, y={ty}) of block "
               "(x={bx}, y={by}) compute? Type C[row][col], or none if it computes nothing.", kernel=kernel,
               mapping=mapping, launch=_launch_text(L), tx=tx, ty=ty, bx=bx, by=by)
    return _question("01_naive", "element", prompt, {"kind": "cells", "names": ["C"], "empty": "none"},
                     answer, text, [why], {**_launch_params(L), "block": [bx, by], "thread": [tx, ty]})


def naive_owner(seed: int, pool=None) -> Question:
    """Which thread (block and thread index) computes C[row][col] (:meth:`Launch.c_owner`)."""
    rng = _rng(seed, "01.owner")
    kernel = "naive_col" if rng.random() < 0.3 else "naive"
    L, _blocks = _launch(rng, kernel, pool, tiles=(4, 8, 16))
    r, c = int(rng.integers(0, L.M)), int(rng.integers(0, L.N))
    (bx, by), (tx, ty) = L.c_owner(r, c)
    T = L.T
    if kernel == "naive":
        why = [f"blockIdx.x = col / blockDim.x = {c} / {T} = {bx}", f"blockIdx.y = row / blockDim.y = {r} / {T} = {by}",
               f"threadIdx.x = col % blockDim.x = {c} % {T} = {tx}", f"threadIdx.y = row % blockDim.y = {r} % {T} = {ty}"]
    else:  # threadIdx.x walks the rows of the block's tile
        why = [f"blockIdx.x = col / {T} = {c} / {T} = {bx}", f"blockIdx.y = row / {T} = {r} / {T} = {by}",
               f"threadIdx.x = row % {T} = {r} % {T} = {tx} " + _("(naive_col: threadIdx.x walks rows)"),
               f"threadIdx.y = col % {T} = {c} % {T} = {ty}"]
    prompt = _("Kernel {kernel}, {launch}. Which thread computes {cell}? Type its block and thread: blockIdx.x, "
               "blockIdx.y, threadIdx.x, threadIdx.y (e.g. block (x, y), thread (x, y)).", kernel=kernel,
               launch=_launch_text(L), cell=f"C[{r}][{c}]")
    return _question("01_naive", "owner", prompt,
                     _ints("blockIdx.x", "blockIdx.y", "threadIdx.x", "threadIdx.y"),
                     [bx, by, tx, ty], _("block (x={bx}, y={by}), thread (x={tx}, y={ty})", bx=bx, by=by, tx=tx, ty=ty), why,
                     {**_launch_params(L), "row": r, "col": c})


def naive_grid(seed: int, pool=None) -> Question:
    """gridDim = (x, y) of the launch."""
    rng = _rng(seed, "01.grid")
    L, _blocks = _launch(rng, "naive", pool, tiles=(4, 8, 16, 32))
    gx, gy = L.grid
    why = [f"gridDim.x = ceil(N / T) = ceil({L.N} / {L.T}) = {gx} " + _("(x covers the columns of C)"),
           f"gridDim.y = ceil(M / T) = ceil({L.M} / {L.T}) = {gy} " + _("(y covers the rows)")]
    prompt = _("Kernel naive, {launch}. How many blocks does the grid have in x and in y? Type gridDim.x, gridDim.y.",
               launch=_launch_text(L))
    return _question("01_naive", "grid", prompt, _ints("gridDim.x", "gridDim.y"),
                     [gx, gy], _("gridDim = ({gx}, {gy}): {n} blocks", gx=gx, gy=gy, n=gx * gy), why, _launch_params(L))


# ---------------------------------------------------------------------------------------------
# 02 · the tiled kernel
# ---------------------------------------------------------------------------------------------
def _load_parts(L: Launch, bx, by, tx, ty, t) -> tuple[list, list, str, str]:
    """What thread (tx, ty) of block (bx, by) copies in phase t (:meth:`ThreadView.load`), and
    why, with the kernel's expressions."""
    d = L.thread((bx, by), (tx, ty)).load(t)
    T = L.T
    a, b = d["a"], d["b"]
    # the element the expression names, padding or not (the model without its guard)
    raw = Launch("tiled_unguarded", L.M, L.N, L.K, T)
    (ar, ac), (br, bc) = ((int(v) for v in raw.a_load(by, t, ty, tx)), (int(v) for v in raw.b_load(bx, t, ty, tx)))
    got_a = (f"As[{ty}][{tx}]", f"A[blockIdx.y*T + threadIdx.y][t*T + threadIdx.x] = A[{by}*{T} + {ty}][{t}*{T} + {tx}]"
             f" = A[{ar}][{ac}]")
    why_a = (_("{cell} gets {expr}", cell=got_a[0], expr=got_a[1]) if a is not None else
             _("{cell} gets {expr}, outside the {R}×{C} matrix A: a padding zero", cell=got_a[0], expr=got_a[1],
               R=L.M, C=L.K))
    got_b = (f"Bs[{ty}][{tx}]", f"B[t*T + threadIdx.y][blockIdx.x*T + threadIdx.x] = B[{t}*{T} + {ty}][{bx}*{T} + {tx}]"
             f" = B[{br}][{bc}]")
    why_b = (_("{cell} gets {expr}", cell=got_b[0], expr=got_b[1]) if b is not None else
             _("{cell} gets {expr}, outside the {R}×{C} matrix B: a padding zero", cell=got_b[0], expr=got_b[1],
               R=L.K, C=L.N))
    if a is not None:
        assert [ar, ac] == a  # the expression and the model agree
    if b is not None:
        assert [br, bc] == b
    return a, b, why_a, why_b


def _cell(name, rc) -> str:
    return _("a padding zero") if rc is None else f"{name}[{rc[0]}][{rc[1]}]"


def tiled_loads(seed: int, pool=None, page: str = "02_tiled", padding: bool = False) -> Question:
    """Which A and B elements a thread copies into As / Bs in phase t (or a padding zero)."""
    rng = _rng(seed, f"{page}.loads")
    L, blocks = _launch(rng, "tiled", pool, tiles=(2, 4, 8))
    # page 02: a thread whose copies are real elements; page 03: one with a padding zero, mostly
    want_pad = padding and rng.random() < 0.75
    for _try in range(64):
        bx, by = _choice(rng, blocks)
        tx, ty = (int(v) for v in rng.integers(0, L.T, size=2))
        t = int(rng.integers(0, L.phases))
        a, b, why_a, why_b = _load_parts(L, bx, by, tx, ty, t)
        if (a is None or b is None) == want_pad:
            break
    pad_note = _(" Type pad for a padding zero.") if padding else ""
    prompt = _("Kernel tiled, {launch}. In {phase}, which elements of A and B does thread (x={tx}, y={ty}) of block "
               "(x={bx}, y={by}) copy into As and Bs? Type A[row][col] and B[row][col].{pad_note}",
               launch=_launch_text(L), phase=phase_label(t, L.phases), tx=tx, ty=ty, bx=bx, by=by, pad_note=pad_note)
    return _question(page, "loads", prompt, {"kind": "cells", "names": ["A", "B"], "empty": "pad"}, [a, b],
                     _("{a} into {As} and {b} into {Bs}", a=_cell('A', a), As=f"As[{ty}][{tx}]", b=_cell('B', b),
                       Bs=f"Bs[{ty}][{tx}]"), [why_a, why_b],
                     {**_launch_params(L), "block": [bx, by], "thread": [tx, ty], "phase": t},
                     stepper_target(L, (bx, by), (tx, ty), "load_a", t))


def tiled_reads(seed: int, pool=None) -> Question:
    """At step k of phase t's compute loop: the A and B elements As[ty][k] and Bs[k][tx] hold
    (:meth:`ThreadView.compute`)."""
    rng = _rng(seed, "02.reads")
    L, blocks = _launch(rng, "tiled", pool, tiles=(2, 4, 8))
    for _try in range(64):
        bx, by = _choice(rng, blocks)
        tx, ty = (int(v) for v in rng.integers(0, L.T, size=2))
        t, k = int(rng.integers(0, L.phases)), int(rng.integers(0, L.T))
        d = L.thread((bx, by), (tx, ty)).compute(t, k)
        if d["a"] is not None and d["b"] is not None and k not in (tx, ty):
            break
    a, b = d["a"], d["b"]
    T = L.T
    (i, j), (p, q) = d["as"], d["bs"]
    why_a = _("{cell} was stored by thread (x={x}, y={y}): {expr}", cell=f"As[{i}][{j}]", x=j, y=i,
              expr=f"A[{by}*{T} + {i}][{t}*{T} + {j}] = {_cell('A', a)}")
    why_b = _("{cell} was stored by thread (x={x}, y={y}): {expr}", cell=f"Bs[{p}][{q}]", x=q, y=p,
              expr=f"B[{t}*{T} + {p}][{bx}*{T} + {q}] = {_cell('B', b)}")
    prompt = _("Kernel tiled, {launch}. At {step} of {phase}, thread (x={tx}, y={ty}) of block (x={bx}, y={by}) "
               "computes sum += As[ty][k] * Bs[k][tx]. Which elements of A and B do those two cells hold? "
               "Type A[row][col] and B[row][col].", launch=_launch_text(L), step=count_label('k', k, T),
               phase=phase_label(t, L.phases), tx=tx, ty=ty, bx=bx, by=by)
    return _question("02_tiled", "reads", prompt, {"kind": "cells", "names": ["A", "B"], "empty": "pad"}, [a, b],
                     _("{As} holds {a}, {Bs} holds {b}", As=f"As[{i}][{j}]", a=_cell('A', a), Bs=f"Bs[{p}][{q}]",
                       b=_cell('B', b)), [why_a, why_b],
                     {**_launch_params(L), "block": [bx, by], "thread": [tx, ty], "phase": t, "k": k},
                     stepper_target(L, (bx, by), (tx, ty), "compute", t, k))


def barrier_count(seed: int, pool=None, page: str = "02_tiled", kernels=("tiled",)) -> Question:
    """How many barriers one block passes (:attr:`Launch.barriers_per_block`)."""
    rng = _rng(seed, f"{page}.barriers")
    kernel = _choice(rng, list(kernels))
    L, blocks = _launch(rng, kernel, pool, tiles=(2, 4, 8))
    bx, by = _choice(rng, blocks)
    n, per = L.barriers_per_block, sum(L.barriers)
    kept = {2: _("both barriers"), 1: _("barrier 1 only") if L.barriers[0] else _("barrier 2 only"),
            0: _("no barrier")}[per]
    why = _("{kernel} keeps {kept}: {per} per phase × {phases} phases (ceil(K / T) = ceil({K} / {T})) = {n}",
            kernel=kernel, kept=kept, per=per, phases=L.phases, K=L.K, T=L.T, n=n)
    prompt = _("Kernel {kernel}, {launch}. How many times does one block wait at a __syncthreads() barrier, from its "
               "first phase to its last?", kernel=kernel, launch=_launch_text(L))
    show = None
    if per:  # the last barrier of the last phase
        last = "barrier2" if L.barriers[1] else "barrier1"
        show = stepper_target(L, (bx, by), (0, 0), last, L.phases - 1)
    return _question(page, "barriers", prompt, {"kind": "int"}, n, _("{n} barriers", n=n), [why],
                     {**_launch_params(L), "block": [bx, by]}, show)


def tiled_reuse(seed: int, pool=None) -> Question:
    """How many times each element of A is loaded over the launch: once per block column."""
    rng = _rng(seed, "02.reuse")
    L, _blocks = _launch(rng, "tiled", pool, tiles=(2, 4, 8, 16))
    s = L.stats()
    times = s["global_loads_a"] // (L.M * L.K)
    assert times * L.M * L.K == s["global_loads_a"]
    gx = L.grid[0]
    why = _("every block column loads all of A once, tile by tile, and there are gridDim.x = ceil(N / T) = "
            "ceil({N} / {T}) = {gx} block columns: {loads} loads of A for its {elements} elements = {times}",
            N=L.N, T=L.T, gx=gx, loads=f"{s['global_loads_a']:,}", elements=f"{L.M * L.K:,}", times=times)
    prompt = _("Kernel tiled, {launch}. Over the whole launch, how many times is each element of A loaded from "
               "global memory?", launch=_launch_text(L))
    return _question("02_tiled", "reuse", prompt, {"kind": "int"}, times, _("{n} times", n=times), [why],
                     _launch_params(L))


def strip_max_k(seed: int, pool=None) -> Question:
    """The largest K kernel 02b (V1) launches with, for a tile and a block's shared memory
    (:func:`.strip.max_k_v1`)."""
    rng = _rng(seed, "02.strip_max_k")
    T = int(_choice(rng, [4, 8, 12, 16, 20, 24, 32]))
    S = int(_choice(rng, [16384, 32768, 49152, 65536, 101376, 166912, 232448]))
    k = strip.max_k_v1(S, T)
    why = _("V1 holds the T×K strip of A and the K×T strip of B: 2·T·K·4 bytes ≤ {S}, so K ≤ {S} / (8·{T}) = {exact}; "
            "the largest whole K is {k} (2·{T}·{k}·4 = {used} bytes)", S=S, T=T, exact=f"{S / (8 * T):g}", k=k,
            used=strip.v1_shared_bytes(k, T) if k else 0)
    prompt = _("Kernel 02b (V1) keeps a block's whole strips in dynamic shared memory. With T = {T} and {S} bytes of "
               "shared memory for a block, what is the largest K it can launch with?", T=T, S=S)
    return _question("02_tiled", "strip_max_k", prompt, {"kind": "int"}, k, _("K = {k}", k=k), [why],
                     {"T": T, "shared_per_block": S})


def strip_bytes(seed: int, pool=None) -> Question:
    """How many times V1's shared memory per block is V2's, for K a multiple of T
    (:func:`.strip.v1_shared_bytes`, :func:`.strip.v2_shared_bytes`)."""
    rng = _rng(seed, "02.strip_bytes")
    T = int(_choice(rng, [4, 8, 16, 32]))
    K = T * int(rng.integers(2, 65))
    v1, v2 = strip.v1_shared_bytes(K, T), strip.v2_shared_bytes(K, T)
    times = v1 // v2
    why = _("V1: 2·T·K·4 = 2·{T}·{K}·4 = {v1} bytes; V2: 2·T·T·4 = {v2} bytes, whatever K is; {v1} / {v2} = K / T = "
            "{times}", T=T, K=K, v1=f"{v1:,}", v2=f"{v2:,}", times=times)
    prompt = _("T = {T}, K = {K}. How many times as much shared memory per block does V1 (the whole strips, kernel "
               "02b) need as V2 (the sliding window, kernel 03)?", T=T, K=K)
    return _question("02_tiled", "strip_bytes", prompt, {"kind": "int"}, times, _("{times} times", times=times),
                     [why], {"T": T, "K": K})


# ---------------------------------------------------------------------------------------------
# 03 · boundaries
# ---------------------------------------------------------------------------------------------
def _block_threads(L: Launch):
    ty, tx = np.divmod(np.arange(L.T * L.T), L.T)
    return tx, ty


def ghost_count(seed: int, pool=None) -> Question:
    """How many threads of block (x, y) own no element of C (:meth:`Launch.writes_c`)."""
    rng = _rng(seed, "03.ghosts")
    L, blocks = _launch(rng, "tiled", pool, tiles=(2, 4, 8))
    gx, gy = L.grid
    edge = [b for b in blocks if b[0] == gx - 1 or b[1] == gy - 1]
    bx, by = _choice(rng, edge if edge and rng.random() < 0.8 else blocks)
    tx, ty = _block_threads(L)
    rows, cols = L.c_index(bx, by, tx, ty)
    n = int(np.count_nonzero(~L.writes_c(bx, by, tx, ty)))
    out_r = sorted({int(r) for r in rows if r >= L.M})
    out_c = sorted({int(c) for c in cols if c >= L.N})
    T = L.T
    span = _("block (x={bx}, y={by}) covers rows {r0}..{r1} and columns {c0}..{c1} of the {M}×{N} matrix C",
             bx=bx, by=by, r0=by * T, r1=by * T + T - 1, c0=bx * T, c1=bx * T + T - 1, M=L.M, N=L.N)
    if out_r or out_c:
        span += _("; {rows} of its rows and {cols} of its columns fall outside C", rows=len(out_r), cols=len(out_c))
    why = _("{span}: {n} of its {threads} threads own no element of C", span=span, n=n, threads=T * T)
    prompt = _("Kernel tiled, {launch}. How many ghost threads (threads whose element of C lies outside C) does "
               "block (x={bx}, y={by}) have?", launch=_launch_text(L), bx=bx, by=by)
    return _question("03_boundaries", "ghosts", prompt, {"kind": "int"}, n, _("{n} ghost thread(s)", n=n), [why],
                     {**_launch_params(L), "block": [bx, by]}, stepper_target(L, (bx, by), (0, 0), "load_a", 0))


def padding_count(seed: int, pool=None) -> Question:
    """How many padding zeros block (x, y) stores into As and Bs in phase t (``a_load`` /
    ``b_load`` returning :data:`PAD`)."""
    rng = _rng(seed, "03.padding")
    L, blocks = _launch(rng, "tiled", pool, tiles=(2, 4, 8))
    tx, ty = _block_threads(L)
    for _try in range(64):
        bx, by = _choice(rng, blocks)
        t = int(rng.integers(0, L.phases))
        na = int(np.count_nonzero(L.a_load(by, t, ty, tx)[0] == PAD))
        nb = int(np.count_nonzero(L.b_load(bx, t, ty, tx)[0] == PAD))
        if na + nb or rng.random() < 0.15:
            break
    raw = Launch("tiled_unguarded", L.M, L.N, L.K, L.T)  # the elements the expressions name, unguarded
    ar, ac = raw.a_load(by, t, ty, tx)
    br, bc = raw.b_load(bx, t, ty, tx)

    def span(name, rows, cols, R, C):
        r_out, c_out = int(np.count_nonzero(np.unique(rows) >= R)), int(np.count_nonzero(np.unique(cols) >= C))
        return _("{name} holds rows {r0}..{r1} and columns {c0}..{c1} of the {R}×{C} matrix {matrix} ({r_out} row(s) "
                 "and {c_out} column(s) outside)", name=name, r0=int(rows.min()), r1=int(rows.max()),
                 c0=int(cols.min()), c1=int(cols.max()), R=R, C=C, matrix=name[0], r_out=r_out, c_out=c_out)

    why = _("{span_a}: {na} padding zeros; {span_b}: {nb}; {na} + {nb} = {n}", span_a=span('As', ar, ac, L.M, L.K),
            na=na, span_b=span('Bs', br, bc, L.K, L.N), nb=nb, n=na + nb)
    prompt = _("Kernel tiled, {launch}. In {phase}, how many padding zeros does block (x={bx}, y={by}) store into As "
               "and Bs together?", launch=_launch_text(L), phase=phase_label(t, L.phases), bx=bx, by=by)
    return _question("03_boundaries", "padding", prompt, {"kind": "int"}, na + nb,
                     _("{n} ({na} in As, {nb} in Bs)", n=na + nb, na=na, nb=nb), [why],
                     {**_launch_params(L), "block": [bx, by], "phase": t},
                     stepper_target(L, (bx, by), (0, 0), "load_b", t))


# ---------------------------------------------------------------------------------------------
# 04 · barriers
# ---------------------------------------------------------------------------------------------
def _access(L: Launch, tile: str, cell, phase: int) -> hazards.Access:
    return next(a for a in hazards.accesses(L, phase) if a.tile == tile and a.cell == tuple(cell))


def race_writer(seed: int, pool=None) -> Question:
    """Without barrier 1: the thread whose store a reader may not wait for (the writer of the
    cell it reads, :func:`hazards.accesses`)."""
    rng = _rng(seed, "04.writer")
    L, blocks = _launch(rng, "tiled_no_barrier1", pool, tiles=(2, 4, 8))
    bx, by = _choice(rng, blocks)
    T = L.T
    for _try in range(64):
        tx, ty = (int(v) for v in rng.integers(0, T, size=2))
        t, k = int(rng.integers(0, L.phases)), int(rng.integers(0, T))
        tile = _choice(rng, ["As", "Bs"])
        d = L.thread((bx, by), (tx, ty)).compute(t, k)
        cell = d["as"] if tile == "As" else d["bs"]
        acc = _access(L, tile, cell, t)
        if acc.writer != (tx, ty):
            break
    wx, wy = acc.writer
    hz = [h for h in hazards.hazards(L, t) if h.tile == tile and h.cell == tuple(cell)
          and h.kind == hazards.READ_BEFORE_WRITE]
    assert hz and (tx, ty) in hz[0].readers
    i, j = cell
    expr = "As[ty][k]" if tile == "As" else "Bs[k][tx]"
    why = [_("{expr} is {cell} and thread (x, y) stores {tile}[y][x], so its writer has x = {wx}, the column of "
             "{cell}", expr=expr, cell=f"{tile}[{i}][{j}]", tile=tile, wx=wx),
           _("y = {wy}, its row", wy=wy)]
    prompt = _("Kernel tiled_no_barrier1 (barrier 1 removed), {launch}. At {step} of {phase}, thread (x={tx}, y={ty}) "
               "reads {expr}. Which thread stores that cell? Without barrier 1 the read may come before that store. "
               "Type its threadIdx: x, y.", launch=_launch_text(L), step=count_label('k', k, T),
               phase=phase_label(t, L.phases), tx=tx, ty=ty, expr=expr)
    return _question("04_barriers", "writer", prompt, _ints("x", "y"), [wx, wy],
                     _("thread (x={wx}, y={wy}), which stores {cell}", wx=wx, wy=wy, cell=f"{tile}[{i}][{j}]"), why,
                     {**_launch_params(L), "block": [bx, by], "thread": [tx, ty], "phase": t, "k": k, "tile": tile},
                     stepper_target(L, (bx, by), (tx, ty), "compute", t, k))


def race_warps(seed: int, pool=None) -> Question:
    """Without barrier 1: how many of the threads that may read a cell too early run in another
    warp than its writer (:attr:`hazards.Hazard.same_warp`)."""
    rng = _rng(seed, "04.warps")
    L, blocks = _launch(rng, "tiled_no_barrier1", pool, tiles=(4, 8, 16))
    bx, by = _choice(rng, blocks)
    T = L.T
    t = int(rng.integers(0, L.phases))
    tile = "Bs" if rng.random() < 0.7 else "As"
    i, j = (int(v) for v in rng.integers(0, T, size=2))
    h = next(h for h in hazards.hazards(L, t) if h.tile == tile and h.cell == (i, j)
             and h.kind == hazards.READ_BEFORE_WRITE)
    n = sum(not s for s in h.same_warp)
    wx, wy = h.writer
    w = int(L.warp_lane(wx, wy)[0])
    who = (_("the {T} threads of row y = {i}", T=T, i=i) if tile == "As" else
           _("the {T} threads of column x = {j}", T=T, j=j))
    warps = sorted({int(L.warp_lane(x, y)[0]) for x, y in h.readers})
    why = _("{cell} is read by {who}; besides its writer (x={wx}, y={wy}, warp {w}: linear id x + y*{T} = {lin}, / 32) "
            "that is {readers} thread(s), in warp(s) {warps}: {n} in another warp", cell=f"{tile}[{i}][{j}]", who=who,
            wx=wx, wy=wy, w=w, T=T, lin=int(L.linear_thread(wx, wy)), readers=len(h.readers),
            warps=", ".join(map(str, warps)), n=n)
    prompt = _("Kernel tiled_no_barrier1 (barrier 1 removed), {launch}. In {phase}, the threads that read {cell} may "
               "read it before its writer stores it. How many of those readers (the writer itself not counted) run "
               "in another warp than the writer?", launch=_launch_text(L), phase=phase_label(t, L.phases),
               cell=f"{tile}[{i}][{j}]")
    k = i if tile == "Bs" else j  # the compute step that reads the cell
    reader = h.readers[0]
    return _question("04_barriers", "warps", prompt, {"kind": "int"}, n, f"{n}", [why],
                     {**_launch_params(L), "block": [bx, by], "phase": t, "tile": tile, "cell": [i, j]},
                     stepper_target(L, (bx, by), reader, "compute", t, k))


def overwrites(seed: int, pool=None) -> Question:
    """Without barrier 2: the cells a thread may overwrite with phase t + 1's elements while
    other threads still read phase t's (:func:`hazards.hazards`, write-before-read)."""
    rng = _rng(seed, "04.overwrites")
    L, blocks = _launch(rng, "tiled_no_barrier2", pool, tiles=(2, 4, 8), phases=2)
    bx, by = _choice(rng, blocks)
    T = L.T
    tx, ty = (int(v) for v in rng.integers(0, T, size=2))
    t = int(rng.integers(0, max(1, L.phases - 1)))
    cells = sorted((h.tile, h.cell[0], h.cell[1]) for h in hazards.hazards(L, t)
                   if h.kind == hazards.WRITE_BEFORE_READ and h.writer == (tx, ty))
    answer = [list(c) for c in cells]
    listed = _(" and ").join(f"{n}[{r}][{c}]" for n, r, c in cells) or _("no cell")
    why = _("thread (x={tx}, y={ty}) stores only As[ty][tx] and Bs[ty][tx]; without barrier 2 its stores of {phase} "
            "may land while the other threads of row y = {ty} still read {As} (at k = {tx}) and those of column "
            "x = {tx} read {Bs} (at k = {ty}): {listed}", tx=tx, ty=ty, phase=phase_label(t + 1, L.phases),
            As=f"As[{ty}][{tx}]", Bs=f"Bs[{ty}][{tx}]", listed=listed)
    prompt = _("Kernel tiled_no_barrier2 (barrier 2 removed), {launch}. Which cells of As and Bs may thread "
               "(x={tx}, y={ty}) overwrite with {phase}'s elements while other threads still read those of "
               "phase t = {t}? Type them as As[row][col], Bs[row][col].", launch=_launch_text(L), tx=tx, ty=ty,
               phase=phase_label(t + 1, L.phases), t=t)
    return _question("04_barriers", "overwrites", prompt, {"kind": "cellset", "names": ["As", "Bs"]}, answer,
                     listed, [why], {**_launch_params(L), "block": [bx, by], "thread": [tx, ty], "phase": t},
                     stepper_target(L, (bx, by), (tx, ty), "load_a", t + 1))


def variant_barriers(seed: int, pool=None) -> Question:
    return barrier_count(seed, pool, page="04_barriers",
                         kernels=("tiled", "tiled_no_barrier1", "tiled_no_barrier2"))


# ---------------------------------------------------------------------------------------------
# 05 · warps and coalescing
# ---------------------------------------------------------------------------------------------
def warp_lane(seed: int, pool=None) -> Question:
    """Warp and lane of thread (x, y) (:meth:`Launch.warp_lane`)."""
    rng = _rng(seed, "05.warp")
    T = int(_choice(rng, [8, 16, 32]))
    L = Launch("tiled", T, T, T, T)
    tx, ty = (int(v) for v in rng.integers(0, T, size=2))
    lin = int(L.linear_thread(tx, ty))
    w, lane = (int(v) for v in L.warp_lane(tx, ty))
    why = [_("linear id = threadIdx.x + threadIdx.y*blockDim.x = {tx} + {ty}*{T} = {lin}; warp = {lin} / 32 = {w}",
             tx=tx, ty=ty, T=T, lin=lin, w=w),
           f"lane = {lin} % 32 = {lane}"]
    prompt = _("A block of {T}×{T} threads. In which warp, and at which lane, does thread (x={tx}, y={ty}) run? "
               "Type warp, lane.", T=T, tx=tx, ty=ty)
    return _question("05_warps_and_coalescing", "warp", prompt, _ints("warp", "lane"),
                     [w, lane], _("warp {w}, lane {lane}", w=w, lane=lane), why, {"T": T, "thread": [tx, ty]})


def sectors(seed: int, pool=None) -> Question:
    """How many 32-byte sectors one warp's request touches (:func:`memory.warp_request`)."""
    rng = _rng(seed, "05.sectors")
    kernel = _choice(rng, ["naive", "naive_col", "tiled"])
    T = int(_choice(rng, [8, 16, 32]))
    M, N, K = (int(v) for v in rng.integers(T + 1, 6 * T, size=3))
    L = Launch(kernel, M, N, K, T)
    access = _choice(rng, [a for a, _, _ in memory.ACCESSES[kernel]])
    for _try in range(64):
        bx, by = int(rng.integers(0, L.grid[0])), int(rng.integers(0, L.grid[1]))
        warp = int(rng.integers(0, memory.warps_per_block(T)))
        t = int(rng.integers(0, L.phases)) if L.is_tiled else 0
        k = 0 if L.is_tiled else int(rng.integers(0, K))
        r = memory.warp_request(L, access, (bx, by), warp, t=t, k=k)
        if r.active:
            break
    ids = r.sector_ids
    lanes = [x for x in r.lanes if x["element"]]
    first, last = lanes[0], lanes[-1]
    shown = ", ".join(map(str, ids[:8])) + (_(", … ({n} in all)", n=len(ids)) if len(ids) > 8 else "")
    why = _("its {active} active lane(s) touch {distinct} distinct float(s), from {first} (lane {first_lane}, byte "
            "{first_byte}) to {last} (lane {last_lane}, byte {last_byte}); byte address / 32 gives sectors {shown}: "
            "{sectors}", active=r.active, distinct=r.distinct_addresses,
            first=f"{r.matrix}[{first['element'][0]}][{first['element'][1]}]", first_lane=first['lane'],
            first_byte=first['address'], last=f"{r.matrix}[{last['element'][0]}][{last['element'][1]}]",
            last_lane=last['lane'], last_byte=last['address'], shown=shown, sectors=r.sectors)
    step = "" if r.matrix == "C" else _(" at {step}", step=phase_label(t, L.phases) if L.is_tiled
                                        else count_label('k', k, K))
    prompt = _("Kernel {kernel}, {launch}. Warp {warp} of block (x={bx}, y={by}) runs its {access} ({code}){step}. "
               "How many 32-byte sectors does that request touch? (A row-major matrix starts at byte 0; element "
               "[r][c] of a matrix with C columns sits at byte 4*(r*C + c).)", kernel=kernel, launch=_launch_text(L),
               warp=warp, bx=bx, by=by, access=_(access), code=r.code, step=step)
    return _question("05_warps_and_coalescing", "sectors", prompt, {"kind": "int"}, r.sectors,
                     _("{n} sector(s) (the ideal is {ideal})", n=r.sectors, ideal=r.ideal), [why],
                     {**_launch_params(L), "access": access, "block": [bx, by], "warp": warp, "t": t, "k": k})


def bank_degree(seed: int, pool=None) -> Question:
    """The bank conflict of a warp's shared read (:func:`memory.bank_access`)."""
    rng = _rng(seed, "05.banks")
    expr = _choice(rng, list(memory.SHARED_READS))
    T = int(_choice(rng, [8, 16, 32]))
    pad = int(_choice(rng, [0, 0, 1]))
    warp = int(rng.integers(0, memory.warps_per_block(T)))
    k = int(rng.integers(0, T))
    b = memory.bank_access(expr, T, warp, k, pad)
    tile = memory.SHARED_READS[expr][0]
    per_bank: dict[int, set] = {}
    for wd, bank in zip(b.words, b.banks):
        per_bank.setdefault(bank, set()).add(wd)
    worst = max(per_bank, key=lambda x: (len(per_bank[x]), -x))
    why = _("the lanes read {words} distinct word(s) (row*{row} + col) in {banks} bank(s) (word % 32); ",
            words=b.distinct_words, row=T + pad, banks=b.banks_touched)
    if b.degree == 1:
        why += _("no bank holds two different words of them: 1-way (no conflict)")
    else:
        words = sorted(per_bank[worst])
        why += _("bank {bank} holds {n} different words ({words}), served one after another: {degree}-way",
                 bank=worst, n=len(words), words=", ".join(map(str, words[:6])) + (" …" if len(words) > 6 else ""),
                 degree=b.degree)
    prompt = _("{decl}; warp {warp} of a {T}×{T} block reads {expr} at {step}. How many ways is its worst bank "
               "conflict? (1: no conflict; lanes reading the same word share it.)", decl=f"float {tile}[{T}][{T + pad}]",
               warp=warp, T=T, expr=expr, step=count_label('k', k, T))
    return _question("05_warps_and_coalescing", "banks", prompt, {"kind": "int"}, b.degree,
                     _("{degree}-way", degree=b.degree), [why],
                     {"expr": expr, "T": T, "pad": pad, "warp": warp, "k": k})


#: Block shapes the non-square questions draw (blockDim.x, blockDim.y): the lab report's tile_x x tile_y.
NON_SQUARE = [(16, 4), (4, 16), (32, 8), (8, 32), (64, 4), (8, 4), (32, 2), (16, 8), (2, 32), (128, 2)]
SQUARE = [(8, 8), (16, 16), (32, 32)]


def block_owner(seed: int, pool=None) -> Question:
    """Which element of C thread (x, y) of block (x, y) computes with a non-square block
    (:meth:`Launch.c_index` with ``block_dim``)."""
    rng = _rng(seed, "05.block_owner")
    kernel = "naive_col" if rng.random() < 0.35 else "naive"
    BX, BY = _choice(rng, NON_SQUARE)
    M, N, K = (int(v) for v in rng.integers(5, 130, size=3))
    L = Launch(kernel, M, N, K, block_dim=(BX, BY))
    gx, gy = L.grid
    edge = rng.random() < 0.3
    bx = gx - 1 if edge else int(rng.integers(0, gx))
    by = gy - 1 if edge else int(rng.integers(0, gy))
    tx, ty = int(rng.integers(0, BX)), int(rng.integers(0, BY))
    r, c = (int(v) for v in L.c_index(bx, by, tx, ty))
    if kernel == "naive":
        parts = (f"row = blockIdx.y*blockDim.y + threadIdx.y = {by}*{BY} + {ty} = {r}",
                 f"col = blockIdx.x*blockDim.x + threadIdx.x = {bx}*{BX} + {tx} = {c}")
    else:
        parts = (f"row = blockIdx.y*blockDim.x + threadIdx.x = {by}*{BX} + {tx} = {r}",
                 f"col = blockIdx.x*blockDim.y + threadIdx.y = {bx}*{BY} + {ty} = {c}")
    if L.writes_c(bx, by, tx, ty):
        why = _("{row} and {col}: {cell}", row=parts[0], col=parts[1], cell=f"C[{r}][{c}]")
        answer, text = [[r, c]], f"C[{r}][{c}]"
    else:
        why = _("{row} and {col}: {cell} lies outside the {M}×{N} matrix C, so the guard "
                "if (row < M && col < N) skips the thread: none", row=parts[0], col=parts[1], cell=f"C[{r}][{c}]",
                M=M, N=N)
        answer, text = [None], _("none ({cell} is outside C)", cell=f"C[{r}][{c}]")
    prompt = _("Kernel {kernel}, M×N×K = {M}×{N}×{K}, blockDim = ({BX}, {BY}) (a {BX}×{BY} block; grid {gx}×{gy}). "
               "Which element of C does thread (x={tx}, y={ty}) of block (x={bx}, y={by}) compute? Type C[row][col], "
               "or none if it computes nothing.", kernel=kernel, M=M, N=N, K=K, BX=BX, BY=BY, gx=gx, gy=gy, tx=tx,
               ty=ty, bx=bx, by=by)
    return _question("05_warps_and_coalescing", "block_owner", prompt, {"kind": "cells", "names": ["C"], "empty": "none"},
                     answer, text, [why], {"kernel": kernel, "M": M, "N": N, "K": K, "block_dim": [BX, BY],
                                           "block": [bx, by], "thread": [tx, ty]})


def warp_rows(seed: int, pool=None) -> Question:
    """How many rows of A, and how many 32-byte sectors, one warp's load A[row][k] touches in the
    naive kernel with a BX x BY block (:func:`.blockshape.warp_footprint`)."""
    rng = _rng(seed, "05.warp_rows")
    BX, BY = _choice(rng, SQUARE + NON_SQUARE)
    L = Launch("naive", 256, 256, 256, block_dim=(BX, BY))
    gx, gy = L.grid
    bx, by = int(rng.integers(0, gx)), int(rng.integers(0, gy))
    warp = int(rng.integers(0, memory.warps_per_block((BX, BY))))
    k = int(rng.integers(0, L.K))
    f = blockshape.warp_footprint(L, (bx, by), warp, k)["A"]
    lo, hi = warp * 32, min(warp * 32 + 31, BX * BY - 1)
    rows = f["rows"]
    shown = ", ".join(map(str, rows[:6])) + (" …" if len(rows) > 6 else "")
    why = [_("lanes are ids {lo}..{hi} = threadIdx.x + threadIdx.y*{BX}, so threadIdx.y runs {y0}..{y1} and "
             "row = blockIdx.y*{BY} + threadIdx.y takes the values {shown}: rows of A = {rows}", lo=lo, hi=hi, BX=BX,
             y0=lo // BX, y1=hi // BX, BY=BY, shown=shown, rows=len(rows)),
           _("the lanes of one row read the same {cell} (a broadcast); rows are {K} floats = {bytes} bytes apart, one "
             "sector each: sectors = {sectors} (the ideal for {rows} distinct floats: {ideal})", cell=f"A[row][{k}]",
             K=L.K, bytes=4 * L.K, sectors=f['sectors'], rows=len(rows), ideal=f['ideal'])]
    prompt = _("Kernel naive, M×N×K = 256×256×256, blockDim = ({BX}, {BY}). Warp {warp} of block (x={bx}, y={by}) "
               "loads A[row * K + k] at k = {k}. How many different rows of A does that request read, and how many "
               "32-byte sectors does it touch? Type rows, sectors.", BX=BX, BY=BY, warp=warp, bx=bx, by=by, k=k)
    return _question("05_warps_and_coalescing", "warp_rows", prompt, _ints("rows", "sectors"),
                     [len(rows), f["sectors"]], _("{rows} row(s), {sectors} sector(s)", rows=len(rows),
                                                  sectors=f['sectors']), why,
                     {"kernel": "naive", "M": 256, "N": 256, "K": 256, "block_dim": [BX, BY], "block": [bx, by],
                      "warp": warp, "k": k})


def shape_blocks(seed: int, pool=None) -> Question:
    """Blocks per SM for a naive block of BX x BY threads (no shared memory; :func:`.hardware.occupancy`)."""
    rng = _rng(seed, "05.shape_blocks")
    arch = _choice(rng, list(hardware.arches()))
    BX, BY = _choice(rng, SQUARE + NON_SQUARE)
    o = hardware.occupancy(arch, BX * BY)
    why = _("{BX}×{BY} = {threads} threads = {warps} warp(s); {limits}; the SM holds the smallest: {n}", BX=BX, BY=BY,
            threads=BX * BY, warps=o.warps_per_block, limits=_limits_text(arch, o), n=o.blocks_per_sm)
    prompt = _("{arch}: the naive kernel (no shared memory; leave registers aside) launched with blockDim = "
               "({BX}, {BY}). How many blocks can one SM hold at once?", arch=_(hardware.arch(arch)['label']),
               BX=BX, BY=BY)
    return _question("05_warps_and_coalescing", "shape_blocks", prompt, {"kind": "int"}, o.blocks_per_sm,
                     _("{n} block(s) per SM ({occupancy} occupancy)", n=o.blocks_per_sm,
                       occupancy=f"{o.occupancy:.0%}"), [why],
                     {"arch": arch, "block_dim": [BX, BY]})


# ---------------------------------------------------------------------------------------------
# 06 · occupancy
# ---------------------------------------------------------------------------------------------
RESOURCE_WORDS = {
    "threads": (N_("warps (threads) per SM"), ["threads", "thread", "warps", "warp"]),
    "blocks": (N_("resident blocks per SM (block slots)"), ["blocks", "block", "block slots", "slots"]),
    "shared": (N_("shared memory"), ["shared", "shared memory", "smem"]),
    "registers": (N_("registers"), ["registers", "register", "regs", "reg"]),
}


def _occupancy_draw(rng):
    arch = _choice(rng, list(hardware.arches()))
    for _try in range(256):
        if rng.random() < 0.5:  # the tiled kernel: T*T threads, 2*T*T floats of shared memory
            T = int(_choice(rng, [8, 16, 32]))
            threads, smem = T * T, Launch("tiled", T, T, T, T).shared_bytes_per_block
        else:
            threads = int(_choice(rng, [64, 96, 128, 192, 256, 384, 512, 768, 1024]))
            smem = int(_choice(rng, [0, 1024, 4096, 8192, 12288, 16384, 24576, 32768, 49152]))
        regs = int(_choice(rng, [16, 24, 32, 40, 48, 64, 96, 128]))
        try:
            o = hardware.occupancy(arch, threads, smem, regs)
        except hardware.OccupancyError:
            continue
        if o.blocks_per_sm:  # (a block whose registers do not fit on the SM never launches)
            return arch, threads, smem, regs, o
    raise AssertionError("no valid occupancy draw")


def _occupancy_prompt(arch, threads, smem, regs) -> str:
    return _("{arch}: blocks of {threads} threads, {smem} bytes of shared memory per block, {regs} registers per "
             "thread.", arch=_(hardware.arch(arch)['label']), threads=threads, smem=f"{smem:,}", regs=regs)


def _limits_text(arch, o: hardware.Occupancy) -> str:
    a = hardware.arch(arch)
    parts = [_("warps: {sm} per SM / {block} per block = {n}", sm=a['max_warps_per_sm'], block=o.warps_per_block,
               n=o.limits['threads']),
             _("block slots: {n}", n=o.limits['blocks'])]
    if "shared" in o.limits:
        parts.append(_("shared memory: {sm} bytes per SM hold {n} block(s) of {bytes} (+ {reserved} reserved, in "
                       "units of {unit})", sm=f"{a['shared_per_sm']:,}", n=o.limits['shared'],
                       bytes=f"{o.shared_bytes:,}", reserved=f"{a['reserved_shared_per_block']:,}",
                       unit=a['shared_alloc_unit']))
    if "registers" in o.limits:
        parts.append(_("registers: {sm} per SM, {regs} × 32 per warp (in units of {unit}) → {n} block(s)",
                       sm=f"{a['regs_per_sm']:,}", regs=o.regs_per_thread, unit=a['reg_alloc_unit'],
                       n=o.limits['registers']))
    return _("; ").join(parts)


def blocks_per_sm(seed: int, pool=None) -> Question:
    rng = _rng(seed, "06.blocks")
    arch, threads, smem, regs, o = _occupancy_draw(rng)
    why = _("{limits}; the SM holds the smallest: {n}", limits=_limits_text(arch, o), n=o.blocks_per_sm)
    prompt = _("{setup} How many blocks can one SM hold at once?", setup=_occupancy_prompt(arch, threads, smem, regs))
    return _question("06_tile_size_and_occupancy", "blocks", prompt, {"kind": "int"}, o.blocks_per_sm,
                     _("{n} block(s) per SM", n=o.blocks_per_sm), [why],
                     {"arch": arch, "threads": threads, "smem": smem, "regs": regs})


def limiter(seed: int, pool=None) -> Question:
    rng = _rng(seed, "06.limiter")
    arch, threads, smem, regs, o = _occupancy_draw(rng)
    why = _("{limits}; the smallest, {n}, comes from {resource}", limits=_limits_text(arch, o), n=o.blocks_per_sm,
            resource=_(RESOURCE_WORDS[o.limiter][0]))
    options = _options([[k, RESOURCE_WORDS[k][0], RESOURCE_WORDS[k][1]] for k in hardware.RESOURCES])
    prompt = _("{setup} Which resource runs out first: threads (warps), block slots, shared memory or registers?",
               setup=_occupancy_prompt(arch, threads, smem, regs))
    return _question("06_tile_size_and_occupancy", "limiter", prompt, {"kind": "choice", "options": options},
                     o.limiter, next(label for key, label, _w in options if key == o.limiter), [why],
                     {"arch": arch, "threads": threads, "smem": smem, "regs": regs})


def occupancy_percent(seed: int, pool=None) -> Question:
    rng = _rng(seed, "06.occupancy")
    arch, threads, smem, regs, o = _occupancy_draw(rng)
    pct = o.occupancy * 100
    a = hardware.arch(arch)
    why = _("{n} block(s) per SM ({limits}) × {warps} warps = {active} of {most} warps = {occupancy}",
            n=o.blocks_per_sm, limits=_limits_text(arch, o), warps=o.warps_per_block, active=o.active_warps,
            most=a['max_warps_per_sm'], occupancy=f"{o.occupancy:.0%}")
    prompt = _("{setup} What is the occupancy (resident warps over the SM's maximum), in percent?",
               setup=_occupancy_prompt(arch, threads, smem, regs))
    return _question("06_tile_size_and_occupancy", "occupancy", prompt, {"kind": "percent", "tol": 0.51},
                     pct, f"{o.occupancy:.0%}", [why],
                     {"arch": arch, "threads": threads, "smem": smem, "regs": regs})


def _scheduler_draw(rng):
    """An architecture, a tile, registers per thread (or none) and a recorded latency kind, for a
    tiled kernel that fits (:func:`.scheduler.tile_run`)."""
    from . import scheduler as sm

    arch = _choice(rng, list(hardware.arches()))
    lk = _choice(rng, list(sm.LATENCY_KINDS))
    a = hardware.arch(arch)
    for _try in range(256):
        T = int(_choice(rng, [8, 16, 32]))
        regs = _choice(rng, [None] + [r for r in (32, 64, 128, 255) if r <= a["max_regs_per_thread"]])
        try:
            o = hardware.tile_occupancy(arch, T, regs)
        except hardware.OccupancyError:
            continue
        if o.blocks_per_sm:
            return arch, T, regs, lk, o
    raise AssertionError("no valid scheduler draw")


def scheduler_idle(seed: int, pool=None) -> Question:
    """Cycles scheduler 0 issues nothing before the first load returns (the model's simulation)."""
    from . import scheduler as sm

    rng = _rng(seed, "06.idle")
    arch, T, regs, lk, o = _scheduler_draw(rng)
    run, _occ, lat = sm.tile_run(arch, T, regs, phases=1, latency_kind=lk)
    L, S, mine = run.latency, run.schedulers, run.warps_of(0)
    idle = run.idle_cycles(0, 0, L)
    issued = L - idle
    a = hardware.arch(arch)
    why = _("scheduler 0 holds warps 0, {S}, {S2}, … of {warps}: {mine} warp(s); each issues its 2 global loads "
            "({issued} instructions in all, one per cycle) and then waits: the first loaded value arrives at cycle "
            "L = {L}, so cycles {issued}..{last} issue nothing: {L} − {issued} = {idle}", S=S, S2=2 * S,
            warps=run.warps, mine=len(mine), issued=issued, L=L, last=L - 1, idle=idle)
    if issued >= L:
        why = _("scheduler 0 holds {mine} warps: their 2 global loads each fill every cycle before the first loaded "
                "value arrives at cycle L = {L}, so the scheduler is never idle there: {idle}", mine=len(mine), L=L,
                idle=idle)
    prompt = _("{arch}, the tiled kernel with {T}×{T} blocks{regs}: the SM holds {blocks} block(s), {warps} warps, on "
               "{S} schedulers (warp w on scheduler w mod {S}). All start at cycle 0. Each warp first issues its two "
               "global loads (A and B), then its store into As, which needs the loaded value; a load takes L = {L} "
               "cycles ({latency}). A scheduler issues at most one instruction per cycle. In cycles 0..{last}, how "
               "many cycles does scheduler 0 issue nothing?", arch=_(a['label']), T=T,
               regs=_(" and {regs} registers per thread", regs=regs) if regs else "", blocks=o.blocks_per_sm,
               warps=run.warps, S=S, L=L, latency=lat['short'], last=L - 1)
    return _question("06_tile_size_and_occupancy", "idle", prompt, {"kind": "int"}, idle,
                     _("{n} idle cycles", n=idle),
                     [why], {"arch": arch, "T": T, "regs": regs, "latency": L, "warps": run.warps, "schedulers": S})


def scheduler_warps(seed: int, pool=None) -> Question:
    """The rule of thumb: warps one scheduler needs to stay busy through a load."""
    from . import scheduler as sm

    rng = _rng(seed, "06.hide")
    arch, T, regs, lk, o = _scheduler_draw(rng)
    lat = sm.latency_choice(lk)
    L, n = lat["cycles"], sm.per_phase(T)
    need = sm.warps_needed(L, T)
    a = hardware.arch(arch)
    S = a["schedulers_per_sm"]
    why = _("a warp issues n = 2 + 2 + 2 + {T} = {n} instructions per phase, then waits L = {L} cycles; the scheduler "
            "needs L × 1 / n = {L} / {n} = {ratio} → {need} warps (× {S} schedulers = {per_sm} per SM; a {arch} SM "
            "holds at most {most})", T=T, n=n, L=L, ratio=f"{L / n:.2f}", need=need, S=S, per_sm=need * S,
            arch=_(a['label']), most=a['max_warps_per_sm'])
    prompt = _("{arch}, the tiled kernel with T = {T}: in each phase every warp issues 2 global loads, 2 stores into "
               "As / Bs, 2 __syncthreads() and {T} FMAs, then waits for its next loads, which take L = {L} cycles "
               "({latency}). A scheduler issues one instruction per cycle. By the rule of thumb (latency × issue rate "
               "/ instructions a warp issues between waits, rounded up), how many warps does one scheduler need to "
               "stay busy?", arch=_(a['label']), T=T, L=L, latency=lat['short'])
    return _question("06_tile_size_and_occupancy", "hide", prompt, {"kind": "int"}, need, _("{n} warps", n=need),
                     [why], {"arch": arch, "T": T, "latency": L, "per_phase": n})


# ---------------------------------------------------------------------------------------------
# 07 · arithmetic intensity and the roofline
# ---------------------------------------------------------------------------------------------
#: GPUs the roofline questions draw (bandwidth GB/s, FP32 peak GFLOP/s): PMPP's A100 example and
#: round figures of the same order; the question states them, the answer is computed from them.
GPUS = ((roofline.PMPP_A100["bandwidth_gbs"], 19500.0), (900.0, 14000.0), (2000.0, 19500.0),
        (3350.0, 60000.0), (1000.0, 30000.0))


def _intensity_draw(rng):
    T = int(_choice(rng, [4, 8, 16, 32]))
    if rng.random() < 0.5:
        n = int(_choice(rng, [256, 512, 1024, 2048, 4096]))
        M = N = K = n
    else:
        M, N, K = (int(v) for v in rng.integers(T + 1, 40 * T, size=3))
    return Launch("tiled", M, N, K, T)


def _intensity_why(L: Launch) -> str:
    s = L.stats()
    gx, gy = L.grid
    return _("FLOP = 2·M·N·K = {flops}; loads = gridDim.x·M·K + gridDim.y·K·N = {gx}·{M}·{K} + {gy}·{K}·{N} = "
             "{loads} floats = {bytes} bytes; {flops} / {bytes} = {x} FLOP/B", flops=f"{s['flops']:,}", gx=gx, M=L.M,
             K=L.K, gy=gy, N=L.N, loads=f"{s['global_loads']:,}", bytes=f"{4 * s['global_loads']:,}",
             x=f"{s['flop_per_byte']:.3f}")


def intensity(seed: int, pool=None) -> Question:
    rng = _rng(seed, "07.intensity")
    L = _intensity_draw(rng)
    x = L.stats()["flop_per_byte"]
    assert abs(x - roofline.intensity("tiled", L.M, L.N, L.K, L.T)) < 1e-12
    prompt = _("Kernel tiled, {launch}. How many FLOP per byte of global loads does it do (counting every load as "
               "DRAM traffic)? Two decimals are enough.", launch=_launch_text(L))
    return _question("07_arithmetic_intensity_and_roofline", "intensity", prompt,
                     {"kind": "number", "tol": max(0.01, 0.005 * x)}, x, f"{x:.3f} FLOP/B",
                     [_intensity_why(L)], _launch_params(L))


def bound(seed: int, pool=None) -> Question:
    rng = _rng(seed, "07.bound")
    L = _intensity_draw(rng)
    bw, peak = _choice(rng, list(GPUS))
    x = L.stats()["flop_per_byte"]
    b = roofline.bound_gflops(x, bw, peak)
    why = _("intensity: {intensity}; bound = min(peak, intensity × bandwidth) = min({peak}, {x} × {bw}) = {b} GFLOP/s",
            intensity=_intensity_why(L), peak=f"{peak:,.0f}", x=f"{x:.3f}", bw=f"{bw:,.0f}", b=f"{b:,.0f}")
    prompt = _("Kernel tiled, {launch}, on a GPU with {bw} GB/s of DRAM bandwidth and an FP32 peak of {peak} GFLOP/s. "
               "What bound does the roofline put on it, in GFLOP/s (within 1%)?", launch=_launch_text(L),
               bw=f"{bw:,.0f}", peak=f"{peak:,.0f}")
    return _question("07_arithmetic_intensity_and_roofline", "bound", prompt,
                     {"kind": "number", "tol": 0.01 * b}, b, f"{b:,.0f} GFLOP/s", [why],
                     {**_launch_params(L), "bandwidth_gbs": bw, "peak_gflops": peak})


def bound_kind(seed: int, pool=None) -> Question:
    rng = _rng(seed, "07.kind")
    L = _intensity_draw(rng)
    bw, peak = _choice(rng, list(GPUS))
    x = L.stats()["flop_per_byte"]
    ridge = roofline.ridge(bw, peak)
    key = "memory" if roofline.bound_gflops(x, bw, peak) < peak else "compute"
    options = _options([["memory", N_("memory-bound"), ["memory", "bandwidth", "dram"]],
                        ["compute", N_("compute-bound"), ["compute", "peak", "arithmetic", "flops"]]])
    label = next(label for k, label, _w in options if k == key)
    why = (_("the ridge is peak / bandwidth = {peak} / {bw} = {ridge} FLOP/B and the kernel does {x} FLOP/B, below "
             "it: {verdict}", peak=f"{peak:,.0f}", bw=f"{bw:,.0f}", ridge=f"{ridge:.1f}", x=f"{x:.2f}", verdict=label)
           if key == "memory" else
           _("the ridge is peak / bandwidth = {peak} / {bw} = {ridge} FLOP/B and the kernel does {x} FLOP/B, at or "
             "above it: {verdict}", peak=f"{peak:,.0f}", bw=f"{bw:,.0f}", ridge=f"{ridge:.1f}", x=f"{x:.2f}",
             verdict=label))
    prompt = _("Kernel tiled, {launch}, on a GPU with {bw} GB/s and {peak} GFLOP/s. By the roofline, is it "
               "memory-bound or compute-bound?", launch=_launch_text(L), bw=f"{bw:,.0f}", peak=f"{peak:,.0f}")
    return _question("07_arithmetic_intensity_and_roofline", "kind", prompt, {"kind": "choice", "options": options},
                     key, label, [why], {**_launch_params(L), "bandwidth_gbs": bw, "peak_gflops": peak})


# ---------------------------------------------------------------------------------------------
# 08 · beyond tiling: the ladder (kernels 10-14)
# ---------------------------------------------------------------------------------------------
#: How a rung of :mod:`.ladder` is described in a prompt, by its kernel.
RUNG_WORDS = {
    "blocktile_1d": N_("kernel 10's 1D block tiling (a thread computes TM outputs of one column of C)"),
    "blocktile_2d": N_("kernel 11's 2D block tiling (a thread computes a TM×TN tile of C; one float per shared-memory "
                       "load)"),
    "vectorized": N_("kernel 12's float4 loads (a thread computes a TM×TN tile of C; As transposed, so a thread's "
                     "TM values of As are adjacent; 4 floats per shared-memory load)"),
    "warptile": N_("kernel 14's warp tiling (float4 shared-memory loads, 4 floats each)"),
}


def _variant(name: str, **params) -> ladder.Rung:
    """Rung ``name`` of :data:`.ladder.RUNGS` with some template arguments changed."""
    base = ladder.rung(name)
    p = dict(base.params)
    p.update(params)
    return replace(base, params=tuple(p.items()))


def _warp_configs() -> list[dict]:
    """Warp tilings whose lanes cover their WM×WN warp tile exactly (kernel 14's index scheme:
    WNITER sub-tiles along n, WMITER = WM·WN / (32·TM·TN·WNITER) along m)."""
    out = []
    for WM in (32, 64):
        for WN in (32, 64):
            for TM in (4, 8):
                for TN in (4, 8):
                    for WNITER in (1, 2, 4):
                        per_lane = ladder.WARP * TM * TN * WNITER
                        if (WM * WN) % per_lane or WN % WNITER:
                            continue
                        wmiter = WM * WN // per_lane
                        wsubn = WN // WNITER
                        if WM % wmiter or wsubn % TN or ladder.WARP % (wsubn // TN):
                            continue
                        if WM // wmiter != (ladder.WARP // (wsubn // TN)) * TM:
                            continue
                        out.append({"WM": WM, "WN": WN, "WNITER": WNITER, "TM": TM, "TN": TN})
    return out


WARP_CONFIGS = tuple(_warp_configs())


def _rung_draw(rng, kinds=("blocktile_1d", "blocktile_2d", "vectorized", "warptile")) -> ladder.Rung:
    """A rung of one of ``kinds`` with drawn block and thread tiles (at most 1024 threads a block)."""
    name = _choice(rng, list(kinds))
    for _try in range(256):
        if name == "blocktile_1d":
            BM, BN = (int(_choice(rng, [32, 64, 128])) for _try in range(2))
            r = _variant(name, BM=BM, BN=BN, TM=int(_choice(rng, [4, 8, 16, 32])))
        elif name in ("blocktile_2d", "vectorized"):
            BM, BN = (int(_choice(rng, [64, 128, 256])) for _try in range(2))
            sizes = [2, 4, 8, 16] if name == "blocktile_2d" else [4, 8, 16]
            r = _variant(name, BM=BM, BN=BN, TM=int(_choice(rng, sizes)), TN=int(_choice(rng, sizes)))
        else:
            w = dict(_choice(rng, list(WARP_CONFIGS)))
            BM, BN = w["WM"] * int(_choice(rng, [1, 2, 4])), w["WN"] * int(_choice(rng, [1, 2, 4]))
            w["THREADS"] = ladder.WARP * (BM // w["WM"]) * (BN // w["WN"])
            r = _variant(name, BM=BM, BN=BN, **w)
        if 32 <= r.threads <= 1024 and r.BM % r["TM"] == 0:
            return r
    raise AssertionError("no valid rung draw")


def _rung_text(r: ladder.Rung) -> str:
    p = r.p
    text = _("{rung}, block tile BM×BN = {BM}×{BN}, BK = {BK}", rung=_(RUNG_WORDS[r.name]), BM=r.BM, BN=r.BN, BK=r.BK)
    if r.layout == "1d":
        return text + f", TM = {p['TM']}"
    if r.layout == "2d":
        return text + f", TM×TN = {p['TM']}×{p['TN']}"
    return text + _("; a warp owns a WM×WN = {WM}×{WN} tile of C, split into WNITER = {WNITER} sub-tiles along n and "
                    "as many along m as it takes to cover it; in each sub-tile a lane computes TM×TN = {TM}×{TN} "
                    "outputs", WM=p['WM'], WN=p['WN'], WNITER=p['WNITER'], TM=p['TM'], TN=p['TN'])


def ladder_fma(seed: int, pool=None) -> Question:
    """Multiply-adds per shared-memory load of a rung's thread tile (:attr:`.ladder.Rung.fma_per_lds`)."""
    rng = _rng(seed, "08.fma")
    r = _rung_draw(rng)
    x = r.fma_per_lds
    tm, tn = r.thread_tile
    if r.layout == "1d":
        lds = tm + 1
        why = _("per step k a thread reads TM = {tm} values of As and 1 of Bs (kept in a register) and does TM = {tm} "
                "multiply-adds: {tm} / ({tm} + 1) = {x}", tm=tm, x=f"{x:.3f}")
    else:
        v = r.vector
        lds = tm // v + tn // v
        loads = (_("{tm} + {tn} = {lds} loads of one float", tm=tm, tn=tn, lds=lds) if v == 1 else
                 _("{tm}/4 + {tn}/4 = {tm4} + {tn4} = {lds} float4 loads", tm=tm, tn=tn, tm4=tm // 4, tn4=tn // 4,
                   lds=lds))
        tile = "" if r.layout == "2d" else _("its thread tile is (WMITER·TM)×(WNITER·TN) = {tm}×{tn} (WMITER = "
                                             "{wmiter}); ", tm=tm, tn=tn, wmiter=r.warp_dims['WMITER'])
        why = _("{tile}per step k a thread reads {tm} values of As and {tn} of Bs, {loads}, and does {tm}·{tn} = "
                "{fma} multiply-adds with them: {fma} / {lds} = {x}", tile=tile, tm=tm, tn=tn, loads=loads,
                fma=tm * tn, lds=lds, x=f"{x:.3f}")
    assert abs(r.outputs_per_thread / lds - x) < 1e-12
    prompt = _("Take {rung}. In the compute loop, how many multiply-adds does a thread do per shared-memory load "
               "instruction? Two decimals are enough.", rung=_rung_text(r))
    return _question("08_beyond_tiling", "fma", prompt, {"kind": "number", "tol": max(0.01, 0.005 * x)}, x,
                     _("{x} multiply-adds per shared-memory load", x=f"{x:.3f}"), [why], {"rung": r.name, **r.p})


def ladder_outputs(seed: int, pool=None) -> Question:
    """Threads of a block and outputs of one thread (:attr:`.ladder.Rung.threads`,
    :attr:`~.ladder.Rung.outputs_per_thread`)."""
    rng = _rng(seed, "08.outputs")
    r = _rung_draw(rng, ("blocktile_1d", "blocktile_2d", "warptile", "warptile"))
    p, (tm, tn) = r.p, r.thread_tile
    if r.layout == "1d":
        why = [_("threads = (BM/TM)·BN = ({BM}/{TM})·{BN} = {threads}", BM=r.BM, TM=p['TM'], BN=r.BN,
                 threads=r.threads),
               _("a thread owns TM = {n} outputs of one column", n=r.outputs_per_thread)]
    elif r.layout == "2d":
        why = [_("threads = (BM/TM)·(BN/TN) = ({BM}/{TM})·({BN}/{TN}) = {threads}", BM=r.BM, TM=p['TM'], BN=r.BN,
                 TN=p['TN'], threads=r.threads),
               _("a thread owns a TM×TN = {tm}×{tn} tile: {n} outputs", tm=tm, tn=tn, n=r.outputs_per_thread)]
    else:
        w = r.warp_dims
        why = [_("one warp per warp tile: (BM/WM)·(BN/WN) = ({BM}/{WM})·({BN}/{WN}) = {warps} warps × 32 lanes = "
                 "{threads}", BM=r.BM, WM=w['WM'], BN=r.BN, WN=w['WN'], warps=r.threads // ladder.WARP,
                 threads=r.threads),
               _("WMITER = WM·WN / (32·TM·TN·WNITER) = {WM}·{WN} / (32·{TM}·{TN}·{WNITER}) = {WMITER}, so a thread "
                 "owns (WMITER·TM)×(WNITER·TN) = {tm}×{tn} = {n} outputs (the warp's {warp_outputs} over its 32 "
                 "lanes)", WM=w['WM'], WN=w['WN'], TM=p['TM'], TN=p['TN'], WNITER=w['WNITER'], WMITER=w['WMITER'],
                 tm=tm, tn=tn, n=r.outputs_per_thread, warp_outputs=w['WM'] * w['WN'])]
    prompt = _("Take {rung}. How many threads does a block have, and how many outputs of C does one thread compute? "
               "Type threads, outputs.", rung=_rung_text(r))
    return _question("08_beyond_tiling", "outputs", prompt, _ints("threads", "outputs"),
                     [r.threads, r.outputs_per_thread],
                     _("{threads} threads, {n} outputs each", threads=r.threads, n=r.outputs_per_thread),
                     why, {"rung": r.name, **r.p})


def tile_intensity(seed: int, pool=None) -> Question:
    """FLOP per byte of DRAM traffic of a BM×BN block tile (:meth:`.ladder.Rung.intensity`)."""
    rng = _rng(seed, "08.intensity")
    BM, BN = (int(_choice(rng, [32, 64, 128, 256])) for _try in range(2))
    BK = int(_choice(rng, [8, 16, 32]))
    r = _variant("blocktile_2d", BM=BM, BN=BN, BK=BK)
    x = r.intensity()
    flop, nbytes = 2 * BM * BN * BK, (BM * BK + BK * BN) * 4
    why = _("per phase the block does 2·BM·BN·BK = 2·{BM}·{BN}·{BK} = {flop} FLOP on (BM·BK + BK·BN)·4 = "
            "({BM}·{BK} + {BK}·{BN})·4 = {bytes} bytes: {flop} / {bytes} = BM·BN / (2·(BM + BN)) = {x} FLOP/B "
            "(BK cancels)", BM=BM, BN=BN, BK=BK, flop=f"{flop:,}", bytes=f"{nbytes:,}", x=f"{x:.3f}")
    assert abs(flop / nbytes - x) < 1e-12
    prompt = _("A block computes a {BM}×{BN} tile of C; each phase it copies the {BM}×{BK} window of A and the "
               "{BK}×{BN} window of B from global memory into shared memory and does all their multiply-adds. "
               "Counting every copied float as 4 bytes of DRAM traffic, how many FLOP per byte does it do? "
               "Two decimals are enough.", BM=BM, BN=BN, BK=BK)
    return _question("08_beyond_tiling", "tile_intensity", prompt, {"kind": "number", "tol": max(0.01, 0.005 * x)},
                     x, f"{x:.3f} FLOP/B", [why], {"BM": BM, "BN": BN, "BK": BK})


# ---------------------------------------------------------------------------------------------
# 09 · tensor cores: mma.sync m16n8k8 TF32 (kernel 15)
# ---------------------------------------------------------------------------------------------
#: The fragment layouts of :func:`.mma.fragment`, as the prompts write them (a test holds them
#: to the model): register i of a lane holds (row, column) of its tile, g = lane / 4, t = lane % 4.
FRAGMENT_TEXT = {
    "a": ("A", "(m, k)", ["(g, t)", "(g + 8, t)", "(g, t + 4)", "(g + 8, t + 4)"]),
    "b": ("B", "(k, n)", ["(t, g)", "(t + 4, g)"]),
    "c": ("C", "(m, n)", ["(g, 2t)", "(g, 2t + 1)", "(g + 8, 2t)", "(g + 8, 2t + 1)"]),
}


def fragment_owner(seed: int, pool=None) -> Question:
    """Lane and register of an element of an m16n8k8 fragment (:func:`.mma.owners`)."""
    rng = _rng(seed, "09.fragment")
    which = _choice(rng, ["a", "b", "c"])
    rows, cols = mma.tile_shape(which)
    r, c = int(rng.integers(0, rows)), int(rng.integers(0, cols))
    lane, reg = (int(v) for v in mma.owners(which)[r, c])
    X, rc, places = FRAGMENT_TEXT[which]
    if which == "a":
        g, t = r % 8, c % 4
        parts = _("row {r} is {gexpr}: g = {g}; column {c} is {texpr}: t = {t}", r=r, gexpr="g + 8" if r >= 8 else "g",
                  g=g, c=c, texpr="t + 4" if c >= 4 else "t", t=t)
    elif which == "b":
        g, t = c, r % 4
        parts = _("column {c} is {gexpr}: g = {g}; row {r} is {texpr}: t = {t}", c=c, gexpr="g", g=g, r=r,
                  texpr="t + 4" if r >= 4 else "t", t=t)
    else:
        g, t = r % 8, c // 2
        parts = _("row {r} is {gexpr}: g = {g}; column {c} is {texpr}: t = {t}", r=r, gexpr="g + 8" if r >= 8 else "g",
                  g=g, c=c, texpr="2t + 1" if c % 2 else "2t", t=t)
    assert 4 * g + t == lane and tuple(mma.fragment(which)[lane, reg]) == (r, c)
    why = [parts + _("; ") + f"lane = 4g + t = 4·{g} + {t} = {lane}",
           _("{cell} sits at {place}, the place of {name}: register {reg}", cell=f"{X}[{r}][{c}]", place=places[reg],
             name=f"{which}{reg}", reg=reg)]
    table = ", ".join(f"{which}{i} {pl}" for i, pl in enumerate(places))
    prompt = _("One warp runs mma.sync m16n8k8 (TF32). With g = lane / 4 and t = lane % 4, a lane's registers hold "
               "these elements {rc} of {X}'s tile: {table}. Which lane holds {cell} of the {rows}×{cols} {X} tile, and "
               "in which register (0 for {first}, …, {last} for {last_name})? Type lane, register.", rc=rc, X=X,
               table=table, cell=f"{X}[{r}][{c}]", rows=rows, cols=cols, first=f"{which}0", last=len(places) - 1,
               last_name=f"{which}{len(places) - 1}")
    return _question("09_tensor_cores", "fragment", prompt, _ints("lane", "register"),
                     [lane, reg], _("lane {lane}, register {name}", lane=lane, name=f"{which}{reg}"), why,
                     {"which": which, "row": r, "col": c})


def _mma_draw(rng) -> mma.MmaKernel:
    WM, WN = int(_choice(rng, [16, 32, 64])), int(_choice(rng, [8, 16, 32, 64]))
    BM, BN = WM * int(_choice(rng, [1, 2, 4])), WN * int(_choice(rng, [1, 2, 4]))
    return replace(mma.KERNEL, BM=BM, BN=BN, BK=int(_choice(rng, [8, 16, 32])), WM=WM, WN=WN)


def mma_count(seed: int, pool=None) -> Question:
    """Warps of a block and mma.sync per warp per phase (:class:`.mma.MmaKernel`)."""
    rng = _rng(seed, "09.mma")
    k = _mma_draw(rng)
    per_phase = k.ksteps * k.miter * k.niter
    why = [_("one warp per warp tile: (BM/WM)·(BN/WN) = ({BM}/{WM})·({BN}/{WN}) = {warps}", BM=k.BM, WM=k.WM, BN=k.BN,
             WN=k.WN, warps=k.warps),
           _("per phase: BK/8 = {BK}/8 = {ksteps} k-step(s), each one mma.sync per m16n8 tile of the warp's: "
             "(WM/16)·(WN/8) = {miter}·{niter} = {tiles}; {ksteps}·{tiles} = {n}", BK=k.BK, ksteps=k.ksteps,
             miter=k.miter, niter=k.niter, tiles=k.miter * k.niter, n=per_phase)]
    prompt = _("A kernel like kernel 15: block tile BM×BN = {BM}×{BN}, phases of BK = {BK} along K, one warp per "
               "WM×WN = {WM}×{WN} warp tile of C, computed with mma.sync m16n8k8. How many warps does a block have, "
               "and how many mma.sync does each warp issue per phase? Type warps, mma.sync.", BM=k.BM, BN=k.BN,
               BK=k.BK, WM=k.WM, WN=k.WN)
    return _question("09_tensor_cores", "mma_count", prompt, _ints("warps", "mma.sync"),
                     [k.warps, per_phase], _("{warps} warps, {n} mma.sync each per phase", warps=k.warps, n=per_phase),
                     why,
                     {"BM": k.BM, "BN": k.BN, "BK": k.BK, "WM": k.WM, "WN": k.WN})


def fragment_registers(seed: int, pool=None) -> Question:
    """A lane's fragment registers for a warp tile (:func:`.mma.register_names`)."""
    rng = _rng(seed, "09.registers")
    k = _mma_draw(rng)
    n = [len(mma.register_names(w, k)) for w in "abc"]
    R = mma.REGS
    why = [_("A: WM/16 = {WM}/16 = {miter} m16 tile(s) × {regs} registers (a0..a3), shared by the {niter} n8 tile(s) "
             "= {n}", WM=k.WM, miter=k.miter, regs=R['a'], niter=k.niter, n=n[0]),
           _("B: WN/8 = {WN}/8 = {niter} n8 tile(s) × {regs} registers (b0, b1), shared by the {miter} m16 tile(s) = "
             "{n}", WN=k.WN, niter=k.niter, regs=R['b'], miter=k.miter, n=n[1]),
           _("C: {miter}·{niter} m16n8 tiles × {regs} accumulators (c0..c3) = {n}", miter=k.miter, niter=k.niter,
             regs=R['c'], n=n[2])]
    assert n == [R["a"] * k.miter, R["b"] * k.niter, R["c"] * k.miter * k.niter]
    prompt = _("A warp computes a {WM}×{WN} tile of C with mma.sync m16n8k8 (TF32): one m16n8 product per 16 rows and "
               "8 columns of its tile. One mma.sync takes {ra} registers of A, {rb} of B and {rc} of C from each lane. "
               "For one k-step, how many registers does each lane hold for A's fragments, for B's, and for C's "
               "accumulators? Type A, B, C.", WM=k.WM, WN=k.WN, ra=R['a'], rb=R['b'], rc=R['c'])
    return _question("09_tensor_cores", "registers", prompt, _ints("A", "B", "C"),
                     n, _("A {a}, B {b}, C {c} registers", a=n[0], b=n[1], c=n[2]), why, {"WM": k.WM, "WN": k.WN})


# ---------------------------------------------------------------------------------------------
# 05 · the memory spaces; 06 · dynamic shared memory (explainer.model.memspaces)
# ---------------------------------------------------------------------------------------------
SPACE_OPTIONS = [[s, memspaces.LABELS[s], words] for s, words in (
    ("registers", ["registers", "register", "regs", "reg"]), ("shared", ["shared", "smem"]),
    ("global", ["global", "device memory", "dram"]), ("local", ["local"]), ("constant", ["constant", "constant bank"]))]
LIFETIME_OPTIONS = [[k, memspaces.LIFETIME_LABELS[k], words] for k, words in (
    ("thread", ["thread"]), ("block", ["block", "thread block"]), ("launch", ["launch", "kernel", "grid"]),
    ("application", ["application", "program", "app"]))]
EXAMPLE_PLACES = {"body": N_("Inside a kernel's body"),
                  "file": N_("At file scope of a .cu file (outside every function)"),
                  "parameter": N_("In a kernel's parameter list")}


#: The Chinese words a student may type for a choice option, by the option's key (the glossary's
#: terms first, then shorter and everyday ones). :func:`_options` adds them to every choice
#: question whatever the page's language: an answer may be typed in Chinese or English.
CHINESE_WORDS = {
    # the memory spaces (memory_space)
    "registers": ["寄存器"],
    "shared": ["共享内存", "共享"],
    "global": ["全局内存", "全局", "显存"],
    "local": ["局部内存", "局部", "本地内存"],
    "constant": ["常量内存", "常量"],
    # lifetimes (lifetime)
    "thread": ["线程"],
    "block": ["线程块"],
    "launch": ["核函数启动", "启动", "网格", "核函数"],
    "application": ["应用程序", "应用", "程序"],
    # what limits occupancy (limiter; shared and registers as above)
    "threads": ["线程", "线程束"],
    "blocks": ["线程块", "线程块槽位", "槽位"],
    # the roofline (bound_kind)
    "memory": ["访存", "内存", "带宽"],
    "compute": ["计算", "算力", "峰值"],
}


def _option_label(label: str) -> str:
    """An option's label in the reader's language."""
    return _(label)


def _options(table) -> list:
    """``[[key, label, words], ...]``: the labels in the reader's language, the words with their
    Chinese ones (:data:`CHINESE_WORDS`)."""
    return [[key, _option_label(label), [*words, *(w for w in CHINESE_WORDS.get(key, ()) if w not in words)]]
            for key, label, words in table]


def _example_text(ex) -> str:
    name, where, decl, use, _unused, what = ex
    text = _("{place}: {decl}", place=_(EXAMPLE_PLACES[where]), decl=decl) + (
        _(" (used only as {use})", use=use) if use else "")
    return text if text.endswith(";") else text + _(".")


def memory_space(seed: int, pool=None) -> Question:
    """The memory space of a declaration (:func:`.memspaces.classify`)."""
    rng = _rng(seed, "05.space")
    ex = _choice(rng, list(memspaces.EXAMPLES))
    p = memspaces.example_placement(ex)
    label = _option_label(memspaces.LABELS[p.space])
    why = _("{rule}: {what} lives in {label}", rule=p.rule_text(), what=_(ex[5]), label=_(memspaces.LABELS[p.space]))
    prompt = _("{example} In which memory space does {what} live: registers, shared, global, local or constant "
               "memory?", example=_example_text(ex), what=_(ex[5]))
    return _question("05_warps_and_coalescing", "space", prompt, {"kind": "choice", "options": _options(SPACE_OPTIONS)},
                     p.space, label, [why], {"example": ex[0], "where": ex[1]})


def lifetime(seed: int, pool=None) -> Question:
    """How long a declaration's variable lives (:func:`.memspaces.classify`)."""
    rng = _rng(seed, "05.lifetime")
    ex = _choice(rng, list(memspaces.EXAMPLES))
    p = memspaces.example_placement(ex)
    label = _option_label(memspaces.LIFETIME_LABELS[p.lifetime])
    why = _("{what} is in {space} ({rule}), which lives {lifetime}: as long as {label}", what=_(ex[5]),
            space=_(memspaces.LABELS[p.space]), rule=p.rule_text(), lifetime=_(memspaces.LIFETIMES[p.lifetime]),
            label=_(memspaces.LIFETIME_LABELS[p.lifetime]))
    prompt = _("{example} How long does {what} live: as long as the thread, the block, the kernel launch (grid) or "
               "the application?", example=_example_text(ex), what=_(ex[5]))
    return _question("05_warps_and_coalescing", "lifetime", prompt,
                     {"kind": "choice", "options": _options(LIFETIME_OPTIONS)},
                     p.lifetime, label, [why], {"example": ex[0], "where": ex[1]})


def largest_square_tile(seed: int, pool=None) -> Question:
    """The largest tile T a device's sharedMemPerBlock and maxThreadsPerBlock allow
    (:func:`.memspaces.largest_tile`)."""
    rng = _rng(seed, "06.largest_tile")
    S = int(_choice(rng, [2048, 3072, 4096, 6144, 8192, 12288, 16384, 32768, 49152]))
    threads = int(_choice(rng, [256, 512, 1024, 1024]))
    r = memspaces.largest_tile(S, threads)
    bs, bt, T = r["by_shared"], r["by_threads"], r["tile"]
    why = _("As and Bs take 2·T·T·4 bytes: 2·T·T·4 ≤ {S} holds up to T = {bs} (2·{bs}·{bs}·4 = {fits}; T = {next} "
            "needs {too_many}); a block of T·T threads ≤ {threads} holds up to T = {bt}; the smaller: {T}", S=S, bs=bs,
            fits=memspaces.launch_bytes(bs), next=bs + 1, too_many=memspaces.launch_bytes(bs + 1), threads=threads,
            bt=bt, T=T)
    prompt = _("Kernel 04 (tiled_dynamic) runs T×T blocks and takes 2·T·T·4 bytes of dynamic shared memory. A device "
               "reports sharedMemPerBlock = {S} bytes and maxThreadsPerBlock = {threads}. What is the largest tile T "
               "that can launch?", S=S, threads=threads)
    return _question("06_tile_size_and_occupancy", "largest_tile", prompt, {"kind": "int"}, T, f"T = {T}", [why],
                     {"shared_per_block": S, "max_threads_per_block": threads})


def dynamic_bytes(seed: int, pool=None) -> Question:
    """The third launch parameter of kernel 04 for tile T (:func:`.memspaces.launch_bytes`)."""
    rng = _rng(seed, "06.dynamic_bytes")
    T = int(rng.integers(2, 33))
    b = memspaces.launch_bytes(T)
    why = _("As and Bs are T·T floats each, 4 bytes a float: 2·{T}·{T}·4 = {b}", T=T, b=b)
    prompt = _("Kernel 04 (tiled_dynamic) carves As and Bs out of one extern __shared__ float smem[] whose size the "
               "launch passes: kernel<<<grid, block, bytes>>>. For T = {T} ({T}×{T} threads per block), how many "
               "bytes must the third launch parameter be?", T=T)
    return _question("06_tile_size_and_occupancy", "dynamic_bytes", prompt, {"kind": "int"}, b,
                     _("{n} bytes", n=b), [why],
                     {"T": T})


# ---------------------------------------------------------------------------------------------
PAGES: dict[str, tuple[Callable[..., Question], ...]] = {
    "01_naive": (naive_element, naive_owner, naive_grid),
    "02_tiled": (tiled_loads, tiled_reads, barrier_count, tiled_reuse, strip_max_k, strip_bytes),
    "03_boundaries": (ghost_count, lambda seed, pool=None: tiled_loads(seed, pool, "03_boundaries", padding=True),
                      padding_count),
    "04_barriers": (race_writer, race_warps, overwrites, variant_barriers),
    "05_warps_and_coalescing": (warp_lane, sectors, bank_degree, memory_space, lifetime, block_owner, warp_rows,
                                shape_blocks),
    "06_tile_size_and_occupancy": (blocks_per_sm, limiter, occupancy_percent, largest_square_tile, dynamic_bytes,
                                   scheduler_idle, scheduler_warps),
    "07_arithmetic_intensity_and_roofline": (intensity, bound, bound_kind),
    "08_beyond_tiling": (ladder_fma, ladder_outputs, tile_intensity),
    "09_tensor_cores": (fragment_owner, mma_count, fragment_registers),
}


def page_name(page: str) -> str:
    """``"02_tiled"``, ``"02_tiled.ipynb"`` or ``"02"`` -> the key of :data:`PAGES`."""
    stem = page[:-len(".ipynb")] if page.endswith(".ipynb") else page
    hits = [p for p in PAGES if p == stem or p[:2] == stem]
    if len(hits) != 1:
        raise ValueError(f"no questions for page {page!r}; pages with questions: {', '.join(PAGES)}")
    return hits[0]


def questions(page: str, seed: int, pool=None) -> list[Question]:
    """The questions of ``page`` for ``seed`` (``pool``: see the module doc)."""
    return [make(int(seed), pool) for make in PAGES[page_name(page)]]
