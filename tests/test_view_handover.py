"""Page 09's mbarrier stepper (explainer/views/handover.py): every step it sends to the browser is
explainer.model.hopper.schedule's, and every highlighted line is the kernel file's line with that
step's marker."""

from __future__ import annotations

import re

import pytest

from explainer import resources
from explainer.model import hopper
from explainer.views import handover as hv


@pytest.mark.parametrize("K", [hv.K_DEFAULT, 33, 1000])
def test_payload_is_the_model(K):
    d = hv.handover_data(K)
    steps = hopper.schedule(K)
    assert len(d["steps"]) == len(steps) and d["phases"] == hopper.KERNEL.phases(K)
    for got, want in zip(d["steps"], steps):
        for f in ("actor", "line", "phase", "stage", "waits", "text"):
            assert got[f] == getattr(want, f), f
        for f in ("holds", "state", "full_done", "full_arrived", "full_bytes", "empty_done", "empty_arrived", "doing"):
            assert got[f] == list(getattr(want, f)), f
    assert d["empty_arrivals"] == hopper.KERNEL.empty_arrivals and d["actors"] == list(hopper.ACTORS)


def test_highlighted_lines_are_the_kernels_marked_lines():
    d = hv.handover_data()
    src = (resources.kernels_dir() / hopper.KERNEL.file).read_text().splitlines()
    for c in d["code"]:
        assert c["text"] in src[c["line"] - 1] and "@step" not in c["text"]
    for s in d["steps"]:
        marked = {re.search(r"@step:(\w+)", src[d["code"][j]["line"] - 1]).group(1) for j in s["code"]}
        assert marked == set(hv.MARKERS[s["line"]]), s["line"]
        assert (s["line"] == "land") == (not s["code"])  # the copy engine runs no line


def test_static_store_holds_the_page_launch():
    ex = hv.HandoverExplorer()
    store = ex.static_store()
    assert str(hv.K_DEFAULT) in store["states"]
