"""Page 08's shape picker: the ladder's rungs planned for a shape (:mod:`explainer.model.planner`),
each with its blocks drawn on the device's SMs, the predicted and the recorded time.

Python answers a new shape (three fields); bad input shows one line and the panel keeps its last
good table. Drawn as HTML and SVG computed here (no front-end logic).
"""

from __future__ import annotations

import html

import ipywidgets as W

from ..gpu import recorded
from ..model import planner
from ..model.launch import ceil_div

SM_COLS = 12
#: What the SM strip's colours say.
IDLE, FEWER, MOST = "#e5e7eb", "#93c5fd", "#1d4ed8"


def split_text(c: "planner.Candidate") -> str:
    """The split column: "–" (whole K), "S" (split-K; "S, then a reduction kernel" with a
    separate reduction), or "R × S" (the last R tiles split in S)."""
    if c.splits == 1:
        return "–"
    if c.tail:
        return f"last {c.tail} tiles × {c.splits}"
    return f"{c.splits}, then a reduction kernel" if c.reduce else str(c.splits)


def starved_text(c: "planner.Candidate") -> str:
    """After the busiest SM's block count: where its blocks are too few to cover a phase's loads
    (``Candidate.latency_slowdown``), how much longer the model counts each; else nothing."""
    slow = c.latency_slowdown
    if slow <= 1.0:
        return ""
    warps = c.starved_blocks * c.rung.threads // 32
    return (f"<br><span style='font-size:11px;color:#b45309' title='{warps} warps on the SM: too few to issue "
            f"multiply-adds while a phase&#39;s copies travel'>{warps} warps: each ×{slow:.2f}</span>")


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
        what = f'{n} block{"s" if n != 1 else ""}' if not c.tail else (
            f'{n} whole block{"s" if n != 1 else ""} + {k} slice{"s" if k != 1 else ""} of 1/{c.splits} of K')
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
            tuned_s = f"{c.tuned_ms + c.pad_ms:.4f} (with {c.pad_ms:.4f} of copies)"
        meas = f"{c.measured_ms:.4f}" if c.measured_ms else "not recorded at this shape"
        pick = " ◀ planner's choice" if i == 0 else ""
        rows.append(
            f"<tr data-kernel='{c.rung.name}'><td style='{TD};text-align:left'><b>{html.escape(c.rung.name)}</b>"
            f"{' + rows padded' if c.pad else ''}{pick}</td>"
            f"<td style='{TD}'>{c.rung.BM}×{c.rung.BN}</td><td style='{TD}'>{split_text(c)}</td>"
            f"<td style='{TD}'>{c.blocks:,}</td>"
            f"<td style='{TD}'>{c.longest}{starved_text(c)}</td><td style='{TD}'>{c.busy_fraction:.0%}</td>"
            f"<td style='{TD}'>{sm_strip(c)}</td><td style='{TD}'>{pred}</td><td style='{TD}'>{tuned_s}</td>"
            f"<td style='{TD}'>{meas}</td></tr>")
    head = "".join(f"<th style='padding:3px 8px;border-bottom:2px solid #9ca3af'>{h}</th>" for h in (
        "kernel", "block tile", "K split in (split-K; the split tail: tiles × S)", "blocks", "on the busiest SM", "SM time used", f"the {sms} SMs", "model ms",
        "from the tuning table ms", "measured ms"))
    best = cands[0]
    tuned_note = (f"From the tuning table ({html.escape(tuned['source'])}) = the kernel's time measured at the nearest "
                  "tuned shape, scaled by the model's ratio between the two shapes; it ranks the kernels." if tuned else "No tuning table for this device (tiled-explainer tune writes one).")
    return (
        f"<div style='font-size:14px;margin:4px 0'><b>{html.escape(best.label)}</b> for M={M}, N={N}, K={K}: "
        f"{html.escape(best.why())}.</div>"
        f"<table class='explainer-plan' style='font-size:13px;border-collapse:collapse'><tr>{head}</tr>{''.join(rows)}</table>"
        f"<div style='font-size:12px;color:#4b5563'>Dark: the SMs that get the most blocks; light: one block fewer; "
        f"grey: none. Model = blocks on the busiest SM × that kernel's SM time per block, measured once with every "
        f"SM busy ({html.escape(data['label'])}), each counted longer where an SM gets too few warps to issue "
        f"multiply-adds for {planner.LATENCY_CYCLES:,.0f} cycles while a phase's copies travel; it leaves out launch "
        f"overhead and the rest of a lone block's latency, so small launches run slower than it says. Split-K (kernel 14): S blocks share a tile of C, each summing 1/S of K; the last to "
        f"finish adds the S partial tiles (the model charges their traffic at {planner.FIXUP_GBS:,.0f} GB/s); each "
        f"kernel's row shows its best S. Rows padded (K or N not a multiple of 4): A where K, B where N is not, copied "
        f"first into rows of a multiple of 4 floats, so the kernel reads 16-byte granules instead of single elements "
        f"and stores C in place; the copies "
        f"are charged at {planner.PAD_GBS:,.0f} GB/s. {tuned_note} Computed by explainer.model.planner.</div>")


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
                raise ValueError("no recorded timings to calibrate the planner (tiled-explainer bench --save)")
            out = table_html(*shape, self.data, self.tuned)
        except ValueError as e:
            self.w_error.value = f'<span style="color:#b91c1c">⚠ {html.escape(str(e))}</span>'
            return False
        self.shape, self.w_out.value, self.w_error.value = shape, out, ""
        return True
