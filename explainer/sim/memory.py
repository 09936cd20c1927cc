"""Global and shared memory of a simulated launch, with the checks made on every access.

Global memory (A, B, C): one flat float32 array each, exactly M*K, K*N and M*N elements. An
index outside is reported (``out_of_bounds``) and skipped: a load gives NaN (on a GPU: garbage
or a crash), a store does nothing. Every store to global memory records its thread, so that two
threads storing the same element of C is reported as a race (block order would decide which
value stays).

Shared memory: one array per ``__shared__`` declaration and per block of the batch. Besides the
values, each cell keeps what the race and initialisation checks need:

* ``written``: has any thread of the block stored it (a read of an unwritten cell is
  ``uninitialized``);
* the barrier *epoch* of its last store, the storing thread and whether several threads stored
  it in that epoch; a block's epoch is the number of ``__syncthreads()`` it has passed;
* per (cell, thread) the epoch of that thread's last read, and per cell how many threads read it
  in the current epoch.

Two accesses of one cell by different threads, at least one a store, in the same epoch (no
barrier between them) are a ``race``, whatever order the simulator ran them in:

* ``read-before-write``: a read of a cell that another thread stored in this epoch (the reader
  may run first and see the old value: barrier 1 missing in the tiled kernel);
* ``write-before-read``: a store into a cell that another thread read in this epoch (the store
  may land before that read: barrier 2 missing);
* ``write-write``: two threads store the same cell in one epoch.
"""

from __future__ import annotations

import numpy as np

from .values import COMPUTED, FLOAT, MATRIX_SHIFT, at

READ_BEFORE_WRITE = "read-before-write"
WRITE_BEFORE_READ = "write-before-read"
WRITE_WRITE = "write-write"

EVENT_CAP = 400_000  # race pairs kept per launch for the trace / tests (counts stay exact)


class GlobalMem:
    """A, B or C of one launch."""

    def __init__(self, spec, data: np.ndarray, matrix: int):
        self.spec = spec
        self.data = data  # float32, flat
        self.size = data.size
        self.code = matrix << MATRIX_SHIFT
        self.writer = None  # global thread id of the last store, per element (allocated on first store)
        self.wline = None

    def load(self, st, m, flat, ok, line, parts=None):
        n = st.n
        if ok is True:
            v = self.data[flat]
            return v, (self.code + flat)
        idx = st.lanes(m)
        okl = ok[idx] if isinstance(ok, np.ndarray) else np.full(idx.size, bool(ok))
        if not okl.all():
            bad = idx[~okl]
            st.rec.out_of_bounds(st, bad, line, self.spec.name, flat, self.size, "reads")
        if not isinstance(flat, np.ndarray):  # one address for every thread, outside the array
            return np.float32(np.nan), COMPUTED
        ok_arr = ok if isinstance(ok, np.ndarray) else np.full(n, bool(ok))
        safe = np.where(ok_arr, flat, 0)
        v = np.where(ok_arr, self.data[safe], np.float32(np.nan))
        s = np.where(flat >= 0, self.code + flat, COMPUTED)
        return v, s

    def store(self, st, m, flat, ok, v, s, line, parts=None):
        idx = st.lanes(m)
        if self.spec.matrix == 3:  # the trace keeps every store into C, inside or not
            st.rec.c_store(st, idx, flat[idx] if isinstance(flat, np.ndarray) else np.full(idx.size, flat), line)
        if ok is not True:
            okl = ok[idx] if isinstance(ok, np.ndarray) else np.full(idx.size, bool(ok))
            if not okl.all():
                st.rec.out_of_bounds(st, idx[~okl], line, self.spec.name, flat, self.size, "stores")
                idx = idx[okl]
        if idx.size == 0:
            return
        cells = flat[idx] if isinstance(flat, np.ndarray) else np.full(idx.size, flat, np.int64)
        vals = v[idx] if isinstance(v, np.ndarray) else v
        gt = st.gtid[idx]
        if self.writer is None:
            self.writer = np.full(self.size, -1, np.int64)
            self.wline = np.zeros(self.size, np.int32)
        prev = self.writer[cells]
        clash = (prev >= 0) & (prev != gt)
        order = np.argsort(cells, kind="stable")
        sc = cells[order]
        dup = np.zeros(idx.size, bool)
        if idx.size > 1:
            same = sc[1:] == sc[:-1]
            if same.any():
                d = np.zeros(idx.size, bool)
                d[1:] = same
                dup[order] = d
                first = np.empty(idx.size, np.int64)  # the other writer: the previous one in sorted order
                first[order[1:]] = gt[order[:-1]]
                prev = np.where(dup, first, prev)
        clash |= dup
        if clash.any():
            other_line = np.where(dup, line, self.wline[cells])
            st.rec.global_race(st, idx[clash], line, self.spec.name, cells[clash], prev[clash],
                               other_line[clash], self.spec.matrix)
        self.data[cells] = vals
        self.writer[cells] = gt
        self.wline[cells] = line


