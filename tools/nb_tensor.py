"""Page 09 (tensor cores): read by tools/make_notebooks.py, which writes the notebook.

The page opens with the lesson (a warp-wide mma.sync on the tiles of page 02, one warp of it drawn,
and the recorded times beside cuBLAS); the rest (fragment tables, precision, kernel 16's pipeline and
what still separates it from cuBLAS, kernel 17 on Hopper) follows under "Going further", which opens
with the page's quiz (the lesson before it has room for no more cells: tests/test_folded_pages.py).
The numbers in the prose are the model's (explainer.model.mma, explainer.model.hopper), filled in here
when the notebook is written (tests/test_folded_pages.py checks the stored notebook is up to date);
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


def span(values) -> str:
    values = list(values)
    lo, hi = min(values), max(values)
    return sci(lo) if f"{lo:.1e}" == f"{hi:.1e}" else f"{sci(lo)} to {sci(hi)}"


PAGES = {
    "09_tensor_cores.ipynb": [
        ("md", f"""# 9 · Tensor cores: the same tiles and barriers, one level down

Kernels 01-14 do every multiply-add on the CUDA cores, one `fma` per thread. A **tensor core** does a
whole small matrix product at once, and it is driven by a **warp**, not a thread: one
`{INSTRUCTION}` makes the {mma.WARP} lanes of a warp multiply
A's {M16}×{K8} tile by B's {K8}×{N8} tile and add the product to C's {M16}×{N8} tile. No lane holds a whole
row of A or column of B: each holds a **fragment**, a few registers at places the PTX ISA fixes.

Kernel 15 (`kernels/15_mma_tf32.cu`) keeps everything page 02 taught: the block copies a tile of A
and a tile of B into `As` and `Bs`, `__syncthreads()`, computes, `__syncthreads()` again, next phase.
Only the compute changes: each of the block's {K15.warps} warps owns a {K15.WM}×{K15.WN} tile of C, and per k-step of {K8} it
issues {K15.miter}×{K15.niter} = {K15.miter * K15.niter} `mma.sync`. Below, one warp: every element of the slabs of A (left) and B (top)
that one k-step multiplies, and of the warp's tile of C, coloured by the lane whose register holds it. Click any
element to pin its lane (a click on C also names its owner: lane, register and which of the
{K15.miter * K15.niter} m16n8 tiles); step with ◀ ▶ or the ← → keys: the same lanes hold the same *places* at every
k-step, but new elements of A and B."""),
        ("code", "from explainer.pages import tensor\ntensor.fragments()"),
        ("md", f"""## Measured: the tensor cores beside cuBLAS

Kernel 16 (`kernels/16_mma_tf32_staged.cu`) feeds the same `mma.sync` with copies that travel while the
tensor cores work; kernel 17 (`kernels/17_wgmma_tma.cu`) uses Hopper's copy engine and `wgmma`. Below, the
times recorded by `tiled-explainer bench` on a GPU: the tensor-core kernels beside cuBLAS in TF32 (the
fair comparison: same inputs, same rounding) and in FP32 (what every other page compares with). The
price of the speed: the inputs are rounded to TF32, {mma.TF32_MANTISSA_BITS} mantissa bits instead of {FP32_BITS}."""),
        ("code", "tensor.timings()"),
        ("md", """## Going further

Optional: the fragment tables, TF32's precision, the run on this GPU, kernel 16's pipeline and what still separates it from cuBLAS, and kernel 17 on Hopper."""),
        ("md", "**Your turn: predict, then check.** Work each answer out before you press *Check*: a wrong answer "
         "gets the model's reason, and *Another one* draws new numbers."),
        ("code", 'pages.quiz("09_tensor_cores")'),
        ("md", f"""### Who holds what: fragments

No lane holds a whole row of A or a whole column of B. Each lane holds a **fragment**: {mma.REGS['a']}
registers of A, {mma.REGS['b']} of B and {mma.REGS['c']} of C, at places the PTX ISA fixes. With `g = lane / 4` and
`t = lane % 4`, lane 0 holds {LANE0_A}. The explorer above names each register as kernel 15 does:
`a[mi][i]` is register a*i* of the table below for m16 tile `mi`, `b[ni][i]` register b*i* for n8 tile `ni`,
`acc[mi][ni][i]` register c*i* for m16n8 tile (`mi`, `ni`)."""),
        ("code", "tensor.fragment_table()"),
        ("md", f"""### Precision: what TF32 gives up

