"""Recorded timings: the files ``tiled-explainer bench --save`` writes into
``explainer/data/recorded/`` (device, versions, date, every figure with its spread), read back
for pages on machines without a GPU (no GPU needed here)."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from datetime import datetime
from importlib import resources
from pathlib import Path

from ..i18n import N_, _
from ..resources import kernels_dir

RECORDED_DIR = Path(__file__).resolve().parent.parent / "data" / "recorded"
#: Per-device tuning tables (``tiled-explainer tune``): the ladder's kernels and configurations
#: measured on a grid of shapes; the planner prefers them where they exist for the device.
TUNED_DIR = Path(__file__).resolve().parent.parent / "data" / "tuned"
#: How tuning tables are stored: gzipped JSON (the H100's, 188 k rows, is 24 MB as text and 1.3 MB
#: gzipped: the wheel carries it); plain ``.json`` files are read too.
TUNED_SUFFIX = ".json.gz"
#: The endings of the files ``save_report`` writes and ``load_tuned`` reads.
JSON_SUFFIXES = (".json", TUNED_SUFFIX)
SCHEMA = "tiled-explainer/recorded-timings/1"
#: ``benchmarks/mma_feed.py --save``: how fast mma.sync runs when fed from shared memory, beside
#: kernel 16 and cuBLAS TF32 (page 09).
FEEDING_SCHEMA = "tiled-explainer/recorded-feeding/1"
#: Below this cuBLAS time a launch's fixed cost (a few microseconds) is a large share of it, so a
#: "% of cuBLAS" compares overheads more than kernels: every place that prints one says so.
LAUNCH_BOUND_MS = 0.010
OVERHEAD_NOTE = N_("cuBLAS under 10 µs: launch overhead dominates")  # a page shows _(OVERHEAD_NOTE)
#: What the rows of a feeding file (``benchmarks/mma_feed.py --save``) say they measured (their
#: ``what``), marked for the catalogue: a page shows ``_(row["what"])``, the file stays English.
FEEDING_WHAT = (
    N_("kernel 16 itself (copies from global memory, C stored)"),
    N_("kernel 16's loop from shared memory (64 x 64 warps, B lane by lane, cvt.rn, barrier)"),
    N_("without the barrier"),
    N_("one fragment set instead of two"),
    N_("without the cvt (truncation: not cuBLAS TF32's rounding)"),
    N_("B by ldmatrix (needs B stored K-major: a transposed copy)"),
    N_("B by ldmatrix, without the cvt"),
    N_("96 x 64 warps (48 mma.sync a k-step), B lane by lane, cvt.rn"),
    N_("96 x 64 warps, B by ldmatrix, cvt.rn"),
    N_("no fragment loads: the tensor cores alone, on registers"),
)
#: What the recorded memory-space files (``benchmarks/bench_latency.py``,
#: ``benchmarks/bench_dynamic_shared.py``) say about how they measured (their ``method``), marked
#: for the catalogue: a page shows ``_(record["method"])``, the file stays English.
RECORDED_METHODS = (
    N_("pointer chasing, one thread, clock64() and %globaltimer over 4096 dependent loads, median of 5 runs"),
    N_("each kernel checked against numpy float64 (C poisoned with NaN), then timed with CUDA events: warm-up, "
       "median of up to 10 repeats, L2 flushed before each (explainer.gpu.time_kernel)"),
)
#: How ``save_report`` (and ``tiled-explainer device --save``) word a recording's ``label``.
_LABEL = re.compile(r"(?P<verb>recorded|measured) on (?P<device>.+) on (?P<date>\d{4}-\d{2}-\d{2})")


def read_json(path: str | Path):
    """A JSON file, parsed; gunzipped first where its name ends in ``.gz``."""
    raw = Path(path).read_bytes()
    return json.loads(gzip.decompress(raw) if str(path).endswith(".gz") else raw)


def label_text(data: dict) -> str:
    """A recording's ``label`` ("recorded on NVIDIA H100 on 2026-11-22") in the reader's language
    (the file keeps the English); a label worded otherwise is shown as it is."""
    label = str(data.get("label", ""))
    m = _LABEL.fullmatch(label)
    if not m:
        return label
    if m["verb"] == "measured":
        return _("measured on {device} on {date}", device=m["device"], date=m["date"])
    return _("recorded on {device} on {date}", device=m["device"], date=m["date"])


def launch_bound(cublas_ms: float | None) -> bool:
    """True when a percentage against this cuBLAS time must carry :data:`OVERHEAD_NOTE`."""
    return cublas_ms is not None and cublas_ms < LAUNCH_BOUND_MS


def recorded_files() -> list[Path]:
    """The recorded-timings files shipped in the package, sorted by name."""
    try:
        root = resources.files("explainer").joinpath("data/recorded")
        return sorted(Path(str(p)) for p in root.iterdir() if p.name.endswith(".json"))
    except (FileNotFoundError, NotADirectoryError, OSError):
        return sorted(RECORDED_DIR.glob("*.json")) if RECORDED_DIR.is_dir() else []


def _newest(files, device: str | None, schema: str = SCHEMA) -> dict | None:
    """The newest (by its ``date``) of ``files`` in ``schema`` whose device name contains
    ``device`` (any when ``None``), parsed, with ``"source"`` (its file name) added."""
    best = None
    for f in files:
        try:
            data = read_json(f)
        except (OSError, ValueError, EOFError):
            continue
        if data.get("schema") != schema:
            continue
        if device and device.lower() not in str(data.get("device", {}).get("name", "")).lower():
            continue
        data["source"] = f.name
        if best is None or data.get("date", "") > best.get("date", ""):
            best = data
    return best


def pages_device() -> str | None:
    """The device the pages describe: the one of the newest device record (clocks, bandwidth,
    ncu; ``tiled-explainer device --save``), so that timings and device facts agree."""
    from ..model.roofline import load_device_record

    rec = load_device_record()
    name = (rec or {}).get("device")
    return (name.get("name") if isinstance(name, dict) else name) or None


def load_recorded(path: str | Path | None = None, device: str | None = None) -> dict | None:
    """The newest recorded-timings file (or ``path``), parsed, with ``"source"`` (its file
    name) added; ``device`` keeps only files whose device name contains it. Without either, the
    newest file of :func:`pages_device` (the newest of any device when that has none). ``None``
    when there is none. Pages show ``data["label"]`` next to the figures: they are recorded, not
    live."""
    files = [Path(path)] if path is not None else recorded_files()
    if path is None and device is None:
        own = pages_device()
        found = _newest(files, own) if own else None
        if found:
            return found
    return _newest(files, device)


def load_feeding(device: str | None = None) -> dict | None:
    """The newest ``benchmarks/mma_feed.py --save`` file (of :func:`pages_device` when it has one,
    else of ``device`` or any), parsed, with ``"source"``; ``None`` when none is shipped."""
    files = recorded_files()
    own = pages_device() if device is None else None
    return (own and _newest(files, own, FEEDING_SCHEMA)) or _newest(files, device, FEEDING_SCHEMA)


def recorded_by_device() -> list[dict]:
    """The newest recorded-timings file of each device shipped, :func:`load_recorded`'s first
    (the pages' device), then the others by name."""
    first = load_recorded()
    names = set()
    for f in recorded_files():
        try:
            data = json.loads(f.read_text())
        except (OSError, ValueError):
            continue
        if data.get("schema") == SCHEMA:
            names.add(str(data.get("device", {}).get("name", "")))
    out = [first] if first else []
    for name in sorted(names):
        if first and name == first["device"].get("name"):
            continue
        found = _newest(recorded_files(), name)
        if found and found["device"].get("name") == name:
            out.append(found)
    return out


def versions_text(device: dict) -> str:
    """A recording's software versions as one line ("cupy 14.2.0, driver 580.159.04, ..."), or ""."""
    return ", ".join(f"{k} {v}" for k, v in (device.get("versions") or {}).items() if v)


def recorded_rows(data: dict, kernel: str | None = None, size: int | None = None,
                  tile: int | None = None, split_k: bool = False) -> list[dict]:
    """Rows of a recorded file, filtered (``size`` matches square M = N = K runs). Split-K rows
    (``splits`` > 1: the planner's launches) and padded launches (``pad``) only with ``split_k``,
    so that a kernel's row at a size is its plain launch."""
    rows = list(data.get("cublas", [])) + list(data.get("cublas_tf32", [])) + list(data.get("results", []))
    return [r for r in rows
            if (kernel is None or r["kernel"] == kernel)
            and (size is None or r["M"] == r["N"] == r["K"] == size)
            and (tile is None or r.get("tile") == tile)
            and (split_k or (r.get("splits", 1) == 1 and not r.get("pad")))]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "device"


#: What a tuning table keeps of each row (the planner and best_rows read no more).
TUNED_KEYS = ("kernel", "splits", "tail", "pad", "reduce", "M", "N", "K", "median_ms", "passed")


def compact(report_dict: dict, keys=TUNED_KEYS) -> dict:
    """A report with only ``keys`` of each row (and medians rounded to 0.1 ns): thousands of
    rows of a tuning table in a file small enough to ship."""
    def row(r):
        out = {k: r[k] for k in keys if k in r}
        for k in ("median_ms", "min_ms", "max_ms", "cublas_ms"):
            if isinstance(out.get(k), float):
                out[k] = round(out[k], 7)
        for k in ("gflops", "pct_cublas"):
            if isinstance(out.get(k), float):
                out[k] = round(out[k], 2)
        return out

    return {**report_dict, "cublas": [row(r) for r in report_dict.get("cublas", [])],
            "results": [row(r) for r in report_dict.get("results", [])]}


def merge_tables(base: dict, new: dict, by_launch: bool = False) -> dict:
    """A tuning table with ``new``'s rows joined into ``base`` (both ``compact`` reports): every
    row of ``base`` whose kernel, padding (``+pad`` or not) and shape ``new`` measured is replaced
    by ``new``'s (split counts, tails and ``+reduce`` alike: a kernel changed is measured again at
    a shape in every launch ``tune`` makes there), and so is the cuBLAS row of each shape ``new``
    measured; all other rows are kept. Device, versions and date are ``new``'s; the command line
    is ``base``'s, then `` + `` and ``new``'s. The kernel fingerprint (:func:`kernel_fingerprint`)
    stays where both have the same one, else it is ``None`` (rows of different sources).
    ``by_launch`` (``tune --missing-only``): only ``base``'s rows of the very launches ``new``
    measured (kernel, split count, tail, reduction, padding, shape) are replaced, and ``base``'s
    cuBLAS rows are kept where it has the shape."""
    def key(r):
        launch = (r.get("splits", 1), r.get("tail", 0), bool(r.get("reduce", False))) if by_launch else ()
        return r["kernel"], bool(r.get("pad", False)), r["M"], r["N"], r["K"], *launch

    measured = {key(r) for r in new.get("results", [])} | {key(e) for e in new.get("errors", []) if "kernel" in e}
    shapes = {(r["M"], r["N"], r["K"]) for r in new.get("cublas", [])}
    if by_launch:
        shapes -= {(r["M"], r["N"], r["K"]) for r in base.get("cublas", [])}
        new = dict(new, cublas=[r for r in new.get("cublas", []) if (r["M"], r["N"], r["K"]) in shapes])
    keep = [r for r in base.get("results", []) if key(r) not in measured]
    cublas = [r for r in base.get("cublas", []) if (r["M"], r["N"], r["K"]) not in shapes]
    errors = [e for e in base.get("errors", []) if "kernel" not in e or key(e) not in measured]
    merged = {k: v for k, v in base.items() if k not in ("source", "schema", "generated", "label")}
    merged.update({k: v for k, v in new.items() if k not in ("results", "cublas", "errors", "command", "source")})
    if base.get("kernels") != new.get("kernels"):  # rows measured on different kernel sources
        merged["kernels"] = None
    merged.update(results=keep + list(new.get("results", [])), cublas=cublas + list(new.get("cublas", [])),
                  errors=errors + list(new.get("errors", [])),
                  command=" + ".join(c for c in (base.get("command", ""), new.get("command", "")) if c))
    return merged


#: A CUDA source's comments and string literals, in the order they start (a "//" inside a string
#: is not a comment; a string inside a comment is not a string).
_COMMENT_OR_STRING = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.DOTALL)


