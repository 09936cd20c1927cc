// kernels/tuned/splitk_reduce.cu -- not a rung: the separate reduction of a split-K launch (the planner's
// "+reduce", as cuBLAS's splitKreduce kernel).
//
// What it is for
//   In the tuned kernel 14's split-K launch the last of a tile's S blocks to arrive adds the S slices of
//   that tile alone: one block reads S x BM x BN floats while the others are done. Where S is
//   large or the tiles are few (128x128x65536 in 128 slices, 3000x96x3000 in 11 slices of 256 x 128
//   tiles) that last step takes as long as the product (H100: 3000x96x3000 warptile@11 0.112 ms
//   with it, 0.064 without; benchmarks/results/splitk_2026-11-23.md). Launched
//   without tile counters, kernel 14's blocks only store their slices, and this kernel adds them:
//   every SM reads its share of the S x M x N floats, at the memory's bandwidth. (The sums are
//   associated differently from kernel 14's own fix-up, z in ZW interleaved runs: other last bits.)
//
// splitk_reduce: C[i] = the sum over z < S of W[z][i] for i < mn (= M x N, C's floats; W holds S
//   slices of mn floats each, laid out like C, slice z starting at float z x (mn rounded up to 4),
//   so that every slice starts 16-byte aligned whatever M and N: kernel 14 stores them so). A
//   thread takes 4 consecutive floats of C (16-byte loads and stores; the one that holds C's last
//   1-3 floats, one by one). Up to 8 slices: a block of 256 threads takes 256 x 4 floats of C,
//   each thread its slices in the order z = 0, 1, .. (the blocks of the other layout, 128 floats of
//   C each, made 13 684 blocks at 1037x1689: an empty kernel on that grid spanned 16.3 us, this
//   layout with its work 12.0: H100, benchmarks/results/splitk_2026-11-23.md). More
//   slices: a block of ZW = 8 warps
//   takes 32 x 4 consecutive floats of C, lane l its 4 floats, warp w the slices z = w, w + ZW,
//   .. in that order; then warp 0 adds the ZW warps' sums in the order w = 0, 1, ..: a fixed order, so the
//   same bits every run. With ZW warps on the slices, a tile of C of few floats cut in many slices
//   (128x128x65536 in 64) still spreads its loads over many SMs, ZW times more of them in flight.
//
// Launch (explainer/gpu/launch.py LaunchConfig.reduce_launch): 256 threads a block, grid
// ceil(mn / 1024) up to 8 slices, ceil(mn / 128) above; after kernel 14's split-K launch on the
// same stream.

extern "C" __global__ void __launch_bounds__(256)
splitk_reduce(const float* __restrict__ W, float* __restrict__ C, long long mn, int splits)
{
    const long long stride = (mn + 3) & ~3LL;  // slice z starts at W + z * stride: 16-byte aligned
    if (splits <= 8) {  // (uniform) a thread per float4 of C, its slices in the order z = 0, 1, ..
        const long long i = 4LL * (blockIdx.x * (long long)blockDim.x + threadIdx.x);
        if (i >= mn) return;
        float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (i + 3 < mn) {
#pragma unroll 8
            for (int z = 0; z < splits; ++z) {
                const float4 v = *reinterpret_cast<const float4*>(W + z * stride + i);
                sum.x += v.x; sum.y += v.y; sum.z += v.z; sum.w += v.w;
            }
            if ((reinterpret_cast<unsigned long long>(C) & 15) == 0) {
                *reinterpret_cast<float4*>(C + i) = sum;
                return;
            }
        } else {  // C's last 1-3 floats
            for (int z = 0; z < splits; ++z) {
                const float* p = W + z * stride + i;
                sum.x += p[0];
                if (i + 1 < mn) sum.y += p[1];
                if (i + 2 < mn) sum.z += p[2];
            }
        }
        C[i] = sum.x;
        if (i + 1 < mn) C[i + 1] = sum.y;
        if (i + 2 < mn) C[i + 2] = sum.z;
        if (i + 3 < mn) C[i + 3] = sum.w;
        return;
    }
    __shared__ float4 part[8][32];
    const int lane = threadIdx.x % 32, w = threadIdx.x / 32, zw = blockDim.x / 32;
    const long long i = 4LL * (blockIdx.x * 32LL + lane);  // this lane's first float of C
    const bool whole = i + 3 < mn;                          // the lane's 4 floats all inside C
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (whole) {
#pragma unroll 4
        for (int z = w; z < splits; z += zw) {
            const float4 v = *reinterpret_cast<const float4*>(W + z * stride + i);
            sum.x += v.x; sum.y += v.y; sum.z += v.z; sum.w += v.w;
        }
    } else if (i < mn) {  // C's last 1-3 floats
        for (int z = w; z < splits; z += zw) {
            const float* p = W + z * stride + i;
            sum.x += p[0];
            if (i + 1 < mn) sum.y += p[1];
            if (i + 2 < mn) sum.z += p[2];
        }
    }
    part[w][lane] = sum;
    __syncthreads();
    if (w != 0 || i >= mn) return;
    for (int q = 1; q < zw; ++q) {
        const float4 v = part[q][lane];
        sum.x += v.x; sum.y += v.y; sum.z += v.z; sum.w += v.w;
    }
    if (whole && (reinterpret_cast<unsigned long long>(C) & 15) == 0) {
        *reinterpret_cast<float4*>(C + i) = sum;
    } else {
        C[i] = sum.x;
        if (i + 1 < mn) C[i + 1] = sum.y;
        if (i + 2 < mn) C[i + 2] = sum.z;
        if (i + 3 < mn) C[i + 3] = sum.w;
    }
}
