"""The pages in JupyterLab, as a student who opens the notebooks there: page 02 runs (Run > Run All
Cells), its stepper steps in the browser and its plotly figure draws, and nothing is fetched from
outside the machine (every such request is refused and recorded)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
import urllib.request

import pytest
from conftest import REPO, _free_port, _stop

START_TIMEOUT_S = 90


@pytest.fixture
def lab(tmp_path):
    """`jupyter lab` on a free port over a copy of page 02, no token (local only)."""
    shutil.copy(REPO / "notebooks" / "02_tiled.ipynb", tmp_path)
    port = _free_port()
    log = tmp_path / "lab.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
             "--allow-root", "--IdentityProvider.token=", f"--ServerApp.root_dir={tmp_path}"],
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


@pytest.mark.browser
def test_page_02_runs_and_steps_in_jupyterlab_offline(lab, browser_page, page_errors):
    page = browser_page
    page.goto(f"{lab}/lab/tree/02_tiled.ipynb")
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=60_000)
    page.wait_for_timeout(2000)  # the kernel connects
    page.locator(".lm-MenuBar-itemLabel").filter(has_text=re.compile("^Run$")).click()
    page.locator(".lm-Menu-itemLabel").filter(has_text=re.compile("^Run All Cells$")).click()
    label = page.locator(".explainer-stepper .explainer-step-label")
    label.filter(has_text="step 1 of").wait_for(timeout=120_000)
    page.wait_for_function("() => { const f = [...document.querySelectorAll('.js-plotly-plot')]; "
                           "return f.length > 0 && f.every((e) => e._fullLayout); }", timeout=120_000)
    page.locator(".explainer-stepper .explainer-next").click()
    label.filter(has_text="step 2 of").wait_for(timeout=10_000)
    assert "loading the B tile" in label.inner_text()
    assert page.outside == [], page.outside
    assert page_errors == []