def code_only(source: str) -> str:
    """``source`` without its comments, trailing spaces and blank lines: what the compiler sees,
    not the prose a student reads."""
    text = _COMMENT_OR_STRING.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", source)
    return "\n".join(line.rstrip() for line in text.splitlines() if line.strip())


def kernel_fingerprint() -> dict[str, str]:
    """The kernel code as shipped: ``{file name: the first 16 hex digits of the SHA-256 of its
    code}`` (:func:`code_only`) for every ``*.cu`` and ``*.cuh`` in ``kernels/`` and its folders
    (``tuned/warptile_tuned.cu``: the tuning engine's): what a recording measured, so that a page
    can say when a kernel changed after it. A comment edited since does not make a measurement
    stale."""
    root = kernels_dir()
    return {f.relative_to(root).as_posix(): hashlib.sha256(code_only(f.read_text(encoding="utf-8")).encode()).hexdigest()[:16]
            for f in sorted(root.rglob("*")) if f.suffix in (".cu", ".cuh") and f.is_file()}


def changed_kernels(data: dict) -> list[str] | None:
    """The kernel files whose source differs from the one a recording measured (sorted; a file
    added or removed since counts), ``[]`` where none does, ``None`` where the recording keeps no
    fingerprint (written before they were kept, or a table joining runs of different sources)."""
    then = data.get("kernels")
    if not isinstance(then, dict):
        return None
    now = kernel_fingerprint()
    return sorted(name for name in set(then) | set(now) if then.get(name) != now.get(name))


