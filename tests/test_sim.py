"""The kernel simulator (explainer.sim): it agrees with the ladder's kernels and the model, finds
each kind of problem on a small broken kernel (line, threads, phase), and stays safe on hostile
input (one line, a few seconds, nothing of the source executed)."""

from __future__ import annotations

import ast
import time
from pathlib import Path

import numpy as np
import pytest

from explainer.model import Launch, schedule, unguarded_report
from explainer.model.hazards import hazards
from explainer.resources import kernels_dir
from explainer.sim import KINDS, NEVER, SimError, check_kernel, default_launches, kernel_tile, parse_source

SIG = "__global__ void k(const float* A, const float* B, float* C, int M, int N, int K)\n"
ODD = [(35, 79, 19), (1, 1, 1), (17, 5, 33)]

TILED = """#include "common.cuh"
template <int TILE>
__global__ void k(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int ty = threadIdx.y, tx = threadIdx.x;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < CEIL_DIV(K, TILE); ++t) {
        As[ty][tx] = (row < M && t * TILE + tx < K) ? A[row * K + t * TILE + tx] : 0.0f;
        Bs[ty][tx] = (t * TILE + ty < K && col < N) ? B[(t * TILE + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            sum += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = sum;
}
"""
# lines of TILED: 12 load A, 13 load B, 14 barrier 1, 16 compute, 17 barrier 2, 20 store

NAIVE_UNGUARDED = """__global__ void k(const float* A, const float* B, float* C, int M, int N, int K)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
        sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
}
"""


def rung(name: str) -> tuple[str, Path]:
    p = next(kernels_dir().glob(f"{name}_*.cu"))
    return p.read_text(), p


def run1(src, M, N, K, T, path=None):
    return check_kernel(src, [(M, N, K, T)], path=path).launches[0]


def only(report_or_run, kind):
    ps = [p for p in report_or_run.problems if p.kind == kind]
    assert ps, f"no {kind} among {[p.kind for p in report_or_run.problems]}"
    return ps


# ---- the ladder's correct kernels ----------------------------------------------------------
@pytest.mark.parametrize("name", ["01", "02", "03", "04", "05"])
def test_correct_rungs_pass_the_default_launches(name):
    src, path = rung(name)
    r = check_kernel(src, path=path, tile=4)
    assert r.passed, r.lines()
    assert len(r.launches) == len(default_launches(4)) >= 5
    assert any(L.launch.M == 1 and L.launch.N == 1 for L in r.launches)  # the one-thread edge case


def _tiled_trace_equals_model(src, path, model_kernel, M, N, K, T, smem=False):
    r = run1(src, M, N, K, T, path)
    L = Launch(model_kernel, M, N, K, T)
    s = schedule(L)
    tr = r.trace
    assert tr.phases == L.phases
    if smem:  # kernel 04: one extern array, As = smem[0 .. T*T), Bs = smem[T*T .. 2*T*T)
        d = tr.shared_sources("smem")
        lead = d["matrix"].shape[:3]
        As = {k: v.reshape(lead + (2, T, T))[..., 0, :, :] for k, v in d.items()}
        Bs = {k: v.reshape(lead + (2, T, T))[..., 1, :, :] for k, v in d.items()}
    else:
        As, Bs = tr.shared_sources("As"), tr.shared_sources("Bs")
    ty, tx = np.meshgrid(np.arange(T), np.arange(T), indexing="ij")
    for got, row, col, matrix, cols in ((As, s.a_row, s.a_col, 1, K), (Bs, s.b_row, s.b_col, 2, N)):
        if L.guarded:
            pad = row < 0
            assert np.array_equal(got["matrix"], np.where(pad, 0, matrix))  # 0: the padding zero
            assert np.array_equal(got["index"], np.where(pad, -1, row * cols + col))
        else:  # no guard: the linear index it loads, inside the matrix or not
            assert np.array_equal(got["index"], row * cols + col)
        # cell [ty][tx] is stored by thread (tx, ty): linear id tx + ty * T
        assert np.array_equal(got["thread"], np.broadcast_to(ty * T + tx, got["thread"].shape))
    want_c = np.where(s.writes_c, s.c_row * N + s.c_col, NEVER) if L.guarded else s.c_row * N + s.c_col
    assert np.array_equal(tr.c_targets(), want_c)
    return r


