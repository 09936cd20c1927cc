"""pyproject.toml and environment.yml name the same packages (the conda mirror stays true)."""

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
# conda-forge names that differ from PyPI's
CONDA_TO_PYPI = {"cupy": "cupy-cuda13x", "python-build": "build"}
#: Not Python packages, so not in pyproject.toml: Node.js runs the hub's proxy (from npm).
CONDA_ONLY = {"nodejs"}


def _name(req: str) -> str:
    return re.split(r"[<>=!~\[ ;]", req.strip(), maxsplit=1)[0].lower()


def pyproject_packages():
    proj = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    base = {_name(r) for r in proj["dependencies"]}
    test = {_name(r) for r in proj["optional-dependencies"]["test"]}
    gpu = {_name(r) for r in proj["optional-dependencies"]["gpu"]}
    return base, test, gpu


def conda_packages():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    names = {CONDA_TO_PYPI.get(n, n) for n in (_name(d) for d in env["dependencies"] if isinstance(d, str))}
    # packages conda-forge may lack come from PyPI through the pip section (not the project itself)
    pip = next((d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d), [])
    names |= {_name(r) for r in pip if not r.strip().startswith("-")}
    names -= {"python", "pip"} | CONDA_ONLY
    # the commented-out GPU line still has to name the package
    text = (ROOT / "environment.yml").read_text()
    commented = {_name(m) for m in re.findall(r"^\s*#\s*-\s*([A-Za-z0-9_.\-]+[^\n]*)$", text, re.M)}
    return names, {CONDA_TO_PYPI.get(n, n) for n in commented}


def test_same_packages():
    base, test, gpu = pyproject_packages()
    conda, conda_commented = conda_packages()
    assert conda == base | test, f"only in pyproject: {(base | test) - conda}; only in environment.yml: {conda - (base | test)}"
    assert gpu <= conda_commented, f"environment.yml does not mention the gpu extra {gpu}"


def test_python_floor_matches():
    proj = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    py = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python"))
    assert py.split(">=")[1] == proj["requires-python"].split(">=")[1]
