"""The GPU runner without CUDA: every entry point answers with a "no GPU" value, never an
exception, and `tiled-explainer bench` says so in one line and exits 1. Runs on any machine:
CuPy's absence is simulated (sys.modules["cupy"] = None) even where it is installed.
Also the pure parts that need no GPU: launch geometry against the model, refusals, the
recorded-timings file."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from explainer.app import bench
from explainer.gpu import recorded

from explainer import gpu
from explainer.model import Launch

REPO = Path(__file__).resolve().parent.parent

# Every public entry point that needs a GPU, called with valid arguments.
ENTRY_POINTS = {
    "device_info": lambda: gpu.device_info(),
    "kernel_info": lambda: gpu.kernel_info("tiled", 16),
    "compile_kernels": lambda: gpu.compile_kernels(trace=True),
    "check": lambda: gpu.check("tiled", 35, 79, 19, 8),
    "matmul": lambda: gpu.matmul("naive", np.ones((3, 4)), np.ones((4, 5)), 2),
    "trace": lambda: gpu.trace("tiled", 3, 3, 3, 2),
    "time_kernel": lambda: gpu.time_kernel("naive", 64, 64, 64, 16),
    "time_cublas": lambda: gpu.time_cublas(64, 64, 64),
    "benchmark": lambda: gpu.benchmark(["naive"], [64], [16]),
    "time_launches": lambda: gpu.time_launches(["warptile", "warptile_32x128@2"], "65x67x69"),
}
PURE = {"launch_config", "refusal", "gflops", "status"}


@pytest.fixture
def no_cupy(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)  # `import cupy` raises ImportError
    monkeypatch.delenv(gpu.NO_GPU_ENV, raising=False)
    gpu.runtime._reset()
    yield
    gpu.runtime._reset()


def test_entry_point_list_is_complete():
    public = {n for n in gpu.__all__ if callable(getattr(gpu, n)) and n[0].islower()}
    assert public - PURE == set(ENTRY_POINTS)


def test_status_without_cupy(no_cupy):
    st = gpu.status()
    assert isinstance(st, gpu.GpuStatus)
    assert st.available is False and st.kind == "no_gpu" and not st.ok
    assert st.reason.startswith("no GPU: cupy is not installed")


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_entry_point_without_cupy(no_cupy, name):
    r = ENTRY_POINTS[name]()
    assert isinstance(r, gpu.GpuStatus), f"{name} returned {r!r}"
    assert r.available is False and r.kind == "no_gpu" and not r.ok
    assert "cupy is not installed" in r.reason


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_entry_point_disabled_by_env(monkeypatch, name):
    monkeypatch.setenv(gpu.NO_GPU_ENV, "1")
    r = ENTRY_POINTS[name]()
    assert isinstance(r, gpu.GpuStatus) and not r.available
    assert gpu.NO_GPU_ENV in r.reason


def test_cupy_without_device(monkeypatch):
    """CuPy imports but the driver has no device: a value, not the driver's exception."""

    def no_device():
        raise RuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")

    fake = types.ModuleType("cupy")
    fake.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=no_device))
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.delenv(gpu.NO_GPU_ENV, raising=False)
    gpu.runtime._reset()
    try:
        st = gpu.status()
        assert not st.available and "no CUDA-capable device" in st.reason
        for name, call in ENTRY_POINTS.items():
            r = call()
            assert isinstance(r, gpu.GpuStatus) and not r.available, name
    finally:
        gpu.runtime._reset()


def test_bench_run_without_cupy(no_cupy, capsys):
    rc = bench.main(["--sizes", "64", "--kernels", "naive"])
    out, err = capsys.readouterr()
    assert rc == 1
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "no GPU: cupy is not installed" in lines[0]


def test_cli_bench_without_cupy(no_cupy, capsys):
    from explainer.app import cli

    rc = cli.main(["bench"])
    out, err = capsys.readouterr()
    assert rc == 1 and out == ""
    assert len(err.strip().splitlines()) == 1 and "no GPU" in err


def test_cli_bench_subprocess_exits_1_with_one_line():
    code = ("import sys; sys.modules['cupy'] = None; from explainer.app.cli import main; "
            "sys.exit(main(['bench']))")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop(gpu.NO_GPU_ENV, None)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                       env=env, timeout=120)
    assert p.returncode == 1, p.stderr
    assert p.stdout == ""
    assert len(p.stderr.strip().splitlines()) == 1 and "no GPU" in p.stderr


