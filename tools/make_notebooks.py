"""Write notebooks/*.ipynb from the text below: no outputs, no widget state (run once after
editing; the notebooks are the product, this script only keeps them clean and consistent).
Every page, written here or by hand, opens and ends with its navigation bar (:func:`with_nav`)."""

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

OUT = Path(__file__).resolve().parent.parent / "notebooks"

PAGES = {
    "00_index.ipynb": [
        ("md", """# Tiled matrix multiplication on the GPU, step by step

How does a CUDA kernel compute **C = A · B**, and why does copying tiles into shared memory make it
so much faster? Each page below shows the real kernel from `kernels/` thread by thread, and measures
it next to cuBLAS.

Conventions used everywhere: `blockIdx = (x, y)` and `threadIdx = (x, y)`, where **x is the column
direction**; A is M×K, B is K×N, C is M×N, all row-major; the linear thread id is
`tx + ty*blockDim.x`, its warp `id // 32` and lane `id % 32`."""),
        ("code", "from explainer import pages\npages.index()"),
        ("md", """**How to use the pages.** Change M, N, K and the tile T; pick a block and a thread, or click an
element of C. Step with the buttons or the ← → keys; *Play* runs in the browser. Small integer
matrices keep every value readable, so you can check each multiply-add by hand."""),
    ],
    "01_naive.ipynb": [
        ("md", """# 1 · The naive kernel: one thread per element of C

The launch is a **grid** of **blocks**, each a T×T square of **threads**. Thread
`(threadIdx.x, threadIdx.y)` of block `(blockIdx.x, blockIdx.y)` computes one element of C:

```c
int row = blockIdx.y * blockDim.y + threadIdx.y;
int col = blockIdx.x * blockDim.x + threadIdx.x;
if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
}
```

Every multiply-add reads two floats from global memory (DRAM): 8 bytes for 2 flops, so at best
**0.25 FLOP per byte** of DRAM traffic. Pick a thread below, or click a cell of C, to see the row of A
and the column of B it reads, and the other threads of its warp."""),
        ("code", "from explainer import pages\npages.naive()"),
        ("md", """**What the course notes make of it.** How much DRAM bandwidth would the naive kernel need to run at
a GPU's peak? The course notes work it out for one GPU; in brown their claim, below it the bytes the model counts:"""),
        ("code", 'pages.correction("naive_bandwidth")'),
        ("md", """**Row or column mapping?** Switch the kernel to `naive_col` (the lab report's *column partition*:
`threadIdx.x` walks rows). The arithmetic is identical, but neighbouring lanes of a warp now read A
elements K floats apart instead of sharing one, and B's neighbouring-column reads collapse onto a
few addresses: the loads are no longer coalesced. The timing panel above measures what that costs."""),
        ("md", "**Your turn: predict, then check.** Work each answer out before you press *Check*: a wrong answer "
         "gets the model's reason, and *Another one* draws new numbers."),
        ("code", 'pages.quiz("01_naive")'),
        ("md", "**Your turn: write the kernel.** Fill in the lines marked `TODO` and press *Check with the simulator*: it runs your kernel on the CPU with CUDA's rules, on several launches (odd shapes, one block, one thread), and names each problem with its line, its threads and its phase. Hints open one at a time. On a machine with a CUDA GPU a kernel the simulator passed also runs there."),
        ("code", 'pages.kernel_exercise("01_naive")'),
    ],
    "02_tiled.ipynb": [
        ("md", """# 2 · Shared-memory tiling

The tiled kernel (PMPP fig. 5.9, with the boundary checks of §5.5) lets a T×T block of threads
cooperate: in each **phase** t every thread copies *one* element of A into `As[ty][tx]` and *one*
element of B into `Bs[ty][tx]`, all threads wait at a barrier, then each thread does T multiply-adds
from shared memory. A second barrier stops a fast thread from overwriting the tiles while others
still read them. Elements outside A or B are replaced by **padding zeros**.

The stepper opens on a small launch, M = N = K = 8 with T = 4, where every cell of A, B, As and Bs
is readable. The gemm_tiled walk-through's running example (M = N = K = 1024, T = 16, block (x=2, y=1),
thread (x=4, y=3)) is the first entry of the *Preset* menu. To try your own launch, type M, N, K, T
(and a block) and press *Apply* or Enter."""),
        ("code", "from explainer import pages\npages.tiled()"),
        ("md", """## Data reuse, counted

Each element copied into `As` is read by the T threads of its row, and each element of `Bs` by the
T threads of its column, so global loads drop by a factor of T and the DRAM-bound arithmetic
intensity rises from 0.25 to T/4 FLOP per byte. The table is computed by the execution model; it
counts DRAM traffic only (caches make the naive kernel faster than this bound predicts)."""),
        ("code", "pages.reuse_table(1024, 1024, 1024)"),
        ("md", """**The sliding-window write-up's saving.** The write-up's kernel is this one, its tile window sliding
along K, and it says the window saves about K times the global loads. Counted on its own small example:"""),
        ("code", 'pages.correction("sliding_window")'),
        ("md", "**Your turn: predict, then check.** Work each answer out before you press *Check*: a wrong answer "
         "gets the model's reason, and *Another one* draws new numbers."),
        ("code", 'pages.quiz("02_tiled")'),
        ("md", "**Your turn: write the tiled kernel.** Fill in the lines marked `TODO` (the indices and the two barriers) and press *Check with the simulator*: it runs your kernel on the CPU with CUDA's rules on several launches and names each wrong result, race, out-of-bounds access or divergent barrier with its line, threads and phase. Hints open one at a time."),
        ("code", 'pages.kernel_exercise("02_tiled")'),
    ],
}


