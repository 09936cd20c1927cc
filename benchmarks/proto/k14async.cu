// Scratch prototype: kernel 14's warp tiling fed by a STAGES-deep cp.async pipeline (A stored
// [m][k] with rows of BK + 4 floats, a thread's TM rows strided by the lanes' row groups, so that
// a float4 of A along k is conflict-free), fast path only (M, N multiples of the tile, K of BK).
#include <cuda_runtime.h>
__device__ __forceinline__ void cp16(float* dst, const float* src)
{
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(d), "l"(src));
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;"); }
template <int N> __device__ __forceinline__ void wait_group() { asm volatile("cp.async.wait_group %0;" :: "n"(N)); }
__device__ __forceinline__ float el(const float4& v, int c) { return c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w; }

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int THREADS, int STAGES, int MINB, int KV>
__global__ void __launch_bounds__(THREADS, MINB)
async_gemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K)
{
    constexpr int WMITER = (WM * WN) / (32 * TM * TN * WNITER);
    constexpr int WSUBM = WM / WMITER, WSUBN = WN / WNITER;
    constexpr int RG = WSUBM / TM;
    constexpr int LDA = BK + 4;
    constexpr int A_STAGE = BM * LDA, B_STAGE = BK * BN;
    constexpr int AG = BM * BK / 4 / THREADS, BG = BK * BN / 4 / THREADS;
    static_assert(AG * THREADS * 4 == BM * BK && BG * THREADS * 4 == BK * BN, "even copy");
    static_assert((WSUBM / TM) * (WSUBN / TN) == 32, "lanes");
    extern __shared__ __align__(16) float smem[];
    float* As = smem;
    float* Bs = smem + STAGES * A_STAGE;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wrow = warp / (BN / WN), wcol = warp % (BN / WN);
    const int trow = lane / (WSUBN / TN), tcol = lane % (WSUBN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int P = K / BK;
    auto issue = [&](int t) {
        if (t < P) {
            float* as = As + (t % STAGES) * A_STAGE;
            float* bs = Bs + (t % STAGES) * B_STAGE;
#pragma unroll
            for (int q = 0; q < AG; ++q) {
                const int i = tid + q * THREADS, m = i / (BK / 4), kq = (i % (BK / 4)) * 4;
                cp16(as + m * LDA + kq, A + (size_t)(row0 + m) * K + t * BK + kq);
            }
#pragma unroll
            for (int q = 0; q < BG; ++q) {
                const int i = tid + q * THREADS, k = i / (BN / 4), nq = (i % (BN / 4)) * 4;
                cp16(bs + k * BN + nq, B + (size_t)(t * BK + k) * N + col0 + nq);
            }
        }
        commit();
    };
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) issue(s);
    float acc[WMITER * TM][WNITER * TN] = {};
    const int am = wrow * WM + trow;
    const int bn = wcol * WN + tcol * TN;
    for (int t = 0; t < P; ++t) {
        wait_group<STAGES - 2>();
        __syncthreads();
        issue(t + STAGES - 1);
        const float* as = As + (t % STAGES) * A_STAGE;
        const float* bs = Bs + (t % STAGES) * B_STAGE;
#pragma unroll
        for (int kk = 0; kk < BK; kk += KV) {
            float a[WMITER * TM][KV];
#pragma unroll
            for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
                for (int i = 0; i < TM; ++i) {
                    const float* p = &as[(am + wm * WSUBM + i * RG) * LDA + kk];
                    if (KV == 4) { const float4 v = *reinterpret_cast<const float4*>(p); a[wm * TM + i][0] = v.x; a[wm * TM + i][1] = v.y; a[wm * TM + i][KV > 2 ? 2 : 0] = v.z; a[wm * TM + i][KV > 3 ? 3 : 0] = v.w; }
                    else { const float2 v = *reinterpret_cast<const float2*>(p); a[wm * TM + i][0] = v.x; a[wm * TM + i][1] = v.y; }
                }
#pragma unroll
            for (int k = 0; k < KV; ++k) {
                float b[WNITER * TN];
#pragma unroll
                for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
                    for (int j = 0; j < TN; j += 4) {
                        const float4 v = *reinterpret_cast<const float4*>(&bs[(kk + k) * BN + bn + wn * WSUBN + j]);
                        b[wn * TN + j] = v.x; b[wn * TN + j + 1] = v.y; b[wn * TN + j + 2] = v.z; b[wn * TN + j + 3] = v.w;
                    }
#pragma unroll
                for (int i = 0; i < WMITER * TM; ++i)
#pragma unroll
                    for (int j = 0; j < WNITER * TN; ++j)
                        acc[i][j] += a[i][k] * b[j];
            }
        }
    }
#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const int row = row0 + am + wm * WSUBM + i * RG;
#pragma unroll
            for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
                for (int j = 0; j < TN; j += 4) {
                    const int col = col0 + bn + wn * WSUBN + j;
                    const float* s = &acc[wm * TM + i][wn * TN + j];
                    *reinterpret_cast<float4*>(&C[(size_t)row * N + col]) = make_float4(s[0], s[1], s[2], s[3]);
                }
        }
}
