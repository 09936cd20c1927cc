// kernels/tuned/warptile_tuned.cu -- the tuning engine's kernel 14: not a rung of the lesson. The
// rung kernels/14_warptile.cu (warp tiling, double buffering, a plain guard) grown to reach cuBLAS
// at every shape: a block tile per shape (explainer/tuning/configs.py), split-K and the split tail,
// padded rows, and edge blocks treated one by one. docs/tuning.md describes it; the planner
// (explainer/tuning/planner.py) picks its launch.
//
// What it teaches
//   Kernels 11-13 give each thread one contiguous TM x TN block of C. Two things go wrong: the
//   float4 reads of Bs by the 32 threads of a warp are TN*4 bytes apart (bank conflicts), and
//   nothing ties a warp to a compact region, so a warp's shared reads are spread out.
//   Here the block tile BM x BN is cut into warp tiles WM x WN (one per warp), each warp tile
//   into WMITER x WNITER sub-tiles of WSUBM x WSUBN, and in every sub-tile the 32 lanes form a
//   (WSUBM/TM) x (WSUBN/TN) grid of TM x TN micro-tiles. A thread owns WMITER*WNITER micro-tiles
//   spaced WSUBM rows and WSUBN columns apart. Per step k the lanes of a warp read adjacent
//   float4s of As and Bs (no bank conflicts, broadcasts where lanes share a row), and a thread
//   does (WMITER*TM) x (WNITER*TN) multiply-adds for WMITER*TM/4 + WNITER*TN/4 LDS.128.
//   As is transposed with rows padded to BM + PAD floats, so that the 4 scalar stores of a transposed float4
//   land in different banks (BK = 32: rows with k / 8 odd also swap each pair of float4s, as_swz). One barrier a phase.
//   The three levels of tiling are the same idea three times: block tile (shared memory, reuse
//   across warps), warp tile (reuse across lanes, through broadcast), thread tile (registers).
//   Split-K (warptile_splitk_gemm, chosen by explainer/tuning/planner.py): when C has too few
//   tiles to give every SM work but K is long, S blocks share one tile of C, block z summing the
//   phases [z*P/S, (z+1)*P/S) into its own slice of a workspace; the last of the S to arrive (an
//   atomicAdd per tile) adds the slices in the order z = 0, 1, .. and stores C ("+reduce": a second
//   kernel does, on every SM, splitk_reduce.cu). Split tail: a last, partial round's tiles only.
//   Edges (any M, N, K): K's partial phase is the first (zeros before column 0): the loop never checks K. Every block
//   runs one body: the fast one, or on unaligned rows one that copies element by element (by pairs where rows are even;
//   split entry points: A and B). Where C is a tile tall and wide or more, a tile that would cross C's last row or
//   column moves back to end there (SHIFT) and stores only its own outputs; else edge blocks copy from rows and columns
//   clamped into A and B. Unaligned rows store through shared memory (put; EDGE_*, tuned.cuh). GUARD 0: tiles divide; 1: rows aligned; 2, 4: others; 5, 6: even; 3: below.
// Launch (explainer/gpu/launch.py launch_config, parameters in explainer/tuning/configs.py): 1D blocks of
// THREADS threads, grid (ceil(N/BN), ceil(M/BM), S) (S = 1 for warptile_gemm; the split tail: 1D,
// whole + (tiles - whole) * S blocks), static shared
// 2*(BK*(BM+PAD) + BK*BN)*4 bytes. Correct for any M, N, K >= 1. lda, ldb: floats from one row
// of A (B) to the next in memory, K (N) unless the launch is padded ("+pad", the planner's: A or B
// first copied, kernels/tuned/pad_rows.cu, into rows of a multiple of 4 floats, A's each starting with K's
// lead mod 4 zeros so that its granules stay aligned); C is always stored in place, N floats a row.
// "Rows aligned" (GUARD 1): lda, ldb and N multiples of 4; GUARD 3: lda, ldb only (padded, C's not);
// "rows even" (GUARD 5, roomy 6): lda and ldb even, not both multiples of 4. GUARD | 16 (whole-K entry,
// GUARD 2-6, K <= 256: explainer.tuning.configs.WIDE_ROWS_K): the same bodies, C's unaligned rows staged a
// whole warp tile wide (WIDE, see put), or with 4 warps or more the whole block tile (BLOCK_ROWS).
// Run it:  tiled-explainer bench --kernels planned warptile_256x128 --sizes 1024 3000
// The trace records by tile of C (explainer.tuning.configs.predict_trace's layout), which the split
// tail's 1D grid does not spell as blockIdx: every entry point names its tile (GridTile, SplitTail below).
#define EXPLAINER_BLOCK_ID ((long long)tile.y() * tile.gx() + tile.x())
#include "tuned.cuh"

// blockIdx.x / .y, or with FRESH read again by an asm the compiler may not merge with an earlier
// read: what the body computes from it after its K loop is then computed there, not held in a
// register through the loop (tile.fresh(), in the body's epilogue).
template <bool FRESH> __device__ __forceinline__ int block_x()
{
    if constexpr (!FRESH) return blockIdx.x;
    int v;
    asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(v));
    return v;
}
template <bool FRESH> __device__ __forceinline__ int block_y()
{
    if constexpr (!FRESH) return blockIdx.y;
    int v;
    asm volatile("mov.u32 %0, %%ctaid.y;" : "=r"(v));
    return v;
}

// The tile of C a block computes (x along N, y along M; gx tiles per row of tiles) and, with
// split-K, which slice z of K out of splits() (1: the whole K loop). GridTile reads them from
// blockIdx / gridDim (warptile_gemm, warptile_splitk_gemm: nothing held in registers), SplitTail
// holds what warptile_splittail_gemm computed from its 1D grid.
template <bool FRESH = false>
struct GridTileT {
    static constexpr bool always_split = true;  // (consulted for the split-K entry point only)
    __device__ int x() const { return block_x<FRESH>(); }
    __device__ int y() const { return block_y<FRESH>(); }
    __device__ int z() const { return blockIdx.z; }
    __device__ int splits() const { return gridDim.z; }
    __device__ int gx() const { return gridDim.x; }
    __device__ GridTileT<true> fresh() const { return {}; }
};
using GridTile = GridTileT<>;
template <bool FRESH = false>
struct SplitTailT {
    static constexpr bool always_split = false;  // its first blocks compute whole tiles
    int whole, splits_, gx_;  // the kernel's arguments: recomputed from where they are, not kept in registers
    __device__ int b() const { return block_x<FRESH>(); }
    __device__ int t() const { return b() < whole ? b() : whole + (b() - whole) / splits_; }  // tile, row by row
    __device__ int x() const { return t() % gx_; }
    __device__ int y() const { return t() / gx_; }
    __device__ int z() const { return b() < whole ? 0 : (b() - whole) % splits_; }
    __device__ int splits() const { return b() < whole ? 1 : splits_; }
    __device__ int gx() const { return gx_; }
    __device__ SplitTailT<true> fresh() const { return {whole, splits_, gx_}; }
};
using SplitTail = SplitTailT<>;

