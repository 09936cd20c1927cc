// kernels/04_tiled_dynamic.cu -- the tiled kernel with the tile width chosen at RUN time: one
// dynamically sized shared array (extern __shared__), its size passed at launch. Follows PMPP 4th
// ed. 5.6 and the PMPP chapter 5 notes' section on dynamic shared memory and device queries.
//
// What it teaches
//   03_tiled.cu fixes TILE at compile time. Here T = blockDim.x, and the host passes
//   2 * T * T * sizeof(float) bytes as the launch's dynamic shared memory. The single array smem is
//   split by hand: As = smem[0 .. T*T), Bs = smem[T*T .. 2*T*T), both indexed [ty * T + tx].
//   The host must check the request against the device (sharedMemPerBlock, maxThreadsPerBlock)
//   before launching; explainer/gpu/launch.py refuses a too-large tile with a message instead of a
//   failed launch.
//   The price of flexibility: the inner loop's trip count is unknown at compile time, so the
//   compiler cannot fully unroll it; the timing page shows what that costs against 03.
//   Index math, boundary checks and barriers are exactly 03's; the model's "tiled" launch
//   describes this kernel too.
//
// Launch (explainer/gpu/launch.py launch_config): block (T, T) with any T >= 1 the device accepts, grid
// (ceil(N/T), ceil(M/T)), dynamic shared memory 2 * T * T * 4 bytes. Correct for any M, N, K >= 1.
// Run it:  tiled-explainer bench --kernels tiled_dynamic --sizes 1024 --tiles 8 16 32
#include "common.cuh"

extern "C" __global__ void tiled_dynamic_gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    extern __shared__ float smem[];  // 2 * T * T floats, sized by the launch
    const int T = blockDim.x;        // square blocks: blockDim.y == blockDim.x
    float* As = smem;                // (T, T) tile of A, row-major [ty * T + tx]
    float* Bs = smem + T * T;        // (T, T) tile of B, row-major [ty * T + tx]

    const int ty = threadIdx.y;
    const int tx = threadIdx.x;
    const int row = blockIdx.y * T + ty;  // @step:index
    const int col = blockIdx.x * T + tx;  // @step:index
    const int phases = CEIL_DIV(K, T);
    float sum = 0.0f;

    for (int t = 0; t < phases; ++t) {  // @step:phase
        const int a_col = t * T + tx;
        const bool a_in = row < M && a_col < K;
        As[ty * T + tx] = a_in ? A[row * K + a_col] : 0.0f;  // @step:load_a
        TRACE_A(T, phases, t, a_in ? row * K + a_col : -1);

        const int b_row = t * T + ty;
        const bool b_in = b_row < K && col < N;
        Bs[ty * T + tx] = b_in ? B[b_row * N + col] : 0.0f;  // @step:load_b
        TRACE_B(T, phases, t, b_in ? b_row * N + col : -1);

        __syncthreads();  // @step:barrier1

        for (int k = 0; k < T; ++k) {
            sum += As[ty * T + k] * Bs[k * T + tx];  // @step:compute
        }

        __syncthreads();  // @step:barrier2
    }

    if (row < M && col < N) {
        C[row * N + col] = sum;  // @step:store
        TRACE_C(row * N + col);
    }
}
