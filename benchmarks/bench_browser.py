"""The tiled page in a real browser: how long a student waits, and how fast a step is drawn.

    python benchmarks/bench_browser.py [--runs 3] [--keys 120]

Starts ``tiled-explainer serve --no-browser`` on a free port (as tests/conftest.py does) and
drives Debian's headless Chromium with Playwright, every request off the machine refused. Prints:

(a) first render of ``02_tiled``: request -> the stepper's label drawn (``--runs`` fresh servers);
(b) -> key and Next -> the new step drawn, for the launch the page opens on (8^3, T=4), the 1024^3
    T=16 walk-through and the 64^3 preset:
    ``--keys`` presses each, median and p90. Timed in the page: from the key event's timestamp
    to the first animation frame after the view has changed the label (the frame that paints
    it), so the figure includes the browser's own event dispatch and the paint; then the same
    for PageDown (what a presentation clicker sends) in presenter mode (Present: the figures
    scaled to a 1920x1080 viewport, the code panel beside them), row ``present``;
(c) Play at 30 steps/s (33 ms / step): which steps were on screen in some frame, and how many
    were never shown;
(d) the websocket: messages the page sent to its kernel while stepping (should be none);
(f) the live page's cost to load: bytes it received over its websocket (the widgets' state)
    until the stepper is drawn and its plotly figures are up, and the HTTP bytes it fetched;
(e) the same page exported (``tiled-explainer export``) and opened from ``file://`` with every
    other request refused: open -> stepper drawn (``--runs`` fresh browser contexts), then (b)
    and (c) again, the requests refused and the page errors; then the export's size per language
    and every page of both languages (English and ``zh-CN/``) opened, each view drawn.

Targets (issue 11): key or Next -> drawn, median <= 16 ms and p90 <= 33 ms, in the app and in an
exported page; Play at 30 steps/s shows every step; an exported page opens from ``file://`` in
<= 3 s, steps, and logs no error.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [  # the same flags as tests/conftest.py
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
PAGE = "02_tiled.ipynb"
PRESET_64 = "64³, T=16"
TARGET_MEDIAN_MS, TARGET_P90_MS = 16.0, 33.0
LABEL = ".explainer-stepper .explainer-step-label"

# Install once per page: a capture listener notes each key / click's event timestamp; a
# MutationObserver on the label notes when the view changed it; the next animation frame after
# that (plus a task, so the frame's paint is done) closes the measurement.
JS_INSTALL = """() => {
  const w = window;
  if (w.__lat) return;
  w.__lat = {t0: null, times: [], frames: []};
  const label = document.querySelector('%s');
  const start = (e) => { w.__lat.t0 = e.timeStamp; };
  document.addEventListener('keydown', start, true);
  document.addEventListener('click', start, true);
  new MutationObserver(() => {
    const t0 = w.__lat.t0;
    if (t0 == null) return;
    w.__lat.t0 = null;
    requestAnimationFrame(() => setTimeout(() => w.__lat.times.push(performance.now() - t0), 0));
  }).observe(label, {subtree: true, childList: true, characterData: true});
}""" % LABEL

# Record the step number on screen at every animation frame while Play runs.
JS_WATCH_FRAMES = """() => {
  const w = window;
  w.__lat.frames = [];
  const label = document.querySelector('%s');
  const loop = () => {
    const m = /step (\\d+) of/.exec(label.textContent);
    if (m) w.__lat.frames.push(Number(m[1]));
    if (w.__lat.watch) requestAnimationFrame(loop);
  };
  w.__lat.watch = true;
  requestAnimationFrame(loop);
}""" % LABEL


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``python -m explainer.app.cli serve --no-browser --port <free>`` in its own process group."""

    def __init__(self):
        self.port = free_port()
        self.url = f"http://localhost:{self.port}"
        self.log = Path(tempfile.mkstemp(prefix="bench_browser_", suffix=".log")[1])
        cmd = [sys.executable, "-m", "explainer.app.cli", "serve", "--no-browser", "--port", str(self.port)]
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(cmd, cwd=REPO, stdout=out, stderr=subprocess.STDOUT,
                                         env={**os.environ, "PYTHONUNBUFFERED": "1"},
                                         start_new_session=True)
        deadline = time.monotonic() + 90
        while True:
            if self.proc.poll() is not None:
                raise SystemExit(f"serve exited with {self.proc.returncode}:\n{self.log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit(f"serve did not answer within 90 s:\n{self.log.read_text()[-3000:]}")
                time.sleep(0.05)
        self.ready_at = time.monotonic()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        self.log.unlink(missing_ok=True)


def new_page(browser, errors: list[str], frames: list[str] | None = None, files_only: bool = False,
             refused: list[str] | None = None):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    local = ("localhost", "127.0.0.1")

    def outside(url):
        if files_only:
            return not url.startswith("file:")
        return not any(f"//{h}" in url for h in local) and not url.startswith(("data:", "blob:", "file:"))

    def refuse(route):
        if refused is not None:
            refused.append(route.request.url)
        route.abort()

    ctx.route(outside, refuse)
    page = ctx.new_page()
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    page.on("console", lambda m: errors.append(f"console.error: {m.text}") if m.type == "error" and files_only else None)
    if frames is not None:
        page.on("websocket", lambda ws: ws.on("framesent", lambda payload: frames.append(str(payload)[:120])))
    return ctx, page


def open_and_wait(page, url: str) -> float:
    t = time.monotonic()
    page.goto(url)
    page.locator(LABEL).filter(has_text="step 1 of").wait_for(timeout=180_000)
    return time.monotonic() - t


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def measure_steps(page, n: int, how: str) -> list[float]:
    """``n`` steps by the -> key, the Next button or PageDown in presenter mode (``how``: "key",
    "next", "present"); the in-page latency of each, ms."""
    page.evaluate(JS_INSTALL)
    page.evaluate("() => { window.__lat.times = []; }")
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    nxt = page.locator(".explainer-stepper .explainer-next")
    if how == "present":  # on a 1920x1080 screen
        size = page.viewport_size
        page.set_viewport_size({"width": 1920, "height": 1080})
        page.locator(".explainer-stepper .explainer-present").click()
        page.wait_for_timeout(300)
        page.evaluate("() => { window.__lat.times = []; window.__lat.t0 = null; }")  # not the click's redraw
    for _ in range(n):
        if how == "key":
            page.keyboard.press("ArrowRight")
        elif how == "present":
            page.keyboard.press("PageDown")
        else:
            nxt.click()
        page.wait_for_timeout(30)  # one step at a time, like a lecturer
    page.wait_for_timeout(200)
    times = page.evaluate("() => window.__lat.times")
    if how == "present":
        page.keyboard.press("Escape")
        page.set_viewport_size(size)
        page.wait_for_timeout(200)
    return times


def measure_play(page, steps: int = 90) -> dict:
    page.locator(".explainer-stepper .explainer-first").click()
    page.evaluate("""() => { const s = document.querySelector('.explainer-stepper .explainer-speed');
                              s.value = '33'; s.dispatchEvent(new Event('input')); }""")
    page.evaluate(JS_WATCH_FRAMES)
    page.locator(".explainer-stepper .explainer-play").click()
    page.wait_for_timeout(int(steps * 33 + 300))
    page.locator(".explainer-stepper .explainer-play").click()
    seen = page.evaluate("() => { window.__lat.watch = false; return window.__lat.frames; }")
    shown = sorted(set(seen))
    lo, hi = shown[0], shown[-1]
    missing = [s for s in range(lo, hi + 1) if s not in set(shown)]
    return {"first": lo, "last": hi, "steps_shown": len(shown), "never_shown": missing}


#: (row name, the preset menu's entry that starts with, a label text that says it is drawn); None:
#: the launch the page opens on.
LAUNCHES = (("opening 8^3 T=4", None, None),
            ("walk-through 1024^3 T=16", "the gemm_tiled walk-through", "phase t = 0 of 0..63"),
            (PRESET_64, "64", "block (x=1, y=2)"))


def measure_stepping(page, keys: int, where: str, frames: list[str] | None = None) -> None:
    """(b) and (c) on an open tiled page: the launch it opens on, the 1024^3 walk-through, the 64^3 preset."""
    for launch, entry, drawn in LAUNCHES:
        if entry is not None:
            sel = page.locator(".explainer-stepper select.explainer-preset")
            sel.select_option(next(o for o in sel.locator("option").all_inner_texts() if o.startswith(entry)))
            page.locator(LABEL).filter(has_text=drawn).wait_for(timeout=60_000)
            if frames is not None:
                frames.clear()
        for how in ("key", "next", "present"):
            t = measure_steps(page, keys, how)
            ok = statistics.median(t) <= TARGET_MEDIAN_MS and pct(t, 0.9) <= TARGET_P90_MS
            print(f"{where:8s} {launch:26s} {how:7s} -> drawn: median {statistics.median(t):5.1f} ms, "
                  f"p90 {pct(t, 0.9):5.1f} ms, max {max(t):5.1f} ms over {len(t)} steps "
                  f"{'(target met)' if ok else '(TARGET MISSED)'}")
    play = measure_play(page)
    print(f"{where:8s} Play at 33 ms/step: steps {play['first']}..{play['last']} shown, "
          f"{len(play['never_shown'])} never on screen {play['never_shown'][:10]}")


def bench_exported(browser, runs: int, keys: int) -> None:
    """(e): the exported page from file://, nothing else reachable."""
    with tempfile.TemporaryDirectory(prefix="bench_export_") as tmp:
        t = time.monotonic()
        r = subprocess.run([sys.executable, "-m", "explainer.app.cli", "export", tmp], cwd=REPO,
                           capture_output=True, text=True)
        if r.returncode:
            raise SystemExit(f"export failed:\n{r.stderr}")
        url = (Path(tmp) / "02_tiled.html").as_uri()
        size = (Path(tmp) / "02_tiled.html").stat().st_size
        print(f"export: {time.monotonic() - t:.1f} s; 02_tiled.html {size / 1e6:.2f} MB "
              f"(+ {', '.join(f'assets/{p.name} {p.stat().st_size / 1e6:.2f} MB' for p in sorted((Path(tmp) / 'assets').glob('*.js')))})")
        opens, errors, refused = [], [], []
        for run in range(runs):
            ctx, page = new_page(browser, errors, files_only=True, refused=refused)
            opens.append(open_and_wait(page, url))
            if run == runs - 1:
                page.evaluate("() => document.activeElement && document.activeElement.blur()")
                measure_stepping(page, keys, "exported")
            ctx.close()
        ok = statistics.median(opens) <= 3.0 and max(opens) <= 3.0
        print(f"exported 02_tiled.html from file:// -> stepper drawn, {runs} fresh contexts: median "
              f"{statistics.median(opens):.2f} s, runs {[round(o, 2) for o in opens]} "
              f"{'(target met)' if ok else '(TARGET MISSED)'}")
        print(f"exported: requests refused {len(refused)} {refused[:3]}; page errors {len(errors)} {errors[:3]}")
        # The export's size: each language's pages, and the assets both share.
        root = Path(tmp)
        for lang, pages in (("English", sorted(root.glob("*.html"))), ("简体中文", sorted(root.glob("zh-CN/*.html")))):
            print(f"export size, {lang}: {len(pages)} pages, {sum(p.stat().st_size for p in pages) / 1e6:.2f} MB")
        assets = [p for p in (root / "assets").rglob("*") if p.is_file()]
        total = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
        print(f"export size, shared assets: {sum(p.stat().st_size for p in assets) / 1e6:.2f} MB; the whole export "
              f"{total / 1e6:.2f} MB")
        # Every page, in each language: open -> every browser view drawn and every plotly chart up.
        for html in sorted(root.glob("*.html")) + sorted(root.glob("zh-CN/*.html")):
            ctx, page = new_page(browser, errors, files_only=True, refused=refused)
            t0 = time.monotonic()
            page.goto(html.as_uri())
            page.wait_for_function(
                "() => [...document.querySelectorAll('[data-explainer-view]')].every((v) => v.querySelector('canvas, table, .explainer-step-label, .explainer-quiz-set')) "
                "&& [...document.querySelectorAll('.js-plotly-plot')].every((e) => e._fullLayout)", timeout=60_000)
            took = time.monotonic() - t0
            views = page.evaluate("() => [...document.querySelectorAll('[data-explainer-view]')].map((v) => v.dataset.explainerView)")
            print(f"exported {str(html.relative_to(root)):<46} {html.stat().st_size / 1e6:5.2f} MB  opens in {took:.2f} s  "
                  f"{'(target met)' if took <= 3.0 else '(TARGET MISSED)'}  views {views}")
            ctx.close()
        print(f"exported, all pages: requests refused {len(refused)}; page errors {len(errors)} {errors[:3]}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="fresh servers for the first render")
    ap.add_argument("--keys", type=int, default=120, help="steps timed per launch and input")
    ap.add_argument("--only", choices=("app", "exported"), help="measure one of the two only")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    print(f"# bench_browser {dt.datetime.now().isoformat(timespec='seconds')} · {platform.node()} · "
          f"{os.cpu_count()} cores · Python {platform.python_version()}")
    renders = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        print(f"# Chromium {browser.version}")
        if args.only != "app":
            bench_exported(browser, args.runs, args.keys)
        for run in range(args.runs if args.only != "exported" else 0):
            server = Server()
            try:
                errors, frames, received, fetched = [], [], [], []
                ctx, page = new_page(browser, errors, frames)
                page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: received.append(len(payload))))
                page.on("requestfinished", lambda r: fetched.append((r.url, (r.sizes() or {}).get("responseBodySize", 0))))
                renders.append(open_and_wait(page, f"{server.url}/voila/render/{PAGE}"))
                page.wait_for_function("() => [...document.querySelectorAll('.js-plotly-plot')].some((e) => e._fullLayout)",
                                       timeout=120_000)
                page.wait_for_timeout(1000)
                big = sorted(fetched, key=lambda f: -f[1])[:3]
                print(f"live page load, run {run + 1}: websocket received {sum(received) / 1e6:.2f} MB in "
                      f"{len(received)} messages; HTTP fetched {sum(b for _, b in fetched) / 1e6:.2f} MB "
                      f"(largest: {', '.join(f'{u.rsplit(chr(47), 1)[-1][:40]} {b / 1e6:.2f} MB' for u, b in big)})")
                if run == args.runs - 1:
                    page.wait_for_timeout(1000)
                    frames.clear()
                    measure_stepping(page, args.keys, "app", frames)
                    print(f"messages to the kernel while stepping: {len(frames)}")
                    if errors:
                        print("page errors:", errors[:5])
                ctx.close()
            finally:
                server.stop()
        browser.close()
    if renders:
        print(f"first render of {PAGE} (request -> stepper drawn), {len(renders)} fresh servers: "
              f"median {statistics.median(renders):.2f} s, runs {[round(r, 2) for r in renders]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
