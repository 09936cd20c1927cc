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