class SharedMem:
    """One ``__shared__`` array for every block of a batch, with the checks' bookkeeping."""

    def __init__(self, spec, blk_local: np.ndarray, nblk: int, tpb: int):
        self.spec = spec
        size = spec.size
        self.size = size
        self.base = blk_local * size  # each thread's block's first cell
        total = nblk * size
        self.total = total
        self.data = np.full(total, np.nan, np.float32) if spec.elem == FLOAT else np.zeros(total, np.int64)
        self.src = np.full(total, COMPUTED, np.int64)
        self.written = np.zeros(total, bool)
        self.w_epoch = np.full(total, -1, np.int64)
        self.w_lane = np.full(total, -1, np.int64)
        self.w_multi = np.zeros(total, bool)
        self.w_line = np.zeros(total, np.int32)
        self.w_phase = np.zeros(total, np.int64)
        self.rstamp = np.full((total, tpb), -1, np.int32)  # epoch of each thread's last read
        self.r_epoch = np.full(total, -1, np.int64)
        self.rcount = np.zeros(total, np.int64)  # threads that read the cell in r_epoch
        self.r_line = np.zeros(total, np.int32)
        self.r_phase = np.zeros(total, np.int64)

    def _active(self, st, m, flat, ok, line, what, parts):
        """(thread indices or None for all, cell indices) of the in-bounds accesses."""
        if ok is True and m is None:
            cells = self.base + flat
            return None, cells
        idx = st.lanes(m)
        if ok is not True:
            okl = ok[idx] if isinstance(ok, np.ndarray) else np.full(idx.size, bool(ok))
            if not okl.all():
                st.rec.out_of_bounds(st, idx[~okl], line, self.spec.name, flat, self.size, what,
                                     self.spec.dims, parts)
                idx = idx[okl]
        f = flat[idx] if isinstance(flat, np.ndarray) else flat
        return idx, self.base[idx] + f

    def load(self, st, m, flat, ok, line, parts=None):
        idx, cells = self._active(st, m, flat, ok, line, "reads", parts)
        if idx is not None and idx.size == 0:
            nan = np.float32(np.nan) if self.spec.elem == FLOAT else 0
            return nan, COMPUTED
        vals, srcs = self.data[cells], self.src[cells]
        if idx is None:
            lib, e = st.lib, st.epoch_lane
            ph = st.phase
        else:
            lib, e = st.lib[idx], st.epoch_lane[idx]
            ph = st.phase[idx] if isinstance(st.phase, np.ndarray) else st.phase
        w = self.written[cells]
        if not w.all():
            bad = ~w
            st.rec.uninitialized(st, _sel(idx, bad, st.n), line, self.spec, cells[bad] % self.size)
        same = self.w_epoch[cells] == e
        if same.any():
            raw = same & ((self.w_lane[cells] != lib) | self.w_multi[cells])
            if raw.any():
                c = cells[raw]
                st.rec.shared_race(st, READ_BEFORE_WRITE, _sel(idx, raw, st.n), line, self.spec,
                                   c % self.size, c // self.size, writer=self.w_lane[c],
                                   reader=lib[raw] if isinstance(lib, np.ndarray) else lib,
                                   phase=ph[raw] if isinstance(ph, np.ndarray) else ph,
                                   other_line=self.w_line[c])
        # readers of this epoch
        new = self.rstamp[cells, lib] != e
        stale = self.r_epoch[cells] != e
        if stale.any():
            self.rcount[cells[stale]] = 0
            self.r_epoch[cells] = e
        if new.any():
            self.rcount += np.bincount(cells[new], minlength=self.total)
        self.rstamp[cells, lib] = e
        self.r_line[cells] = line
        self.r_phase[cells] = ph
        if st.rec.reads:
            st.rec.shared_read(st, idx, self.spec, cells % self.size, line, ph)
        if idx is None:
            return vals, srcs
        out = np.full(st.n, np.nan if self.spec.elem == FLOAT else 0, self.data.dtype)
        out[idx] = vals
        so = np.full(st.n, COMPUTED, np.int64)
        so[idx] = srcs
        return out, so

    def store(self, st, m, flat, ok, v, s, line, parts=None):
        idx, cells = self._active(st, m, flat, ok, line, "stores", parts)
        if idx is None:
            lib, e, ph = st.lib, st.epoch_lane, st.phase
            vals, srcs = v, s
            lanes = None
        else:
            if idx.size == 0:
                return
            lib, e = st.lib[idx], st.epoch_lane[idx]
            ph = st.phase[idx] if isinstance(st.phase, np.ndarray) else st.phase
            vals = v[idx] if isinstance(v, np.ndarray) else v
            srcs = s[idx] if isinstance(s, np.ndarray) else s
            lanes = idx
        n = cells.size
        ncl = lib if isinstance(lib, np.ndarray) else np.full(n, lib)
        # two threads of this statement storing one cell
        dup = np.zeros(n, bool)
        other = None
        if n > 1:
            order = np.argsort(cells, kind="stable")
            sc = cells[order]
            same = sc[1:] == sc[:-1]
            if same.any():
                d = np.zeros(n, bool)
                d[1:] = same
                dup[order] = d
                other = np.empty(n, np.int64)
                other[order[1:]] = ncl[order[:-1]]
        cur = self.w_epoch[cells] == e
        ww = cur & (self.w_lane[cells] != ncl)
        prev_writer = self.w_lane[cells]
        if other is not None:
            prev_writer = np.where(dup, other, prev_writer)
        ww |= dup
        if ww.any():
            c = cells[ww]
            st.rec.shared_race(st, WRITE_WRITE, _sel(lanes, ww, st.n), line, self.spec, c % self.size,
                               c // self.size, writer=ncl[ww], reader=prev_writer[ww],
                               phase=ph[ww] if isinstance(ph, np.ndarray) else ph,
                               other_line=np.where(dup[ww], line, self.w_line[c]))
        read_now = self.r_epoch[cells] == e
        if read_now.any():
            mine = self.rstamp[cells, ncl] == e
            war = read_now & ((self.rcount[cells] - mine) > 0)
            if war.any():
                c = cells[war]
                rows = self.rstamp[c] == e[war][:, None]  # [racing store, thread]: read this epoch
                rows[np.arange(c.size), ncl[war]] = False
                st.rec.shared_race(st, WRITE_BEFORE_READ, _sel(lanes, war, st.n), line, self.spec,
                                   c % self.size, c // self.size, writer=ncl[war], reader=rows,
                                   phase=self.r_phase[c], other_line=self.r_line[c])
        multi = cur & (self.w_multi[cells] | (self.w_lane[cells] != ncl))
        self.data[cells] = vals
        self.src[cells] = srcs
        self.written[cells] = True
        self.w_epoch[cells] = e
        self.w_lane[cells] = ncl
        self.w_multi[cells] = multi
        if dup.any():
            self.w_multi[cells[dup]] = True
        self.w_line[cells] = line
        self.w_phase[cells] = ph
        st.rec.shared_store(st, lanes, self.spec, cells % self.size, srcs, line, ph)


def _sel(idx, mask, n):
    """Thread indices: ``idx[mask]`` (``idx`` None means all ``n`` threads)."""
    return np.flatnonzero(mask) if idx is None else idx[mask]


def phase_at(ph, i):
    return int(at(ph, i))