def test_cli_bench_subprocess_env_switch():
    env = {**os.environ, "PYTHONPATH": str(REPO), gpu.NO_GPU_ENV: "1"}
    p = subprocess.run([sys.executable, "-m", "explainer.app.cli", "bench", "--sizes", "64"],
                       capture_output=True, text=True, cwd=REPO, env=env, timeout=120)
    assert p.returncode == 1 and p.stdout == ""
    assert len(p.stderr.strip().splitlines()) == 1 and gpu.NO_GPU_ENV in p.stderr


# ---- pure parts: geometry, refusals, recorded files -------------------------------------
SHAPES = [(1, 1, 1), (35, 79, 19), (3, 3, 3), (4, 4, 8), (1000, 300, 77), (17, 17, 17)]


@pytest.mark.parametrize("kernel", [k for k in gpu.KERNEL_NAMES if not gpu.KERNELS[k].rung])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("tile", [2, 8, 16, 32])
def test_launch_config_matches_the_model(kernel, shape, tile):
    M, N, K = shape
    cfg = gpu.launch_config(kernel, M, N, K, tile)
    L = Launch(gpu.KERNELS[kernel].model, M, N, K, tile)
    assert cfg.grid[:2] == L.grid and cfg.block[:2] == L.block
    assert cfg.phases == L.phases
    assert cfg.shared_bytes == L.shared_bytes_per_block
    assert cfg.dynamic_shared_bytes == (cfg.shared_bytes if kernel == "tiled_dynamic" else 0)
    # the grid covers C and no whole block row / column lies outside it
    gx, gy, _ = cfg.grid
    assert gx * tile >= N > (gx - 1) * tile and gy * tile >= M > (gy - 1) * tile


def test_launch_config_rejects_bad_requests():
    with pytest.raises(ValueError, match="unknown kernel"):
        gpu.launch_config("tild", 4, 4, 4, 2)
    with pytest.raises(ValueError, match="at least 1"):
        gpu.launch_config("naive", 0, 4, 4, 2)
    with pytest.raises(ValueError, match="compiled for tiles"):
        gpu.launch_config("tiled", 64, 64, 64, 12)
    assert gpu.launch_config("tiled_dynamic", 64, 64, 64, 12).dynamic_shared_bytes == 2 * 12 * 12 * 4


H100_LIMITS = {"shared_per_block": 49152, "max_threads_per_block": 1024}


def test_refusal_messages():
    ok = gpu.launch_config("tiled_dynamic", 64, 64, 64, 32)
    assert gpu.refusal(ok, H100_LIMITS) is None
    big = gpu.refusal(gpu.launch_config("tiled_dynamic", 64, 64, 64, 128), H100_LIMITS)
    assert big.startswith("refused:")
    assert "131072 bytes of shared memory" in big and "49152" in big
    threads = gpu.refusal(gpu.launch_config("tiled_dynamic", 64, 64, 64, 64), H100_LIMITS)
    assert "4096 threads" in threads and "shared memory" not in threads
    huge = gpu.refusal(gpu.launch_config("naive", 50000, 50000, 2, 16), H100_LIMITS)
    assert "32-bit int" in huge


def _fake_report():
    row = {"kernel": "tiled", "M": 64, "N": 64, "K": 64, "tile": 16, "median_ms": 0.01,
           "min_ms": 0.009, "max_ms": 0.012, "mean_ms": 0.0102, "cv": 0.05, "spread": 0.3,
           "repeats": 5, "gflops": 52.4, "pct_cublas": 40.0, "rel_error": 1e-7,
           "all_written": True, "passed": True, "times_ms": [0.01] * 5}
    cub = {**row, "kernel": "cublas", "tile": None, "pct_cublas": None}
    return {"device": {"name": "Fake GPU 9000", "compute_capability": "9.0"},
            "date": "2026-01-02T03:04:05+00:00", "settings": {}, "cublas": [cub],
            "results": [row], "errors": []}


