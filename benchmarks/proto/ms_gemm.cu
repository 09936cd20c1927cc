// benchmarks/proto/ms_gemm.cu -- prototype (session 31), not a rung: a multistage FP32 body like the
// one cuBLAS runs at mid-size odd shapes (ncu, session 20: sm80 xmma ffma, tile 64x64x8 or
// 128x128x8, 3 stages, 4 warps, "aligna4": 4-byte copies). Question it answers: does a body whose
// copies go global -> shared by 4-byte cp.async (no registers in between, As transposed for free,
// STAGES buffers in flight) beat kernel 14's register-staged element copies at odd shapes?
//
// Block tile BM x BN, BK columns of K a phase, STAGES shared buffers; warp tiles and thread tiles as
// in kernel 14 (WM x WN per warp, WNITER sub-tiles along N, TM x TN micro-tiles, one float4 of As and
// of Bs per micro-tile and k). Element e = tid + j * THREADS of A's tile: row e / BK, column e % BK
// (consecutive lanes along a row of A); of B's: row e / BN, column e % BN. Rows of A past M and
// columns of B past N are clamped (outputs not stored); K's partial phase comes first (as in kernel
// 14: lead = phases * BK - K zeros before column 0, by cp.async's zero fill), so only phase 0 checks K.
// One barrier a phase: wait for phase t's group, barrier, issue phase t + STAGES - 1 into the buffer
// phase t - 1 used, compute phase t.
// Split-K (gridDim.z = S > 1): slice z sums phases [z P / S, (z + 1) P / S) into W + z M N, a second
// kernel (splitk_reduce here, the sum in z order) adds them into C.

__device__ __forceinline__ void cpa4(float* dst, const float* src, int bytes)
{
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(d), "l"(src), "r"(bytes));
}

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int THREADS, int STAGES, int MINB>
__global__ void __launch_bounds__(THREADS, MINB)
ms_gemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K)
{
    constexpr int WMITER = (WM * WN) / (32 * TM * TN * WNITER);
    constexpr int WSUBM = WM / WMITER, WSUBN = WN / WNITER;
    constexpr int PAD = 4, LDA = BM + PAD;
    constexpr int AE = BM * BK / THREADS, BE = BK * BN / THREADS;  // elements a thread copies a phase
    static_assert((BM / WM) * (BN / WN) == THREADS / 32, "one warp tile per warp");
    static_assert((WSUBM / TM) * (WSUBN / TN) == 32, "32 lanes a sub-tile");
    static_assert(AE * THREADS == BM * BK && BE * THREADS == BK * BN, "even copy");
    static_assert(THREADS % BK == 0 && THREADS % BN == 0, "a thread's copies share a column");
    extern __shared__ __align__(16) float smem[];
    float* const As = smem;                      // [STAGES][BK][LDA]: transposed, As[k][m]
    float* const Bs = smem + STAGES * BK * LDA;  // [STAGES][BK][BN]

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wrow = warp / (BN / WN), wcol = warp % (BN / WN);
    const int trow = lane / (WSUBN / TN), tcol = lane % (WSUBN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int phases = (K + BK - 1) / BK;
    const int S = gridDim.z, z = blockIdx.z;
    const int t0 = (int)((long long)z * phases / S), t1 = (int)((long long)(z + 1) * phases / S);
    const int lead = phases * BK - K;

    // The thread's copies: A rows ea_m + j * (THREADS / BK), column ea_k; B rows eb_k + j * (THREADS / BN), column eb_n.
    const int ea_m = tid / BK, ea_k = tid % BK, eb_k = tid / BN, eb_n = tid % BN;
    const float* a_src[AE];
    const float* b_src[BE];
#pragma unroll
    for (int j = 0; j < AE; ++j)
        a_src[j] = A + (long long)min(row0 + ea_m + j * (THREADS / BK), M - 1) * K + (ea_k - lead);
    const int bcol = min(col0 + eb_n, N - 1);
#pragma unroll
    for (int j = 0; j < BE; ++j) b_src[j] = B + (long long)(eb_k + j * (THREADS / BN) - lead) * N + bcol;

    auto load = [&](int stage, int t, bool first) {
        float* as = As + stage * BK * LDA;
        float* bs = Bs + stage * BK * BN;
#pragma unroll
        for (int j = 0; j < AE; ++j) {
            const bool in = !first || ea_k - lead >= 0;
            cpa4(as + ea_k * LDA + ea_m + j * (THREADS / BK), in ? a_src[j] + t * BK : A, in ? 4 : 0);
        }
#pragma unroll
        for (int j = 0; j < BE; ++j) {
            const bool in = !first || eb_k + j * (THREADS / BN) - lead >= 0;
            cpa4(bs + (eb_k + j * (THREADS / BN)) * BN + eb_n, in ? b_src[j] + (long long)t * BK * N : B, in ? 4 : 0);
        }
    };

    float acc[WMITER * TM][WNITER * TN] = {};
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (t0 + s < t1) load(s, t0 + s, t0 + s == 0);
        asm volatile("cp.async.commit_group;");
    }
    for (int t = t0; t < t1; ++t) {
        const int i = t - t0;
        asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 2));
        __syncthreads();
        if (t + STAGES - 1 < t1) load((i + STAGES - 1) % STAGES, t + STAGES - 1, false);
        asm volatile("cp.async.commit_group;");
        const float* as = As + (i % STAGES) * BK * LDA + wrow * WM + trow * TM;
        const float* bs = Bs + (i % STAGES) * BK * BN + wcol * WN + tcol * TN;
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float ra[WMITER * TM], rb[WNITER * TN];
#pragma unroll
            for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
                for (int q = 0; q < TM; q += 4) {
                    const float4 v = *reinterpret_cast<const float4*>(as + k * LDA + wm * WSUBM + q);
                    ra[wm * TM + q] = v.x; ra[wm * TM + q + 1] = v.y; ra[wm * TM + q + 2] = v.z; ra[wm * TM + q + 3] = v.w;
                }
