"""Every student's points per check of an assignment, from nbgrader's gradebook, as CSV.

Run it from the course folder after ``nbgrader autograde``::

    python scores.py                    # the tiled_kernel assignment, to the terminal
    python scores.py tiled_kernel > scores.csv

One row per student who has a submission: the points of each graded cell (the checks: results,
no_race, in_bounds, odd_shapes), the total and the maximum. ``nbgrader export`` writes the totals
only; the formgrader (JupyterLab's Nbgrader menu) shows the same per-cell scores in a browser.
"""

from __future__ import annotations

import argparse
import csv
import sys

from nbgrader.api import Gradebook, MissingEntry


def rows(assignment: str, db_url: str = "sqlite:///gradebook.db"):
    with Gradebook(db_url) as gb:
        a = gb.find_assignment(assignment)
        cells = [c.name for nb in a.notebooks for c in nb.grade_cells]
        yield ["student", *cells, "total", "max"]
        for student in sorted(s.id for s in gb.students):
            try:
                sub = gb.find_submission(assignment, student)
            except MissingEntry:
                continue
            score = {g.name: g.score for nb in sub.notebooks for g in nb.grades}
            yield [student, *(_num(score.get(c)) for c in cells), _num(sub.score), _num(sub.max_score)]


def _num(x) -> str:
    return "" if x is None else f"{x:g}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("assignment", nargs="?", default="tiled_kernel")
    p.add_argument("--db", default="sqlite:///gradebook.db", help="the gradebook (default: ./gradebook.db)")
    args = p.parse_args(argv)
    try:
        csv.writer(sys.stdout).writerows(rows(args.assignment, args.db))
    except MissingEntry:
        print(f"scores.py: no assignment {args.assignment!r} in the gradebook: run nbgrader generate_assignment "
              "and autograde first", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