// A granule of phase 0 (load4_at, tuned.cuh) that may begin before column 0 of A or row 0 of B:
// the positions before the matrix are the lead's zeros (see warptile_body). Where rows are
// aligned the lead is a multiple of 4 and a granule lies wholly before or inside; on the
// guarded path of an unaligned K it may straddle column 0, element by element then.
template <int EDGE>
__device__ __forceinline__ float4 load4_lead(const float* X, int r, int c, int rows, int cols, int ld)
{
    if (r < 0 || c + 3 < 0) return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (c >= 0) return load4_at<EDGE>(X, r, c, rows, cols, ld);
    return make_float4(c >= 0 ? load_or_zero(X, r, c, rows, cols, ld) : 0.0f,
                       c + 1 >= 0 ? load_or_zero(X, r, c + 1, rows, cols, ld) : 0.0f,
                       c + 2 >= 0 ? load_or_zero(X, r, c + 2, rows, cols, ld) : 0.0f,
                       load_or_zero(X, r, c + 3, rows, cols, ld));
}

// The two shared buffers of As (transposed, rows padded to BM + PAD) and of Bs: one array per
// tile shape, whichever instantiation of the body below uses it (a guarded kernel runs the fast
// body too, see interior_block), so that the block's shared memory is counted once.
template <int BM, int BN, int BK, int PAD>
__device__ __forceinline__ float* warptile_smem()
{
    __shared__ __align__(16) float smem[2 * (BK * (BM + PAD) + BK * BN)];
    return smem;
}

// Where in row k of As column m of A's tile sits: m ^ as_swz(k). 0 but where BK = 32, there
// 4 ((k / 8) % 2): in every other 8 rows the float4s of each pair swap places. A warp's float4
// copy then stores to 16 banks instead of 8 (4-way conflicts: ncu, in
// benchmarks/results/splitk_2026-11-23.md); swapping within groups of 4 float4s would reach 32
// but costs the fast path registers it does not have (explainer.model.ladder.as_swizzle).
template <int BK>
__host__ __device__ constexpr int as_swz(int k)
{
    return BK == 32 ? ((k >> 3) & 1) << 2 : 0;
}

// A shifted tile's own outputs (SHIFT, see warptile_body): rows from ey * BM, columns from ex * BN,
// inside C's N columns; every output where the tile is not shifted.
template <int BM, int BN, bool SHIFT>
__device__ __forceinline__ bool own_out(int row, int col, int ey, int ex, int N)
{
    return !SHIFT || (row >= ey * BM && col >= ex * BN && col < N);
}

// store_seg, load_seg: store_row, load_row (tuned.cuh) of the TN outputs from (row, col), but in
// a shifted tile (SHIFT) only the block's own (own_out: whole granules where the stores are 16
// bytes: rows aligned, the tile's columns 4-aligned). WIDE: EDGE_FAST, or EDGE_INTERIOR on aligned rows.
template <int BM, int BN, int TN, int STORE, bool SHIFT>
__device__ __forceinline__ void store_seg(float* X, int row, int col, int M, int N, int ey, int ex, const float* v)
{
    constexpr bool WIDE = STORE == EDGE_FAST || STORE == EDGE_INTERIOR;
    if constexpr (!SHIFT) {
        store_row<TN, STORE>(X, row, col, M, N, v);
    } else if (WIDE && (N & 3) == 0) {
#pragma unroll
        for (int j = 0; j < TN; j += 4)
            if (own_out<BM, BN, SHIFT>(row, col + j, ey, ex, N))
                store4(X + row * N + col + j, make_float4(v[j], v[j + 1], v[j + 2], v[j + 3]));
    } else {
#pragma unroll
        for (int j = 0; j < TN; ++j)
            if (own_out<BM, BN, SHIFT>(row, col + j, ey, ex, N)) X[row * N + col + j] = v[j];
    }
}
template <int BM, int BN, int TN, int STORE, bool SHIFT>
__device__ __forceinline__ void load_seg(const float* X, int row, int col, int M, int N, int ey, int ex, float* v)
{
    constexpr bool WIDE = STORE == EDGE_FAST || STORE == EDGE_INTERIOR;
    if constexpr (!SHIFT) {
        load_row<TN, STORE>(X, row, col, M, N, v);
    } else if (WIDE && (N & 3) == 0) {
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            const float4 q = own_out<BM, BN, SHIFT>(row, col + j, ey, ex, N)
                                 ? __ldcg(reinterpret_cast<const float4*>(X + row * N + col + j))
                                 : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            v[j] = q.x; v[j + 1] = q.y; v[j + 2] = q.z; v[j + 3] = q.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < TN; ++j) v[j] = own_out<BM, BN, SHIFT>(row, col + j, ey, ex, N) ? __ldcg(X + row * N + col + j) : 0.0f;
    }
}

// Split-K's fix-up, by the last of a tile's tile.splits() blocks to arrive: C = W[0] + W[1] + ... in
// the order z = 0, 1, ..: the same float sum whichever block is last. The thread's rows (SEGS of
// TN floats, its first at (r0, c0) of C) in groups of G, each group U slices at a time: the G x U
// loads travel together, one round trip to L2 per U slices and group instead of per slice and row.
// One block reads the tile's S slices alone, so the round trips, not the bytes, set its time
// (one slice at a time it read 10-54 GB/s: benchmarks/results/splitk_2026-11-23.md).
// Its own slice is read back as it stored it. A function of its own, not inlined: its loads in
// flight (G x U x TN = 64 floats, the accumulators' registers, dead by now) then take no registers
// from the K loop, and the loop keeps its schedule (inlined, the split entry points' short tails
// ran up to 54% slower). G = 8 where loads are unchecked, else 4 (12 rows: 6).
template <int BM, int BN, int TM, int TN, int WMITER, int WNITER, int WSUBM, int WSUBN, int STORE, bool SHIFT,
          class Tile>
__device__ __noinline__ void split_fixup(const float* W, float* C, int M, int N, const Tile tile, int r0, int c0,
                                         int ey, int ex)
{
    constexpr int SEGS = WMITER * TM * WNITER, GMAX = STORE == EDGE_FAST && !SHIFT ? 8 : 4;
    constexpr int G = [] { int g = SEGS < GMAX ? SEGS : GMAX; while (SEGS % g) --g; return g; }();
    constexpr int U = 64 / (G * TN) > 1 ? 64 / (G * TN) : 1;
    const int splits = tile.splits();
#pragma unroll
    for (int g0 = 0; g0 < SEGS; g0 += G) {
        float sum[G][TN] = {};
        for (int z0 = 0; z0 < splits; z0 += U) {
            float part[U][G][TN];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                if (z0 + u < splits) {
                    const float* Wz = W + split_offset(z0 + u, M, N);
#pragma unroll
                    for (int q = 0; q < G; ++q) {
                        const int sg = g0 + q, wm = sg / (TM * WNITER), i = sg / WNITER % TM, wn = sg % WNITER;
                        load_seg<BM, BN, TN, STORE, SHIFT>(Wz, r0 + wm * WSUBM + i, c0 + wn * WSUBN, M, N, ey, ex, part[u][q]);
                    }
                }
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                if (z0 + u < splits) {
#pragma unroll
                    for (int q = 0; q < G; ++q)
#pragma unroll
                        for (int j = 0; j < TN; ++j) sum[q][j] += part[u][q][j];  // @step:compute
                }
            }
        }
#pragma unroll
        for (int q = 0; q < G; ++q) {
            const int sg = g0 + q, wm = sg / (TM * WNITER), i = sg / WNITER % TM, wn = sg % WNITER;
            const int row = r0 + wm * WSUBM + i, col = c0 + wn * WSUBN;
            store_seg<BM, BN, TN, STORE, SHIFT>(C, row, col, M, N, ey, ex, sum[q]);  // @step:store
#pragma unroll
            for (int j = 0; j < TN; ++j)
                if (SHIFT ? own_out<BM, BN, SHIFT>(row, col + j, ey, ex, N) : row < M && col + j < N)
                    TRACE_OUT(WMITER * TM * WNITER * TN, (wm * TM + i) * WNITER * TN + wn * TN + j,
                              row * N + col + j);
        }
    }
}