@pytest.mark.parametrize("shape", ODD + [(3, 3, 3)])
@pytest.mark.parametrize("T", [4, 16])
def test_tiled_rungs_trace_equals_the_model(shape, T):
    """Which A / B element each thread copies into which As / Bs cell in which phase, and which C
    element it stores: the simulator's trace of kernels 03, 04, 05 is the model's, launch for launch."""
    for name, smem in (("03", False), ("04", True), ("05", False)):
        src, path = rung(name)
        r = _tiled_trace_equals_model(src, path, "tiled", *shape, T, smem=smem)
        assert r.passed, (name, [p.text() for p in r.problems])


@pytest.mark.parametrize("shape", ODD)
def test_naive_rungs_store_what_the_model_says(shape):
    for name, kernel in (("01", "naive"), ("02", "naive_col")):
        src, path = rung(name)
        r = run1(src, *shape, 4, path)
        s = schedule(Launch(kernel, *shape, 4))
        assert r.passed
        assert r.trace.phases is None  # no phase loop
        assert np.array_equal(r.trace.c_targets(), np.where(s.writes_c, s.c_row * shape[1] + s.c_col, NEVER))


@pytest.mark.parametrize("shape", ODD)
@pytest.mark.parametrize("T", [4, 8])
def test_tiled_rungs_read_what_the_model_says(shape, T):
    """What each thread reads in the compute loop: the k-th read of As / Bs by thread (tx, ty) in
    phase t is the model's As[ty][k] / Bs[k][tx] (ThreadView.compute), every block, phase and k;
    kept only for the launch asked for (``reads_for``)."""
    L = Launch("tiled", *shape, T)
    cells = schedule(L).compute_cells()  # (as_y, as_x, bs_y, bs_x), each [k, ty, tx]
    for name in ("03", "05"):
        src, path = rung(name)
        rep = check_kernel(src, [(*shape, T), (5, 6, 7, T)], path=path, reads_for=(*shape, T))
        tr, other = rep.launches[0].trace, rep.launches[1].trace
        assert not other.reads["block"].size  # not asked for: no reads kept
        gx, gy = tr.grid
        for by in range(gy):
            for bx in range(gx):
                for arr, (y, x) in (("As", cells[:2]), ("Bs", cells[2:])):
                    got = tr.read_cells(arr, (bx, by))  # [t, thread, n]
                    assert got.shape == (L.phases, T * T, T), (name, arr, got.shape)
                    want = (y * T + x).reshape(T, T * T).T  # [thread = tx + ty*T, k]
                    assert np.array_equal(got, np.broadcast_to(want, got.shape)), (name, arr, bx, by)


def test_a_wrong_read_differs_from_the_model():
    """The same comparison fails for a kernel that reads Bs transposed (Bs[tx][k])."""
    src, path = rung("03")
    bad = src.replace("sum += As[ty][k] * Bs[k][tx];", "sum += As[ty][k] * Bs[tx][k];")
    assert bad != src
    T = 4
    tr = check_kernel(bad, [(9, 9, 9, T)], path=path, reads_for=(9, 9, 9, T)).launches[0].trace
    got = tr.read_cells("Bs", (0, 0))[0]  # [thread, k]
    tx = np.arange(T * T) % T
    assert np.array_equal(got, tx[:, None] * T + np.arange(T)[None, :])
    assert not np.array_equal(got, np.arange(T)[None, :] * T + tx[:, None])


