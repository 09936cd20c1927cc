// kernels/common.cuh -- helpers shared by every kernel in this folder. Included, never compiled
// alone; explainer/gpu/runtime.py passes -I<this folder> to the compiler.
//
// What lives here (once, so no kernel file re-defines it):
//   CEIL_DIV(a, b)        integer ceil(a / b): grid sizes and the number of tile phases.
//   Trace recording       only when compiled with -DEXPLAINER_TRACE. The kernel's signature does
//                         not change: the buffers are __device__ globals that the host sets with
//                         RawModule.get_global("g_trace_a") etc. Timed builds compile without the
//                         define, and every TRACE_* macro below becomes a no-op.
//
// Trace layout (int32; the host fills every buffer with -2 = "never written" before a launch):
//   block id  = blockIdx.y * gridDim.x + blockIdx.x               (by * gx + bx)
//   trace_a[((block * phases + t) * T + threadIdx.y) * T + threadIdx.x]
//             = r * K + c, the linear index of the A element this thread stored into As[ty][tx]
//               in phase t, or -1 when it stored a padding zero.
//   trace_b   same for Bs[ty][tx], with r * N + c.
//   trace_c[(block * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x]
//             = row * N + col when this thread stores C (left at -2 otherwise).
//   The naive kernels have no shared tiles: they record trace_c only.
//   Kernel 15 (mma.sync) records what each lane's fragment registers hold (TRACE_AT; layout in
//   explainer/model/mma.py, MmaKernel.trace_shapes).
//
// The ladder kernels (10-14: one thread, many outputs; 1D blocks of blockDim.x threads) record
// by shared-memory slot and by output instead (their layouts: explainer/model/ladder.py):
//   trace_a[(block * phases + t) * SLOTS_A + slot] = r * K + c (or -1), the A element that the
//             shared slot As[slot] held in phase t (slot in the kernel's own layout, transposed
//             or padded); padding slots nobody writes stay -2. trace_b likewise with Bs.
//   trace_c[(block * blockDim.x + threadIdx.x) * OUTS + j] = row * N + col: the j-th output
//             this thread stores, in the order of its store loop (-2 when outside C).
// Kernel 03b (TILE_X x TILE_Y blocks) records As / Bs by cell with TRACE_SLOT_A / _B (slot = the
// cell's row-major index, explainer/model/rect.py) and C by thread with TRACE_C.
//
// Step markers. A comment "// @step:NAME" ends each line that a stepper step highlights; the
// widgets find code lines by these markers (a marker may end several lines: all are highlighted).
//   @step:index     row / col of the C element this thread owns (blockIdx, blockDim, threadIdx)
//   @step:phase     the loop over tile phases t = 0 .. ceil(K/T) - 1 (PMPP's ph)
//   @step:load_a    the copy A -> As[ty][tx] (or a padding zero)
//   @step:load_b    the copy B -> Bs[ty][tx] (or a padding zero)
//   @step:barrier1  __syncthreads() after the loads: true dependence (read-after-write)
//   @step:compute   the multiply-add(s) of one thread
//   @step:barrier2  __syncthreads() after the compute loop: false dependence (write-after-read)
//   @step:store     the store of C[row][col]
// Kernel 17 (Hopper) hands stages over through mbarriers instead of __syncthreads():
//   @step:init         the mbarriers initialised, and the one __syncthreads() that publishes them
//   @step:wait_empty   the producer waits until the consumers have freed a stage
//   @step:expect_tx    the producer arrives on `full` and announces the bytes the TMA will bring
//   @step:wait_full    a consumer waits until every byte of the stage has landed
//   @step:arrive_empty a consumer warp frees the stage once wgmma has read it
#pragma once

#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))

#ifdef EXPLAINER_TRACE

__device__ int* g_trace_a;
__device__ int* g_trace_b;
__device__ int* g_trace_c;

// 64-bit block id: a 1024^3 launch with T = 16 records 4096 blocks * 64 phases * 256 threads.
#define EXPLAINER_BLOCK_ID ((long long)blockIdx.y * gridDim.x + blockIdx.x)
#define EXPLAINER_TILE_SLOT(T, phases, t) \
    (((EXPLAINER_BLOCK_ID * (phases) + (t)) * (T) + threadIdx.y) * (T) + threadIdx.x)
