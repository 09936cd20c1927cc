// benchmarks/latency.cu -- how long one load takes, measured by pointer chasing: a single thread
// follows a random cycle through an array, each load's address the value the previous load
// returned, so no two loads overlap; clock64() (SM cycles) and %globaltimer (nanoseconds) around
// `steps` loads give the time of one. Not a rung of the ladder: it backs the latency figures
// page 05 shows (bench_latency.py).
//   chase_global : __ldcg (cached in L2 only, not L1) over an array far larger than L2, each run
//                  starting at a new point of the cycle after L2 was flushed: DRAM;
//                  over a small array after a warm-up pass: an L2 hit.
//   chase_shared : the cycle copied into shared memory first.
//   chase_const  : a cycle in __constant__ memory after one warm-up pass: 1 KB fits the constant
//                  cache nearest the SM; 16 KB does not (it is served by the next level).

#define CONST_WORDS 4096  // 16 KB of __constant__ memory
#define CONST_SMALL 256   // 1 KB

__constant__ unsigned const_next[CONST_WORDS];
__constant__ unsigned const_small[CONST_SMALL];

__device__ __forceinline__ unsigned long long ns_now()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// out[0] = cycles, out[1] = nanoseconds over the timed loop
extern "C" __global__ void chase_global(const unsigned* next, unsigned start, int warm, int steps,
                                        unsigned* sink, long long* out)
{
    unsigned j = start;
    for (int i = 0; i < warm; ++i) j = __ldcg(next + j);  // (an L2-sized array: now in L2)
    const unsigned long long n0 = ns_now();
    const long long t0 = clock64();
    for (int i = 0; i < steps; ++i) j = __ldcg(next + j);
    const long long t1 = clock64();
    const unsigned long long n1 = ns_now();
    sink[0] = j;  // keeps the chain alive
    out[0] = t1 - t0;
    out[1] = (long long)(n1 - n0);
}

extern "C" __global__ void chase_shared(const unsigned* next, int words, unsigned start, int steps,
                                        unsigned* sink, long long* out)
{
    extern __shared__ unsigned s_next[];
    for (int i = threadIdx.x; i < words; i += blockDim.x) s_next[i] = next[i];
    __syncthreads();
    if (threadIdx.x != 0) return;
    unsigned j = start;
    const unsigned long long n0 = ns_now();
    const long long t0 = clock64();
    for (int i = 0; i < steps; ++i) j = s_next[j];
    const long long t1 = clock64();
    const unsigned long long n1 = ns_now();
    sink[0] = j;
    out[0] = t1 - t0;
    out[1] = (long long)(n1 - n0);
}

// Indexed by name (not through a pointer), so the loads stay ld.const: through the constant cache.
template <int WORDS>
__device__ __forceinline__ unsigned const_hop(unsigned j)
{
    if (WORDS == CONST_SMALL) return const_small[j];
    return const_next[j];
}

template <int WORDS>
__device__ void chase_const_t(unsigned start, int steps, unsigned* sink, long long* out)
{
    unsigned j = start;
    for (int i = 0; i < WORDS; ++i) j = const_hop<WORDS>(j);  // warm-up: every word once
    const unsigned long long n0 = ns_now();
    const long long t0 = clock64();
    for (int i = 0; i < steps; ++i) j = const_hop<WORDS>(j);
    const long long t1 = clock64();
    const unsigned long long n1 = ns_now();
    sink[0] = j;
    out[0] = t1 - t0;
    out[1] = (long long)(n1 - n0);
}

extern "C" __global__ void chase_const(unsigned start, int steps, unsigned* sink, long long* out)
{
    chase_const_t<CONST_WORDS>(start, steps, sink, out);
}

extern "C" __global__ void chase_const_small(unsigned start, int steps, unsigned* sink, long long* out)
{
    chase_const_t<CONST_SMALL>(start, steps, sink, out);
}
