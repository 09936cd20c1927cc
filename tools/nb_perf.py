"""Pages 05-07 (performance): read by tools/make_notebooks.py, which writes the notebooks."""

PAGES = {
    "05_warps_and_coalescing.ipynb": [
        ("md", """# 5 · Warps and coalescing

The hardware runs threads in **warps** of 32. A block's threads are numbered
`id = threadIdx.x + threadIdx.y * blockDim.x`; warp `id // 32`, lane `id % 32`. A 16×16 block
therefore has 8 warps of **two rows** each; a 32×32 block has warps of one row; an 8×8 block packs
four rows into a warp.

A warp's load or store is one *request*, served in **32-byte sectors**. When neighbouring lanes read
neighbouring addresses the request touches as few sectors as the bytes need (*coalesced*); when each
lane reads a different row, every lane costs a sector of its own. Pick a block shape and a thread:
the table lists, for that thread's warp, every global access of the three kernels, computed from the
execution model's index functions."""),
        ("code", "from explainer.pages import perf\nperf.warps()"),
        ("md", """**Two corrections to the gemm_tiled walk-through.** Thread (x=4, y=3) of a 16×16 block is *not* `32+4 = 36`: its id is
`4 + 3·16 = 52`, warp 1, lane 20 (the explorer opens on it). And the tiled kernel's B-tile load
`B[(t*T + ty)*N + col]` *is* coalesced: `col = blockIdx.x*T + threadIdx.x`, so neighbouring lanes read
neighbouring floats of one row of B; it costs exactly the ideal number of sectors. The uncoalesced
kernel is `naive_col` (the lab report's column partition), where `threadIdx.x` walks the **rows** of A and C.

The model's sector counts against the counters Nsight Compute read on the H100:"""),
        ("code", "perf.coalescing_summary()"),
        ("md", """**Do smaller blocks make a warp more contiguous?** The lab report says they do. For warp 0 of each
block shape, the model counts the rows of the block it spans and the pieces its requests break into:"""),
        ("code", 'pages.correction("warp_spread")'),
        ("md", """## Non-square blocks

Nothing in a naive kernel ties the block to a square: the lab report launches its kernels with blocks of
tile_x × tile_y threads, and `blockDim = (BX, BY)` may be 32×8 or 64×4 as well as 16×16. Three things follow
from the shape. **The mapping**: thread (x, y) of block (bx, by) owns `C[by·BY + y][bx·BX + x]` in `naive`
(`C[by·BX + x][bx·BY + y]` in `naive_col`), and the grid is `(ceil(N / BX), ceil(M / BY))` (`naive_col`: BX and BY
swapped). **The coalescing**:
a warp is 32 consecutive ids `x + y·BX`, so it is the block's *width* that decides how many rows a warp spans
(4 rows when BX = 8, one when BX ≥ 32) and how many sectors its requests touch. **The occupancy**: an SM holds
blocks by their BX·BY threads (a naive block uses no shared memory). The tables are computed by the model;
on page 1 the explorer takes blockDim.x and blockDim.y apart, and kernel `03b_tiled_rect.cu` carries a
non-square block into the tiled kernel."""),
        ("code", "pages.block_shapes()"),
        ("md", """## What it costs: row- vs column-mapped naive kernels

Same arithmetic, same occupancy, a different thread → element mapping. The bigger the block, the
more rows of A one warp spans in `naive_col`, and the slower it gets."""),
        ("code", "perf.row_vs_column()"),
        ("code", "perf.warps_timing()"),
        ("md", """## How long one global load waits

Coalescing decides how many sectors a warp's request moves; the *latency* is how long one load waits
for its data. Two of the course's documents disagree about it by a factor of four or more: below, both
claims, and what `benchmarks/bench_latency.py` measured on a GPU (by pointer chasing) where a measurement
is recorded."""),
        ("code", 'pages.correction("global_latency")'),
        ("md", """## The memory spaces as a whole

Global memory is one of five places a kernel's variables can live. Each is declared differently, seen by
different threads and kept for a different time: **registers** (a thread's scalars), **shared memory**
(`__shared__`, one copy per block), **global memory** (what `cudaMalloc` returns), **local memory** (a
thread's arrays indexed at run time, and spilled registers: private like registers, but in device memory)
and **constant memory** (`__constant__`, read-only in kernels; kernel parameters live in a constant bank
too). The first table gives each one's declaration, scope, lifetime and place, with the latency measured on a
GPU where a measurement is recorded; the second, how big each is on the architecture presets. The third walks
the tiled kernel, `kernels/03_tiled.cu`, declaration by declaration with the simulator's CUDA parser and says
where each variable lives, and why."""),
        ("code", "pages.memory_spaces()"),
        ("md", """## Shared-memory banks

Shared memory has 32 banks of 4-byte words (word `w` lives in bank `w % 32`). Lanes reading the
same word get it in one broadcast; lanes reading *different* words of the same bank are served one
after another (an *n-way conflict*). In the compute loop `sum += As[ty][k] * Bs[k][tx]`:

* `As[ty][k]`: all lanes of one block row read the same word, a broadcast;
* `Bs[k][tx]`: neighbouring lanes read neighbouring words, one per bank.

Neither conflicts. Storing B transposed and reading `Bs[tx][k]` would put a whole column, T words
apart, into one warp: a T-way conflict at T = 32, which padding each row to T+1 words removes."""),
        ("code", "perf.bank_table()"),
        ("md", "**Your turn: predict, then check.** Work each answer out before you press *Check*: a wrong answer "
         "gets the model's reason, and *Another one* draws new numbers."),
        ("code", 'pages.quiz("05_warps_and_coalescing")'),
    ],
    "06_tile_size_and_occupancy.ipynb": [
        ("md", """# 6 · Tile size and occupancy

An SM holds several blocks at once, as many as its **threads (warps)**, its **block slots**, its
**shared memory** and its **registers** allow; the smallest of the four wins. *Occupancy* is the
resident warps over the SM's maximum. The course notes work this out for a Fermi SM (16 KB of shared
memory, 1536 threads, 8 blocks); here the same table is computed from the presets, and extended to
Turing, Ampere and Hopper. The 64×64 row shows why a tile cannot grow past 32: 4096 threads per block."""),
        ("code", "from explainer.pages import perf\nperf.tile_table()"),
        ("md", """**The gemm_tiled walk-through's RTX 2080 Ti.** Turing is the one recent architecture with *fewer* threads per SM
than its neighbours:"""),
        ("code", "perf.turing_correction()"),
        ("md", """**The PMPP chapter 5 notes' shared-memory-hungry kernel.** A block whose threads use a lot of shared
memory: the notes' share per thread, and how many such blocks an A100 SM really holds:"""),
        ("code", 'pages.correction("shared_per_thread")'),
        ("md", """## The compiled kernels on the GPU

Registers and shared bytes per kernel come from the compiled kernel, the resident blocks from the
CUDA driver; the last column is the calculator's prediction for the same resources."""),
        ("code", "perf.kernel_resources()"),
        ("md", """## Time per tile size

On the H100 every block size runs at full occupancy, yet 32×32 is fastest: each element loaded
from global memory is reused T times, so larger tiles need fewer loads (page 7)."""),
        ("code", "perf.tile_sweep()"),
        ("code", "perf.tiles_timing()"),
        ("md", """## Dynamic shared memory and device queries

Kernel 03 fixes the tile when it is compiled (`template <int TILE>`, `__shared__ float As[TILE][TILE]`).
Kernel 04 (`tiled_dynamic`, the PMPP chapter 5 notes' 5.6) takes it at run time: it declares one
`extern __shared__` array **with no size**, the launch passes the size in bytes as its **third parameter**
(`kernel<<<grid, block, bytes>>>`), and the kernel carves As and Bs out of the one array by hand. The host
chooses the tile from what `cudaGetDeviceProperties` reports: `sharedMemPerBlock` bounds the tiles' bytes,
`maxThreadsPerBlock` the block's T·T threads. Below: the kernel's own lines, the bytes its launch passes, the
largest tile and the tile with the highest occupancy for each architecture preset (and, live on a GPU, for
that GPU), and what the run-time tile costs against kernel 03."""),
        ("code", "pages.dynamic_shared()"),
        ("md", """## The lab report's timing tables, reproduced

The lab report measured its kernels on its own GPU; the recorded H100 figures for the kernels that do the
same work stand beside them. Its conclusion about “register tiling” does not survive the measurement."""),
        ("code", "perf.lab_report_tables()"),
        ("md", """## Occupancy calculator

Give a block's threads, shared bytes and registers per thread (typed in the live app, chosen from
menus in a static page); the SM's resources decide how many blocks fit and which one runs out first."""),
        ("code", "perf.occupancy_calculator()"),
        ("md", """## How the warps are scheduled

The calculator above counts the warps an SM *holds*. Do they all run at once? The gemm_tiled walk-through says
that SIMT runs a block's 256 threads in parallel, and also that the SM's 4 schedulers run 4 warps per cycle; the
second is the picture to keep. An SM is split into sub-partitions (four on Turing, Ampere and Hopper, two on
Fermi), each with one **warp scheduler** that issues *at most one instruction per cycle*, from one warp, for all
32 of its threads at once (SIMT). The other warps wait their turn, or wait for memory: a warp whose
next instruction needs a value still on its way from global memory is *stalled* (the scoreboard holds it), and
the scheduler picks another warp that is *ready*. A cycle in which none of its warps is ready is an issue slot
lost. Many resident warps are how a GPU hides memory latency: while some wait, others compute.

The stepper below runs the tiled kernel's loop on one Hopper SM, cycle by cycle: every warp loads its A and B
elements (global loads that take L cycles, L measured on a GPU), stores them into `As` / `Bs`, waits at
`__syncthreads()`, runs its T multiply-adds and waits at the second barrier. The rows are scheduler 0's warps; the
presets take their resident warps from the occupancy calculator (fewer when each thread needs more registers).
Step through a few cycles of *2 per scheduler*, then switch to *16 per scheduler*: the idle columns fill up."""),
        ("code", "perf.warp_scheduler()"),
        ("md", """**How many warps are enough?** Between two waits for memory a warp issues about n = T + 6 instructions
(one phase). To keep issuing through a wait of L cycles, a scheduler needs other warps with L instructions to
give: about L / n warps. A larger tile gives each warp more work per load (page 7 says the same in bytes), so it
needs fewer warps; the barrier makes a block's warps wait together, which costs more than the rule of thumb
says. The table runs every preset with both latencies and two scheduling policies:"""),
        ("code", "perf.scheduler_table()"),
        ("md", "**Your turn: predict, then check.** Work each answer out before you press *Check*: a wrong answer "
         "gets the model's reason, and *Another one* draws new numbers."),
        ("code", 'pages.quiz("06_tile_size_and_occupancy")'),
    ],
    "07_arithmetic_intensity_and_roofline.ipynb": [
        ("md", """# 7 · Arithmetic intensity and the roofline

**Arithmetic intensity** is FLOP per byte of global-memory traffic. The naive kernel loads two
floats (8 bytes) per multiply-add (2 FLOP): 0.25 FLOP/B. The tiled kernel loads each element once per
block instead of once per thread, T times fewer loads: T/4 FLOP/B. The table counts the loads with
the execution model, so shapes that are not multiples of T get their exact figure."""),
        ("code", "from explainer.pages import perf\nperf.intensity_table()"),
        ("md", """**The course notes' “operations per byte”.** The notes divide a tile's FLOP by its global loads and
call the ratio operations per byte:"""),
        ("code", 'pages.correction("tile_intensity")'),
        ("code", "perf.pmpp_example()"),
        ("md", """## The roofline of the recorded GPU

A kernel cannot run faster than its memory traffic allows (intensity × bandwidth) nor faster than the
arithmetic units (the FP32 peak). The peak is computed from the SM clock and SM count; the bandwidth
is measured by a device-to-device copy."""),
        ("code", "perf.device_roofs_html()"),
        ("md", """Circles place each kernel at the model's intensity and its measured speed; the dotted line leads to
where the kernel really sits once the bytes DRAM moved (Nsight Compute) replace the model's count.
A kernel's block sizes T = 8, 16, 32 are shades of its colour, lighter for the smaller T; hover over
a point for its kernel and T.

**This bound counts DRAM traffic only.** It charges every global load to DRAM, but L1 and L2 caches
serve most of the naive kernels' repeated loads: the row-mapped naive kernel runs several times
*above* its 0.25 FLOP/B roof. The tiled kernels sit below theirs, limited by other things (shared-
memory loads and instruction issue per FMA). The roofline says which resource a kernel could at
most be limited by, not how fast it will run.

The squares are the kernels of page 08, which climb past the tiled kernel by reusing every loaded
value more often: in DRAM (bigger block tiles move them right) and in shared memory and registers
(which the DRAM roofline does not see: they move up, towards the compute roof, at a similar
intensity)."""),
        ("code", "perf.roofline_page()"),
        ("md", "**Your turn: predict, then check.** Work each answer out before you press *Check*: a wrong answer "
         "gets the model's reason, and *Another one* draws new numbers."),
        ("code", 'pages.quiz("07_arithmetic_intensity_and_roofline")'),
    ],
}