def test_save_and_load_recorded(tmp_path):
    path = recorded.save_report(_fake_report(), tmp_path, command="tiled-explainer bench --save")
    assert path.parent == tmp_path and path.name == "fake-gpu-9000_2026-01-02.json"
    data = recorded.load_recorded(path)
    assert data["schema"] == recorded.SCHEMA and data["source"] == path.name
    assert data["label"] == "recorded on Fake GPU 9000 on 2026-01-02"
    assert [r["kernel"] for r in recorded.recorded_rows(data, size=64)] == ["cublas", "tiled"]
    assert recorded.recorded_rows(data, kernel="naive") == []
    assert recorded.load_recorded(path, device="H100") is None
    line = bench.format_row(data["results"][0])
    assert "tiled" in line and "64x64x64" in line and "40.0" in line


def test_shipped_recorded_timings():
    """The package ships timings recorded on a GPU: every kernel, tiles 8/16/32 (the ladder
    kernels once), N = 512 .. 4096, each with its spread, plus cuBLAS per size and the device and versions."""
    data = recorded.load_recorded()
    assert data is not None, "no recorded timings in explainer/data/recorded/"
    assert data["device"]["name"] and data["device"]["compute_capability"]
    for key in ("cupy", "numpy", "cuda_runtime"):
        assert data["device"]["versions"][key]
    assert data["date"][:4].isdigit()
    for n in (512, 1024, 2048, 4096):
        assert recorded.recorded_rows(data, kernel="cublas", size=n), n
        for kernel in gpu.KERNEL_NAMES:
            # the ladder kernels (page 08) have no tile: one row per size, tile None
            for tile in ((None,) if gpu.KERNELS[kernel].rung else (8, 16, 32)):
                rows = [r for r in recorded.recorded_rows(data, kernel=kernel, size=n)
                        if r.get("tile") == tile]
                assert len(rows) == 1, (kernel, n, tile)
                r = rows[0]
                assert r["passed"] and r["all_written"]
                assert r["min_ms"] <= r["median_ms"] <= r["max_ms"] and r["repeats"] >= 3
                assert len(r["times_ms"]) == r["repeats"]
    json.dumps(data)  # plain JSON all the way down


def test_add_arguments_defaults():
    p = argparse.ArgumentParser()
    bench.add_arguments(p)
    a = p.parse_args([])
    assert a.sizes == ["512", "1024", "2048", "4096"] and a.tiles == [8, 16, 32]
    assert a.save is None and a.flush_l2 is True and a.kernels is None
    a = p.parse_args(["--save", "--kernels", "naive", "tiled", "--sizes", "35x79x19"])
    assert a.save == "" and a.kernels == ["naive", "tiled"]
    with pytest.raises(SystemExit):
        p.parse_args(["--kernels", "cutlass"])


def test_every_timing_path_spins_a_cold_gpu_up(monkeypatch):
    """One spin-up path: timing cuBLAS or a kernel on a GPU idle for longer than IDLE_S first
    keeps it busy for SPIN_UP_S; right after timed work it does not (a fake GPU records what
    ran)."""
    import types

    from explainer.gpu import timing

    log = []

    class Device:
        def synchronize(self):
            log.append("sync")

    class Event:
        def record(self):
            pass

        def synchronize(self):
            pass

    cp = types.SimpleNamespace(matmul=lambda a, b, out: log.append("matmul"), cuda=types.SimpleNamespace(
        Device=Device, Event=Event, get_elapsed_time=lambda a, b: 1.0))
    rt = types.SimpleNamespace(cp=cp, last_busy=None, flush_l2=lambda: None, hold=lambda us: None)
    prob = types.SimpleNamespace(A=0, B=0, C=0)
    clock = [100.0]
    monkeypatch.setattr(timing.time, "perf_counter", lambda: clock[0])

    def spin(rt_, prob_, seconds=timing.SPIN_UP_S):
        log.append("spin")
        rt_.last_busy = clock[0]
        return seconds

    monkeypatch.setattr(timing, "_spin_up", spin)
    timing._ensure_warm(rt, prob)
    assert log == ["spin"]  # never used: cold
    times, _ = timing._time_loop(rt, lambda: None, repeats=3, warmup=1, budget_s=1.0, flush_l2=False)
    assert rt.last_busy == clock[0] and len(times) == 3
    clock[0] += timing.IDLE_S / 2
    timing._ensure_warm(rt, prob)
    assert log == ["spin"]  # warm: nothing to do
    clock[0] += 2 * timing.IDLE_S
    timing._ensure_warm(rt, prob)
    assert log == ["spin", "spin"]  # idle again: spun up again
    # Both public timing paths go through it.
    import inspect

    for fn in (timing._time_kernel_on, timing._time_cublas_on):
        assert "_ensure_warm(rt, prob)" in inspect.getsource(fn)


