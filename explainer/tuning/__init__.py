"""The tuning engine: a tuned kernel 14 and the planner that picks its launch per shape.

Apart from the lesson and optional. The rungs in ``kernels/`` (and :mod:`explainer.model`,
:mod:`explainer.views`, the pages' stepping and pictures) never import, compile or test-run
anything here; ``bench --kernels planned``, ``plan``, ``tune`` and page 08's "which launch for
this shape" panel do. What it holds:

* :mod:`.configs`: the configurations of ``kernels/tuned/warptile_tuned.cu`` (block tiles for
  every shape, split-K, the split tail, rows padded to 16 bytes, edge bodies) and their model;
* :mod:`.planner`: which launch for a shape, from a model of blocks on SMs and the device's
  measured tables (``explainer/data/tuned/``), its results as data (:class:`planner.Candidate`);
* :mod:`.view`: the words and pictures written from those results (page 08's panel, ``plan``);
* :mod:`.tune`: ``tiled-explainer tune``, which measures the tables.

Importing this package makes the configurations runnable by name in :mod:`explainer.gpu`.
"""

from ..gpu import launch as _launch
from . import configs

_launch.register(configs.CONFIGS)
