"""The pages in JupyterLab, as a student who opens the notebooks there: every page runs (Run > Run
All Cells) with nothing fetched from outside the machine (every such request is refused and
recorded); page 02's stepper steps in the browser and its plotly figure draws."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
import urllib.request

import pytest
from conftest import REPO, _free_port, _stop

pytestmark = pytest.mark.check  # `make check` (CI), not `make test`

START_TIMEOUT_S = 90


NOTEBOOKS = sorted(p.name for p in (REPO / "notebooks").glob("*.ipynb"))


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """`jupyter lab` on a free port over a copy of the notebooks, no token (local only)."""
    tmp_path = tmp_path_factory.mktemp("lab")
    for nb in NOTEBOOKS:
        shutil.copy(REPO / "notebooks" / nb, tmp_path)
    port = _free_port()
    log = tmp_path / "lab.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
             "--allow-root", "--IdentityProvider.token=", f"--ServerApp.root_dir={tmp_path}",
             # its own workspace and settings: nothing restored from, or left in, the user's
             f"--LabApp.workspaces_dir={tmp_path / '.workspaces'}", f"--LabApp.user_settings_dir={tmp_path / '.settings'}"],
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://localhost:{port}"
    deadline = time.monotonic() + START_TIMEOUT_S
    try:
        while True:
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"jupyter lab did not start:\n{log.read_text()[-3000:]}", pytrace=False)
            try:
                with urllib.request.urlopen(f"{url}/lab", timeout=2):
                    break
            except OSError:
                time.sleep(0.2)
        yield url
    finally:
        _stop(proc)


def run_all(page, url: str) -> None:
    page.goto(url + "?reset")  # an empty workspace: only this notebook opens
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=60_000)
    page.wait_for_timeout(2000)  # the kernel connects
    page.locator(".lm-MenuBar-itemLabel").filter(has_text=re.compile("^Run$")).click()
    page.locator(".lm-Menu-itemLabel").filter(has_text=re.compile("^Run All Cells$")).click()


@pytest.mark.browser
@pytest.mark.parametrize("notebook", [n for n in NOTEBOOKS if n != "02_tiled.ipynb"])
def test_every_page_runs_in_jupyterlab_offline(lab, browser_page, page_errors, notebook):
    page = browser_page
    run_all(page, f"{lab}/lab/tree/{notebook}")
    code_cells = page.locator(".jp-Notebook .jp-CodeCell")
    # every code cell has run: its prompt shows a number, and none shows an error
    page.wait_for_function("() => { const p = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')]; "
                           "return p.length > 0 && p.every((e) => /\\[\\d+\\]/.test(e.textContent)); }", timeout=180_000)
    assert code_cells.count() >= 1
    assert page.locator(".jp-Notebook .jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").count() == 0
    assert "Traceback" not in page.locator(".jp-Notebook").inner_text()
    page.wait_for_timeout(1000)
    assert page.outside == [], page.outside
    assert page_errors == []


@pytest.mark.browser
def test_page_02_runs_and_steps_in_jupyterlab_offline(lab, browser_page, page_errors):
    page = browser_page
    run_all(page, f"{lab}/lab/tree/02_tiled.ipynb")
    label = page.locator(".explainer-stepper .explainer-step-label")
    label.filter(has_text="step 1 of").wait_for(timeout=120_000)
    page.wait_for_function("() => { const f = [...document.querySelectorAll('.js-plotly-plot')]; "
                           "return f.length > 0 && f.every((e) => e._fullLayout); }", timeout=120_000)
    page.locator(".explainer-stepper .explainer-next").click()
    label.filter(has_text="step 2 of").wait_for(timeout=10_000)
    assert "loading the B tile" in label.inner_text()
    assert page.outside == [], page.outside
    assert page_errors == []
