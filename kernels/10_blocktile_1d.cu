// kernels/10_blocktile_1d.cu -- 1D block tiling: each thread computes TM outputs of one column of
// C (siboehm, "How to Optimize a CUDA Matmul Kernel", kernel 4). The first rung past the course
// material's shared-memory tile (the PMPP chapter 5 notes end at 5.4-5.5; the lab report names
// register blocking as the next step).
//
// What it teaches
//   The tiled kernel (03) does 2 shared-memory loads per multiply-add: the FMA units wait on
//   shared memory. Here a block of (BM/TM)*BN threads computes a BM x BN tile of C, and each
//   thread owns TM outputs stacked in a column. Per step k a thread reads ONE value of Bs into a
//   register and reuses it for TM multiply-adds against TM values of As: shared loads per FMA drop
//   from 2 to (1 + TM) / TM. The As/Bs windows are BM x BK and BK x BN, copied cooperatively: a
//   loop over the window's elements, THREADS at a time, each thread one element per pass.
//   Two barriers per phase, as in 03.
//   Boundary handling: the host picks GUARD = false when BM | M, BN | N and BK | K (no checks at
//   all) and GUARD = true otherwise (padding zeros for loads outside A / B, stores only inside C).
//
// Launch (explainer/gpu/launch.py launch_config, parameters in explainer/model/ladder.py): 1D blocks of
// (BM/TM)*BN threads, grid (ceil(N/BN), ceil(M/BM)), static shared (BM*BK + BK*BN)*4 bytes.
// Correct for any M, N, K >= 1.
// Run it:  tiled-explainer bench --kernels blocktile_1d --sizes 1024 4096
#include "common.cuh"

template <int BM, int BN, int BK, int TM, bool GUARD>
__global__ void __launch_bounds__((BM / TM) * BN)
blocktile_1d_gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    constexpr int THREADS = (BM / TM) * BN;
    __shared__ float As[BM * BK];  // As[m * BK + k]: rows of this block, columns k0 .. k0+BK-1
    __shared__ float Bs[BK * BN];  // Bs[k * BN + n]

    const int tid = threadIdx.x;
    const int tcol = tid % BN;  // @step:index
    const int trow = tid / BN;  // @step:index
    const int row0 = blockIdx.y * BM;
    const int col0 = blockIdx.x * BN;
    const int phases = CEIL_DIV(K, BK);
    float acc[TM] = {};

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
            const float b = Bs[k * BN + tcol];  // one shared load, reused TM times
#pragma unroll
            for (int r = 0; r < TM; ++r) {
                acc[r] += As[(trow * TM + r) * BK + k] * b;  // @step:compute
            }
        }
        __syncthreads();  // @step:barrier2
    }

#pragma unroll
    for (int r = 0; r < TM; ++r) {
        const int row = row0 + trow * TM + r, col = col0 + tcol;
        if (!GUARD || (row < M && col < N)) {
            C[row * N + col] = acc[r];  // @step:store
            TRACE_OUT(TM, r, row * N + col);
        }
    }
}
