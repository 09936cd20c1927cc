// benchmarks/mma_feed.cu -- how fast can mma.sync TF32 run when its fragments come from shared memory?
// Kernel 16's inner loop with nothing from global memory: each warp reads the fragments of its warp
// tile from shared memory (filled once) k-step after k-step, rounds them to TF32 (or not), and runs
// the mma.sync; every block cycles through STAGES buffers of BK columns as kernel 16 does. A real
// kernel also copies its tiles in from global memory and stores C, so its rate is at most this one's:
// the ceiling of an mma.sync kernel with this feeding. benchmarks/mma_feed.py launches the variants.
// Not a teaching kernel.
//
// Variants (-D):
//   FEED_MT   m16 tiles per warp (4: 64 rows, kernel 16's; 6: 96 rows)
//   FEED_NT   n8 tiles per warp (8: 64 columns)
//   FEED_B    0: B's fragments by scalar loads from Bs[k][n] (row-major B, kernel 16's layout);
//             1: by ldmatrix.x4 from Bs[n][k] (as if B were stored K-major, CUTLASS's "B col")
//   FEED_CVT  1: tf32_bits (common.cuh: cvt.rn.tf32.f32) on every fragment element (kernel 16);
//             0: none (truncation)
//   FEED_BAR  1: one __syncthreads() per BK (kernel 16's phase barrier); 0: none
//   FEED_DB   1: the next k-step's fragments loaded before this one's mma.sync (two register sets,
//             kernel 16); 0: one set, loaded at the top of each k-step
//   FEED_LOADS 1: fragments loaded every k-step; 0: loaded once before the loop and reused (the
//             tensor cores' work alone: the register-only ceiling of mma.sync on this warp tile)
//   FEED_SMEM_FLOATS  (optional) the shared-memory floats the launcher allocates: checked below
#ifndef FEED_MT
#define FEED_MT 4
#endif
#ifndef FEED_NT
#define FEED_NT 8
#endif
#ifndef FEED_B
#define FEED_B 0
#endif
#ifndef FEED_CVT
#define FEED_CVT 1
#endif
#ifndef FEED_BAR
#define FEED_BAR 1
#endif
#ifndef FEED_DB
#define FEED_DB 1
#endif
#ifndef FEED_LOADS
#define FEED_LOADS 1
#endif
#define WARPS_M 2
#define WARPS_N 4
#define THREADS (32 * WARPS_M * WARPS_N)
#define BM (WARPS_M * FEED_MT * 16)
#define BN (WARPS_N * FEED_NT * 8)
#define BK 32
#define STAGES 3
#define KSTEPS (BK / 8)
#define LDA (BK + 4)
#if FEED_B == 0
#define LDB (BN + 8)
#define B_STAGE (BK * LDB)
#else
#define LDB (BK + 4)
#define B_STAGE (BN * LDB)
#endif
#define A_STAGE (BM * LDA)
#define SMEM_FLOATS (STAGES * (A_STAGE + B_STAGE))
#if !FEED_CVT
#define EXPLAINER_TF32_TRUNCATE  // common.cuh's tf32_bits then rounds nothing
#endif
#include "common.cuh"  // tf32_bits (cvt.rn.tf32 on sm_90) and mma_m16n8k8, as kernels 15 and 16 use them
#ifdef FEED_SMEM_FLOATS
static_assert(SMEM_FLOATS == FEED_SMEM_FLOATS, "benchmarks/mma_feed.py allocates another amount of shared memory");
#endif

__device__ __forceinline__ void ldsm_x4(unsigned r[4], unsigned a)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
}

