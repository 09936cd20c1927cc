// kernels/06_tiled_unguarded.cu -- PMPP 4th ed. fig. 5.9 exactly as printed: the tiled kernel with
// NO boundary checks and Width/TILE_WIDTH phases (integer division). The PMPP chapter 5 notes (5.5)
// and the course notes (Width = 3, TILE_WIDTH = 2) explain why the book then adds the checks of
// 03_tiled.cu.
// Instantiated for TILE = 2, 4, 8, 16, 32.
//
// What it teaches
//   The book's kernel assumes T divides every size. Generalised to C = A (M x K) @ B (K x N) it
//   runs K / T phases, rounded DOWN: when T does not divide K the last K % T columns of A (rows
//   of B) are never loaded, so EVERY element of C misses K % T terms (all of C stays 0 if K < T).
//   Without the checks, threads of an edge block read and store linear addresses that do not
//   belong to their element: A[row * K + c] with row >= M lies past the end of A; B[k * N + col]
//   with col >= N is element (k + 1, col - N) of B (another row) or past its end; the store
//   C[row * N + col] of a ghost thread lands on ANOTHER element of C (a race with its owner) or
//   past the end. explainer.model.unguarded_report lists them all.
//   Out-of-range accesses are undefined behaviour: they may crash, or silently read garbage.
//   The explainer launches this kernel only where every access stays inside the allocations:
//   gpu.check / trace / benchmark refuse it unless T divides M and N, and explainer.gpu_edges
//   pads the buffers (A, B with zeros, C with NaN) up to model.unguarded_extents.
//
// Launch (explainer/gpu/launch.py launch_config): as 03: block (T, T), grid (ceil(N/T), ceil(M/T)), static
// shared memory 2 * T * T * 4 bytes; K / T phases. Correct only when T divides M, N and K.
// Run it:  tiled-explainer trace --kernel tiled_unguarded --M 3 --N 3 --K 3 --tile 2 --block 1,0 --thread 1,0
#include "common.cuh"

template <int TILE>
__global__ void tiled_unguarded_gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];  // (T, T) window of A
    __shared__ float Bs[TILE][TILE];  // (T, T) window of B

    const int ty = threadIdx.y;
    const int tx = threadIdx.x;
    const int row = blockIdx.y * TILE + ty;  // @step:index
    const int col = blockIdx.x * TILE + tx;  // @step:index
    const int phases = K / TILE;  // PMPP: Width / TILE_WIDTH, rounded down
    float sum = 0.0f;

    for (int t = 0; t < phases; ++t) {  // @step:phase
        // no check: row may be >= M (past the end of A)
        As[ty][tx] = A[row * K + t * TILE + tx];  // @step:load_a
        TRACE_A(TILE, phases, t, row * K + t * TILE + tx);

        // no check: col may be >= N (the next row of B, or past its end)
        Bs[ty][tx] = B[(t * TILE + ty) * N + col];  // @step:load_b
        TRACE_B(TILE, phases, t, (t * TILE + ty) * N + col);

        __syncthreads();  // @step:barrier1

#pragma unroll
        for (int k = 0; k < TILE; ++k) {
            sum += As[ty][k] * Bs[k][tx];  // @step:compute
        }

        __syncthreads();  // @step:barrier2
    }

    C[row * N + col] = sum;  // @step:store
    TRACE_C(row * N + col);
}

template __global__ void tiled_unguarded_gemm<2>(const float*, const float*, float*, int, int, int);
template __global__ void tiled_unguarded_gemm<4>(const float*, const float*, float*, int, int, int);
template __global__ void tiled_unguarded_gemm<8>(const float*, const float*, float*, int, int, int);
template __global__ void tiled_unguarded_gemm<16>(const float*, const float*, float*, int, int, int);
template __global__ void tiled_unguarded_gemm<32>(const float*, const float*, float*, int, int, int);
