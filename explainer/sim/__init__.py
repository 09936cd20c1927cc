"""The simulator: a student's CUDA C kernel run on the CPU with CUDA's semantics, no GPU.

The subset is the one the ladder's first rungs use (kernels 01-09): one ``__global__`` kernel
with the ladder's signature ``(const float* A, const float* B, float* C, int M, int N, int K)``,
an optional ``template <int TILE>``, ``#define`` / ``#include "common.cuh"``, ``int`` /
``float`` / ``double`` / ``bool`` variables (``const`` too), pointers into A, B, C and shared
memory, ``__shared__`` arrays (``extern __shared__`` too), ``for`` / ``while`` / ``do`` / ``if`` /
``?:`` / ``break`` / ``continue`` / ``return``, ``__syncthreads()``, ``threadIdx`` /
``blockIdx`` / ``blockDim`` / ``gridDim``, and a few math functions. It is launched with the
ladder's geometry: blocks of T x T threads, a grid of ``(ceil(N/T), ceil(M/T))`` blocks.

Modules, in the order a kernel goes through them:

* :mod:`.preprocess` — ``#define``, ``#include``, ``#if``: line numbers kept;
* :mod:`.parse` — tree-sitter with the tree-sitter-cuda grammar (why: its docstring), the kernel
  found and its signature checked;
* :mod:`.interp` — the tree compiled to closures and run over all the threads of a batch of
  blocks at once (numpy arrays, masks for divergence, barrier epochs);
* :mod:`.memory` — global and shared memory with the bounds, race and initialisation checks;
* :mod:`.check` — launches, inputs, the float64 reference, :class:`Report` and its problems;
* :mod:`.trace` — what the run did, in the arrays the steppers draw (and the model has).

``check_kernel(source, launches) -> Report``; bad input raises :class:`SimError` (one line).
The student's text is never executed as Python or host code: it is parsed, and the tree is
data the interpreter walks.
"""

from __future__ import annotations

from .check import (KINDS, LaunchResult, LaunchSpec, Problem, Report, as_launch, check_kernel,  # noqa: F401
                    default_launches, inputs, kernel_tile, load_source)
from .errors import SimError  # noqa: F401
from .parse import MAX_SOURCE_BYTES, parse_source  # noqa: F401
from .trace import NEVER, Trace  # noqa: F401

__all__ = ["check_kernel", "Report", "Problem", "LaunchSpec", "LaunchResult", "Trace", "SimError", "KINDS",
           "default_launches", "kernel_tile", "parse_source", "load_source", "inputs", "as_launch",
           "MAX_SOURCE_BYTES", "NEVER"]
