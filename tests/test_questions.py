"""Predict, then reveal: every question's answer is what the model computes, recomputed here a
second way (from the materialised schedule, the thread views, the hazards' definition, the lanes'
own addresses); typed answers are read in the spellings students use and garbage is refused with
one line; a wrong answer's reason names the right value; the page's quiz view sends what the
model made, live and for a static page."""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace

import numpy as np
import pytest

from explainer.model import Launch, Step, hardware, ladder, mma, schedule, steps
from explainer.model import memory, memspaces
from explainer.model import questions as Q

SEEDS = range(1, 41)
ALL = [(page, seed) for page in Q.PAGES for seed in SEEDS]


def _launch(p) -> Launch:
    return Launch(p["kernel"], p["M"], p["N"], p["K"], p["T"])


# ---- the answers, a second way -----------------------------------------------------------------
def independent(q: Q.Question):
    """The answer of ``q`` recomputed from its parameters without the generator's own path."""
    p = q.params
    if q.key == "element":
        L = _launch(p)
        sch = schedule(L)
        (bx, by), (tx, ty) = p["block"], p["thread"]
        r, c = int(sch.c_row[by, bx, ty, tx]), int(sch.c_col[by, bx, ty, tx])
        return [[r, c]] if sch.writes_c[by, bx, ty, tx] else [None]
    if q.key == "owner":
        L = _launch(p)
        sch = schedule(L)
        hit = np.argwhere((sch.c_row == p["row"]) & (sch.c_col == p["col"]))
        assert len(hit) == 1  # exactly one thread computes each element
        by, bx, ty, tx = (int(v) for v in hit[0])
        return [bx, by, tx, ty]
    if q.key == "grid":
        sch = schedule(_launch(p))
        return [sch.c_row.shape[1], sch.c_row.shape[0]]
    if q.key == "loads":
        sch = schedule(_launch(p))
        (bx, by), (tx, ty), t = p["block"], p["thread"], p["phase"]
        a = (int(sch.a_row[by, bx, t, ty, tx]), int(sch.a_col[by, bx, t, ty, tx]))
        b = (int(sch.b_row[by, bx, t, ty, tx]), int(sch.b_col[by, bx, t, ty, tx]))
        return [None if a[0] < 0 else list(a), None if b[0] < 0 else list(b)]
    if q.key == "reads":  # As[ty][k] holds what thread (k, ty) stored, Bs[k][tx] what thread (tx, k) stored
        sch = schedule(_launch(p))
        (bx, by), (tx, ty), t, k = p["block"], p["thread"], p["phase"], p["k"]
        a = (int(sch.a_row[by, bx, t, ty, k]), int(sch.a_col[by, bx, t, ty, k]))
        b = (int(sch.b_row[by, bx, t, k, tx]), int(sch.b_col[by, bx, t, k, tx]))
        return [None if a[0] < 0 else list(a), None if b[0] < 0 else list(b)]
    if q.key == "barriers":
        return sum(s.kind in ("barrier1", "barrier2") for s in steps(_launch(p)))
    if q.key == "reuse":  # how often each element of A appears among the tiles' loads
        L = _launch(p)
        sch = schedule(L)
        ok = sch.a_row >= 0
        counts = np.bincount((sch.a_row[ok] * L.K + sch.a_col[ok]).ravel(), minlength=L.M * L.K)
        assert counts.min() == counts.max()
        return int(counts[0])
    if q.key == "strip_max_k":  # the largest K whose two strips (T*K floats each) fit, by search
        k = 0
        while 2 * (p["T"] * (k + 1)) * 4 <= p["shared_per_block"]:
            k += 1
        return k
    if q.key == "strip_bytes":  # the floats each kernel allocates, counted from its arrays
        v1 = np.zeros((p["T"], p["K"])).size + np.zeros((p["K"], p["T"])).size
        v2 = 2 * np.zeros((p["T"], p["T"])).size
        assert v1 % v2 == 0
        return v1 // v2
    if q.key == "ghosts":
        sch = schedule(_launch(p))
        bx, by = p["block"]
        return int((~sch.writes_c[by, bx]).sum())
    if q.key == "padding":
        sch = schedule(_launch(p))
        (bx, by), t = p["block"], p["phase"]
        return int((sch.a_row[by, bx, t] < 0).sum() + (sch.b_row[by, bx, t] < 0).sum())
    if q.key == "writer":  # the thread whose phase-t store lands in the cell the reader reads
        L = _launch(p)
        (bx, by), (tx, ty), t, k = p["block"], p["thread"], p["phase"], p["k"]
        cell = (ty, k) if p["tile"] == "As" else (k, tx)
        hits = [(x, y) for y in range(L.T) for x in range(L.T)
                if tuple(L.thread((bx, by), (x, y)).load(t)["as" if p["tile"] == "As" else "bs"]) == cell]
        assert len(hits) == 1
        return list(hits[0])
    if q.key == "warps":  # the readers of the cell at some k, minus its writer, in another warp
        L = _launch(p)
        (bx, by), t, (i, j) = p["block"], p["phase"], p["cell"]
        name = "as" if p["tile"] == "As" else "bs"
        readers = {(x, y) for y in range(L.T) for x in range(L.T) for k in range(L.T)
                   if tuple(L.thread((bx, by), (x, y)).compute(t, k)[name]) == (i, j)}
        writer = (j, i)
        readers.discard(writer)
        return sum((x + y * L.T) // 32 != (writer[0] + writer[1] * L.T) // 32 for x, y in readers)
    if q.key == "overwrites":  # the cells it stores that another thread reads in the same phase
        L = _launch(p)
        (bx, by), (tx, ty), t = p["block"], p["thread"], p["phase"]
        mine = L.thread((bx, by), (tx, ty)).load(t + 1)
        out = []
        for tile, key in (("As", "as"), ("Bs", "bs")):
            cell = tuple(mine[key])
            if any(tuple(L.thread((bx, by), (x, y)).compute(t, k)[key]) == cell and (x, y) != (tx, ty)
                   for y in range(L.T) for x in range(L.T) for k in range(L.T)):
                out.append([tile, *cell])
        return sorted(out)
    if q.key == "warp":
        lin = p["thread"][0] + p["thread"][1] * p["T"]
        return [lin // 32, lin % 32]
    if q.key == "sectors":  # from each lane's own element, through the thread views
        L = _launch(p)
        (bx, by), t, k = p["block"], p["t"], p["k"]
        matrix = {"A": "A", "B": "B", "C": "C"}[next(m for a, m, _ in memory.ACCESSES[L.kernel] if a == p["access"])]
        cols = {"A": L.K, "B": L.N, "C": L.N}[matrix]
        sectors = set()
        for lane in range(32):
            lin = p["warp"] * 32 + lane
            tx, ty = lin % L.T, lin // L.T
            if ty >= L.T:
                continue
            v = L.thread((bx, by), (tx, ty))
            if matrix == "C" or not L.is_tiled:
                if not v.writes_c:
                    continue
                r, c = v.c
                el = (r, c) if matrix == "C" else (r, k) if matrix == "A" else (k, c)
            else:
                el = v.load(t)["a" if matrix == "A" else "b"]
                if el is None:
                    continue
            sectors.add((el[0] * cols + el[1]) * 4 // 32)
        return len(sectors)
    if q.key == "banks":
        T, pad = p["T"], p["pad"]
        per_bank: dict = {}
        for lane in range(32):
            lin = p["warp"] * 32 + lane
            tx, ty = lin % T, lin // T
            if ty >= T:
                continue
            row, col = {"As[ty][k]": (ty, p["k"]), "Bs[k][tx]": (p["k"], tx), "Bs[tx][k]": (tx, p["k"])}[p["expr"]]
            word = row * (T + pad) + col
            per_bank.setdefault(word % 32, set()).add(word)
        return max(len(s) for s in per_bank.values())
    if q.key in ("blocks", "limiter", "occupancy"):
        o = hardware.occupancy(p["arch"], p["threads"], p["smem"], p["regs"])
        return {"blocks": o.blocks_per_sm, "limiter": o.limiter, "occupancy": 100 * o.occupancy}[q.key]
    if q.key == "idle":  # scheduler 0's warps (w mod S == 0) issue 2 loads each, then nothing until cycle L
        o = hardware.tile_occupancy(p["arch"], p["T"], p["regs"])
        assert o.active_warps == p["warps"] and hardware.arch(p["arch"])["schedulers_per_sm"] == p["schedulers"]
        mine = sum(1 for w in range(o.active_warps) if w % p["schedulers"] == 0)
        return max(0, p["latency"] - 2 * mine)
    if q.key == "hide":  # L cycles of issue / (T + 6) instructions a warp gives per phase, rounded up
        return -(-p["latency"] // (p["T"] + 6))
    if q.key in ("intensity", "bound", "kind"):
        L = _launch(p)
        sch = schedule(L) if L.M * L.N * L.K <= 96 ** 3 else None
        if sch is not None:
            loads = int((sch.a_row >= 0).sum() + (sch.b_row >= 0).sum())
        else:
            gx, gy = L.grid
            loads = gx * L.M * L.K + gy * L.K * L.N
        x = 2 * L.M * L.N * L.K / (4 * loads)
        if q.key == "intensity":
            return x
        b = min(p["peak_gflops"], x * p["bandwidth_gbs"])
        if q.key == "bound":
            return b
        return "memory" if b < p["peak_gflops"] else "compute"
    if q.key in ("fma", "outputs"):  # from the rung's own map of which thread owns which output
        r = _rung(p)
        own = ladder.owner_map(r)
        assert (own >= 0).all()  # every output of the block tile has a thread
        threads, outs = len(np.unique(own)), int((own == 0).sum())
        assert (np.bincount(own.ravel()) == outs).all()  # and every thread as many
        if q.key == "outputs":
            return [threads, outs]
        rows, cols = ladder.thread_outputs(r, 0)  # what thread 0 reads per k: its rows of As, its columns of Bs
        m, n = len(np.unique(rows)), len(np.unique(cols))
        v = 4 if p["rung"] != "blocktile_2d" and r.layout != "1d" else 1
        loads = m + 1 if r.layout == "1d" else m // v + n // v
        return outs / loads
    if q.key == "tile_intensity":  # the loads and the FLOP of one block over a K of several phases
        BM, BN, BK = p["BM"], p["BN"], p["BK"]
        K = 3 * BK
        return 2 * BM * BN * K / (4 * (BM * K + K * BN))
    if q.key == "fragment":  # the lane and register whose fragment entry is the element
        f = mma.fragment(p["which"])
        hits = [(lane, i) for lane in range(32) for i in range(f.shape[1])
                if tuple(f[lane, i]) == (p["row"], p["col"])]
        assert len(hits) == 1
        return list(hits[0])
    if q.key in ("mma_count", "registers"):  # counted tile by tile
        BM, BN, BK, WM, WN = (p.get(k, 0) for k in ("BM", "BN", "BK", "WM", "WN"))
        tiles = [(m, n) for m in range(0, WM, 16) for n in range(0, WN, 8)]  # m16n8 tiles of a warp tile
        if q.key == "mma_count":
            warps = len([(y, x) for y in range(0, BM, WM) for x in range(0, BN, WN)])
            return [warps, len(tiles) * len(range(0, BK, 8))]
        return [4 * len({m for m, _ in tiles}), 2 * len({n for _, n in tiles}), 4 * len(tiles)]
    if q.key in ("space", "lifetime"):  # the declaration put into a kernel and walked by the CUDA parser
        from explainer.sim.spaces import declarations

        ex = next(e for e in memspaces.EXAMPLES if e[0] == p["example"] and e[1] == p["where"])
        body = "" if p["where"] != "body" else f"{ex[2]} {ex[3]}"
        top = ex[2] + "\n" if p["where"] == "file" else ""
        src = (f"{top}__global__ void k(const float* A, const float* B, float* C, int M, int N, int K)\n"
               f"{{\n    {body}\n}}\n")
        got = {d.name: d.placement for d in declarations(src)}[ex[0]]
        return got.space if q.key == "space" else got.lifetime
    if q.key == "block_owner":  # the materialised schedule of the non-square launch
        L = Launch(p["kernel"], p["M"], p["N"], p["K"], block_dim=tuple(p["block_dim"]))
        sch = schedule(L)
        (bx, by), (tx, ty) = p["block"], p["thread"]
        r, c = int(sch.c_row[by, bx, ty, tx]), int(sch.c_col[by, bx, ty, tx])
        return [[r, c]] if sch.writes_c[by, bx, ty, tx] else [None]
    if q.key == "warp_rows":  # each lane's thread view: its row of A, its sector
        BX, BY = p["block_dim"]
        L = Launch("naive", p["M"], p["N"], p["K"], block_dim=(BX, BY))
        rows, sectors = set(), set()
        for lane in range(32):
            lin = p["warp"] * 32 + lane
            tx, ty = lin % BX, lin // BX
            if ty >= BY:
                continue
            v = L.thread(tuple(p["block"]), (tx, ty))
            if v.writes_c:
                rows.add(v.c[0])
                sectors.add((v.c[0] * L.K + p["k"]) * 4 // 32)
        return [len(rows), len(sectors)]
    if q.key == "shape_blocks":  # the SM's warps and block slots, divided out
        a = hardware.arch(p["arch"])
        warps = -(-p["block_dim"][0] * p["block_dim"][1] // 32)
        return min(a["max_warps_per_sm"] // warps, a["max_blocks_per_sm"])
    if q.key == "largest_tile":  # every T tried
        return max(T for T in range(1, 512) if 2 * T * T * 4 <= p["shared_per_block"]
                   and T * T <= p["max_threads_per_block"])
    if q.key == "dynamic_bytes":  # what the launch of kernel 04 passes
        from explainer.gpu import launch_config

        return launch_config("tiled_dynamic", 7, 9, 11, p["T"]).dynamic_shared_bytes
    raise AssertionError(f"no second way for {q.key}")


def _rung(p) -> ladder.Rung:
    base = ladder.rung(p["rung"])  # the drawn values of the rung's own template arguments
    return replace(base, params=tuple((k, p[k]) for k, _ in base.params))


@pytest.mark.parametrize("page", list(Q.PAGES))
def test_every_answer_is_the_models_computed_a_second_way(page):
    seen = set()
    for seed in SEEDS:
        for q in Q.questions(page, seed):
            got = independent(q)
            if q.form["kind"] in ("number", "percent"):
                assert math.isclose(got, q.answer, rel_tol=1e-3, abs_tol=1e-3), (seed, q.key, got, q.answer)
            else:
                assert got == q.answer, (seed, q.key, q.prompt, got, q.answer)
            seen.add((q.key, json.dumps(q.answer)))
    assert len(seen) > 2 * len(Q.PAGES[page])  # the seeds draw different answers


def test_the_second_way_can_fail():
    q = Q.questions("02_tiled", 3)[0]
    moved = Q.Question(**{**q.__dict__, "params": {**q.params, "phase": (q.params["phase"] + 1) % 2,
                                                   "thread": [(q.params["thread"][0] + 1) % q.params["T"], q.params["thread"][1]]}})
    assert independent(moved) != q.answer
    q = next(q for s in SEEDS for q in Q.questions("04", s) if q.key == "warps" and q.answer)
    other = Q.Question(**{**q.__dict__, "params": {**q.params, "tile": "As" if q.params["tile"] == "Bs" else "Bs"}})
    assert independent(other) != q.answer  # a cell of the other tile: its readers share a row, not a column
    q = next(q for s in SEEDS for q in Q.questions("09", s) if q.key == "fragment" and q.params["which"] == "a"
             and 0 < q.params["col"] < 7)
    other = Q.Question(**{**q.__dict__, "params": {**q.params, "which": "c"}})
    assert independent(other) != q.answer  # C[r][c] (1 <= c <= 6) is in another lane than A[r][c]


def test_a_seed_always_draws_the_same_questions_and_another_seed_others():
    for page in Q.PAGES:
        a, b = Q.questions(page, 5), Q.questions(page, 5)
        assert [x.to_dict() for x in a] == [x.to_dict() for x in b]
        prompts = {tuple(q.prompt for q in Q.questions(page, s)) for s in range(1, 9)}
        assert len(prompts) == 8, page  # 8 question sets, 8 different ones


def test_questions_travel_as_json():
    for page, seed in ALL:
        for q in Q.questions(page, seed):
            d = json.loads(json.dumps(q.to_dict()))
            assert d["answer"] == q.answer and d["why"] and d["prompt"] and d["answer_text"]


# ---- reading what a student types ---------------------------------------------------------------
C = {"kind": "cells", "names": ["C"], "empty": "none"}
AB = {"kind": "cells", "names": ["A", "B"], "empty": "pad"}


@pytest.mark.parametrize("text", ["C[5][2]", "5,2", "(5, 2)", "5 2", "c[5][2]", "C[5, 2]", " C[5][2] ", "row 5, col 2",
                                  "C(5,2)", "element C[5][2]."])
def test_an_element_in_the_spellings_students_use(text):
    assert Q.parse(C, text) == [[5, 2]]


@pytest.mark.parametrize("text, want", [
    ("A[3][4] and B[4][9]", [[3, 4], [4, 9]]),
    ("B[4][9] and A[3][4]", [[3, 4], [4, 9]]),  # named ones go to their name
    ("(3, 4), (4, 9)", [[3, 4], [4, 9]]),
    ("3 4 4 9", [[3, 4], [4, 9]]),
    ("A[3][4], pad", [[3, 4], None]),
    ("pad and B[4][9]", [None, [4, 9]]),
    ("a padding zero, B[4][9]", [None, [4, 9]]),
    ("0 (pad) and 0 (pad)", [None, None]),
    ("As gets A[3][4]; Bs gets B[4][9]", [[3, 4], [4, 9]]),
])
def test_two_elements_in_any_order_and_padding(text, want):
    assert Q.parse(AB, text) == want


def test_none_is_an_answer_for_a_thread_outside_C():
    assert Q.parse(C, "none") == [None] and Q.parse(C, "nothing (outside C)") == [None]


@pytest.mark.parametrize("form, text, says", [
    (C, "banana", "Type one element, C[row][col], or none; this has 0."),
    (C, "", "Type an answer first."),
    (C, "C[5]", "1 number(s) here do not make whole pairs"),
    (C, "5", "do not make whole pairs"),
    (C, "A[5][2]", "The question asks for C, not A."),
    (C, "1.5, 2", "whole numbers"),
    (AB, "A[3][4]", "Type two elements, A[row][col] and B[row][col] (pad for a padding zero); this has 1."),
    (AB, "A[1][2] and A[3][4]", "A is typed twice."),
    (AB, "A[1][2] and C[3][4]", "not C"),
    ({"kind": "int"}, "banana", "Type one whole number."),
    ({"kind": "int"}, "2*4=8", "Type one whole number; this has 3: 2, 4, 8."),
    ({"kind": "int"}, "3.5", "Type a whole number, not 3.5."),
    ({"kind": "ints", "names": ["warp", "lane"]}, "1", "Type 2 whole numbers (warp, lane); this has 1."),
    ({"kind": "cellset", "names": ["As", "Bs"]}, "(1, 2)", "Name each cell: As[row][col] or Bs[row][col]."),
    ({"kind": "cellset", "names": ["As", "Bs"]}, "A[1][2]", "The cells are in As and Bs, not A."),
    ({"kind": "choice", "options": [["memory", "memory-bound", ["memory"]], ["compute", "compute-bound", ["compute"]]]},
     "no idea", "Type one of: memory-bound, compute-bound."),
])
def test_garbage_is_refused_with_one_line_that_says_why(form, text, says):
    with pytest.raises(Q.AnswerError) as e:
        Q.parse(form, text)
    assert says in str(e.value) and "\n" not in str(e.value)


def test_numbers_labels_and_words():
    assert Q.parse({"kind": "int"}, "12 barriers") == 12
    assert Q.parse({"kind": "int"}, "1,048,576") == 1048576
    ints = {"kind": "ints", "names": ["warp", "lane"]}
    assert Q.parse(ints, "warp 1, lane 20") == [1, 20] == Q.parse(ints, "lane 20, warp 1") == Q.parse(ints, "(1, 20)")
    xy = {"kind": "ints", "names": ["x", "y"]}
    assert Q.parse(xy, "y=1, x=3") == [3, 1] == Q.parse(xy, "thread (x=3, y=1)") == Q.parse(xy, "3, 1")
    assert Q.parse({"kind": "percent"}, "50%") == Q.parse({"kind": "percent"}, "0.5") == Q.parse({"kind": "percent"}, "50") == 50
    assert Q.parse({"kind": "cellset", "names": ["As", "Bs"]}, "Bs[2][1], As[2][1] and As[2][1]") == [["As", 2, 1], ["Bs", 2, 1]]
    limiter = next(q for q in Q.questions("06", 1) if q.key == "limiter")
    assert Q.parse(limiter.form, "registers per thread") == "registers"  # the option named first
    assert Q.parse(limiter.form, "Shared memory") == "shared" and Q.parse(limiter.form, "the warps") == "threads"


def _choice_form(page: str, key: str) -> dict:
    return next(q.form for q in Q.questions(page, 1) if q.key == key)


#: (page, question, typed, the option it names): Chinese (the glossary's words and everyday ones,
#: alone or inside a sentence), English as before, and both mixed.
CHOICE_ANSWERS = [
    ("05", "space", "寄存器", "registers"), ("05", "space", "共享内存", "shared"), ("05", "space", "在共享内存里", "shared"),
    ("05", "space", "全局内存", "global"), ("05", "space", "显存", "global"), ("05", "space", "局部内存", "local"),
    ("05", "space", "本地内存", "local"), ("05", "space", "常量内存", "constant"), ("05", "space", "shared", "shared"),
    ("05", "space", "Global memory", "global"), ("05", "space", "local memory", "local"),
    ("05", "lifetime", "线程块", "block"), ("05", "lifetime", "与线程块一样长", "block"),
    ("05", "lifetime", "与线程一样长", "thread"), ("05", "lifetime", "线程", "thread"),
    ("05", "lifetime", "核函数启动（网格）", "launch"), ("05", "lifetime", "整个网格", "launch"),
    ("05", "lifetime", "整个应用程序", "application"), ("05", "lifetime", "thread block", "block"),
    ("05", "lifetime", "the thread", "thread"), ("05", "lifetime", "与thread一样长", "thread"),
    ("05", "lifetime", "BLOCK", "block"), ("05", "lifetime", "the kernel launch", "launch"),
    ("06", "limiter", "线程束", "threads"), ("06", "limiter", "线程块槽位", "blocks"), ("06", "limiter", "共享内存", "shared"),
    ("06", "limiter", "寄存器", "registers"), ("06", "limiter", "block slots", "blocks"),
    ("06", "limiter", "registers per thread", "registers"),
    # a possessive's head comes after it: 的 and 's (not a 的 that ends a clause)
    ("06", "limiter", "每个线程的寄存器", "registers"), ("06", "limiter", "a thread's registers", "registers"),
    ("06", "limiter", "寄存器的数量", "registers"), ("06", "limiter", "是共享内存的，不是寄存器", "shared"),
    ("06", "limiter", "是共享内存的\u3000不是寄存器", "shared"), ("05", "lifetime", "线程块的生命周期", "block"),
    ("05", "space", "线程的局部内存", "local"), ("05", "space", "the block's shared memory", "shared"),
    ("07", "kind", "内存受限", "memory"), ("07", "kind", "受内存带宽限制", "memory"), ("07", "kind", "受计算限制", "compute"),
    ("07", "kind", "计算受限", "compute"), ("07", "kind", "memory-bound", "memory"), ("07", "kind", "compute", "compute"),
]


@pytest.mark.parametrize("page, key, text, want", CHOICE_ANSWERS)
def test_a_choice_is_read_in_chinese_and_in_english(page, key, text, want):
    """Whatever the page's language (here English): the option's Chinese words count anywhere in a
    sentence, its English ones as whole words; at the same place the longer word wins."""
    assert Q.parse(_choice_form(page, key), text) == want


def test_an_english_word_counts_only_whole_and_a_chinese_one_anywhere():
    lifetime = _choice_form("05", "lifetime")
    with pytest.raises(Q.AnswerError):
        Q.parse(lifetime, "threadblock")  # (no whole word)
    assert Q.parse(lifetime, "线程块或线程") == "block"  # the option named first
    assert Q.parse(lifetime, "线程或线程块") == "thread"
    assert Q.parse(lifetime, "thread, not block") == "thread"


def test_in_chinese_each_choice_is_offered_and_read_in_chinese():
    """The Chinese prompt names the options in Chinese (not by their English keys), and each
    option's Chinese label, typed as the answer, is that option."""
    from explainer import i18n

    seen = set()
    with i18n.using("zh-CN"):
        for page in Q.PAGES:
            for seed in range(1, 9):
                for q in Q.questions(page, seed):
                    if q.form["kind"] != "choice":
                        continue
                    seen.add(q.key)
                    for key, label, words in q.form["options"]:
                        assert not label.isascii(), (q.key, label)  # (in Chinese, no English word added)
                        assert Q.parse(q.form, label) == key, (q.key, label)
                        assert not re.search(rf"\b{key}\b", q.prompt, re.I | re.A), (q.key, key, q.prompt)
                    assert q.check(_typed(q)).status == "right"
    assert seen == {"space", "lifetime", "limiter", "kind"}


def test_ints_are_labelled_and_named_in_chinese_too():
    """A number may be labelled by its Chinese word as well as its English name, in any order and
    whatever the page's language; a Chinese message names the numbers in Chinese (identifiers as
    they are)."""
    from explainer import i18n

    warp = next(q for q in Q.questions("05", 1) if q.key == "warp")
    rows = next(q for q in Q.questions("05", 1) if q.key == "warp_rows")
    assert warp.parse("lane 20，线程束 1") == [1, 20] == warp.parse("线程束：1 lane=20") == warp.parse("lane：20 warp 1")
    assert rows.parse("扇区数 4，行数 3") == [3, 4] == rows.parse("行数\u30003, 扇区数\u30004")
    with pytest.raises(Q.AnswerError, match=r"\(warp, lane\)"):
        warp.parse("1")
    with i18n.using("zh-CN"):
        warp = next(q for q in Q.questions("05", 1) if q.key == "warp")
        outputs = next(q for q in Q.questions("08", 1) if q.key == "outputs")
        mma = next(q for q in Q.questions("09", 1) if q.key == "mma_count")
        assert "（线程束, lane）" in warp.check("1").message
        assert "（线程数, 输出数）" in outputs.check("7").message
        assert "（线程束数, mma.sync）" in mma.check("7").message
        assert warp.parse("lane 20，线程束 1") == [1, 20]


def test_ints_read_two_bare_numbers_as_chinese_prompts_ask():
    warp = {"kind": "ints", "names": ["warp", "lane"]}
    assert Q.parse(warp, "1，20") == [1, 20] == Q.parse(warp, "线程束 1，lane 20") == Q.parse(warp, "1 20")
    assert Q.parse({"kind": "ints", "names": ["threads", "outputs"]}, "256 个线程，每个 16 个输出") == [256, 16]


# ---- checking: right, wrong with the model's reason, unreadable -----------------------------------
def _typed(q: Q.Question) -> str:
    """The right answer as a student might type it."""
    kind, a = q.form["kind"], q.answer
    if kind == "cells":
        return " and ".join("pad" if q.form["empty"] == "pad" and rc is None else "none" if rc is None
                            else f"{n}[{rc[0]}][{rc[1]}]" for n, rc in zip(q.form["names"], a))
    if kind == "cellset":
        return ", ".join(f"{n}[{r}][{c}]" for n, r, c in reversed(a))
    if kind == "ints":
        return ", ".join(map(str, a))
    if kind == "choice":
        return next(label for key, label, _ in q.form["options"] if key == a)
    if kind == "percent":
        return f"{a:.0f}%"
    return f"{a:.2f}" if kind == "number" else str(a)


def _wrong(q: Q.Question) -> tuple[str, str]:
    """A wrong answer and the part of it the reason must end in."""
    kind, a = q.form["kind"], q.answer
    if kind == "int":
        return str(a + 1), f", not {a + 1}."
    if kind in ("number", "percent"):
        x = f"{a * 1.5 + 7:.2f}"
        return x, f", not {x}."
    if kind == "ints":
        bad = [a[0] + 1, *a[1:]]
        return ", ".join(map(str, bad)), f", not {a[0] + 1}"
    if kind == "cells":
        n = q.form["names"][0]
        rc = a[0]
        bad = [rc[0] + 1, rc[1]] if rc is not None else [0, 0]
        typed = " and ".join([f"{n}[{bad[0]}][{bad[1]}]"] + [f"{m}[{x[0]}][{x[1]}]" if x else "pad" for m, x in zip(q.form["names"][1:], a[1:])])
        return typed, f", not {n}[{bad[0]}][{bad[1]}]"
    if kind == "cellset":
        n, r, c = a[0]
        return f"{n}[{r + 1}][{c}]", f"not in the answer: {n}[{r + 1}][{c}]."
    if kind == "choice":
        other = next((key, label) for key, label, _ in q.form["options"] if key != a)
        return other[1], f", not {other[1]}."
    raise AssertionError(kind)


EMPTY = {"pad": "a padding zero", "none": ": none"}


def _right_value(q: Q.Question) -> str:
    """How the reason spells the right value."""
    kind, a = q.form["kind"], q.answer
    if kind == "cells":  # the first part, the one _wrong changes
        rc = a[0]
        return f"{q.form['names'][0]}[{rc[0]}][{rc[1]}]" if rc is not None else EMPTY[q.form["empty"]]
    if kind == "cellset":
        n, r, c = a[0]
        return f"{n}[{r}][{c}]"
    if kind == "ints":
        return f"= {a[0]}"
    if kind == "choice":
        return next(label for key, label, _ in q.form["options"] if key == a)
    if kind == "percent":
        return f"{a:.0f}%"
    if kind == "number":
        return f"{a:,.0f}" if q.key == "bound" else f"{a:.3f}"
    return str(a)


@pytest.mark.parametrize("page", list(Q.PAGES))
def test_right_wrong_and_unreadable(page):
    for seed in range(1, 13):
        for q in Q.questions(page, seed):
            v = q.check(_typed(q))
            assert v.status == "right" and v.message == f"Right: {q.answer_text}.", (q.key, _typed(q), v)
            typed, tail = _wrong(q)
            v = q.check(typed)
            assert v.status == "wrong", (q.key, typed, v)
            assert tail in v.message and _right_value(q) in v.message, (q.key, typed, v.message)
            assert "\n" not in v.message
            v = q.check("banana?")
            assert v.status == "unreadable" and v.message and "\n" not in v.message


def test_the_reason_example_of_the_naive_page():
    q = next(q for s in range(1, 60) for q in Q.questions("01", s) if q.key == "element" and q.answer[0]
             and q.params["kernel"] == "naive")
    (r, c), (_, by), (_, ty), T = q.answer[0], q.params["block"], q.params["thread"], q.params["T"]
    v = q.check(f"C[{r + 1}][{c}]")
    assert v.status == "wrong"
    assert f"row = blockIdx.y*blockDim.y + threadIdx.y = {by}*{T} + {ty} = {r}" in v.message
    assert v.message.endswith(f", not C[{r + 1}][{c}].")


# ---- the stepper's steps ----------------------------------------------------------------------------
def test_show_names_the_step_that_shows_the_answer():
    shown = 0
    for page in ("02_tiled", "03_boundaries", "04_barriers"):
        for seed in range(1, 21):
            for q in Q.questions(page, seed):
                s = q.show
                if s is None:
                    continue
                shown += 1
                L = Launch(s["kernel"], s["M"], s["N"], s["K"], s["T"])
                st, lp = steps(L)[s["steps"]["k"]], steps(L, per_k=False)[s["steps"]["loop"]]
                assert (st.kind, st.phase) == (lp.kind, lp.phase)
                assert s["p"] == s["thread"][0] + s["thread"][1] * L.T
                p = q.params
                if "phase" in p and q.key != "overwrites":
                    assert st.phase == p["phase"] and f"phase t = {p['phase']} of 0..{L.phases - 1}" in s["where"]
                if q.key == "overwrites":  # the next phase's store
                    assert (st.kind, st.phase) == ("load_a", p["phase"] + 1)
                if q.key in ("reads", "writer"):
                    assert st == Step("compute", p["phase"], p["k"]) and tuple(s["thread"]) == tuple(p["thread"])
                if q.key == "loads":
                    assert st.kind == "load_a" and tuple(s["thread"]) == tuple(p["thread"])
                if "block" in p:
                    assert tuple(s["block"]) == tuple(p["block"]) and f"block (x={p['block'][0]}, y={p['block'][1]})" in s["where"]
    assert shown > 100


def test_a_pool_limits_launches_and_blocks():
    pool = ((8, 8, 8, 4, None), (35, 79, 19, 8, ((3, 2),)))
    for page in ("02_tiled", "03_boundaries", "04_barriers"):
        for seed in range(1, 31):
            for q in Q.questions(page, seed, pool):
                p = q.params
                if "M" not in p:  # a question about a kernel's limits, with no launch to draw (V1's strips)
                    assert q.key.startswith("strip_") and q.show is None
                    continue
                shape = (p["M"], p["N"], p["K"], p["T"])
                assert shape in {e[:4] for e in pool}, (q.key, shape)
                if shape == (35, 79, 19, 8) and "block" in p:
                    assert tuple(p["block"]) == (3, 2)
                if q.show:
                    assert (q.show["M"], q.show["N"], q.show["K"], q.show["T"]) == shape


# ---- the view -----------------------------------------------------------------------------------------
def test_the_quiz_view_live_and_static():
    from explainer.views.quiz import STATIC_SETS, Quiz

    quiz = Quiz("02_tiled", static_pool=((8, 8, 8, 4, None),))
    meta = quiz.view.meta
    assert [s["seed"] for s in meta["sets"]] == [1]
    assert [q["answer"] for q in meta["sets"][0]["questions"]] == [q.answer for q in Q.questions("02_tiled", 1)]
    rev = quiz.view.rev
    quiz._on_msg(quiz.view, {"cmd": "another"}, [])  # "Another one", live
    assert quiz.view.rev == rev + 1 and quiz.seed == 2
    assert [q["prompt"] for q in quiz.view.meta["sets"][0]["questions"]] == [q.prompt for q in Q.questions("02_tiled", 2)]
    store = quiz.static_store()
    (payload,) = store["payloads"]
    sets = payload["meta"]["sets"]
    assert len(sets) == STATIC_SETS == 8
    for s in sets:
        assert [q["answer"] for q in s["questions"]] == [q.answer for q in Q.questions("02_tiled", s["seed"], ((8, 8, 8, 4, None),))]
        assert all((q["params"]["M"], q["params"]["T"]) == (8, 4) for q in s["questions"] if "M" in q["params"])
    assert "8 question sets" in payload["meta"]["exhausted"]


#: Pages that open with a short lesson and fold the rest under "## Going further"
#: (tests/test_folded_pages.py): the quiz ends the lesson (08) or, where the lesson has no room
#: for it, opens Going further (09).
FOLDED = {"08_beyond_tiling": "before", "09_tensor_cores": "after"}


def test_every_core_page_has_its_quiz_before_the_last_bar():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "notebooks"
    for page in Q.PAGES:
        cells = json.loads((root / f"{page}.ipynb").read_text(encoding="utf-8"))["cells"]
        src = ["".join(c["source"]) for c in cells]
        at = src.index(f'pages.quiz("{page}")')
        assert src.count(f'pages.quiz("{page}")') == 1 and "Your turn: predict, then check" in src[at - 1], page
        if page in FOLDED:
            heading = next(i for i, x in enumerate(src) if x.startswith("## Going further"))
            assert at == (heading - 1 if FOLDED[page] == "before" else heading + 2), page
        else:  # only the page's other "Your turn" (writing the kernel) comes between it and the last bar
            after = src[at + 1:-1]
            assert all(x.startswith("**Your turn: ") or x.startswith("pages.kernel_exercise(") for x in after), page
            assert src[-1].startswith("pages.nav("), page
    assert set(FOLDED) <= set(Q.PAGES)


def test_the_fragment_tables_in_the_prompts_are_the_models():
    """The places a fragment question lists (a0 (g, t), ...) are :func:`mma.fragment`'s."""
    lane = np.arange(32)
    g, t = lane // 4, lane % 4
    for which, (_, _, places) in Q.FRAGMENT_TEXT.items():
        f = mma.fragment(which)
        assert len(places) == f.shape[1] == mma.REGS[which]
        for i, place in enumerate(places):
            rows, cols = (eval(x.replace("2t", "2*t"), {"g": g, "t": t}) for x in place.strip("()").split(", "))
            assert (np.broadcast_to(rows, 32) == f[:, i, 0]).all() and (np.broadcast_to(cols, 32) == f[:, i, 1]).all()


def test_the_ladder_and_tensor_core_draws_are_valid_tilings():
    """Every warp tiling the page 08 questions draw covers its warp tile, one output per lane each
    (the model's own map), and the drawn rungs and tensor-core tilings vary."""
    for w in Q.WARP_CONFIGS:
        r = Q._variant("warptile", BM=w["WM"], BN=w["WN"], THREADS=32, **w)
        own = ladder.owner_map(r)
        assert (np.bincount(own.ravel(), minlength=32) == w["WM"] * w["WN"] // 32).all(), w
    kinds = {q.params["rung"] for s in range(1, 41) for q in Q.questions("08", s) if q.key in ("fma", "outputs")}
    assert kinds == {"blocktile_1d", "blocktile_2d", "vectorized", "warptile"}
    which = {q.params["which"] for s in range(1, 41) for q in Q.questions("09", s) if q.key == "fragment"}
    assert which == {"a", "b", "c"}


def test_a_wrong_fragment_answer_names_the_lane_and_register():
    q = next(q for s in range(1, 40) for q in Q.questions("09", s) if q.key == "fragment" and q.params["which"] == "a")
    lane, reg = q.answer
    v = q.check(f"lane {lane}, register {(reg + 1) % 4}")
    assert v.status == "wrong" and v.message.count(", not ") == 1
    assert v.message.endswith(f"the place of a{reg}: register {reg}, not {(reg + 1) % 4}.")
    assert q.check(f"register {reg}, lane {lane}").status == "right"
    assert q.check(f"{lane}, a{reg}").status == "right"  # a register typed by its PTX name
