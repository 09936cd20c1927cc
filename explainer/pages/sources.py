"""Which part of the course material each page covers: one table, read by the index
(:func:`explainer.pages.index`) so that a student of the course can find their chapter.

The documents are named by what they are (README, "The pages"); a section is the document's own
numbering where it has one (the course notes, the PMPP chapter 5 notes, the lab report) and its
part's title otherwise (the gemm_tiled walk-through, the sliding-window write-up).
"""

from __future__ import annotations

#: The course's documents, in the order the index names them.
DOCUMENTS = (
    "the course notes",
    "the gemm_tiled walk-through",
    "the PMPP chapter 5 notes",
    "the sliding-window write-up",
    "the lab report",
)

#: notebook -> ((document, section), ...): what of the course material the page teaches.
SECTIONS = {
    "01_naive.ipynb": (
        ("the course notes", "1.2 (the naive kernel, its memory accesses, the bandwidth bound)"),
        ("the lab report", "2.1 (naive kernels: row, column and block partitions)"),
    ),
    "02_tiled.ipynb": (
        ("the course notes", "2.1-2.2, 3.1 (tiles, phases, the tiled kernel)"),
        ("the gemm_tiled walk-through", "the line-by-line reading (1024³, T = 16, block (2, 1), thread (4, 3))"),
        ("the PMPP chapter 5 notes", "5.4 (fig. 5.9, strip-mining)"),
        ("the sliding-window write-up", "the window mechanism and its memory-access analysis"),
        ("the lab report", "2.2-2.3 (shared memory, “register tiling”)"),
    ),
    "03_boundaries.ipynb": (
        ("the course notes", "3.1, 5.1-5.3 (boundary checks, Width = 3, TILE_WIDTH = 2, padding zeros)"),
        ("the PMPP chapter 5 notes", "5.5 (boundary checks)"),
        ("the sliding-window write-up", "its example (A 4×8, B 8×4, BLOCK_SIZE = 2)"),
    ),
    "04_barriers.ipynb": (
        ("the PMPP chapter 5 notes", "5.4 (the two barriers: true and false dependence)"),
        ("the course notes", "2.2.2, 3.1 (the two synchronisation points)"),
        ("the gemm_tiled walk-through", "its two synchronisation steps"),
    ),
    "05_warps_and_coalescing.ipynb": (
        ("the gemm_tiled walk-through", "coalesced access; warp questions; the thread (3, 4) example"),
        ("the lab report", "3.2.1-3.2.2 (row vs column partition, block size and contiguity)"),
        ("the course notes", "6.1-6.2 (the memory hierarchy, shared-memory access)"),
    ),
    "06_tile_size_and_occupancy.ipynb": (
        ("the course notes", "4.1, 4.3 (shared memory per tile, Fermi occupancy)"),
        ("the PMPP chapter 5 notes", "5.6 (memory usage and occupancy, dynamic shared memory)"),
        ("the gemm_tiled walk-through", "hardware execution on the RTX 2080 Ti"),
        ("the lab report", "3.1, 3.2.2 (timing tables, block size)"),
    ),
    "07_arithmetic_intensity_and_roofline.ipynb": (
        ("the course notes", "1.2.3, 4.2 (bandwidth bound, compute-to-memory ratio)"),
        ("the PMPP chapter 5 notes", "5.4, 5.7 (0.25 → 4 FLOP/B, the A100 example, the memory wall)"),
    ),
    "08_beyond_tiling.ipynb": (
        ("the sliding-window write-up", "further optimisation (float4, double buffering, warp level)"),
        ("the gemm_tiled walk-through", "optimisation suggestions (float4, transposed B)"),
    ),
    "09_tensor_cores.ipynb": (
        ("the gemm_tiled walk-through", "optimisation suggestions (tensor cores)"),
        ("the PMPP chapter 5 notes", "5.4 (the two barriers, which become mbarriers)"),
    ),
}


def sections(notebook: str) -> tuple[tuple[str, str], ...]:
    """``(document, section)`` pairs that ``notebook`` covers (empty for a page not in the table)."""
    return SECTIONS.get(notebook, ())


def sections_text(notebook: str) -> str:
    """One line: "the course notes, 1.2 (...); the lab report, 2.1 (...)", in the reader's language
    (the documents and sections are msgids of the catalogue, :mod:`explainer.i18n`)."""
    from ..i18n import _

    return _("; ").join(_("{document}, {section}", document=_(doc), section=_(sec)) for doc, sec in sections(notebook))
