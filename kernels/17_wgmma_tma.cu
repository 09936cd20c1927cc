// kernels/17_wgmma_tma.cu -- the Hopper rung: tiles copied by the tensor memory accelerator (TMA),
// handed from a producer warpgroup to consumer warpgroups through mbarriers, multiplied by wgmma.
// The As / Bs tiles of the PMPP chapter 5 notes and their two block-wide barriers become four stages and two mbarriers each.
//
// What it teaches
//   Kernel 16 still has every thread copy and every thread wait at one barrier per phase. On
//   Hopper the work splits by role. One thread of the producer warpgroup asks the TMA for whole
//   tiles (cp.async.bulk.tensor: a box of A and four boxes of B, zero-filled outside the matrix),
//   and the copy engine counts the bytes it delivers into that stage's mbarrier `full`. The two
//   consumer warpgroups wait on `full` (try_wait.parity: the barrier's phase bit flips each time
//   its expected bytes have all landed), multiply with wgmma (a warpgroup = 128 threads issues
//   one 64 x 256 x 8 product), and each consumer warp arrives on `empty` when the tensor cores
//   have finished reading the stage; the producer waits on `empty` before it refills it.
//     full[s]:  1 arrival (the producer's arrive.expect_tx) + 49152 bytes of TMA copies
//     empty[s]: 8 arrivals (one per consumer warp) after wgmma.wait_group says the stage is read
//   No block-wide barrier in the main loop: nobody waits for anyone who is not their partner.
//   TF32 wgmma reads its shared operand only K-major (k contiguous). A is (rows of k), B is not:
//   so the kernel computes C^T = B^T A^T. A's tile is wgmma's shared operand (128-byte swizzled
//   rows of 32 floats, as the TMA writes them); B's tile is read into registers (wgmma's register
//   operand), each lane taking the (n, k) elements of the fragment table below.
//   Block: 256 rows x 128 columns of C, BK = 32, 4 stages (196,608 bytes of shared memory);
//   warpgroup 0 produces, 1 and 2 consume 64 columns each (128 accumulators per thread).
//   Fragments (wgmma m64nNk8, .tf32; lane = 4g + t of warp w in the warpgroup):
//     register operand a0..a3 = B^T rows 16w + g, 16w + g + 8 and k = t, t + 4 (same as mma.sync)
//     accumulator d[4i + j]   = C^T row 16w + g + 8(j / 2), column 8i + 2t + (j % 2)
//   TF32: the tensor maps say the elements are TF32, so the TMA rounds each float as it copies
//   (to nearest, ties to even: cuBLAS's accuracy); wgmma would otherwise drop the low 13 bits.
//
// Launch (explainer/gpu/hopper.py): 1D blocks of 384 threads, grid (ceil(N/128), ceil(M/256)),
// dynamic shared 196,608 + 1,024 (alignment) + 64 (mbarriers) bytes, two tensor maps (A: box
// 32 x 256, B: box 32 x 32, both 128-byte swizzle) in global memory. Compute capability 9.0 only,
// compiled for sm_90a; rows of A and B must start 16 bytes apart (K and N multiples of 4).
// Run it:  python benchmarks/bench_mma.py / pytest -m gpu tests/test_gpu_hopper.py
#include "common.cuh"

#define H_BM 256        // rows of C per block: the N of one wgmma (it runs on C^T)
#define H_BN 128        // columns of C per block: 64 per consumer warpgroup
#define H_BK 32         // k per stage: one 128-byte swizzled row of As
#define H_STAGES 4
#define H_CONSUMERS 2
#define H_THREADS (128 * (1 + H_CONSUMERS))
#define H_A_BYTES (H_BM * H_BK * 4)  // 32768 per stage
#define H_B_BYTES (H_BK * H_BN * 4)  // 16384 per stage: 4 boxes of 32 k x 32 n
#define H_B_BOX 32                   // columns per box of B (128 bytes, the swizzle's width)
#ifndef H_INFLIGHT
// wgmma groups left running when a phase ends. 0: the warpgroup waits for its own products
// (the other consumer's keep the tensor cores busy). 1 would overlap the next phase's fragment
// loads, but registers read by a running wgmma may not be written: ptxas then serializes every
// wgmma (warning C7513). Measured both: benchmarks/results/hopper_2026-11-24.md.
#define H_INFLIGHT 0
#endif

__device__ __forceinline__ unsigned smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

// ---- mbarriers -------------------------------------------------------------------------
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned arrivals)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(arrivals));
}
// One arrival, and `bytes` more to come from the TMA before this phase completes.
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
}
// Wait until the barrier's phase with this parity has completed.
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity)
{
    asm volatile("{\n .reg .pred done;\n WAIT:\n"
                 " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 " @!done bra WAIT;\n}" :: "r"(bar), "r"(parity) : "memory");
}

