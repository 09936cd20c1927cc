"""What an exported static page embeds for one view, so that it works with no kernel, and the
base class of every view whose front end steps in the browser.

A view's front end asks Python for a new payload (``{cmd: "launch" | "preset" | "kernel" |
"block"}``) only when a launch parameter changes. In a static page ``views/static.js`` answers
those requests from payloads computed here and embedded in the page, keyed by
:func:`state_key`: the page's own launch in every kernel the view offers, every preset (smallest first), the blocks at
C's edges, then the blocks around each of them, ring by ring, within a byte budget. Whatever is not stored
gets the view's one-line note that it needs the live app.
"""

from __future__ import annotations

import base64
import dataclasses
from typing import Callable

import anywidget
import traitlets

from .. import i18n as _i18n
from ..i18n import N_, _
from ..model import Launch

#: The most payload bytes one view embeds in an exported static page (before base64).
STATIC_BUDGET = 3 << 20
OFFLINE_NOTE = ("This static page holds its presets and the blocks near them; other launches, blocks and "
                "kernels need the live app (tiled-explainer serve) or JupyterLab.")
OFFLINE_NOTE_SERVED = N_("This static page holds its presets and the blocks near them; for other launches, blocks "
                       "and kernels open the live page (link at the top).")

#: ``payload(kernel, launch, block, thread) -> (meta, buffer)``, or None when that state cannot
#: be stored whole (the live app sends it in parts).
Payload = Callable[[str, Launch, tuple, tuple], "tuple[dict, bytes] | None"]


def state_key(kernel: str, L: Launch, block) -> str:
    """The key of one payload in a static page's store (``static.js`` joins the same fields; the
    block is its edge T, or ``BXxBY`` for a non-square one: the payload's ``meta["T"]``)."""
    return "|".join(str(f) for f in (kernel, L.M, L.N, L.K, L.block_label, block[0], block[1]))


def _launch_of(kernel: str, M: str, N: str, K: str, T: str) -> Launch:
    """The launch a key's fields name (``T`` an edge, or ``BXxBY``)."""
    if "x" in T:
        bx, by = T.split("x")
        return Launch(kernel, int(M), int(N), int(K), block_dim=(int(bx), int(by)))
    return Launch(kernel, int(M), int(N), int(K), int(T))


