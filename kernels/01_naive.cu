// kernels/01_naive.cu -- the naive kernel: one thread per element of C, every operand read from
// global memory. Follows the course notes' first kernel and the lab report's row partition (PMPP 3.4 / 5.1).
//
// What it teaches
//   The thread -> data mapping: threadIdx.x walks the columns of C (col), threadIdx.y the rows.
//   A warp is 32 consecutive threadIdx.x, so the load B[k * N + col] reads 32 neighbouring floats
//   (one coalesced 128-byte transaction) and A[row * K + k] is one address for the whole warp (a
//   broadcast). Compare 02_naive_col.cu, where threadIdx.x walks rows instead.
//   Every thread reads a full row of A and a full column of B: 8 bytes per multiply-add, an
//   arithmetic intensity of 0.25 FLOP/B against DRAM if no cache helped. Caches do help, so the
//   measured time beats that DRAM bound; the timing page says which bound a number is.
//
// Launch (computed once, in explainer/gpu/launch.py launch_config): block (T, T), grid
// (ceil(N/T), ceil(M/T)), no shared memory. Correct for any M, N, K >= 1: the grid is rounded up to
// whole blocks and threads outside C do nothing.
// Signature shared by every kernel: row-major A (M x K), B (K x N), C (M x N).
// Run it:  tiled-explainer bench --kernels naive --sizes 1024 --tiles 16
#include "common.cuh"

extern "C" __global__ void naive_gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    // x is the fast (column) direction: neighbouring threads of a warp own neighbouring columns.
    const int row = blockIdx.y * blockDim.y + threadIdx.y;  // @step:index
    const int col = blockIdx.x * blockDim.x + threadIdx.x;  // @step:index

    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            // (row, k) of A times (k, col) of B, both straight from global memory
            sum += A[row * K + k] * B[k * N + col];  // @step:compute
        }
        C[row * N + col] = sum;  // @step:store
        TRACE_C(row * N + col);
    }
}
