"""Tiled GEMM explainer: an execution model of the CUDA matmul kernels in ``kernels/``,
the views that draw it, and a runner that launches the real kernels through CuPy.

The model (:mod:`explainer.model`) is the single source of truth for every picture.
"""

__version__ = "0.1.0"
