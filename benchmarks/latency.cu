// benchmarks/latency.cu -- how long one load takes, measured by pointer chasing: a single thread
// follows a random cycle through an array, each load's address the value the previous load
// returned, so no two loads overlap; clock64() around `steps` loads gives the cycles of one.
// Not a rung of the ladder: it backs the latency figures page 05 shows (bench_latency.py).
//   chase_global : __ldcg (cached in L2 only, not L1) over an array far larger than L2: DRAM;
//                  over a small array: an L2 hit.
//   chase_shared : the cycle copied into shared memory first.
//   chase_const  : the cycle in __constant__ memory (after one warm-up pass: the constant cache).

#define CONST_WORDS 4096  // 16 KB of __constant__ memory

__constant__ unsigned const_next[CONST_WORDS];

extern "C" __global__ void chase_global(const unsigned* next, unsigned start, int warm, int steps,
                                        unsigned* sink, long long* cycles)
{
    unsigned j = start;
    for (int i = 0; i < warm; ++i) j = __ldcg(next + j);  // (an L2-sized array: now in L2)
    const long long t0 = clock64();
    for (int i = 0; i < steps; ++i) j = __ldcg(next + j);
    const long long t1 = clock64();
    sink[0] = j;  // keeps the chain alive
    cycles[0] = t1 - t0;
}

extern "C" __global__ void chase_shared(const unsigned* next, int words, unsigned start, int steps,
                                        unsigned* sink, long long* cycles)
{
    extern __shared__ unsigned s_next[];
    for (int i = threadIdx.x; i < words; i += blockDim.x) s_next[i] = next[i];
    __syncthreads();
    if (threadIdx.x != 0) return;
    unsigned j = start;
    const long long t0 = clock64();
    for (int i = 0; i < steps; ++i) j = s_next[j];
    const long long t1 = clock64();
    sink[0] = j;
    cycles[0] = t1 - t0;
}

extern "C" __global__ void chase_const(unsigned start, int steps, unsigned* sink, long long* cycles)
{
    unsigned j = start;
    for (int i = 0; i < CONST_WORDS; ++i) j = const_next[j];  // warm-up: every word once
    const long long t0 = clock64();
    for (int i = 0; i < steps; ++i) j = const_next[j];
    const long long t1 = clock64();
    sink[0] = j;
    cycles[0] = t1 - t0;
}
