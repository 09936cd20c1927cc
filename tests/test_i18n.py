"""English and 简体中文 (explainer.i18n): the catalogue complete for every string the translated
pages use, Python and JavaScript alike; the glossary's terms the only Chinese words for their
terms; each page's prose in step across the languages (a stale translation is reported); the
language switch of the navigation bar."""

from __future__ import annotations

import ast
import re
import warnings
from pathlib import Path

import pytest

from explainer import i18n, resources
from explainer.i18n import glossary, prose

PACKAGE = Path(i18n.__file__).resolve().parent.parent
ZH = "zh-CN"
#: Every front-end module of the pages (views/*.js): each string it passes to tr() has its Chinese.
FRONT_END = tuple(sorted(p.name for p in (PACKAGE / "views").glob("*.js")))
MARKERS = {"_", "gettext", "N_"}


def _constants(tree: ast.Module) -> dict[str, str]:
    """Module-level ``NAME = "text"`` (an implicit concatenation is one constant)."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    out[t.id] = node.value.value
    return out


def python_msgids(path: Path) -> set[str]:
    """Every msgid ``path`` marks: ``_("...")``, ``gettext("...")``, ``N_("...")``, or one of them
    over a module-level string constant (``_(OFFLINE_NOTE)``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    consts, out = _constants(tree), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MARKERS and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                out.add(arg.value)
            elif isinstance(arg, ast.Name) and arg.id in consts:
                out.add(consts[arg.id])
    return out


def data_msgids() -> set[str]:
    """The tables shown with ``_(text)``: the pages' titles and lines, the course's documents and
    sections, the glossary's notes, the architecture presets' labels."""
    from explainer.pages import PAGES, sources

    out = {t for _, title, what in PAGES for t in (title, what)} | set(sources.DOCUMENTS)
    out |= {t for secs in sources.SECTIONS.values() for pair in secs for t in pair}
    out |= {t.note for t in glossary.GLOSSARY if t.note}
    from explainer.model import hardware  # the architecture presets' labels (data/arches.json)

    out |= {a["label"] for a in hardware.arches().values()}
    return out


def all_msgids() -> dict[str, str]:
    """msgid -> where it is used."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for m in python_msgids(path):
            out.setdefault(m, str(path.relative_to(PACKAGE.parent)))
    for name in FRONT_END:
        for m in i18n.js_msgids(resources.front_end(name)):
            out.setdefault(m, f"explainer/views/{name}")
    for m in data_msgids():
        out.setdefault(m, "a table (pages.PAGES, pages.sources, i18n.glossary)")
    return out


def _po():
    """Every entry of every catalogue file of 简体中文."""
    from babel.messages.pofile import read_po

    out = []
    for path in i18n.po_paths(ZH):
        with open(path, "rb") as f:
            out += [m for m in read_po(f) if m.id]
    return out


def test_each_msgid_is_in_one_catalogue_file():
    from babel.messages.pofile import read_po

    where: dict[str, list[str]] = {}
    for path in i18n.po_paths(ZH):
        with open(path, "rb") as f:
            for m in read_po(f):
                if m.id:
                    where.setdefault(m.id, []).append(path.name)
    twice = {m: files for m, files in where.items() if len(files) > 1}
    assert not twice, f"in more than one .po file: {twice}"


# ---- the catalogue --------------------------------------------------------------------------
def test_every_string_the_pages_use_is_translated():
    cat = i18n.catalogue(ZH)
    missing = {m: where for m, where in all_msgids().items() if not cat.get(m)}
    assert not missing, "no 简体中文 for:\n" + "\n".join(f"  {w}: {m!r}" for m, w in sorted(missing.items(), key=lambda x: x[1]))


def test_the_catalogue_holds_nothing_the_pages_do_not_use():
    used = set(all_msgids())
    unused = sorted(m.id for m in _po() if m.id and m.id not in used)
    assert not unused, f"in explainer.po but used nowhere (English changed?): {unused}"


def test_page_01s_views_are_covered():
    """Every string page 01's views, quiz, exercise and timing panel mark is in the catalogue
    (the check above, named for the modules that draw page 01)."""
    cat = i18n.catalogue(ZH)
    for rel in ("views/naive.py", "views/timing.py", "views/quiz.py", "views/store.py", "views/kernel_exercise.py",
                "pages/navigation.py", "pages/__init__.py", "model/launch.py"):
        ids = python_msgids(PACKAGE / rel)
        assert ids, rel
        assert not [m for m in ids if m not in cat], rel
    for name in ("naive.js", "quiz.js", "yourturn.js", "common.js"):
        ids = i18n.js_msgids(resources.front_end(name))
        assert ids and not [m for m in ids if m not in cat], name


def test_translations_keep_every_field_and_no_other():
    for m in _po():
        if m.id and m.string:
            want, got = set(i18n._FIELD.findall(m.id)), set(i18n._FIELD.findall(m.string))
            # (a translation may leave a field out: the Chinese quotes a document's Chinese, not its English)
            assert got <= want and len(want - got) <= 1, f"{m.id!r}: fields {sorted(want)}, the translation's {sorted(got)}"
            for tag in ("<b>", "<code>", "<i>"):
                assert m.id.count(tag) == m.string.count(tag), (m.id, tag)


def test_the_js_gets_its_strings_from_python():
    for name in FRONT_END:
        text = resources.front_end(name)
        assert not re.search(r"[\u4e00-\u9fff]", re.sub(r"填充零|填充|没有|无", "", text)), \
            f"{name} writes Chinese itself (the words a student may type as an answer excepted)"
    got = i18n.js_strings(("common.js", "quiz.js"), ZH)
    assert got["lang"] == ZH and got["strings"]["Check"] == i18n.catalogue(ZH)["Check"]
    assert i18n.js_strings(("quiz.js",), "en")["strings"] == {}


def test_gettext_follows_the_language_and_fills_fields():
    with i18n.using(ZH):
        assert i18n._("Check") == i18n.catalogue(ZH)["Check"] != "Check"
        text = i18n._("Question set {n} of {total}", n=2, total=8)
        assert "2" in text and "8" in text and "{" not in text
    assert i18n._("Question set {n} of {total}", n=2, total=8) == "Question set 2 of 8"
    assert i18n._("if (x) { y; }", y=1) == "if (x) { y; }"  # a brace that is not a field stays
    with pytest.raises(ValueError):
        i18n.set_language("fr")


def test_the_language_comes_from_the_query_string_without_a_call(monkeypatch):
    """Voila hands the page's query string to its kernel as QUERY_STRING."""
    monkeypatch.setattr(i18n, "_language", None)
    monkeypatch.setenv("QUERY_STRING", "lang=zh-CN&present")
    assert i18n.language() == ZH
    monkeypatch.setenv("QUERY_STRING", "present")
    monkeypatch.delenv("EXPLAINER_LANG", raising=False)
    assert i18n.language() == "en"


def test_a_bad_launch_says_so_in_chinese():
    from explainer.model import Launch, LaunchError

    with i18n.using(ZH):
        with pytest.raises(LaunchError) as e:
            Launch("naive", 8, 8, 8, 4).check_thread(5, 0)
    assert re.search(r"[\u4e00-\u9fff]", str(e.value)) and "threadIdx.x" in str(e.value)


def test_the_quiz_reads_and_checks_in_chinese():
    from explainer.model import questions as Q

    with i18n.using(ZH):
        qs = Q.questions("01_naive", 1)
        for q in qs:
            assert re.search(r"[\u4e00-\u9fff]", q.prompt), q.prompt
            assert q.check("").status == "unreadable" and re.search(r"[\u4e00-\u9fff]", q.check("").message)
        element = next(q for q in qs if q.key == "element")
        if element.answer == [None]:
            assert element.check("无").status == "right"
        else:
            r, c = element.answer[0]
            assert element.check(f"C[{r}][{c}]").status == "right"
            wrong = element.check(f"C[{r + 1}][{c}]")
            assert wrong.status == "wrong" and re.search(r"[\u4e00-\u9fff]", wrong.message)


# ---- the glossary ---------------------------------------------------------------------------
SEEDS = PACKAGE.parent.parent / "shared" / "seeds"
DOC_FILES = {glossary.COURSE_NOTES: "000_", glossary.WALKTHROUGH: "001_", glossary.PMPP: "002_",
             glossary.SLIDING: "003_", glossary.LAB: "004_"}


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the course's source documents are not beside this checkout")
def test_the_glossary_says_which_documents_use_each_word():
    texts = {doc: next(SEEDS.glob(prefix + "*")).read_text(encoding="utf-8") for doc, prefix in DOC_FILES.items()}
    for t in glossary.GLOSSARY:
        using = {doc for doc, text in texts.items() if t.zh in text}
        assert set(t.used_by) == using, f"{t.en} ({t.zh}): the glossary says {sorted(t.used_by)}, the documents {sorted(using)}"


def test_the_required_terms_are_all_there():
    want = {"block": "线程块", "thread": "线程", "grid": "网格", "phase": "阶段", "shared memory": "共享内存",
            "global memory": "全局内存", "barrier": "屏障同步", "coalescing": "合并访问", "bank conflict": "存储体冲突",
            "occupancy": "占用率", "arithmetic intensity": "算术强度", "padding zero": "填充零", "warp": "线程束",
            "register blocking": "寄存器分块", "tensor core": "张量核心"}
    for en, zh in want.items():
        assert glossary.term(en).zh == zh
    assert glossary.term("tile").zh in ("分块", "瓦片") and glossary.term("ghost thread").zh in ("幽灵线程", "越界线程")


def _chinese_texts() -> dict[str, str]:
    """Every Chinese text the pages show: the catalogue's translations and the prose (the glossary
    page's own prose, which names the avoided words on purpose, left out)."""
    out = {f"catalogue: {m.id!r}": m.string for m in _po() if m.id and m.string and m.id not in
           {t.note for t in glossary.GLOSSARY}}
    for page in prose.pages(ZH):
        if page != "glossary":
            out[f"text/zh-CN/{page}.md"] = prose.path(page, ZH).read_text(encoding="utf-8")
    return out


def test_the_chinese_uses_the_glossarys_words_and_not_the_avoided_ones():
    texts = _chinese_texts()
    for t in glossary.GLOSSARY:
        for word in t.rejected:
            bad = [where for where, text in texts.items() if word in text]
            assert not bad, f"{word!r} (the glossary says {t.zh!r} for {t.en!r}) in: {bad}"
    # and the chosen words are the ones used: the page 01 catalogue says 线程块 for "block", 核函数 for "kernel"
    cat = i18n.catalogue(ZH)
    assert "线程块" in cat["block (x={bx}, y={by}), thread (x={tx}, y={ty})"] and cat["kernel"] == "核函数"


# ---- the prose ------------------------------------------------------------------------------
@pytest.mark.parametrize("page", prose.pages(ZH))
def test_each_translated_page_is_in_step_with_the_english(page):
    """A cell or paragraph in one language and not the other fails; a stale translation (the English
    changed since) is reported, not failed: the page shows its notice."""
    assert page in prose.pages("en")
    assert prose.differences(page, ZH) == []
    if prose.stale(page, ZH):
        msg = (f"text/zh-CN/{page}.md translates an older English (python -m explainer.i18n.prose): "
               f"its page says {i18n.catalogue(ZH)[prose.STALE_NOTICE]}")
        print(msg)
        warnings.warn(msg)


def test_a_stale_or_missing_paragraph_is_caught(tmp_path, monkeypatch):
    (tmp_path / "en").mkdir()
    (tmp_path / ZH).mkdir()
    (tmp_path / "en" / "p.md").write_text("# T\n\nOne.\n\nTwo {x}.\n<!-- cell -->\n```python\npages.x()\n```\n", encoding="utf-8")
    monkeypatch.setattr(prose, "TEXT_DIR", tmp_path)
    h = prose.english_hash("p")
    (tmp_path / ZH / "p.md").write_text(f"<!-- translation-of: en/p.md sha256:{h} -->\n# 标题\n\n一。\n<!-- cell -->\n"
                                        "```python\npages.x()\n```\n", encoding="utf-8")
    assert any("paragraphs" in d for d in prose.differences("p", ZH))  # "Two {x}." has no Chinese
    assert not prose.stale("p", ZH)
    (tmp_path / "en" / "p.md").write_text("# T\n\nOne, changed.\n\nTwo {x}.\n<!-- cell -->\n```python\npages.x()\n```\n",
                                          encoding="utf-8")
    assert prose.stale("p", ZH)
    cells = prose.cells("p", ZH)
    assert i18n.catalogue(ZH)[prose.STALE_NOTICE] in cells[0][1] == cells[0][1]
    assert prose.fill("a {x}\n```c\n{y}\n```\nb", {"x": 1}) == "a 1\n```c\n{y}\n```\nb"  # code keeps its braces
    with pytest.raises(KeyError):
        prose.fill("a {x}", {})


def test_the_notebooks_are_built_from_the_prose():
    import importlib.util
    import nbformat

    spec = importlib.util.spec_from_file_location("make_notebooks", PACKAGE.parent / "tools" / "make_notebooks.py")
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    for lang in ("en", ZH):
        for name, cells in make.prose_pages(lang).items():
            nb = nbformat.read(resources.notebooks_dir() / name, as_version=4)
            got = [("md" if c.cell_type == "markdown" else "code", c.source) for c in nb.cells]
            assert got == make.with_nav(name, cells), f"{name}: run tools/make_notebooks.py"
            if lang != "en":
                assert got[0][1].splitlines()[1] == f'i18n.set_language("{lang}")'


# ---- the navigation bar -----------------------------------------------------------------------
def test_the_bar_links_the_other_language_and_the_glossary():
    from explainer.pages import navigation as nav

    en = nav.nav_html("01_naive.ipynb")
    assert 'href="zh-CN/01_naive.ipynb" class="explainer-nav-lang"' in en and 'href="glossary.ipynb"' in en
    with i18n.using(ZH):
        zh = nav.nav_html("01_naive.ipynb")
        assert 'href="../01_naive.ipynb" class="explainer-nav-lang"' in zh
        assert 'href="00_index.ipynb"' in zh and 'href="glossary.ipynb"' in zh
        assert 'href="02_tiled.ipynb"' in zh and i18n.catalogue(ZH)["Contents"] in zh


def test_a_page_not_translated_yet_links_its_english_twin(tmp_path, monkeypatch):
    """In a course folder where page 02 has no Chinese copy (a page added in English first): the
    Chinese bar of page 01 links the English page 02, and page 02's bar names 简体中文 without a link."""
    from explainer.pages import navigation as nav

    (tmp_path / ZH).mkdir()
    for name in ("00_index.ipynb", "01_naive.ipynb", "02_tiled.ipynb"):
        (tmp_path / name).write_text("{}")
    for name in ("00_index.ipynb", "01_naive.ipynb"):
        (tmp_path / ZH / name).write_text("{}")
    monkeypatch.setattr(nav, "NOTEBOOKS_DIR", tmp_path)
    with i18n.using(ZH):
        assert 'href="../02_tiled.ipynb"' in nav.nav_html("01_naive.ipynb")
    en = nav.nav_html("02_tiled.ipynb")
    assert 'class="explainer-nav-lang"' not in en and "简体中文" in en


def test_no_module_translates_when_it_is_imported():
    """A text translated at import keeps the language of whoever imported the module first: a
    module-level ``_()`` (outside a lambda or a function) is refused; mark it ``N_()`` and call
    ``_()`` where it is shown."""
    import ast

    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        todo = [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        while todo:
            node = todo.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue  # run later, in the page's language
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
                    "_", "gettext", "rung_label", "label_text"):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
            todo.extend(ast.iter_child_nodes(node))
    assert found == [], found
