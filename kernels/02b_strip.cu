// kernels/02b_strip.cu -- shared memory without a window: the sliding-window write-up's first
// version (V1), kept as the step between the naive kernels and 03_tiled.cu (its V2).
//
// What it teaches
//   A block of T x T threads computes a T x T tile of C, as in 03. But instead of a T x T window
//   that slides along K, the block copies its WHOLE T x K strip of A (As) and K x T strip of B (Bs)
//   into shared memory: each thread copies ceil(K/T) elements of each, in a loop over K in steps
//   of T (the elements 03's phases would load one at a time, coalesced the same way). After ONE
//   barrier every thread takes its K-long dot product from shared memory; nothing is overwritten,
//   so no second barrier is needed. Each global element is read once per block, exactly as in 03.
//   Why it stops working as K grows: the strips take 2 * T * K * 4 bytes per block. A block gets
//   48 KB without opting in, so at T = 16 K can be at most 384; the opt-in maximum (227 KB on
//   Hopper) only moves the wall (K <= 1816 at T = 16), and long before it fewer blocks fit on an
//   SM. 03's window keeps 2 * T * T * 4 bytes whatever K is, for the same global traffic; page 02
//   ("Why a sliding window: V1 against V2") computes both for every architecture preset.
//   Boundary checks: elements outside A or B are stored as zeros; only threads inside C store.
//
// Launch: block (T, T), grid (ceil(N/T), ceil(M/T)), dynamic shared memory 2 * T * K * 4 bytes
// (the third <<< >>> parameter; above 48 KB only after cudaFuncSetAttribute(...,
// cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)). Correct for any M, N, K >= 1 that fit.
// Run it:  tiled-explainer check-kernel kernels/02b_strip.cu --tile 4 --M 5 --N 7 --K 19 --dynamic-shared 2*T*K
//   (the simulator gives extern __shared__ the floats the launch would; pytest -m gpu tests/test_gpu_strip.py
//   runs it on a GPU)
#include "common.cuh"

template <int TILE>
__global__ void strip_gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    extern __shared__ float smem[];  // 2 * TILE * K floats, sized by the launch
    float* As = smem;                // (TILE, K) strip of A, row-major [ty * K + k]
    float* Bs = smem + TILE * K;     // (K, TILE) strip of B, row-major [k * TILE + tx]

    const int ty = threadIdx.y;
    const int tx = threadIdx.x;
    const int row = blockIdx.y * TILE + ty;  // @step:index
    const int col = blockIdx.x * TILE + tx;  // @step:index
    const int phases = CEIL_DIV(K, TILE);

    for (int t = 0; t < phases; ++t) {  // @step:phase
        // A element (row, t*T + tx) to As[ty][t*T + tx]: coalesced along tx
        const int a_col = t * TILE + tx;
        const bool a_in = row < M && a_col < K;
        if (a_col < K) As[ty * K + a_col] = a_in ? A[row * K + a_col] : 0.0f;  // @step:load_a
        TRACE_A(TILE, phases, t, a_in ? row * K + a_col : -1);

        // B element (t*T + ty, col) to Bs[t*T + ty][tx]: coalesced along tx
        const int b_row = t * TILE + ty;
        const bool b_in = b_row < K && col < N;
        if (b_row < K) Bs[b_row * TILE + tx] = b_in ? B[b_row * N + col] : 0.0f;  // @step:load_b
        TRACE_B(TILE, phases, t, b_in ? b_row * N + col : -1);
    }

    __syncthreads();  // @step:barrier1

    float sum = 0.0f;
    for (int k = 0; k < K; ++k) {
        sum += As[ty * K + k] * Bs[k * TILE + tx];  // @step:compute
    }

    if (row < M && col < N) {
        C[row * N + col] = sum;  // @step:store
        TRACE_C(row * N + col);
    }
}

// The tile widths instantiated (explainer/gpu/launch.py names the same ones, e.g. "strip_gemm<16>").
template __global__ void strip_gemm<2>(const float*, const float*, float*, int, int, int);
template __global__ void strip_gemm<4>(const float*, const float*, float*, int, int, int);
template __global__ void strip_gemm<8>(const float*, const float*, float*, int, int, int);
template __global__ void strip_gemm<16>(const float*, const float*, float*, int, int, int);
template __global__ void strip_gemm<32>(const float*, const float*, float*, int, int, int);
