"""Each kernel file compiles with nvcc (timed and -DEXPLAINER_TRACE builds, every template
instantiation), so syntax errors show up on a CPU-only machine; skipped without nvcc. And the
files carry what the explainer relies on: a header manual, the shared header, step markers.

The lesson's files (kernels/*.cu, the rungs among them) compile with -I kernels; the tuning
engine's (kernels/tuned/*.cu: the tuned kernel 14 of explainer.tuning.configs, the padded launch's
copies, split-K's reduction) with -I kernels/tuned -I kernels, as explainer/gpu/runtime.py does.
Every test of kernels/tuned/ is marked ``check`` (nvcc over every instantiation is, anyway)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from explainer import gpu
from explainer.model import ladder, mma
from explainer.tuning import configs  # (registers the engine's configurations in gpu.KERNELS)

KDIR = gpu.KERNELS_DIR
NVCC = shutil.which("nvcc")
FILES = sorted(p.name for p in KDIR.glob("[0-9]*.cu"))  # the lesson's kernels, the rungs among them
TUNED = "tuned/"  # the tuning engine's folder, relative to kernels/
TUNED_FILES = sorted(TUNED + p.name for p in (KDIR / TUNED).glob("*.cu"))
#: The lesson's kernels by name: every registered kernel but the tuning engine's configurations.
LESSON = {n: s for n, s in gpu.KERNELS.items() if n not in gpu.launch.ENGINE_KERNEL_NAMES}

TILED_STEPS = {"index", "phase", "load_a", "load_b", "barrier1", "compute", "barrier2", "store"}
NAIVE_STEPS = {"index", "compute", "store"}
HOPPER_STEPS = {"index", "phase", "init", "wait_empty", "expect_tx", "load_a", "load_b", "wait_full",
                "compute", "arrive_empty", "store"}
KNOWN_STEPS = TILED_STEPS | HOPPER_STEPS


def test_every_registered_kernel_has_its_file():
    """Every lesson kernel's file is one of kernels/*.cu and every such file is a kernel's; the
    rungs' among them (kernels/10-14, one spec each), none in kernels/tuned/."""
    assert FILES == sorted({s.file for s in LESSON.values()})
    assert [LESSON[r.name].file for r in ladder.RUNGS] == [r.file for r in ladder.RUNGS]
    assert len({r.file for r in ladder.RUNGS}) == len(ladder.RUNGS) and not any("/" in r.file for r in ladder.RUNGS)


@pytest.mark.check
def test_every_engine_kernel_has_its_file():
    """The tuning engine's files: kernels/tuned/warptile_tuned.cu (every configuration of
    explainer.tuning.configs, registered by name), pad_rows.cu and splitk_reduce.cu (a padded
    launch's copies and split-K's reduction), and its header tuned.cuh; no other source there."""
    engine = {gpu.KERNELS[n].file for n in gpu.launch.ENGINE_KERNEL_NAMES}
    assert engine == {configs.FILE} and set(gpu.launch.ENGINE_KERNEL_NAMES) == set(configs.BY_NAME)
    assert TUNED_FILES == sorted(engine | {gpu.launch.PAD_SPEC.file, gpu.launch.REDUCE_SPEC.file})
    sources = sorted(p.name for p in (KDIR / TUNED).iterdir() if p.suffix in (".cu", ".cuh"))
    assert sources == sorted([f[len(TUNED):] for f in TUNED_FILES] + ["tuned.cuh"])


def _units():
    """What one nvcc call compiles: a lesson kernel file (kernels/*.cu) with every instantiation
    the runner asks for, or one configuration's instantiations of the tuned kernel
    (kernels/tuned/warptile_tuned.cu) at a time (all of them in one call took over 5 minutes on
    CI's 2 cores); the tuned kernel's units are marked ``check`` like the rest."""
    out = []
    for name in FILES:
        specs = [s for s in LESSON.values() if s.file == name]
        out.append(pytest.param(name, tuple(s.name for s in specs), id=name))
    out += [pytest.param(c.file, (c.name,), id=f"{c.file}:{c.name}") for c in configs.CONFIGS]
    return out


