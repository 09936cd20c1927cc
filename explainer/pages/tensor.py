"""Page 09: tensor cores. The mma.sync m16n8k8 fragment tables, the fragment explorer (one warp of
kernel 15 stepped k-step by k-step), TF32's precision computed here with numpy, and kernel 15 run
on the GPU when there is one. Every figure comes from :mod:`explainer.model.mma` or is measured."""

from __future__ import annotations

import html

import numpy as np

from .. import gpu
from ..gpu import recorded
from ..i18n import _
from ..model import hopper, mma
from ..views.mma import MmaExplorer
from ..views.handover import HandoverExplorer
from ..views.pipeline import PipelineExplorer
from ..views.perf import table
from .ladder import _html

NOTE = "font-size:12px;color:#4b5563"


def fragment_table(lanes=(0, 1, 2, 3, 4, 5, 31)):
    """Which elements some lanes hold in one m16n8k8 mma (from explainer.model.mma.fragment)."""
    fa, fb, fc = mma.fragment("a"), mma.fragment("b"), mma.fragment("c")
    rows = []
    for lane in lanes:
        rows.append((
            lane, f"{lane // 4}, {lane % 4}",
            ", ".join(f"a{i}=A[{r}][{c}]" for i, (r, c) in enumerate(fa[lane])),
            ", ".join(f"b{i}=B[{r}][{c}]" for i, (r, c) in enumerate(fb[lane])),
            ", ".join(f"c{i}=C[{r}][{c}]" for i, (r, c) in enumerate(fc[lane])),
        ))
    return _html(table(
        (_("lane"), "g, t", _("A fragment (16 × 8 tile)"), _("B fragment (8 × 8 tile, [k][n])"),
         _("C / D fragment (16 × 8 tile)")),
        rows,
        _("g = lane / 4 (groupID), t = lane % 4 (threadID_in_group). Computed by explainer.model.mma.fragment, "
          "the PTX ISA's mma.m16n8k8 .tf32 tables; tests/test_gpu_mma.py checks them against what the kernel's "
          "lanes really hold.")), "explainer-fragment-table")


def fragments(**kw):
    """The fragment explorer (:mod:`explainer.views.mma`): a warp of kernel 15, lanes coloured."""
    return MmaExplorer(**kw).widget


def pipeline(**kw):
    """Kernel 16's copy pipeline stepped: buffers, waits, barriers (:mod:`explainer.views.pipeline`)."""
    return PipelineExplorer(**kw).widget


def handover(**kw):
    """Kernel 17's stages and mbarriers stepped: who arrives, who waits, which stage is full
    (:mod:`explainer.views.handover`)."""
    return HandoverExplorer(**kw).widget


def precision_rows(Ks=(64, 1024, 8192), size: int = 96, seed: int = 0) -> list[dict]:
    """Relative error (Frobenius) against float64 of the float32 product (sums in k order, as a thread
    makes them) and of the product of the TF32-rounded inputs (float64 sums: what the tensor cores' rounding alone costs), on uniform
    inputs in [-1, 1), for M = N = ``size`` and each K; computed with numpy."""
    rng = np.random.default_rng(seed)
    out = []
    for K in Ks:
        A = rng.uniform(-1, 1, (size, K)).astype(np.float32)
        B = rng.uniform(-1, 1, (K, size)).astype(np.float32)
        exact = A.astype(np.float64) @ B.astype(np.float64)
        norm = np.linalg.norm(exact)
        # float32 sums in the order one thread adds them (k = 0 .. K-1, each product exact, each sum
        # rounded to float32), not numpy's A @ B: BLAS's order depends on the CPU and its threads,
        # and the page's figure must not
        acc = np.zeros((size, size), np.float32)
        A64, B64 = A.astype(np.float64), B.astype(np.float64)
        for k in range(K):
            acc = (acc + np.multiply.outer(A64[:, k], B64[k])).astype(np.float32)
        fp32 = acc.astype(np.float64)
        tf = mma.tf32(A).astype(np.float64) @ mma.tf32(B).astype(np.float64)
        out.append({"K": K, "fp32": float(np.linalg.norm(fp32 - exact) / norm),
                    "tf32": float(np.linalg.norm(tf - exact) / norm)})
    return out


