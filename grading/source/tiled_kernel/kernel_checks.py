"""The grader's checks for the tiled-kernel assignment: the simulator's reports turned into points.

The notebook's locked cells call this module; nbgrader copies it from the course's ``source/``
folder over whatever a student submitted before it autogrades, so every student is scored by the
same code. The kernel is checked by ``tiled-explainer check-kernel --json`` (the CPU simulator,
no GPU) in a fresh Python process, once per tile in ``TILES``, each time on the simulator's
default launches: one whole block, one thread, and odd, non-square shapes with edge blocks in
both directions and K not a multiple of T (docs/simulator.md, "The launches").

Each graded cell ends with a number: the points it earned (nbgrader's partial credit), after a
line that says what was checked and, where points were lost, the simulator's first findings with
their source lines.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

#: Block edges the kernel is launched with: 4 (many blocks and phases on small shapes) and 16 (the
#: tile the explainer's pages use).
TILES = (4, 16)
#: Problems reported by kind, per category (docs/simulator.md, "What is reported").
SYNC_KINDS = ("race", "barrier_divergence", "uninitialized")
BOUNDS_KINDS = ("out_of_bounds",)
SHOWN = 3  # findings printed per category
TIMEOUT_S = 60  # per tile; the simulator stops an endless loop after 20 s (nbgrader_config.py: 180 s a cell)


@dataclass
class Launch:
    M: int
    N: int
    K: int
    tile: int
    ran: bool  # False: not run, after an earlier launch hit the step limit
    kinds: set = field(default_factory=set)  # the kinds of problem reported on this launch

    @property
    def label(self) -> str:  # as the simulator labels a launch
        return f"{self.M}x{self.N}x{self.K} T={self.tile}"

    @property
    def odd(self) -> bool:
        """An edge shape: T does not divide M, N or K (so edge blocks, or a partial last phase)."""
        return any(v % self.tile for v in (self.M, self.N, self.K))

    @property
    def right(self) -> bool:
        return self.ran and "wrong_result" not in self.kinds and "step_limit" not in self.kinds

    @property
    def clean(self) -> bool:
        return self.ran and not self.kinds


@dataclass
class Checks:
    """The simulator's findings for one kernel file over every launch of every tile."""

    file: str
    launches: list = field(default_factory=list)
    problems: list = field(default_factory=list)  # the reports' problem dicts, every tile
    bad_input: str | None = None  # the simulator's one line when it cannot take the file

    def summary(self) -> None:
        """One line per launch, for the student: what the checks found there."""
        if self.bad_input is not None:
            print(f"The simulator cannot take the kernel: {self.bad_input}")
            return
        for L in self.launches:
            state = "not run" if not L.ran else ("ok" if L.clean else ", ".join(sorted(L.kinds)))
            print(f"  {L.label:<18} {state}")

    # ---- the graded categories: each prints one line (and findings) and returns the points ----
    def results(self, points: float) -> float:
        """C right (to float32 rounding) on each launch: partial credit per launch."""
        if self._refused():
            return 0.0
        right = [L for L in self.launches if L.right]
        print(f"C right on {len(right)} of {len(self.launches)} launches")
        self._show(("wrong_result", "step_limit"))
        return _points(points, len(right), len(self.launches))

    def no_race(self, points: float) -> float:
        """No race, divergent barrier or read of uninitialised shared memory on any launch."""
        return self._none_of(SYNC_KINDS, points, "no race, divergent __syncthreads() or uninitialised "
                             "shared-memory read")

    def in_bounds(self, points: float) -> float:
        """No load or store outside A, B, C or a shared array on any launch."""
        return self._none_of(BOUNDS_KINDS, points, "no access outside A, B, C or a shared array")

    def odd_shapes(self, points: float) -> float:
        """The edge shapes (T does not divide M, N or K): partial credit per launch with nothing
        reported."""
        if self._refused():
            return 0.0
        odd = [L for L in self.launches if L.odd]
        clean = [L for L in odd if L.clean]
        print(f"nothing reported on {len(clean)} of {len(odd)} odd-shaped launches"
              + ("" if len(clean) == len(odd) else
                 ": " + ", ".join(L.label + ("" if L.ran else " (not run)") for L in odd if not L.clean)))
        return _points(points, len(clean), len(odd))

    # ---- helpers ----
    def _refused(self) -> bool:
        if self.bad_input is not None:
            print(f"0 points: the simulator cannot take the kernel: {self.bad_input}")
            return True
        if not self.launches:
            print("0 points: no launch ran")
            return True
        return False

    def _none_of(self, kinds, points, what) -> float:
        if self._refused():
            return 0.0
        if not any(L.right for L in self.launches):
            # nothing to synchronise or guard in a kernel that never computes C (the empty stub)
            print("0 points: C is wrong on every launch (this check counts once C is right on one)")
            return 0.0
        hit = [L for L in self.launches if kinds_in(L.kinds, kinds)]
        if not hit:
            print(f"{what}: on all {len(self.launches)} launches")
            return float(points)
        print(f"0 points: {', '.join(sorted({k for L in hit for k in L.kinds if k in kinds}))} "
              f"on {len(hit)} of {len(self.launches)} launches")
        self._show(kinds)
        return 0.0

    def _show(self, kinds) -> None:
        found = [p for p in self.problems if p["kind"] in kinds]
        for p in found[:SHOWN]:
            runs = p.get("launches") or []
            where = f"line {p['line']}" if p.get("line") else "no line"
            more = f" and {len(runs) - 1} more" if len(runs) > 1 else ""
            print(f"  {p['kind']}, {where}: {p['message']} (launch {runs[0] if runs else '?'}{more})")
        if len(found) > SHOWN:
            print(f"  ... and {len(found) - SHOWN} more: run `tiled-explainer check-kernel {self.file} --tile 4` for all")


def kinds_in(have: set, kinds) -> bool:
    return any(k in have for k in kinds)


def _points(points: float, got: int, out_of: int) -> float:
    return round(points * got / out_of, 2) if out_of else 0.0


def run_checks(path: str = "tiled_kernel.cu", tiles=TILES) -> Checks:
    """Run the simulator on ``path`` for each tile, each in a fresh Python process (so nothing
    defined in the notebook can change what it reports), and collect the findings per launch."""
    checks = Checks(path)
    if not Path(path).is_file():
        checks.bad_input = f"{path} does not exist: run the kernel cell (it writes the file)"
        return checks
    for tile in tiles:
        try:
            r = subprocess.run([sys.executable, "-I", "-m", "explainer", "check-kernel", path, "--tile", str(tile),
                                "--json"], capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            checks.bad_input = f"the simulator did not finish in {TIMEOUT_S} s with T = {tile}"
            return checks
        if r.returncode not in (0, 1):  # 2: bad input, in one line on stderr
            line = (r.stderr.strip().splitlines() or [f"exit status {r.returncode}"])[-1]
            checks.bad_input = line.removeprefix("tiled-explainer: error: ")
            return checks
        report = json.loads(r.stdout)
        by_label = {}
        for d in report["launches"]:
            L = Launch(d["M"], d["N"], d["K"], d["tile"], ran=not d.get("skipped", False))
            checks.launches.append(L)
            by_label[L.label] = L
        for p in report["problems"]:
            checks.problems.append(p)
            for label in p.get("launches") or []:
                if label in by_label:
                    by_label[label].kinds.add(p["kind"])
    return checks
