"""Page 08 (beyond tiling): read by tools/make_notebooks.py, which writes the notebook.

The page opens with the lesson (the five rungs in one screen, the measured chart, then its quiz); the rest (each
rung in detail, the roofline, other GPUs, waves and split-K, the tuning engine's planner) follows under
"Going further" (tests/test_folded_pages.py).

The numbers in the prose are the model's (explainer.model.ladder.RUNGS, through explainer.views.ladder_maps):
they are filled in here when the notebook is written, so a change of a rung's parameters changes
the text (tests/test_ladder_page.py checks the stored notebook is up to date). Measured figures
never appear in the prose: the page's widgets show them, labelled with device and date.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explainer.model import ladder, roofline, waves  # noqa: E402
from explainer.model.launch import padded_shape  # noqa: E402
from explainer.pages.ladder import BASELINE_TILE, SIZES  # noqa: E402
from explainer.views.ladder_maps import (as_store_conflict, register_counts, rung_facts, shared_loads_per_k,  # noqa: E402
                                   warp_region)

R1, R2, RV, RD, RW = (ladder.rung(n) for n in ladder.NAMES)
F1, F2, FV, FD, FW = (rung_facts(r) for r in (R1, R2, RV, RD, RW))
L1, L2, LV, LW = (shared_loads_per_k(r) for r in (R1, R2, RV, RW))
T = BASELINE_TILE  # the tiled kernel the chart starts from
SIZES_TEXT = ", ".join(f"{n}³" for n in SIZES[:-1]) + f" and {SIZES[-1]}³"  # the chart's sizes
W = ladder.rung("warptile")
SMS = json.loads((Path(__file__).resolve().parent.parent / "explainer" / "data" / "arches.json").read_text())["hopper"]["sms"]


# Page 08's waves: kernel 14's tiles on the H100's SMs, one block an SM (explainer.model.waves)
V4096, V1024, V3000 = (waves.launch(n, n, n, W.BM, W.BN, SMS) for n in (4096, 1024, 3000))
S1024 = waves.best_split(1024, 1024, 1024, W.BM, W.BN, W.BK, SMS)
V1024S = waves.launch(1024, 1024, 1024, W.BM, W.BN, SMS, splits=S1024)
S_TAIL = SMS // V3000.tail  # the tail's slices that fill one wave
ROW_ALIGN = 4 * padded_shape(1, 1, 1)[2]  # bytes: a padded launch's rows start 16-byte aligned
TILED_I = roofline.intensity("tiled", 4096, 4096, 4096, T)
WD = RW.warp_dims
CW = as_store_conflict(RW)
CV = as_store_conflict(RV)
W2 = warp_region(R2, 0)
_dev = roofline.load_device_record()
RIDGE = roofline.device_roofs(_dev)["ridge"] if _dev else None
PAST_RIDGE = [r for r in ladder.RUNGS if RIDGE is not None and r.intensity() > RIDGE]


def fmt(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


PAGES = {
    "08_beyond_tiling.ipynb": [
        ("md", f"""# 8 · Beyond tiling: the ladder to cuBLAS

The course material stops at page 02's shared-memory tile. Its best, T = {T}, is still far from cuBLAS,
and DRAM is not why (page 07: its bound is {fmt(TILED_I)} FLOP/B × the bandwidth). **Shared memory** is:
every multiply-add reads both of its operands from `As` and `Bs`, two loads for one FMA.

Five kernels, `kernels/10_*.cu` … `kernels/14_*.cu`, climb from there to cuBLAS, one idea each and
the same trick every time, one level further down: **make each loaded value serve more multiply-adds**.

* **10 · 1D block tiling**: a thread computes {R1['TM']} outputs of a column, {fmt(R1.fma_per_lds)} FMAs per shared load;
* **11 · 2D block tiling**: a square of {R2['TM']}×{R2['TN']} outputs in registers, {fmt(R2.fma_per_lds)} FMAs per shared load;
* **12 · float4**: {4 * RV.vector}-byte loads, a quarter of the memory instructions, {fmt(RV.fma_per_lds)} FMAs per shared load;
* **13 · double buffering**: the next tile travels while this one is multiplied, {FD['barriers']} barrier per phase instead of {FV['barriers']};
* **14 · warp tiling**: each warp owns a compact region of C, {fmt(RW.fma_per_lds)} FMAs per shared load.

The chart measures every rung and cuBLAS in one run, at {SIZES_TEXT}; on a machine without a GPU it
shows the recorded run, with its device and date."""),
        ("code", "from explainer.pages import ladder\nladder.ladder_chart()"),
        ("md", "**Your turn: predict, then check.** Work each answer out before you press *Check*: a wrong answer "
         "gets the model's reason, and *Another one* draws new numbers."),
        ("code", 'pages.quiz("08_beyond_tiling")'),
        ("md", """## Going further

