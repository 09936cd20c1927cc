"""Every core page's "Your turn: predict, then check" cell: the page's questions
(:mod:`explainer.model.questions`) in a :class:`explainer.views.quiz.Quiz`.

On the stepper pages (02-04) "Show the step" moves the page's stepper. Live, the stepper computes
any launch, so the questions draw theirs freely; an exported static page holds only its stepper's
presets and the blocks near them, so there the questions draw from :func:`stepper_pool`.
"""

from __future__ import annotations

from ..model import Launch
from ..model import questions as Q
from ..views.quiz import Quiz
from ..views.stepper import TiledStepper

#: The pages whose questions a tiled stepper above them shows.
STEPPER_PAGES = ("02_tiled", "03_boundaries", "04_barriers")
#: A preset whose grid has at most this many blocks is held whole by an exported page (every
#: kernel variant); a larger one up to :data:`SMALL_LAUNCH` multiply-adds, at its own block.
SMALL_GRID = 4
SMALL_LAUNCH = 64 ** 3


def stepper_pool() -> tuple:
    """``(M, N, K, T, blocks)`` of the stepper presets an exported page holds (``blocks`` None:
    every block; else the preset's own block)."""
    pool = []
    for M, N, K, T, block, _ in TiledStepper.PRESETS.values():
        L = Launch("tiled", M, N, K, T)
        if L.num_blocks <= SMALL_GRID:
            pool.append((M, N, K, T, None))
        elif M * N * K <= SMALL_LAUNCH:
            pool.append((M, N, K, T, (tuple(block),)))
    return tuple(pool)


def quiz(page: str, seed: int = 1):
    """The questions of ``page`` (``"02_tiled"``, ``"02_tiled.ipynb"`` or ``"02"``), starting at
    question set ``seed``."""
    name = Q.page_name(page)
    static_pool = stepper_pool() if name in STEPPER_PAGES else None
    return Quiz(name, seed, pool=None, static_pool=static_pool).widget