// The body, shared by the two entry points at the end of the file: warptile_gemm (the whole K
// loop in one block) and warptile_splitk_gemm (SPLIT: the K loop cut into gridDim.z slices).
// EDGE (tuned.cuh): how it copies A and B: EDGE_FAST, EDGE_GUARDED, or EDGE_INTERIOR for a block
// inside C of a shape the fast path cannot take (see interior_block); STORE: how it stores C (and
// the split-K workspace, laid out like C): EDGE, but for a padded launch's interior blocks whose
// C rows are not aligned (GUARD 3: the fast copies, EDGE_INTERIOR's scalar stores).
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int THREADS,
          int PAD, int EDGE, int STORE, bool SPLIT, class Tile, int ELEMS, int MAXREGS = 255, bool SHIFT = false,
          bool WIDE = false>
__device__ __forceinline__ void
warptile_body(const float* A, const float* B, float* C, int M, int N, int K, int lda, int ldb, float* W,
              int* tiles_done, const Tile tile)
{
    constexpr int WMITER = (WM * WN) / (32 * TM * TN * WNITER);
    constexpr int WSUBM = WM / WMITER, WSUBN = WN / WNITER;  // one sub-tile of a warp
    constexpr int LDA = BM + PAD;                            // row length of the transposed As
    static_assert(BK != 32 || (TM == 4 && WSUBM % 8 == 0 && WM % 8 == 0 && BM % 8 == 0),
                  "as_swz: a thread reads one float4 of a pair of As's float4s");
    constexpr int A4 = BM * BK / 4 / THREADS;
    constexpr int B4 = BK * BN / 4 / THREADS;
    static_assert((BM / WM) * (BN / WN) == THREADS / 32, "one warp tile per warp");
    static_assert(WMITER >= 1 && (WSUBM / TM) * (WSUBN / TN) == 32, "32 lanes per sub-tile");
    static_assert(A4 * THREADS * 4 == BM * BK && B4 * THREADS * 4 == BK * BN, "even copy");
    static_assert(BK % 4 == 0 && BN % 4 == 0 && TM % 4 == 0 && TN % 4 == 0 && PAD % 4 == 0,
                  "float4 granules");
    float* const smem = warptile_smem<BM, BN, BK, PAD>();
    float (*As)[BK * LDA] = reinterpret_cast<float (*)[BK * LDA]>(smem);  // transposed, padded: As[buf][k * LDA + m]
    float (*Bs)[BK * BN] = reinterpret_cast<float (*)[BK * BN]>(smem + 2 * BK * LDA);  // Bs[buf][k * BN + n]

    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int wrow = warp / (BN / WN), wcol = warp % (BN / WN);      // @step:index
    const int trow = lane / (WSUBN / TN), tcol = lane % (WSUBN / TN);  // @step:index
    const int phases = CEIL_DIV(K, BK);
    // Split-K: slice z of tile.splits() sums the phases [t_begin, t_end) only (every phase belongs to
    // exactly one z; each gets at least one when tile.splits() <= phases, which the launch ensures).
    const int t_begin = SPLIT ? (int)((long long)tile.z() * phases / tile.splits()) : 0;  // @step:phase
    const int t_end = SPLIT ? (int)((long long)(tile.z() + 1) * phases / tile.splits()) : phases;  // @step:phase
    float acc[WMITER * TM][WNITER * TN] = {};
    float regM[WMITER * TM], regN[WNITER * TN];
    float4 ra[A4], rb[B4];

    // An interior block (EDGE_INTERIOR) of a shape whose rows are not 16-byte aligned (lda, or ldb,
    // not a multiple of 4) copies that matrix element by element instead: element e = tid + j *
    // THREADS of the tile, consecutive lanes along a row (4-byte loads that a warp still reads in
    // whole sectors), the thread's 4 * A4 (4 * B4) elements kept in ra (rb): one column of the
    // tile, every THREADS / BK-th row of As (THREADS / BN-th of Bs). Its last, partial phase
    // (tail) reads padding zeros past K.
    // Which matrices it copies element by element: ELEMS (bit 0 A, bit 1 B) in the bodies where
    // rows may be unaligned (EDGE_INTERIOR, EDGE_CLAMPED_ANY; 0 elsewhere), fixed at compile time
    // (warptile_run picks the body by lda and ldb), so that the loop holds one copy per matrix and
    // no branch, and the scheduler mixes the loads into the multiply-adds (decided in the loop, a
    // branch per copy split the unrolled loop: benchmarks/results/splitk_2026-11-23.md).
    // Where lda and ldb are both even (ELEMS bit 2, GUARD 5 and 6) every row starts 8-byte aligned
    // and so does every even column: the same copy by pairs of elements (CW = 2, 8-byte loads; B's
    // pairs stored as one 8-byte store), half the instructions (+4 to +13% where rows are even,
    //).
    constexpr bool ANY_ROWS = EDGE == EDGE_INTERIOR || EDGE == EDGE_CLAMPED_ANY;
    static_assert(ELEMS >= 0 && ELEMS <= 7 && (ANY_ROWS || ELEMS == 0) && (ELEMS < 4 || ELEMS > 4),
                  "ELEMS: bit 0 A, bit 1 B, bit 2 by pairs; any rows only");
    constexpr bool a_elems = (ELEMS & 1) != 0;
    constexpr bool b_elems = (ELEMS & 2) != 0;
    constexpr int CW = (ELEMS & 4) ? 2 : 1;  // elements per copy
    static_assert(THREADS % (BK / CW) == 0, "element copy: CW columns of A per thread");
    // B_COLUMN: a thread's copies of B share a column (THREADS a multiple of BN / CW); else
    // (96x128: 192 threads for 128 columns) copy j is copy e = tid + j * THREADS of the tile,
    // row e / (BN / CW), found anew for each j, and it sits at e * CW in Bs.
    constexpr bool B_COLUMN = THREADS % (BN / CW) == 0;
    const int ea_m = tid / (BK / CW), ea_k = (tid % (BK / CW)) * CW;  // A copy j: tile row ea_m + j * (CW * THREADS / BK), columns ea_k ..
    const int eb_k = tid / (BN / CW), eb_n = (tid % (BN / CW)) * CW;  // B copy j: tile row eb_k + j * (CW * THREADS / BN), columns eb_n ..

    // Where the block's tile starts in C. SHIFT (the body of a guarded launch whose C has at least
    // BM rows and BN columns, see warptile_run): a tile that would cross C's last row (column)
    // moves back until it ends there, so that it lies inside C and copies as an interior block
    // does, unchecked; it computes the rows (columns) it shares with the tile before it again, and
    // stores only its own: rows from tile.y() * BM, columns from tile.x() * BN (own). Columns end
    // at N rounded up to the width of B's copies (granules of 4 in B's rows of ldb floats: a
    // padded launch's zeros past N feed only outputs that are not stored).
    constexpr int BW = b_elems ? CW : 4;
    auto origin_row = [&](int y) { return SHIFT ? min(y * BM, M - BM) : y * BM; };
    auto origin_col = [&](int x) { return SHIFT ? min(x * BN, (N + BW - 1) / BW * BW - BN) : x * BN; };
    const int row0 = origin_row(tile.y());
    const int col0 = origin_col(tile.x());

    // K's partial phase comes first (the residue first, as in CUTLASS): phase t covers columns
    // [t * BK - lead, (t + 1) * BK - lead) of A (rows of B), lead = phases * BK - K, so that the
    // zeros that make K a whole number of phases stand before column 0, in phase 0, and every
    // later phase lies wholly inside K. Only the prologue's copy (first) checks for them; the
    // loop's copies never check K, whatever its length.
    const int lead = phases * BK - K;  // @step:phase
    // How the copies reach A and B: an edge block (EDGE_CLAMPED on aligned rows, EDGE_CLAMPED_ANY
    // on any) copies as an interior block does (granules on aligned rows, else elements),
    // unchecked, from rows of A and columns of B clamped into the matrix: a row of A to M - 1, a
    // granule of B to columns ldb - 4 .. ldb - 1, an element of B to column N - 1.
    constexpr bool CLAMP = EDGE == EDGE_CLAMPED || EDGE == EDGE_CLAMPED_ANY;
    constexpr int COPY = CLAMP ? EDGE_FAST : EDGE;
    auto fetch = [&](int t, bool first) {
        const int k0 = t * BK - lead;
        const bool head = first && k0 < 0;  // phase 0 of a K with a lead
        if (a_elems && CW == 2) {  // (a pair lies wholly before column 0 or inside: lead, k0 even)
            const bool inside = !head || k0 + ea_k >= 0;
#pragma unroll
            for (int j = 0; j < 2 * A4; ++j) {
                const int r = CLAMP ? min(row0 + ea_m + j * (2 * THREADS / BK), M - 1) : row0 + ea_m + j * (2 * THREADS / BK);
                const float2 v = inside ? *reinterpret_cast<const float2*>(A + (long long)r * lda + k0 + ea_k)
                                        : make_float2(0.0f, 0.0f);
                elem(ra[j / 2], (j % 2) * 2) = v.x;  // @step:load_a
                elem(ra[j / 2], (j % 2) * 2 + 1) = v.y;
            }
        } else if (a_elems && CLAMP) {
            const bool inside = !head || k0 + ea_k >= 0;
#pragma unroll
            for (int j = 0; j < 4 * A4; ++j) {
                const float* pa = A + min(row0 + ea_m + j * (THREADS / BK), M - 1) * lda + k0 + ea_k;
                elem(ra[j / 4], j % 4) = inside ? *pa : 0.0f;  // @step:load_a
            }
        } else if (a_elems) {
            const float* pa = A + (row0 + ea_m) * lda + k0 + ea_k;
            const bool inside = !head || k0 + ea_k >= 0;
#pragma unroll
            for (int j = 0; j < 4 * A4; ++j)
                elem(ra[j / 4], j % 4) = inside ? pa[j * (THREADS / BK) * lda] : 0.0f;  // @step:load_a
        } else {
#pragma unroll
            for (int q = 0; q < A4; ++q) {
                const int i = tid + q * THREADS, m = i / (BK / 4), kq = (i % (BK / 4)) * 4;
                const int r = CLAMP ? min(row0 + m, M - 1) : row0 + m;
                if (head) ra[q] = load4_lead<COPY>(A, r, k0 + kq, M, K, lda);
                else ra[q] = load4_at<COPY>(A, r, k0 + kq, M, K, lda);  // @step:load_a
            }
        }
        if (b_elems && !B_COLUMN) {
#pragma unroll
            for (int j = 0; j < 4 * B4 / CW; ++j) {
                const int e = tid + j * THREADS, k = e / (BN / CW), n = (e % (BN / CW)) * CW;
                const float* pb = B + (long long)(k0 + k) * ldb + (CLAMP ? min(col0 + n, N - CW) : col0 + n);
                const bool inside = !head || k0 + k >= 0;
                if constexpr (CW == 2) {
                    const float2 v = inside ? *reinterpret_cast<const float2*>(pb) : make_float2(0.0f, 0.0f);
                    elem(rb[(2 * j) / 4], (2 * j) % 4) = v.x;  // @step:load_b
                    elem(rb[(2 * j + 1) / 4], (2 * j + 1) % 4) = v.y;
                } else {
                    elem(rb[j / 4], j % 4) = inside ? *pb : 0.0f;  // @step:load_b
                }
            }
        } else if (b_elems && CW == 2) {
            const float* pb = B + (long long)(k0 + eb_k) * ldb + (CLAMP ? min(col0 + eb_n, N - 2) : col0 + eb_n);
#pragma unroll
            for (int j = 0; j < 2 * B4; ++j) {
                const int k = eb_k + j * (2 * THREADS / BN);
                const float2 v = (!head || k0 + k >= 0) ? *reinterpret_cast<const float2*>(pb + (long long)j * (2 * THREADS / BN) * ldb)
                                                        : make_float2(0.0f, 0.0f);
                elem(rb[j / 2], (j % 2) * 2) = v.x;  // @step:load_b
                elem(rb[j / 2], (j % 2) * 2 + 1) = v.y;
            }
        } else if (b_elems) {
            const float* pb = B + (k0 + eb_k) * ldb + (CLAMP ? min(col0 + eb_n, N - 1) : col0 + eb_n);
#pragma unroll
            for (int j = 0; j < 4 * B4; ++j) {
                const int k = eb_k + j * (THREADS / BN);
                elem(rb[j / 4], j % 4) = (!head || k0 + k >= 0) ? pb[j * (THREADS / BN) * ldb] : 0.0f;  // @step:load_b
            }
        } else {
#pragma unroll
            for (int q = 0; q < B4; ++q) {
                const int i = tid + q * THREADS, k = i / (BN / 4), nq = (i % (BN / 4)) * 4;
                const int c = CLAMP ? min(col0 + nq, ldb - 4) : col0 + nq;
                if (head) rb[q] = load4_lead<COPY>(B, k0 + k, c, K, N, ldb);
                else rb[q] = load4_at<COPY>(B, k0 + k, c, K, N, ldb);  // @step:load_b
            }
        }
    };
    auto stash = [&](int t) {
        float* as = As[t & 1];
        float* bs = Bs[t & 1];
        const int k0 = t * BK - lead;
        (void)k0;
        if (a_elems) {
#pragma unroll
            for (int j = 0; j < 4 * A4 / CW; ++j) {
                const int m = ea_m + j * (CW * THREADS / BK);
#pragma unroll
                for (int c = 0; c < CW; ++c) {
                    as[(ea_k + c) * LDA + (m ^ as_swz<BK>(ea_k))] = elem(ra[(j * CW + c) / 4], (j * CW + c) % 4);  // @step:load_a
                    TRACE_SLOT_A(phases, t, BK * LDA, (ea_k + c) * LDA + (m ^ as_swz<BK>(ea_k)),
                                 src_or_pad(CLAMP ? min(row0 + m, M - 1) : row0 + m, k0 + ea_k + c, M, K));
                }
            }
        } else {
#pragma unroll
            for (int q = 0; q < A4; ++q) {
                const int i = tid + q * THREADS, m = i / (BK / 4), kq = (i % (BK / 4)) * 4;
                const int ms = m ^ as_swz<BK>(kq);  // (m itself but where BK = 32)
                as[(kq + 0) * LDA + ms] = ra[q].x;  // @step:load_a
                as[(kq + 1) * LDA + ms] = ra[q].y;  // @step:load_a
                as[(kq + 2) * LDA + ms] = ra[q].z;  // @step:load_a
                as[(kq + 3) * LDA + ms] = ra[q].w;  // @step:load_a
#pragma unroll
                for (int c = 0; c < 4; ++c)
                    TRACE_SLOT_A(phases, t, BK * LDA, (kq + c) * LDA + ms,
                                 src_or_pad(CLAMP ? min(row0 + m, M - 1) : row0 + m, k0 + kq + c, M, K));
            }
        }
        if (b_elems && !B_COLUMN) {
#pragma unroll
            for (int j = 0; j < 4 * B4 / CW; ++j) {
                const int e = tid + j * THREADS, k = e / (BN / CW), n = (e % (BN / CW)) * CW;
                (void)k, (void)n;  // (the trace build's)
                if constexpr (CW == 2)
                    *reinterpret_cast<float2*>(&bs[e * 2]) =
                        make_float2(elem(rb[(2 * j) / 4], (2 * j) % 4), elem(rb[(2 * j + 1) / 4], (2 * j + 1) % 4));  // @step:load_b
                else
                    bs[e] = elem(rb[j / 4], j % 4);  // @step:load_b
#pragma unroll
                for (int c = 0; c < CW; ++c)
                    TRACE_SLOT_B(phases, t, BK * BN, e * CW + c,
                                 src_or_pad(k0 + k, (CLAMP ? min(col0 + n, N - CW) : col0 + n) + c, K, N));
            }
        } else if (b_elems) {
#pragma unroll
            for (int j = 0; j < 4 * B4 / CW; ++j) {
                const int k = eb_k + j * (CW * THREADS / BN);
                if constexpr (CW == 2)
                    *reinterpret_cast<float2*>(&bs[k * BN + eb_n]) =
                        make_float2(elem(rb[(2 * j) / 4], (2 * j) % 4), elem(rb[(2 * j + 1) / 4], (2 * j + 1) % 4));  // @step:load_b
                else
                    bs[k * BN + eb_n] = elem(rb[j / 4], j % 4);  // @step:load_b
#pragma unroll
                for (int c = 0; c < CW; ++c)
                    TRACE_SLOT_B(phases, t, BK * BN, k * BN + eb_n + c,
                                 src_or_pad(k0 + k, (CLAMP ? min(col0 + eb_n, N - CW) : col0 + eb_n) + c, K, N));
            }
        } else {
#pragma unroll
            for (int q = 0; q < B4; ++q) {
                const int i = tid + q * THREADS, k = i / (BN / 4), nq = (i % (BN / 4)) * 4;
                store4(&bs[k * BN + nq], rb[q]);  // @step:load_b
#pragma unroll
                for (int c = 0; c < 4; ++c)
                    TRACE_SLOT_B(phases, t, BK * BN, k * BN + nq + c,
                                 src_or_pad(k0 + k, (CLAMP ? min(col0 + nq, ldb - 4) : col0 + nq) + c, K, N));
            }
        }
    };

    fetch(t_begin, true);
    stash(t_begin);
    __syncthreads();  // @step:barrier1

    const int am = wrow * WM + trow * TM;  // this thread's first row inside the block tile
    const int bn = wcol * WN + tcol * TN;  // and its first column
    // Where rows may be unaligned (the element copies: many dependent address computations) and a
    // thread's k-step has 64-127 multiply-adds, the next phase's copy is issued after the first
    // k-step, so that the warps, all released by the same barrier, do not all wait on it before
    // their first multiply-add (benchmarks/results/splitk_2026-11-23.md) -- but only
    // with BK >= 16: since the bodies are chosen before the loop, BK = 8 leaves the
    // loads too few k-steps to arrive (ncu at 4096x511x1024: 0.30 long-scoreboard stalls per
    // issue, 0.01 on aligned rows), and copies at the top of the phase ran 128x128 +47%, 128x64 +14%, 64x128 -3 to
    // +19%; 128x64_bk16 keeps it (-11% without). Not with 128 outputs or more
    // (warptile, warptile_128x256), whose bodies ran 4-6% faster with the copy at the top.
    constexpr int OUTS = WMITER * TM * WNITER * TN;
    constexpr bool LATE_FETCH = ANY_ROWS && OUTS >= 64 && OUTS < 128 && BK >= 16;
    // The order of a k-step's multiply-adds: row by row, and where a thread holds 8 x 8 outputs
    // (128x128, 128x64, 64x128, 128x64_bk16) in a launch that does not split K, odd rows right to
    // left (a serpentine: each row starts with the column the previous one ended on). Every output
    // still sums its products in the same k order (the same bits); only the compiler's schedule and
    // registers change. H100: +1.4 to +4.4% at 9 of 9 whole-K launches (4096^3 128x128
    // 86.7 -> 90.5% of cuBLAS, 2207x833x687 84.2 -> 86.2); 16 x 8 outputs (warptile, 128x256) -3 to
    // +2%. Not in the split bodies, and at 128 registers a thread (MAXREGS: the entry point's
    // launch bounds) only in the fast body: there the element and clamped copies spilled 60-288
    // bytes with it, and split launches of 128x64 and 64x128 that spilled ran 8-9% slower.
    constexpr bool SERPENTINE = WMITER * TM == 8 && WNITER * TN == 8 && !SPLIT
                                && ((EDGE == EDGE_FAST && STORE == EDGE_FAST) || MAXREGS > 128);
    // The element copies' loads are issued where the source issues them, not at the end of the
    // phase: ptxas's scheduler, with the accumulators' registers live, holds back instructions
    // that start a new live range, and it sank the 4 x A4 + 4 x B4 scalar loads (a register each)
    // past every multiply-add of the phase, right before the stores that consume them, so that
    // every phase waited out the loads' latency (SASS of warptile_128x64_bk16's GUARD 4 body: 24
    // LDG after FFMA 1022 of 1024; ncu at 2157x919x1719: long-scoreboard stalls 68 k a warp
    // against 1.6 k on aligned rows, 77% of cuBLAS against 91%; the granule copies of aligned rows
    // stayed at the top). A __syncwarp() right after the copy is a point ptxas does not move
    // memory accesses across; the lanes are converged there, so it costs no instruction. Only
    // where the copy comes after the first k-step (LATE_FETCH) or a phase is 32 k-steps long:
    // there the held loads gained (H100, against the sunk ones in one process:
    // 128x64_bk16 76.6 -> 85.3% of cuBLAS at 2157x919x1719 and 80.2 -> 91.6 at 2158x920x1718,
    // 48x128 68.8 -> 72.3, 64x64_bk32 71.2 -> 73.5); copies at the top of a phase of 8 or 16
    // k-steps lost 1-5 points held there (t64 88.5 -> 85.3 at 2158x920x1718, 128x256 96.8 -> 93.8
    // at 1999x2001x1997, 32x128 82.9 -> 78.1 at 845x1099x819): the warps released by a barrier
    // then all wait on their loads' registers before the phase's multiply-adds have spread them out.
    constexpr bool HOLD_LOADS = (a_elems || b_elems) && (LATE_FETCH || BK >= 32);
    for (int t = t_begin; t < t_end; ++t) {  // @step:phase
        if (!LATE_FETCH && t + 1 < t_end) fetch(t + 1, false);
        if constexpr (HOLD_LOADS && !LATE_FETCH) __syncwarp();
        const float* as = As[t & 1];
        const float* bs = Bs[t & 1];
#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int wm = 0; wm < WMITER; ++wm) {
#pragma unroll
                for (int i = 0; i < TM; i += 4) {
                    const float4 v = load4(&as[k * LDA + (am ^ as_swz<BK>(k)) + wm * WSUBM + i]);
                    regM[wm * TM + i] = v.x; regM[wm * TM + i + 1] = v.y;
                    regM[wm * TM + i + 2] = v.z; regM[wm * TM + i + 3] = v.w;
                }
            }
#pragma unroll
            for (int wn = 0; wn < WNITER; ++wn) {
#pragma unroll
                for (int j = 0; j < TN; j += 4) {
                    const float4 v = load4(&bs[k * BN + bn + wn * WSUBN + j]);
                    regN[wn * TN + j] = v.x; regN[wn * TN + j + 1] = v.y;
                    regN[wn * TN + j + 2] = v.z; regN[wn * TN + j + 3] = v.w;
                }
            }
#pragma unroll
            for (int i = 0; i < WMITER * TM; ++i) {
#pragma unroll
                for (int jj = 0; jj < WNITER * TN; ++jj) {
                    const int j = SERPENTINE && (i & 1) ? WNITER * TN - 1 - jj : jj;  // odd rows right to left
                    acc[i][j] += regM[i] * regN[j];  // @step:compute
                }
            }
            if (LATE_FETCH && k == 0 && t + 1 < t_end) fetch(t + 1, false);
            if constexpr (HOLD_LOADS && LATE_FETCH) if (k == 0) __syncwarp();
        }
        if (t + 1 < t_end) stash(t + 1);
        __syncthreads();  // @step:barrier1
    }

    // The epilogue's origin: the same, but in a split entry point's shifted body computed again
    // from the block's index read anew (fresh): at 128 registers a thread, holding it through the
    // loop spilled there (ptxas: 96x128's padded split-K entry 16 bytes, none read anew); in the
    // whole-K entry points reading it anew spilled more (128x64's GUARD 3: 0 -> 84 bytes). Read
    // once, after the loop: an asm volatile is never hoisted, and the split tail's tile is a few
    // divisions (read in every ownership check, its fix-up ran 2.3x longer).
    constexpr bool FRESH = SHIFT && SPLIT;
    const auto etile = [&] { if constexpr (FRESH) return tile.fresh(); else return tile; }();
    const int ey = etile.y(), ex = etile.x();
    const int erow0 = FRESH ? origin_row(ey) : row0, ecol0 = FRESH ? origin_col(ex) : col0;
    auto own = [&](int row, int col) { return own_out<BM, BN, SHIFT>(row, col, ey, ex, N); };

    // A block inside C whose rows are not 16-byte aligned (N not a multiple of 4), and a block at
    // C's edge (whose stores are checked), cannot store a thread's TN outputs as one float4;
    // stored one by one, a warp's store would put 4 bytes in every 16 of many rows (a sector
    // each). Instead the warp passes each row segment through
    // shared memory (the As buffers, free after the loop's last barrier): every lane writes its TN
    // outputs of row i of its thread tile (the warp's WSUBM / TM rows x WSUBN columns, in lane
    // order), then the lanes read them back along the rows and store 32 consecutive floats per
    // instruction. Only where to store changes: each output is still the one its thread summed.
    // put(X, ...): the thread's TN outputs of row i of sub-tile (wm, wn) into X (C, or split-K's
    // slice of the workspace, laid out like C).
    // WIDE (GUARD | 16: whole-K launches of short K, where the epilogue is much of a block's time; with
    // 4 warps or more BLOCK_ROWS below stages the whole block tile instead): put(X, wm, i, 0) passes row i of all WNITER sub-tiles at once (put(X, wm, i, wn > 0) then does
    // nothing), so that a store instruction runs along WN consecutive floats of a row instead of
    // WSUBN, and a warp passes its outputs through shared memory half as often. Measured on the H100
    // (benchmarks/results/splitk_2026-11-23.md), % of cuBLAS: 2490x2974x64 64x64_bk16
    // 88.8 -> 94.2, 128x128 87.6 -> 95.8; 2548x1738x72 t64 83.7 -> 94.8; K = 188: -3 to +3 points; at
    // K of 800-2000 the same stores ran 2-9% slower (128x256, t64, 128x128's spilling GUARD 2 body):
    // hence only where K is short.
    const bool staged = STORE != EDGE_FAST && (STORE != EDGE_INTERIOR || (N & 3) != 0);
    static_assert(THREADS * TN * (WIDE ? WNITER : 1) <= 2 * (BK * LDA + BK * BN), "a row segment per warp in shared memory");
    float* const seg = smem + warp * 32 * TN * (WIDE ? WNITER : 1);
    auto put = [&](float* X, int wm, int i, int wn) {
        if (!staged) {
            store_seg<BM, BN, TN, STORE, SHIFT>(X, erow0 + am + wm * WSUBM + i, ecol0 + bn + wn * WSUBN, M, N, ey, ex,
                                                &acc[wm * TM + i][wn * TN]);  // @step:store
            return;
        }
        if constexpr (WIDE) {  // segments of the warp's WSUBM / TM rows x WN columns: every wn at once
            if (wn > 0) return;  // (stored with sub-tile 0's)
            __syncwarp();  // the lanes have read the previous segment
            const int r0 = lane / (WSUBN / TN), c0 = (lane % (WSUBN / TN)) * TN;  // the lane's place in a sub-tile
#pragma unroll
            for (int v = 0; v < WNITER; ++v)
#pragma unroll
                for (int j = 0; j < TN; j += 4)
                    store4(&seg[r0 * WN + v * WSUBN + c0 + j],
                           make_float4(acc[wm * TM + i][v * TN + j], acc[wm * TM + i][v * TN + j + 1],
                                       acc[wm * TM + i][v * TN + j + 2], acc[wm * TM + i][v * TN + j + 3]));
            __syncwarp();
#pragma unroll
            for (int j = 0; j < WNITER * TN; ++j) {
                const int f = lane + 32 * j, r = f / WN, c = f % WN;  // row r (trow) of the segment
                const int row = erow0 + wrow * WM + wm * WSUBM + r * TM + i, col = ecol0 + wcol * WN + c;
                if (SHIFT ? own(row, col) : STORE == EDGE_INTERIOR || (row < M && col < N)) X[row * N + col] = seg[f];  // @step:store
            }
        } else {
            __syncwarp();  // the lanes have read the previous segment
#pragma unroll
            for (int j = 0; j < TN; j += 4)
                store4(&seg[lane * TN + j], make_float4(acc[wm * TM + i][wn * TN + j], acc[wm * TM + i][wn * TN + j + 1],
                                                        acc[wm * TM + i][wn * TN + j + 2], acc[wm * TM + i][wn * TN + j + 3]));
            __syncwarp();
#pragma unroll
            for (int j = 0; j < TN; ++j) {
                const int f = lane + 32 * j, r = f / WSUBN, c = f % WSUBN;  // row r (trow) of the segment
                const int row = erow0 + wrow * WM + wm * WSUBM + r * TM + i, col = ecol0 + wcol * WN + wn * WSUBN + c;
                if (SHIFT ? own(row, col) : STORE == EDGE_INTERIOR || (row < M && col < N)) X[row * N + col] = seg[f];  // @step:store
            }
        }
    };

    if (SPLIT && (Tile::always_split || tile.splits() > 1)) {
        // Split-K epilogue. This block holds the sums over its slice of K only. It stores them in
        // its own slice W[z] of the workspace (M x N floats per z, laid out like C, each starting at
        // a multiple of 4 floats: split_offset, tuned.cuh) ...
        float* Wz = W + split_offset(tile.z(), M, N);
#pragma unroll
        for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int wn = 0; wn < WNITER; ++wn)
                    put(Wz, wm, i, wn);
        // Without tile counters (a launch with a separate reduction, kernels/tuned/splitk_reduce.cu: the
        // planner's "+reduce") the block is done: another kernel adds the slices, over every SM.
        if (tiles_done == nullptr) return;
        // ... makes them visible to every block, and counts itself done for this tile of C. The
        // last of the tile.splits() blocks to arrive adds the slices; the others are finished.
        __threadfence();
        __syncthreads();  // split-K: every thread's slice is stored and fenced before the block counts itself
        int arrived = 0;
        if (tid == 0) arrived = atomicAdd(&tiles_done[tile.y() * tile.gx() + tile.x()], 1) + 1;
        // all threads learn whether this block came last (a barrier that ORs a flag)
        if (!__syncthreads_or(arrived == tile.splits())) return;
        if (tid == 0) tiles_done[tile.y() * tile.gx() + tile.x()] = 0;  // ready for the next launch
        __threadfence();
        split_fixup<BM, BN, TM, TN, WMITER, WNITER, WSUBM, WSUBN, STORE, SHIFT>(W, C, M, N, tile, erow0 + am,
                                                                              ecol0 + bn, ey, ex);
        return;
    }

    // BLOCK_ROWS (the WIDE bodies of 4 warps or more): C's tile passes through shared memory block-wide,
    // R rows of BN floats at a time (as many as the As and Bs buffers hold, rows padded to BN + 4 floats),
    // and each warp stores whole rows of the tile, 32 consecutive floats an instruction: a row of the
    // tile at an unaligned address touches one partial sector at each end, not two per WN (put's WIDE).
    // Measured on the H100 against put's WIDE, % of cuBLAS: 2316x4390x160 128x64_bk16
    // 88.7 -> 93.9, 48x128 88.5 -> 95.8; 1496x2326x188 64x64_bk32 90.3 -> 93.2; 2490x2974x64 128x128
    // 95.4 -> 97.4; but t64's 2 warps 95.1 -> 87.3 at 2548x1738x72 (the rows' stores by 2 warps). Rows of
    // whole store instructions only (BN a multiple of 32: 128x48's bodies spilled 36-604 bytes with it).
    constexpr bool BLOCK_ROWS = WIDE && THREADS >= 128 && BN % 32 == 0;
    if constexpr (BLOCK_ROWS) {
        if (staged) {
            constexpr int SP = BN + 4;                              // a staged row's stride (floats)
            constexpr int HOLD = (2 * (BK * LDA + BK * BN)) / SP;   // rows the buffers hold
            constexpr int R = HOLD < BM ? HOLD : BM;
            static_assert(R >= 1, "a row of the tile in shared memory");
            for (int c0 = 0; c0 < BM; c0 += R) {
                __syncthreads();  // epilogue: the previous rows, or the K loop's last reads, are done
#pragma unroll
                for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
                    for (int i = 0; i < TM; ++i) {
                        const int rr = am + wm * WSUBM + i - c0;  // the thread's row i of sub-tile row wm, in this pass
                        if (rr >= 0 && rr < R) {
#pragma unroll
                            for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
                                for (int j = 0; j < TN; j += 4)
                                    store4(&smem[rr * SP + bn + wn * WSUBN + j],
                                           make_float4(acc[wm * TM + i][wn * TN + j], acc[wm * TM + i][wn * TN + j + 1],
                                                       acc[wm * TM + i][wn * TN + j + 2], acc[wm * TM + i][wn * TN + j + 3]));
                        }
                    }
                __syncthreads();  // epilogue: the pass's rows are in shared memory
                const int rows = BM - c0 < R ? BM - c0 : R;
                for (int rr = warp; rr < rows; rr += THREADS / 32) {
                    const int row = erow0 + c0 + rr;
#pragma unroll
                    for (int j = 0; j < BN / 32; ++j) {
                        const int c = lane + 32 * j, col = ecol0 + c;
                        if (SHIFT ? own(row, col) : STORE == EDGE_INTERIOR || (row < M && col < N))
                            C[row * N + col] = smem[rr * SP + c];  // @step:store
                    }
                }
            }
        }
    }
