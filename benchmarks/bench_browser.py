"""The tiled page in a real browser: how long a student waits.

    python benchmarks/bench_browser.py [--runs 3] [--clicks 30]

Starts ``tiled-explainer serve --no-browser`` on a free port (as tests/conftest.py does) and
drives Debian's headless Chromium with Playwright. Prints:

(a) first render of ``02_tiled``: a fresh server answers HTTP -> the stepper's figures are drawn
    (median of ``--runs`` fresh servers; also request -> figures, and a second tab on a warm
    server, which gets Voila's preheated kernel);
(b) Next -> the As/Bs view updated in the browser: ``--clicks`` clicks, median and p90, for the
    default 1024^3 T=16 launch and for the 64^3 T=16 preset. Each click is timed in the page
    with performance.now(): from the button's click() to the moment the shared-memory plotly
    div's As or Bs data differs (a MutationObserver on the div plus a 1 ms poll, whichever
    sees it first).

Targets (issue 4): first render < 5 s; Next -> As updated, median < 150 ms.
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
TARGET_RENDER_S = 5.0
TARGET_NEXT_MS = 150.0

JS_FIGURES_READY = """() => {
  const els = document.querySelectorAll('.explainer-stepper .js-plotly-plot');
  if (els.length < 2) return false;
  const names = (el) => (el.data || []).map((d) => d.name).join(',');
  return names(els[0]) === 'A,B,C' && names(els[1]) === 'As,Bs,threads'
    && els[1].data[0].z && els[1].data[0].z.length > 1 && !!els[1]._fullLayout;
}"""

# Click Next and resolve with the ms until As or Bs (traces 0, 1 of the shared figure) changed.
JS_CLICK_NEXT_TIMED = """(timeoutMs) => new Promise((resolve) => {
  const el = document.querySelectorAll('.explainer-stepper .js-plotly-plot')[1];
  const btn = document.querySelector('.explainer-stepper .explainer-next');
  const sig = () => JSON.stringify([0, 1].map((i) => {
    const d = el.data[i];
    const plain = (a) => (a == null ? null : Array.from(a, (r) => (r && typeof r === 'object' ? Array.from(r) : r)));
    return [plain(d.z), plain(d.text), plain(d.customdata)];
  }));
  const before = sig();
  let done = false, obs = null, timer = null, poll = null;
  const finish = (ms) => {
    if (done) return;
    done = true;
    obs.disconnect(); clearInterval(poll); clearTimeout(timer);
    resolve(ms);
  };
  const check = () => { if (!done && sig() !== before) finish(performance.now() - t0); };
  obs = new MutationObserver(check);
  obs.observe(el, {subtree: true, childList: true, attributes: true});
  poll = setInterval(check, 1);
  timer = setTimeout(() => finish(null), timeoutMs);
  const t0 = performance.now();
  btn.click();
})"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``python -m explainer.cli serve --no-browser --port <free>`` in its own process group."""

    def __init__(self):
        self.port = free_port()
        self.url = f"http://localhost:{self.port}"
        self.log = Path(tempfile.mkstemp(prefix="bench_browser_", suffix=".log")[1])
        cmd = [sys.executable, "-m", "explainer.cli", "serve", "--no-browser", "--port", str(self.port)]
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


def new_page(browser, errors: list[str]):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    local = ("localhost", "127.0.0.1")
    ctx.route(lambda url: not any(f"//{h}" in url for h in local) and not url.startswith(("data:", "blob:")),
              lambda route: route.abort())
    page = ctx.new_page()
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    return ctx, page


def open_and_wait(page, server: Server) -> float:
    """Open the tiled page; return seconds from the request until its figures are drawn."""
    t = time.monotonic()
    page.goto(f"{server.url}/voila/render/{PAGE}")
    page.wait_for_function(JS_FIGURES_READY, timeout=180_000, polling=20)
    return time.monotonic() - t


def step_of(page) -> int:
    import re

    text = page.locator(".explainer-step-label").inner_text()
    return int(re.search(r"step (\d+) of", text).group(1))


