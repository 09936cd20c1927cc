"""Scratch: compile one ladder configuration's module from a kernels tree (TREE NAME; TREE "new":
the working tree's) into CuPy's cache, so that parallel runs warm src_cmp.py's builds."""
import pathlib, sys
from explainer import gpu
from explainer.gpu.launch import KERNELS
rt = gpu.runtime._runtime()
tree, name = sys.argv[1], sys.argv[2]
if tree != "new":
    gpu.runtime.KERNELS_DIR = pathlib.Path(tree).resolve()
rt.module(KERNELS[name], False)
print("warmed", tree, name, flush=True)