The tensor cores read float32 inputs as **TF32**: {mma.TF32_MANTISSA_BITS} mantissa bits instead of {FP32_BITS} (a `cvt` rounds
each one to nearest: `cvt.rna.tf32.f32`, ties away from zero, on compute capability 8.x; on Hopper
`cvt.rn`, ties to even like cuBLAS, one instruction instead of three). The products and sums stay
float32. So each input is off by up to 2{str(-(mma.TF32_MANTISSA_BITS + 1)).translate(SUPERSCRIPT)} ≈ {sci(TF32_ULP)} of itself, and the
result in the table below by {span(r['tf32'] for r in PRECISION)} relative, whatever K is, against
{span(r['fp32'] for r in PRECISION)} for float32. Fine for training a network, not for every scientific code;
cuBLAS uses TF32 only when asked (`CUPY_TF32=1`)."""),
        ("code", "tensor.precision()"),
        ("md", """### On the GPU

With an NVIDIA GPU of compute capability 8.0 or newer, kernel 15 runs here against numpy float64
(C filled with NaN first, so an element nobody writes shows). Its tests also check, element by
element, that every lane's registers hold what the fragment tables above say: the kernel's own
trace build records it."""),
        ("code", "tensor.check_on_gpu()"),
        ("md", f"""### Kernel 16: copies that travel while the tensor cores work

In kernel 15 each thread loads its elements into registers, stores them into `As` / `Bs`, waits at a
barrier and only then do the warps multiply: the tensor cores idle while a phase's tiles arrive.
Kernel 16 (`kernels/16_mma_tf32_staged.cu`) copies global → shared with **`cp.async`**: the thread
issues the copies and goes on; `cp.async.commit_group` closes a group, `cp.async.wait_group N` waits
until at most N of its groups are still in flight. With {K16.stages} buffers, the copy of phase t + {K16.stages - 1}
travels while the warps multiply phase t, and {K16.barriers_per_phase} `__syncthreads()` per phase is enough. The
registers are staged too: while the `mma.sync` of one k-step run, the warp already loads the
fragments of the next (A's {mma.REGS['a']} registers of an m16 tile in one `ldmatrix.x4`), and the phase's
barrier sits before its last k-step, so that the next phase's first fragments are loaded while that
k-step computes. Step through it: which buffer holds which phase, and what each wait and barrier
guarantees."""),
        ("code", "tensor.pipeline()"),
        ("md", """Each buffer's rows are padded so that a warp's fragment loads are conflict-free: the same bank table as
page 05, for the registers an `mma.sync` reads."""),
        ("code", "tensor.fragment_bank_table()"),
        ("md", f"""### Why kernel 16 is still short of cuBLAS

The first kernel 16 loaded each fragment lane by lane after the barrier and multiplied only when all had
arrived; loading the next k-step's fragments during this one's `mma.sync`, A's with `ldmatrix`, made it
about 1.6 times faster (`benchmarks/results/k16_rewrite_2026-11-24.md`). The table below takes what is
left apart, on the GPU (`benchmarks/mma_feed.py`). Its first row is kernel 16's inner loop alone: every
warp loads its fragments from shared memory, rounds each element with its own `cvt`, meets the others at
the barrier and runs its {K16.miter * K16.niter} `mma.sync` per k-step, exactly as in the kernel; but shared memory is
filled once, and nothing is copied in from global memory or stored to C. The rows under it change one
thing at a time. The row before the last gives the tensor cores nothing to wait for at all: their
fragments stay in registers. The last row is the whole kernel 16, timed in the same rounds."""),
        ("code", "tensor.feeding()"),
        ("md", """Read it from the bottom up. The tensor cores alone, fed from registers, already stay below cuBLAS
TF32: on Hopper `mma.sync` is not the instruction that runs them at full rate. Loading the fragments
from shared memory and rounding each one costs more, and no way of feeding them that rounds as cuBLAS
does gets far past the first row, even with nothing copied from global memory. The copies from global
memory and the stores of C cost the rest: the gap between the first row and the last. Hopper answers
all of it at once: the copy engine moves whole tiles, and `wgmma` reads its operand straight from
shared memory.

Nor is it this kernel alone. NVIDIA's own `mma.sync` GEMM (CUTLASS's sm80 kernel for TF32: the same
staged `cp.async` copies, `ldmatrix` and m16n8k8 `mma.sync`) was measured on the same H100 in 15
configurations (`benchmarks/cutlass_tf32/`). It reached 44-57% of cuBLAS TF32 at 4096³ and at
most 61% at 8192³. With kernel 16's tiles it came within 1.5 points of kernel 16
(`benchmarks/results/k16_rewrite_2026-11-24.md`). cuBLAS in TF32 runs `wgmma` on Hopper,
the instruction of kernel 17 below."""),
        ("md", f"""### Kernel 17: Hopper's copy engine, mbarriers and `wgmma`

