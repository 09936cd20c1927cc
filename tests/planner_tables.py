"""The made-up tables the planner's tests plan on (tests/test_planner.py,
tests/test_planner_regret.py): a recording and tuning tables of a few dozen rows each, written
here so that what a test asserts is decided by rows it can read, and read in no time (the shipped
H100 tuning table holds ~200k rows)."""

from __future__ import annotations

from explainer.gpu import recorded

SMS = 132  # the made-up device's SMs (an H100's number)


def launch(kernel, M, N, K, ms, splits=1, tail=0, pad=False, reduce=False, **extra) -> dict:
    """One row of a recording or of a tuning table (the fields of ``recorded.TUNED_KEYS``)."""
    return {"kernel": kernel, "splits": splits, "tail": tail, "pad": pad, "reduce": reduce,
            "M": M, "N": N, "K": K, "median_ms": ms, "passed": True, **extra}


def cublas(M, N, K, ms) -> dict:
    return {"kernel": "cublas", "M": M, "N": N, "K": K, "median_ms": ms}


def table(rows, source="made-up-gpu_2026-01-02.json.gz") -> dict:
    """A tuning table as ``recorded.load_tuned`` returns one: its cuBLAS rows apart."""
    return {"schema": recorded.SCHEMA, "device": {"name": "Made-up GPU"}, "date": "2026-01-02T00:00:00+00:00",
            "source": source, "cublas": [r for r in rows if r["kernel"] == "cublas"],
            "results": [r for r in rows if r["kernel"] != "cublas"]}


def table_rows(rows) -> list[dict]:
    """The rows the planner is given of a tuning table (``recorded.recorded_rows(.., split_k=True)``)."""
    return recorded.recorded_rows(table(rows), split_k=True)


#: The made-up recording: each candidate's time at 4096^3 (ms, every SM busy: its calibration)
#: and the blocks an SM ran at once (``blocks_per_sm``, what ``planner.residency`` reads:
#: warptile_64x64's 5 is one more than its MINB).
AT_4096 = {
    "blocktile_1d": (10.7, 2), "blocktile_2d": (8.0, 1), "vectorized": (4.3, 2), "double_buffered": (3.3, 2),
    "warptile_256x128": (2.9, 1), "warptile_128x128": (2.95, 2), "warptile_128x64": (3.2, 4),
    "warptile_64x64": (3.8, 5), "warptile_64x64_bk16": (3.6, 4), "warptile_64x64_bk32": (3.55, 4),
    "warptile_32x128": (3.65, 4), "warptile_64x128": (3.05, 4), "warptile_128x32_bk16": (4.0, 4),
    "warptile_128x256": (2.85, 1), "warptile_128x64_bk16": (3.0, 3), "warptile_64x64_t64": (3.2, 6),
    "warptile_96x128": (3.75, 2), "warptile_48x128": (3.4, 3), "warptile_128x48": (3.75, 3),
    "warptile_128x48_t64": (3.15, 4), "warptile_64x96_t64": (3.6, 4),
}
#: ... and at 1024^3 a few of them, in an order the model does not predict (it has vectorized
#: faster than blocktile_1d and warptile_128x64_bk16 than warptile_32x128 by more than measured).
AT_1024 = {"blocktile_1d": 0.178, "vectorized": 0.216, "blocktile_2d": 0.270, "double_buffered": 0.118,
           "warptile_256x128": 0.185, "warptile_128x64_bk16": 0.058, "warptile_32x128": 0.066}
DATA = {"schema": recorded.SCHEMA, "device": {"name": "Made-up GPU", "sm_count": SMS},
        "date": "2026-01-01T00:00:00+00:00", "label": "made up for the tests", "source": "made-up-gpu_2026-01-01.json",
        "cublas": [cublas(4096, 4096, 4096, 2.6), cublas(1024, 1024, 1024, 0.05)], "cublas_tf32": [],
        "results": [launch(k, 4096, 4096, 4096, ms, blocks_per_sm=b) for k, (ms, b) in AT_4096.items()]
        + [launch(k, 1024, 1024, 1024, ms, blocks_per_sm=AT_4096[k][1]) for k, ms in AT_1024.items()]}
ROWS = recorded.recorded_rows(DATA, split_k=True)

#: A made-up tuning table without padded launches: at three sizes an aligned shape (rows 16-byte
#: aligned, no tile divides it) and an odd one (K and N odd: kernel 14 copies A and B element by
#: element). Odd rows cost kernel 14 1.5x at 3000 and 8191 and next to nothing at 255, and
#: double_buffered (kernel 13, no padded launch) 1.3-1.4x.
PLAIN = [
    launch("warptile_256x128", 252, 252, 252, 0.0120), launch("warptile_256x128", 255, 255, 255, 0.0121),
    launch("warptile_128x128", 252, 252, 252, 0.0100), launch("warptile_128x128", 255, 255, 255, 0.0102),
    launch("warptile_64x64", 252, 252, 252, 0.0110), launch("warptile_64x64", 255, 255, 255, 0.0112),
    launch("double_buffered", 252, 252, 252, 0.0150), launch("double_buffered", 255, 255, 255, 0.0150),
    launch("warptile_256x128", 3000, 3000, 3000, 1.20), launch("warptile_256x128", 2999, 2999, 2999, 1.80),
    launch("warptile_128x128", 3000, 3000, 3000, 1.15), launch("warptile_128x128", 2999, 2999, 2999, 1.72),
    launch("warptile_64x64", 3000, 3000, 3000, 1.50), launch("warptile_64x64", 2999, 2999, 2999, 2.25),
    launch("double_buffered", 3000, 3000, 3000, 1.40), launch("double_buffered", 2999, 2999, 2999, 1.95),
    launch("warptile_256x128", 8188, 8188, 8188, 22.5), launch("warptile_256x128", 8191, 8191, 8191, 33.8),
    launch("warptile_128x128", 8188, 8188, 8188, 22.0), launch("warptile_128x128", 8191, 8191, 8191, 33.0),
    launch("warptile_64x64", 8188, 8188, 8188, 29.0), launch("warptile_64x64", 8191, 8191, 8191, 43.5),
    launch("double_buffered", 8188, 8188, 8188, 27.0), launch("double_buffered", 8191, 8191, 8191, 36.0),
    cublas(252, 252, 252, 0.009), cublas(255, 255, 255, 0.009), cublas(3000, 3000, 3000, 1.05),
    cublas(2999, 2999, 2999, 1.05), cublas(8188, 8188, 8188, 20.5), cublas(8191, 8191, 8191, 20.5),
]
#: ... and its padded launches at the odd shapes (``+pad``: the copies and the kernel on them).
PADDED = [
    launch("warptile_256x128", 255, 255, 255, 0.0160, pad=True), launch("warptile_128x128", 255, 255, 255, 0.0140, pad=True),
    launch("warptile_256x128", 2999, 2999, 2999, 1.26, pad=True), launch("warptile_128x128", 2999, 2999, 2999, 1.21, pad=True),
]
TUNED = table_rows(PLAIN + PADDED)
#: The made-up recording less the kernels :data:`PLAIN` did not measure: where padding pays is then
#: decided by the table's rows alone (a kernel without them has no prediction to weigh against).
PAD_DATA = {**DATA, "results": [r for r in DATA["results"] if r["kernel"] in {x["kernel"] for x in PLAIN}]}
PAD_ROWS = recorded.recorded_rows(PAD_DATA, split_k=True)
