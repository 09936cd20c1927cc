// kernels/16_mma_tf32_staged.cu -- kernel 15's mma.sync TF32 tiles, fed by a pipeline of staged
// copies (cp.async) instead of copies through registers: the copy of phase t + 2 is in flight
// while the tensor cores work on phase t. The As / Bs tiles of seed 002, now three of each.
//
// What it teaches
//   In kernel 15 every thread loads its elements of A and B into registers, stores them into
//   As / Bs, waits at a barrier, and only then do the warps multiply: the tensor cores idle
//   while a phase's tiles travel from global memory. cp.async copies global -> shared directly
//   (no register, the thread does not wait): a thread issues the copies of a later phase,
//   groups them (cp.async.commit_group), and waits only for the group it needs now
//   (cp.async.wait_group N: at most N newer groups still in flight). With STAGES = 3 buffers:
//     prologue: issue phases 0 and 1 (two groups)
//     phase t:  wait_group 1 (phase t has landed, for this thread's copies)
//               the barrier (for everyone's copies; and every warp is done with phase t - 1,
//                                whose buffer the next line overwrites)
//               issue phase t + 2 into buffer (t + 2) % 3, commit
//               mma.sync over buffer t % 3
//   One barrier per phase. The block is 128 x 128 (8 warps of 64 x 32: 4 x 4 m16n8 tiles, 16
//   mma.sync per k-step); BK = 16. Copies are 16 bytes (cp.async.cg ... 16) where a granule of 4
//   lies inside the matrix and its rows are 16-byte aligned, else 4 bytes each with zero fill
//   (src-size 0 outside A or B), so any M, N, K >= 1 works. Fragments: as kernel 15 (same
//   padded rows, conflict-free).
//
// Launch (explainer/gpu/launch.py launch_config, geometry in explainer/model/mma.py): 1D blocks
// of 256 threads, grid (ceil(N/128), ceil(M/128)), dynamic shared 3 * (128*20 + 16*136) * 4 =
// 56832 bytes (twice that in the trace build). Needs compute capability 8.0 or newer.
// Run it:  python benchmarks/bench_mma.py / pytest -m gpu tests/test_gpu_mma.py
#include "common.cuh"

// The shipped geometry (explainer/model/mma.py STAGED); benchmarks/bench_mma.py --variant
// overrides it for measurements only.
#ifndef SG_BM
#define SG_BM 128
#define SG_BN 128
#define SG_BK 16
#define SG_WM 64
#define SG_WN 32
#define SG_STAGES 3
#endif
#define SG_THREADS (32 * (SG_BM / SG_WM) * (SG_BN / SG_WN))
#define SG_MITER (SG_WM / 16)
#define SG_NITER (SG_WN / 8)
#define SG_KSTEPS (SG_BK / 8)
#define SG_WARPS (SG_THREADS / 32)
#define SG_LDA (SG_BK + 4)
#define SG_LDB (SG_BN + 8)
#define SG_A_STAGE (SG_BM * SG_LDA)  // floats per stage of As
#define SG_B_STAGE (SG_BK * SG_LDB)

// tf32_bits and mma_m16n8k8: common.cuh (as in kernel 15).

// cp.async: 16 bytes global -> shared (both 16-byte aligned), or 4 bytes with zero fill when
// `inside` is false (src-size 0: nothing is read, the 4 bytes of shared memory become 0).
__device__ __forceinline__ void cp_async16(float* dst, const float* src)
{
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(d), "l"(src));
}
__device__ __forceinline__ void cp_async4(float* dst, const float* src, bool inside)
{
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" :: "r"(d), "l"(src), "r"(inside ? 4 : 0));
}

extern "C" __global__ void __launch_bounds__(SG_THREADS, 1)
mma_tf32_staged_gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    extern __shared__ __align__(16) float smem[];
    float* As = smem;                                  // As[stage][m][k], rows padded to SG_LDA
    float* Bs = smem + SG_STAGES * SG_A_STAGE;         // Bs[stage][k][n], rows padded to SG_LDB
#ifdef EXPLAINER_TRACE
    int* As_src = (int*)(Bs + SG_STAGES * SG_B_STAGE);  // which A / B element each slot holds
    int* Bs_src = As_src + SG_STAGES * SG_A_STAGE;
    const long long block = (long long)blockIdx.y * gridDim.x + blockIdx.x;
#endif
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int g = lane / 4, t = lane % 4;                                    // @step:index
    const int wrow = (warp / (SG_BN / SG_WN)) * SG_WM;                       // @step:index
    const int wcol = (warp % (SG_BN / SG_WN)) * SG_WN;                       // @step:index
    const int row0 = blockIdx.y * SG_BM, col0 = blockIdx.x * SG_BN;
    const int phases = CEIL_DIV(K, SG_BK);
    const bool a_rows16 = (K & 3) == 0, b_rows16 = (N & 3) == 0;  // rows start 16-byte aligned
    float acc[SG_MITER][SG_NITER][4] = {};

    // Issue the copies of phase ph into buffer ph % STAGES (granule q of 4 floats: tid + j * 256).
    auto issue = [&](int ph) {
        const int k0 = ph * SG_BK, s = ph % SG_STAGES;
#pragma unroll
        for (int j = 0; j < SG_BM * SG_BK / 4 / SG_THREADS; ++j) {
            const int q = tid + j * SG_THREADS, m = q / (SG_BK / 4), kq = (q % (SG_BK / 4)) * 4;
            float* dst = As + s * SG_A_STAGE + m * SG_LDA + kq;
            const int r = row0 + m, c = k0 + kq;
            if (a_rows16 && r < M && c + 3 < K) {
                cp_async16(dst, A + r * K + c);                              // @step:load_a
            } else {
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const bool in = r < M && c + e < K;
                    cp_async4(dst + e, in ? A + r * K + c + e : A, in);      // @step:load_a
                }
            }
#ifdef EXPLAINER_TRACE
            for (int e = 0; e < 4; ++e) As_src[s * SG_A_STAGE + m * SG_LDA + kq + e] = src_or_pad(r, c + e, M, K);
#endif
        }
