"""Scratch: compile one kernel's module from a kernels tree (TREE NAME; "new": kernels/) into
CuPy's on-disk cache, so that parallel runs (xargs -P) warm it before src_cmp.py."""
import pathlib
import sys
from explainer import gpu
from explainer.gpu.launch import KERNELS
tree, name = sys.argv[1], sys.argv[2]
if tree != "new":
    gpu.runtime.KERNELS_DIR = pathlib.Path(tree).resolve()
    if "GUARD <= 6" not in (gpu.runtime.KERNELS_DIR / "14_warptile.cu").read_text():  # before GUARD 5 (pairs)
        from explainer.model import ladder
        _expression = ladder.Rung.expression
        ladder.Rung.expression = lambda self, *a, even=False, wide=False, **kw: _expression(self, *a, **kw)
    elif "GW & 15" not in (gpu.runtime.KERNELS_DIR / "14_warptile.cu").read_text():  # before GUARD + 16 (wide rows)
        from explainer.model import ladder
        _expression = ladder.Rung.expression
        ladder.Rung.expression = lambda self, *a, wide=False, **kw: _expression(self, *a, **kw)
rt = gpu.runtime._runtime()
rt.module(KERNELS[name], False)
print("compiled", tree, name, flush=True)
