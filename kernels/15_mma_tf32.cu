// kernels/15_mma_tf32.cu -- tensor cores: the shared-memory tiling of kernel 03 (the PMPP chapter 5 notes'
// As / Bs and two barriers per phase), with the multiply-adds done by the warp-wide TF32
// instruction mma.sync.m16n8k8 instead of one FMA per thread. The model: explainer/model/mma.py.
//
// What it teaches
//   An mma.sync is issued by a whole warp at once: the 32 lanes together multiply a 16 x 8 tile
//   of A by an 8 x 8 tile of B and add a 16 x 8 tile of C. No lane holds a whole row: each holds
//   a fragment, registers whose elements the PTX ISA fixes. With g = lane / 4, t = lane % 4:
//     A (16 x 8)  a0 = (g, t)  a1 = (g + 8, t)  a2 = (g, t + 4)  a3 = (g + 8, t + 4)
//     B (8 x 8)   b0 = (t, g)  b1 = (t + 4, g)                                (k, n)
//     C (16 x 8)  c0 = (g, 2t) c1 = (g, 2t + 1) c2 = (g + 8, 2t) c3 = (g + 8, 2t + 1)
//   So the code reads each fragment register from shared memory at exactly those places. The
//   block (4 warps) computes a 64 x 64 tile of C in phases of BK = 16 (2 k-steps of 8); each
//   warp owns a 32 x 32 warp tile: 2 x 4 m16n8 tiles, 8 mma.sync per k-step. TF32 keeps 10 of
//   float32's 23 mantissa bits: a cvt rounds every A and B element to nearest before the product
//   (cvt.rna.tf32.f32, ties away from zero; on compute capability 9.0 cvt.rn, ties to even: one
//   instruction there). Results differ from FP32 by about 1e-3 relative; the page measures it.
//   Loads are plain 4-byte copies, consecutive lanes along a row (staged cp.async copies are the
//   next rung). As and Bs are padded (BK + 4, BN + 8 floats per row) so that the 32 lanes'
//   fragment reads hit 32 different banks.
//
// Launch (explainer/gpu/launch.py launch_config, geometry in explainer/model/mma.py): 1D blocks
// of 128 threads, grid (ceil(N/64), ceil(M/64)), static shared 64*20*4 + 16*72*4 = 9728 bytes.
// Needs compute capability 8.0 or newer. Correct for any M, N, K >= 1 (padding zeros outside).
// Run it:  python benchmarks/bench_mma.py / pytest -m gpu tests/test_gpu_mma.py
#include "common.cuh"

#define MMA_BM 64
#define MMA_BN 64
#define MMA_BK 16
#define MMA_WM 32
#define MMA_WN 32
#define MMA_THREADS 128
#define MMA_MITER (MMA_WM / 16)
#define MMA_NITER (MMA_WN / 8)
#define MMA_KSTEPS (MMA_BK / 8)
#define MMA_WARPS (MMA_THREADS / 32)
#define MMA_LDA (MMA_BK + 4)
#define MMA_LDB (MMA_BN + 8)

// tf32_bits (the cvt) and mma_m16n8k8 (one mma.sync) live in common.cuh: kernel 16
// uses them too.

extern "C" __global__ void __launch_bounds__(MMA_THREADS, 2)
mma_tf32_gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ __align__(16) float As[MMA_BM][MMA_LDA];
    __shared__ __align__(16) float Bs[MMA_BK][MMA_LDB];
#ifdef EXPLAINER_TRACE
    __shared__ int As_src[MMA_BM][MMA_LDA];  // which A / B element each slot holds (the trace)
    __shared__ int Bs_src[MMA_BK][MMA_LDB];
    const long long block = (long long)blockIdx.y * gridDim.x + blockIdx.x;