def kernels_text(data: dict) -> str:
    """One line on whether a recording measured the kernel sources shipped now
    (:func:`changed_kernels`)."""
    changed = changed_kernels(data)
    if changed is None:
        return _("kernel sources not fingerprinted (recorded before recordings kept them): compare its date")
    if not changed:
        return _("measured with the kernel sources shipped now")
    return _("measured before a change to {files}: those kernels' rows may differ now", files=", ".join(changed))


def save_report(report_dict: dict, path: str | Path | None = None, command: str = "",
                indent: int | None = 1, suffix: str = ".json") -> Path:
    """Write a report (``BenchReport.to_dict()``) as a recorded-timings file and return its
    path. ``path``: a file (gzipped where its name ends in ``.json.gz``), a folder (the file named
    after the device and the day, ending in ``suffix``: ``.json``, or :data:`TUNED_SUFFIX` for a
    tuning table), or ``None`` for ``explainer/data/recorded/``."""
    dev = report_dict.get("device", {})
    day = report_dict.get("date", datetime.now().isoformat())[:10]
    data = {
        "schema": SCHEMA,
        "generated": "written by `tiled-explainer bench --save`; regenerate, do not edit",
        "label": f"recorded on {dev.get('name', 'an unknown device')} on {day}",
        "command": command,
        **report_dict,
    }
    target = Path(path) if path else RECORDED_DIR
    if not target.name.endswith(JSON_SUFFIXES):
        target = target / f"{_slug(dev.get('name', 'device'))}_{day}{suffix}"
    target.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=indent, sort_keys=False) + "\n"
    if target.name.endswith(".gz"):  # mtime 0: the same rows give the same bytes
        target.write_bytes(gzip.compress(text.encode(), compresslevel=9, mtime=0))
    else:
        target.write_text(text)
    return target


def best_rows(data: dict) -> list[dict]:
    """Per size (in the order measured): the fastest correct FP32 kernel of that size's run (the
    cuBLAS reference is FP32; tensor-core rows, ``math`` "tf32", are not compared with it); its
    row carries the cuBLAS median of the same run (``cublas_ms``, ``pct_cublas``)."""
    out = []
    for cub in data.get("cublas", []):
        same = [r for r in data.get("results", [])
                if (r["M"], r["N"], r["K"]) == (cub["M"], cub["N"], cub["K"])
                and r.get("passed", True) and r.get("median_ms") and r.get("math", "fp32") == "fp32"]
        if same:
            out.append(min(same, key=lambda r: r["median_ms"]))
    return out


def load_tuned(device: str | None = None, folder: str | Path | None = None) -> dict | None:
    """The newest tuning table (``tiled-explainer tune``; gzipped JSON, or plain) whose device
    name contains ``device`` (any device when ``None``), parsed; ``None`` when there is none."""
    root = Path(folder) if folder else TUNED_DIR
    files = sorted(f for f in root.iterdir() if f.name.endswith(JSON_SUFFIXES)) if root.is_dir() else []
    return _newest(files, device)