def test_the_trace_comparison_can_fail():
    """A kernel loading the transposed tile of B is caught by the same comparison."""
    bad = TILED.replace("B[(t * TILE + ty) * N + col]", "B[(t * TILE + tx) * N + blockIdx.x * TILE + ty]")
    with pytest.raises(AssertionError):
        _tiled_trace_equals_model(bad, None, "tiled", 35, 79, 19, 4)
    _tiled_trace_equals_model(TILED, None, "tiled", 35, 79, 19, 4)  # the good one still agrees


# ---- the broken variants agree with the model's hazard analysis --------------------------------
@pytest.mark.parametrize("name,kernel", [("07", "tiled_no_barrier1"), ("08", "tiled_no_barrier2"),
                                         ("09", "tiled_no_barriers")])
@pytest.mark.parametrize("shape", [(35, 79, 19, 4), (17, 5, 33, 4), (20, 20, 20, 8)])
def test_barrierless_races_are_the_models_hazards(name, kernel, shape):
    src, path = rung(name)
    r = run1(src, *shape, path)
    T = shape[3]
    L = Launch(kernel, *shape)
    want = {(h.kind, h.tile, h.cell, h.phase): (h.writer, frozenset(h.readers)) for h in hazards(L)}
    ev = r.races
    got: dict = {}
    first = ev["block"] == 0  # the model names the cells of one block (every block has the same)
    for kind, mem, cell, ph, w, rd in zip(*(ev[c][first] for c in ("kind", "memory", "cell", "phase", "writer", "reader"))):
        key = (str(kind), str(mem), (int(cell) // T, int(cell) % T), int(ph))
        writer = (int(w) % T, int(w) // T)
        prev = got.setdefault(key, (writer, frozenset()))
        assert prev[0] == writer
        got[key] = (writer, prev[1] | {(int(rd) % T, int(rd) // T)})
    assert got == want
    assert set(np.unique(ev["block"])) == set(range(L.num_blocks))
    assert {p.kind for p in r.problems} <= {"race", "wrong_result"}
    lines = {p.line for p in r.problems if p.kind == "race"}
    text = path.read_text().splitlines()
    for line in lines:  # a race is reported on a load or compute line, never on a barrier comment
        assert "As[" in text[line - 1] or "Bs[" in text[line - 1]


def test_barrier_2_is_not_needed_with_one_phase():
    src, path = rung("08")
    assert run1(src, 9, 7, 4, 4, path).passed  # K <= T: one phase, no next store (the kernel's comment)
    assert not run1(src, 9, 7, 5, 4, path).passed


@pytest.mark.parametrize("shape", [(35, 79, 19, 4), (5, 3, 4, 2), (3, 3, 3, 2), (17, 5, 33, 4)])
def test_unguarded_kernel_agrees_with_unguarded_report(shape):
    src, path = rung("06")
    r = run1(src, *shape, path)
    _tiled_trace_equals_model(src, path, "tiled_unguarded", *shape)
    rep = unguarded_report(Launch("tiled_unguarded", *shape))
    oob = {(p.detail["memory"], p.detail["access"]): p.count for p in r.problems if p.kind == "out_of_bounds"}
    assert oob.get(("A", "read"), 0) == rep["reads_out_of_range_a"]
    assert oob.get(("B", "read"), 0) == rep["reads_past_end_b"]
    assert oob.get(("C", "store"), 0) == rep["stores_past_end_c"]
    N = shape[1]
    contested = sorted({(int(e) // N, int(e) % N) for e in r.c_races["element"]})
    assert contested == rep["contested_c"]
    if contested:
        assert any(p.kind == "race" and p.detail["memory"] == "C" for p in r.problems)
    wrong = [p for p in r.problems if p.kind == "wrong_result"]
    assert wrong and 0 < wrong[0].count <= rep["wrong_c"]


def test_unguarded_kernel_is_right_where_the_tile_divides_everything():
    src, path = rung("06")
    assert run1(src, 8, 8, 8, 4, path).passed


# ---- each problem kind on a small broken kernel -----------------------------------------------
def test_correct_hand_written_kernel_passes():
    r = check_kernel(TILED, tile=4)
    assert r.passed and r.problems == [] and r.lines() == []


def test_wrong_result():
    bad = TILED.replace("sum += As[ty][k] * Bs[k][tx];", "sum += As[ty][k] * Bs[tx][k];")
    r = run1(bad, 35, 79, 19, 4)
    (p,) = only(r, "wrong_result")
    assert p.line == 20 and p.count > 0.9 * 35 * 79
    ex = p.examples[0]
    assert ex["element"] == [0, 0] and ex["thread"] == [0, 0] and ex["block"] == [0, 0]
    assert "C[0][0]" in p.message and f"of {35 * 79} elements" in p.message
    assert [q.kind for q in r.problems] == ["wrong_result"]


def test_unwritten_elements_are_wrong():
    bad = TILED.replace("if (row < M && col < N)", "if (row < M && col < N && col > 0)")
    (p,) = only(run1(bad, 5, 6, 7, 4), "wrong_result")
    assert p.count == 5 and p.detail["unwritten"] == 5 and "never stored" in p.message


def test_race_read_before_write():
    bad = TILED.replace("        __syncthreads();\n        for", "        for")  # barrier 1 gone
    r = run1(bad, 8, 8, 8, 4)
    ps = only(r, "race")
    a = next(p for p in ps if p.detail["memory"] == "As")
    assert a.line == 15 and a.detail["race"] == "read-before-write"  # the compute line (now 15)
    assert a.threads == [[1, 0], [0, 0]] and a.block == [0, 0] and a.phase == 0
    assert a.examples[0]["other_line"] == 12 and a.examples[0]["where"] == "As[0][0]"


def test_race_write_before_read():
    bad = TILED.replace("            sum += As[ty][k] * Bs[k][tx];\n        __syncthreads();",
                        "            sum += As[ty][k] * Bs[k][tx];")  # barrier 2 gone
    r = run1(bad, 8, 8, 8, 4)
    a = next(p for p in only(r, "race") if p.detail["memory"] == "As")
    assert a.line == 12 and a.detail["race"] == "write-before-read"
    assert a.threads[0] == [0, 0] and a.phase == 0 and a.examples[0]["other_line"] == 16
    assert a.examples[0]["reader_count"] == 3


def test_race_write_write():
    src = "#include \"common.cuh\"\n" + SIG + "{\n    __shared__ float s[4];\n    s[0] = threadIdx.x;\n" \
          "    __syncthreads();\n    if (threadIdx.x == 0 && threadIdx.y == 0) C[0] = s[0];\n}\n"
    r = run1(src, 1, 1, 1, 2)
    (p,) = only(r, "race")
    assert p.line == 5 and p.detail["race"] == "write-write" and p.count == 3


def test_out_of_bounds_global():
    r = run1(NAIVE_UNGUARDED, 5, 6, 7, 4)
    ps = only(r, "out_of_bounds")
    a = next(p for p in ps if p.detail["memory"] == "A")
    assert a.line == 7 and a.detail["access"] == "read"
    # rows 5..7 of the 8 thread rows read past the end of A (5 x 7 = 35 elements)
    assert a.examples[0]["index"] >= 35 and a.threads[0][1] >= 1
    c = next(p for p in ps if p.detail["memory"] == "C")
    assert c.line == 8 and c.detail["access"] == "store"
    fixed = NAIVE_UNGUARDED.replace("    float sum", "    if (row >= M || col >= N) return;\n    float sum")
    assert run1(fixed, 5, 6, 7, 4).passed


def test_out_of_bounds_shared_names_the_index():
    bad = TILED.replace("for (int k = 0; k < TILE; ++k)", "for (int k = 0; k <= TILE; ++k)")
    ps = only(run1(bad, 8, 8, 8, 4), "out_of_bounds")
    a = next(p for p in ps if p.detail["memory"] == "As")
    assert a.line == 16 and a.examples[0]["index"] == [0, 4] and a.examples[0]["extent"] == [4, 4]
    assert "As[0][4]" in a.message and a.phase == 0


def test_barrier_divergence():
    bad = TILED.replace("        __syncthreads();\n        for", "        if (row < M) __syncthreads();\n        for")
    r = run1(bad, 5, 8, 8, 4)  # block row 1 holds rows 4..7 of which only row 4 is inside C
    (p,) = only(r, "barrier_divergence")
    assert p.line == 14 and p.block == [0, 1]
    ex = p.examples[0]
    assert ex["reached"] == 4 and ex["live"] == 16
    assert p.threads[0][1] == 0 and p.threads[1][1] >= 1  # reached: thread row 0; missed: another row
    assert run1(bad, 8, 8, 8, 4).passed  # uniform: every thread reaches it


def test_a_returned_thread_leaves_the_barrier_but_its_cells_stay_unwritten():
    bad = TILED.replace("    float sum = 0.0f;\n", "    float sum = 0.0f;\n    if (row >= M || col >= N) return;\n")
    r = run1(bad, 3, 3, 5, 4)
    assert not any(p.kind == "barrier_divergence" for p in r.problems)
    ps = only(r, "uninitialized")
    assert {p.line for p in ps} == {17} and {p.detail["memory"] for p in ps} == {"As", "Bs"}


def test_uninitialized():
    bad = TILED.replace("        Bs[ty][tx] =", "        if (ty > 0) Bs[ty][tx] =")
    (p,) = only(run1(bad, 8, 8, 8, 4), "uninitialized")
    assert p.line == 16 and p.detail["memory"] == "Bs" and p.examples[0]["cell"] == [0, 0]
    assert p.threads == [[0, 0]] and p.phase == 0


def test_step_limit_stops_with_one_line():
    src = SIG + "{\n    int i = 0;\n    while (i < K) {\n        i = i * 1;\n    }\n}\n"
    t0 = time.perf_counter()
    r = check_kernel(src, tile=4)
    assert time.perf_counter() - t0 < 10
    (p,) = only(r, "step_limit")
    assert p.line == 4 and "\n" not in p.text() and "steps" in p.message  # the loop that does not end
    assert len(r.launches) == 1 and r.skipped and not r.passed


def test_every_kind_is_named_in_kinds():
    assert KINDS == ("wrong_result", "race", "out_of_bounds", "barrier_divergence", "uninitialized", "step_limit")


# ---- semantics ---------------------------------------------------------------------------------
def _values(body: str, n: int = 6):
    """C[0..n) as a one-thread kernel body computes them."""
    src = SIG + "{\n    if (threadIdx.x + threadIdx.y + blockIdx.x + blockIdx.y > 0) return;\n" + body + "\n}\n"
    r = check_kernel(src, [(1, n, 1, 1)])
    return r.launches[0].C[0]


def test_c_integer_semantics_and_float32():
    c = _values("    C[0] = -7 / 2;  C[1] = -7 % 2;  C[2] = 7 / 2;\n"
                "    float big = 16777216.0f;  C[3] = (big + 1.0f) - big;\n"
                "    double d = 16777216.0;  C[4] = (float)((d + 1.0) - d);\n"
                "    C[5] = (3 > 2) ? 1.5f : 2.5f;")
    assert list(c) == [-3.0, -1.0, 3.0, 0.0, 1.0, 1.5]  # truncation toward zero; float32 rounding


def test_short_circuit_guards_an_access():
    src = SIG + "{\n    int i = threadIdx.x;\n    float v = (i < 1 && A[i + 5] > 0.0f) ? 1.0f : 0.0f;\n" \
          "    float w = (i >= 1 || A[i] > 2.0f) ? 1.0f : 0.0f;\n    if (i == 0 && threadIdx.y == 0) C[0] = v + w;\n}\n"
    r = run1(src, 1, 1, 1, 4)
    (p,) = only(r, "out_of_bounds")
    assert p.line == 4 and p.count == 4  # only the threads with x = 0 evaluate A[i + 5] (one per row)
    assert all(ex["thread"][0] == 0 for ex in p.examples)


def test_loops_break_continue_and_pointers():
    c = _values("    float* out = C + 1;\n    int s = 0;\n"
                "    for (int i = 0; i < 10; ++i) { if (i == 2) continue; if (i == 5) break; s += i; }\n"
                "    int j = 0;\n    do { j += 3; } while (j < 7);\n    C[0] = s;  out[0] = j;  *(out + 1) = min(4, 9);\n"
                "    C[4] = fmaxf(1.0f, 2.0f);  C[5] = sizeof(float);")
    assert list(c[[0, 1, 2, 4, 5]]) == [8.0, 9.0, 4.0, 2.0, 4.0] and np.isnan(c[3])  # C[3]: never stored


# ---- the preprocessor and the tile ----------------------------------------------------------------
def test_macros_includes_and_line_numbers():
    src = ("#include \"common.cuh\"\n#define TW 4\n#define IDX(r, c, w) \\\n    ((r) * (w) + (c))\n"
           "#ifdef EXPLAINER_TRACE\n#error not here\n#endif\n#if TW >= 4 && defined(TW)\n#define GOOD 1\n#endif\n"
           + SIG + "{\n    __shared__ float s[TW][TW];\n    int r = blockIdx.y * TW + threadIdx.y;\n"
           "    int c = blockIdx.x * TW + threadIdx.x;\n    s[threadIdx.y][threadIdx.x] = GOOD;\n"
           "    if (r < M && c < N) {\n        float acc = 0.0f;\n"
           "        for (int k = 0; k < K; ++k) acc += A[IDX(r, k, K)] * B[IDX(k, c, N)];\n"
           "        C[IDX(r, c, N)] = acc + 0 * s[threadIdx.y][threadIdx.x + 1];\n    }\n}\n")
    assert kernel_tile(parse_source(src)) == 4  # the shared array's fixed size
    r = check_kernel(src, tile=4)
    (p,) = [q for q in r.problems if q.kind == "out_of_bounds"]
    assert p.line == 20  # lines kept through the continued #define and the #if block
    assert p.examples[0]["index"] == [0, 4]


def test_tile_from_the_template_default():
    src = TILED.replace("template <int TILE>", "template <int TILE = 8>")
    assert kernel_tile(parse_source(src)) == 8
    assert kernel_tile(parse_source(TILED)) == 16
    r = check_kernel(src)
    assert r.passed and {L.launch.tile for L in r.launches} == {8}


# ---- bad input and safety ---------------------------------------------------------------------
def _bad(src, *needles, seconds=5.0):
    t0 = time.perf_counter()
    with pytest.raises(SimError) as e:
        check_kernel(src, tile=4)
    assert time.perf_counter() - t0 < seconds
    msg = str(e.value)
    assert "\n" not in msg and "Traceback" not in msg
    for n in needles:
        assert n in msg, msg
    return msg


def test_a_syntax_error_names_its_line():
    _bad(SIG + "{\n    int x = 3\n    float y = 2;\n}\n", "line 3", "syntax error")
    _bad(SIG + "{\n    int x = (3 + ;\n}\n", "line 3", "syntax error")


def test_a_one_megabyte_file():
    _bad("// " + "x" * (1 << 20) + "\n" + SIG + "{}\n", "bytes")


def test_recursion_is_refused():
    _bad(SIG + "{\n    k(A, B, C, M, N, K);\n}\n", "line 3", "recursion")
    _bad("__device__ int f(int n) { return n ? f(n - 1) : 0; }\n" + SIG + "{\n    int x = f(3);\n}\n",
         "line 4", "f()")


def test_while_one_ends_with_step_limit():
    t0 = time.perf_counter()
    r = check_kernel(SIG + "{\n    while (1) {\n    }\n}\n", tile=4)
    assert time.perf_counter() - t0 < 5
    (p,) = only(r, "step_limit")
    assert p.line == 3 and "\n" not in p.text()


def test_ten_nested_loops_end_with_step_limit():
    body = "".join(f"    for (int i{d} = 0; i{d} < 100; ++i{d})\n" for d in range(10))
    src = SIG + "{\n    float s = 0.0f;\n" + body + "        s += 1.0f;\n    C[0] = s;\n}\n"
    t0 = time.perf_counter()
    r = check_kernel(src, tile=4)
    assert time.perf_counter() - t0 < 5
    (p,) = only(r, "step_limit")
    assert p.line == 13  # the innermost loop


@pytest.mark.parametrize("src,needle", [
    ("#define A0 x x\n" + "".join(f"#define A{i} A{i - 1} A{i - 1}\n" for i in range(1, 30)) + SIG + "{ A29; }\n",
     "tokens"),
    ("#define X X + 1\n" + SIG + "{ int y = X; }\n", "'X' is not declared"),
    (SIG + "{ int y = " + "(" * 3000 + "1" + ")" * 3000 + "; }\n", "nested"),
    ('#include "nowhere.cuh"\n' + SIG + "{}\n", "cannot find"),
    (SIG + "{\n    printf(\"%d\", 1);\n}\n", "printf"),
    (SIG + "{\n    float r[4];\n}\n", "local"),
    (SIG + "{\n    float4 r;\n}\n", "float4"),
    ("int main() { return 0; }\n", "no __global__"),
    ("__global__ void k(float* A, int n) {}\n", "signature"),
    (SIG + "{\n    A[0] = 1.0f;\n}\n", "const"),
    (SIG + "{\n    switch (M) { default: break; }\n}\n", "switch"),
    ("\x00", "NUL"),
])
def test_outside_the_subset_is_one_line(src, needle):
    _bad(src, needle)


def test_the_source_is_never_executed():
    """No eval / exec / compile, no ctypes, subprocess or dynamic import in the simulator: the
    student's text is parsed and walked as data."""
    banned = {"eval", "exec", "compile", "__import__", "ctypes", "subprocess", "os", "importlib", "cffi"}
    for p in sorted(Path(__file__).resolve().parent.parent.glob("explainer/sim/*.py")):
        tree = ast.parse(p.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in banned, f"{p.name}:{node.lineno} calls {node.func.id}"
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = {a.name.split(".")[0] for a in node.names} | {(getattr(node, "module", "") or "").split(".")[0]}
                assert not names & banned, f"{p.name}:{node.lineno} imports {names & banned}"


# ---- targets --------------------------------------------------------------------------------------
def test_speed_targets():
    src, path = rung("03")
    t0 = time.perf_counter()
    r = check_kernel(src, [(128, 128, 128, 16)], path=path)
    big = time.perf_counter() - t0
    t0 = time.perf_counter()
    r2 = check_kernel(src, [(35, 79, 19, 4)], path=path)
    small = time.perf_counter() - t0
    assert r.passed and r2.passed
    assert r.launches[0].launch.grid == (8, 8)  # 64 blocks of 256 threads
    assert big <= 5.0 and small <= 1.0, (big, small)


def test_run_student_kernel_refuses_what_the_simulator_rejects():
    from explainer.gpu.student import StudentKernelRefused, run_student_kernel

    src, path = rung("07")
    with pytest.raises(StudentKernelRefused) as e:
        run_student_kernel(src, 64, 64, 64, 16, path=path)
    assert e.value.lines and all(line.startswith("race") for line in e.value.lines)
