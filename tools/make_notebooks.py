"""Write notebooks/*.ipynb from the text below: no outputs, no widget state (run once after
editing; the notebooks are the product, this script only keeps them clean and consistent).
Every page, written here or by hand, opens and ends with its navigation bar (:func:`with_nav`)."""

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

OUT = Path(__file__).resolve().parent.parent / "notebooks"
#: The pages whose prose is a text file per language (explainer/i18n/prose.py): the translated ones.
PROSE_LANGS = ("zh-CN",)

PAGES = {
    # 00_index, 01_naive and the glossary: from their prose files, explainer/text/<lang>/*.md (prose_pages)
}


def tool_modules() -> list:
    """Every ``tools/nb_*.py``, loaded (each may define ``PAGES``, written here as they are, and
    ``FIELDS``, computed values its pages' prose files name)."""
    import importlib.util

    mods = []
    for path in sorted(Path(__file__).resolve().parent.glob("nb_*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        mods.append(mod)
    return mods


def prose_fields() -> dict:
    """The computed values the prose files name (``{naive_fpb}``): from the model, never typed;
    those of later pages from the ``FIELDS`` of their ``tools/nb_*.py`` (a name defined twice is an
    error)."""
    from explainer.model import Launch
    from explainer.model.launch import FLOAT_BYTES

    naive = Launch("naive", 1024, 1024, 1024, 16).stats()
    out = {"fma_bytes": 2 * FLOAT_BYTES, "naive_fpb": f"{naive['flop_per_byte']:g}"}
    for mod in tool_modules():
        extra = getattr(mod, "FIELDS", {})
        twice = set(extra) & set(out)
        if twice:
            raise ValueError(f"{mod.__name__}: fields defined twice: {sorted(twice)}")
        out.update(extra)
    return out


def prose_pages(lang: str = "en") -> dict:
    """``{notebook: cells}`` of the pages written as prose files in ``lang`` (explainer/text/<lang>/);
    the translations under ``zh-CN/``."""
    from explainer import i18n
    from explainer.i18n import prose

    sub = i18n.FOLDERS[lang]
    return {(f"{sub}/" if sub else "") + f"{page}.ipynb": prose.cells(page, lang, prose_fields())
            for page in prose.pages(lang)}


def all_pages() -> dict:
    """This file's pages plus those of every ``tools/nb_*.py`` (each defines ``PAGES``), plus the
    prose pages (English; their translations: :func:`prose_pages`)."""
    pages = {**PAGES, **prose_pages("en")}
    for mod in tool_modules():
        pages.update(getattr(mod, "PAGES", {}))
    return pages


NAV_TOP = 'from explainer import pages\npages.nav("{name}")'
NAV_BOTTOM = 'pages.nav("{name}")'
#: A translated page's first cell sets its language (nbval runs it too), then shows the bar.
NAV_TOP_LANG = 'from explainer import i18n, pages\ni18n.set_language("{lang}")\npages.nav("{name}")'


def with_nav(name: str, cells: list) -> list:
    """A page's cells between its two navigation bars (contents / previous / next,
    :func:`explainer.pages.nav`): the first cell and the last. Nav cells already there are
    replaced, so running this twice changes nothing. ``name`` under a language's folder
    (``zh-CN/01_naive.ipynb``): its first cell sets that language."""
    lang, _, base = name.rpartition("/")
    top = NAV_TOP_LANG.format(lang=lang, name=base) if lang else NAV_TOP.format(name=name)
    nav = {top, NAV_BOTTOM.format(name=base)}
    body = [(kind, src) for kind, src in cells if not (kind == "code" and src in nav)]
    return [("code", top), *body, ("code", NAV_BOTTOM.format(name=base))]


def _write(name: str, cells: list, metadata: dict) -> None:
    nb = new_notebook(
        cells=[new_markdown_cell(src) if kind == "md" else new_code_cell(src) for kind, src in with_nav(name, cells)],
        metadata=metadata,
    )
    for i, c in enumerate(nb.cells):  # stable ids: re-running gives the same file
        c["id"] = f"{Path(name).stem}-{i}"
    (OUT / name).parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, OUT / name)
    print("wrote", OUT / name)


def main():
    OUT.mkdir(exist_ok=True)
    pages = all_pages()
    for lang in PROSE_LANGS:
        pages.update(prose_pages(lang))
    for name, cells in pages.items():
        _write(name, cells, {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        })
    # Pages written by hand (not in PAGES here) get their navigation bars too; their other cells
    # stay as they are, without outputs.
    for path in sorted(OUT.glob("[0-9][0-9]_*.ipynb")):
        if path.name not in pages:
            nb = nbformat.read(path, as_version=4)
            cells = [("md" if c.cell_type == "markdown" else "code", c.source) for c in nb.cells
                     if c.cell_type in ("markdown", "code")]
            _write(path.name, cells, dict(nb.metadata))


if __name__ == "__main__":
    main()