#pragma unroll
        for (int j = 0; j < SG_BK * SG_BN / 4 / SG_THREADS; ++j) {
            const int q = tid + j * SG_THREADS, k = q / (SG_BN / 4), nq = (q % (SG_BN / 4)) * 4;
            float* dst = Bs + s * SG_B_STAGE + k * SG_LDB + nq;
            const int r = k0 + k, c = col0 + nq;
            if (b_rows16 && r < K && c + 3 < N) {
                cp_async16(dst, B + r * N + c);                              // @step:load_b
            } else {
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const bool in = r < K && c + e < N;
                    cp_async4(dst + e, in ? B + r * N + c + e : B, in);      // @step:load_b
                }
            }
#ifdef EXPLAINER_TRACE
            for (int e = 0; e < 4; ++e) Bs_src[s * SG_B_STAGE + k * SG_LDB + nq + e] = src_or_pad(r, c + e, K, N);
#endif
        }
    };

    // Prologue: the first STAGES - 1 phases in flight, one group each (empty groups past the end).
#pragma unroll
    for (int ph = 0; ph < SG_STAGES - 1; ++ph) {
        if (ph < phases) issue(ph);
        asm volatile("cp.async.commit_group;");
    }

    for (int ph = 0; ph < phases; ++ph) {                                    // @step:phase
        asm volatile("cp.async.wait_group %0;" :: "n"(SG_STAGES - 2));       // this thread's copies of phase ph landed
        __syncthreads();  // everyone's; and phase ph - 1's buffer is free    // @step:barrier1
        if (ph + SG_STAGES - 1 < phases) issue(ph + SG_STAGES - 1);
        asm volatile("cp.async.commit_group;");
        const float* as = As + (ph % SG_STAGES) * SG_A_STAGE;
        const float* bs = Bs + (ph % SG_STAGES) * SG_B_STAGE;
#pragma unroll
        for (int s = 0; s < SG_KSTEPS; ++s) {
            const int kk = s * 8;
            unsigned a[SG_MITER][4], b[SG_NITER][2];
#pragma unroll
            for (int mi = 0; mi < SG_MITER; ++mi) {
                const int r = wrow + mi * 16 + g;
                a[mi][0] = tf32_bits(as[r * SG_LDA + kk + t]);
                a[mi][1] = tf32_bits(as[(r + 8) * SG_LDA + kk + t]);
                a[mi][2] = tf32_bits(as[r * SG_LDA + kk + t + 4]);
                a[mi][3] = tf32_bits(as[(r + 8) * SG_LDA + kk + t + 4]);
#ifdef EXPLAINER_TRACE
                const int* asrc = As_src + (ph % SG_STAGES) * SG_A_STAGE;
                const long long at = ((((block * phases + ph) * SG_KSTEPS + s) * SG_WARPS + warp) * SG_MITER + mi) * 32 + lane;
                TRACE_AT(g_trace_a, at * 4 + 0, asrc[r * SG_LDA + kk + t]);
                TRACE_AT(g_trace_a, at * 4 + 1, asrc[(r + 8) * SG_LDA + kk + t]);
                TRACE_AT(g_trace_a, at * 4 + 2, asrc[r * SG_LDA + kk + t + 4]);
                TRACE_AT(g_trace_a, at * 4 + 3, asrc[(r + 8) * SG_LDA + kk + t + 4]);
#endif
            }
#pragma unroll
            for (int ni = 0; ni < SG_NITER; ++ni) {
                const int n = wcol + ni * 8 + g;
                b[ni][0] = tf32_bits(bs[(kk + t) * SG_LDB + n]);
                b[ni][1] = tf32_bits(bs[(kk + t + 4) * SG_LDB + n]);
#ifdef EXPLAINER_TRACE
                const int* bsrc = Bs_src + (ph % SG_STAGES) * SG_B_STAGE;
                const long long bt = ((((block * phases + ph) * SG_KSTEPS + s) * SG_WARPS + warp) * SG_NITER + ni) * 32 + lane;
                TRACE_AT(g_trace_b, bt * 2 + 0, bsrc[(kk + t) * SG_LDB + n]);
                TRACE_AT(g_trace_b, bt * 2 + 1, bsrc[(kk + t + 4) * SG_LDB + n]);
#endif
            }
#pragma unroll
            for (int mi = 0; mi < SG_MITER; ++mi)
#pragma unroll
                for (int ni = 0; ni < SG_NITER; ++ni)
                    mma_m16n8k8(acc[mi][ni], a[mi], b[ni]);                       // @step:compute
        }
    }
    asm volatile("cp.async.wait_group 0;");  // no copy left in flight at exit

#pragma unroll
    for (int mi = 0; mi < SG_MITER; ++mi) {
#pragma unroll
        for (int ni = 0; ni < SG_NITER; ++ni) {
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int row = row0 + wrow + mi * 16 + g + (i / 2) * 8;
                const int col = col0 + wcol + ni * 8 + 2 * t + (i % 2);
                if (row < M && col < N) {
                    C[row * N + col] = acc[mi][ni][i];                       // @step:store
                    TRACE_AT(g_trace_c, (((((long long)blockIdx.y * gridDim.x + blockIdx.x) * SG_WARPS + warp) * SG_MITER + mi) * SG_NITER + ni) * 128 + lane * 4 + i, row * N + col);
                }
            }
        }
    }
}
