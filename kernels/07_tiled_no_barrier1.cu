// kernels/07_tiled_no_barrier1.cu -- 03_tiled.cu with barrier 1 removed: the true dependence (read-after-write)
// is no longer enforced. PMPP 4th ed. 5.4: the first barrier makes sure all threads have
// finished loading the tiles before any of them reads them. Instantiated for TILE = 2, 4, 8, 16, 32.
//
// What it teaches
//   After its two stores a thread goes straight to the compute loop and reads As[ty][k], stored by
//   thread (x=k, y=ty), and Bs[k][tx], stored by (x=tx, y=k). Nothing makes those threads store
//   first: a reader may get the previous phase's element (or, in phase 0, whatever shared memory
//   held). explainer.hazards flags every such (cell, phase) as read-before-write.
//   Why it can still pass: the threads of one warp usually execute these instructions together,
//   so within a warp the stores land before the loads. A block of T*T <= 32 threads (T <= 5) is
//   one warp; larger blocks have warps that drift apart, and then results differ from numpy
//   sometimes, not always (the page shows measured frequencies). Independent thread scheduling
//   (Volta and later) does not even promise the lockstep: a pass proves nothing.
//
// Launch (explainer/gpu/launch.py launch_config): as 03: block (T, T), grid (ceil(N/T), ceil(M/T)), static
// shared memory 2 * T * T * 4 bytes. Boundary checks as 03. WRONG in general: a data race.
// Run it:  python -m explainer.gpu.edges --repeats 200   (how often it differs from numpy)
#include "common.cuh"

template <int TILE>
__global__ void tiled_no_barrier1_gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];  // (T, T) window of A: rows of this block, columns t*T ..
    __shared__ float Bs[TILE][TILE];  // (T, T) window of B: rows t*T .., columns of this block

    const int ty = threadIdx.y;
    const int tx = threadIdx.x;
    const int row = blockIdx.y * TILE + ty;  // @step:index
    const int col = blockIdx.x * TILE + tx;  // @step:index
    const int phases = CEIL_DIV(K, TILE);
    float sum = 0.0f;

    for (int t = 0; t < phases; ++t) {  // @step:phase
        // A element (row, t*T + tx): one row of A per thread row, coalesced along tx
        const int a_col = t * TILE + tx;
        const bool a_in = row < M && a_col < K;
        As[ty][tx] = a_in ? A[row * K + a_col] : 0.0f;  // @step:load_a
        TRACE_A(TILE, phases, t, a_in ? row * K + a_col : -1);

        // B element (t*T + ty, col): row t*T + ty of B, coalesced along tx
        const int b_row = t * TILE + ty;
        const bool b_in = b_row < K && col < N;
        Bs[ty][tx] = b_in ? B[b_row * N + col] : 0.0f;  // @step:load_b
        TRACE_B(TILE, phases, t, b_in ? b_row * N + col : -1);

        // __syncthreads() removed: nothing orders the stores above before the reads below  // @step:barrier1

#pragma unroll
        for (int k = 0; k < TILE; ++k) {
            sum += As[ty][k] * Bs[k][tx];  // @step:compute
        }

        __syncthreads();  // @step:barrier2
    }

    if (row < M && col < N) {
        C[row * N + col] = sum;  // @step:store
        TRACE_C(row * N + col);
    }
}

template __global__ void tiled_no_barrier1_gemm<2>(const float*, const float*, float*, int, int, int);
template __global__ void tiled_no_barrier1_gemm<4>(const float*, const float*, float*, int, int, int);
template __global__ void tiled_no_barrier1_gemm<8>(const float*, const float*, float*, int, int, int);
template __global__ void tiled_no_barrier1_gemm<16>(const float*, const float*, float*, int, int, int);
template __global__ void tiled_no_barrier1_gemm<32>(const float*, const float*, float*, int, int, int);