def _includes(name: str) -> list[str]:
    """The -I options a kernel file compiles with: kernels/tuned/ (its own header first) and
    kernels/ for the tuning engine's files, kernels/ for the lesson's (explainer/gpu/runtime.py)."""
    return [f"-I{KDIR / TUNED}", f"-I{KDIR}"] if name.startswith(TUNED) else [f"-I{KDIR}"]


def spill_stores(ptxas_report: str) -> dict[str, int]:
    """Bytes each entry point spills (``ptxas -v``'s "N bytes spill stores"), by mangled name."""
    return {name: int(n) for name, n in re.findall(
        r"Function properties for (\S+)\n\s*\d+ bytes stack frame, (\d+) bytes spill stores", ptxas_report)}


#: Bytes a padded launch's entry point (GUARD 3) may spill: a few registers held across the K loop
#: (warptile_48x128 at 168 registers: one STL before the loop, one LDL after it, in its SASS; the
#: split-K entry of warptile_64x64_bk32, at 128, since its edge tiles shift (session 29): 20 bytes,
#: 3 LDL a phase of 1024 FFMA a thread and the others outside the loop).
GUARD3_SPILL = 20
#: ... and what the split-K entry of the aligned, guarded body (GUARD 1) may spill: warptile_64x64_bk32's
#: at 128 registers, since its fix-up is a function of its own (split_fixup, session 30): 4 bytes, one STL
#: before the K loop and one LDL a phase of 1024 FFMA (SASS read with nvdisasm).
SPLITK_GUARD1_SPILL = 4


def may_spill(entry: str, nbytes: int | None = None) -> bool:
    """Where a timed build may spill registers to local memory (kernels/tuned/warptile_tuned.cu's
    manual): the tuned kernel's split-tail entry points, and its GUARD 2 (by pairs: 5) element-copy
    bodies of configurations made for several blocks per SM (``__launch_bounds__`` MINB >= 2), whose
    roomy twin, GUARD 4 (6), is what a launch runs where that costs no round
    (``configs.TunedConfig.runs_roomy``); and ``nbytes`` up to :data:`GUARD3_SPILL` in a padded
    launch's entry points (GUARD 3), up to :data:`SPLITK_GUARD1_SPILL` in the split-K entry point's
    GUARD 1. Everything else, GUARD 4 and 6 included, spills nothing; nor does any rung (kernel 14
    the rung: a bool GUARD, mangled ``Lb``)."""
    if not entry.startswith("_Z") or "warptile_" not in entry or not re.search(r"Li\d+EEv", entry):
        return False  # (the tuned kernel's int GUARD ends its template arguments)
    *_, minb, guard = (int(v) for v in re.findall(r"Li(\d+)E", entry))
    guard &= 15  # (GUARD + 16: the same bodies, C's rows staged a warp tile wide: configs.wide_rows)
    return ("splittail" in entry or (guard in (2, 5) and minb >= 2)
            or (guard == 3 and nbytes is not None and nbytes <= GUARD3_SPILL)
            or (guard == 1 and "splitk" in entry and nbytes is not None and nbytes <= SPLITK_GUARD1_SPILL))


