// kernels/02_naive_col.cu -- the naive kernel with threadIdx.x mapped to ROWS: the uncoalesced case.
// Follows the lab report's column partition (kernel matMulCol, section 2.1.2); its index math is kept.
//
// What it teaches
//   Same arithmetic as 01_naive.cu, a different thread -> data mapping:
//     row = blockIdx.y * blockDim.x + threadIdx.x;   col = blockIdx.x * blockDim.y + threadIdx.y;
//   The 32 threads of a warp (consecutive threadIdx.x) now own 32 consecutive ROWS of C. The load
//   A[row * K + k] touches 32 addresses K floats apart (32 transactions instead of one) and the
//   store C[row * N + col] is strided the same way; B[k * N + col] becomes a broadcast. This is the
//   truly uncoalesced access (the gemm_tiled walk-through wrongly calls the tiled kernel's B load uncoalesced), and
//   the reason this kernel is several times slower than 01 at large sizes.
//   The lab report scales row by blockDim.x and col by blockDim.y; with the square blocks used here
//   (T, T) the grid is the same as 01's.
//
// Launch (explainer/gpu/launch.py launch_config): block (T, T), grid (ceil(N/T), ceil(M/T)), no shared
// memory. Correct for any M, N, K >= 1.
// Run it:  tiled-explainer bench --kernels naive naive_col --sizes 2048 --tiles 16
#include "common.cuh"

extern "C" __global__ void naive_col_gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    // threadIdx.x -> row: neighbours in a warp read A K floats apart (uncoalesced)
    const int row = blockIdx.y * blockDim.x + threadIdx.x;  // @step:index
    const int col = blockIdx.x * blockDim.y + threadIdx.y;  // @step:index

    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            // A: strided across the warp; B: the same address for the whole warp (broadcast)
            sum += A[row * K + k] * B[k * N + col];  // @step:compute
        }
        C[row * N + col] = sum;  // @step:store
        TRACE_C(row * N + col);
    }
}