#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm) {
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const int row = erow0 + am + wm * WSUBM + i;
#pragma unroll
            for (int wn = 0; wn < WNITER; ++wn) {
                const int col = ecol0 + bn + wn * WSUBN;
                if (!BLOCK_ROWS || !staged) put(C, wm, i, wn);
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    if (SHIFT ? own(row, col + j) : row < M && col + j < N)
                        TRACE_OUT(WMITER * TM * WNITER * TN, (wm * TM + i) * WNITER * TN + wn * TN + j,
                                  row * N + col + j);
            }
        }
    }
}

// The guarded instantiations check only what needs it. A block whose BM x BN tile of C lies inside
// C (interior_block), or is shifted inside it (SHIFT, see warptile_body), runs the fast path's code
// when the rows of A, B and C (lda, ldb and N floats apart) are 16-byte aligned: K need not be a whole
// number of phases, since its partial phase is phase 0, copied in the prologue (see lead); otherwise
// the EDGE_INTERIOR body: no checks but in phase 0, scalar accesses where rows are not aligned.
template <int BM, int BN, class Tile>
__device__ __forceinline__ bool interior_block(const Tile tile, int M, int N)
{
    return (tile.y() + 1) * BM <= M && (tile.x() + 1) * BN <= N;
}

// Which body a block runs (the same for every thread of the block). GUARD (the entry points'
// last template parameter) is 0 where the tiles divide the shape (EDGE_FAST everywhere), 1 where
// they do not and the rows of A, B and C are 16-byte aligned (lda, ldb, N multiples of 4), 2 where they
// are not (4: the same bodies, roomier registers, see warptile_min_blocks), 3 where those of A and
// B are and C's are not (a padded launch, N not a multiple of 4):
// each instantiation holds only the bodies its shapes run (two), which keeps the
// registers and the code of one body from weighing on the other's. Every block of a launch runs
// the same body: where C is at least a tile tall and wide, the fast body (GUARD 1; 3: with scalar
// stores) or EDGE_INTERIOR (2), the edge blocks' tiles shifted back inside C; where it is narrower,
// the clamped copies, EDGE_CLAMPED (1, 3) or EDGE_CLAMPED_ANY (2). Measured on the H100
// (benchmarks/results/splitk_2026-11-23.md): an edge block on the clamped body ran 5-6%
// longer than an interior one (no serpentine order at 128 registers, a min per copied row, its
// stores through shared memory), which decides a launch of one round; the shifted tile costs its
// edge blocks the rows and columns they compute twice, not a slower loop. One body per launch also
// keeps two long K loops (1536 multiply-adds a thread a phase for 128x48: ~28 KB of code) from
// sharing an SM's instruction cache (23% of stall cycles "no instruction").
// EXPLAINER_NO_INTERIOR / EXPLAINER_NO_INTERIOR_UNALIGNED turn this off for measurements
// (benchmarks/sweep_shapes.py --defines).
#ifdef EXPLAINER_NO_INTERIOR_UNALIGNED
#define WARPTILE_INSIDE EDGE_GUARDED
#else
#define WARPTILE_INSIDE EDGE_INTERIOR
#endif
template <int V> struct IntConst { static constexpr int value = V; };
// Where rows may be unaligned (GUARD 2, 4; by pairs 5, 6), which matrices the bodies copy element by element
// (their ELEMS), fixed at compile time: the split entry points (SPLIT) copy both, whichever is
// unaligned (one body); the whole-K entry point picks one of three bodies by lda and ldb (A, B,
// both), so that an aligned matrix keeps its 16-byte copies. Measured on the H100 against the
// run-time choice: split launches +3 to +24% at 8 of 9 shapes (-0 to -4% at the
// ninth); whole-K +6 to +21% for the configurations that share their SM (64x128: -2 to +7%,
// 128x64_bk16: -2 to -5%) and, with their copy at the top of the phase (LATE_FETCH), +4 to +6%
// for the two alone on theirs (warptile, warptile_128x256).
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int THREADS,
          int PAD, int GW, bool SPLIT, class Tile, int MAXREGS = 255>