def test_spill_rule_reads_the_template_arguments():
    """The rule above on names as nvcc mangles them (GUARD last, MINB before it)."""
    tight = "_Z13warptile_gemmILi64ELi128ELi8ELi32ELi64ELi2ELi4ELi4ELi128ELi4ELi4ELi2EEvPKfS1_Pfiiiii"
    assert may_spill(tight) and not may_spill(tight.replace("Li4ELi2EEv", "Li4ELi4EEv"))  # GUARD 4
    assert may_spill(tight.replace("Li4ELi2EEv", "Li4ELi5EEv")) and not may_spill(tight.replace("Li4ELi2EEv", "Li4ELi6EEv"))
    assert may_spill(tight.replace("Li4ELi2EEv", "Li4ELi18EEv")) and not may_spill(tight.replace("Li4ELi2EEv", "Li4ELi20EEv"))
    assert not may_spill(tight.replace("Li4ELi4ELi2EEv", "Li4ELi1ELi2EEv"))  # MINB 1
    assert not may_spill(tight.replace("Li4ELi2EEv", "Li4ELi0EEv"))  # the fast path
    padded = tight.replace("Li4ELi2EEv", "Li4ELi3EEv")  # GUARD 3: a few bytes
    assert may_spill(padded, GUARD3_SPILL) and not may_spill(padded, GUARD3_SPILL + 4) and not may_spill(padded)
    assert may_spill(padded.replace("_Z13warptile_gemm", "_Z20warptile_splitk_gemm"), 4)
    aligned_split = tight.replace("Li4ELi2EEv", "Li4ELi1EEv").replace("_Z13warptile_gemm", "_Z20warptile_splitk_gemm")
    assert may_spill(aligned_split, SPLITK_GUARD1_SPILL) and not may_spill(aligned_split, SPLITK_GUARD1_SPILL + 4)
    assert not may_spill(aligned_split) and not may_spill(tight.replace("Li4ELi2EEv", "Li4ELi1EEv"), 4)  # whole K
    assert may_spill(tight.replace("_Z13warptile_gemm", "_Z23warptile_splittail_gemm").replace("Li2EEv", "Li0EEv"))
    assert not may_spill("_Z16mma_staged_gemmILi128EEvPKfS1_Pfiii")
    rung = "_Z13warptile_gemmILi256ELi128ELi8ELi64ELi64ELi2ELi8ELi4ELi256ELi4ELi1ELb1EEvPKfS1_Pfiii"  # kernel 14, GUARD true
    assert not may_spill(rung) and not may_spill(rung, 4) and not may_spill(rung.replace("Lb1E", "Lb0E"))
    report = ("ptxas info    : Function properties for _Z1ai\n    32 bytes stack frame, 52 bytes spill stores, "
              "52 bytes spill loads\nptxas info    : Function properties for _Z1bi\n"
              "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n")
    assert spill_stores(report) == {"_Z1ai": 52, "_Z1bi": 0}


def _instantiate(src: Path, name: str, exprs: list[str]) -> Path:
    """A source that includes kernel file ``name`` and instantiates the template ``exprs`` explicitly
    (what the runner does through name_expressions), with each entry point's parameters: (A, B, C,
    M, N, K) for the rungs, plus lda, ldb and split-K's workspace for the tuned kernel."""
    sig = "(const float*, const float*, float*, int, int, int{});"
    tuned = name.startswith(TUNED)
    extra = lambda e: ((", int, int" if tuned else "")  # noqa: E731  (the tuned kernel: lda, ldb)
                       + (", float*, int*" if "splitk" in e else
                          ", float*, int*, int, int, int" if "splittail" in e else ""))
    src.write_text(f'#include "{KDIR / name}"\n' + "".join(
        f"template __global__ void {e}{sig.format(extra(e))}\n" for e in exprs))
    return src


def _nvcc_command(name: str, kernels: tuple, trace: bool, tmp: Path) -> list[str]:
    """The nvcc call that compiles one unit (:func:`_units`), timed or trace build, into ``tmp``."""
    specs = [gpu.KERNELS[k] for k in kernels]  # a file may serve several configurations
    spec = specs[0]
    src = KDIR / name
    if spec.rung:
        # the ladder's templates are instantiated by the runner (name_expressions); here by
        # explicit instantiation of the same expressions
        src = _instantiate(tmp / "instantiate.cu", name, [e for s in specs for e in (s.name_expressions or [])])
    arch = f"-gencode=arch=compute_{spec.arch[3:]},code={spec.arch}" if spec.arch else "-arch=sm_90"
    cmd = [NVCC, arch, "-std=c++17", *_includes(name), "-c", str(src), "-o", str(tmp / "k.o"), "-Xptxas", "-v"]
    if trace:
        cmd.insert(1, gpu.launch.TRACE_DEFINE)
        if name.startswith(TUNED):
            cmd += TRACE_QUICK
    return cmd