#endif
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int g = lane / 4, t = lane % 4;                                    // @step:index
    const int wrow = (warp / (MMA_BN / MMA_WN)) * MMA_WM;                    // @step:index
    const int wcol = (warp % (MMA_BN / MMA_WN)) * MMA_WN;                    // @step:index
    const int row0 = blockIdx.y * MMA_BM, col0 = blockIdx.x * MMA_BN;
    const int phases = CEIL_DIV(K, MMA_BK);
    float acc[MMA_MITER][MMA_NITER][4] = {};

    for (int ph = 0; ph < phases; ++ph) {                                    // @step:phase
        const int k0 = ph * MMA_BK;
        // Element e = tid + j * THREADS of each tile: consecutive lanes along a row.
#pragma unroll
        for (int j = 0; j < MMA_BM * MMA_BK / MMA_THREADS; ++j) {
            const int e = tid + j * MMA_THREADS, m = e / MMA_BK, k = e % MMA_BK;
            As[m][k] = load_or_zero(A, row0 + m, k0 + k, M, K);              // @step:load_a
#ifdef EXPLAINER_TRACE
            As_src[m][k] = src_or_pad(row0 + m, k0 + k, M, K);
#endif
        }
#pragma unroll
        for (int j = 0; j < MMA_BK * MMA_BN / MMA_THREADS; ++j) {
            const int e = tid + j * MMA_THREADS, k = e / MMA_BN, n = e % MMA_BN;
            Bs[k][n] = load_or_zero(B, k0 + k, col0 + n, K, N);              // @step:load_b
#ifdef EXPLAINER_TRACE
            Bs_src[k][n] = src_or_pad(k0 + k, col0 + n, K, N);
#endif
        }
        __syncthreads();                                                     // @step:barrier1

#pragma unroll
        for (int s = 0; s < MMA_KSTEPS; ++s) {
            const int kk = s * 8;
            unsigned a[MMA_MITER][4], b[MMA_NITER][2];
#pragma unroll
            for (int mi = 0; mi < MMA_MITER; ++mi) {
                const int r = wrow + mi * 16 + g;
                a[mi][0] = tf32_bits(As[r][kk + t]);
                a[mi][1] = tf32_bits(As[r + 8][kk + t]);
                a[mi][2] = tf32_bits(As[r][kk + t + 4]);
                a[mi][3] = tf32_bits(As[r + 8][kk + t + 4]);
#ifdef EXPLAINER_TRACE
                const long long at = ((((block * phases + ph) * MMA_KSTEPS + s) * MMA_WARPS + warp) * MMA_MITER + mi) * 32 + lane;
                TRACE_AT(g_trace_a, at * 4 + 0, As_src[r][kk + t]);
                TRACE_AT(g_trace_a, at * 4 + 1, As_src[r + 8][kk + t]);
                TRACE_AT(g_trace_a, at * 4 + 2, As_src[r][kk + t + 4]);
                TRACE_AT(g_trace_a, at * 4 + 3, As_src[r + 8][kk + t + 4]);
#endif
            }
#pragma unroll
            for (int ni = 0; ni < MMA_NITER; ++ni) {
                const int n = wcol + ni * 8 + g;
                b[ni][0] = tf32_bits(Bs[kk + t][n]);
                b[ni][1] = tf32_bits(Bs[kk + t + 4][n]);
#ifdef EXPLAINER_TRACE
                const long long bt = ((((block * phases + ph) * MMA_KSTEPS + s) * MMA_WARPS + warp) * MMA_NITER + ni) * 32 + lane;
                TRACE_AT(g_trace_b, bt * 2 + 0, Bs_src[kk + t][n]);
                TRACE_AT(g_trace_b, bt * 2 + 1, Bs_src[kk + t + 4][n]);
#endif
            }
#pragma unroll
            for (int mi = 0; mi < MMA_MITER; ++mi)
#pragma unroll
                for (int ni = 0; ni < MMA_NITER; ++ni)
                    mma_m16n8k8(acc[mi][ni], a[mi], b[ni]);                  // @step:compute
        }
        __syncthreads();                                                     // @step:barrier2
    }

    // c0, c1 at row g, columns 2t, 2t + 1; c2, c3 eight rows below
#pragma unroll
    for (int mi = 0; mi < MMA_MITER; ++mi) {
#pragma unroll
        for (int ni = 0; ni < MMA_NITER; ++ni) {
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int row = row0 + wrow + mi * 16 + g + (i / 2) * 8;
                const int col = col0 + wcol + ni * 8 + 2 * t + (i % 2);
                if (row < M && col < N) {
                    C[row * N + col] = acc[mi][ni][i];                       // @step:store
                    TRACE_AT(g_trace_c, (((((long long)blockIdx.y * gridDim.x + blockIdx.x) * MMA_WARPS + warp) * MMA_MITER + mi) * MMA_NITER + ni) * 128 + lane * 4 + i, row * N + col);
                }
            }
        }
    }
}