__device__ __forceinline__ void
warptile_run(const float* A, const float* B, float* C, int M, int N, int K, int lda, int ldb, float* W,
             int* tiles_done, const Tile tile)
{
    constexpr int GUARD = GW & 15;         // which bodies (below)
    constexpr bool WIDE = (GW & 16) != 0;  // their unaligned rows staged a warp tile wide (put)
    static_assert(GUARD >= 0 && GUARD <= 6 && GW < 32,
                  "GUARD: 0 fast, 1 aligned rows, 2 (4) any rows, 3 aligned A and B rows, 5 (6) even rows");
    static_assert(!WIDE || (!SPLIT && GUARD >= 2), "GUARD | 16: whole-K entry, rows not all aligned");
    constexpr bool ANY = GUARD == 2 || GUARD == 4 || GUARD == 5 || GUARD == 6;
    constexpr int PAIRS = GUARD == 5 || GUARD == 6 ? 4 : 0;  // ELEMS bit 2: copies by pairs
    constexpr int INSIDE = ANY ? WARPTILE_INSIDE : EDGE_FAST;
    constexpr int INSIDE_STORE = GUARD == 3 ? EDGE_INTERIOR : INSIDE;
    constexpr int EDGES = GUARD == 1 || GUARD == 3 ? EDGE_CLAMPED : EDGE_CLAMPED_ANY;
#ifdef EXPLAINER_NO_INTERIOR
    constexpr int ALL = GUARD ? EDGE_GUARDED : EDGE_FAST;
    warptile_body<BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS, PAD, ALL, ALL, SPLIT, Tile, 0, MAXREGS>(
        A, B, C, M, N, K, lda, ldb, W, tiles_done, tile);
#else
    constexpr bool SHIFT = GUARD != 0 && INSIDE != EDGE_GUARDED;  // (EXPLAINER_NO_INTERIOR_UNALIGNED: checked, not shifted)
    const bool inside = GUARD == 0 || (SHIFT ? M >= BM && N >= BN : interior_block<BM, BN>(tile, M, N));
    auto run = [&](auto elems) {
        constexpr int E = decltype(elems)::value | (decltype(elems)::value ? PAIRS : 0);
        constexpr int E_INSIDE = INSIDE == EDGE_INTERIOR ? E : 0;  // (EXPLAINER_NO_INTERIOR_UNALIGNED: guarded)
        if (inside)
            warptile_body<BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS, PAD, INSIDE, INSIDE_STORE, SPLIT, Tile, E_INSIDE, MAXREGS, SHIFT,
                          WIDE>(A, B, C, M, N, K, lda, ldb, W, tiles_done, tile);
        else
            warptile_body<BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS, PAD, GUARD ? EDGES : EDGE_FAST,
                          GUARD ? EDGES : EDGE_FAST, SPLIT, Tile, E, MAXREGS, false, WIDE>(A, B, C, M, N, K, lda, ldb, W,
                                                                                          tiles_done, tile);
    };
    if constexpr (!ANY) {
        run(IntConst<0>{});
    } else if constexpr (SPLIT) {
        run(IntConst<3>{});
    } else {  // B's rows aligned: A's body (also where both are, which no GUARD 2 launch has)
        if ((ldb & 3) == 0) run(IntConst<1>{});
        else if ((lda & 3) == 0) run(IntConst<2>{});
        else run(IntConst<3>{});
    }
#endif
}

