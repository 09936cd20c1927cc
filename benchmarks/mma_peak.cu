// benchmarks/mma_peak.cu -- the ceiling of mma.sync m16n8k8 TF32 on this GPU: no memory traffic,
// every warp issuing back-to-back tensor-core products on registers (ILP independent
// accumulators, so the latency of one product hides behind the others). What kernel 16 (and any
// mma.sync kernel) could reach at best; benchmarks/mma_peak.py launches it. Not a teaching kernel.
#ifndef ILP
#define ILP 8
#endif

extern "C" __global__ void mma_peak(float* out, int iters)
{
    unsigned a[4], b[2];
    for (int i = 0; i < 4; ++i) a[i] = __float_as_uint(1.0f + threadIdx.x * 1e-3f + i);
    for (int i = 0; i < 2; ++i) b[i] = __float_as_uint(0.5f - threadIdx.x * 1e-3f + i);
    float d[ILP][4] = {};
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int j = 0; j < ILP; ++j)
            asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                         : "+f"(d[j][0]), "+f"(d[j][1]), "+f"(d[j][2]), "+f"(d[j][3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < ILP; ++j) s += d[j][0] + d[j][1] + d[j][2] + d[j][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;  // keeps the products alive
}

// One warp tile of kernel 16 (64 x 64: 4 x 8 m16n8 tiles, 32 mma.sync per k-step) on fragments
// read once from `frag` (32 words per lane: A's 4 x 4, then B's 8 x 2) and kept in registers:
// the tensor cores' work of kernel 16 with the operand bits of real data (or of zeros), and no
// shared memory, no copies, no cvt. benchmarks/mma_peak.py --sustain runs it at the power limit.
extern "C" __global__ void mma_tile(const unsigned* __restrict__ frag, float* out, int iters)
{
    const int lane = threadIdx.x % 32;
    unsigned a[4][4], b[8][2];
    for (int mi = 0; mi < 4; ++mi)
        for (int i = 0; i < 4; ++i) a[mi][i] = frag[(mi * 4 + i) * 32 + lane];
    for (int ni = 0; ni < 8; ++ni)
        for (int i = 0; i < 2; ++i) b[ni][i] = frag[(16 + ni * 2 + i) * 32 + lane];
    float acc[4][8][4] = {};
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int mi = 0; mi < 4; ++mi)
#pragma unroll
            for (int ni = 0; ni < 8; ++ni)
                asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                             : "+f"(acc[mi][ni][0]), "+f"(acc[mi][ni][1]), "+f"(acc[mi][ni][2]), "+f"(acc[mi][ni][3])
                             : "r"(a[mi][0]), "r"(a[mi][1]), "r"(a[mi][2]), "r"(a[mi][3]), "r"(b[ni][0]), "r"(b[ni][1]));
    }
    float s = 0.f;
#pragma unroll
    for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < 8; ++ni) s += acc[mi][ni][0] + acc[mi][ni][1] + acc[mi][ni][2] + acc[mi][ni][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