#: The tuning engine's trace builds compile with little optimisation here (NVVM -O1, ptxas -O0):
#: this test asks of a trace build only that every instantiation compiles and which entry points it
#: holds (spills are checked on the timed builds, compiled as the runner compiles them), and at the
#: default levels those builds took most of CI's time (warptile_64x64_bk16's: 60 s against 14 s).
TRACE_QUICK = ["-Xcicc", "-O1", "-Xptxas", "-O0"]


@pytest.fixture(scope="module")
def nvcc_runs(request, tmp_path_factory):
    """The nvcc calls of every selected ``test_nvcc_compiles``, started together the first time one is
    needed, as many at once as this machine has cores (each call keeps one core busy; one after another
    they were most of CI's time): (name, kernels, trace) -> (command, future of its CompletedProcess)."""
    pool = ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1))
    runs = {}
    for item in request.session.items:
        if getattr(item, "originalname", None) == "test_nvcc_compiles" and item.module is request.module:
            key = (item.callspec.params["name"], item.callspec.params["kernels"], item.callspec.params["trace"])
            if key not in runs:
                cmd = _nvcc_command(*key, tmp_path_factory.mktemp("nvcc"))
                runs[key] = cmd, pool.submit(subprocess.run, cmd, capture_output=True, text=True, timeout=600)
    yield runs
    pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.check
@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")
@pytest.mark.parametrize("trace", [False, True], ids=["timed", "trace"])
@pytest.mark.parametrize("name, kernels", _units())
def test_nvcc_compiles(name, kernels, trace, nvcc_runs):
    """Every instantiation compiles; the compiler's shared memory is the table's; a timed build
    spills nowhere, but where the tuned kernel's manual says it may (:func:`may_spill`)."""
    specs = [gpu.KERNELS[k] for k in kernels]  # a file may serve several configurations
    spec = specs[0]
    exprs = [e for s in specs for e in (s.name_expressions or [])]
    cmd, run = nvcc_runs[(name, kernels, trace)]
    p = run.result()
    assert p.returncode == 0, f"{' '.join(cmd)}\n{p.stderr}"
    # one ptxas report per kernel: every instantiation the runner asks for was compiled
    n_kernels = len(exprs or [None])
    assert p.stderr.count("Compiling entry function") == n_kernels, p.stderr
    if spec.rung:  # the table's shared-memory figure is the compiler's
        smem = [int(x) for x in re.findall(r"(\d+) bytes smem", p.stderr)]
        assert sorted(smem) == sorted(s.ladder.shared_bytes for s in specs for _ in s.name_expressions), p.stderr
    for tile in spec.tiles or ():
        assert f"Li{tile}E" in p.stderr, f"{spec.expression(tile)} not instantiated"
    spills = spill_stores(p.stderr)
    assert set(re.findall(r"Compiling entry function '(\S+)'", p.stderr)) <= set(spills), p.stderr  # all read
    if not trace:  # the timed builds: registers spill only where the tuned kernel's manual says they may
        bad = {e: b for e, b in spills.items() if b and not (name.startswith(TUNED) and may_spill(e, b))}
        assert not bad, f"unexpected spills (bytes stored to local memory per entry point): {bad}"
    assert "C7513" not in p.stderr, "ptxas serialized the wgmma instructions"