// Blocks per SM the registers must leave room for: MINB, one fewer in the roomy instantiation
// (GUARD 4, the body of GUARD 2; GUARD 6, that of 5). GUARD 2's element copies spilled their addresses to local memory
// at MINB's share (ptxas: 40-64 bytes for warptile_64x128 and warptile_128x64 at 128 registers;
// ncu at 297x329x46641: 6 local loads per phase in the loop). The launch takes GUARD 4 where its
// busiest SM's blocks run in as many rounds either way (explainer/tuning/configs.py TunedConfig.runs_roomy), and where
// MINB's share is below the 255 registers a thread can have (Rung.has_roomy: not warptile_128x48_t64's 64 threads).
// Spills are allowed only there (GUARD 2 and 5 with MINB >= 2, and + 16), in the split-tail entry points, whose
// whole tiles fill every slot of MINB, and up to 8 bytes in a padded launch's whole-K entry (GUARD 3: 48x128
// keeps one register in local memory across its K loop) (tests/test_kernels_compile.py may_spill checks the timed builds).
template <int MINB, int GUARD>
__host__ __device__ constexpr int warptile_min_blocks() { return ((GUARD & 15) == 4 || (GUARD & 15) == 6) && MINB > 1 ? MINB - 1 : MINB; }

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int THREADS,
          int PAD, int MINB, int GUARD>
