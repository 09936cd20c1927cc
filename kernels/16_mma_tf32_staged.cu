// kernels/16_mma_tf32_staged.cu -- kernel 15's mma.sync TF32 tiles, fed by a pipeline of staged
// copies (cp.async) instead of copies through registers, and fragments that are loaded one k-step
// ahead of the mma.sync that use them. The As / Bs tiles of the PMPP chapter 5 notes, now three of each.
//
// What it teaches
//   1. Copies that travel while the tensor cores work. cp.async copies global -> shared directly
//      (no register, the thread does not wait): a thread issues the copies of a later phase,
//      groups them (cp.async.commit_group), and waits only for the group it needs
//      (cp.async.wait_group N: at most N newer groups still in flight). STAGES = 3 buffers.
//   2. Fragments one step ahead. The warp loads the fragments of k-step s + 1 (two register
//      sets) before it issues the mma.sync of k-step s, so those need not wait for shared
//      memory; A's fragments come in one ldmatrix.x4 per m16 tile (the 4 registers of
//      kernel 15's table at once), B's as kernel 15's. The one barrier of a phase sits before
//      its last k-step, where the fragments of the next phase's k-step 0 are loaded:
//        prologue: issue phases 0 and 1; wait_group 1; barrier; load k-step 0's fragments
//        phase t:  issue phase t + 2 into buffer (t + 2) % 3 (free: everyone has read it)
//                  k-steps 0 .. 2: load the next k-step's fragments, mma.sync this one's
//                  wait_group 1 (phase t + 1 landed, this thread's copies); barrier (everyone's;
//                  and every warp has loaded its last fragments of phase t)
//                  k-step 3: load phase t + 1's first fragments, mma.sync
//   (In the code the issue comes during k-step 0, right after the loads of k-step 1's fragments.)
//   The block is 128 x 256 (8 warps of 64 x 64: 4 x 8 m16n8 tiles, 32 mma.sync per k-step);
//   BK = 32. Copies are 16 bytes (cp.async.cg ... 16); blocks wholly inside A, B and C, with
//   rows 16-byte aligned and K a multiple of BK, run an instance of the pipeline with no check
//   (fewer live registers: room for the fragments in flight); elsewhere a granule outside the
//   matrix is copied 4 bytes at a time with zero fill (src-size 0): any M, N, K >= 1 works. Rows
//   padded as in kernel 15 (+4 / +8 floats): conflict-free fragment loads (page 09's bank table).
//
// Launch (explainer/gpu/launch.py launch_config, geometry in explainer/model/mma.py STAGED): 1D
// blocks of 256 threads, grid (ceil(N/256), ceil(M/128)), dynamic shared 3 * (128*36 + 32*264)
// * 4 = 156672 bytes. Needs compute capability 8.0 or newer. The trace build runs on index-coded
// inputs (A[r][c] = r * K + c + 1): the value a register holds is its element's index + 1.
// Run it:  python benchmarks/bench_mma.py / pytest -m gpu tests/test_gpu_mma.py
#include "common.cuh"

// The shipped geometry (explainer/model/mma.py STAGED); benchmarks/bench_mma.py --variant
// overrides it for measurements only.
#ifndef SG_BM
#define SG_BM 128
#define SG_BN 256
#define SG_BK 32
#define SG_WM 64
#define SG_WN 64
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
// ldmatrix.x4: lanes 8i .. 8i + 7 give the 8 row addresses (16 bytes each) of matrix i; lane l
// receives, of each matrix, the 4-byte word at row l / 4, word l % 4: kernel 15's a0 .. a3.
__device__ __forceinline__ void ldmatrix_x4(unsigned r[4], unsigned a)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
}

// A compile-time flag (std::integral_constant without the header): pipeline(Flag<true>{}) is the
// pipeline's unchecked instance.
template <bool B> struct Flag { static constexpr bool value = B; };

