"""Page 08 (beyond tiling): read by tools/make_notebooks.py, which writes the notebook.

The page opens with the lesson (the five rungs in one screen, the measured chart, then its quiz); the rest (each
rung in detail, the roofline, other GPUs, waves and split-K, the tuning engine's planner) follows under
"Going further" (tests/test_folded_pages.py).

The prose is explainer/text/<lang>/08_beyond_tiling.md (explainer/i18n/prose.py); its numbers are the
model's (explainer.model.ladder.RUNGS, through explainer.views.ladder_maps), computed here as ``FIELDS``
and filled in when tools/make_notebooks.py writes the notebook, so a change of a rung's parameters changes
the text (tests/test_ladder_page.py checks the stored notebook is up to date). Measured figures
never appear in the prose: the page's widgets show them, labelled with device and date.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explainer.model import ladder, roofline, waves  # noqa: E402
from explainer.model.launch import padded_shape  # noqa: E402
from explainer.pages.ladder import BASELINE_TILE, SIZES  # noqa: E402
from explainer.views.ladder_maps import (as_store_conflict, register_counts, rung_facts, shared_loads_per_k,  # noqa: E402
                                   warp_region)

R1, R2, RV, RD, RW = (ladder.rung(n) for n in ladder.NAMES)
F1, F2, FV, FD, FW = (rung_facts(r) for r in (R1, R2, RV, RD, RW))
L1, L2, LV, LW = (shared_loads_per_k(r) for r in (R1, R2, RV, RW))
T = BASELINE_TILE  # the tiled kernel the chart starts from
W = ladder.rung("warptile")
SMS = json.loads((Path(__file__).resolve().parent.parent / "explainer" / "data" / "arches.json").read_text())["hopper"]["sms"]


# Page 08's waves: kernel 14's tiles on the H100's SMs, one block an SM (explainer.model.waves)
V4096, V1024, V3000 = (waves.launch(n, n, n, W.BM, W.BN, SMS) for n in (4096, 1024, 3000))
S1024 = waves.best_split(1024, 1024, 1024, W.BM, W.BN, W.BK, SMS)
V1024S = waves.launch(1024, 1024, 1024, W.BM, W.BN, SMS, splits=S1024)
S_TAIL = SMS // V3000.tail  # the tail's slices that fill one wave
ROW_ALIGN = 4 * padded_shape(1, 1, 1)[2]  # bytes: a padded launch's rows start 16-byte aligned
TILED_I = roofline.intensity("tiled", 4096, 4096, 4096, T)
WD = RW.warp_dims
CW = as_store_conflict(RW)
CV = as_store_conflict(RV)
W2 = warp_region(R2, 0)
_dev = roofline.load_device_record()
RIDGE = roofline.device_roofs(_dev)["ridge"] if _dev else None
PAST_RIDGE = [r for r in ladder.RUNGS if RIDGE is not None and r.intensity() > RIDGE]


def fmt(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def _stated(holds: bool, what: str) -> None:
    """The prose states ``what`` as a fact of the model; when the model changes so that it no longer
    holds, writing the notebook stops here (edit the prose, in every language, then this check)."""
    if not holds:
        raise ValueError(f"page 08's prose says {what}, the model no longer does: "
                         "edit explainer/text/*/08_beyond_tiling.md and tools/nb_ladder.py")


_stated(len(SIZES) > 1, "the chart has several sizes")
_stated(CV > 1, "kernel 12's stores into As have a bank conflict")
_stated(CW == 1, "kernel 14's stores into As have no bank conflict")
_stated(bool(PAST_RIDGE), "some rungs lie past the recorded device's ridge point")
_stated(W == RW, "the waves paragraph's tile is kernel 14's")

#: The values the prose (explainer/text/<lang>/08_beyond_tiling.md) names as ``{name}``: the model's,
#: formatted here for every language.
FIELDS = {
    "ladder_t": T,
    "ladder_tiled_fpb": fmt(TILED_I),
    "ladder_sizes": ", ".join(f"{n}³" for n in SIZES[:-1]),
    "ladder_size_last": f"{SIZES[-1]}³",
    # kernel 10: 1D block tiling
    "k10_tm": R1['TM'],
    "k10_tm_last": R1['TM'] - 1,
    "k10_bm": R1.BM,
    "k10_bn": R1.BN,
    "k10_bk": R1.BK,
    "k10_threads": R1.threads,
    "k10_window": R1.BM * R1.BK,
    "k10_copies": R1.BM * R1.BK // R1.threads,
    "k10_fmas": L1['fmas'],
    "k10_lds": L1['lds'],
    "k10_fma_per_lds": fmt(R1.fma_per_lds),
    "k10_fpb": fmt(R1.intensity()),
    "k10_shared": f"{R1.shared_bytes:,}",
    # kernel 11: 2D block tiling
    "k11_tm": R2['TM'],
    "k11_tn": R2['TN'],
    "k11_bm": R2.BM,
    "k11_bn": R2.BN,
    "k11_thread_rows": R2.BM // R2['TM'],
    "k11_thread_cols": R2.BN // R2['TN'],
    "k11_threads": R2.threads,
    "k11_fmas": L2['fmas'],
    "k11_lds": L2['lds'],
    "k11_fma_per_lds": fmt(R2.fma_per_lds),
    "k11_registers": register_counts(R2)['total'],
    "k11_fpb": fmt(R2.intensity()),
    "k11_copies_a": R2.BM * R2.BK // R2.threads,
    "k11_copies_b": R2.BK * R2.BN // R2.threads,
    "k11_warp_rows": W2['rows'],
    "k11_warp_cols": W2['cols'],
    "k11_b_stride": 4 * R2['TN'],
    # kernel 12: float4
    "k12_vector_bytes": 4 * RV.vector,
    "k12_fma_per_lds": fmt(RV.fma_per_lds),
    "k12_barriers": FV['barriers'],
    "k12_bm": RV.BM,
    "k12_bn": RV.BN,
    "k12_bk": RV.BK,
    "k12_a_float4s": RV.BM * RV.BK // 4,
    "k12_b_float4s": RV.BK * RV.BN // 4,
    "k12_copies_a": RV.BM * RV.BK // 4 // RV.threads,
    "k12_copies_b": RV.BK * RV.BN // 4 // RV.threads,
    "k12_tm": RV['TM'],
    "k12_lda": RV.lda,
    "k12_lds_a": LV['lds_a'],
    "k12_lds_b": LV['lds_b'],
    "k12_fmas": LV['fmas'],
    "k12_row_lanes": RV.BK // 4,
    "k12_store_stride": 4 * RV.lda,
    "k12_as_conflict": CV,
    "k12_shared": f"{FV['shared_bytes']:,}",
    # kernel 13: double buffering
    "k13_barriers": FD['barriers'],
    "k13_shared": f"{FD['shared_bytes']:,}",
    "k13_staging": register_counts(RD)['staging'],
    # kernel 14: warp tiling
    "k14_fma_per_lds": fmt(RW.fma_per_lds),
    "k14_bm": RW.BM,
    "k14_bn": RW.BN,
    "k14_warps_m": RW.BM // WD['WM'],
    "k14_warps_n": RW.BN // WD['WN'],
    "k14_wm": WD['WM'],
    "k14_wn": WD['WN'],
    "k14_threads": RW.threads,
    "k14_warps": RW.threads // 32,
    "k14_wmiter": WD['WMITER'],
    "k14_wniter": WD['WNITER'],
    "k14_wsubm": WD['WSUBM'],
    "k14_wsubn": WD['WSUBN'],
    "k14_lane_rows": WD['WSUBM'] // RW['TM'],
    "k14_lane_cols": WD['WSUBN'] // RW['TN'],
    "k14_tm": RW['TM'],
    "k14_tn": RW['TN'],
    "k14_thread_rows": RW.thread_tile[0],
    "k14_thread_cols": RW.thread_tile[1],
    "k14_outputs": RW.outputs_per_thread,
    "k14_lds_a": LW['lds_a'],
    "k14_lds_b": LW['lds_b'],
    "k14_fmas": LW['fmas'],
    "k14_lda": RW.lda,
    "k14_fpb": f"{FW['intensity']:.1f}",
    "k14_shared": f"{FW['shared_bytes']:,}",
    # the roofline
    "ladder_ridge": f"{RIDGE:.1f}",
    "ladder_past_ridge": ', '.join(r.file.split('_')[0] for r in PAST_RIDGE),
    # waves, tails and split-K: kernel 14's tiles on an H100
    "h100_sms": SMS,
    "waves_4096_blocks": V4096.blocks,
    "waves_4096_rounds": V4096.rounds,
    "waves_4096_tail": V4096.tail,
    "waves_4096_busy": f"{V4096.busy:.0%}",
    "waves_1024_blocks": V1024.blocks,
    "waves_1024_idle": V1024.idle_sms,
    "waves_1024_busy": f"{V1024.busy:.0%}",
    "waves_3000_blocks": V3000.blocks,
    "waves_3000_rounds": V3000.rounds,
    "waves_3000_full": V3000.rounds - 1,
    "waves_3000_tail": V3000.tail,
    "waves_3000_waiting": SMS - V3000.tail,
    "waves_3000_busy": f"{V3000.busy:.0%}",
    "split_1024": S1024,
    "split_1024_blocks": V1024S.blocks,
    "split_1024_busy": f"{V1024S.busy:.0%}",
    "split_1024_shorter": f"{V1024.time / V1024S.time:.0f}",
    "split_1024_mib": f"{waves.split_traffic_bytes(1024, 1024, S1024) / 2**20:.0f}",
    "tail_split": S_TAIL,
    "tail_split_blocks": V3000.tail * S_TAIL,
    # the tuning engine
    "row_align_bytes": ROW_ALIGN,
}

#: The page's cells are its prose files (tools/make_notebooks.py: prose_pages).
PAGES = {}
