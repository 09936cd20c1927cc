// kernels/tuned/tuned.cuh -- the tuning engine's header: kernels/common.cuh as the tuned kernel 14
// (warptile_tuned.cu) was tuned with it, plus its split-K workspace and edge bodies. Included by
// kernels/tuned/*.cu only; explainer/gpu/runtime.py passes -I<kernels/tuned> (and -I<kernels>).
// The rungs of kernels/ never include it: this is not part of the lesson. Kept apart and unchanged
// so that the tuned kernel compiles to the code its tuning tables measured.
//
// What lives here:
//   CEIL_DIV(a, b)        integer ceil(a / b): grid sizes and the number of tile phases.
//   split_offset(z, M, N) floats from the start of split-K's workspace to its slice z: z x (M x N
//                         rounded up to 4), so that every slice starts 16-byte aligned
//                         (kernels/tuned/splitk_reduce.cu reads them by float4; explainer/gpu/launch.py
//                         split_slice and LaunchConfig.workspace_floats allocate them so). Written
//                         as z x M x N + z x pad: an earlier ((M x N + 3) & ~3) x z changed
//                         how NVRTC scheduled kernel 14's whole K loop, 12-16% slower split-K
//                         launches (benchmarks/results/splitk_2026-11-23.md).
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
// by shared-memory slot and by output instead (their layouts: explainer/model/ladder.py; the tuned kernel's: explainer/tuning/configs.py):
//   trace_a[(block * phases + t) * SLOTS_A + slot] = r * K + c (or -1), the A element that the
//             shared slot As[slot] held in phase t (slot in the kernel's own layout, transposed
//             or padded); padding slots nobody writes stay -2. trace_b likewise with Bs.
//   trace_c[(block * blockDim.x + threadIdx.x) * OUTS + j] = row * N + col: the j-th output
//             this thread stores, in the order of its store loop (-2 when outside C).
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

__host__ __device__ __forceinline__ size_t split_offset(int z, int M, int N)
{
    return (size_t)z * M * N + (size_t)z * ((0u - (unsigned)M * (unsigned)N) & 3u);  // pad: -(M x N) mod 4
}

#ifdef EXPLAINER_TRACE

__device__ int* g_trace_a;
__device__ int* g_trace_b;
__device__ int* g_trace_c;

// 64-bit block id: a 1024^3 launch with T = 16 records 4096 blocks * 64 phases * 256 threads.
#ifndef EXPLAINER_BLOCK_ID  // a kernel whose blocks are not its tiles names its own (kernel 14)
#define EXPLAINER_BLOCK_ID ((long long)blockIdx.y * gridDim.x + blockIdx.x)
#endif
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
// (With ld: rows ld floats apart in memory, as in a padded copy; kernel 14's "+pad".)
__device__ __forceinline__ float load_or_zero(const float* X, int r, int c, int rows, int cols, int ld)
{
    return (r < rows && c < cols) ? X[r * ld + c] : 0.0f;
}
__device__ __forceinline__ float load_or_zero(const float* X, int r, int c, int rows, int cols)
{
    return load_or_zero(X, r, c, rows, cols, cols);
}
__device__ __forceinline__ int src_or_pad(int r, int c, int rows, int cols)
{
    return (r >= 0 && c >= 0 && r < rows && c < cols) ? r * cols + c : -1;  // (kernel 14: before row / column 0 too)
}