// ---- TMA: a 2D box of a tensor map, landing in shared memory, counted by an mbarrier ------
__device__ __forceinline__ void tma_load(unsigned dst, const void* map, unsigned bar, int col, int row)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4}], [%2];"
                 :: "r"(dst), "l"(map), "r"(bar), "r"(col), "r"(row) : "memory");
}

// ---- wgmma -------------------------------------------------------------------------------
// The shared operand: rows of 128 bytes, 128-byte swizzle, 8-row groups 1024 bytes apart.
__device__ __forceinline__ unsigned long long smem_desc(unsigned addr)
{
    return (unsigned long long)((addr & 0x3FFFF) >> 4)   // start address / 16
         | (1ull << 16)                                 // leading offset: unused when swizzled K-major
         | ((unsigned long long)(1024 >> 4) << 32)      // stride: next 8 rows
         | (1ull << 62);                                // 128-byte swizzle
}
#define D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), \
              "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
// d (64 x 256 of C^T, 128 per thread) += a (64 x 8, registers) * the 8 x 256 tile at desc.
__device__ __forceinline__ void wgmma_256(float (&d)[128], const unsigned (&a)[4], unsigned long long desc)
{
    asm volatile(
        "{\n .reg .pred acc;\n setp.ne.b32 acc, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {"
        "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
        "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
        "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
        "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,"
        "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,"
        "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,"
        "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,"
        "%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127},"
        " {%128,%129,%130,%131}, %132, acc, 1, 1;\n}"
        : D8(0), D8(8), D8(16), D8(24), D8(32), D8(40), D8(48), D8(56),
          D8(64), D8(72), D8(80), D8(88), D8(96), D8(104), D8(112), D8(120)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc));
}
// Keep the compiler from moving accumulator reads across the asynchronous wgmma.
__device__ __forceinline__ void fence_acc(float (&d)[128])
{
#pragma unroll
    for (int i = 0; i < 128; ++i) asm volatile("" : "+f"(d[i]) :: "memory");
}

// Byte offset of B(k, n) in a stage of Bs: box n / 32, 128-byte rows of k, 16-byte chunks
// swizzled by k % 8 (the TMA's 128-byte swizzle; boxes are 1024-byte aligned).
__device__ __forceinline__ unsigned bs_offset(int k, int n)
{
    const int box = n / H_B_BOX, c = n % H_B_BOX;
    return box * (H_BK * 128) + k * 128 + ((((c >> 2) ^ (k & 7)) << 4) | ((c & 3) << 2));
}

