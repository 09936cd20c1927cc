"""What students read speaks to them: no lab-internal words in the product (the package, the
kernels, the pages, the README), and every kernel's "Run it" line runs.

The lab words: "session N" (a working session of the project), "issue N" (its tracker), "seed 00N"
(its internal names for the course documents; the pages name a document by what it is: the
course notes, the gemm_tiled walk-through, the PMPP chapter 5 notes, the sliding-window
write-up, the lab report)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
LAB_WORDS = re.compile(r"\bsessions? \d+|\bissue \d+|\bissues \d+[-,]|\bseeds? 00\d|\bseed_00\d", re.IGNORECASE)
PRODUCT = ["explainer", "kernels", "notebooks"]
TEXT = {".py", ".cu", ".cuh", ".ipynb", ".js", ".css", ".j2", ".md", ".json"}
RUNGS = sorted(REPO.glob("kernels/[0-9][0-9]*_*.cu"))  # 03_tiled.cu; a variant placed after a rung: 03b_*.cu


def _product_files():
    for d in PRODUCT:
        for p in sorted((REPO / d).rglob("*")):
            # recorded measurements and tuning tables are data files written by commands
            if p.is_file() and p.suffix in TEXT and not {"recorded", "tuned"} & set(p.parts):
                yield p
    yield REPO / "README.md"


def test_the_lab_words_check_can_fail():
    for bad in ("as measured in session 30", "(issue 14)", "seed 001's example", "def seed_004_rows"):
        assert LAB_WORDS.search(bad), bad
    for fine in ("the random seed 0", "--seed 7", "the course notes' example", "voila issue #1458",
                 "a warp issues 2×4 mma.sync"):
        assert not LAB_WORDS.search(fine), fine


def test_no_product_file_says_session_issue_or_seed():
    hits = [f"{p.relative_to(REPO)}:{n}: {line.strip()[:100]}"
            for p in _product_files()
            for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
            if LAB_WORDS.search(line)]
    assert not hits, "\n".join(hits)


def _run_it(path: Path) -> list[str]:
    """The commands of a rung's header "Run it:" line (alternatives separated by " / "), without
    a trailing remark in parentheses."""
    lines = [line for line in path.read_text().splitlines()[:60] if line.startswith("// Run it:")]
    assert len(lines) == 1, f"{path.name}: one 'Run it:' line in its header comment"
    text = re.sub(r"\s+\([^)]*\)\s*$", "", lines[0][len("// Run it:"):]).strip()
    return [c.strip() for c in text.split(" / ")]


def test_every_rung_has_a_run_it_line():
    assert [p.name[:2] for p in RUNGS if p.name[2] == "_"] == [f"{i:02d}" for i in range(1, 18)]  # and variants (02b)
    for p in RUNGS:
        assert _run_it(p)


#: A rung a student reads in one sitting: its file (header comment included) at most this long; the
#: shared header holds only what the rungs share. (The tuning engine's kernel, kernels/tuned/, is not a rung.)
RUNG_LINES, COMMON_LINES = 260, 180


def test_every_rung_is_read_in_one_sitting():
    lengths = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in RUNGS}
    assert {n: k for n, k in lengths.items() if k > RUNG_LINES} == {}
    assert lengths["14_warptile.cu"] <= 220  # the last FP32 rung: warp tiling with a plain guard
    assert len((REPO / "kernels" / "common.cuh").read_text(encoding="utf-8").splitlines()) <= COMMON_LINES
    assert not [p.name for p in (REPO / "kernels").glob("*.cu") if p not in RUNGS and p.name != "hold.cu"]


@pytest.mark.parametrize("path", RUNGS, ids=[p.stem for p in RUNGS])
def test_run_it_lines_run(path):
    """Each command as a student types it (from the repository's root): a `tiled-explainer`
    command or a module or script is run for real (on a machine without a GPU, a GPU command
    answers "no GPU", which is fine; an argument it does not know is not); a pytest command
    names files that exist."""
    for cmd in _run_it(path):
        words = cmd.split()
        if words[0] == "pytest":
            files = [w for w in words if w.endswith(".py")]
            assert files and all((REPO / f).is_file() for f in files), cmd
            continue
        if words[0] == "tiled-explainer":
            argv = [sys.executable, "-m", "explainer", *words[1:]]
        elif words[:2] == ["python", "-m"]:
            argv = [sys.executable, *words[1:]]
        elif words[0] == "python" and words[1].endswith(".py"):
            assert (REPO / words[1]).is_file(), cmd
            argv = [sys.executable, *words[1:]]
        else:
            raise AssertionError(f"{path.name}: a Run-it command this test does not know: {cmd}")
        p = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=300,
                           env={**os.environ, "EXPLAINER_NO_GPU": "1"})
        out = p.stdout + p.stderr
        assert "Traceback" not in out and not re.search(r"error: (argument|unrecognized)", out), f"{cmd}\n{out[-2000:]}"
        assert p.returncode == 0 or "no GPU" in out, f"{cmd} (exit {p.returncode})\n{out[-2000:]}"


def test_the_readme_lists_every_page_and_every_rung_in_order():
    """Students first: the README's table names every page (as the index does, from
    ``pages.PAGES``) and its reading list names every rung of ``kernels/``, in order."""
    from explainer.pages import PAGES

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("## The pages"):readme.index("## Read the kernels in this order")]
    for nb, title, _ in PAGES:
        assert f"| {nb[:2]} {title} |" in table, title
    reading = readme[readme.index("## Read the kernels in this order"):readme.index("## Conventions")]
    named = re.findall(r"`(\d\d[a-z]?_\w+\.cu)`", reading)
    assert named == [p.name for p in RUNGS], named


CITED = re.compile(r"benchmarks/[\w./*{},-]+")


def _exists(path: str) -> bool:
    """``path`` (relative to the repository; ``*`` and ``{a,b}`` as a shell expands them) names
    at least one file or folder."""
    path = path.rstrip(".,)`")
    m = re.search(r"\{([^}]*)\}", path)
    if m:
        return all(_exists(path[:m.start()] + alt + path[m.end():]) for alt in m.group(1).split(","))
    return any(REPO.glob(path)) if "*" in path else (REPO / path).exists()


def test_every_benchmark_file_a_reader_is_sent_to_exists():
    """The README, the docs, the pages, the package and the kernels cite benchmark scripts and
    results by path; benchmarks/README.md's table names each script and result: all exist."""
    assert _exists("benchmarks/bench_hub.py") and not _exists("benchmarks/nothing_here.py")
    assert _exists("benchmarks/results/bench_hub_2026-11-28*") and not _exists("benchmarks/{bench_hub.py,nope.py}")
    sources = [REPO / "README.md", REPO / "docs" / "deploy.md", REPO / "docs" / "reference.md", *_product_files()]
    missing = sorted({f"{p.relative_to(REPO)}: {c}" for p in sources for c in CITED.findall(p.read_text(errors="replace"))
                      if not _exists(c)})
    assert not missing, "\n".join(missing)
    table = (REPO / "benchmarks" / "README.md").read_text()
    named = re.findall(r"`((?:results/|cutlass_tf32/)?[\w./*{},-]+\.(?:py|md|txt|json|cu))`", table)
    assert len(named) > 15
    for name in named:
        root = "" if name.startswith(("explainer/", "kernels/")) else "benchmarks/"
        assert _exists(root + name), name
    scripts = {p.name for p in (REPO / "benchmarks").glob("*.py")}
    assert scripts <= {n for n in re.findall(r"`([\w]+\.py)`", table)}, scripts
