"""Pages 03 (boundaries) and 04 (barriers); written by tools/make_notebooks.py."""

PAGES = {
    "03_boundaries.ipynb": [
        ("md", """# 3 · Boundaries: when the tile does not divide the matrix

A launch covers C with whole T×T blocks, so when T does not divide M, N or K some work falls
outside the matrices. The tiled kernel of `kernels/03_tiled.cu` handles it with two kinds of
check:

* a **padding zero**: a thread whose A or B element does not exist stores `0.0f` into `As`/`Bs`
  (grey below); it adds nothing to any sum;
* a **ghost thread**: a thread of an edge block whose C element lies outside C (marked *ghost*).
  It still loads its share of every tile and does its multiply-adds, because the other threads
  of its block need those tiles; it just does not store.

The stepper opens on the course notes' example, Width = 3, TILE_WIDTH = 2: in phase t = 1 of 0..1
(phases count from 0, as in the kernel's loop), thread (x=1, y=0) of block (x=1, y=0) would read
column t·TILE_WIDTH + tx = 1·2 + 1 = 3 of A, which does not exist. The *Preset* menu
also has the sliding-window write-up's example (A 4×8, B 8×4, BLOCK_SIZE = 2: four windows along K) and a
35×79×19 launch with T = 8. Any M, N, K ≥ 1 works."""),
        ("code", "from explainer.pages import edges\nedges.boundaries()"),
        ("md", """## The price of the edges, counted

Padding zeros, ghost threads and **wasted multiply-adds** (with a padding factor
or by a ghost thread) for a few launches, and the same over M for a fixed tile. The waste jumps
right after each multiple of T: one more row of C costs a whole row of blocks."""),
        ("code", "edges.edge_costs()"),
        ("md", """## The kernel without checks: PMPP fig. 5.9 as printed

The book's first tiled kernel assumes T divides Width: it runs `Width/TILE_WIDTH` phases and has
no guards (`kernels/06_tiled_unguarded.cu`). On any other shape it reads addresses that belong to
other rows of B or lie past the end of A, its ghost threads store onto *other* elements of C, and
every element misses the last K mod T terms. The panels list those accesses (computed by the
model) and show the wrong C next to the right one. Out-of-range accesses are undefined
behaviour, so the explainer only runs this kernel where they stay inside padded buffers."""),
        ("code", "edges.without_checks()"),
        ("md", "**Your turn: predict, then check.** Work each answer out before you press *Check*: a wrong answer "
         "gets the model's reason, and *Another one* draws new numbers."),
        ("code", 'pages.quiz("03_boundaries")'),
        ("md", '**Your turn: make it work for any M, N, K.** The kernel below is PMPP fig. 5.9 as printed. Run it through the simulator as it is, read what it reports, then add the checks until every launch passes.'),
        ("code", 'pages.kernel_exercise("03_boundaries")'),
    ],
    "04_barriers.ipynb": [
        ("md", """# 4 · Why two barriers per phase

Each phase of the tiled kernel has two `__syncthreads()`:

* **barrier 1**, after the loads: a *true dependence*. Thread (x, y) reads `As[y][k]`, which thread
  (x=k, y) stored; without the barrier it may read it **before** that store (read-before-write)
  and use the previous phase's element.
* **barrier 2**, after the compute loop: a *false dependence*. A fast thread would otherwise start
  the next phase and **overwrite** `As[y][x]` while slower threads still read it
  (write-before-read).

`kernels/07`–`09` remove barrier 1, barrier 2, or both. The model's hazard detector
(`explainer.model.hazards`) lists, for every shared cell and phase, the thread that writes it, the
threads that read it, and whether a barrier separates them. Pick a variant: the stepper draws the
cells in a race at each step in red, and the threads whose stores the pinned thread may miss."""),
        ("code", "from explainer.pages import edges\nedges.barriers()"),
        ("md", """## Why a broken kernel can still pass

A race is a *possibility*, not a certainty. The 32 threads of a warp usually execute the same
instruction together, so when every writer and reader share a warp the stores happen before the
loads anyway: a block of T×T ≤ 32 threads (T = 4 here) is a single warp. With several warps per
block, one warp can run ahead of another, and then the result differs from numpy, sometimes on
every run and sometimes rarely. Removing barrier 2 is the subtle one: barrier 1 of the next phase
still holds everyone back, so only a short window is at risk. The table above counts, on a real
GPU, how many of many runs gave a wrong C. A pass on your GPU proves nothing: since Volta the
threads of a warp are scheduled independently and lockstep is not promised."""),
        ("md", "**Your turn: predict, then check.** Work each answer out before you press *Check*: a wrong answer "
         "gets the model's reason, and *Another one* draws new numbers."),
        ("code", 'pages.quiz("04_barriers")'),
        ("md", '**Your turn: repair the kernels.** Each starts without one or both barriers; the simulator finds the races (which thread wrote, which read, in which phase). Put back what is needed until every launch passes.'),
        ("code", 'pages.kernel_exercise("04_barriers")'),
    ],
}
