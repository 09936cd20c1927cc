// kernels/13_double_buffered.cu -- kernel 12 with two shared-memory buffers and register staging,
// so that the global loads of tile t+1 are in flight while the block computes on tile t (the
// "double buffering" that the lab report lists with register blocking and float4 loads).
//
// What it teaches
//   In kernels 10-12 every phase runs load -> barrier -> compute -> barrier: while the block
//   waits for DRAM nothing computes, and while it computes nothing loads (a few other resident
//   blocks hide part of it). Here As and Bs have two buffers each. In phase t a thread first
//   issues its global loads of tile t+1 into registers (ra, rb), which takes no time to issue;
//   then multiplies out tile t from buffer t % 2 while those loads travel; then writes the
//   registers into buffer (t+1) % 2. One barrier per phase is enough: buffer (t+1) % 2 was last
//   read in phase t-1, which every thread finished before the previous barrier (so the
//   write-after-read hazard of kernel 03's barrier 2 cannot happen), and the barrier at the end
//   of phase t makes the new tile visible before phase t+1 reads it (read-after-write).
//   The cost: twice the shared memory, and the staging registers.
//
// Launch (explainer/gpu/launch.py launch_config, parameters in explainer/model/ladder.py): 1D blocks of
// (BM/TM)*(BN/TN) threads, grid (ceil(N/BN), ceil(M/BM)), static shared 2*(BM*BK + BK*BN)*4
// bytes. Correct for any M, N, K >= 1 (GUARD as in kernel 12).
// Run it:  tiled-explainer bench --kernels double_buffered --sizes 1024 4096
#include "common.cuh"

template <int BM, int BN, int BK, int TM, int TN, bool GUARD>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
double_buffered_gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    constexpr int THREADS = (BM / TM) * (BN / TN);
    constexpr int A4 = BM * BK / 4 / THREADS;  // float4s of A one thread copies per tile
    constexpr int B4 = BK * BN / 4 / THREADS;
    static_assert(A4 * THREADS * 4 == BM * BK && B4 * THREADS * 4 == BK * BN, "even copy");
    static_assert(BK % 4 == 0 && BN % 4 == 0 && TM % 4 == 0 && TN % 4 == 0, "float4 granules");
    __shared__ __align__(16) float As[2][BK * BM];  // transposed: As[buf][k * BM + m]
    __shared__ __align__(16) float Bs[2][BK * BN];  // Bs[buf][k * BN + n]

    const int tid = threadIdx.x;
    const int tcol = tid % (BN / TN);  // @step:index
    const int trow = tid / (BN / TN);  // @step:index
    const int row0 = blockIdx.y * BM;
    const int col0 = blockIdx.x * BN;
    const int phases = CEIL_DIV(K, BK);
    float acc[TM][TN] = {};
    float regM[TM], regN[TN];
    float4 ra[A4], rb[B4];  // the staging registers: tile t+1 on its way from DRAM

    // global -> registers (issue only: nothing waits for the data until stash)
    auto fetch = [&](int t) {
        const int k0 = t * BK;
#pragma unroll
        for (int q = 0; q < A4; ++q) {
            const int i = tid + q * THREADS, m = i / (BK / 4), kq = (i % (BK / 4)) * 4;
            ra[q] = load4_at<GUARD>(A, row0 + m, k0 + kq, M, K);  // @step:load_a
        }
#pragma unroll
        for (int q = 0; q < B4; ++q) {
            const int i = tid + q * THREADS, k = i / (BN / 4), nq = (i % (BN / 4)) * 4;
            rb[q] = load4_at<GUARD>(B, k0 + k, col0 + nq, K, N);  // @step:load_b
        }
    };
    // registers -> shared buffer t % 2
    auto stash = [&](int t) {
        float* as = As[t & 1];
        float* bs = Bs[t & 1];
        const int k0 = t * BK;
        (void)k0;
#pragma unroll
        for (int q = 0; q < A4; ++q) {
            const int i = tid + q * THREADS, m = i / (BK / 4), kq = (i % (BK / 4)) * 4;
            as[(kq + 0) * BM + m] = ra[q].x;  // @step:load_a
            as[(kq + 1) * BM + m] = ra[q].y;  // @step:load_a
            as[(kq + 2) * BM + m] = ra[q].z;  // @step:load_a
            as[(kq + 3) * BM + m] = ra[q].w;  // @step:load_a
#pragma unroll
            for (int c = 0; c < 4; ++c)
                TRACE_SLOT_A(phases, t, BK * BM, (kq + c) * BM + m, src_or_pad(row0 + m, k0 + kq + c, M, K));
        }
#pragma unroll
        for (int q = 0; q < B4; ++q) {
            const int i = tid + q * THREADS, k = i / (BN / 4), nq = (i % (BN / 4)) * 4;
            store4(&bs[k * BN + nq], rb[q]);  // @step:load_b
#pragma unroll
            for (int c = 0; c < 4; ++c)
                TRACE_SLOT_B(phases, t, BK * BN, k * BN + nq + c, src_or_pad(k0 + k, col0 + nq + c, K, N));
        }
    };

    fetch(0);
    stash(0);
    __syncthreads();  // @step:barrier1

    for (int t = 0; t < phases; ++t) {  // @step:phase
        if (t + 1 < phases) fetch(t + 1);  // tile t+1: in flight during the compute below
        const float* as = As[t & 1];
        const float* bs = Bs[t & 1];
#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; i += 4) {
                const float4 v = load4(&as[k * BM + trow * TM + i]);
                regM[i] = v.x; regM[i + 1] = v.y; regM[i + 2] = v.z; regM[i + 3] = v.w;
            }
#pragma unroll
            for (int j = 0; j < TN; j += 4) {
                const float4 v = load4(&bs[k * BN + tcol * TN + j]);
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
        if (t + 1 < phases) stash(t + 1);  // into the other buffer: nobody reads it now
        __syncthreads();  // @step:barrier1
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
