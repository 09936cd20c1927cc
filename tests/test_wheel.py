"""The package as a new user gets it: ``python -m build`` makes an sdist and, from it, a wheel
that carries the kernels and the pages; installed into a fresh virtual environment and run from a
folder that is not the checkout, the command line works, the tiled page builds with the real
``.cu`` lines in its code panel, and ``tiled-explainer serve`` renders page 02 in Chromium.

Slow (a fresh environment's dependencies come from pip's cache or PyPI: about a minute), so the
whole module shares one build and one environment.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import REPO, _free_port, serving

pytestmark = pytest.mark.check  # `make check` (CI), not `make test`


def run(cmd, cwd, timeout=600, env=None):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    assert r.returncode == 0, f"{' '.join(map(str, cmd))} -> {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO)], cwd=out, timeout=900)
    return out


@pytest.fixture(scope="module")
def installed(dist, tmp_path_factory):
    """A fresh venv with the wheel installed (and its dependencies); its environment for
    commands: no PYTHONPATH, so nothing can come from the checkout."""
    venv = tmp_path_factory.mktemp("venv")
    run([sys.executable, "-m", "venv", str(venv)], cwd=venv)
    wheel = next(dist.glob("*.whl"))
    run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)], cwd=venv, timeout=1200)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return venv, env


@pytest.fixture
def elsewhere(tmp_path) -> Path:
    """A working folder that is not the checkout."""
    assert REPO not in tmp_path.parents
    return tmp_path


def test_sdist_and_wheel_carry_the_kernels_and_pages(dist):
    run([sys.executable, "-m", "twine", "check", *map(str, dist.iterdir())], cwd=dist)
    names = zipfile.ZipFile(next(dist.glob("*.whl"))).namelist()
    # the rungs and the tuning engine's sources (kernels/tuned/), by their paths under kernels/
    kernels = sorted(p.relative_to(REPO / "kernels").as_posix() for p in (REPO / "kernels").rglob("*") if p.is_file()
                     and "__pycache__" not in p.parts)
    notebooks = sorted(p.relative_to(REPO / "notebooks").as_posix() for p in (REPO / "notebooks").rglob("*.ipynb")
                       if ".ipynb_checkpoints" not in p.parts)  # the translations too (zh-CN/)
    assert sorted(n[len("explainer/kernels/"):] for n in names if n.startswith("explainer/kernels/")) == kernels
    assert "tuned/warptile_tuned.cu" in kernels and "14_warptile.cu" in kernels
    assert sorted(n[len("explainer/notebooks/"):] for n in names if n.startswith("explainer/notebooks/")) == notebooks
    # English and 简体中文: the catalogue (read at run time), the prose files, the glossary
    for f in ("i18n/locale/zh_CN/LC_MESSAGES/explainer.po", "text/en/01_naive.md", "text/zh-CN/01_naive.md",
              "i18n/glossary.py"):
        assert f"explainer/{f}" in names, f
    for front in ("views/tiled.js", "views/common.js", "views/static.js", "views/quiz.js", "views/page.css", "data/arches.json",
                  "app/vendor/plotly-basic.min.js", "app/vendor/plotly-LICENSE"):
        assert f"explainer/{front}" in names, front
    assert not any(n.startswith(("kernels/", "notebooks/", "tests/")) for n in names)
    # the tuning tables the planner prefers travel gzipped (the H100's is 24 MB as text)
    tables = sorted(p.name for p in (REPO / "explainer" / "data" / "tuned").iterdir())
    assert tables and sorted(n.split("/")[-1] for n in names if n.startswith("explainer/data/tuned/")) == tables
    assert all(t.endswith(".json.gz") for t in tables)
    installed = sum(i.file_size for i in zipfile.ZipFile(next(dist.glob("*.whl"))).infolist())
    assert installed < 10_000_000  # on disk once installed (24 MB more with the table as text)


def test_installed_package_works_from_any_folder(installed, elsewhere):
    venv, env = installed
    py = str(venv / "bin" / "python")
    where = json.loads(run([py, "-c", (
        "import json, explainer, explainer.resources as r; "
        "print(json.dumps([explainer.__file__, str(r.kernels_dir()), str(r.notebooks_dir())]))")],
        cwd=elsewhere, env=env))
    site = str(venv)
    assert all(w.startswith(site) for w in where), where  # the installed copy, not the checkout
    out = run([str(venv / "bin" / "tiled-explainer"), "stats", "--M", "35", "--N", "79", "--K", "19",
               "--tile", "8", "--json"], cwd=elsewhere, env=env)
    assert json.loads(out)["grid"] == [10, 5]
    # The tiled page builds, and its code panel shows the real kernel's lines.
    code = json.loads(run([py, "-c", (
        "import json; from explainer import pages; pages.tiled(); "
        "from explainer.views.stepper import TiledStepper; meta, _ = TiledStepper().data(); "
        "print(json.dumps([meta['file'], [line[1] for line in meta['code']]]))")], cwd=elsewhere, env=env))
    source = (REPO / "kernels" / code[0]).read_text()
    assert code[0] == "03_tiled.cu" and len(code[1]) > 10 and all(line in source for line in code[1])
    # Exported static pages are written from the installed notebooks.
    run([str(venv / "bin" / "tiled-explainer"), "export", str(elsewhere / "site")], cwd=elsewhere, env=env)
    assert (elsewhere / "site" / "02_tiled.html").stat().st_size > 100_000
    bundle = re.findall(r'<script src="assets/(plotly[^"]*)"', (elsewhere / "site" / "02_tiled.html").read_text(encoding="utf-8"))
    assert len(bundle) == 1 and (elsewhere / "site" / "assets" / bundle[0]).stat().st_size > 1_000_000, bundle


@pytest.mark.browser
def test_installed_serve_renders_page_02(installed, elsewhere, browser_page, page_errors):
    venv, env = installed
    cmd = [str(venv / "bin" / "tiled-explainer"), "serve", "--no-browser", "--port", str(_free_port())]
    with serving(cmd, elsewhere, elsewhere / "serve.log", env) as server:
        page = browser_page
        page.goto(server.page_url("02_tiled.ipynb"))
        try:
            page.locator(".explainer-stepper .explainer-step-label").filter(has_text="step 1 of").wait_for(timeout=120_000)
        except Exception as e:
            raise AssertionError(f"page 02 did not render from the installed package: {e}\n{server.log_tail()}") from None
        body = page.locator("body").inner_text()
        assert "There was an error" not in body and "FileNotFoundError" not in body
        code = page.locator(".explainer-stepper pre.explainer-code").inner_text()
        assert "__syncthreads()" in code and "kernels/03_tiled.cu" in page.locator(".explainer-stepper").inner_text()
    assert page_errors == []
