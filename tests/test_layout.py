"""The package's folders are its layers, and imports go one way only:

    i18n  <-  model  <-  sim  <-  gpu  <-  views  <-  tuning  <-  pages  <-  app

``explainer.i18n`` (the pages' words in English and 简体中文: the catalogue, the glossary, the prose
files) imports no other layer, and every layer may use it; ``explainer.model`` (pure numpy) imports
only i18n; ``explainer.sim`` (the CPU simulator of
students' kernels: a parser and numpy) only the model; ``explainer.gpu`` (CuPy) the model and the
simulator (a student's kernel runs on the GPU only after the simulator passed it);
``explainer.views`` (widgets and their front ends) the layers below it; ``explainer.pages``
(one module per notebook) everything below it; ``explainer.app`` (cli, serve, export) anything.
``explainer.tuning`` (the tuning engine, optional) sits above the lesson's layers: nothing in
model, gpu or views imports it, and a page only inside the function that shows it.
``explainer.resources`` (where files are) may be used by all. Every import in the package,
at module level or inside a function, is checked."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "explainer"
LAYERS = ["i18n", "model", "sim", "gpu", "views", "tuning", "pages", "app"]
SHARED = {"explainer", "explainer.resources", "explainer.__main__"}  # the package root (__version__), the paths, python -m explainer


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, root: Path = PACKAGE) -> set[str]:
    """Every explainer module ``path`` (a file of the package at ``root``) imports."""
    name = module_name(path, root)
    is_pkg = path.name == "__init__.py"
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("explainer")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_pkg else name.split(".")[:-1]
                base = base[:len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if not mod.startswith("explainer"):
                continue
            out.add(mod)
            for a in node.names:  # `from explainer import gpu` imports the module explainer.gpu
                sub = f"{mod}.{a.name}"
                if (root.parent / Path(*sub.split("."))).with_suffix(".py").exists() or \
                        (root.parent / Path(*sub.split(".")) / "__init__.py").exists():
                    out.add(sub)
    return out


def layer(module: str) -> int | None:
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else None


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_sits_in_a_layer():
    loose = [module_name(p) for p in MODULES if layer(module_name(p)) is None and module_name(p) not in SHARED]
    assert loose == [], f"modules outside i18n/ model/ sim/ gpu/ views/ tuning/ pages/ app/: {loose}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_imports_go_one_way(path):
    me = layer(module_name(path))
    if me is None:
        return
    upward = sorted(m for m in imports(path) if m not in SHARED and (layer(m) or 0) > me)
    assert upward == [], f"{module_name(path)} ({LAYERS[me]}) imports a higher layer: {upward}"


def test_the_check_sees_an_upward_import(tmp_path):
    """The rule can fail: a model module importing a view, relatively, inside a function, or
    as ``from explainer import views`` is caught."""
    root = tmp_path / "explainer"
    for folder in ("model", "views"):
        (root / folder).mkdir(parents=True)
        (root / folder / "__init__.py").write_text("")
    (root / "__init__.py").write_text("")
    (root / "views" / "tiled.py").write_text("")
    bad = root / "model" / "bad.py"
    for text in ("from ..views import tiled\n", "def f():\n    from ..views.tiled import x\n",
                 "from explainer import views\n", "import explainer.views.tiled\n"):
        bad.write_text(text)
        found = imports(bad, root)
        assert any((layer(m) or 0) > layer("explainer.model.bad") for m in found if m not in SHARED), text


def test_the_lesson_loads_without_the_tuning_engine():
    """Importing the lesson's layers and every page (what a notebook does) leaves the tuning engine
    unloaded, and no rung in kernels/ includes its header."""
    import subprocess
    import sys

    code = ("import sys, explainer.model, explainer.gpu, explainer.views, explainer.pages; "
            "from explainer.pages import ladder; ladder.ladder_chart; "
            "print(sorted(m for m in sys.modules if m.startswith('explainer.tuning')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PACKAGE.parent, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
    rungs = sorted((PACKAGE.parent / "kernels").glob("*.cu"))
    includes = {p.name: [line for line in p.read_text().splitlines() if line.startswith("#include")] for p in rungs}
    assert rungs and not [name for name, lines in includes.items() if any("tuned" in line for line in lines)]