__global__ void __launch_bounds__(THREADS, warptile_min_blocks<MINB, GUARD>())
warptile_gemm(const float* A, const float* B, float* C, int M, int N, int K, int lda, int ldb)
{
    constexpr int regs = 65536 / (THREADS * warptile_min_blocks<MINB, GUARD>());  // the registers a thread may use
    warptile_run<BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS, PAD, GUARD, false, GridTile, regs < 255 ? regs : 255>(
        A, B, C, M, N, K, lda, ldb, nullptr, nullptr, GridTile{});
}

// Split-K (the launch planner's choice where C has too few tiles to fill the SMs and K is long):
// grid (ceil(N/BN), ceil(M/BM), S); W holds S * M * N floats, tiles_done one int per tile of C,
// zero before the first launch (every launch leaves them zero again); tiles_done null: the blocks
// only store their slices, and kernels/tuned/splitk_reduce.cu adds them (split-K "+reduce").
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int THREADS,
          int PAD, int MINB, int GUARD>
__global__ void __launch_bounds__(THREADS, warptile_min_blocks<MINB, GUARD>())
warptile_splitk_gemm(const float* A, const float* B, float* C, int M, int N, int K, int lda, int ldb,
                     float* W, int* tiles_done)
{
    warptile_run<BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS, PAD, GUARD, true>(
        A, B, C, M, N, K, lda, ldb, W, tiles_done, GridTile{});
}

