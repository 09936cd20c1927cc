// kernels/pad_rows.cu -- not a rung: the copies of a padded launch (the planner's "+pad").
//
// What it is for
//   Kernel 14 reads A and B in 16-byte granules (float4) when their rows start 16-byte aligned,
//   that is when K (A's row length) and N (B's) are multiples of 4. Otherwise its blocks copy
//   element by element, 4x the loads and their address arithmetic (measured 14% slower at
//   4189^3 on the H100: benchmarks/results/splitk_2026-11-23.md, session 9). A library can
//   instead copy A and B once into buffers whose rows are padded with zeros to a multiple of 4
//   floats and run the fast path there: C = A' B' is the same C, because the padded columns of
//   A' and rows of B' are zeros (each adds 0 x 0 to a sum). When N is padded, C' has N' columns
//   and its first N are copied back. The copies cost one read and one write of each matrix,
//   which pays only where the product is long enough (the planner's pad_ms).
//
// pad_rows: dst (dst_rows x ld) = src (rows x cols) with zeros right of column cols and below
//   row rows; two such copies in one launch (A and B): blocks [0, rows0) copy job 0's rows of
//   dst, the next blocks job 1's. One block per destination row, consecutive threads on
//   consecutive columns (coalesced loads and stores).
// unpad_rows: dst (rows x cols) = the first cols columns of src (rows x ld).
//
// Launch (explainer/gpu/verify.py _launch): 256 threads per block; pad_rows grid
// (dst_rows0 + dst_rows1), unpad_rows grid (rows).

extern "C" __global__ void __launch_bounds__(256)
pad_rows(const float* __restrict__ s0, float* __restrict__ d0, int rows0, int cols0, int ld0, int dst_rows0,
         const float* __restrict__ s1, float* __restrict__ d1, int rows1, int cols1, int ld1)
{
    int r = blockIdx.x;
    const float* s = s0;
    float* d = d0;
    int rows = rows0, cols = cols0, ld = ld0;
    if (r >= dst_rows0) {  // job 1 (B)
        r -= dst_rows0;
        s = s1; d = d1; rows = rows1; cols = cols1; ld = ld1;
    }
    const float* src = s + (long long)r * cols;
    float* dst = d + (long long)r * ld;
    const bool inside = r < rows;
    // Four columns per thread per pass (loads first, then stores): four loads in flight each.
    for (int c0 = threadIdx.x; c0 < ld; c0 += 4 * blockDim.x) {
        float v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            const int c = c0 + u * blockDim.x;
            v[u] = inside && c < cols ? src[c] : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            const int c = c0 + u * blockDim.x;
            if (c < ld) dst[c] = v[u];
        }
    }
}

extern "C" __global__ void __launch_bounds__(256)
unpad_rows(const float* __restrict__ src, float* __restrict__ dst, int cols, int ld)
{
    const float* s = src + (long long)blockIdx.x * ld;
    float* d = dst + (long long)blockIdx.x * cols;
    for (int c0 = threadIdx.x; c0 < cols; c0 += 4 * blockDim.x) {
        float v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            const int c = c0 + u * blockDim.x;
            v[u] = c < cols ? s[c] : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            const int c = c0 + u * blockDim.x;
            if (c < cols) d[c] = v[u];
        }
    }
}
