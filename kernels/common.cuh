// kernels/common.cuh -- helpers shared by every kernel in this folder. Included, never compiled
// alone; explainer/gpu.py passes -I<this folder> to the compiler.
//
// What lives here (once, so no kernel file re-defines it):
//   CEIL_DIV(a, b)        integer ceil(a / b): grid sizes and the number of tile phases.
//   Trace recording       only when compiled with -DEXPLAINER_TRACE. The kernel's signature does
//                         not change: the buffers are __device__ globals that the host sets with
//                         RawModule.get_global("g_trace_a") etc. Timed builds compile without the
//                         define, and every TRACE_* macro below becomes a no-op.
//
// Trace layout (int32; the host fills every buffer with -2 = "never written" before a launch):
//   block id  = blockIdx.y * gridDim.x + blockIdx.x               (by * gx + bx)
//   trace_a[((block * phases + t) * T + threadIdx.y) * T + threadIdx.x]
//             = r * K + c, the linear index of the A element this thread stored into As[ty][tx]
//               in phase t, or -1 when it stored a padding zero.
//   trace_b   same for Bs[ty][tx], with r * N + c.
//   trace_c[(block * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x]
//             = row * N + col when this thread stores C (left at -2 otherwise).
//   The naive kernels have no shared tiles: they record trace_c only.
//
// Step markers. A comment "// @step:NAME" ends each line that a stepper step highlights; the
// widgets find code lines by these markers (a marker may end several lines: all are highlighted).
//   @step:index     row / col of the C element this thread owns (blockIdx, blockDim, threadIdx)
//   @step:phase     the loop over tile phases t = 0 .. ceil(K/T) - 1 (PMPP's ph)
//   @step:load_a    the copy A -> As[ty][tx] (or a padding zero)
//   @step:load_b    the copy B -> Bs[ty][tx] (or a padding zero)
//   @step:barrier1  __syncthreads() after the loads: true dependence (read-after-write)
//   @step:compute   the multiply-add(s) of one thread
//   @step:barrier2  __syncthreads() after the compute loop: false dependence (write-after-read)
//   @step:store     the store of C[row][col]
#pragma once

#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))

#ifdef EXPLAINER_TRACE

__device__ int* g_trace_a;
__device__ int* g_trace_b;
__device__ int* g_trace_c;

// 64-bit block id: a 1024^3 launch with T = 16 records 4096 blocks * 64 phases * 256 threads.
#define EXPLAINER_BLOCK_ID ((long long)blockIdx.y * gridDim.x + blockIdx.x)
#define EXPLAINER_TILE_SLOT(T, phases, t) \
    (((EXPLAINER_BLOCK_ID * (phases) + (t)) * (T) + threadIdx.y) * (T) + threadIdx.x)
#define TRACE_A(T, phases, t, src) (g_trace_a[EXPLAINER_TILE_SLOT(T, phases, t)] = (src))
#define TRACE_B(T, phases, t, src) (g_trace_b[EXPLAINER_TILE_SLOT(T, phases, t)] = (src))
#define TRACE_C(dst) \
    (g_trace_c[(EXPLAINER_BLOCK_ID * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x] = (dst))

#else

#define TRACE_A(T, phases, t, src) ((void)0)
#define TRACE_B(T, phases, t, src) ((void)0)
#define TRACE_C(dst) ((void)0)

#endif
