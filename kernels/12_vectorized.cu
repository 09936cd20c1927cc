// kernels/12_vectorized.cu -- 2D block tiling with 16-byte (float4) accesses and A transposed in
// shared memory (siboehm kernel 6). The "float4 loads" that the lab report lists among the next steps.
//
// What it teaches
//   Kernel 11 issues one 4-byte instruction per element it moves. Here every global load, every
//   shared read and every C store moves 4 consecutive floats in one 16-byte instruction (LDG.128,
//   LDS.128, STG.128): a quarter of the load/store instructions, so more issue slots for FMAs.
//   For the shared reads of A to be 16 bytes wide, a thread's TM values of As must be adjacent:
//   As is stored transposed, As[k * BM + m] (a column of the A window becomes a row of As).
//   The copy reads A in float4s along k (a row of A) and writes the 4 values to 4 rows of As.
//   A float4 needs a 16-byte aligned address: the fast path (GUARD = false, BM | M, BN | N,
//   BK | K) has it; the edge path (GUARD = true) loads element by element with padding zeros.
//
// Launch (explainer/gpu/launch.py launch_config, parameters in explainer/model/ladder.py): 1D blocks of
// (BM/TM)*(BN/TN) threads, grid (ceil(N/BN), ceil(M/BM)), static shared (BM*BK + BK*BN)*4 bytes.
// Correct for any M, N, K >= 1.
// Run it:  tiled-explainer bench --kernels vectorized --sizes 1024 4096
#include "common.cuh"

template <int BM, int BN, int BK, int TM, int TN, bool GUARD>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
vectorized_gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    constexpr int THREADS = (BM / TM) * (BN / TN);
    static_assert(BK % 4 == 0 && BN % 4 == 0 && TM % 4 == 0 && TN % 4 == 0, "float4 granules");
    __shared__ __align__(16) float As[BK * BM];  // transposed: As[k * BM + m]
    __shared__ __align__(16) float Bs[BK * BN];  // Bs[k * BN + n]

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
        for (int i = tid; i < BM * BK / 4; i += THREADS) {
            const int m = i / (BK / 4), kq = (i % (BK / 4)) * 4;
            const float4 v = load4_at<GUARD>(A, row0 + m, k0 + kq, M, K);  // @step:load_a
            As[(kq + 0) * BM + m] = v.x;  // @step:load_a
            As[(kq + 1) * BM + m] = v.y;  // @step:load_a
            As[(kq + 2) * BM + m] = v.z;  // @step:load_a
            As[(kq + 3) * BM + m] = v.w;  // @step:load_a
#pragma unroll
            for (int c = 0; c < 4; ++c)
                TRACE_SLOT_A(phases, t, BK * BM, (kq + c) * BM + m, src_or_pad(row0 + m, k0 + kq + c, M, K));
        }
#pragma unroll
        for (int i = tid; i < BK * BN / 4; i += THREADS) {
            const int k = i / (BN / 4), nq = (i % (BN / 4)) * 4;
            store4(&Bs[k * BN + nq], load4_at<GUARD>(B, k0 + k, col0 + nq, K, N));  // @step:load_b
#pragma unroll
            for (int c = 0; c < 4; ++c)
                TRACE_SLOT_B(phases, t, BK * BN, k * BN + nq + c, src_or_pad(k0 + k, col0 + nq + c, K, N));
        }
        __syncthreads();  // @step:barrier1

#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; i += 4) {
                const float4 v = load4(&As[k * BM + trow * TM + i]);
                regM[i] = v.x; regM[i + 1] = v.y; regM[i + 2] = v.z; regM[i + 3] = v.w;
            }
#pragma unroll
            for (int j = 0; j < TN; j += 4) {
                const float4 v = load4(&Bs[k * BN + tcol * TN + j]);
                regN[j] = v.x; regN[j + 1] = v.y; regN[j + 2] = v.z; regN[j + 3] = v.w;
            }
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
        const int row = row0 + trow * TM + i, col = col0 + tcol * TN;
        store_row<TN, GUARD>(C, row, col, M, N, acc[i]);  // @step:store
#pragma unroll
        for (int j = 0; j < TN; ++j)
            if (row < M && col + j < N) TRACE_OUT(TM * TN, i * TN + j, row * N + col + j);
    }
}