#pragma unroll
            for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
                for (int q = 0; q < TN; q += 4) {
                    const float4 v = *reinterpret_cast<const float4*>(bs + k * BN + wn * WSUBN + q);
                    rb[wn * TN + q] = v.x; rb[wn * TN + q + 1] = v.y; rb[wn * TN + q + 2] = v.z; rb[wn * TN + q + 3] = v.w;
                }
#pragma unroll
            for (int m = 0; m < WMITER * TM; ++m)
#pragma unroll
                for (int n = 0; n < WNITER * TN; ++n) {
                    const int nn = (m & 1) ? WNITER * TN - 1 - n : n;  // serpentine (kernel 14's)
                    acc[m][nn] = fmaf(ra[m], rb[nn], acc[m][nn]);
                }
        }
    }
    asm volatile("cp.async.wait_group 0;");
    float* out = S > 1 ? C + (long long)z * M * N : C;
#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
        for (int q = 0; q < TM; ++q) {
            const int row = row0 + wrow * WM + wm * WSUBM + trow * TM + q;
            if (row >= M) continue;
#pragma unroll
            for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
                for (int p = 0; p < TN; ++p) {
                    const int col = col0 + wcol * WN + wn * WSUBN + tcol * TN + p;
                    if (col < N) out[(long long)row * N + col] = acc[wm * TM + q][wn * TN + p];
                }
        }
}

// C = W[0] + ... + W[S-1], in z order.
extern "C" __global__ void ms_reduce(const float* __restrict__ W, float* __restrict__ C, long long MN, int S)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < MN; i += (long long)gridDim.x * blockDim.x) {
        float s = W[i];
        for (int z = 1; z < S; ++z) s += W[z * MN + i];
        C[i] = s;
    }
}
