"""The Voila app: `tiled-explainer serve` refuses a busy port; a browser can do no more than the
pages (no kernel started, no file read, no code run on a page's kernel); and in a real browser
the index page renders, shows no code and raises no errors."""

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO

INDEX = Path(__file__).resolve().parent.parent / "notebooks" / "00_index.ipynb"


def _index_title_and_code() -> tuple[str, list[str]]:
    """The index page's first markdown heading, and the first line of each code cell."""
    cells = json.loads(INDEX.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells]
    title = next(line[2:].strip() for cell, src in zip(cells, sources)
                 if cell["cell_type"] == "markdown" for line in src.splitlines()
                 if line.startswith("# "))
    code = [src.strip().splitlines()[0] for cell, src in zip(cells, sources)
            if cell["cell_type"] == "code" and src.strip()]
    return title, code


def test_serve_refuses_a_busy_port():
    with socket.socket() as busy:
        busy.bind(("localhost", 0))
        busy.listen()
        port = busy.getsockname()[1]
        run = subprocess.run([sys.executable, "-m", "explainer.app.cli", "serve", "--no-browser",
                              "--port", str(port)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and f"port {port} is already in use" in run.stderr


def test_serve_lets_a_browser_run_nothing_but_the_pages(voila_server):
    """Voila on its own (what `serve` runs; a lecture laptop on the class network) has no route
    that starts a kernel or lists files, and a page's kernel channel drops code sent on any of
    its channels: the kernel-info handshake gets its reply, the execute requests nothing, and
    the server's log names each refusal."""
    import tempfile
    import urllib.error
    import urllib.request

    from kernel_channel import REFUSED, code_on_every_channel, exchange, page_kernel

    for method, path in (("POST", "/api/kernels"), ("GET", "/api/kernels"), ("GET", "/api/contents"),
                         ("POST", "/api/sessions"), ("GET", "/files/02_tiled.ipynb")):
        req = urllib.request.Request(voila_server.url + path, method=method, data=b"{}" if method == "POST" else None)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(req, timeout=30)
        assert refused.value.code in (403, 404, 405), (method, path, refused.value.code)
    with urllib.request.urlopen(voila_server.page_url("02_tiled.ipynb"), timeout=120) as r:
        kernel = page_kernel(r.read().decode())
    marker = Path(tempfile.gettempdir()) / f"explainer-attack-{kernel}"
    before = voila_server.log.read_text(errors="replace").count(REFUSED)
    got = exchange(f"ws{voila_server.url[4:]}/api/kernels/{kernel}/channels", code_on_every_channel(str(marker)))
    kinds = [k for _, k, _ in got]
    assert "kernel_info_reply" in kinds and "execute_reply" not in kinds and "stream" not in kinds, kinds
    assert not marker.exists()
    assert voila_server.log.read_text(errors="replace").count(REFUSED) - before == 3


@pytest.mark.browser
def test_index_page_renders_without_code(voila_server, browser_page, page_errors,
                                         record_property):
    title, code_lines = _index_title_and_code()
    page = browser_page
    requested = time.monotonic()
    page.goto(voila_server.page_url("00_index.ipynb"))
    try:
        page.get_by_role("heading", name=title).wait_for(state="visible", timeout=60_000)
        # The code cell's result appears once the kernel has run the page.
        page.locator(".jp-CodeCell .jp-OutputArea-output").first.wait_for(timeout=60_000)
    except Exception as e:
        raise AssertionError(f"index page did not render: {e}\n"
                             f"Server log:\n{voila_server.log_tail()}") from None
    visible = time.monotonic()
    record_property("index_render_after_request_s", visible - requested)
    record_property("index_render_after_server_up_s", visible - voila_server.ready_at)

    text = page.locator("body").inner_text()
    assert "There was an error when executing cell" not in text, text
    # strip_sources: code cells keep their outputs but lose their input areas.
    assert page.locator(".jp-CodeCell").count() >= 1
    assert page.locator(".jp-CodeCell .jp-InputArea").count() == 0
    for line in code_lines:
        assert line not in text, f"code is shown: {line!r}"
    assert page_errors == []


@pytest.mark.browser
@pytest.mark.parametrize("notebook", sorted(p.name for p in (REPO / "notebooks").glob("*.ipynb")))
def test_no_page_asks_for_anything_off_the_machine(voila_server, browser_page, page_errors, notebook):
    """Every live page renders with every request off the machine refused, and makes none:
    Voila's lab template links Font Awesome from a CDN, which serve's own template drops (the
    icons come from Voila's bundle); plotly, the widgets and the views are all served locally."""
    page = browser_page
    page.goto(voila_server.page_url(notebook))
    try:
        page.locator(".jp-CodeCell .jp-OutputArea-output").first.wait_for(timeout=120_000)
        page.wait_for_function("() => [...document.querySelectorAll('.js-plotly-plot')].every((e) => e._fullLayout)",
                               timeout=120_000)
    except Exception as e:
        raise AssertionError(f"{notebook} did not render: {e}\nServer log:\n{voila_server.log_tail()}") from None
    page.wait_for_timeout(500)
    assert page.outside == [], page.outside
    assert page_errors == []


@pytest.mark.browser
def test_live_nav_goes_next_and_to_the_contents(voila_server, browser_page, page_errors):
    """The live pages' bar (their first and last cells) links live page to live page."""
    nav = "nav.explainer-nav"
    page = browser_page
    page.goto(voila_server.page_url("01_naive.ipynb"))
    try:
        page.locator(f"{nav} a.explainer-nav-next").first.wait_for(timeout=120_000)
    except Exception as e:
        raise AssertionError(f"01_naive.ipynb shows no nav bar: {e}\nServer log:\n{voila_server.log_tail()}") from None
    assert page.locator(nav).count() == 2  # top and bottom
    assert page.locator(f"{nav} a.explainer-nav-prev").first.get_attribute("href") == "00_index.ipynb"
    page.locator(f"{nav} a.explainer-nav-next").first.click()  # the top bar
    page.wait_for_url(voila_server.page_url("02_tiled.ipynb"), timeout=60_000)
    here = page.locator(f"{nav} .explainer-nav-here").first
    here.wait_for(timeout=120_000)
    assert here.inner_text().startswith("Page 2 of ")
    page.locator(f"{nav} a.explainer-nav-contents").last.click()  # the bottom bar
    page.wait_for_url(voila_server.page_url("00_index.ipynb"), timeout=60_000)
    page.locator(f"{nav} a.explainer-nav-next").first.wait_for(timeout=120_000)
    assert page.locator(f"{nav} a.explainer-nav-prev").count() == 0
    assert page.outside == [], page.outside
    assert page_errors == []  # leaving a page shut its kernel down: no 403 from /voila/api/shutdown
    assert "403 POST" not in voila_server.log_tail()