def _ptx_fma(name: str, exprs: list[str], tmp_path: Path) -> list[int]:
    """``fma.rn.f32`` instructions in the PTX of each entry point of ``exprs`` (file ``name``), in order."""
    src = _instantiate(tmp_path / "bodies.cu", name, exprs)
    p = subprocess.run([NVCC, "-arch=sm_90", "-std=c++17", *_includes(name), "-ptx", str(src), "-o", str(tmp_path / "k.ptx")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    entries = re.split(r"\.visible \.entry ", (tmp_path / "k.ptx").read_text())[1:]
    assert len(entries) == len(exprs), p.stderr
    return [e.count("fma.rn.f32") for e in entries]


@pytest.mark.check
@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")
def test_the_rungs_guarded_launch_holds_one_body(tmp_path):
    """Kernel 14 the rung has one body, fast or guarded: the PTX of each of its two instantiations
    holds one phase's multiply-adds (``Rung.phase_fma``: its K loop unrolled over a phase), no
    second, edge body."""
    r = ladder.rung("warptile")
    assert _ptx_fma(r.file, r.expressions, tmp_path) == [r.phase_fma, r.phase_fma]


@pytest.mark.check
@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")
@pytest.mark.parametrize("name", [c.name for c in configs.CONFIGS])
def test_guarded_launches_hold_the_bodies_the_model_says(name, tmp_path):
    """The tuned kernel's bodies are the model's: the PTX of a guarded split-K entry point (GUARD 1)
    holds one phase's multiply-adds (``Rung.phase_fma``) for each of its two bodies, the interior one
    (which every block runs where C is at least a tile tall and wide, ``TunedConfig.shifts``) and the
    clamped one (C narrower than a tile); the unguarded entry point (GUARD 0) holds one."""
    r = configs.config(name)
    exprs = [r.expression(guard, split=True) for guard in (False, True)]
    assert [e.rsplit(", ", 1)[1] for e in exprs] == ["0>", "1>"]
    assert _ptx_fma(r.file, exprs, tmp_path) == [r.phase_fma, 2 * r.phase_fma], r.phase_fma


@pytest.mark.parametrize("name", FILES + [pytest.param(configs.FILE, marks=pytest.mark.check)])
def test_header_manual_markers_and_shared_header(name):
    """The lesson's kernels include common.cuh; the tuned kernel (kernels/tuned/, ``check``) its own
    header, tuned.cuh, and never common.cuh."""
    text = (KDIR / name).read_text()
    lines = text.splitlines()
    tuned = name.startswith(TUNED)
    assert lines[0].startswith(f"// kernels/{name} -- ")
    # the manual: the first 30 lines of a lesson's kernel; the tuned kernel's whole opening comment
    top = lines[:30] if not tuned else lines[:next(i for i, l in enumerate(lines) if not l.startswith("//"))]
    head = "\n".join(l for l in top if l.startswith("//"))
    assert "What it teaches" in head and "Launch" in head
    # where it comes from: the course material (named by what each document is), the book, or
    # the public kernels it follows
    assert re.search(r"PMPP|course notes|walk-through|lab report|sliding-window|siboehm|kernel \d\d", head), name
    includes = re.findall(r'^#include "([^"]+)"', text, flags=re.M)
    assert includes == (["tuned.cuh"] if tuned else ["common.cuh"]), includes
    assert "#define CEIL_DIV" not in text  # lives once, in common.cuh (tuned.cuh)
    steps = re.findall(r"// @step:(\w+)\s*$", text, flags=re.M)
    assert set(steps) <= KNOWN_STEPS, set(steps) - KNOWN_STEPS
    spec = next(s for s in gpu.KERNELS.values() if s.file == name)
    want = TILED_STEPS if spec.traces_tiles else NAIVE_STEPS
    if spec.rung and spec.ladder.barriers_per_phase == 1:
        want = want - {"barrier2"}  # double buffering: one barrier per phase
    if spec.model == "mma" and mma.KERNELS[spec.name].barriers_per_phase == 1:
        want = want - {"barrier2"}  # staged copies: one barrier per phase
    if spec.model == "strip":
        want = want - {"barrier2"}  # the whole strips, never overwritten: one barrier
    if spec.model == "hopper":
        want = HOPPER_STEPS  # mbarriers: who waits for whom, marked line by line
    assert set(steps) == want
    # every barrier line is marked, and marked as a barrier
    # (the tuned kernel's epilogue barriers, split-K's and the block-wide staging of C's rows, say that
    # they are split-K's or the epilogue's instead; kernel 17's one __syncthreads() publishes its mbarriers)
    marked = r"// (@step:barrier[12]\s*$|split-K: |epilogue: )" if tuned else r"// @step:barrier[12]\s*$"
    for line in lines:
        if "__syncthreads()" in line:
            assert re.search(marked, line) or (
                spec.model == "hopper" and line.rstrip().endswith("// @step:init")), line
    if spec.model == "hopper":  # no trace build yet (the GPU tests compare its product bit for bit)
        assert "mbarrier.try_wait" in text and "wgmma.mma_async" in text and "cp.async.bulk.tensor" in text
        return
    if spec.rung:  # recorded by slot and by output (common.cuh, tuned.cuh), next to each copy / store
        for macro in ("TRACE_SLOT_A", "TRACE_SLOT_B", "TRACE_OUT"):
            assert macro in text, f"{name} records no {macro}"
        return
    if spec.model == "mma":  # recorded by fragment register (common.cuh TRACE_AT), A, B and C
        for buf in ("g_trace_a", "g_trace_b", "g_trace_c"):
            assert f"TRACE_AT({buf}," in text, f"{name} records nothing into {buf}"
        return
    # every store into shared memory or C is followed by its trace record
    for i, line in enumerate(lines):
        m = re.search(r"// @step:(load_a|load_b|store)\s*$", line)
        if m:
            which = {"load_a": "TRACE_A", "load_b": "TRACE_B", "store": "TRACE_C"}[m.group(1)]
            if spec.model == "rect" and which != "TRACE_C":  # kernel 03b: by shared cell (explainer.model.rect)
                which = which.replace("TRACE_", "TRACE_SLOT_")
            assert which in lines[i + 1], f"line {i + 2} of {name} should record {which}"


@pytest.mark.parametrize("header", ["common.cuh", pytest.param(TUNED + "tuned.cuh", marks=pytest.mark.check)])
def test_common_header_defines_trace_globals(header):
    """kernels/common.cuh (the lesson's) and kernels/tuned/tuned.cuh (the tuning engine's, which
    lets its kernel name its own block id for the split tail's trace) each define the trace
    globals and CEIL_DIV once; split-K's workspace offset is the engine's alone."""
    text = (KDIR / header).read_text()
    for g in ("g_trace_a", "g_trace_b", "g_trace_c"):
        assert f"__device__ int* {g};" in text
    assert "#ifdef EXPLAINER_TRACE" in text and "#define CEIL_DIV" in text and "#pragma once" in text
    assert ("split_offset" in text) == header.startswith(TUNED)
    assert ("#ifndef EXPLAINER_BLOCK_ID" in text) == header.startswith(TUNED)


@pytest.mark.check
@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")
@pytest.mark.parametrize("name", [gpu.launch.PAD_SPEC.file, gpu.launch.REDUCE_SPEC.file])
def test_the_engine_helpers_compile_and_carry_their_manual(name, tmp_path):
    """kernels/tuned/pad_rows.cu (a padded launch's copies) and kernels/tuned/splitk_reduce.cu
    (split-K's separate reduction), not rungs: each compiles with the engine's includes, header
    manual first, one extern "C" entry point named as its spec says."""
    spec = next(s for s in (gpu.launch.PAD_SPEC, gpu.launch.REDUCE_SPEC) if s.file == name)
    src = KDIR / name
    lines = src.read_text().splitlines()
    assert lines[0].startswith(f"// kernels/{name} -- ") and any("Launch" in line for line in lines[:30])
    out = subprocess.run([NVCC, "-arch=sm_80", *_includes(name), "-c", str(src), "-o", str(tmp_path / "k.o")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    syms = subprocess.run(["nm", str(tmp_path / "k.o")], capture_output=True, text=True).stdout
    assert re.search(rf"\b{spec.symbol}\b", syms), syms


@pytest.mark.check
def test_the_pad_copies_have_one_entry_point_and_the_launchs_chunk():
    """kernels/tuned/pad_rows.cu: nothing is copied back (the tuned kernel stores C in place), and
    the launch's chunk (explainer/gpu/verify.py) is the kernel's."""
    src = KDIR / gpu.launch.PAD_SPEC.file
    assert "unpad_rows" not in src.read_text() and src.read_text().count("__global__") == 1
    # the launch's chunk (explainer/gpu/verify.py) is the kernel's: 4 columns per thread, 256 threads
    text = src.read_text()
    assert "#define PAD_THREADS 256" in text and "#define CHUNK (4 * PAD_THREADS)" in text
    assert gpu.verify.PAD_CHUNK == 4 * 256
