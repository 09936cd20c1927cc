// kernels/11_blocktile_2d.cu -- 2D block tiling: each thread computes a TM x TN tile of C from
// registers, as outer products (siboehm kernel 5). The register blocking that the lab report names as
// the step after the shared-memory tile.
//
// What it teaches
//   A block of (BM/TM)*(BN/TN) threads computes a BM x BN tile of C; thread (trow, tcol) owns the
//   TM x TN outputs C[row0 + trow*TM + i][col0 + tcol*TN + j]. Per step k it copies a column
//   slice of As (TM values) and a row slice of Bs (TN values) into registers regM, regN and does
//   their outer product: TM*TN multiply-adds for TM+TN shared loads (64 for 16 at 8 x 8, against
//   1 for 2 in kernel 03). The accumulators acc[TM][TN] live in registers, so every index into
//   them must be a compile-time constant (fully unrolled loops), or they spill to local memory.
//   Loads, barriers and the GUARD choice are those of kernel 10.
//
// Launch (explainer/gpu/launch.py launch_config, parameters in explainer/model/ladder.py): 1D blocks of
// (BM/TM)*(BN/TN) threads, grid (ceil(N/BN), ceil(M/BM)), static shared (BM*BK + BK*BN)*4 bytes.
// Correct for any M, N, K >= 1.
// Run it:  tiled-explainer bench --kernels blocktile_2d --sizes 1024 4096
#include "common.cuh"

template <int BM, int BN, int BK, int TM, int TN, bool GUARD>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
blocktile_2d_gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    constexpr int THREADS = (BM / TM) * (BN / TN);
    __shared__ float As[BM * BK];  // As[m * BK + k]
    __shared__ float Bs[BK * BN];  // Bs[k * BN + n]

    const int tid = threadIdx.x;
    const int tcol = tid % (BN / TN);  // @step:index
    const int trow = tid / (BN / TN);  // @step:index
    const int row0 = blockIdx.y * BM;
    const int col0 = blockIdx.x * BN;
    const int phases = CEIL_DIV(K, BK);
    float acc[TM][TN] = {};
    float regM[TM], regN[TN];

    for (int t = 0; t < phases; ++t) {  // @step:phase
        const int k0 = t * BK;
#pragma unroll
        for (int i = tid; i < BM * BK; i += THREADS) {
            const int m = i / BK, k = i % BK;
            As[i] = GUARD ? load_or_zero(A, row0 + m, k0 + k, M, K) : A[(row0 + m) * K + k0 + k];  // @step:load_a
            TRACE_SLOT_A(phases, t, BM * BK, i, src_or_pad(row0 + m, k0 + k, M, K));
        }
#pragma unroll
        for (int i = tid; i < BK * BN; i += THREADS) {
            const int k = i / BN, n = i % BN;
            Bs[i] = GUARD ? load_or_zero(B, k0 + k, col0 + n, K, N) : B[(k0 + k) * N + col0 + n];  // @step:load_b
            TRACE_SLOT_B(phases, t, BK * BN, i, src_or_pad(k0 + k, col0 + n, K, N));
        }
        __syncthreads();  // @step:barrier1

#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i) regM[i] = As[(trow * TM + i) * BK + k];
#pragma unroll
            for (int j = 0; j < TN; ++j) regN[j] = Bs[k * BN + tcol * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i) {
#pragma unroll
                for (int j = 0; j < TN; ++j) {
                    acc[i][j] += regM[i] * regN[j];  // @step:compute
                }
            }
        }
        __syncthreads();  // @step:barrier2
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int row = row0 + trow * TM + i, col = col0 + tcol * TN + j;
            if (!GUARD || (row < M && col < N)) {
                C[row * N + col] = acc[i][j];  // @step:store
                TRACE_OUT(TM * TN, i * TN + j, row * N + col);
            }
        }
    }
}
