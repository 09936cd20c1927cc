// kernels/03_tiled.cu -- shared-memory tiling: PMPP 4th ed. fig. 5.9 with the boundary checks of
// section 5.5, the kernel that the gemm_tiled walk-through reads line by line (T = 16) and the
// PMPP chapter 5 notes explain (5.4-5.5). Instantiated for TILE = 8, 16, 32, and 2, 4 for the
// course material's small worked examples (the course notes: Width 3, TILE_WIDTH 2).
//
// What it teaches
//   A block of T x T threads computes a T x T tile of C. The K dimension is strip-mined into
//   ceil(K/T) phases t. In each phase every thread copies ONE element of A into As[ty][tx] and ONE
//   element of B into Bs[ty][tx]; after a barrier each thread reads a row of As and a column of
//   Bs (T multiply-adds). Each global element is loaded once per block instead of once per
//   thread: DRAM traffic drops by a factor T (0.25 FLOP/B becomes T/4 FLOP/B; 4.0 at T = 16).
//   Both loads are coalesced: neighbouring threadIdx.x read neighbouring addresses of A's row and
//   of B's row t*T + ty (the gemm_tiled walk-through says the B load is not; it is).
//   Barrier 1 is a true dependence (nobody may read the tile before everyone wrote it); barrier 2
//   a false one (nobody may overwrite the tile while a slower thread still reads it).
//   Boundary checks: elements outside A or B are replaced by zeros, which add nothing to the sum,
//   and only threads inside C store. The course notes' example Width = 3, TILE_WIDTH = 2 shows both.
//
// Launch (explainer/gpu/launch.py launch_config): block (T, T), grid (ceil(N/T), ceil(M/T)), static shared
// memory 2 * T * T * 4 bytes. Correct for any M, N, K >= 1.
// Run it:  tiled-explainer bench --kernels tiled --sizes 1024 4096 --tiles 8 16 32
#include "common.cuh"

template <int TILE>
__global__ void tiled_gemm(const float* A, const float* B, float* C, int M, int N, int K)
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

        __syncthreads();  // @step:barrier1

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

// The tile widths the explainer instantiates (explainer/gpu/launch.py names the same ones as
// name_expressions, e.g. "tiled_gemm<16>"; KernelSpec.tiles).
template __global__ void tiled_gemm<2>(const float*, const float*, float*, int, int, int);
template __global__ void tiled_gemm<4>(const float*, const float*, float*, int, int, int);
template __global__ void tiled_gemm<8>(const float*, const float*, float*, int, int, int);
template __global__ void tiled_gemm<16>(const float*, const float*, float*, int, int, int);
template __global__ void tiled_gemm<32>(const float*, const float*, float*, int, int, int);
