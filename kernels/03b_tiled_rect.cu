// kernels/03b_tiled_rect.cu -- the tiled kernel with a TILE_X x TILE_Y block that need not be square:
// the lab report's blocks of tile_x x tile_y threads (its block partition, section 2.1.3) carried into
// the shared-memory tiles of 03_tiled.cu (PMPP 4th ed. 5.4-5.5).
//
// What it teaches
//   What changes against 03_tiled.cu when blockDim = (TILE_X, TILE_Y) is not square:
//   * The mapping. A block computes a TILE_Y x TILE_X tile of C: row from threadIdx.y, col from
//     threadIdx.x, as in 01 and 03. The grid is (ceil(N / TILE_X), ceil(M / TILE_Y)).
//   * The windows. As is TILE_Y x BK (the block's rows of A), Bs is BK x TILE_X (its columns of B).
//     BK, the K width of one phase, is lcm(TILE_X, TILE_Y): the narrowest window that every thread
//     fills with a whole number of copies, BK / TILE_X of A and BK / TILE_Y of B. A 32 x 8 block:
//     BK = 32, one copy of A and four of B per thread and phase.
//   * The loads are loops. Thread tid = tx + ty * TILE_X copies the window's elements tid,
//     tid + TILE_X * TILE_Y, ... in row-major order, so consecutive lanes of a warp copy consecutive
//     floats of one row of A or B (coalesced) whatever the block's shape. In 03 each thread copies
//     exactly its own cell As[ty][tx]: that is the square case here (TILE_X = TILE_Y = T: BK = T,
//     one copy each, element tid = cell (ty, tx)).
//   * The reuse. Each element of A is read once per block column, each of B once per block row: a
//     phase loads (TILE_X + TILE_Y) * BK floats for TILE_X * TILE_Y * BK multiply-adds. For the same
//     256 threads a 16 x 16 block does 8 per float (4.0 FLOP/B of DRAM traffic), a 32 x 8 one 6.4
//     (3.2 FLOP/B): of all shapes with as many threads the square tile reads the least.
//   The model mirrors every copy (explainer.model.rect); page 05 shows what the block's shape does
//   to a warp's rows and sectors.
//
// Launch (explainer/gpu/launch.py launch_config, one kernel name per instantiation, tiled_rect_32x8 ...):
// block (TILE_X, TILE_Y), grid (ceil(N/TILE_X), ceil(M/TILE_Y)), static shared memory
// (TILE_Y + TILE_X) * BK * 4 bytes. Correct for any M, N, K >= 1 (padding zeros outside A and B).
// Run it:  tiled-explainer bench --kernels tiled tiled_rect_32x8 tiled_rect_8x32 --sizes 1024 --tiles 16 / pytest -m gpu tests/test_gpu_rect.py
#include "common.cuh"

// greatest common divisor, at compile time: BK = lcm(TILE_X, TILE_Y) = TILE_X / gcd * TILE_Y
__host__ __device__ constexpr int rect_gcd(int a, int b) { return b == 0 ? a : rect_gcd(b, a % b); }

template <int TILE_X, int TILE_Y>
__global__ void tiled_rect_gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    constexpr int THREADS = TILE_X * TILE_Y;
    constexpr int BK = TILE_X / rect_gcd(TILE_X, TILE_Y) * TILE_Y;  // lcm: whole copies for every thread
    static_assert(BK % TILE_X == 0 && BK % TILE_Y == 0, "BK must be a multiple of both block edges");
    __shared__ float As[TILE_Y][BK];  // (TILE_Y, BK) window of A: this block's rows, columns t*BK ..
    __shared__ float Bs[BK][TILE_X];  // (BK, TILE_X) window of B: rows t*BK .., this block's columns

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = tx + ty * TILE_X;  // linear id: lanes of a warp are consecutive tids
    const int row = blockIdx.y * TILE_Y + ty;  // @step:index
    const int col = blockIdx.x * TILE_X + tx;  // @step:index
    const int phases = CEIL_DIV(K, BK);
    float sum = 0.0f;

    for (int t = 0; t < phases; ++t) {  // @step:phase
        // A window, element e -> As[e / BK][e % BK]: BK / TILE_X copies per thread, coalesced along e
        for (int e = tid; e < TILE_Y * BK; e += THREADS) {
            const int r = e / BK, c = e % BK;
            const int a_row = blockIdx.y * TILE_Y + r, a_col = t * BK + c;
            const bool a_in = a_row < M && a_col < K;
            As[r][c] = a_in ? A[a_row * K + a_col] : 0.0f;  // @step:load_a
            TRACE_SLOT_A(phases, t, TILE_Y * BK, e, a_in ? a_row * K + a_col : -1);
        }
        // B window, element e -> Bs[e / TILE_X][e % TILE_X]: BK / TILE_Y copies per thread
        for (int e = tid; e < BK * TILE_X; e += THREADS) {
            const int r = e / TILE_X, c = e % TILE_X;
            const int b_row = t * BK + r, b_col = blockIdx.x * TILE_X + c;
            const bool b_in = b_row < K && b_col < N;
            Bs[r][c] = b_in ? B[b_row * N + b_col] : 0.0f;  // @step:load_b
            TRACE_SLOT_B(phases, t, BK * TILE_X, e, b_in ? b_row * N + b_col : -1);
        }

        __syncthreads();  // @step:barrier1

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            sum += As[ty][k] * Bs[k][tx];  // @step:compute
        }

        __syncthreads();  // @step:barrier2
    }

    if (row < M && col < N) {
        C[row * N + col] = sum;  // @step:store
        TRACE_C(row * N + col);
    }
}

// The block shapes the explainer instantiates (explainer/model/rect.py SHAPES; explainer/gpu/launch.py
// names each one tiled_rect_<X>x<Y> and asks for "tiled_rect_gemm<X, Y>").
template __global__ void tiled_rect_gemm<32, 8>(const float*, const float*, float*, int, int, int);
template __global__ void tiled_rect_gemm<8, 32>(const float*, const float*, float*, int, int, int);
template __global__ void tiled_rect_gemm<64, 4>(const float*, const float*, float*, int, int, int);
template __global__ void tiled_rect_gemm<16, 4>(const float*, const float*, float*, int, int, int);
template __global__ void tiled_rect_gemm<4, 2>(const float*, const float*, float*, int, int, int);
