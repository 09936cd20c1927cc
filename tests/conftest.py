"""Shared fixtures. The browser harness: the Voila app served by ``tiled-explainer serve`` on a free
port for the whole session, and a headless Debian Chromium driven by Playwright (sync API).

Browser tests are marked ``@pytest.mark.browser`` and take ``browser_page`` (plus ``page_errors``
to assert that the page raised nothing). Without /usr/bin/chromium they are skipped, except under
CI (env ``CI`` set), where they fail: CI must run them.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
# The flags Chromium needs on a machine with no GPU and a closed network (as root, hence
# --no-sandbox); without the background-networking ones it keeps failing to reach Google's hosts.
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
SERVER_START_TIMEOUT_S = 90


@dataclass
class VoilaServer:
    url: str  # base URL, no trailing slash
    log: Path
    ready_at: float  # time.monotonic() when the server first answered HTTP

    def page_url(self, notebook: str) -> str:
        return f"{self.url}/voila/render/{notebook}"

    def log_tail(self, chars: int = 6000) -> str:
        return self.log.read_text(errors="replace")[-chars:]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM lets serve pass it on to Voila, which shuts its kernels down; then make sure the
    whole process group (serve, Voila, kernels) is gone."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


@contextlib.contextmanager
def serving(cmd: list[str], cwd: Path, log: Path, env: dict | None = None):
    """Run a ``serve`` command (``--port`` in ``cmd``) in its own process group until it answers
    HTTP; yield its :class:`VoilaServer`; stop it and everything it started."""
    port = cmd[cmd.index("--port") + 1]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                env={**(env or os.environ), "PYTHONUNBUFFERED": "1"},
                                start_new_session=True)
    server = VoilaServer(f"http://localhost:{port}", log, ready_at=0.0)
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail(f"`{' '.join(cmd)}` exited with {proc.returncode} before "
                            f"answering. Server log:\n{server.log_tail()}", pytrace=False)
            try:
                with urllib.request.urlopen(server.url + "/", timeout=5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"Voila did not answer on {server.url} within "
                                f"{SERVER_START_TIMEOUT_S} s. Server log:\n{server.log_tail()}",
                                pytrace=False)
                time.sleep(0.2)
        server.ready_at = time.monotonic()
        yield server
    finally:
        _stop(proc)


@pytest.fixture(scope="session")
def voila_server(tmp_path_factory) -> VoilaServer:
    """`tiled-explainer serve --no-browser --port <free port>`, answering HTTP."""
    log = tmp_path_factory.mktemp("voila") / "serve.log"
    cmd = [sys.executable, "-m", "explainer.app.cli", "serve", "--no-browser", "--port", str(_free_port())]
    with serving(cmd, REPO, log) as server:
        yield server


def export_pages(tmp_path_factory, *notebooks: str) -> Path:
    """The static pages of ``notebooks`` only (a whole export takes much longer): the folder
    ``tiled-explainer export`` writes them into."""
    import shutil

    from explainer import resources
    from explainer.app import export

    src = tmp_path_factory.mktemp("nb")
    for name in notebooks:
        shutil.copy(resources.notebooks_dir() / name, src)
    out = tmp_path_factory.mktemp("site")
    export.export(out, notebooks=src, log=lambda *_: None)
    return out


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    if CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK):
        return CHROMIUM
    reason = (f"{CHROMIUM} not found: browser tests need Debian's chromium "
              "(`apt-get install chromium`; `make test` installs it when run as root)")
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the browser tests, but {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium_path), headless=True,
                                     args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page_errors() -> list[str]:
    """Uncaught page exceptions and console errors of ``browser_page``; assert it is empty."""
    return []


def _is_local(url: str) -> bool:
    return urlsplit(url).hostname in ("localhost", "127.0.0.1", "::1") or url.startswith(
        ("data:", "blob:", "about:"))


@pytest.fixture
def browser_page(browser, page_errors):
    """A fresh page (own context) that records its errors into ``page_errors``.

    Requests that leave the machine are refused and recorded in ``page.outside``, so a test
    behaves the same with or without a network (a lecture hall may have none)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    outside: list[str] = []

    def refuse(route):
        outside.append(route.request.url)
        route.abort()

    context.route(lambda url: not _is_local(url), refuse)
    page = context.new_page()
    page.outside = outside  # what the page asked for off the machine (tests assert it is empty)
    page.on("pageerror", lambda exc: page_errors.append(f"pageerror: {exc}"))

    def on_console(msg):
        refused = (msg.text.startswith("Failed to load resource")
                   and not _is_local(msg.location.get("url", "")))
        if msg.type == "error" and not refused:
            page_errors.append(f"console.error: {msg.text} ({msg.location.get('url')})")

    page.on("console", on_console)
    yield page
    context.close()


def pytest_terminal_summary(terminalreporter):
    """Print the timings tests recorded with ``record_property("<what>_s", seconds)``."""
    lines = [f"{name}: {value:.2f} s  ({report.nodeid})"
             for reports in terminalreporter.stats.values() for report in reports
             for name, value in getattr(report, "user_properties", ())
             if getattr(report, "when", None) == "call" and name.endswith("_s")
             and isinstance(value, (int, float))]
    if lines:
        terminalreporter.section("timings")
        for line in lines:
            terminalreporter.write_line(line)


def settle(page, timeout_ms: int = 120_000) -> None:
    """Wait until the page's widgets have finished their start-up traffic: every plotly figure
    drawn (a FigureWidget sends its computed layout back to the kernel once drawn) and a second
    more. Tests that watch the websocket clear their record after this."""
    page.wait_for_function(
        "() => [...document.querySelectorAll('.js-plotly-plot')].every((e) => e._fullLayout)",
        timeout=timeout_ms, polling=100)
    page.wait_for_timeout(1000)


def view_frames(frames: list[str]) -> list[str]:
    """The websocket frames a page sent that are not a plotly FigureWidget reporting its drawn
    layout back to its kernel (``_js2py_*`` state: plotly does that when a figure is resized or
    scrolled into view, whatever our views do)."""
    return [f for f in frames if "_js2py_" not in f]


def _file_context(browser, page_errors, width: int = 1400, height: int = 1000, scale: float = 1):
    """A context of that screen and its page, which may load file:// URLs only; every other request
    is refused and recorded in ``page.outside``; errors go to ``page_errors``."""
    context = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=scale)
    outside: list[str] = []

    def route(r):
        if r.request.url.startswith("file://"):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("pageerror", lambda exc: page_errors.append(f"pageerror: {exc}"))
    page.on("console", lambda m: page_errors.append(f"console.error: {m.text}") if m.type == "error" else None)
    page.outside = outside
    return context, page


@pytest.fixture
def file_page(browser, page_errors):
    """A page that may load file:// URLs only; every other request is refused and recorded."""
    context, page = _file_context(browser, page_errors)
    yield page
    context.close()


@pytest.fixture
def screen_page(browser, page_errors):
    """``screen_page(width, height, scale=1)``: a :func:`file_page` on a screen of that size (a
    projector's, a laptop's), each in its own context."""
    contexts = []

    def open_(width: int, height: int, scale: float = 1):
        context, page = _file_context(browser, page_errors, width, height, scale)
        contexts.append(context)
        return page

    yield open_
    for context in contexts:
        context.close()