def test_benchmark_checks_first_then_times_cublas_and_launches_in_interleaved_rounds(monkeypatch):
    """A fake GPU records what ``benchmark`` does at one size: every launch (and cuBLAS) checked
    before anything is timed, then cuBLAS and the launches timed in ROUNDS rounds whose order
    alternates, each with its share of the repeats; a row's times are all its rounds', and its
    cublas_ms is cuBLAS's median over its rounds."""
    from explainer.gpu import sweep, timing

    log = []
    ms = {"cublas": [1.0, 3.0], "warptile": [2.0, 6.0], "warptile_32x128@2": [4.0, 8.0]}
    seen = {k: 0 for k in ms}

    def timed(name, repeats, budget_s):
        i = seen[name]
        seen[name] += 1
        log.append(("time", name, repeats))
        return [ms[name][i]] * repeats

    def time_kernel_on(rt, cfg, prob, *, repeats, warmup, budget_s, flush_l2, cublas_ms=None):
        label = "warptile" if cfg.splits == 1 else "warptile_32x128@2"
        return timing.Timing(cfg.kernel, cfg.M, cfg.N, cfg.K, None, tuple(timed(label, repeats, budget_s)), warmup,
                             flush_l2, budget_s, False, cublas_ms, splits=cfg.splits)

    def time_cublas_on(rt, prob, *, repeats, warmup, budget_s, flush_l2, tf32=False, checked=None):
        assert checked is not None  # checked before the rounds, not after each timing
        return timing.Timing("cublas", prob.M, prob.N, prob.K, None, tuple(timed("cublas", repeats, budget_s)),
                             warmup, flush_l2, budget_s, False, None, dict(checked))

    class Prob:
        def __init__(self, rt, M, N, K, seed):
            self.M, self.N, self.K = M, N, K

        def release(self, rt):
            log.append(("release",))

    info = types.SimpleNamespace(registers=100, static_shared_bytes=0, dynamic_shared_bytes=0, blocks_per_sm=1,
                                 occupancy=0.25)
    monkeypatch.setattr(sweep, "_Problem", Prob)
    monkeypatch.setattr(sweep, "_cublas_check", lambda rt, prob, tf32=False: log.append(("check", "cublas"))
                        or {"rel_error": 0.0, "all_written": True, "tf32": False})
    monkeypatch.setattr(sweep, "_check_on", lambda rt, cfg, prob: log.append(("check", cfg.kernel, cfg.splits))
                        or {"rel_error": 1e-7, "all_written": True})
    monkeypatch.setattr(sweep, "_kernel_info", lambda rt, cfg: info)
    monkeypatch.setattr(sweep, "_time_kernel_on", time_kernel_on)
    monkeypatch.setattr(sweep, "_time_cublas_on", time_cublas_on)
    monkeypatch.setattr(sweep, "device_info", lambda: None)
    rt = types.SimpleNamespace(name="Fake", check_fits=lambda cfg: None, tf32_off=lambda: {"tf32": False}, sm_count=132,
                               built=lambda cfg, trace=False: False,
                               prepare=lambda cfgs, trace=False: log.append(("prepare", tuple(c.label for c in cfgs))))
    notes = []
    rep = sweep.benchmark.__wrapped__(rt, ["warptile", "warptile_32x128@2"], ["200x300x400"], repeats=20,
                                      progress=lambda kind, row: notes.append((kind, row.get("message"))))
    assert rep.errors == []
    # progress: what is compiled first (both instantiations at once), a status line after each check
    # and before the timings, then the rows
    assert [k for k, _ in notes] == ["status", "status", "status", "status", "cublas", "result", "result"]
    assert notes[0][1].startswith("200x300x400: compiling 2 kernel instantiations")
    assert log.index(("prepare", ("warptile", "warptile_32x128@2"))) < min(i for i, e in enumerate(log) if e[0] == "check" and e[1] != "cublas")
    assert notes[1][1] == "200x300x400: warptile checked against numpy"
    assert notes[3][1] == f"200x300x400: timing cuBLAS and 2 launches in {sweep.ROUNDS} interleaved rounds"
    checks = [i for i, e in enumerate(log) if e[0] == "check"]
    times = [i for i, e in enumerate(log) if e[0] == "time"]
    assert len(checks) == 3 and max(checks) < min(times)  # all checked, then timed
    assert sweep.ROUNDS >= 2
    order = [e[1] for e in log if e[0] == "time"]
    first = ["cublas", "warptile", "warptile_32x128@2"]
    assert order == [name for r in range(sweep.ROUNDS) for name in (first if r % 2 == 0 else first[::-1])]
    per = 20 // sweep.ROUNDS
    assert {e[2] for e in log if e[0] == "time"} == {per}  # the repeats shared among the rounds
    assert sum(timing._round_repeats(15)) == 15 and max(timing._round_repeats(15)) - min(timing._round_repeats(15)) <= 1
    (cub,) = rep.cublas
    assert cub["repeats"] == per * sweep.ROUNDS and cub["median_ms"] == 2.0  # median over both rounds
    rows = {r.get("splits", 1): r for r in rep.results}
    assert rows[1]["median_ms"] == 4.0 and rows[2]["median_ms"] == 6.0
    assert rows[1]["cublas_ms"] == rows[2]["cublas_ms"] == 2.0
    assert rows[1]["passed"] and rows[1]["registers"] == 100
    assert "interleaved rounds" in rep.settings["order"]


