"""Scratch: run cupy.matmul (cuBLAS FP32, TF32 off) once per shape after a warm-up, under ncu, so
that ncu lists the kernel cuBLAS chose, its grid, block, registers and shared memory."""
import sys
import cupy as cp
shapes = [tuple(int(x) for x in s.split("x")) for s in sys.argv[1:]]
for M, N, K in shapes:
    A = cp.random.random((M, K), dtype=cp.float32)
    B = cp.random.random((K, N), dtype=cp.float32)
    for _ in range(3):
        C = A @ B
    cp.cuda.Device().synchronize()
    cp.cuda.runtime.profilerStart()
    C = A @ B
    cp.cuda.Device().synchronize()
    cp.cuda.runtime.profilerStop()
    print("shape", M, N, K, flush=True)