extern "C" __global__ void __launch_bounds__(H_THREADS, 1)
wgmma_tma_gemm(const void* mapA, const void* mapB, float* C, int M, int N, int K)
{
    extern __shared__ unsigned char smem_raw[];
    // 1024-byte alignment: the swizzle pattern repeats every 8 rows of 128 bytes
    const unsigned base = (smem_addr(smem_raw) + 1023) & ~1023u;
    unsigned char* smem = smem_raw + (base - smem_addr(smem_raw));
    const unsigned As = base;                                   // As[stage]: 256 x 32 floats
    const unsigned Bs = base + H_STAGES * H_A_BYTES;            // Bs[stage]: 4 boxes of 32 x 32
    const unsigned full = Bs + H_STAGES * H_B_BYTES;            // full[stage], 8 bytes each
    const unsigned empty = full + 8 * H_STAGES;                 // empty[stage]
    const unsigned char* bs_gen = smem + H_STAGES * H_A_BYTES;  // Bs for ordinary loads

    const int wg = threadIdx.x / 128, warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;                                    // @step:index
    const int m0 = blockIdx.y * H_BM, n0 = blockIdx.x * H_BN;                // @step:index
    const int phases = CEIL_DIV(K, H_BK);

    if (threadIdx.x == 0) {
        for (int s = 0; s < H_STAGES; ++s) {
            mbar_init(full + 8 * s, 1);                                     // @step:init
            mbar_init(empty + 8 * s, H_CONSUMERS * 4);                      // @step:init
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();  // the mbarriers exist before anyone uses them             // @step:init

    if (wg == 0) {  // the producer: one thread drives the copy engine
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        if (threadIdx.x == 0) {
            for (int ph = 0; ph < phases; ++ph) {                           // @step:phase
                const int s = ph % H_STAGES;
                if (ph >= H_STAGES) mbar_wait(empty + 8 * s, ((ph / H_STAGES) & 1) ^ 1);  // @step:wait_empty
                mbar_arrive_expect_tx(full + 8 * s, H_A_BYTES + H_B_BYTES);          // @step:expect_tx
                tma_load(As + s * H_A_BYTES, mapA, full + 8 * s, ph * H_BK, m0);   // @step:load_a
                for (int j = 0; j < H_BN / H_B_BOX; ++j)                             // @step:load_b
                    tma_load(Bs + s * H_B_BYTES + j * H_BK * 128, mapB, full + 8 * s, n0 + j * H_B_BOX, ph * H_BK);
            }
        }
        return;
    }

    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    const int nw = (wg - 1) * 64 + warp * 16;  // this warp's 16 rows of C^T (columns of C)
    float d[128];
#pragma unroll
    for (int i = 0; i < 128; ++i) d[i] = 0.f;

    // One phase: wait for its stage, read the B fragments, four wgmma k-steps, and release the
    // stage of the phase before (its wgmma group is the one wait_group 1 lets finish).
    auto consume = [&](int ph, unsigned (&a)[H_BK / 8][4]) {
        const int s = ph % H_STAGES;
        mbar_wait(full + 8 * s, (ph / H_STAGES) & 1);                            // @step:wait_full
        const unsigned char* bs = bs_gen + s * H_B_BYTES;
#ifdef EXPLAINER_TRACE
        // Every slot of the stage as the TMA left it (the trace's inputs hold index + 1, and its
        // tensor maps copy floats unrounded): explainer/model/hopper.py predict_trace.
        if (wg == 1) {
            const long long at = ((long long)blockIdx.y * gridDim.x + blockIdx.x) * phases + ph;
            const float* as_f = (const float*)(smem + s * H_A_BYTES);
            const float* bs_f = (const float*)bs;
            for (int i = threadIdx.x - 128; i < H_BM * H_BK; i += 128)
                TRACE_AT(g_trace_a, at * (H_BM * H_BK) + i, (int)as_f[i] - 1);
            for (int i = threadIdx.x - 128; i < H_BK * H_BN; i += 128)
                TRACE_AT(g_trace_b, at * (H_BK * H_BN) + i, (int)bs_f[i] - 1);
        }
#endif
#pragma unroll
        for (int ks = 0; ks < H_BK / 8; ++ks) {
            const int k = ks * 8 + t, n = nw + g;
            a[ks][0] = *(const unsigned*)(bs + bs_offset(k, n));
            a[ks][1] = *(const unsigned*)(bs + bs_offset(k, n + 8));
            a[ks][2] = *(const unsigned*)(bs + bs_offset(k + 4, n));
            a[ks][3] = *(const unsigned*)(bs + bs_offset(k + 4, n + 8));
        }
        unsigned long long desc[H_BK / 8];  // k-step ks starts 32 bytes further along the rows
#pragma unroll
        for (int ks = 0; ks < H_BK / 8; ++ks) desc[ks] = smem_desc(As + s * H_A_BYTES + ks * 32);
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int ks = 0; ks < H_BK / 8; ++ks) wgmma_256(d, a[ks], desc[ks]);     // @step:compute
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        // wait until at most H_INFLIGHT groups are still running: the stage of phase
        // ph - H_INFLIGHT has been read by the tensor cores, so the producer may refill it
        asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(H_INFLIGHT) : "memory");
        if (ph >= H_INFLIGHT && lane == 0) mbar_arrive(empty + 8 * ((ph - H_INFLIGHT) % H_STAGES));  // @step:arrive_empty
    };
    unsigned a0[H_BK / 8][4], a1[H_BK / 8][4];  // two sets, for H_INFLIGHT = 1
    for (int ph = 0; ph < phases; ph += 2) {                                // @step:phase
        consume(ph, a0);
        if (ph + 1 < phases) consume(ph + 1, a1);
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    fence_acc(d);

    // d[4i + j] is C^T(nw + g + 8(j / 2), 8i + 2t + j % 2): C row m0 + 8i + 2t + j % 2.
#pragma unroll
    for (int i = 0; i < H_BM / 8; ++i) {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int row = m0 + 8 * i + 2 * t + (j & 1), col = n0 + nw + g + 8 * (j >> 1);
            if (row < M && col < N) {
                C[(long long)row * N + col] = d[4 * i + j];                              // @step:store
                TRACE_AT(g_trace_c, ((((long long)blockIdx.y * gridDim.x + blockIdx.x) * H_CONSUMERS + wg - 1) * 4
                                     + warp) * 32 * (H_BM / 2) + lane * (H_BM / 2) + 4 * i + j, row * N + col);
            }
        }
    }
}
