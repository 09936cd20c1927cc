"""Page 08 (beyond tiling): read by tools/make_notebooks.py, which writes the notebook.

The numbers in the prose are the model's (explainer.model.ladder.RUNGS, through explainer.views.ladder_maps):
they are filled in here when the notebook is written, so a change of a rung's parameters changes
the text (tests/test_ladder_page.py checks the stored notebook is up to date). Measured figures
never appear in the prose: the page's widgets show them, labelled with device and date.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explainer.model import ladder, planner, roofline  # noqa: E402
from explainer.views.ladder_maps import (as_store_conflict, register_counts, rung_facts, shared_loads_per_k,  # noqa: E402
                                   warp_region)

R1, R2, RV, RD, RW = (ladder.rung(n) for n in ladder.NAMES)
F1, F2, FV, FD, FW = (rung_facts(r) for r in (R1, R2, RV, RD, RW))
L1, L2, LV, LW = (shared_loads_per_k(r) for r in (R1, R2, RV, RW))
T = 32  # the tiled kernel the chart starts from (ladder.BASELINE_TILE)
W = ladder.rung("warptile")
LONG = max(ladder.RUNGS + ladder.CONFIGS, key=lambda r: (r.splits_k, r.phase_fma))  # kernel 14's longest K loop
SMS = json.loads((Path(__file__).resolve().parent.parent / "explainer" / "data" / "arches.json").read_text())["hopper"]["sms"]


def _blocks(r, n: int) -> int:
    gx, gy = r.grid(n, n)
    return gx * gy


def _tiles(r, m: int, n: int) -> int:
    gx, gy = r.grid(m, n)
    return gx * gy


_B64 = ladder.rung("warptile_64x64_bk16")  # the deep-K example's tiles
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

The course material stops at the shared-memory tile of page 02. Its best tile, T = {T}, is still far from
cuBLAS (the chart below measures how far). Page 07 said why it is not DRAM: at T = {T} its bound is
{fmt(TILED_I)} FLOP/B × the bandwidth, well above what it reaches. What limits it is **shared memory**:
every multiply-add reads *both* operands from `As` and `Bs`, two load instructions per FMA.

The five kernels `kernels/10_*.cu` … `kernels/14_*.cu` climb from there to cuBLAS, one idea per rung.
Every rung is the same trick, applied again one level down: **make each loaded value serve more
multiply-adds**. A block tile reuses what DRAM delivered across the threads of a block (page 02);
a thread tile reuses what a thread read from shared memory across its registers; a warp tile lets
the lanes of a warp share their reads. The rungs are correct for any M, N, K ≥ 1: when the block
tile divides the matrices a fast path runs without checks, otherwise a guarded one with padding zeros.

The chart measures every rung and cuBLAS in one run, at 1024³, 2048³ and 4096³; on a machine
without a GPU it shows the recorded run, with its device and date."""),
        ("code", "from explainer.pages import ladder\nladder.ladder_chart()"),
        ("md", """## The rungs in numbers

What each kernel is, computed from the parameters the GPU runs (`explainer/model/ladder.py`): the block
tile BM×BN and the depth BK of one shared-memory phase, the threads of a block, the outputs one
thread owns, and the two ratios that explain the chart: **multiply-adds per shared-memory load**
(the thread tile's reuse) and **FLOP per byte of DRAM traffic** (the block tile's reuse)."""),
        ("code", "ladder.rung_table()"),
        ("md", """## Who computes what: the mapping views

Pick a rung and a thread (type its `threadIdx.x`, or click a cell of the C tile). The big grid is
the block's BM×BN tile of C, the strip on its left the A window the block holds in `As` (BM×BK),
the strip above it the B window in `Bs` (BK×BN). Orange: the thread's outputs and what it reads at
step k (light orange: the other steps); blue: its warp; the blue frame is the warp's region of C
(dotted: the warp's sub-tiles on the warp-tiling rung). *Who copies what* colours the A and B
windows by the thread that copies them from global memory, in float4 groups from kernel 12 on.
On the right: the thread's registers at step k, and its copies with the As / Bs slots and banks
they land in. Hover a cell for its slot, bank and thread."""),
        ("code", "ladder.mapping()"),
        ("md", f"""## Why shape matters: how a library picks a kernel

The last rung is not the fastest at every size. A block tile of BM×BN makes ⌈M/BM⌉·⌈N/BN⌉
blocks, and a launch lasts as long as the SM that gets the most of them. Warp tiling's
{W.BM}×{W.BN} tiles make {_blocks(W, 4096):,} blocks at 4096³ (about {_blocks(W, 4096) / SMS:.1f} per SM on the
{SMS} SMs of an H100) but only {_blocks(W, 1024)} at 1024³: {SMS - _blocks(W, 1024)} SMs have nothing to do. cuBLAS
avoids that by choosing a configuration per shape, and so does this planner: it weighs the {len(ladder.RUNGS)}
rungs and {len(ladder.CONFIGS)} other configurations of the warp-tiled kernel for the shape you type.

Where C has few tiles but K is long it can also **split K** (split-K): S blocks share one tile of
C, each summing K/S of the products, and the last of them to finish adds the S partial tiles.
Warptile at 1024³ with K split in 4 makes {4 * _blocks(W, 1024)} blocks instead of {_blocks(W, 1024)}.
That last step is done by one block per tile while the others are finished: at 128×128×65536, the
{_B64.BM}×{_B64.BN} tiles are {_tiles(_B64, 128, 128)}, and split in {planner.MAX_SPLITS_REDUCE} their last blocks would each read {planner.MAX_SPLITS_REDUCE}
partial tiles alone. A library hands the sums to a second kernel instead (`+reduce`; cuBLAS's
*splitKreduce*): every SM reads its share of the S partial copies of C ({planner.MAX_SPLITS_REDUCE * 128 * 128 * 4 / 2**20:.0f} MiB here), so
K can be cut further (up to {planner.MAX_SPLITS_REDUCE} slices) and the {planner.MAX_SPLITS_REDUCE * _tiles(_B64, 128, 128)} blocks keep every SM busy.

Where the tiles fill the SMs a few times and leave a last, partial round, only that round is cut
(the **split tail**): at 3000³ warptile's {_blocks(W, 3000)} tiles are {_blocks(W, 3000) // SMS} rounds of {SMS} and {_blocks(W, 3000) % SMS}
more, which would run a round of their own on {_blocks(W, 3000) % SMS} SMs while {SMS - _blocks(W, 3000) % SMS} wait. Split in {SMS // (_blocks(W, 3000) % SMS)}
along K, those {_blocks(W, 3000) % SMS} tiles become {(SMS // (_blocks(W, 3000) % SMS)) * (_blocks(W, 3000) % SMS)} short blocks: the busiest SM runs {_blocks(W, 3000) // SMS} whole blocks and
one slice instead of {-(-_blocks(W, 3000) // SMS)} whole blocks (`warptile@{_blocks(W, 3000) % SMS}x{SMS // (_blocks(W, 3000) % SMS)}` in `tiled-explainer bench`).
Each split tile's slices are then added by its last block, alone: it reads {SMS // (_blocks(W, 3000) % SMS)} partial tiles of
{W.BM}×{W.BN} floats, which the planner counts as {planner.tile_fixup_ms(W, SMS // (_blocks(W, 3000) % SMS)) * 1000:.0f} µs, and twice that for twice the slices:
cutting a tail finer shortens its slices but lengthens this last step.

Where K or N is not a multiple of 4, the rows of A or B do not start on 16-byte boundaries and
kernel 14 copies them into shared memory element by element: four loads, and their addresses,
where a float4 would do. A library can instead copy the matrix with unaligned rows (A where K,
B where N is not a multiple of 4) once into a buffer whose rows are padded with zeros to a
multiple of 4 floats, tell the kernel how far apart its rows now lie (`lda`, `ldb`), and run the
fast copies there (`+pad`). The product is the same M×N×K one, and C is stored in place. A's
copy starts each row with a few zeros (K's lead modulo 4, see below), so that the granules of every phase still
start on 16-byte boundaries. The copies read and write those matrices once more: at 4189³
the model charges {planner.pad_ms(4189, 4189, 4189):.2f} ms for them, little against a product of several ms; at
1023³ {planner.pad_ms(1023, 1023, 1023):.3f} ms, against a product of under 0.1 ms: there they can cost more than they save.

*Where* the kernel chooses between the two copies matters as much as the copies. Asked inside the
unrolled k loop ("are A's rows aligned? B's?"), each copy is a branch that cuts the loop into pieces,
and the compiler can no longer slide the next phase's loads in between this phase's multiply-adds.
So kernel 14 decides once, before the loop: each combination (A, B, or both copied element by
element) is a body of its own, compiled separately, and the block picks the body by `lda` and
`ldb`; the split-K entry points have one body, which copies both matrices element by element
whichever is unaligned. For the same reason the edge tests are made once per block (inside C or at
its edge), not per element.

Bodies take room of their own. Each is the k loop unrolled over a whole phase: BK × (outputs a thread)
multiply-adds in a row, {LONG.phase_fma:,} for `{LONG.name}`. Two loops that long do not fit an SM's
instruction cache together, and a block at C's edge that ran a slower, checked body would set the
time of a launch whose blocks all run in one round. So every block of a launch runs the same body.
Where the tiles do not divide C but C is at least one tile tall and wide, a block whose tile would
cross C's last row or column **moves back** until its tile ends there: it copies as an inner block
does, with no check, computes again the rows and columns it shares with the tile before it, and
stores only its own outputs. At M = 1000 and BM = {W.BM}, the last row of tiles starts at row
{1000 - W.BM} instead of {1000 // W.BM * W.BM} and computes rows {1000 - W.BM} … {1000 // W.BM * W.BM - 1} a second time.

Between 4-byte and 16-byte copies there is a third: where K and N are even (but not both multiples
of 4), every row of A and B starts on an 8-byte boundary, and so does every even column. There
kernel 14 copies **pairs** of elements (8-byte loads, and B's pairs written to shared memory as one
8-byte store): half the instructions of the element copy. Which copy a launch gets is decided by
its shape before anything runs: K = {W.BK * 100 + 2} and N = 1002 take pairs, K = {W.BK * 100 + 1} or N = 1001
single elements.

Rows that are not aligned cost at the other end too: a thread's {RW.p["TN"]} outputs in a row of C can no
longer leave as one float4. Stored one by one, one store instruction of a warp of kernel 14 writes 4
bytes in every {4 * RW.p["TN"]} of {WD["WSUBM"] // RW.p["TM"]} rows: {ladder.warp_store_sectors(RW, False)} sectors of 32 bytes for 128 bytes of C.
So the warp passes each row segment through shared memory (As is free after the loop's last
barrier): the lanes write their outputs in lane order, read them back along the rows, and each
store writes 32 consecutive floats, {ladder.warp_store_sectors(RW, True)} sectors. The block's outputs are the same; only
which lane stores which changes.

Two more habits of libraries keep sizes that no tile divides from costing much. K's partial phase is
copied **first**: phase t covers columns t·BK − lead … (t+1)·BK − lead − 1, the lead's zeros stand
before column 0 (at K = 1100 and BK = {W.BK}: {W.phases(1100)} phases, lead = {W.lead(1100)}), so only the copy
before the loop checks K and the loop's copies never do. And where C is narrower than a tile (fewer
rows than BM or columns than BN) there is no whole tile to move back to: a block at C's edge copies
as an inner one does (float4s on aligned rows, elements on the others), from rows of A and columns
of B **clamped** into the matrix: A's last row stands in for the rows past M, and only outputs
outside C read it, which are never stored. Each kernel is built three times for such sizes (aligned rows,
even rows or neither), so that a launch carries only the copy loops its blocks run.

For each kernel, at its best split: its blocks on the SMs (one square per SM); a time from the
model (blocks on the busiest SM × the kernel's SM time per block, measured once with every SM
busy, plus the split's extra traffic); a time from this device's tuning table
(`tiled-explainer tune`: the kernel measured at the nearest tuned shape, scaled by the model from
a split there that ran the same build of the kernel: on unaligned rows one with registers for a
block fewer per SM where that costs no round);
and the recorded measurement where there is one. Try 1024³, 2048³, 4096³, 3000³, 4189³, a skinny
4096×64×4096 and a deep 1000×1000×8000.

Those estimates come from shapes up to a grid step away, where the edge blocks, the rounds of
the SMs and the best split are not the same. So on a GPU `tiled-explainer bench --kernels planned`
first measures the planner's **shortlist** at the very shape: its choice and every launch it
estimates within {planner.SHORTLIST_WITHIN:.0%} of it (at most {planner.SHORTLIST_TOP}: the {planner.SHORTLIST_LEAD} closest, then each kernel's best launch before
another launch of a kernel already listed; up to {planner.SHORTLIST_REDUCE} more with a separate reduction, chosen the same way; where rows are unaligned, its {planner.SHORTLIST_PADDED} best padded launches too, and where its choice is padded the window is
counted from its best launch without padding; and for up to {planner.SHORTLIST_FILL} kernels split along K, the best launch whose
blocks fill every SM in one round, since the model cannot see that 2 blocks an SM run slower than 3
with the same work; and for up to {planner.SHORTLIST_TAIL_WHOLES} kernels with a split tail on the list, their whole
launch, since how long a tail's last, partial round takes is what the model knows least), then runs the fastest,
as a library's autotuner does. The reason it prints says what was measured."""),
        ("code", "ladder.planner()"),
        ("md", """## The same kernels on another GPU

The planner's SM count and the ladder's timings belong to one device. Below, the ladder as
recorded on every GPU the project has a recording of, side by side: each device's facts come
from its own file, and each percentage is against that device's cuBLAS in the same run. Compare
how much each rung moves: a kernel limited by its arithmetic follows the SMs and their clock, a
kernel limited by memory follows the memory."""),
        ("code", "ladder.devices()"),
        ("md", f"""## 10 · 1D block tiling: one thread, {R1['TM']} outputs

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
        ("md", f"""## 11 · 2D block tiling: {R2['TM']}×{R2['TN']} outputs per thread, in registers

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
        ("md", f"""## 12 · float4: a quarter of the memory instructions

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
        ("md", f"""## 13 · Double buffering: load the next tile while computing this one

Kernels 10-12 run every phase as *load → barrier → compute → barrier*: while a block waits for
DRAM it computes nothing. Here `As` and `Bs` have **two buffers** each
({FD['shared_bytes']:,} B instead of {FV['shared_bytes']:,}). In phase t a thread first *issues* its
global loads of tile t+1 into registers (`ra`, `rb`: {register_counts(RD)['staging']} floats), multiplies
out tile t from buffer t % 2 while those loads travel, then writes the registers into buffer
(t+1) % 2. **One barrier per phase** is enough: buffer (t+1) % 2 was last read in phase t−1, which every
thread finished before the previous barrier (the write-after-read hazard of page 04's barrier 2 cannot
happen), and the barrier at the end of phase t makes the new tile visible before phase t+1 reads it."""),
        ("code", 'ladder.rung_card("double_buffered")'),
        ("md", f"""## 14 · Warp tiling: a compact region per warp

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
        ("md", f"""## The ladder on the roofline

Page 07's roofline, with the ladder's kernels added as squares at their block-tile intensity
BM·BN / (2·(BM + BN)): a block loads its A and B windows once per phase. {f'''On the recorded
device the ridge point is {RIDGE:.1f} FLOP/B, and {', '.join(r.file.split('_')[0] for r in PAST_RIDGE)} lie
past it: their DRAM bound is the FP32 peak itself.''' if PAST_RIDGE else ''} What separates rungs of equal intensity is how
many instructions the SM spends per multiply-add (shared loads, address arithmetic, barriers) and how
well the latency of the loads is hidden."""),
        ("code", "ladder.roofline()"),
    ],
}
