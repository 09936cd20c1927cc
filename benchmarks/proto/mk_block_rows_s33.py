"""Prototype (session 33): the WIDE bodies stage C's tile block-wide (rows of BN floats, in chunks of the
As/Bs buffers) and every warp stores whole rows of the block tile."""
import sys, pathlib
p = pathlib.Path(sys.argv[1]); s = p.read_text()
old = """#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm) {
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const int row = erow0 + am + wm * WSUBM + i;
#pragma unroll
            for (int wn = 0; wn < WNITER; ++wn) {
                const int col = ecol0 + bn + wn * WSUBN;
                put(C, wm, i, wn);"""
assert s.count(old) == 1
new = """    if constexpr (WIDE) {
        if (staged) {  // (prototype) the block tile through shared memory, whole rows of BN floats a store
            constexpr int SP = BN + 4;                                  // row stride (floats)
            constexpr int R = (2 * (BK * LDA + BK * BN)) / SP < BM ? (2 * (BK * LDA + BK * BN)) / SP : BM;
            static_assert(R >= 1, "a row of the tile in shared memory");
            for (int c0 = 0; c0 < BM; c0 += R) {
                __syncthreads();  // the previous chunk read (the loop's buffers: read before its last barrier)
#pragma unroll
                for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
                    for (int i = 0; i < TM; ++i) {
                        const int rr = am + wm * WSUBM + i - c0;
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
                __syncthreads();
                const int rows = BM - c0 < R ? BM - c0 : R;
                for (int rr = warp; rr < rows; rr += THREADS / 32) {
                    const int row = erow0 + c0 + rr;
#pragma unroll
                    for (int j = 0; j < (BN + 31) / 32; ++j) {
                        const int c = lane + 32 * j, col = ecol0 + c;
                        if ((BN % 32 == 0 || c < BN) && (SHIFT ? own(row, col) : STORE == EDGE_INTERIOR || (row < M && col < N)))
                            C[row * N + col] = smem[rr * SP + c];
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
                if (!WIDE || !staged) put(C, wm, i, wn);"""
s = s.replace(old, new)
p.write_text(s)
