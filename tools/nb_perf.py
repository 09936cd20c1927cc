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
        ("md", """## The lab report's timing tables, reproduced

The lab report measured its kernels on its own GPU; the recorded H100 figures for the kernels that do the
same work stand beside them. Its conclusion about “register tiling” does not survive the measurement."""),
        ("code", "perf.lab_report_tables()"),
        ("md", """## Occupancy calculator

Give a block's threads, shared bytes and registers per thread (typed in the live app, chosen from
menus in a static page); the SM's resources decide how many blocks fit and which one runs out first."""),
        ("code", "perf.occupancy_calculator()"),
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