`kernels/17_wgmma_tma.cu` splits the block by **role**. One thread of a *producer* warpgroup asks the
**tensor memory accelerator** (TMA, `cp.async.bulk.tensor`) for whole tiles: a box of A and boxes of B,
zero-filled outside the matrix, landing in shared memory already swizzled so that reads hit all
{BANKS} banks. The {K17.consumers} *consumer* warpgroups multiply with **`wgmma`**: {hopper.WARPGROUP} threads issue one
product of {WGMMA_M} × {K17.BM} × {K8} whose shared operand the tensor cores read straight from shared memory.

The PMPP chapter 5 notes' two `__syncthreads()` become two **mbarriers per stage**, and nobody waits for anyone who is not
their partner:

* `full[s]` completes when the producer has arrived (`mbarrier.arrive.expect_tx`, announcing the bytes)
  **and** every announced byte has landed: the copy engine counts them in. Consumers wait on it.
* `empty[s]` completes when every consumer warp has arrived after `wgmma` finished reading the stage.
  The producer waits on it before it refills the stage.

A waiting thread asks for a **phase**: each barrier's phase bit flips whenever it completes, so the
consumer of phase *p* waits for parity ⌊p / stages⌋ mod 2 of `full[p mod stages]`.

TF32 `wgmma` reads its shared operand only with k contiguous. A's rows are, B's are not, so the kernel
computes Cᵀ = Bᵀ Aᵀ: A's tile is the shared operand, B's tile is read into registers with the same
fragment table as `mma.sync` above. And the tensor maps tell the TMA the elements are TF32, so the copy
rounds each float (to nearest, ties to even) on its way in."""),
        ("code", "tensor.hopper_table()"),
        ("md", f"""The TMA writes each {hopper.SWIZZLE}-byte row of a box **swizzled**: the {CHUNK}-byte chunks of row *r* are permuted by
XOR with *r* mod {SWIZZLE_ROWS}. Without it, the {SWIZZLE_ROWS} rows that one `wgmma` core matrix reads (the same columns of
{SWIZZLE_ROWS} consecutive rows, {hopper.SWIZZLE} bytes apart) would all fall in the same {CHUNK // BANK_WORD_BYTES} banks: an
{SWIZZLE_ROWS}-way conflict (banks: page 05). With it they fall in {SWIZZLE_ROWS} different groups:"""),
        ("code", "tensor.swizzle_table()"),
        ("md", f"""#### The hand-over, step by step

One block over {K17.phases(HANDOVER_K)} phases with its {K17.stages} stages: the producer runs ahead until every stage is taken and
then **waits on `empty`**; the consumers **wait on `full`** until the copy engine has delivered every
byte. Each step shows which role acted, on which line of the kernel, the state of every stage and both
mbarriers of every stage (their phase bit, arrivals and bytes still to land)."""),
        ("code", "tensor.handover()"),
        ("code", 'tensor.check_on_gpu(kernel="wgmma_tma")'),
        ("md", f"""Kernel 17 needs a Hopper GPU (H100, H200) and K and N multiples of {ALIGN} (the TMA reads rows that start
{ALIGN * BANK_WORD_BYTES} bytes apart); elsewhere it is refused in one line and kernel 16 runs. Its measured times are in the
table at the top of the page, next to cuBLAS TF32 in the same run (`benchmarks/results/hopper_2026-11-24.md` has each
change, its prediction and its outcome)."""),
    ],
}
