"""The course's grading set-up (grading/, docs/grading.md), run for real with nbgrader in a
temporary course folder: the source notebook's solution validates, the student version is
generated from it, four students submit (the tiled kernel of kernels/03, the one without barriers
of kernels/09, the unguarded one of kernels/06, and the untouched stub), nbgrader autogrades
them, and the points per check are read back as a maintainer reads them (``scores.py``,
``nbgrader export``, ``nbgrader generate_feedback``).

Slow tier (about 45 s: nbgrader starts a Python kernel per notebook it runs); skipped when
nbgrader is not installed (it comes with the ``test`` extra on Python >= 3.11).
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
GRADING = REPO / "grading"
ASSIGNMENT = "tiled_kernel"

pytestmark = pytest.mark.check  # `make check` (CI), not `make test`
pytest.importorskip("nbgrader", reason="nbgrader is not installed (pip install nbgrader; docs/grading.md)")
nbformat = pytest.importorskip("nbformat")
if not (GRADING / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").is_file():  # e.g. tests run from an sdist
    pytest.skip("no grading/ folder beside tests/", allow_module_level=True)

#: Who submits what: a kernel of kernels/ pasted into the kernel cell, or None for the stub as released.
SUBMISSIONS = {"alice": "03_tiled.cu", "bob": "09_tiled_no_barriers.cu", "carol": "06_tiled_unguarded.cu",
               "dan": None}
CHECKS = ["results", "no_race", "in_bounds", "odd_shapes"]
MAX = {"results": 4, "no_race": 2, "in_bounds": 2, "odd_shapes": 2}
#: The points each submission must earn per check (the scheme is the notebook's "Scores" table).
EXPECTED = {
    # right everywhere, nothing reported
    "alice": MAX,
    # C comes out right on every launch (the simulator runs the threads of a block together), but
    # every launch has races, and so no odd-shaped launch is clean
    "bob": {"results": 4, "no_race": 0, "in_bounds": 2, "odd_shapes": 0},
    # right only when T divides M, N and K (2 of 10 launches: 4 x 0.2); out-of-bounds loads and
    # stores, and ghost threads storing into other threads' elements of C (a race)
    "carol": {"results": 0.8, "no_race": 0, "in_bounds": 0, "odd_shapes": 0},
    # the empty stub computes nothing, so it earns nothing, not even "no race"
    "dan": {"results": 0, "no_race": 0, "in_bounds": 0, "odd_shapes": 0},
}
#: A kernel_checks.py a student might submit beside the notebook: it gives every check full marks.
TAMPERED = "class Checks:\n    def __getattr__(self, name):\n        return lambda points: points\n" \
           "def run_checks(path):\n    return Checks()\n"


#: As in an activated environment (what docs/grading.md has the maintainer do): nbgrader runs the
#: `alembic` command of its environment by name, so the interpreter's bin folder leads PATH.
ACTIVATED = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}


def nbgrader(course: Path, *args: str, timeout: int = 300) -> str:
    r = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, capture_output=True, text=True,
                       timeout=timeout, check=False, env=ACTIVATED)
    assert r.returncode == 0, f"nbgrader {' '.join(args)} -> {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r.stdout + r.stderr


def kernel_cell(nb):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "kernel")


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    """A course folder as docs/grading.md sets it up, with every submission autograded."""
    root = tmp_path_factory.mktemp("course")
    for name in ("nbgrader_config.py", "scores.py"):
        shutil.copy(GRADING / name, root)
    shutil.copytree(GRADING / "source", root / "source",
                    ignore=shutil.ignore_patterns("*.cu", "__pycache__", ".ipynb_checkpoints"))
    # the solution earns every point (this writes source/tiled_kernel/tiled_kernel.cu, which the
    # configuration keeps out of the student version)
    out = nbgrader(root, "validate", f"source/{ASSIGNMENT}/{ASSIGNMENT}.ipynb")
    assert "Success! Your notebook passes all the tests." in out, out[-3000:]
    nbgrader(root, "generate_assignment", ASSIGNMENT)
    released = root / "release" / ASSIGNMENT
    for student, kernel in SUBMISSIONS.items():
        sub = root / "submitted" / student / ASSIGNMENT
        shutil.copytree(released, sub)  # what the student fetched
        if kernel is not None:
            nb = nbformat.read(sub / f"{ASSIGNMENT}.ipynb", as_version=4)
            kernel_cell(nb).source = "%%writefile tiled_kernel.cu\n" + (REPO / "kernels" / kernel).read_text()
            nbformat.write(nb, sub / f"{ASSIGNMENT}.ipynb")
    (root / "submitted" / "bob" / ASSIGNMENT / "kernel_checks.py").write_text(TAMPERED)
    nbgrader(root, "autograde", ASSIGNMENT)
    return root


def scores(course: Path) -> dict:
    out = subprocess.run([sys.executable, "scores.py", ASSIGNMENT], cwd=course, capture_output=True, text=True,
                         timeout=60, check=True, env=ACTIVATED).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    return {r["student"]: {k: float(v) for k, v in r.items() if k != "student"} for r in rows}


def test_the_student_version_has_the_stub_and_the_checks_but_not_the_solution(course):
    released = course / "release" / ASSIGNMENT
    assert sorted(p.name for p in released.iterdir()) == ["kernel_checks.py", f"{ASSIGNMENT}.ipynb"]
    nb = nbformat.read(released / f"{ASSIGNMENT}.ipynb", as_version=4)
    stub = kernel_cell(nb).source
    assert stub.startswith("%%writefile tiled_kernel.cu\n") and "FILL ME IN" in stub
    assert "template <int TILE>" in stub and "__shared__ float As[TILE][TILE];" in stub
    assert "__syncthreads();" not in stub and "SOLUTION" not in stub and "sum +=" not in stub
    graded = {c.metadata.nbgrader["grade_id"]: c.metadata.nbgrader["points"] for c in nb.cells
              if c.metadata.get("nbgrader", {}).get("grade")}
    assert graded == MAX and sum(graded.values()) == 10
    assert all(c.metadata.nbgrader["locked"] for c in nb.cells if c.metadata.nbgrader["grade_id"] != "kernel")


def test_each_submission_earns_the_points_of_the_checks_it_passes(course):
    got = scores(course)
    assert set(got) == set(SUBMISSIONS)
    for student, expected in EXPECTED.items():
        assert {k: got[student][k] for k in CHECKS} == expected, (student, SUBMISSIONS[student], got[student])
        assert got[student]["total"] == pytest.approx(sum(expected.values())) and got[student]["max"] == 10
    assert got["alice"]["total"] == 10
    assert got["bob"]["total"] < 10 and got["carol"]["total"] < got["bob"]["total"]


def test_the_autograded_notebook_says_why_points_were_lost(course):
    nb = nbformat.read(course / "autograded" / "bob" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    text = {c.metadata.nbgrader["grade_id"]: "".join(o.get("text", "") for o in c.outputs)
            for c in nb.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")}
    assert text["no_race"].startswith("0 points: race on 10 of 10 launches")
    assert "__syncthreads()" in text["no_race"] and "line " in text["no_race"]  # the simulator's findings
    assert text["results"].startswith("C right on 10 of 10 launches")
    # the submitted kernel_checks.py was replaced by the course's before grading
    assert (course / "autograded" / "bob" / ASSIGNMENT / "kernel_checks.py").read_text() == \
        (GRADING / "source" / ASSIGNMENT / "kernel_checks.py").read_text()


def test_export_and_feedback(course):
    nbgrader(course, "export")
    totals = {r["student_id"]: float(r["score"]) for r in csv.DictReader((course / "grades.csv").open())}
    assert totals == {s: sum(e.values()) for s, e in EXPECTED.items()}
    nbgrader(course, "generate_feedback", ASSIGNMENT)
    html = (course / "feedback" / "carol" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
    assert "out_of_bounds" in html and "0.8" in html
