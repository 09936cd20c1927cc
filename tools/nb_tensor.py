"""Page 09 (tensor cores): read by tools/make_notebooks.py, which writes the notebook.

The page opens with the lesson (a warp-wide mma.sync on the tiles of page 02, one warp of it drawn,
and the recorded times beside cuBLAS); the rest (fragment tables, precision, kernel 16's pipeline and
what still separates it from cuBLAS, kernel 17 on Hopper) follows under "Going further", which opens
with the page's quiz (the lesson before it has room for no more cells: tests/test_folded_pages.py).
The prose is explainer/text/<lang>/09_tensor_cores.md (explainer/i18n/prose.py); its numbers are the
model's (explainer.model.mma, explainer.model.hopper), computed here as ``FIELDS`` and filled in when
tools/make_notebooks.py writes the notebook (tests/test_folded_pages.py checks it is up to date);
measured figures are the widgets' and the results files' the prose cites.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explainer.model import hopper, mma  # noqa: E402
from explainer.model.launch import padded_shape  # noqa: E402
from explainer.model.memory import BANK_WORD_BYTES, BANKS  # noqa: E402
from explainer.pages.tensor import precision_rows  # noqa: E402
from explainer.views.handover import K_DEFAULT as HANDOVER_K  # noqa: E402

K15, K16, K17 = mma.KERNEL, mma.STAGED, hopper.KERNEL
M16, N8, K8 = mma.MMA_M, mma.MMA_N, mma.MMA_K
INSTRUCTION = f"mma.sync.aligned.m{M16}n{N8}k{K8}.row.col.f32.tf32.tf32.f32"
LANE0_A = ", ".join(f"A[{r}][{c}]" for r, c in mma.fragment("a")[0])
FP32_BITS = np.finfo(np.float32).nmant
TF32_ULP = 2.0 ** -(mma.TF32_MANTISSA_BITS + 1)  # the largest rounding error, relative to the input
PRECISION = precision_rows()  # numpy, seeded: the same rows as the page's table
ALIGN = padded_shape(1, 1, 1)[2]  # floats: TMA rows start 16-byte aligned
SWIZZLE_ROWS = hopper.ALIGN // hopper.SWIZZLE  # the swizzle's pattern repeats every this many rows
CHUNK = hopper.SWIZZLE // SWIZZLE_ROWS  # bytes of one swizzled chunk
WGMMA_M = K17.BN // K17.consumers  # one consumer's columns of C: the M of its wgmma on C^T

SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def sci(x: float) -> str:
    """2.6e-04 -> 2.6·10⁻⁴."""
    mant, exp = f"{x:.1e}".split("e")
    return f"{mant}·10{str(int(exp)).translate(SUPERSCRIPT)}"


def _stated(holds: bool, what: str) -> None:
    """The prose states ``what`` as a fact of the model; when the model changes so that it no longer
    holds, writing the notebook stops here (edit the prose, in every language, then this check)."""
    if not holds:
        raise ValueError(f"page 09's prose says {what}, the model no longer does: "
                         "edit explainer/text/*/09_tensor_cores.md and tools/nb_tensor.py")


def bounds(values) -> tuple[str, str]:
    """The smallest and the largest of ``values``, as :func:`sci` writes them (the prose: "low to high")."""
    values = list(values)
    return sci(min(values)), sci(max(values))


TF32_ERROR = bounds(r['tf32'] for r in PRECISION)
FP32_ERROR = bounds(r['fp32'] for r in PRECISION)
_stated(TF32_ERROR[0] != TF32_ERROR[1] and FP32_ERROR[0] != FP32_ERROR[1],
        "the errors of the precision table span a range (x to y)")

#: The values the prose (explainer/text/<lang>/09_tensor_cores.md) names as ``{name}``: the model's,
#: formatted here for every language.
FIELDS = {
    "mma_instruction": INSTRUCTION,
    "mma_lanes": mma.WARP,
    "mma_m": M16,
    "mma_n": N8,
    "mma_k": K8,
    "k15_warps": K15.warps,
    "k15_wm": K15.WM,
    "k15_wn": K15.WN,
    "k15_miter": K15.miter,
    "k15_niter": K15.niter,
    "k15_mmas": K15.miter * K15.niter,
    "tf32_bits": mma.TF32_MANTISSA_BITS,
    "fp32_bits": FP32_BITS,
    "regs_a": mma.REGS['a'],
    "regs_b": mma.REGS['b'],
    "regs_c": mma.REGS['c'],
    "lane0_a": LANE0_A,
    "tf32_ulp_exponent": str(-(mma.TF32_MANTISSA_BITS + 1)).translate(SUPERSCRIPT),
    "tf32_ulp": sci(TF32_ULP),
    "tf32_error_low": TF32_ERROR[0],
    "tf32_error_high": TF32_ERROR[1],
    "fp32_error_low": FP32_ERROR[0],
    "fp32_error_high": FP32_ERROR[1],
    "k16_stages": K16.stages,
    "k16_ahead": K16.stages - 1,
    "k16_barriers": K16.barriers_per_phase,
    "k16_mmas": K16.miter * K16.niter,
    "banks": BANKS,
    "k17_consumers": K17.consumers,
    "warpgroup_threads": hopper.WARPGROUP,
    "wgmma_m": WGMMA_M,
    "k17_bm": K17.BM,
    "swizzle_bytes": hopper.SWIZZLE,
    "swizzle_chunk": CHUNK,
    "swizzle_rows": SWIZZLE_ROWS,
    "swizzle_chunk_banks": CHUNK // BANK_WORD_BYTES,
    "handover_phases": K17.phases(HANDOVER_K),
    "k17_stages": K17.stages,
    "tma_align": ALIGN,
    "tma_align_bytes": ALIGN * BANK_WORD_BYTES,
}

#: The page's cells are its prose files (tools/make_notebooks.py: prose_pages).
PAGES = {}