def test_time_kernel_checks_cublas_first_then_interleaves_it_with_the_kernel(monkeypatch):
    """``time_kernel`` compares with cuBLAS as ``benchmark`` does: cuBLAS checked before any
    timing, then the two timed in ROUNDS rounds of alternating order; cublas_ms is cuBLAS's
    median over its rounds."""
    from explainer.gpu import timing

    log = []

    class Prob:
        def __init__(self, rt, M, N, K, seed):
            self.M, self.N, self.K = M, N, K

        def release(self, rt):
            pass

    def kern(rt, cfg, prob, *, repeats, warmup, budget_s, flush_l2, cublas_ms=None):
        log.append("kernel")
        return timing.Timing(cfg.kernel, cfg.M, cfg.N, cfg.K, cfg.tile, (5.0,) * repeats, warmup, flush_l2,
                             budget_s, False, cublas_ms)

    def cub(rt, prob, *, repeats, warmup, budget_s, flush_l2, tf32=False, checked=None):
        assert checked is not None
        log.append("cublas")
        return timing.Timing("cublas", prob.M, prob.N, prob.K, None, (1.0 + len(log),) * repeats, warmup,
                             flush_l2, budget_s, False, None, dict(checked))

    monkeypatch.setattr(timing, "_Problem", Prob)
    monkeypatch.setattr(timing, "_cublas_check", lambda rt, prob, tf32=False: log.append("check") or {})
    monkeypatch.setattr(timing, "_time_kernel_on", kern)
    monkeypatch.setattr(timing, "_time_cublas_on", cub)
    rt = types.SimpleNamespace(check_fits=lambda cfg: None)
    assert timing.time_kernel.__wrapped__(rt, "naive", 64, 64, 64, 16, repeats=15).repeats == 15
    log.clear()
    t = timing.time_kernel.__wrapped__(rt, "naive", 64, 64, 64, 16, repeats=20)
    pairs = [("cublas", "kernel") if r % 2 == 0 else ("kernel", "cublas") for r in range(timing.ROUNDS)]
    assert log == ["check"] + [w for p in pairs for w in p]
    assert t.repeats == 20 and t.median_ms == 5.0
    assert t.cublas_ms == 4.5  # cuBLAS's rounds timed 3.0 and 6.0 ms (fake): the median over both


