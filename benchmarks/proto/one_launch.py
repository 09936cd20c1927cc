"""Scratch: launch SHAPE LABEL a few times (for ncu: the last launch of the kernel is profiled)."""
import sys
from explainer import gpu
from explainer.gpu.launch import launch_config, parse_launch
from explainer.gpu.verify import _Problem, _launch
rt = gpu.runtime._runtime()
M, N, K = (int(x) for x in sys.argv[1].split("x"))
name, S, T, pad, red = parse_launch(sys.argv[2])
cfg = launch_config(name, M, N, K, 16, S, T, pad, red)
prob = _Problem(rt, M, N, K, seed=1)
kern = rt.kernel(cfg)
for _ in range(3):
    _launch(rt, kern, cfg, prob.A, prob.B, prob.C)
rt.synchronize() if hasattr(rt, "synchronize") else None
import cupy as cp; cp.cuda.Device().synchronize()
print("done", sys.argv[1], sys.argv[2])
