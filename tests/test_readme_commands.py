"""The README's set-up without ``make`` stays true: its commands are the Makefile's (same install,
same test command and flags), and run as written in a fresh environment they install the project,
serve the app, and collect the same tests that ``make test`` runs."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import urllib.request

import pytest
from conftest import REPO, _free_port, serving

README = (REPO / "README.md").read_text(encoding="utf-8")
MAKEFILE = (REPO / "Makefile").read_text(encoding="utf-8")


def readme_commands() -> list[list[str]]:
    """The ``sh`` block that follows "Without `make`", as argument lists (comments dropped)."""
    m = re.search(r"Without `make`.*?```sh\n(.*?)```", README, re.S)
    assert m, "README has no 'Without `make`' block"
    return [shlex.split(line.split("#", 1)[0]) for line in m.group(1).splitlines() if line.split("#", 1)[0].strip()]


def make_recipe(target: str) -> list[str]:
    """The Makefile's command lines for ``target`` that call the venv's Python."""
    m = re.search(rf"^{re.escape(target)}:.*?\n((?:\t.*\n)+)", MAKEFILE, re.M)
    assert m, target
    return [line.strip() for line in m.group(1).splitlines() if "$(VENV)/bin/" in line]


def normal(args: list[str]) -> list[str]:
    """A command with the venv spelled ``.venv`` and the Makefile's variables and quotes gone."""
    out = []
    for a in args:
        a = a.replace("$(VENV)", ".venv").strip("'\"")
        if a in ("$(ARGS)", "--port", "$(PORT)"):
            continue
        out.append(a)
    return out


def test_readme_commands_are_the_makefiles():
    cmds = [normal(c) for c in readme_commands()]
    assert cmds[0] == ["python", "-m", "venv", ".venv"]
    install = normal(shlex.split(re.search(r"^\$\(VENV\)/.installed:.*?\n\t(.*)$", MAKEFILE, re.M).group(1)))
    assert cmds[1] == install, (cmds[1], install)
    (serve,), (test,), (check,) = make_recipe("serve"), make_recipe("test"), make_recipe("check")
    assert normal(shlex.split(test)) == cmds[3] and normal(shlex.split(check)) == cmds[4]
    assert cmds[3] == cmds[4] + ["-m", "not check"]  # make test: every test but those marked check
    # make serve runs the console script; the README runs the same entry point as a module
    assert normal(shlex.split(serve))[1:] == cmds[2][3:] and cmds[2][:3] == [".venv/bin/python", "-m", "explainer"]


def run(cmd, cwd, env, timeout=1200) -> str:
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{' '.join(cmd)} -> {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    return r.stdout


def collected(test_command: list[str], env) -> int:
    """How many tests ``test_command`` (the README's) would run, from the checkout."""
    out = run(test_command + ["--collect-only", "-q", "-p", "no:cacheprovider"], cwd=REPO, env=env, timeout=600)
    return int(re.search(r"(\d+) tests? collected", out).group(1))


@pytest.mark.browser  # slow: a fresh environment (pip's cache or PyPI), then serve
@pytest.mark.check
def test_readme_commands_run_in_a_fresh_environment(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    venv = tmp_path / ".venv"
    install, serve, test, _ = readme_commands()[1:]
    run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path, env=env)
    here = lambda args: [str(tmp_path / a) if a.startswith(".venv/") else a for a in args]  # noqa: E731
    # pip install -e ".[test]" is run from the checkout, as the README says.
    run(here(install), cwd=REPO, env=env)
    with serving(here(serve) + ["--no-browser", "--port", str(_free_port())], tmp_path, tmp_path / "serve.log", env) as s:
        with urllib.request.urlopen(s.page_url("00_index.ipynb"), timeout=120) as r:
            assert r.status == 200
    mine = [sys.executable] + test[1:]  # the same command in the environment running this test
    assert collected(here(test), env) == collected(mine, env) > 500