def test_tensor_core_rows_are_labelled_and_never_the_best_against_fp32_cublas():
    data = _fake_report()
    fp32 = data["results"][0]
    cub_tf32 = {**data["cublas"][0], "kernel": "cublas_tf32", "median_ms": 0.004, "math": "tf32"}
    tc = {**fp32, "kernel": "mma_tf32", "tile": None, "median_ms": 0.001, "cublas_ms": 0.04,
          "pct_cublas": 40.0, "math": "tf32", "reference": "cublas_tf32"}
    data["results"].append(tc)
    data["cublas_tf32"] = [cub_tf32]
    assert recorded.best_rows(data) == [fp32]  # faster, but TF32 against an FP32 reference
    line = bench.format_row(tc)
    assert "mma_tf32 [TF32]" in line and f"{tc['gflops']:>9.1f} {'40.0':>8} " in line  # % of cuBLAS TF32
    assert "cublas_tf32 [TF32]" in bench.format_row(cub_tf32) and "100.0" in bench.format_row(cub_tf32)
    assert "[TF32]" not in bench.format_row(fp32)
    assert "TF32" in bench.TF32_NOTE and "cublas_tf32" in bench.TF32_NOTE
    assert [r["kernel"] for r in recorded.recorded_rows(data)] == ["cublas", "cublas_tf32", "tiled", "mma_tf32"]


def test_a_percentage_against_a_cublas_under_10us_says_launch_overhead_dominates():
    fast = {**_fake_report()["results"][0], "cublas_ms": 0.004, "pct_cublas": 40.0}
    slow = {**fast, "cublas_ms": 0.02, "median_ms": 0.05}
    assert recorded.launch_bound(0.004) and not recorded.launch_bound(0.0101) and not recorded.launch_bound(None)
    assert recorded.OVERHEAD_NOTE in bench.format_row(fast) and "40.0*" in bench.format_row(fast)
    assert recorded.OVERHEAD_NOTE not in bench.format_row(slow) and "40.0 " in bench.format_row(slow)
    cub = {**fast, "kernel": "cublas", "median_ms": 0.004, "pct_cublas": None}
    assert recorded.OVERHEAD_NOTE in bench.format_row(cub)
    assert recorded.OVERHEAD_NOTE in bench.format_best(fast) and recorded.OVERHEAD_NOTE not in bench.format_best(slow)
    # The ladder page's cells say it too.
    from explainer.pages import ladder as page

    rows = [{"kernel": "cublas", "tile": None, "M": 64, "N": 64, "K": 64, "median_ms": 0.004, "gflops": 1.0},
            {"kernel": "tiled", "tile": 32, "M": 64, "N": 64, "K": 64, "median_ms": 0.01, "gflops": 1.0,
             "pct_cublas": 40.0}]
    cells = page.ladder_cells(rows, sizes=(64,))
    tiled = next(c for c in cells if c["kernel"] == "tiled")["cells"][64]
    assert tiled["launch_bound"] and recorded.OVERHEAD_NOTE in page._fmt_cell(tiled, first=True)


def test_dynamic_shared_memory_is_opted_in_per_cuda_function():
    """Above 48 KiB a kernel must ask for its dynamic shared memory (kernel 16). The request is
    remembered per CUDA function, not per Python wrapper: get_function returns a new wrapper each
    time, and a freed wrapper's id() can come back for another kernel (the trace build's)."""
    from types import SimpleNamespace

    from explainer.gpu.runtime import _Runtime

    rt = SimpleNamespace(dynamic_allowed={}, DEFAULT_DYNAMIC_LIMIT=_Runtime.DEFAULT_DYNAMIC_LIMIT)
    set_on = []

    class Kern:
        def __init__(self, ptr):
            self.kernel = SimpleNamespace(ptr=ptr)

        def __setattr__(self, name, value):
            if name == "max_dynamic_shared_size_bytes":
                set_on.append((self.kernel.ptr, value))
            object.__setattr__(self, name, value)

    _Runtime.allow_dynamic(rt, Kern(1), 40_000)  # under 48 KiB: nothing to ask
    _Runtime.allow_dynamic(rt, Kern(1), 56_832)
    _Runtime.allow_dynamic(rt, Kern(1), 56_832)  # a new wrapper of the same function: already allowed
    _Runtime.allow_dynamic(rt, Kern(2), 56_832)  # another function (the trace build's) asks itself
    _Runtime.allow_dynamic(rt, Kern(2), 113_664)
    assert set_on == [(1, 56_832), (2, 56_832), (2, 113_664)]


