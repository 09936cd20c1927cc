"""Notebooks are stored clean (no outputs, execution counts or widget state, so diffs show the
prose that changed) and thin (no ``def``/``class``: logic lives in ``explainer``, where tests
reach it)."""

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
DEFINITION = re.compile(r"^\s*(async\s+def|def|class)\s", re.MULTILINE)


def test_there_are_notebooks():
    assert any(nb.name == "00_index.ipynb" for nb in NOTEBOOKS)


def _load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def _source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_stored_without_outputs_or_widget_state(path):
    nb = _load(path)
    assert "widgets" not in nb.get("metadata", {}), "notebook metadata holds widget state"
    for i, cell in enumerate(nb["cells"]):
        assert "widgets" not in cell.get("metadata", {}), f"cell {i} holds widget state"
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"cell {i} has stored outputs"
            assert cell.get("execution_count") is None, f"cell {i} has an execution count"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_code_cells_define_nothing(path):
    for i, cell in enumerate(_load(path)["cells"]):
        if cell["cell_type"] == "code":
            match = DEFINITION.search(_source(cell))
            assert not match, f"cell {i} defines something ({match.group(0).strip()} ...): " \
                              "move it into explainer/"
