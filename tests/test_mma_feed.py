"""benchmarks/mma_feed.cu, the feeding ceiling of mma.sync (issue 14): every variant that
benchmarks/mma_feed.py launches compiles with nvcc for sm_90, keeps its fragments and accumulators in
registers (a spill would measure local memory, not the feeding), and allocates the shared memory the
kernel indexes (the kernel's static_assert against the launcher's figure). Skipped without nvcc."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NVCC = shutil.which("nvcc")
SRC = ROOT / "benchmarks" / "mma_feed.cu"


def _feed():
    spec = importlib.util.spec_from_file_location("mma_feed", ROOT / "benchmarks" / "mma_feed.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


FEED = _feed()


def _nvcc(opts, out: Path) -> subprocess.CompletedProcess:
    cmd = [NVCC, "-arch=sm_90", *opts, "-cubin", "-o", str(out), str(SRC), "-Xptxas", "-v"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


@pytest.mark.check
@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")
@pytest.mark.parametrize("label, defines", FEED.VARIANTS, ids=[v[0].strip() for v in FEED.VARIANTS])
def test_every_variant_compiles_without_spills(label, defines, tmp_path):
    p = _nvcc(FEED.options(defines), tmp_path / "v.cubin")
    assert p.returncode == 0, p.stderr
    assert "Compiling entry function 'mma_feed'" in p.stderr
    spills = [int(x) for x in re.findall(r"(\d+) bytes spill stores", p.stderr)]
    assert spills == [0], f"{label}: {p.stderr}"


@pytest.mark.check
@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")
def test_the_kernel_refuses_a_shared_memory_figure_it_does_not_use(tmp_path):
    """The check the variants pass above can fail: one float short of the kernel's layout."""
    d = FEED.VARIANTS[0][1]
    opts = [o for o in FEED.options(d) if not o.startswith("-DFEED_SMEM_FLOATS")]
    p = _nvcc(opts + [f"-DFEED_SMEM_FLOATS={FEED.smem_floats(d) - 1}"], tmp_path / "v.cubin")
    assert p.returncode != 0 and "allocates another amount of shared memory" in p.stderr


def test_each_launch_does_about_the_work_of_a_4096_cube():
    """The variants are compared with cuBLAS TF32 at 4096^3 launch for launch: each does that work
    to within one phase (132 SMs, as the H100's)."""
    for label, d in FEED.VARIANTS:
        per = FEED.flop_per_phase(d, 132)
        phases = max(1, round(FEED.WORK / per))
        assert abs(phases * per - FEED.WORK) <= per / 2, label
