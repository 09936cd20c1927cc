// kernels/09_tiled_no_barriers.cu -- 03_tiled.cu with both barriers removed: neither the true
// nor the false dependence is enforced. PMPP 4th ed. 5.4. Instantiated for
// TILE = 2, 4, 8, 16, 32.
//
// What it teaches
//   Every hazard of 07 and 08 at once, and more: with no barrier at all, one warp can run several
//   phases ahead of another. explainer.hazards flags read-before-write in every phase and
//   write-before-read in every phase but the last.
//   Why it can still pass: a block of <= 32 threads (T <= 5) is a single warp whose threads
//   usually execute in lockstep, so every store precedes every read; bigger blocks fail often.
//   Never rely on it: Volta and later schedule the threads of a warp independently.
//
// Launch (explainer/gpu/launch.py launch_config): as 03: block (T, T), grid (ceil(N/T), ceil(M/T)), static
// shared memory 2 * T * T * 4 bytes. Boundary checks as 03. WRONG in general: a data race.
// Run it:  python -m explainer.gpu.edges --repeats 200   (how often it differs from numpy)
#include "common.cuh"

template <int TILE>
__global__ void tiled_no_barriers_gemm(const float* A, const float* B, float* C, int M, int N, int K)
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

        // __syncthreads() removed: a fast thread may start the next phase's stores now  // @step:barrier2
    }

    if (row < M && col < N) {
        C[row * N + col] = sum;  // @step:store
        TRACE_C(row * N + col);
    }
}

template __global__ void tiled_no_barriers_gemm<2>(const float*, const float*, float*, int, int, int);
template __global__ void tiled_no_barriers_gemm<4>(const float*, const float*, float*, int, int, int);
template __global__ void tiled_no_barriers_gemm<8>(const float*, const float*, float*, int, int, int);
template __global__ void tiled_no_barriers_gemm<16>(const float*, const float*, float*, int, int, int);
template __global__ void tiled_no_barriers_gemm<32>(const float*, const float*, float*, int, int, int);