def time_clicks(page, clicks: int) -> list[float]:
    """Click Next ``clicks`` times; per click the ms until As/Bs changed in the browser. Before
    the next click, wait until the label shows the new step (the whole update has landed)."""
    times = []
    for _ in range(clicks):
        n = step_of(page)
        ms = page.evaluate(JS_CLICK_NEXT_TIMED, 30_000)
        if ms is None:
            raise SystemExit(f"Next at step {n}: As/Bs did not change within 30 s")
        page.locator(".explainer-step-label").filter(has_text=f"step {n + 1} of").wait_for(timeout=30_000)
        times.append(ms)
        page.wait_for_timeout(30)
    return times


def select_preset(page, prefix: str) -> None:
    value = page.evaluate("""(prefix) => {
      const opt = [...document.querySelectorAll('.explainer-stepper select option')]
        .find((o) => o.textContent.replace(/\\u00a0/g, ' ').startsWith(prefix));
      return opt ? opt.value : null;
    }""", prefix)
    if value is None:
        raise SystemExit(f"no preset starting with {prefix!r}")
    page.locator(".explainer-stepper select").first.select_option(value=value)
    page.locator(".explainer-step-label").filter(has_text="phase 1 of 4").wait_for(timeout=60_000)
    page.wait_for_function(
        "() => document.querySelectorAll('.explainer-stepper .js-plotly-plot')[1].data[0].z.length === 16",
        timeout=60_000)
    page.wait_for_timeout(300)


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def device_line(browser) -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"device: {cpu}, {os.cpu_count()} CPUs, no GPU used; Chromium {browser.version} "
            f"(headless); Python {platform.python_version()}; "
            f"date {dt.datetime.now().astimezone().isoformat(timespec='seconds')}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="fresh servers for the first render (3)")
    ap.add_argument("--clicks", type=int, default=30, help="Next clicks per launch (30)")
    args = ap.parse_args()
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"{CHROMIUM} not found (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        print(device_line(browser), flush=True)

        # (a) first render on a fresh server, then a second tab on the same (warm) server.
        up_to_fig, req_to_fig, warm = [], [], []
        server = None
        for run in range(args.runs):
            if server:
                server.stop()
            server = Server()
            ctx, page = new_page(browser, errors)
            req = open_and_wait(page, server)
            total = time.monotonic() - server.ready_at
            up_to_fig.append(total)
            req_to_fig.append(req)
            ctx.close()
            time.sleep(15)  # let Voila refill its preheated pool
            ctx, page = new_page(browser, errors)
            warm.append(open_and_wait(page, server))
            ctx.close()
            print(f"  run {run + 1}: server up -> figures {total:.2f} s (request -> figures {req:.2f} s); "
                  f"second tab, warm server: {warm[-1]:.2f} s", flush=True)
        first = statistics.median(up_to_fig)
        print(f"(a) first render of {PAGE}, server up -> stepper figures: median {first:.2f} s "
              f"of {args.runs} (request -> figures median {statistics.median(req_to_fig):.2f} s; "
              f"a later tab on the warm server: median {statistics.median(warm):.2f} s)", flush=True)

        # (b) Next -> As/Bs updated, on the server left from (a).
        time.sleep(10)
        results = {}
        ctx, page = new_page(browser, errors)
        open_and_wait(page, server)
        page.wait_for_timeout(500)
        results["1024³, T=16 (default)"] = time_clicks(page, args.clicks)
        select_preset(page, PRESET_64)
        results["64³, T=16 (preset)"] = time_clicks(page, args.clicks)
        ctx.close()
        server.stop()
        browser.close()

    medians = {}
    for name, ms in results.items():
        medians[name] = statistics.median(ms)
        print(f"(b) Next -> As/Bs updated in the browser, {name}: median {medians[name]:.1f} ms, "
              f"p90 {pct(ms, 0.9):.1f} ms, min {min(ms):.1f}, max {max(ms):.1f} ({len(ms)} clicks)")
    ok_render = first < TARGET_RENDER_S
    ok_next = all(m < TARGET_NEXT_MS for m in medians.values())
    print(f"target first render < {TARGET_RENDER_S:.0f} s: {'MET' if ok_render else 'NOT MET'} ({first:.2f} s)")
    print(f"target Next -> As updated median < {TARGET_NEXT_MS:.0f} ms: {'MET' if ok_next else 'NOT MET'} "
          f"({', '.join(f'{k}: {v:.1f} ms' for k, v in medians.items())})")
    if errors:
        print(f"page errors ({len(errors)}):")
        for e in errors:
            print("  " + e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
