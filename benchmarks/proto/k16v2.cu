// Prototype of the next kernel 16 (measurement only; see benchmarks/proto/k16v2.py).
#include "common.cuh"

#ifndef P_BM
#define P_BM 128
#endif
#ifndef P_BN
#define P_BN 256
#endif
#ifndef P_BK
#define P_BK 32
#endif
#ifndef P_WM
#define P_WM 64
#endif
#define P_WN 64
#ifndef P_STAGES
#define P_STAGES 3
#endif
#define P_THREADS (32 * (P_BM / P_WM) * (P_BN / P_WN))
#define P_MI (P_WM / 16)
#define P_NI (P_WN / 8)
#define P_KS (P_BK / 8)
#define P_LDA (P_BK + 4)
#define P_A_STAGE (P_BM * P_LDA)
#ifdef P_BSCALAR
#define P_LDB (P_BN + 8)
#else
#define P_LDB P_BN
#endif
#define P_B_STAGE (P_BK * P_LDB)

__device__ __forceinline__ unsigned rnd(float x)
{
#ifdef P_TRUNC
    return __float_as_uint(x);
#else
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
#endif
}
__device__ __forceinline__ void mma8(float d[4], const unsigned a[4], unsigned b0, unsigned b1)
{
#ifdef P_VOLATILE
    asm volatile(
#else
    asm(
#endif
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ void cp16(float* dst, const float* src)
{
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(d), "l"(src));
}
__device__ __forceinline__ void cp4(float* dst, const float* src, bool inside)
{
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" :: "r"(d), "l"(src), "r"(inside ? 4 : 0));
}
// Bs row k: 16-byte unit u lands at unit u ^ swz(k) (a 4-row pattern), so that the warp's
// 128-bit fragment loads of rows t and t + 4 hit 8 different bank groups per quarter warp.
#ifdef P_BSCALAR
__device__ __forceinline__ int swz(int k) { return 0; }
#else
__device__ __forceinline__ int swz(int k) { return (k & 1) | ((k & 2) << 1); }
#endif

extern "C" __global__ void __launch_bounds__(P_THREADS, 1)
k16v2(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K)
{
    extern __shared__ __align__(16) float smem[];
    float* As = smem;
    float* Bs = smem + P_STAGES * P_A_STAGE;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int g = lane / 4, t = lane % 4;
    const int wrow = (warp / (P_BN / P_WN)) * P_WM, wcol = (warp % (P_BN / P_WN)) * P_WN;
    const int row0 = blockIdx.y * P_BM, col0 = blockIdx.x * P_BN;
    const int phases = (K + P_BK - 1) / P_BK;
    const bool rows16 = ((K & 3) == 0) && ((N & 3) == 0);
    const bool inner = rows16 && row0 + P_BM <= M && col0 + P_BN <= N;

    // copies: A granules (m = tid / (BK/4) + j * rowsA, kq fixed), B granules (k = tid / (BN/4) + j * rowsB)
    constexpr int A_GPR = P_BK / 4, B_GPR = P_BN / 4;  // granules per row
    constexpr int A_J = P_BM * A_GPR / P_THREADS, B_J = P_BK * B_GPR / P_THREADS;
    constexpr int A_ROWS = P_THREADS / A_GPR, B_ROWS = P_THREADS / B_GPR;
    const int am = tid / A_GPR, akq = (tid % A_GPR) * 4;
    const int bk = tid / B_GPR, bu = tid % B_GPR;
    const float* a_src = A + (long long)(row0 + am) * K + akq;
    const float* b_src = B + (long long)bk * N + col0 + bu * 4;
    const int a_dst = am * P_LDA + akq;
    const int b_dst = bk * P_LDB + ((bu ^ swz(bk)) * 4);  // swz(bk + j * B_ROWS) == swz(bk): B_ROWS % 4 == 0

    auto issue = [&](int ph, int s, int part) {
        const int k0 = ph * P_BK;
        float* as = As + s * P_A_STAGE;
        float* bs = Bs + s * P_B_STAGE;
        if (inner && k0 + P_BK <= K) {
            if (part != 1)
#pragma unroll
            for (int j = 0; j < A_J; ++j) cp16(as + a_dst + j * A_ROWS * P_LDA, a_src + k0 + (long long)j * A_ROWS * K);
            if (part != 0)
#pragma unroll
            for (int j = 0; j < B_J; ++j) cp16(bs + b_dst + j * B_ROWS * P_LDB, b_src + (long long)(k0 + j * B_ROWS) * N);
        } else {
            if (part != 1)
#pragma unroll
            for (int j = 0; j < A_J; ++j) {
                const int r = row0 + am + j * A_ROWS, c = k0 + akq;
                float* dst = as + a_dst + j * A_ROWS * P_LDA;
                if (rows16 && r < M && c + 3 < K) cp16(dst, A + (long long)r * K + c);
                else for (int e = 0; e < 4; ++e) { const bool in = r < M && c + e < K; cp4(dst + e, in ? A + (long long)r * K + c + e : A, in); }
            }
            if (part != 0)
#pragma unroll
            for (int j = 0; j < B_J; ++j) {
                const int r = k0 + bk + j * B_ROWS, c = col0 + bu * 4;
                float* dst = bs + b_dst + j * B_ROWS * P_LDB;
                if (rows16 && r < K && c + 3 < N) cp16(dst, B + (long long)r * N + c);
                else for (int e = 0; e < 4; ++e) { const bool in = r < K && c + e < N; cp4(dst + e, in ? B + (long long)r * N + c + e : B, in); }
            }
        }
    };

    // fragment addresses: A by ldmatrix (lane gives a row of matrix lane / 8), B by 128-bit loads
    const unsigned a_frag = (unsigned)__cvta_generic_to_shared(
        As + (wrow + ((lane >> 3) & 1) * 8 + (lane & 7)) * P_LDA + (lane >> 4) * 4);
    const int b_frag0 = t * P_BN + wcol + ((2 * g) ^ swz(t)) * 4;
    const int b_frag1 = t * P_BN + wcol + ((2 * g + 1) ^ swz(t)) * 4;

    unsigned af[2][P_MI][4], bf[2][P_NI][2];
    auto load = [&](int buf, int stage, int kk) {
#pragma unroll
        for (int mi = 0; mi < P_MI; ++mi) {
            const unsigned addr = a_frag + (unsigned)((stage * P_A_STAGE + mi * 16 * P_LDA + kk) * 4);
            unsigned r0, r1, r2, r3;
            asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                         : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
            af[buf][mi][0] = rnd(__uint_as_float(r0));
            af[buf][mi][1] = rnd(__uint_as_float(r1));
            af[buf][mi][2] = rnd(__uint_as_float(r2));
            af[buf][mi][3] = rnd(__uint_as_float(r3));
        }
#ifdef P_BSCALAR
        const float* bs = Bs + stage * P_B_STAGE + (kk + t) * P_LDB + wcol + g;
#pragma unroll
        for (int ni = 0; ni < P_NI; ++ni) {
            bf[buf][ni][0] = rnd(bs[ni * 8]);
            bf[buf][ni][1] = rnd(bs[4 * P_LDB + ni * 8]);
        }
#else
        const float* bs = Bs + stage * P_B_STAGE + kk * P_BN;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const float4 lo = *(const float4*)(bs + (h ? b_frag1 : b_frag0));
            const float4 hi = *(const float4*)(bs + 4 * P_BN + (h ? b_frag1 : b_frag0));
            bf[buf][4 * h + 0][0] = rnd(lo.x); bf[buf][4 * h + 1][0] = rnd(lo.y);
            bf[buf][4 * h + 2][0] = rnd(lo.z); bf[buf][4 * h + 3][0] = rnd(lo.w);
            bf[buf][4 * h + 0][1] = rnd(hi.x); bf[buf][4 * h + 1][1] = rnd(hi.y);
            bf[buf][4 * h + 2][1] = rnd(hi.z); bf[buf][4 * h + 3][1] = rnd(hi.w);
        }
#endif
    };

    float acc[P_MI][P_NI][4] = {};
#pragma unroll
    for (int ph = 0; ph < P_STAGES - 1; ++ph) {
        if (ph < phases) issue(ph, ph, 2);
        asm volatile("cp.async.commit_group;");
    }
#ifdef P_SIMPLE
    for (int ph = 0; ph < phases; ++ph) {
        const int stage = ph % P_STAGES;
        asm volatile("cp.async.wait_group %0;" :: "n"(P_STAGES - 2));
        __syncthreads();
        if (ph + P_STAGES - 1 < phases) issue(ph + P_STAGES - 1, (ph + P_STAGES - 1) % P_STAGES, 2);
        asm volatile("cp.async.commit_group;");
        load(0, stage, 0);
#pragma unroll
        for (int s = 0; s < P_KS; ++s) {
            if (s + 1 < P_KS) load((s + 1) & 1, stage, (s + 1) * 8);
#pragma unroll
            for (int mi = 0; mi < P_MI; ++mi)
#pragma unroll
                for (int ni = 0; ni < P_NI; ++ni)
                    mma8(acc[mi][ni], af[s & 1][mi], bf[s & 1][ni][0], bf[s & 1][ni][1]);
        }
    }
#else
    asm volatile("cp.async.wait_group %0;" :: "n"(P_STAGES - 2));
    __syncthreads();
    load(0, 0, 0);

    int stage = 0, wstage = P_STAGES - 1;  // the stage computed on, the stage the copies fill
    for (int ph = 0; ph < phases; ++ph) {
        const int next = stage + 1 == P_STAGES ? 0 : stage + 1;
#pragma unroll
        for (int s = 0; s < P_KS; ++s) {
            if (s == P_KS - 1) {
                asm volatile("cp.async.wait_group %0;" :: "n"(P_STAGES - 2));
                __syncthreads();
            }
            if (s + 1 < P_KS) load((s + 1) & 1, stage, (s + 1) * 8);
            else load((s + 1) & 1, next, 0);  // past the end: reads a stale stage, unused
#ifdef P_SPLIT
            if (s == 0 && ph + P_STAGES - 1 < phases) issue(ph + P_STAGES - 1, wstage, 0);
            if (s == 1) {
                if (ph + P_STAGES - 1 < phases) issue(ph + P_STAGES - 1, wstage, 1);
                asm volatile("cp.async.commit_group;");
            }
#else
            if (s == 0) {
                if (ph + P_STAGES - 1 < phases) issue(ph + P_STAGES - 1, wstage, 2);
                asm volatile("cp.async.commit_group;");
            }
#endif
#pragma unroll
            for (int mi = 0; mi < P_MI; ++mi)
#pragma unroll
                for (int n = 0; n < P_NI; ++n) {
#ifdef P_SERP
                    const int ni = (mi & 1) ? P_NI - 1 - n : n;
#else
                    const int ni = n;
#endif
                    mma8(acc[mi][ni], af[s & 1][mi], bf[s & 1][ni][0], bf[s & 1][ni][1]);
                }
        }
        stage = next;
        wstage = wstage + 1 == P_STAGES ? 0 : wstage + 1;
    }
#endif
    asm volatile("cp.async.wait_group 0;");

#ifdef P_BSCALAR
#pragma unroll
    for (int mi = 0; mi < P_MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < P_NI; ++ni)
#pragma unroll
            for (int hr = 0; hr < 2; ++hr) {
                const int row = row0 + wrow + mi * 16 + g + hr * 8, col = col0 + wcol + ni * 8 + 2 * t;
                if (inner) *(float2*)(C + (long long)row * N + col) = make_float2(acc[mi][ni][2 * hr], acc[mi][ni][2 * hr + 1]);
                else if (row < M) {
                    if (col < N) C[(long long)row * N + col] = acc[mi][ni][2 * hr];
                    if (col + 1 < N) C[(long long)row * N + col + 1] = acc[mi][ni][2 * hr + 1];
                }
            }
#else
    // thread (g, t) holds, in row g (+8) of m-tile mi, columns wcol + 16 t + [0, 16): c0 of n-tiles 0..7, then c1
#pragma unroll
    for (int mi = 0; mi < P_MI; ++mi) {
#pragma unroll
        for (int hr = 0; hr < 2; ++hr) {
            const int row = row0 + wrow + mi * 16 + g + hr * 8;
            const int col = col0 + wcol + 16 * t;
            float v[16];
#pragma unroll
            for (int ni = 0; ni < P_NI; ++ni) { v[ni] = acc[mi][ni][2 * hr]; v[8 + ni] = acc[mi][ni][2 * hr + 1]; }
            if (inner) {
                float4* dst = (float4*)(C + (long long)row * N + col);
#pragma unroll
                for (int q = 0; q < 4; ++q) dst[q] = make_float4(v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3]);
            } else if (row < M) {
#pragma unroll
                for (int e = 0; e < 16; ++e) if (col + e < N) C[(long long)row * N + col + e] = v[e];
            }
        }
    }
#endif
}