// Split tail (the planner's choice where the tiles of C fill the SMs some whole number of times and
// leave a last, partial round: 288 tiles of 256 x 128 at 3000^3 on 132 SMs are 2 full rounds and
// 24 tiles, which would run a third round on 24 SMs while 108 wait). A 1D grid of
// whole + (tiles - whole) * splits blocks: block b < whole computes tile b in one piece, as
// warptile_gemm; the tiles after them are cut into `splits` slices of K each, block
// whole + i * splits + z summing slice z of tile whole + i, and the last of a tile's blocks to
// arrive adds its slices (as warptile_splitk_gemm). The GPU starts blocks in the order of their
// index, so the whole tiles run first and the slices fill the last round on every SM. gx =
// ceil(N / BN) tiles per row of C; W and tiles_done as for warptile_splitk_gemm.
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int THREADS,
          int PAD, int MINB, int GUARD>
__global__ void __launch_bounds__(THREADS, warptile_min_blocks<MINB, GUARD>())
warptile_splittail_gemm(const float* A, const float* B, float* C, int M, int N, int K, int lda, int ldb,
                        float* W, int* tiles_done, int whole, int splits, int gx)
{
    warptile_run<BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS, PAD, GUARD, true>(
        A, B, C, M, N, K, lda, ldb, W, tiles_done, SplitTail{whole, splits, gx});
}
