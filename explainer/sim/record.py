"""What one simulated launch records: its problems (grouped), its race pairs and its trace.

Problems are grouped by what a student would fix: kind, source line and (for memory problems)
the array and the kind of access. A group counts every occurrence (thread and access) and keeps
the first few as examples, each naming the block, the thread(s) and the phase.
"""

from __future__ import annotations

import numpy as np

from .memory import EVENT_CAP, READ_BEFORE_WRITE, WRITE_BEFORE_READ, WRITE_WRITE
from .values import at

MAX_EXAMPLES = 3


class Group:
    __slots__ = ("kind", "line", "count", "examples", "detail")

    def __init__(self, kind, line, detail):
        self.kind, self.line, self.count, self.examples, self.detail = kind, line, 0, [], detail


def _xy(st, lane) -> dict:
    lane = int(lane)
    return {"block": [int(st.bx[lane]), int(st.by[lane])], "thread": [int(st.tx[lane]), int(st.ty[lane])]}


def _cell(spec, flat) -> list[int]:
    """A flat cell index as the array's own indices (``As[i][j]`` -> ``[i, j]``)."""
    out = []
    for d in reversed(spec.dims):
        out.append(int(flat) % d)
        flat = int(flat) // d
    return out[::-1]


def cell_text(spec, flat) -> str:
    return spec.name + "".join(f"[{i}]" for i in _cell(spec, flat))


