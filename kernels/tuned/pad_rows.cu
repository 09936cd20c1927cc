// kernels/tuned/pad_rows.cu -- not a rung: the copies of a padded launch (the planner's "+pad").
//
// What it is for
//   Kernel 14 reads A and B in 16-byte granules (float4) when their rows start 16-byte aligned,
//   that is when K (A's row length) and N (B's) are multiples of 4. Otherwise its blocks copy
//   element by element, 4x the loads and their address arithmetic (measured 14% slower at
//   4189^3 on the H100: benchmarks/results/splitk_2026-11-23.md). A library can
//   instead copy the matrix whose rows are unaligned once into a buffer whose rows are padded
//   with zeros to a multiple of 4 floats, and run the 16-byte copies there; the kernel is told
//   how far apart the rows lie (its lda, ldb) and still computes the M x N x K product, storing
//   C in place (nothing is copied back). The copies cost one read and one write of A (where K is
//   not a multiple of 4) and of B (where N is not), which pays only where the product is long
//   enough (the planner's pad_ms).
//   Where the zeros go: kernel 14 puts K's partial phase first, phase t covering columns
//   [t * BK - lead, (t + 1) * BK - lead) (lead = phases * BK - K). In a copy of A whose rows
//   start with shift = lead mod 4 zeros (the same for every BK, a multiple of 4: (4 - K mod 4)
//   mod 4), every granule of those columns starts 16-byte aligned. B's rows get their zeros at
//   the end: its granules run along N from column 0.
//
// pad_rows: dst (rows x ld) row r = shift zeros, src's row r (cols floats), zeros up to ld; two
//   such copies in one launch (A and B). Each row in chunks of CHUNK = 1024 columns, one block per
//   chunk (chunks0 = ceil(ld0 / CHUNK) per row of job 0, likewise job 1), so that a matrix of few
//   long rows still spreads over every SM: blocks [0, rows0 * chunks0) copy job 0, the next
//   rows1 * chunks1 blocks job 1. Consecutive threads on consecutive columns (coalesced loads and
//   stores), four columns per thread.
//
// Launch (explainer/gpu/verify.py _pad_inputs): 256 threads per block, grid
// (rows0 * chunks0 + rows1 * chunks1).

#define PAD_THREADS 256
#define CHUNK (4 * PAD_THREADS)

extern "C" __global__ void __launch_bounds__(PAD_THREADS)
pad_rows(const float* __restrict__ s0, float* __restrict__ d0, int rows0, int cols0, int ld0, int shift0,
         int chunks0, const float* __restrict__ s1, float* __restrict__ d1, int cols1, int ld1, int shift1,
         int chunks1)
{
    long long b = blockIdx.x;
    const float* s = s0;
    float* d = d0;
    int cols = cols0, ld = ld0, shift = shift0, chunks = chunks0;
    if (b >= (long long)rows0 * chunks0) {  // job 1 (B)
        b -= (long long)rows0 * chunks0;
        s = s1; d = d1; cols = cols1; ld = ld1; shift = shift1; chunks = chunks1;
    }
    const long long r = b / chunks;
    const int c0 = (int)(b % chunks) * CHUNK + threadIdx.x;
    const float* src = s + r * cols - shift;  // src[c]: destination column c
    float* dst = d + r * ld;
    float v[4];  // loads first, then stores: four loads in flight per thread
#pragma unroll
    for (int u = 0; u < 4; ++u) {
        const int c = c0 + u * PAD_THREADS;
        v[u] = c >= shift && c < cols + shift ? src[c] : 0.0f;
    }
#pragma unroll
    for (int u = 0; u < 4; ++u) {
        const int c = c0 + u * PAD_THREADS;
        if (c < ld) dst[c] = v[u];
    }
}
