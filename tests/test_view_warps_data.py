"""The arrays the warps explorer's front end receives equal what explainer.model and
explainer.model.memory answer: every thread's warp / lane / linear id, and for every warp of the
block the request table of naive, naive_col and tiled, on odd launches, edge blocks and every
block size."""

from __future__ import annotations

import numpy as np
import pytest

from explainer.model import memory
from explainer.model import Launch, LaunchError
from explainer.views import warps as wv
from explainer.views.payload import unpack


@pytest.mark.parametrize("M, N, K, T, block, k", [
    (1024, 1024, 1024, 16, (2, 1), 0),   # the gemm_tiled walk-through
    (35, 79, 19, 8, (9, 4), 2),          # odd, the corner block, the last phase
    (100, 37, 50, 32, (1, 3), 1),
    (5, 6, 7, 4, (1, 1), 1),             # a 16-thread block: half a warp
])
def test_tables_are_the_models_for_every_warp(M, N, K, T, block, k):
    meta, a = wv.warps_data(M, N, K, T, block, k)
    L = Launch("tiled", M, N, K, T)
    for ty in range(T):
        for tx in range(T):
            w, lane = L.warp_lane(tx, ty)
            assert (a["warp_of"][ty, tx], a["lane_of"][ty, tx], a["lin_of"][ty, tx]) == (w, lane, L.linear_thread(tx, ty))
    assert np.array_equal(a["warp_of"], memory.warp_map(T))
    assert meta["warps"] == memory.warps_per_block(T) == a["sectors"].shape[0]
    for w in range(meta["warps"]):
        j = 0
        for name in wv.KERNELS:
            for r in memory.warp_requests(Launch(name, M, N, K, T), block, w, t=k, k=k):
                assert meta["rows"][j] == [name, r.access, r.code]
                got = (a["active"][w, j], a["distinct"][w, j], a["sectors"][w, j], a["ideal"][w, j])
                assert got == (r.active, r.distinct_addresses, r.sectors, r.ideal), (w, name, r.access)
                assert (a["times"][w, j] == 0) == r.coalesced
                j += 1
        assert j == len(meta["rows"])


def test_seed_001_warp_tiled_is_coalesced_and_naive_col_is_worst():
    meta, a = wv.warps_data(1024, 1024, 1024, 16, (2, 1), 0)
    w = a["warp_of"][3, 4]
    times = {tuple(meta["rows"][j][:2]): int(a["times"][w, j]) for j in range(len(meta["rows"]))}
    assert all(v == 0 for (kernel, _), v in times.items() if kernel == "tiled")
    assert max(times.values()) == times[("naive_col", "A load")] > times[("naive", "A load")]


def test_bad_input_is_one_line():
    for args in ((1024, 1024, 1024, 16, (64, 0), 0), (64, 64, 64, 16, (0, 0), 4)):
        with pytest.raises(LaunchError) as e:
            wv.warps_data(*args)
        assert "\n" not in str(e.value)


def test_payload_and_static_store():
    meta, buf = wv.warps_payload(40, 50, 60, 8, (1, 2), 3, (7, 1))
    a = unpack(meta["arrays"], buf)
    assert meta["start"] == {"thread": [7, 1]} and a["lin_of"][1, 7] == 15
    e = wv.WarpExplorer(M=300, N=200, K=50, tile=16, block=(3, 4), thread=(1, 2))
    store = e.static_store()
    for T in wv.TILES:  # every block size at the page's block
        assert f"tiled|300|200|50|{T}" in store["launches"]
    assert "tiled|300|200|50|16|2|3" in store["states"] and store["bytes"] <= wv.STATIC_CAP