extern "C" __global__ void __launch_bounds__(THREADS, 1) mma_feed(const float* __restrict__ fill, float* out, int phases)
{
    extern __shared__ __align__(16) float smem[];
    float* As = smem;
    float* Bs = smem + STAGES * A_STAGE;
    for (int i = threadIdx.x; i < SMEM_FLOATS; i += THREADS) smem[i] = fill[i];  // random data, once
    __syncthreads();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int wrow = (warp / WARPS_N) * FEED_MT * 16, wcol = (warp % WARPS_N) * FEED_NT * 8;
    const unsigned a_base = (unsigned)__cvta_generic_to_shared(As + (wrow + (lane / 8) % 2 * 8 + lane % 8) * LDA + lane / 16 * 4);
#if FEED_B == 1
    // matrix i of an x4 = n8 tile ni + i / 2, k half i % 2: lane l gives row n = l % 8 of it
    const unsigned b_base = (unsigned)__cvta_generic_to_shared(Bs + (wcol + lane / 16 * 8 + lane % 8) * LDB + (lane / 8) % 2 * 4);
#else
    const float* b_base = Bs + t * LDB + wcol + g;
#endif
    unsigned a[FEED_DB + 1][FEED_MT][4], b[FEED_DB + 1][FEED_NT][2];
    auto load = [&](int f, int st, int s) {
        const int kk = s * 8;
#pragma unroll
        for (int mi = 0; mi < FEED_MT; ++mi) {
            ldsm_x4(a[f][mi], a_base + 4 * (st * A_STAGE + mi * 16 * LDA + kk));
#pragma unroll
            for (int i = 0; i < 4; ++i) a[f][mi][i] = tf32_bits(__uint_as_float(a[f][mi][i]));
        }
#if FEED_B == 1
#pragma unroll
        for (int np = 0; np < FEED_NT / 2; ++np) {
            unsigned r[4];
            ldsm_x4(r, b_base + 4 * (st * B_STAGE + np * 16 * LDB + kk));
            b[f][2 * np][0] = tf32_bits(__uint_as_float(r[0]));
            b[f][2 * np][1] = tf32_bits(__uint_as_float(r[1]));
            b[f][2 * np + 1][0] = tf32_bits(__uint_as_float(r[2]));
            b[f][2 * np + 1][1] = tf32_bits(__uint_as_float(r[3]));
        }
#else
#pragma unroll
        for (int ni = 0; ni < FEED_NT; ++ni) {
            const float* p = b_base + st * B_STAGE + kk * LDB + ni * 8;
            b[f][ni][0] = tf32_bits(p[0]);
            b[f][ni][1] = tf32_bits(p[4 * LDB]);
        }
#endif
    };
    float acc[FEED_MT][FEED_NT][4] = {};
#if FEED_DB || !FEED_LOADS
    load(0, 0, 0);
#endif
    int st = 0;
    for (int ph = 0; ph < phases; ++ph) {
        const int next = st + 1 == STAGES ? 0 : st + 1;
#pragma unroll
        for (int s = 0; s < KSTEPS; ++s) {
#if !FEED_LOADS
#if FEED_BAR
            if (s == KSTEPS - 1) __syncthreads();
#endif
            const int f = 0;
#elif FEED_DB
            if (s == KSTEPS - 1) {
#if FEED_BAR
                __syncthreads();
#endif
                load((s + 1) % 2, next, 0);
            } else {
                load((s + 1) % 2, st, s + 1);
            }
            const int f = s % 2;
#else
#if FEED_BAR
            if (s == KSTEPS - 1) __syncthreads();
#endif
            load(0, st, s);
            const int f = 0;
#endif
#pragma unroll
            for (int mi = 0; mi < FEED_MT; ++mi)
#pragma unroll
                for (int ni = 0; ni < FEED_NT; ++ni) mma_m16n8k8(acc[mi][ni], a[f][mi], b[f][ni]);
        }
        st = next;
    }
    float sum = 0.f;
#pragma unroll
    for (int mi = 0; mi < FEED_MT; ++mi)
#pragma unroll
        for (int ni = 0; ni < FEED_NT; ++ni) sum += acc[mi][ni][0] + acc[mi][ni][1] + acc[mi][ni][2] + acc[mi][ni][3];
    out[blockIdx.x * THREADS + threadIdx.x] = sum;  // keeps every product alive
}