Optional: each rung in detail, what the shape of a launch does, and the project's tuning engine; the lesson above stands without them."""),
        ("md", """### The rungs in numbers

A block tile reuses what DRAM delivered across the threads of a block (page 02); a thread tile reuses
what a thread read from shared memory across its registers; a warp tile lets the lanes of a warp share
their reads. The rungs are correct for any M, N, K ≥ 1: when the block tile divides the matrices a fast
path runs without checks, otherwise a guarded one with padding zeros.

What each kernel is, computed from the parameters the GPU runs (`explainer/model/ladder.py`): the block
tile BM×BN and the depth BK of one shared-memory phase, the threads of a block, the outputs one
thread owns, and the two ratios that explain the chart: **multiply-adds per shared-memory load**
(the thread tile's reuse) and **FLOP per byte of DRAM traffic** (the block tile's reuse)."""),
        ("code", "ladder.rung_table()"),
        ("md", """### Who computes what: the mapping views

Pick a rung and a thread (type its `threadIdx.x`, or click a cell of the C tile). The big grid is
the block's BM×BN tile of C, the strip on its left the A window the block holds in `As` (BM×BK),
the strip above it the B window in `Bs` (BK×BN). Orange: the thread's outputs and what it reads at
step k (light orange: the other steps); blue: its warp; the blue frame is the warp's region of C
(dotted: the warp's sub-tiles on the warp-tiling rung). *Who copies what* colours the A and B
windows by the thread that copies them from global memory, in float4 groups from kernel 12 on.
On the right: the thread's registers at step k, and its copies with the As / Bs slots and banks
they land in. Hover a cell for its slot, bank and thread."""),
        ("code", "ladder.mapping()"),
        ("md", f"""### 10 · 1D block tiling: one thread, {R1['TM']} outputs

A block of (BM/TM)·BN = ({R1.BM}/{R1['TM']})·{R1.BN} = **{R1.threads} threads** computes a
{R1.BM}×{R1.BN} tile of C. Thread `tid` owns TM = {R1['TM']} outputs stacked in one column: rows
`(tid / {R1.BN})·{R1['TM']}` … `+{R1['TM'] - 1}`, column `tid % {R1.BN}`. A phase copies the
{R1.BM}×{R1.BK} window of A and the {R1.BK}×{R1.BN} window of B (BK = {R1.BK}); with
{R1.BM * R1.BK} elements each and {R1.threads} threads, every thread copies
{R1.BM * R1.BK // R1.threads} of each.

In the compute loop the thread reads **one** value `b = Bs[k·{R1.BN} + tcol]` per step k and uses it
for all {R1['TM']} of its outputs, against {R1['TM']} values of `As`: {L1['fmas']} FMAs for
{L1['lds']} shared loads, **{fmt(R1.fma_per_lds)} FMAs per load** instead of 0.5. The {R1.BM}×{R1.BN}
block tile also raises the DRAM intensity from T/4 = {fmt(TILED_I)} to {R1.BM}·{R1.BN} / (2·({R1.BM} + {R1.BN}))
= **{fmt(R1.intensity())} FLOP/B**. Shared memory: ({R1.BM}·{R1.BK} + {R1.BK}·{R1.BN})·4 =
{R1.shared_bytes:,} B per block."""),
        ("code", 'ladder.rung_card("blocktile_1d")'),
        ("md", f"""### 11 · 2D block tiling: {R2['TM']}×{R2['TN']} outputs per thread, in registers

Now a thread owns a TM×TN = {R2['TM']}×{R2['TN']} square: (BM/TM)·(BN/TN) = {R2.BM // R2['TM']}·{R2.BN // R2['TN']}
= **{R2.threads} threads** for a {R2.BM}×{R2.BN} block tile; thread (trow = `tid / {R2.BN // R2['TN']}`,
tcol = `tid % {R2.BN // R2['TN']}`) owns rows `trow·{R2['TM']}` … and columns `tcol·{R2['TN']}` … . Per step k it
copies {R2['TM']} values of a column of `As` into `regM` and {R2['TN']} values of a row of `Bs` into `regN`, then
forms their **outer product**: `acc[i][j] += regM[i] * regN[j]`, {L2['fmas']} FMAs for {L2['lds']} shared loads,
**{fmt(R2.fma_per_lds)} FMAs per load**. The accumulators stay in registers
({register_counts(R2)['total']} floats with regM and regN), which works only because every index into
`acc` is a compile-time constant (fully unrolled loops); otherwise they would spill to local memory.
The bigger block tile raises the DRAM intensity to **{fmt(R2.intensity())} FLOP/B**. Each thread
copies {R2.BM * R2.BK // R2.threads} elements of A and {R2.BK * R2.BN // R2.threads} of B per phase."""),
        ("code", 'ladder.rung_card("blocktile_2d")'),
        ("md", f"""### 12 · float4: a quarter of the memory instructions

Same tiles as kernel 11, but every access moves **16 bytes** (4 floats) in one instruction. The
{RV.BM}×{RV.BK} window of A is {RV.BM * RV.BK // 4} float4s along k, the {RV.BK}×{RV.BN} window of B
{RV.BK * RV.BN // 4} float4s along n: {RV.BM * RV.BK // 4 // RV.threads} + {RV.BK * RV.BN // 4 // RV.threads}
per thread and phase instead of {R2.BM * R2.BK // R2.threads} + {R2.BK * R2.BN // R2.threads}.

For the *shared* reads of A to be 16 bytes wide, a thread's {RV['TM']} values of one k must be
adjacent, and in kernel 11 they are {RV.BK} floats apart (`As[m·{RV.BK} + k]`). So `As` is stored
**transposed**, `As[k·{RV.lda} + m]`: the four values of a float4 of A (row m, k … k+3) go to four rows of
`As` (four scalar stores), and a thread's {RV['TM']} values at step k become two adjacent float4s. Per step k:
{LV['lds_a']} + {LV['lds_b']} LDS.128 for {LV['fmas']} FMAs, **{fmt(RV.fma_per_lds)} FMAs per shared load**.
A float4 needs a 16-byte-aligned address: the fast path has it when BM, BN, BK divide M, N, K; the
guarded path loads element by element. {f'''One cost remains: the {RV.BK // 4} lanes that copy one row of A
(k in steps of 4) store into one column of `As`, {4 * RV.lda} words apart, a multiple of 32 banks: a
**{CV}-way bank conflict** on every store into `As` (hover the A window to see the banks).''' if CV > 1 else
'''The stores into the transposed `As` are free of bank conflicts.'''}"""),
        ("code", 'ladder.rung_card("vectorized")'),
        ("md", f"""### 13 · Double buffering: load the next tile while computing this one

Kernels 10-12 run every phase as *load → barrier → compute → barrier*: while a block waits for
DRAM it computes nothing. Here `As` and `Bs` have **two buffers** each
({FD['shared_bytes']:,} B instead of {FV['shared_bytes']:,}). In phase t a thread first *issues* its
global loads of tile t+1 into registers (`ra`, `rb`: {register_counts(RD)['staging']} floats), multiplies
out tile t from buffer t % 2 while those loads travel, then writes the registers into buffer
(t+1) % 2. **One barrier per phase** is enough: buffer (t+1) % 2 was last read in phase t−1, which every
thread finished before the previous barrier (the write-after-read hazard of page 04's barrier 2 cannot
happen), and the barrier at the end of phase t makes the new tile visible before phase t+1 reads it."""),
        ("code", 'ladder.rung_card("double_buffered")'),
        ("md", f"""### 14 · Warp tiling: a compact region per warp

In kernels 11-13 a warp is 32 consecutive thread ids, which own a {W2['rows']}×{W2['cols']} strip of C, and
in kernels 12-13 neighbouring lanes read `Bs` float4s TN·4 = {4 * R2['TN']} bytes apart, not adjacent ones.
Kernel 14 adds a level between block and thread. The {RW.BM}×{RW.BN} block tile is cut into
({RW.BM // WD['WM']}×{RW.BN // WD['WN']}) **warp tiles** of WM×WN = {WD['WM']}×{WD['WN']}, one per warp
({RW.threads} threads = {RW.threads // 32} warps); each warp tile into WMITER×WNITER = {WD['WMITER']}×{WD['WNITER']}
sub-tiles of {WD['WSUBM']}×{WD['WSUBN']}; in every sub-tile the 32 lanes form a
{WD['WSUBM'] // RW['TM']}×{WD['WSUBN'] // RW['TN']} grid of TM×TN = {RW['TM']}×{RW['TN']} micro-tiles
(lane → row `lane / {WD['WSUBN'] // RW['TN']}`, column `lane % {WD['WSUBN'] // RW['TN']}`). A thread owns
{WD['WMITER']}×{WD['WNITER']} micro-tiles, {WD['WSUBM']} rows and {WD['WSUBN']} columns apart:
{RW.thread_tile[0]}×{RW.thread_tile[1]} = **{RW.outputs_per_thread} outputs**.

Per step k: {LW['lds_a']} + {LW['lds_b']} LDS.128 for {LW['fmas']} FMAs, **{fmt(RW.fma_per_lds)} FMAs per shared
load**; the {WD['WSUBN'] // RW['TN']} lanes of a row read adjacent float4s of `Bs` and lanes of other rows
read the same ones (a broadcast). `As` rows are padded to BM + PAD = {RW.lda} floats, so the stores of
lanes copying the same row of A land in different banks ({'no conflict' if CW == 1 else f'still a {CW}-way conflict'}). The parameters
(a {RW.BM}×{RW.BN} block tile, {FW['intensity']:.1f} FLOP/B; {FW['shared_bytes']:,} B of shared memory)
were tuned on the H100 by `benchmarks/tune_ladder.py`."""),
        ("code", 'ladder.rung_card("warptile")'),
        ("md", f"""### The ladder on the roofline

Page 07's roofline, with the ladder's kernels added as squares at their block-tile intensity
BM·BN / (2·(BM + BN)): a block loads its A and B windows once per phase. {f'''On the recorded
device the ridge point is {RIDGE:.1f} FLOP/B, and {', '.join(r.file.split('_')[0] for r in PAST_RIDGE)} lie
past it: their DRAM bound is the FP32 peak itself.''' if PAST_RIDGE else ''} What separates rungs of equal intensity is how
many instructions the SM spends per multiply-add (shared loads, address arithmetic, barriers) and how
well the latency of the loads is hidden."""),
        ("code", "ladder.roofline()"),
        ("md", """### The same kernels on another GPU

The SM count and the ladder's timings belong to one device. Below, the ladder as
recorded on every GPU the project has a recording of, side by side: each device's facts come
from its own file, and each percentage is against that device's cuBLAS in the same run. Compare
how much each rung moves: a kernel limited by its arithmetic follows the SMs and their clock, a
kernel limited by memory follows the memory."""),
        ("code", "ladder.devices()"),
        ("md", f"""### Why shape matters: waves, tails and split-K

The last rung is not the fastest at every size. Its {W.BM}×{W.BN} block tile makes ⌈M/{W.BM}⌉·⌈N/{W.BN}⌉
blocks, and the GPU runs them in **waves**: as many at once as its SMs hold, then the next ones.
A launch lasts as long as its busiest SM. Say an SM holds one of these blocks at a time (their
registers decide: kernel 14's rung card above shows what the GPU reports), on the {SMS} SMs of an H100:

* at 4096³: {V4096.blocks} blocks, **{V4096.rounds} waves**, the last one {V4096.tail} blocks: {V4096.busy:.0%} of the SMs' time does work;
* at 1024³: {V1024.blocks} blocks, **one wave**, and {V1024.idle_sms} SMs have nothing to do: {V1024.busy:.0%};
* at 3000³: {V3000.blocks} blocks, {V3000.rounds - 1} full waves and a **tail** of {V3000.tail} blocks that runs while
  {SMS - V3000.tail} SMs wait: {V3000.busy:.0%}.

Three ways out, counted by the same model (`explainer/model/waves.py`: blocks and waves only):

* **smaller tiles** make more blocks: a library keeps several tile shapes and picks one per shape;
* **split K**, where C has few tiles but K is long: S blocks share one tile of C, each summing K/S of the
  products, and then the S partial tiles are added. At 1024³ with K split in {S1024}: {V1024S.blocks} blocks of
  1/{S1024} of K each, {V1024S.busy:.0%} of the SMs' time, {V1024.time / V1024S.time:.0f}× shorter in this count. The price is the adding:
  {S1024} partial copies of C written and read back, {waves.split_traffic_bytes(1024, 1024, S1024) / 2**20:.0f} MiB at 1024³, and a second step after the products;
* **split the tail** alone: at 3000³ the {V3000.tail} tiles of the last wave cut in {S_TAIL} make {V3000.tail * S_TAIL} short
  blocks, and the launch takes {V3000.rounds - 1} waves and 1/{S_TAIL} of one instead of {V3000.rounds}.

Whether a split pays, once its adding and the blocks' real lengths are counted, is a measurement."""),
        ("md", f"""### The tuning engine

The project's **tuning engine** measures whether a split pays. It is optional and apart from the lesson
(`kernels/tuned/`, `explainer/tuning/`; docs/tuning.md): a tuned kernel 14 with many tile shapes,
split-K (with a separate kernel for the adding where the slices are many), the split tail, rows
padded to {ROW_ALIGN} bytes, and edge blocks that move back inside C; and a planner that picks a launch per
shape from a model of the waves above and this device's measured tables.

For the shape you type, the panel shows each tile shape at its best split: its blocks on the SMs (one
square per SM), the model's time, the tuning table's estimate and the recorded measurement where there
is one. Try 1024³, 2048³, 4096³, 3000³, 4189³, a skinny 4096×64×4096 and a deep 1000×1000×8000. On a
GPU, `tiled-explainer bench --kernels planned` measures the planner's few best launches at the very
shape and runs the fastest, as a library's autotuner does."""),
        ("code", "ladder.planner()"),
    ],
}
