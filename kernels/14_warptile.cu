// kernels/14_warptile.cu -- warp tiling on top of kernel 13 (float4, A transposed, double
// buffering): the last FP32 rung, where the ladder that starts at the course notes' shared-memory
// tile (PMPP chapter 5) reaches about 90% of cuBLAS. siboehm's kernel 10 plus double buffering.
//
// What it teaches
//   Kernels 11-13 give each thread one contiguous TM x TN block of C. Two things go wrong: the
//   float4 reads of Bs by the 32 threads of a warp are TN*4 bytes apart (bank conflicts), and
//   nothing ties a warp to a compact region, so a warp's shared reads are spread out.
//   Here the block tile BM x BN is cut into warp tiles WM x WN (one per warp), each warp tile
//   into WMITER x WNITER sub-tiles of WSUBM x WSUBN, and in every sub-tile the 32 lanes form a
//   (WSUBM/TM) x (WSUBN/TN) grid of TM x TN micro-tiles. A thread owns WMITER*WNITER micro-tiles
//   spaced WSUBM rows and WSUBN columns apart. Per step k the lanes of a warp read adjacent
//   float4s of As and Bs (no bank conflicts, broadcasts where lanes share a row), and a thread
//   does (WMITER*TM) x (WNITER*TN) multiply-adds for WMITER*TM/4 + WNITER*TN/4 LDS.128.
//   As is transposed with rows padded to BM + PAD floats, so that the 4 scalar stores of a
//   transposed float4 land in different banks. One barrier per phase (see kernel 13).
//   The three levels of tiling are the same idea three times: block tile (shared memory, reuse
//   across warps), warp tile (reuse across lanes, through broadcast), thread tile (registers).
//
// Edges: GUARD as in kernels 12-13. The fast instantiation (GUARD = false) runs when the block
// tile divides M, N and K; the guarded one copies padding zeros outside A and B and stores only
// inside C, so it is correct for any M, N, K >= 1. (A tuned version that picks a tile shape per
// problem, splits K and treats edges block by block lives apart, in kernels/tuned/: not part of
// the lesson.)
// Launch (explainer/gpu/launch.py launch_config, parameters in explainer/model/ladder.py): 1D blocks of
// THREADS threads, grid (ceil(N/BN), ceil(M/BM)), static shared 2*(BK*(BM+PAD) + BK*BN)*4 bytes.
// Run it:  tiled-explainer bench --kernels warptile --sizes 1024 4096
#include "common.cuh"

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int THREADS,
          int PAD, int MINB, bool GUARD>
__global__ void __launch_bounds__(THREADS, MINB)
warptile_gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    constexpr int WMITER = (WM * WN) / (32 * TM * TN * WNITER);
    constexpr int WSUBM = WM / WMITER, WSUBN = WN / WNITER;  // one sub-tile of a warp
    constexpr int LDA = BM + PAD;                            // row length of the transposed As
    constexpr int A4 = BM * BK / 4 / THREADS;
    constexpr int B4 = BK * BN / 4 / THREADS;
    static_assert((BM / WM) * (BN / WN) == THREADS / 32, "one warp tile per warp");
    static_assert(WMITER >= 1 && (WSUBM / TM) * (WSUBN / TN) == 32, "32 lanes per sub-tile");
    static_assert(A4 * THREADS * 4 == BM * BK && B4 * THREADS * 4 == BK * BN, "even copy");
    static_assert(BK % 4 == 0 && BN % 4 == 0 && TM % 4 == 0 && TN % 4 == 0 && PAD % 4 == 0,
                  "float4 granules");
    __shared__ __align__(16) float As[2][BK * LDA];  // transposed, padded: As[buf][k * LDA + m]
    __shared__ __align__(16) float Bs[2][BK * BN];   // Bs[buf][k * BN + n]

    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int wrow = warp / (BN / WN), wcol = warp % (BN / WN);      // @step:index
    const int trow = lane / (WSUBN / TN), tcol = lane % (WSUBN / TN);  // @step:index
    const int row0 = blockIdx.y * BM;
    const int col0 = blockIdx.x * BN;
    const int phases = CEIL_DIV(K, BK);
    float acc[WMITER * TM][WNITER * TN] = {};
    float regM[WMITER * TM], regN[WNITER * TN];
    float4 ra[A4], rb[B4];

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
    auto stash = [&](int t) {
        float* as = As[t & 1];
        float* bs = Bs[t & 1];
        const int k0 = t * BK;
        (void)k0;
#pragma unroll
        for (int q = 0; q < A4; ++q) {
            const int i = tid + q * THREADS, m = i / (BK / 4), kq = (i % (BK / 4)) * 4;
            as[(kq + 0) * LDA + m] = ra[q].x;  // @step:load_a
            as[(kq + 1) * LDA + m] = ra[q].y;  // @step:load_a
            as[(kq + 2) * LDA + m] = ra[q].z;  // @step:load_a
            as[(kq + 3) * LDA + m] = ra[q].w;  // @step:load_a
#pragma unroll
            for (int c = 0; c < 4; ++c)
                TRACE_SLOT_A(phases, t, BK * LDA, (kq + c) * LDA + m, src_or_pad(row0 + m, k0 + kq + c, M, K));
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

    const int am = wrow * WM + trow * TM;  // this thread's first row inside the block tile
    const int bn = wcol * WN + tcol * TN;  // and its first column
    for (int t = 0; t < phases; ++t) {  // @step:phase
        if (t + 1 < phases) fetch(t + 1);
        const float* as = As[t & 1];
        const float* bs = Bs[t & 1];
#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int wm = 0; wm < WMITER; ++wm) {
#pragma unroll
                for (int i = 0; i < TM; i += 4) {
                    const float4 v = load4(&as[k * LDA + am + wm * WSUBM + i]);
                    regM[wm * TM + i] = v.x; regM[wm * TM + i + 1] = v.y;
                    regM[wm * TM + i + 2] = v.z; regM[wm * TM + i + 3] = v.w;
                }
            }
#pragma unroll
            for (int wn = 0; wn < WNITER; ++wn) {
#pragma unroll
                for (int j = 0; j < TN; j += 4) {
                    const float4 v = load4(&bs[k * BN + bn + wn * WSUBN + j]);
                    regN[wn * TN + j] = v.x; regN[wn * TN + j + 1] = v.y;
                    regN[wn * TN + j + 2] = v.z; regN[wn * TN + j + 3] = v.w;
                }
            }
#pragma unroll
            for (int i = 0; i < WMITER * TM; ++i) {
#pragma unroll
                for (int j = 0; j < WNITER * TN; ++j) {
                    acc[i][j] += regM[i] * regN[j];  // @step:compute
                }
            }
        }
        if (t + 1 < phases) stash(t + 1);
        __syncthreads();  // @step:barrier1
    }

#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm) {
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const int row = row0 + am + wm * WSUBM + i;
#pragma unroll
            for (int wn = 0; wn < WNITER; ++wn) {
                const int col = col0 + bn + wn * WSUBN;
                store_row<TN, GUARD>(C, row, col, M, N, &acc[wm * TM + i][wn * TN]);  // @step:store
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    if (row < M && col + j < N)
                        TRACE_OUT(WMITER * TM * WNITER * TN, (wm * TM + i) * WNITER * TN + wn * TN + j,
                                  row * N + col + j);
            }
        }
    }
}