def precision(Ks=(64, 1024, 8192), size: int = 96):
    """TF32 vs float32, computed on this machine with numpy (no GPU needed)."""
    rows = [(f"{size}×{size}×{r['K']}", f"{r['fp32']:.1e}", f"{r['tf32']:.1e}", f"{r['tf32'] / r['fp32']:.0f}×")
            for r in precision_rows(Ks, size)]
    return _html(table(
        (_("shape"), _("float32 product"), _("TF32-rounded inputs"), "TF32 / float32"), rows,
        _("Relative error ‖C − C₆₄‖ / ‖C₆₄‖ against float64 on uniform inputs in [−1, 1), computed just now with numpy "
          "(explainer.model.mma.tf32 rounds like cvt.rna.tf32.f32; on Hopper the kernels' cvt.rn breaks ties to even "
          "instead, a difference seen only at exact ties). TF32 keeps 10 of float32's 23 mantissa bits: each "
          "input is off by up to 2⁻¹¹ of itself, whatever K is, so the error stays near 10⁻⁴ while float32's grows "
          "slowly with K.")), "explainer-precision")


def check_on_gpu(M: int = 1000, N: int = 600, K: int = 777, kernel: str = mma.KERNEL.name):
    """``kernel`` (kernel 15 by default) on this GPU against numpy float64 (C poisoned with NaN
    first), or why not, in one line."""
    spec = gpu.KERNELS[kernel]
    who, cls = _("Kernel {n}", n=spec.file[:2]), "explainer-hopper-check" if spec.arch else "explainer-mma-check"
    needs = (_("a Hopper GPU (compute capability 9.0)") if spec.arch
             else _("an NVIDIA GPU of compute capability 8.0 or newer"))
    st = gpu.status()
    if not st.available:
        return _html(f'<div style="{NOTE}">'
                     + _("No GPU here ({why}): {who} runs in <code>tiled-explainer serve</code> on a machine with "
                         "{needs}. Everything above is computed without one.", why=html.escape(st.why),
                         who=_("kernel {n}", n=spec.file[:2]), needs=needs) + "</div>", cls)
    res = gpu.check(kernel, M, N, K, seed=1)
    if not isinstance(res, gpu.CheckResult):
        return _html(f'<div style="{NOTE}">' + _("{who} did not run: {why}", who=who, why=html.escape(str(res)))
                     + "</div>", cls)
    verdict = _("passed") if res.passed else _("FAILED")
    return _html(
        '<div style="font-size:14px">'
        + _("{who} on <b>{device}</b>, {M}×{N}×{K}: every element written: {written}; relative error against float64 "
            "{err} (TF32 tolerance {tol}): <b>{verdict}</b>.", who=who, device=html.escape(st.device or ""), M=M, N=N,
            K=K, written=res.all_written, err=f"{res.rel_error:.2e}", tol=f"{res.tol:.0e}", verdict=verdict)
        + "</div>", cls)