def all_pages() -> dict:
    """This file's pages plus those of every ``tools/nb_*.py`` (each defines ``PAGES``)."""
    import importlib.util

    pages = dict(PAGES)
    for path in sorted(Path(__file__).resolve().parent.glob("nb_*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        pages.update(mod.PAGES)
    return pages


NAV_TOP = 'from explainer import pages\npages.nav("{name}")'
NAV_BOTTOM = 'pages.nav("{name}")'


def with_nav(name: str, cells: list) -> list:
    """A page's cells between its two navigation bars (contents / previous / next,
    :func:`explainer.pages.nav`): the first cell and the last. Nav cells already there are
    replaced, so running this twice changes nothing."""
    nav = {NAV_TOP.format(name=name), NAV_BOTTOM.format(name=name)}
    body = [(kind, src) for kind, src in cells if not (kind == "code" and src in nav)]
    return [("code", NAV_TOP.format(name=name)), *body, ("code", NAV_BOTTOM.format(name=name))]


def _write(name: str, cells: list, metadata: dict) -> None:
    nb = new_notebook(
        cells=[new_markdown_cell(src) if kind == "md" else new_code_cell(src) for kind, src in with_nav(name, cells)],
        metadata=metadata,
    )
    for i, c in enumerate(nb.cells):  # stable ids: re-running gives the same file
        c["id"] = f"{Path(name).stem}-{i}"
    nbformat.write(nb, OUT / name)
    print("wrote", OUT / name)


def main():
    OUT.mkdir(exist_ok=True)
    pages = all_pages()
    for name, cells in pages.items():
        _write(name, cells, {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        })
    # Pages written by hand (not in PAGES here) get their navigation bars too; their other cells
    # stay as they are, without outputs.
    for path in sorted(OUT.glob("[0-9][0-9]_*.ipynb")):
        if path.name not in pages:
            nb = nbformat.read(path, as_version=4)
            cells = [("md" if c.cell_type == "markdown" else "code", c.source) for c in nb.cells
                     if c.cell_type in ("markdown", "code")]
            _write(path.name, cells, dict(nb.metadata))


if __name__ == "__main__":
    main()