extern "C" __global__ void __launch_bounds__(SG_THREADS, 1)
mma_tf32_staged_gemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K)
{
    extern __shared__ __align__(16) float smem[];
    float* As = smem;                                  // As[stage][m][k], rows padded to SG_LDA
    float* Bs = smem + SG_STAGES * SG_A_STAGE;         // Bs[stage][k][n], rows padded to SG_LDB
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int g = lane / 4, t = lane % 4;                                    // @step:index
    const int wrow = (warp / (SG_BN / SG_WN)) * SG_WM;                       // @step:index
    const int wcol = (warp % (SG_BN / SG_WN)) * SG_WN;                       // @step:index
    const int row0 = blockIdx.y * SG_BM, col0 = blockIdx.x * SG_BN;
    const int phases = CEIL_DIV(K, SG_BK);
    const bool rows16 = (K & 3) == 0 && (N & 3) == 0;  // every row of A and B starts 16-byte aligned
    const bool inside = rows16 && row0 + SG_BM <= M && col0 + SG_BN <= N;  // no check needed (but K's end)

    // Granules of 4 floats: thread tid copies A's row am + j * A_ROWS, column akq, and B's row
    // bk + j * B_ROWS, column bn; their addresses are computed once, here.
    constexpr int A_ROWS = SG_THREADS / (SG_BK / 4), B_ROWS = SG_THREADS / (SG_BN / 4);
    const int am = tid / (SG_BK / 4), akq = (tid % (SG_BK / 4)) * 4;
    const int bk = tid / (SG_BN / 4), bn = (tid % (SG_BN / 4)) * 4;
    const float* a_src = A + (long long)(row0 + am) * K + akq;
    const float* b_src = B + (long long)bk * N + col0 + bn;

    // Issue the copies of phase ph into buffer s.
    auto issue = [&](int ph, int s, auto fast) {
        const int k0 = ph * SG_BK;
        float* as = As + s * SG_A_STAGE + am * SG_LDA + akq;
        float* bs = Bs + s * SG_B_STAGE + bk * SG_LDB + bn;
        if (fast.value || (inside && k0 + SG_BK <= K)) {  // the block's whole tiles: no check
#pragma unroll
            for (int j = 0; j < SG_BM / A_ROWS; ++j)
                cp_async16(as + j * A_ROWS * SG_LDA, a_src + k0 + (long long)j * A_ROWS * K);       // @step:load_a
#pragma unroll
            for (int j = 0; j < SG_BK / B_ROWS; ++j)
                cp_async16(bs + j * B_ROWS * SG_LDB, b_src + (long long)(k0 + j * B_ROWS) * N);     // @step:load_b
            return;
        }
        if constexpr (!decltype(fast)::value) {  // (the fast instance has no guarded copy at all)
#pragma unroll
            for (int j = 0; j < SG_BM / A_ROWS; ++j) {
                const int r = row0 + am + j * A_ROWS, c = k0 + akq;
                float* dst = as + j * A_ROWS * SG_LDA;
                if (rows16 && r < M && c + 3 < K) {
                    cp_async16(dst, A + (long long)r * K + c);                    // @step:load_a
                } else {
                    for (int e = 0; e < 4; ++e) {
                        const bool in = r < M && c + e < K;
                        cp_async4(dst + e, in ? A + (long long)r * K + c + e : A, in);  // @step:load_a
                    }
                }
            }
#pragma unroll
            for (int j = 0; j < SG_BK / B_ROWS; ++j) {
                const int r = k0 + bk + j * B_ROWS, c = col0 + bn;
                float* dst = bs + j * B_ROWS * SG_LDB;
                if (rows16 && r < K && c + 3 < N) {
                    cp_async16(dst, B + (long long)r * N + c);                    // @step:load_b
                } else {
                    for (int e = 0; e < 4; ++e) {
                        const bool in = r < K && c + e < N;
                        cp_async4(dst + e, in ? B + (long long)r * N + c + e : B, in);  // @step:load_b
                    }
                }
            }
        }
    };

    // Load the fragments of k-step s of phase ph (buffer st) into register set f. A: lane l
    // gives row (l / 8 % 2) * 8 + l % 8, column (l / 16) * 4 of the m16 tile (ldmatrix_x4).
    // (After the last phase, ph == phases: a stale buffer is read and never used; no branch in
    // the loop, so the compiler may mix these loads with the mma.sync.)
    unsigned a[2][SG_MITER][4], b[2][SG_NITER][2];
    const unsigned a_frag = (unsigned)__cvta_generic_to_shared(
        As + (wrow + ((lane / 8) % 2) * 8 + lane % 8) * SG_LDA + (lane / 16) * 4);  // a shared-memory address
    const int b_frag = t * SG_LDB + wcol + g;
#ifdef EXPLAINER_TRACE
    const long long block = (long long)blockIdx.y * gridDim.x + blockIdx.x;
#endif
    auto load = [&](int f, int st, int ph, int s) {
        const int kk = s * 8;
#pragma unroll
        for (int mi = 0; mi < SG_MITER; ++mi) {
            unsigned raw[4];
            ldmatrix_x4(raw, a_frag + 4 * (st * SG_A_STAGE + mi * 16 * SG_LDA + kk));
#pragma unroll
            for (int i = 0; i < 4; ++i) a[f][mi][i] = tf32_bits(__uint_as_float(raw[i]));
#ifdef EXPLAINER_TRACE
            const long long at = ((((block * phases + ph) * SG_KSTEPS + s) * SG_WARPS + warp) * SG_MITER + mi) * 32 + lane;
            for (int i = 0; i < 4 && ph < phases; ++i) TRACE_AT(g_trace_a, at * 4 + i, (int)__uint_as_float(raw[i]) - 1);
#endif
        }
#pragma unroll
        for (int ni = 0; ni < SG_NITER; ++ni) {
            const float* p = Bs + st * SG_B_STAGE + b_frag + kk * SG_LDB + ni * 8;
            b[f][ni][0] = tf32_bits(p[0]);
            b[f][ni][1] = tf32_bits(p[4 * SG_LDB]);
#ifdef EXPLAINER_TRACE
            const long long bt = ((((block * phases + ph) * SG_KSTEPS + s) * SG_WARPS + warp) * SG_NITER + ni) * 32 + lane;
            if (ph < phases) {
                TRACE_AT(g_trace_b, bt * 2 + 0, (int)p[0] - 1);
                TRACE_AT(g_trace_b, bt * 2 + 1, (int)p[4 * SG_LDB] - 1);
            }
#endif
        }
    };
    float acc[SG_MITER][SG_NITER][4] = {};

    // The pipeline, compiled twice: `fast` (Flag<true>) for a block wholly inside A, B and C with K
    // a multiple of BK, whose copies need no check; Flag<false> for every other block. The fast
    // copy has none of the guarded copy's bounds and pointers alive in the loop, and the registers
    // this frees let the compiler keep the next k-step's fragments in flight (9% faster at 4096^3).
    auto pipeline = [&](auto fast) {
        // Prologue: the first STAGES - 1 phases in flight, one group each (empty groups past the end);
        // then phase 0 landed for everyone, and its first fragments in registers.
#pragma unroll
        for (int ph = 0; ph < SG_STAGES - 1; ++ph) {
            if (ph < phases) issue(ph, ph, fast);
            asm volatile("cp.async.commit_group;");
        }
        asm volatile("cp.async.wait_group %0;" :: "n"(SG_STAGES - 2));
        __syncthreads();                                                          // @step:barrier1
        load(0, 0, 0, 0);

        int st = 0, fill = SG_STAGES - 1;  // the buffer computed on, the buffer the copies fill
        for (int ph = 0; ph < phases; ++ph) {                                    // @step:phase
            const int next = st + 1 == SG_STAGES ? 0 : st + 1;
#pragma unroll
            for (int s = 0; s < SG_KSTEPS; ++s) {
                if (s == SG_KSTEPS - 1) {
                    asm volatile("cp.async.wait_group %0;" :: "n"(SG_STAGES - 2));  // this thread's copies of phase ph + 1 landed
                    __syncthreads();  // everyone's; and buffer st is read (its last fragments are in registers)  // @step:barrier1
                    load((s + 1) % 2, next, ph + 1, 0);
                } else {
                    load((s + 1) % 2, st, ph, s + 1);
                }
                if (s == 0) {  // after k-step 1's loads: phase ph + STAGES - 1 into the buffer read in phase ph - 1
                    if (ph + SG_STAGES - 1 < phases) issue(ph + SG_STAGES - 1, fill, fast);
                    asm volatile("cp.async.commit_group;");
                }
#pragma unroll
                for (int mi = 0; mi < SG_MITER; ++mi)
#pragma unroll
                    for (int ni = 0; ni < SG_NITER; ++ni)
                        mma_m16n8k8(acc[mi][ni], a[s % 2][mi], b[s % 2][ni]);           // @step:compute
            }
            st = next;
            fill = fill + 1 == SG_STAGES ? 0 : fill + 1;
        }
    };
    if (inside && K % SG_BK == 0)
        pipeline(Flag<true>{});
    else
        pipeline(Flag<false>{});
    asm volatile("cp.async.wait_group 0;");  // no copy left in flight at exit

#pragma unroll
    for (int mi = 0; mi < SG_MITER; ++mi) {
#pragma unroll
        for (int ni = 0; ni < SG_NITER; ++ni) {
#pragma unroll
            for (int h = 0; h < 2; ++h) {  // c0, c1: row g; c2, c3: row g + 8; columns 2t, 2t + 1
                const int row = row0 + wrow + mi * 16 + g + h * 8;
                const int col = col0 + wcol + ni * 8 + 2 * t;
                if (inside) {
                    *(float2*)(C + (long long)row * N + col) = make_float2(acc[mi][ni][2 * h], acc[mi][ni][2 * h + 1]);  // @step:store
                } else {
                    for (int e = 0; e < 2; ++e)
                        if (row < M && col + e < N) C[(long long)row * N + col + e] = acc[mi][ni][2 * h + e];  // @step:store
                }
#ifdef EXPLAINER_TRACE
                for (int e = 0; e < 2; ++e)
                    if (row < M && col + e < N)
                        TRACE_AT(g_trace_c, ((((block * SG_WARPS + warp) * SG_MITER + mi) * SG_NITER + ni) * 32 + lane) * 4 + 2 * h + e,
                                 row * N + col + e);
#endif
            }
        }
    }
}