def hopper_rows(k: hopper.HopperKernel = hopper.KERNEL) -> list[tuple]:
    """Kernel 17's roles, stages and mbarriers, every figure from explainer.model.hopper."""
    src = (gpu.KERNELS_DIR / k.file).read_text().splitlines()
    code = [ln for ln in src if ln.strip() and not ln.strip().startswith("//")]
    return [
        (_("the file"), f"kernels/{k.file}", _("{n} lines, {code} of them code: the rest is its manual",
                                                 n=len(src), code=len(code))),
        (_("block"), _("{threads} threads = {groups} warpgroups of {size}", threads=k.threads, groups=1 + k.consumers,
                       size=hopper.WARPGROUP),
         _("one producer (one thread drives the TMA), {n} consumers", n=k.consumers)),
        (_("tile of C"), f"{k.BM} × {k.BN}", _("each consumer: {cols} columns, one wgmma m64n{BM}k8 per k-step on Cᵀ",
                                               cols=k.BN // k.consumers, BM=k.BM)),
        (_("a phase"), f"BK = {k.BK}", _("{steps} wgmma k-steps; A: one box {BK} × {BM}, B: {boxes} boxes {box} × {BK} "
                                        "(128-byte swizzle)", steps=k.BK // 8, BK=k.BK, BM=k.BM,
                                        boxes=k.BN // k.box_b, box=k.box_b)),
        (_("stages"), _("{n} × {bytes} bytes", n=k.stages, bytes=f"{k.stage_bytes:,}"),
         _("{bytes} bytes of shared memory with the alignment and the mbarriers", bytes=f"{k.shared_bytes:,}")),
        ("full[s]", _("1 arrival + the TMA's bytes"), _("the producer's arrive.expect_tx({bytes}); the phase completes "
                                                       "when every byte has landed", bytes=f"{k.stage_bytes:,}")),
        ("empty[s]", _("{n} arrivals", n=k.empty_arrivals), _("one per consumer warp, once wgmma has read the stage")),
    ]


def fragment_bank_rows(kern: mma.MmaKernel = mma.STAGED) -> list[tuple]:
    """Per fragment register of kernel 16 (one warp, k-step 0), with its padded rows and without:
    distinct words, banks touched, wavefronts (explainer.model.mma.fragment_banks)."""
    rows = []
    for which, pad, length in (("a", kern.PAD_A, kern.BK), ("b", kern.PAD_B, kern.BN)):
        name = "As" if which == "a" else "Bs"
        for p, what in ((pad, _("{name} rows of {length} + {pad} (the kernel)", name=name, length=length, pad=pad)),
                        (0, _("{name} rows of {length}, unpadded", name=name, length=length))):
            for fb in mma.fragment_banks(which, kern, p):
                rows.append((f"{which}{fb.reg}", what, len(set(fb.words)), len(set(fb.banks)),
                             _("{n}-way", n=fb.degree) if fb.degree > 1 else _("none")))
    return rows


def fragment_bank_table(kern: mma.MmaKernel = mma.STAGED):
    """Kernel 16's fragment loads and the banks they hit, as page 05's bank table."""
    plain_a, plain_b = (mma.fragment_banks(w, kern, pad=0)[0].degree for w in ("a", "b"))
    return _html(table((_("register"), _("layout"), _("distinct words"), _("banks"), _("conflict")),
                       fragment_bank_rows(kern),
                       _("One warp's load of each fragment register at k-step 0 (32 lanes, 4-byte words; word w in "
                         "bank w mod 32). Kernel 16 loads A's four registers with one ldmatrix.x4, which reads the same "
                         "words, 8 rows of 16 bytes at a time. Unpadded, rows of As {BK} floats long give "
                         "{plain_a}-way conflicts and rows of Bs {BN} floats long {plain_b}-way: the rows start in "
                         "the same banks. {pad_a} more floats per row of As ({pad_b} per row of Bs) shift each "
                         "row by {pad_a} ({pad_b}) banks, and the 32 lanes reach 32 banks. Computed by "
                         "explainer.model.mma.fragment_banks.", BK=kern.BK, BN=kern.BN, plain_a=plain_a,
                         plain_b=plain_b, pad_a=kern.PAD_A, pad_b=kern.PAD_B)),
                 "explainer-fragment-banks")


def swizzle_rows(k: hopper.HopperKernel = hopper.KERNEL, rows: int = 8) -> list[tuple]:
    """The first ``rows`` rows of a stage of As as the TMA writes them: per 16-byte chunk of the
    row (banks 4c .. 4c + 3), which columns k it holds (explainer.model.hopper.a_slots)."""
    _slots, kk = k.a_slots()
    out = []
    for r in range(rows):
        cells = []
        for chunk in range(hopper.SWIZZLE // 16):
            ks = kk[r * 32 + 4 * chunk: r * 32 + 4 * chunk + 4]
            text = f"k {ks[0]}–{ks[-1]}"
            cells.append(("html", f"<b>{text}</b>") if ks[0] == 0 else text)
        out.append((_("row {r}", r=r), *cells))
    return out


def swizzle_table():
    """Where the TMA's 128-byte swizzle puts the columns of A's tile (the first 8 rows)."""
    return _html(table(("", *(_("banks {a}–{b}", a=4 * c, b=4 * c + 3) for c in range(hopper.SWIZZLE // 16))),
                       swizzle_rows(),
                       _("A stage of As as the TMA leaves it: each row of the box is 128 bytes, all 32 banks, in 8 "
                         "chunks of 16; chunk c of row r holds columns 4(c XOR r mod 8) .. +3. The bold cells are "
                         "columns 0–3, what the 8 rows of one wgmma core matrix read together: 8 different groups of "
                         "banks, one shared-memory wavefront. Computed from explainer.model.hopper; the GPU test "
                         "compares it with what the kernel finds in shared memory.")), "explainer-swizzle-table")


def hopper_table():
    """Kernel 17 in numbers (from the model) and, on a Hopper GPU, checked live."""
    return _html(table(("", _("what"), _("why")), hopper_rows(),
                       _("Computed from explainer.model.hopper, the geometry kernels/17_wgmma_tma.cu is "
                         "checked against.")), "explainer-hopper-table")


def timing_rows(data: dict | None, sizes=(1024, 2048, 4096)) -> list[tuple]:
    """Per recorded square size: cuBLAS FP32, cuBLAS TF32 and the tensor-core kernels (ms,
    TFLOP/s, % of cuBLAS TF32 in the same run); rows of a recorded-timings file only."""
    if not data:
        return []
    out = []
    for n in sizes:
        rows = {r["kernel"]: r for r in recorded.recorded_rows(data, size=n)}
        tf = rows.get("cublas_tf32")
        if not tf:
            continue
        for name, label in (("cublas", "cuBLAS FP32"), ("cublas_tf32", "cuBLAS TF32"),
                            *((k, f"{gpu.KERNELS[k].file[:2]} · {k}") for k in gpu.TENSOR_KERNEL_NAMES)):
            r = rows.get(name)
            if r:
                out.append((f"{n}³", label, f"{r['median_ms']:.3f}", f"{r['gflops'] / 1e3:.1f}",
                            f"{100 * tf['median_ms'] / r['median_ms']:.1f}"))
    return out


def _none_recorded(what: str, command: str, cls: str):
    return _html(f'<div style="{NOTE}">' + _("No recorded {what} yet: <code>{command}</code> on a GPU records them.",
                                              what=what, command=command) + "</div>", cls)


def _recorded_on(data: dict) -> str:
    """A caption's start: the device, the day, the software versions and the file of a recording."""
    dev = data.get("device", {})
    versions = recorded.versions_text(dev)
    return (_("Recorded on {device} on {date}", device=dev.get('name', '?'), date=str(data.get('date', '?'))[:10])
            + (f" ({versions})" if versions else "") + _(", file {file}: ", file=data.get('source', '')))


def timings(sizes=(1024, 2048, 4096)):
    """Recorded times of the tensor-core kernels beside cuBLAS in TF32 and FP32 (same runs)."""
    data = recorded.load_recorded()
    rows = timing_rows(data, sizes)
    if not rows:
        return _none_recorded(_("timings of the tensor-core kernels"),
                              "tiled-explainer bench --kernels mma_tf32 mma_tf32_staged wgmma_tma --save",
                              "explainer-tensor-timings")
    return _html(table(
        (_("size"), _("what"), _("ms (median)"), "TFLOP/s", _("% of cuBLAS TF32")), rows,
        _recorded_on(data) + _("tiled-explainer bench, L2 flushed, same inputs and same run for every row of a size. "
                               "cuBLAS TF32 is cupy.matmul with the TF32 compute type; FP32 is the reference of every "
                               "other page.")),
        "explainer-tensor-timings")


def feeding_rows(data: dict | None) -> list[tuple]:
    """Rows of a ``benchmarks/mma_feed.py --save`` file: what the loop does, ms per 4096^3's work,
    TFLOP/s and % of cuBLAS TF32 (same run); kernel 16 itself last. Empty without a file."""
    if not data or not data.get("rows"):
        return []
    def row(r, label, weight="normal"):  # the label left-aligned, as text reads
        cell = ("html", f"<span style='display:block;text-align:left;font-weight:{weight}'>{html.escape(label)}</span>")
        return (cell, f"{r['median_ms']:.3f}", f"{r['tflops']:.0f}", f"{r['pct_cublas_tf32']:.1f}")

    rows = [row(r, ("· " if r.get("indent") else "") + _(r["what"])) for r in data["rows"]]
    k16 = data.get("kernel16")
    if k16:
        rows.append(row(k16, _(k16["what"]), "bold"))
    return rows


def feeding():
    """How fast mma.sync runs when its fragments come from shared memory (recorded on a GPU)."""
    data = recorded.load_feeding()
    rows = feeding_rows(data)
    if not rows:
        return _none_recorded(_("feeding measurements"), "python benchmarks/mma_feed.py --save explainer/data/recorded/",
                              "explainer-tensor-feeding")
    cub = data.get("cublas_tf32", {}).get("median_ms")
    return _html(table(
        (("html", "<span style='display:block;text-align:left'>" + _("what the warps do (8 per SM)") + "</span>"),
         "ms", "TFLOP/s", _("% of cuBLAS TF32")), rows,
        _recorded_on(data) + "benchmarks/mma_feed.py. "
        + _("Each row but the last is kernel 16's inner loop on shared memory filled once (no copies from "
            "global memory, no C stored), every launch doing the work of a 4096³ product; the last is kernel 16 "
            "itself at 4096³, checked against numpy float64 first. All timed alike (L2 flushed, median of "
            "{repeats}) in the same rounds as cuBLAS TF32", repeats=data.get('settings', {}).get('repeats', '?'))
        + (f" ({cub:.3f} ms)" if cub else "") + "."),
        "explainer-tensor-feeding")