def static_store(payload: Payload, kernels, launches, initial, budget: int = STATIC_BUDGET, extras=()) -> dict:
    """Payloads for every kernel in ``kernels`` on every launch in ``launches`` (``(preset name
    or None, Launch, block, thread)``, the page's own launch first), at the launch's block,
    then the blocks nearest to it, as long as the payloads' bytes stay within ``budget``.
    ``initial`` is ``(kernel, launch, block, thread)`` of what the page shows first; it is
    always stored (whole or not). ``extras`` (entries like ``launches``'): their own block only,
    in every kernel, with their bytes kept aside from the start so that the rings around the
    page's own launch are not given to them (the naive page's non-square blocks)."""
    payloads, states, sizes, used, computed = [], {}, {}, 0, {}
    extra = [(name, dataclasses.replace(L, kernel=kernel), block, thread)
             for name, L, block, thread in extras for kernel in kernels]
    extra_got = {state_key(L.kernel, L, block): payload(L.kernel, L, block, thread) for _, L, block, thread in extra}
    kept = sum(len(got[1]) for got in extra_got.values() if got)
    full_budget, budget = budget, (budget - kept if kept < budget else budget)

    def compute(kernel, L, block, thread):
        key = state_key(kernel, L, block)
        if key not in computed:
            computed[key] = payload(kernel, L, block, thread)
        return computed[key]

    def add(kernel, L, block, thread, force=False, cap=budget):
        nonlocal used
        key = state_key(kernel, L, block)
        if key in states:
            return key
        got = computed.pop(key) if key in computed else payload(kernel, L, block, thread)
        if got is None and force:
            raise ValueError(f"the initial state {key} has no payload")
        if got is None:
            return None
        meta, buf = got
        if not force and used + len(buf) > cap:
            return None
        meta["offline_note"] = _(OFFLINE_NOTE)
        payloads.append({"meta": meta, "b64": base64.b64encode(buf).decode("ascii")})
        sizes[key] = len(buf)
        states[key] = len(payloads) - 1
        used += len(buf)
        return key

    k0, L0, b0, t0 = initial
    add(k0, L0, b0, t0, force=True)
    presets, launch_keys, tried = {}, {}, []
    order = [k0] + [k for k in kernels if k != k0]
    # Each launch's own block, in every kernel: the page's own launch first, then the smaller
    # payloads before the larger (a 1024^3 preset in four kernels would otherwise take the budget
    # that holds every small preset whole: the several-warp launches page 04's races need).
    wanted = [(name, dataclasses.replace(L, kernel=kernel), block, thread)
              for name, L, block, thread in launches for kernel in order]
    def size(i):
        if i < len(order):
            return 0
        got = compute(wanted[i][1].kernel, *wanted[i][1:])
        return len(got[1]) if got else 0

    for i in sorted(range(len(wanted)), key=lambda i: (i >= len(order), size(i), i)):
        name, L, block, thread = wanted[i]
        key = add(L.kernel, L, block, thread)
        if key is None:
            continue
        entry = {"key": key, "thread": int(L.linear_thread(*thread)), "preset": name}
        if name is not None:
            presets[f"{L.kernel}|{name}"] = entry
        launch_keys.setdefault("|".join(map(str, (L.kernel, L.M, L.N, L.K, L.block_label))), entry)
        tried.append((sizes[key], L.kernel, L, block, thread))
    computed.clear()
    # Then where C's edges are, which is where the guards and ghost threads show: each small
    # launch's first block (a corner), the last column and row of blocks at its own block's row
    # and column, and its last block. A large launch of the page's own kernel gets its first block (a corner) and the last
    # block of its own row (an edge), so that a student can compare a corner, an edge and the
    # interior; the bytes for those are kept aside while the small launches take theirs.
    by_size = sorted(tried, key=lambda t: t[0])
    large = [t for t in by_size if t[0] > budget // 16 and t[1] == k0]
    reserve = sum(t[0] * len({(t[2].grid[0] - 1, t[3][1]), (0, 0)} - {t[3]}) for t in large)
    cap = budget - reserve if used + reserve <= budget else budget  # kept aside only if they fit
    for nbytes, kernel, L, (bx, by), thread in by_size:
        if nbytes <= budget // 16:
            gx, gy = L.grid
            for block in dict.fromkeys(((0, 0), (gx - 1, by), (bx, gy - 1), (gx - 1, gy - 1))):
                add(kernel, L, block, thread, cap=cap)
    # Then the blocks around each launch's own, ring by ring (nearest first) over all launches
    # together, the smaller payloads first in each ring, so that one large launch does not use
    # the budget that covers small ones whole; the large launches' corner and edge go in between.
    tried.sort(key=lambda t: t[0])

    def rings(cap):
        full = set()
        for ring in range(1, max((max(t[2].grid) for t in tried), default=1)):
            for i, (_, kernel, L, (bx, by), thread) in enumerate(tried):
                if i in full:
                    continue
                gx, gy = L.grid
                for y in range(max(0, by - ring), min(gy, by + ring + 1)):
                    for x in range(max(0, bx - ring), min(gx, bx + ring + 1)):
                        if max(abs(x - bx), abs(y - by)) == ring and add(kernel, L, (x, y), thread, cap=cap) is None:
                            full.add(i)  # the blocks of one launch are about the same size
                            break
                    if i in full:
                        break

    rings(cap)
    for nbytes, kernel, L, (bx, by), thread in large:
        gx, gy = L.grid
        for block in dict.fromkeys(((0, 0), (gx - 1, by))):
            add(kernel, L, block, thread)
    rings(budget)
    for name, L, block, thread in extra:  # the bytes kept aside for them
        key = state_key(L.kernel, L, block)
        computed[key] = extra_got[key]
        if add(L.kernel, L, block, thread, cap=full_budget) is None:
            continue
        entry = {"key": key, "thread": int(L.linear_thread(*thread)), "preset": name}
        if name is not None:
            presets.setdefault(f"{L.kernel}|{name}", entry)
        launch_keys.setdefault("|".join(map(str, (L.kernel, L.M, L.N, L.K, L.block_label))), entry)
    # The blocks stored for each launch, in words (the static page's block menu), and whether the
    # grid has more blocks than the page holds.
    blocks: dict[str, dict] = {}
    for key in states:
        kernel, M, N, K, T, bx, by = key.split("|")
        L = _launch_of(kernel, M, N, K, T)
        entry = blocks.setdefault("|".join((kernel, M, N, K, T)), {"blocks": [], "all": L.num_blocks})
        entry["blocks"].append([int(bx), int(by), L.block_place(int(bx), int(by))])
    for entry in blocks.values():
        entry["blocks"].sort(key=lambda b: (b[1], b[0]))
    return {"payloads": payloads, "states": states, "presets": presets, "launches": launch_keys,
            "blocks": blocks, "initial": states[state_key(k0, L0, b0)], "bytes": used}


class BrowserView(anywidget.AnyWidget):
    """A view whose front end (``FRONT_END``: shared helpers first, its own module last) draws
    payloads computed in Python. ``meta`` / ``buf`` / ``rev`` change together (a new payload);
    ``live`` is False only in exported static pages, whose payloads come from
    ``static_store`` (set by the view's controller: a callable of the byte budget returning
    :func:`static_store`'s answer). ``NAME`` names the view in exported pages."""

    NAME = ""
    FRONT_END: tuple[str, ...] = ()
    static_store = None
    meta = traitlets.Dict().tag(sync=True)
    buf = traitlets.Bytes().tag(sync=True)
    rev = traitlets.Int(0).tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)
    presets = traitlets.List(traitlets.Unicode()).tag(sync=True)
    kernels = traitlets.List(traitlets.Unicode()).tag(sync=True)  # a picker when 2 or more
    live = traitlets.Bool(True).tag(sync=True)
    #: The translations of the front end's tr() strings in the page's language (explainer.i18n).
    i18n = traitlets.Dict().tag(sync=True)

    def __init__(self, **kw):
        super().__init__(**kw)
        self.i18n = _i18n.js_strings(self.FRONT_END)

    def show(self, meta: dict, buf: bytes) -> None:
        """Send a new payload (one sync message)."""
        with self.hold_sync():
            self.meta = meta
            self.buf = buf
            self.rev = self.rev + 1
            self.error = ""

    def fail(self, e: Exception) -> None:
        """Bad input: one line in the view, which keeps its last good state."""
        self.error = str(e)
        self.send({"error": str(e)})


def keyed_store(payload: Callable[[str], "tuple[dict, bytes]"], keys, initial: str, budget: int = STATIC_BUDGET,
                note: str = OFFLINE_NOTE) -> dict:
    """The store of a view whose whole state is one key, with no launch (page 08's ladder view:
    a rung): ``payload(key) -> (meta, buffer)`` for ``initial`` (always stored), then for the
    other ``keys`` in order as long as the bytes stay within ``budget``. ``states`` is keyed by
    the key itself; ``static.js`` answers ``{cmd: "kernel", name}`` from it when the current
    meta has no launch (no ``M``)."""
    payloads, states, used = [], {}, 0
    for key in [initial] + [k for k in keys if k != initial]:
        meta, buf = payload(key)
        if key != initial and used + len(buf) > budget:
            continue
        meta["offline_note"] = _(note)
        payloads.append({"meta": meta, "b64": base64.b64encode(buf).decode("ascii")})
        states[str(key)] = len(payloads) - 1
        used += len(buf)
    return {"payloads": payloads, "states": states, "presets": {}, "launches": {}, "blocks": {},
            "initial": states[str(initial)], "bytes": used}
