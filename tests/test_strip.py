"""explainer.model.strip (the sliding-window write-up's V1 against V2) against brute force: the
bytes of the arrays each kernel declares, the largest K by trying every K, and the global reads
of each kernel's copy loops walked thread by thread."""

from __future__ import annotations

import itertools

import pytest

from explainer.model import hardware, strip
from explainer.model.launch import LaunchError


def _v1_reads(M, N, K, T, by, bx):
    """Every global read of block (by, bx) in kernels/02b_strip.cu's copy loop: (matrix, index)."""
    reads = []
    for ty, tx in itertools.product(range(T), range(T)):
        row, col = by * T + ty, bx * T + tx
        for k0 in range(0, K, T):
            if row < M and k0 + tx < K:
                reads.append(("A", row * K + k0 + tx))
            if k0 + ty < K and col < N:
                reads.append(("B", (k0 + ty) * N + col))
    return reads


def _v2_reads(M, N, K, T, by, bx):
    """Every global read of block (by, bx) in kernels/03_tiled.cu's phases."""
    reads = []
    for t in range(-(-K // T)):
        for ty, tx in itertools.product(range(T), range(T)):
            row, col = by * T + ty, bx * T + tx
            if row < M and t * T + tx < K:
                reads.append(("A", row * K + t * T + tx))
            if t * T + ty < K and col < N:
                reads.append(("B", (t * T + ty) * N + col))
    return reads


@pytest.mark.parametrize("M, N, K, T", [(35, 79, 19, 4), (1, 1, 1, 4), (17, 5, 33, 16), (9, 10, 7, 2)])
def test_global_loads_are_each_kernels_reads_once_each(M, N, K, T):
    for by, bx in itertools.product(range(-(-M // T)), range(-(-N // T))):
        v1, v2 = _v1_reads(M, N, K, T, by, bx), _v2_reads(M, N, K, T, by, bx)
        assert len(set(v1)) == len(v1) and len(set(v2)) == len(v2)  # nothing read twice by a block
        assert sorted(v1) == sorted(v2)  # the same elements
        g = strip.global_loads(M, N, K, T, by, bx)
        assert g["a"] == sum(m == "A" for m, _ in v1) and g["b"] == sum(m == "B" for m, _ in v1)
        assert g["total"] == len(v1) and g["bytes"] == 4 * len(v1)


@pytest.mark.parametrize("K, T", [(1, 1), (19, 4), (33, 16), (4096, 16), (7, 32)])
def test_shared_bytes_are_the_declared_arrays(K, T):
    # V1: As[T][K] and Bs[K][T]; V2: As[T][T] and Bs[T][T]; 4-byte floats
    assert strip.v1_shared_bytes(K, T) == len(list(itertools.product(range(T), range(K)))) * 4 * 2
    assert strip.v2_shared_bytes(K, T) == T * T * 4 + T * T * 4
    assert (strip.v1_shared_bytes(K, T) > strip.v2_shared_bytes(K, T)) == (K > T)


@pytest.mark.parametrize("S, T", [(49152, 16), (16384, 4), (232448, 32), (0, 8), (127, 16), (128, 16)])
def test_max_k_is_the_largest_that_fits(S, T):
    K = strip.max_k_v1(S, T)
    fits = [k for k in range(1, S // 4 + 2) if strip.v1_shared_bytes(k, T) <= S]
    assert K == (max(fits) if fits else 0)


def test_arch_limits_follow_the_presets():
    rows = strip.arch_limits(16)
    assert [r["arch"] for r in rows] == list(hardware.arches())
    for r in rows:
        a = hardware.arch(r["arch"])
        assert r["optin_bytes"] == a["max_shared_per_block"]
        assert r["default_bytes"] == min(48 * 1024, a["max_shared_per_block"])
        for key, S in (("max_k_default", r["default_bytes"]), ("max_k_optin", r["optin_bytes"])):
            K = r[key]
            assert strip.v1_shared_bytes(K, 16) <= S < strip.v1_shared_bytes(K + 1, 16)
        assert r["has_optin"] == (a["max_shared_per_block"] > 48 * 1024)
    fermi = next(r for r in rows if r["arch"] == "fermi")
    assert not fermi["has_optin"] and fermi["max_k_default"] == fermi["max_k_optin"]


def test_compare_rows():
    c = strip.compare(16, (64, 4096))
    assert [r["K"] for r in c["rows"]] == [64, 4096]
    for r in c["rows"]:
        assert r["v1_bytes"] == strip.v1_shared_bytes(r["K"], 16) and r["v2_bytes"] == 2048
        assert r["v1_loads"] == r["v2_loads"] == len(_v2_reads(16, 16, r["K"], 16, 0, 0))


@pytest.mark.parametrize("call", [lambda: strip.v1_shared_bytes(0, 16), lambda: strip.v2_shared_bytes(5, -1),
                                  lambda: strip.max_k_v1(-1, 16), lambda: strip.global_loads(1, 1, True, 4),
                                  lambda: strip.compare(1.5)])
def test_bad_input_is_one_line(call):
    with pytest.raises(LaunchError) as e:
        call()
    assert "\n" not in str(e.value)


def test_the_kernels_manual_quotes_the_model():
    """kernels/02b_strip.cu's header: the largest K at T = 16 without opting in and with Hopper's
    opt-in maximum, and that maximum in KB, as the model computes them."""
    from pathlib import Path

    head = (Path(__file__).resolve().parent.parent / "kernels" / "02b_strip.cu").read_text().split("#include")[0]
    hopper = next(r for r in strip.arch_limits(16) if r["arch"] == "hopper")
    assert f"K can be at most {hopper['max_k_default']}" in head
    assert f"K <= {hopper['max_k_optin']} at T = 16" in head
    assert f"({hopper['optin_bytes'] // 1024} KB on" in head and hopper["optin_bytes"] % 1024 == 0


@pytest.mark.parametrize("arch", list(hardware.arches()))
def test_the_launch_is_refused_exactly_past_the_models_largest_k(arch):
    """explainer.gpu's launch of kernel 02b (no GPU needed): its dynamic shared bytes are the
    model's, and a device with a preset's limits refuses it exactly past the largest K."""
    from explainer import gpu
    from explainer.gpu.launch import refusal

    a = hardware.arch(arch)
    limits = {"shared_per_block": min(48 * 1024, a["max_shared_per_block"]),
              "shared_per_block_optin": a["max_shared_per_block"], "max_threads_per_block": a["max_threads_per_block"]}
    K = strip.max_k_v1(a["max_shared_per_block"], 16)
    cfg = gpu.launch_config("strip", 35, 79, K, 16)
    assert cfg.dynamic_shared_bytes == cfg.shared_bytes == strip.v1_shared_bytes(K, 16)
    assert cfg.phases == -(-K // 16) and cfg.grid == (5, 3, 1) and cfg.block == (16, 16, 1)
    assert refusal(cfg, limits) is None
    assert str(a["max_shared_per_block"]) in refusal(gpu.launch_config("strip", 35, 79, K + 1, 16), limits)
    assert "strip" not in gpu.KERNEL_NAMES  # not launched at every K by the sweeps


def test_page_tables_show_the_models_figures():
    """Page 02's section: plain HTML (the same in the static export), every figure the model's."""
    from explainer.pages.strip import strip_vs_window_html

    page = strip_vs_window_html(16, (64, 4096))
    assert "<script" not in page
    for r in strip.compare(16, (64, 4096))["rows"]:
        assert f"<td style='padding:2px 10px;border-bottom:1px solid #e5e7eb;text-align:right'>{r['v1_loads']:,}</td>" in page
    for a in strip.arch_limits(16):
        assert f">{a['max_k_default']:,}<" in page and a["label"] in page
        if a["has_optin"]:
            assert f">{a['max_k_optin']:,}<" in page
