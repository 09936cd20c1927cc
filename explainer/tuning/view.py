"""Page 08's shape picker: the ladder's rungs planned for a shape (:mod:`explainer.tuning.planner`),
each with its blocks drawn on the device's SMs, the predicted and the recorded time.

Python answers a new shape (three fields); bad input shows one line and the panel keeps its last
good table. Drawn as HTML and SVG computed here (no front-end logic).
"""

from __future__ import annotations

import html

import ipywidgets as W

from ..gpu import recorded
from ..i18n import _, N_
from . import planner
from ..model.launch import ceil_div, padded_shape
from .planner import tile_fixup_ms

SM_COLS = 12


def _n(n: int, one: str, many: str) -> str:
    """``one`` or ``many`` (msgids with a field ``{n}``) for the count ``n``, in the reader's language."""
    return _(one, n=n) if n == 1 else _(many, n=n)
#: What the SM strip's colours say.
IDLE, FEWER, MOST = "#e5e7eb", "#93c5fd", "#1d4ed8"


def why_text(c: "planner.Candidate") -> str:
    """Why the planner counts a launch as it does, in words: its tiles and blocks on the SMs, its
    split, the busiest SM's rounds, the guarded path, and where its estimate comes from; written
    from the candidate's fields (nothing reads it back)."""
    r = c.rung
    idle = c.sms - c.busy_sms
    s = ""
    if c.pad:
        M, N, K = c.padded_from
        what = _(" and ").join(_("{m} into rows of {w} floats ({x} = {v})", m=m, w=w, x=x, v=v)
                               for m, x, v, w in (("A", "K", K, c.K), ("B", "N", N, c.N)) if v != w)
        s = _("rows padded to 16 bytes ({what}: copied first, then the fast 16-byte copies, C stored in place; "
              "{ms} ms of copies in the estimate); ", what=what, ms=f"{c.pad_ms:.4f}")
    tiles = dict(BM=r.BM, BN=r.BN, gx=c.grid[0], gy=c.grid[1], sms=c.sms)
    if c.splits == 1:
        s += _("{BM}×{BN} tiles → {gx}×{gy} = {blocks} blocks on {sms} SMs: ", blocks=f"{c.blocks:,}", **tiles)
    elif c.tail:
        whole = c.tiles - c.tail
        s += _("{BM}×{BN} tiles → {gx}×{gy} = {tiles} tiles: {whole} whole ({rounds} of {sms} SMs), the last {tail} "
               "split in {splits} (split tail) → {blocks} blocks of 1/{splits} of K: ", tiles=f"{c.tiles:,}",
               whole=f"{whole:,}", rounds=_n(whole // c.sms, N_("{n} round"), N_("{n} rounds")), tail=c.tail,
               splits=c.splits, blocks=f"{c.tail * c.splits:,}", **tiles)
    else:
        s += _("{BM}×{BN} tiles → {gx}×{gy} = {tiles} tiles, K split in {splits} (split-K, {phases} phases{reduce}) "
               "→ {blocks} blocks on {sms} SMs: ", tiles=f"{c.tiles:,}", splits=c.splits, phases=r.phases(c.K),
               reduce=_(", the slices added by a second kernel over every SM") if c.reduce else "",
               blocks=f"{c.blocks:,}", **tiles)
    if c.tail:
        whole = ceil_div(c.tiles - c.tail, c.sms)
        part = ceil_div(c.tail * c.splits, c.sms)
        s += _("the busiest SM runs {whole} and {part} (without the split: {n} whole blocks; the last block of each "
               "split tile adds its {splits} slices alone ({ms} ms))",
               whole=_n(whole, N_("{n} whole block"), N_("{n} whole blocks")), part=_n(part, N_("{n} slice"), N_("{n} slices")),
               n=ceil_div(c.tiles, c.sms), splits=c.splits, ms=f"{tile_fixup_ms(r, c.splits):.4f}")
    else:
        s += _("the busiest SM runs {blocks}", blocks=_n(c.longest, N_("{n} block"), N_("{n} blocks")))
    if planner.runs_roomy(r, c.M, c.N, c.K, c.sms, c.splits, c.tail):
        at = c.runs_at  # kernel 14's GUARD 4: the same rounds with a block fewer per SM
        s += _(", {at} at a time (registers for {fewer} blocks per SM instead of {blocks}: the element copies keep "
               "their addresses in registers, and the busiest SM still needs {rounds})", at=at,
               fewer=r.min_blocks - 1, blocks=r.min_blocks,
               rounds=_n(ceil_div(c.longest, at), N_("{n} round"), N_("{n} rounds")))
    elif c.resident > 1:
        s += _(", {n} at a time", n=c.resident)
    s += (_n(idle, N_(", {n} SM idle"), N_(", {n} SMs idle")) if idle
          else _(", {pct} of the SM time does work", pct=f"{c.busy_fraction:.0%}"))
    slow = c.latency_slowdown
    if slow > 1.0:
        warps = c.starved_blocks * r.threads // 32
        s += _("; {warps} an SM, too few to cover a phase's loads: each block counted {slow}× longer than on a full "
               "SM", warps=_n(warps, N_("{n} warp"), N_("{n} warps")), slow=f"{slow:.2f}")
    if c.guarded:
        s += _("; guarded path (a tile does not divide the shape)")
        M, N = c.padded_from[:2] if c.pad else (c.M, c.N)
        if r.splits_k and r.shifts(M, N):  # the tuned kernel: one body in every block
            s += _(", every block on the interior body: a tile that would cross C's edge moves back to end on "
                   "its last row and column and stores only its own outputs")
        elif r.splits_k:
            s += _(", the edge blocks copy from rows and columns clamped into A and B (C is narrower than a tile)")
        rows, cols = c.grid[1] * r.BM, c.grid[0] * r.BN
        if (rows, cols) != (M, N):  # the tiles' outputs outside C are computed and thrown away
            share = M * N / (rows * cols)
            pct = f"{share:.1%}" if share > 0.995 else f"{share:.0%}"  # 2047^3: 99.9%, not 100%
            s += _(", the tiles cover {rows}×{cols} of C's {M}×{N}: {pct} of their multiply-adds land in C",
                   rows=rows, cols=cols, M=M, N=N, pct=pct)
    if c.tuned_at and c.tuned_ms:
        at = "{}x{}x{}".format(*c.tuned_at)
        if c.tuned_splits == 1 and c.splits > 1:
            at += _(" as one whole launch")
        elif c.tuned_splits not in (None, c.splits):
            at += _(" with K split in {n}", n=c.tuned_splits)
        if c.reduce and c.tuned_reduce is False:
            at += _(" without the separate reduction")
        measured = _("measured")
        if c.pad and c.tuned_at != padded_shape(*c.tuned_at):  # scaled from a padded row
            measured, at = _("measured padded"), at + _(", less its copies there")
        s += _("; {ms} ms estimated from this device's tuning table ({measured} at {at}, scaled by the model)",
               ms=f"{c.tuned_ms:.4f}", measured=measured, at=at)
        if c.pad:
            s += _(", {ms} ms with the copies", ms=f"{c.tuned_ms + c.pad_ms:.4f}")
    return s


def plan_text(plan) -> str:
    """A planned launch (``explainer.app.bench.Plan``) in words: what was measured of the
    planner's shortlist, then :func:`why_text` of the launch run."""
    c, times = plan.chosen, plan.measured
    if not times:
        return why_text(c)
    ran = {label: ms for label, ms in times.items() if ms}
    if not ran:
        return why_text(c) + _("; not measured here (nothing on the planner's shortlist ran), the planner's choice")
    others = ", ".join(f"{label} {ms:.4f}" if ms else _("{label} failed", label=label)
                       for label, ms in times.items() if label != plan.label)
    first = times.get(plan.choice)
    head = (_("the fastest measured here, {ms} ms, of the planner's shortlist of {n} (its choice {choice}",
              ms=f"{ran[plan.label]:.4f}", n=len(times), choice=plan.choice)
            + ("" if plan.choice == plan.label else f" {first:.4f} ms" if first else _(" failed"))
            + (f"; {others} ms" if others else "") + ")")
    return f"{head}; {why_text(c)}"


def split_text(c: "planner.Candidate") -> str:
    """The split column: "–" (whole K), "S" (split-K; "S, then a reduction kernel" with a
    separate reduction), or "R × S" (the last R tiles split in S)."""
    if c.splits == 1:
        return "–"
    if c.tail:
        return _("last {tail} tiles × {splits}", tail=c.tail, splits=c.splits)
    return _("{n}, then a reduction kernel", n=c.splits) if c.reduce else str(c.splits)


def starved_text(c: "planner.Candidate") -> str:
    """After the busiest SM's block count: where its blocks are too few to cover a phase's loads
    (``Candidate.latency_slowdown``), how much longer the model counts each; else nothing."""
    slow = c.latency_slowdown
    if slow <= 1.0:
        return ""
    warps = c.starved_blocks * c.rung.threads // 32
    title = _("{warps} warps on the SM: too few to issue multiply-adds while a phase's copies travel", warps=warps)
    return (f"<br><span style='font-size:11px;color:#b45309' title='{html.escape(title)}'>"
            + _("{warps} warps: each ×{slow}", warps=warps, slow=f"{slow:.2f}") + "</span>")


def sm_strip(c: planner.Candidate, cell: int = 9) -> str:
    """An SVG of the device's SMs, each coloured by how many blocks it gets if the blocks are
    dealt out in turn (the busiest SMs dark, one block fewer light, none grey)."""
    whole = c.tiles - c.tail if c.tail else c.blocks  # with the split tail, its slices come after
    full, extra = divmod(whole, c.sms)
    sfull, sextra = divmod(c.tail * c.splits, c.sms) if c.tail else (0, 0)
    rows = ceil_div(c.sms, SM_COLS)
    parts = []
    for i in range(c.sms):
        n = full + (1 if i < extra else 0)
        k = sfull + (1 if i < sextra else 0)  # slices of the split tail
        colour = IDLE if n + k == 0 else MOST if n + k == c.longest else FEWER
        x, y = (i % SM_COLS) * (cell + 1), (i // SM_COLS) * (cell + 1)
        what = _n(n, N_("{n} block"), N_("{n} blocks")) if not c.tail else _(
            "{whole} + {slices} of 1/{splits} of K", whole=_n(n, N_("{n} whole block"), N_("{n} whole blocks")),
            slices=_n(k, N_("{n} slice"), N_("{n} slices")), splits=c.splits)
        parts.append(f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{colour}"><title>SM {i}: {what}'
                     f'</title></rect>')
    w, h = SM_COLS * (cell + 1), rows * (cell + 1)
    return f'<svg class="explainer-sm-strip" width="{w}" height="{h}" role="img">{"".join(parts)}</svg>'


def table_html(M: int, N: int, K: int, data: dict, tuned: dict | None = None) -> str:
    """The planned candidates for ``M x N x K``: ``data`` the device's recorded timings,
    ``tuned`` its tuning table (``recorded.load_tuned``), if any."""
    sms = int(data["device"]["sm_count"])
    cands = planner.best_per_kernel(planner.plan(M, N, K, recorded.recorded_rows(data, split_k=True), sms,
                                                 recorded.recorded_rows(tuned, split_k=True) if tuned else ()))
    TD = "padding:3px 8px;border-bottom:1px solid #e5e7eb;text-align:right;vertical-align:middle"
    rows = []
    for i, c in enumerate(cands):
        pred = f"{c.predicted_ms:.4f}" if c.predicted_ms else "–"
        tuned_s = f"{c.tuned_ms:.4f}" if c.tuned_ms else "–"
        if c.pad and c.tuned_ms:
            tuned_s = _("{ms} (with {pad} of copies)", ms=f"{c.tuned_ms + c.pad_ms:.4f}", pad=f"{c.pad_ms:.4f}")
        meas = f"{c.measured_ms:.4f}" if c.measured_ms else _("not recorded at this shape")
        pick = " ◀ " + _("planner's choice") if i == 0 else ""
        rows.append(
            f"<tr data-kernel='{c.rung.name}'><td style='{TD};text-align:left'><b>{html.escape(c.rung.name)}</b>"
            f"{' + ' + _('rows padded') if c.pad else ''}{pick}</td>"
            f"<td style='{TD}'>{c.rung.BM}×{c.rung.BN}</td><td style='{TD}'>{split_text(c)}</td>"
            f"<td style='{TD}'>{c.blocks:,}</td>"
            f"<td style='{TD}'>{c.longest}{starved_text(c)}</td><td style='{TD}'>{c.busy_fraction:.0%}</td>"
            f"<td style='{TD}'>{sm_strip(c)}</td><td style='{TD}'>{pred}</td><td style='{TD}'>{tuned_s}</td>"
            f"<td style='{TD}'>{meas}</td></tr>")
    head = "".join(f"<th style='padding:3px 8px;border-bottom:2px solid #9ca3af'>{h}</th>" for h in (
        _("kernel"), _("block tile"), _("K split in (split-K; the split tail: tiles × S)"), _("blocks"),
        _("on the busiest SM"), _("SM time used"), _("the {sms} SMs", sms=sms), _("model ms"),
        _("from the tuning table ms"), _("measured ms")))
    best = cands[0]
    tuned_note = (_("From the tuning table ({source}) = the kernel's time measured at the nearest tuned shape, scaled "
                    "by the model's ratio between the two shapes; it ranks the kernels.",
                    source=html.escape(tuned['source'])) if tuned
                  else _("No tuning table for this device (tiled-explainer tune writes one)."))
    return (
        "<div style='font-size:14px;margin:4px 0'>"
        + _("<b>{label}</b> for M={M}, N={N}, K={K}: {why}.", label=html.escape(best.label), M=M, N=N, K=K,
            why=html.escape(why_text(best))) + "</div>"
        f"<table class='explainer-plan' style='font-size:13px;border-collapse:collapse'><tr>{head}</tr>{''.join(rows)}</table>"
        "<div style='font-size:12px;color:#4b5563'>"
        + _("Dark: the SMs that get the most blocks; light: one block fewer; grey: none. Model = blocks on the busiest "
            "SM × that kernel's SM time per block, measured once with every SM busy ({label}), each counted longer "
            "where an SM gets too few warps to issue multiply-adds for {cycles} cycles while a phase's copies travel; "
            "it leaves out launch overhead and the rest of a lone block's latency, so small launches run slower than "
            "it says. Split-K (kernel 14): S blocks share a tile of C, each summing 1/S of K; the last to finish adds "
            "the S partial tiles (the model charges their traffic at {fixup} GB/s); each kernel's row shows its best "
            "S. Rows padded (K or N not a multiple of 4): A where K, B where N is not, copied first into rows of a "
            "multiple of 4 floats, so the kernel reads 16-byte granules instead of single elements and stores C in "
            "place; the copies are charged at {pad} GB/s.", label=html.escape(recorded.label_text(data)),
            cycles=f"{planner.LATENCY_CYCLES:,.0f}", fixup=f"{planner.FIXUP_GBS:,.0f}", pad=f"{planner.PAD_GBS:,.0f}")
        + f" {tuned_note} " + _("Computed by explainer.tuning.planner.") + "</div>")


class PlannerPanel:
    """M, N, K fields and the ladder planned for them; display ``.widget``."""

    def __init__(self, M: int = 1024, N: int = 1024, K: int = 1024):
        self.data = recorded.load_recorded()
        self.tuned = recorded.load_tuned(device=self.data["device"]["name"]) if self.data else None  # read once
        small = W.Layout(width="150px")
        self.w_M, self.w_N, self.w_K = (W.IntText(value=v, description=n, layout=small) for n, v in
                                        (("M", M), ("N", N), ("K", K)))
        self.w_error = W.HTML()
        self.w_out = W.HTML()
        self.w_out.add_class("explainer-planner-out")
        self.shape = None
        self.update()
        for w in (self.w_M, self.w_N, self.w_K):
            w.observe(lambda _: self.update(), names="value")
        self.widget = W.VBox([W.HBox([self.w_M, self.w_N, self.w_K]), self.w_error, self.w_out])
        self.widget.add_class("explainer-planner")

    def update(self) -> bool:
        shape = (self.w_M.value, self.w_N.value, self.w_K.value)
        try:
            if not self.data:
                raise ValueError(_("no recorded timings to calibrate the planner (tiled-explainer bench --save)"))
            out = table_html(*shape, self.data, self.tuned)
        except ValueError as e:
            self.w_error.value = f'<span style="color:#b91c1c">⚠ {html.escape(str(e))}</span>'
            return False
        self.shape, self.w_out.value, self.w_error.value = shape, out, ""
        return True
