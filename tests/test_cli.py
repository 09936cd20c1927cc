"""The command line's contract: names, JSON keys, exit codes, one-line errors."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from explainer.app.cli import main

SEED_001 = "trace --kernel tiled --M 1024 --N 1024 --K 1024 --tile 16 --block 2,1 --thread 4,3"


def run_cli(capsys, line: str):
    rc = main(line.split())
    out, err = capsys.readouterr()
    return rc, out, err


def script() -> list[str]:
    """The installed console script, beside this Python (the README's install puts it there)."""
    exe = Path(sys.executable).parent / "tiled-explainer"
    found = str(exe) if exe.exists() else shutil.which("tiled-explainer")
    if not found:
        pytest.fail("the console script tiled-explainer is not installed (pip install -e .)")
    return [found]


def test_console_script_seed_001_json():
    p = subprocess.run(script() + SEED_001.split() + ["--json"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert (d["row"], d["col"], d["linear_thread"], d["warp"], d["lane"]) == (19, 36, 52, 1, 20)
    assert d["writes_c"] is True
    assert d["barriers"] == 128
    assert d["phases"][0] == {"phase": 0, "a": [19, 4], "b": [3, 36], "as": [3, 4], "bs": [3, 4]}
    assert [p["phase"] for p in d["phases"]] == list(range(64))


def test_trace_readable(capsys):
    rc, out, _ = run_cli(capsys, SEED_001)
    assert rc == 0
    assert "C[19][36]" in out and "warp 1, lane 20" in out and "A[19][4]" in out and "B[3][36]" in out


def test_trace_padding_is_null(capsys):
    rc, out, _ = run_cli(capsys, "trace --M 3 --N 3 --K 3 --tile 2 --block 0,0 --thread 1,0 --json")
    d = json.loads(out)
    assert rc == 0 and d["phases"][1]["a"] is None and d["phases"][1]["b"] == [2, 1]


def test_trace_ghost_thread(capsys):
    rc, out, _ = run_cli(capsys, "trace --M 3 --N 3 --K 3 --tile 2 --block 1,1 --thread 1,1 --json")
    d = json.loads(out)
    assert rc == 0 and d["writes_c"] is False and (d["row"], d["col"]) == (3, 3)


def test_trace_naive_col(capsys):
    rc, out, _ = run_cli(capsys, "trace --kernel naive_col --M 64 --N 64 --K 8 --tile 16 --block 1,2 --thread 5,3 --json")
    d = json.loads(out)
    # row = blockIdx.y*blockDim.x + threadIdx.x, col = blockIdx.x*blockDim.y + threadIdx.y
    assert (d["row"], d["col"]) == (2 * 16 + 5, 1 * 16 + 3)
    assert d["phases"] == [] and d["barriers"] == 0


STATS_KEYS = {
    "grid", "threads_per_block", "phases", "barriers_per_block", "global_loads",
    "global_stores", "flops", "flop_per_byte", "shared_bytes_per_block",
}


@pytest.mark.parametrize("kernel,fpb", [("naive", 0.25), ("naive_col", 0.25), ("tiled", 4.0)])
def test_stats_json(capsys, kernel, fpb):
    rc, out, _ = run_cli(capsys, f"stats --kernel {kernel} --M 512 --N 512 --K 512 --tile 16 --json")
    d = json.loads(out)
    assert rc == 0 and STATS_KEYS <= d.keys()
    assert d["grid"] == [32, 32] and d["flops"] == 2 * 512**3 and d["global_stores"] == 512 * 512
    assert d["flop_per_byte"] == pytest.approx(fpb)
    assert d["shared_bytes_per_block"] == (2 * 16 * 16 * 4 if kernel == "tiled" else 0)


def test_stats_rectangular(capsys):
    rc, out, _ = run_cli(capsys, "stats --M 35 --N 79 --K 19 --tile 8 --json")
    d = json.loads(out)
    # grid x covers N: ceil(79/8) = 10; y covers M: ceil(35/8) = 5; phases ceil(19/8) = 3
    assert d["grid"] == [10, 5] and d["phases"] == 3 and d["barriers_per_block"] == 6
    assert d["global_loads"] == 10 * 35 * 19 + 5 * 19 * 79


@pytest.mark.parametrize("T,occ,blocks", [(8, 1 / 3, 8), (16, 1.0, 6), (32, 2 / 3, 1)])
def test_occupancy_json(capsys, T, occ, blocks):
    rc, out, _ = run_cli(capsys, f"occupancy --arch fermi --tile {T} --json")
    d = json.loads(out)
    assert rc == 0
    assert {"blocks_per_sm", "active_threads", "occupancy", "limits", "limiter"} <= d.keys()
    assert d["occupancy"] == pytest.approx(occ) and d["blocks_per_sm"] == blocks
    assert d["active_threads"] == blocks * T * T


def test_occupancy_threads_smem_regs(capsys):
    rc, out, _ = run_cli(capsys, "occupancy --arch hopper --threads 256 --smem 8192 --regs 64 --json")
    d = json.loads(out)
    assert rc == 0 and d["limiter"] == "registers" and set(d["limits"]) == {"threads", "blocks", "shared", "registers"}


def test_info(capsys):
    rc, out, _ = run_cli(capsys, "info --json")
    d = json.loads(out)
    assert rc == 0 and d["python"] and "numpy" in d["packages"]
    assert isinstance(d["cuda"]["available"], bool)
    if not d["cuda"]["available"]:
        assert d["cuda"]["reason"]


BAD = [
    "trace --M 0 --N 4 --K 4 --block 0,0 --thread 0,0",
    "trace --M a --N 4 --K 4 --block 0,0 --thread 0,0",
    "stats --M 4 --N 4 --K 4 --tile 64",
    "trace --M 4 --N 4 --K 4 --tile 2 --block 2,0 --thread 0,0",
    "trace --M 4 --N 4 --K 4 --tile 2 --block 0,0 --thread 0,2",
    "trace --M 4 --N 4 --K 4 --tile 2 --block 0 --thread 0,0",
    "occupancy --arch fermi --tile 64",
    "occupancy --arch fermi --threads 4096",
    "occupancy --arch volta --tile 8",
    "stats --kernel blocked --M 4 --N 4 --K 4",
    "frobnicate",
]


@pytest.mark.parametrize("line", BAD)
def test_bad_input_exits_2_with_one_line(line):
    p = subprocess.run(script() + line.split(), capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, (p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tiled-explainer: error:"), p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""


# ---- check-kernel: the simulator's command ----------------------------------------------------
KERNELS = Path(__file__).resolve().parent.parent / "kernels"
CHECK_SCHEMA = {
    "type": "object",
    "required": ["passed", "launches", "problems"],
    "properties": {
        "passed": {"type": "boolean"},
        "launches": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["M", "N", "K", "tile", "grid", "passed"],
            "properties": {"M": {"type": "integer"}, "tile": {"type": "integer"}, "passed": {"type": "boolean"}}}},
        "problems": {"type": "array", "items": {
            "type": "object", "required": ["kind", "line", "threads", "phase", "count", "message"],
            "properties": {
                "kind": {"enum": ["wrong_result", "race", "out_of_bounds", "barrier_divergence", "uninitialized",
                                  "step_limit"]},
                "line": {"type": ["integer", "null"]},
                "threads": {"type": "array", "items": {"type": "array", "items": {"type": "integer"},
                                                       "minItems": 2, "maxItems": 2}},
                "phase": {"type": ["integer", "null"]},
                "count": {"type": "integer", "minimum": 1}}}},
    },
}


def test_check_kernel_passes_a_correct_rung(capsys):
    rc, out, err = run_cli(capsys, f"check-kernel {KERNELS / '03_tiled.cu'} --tile 4")
    assert rc == 0, out + err
    assert "PASS" in out and "35x79x19 T=4" in out and "1x1x1 T=4" in out


def test_check_kernel_json_schema_and_exit_1(capsys):
    import jsonschema

    rc, out, _ = run_cli(capsys, f"check-kernel {KERNELS / '07_tiled_no_barrier1.cu'} --tile 4 --json")
    d = json.loads(out)
    jsonschema.validate(d, CHECK_SCHEMA)
    assert rc == 1 and d["passed"] is False
    assert {p["kind"] for p in d["problems"]} == {"race"}
    assert {p["line"] for p in d["problems"]} == {51}  # the compute line reads As / Bs unsynchronised
    rc, out, _ = run_cli(capsys, f"check-kernel {KERNELS / '03_tiled.cu'} --M 35 --N 79 --K 19 --tile 4 --json")
    d = json.loads(out)
    jsonschema.validate(d, CHECK_SCHEMA)
    assert rc == 0 and d["passed"] and d["problems"] == []
    assert [(L["M"], L["N"], L["K"], L["tile"], L["grid"]) for L in d["launches"]] == [(35, 79, 19, 4, [20, 9])]


def test_check_kernel_one_line_per_problem(capsys):
    rc, out, _ = run_cli(capsys, f"check-kernel {KERNELS / '06_tiled_unguarded.cu'} --M 35 --N 79 --K 19 --tile 4")
    lines = out.strip().splitlines()
    problems = [line for line in lines if line.split(",")[0] in ("wrong_result", "race", "out_of_bounds")]
    assert rc == 1 and len(problems) == 4 and lines[-1].startswith("FAIL: 4 problems")
    for line in problems:  # kind, line, threads, phase
        assert ", line " in line and "threads (x=" in line and ", phase " in line


def test_check_kernel_reports_an_endless_loop(tmp_path, capsys):
    f = tmp_path / "loop.cu"
    f.write_text("__global__ void k(const float* A, const float* B, float* C, int M, int N, int K)\n"
                 "{\n    while (1) { }\n}\n")
    rc, out, _ = run_cli(capsys, f"check-kernel {f} --tile 2")
    assert rc == 1 and out.splitlines()[1].startswith("step_limit, line 3,")


@pytest.mark.parametrize("text,needle", [
    ("__global__ void k(const float* A, const float* B, float* C, int M, int N, int K)\n{\n    int x = 3\n}\n",
     "line 3: syntax error"),
    ("__global__ void k(const float* A, const float* B, float* C, int M, int N, int K)\n{\n    goto end;\n}\n",
     "line 3: goto is outside"),
    ("int main() { return 0; }\n", "no __global__ kernel"),
])
def test_check_kernel_bad_input_exits_2(tmp_path, text, needle):
    f = tmp_path / "student.cu"
    f.write_text(text)
    p = subprocess.run(script() + ["check-kernel", str(f)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, (p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tiled-explainer: error:") and needle in lines[0], p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""


@pytest.mark.parametrize("line", [
    f"check-kernel {KERNELS / 'no_such_kernel.cu'}",
    f"check-kernel {KERNELS / '03_tiled.cu'} --M 4",
    f"check-kernel {KERNELS / '03_tiled.cu'} --tile 64",
    f"check-kernel {KERNELS / '17_wgmma_tma.cu'}",
])
def test_check_kernel_bad_arguments_exit_2(line):
    test_bad_input_exits_2_with_one_line(line)
