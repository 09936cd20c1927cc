"""Prototype (session 33): kernel 14's staged stores over whole rows of the warp tile (put_rows), in a copy
of the kernels: ``python mk_wide_rows_s33.py TREE/14_warptile.cu 1`` (scalar stores, [wide1]) or ``4``
(16-byte granules with a scalar head and tail, [wide4])."""
import sys, pathlib
src_path = pathlib.Path(sys.argv[1]); granule = sys.argv[2] == "4"
s = src_path.read_text()
anchor = "    if (SPLIT && (Tile::always_split || tile.splits() > 1)) {\n        // Split-K epilogue."
assert s.count(anchor) == 1
new = r'''    // (prototype, session 33) put_rows(X, wm, i): row i of every sub-tile wn at once: the warp's
    // WSUBM / TM rows x WN columns pass through shared memory, stored along whole rows of WN floats.
    constexpr int RW = WN;                    // floats of a staged row
    constexpr int RS = WSUBM / TM;            // staged rows (the warp's thread rows)
    static_assert(THREADS * TN * WNITER <= 2 * (BK * LDA + BK * BN), "a warp's rows in shared memory");
    float* const rseg = smem + warp * (RS * RW);
    auto put_rows = [&](float* X, int wm, int i) {
        if (!staged) {
#pragma unroll
            for (int wn = 0; wn < WNITER; ++wn) put(X, wm, i, wn);
            return;
        }
        __syncwarp();
        {
            const int r = lane / (WSUBN / TN), tc = lane % (WSUBN / TN);
#pragma unroll
            for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
                for (int j = 0; j < TN; j += 4)
                    store4(&rseg[r * RW + wn * WSUBN + tc * TN + j],
                           make_float4(acc[wm * TM + i][wn * TN + j], acc[wm * TM + i][wn * TN + j + 1],
                                       acc[wm * TM + i][wn * TN + j + 2], acc[wm * TM + i][wn * TN + j + 3]));
        }
        __syncwarp();
        const int colw = ecol0 + wcol * WN;
        auto ok = [&](int row, int col) { return SHIFT ? own(row, col) : STORE == EDGE_INTERIOR || (row < M && col < N); };
#if GRANULE
        constexpr int GR = RW / 4;
        static_assert((RS * GR) % 32 == 0, "granule slots a whole number of warps");
#pragma unroll
        for (int jj = 0; jj < RS * GR / 32; ++jj) {
            const int f = lane + 32 * jj, r = f / GR, g = f % GR;
            const int row = erow0 + wrow * WM + wm * WSUBM + r * TM + i;
            const int o = (row * N + colw) & 3, h = (4 - o) & 3;
            const float* sr = rseg + r * RW;
            float* xr = X + row * N + colw;
            if (g < GR - (h != 0)) {
                const int c = h + 4 * g;
                if (ok(row, colw + c) && ok(row, colw + c + 3)) {
                    store4(xr + c, make_float4(sr[c], sr[c + 1], sr[c + 2], sr[c + 3]));  // @step:store
                } else {
#pragma unroll
                    for (int e = 0; e < 4; ++e) if (ok(row, colw + c + e)) xr[c + e] = sr[c + e];
                }
            } else {
#pragma unroll
                for (int e = 0; e < 3; ++e) if (e < h && ok(row, colw + e)) xr[e] = sr[e];
#pragma unroll
                for (int e = 0; e < 3; ++e) if (e < o && ok(row, colw + RW - o + e)) xr[RW - o + e] = sr[RW - o + e];
            }
        }
#else
#pragma unroll
        for (int jj = 0; jj < RS * RW / 32; ++jj) {
            const int f = lane + 32 * jj, r = f / RW, c = f % RW;
            const int row = erow0 + wrow * WM + wm * WSUBM + r * TM + i;
            if (ok(row, colw + c)) X[row * N + colw + c] = rseg[f];  // @step:store
        }
#endif
    };

'''
s = s.replace(anchor, new.replace("#if GRANULE", "#if 1" if granule else "#if 0") + anchor)
old_split = """#pragma unroll
                for (int wn = 0; wn < WNITER; ++wn)
                    put(Wz, wm, i, wn);"""
assert s.count(old_split) == 1
s = s.replace(old_split, "                put_rows(Wz, wm, i);")
old_c = """            const int row = erow0 + am + wm * WSUBM + i;
#pragma unroll
            for (int wn = 0; wn < WNITER; ++wn) {
                const int col = ecol0 + bn + wn * WSUBN;
                put(C, wm, i, wn);"""
assert s.count(old_c) == 1
s = s.replace(old_c, """            const int row = erow0 + am + wm * WSUBM + i;
            put_rows(C, wm, i);
#pragma unroll
            for (int wn = 0; wn < WNITER; ++wn) {
                const int col = ecol0 + bn + wn * WSUBN;""")
src_path.write_text(s)
