"""Scratch: compile one kernel's module (timed, or trace with 'trace') into CuPy's on-disk cache, so
that parallel runs of this (xargs -P) warm the cache before a test or timing run."""
import sys
from explainer import gpu
from explainer.gpu.launch import KERNELS
rt = gpu.runtime._runtime()
name, trace = sys.argv[1], len(sys.argv) > 2 and sys.argv[2] == "trace"
rt.module(KERNELS[name], trace)
print("compiled", name, "trace" if trace else "timed", flush=True)