#define TRACE_A(T, phases, t, src) (g_trace_a[EXPLAINER_TILE_SLOT(T, phases, t)] = (src))
#define TRACE_B(T, phases, t, src) (g_trace_b[EXPLAINER_TILE_SLOT(T, phases, t)] = (src))
#define TRACE_C(dst) \
    (g_trace_c[(EXPLAINER_BLOCK_ID * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x] = (dst))
#define TRACE_SLOT_A(phases, t, slots, slot, src) \
    (g_trace_a[(EXPLAINER_BLOCK_ID * (phases) + (t)) * (slots) + (slot)] = (src))
#define TRACE_SLOT_B(phases, t, slots, slot, src) \
    (g_trace_b[(EXPLAINER_BLOCK_ID * (phases) + (t)) * (slots) + (slot)] = (src))
#define TRACE_OUT(outs, j, dst) \
    (g_trace_c[(EXPLAINER_BLOCK_ID * blockDim.x + threadIdx.x) * (outs) + (j)] = (dst))
// Kernel 15 (tensor cores) records by register: entry i of buffer buf (its layout: model/mma.py).
#define TRACE_AT(buf, i, v) ((buf)[(i)] = (v))

#else

#define TRACE_A(T, phases, t, src) ((void)0)
#define TRACE_B(T, phases, t, src) ((void)0)
#define TRACE_C(dst) ((void)0)
#define TRACE_SLOT_A(phases, t, slots, slot, src) ((void)0)
#define TRACE_SLOT_B(phases, t, slots, slot, src) ((void)0)
#define TRACE_OUT(outs, j, dst) ((void)0)
#define TRACE_AT(buf, i, v) ((void)0)

#endif

// Guarded element access for the ladder kernels' edge path (GUARD = true): element (r, c) of a
// row-major rows x cols matrix, or a padding zero outside it; and its trace value.
__device__ __forceinline__ float load_or_zero(const float* X, int r, int c, int rows, int cols)
{
    return (r < rows && c < cols) ? X[r * cols + c] : 0.0f;
}
__device__ __forceinline__ int src_or_pad(int r, int c, int rows, int cols)
{
    return (r < rows && c < cols) ? r * cols + c : -1;
}

// Tensor cores (kernels 15, 16). A float rounded to TF32 (10 mantissa bits, to nearest) in the
// 32-bit register an mma reads; and one warp-wide mma.sync.m16n8k8: d = a (16 x 8) @ b (8 x 8) + d,
// fragments as the PTX ISA lays them out (explainer/model/mma.py). Inline functions: no kernel
// that does not call them needs sm_80.
// The rounding (explainer.model.mma.rounding): compute capability 8.x has only cvt.rna (ties away
// from zero; three instructions: a finite check, an add, a mask); 9.0 has cvt.rn (ties to even,
// as cuBLAS TF32 and kernel 17's TMA), one instruction (F2FP.TF32), measured 6% faster in kernel 16.
__device__ __forceinline__ unsigned tf32_bits(float x)
{
#ifdef EXPLAINER_TF32_TRUNCATE  // measurement only (benchmarks/bench_mma.py --define): no cvt, the
    return __float_as_uint(x);  // tensor core then drops the 13 low mantissa bits (round to zero)
#else
    unsigned r;
#if __CUDA_ARCH__ >= 900
    asm("cvt.rn.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
#else
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
#endif
    return r;
#endif
}
// Not volatile: the mma has no effect beyond its outputs, so the compiler may move it among the
// fragment loads (measured on kernel 16: volatile costs about 7%).
__device__ __forceinline__ void mma_m16n8k8(float d[4], const unsigned a[4], const unsigned b[2])
{
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// 16-byte accesses (one LDG.128 / LDS.128 / STG.128): the address must be a multiple of 16 bytes,
// which the fast path guarantees: K and N are multiples of the block tile, so of 4.
__device__ __forceinline__ float4 load4(const float* p)
{
    return *reinterpret_cast<const float4*>(p);
}
__device__ __forceinline__ void store4(float* p, float4 v)
{
    *reinterpret_cast<float4*>(p) = v;
}
// Four consecutive elements (r, c .. c+3) of a row-major rows x cols matrix: one 16-byte load on
// the fast path. On the edge path (GUARD; c is a multiple of 4 in every caller): four zeros
// outside the matrix; when cols is a multiple of 4, rows start 16-byte aligned and a granule is
// wholly inside or wholly outside, so one 16-byte load still serves; otherwise four scalar loads,
// those past the last column replaced by zeros (the same values as four load_or_zero).
template <bool GUARD>
__device__ __forceinline__ float4 load4_at(const float* X, int r, int c, int rows, int cols)
{
    const float* p = X + r * cols + c;
    if (!GUARD) return load4(p);
    if (r >= rows || c >= cols) return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if ((cols & 3) == 0) return load4(p);
    if (c + 3 < cols) return make_float4(p[0], p[1], p[2], p[3]);
    return make_float4(p[0], c + 1 < cols ? p[1] : 0.0f, c + 2 < cols ? p[2] : 0.0f, 0.0f);
}
// Stores TN consecutive outputs C[row][col .. col+TN-1]: 16-byte stores on the fast path, only
// the elements inside C on the edge path.
template <int TN, bool GUARD>
__device__ __forceinline__ void store_row(float* C, int row, int col, int M, int N, const float* v)
{
    if (!GUARD) {
#pragma unroll
        for (int j = 0; j < TN; j += 4) store4(C + row * N + col + j, make_float4(v[j], v[j + 1], v[j + 2], v[j + 3]));
    } else {
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            if (row < M && col + j < N) C[row * N + col + j] = v[j];
        }
    }
}