// How a body reaches global memory (the ladder kernels' GUARD / EDGE template parameter; a bool
// GUARD passes as EDGE_FAST (false) or EDGE_GUARDED (true)):
//   EDGE_FAST      nothing checked, 16-byte accesses: whole tiles, K a whole number of phases,
//                  rows 16-byte aligned (K and N multiples of 4). (Kernel 14 also runs it in
//                  blocks inside C of any K with aligned rows: its partial phase, checked, is the
//                  first.)
//   EDGE_GUARDED   every element checked: padding zeros outside A and B, no store outside C.
//   EDGE_INTERIOR  a block whose tile of C lies inside C (kernel 14's interior blocks of a shape
//                  the fast path cannot take): nothing checked, 16-byte accesses where rows are
//                  aligned and scalar ones where they are not; the caller checks the partial
//                  phase when K is not a whole number of phases. (Kernel 14 copies the tiles of
//                  unaligned matrices element by element instead, see its body.)
//   EDGE_CLAMPED   kernel 14's blocks at the edge of C of a shape with aligned rows, where C is
//                  narrower than a tile (elsewhere its edge tiles shift back inside C): the fast
//                  path's 16-byte copies, unchecked, from rows of A and columns of B clamped into
//                  the matrix (the values copied past C's edge feed only outputs that are never
//                  stored); stores checked as EDGE_GUARDED.
//   EDGE_CLAMPED_ANY the same on any rows: element copies (as EDGE_INTERIOR's) from a clamped
//                  row of A or column of B where that matrix's rows are not aligned (kernel
//                  14's split entry points: both matrices, whichever is unaligned).
enum { EDGE_FAST = 0, EDGE_GUARDED = 1, EDGE_INTERIOR = 2, EDGE_CLAMPED = 3, EDGE_CLAMPED_ANY = 4 };

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
// Component c (0..3, a constant once unrolled) of a float4 held in registers.
__device__ __forceinline__ float& elem(float4& v, int c)
{
    return c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w;
}
// Four consecutive elements (r, c .. c+3) of a row-major rows x cols matrix: one 16-byte load on
// the fast path. On the edge path (c is a multiple of 4 in every caller): four zeros outside the
// matrix; when cols is a multiple of 4, rows start 16-byte aligned and a granule is wholly inside
// or wholly outside, so one 16-byte load still serves; otherwise four scalar loads, those past the
// last column replaced by zeros. The same values as four load_or_zero (measured against other
// ways of writing it: benchmarks/results/splitk_2026-11-23.md). Inside (EDGE_INTERIOR, the caller
// knows the granule is in the matrix): one 16-byte load on aligned rows, four scalar ones otherwise.
// With ld (kernel 14's padded copies, "+pad"): rows ld floats apart; ld a multiple of 4 makes
// the rows aligned, and the copy is laid out so that no granule straddles column cols (a copy of
// A starts each row with K's lead modulo 4 zeros; one of B ends its rows with zeros).
template <int EDGE>
__device__ __forceinline__ float4 load4_at(const float* X, int r, int c, int rows, int cols, int ld)
{
    const float* p = X + r * ld + c;
    if (EDGE == EDGE_FAST) return load4(p);
    if (EDGE == EDGE_INTERIOR) return (ld & 3) == 0 ? load4(p) : make_float4(p[0], p[1], p[2], p[3]);
    if (r >= rows || c >= cols) return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if ((ld & 3) == 0) return load4(p);
    if (c + 3 < cols) return make_float4(p[0], p[1], p[2], p[3]);
    return make_float4(p[0], c + 1 < cols ? p[1] : 0.0f, c + 2 < cols ? p[2] : 0.0f, 0.0f);
}
template <int EDGE>
__device__ __forceinline__ float4 load4_at(const float* X, int r, int c, int rows, int cols)
{
    return load4_at<EDGE>(X, r, c, rows, cols, cols);
}
// Loads TN consecutive elements X[row][col .. col+TN-1] written by another block of this launch
// (split-K's workspace): through L2 (__ldcg; L1 is not coherent between SMs), 16 bytes at a time on
// the fast path (and inside, on aligned rows), only the elements inside the matrix on the edge
// path (zeros elsewhere).
template <int TN, int EDGE>
__device__ __forceinline__ void load_row(const float* X, int row, int col, int M, int N, float* v)
{
    if (EDGE == EDGE_FAST || (EDGE == EDGE_INTERIOR && (N & 3) == 0)) {
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            const float4 q = __ldcg(reinterpret_cast<const float4*>(X + row * N + col + j));
            v[j] = q.x; v[j + 1] = q.y; v[j + 2] = q.z; v[j + 3] = q.w;
        }
    } else if (EDGE == EDGE_INTERIOR) {
#pragma unroll
        for (int j = 0; j < TN; ++j) v[j] = __ldcg(X + row * N + col + j);
    } else {
#pragma unroll
        for (int j = 0; j < TN; ++j) v[j] = (row < M && col + j < N) ? __ldcg(X + row * N + col + j) : 0.0f;
    }
}
// Stores TN consecutive outputs C[row][col .. col+TN-1]: 16-byte stores on the fast path (and
// inside, on aligned rows), scalar ones inside on unaligned rows, only the elements inside C on
// the edge path.
template <int TN, int EDGE>
__device__ __forceinline__ void store_row(float* C, int row, int col, int M, int N, const float* v)
{
    if (EDGE == EDGE_FAST || (EDGE == EDGE_INTERIOR && (N & 3) == 0)) {
#pragma unroll
        for (int j = 0; j < TN; j += 4) store4(C + row * N + col + j, make_float4(v[j], v[j + 1], v[j + 2], v[j + 3]));
    } else {
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            if (EDGE == EDGE_INTERIOR || (row < M && col + j < N)) C[row * N + col + j] = v[j];
        }
    }
}