def test_each_timed_launch_waits_behind_a_hold_with_the_collector_off():
    """The stream is held (kernels/hold.cu) after the L2 flush and before the start event, every
    repeat, so that all kernels of a launch are queued before the GPU reaches them; Python's
    garbage collector is off while the loop runs and on again after it."""
    import gc
    import types

    from explainer.gpu import timing

    log = []

    class Event:
        def __init__(self):
            self.name = "start" if not any(isinstance(x, Event) for x in made) else "end"
            made.append(self)

        def record(self):
            log.append(self.name)

        def synchronize(self):
            pass

    made = []
    cp = types.SimpleNamespace(cuda=types.SimpleNamespace(Event=Event, get_elapsed_time=lambda a, b: 1.0))
    rt = types.SimpleNamespace(cp=cp, last_busy=None, flush_l2=lambda: log.append("flush"),
                               hold=lambda us: log.append(("hold", us)))
    seen_gc = []
    times, _ = timing._time_loop(rt, lambda: (log.append("launch"), seen_gc.append(gc.isenabled())),
                                 repeats=3, warmup=1, budget_s=1.0, flush_l2=True)
    one = ["flush", ("hold", timing.HOLD_US), "start", "launch", "end"]
    assert len(times) == 3 and log == one * 4 and timing.HOLD_US >= 50
    assert seen_gc == [False] * 4 and gc.isenabled()


def test_the_comparison_counts_unwritten_elements_and_errors():
    """verify._compare (numpy path; the device path runs the same sums, tests/test_gpu.py): the
    relative error in the Frobenius norm, the largest error, and NaN left where no thread stored."""
    from explainer.gpu.verify import _compare
    ref = np.arange(12, dtype=np.float64).reshape(3, 4) + 1.0
    out = ref.astype(np.float32)
    r = _compare(out, ref)
    assert r == {"rel_error": 0.0, "max_abs_error": 0.0, "all_written": True, "unwritten": 0}
    out[1, 2] += 0.5
    r = _compare(out, ref)
    assert r["rel_error"] == pytest.approx(0.5 / np.linalg.norm(ref)) and r["max_abs_error"] == 0.5
    out[0, :3] = np.nan
    r = _compare(out, ref)
    assert r["unwritten"] == 3 and not r["all_written"] and np.isnan(r["rel_error"])


def test_the_planned_shortlist_prints_every_kind_of_progress():
    """``bench --kernels planned`` prints what time_launches reports while it measures the
    shortlist: compiling (status), a refusal (error) and a time (result); none of them raises."""
    from explainer.app.bench import shortlist_line

    assert shortlist_line("status", {"message": "64x64x64: compiling 3 kernel instantiations"}) == \
        "#   64x64x64: compiling 3 kernel instantiations"
    assert shortlist_line("error", {"kernel": "warptile_64x64@2", "message": "refused: too big\nmore"}) == \
        "#   warptile_64x64@2: refused: too big"
    assert shortlist_line("result", {"label": "warptile_64x64@2", "median_ms": 0.12345}) == "#   warptile_64x64@2: 0.1235 ms"


def test_pages_say_no_gpu_once(no_cupy):
    """Where a page says "No GPU here (...)" the reason in brackets does not say "no GPU" again,
    and a block of one warp is "1 warp", not "1 warps"."""
    from explainer.pages import perf as pages_perf
    from explainer.pages import tensor
    from explainer.views.tiled import tiled_data

    st = gpu.status()
    assert st.reason.startswith("no GPU: ") and st.why == st.reason[len("no GPU: "):]
    for html_ in (tensor.check_on_gpu().value, pages_perf._live_note()):
        assert "No GPU here (" in html_ and "(no GPU" not in html_ and "cupy is not installed" in html_
    assert "an NVIDIA GPU of a Hopper" not in tensor.check_on_gpu(kernel="wgmma_tma").value
    from explainer.model import Launch

    def title(T):
        return tiled_data(Launch("tiled", T, T, T, T), (0, 0))[0]["title_shared"]

    assert title(4).endswith("its 16 threads (1 warp)") and title(8).endswith("its 64 threads (2 warps)")