class Recorder:
    def __init__(self, launch, tpb: int, has_phase: bool):
        self.launch = launch
        self.tpb = tpb
        self.has_phase = has_phase
        self.groups: dict[tuple, Group] = {}
        self.race_chunks: list[dict] = []
        self.c_race_chunks: list[dict] = []
        self.n_events = 0
        self.events_truncated = False
        self.shared_chunks: list[dict] = []
        self.c_chunks: list[dict] = []
        #: whether shared-memory reads are kept too (one row per thread and read: only for the small
        #: launch a stepper draws, see ``check_kernel(reads_for=...)``)
        self.reads = False
        self.read_chunks: list[dict] = []

    # ---- helpers ----------------------------------------------------------------------
    def group(self, key: tuple, kind: str, line, detail=None) -> Group:
        g = self.groups.get(key)
        if g is None:
            g = self.groups[key] = Group(kind, line, detail or {})
        return g

    def _phase(self, st, lane):
        return int(at(st.phase, int(lane))) if self.has_phase and st.in_phase else None

    def _add(self, g: Group, st, lanes, count: int, extra):
        g.count += count
        for j in range(min(MAX_EXAMPLES - len(g.examples), len(lanes))):
            ex = {**_xy(st, lanes[j]), "phase": self._phase(st, lanes[j])}
            ex.update(extra(j))
            g.examples.append(ex)

    # ---- problems found while running ---------------------------------------------------
    def out_of_bounds(self, st, lanes, line, mem, flat, size, what, dims=None, parts=None):
        g = self.group(("out_of_bounds", line, mem, what), "out_of_bounds", line,
                       {"memory": mem, "access": "read" if what == "reads" else "store", "size": int(size)})

        def extra(j):
            lane = int(lanes[j])
            if parts is not None:
                idx = [int(at(p, lane)) for p in parts]
                return {"index": idx, "where": f"{mem}" + "".join(f"[{i}]" for i in idx),
                        "extent": list(dims)}
            i = int(at(flat, lane))
            return {"index": i, "where": f"{mem}[{i}]", "extent": [int(size)]}
        self._add(g, st, lanes, len(lanes), extra)

    def uninitialized(self, st, lanes, line, spec, cells):
        g = self.group(("uninitialized", line, spec.name), "uninitialized", line, {"memory": spec.name})
        self._add(g, st, lanes, len(lanes), lambda j: {"cell": _cell(spec, cells[j]),
                                                       "where": cell_text(spec, cells[j])})

    def shared_race(self, st, sub, lanes, line, spec, cells, blk_local, writer, reader, phase, other_line):
        """``lanes``: the threads whose access raced (the reader for read-before-write, the writer
        otherwise); ``writer`` / ``reader``: threads of the block by linear id (``reader`` a
        [store, thread] bool matrix for write-before-read)."""
        g = self.group(("race", line, spec.name, sub), "race", line, {"memory": spec.name, "race": sub})
        n = len(lanes)
        writer = np.broadcast_to(writer, (n,))
        phase = np.broadcast_to(phase, (n,))
        T = st.T
        gblk = st.block_ids[blk_local]

        def th(lin):
            return [int(lin) % T, int(lin) // T]

        if sub == WRITE_BEFORE_READ:
            readers = [np.flatnonzero(reader[j]) for j in range(min(n, MAX_EXAMPLES))]
        else:
            rd = np.broadcast_to(reader, (n,))
        count = n

        def extra(j):
            ex = {"cell": _cell(spec, cells[j]), "where": cell_text(spec, cells[j]),
                  "writer": th(writer[j]), "other_line": int(np.broadcast_to(other_line, (n,))[j])}
            if sub == WRITE_BEFORE_READ:
                ex["readers"] = [th(r) for r in readers[j][:8]]
                ex["reader_count"] = int(readers[j].size)
            else:
                ex["reader" if sub == READ_BEFORE_WRITE else "other_writer"] = th(rd[j])
            ex["phase"] = int(phase[j]) if self.has_phase and st.in_phase else None
            return ex
        self._add(g, st, lanes, count, extra)
        # the pairs, for the trace and the tests
        if sub == WRITE_BEFORE_READ:
            ri, rt = np.nonzero(reader)
            ev = {"block": gblk[ri], "cell": np.asarray(cells)[ri], "phase": phase[ri],
                  "writer": writer[ri], "reader": rt}
        else:
            ev = {"block": gblk, "cell": np.asarray(cells), "phase": np.array(phase),
                  "writer": np.array(writer), "reader": np.array(rd)}
        self._event(self.race_chunks, {"kind": sub, "memory": spec.name, "line": line, **ev})

    def global_race(self, st, lanes, line, mem, cells, prev_gtid, prev_line, matrix):
        g = self.group(("race", line, mem, WRITE_WRITE), "race", line, {"memory": mem, "race": WRITE_WRITE})
        N = self.launch.N if matrix == 3 else None
        tpb, T, gx = self.tpb, st.T, st.gx

        def who(gt):
            b, lin = divmod(int(gt), tpb)
            return {"block": [b % gx, b // gx], "thread": [lin % T, lin // T]}

        def extra(j):
            c = int(cells[j])
            where = f"{mem}[{c // N}][{c % N}]" if N else f"{mem}[{c}]"
            return {"element": c, "where": where, "other": who(prev_gtid[j]), "other_line": int(prev_line[j])}
        self._add(g, st, lanes, len(lanes), extra)
        self._event(self.c_race_chunks, {"memory": mem, "line": line, "element": np.asarray(cells),
                                         "writer": st.gtid[lanes], "other": np.asarray(prev_gtid)})

    def divergence(self, st, line, reached, missed, n_reached, n_live):
        """Per diverging block: a thread that reached the barrier, one that did not, and how many
        of the block's live threads reached it."""
        g = self.group(("barrier_divergence", line), "barrier_divergence", line)
        g.count += len(reached)
        for j in range(min(MAX_EXAMPLES - len(g.examples), len(reached))):
            r, mi = int(reached[j]), int(missed[j])
            g.examples.append({**_xy(st, r), "phase": self._phase(st, r), "missed": _xy(st, mi)["thread"],
                               "reached": int(n_reached[j]), "live": int(n_live[j])})

    def step_limit(self, st, line, lanes, steps, why):
        g = self.group(("step_limit", line), "step_limit", line, {"steps": steps, "why": why})
        self._add(g, st, lanes[:MAX_EXAMPLES], 1, lambda j: {})

    # ---- the trace ------------------------------------------------------------------------
    def shared_store(self, st, lanes, spec, cells, srcs, line, phase):
        if lanes is None:
            gb, lib = st.gblk, st.lib
        else:
            gb, lib = st.gblk[lanes], st.lib[lanes]
        n = len(gb)
        self.shared_chunks.append({
            "block": gb, "thread": lib, "phase": np.broadcast_to(np.asarray(phase, np.int64), (n,)),
            "memory": spec.name, "cell": np.broadcast_to(np.asarray(cells, np.int64), (n,)),
            "src": np.broadcast_to(np.asarray(srcs, np.int64), (n,)), "line": line})

    def shared_read(self, st, lanes, spec, cells, line, phase):
        """The threads ``lanes`` (None: all of the batch) read ``cells`` (in the array) of ``spec``."""
        if lanes is None:
            gb, lib = st.gblk, st.lib
        else:
            gb, lib = st.gblk[lanes], st.lib[lanes]
        n = len(gb)
        if n:
            self.read_chunks.append({
                "block": gb, "thread": lib, "phase": np.broadcast_to(np.asarray(phase, np.int64), (n,)),
                "memory": spec.name, "cell": np.broadcast_to(np.asarray(cells, np.int64), (n,)), "line": line})

    def c_store(self, st, lanes, cells, line):
        ph = st.phase
        self.c_chunks.append({"block": st.gblk[lanes], "thread": st.lib[lanes],
                              "phase": np.broadcast_to(np.asarray(ph[lanes] if isinstance(ph, np.ndarray) else ph,
                                                                  np.int64), (len(lanes),)),
                              "index": np.asarray(cells, np.int64), "line": line})

    def _event(self, chunks, ev):
        n = len(next(v for k, v in ev.items() if isinstance(v, np.ndarray)))
        if self.n_events + n > EVENT_CAP:
            self.events_truncated = True
            return
        self.n_events += n
        chunks.append(ev)


__all__ = ["Recorder", "Group"]
