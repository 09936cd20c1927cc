"""How many students one machine's hub serves: N students log in to `tiled-explainer hub` and
open page 02 in Chromium, all at once and staggered; per student the seconds from the login
form to page 02's stepper, and the memory of their server and kernels; the hub's and the
proxy's own memory.

    python benchmarks/bench_hub.py                      # 30 students, at once then staggered over 60 s
    python benchmarks/bench_hub.py --students 10 --modes at-once --out benchmarks/results/

Real parts: the shipped hub config (only the authenticator is JupyterHub's dummy one, for N
made-up students), configurable-http-proxy, one Jupyter server with Voila per student, and one
headless Chromium with a browser context (its own cookies) per student. The browsers run on the
same machine as the hub, so their CPU is part of what is measured.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_serve_load import rss_mb  # noqa: E402  (one RSS reader for the benchmarks)
PASSWORD = "bench-class-password"
PAGE = "02_tiled.ipynb"
LABEL = ".explainer-stepper .explainer-step-label"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def processes() -> list[tuple[int, str, str]]:
    """(pid, cwd, command line) of every process we can see."""
    out = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            out.append((int(p.name), os.readlink(p / "cwd"), (p / "cmdline").read_text().replace("\0", " ")))
        except OSError:
            continue
    return out


def memory(state: Path, users: list[str]) -> dict:
    """MB per student (their server and kernels: the processes working in their folder), and the
    hub's, the proxy's and the idle culler's own."""
    procs = processes()
    per = {u: sum(rss_mb(pid) for pid, cwd, _ in procs if cwd == str(state / "users" / u)) for u in users}
    hub = sum(rss_mb(pid) for pid, cwd, cmd in procs if cwd == str(state) and "-m jupyterhub -f" in cmd)
    proxy = sum(rss_mb(pid) for pid, _, cmd in procs if "configurable-http-proxy" in cmd)
    culler = sum(rss_mb(pid) for pid, _, cmd in procs if "jupyterhub_idle_culler" in cmd)
    return {"per_student_mb": per, "hub_mb": hub, "proxy_mb": proxy, "culler_mb": culler}


def start_hub(state: Path, port: int, users: list[str], log: Path) -> subprocess.Popen:
    extra = state.parent / "bench_config.py"
    extra.write_text(f"""c = get_config()  # noqa
c.JupyterHub.authenticator_class = "dummy"  # benchmark only: made-up students
c.DummyAuthenticator.password = {PASSWORD!r}
c.Authenticator.allow_all = True
c.JupyterHub.concurrent_spawn_limit = {max(100, len(users))}
""")
    cmd = [sys.executable, "-m", "explainer", "hub", "--port", str(port), "--state", str(state),
           "--extra-config", str(extra), "--cull", "3600"]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=open(log, "wb"), stderr=subprocess.STDOUT,
                            env={**os.environ, "EXPLAINER_NO_GPU": os.environ.get("EXPLAINER_NO_GPU", "1")},
                            start_new_session=True)
    import urllib.request

    deadline = time.monotonic() + 180
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"the hub exited with {proc.returncode}: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/hub/login", timeout=5):
                return proc
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit(f"the hub did not answer: {log.read_text()[-2000:]}")
            time.sleep(0.5)


async def one_student(pw, shared, base: str, user: str, delay: float, t_start: float, args) -> dict:
    """One student: waits ``delay`` s after ``t_start``, logs in through the form, opens page 02,
    waits for its stepper and takes one step with the arrow key. With ``--browser-per-student``
    the student has a Chromium of their own (as in a class), else a context of a shared one; with
    ``--reload-after S`` a student whose "server starting" page has not moved on in S seconds
    reloads it, as a student would (counted in ``reloads``)."""
    await asyncio.sleep(max(0.0, t_start + delay - time.monotonic()))
    own = None
    if shared is None:
        own = await pw.chromium.launch(executable_path=args.chromium, args=["--no-sandbox", "--disable-gpu"])
    browser = own or shared
    ctx = await browser.new_context()
    ctx.set_default_timeout(600_000)  # a login click waits for the spawn it starts: minutes when a class arrives
    ctx.set_default_navigation_timeout(600_000)
    page = await ctx.new_page()
    outside: list[str] = []

    async def refuse(route):
        outside.append(route.request.url)
        await route.abort()

    await page.route(re.compile(r"^https?://(?!127\.0\.0\.1|localhost)"), refuse)
    t0 = time.monotonic()
    row: dict = {"user": user, "delay_s": delay}
    try:
        await page.goto(f"{base}/hub/login", timeout=300_000)
        await page.fill("input[name=username]", user)
        await page.fill("input[name=password]", PASSWORD)
        await page.click("input[type=submit], button[type=submit]")
        app = re.compile(rf"/user/{user}/voila/render/")
        row["reloads"] = 0
        while True:
            wait = args.reload_after * 1000 if args.reload_after else 600_000
            try:
                await page.wait_for_url(app, timeout=wait)
                break
            except Exception:  # noqa: BLE001
                if not args.reload_after or time.monotonic() - t0 > 600:
                    raise
                row["reloads"] += 1
                try:
                    await page.reload()
                except Exception as e:  # noqa: BLE001
                    # the page was leaving for the student's server just then: the reload is
                    # aborted (net::ERR_ABORTED), the navigation goes on; wait for it as before
                    if "ERR_ABORTED" not in str(e) and "detached" not in str(e):
                        raise
        row["login_to_app_s"] = time.monotonic() - t0
        await page.goto(f"{base}/user/{user}/voila/render/{PAGE}", timeout=600_000)
        await page.locator(LABEL).filter(has_text="step 1 of").wait_for(timeout=600_000)
        row["login_to_page02_s"] = time.monotonic() - t0
        await page.evaluate("() => document.activeElement && document.activeElement.blur()")
        await page.locator("body").press("ArrowRight")
        await page.locator(LABEL).filter(has_text=re.compile(r"step 2 of \d+")).wait_for(timeout=60_000)
        row["stepped"] = True
    except Exception as e:  # noqa: BLE001  (a student who did not get the page is a result too)
        row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
    row["outside_requests"] = outside
    row["_ctx"] = (ctx, own)
    return row


async def drive(base: str, users: list[str], delays: list[float], args, state: Path) -> tuple:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        shared = None if args.browser_per_student else await pw.chromium.launch(
            executable_path=args.chromium, args=["--no-sandbox", "--disable-gpu"])
        t0 = time.monotonic()
        rows = await asyncio.gather(*(one_student(pw, shared, base, u, d, t0, args) for u, d in zip(users, delays)))
        wall = time.monotonic() - t0
        mem = memory(state, users)  # every student's page 02 still open
        for r in rows:
            ctx, own = r.pop("_ctx")
            await ctx.close()
            if own:
                await own.close()
        if shared:
            await shared.close()
    return list(rows), mem, wall


def run_mode(mode: str, n: int, spread_s: float, args) -> dict:
    root = Path(tempfile.mkdtemp(prefix=f"bench-hub-{mode}-"))
    state, log = root / "state", root / "hub.log"
    port = free_port()
    users = [f"s{i:02d}" for i in range(n)]
    hub = start_hub(state, port, users, log)
    base = f"http://127.0.0.1:{port}"
    delays = [0.0] * n if mode == "at-once" else [spread_s * i / max(1, n - 1) for i in range(n)]
    try:
        rows, mem, wall = asyncio.run(drive(base, users, delays, args, state))
    finally:
        hub.send_signal(signal.SIGTERM)
        try:
            hub.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(hub.pid, signal.SIGKILL)
    ok = sorted(r["login_to_page02_s"] for r in rows if "login_to_page02_s" in r)
    return {"mode": mode, "students": n, "spread_s": spread_s if mode != "at-once" else 0, "wall_s": wall,
            "rows": rows, "memory": mem, "ok": len(ok),
            "login_to_page02_s": {"median": statistics.median(ok) if ok else None,
                                  "p90": ok[max(0, math.ceil(0.9 * len(ok)) - 1)] if ok else None,
                                  "max": ok[-1] if ok else None}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=30)
    ap.add_argument("--modes", nargs="+", default=["at-once", "staggered"], choices=["at-once", "staggered"])
    ap.add_argument("--spread", type=float, default=60.0, help="seconds over which staggered students arrive")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--browser-per-student", action="store_true", help="a Chromium per student (default: one shared)")
    ap.add_argument("--reload-after", type=float, default=0,
                    help="reload a 'server starting' page that has not moved on after this many seconds (0: never)")
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that the hub is stopped (finally) on kill
    if a.students < 1:
        print("bench_hub: --students must be at least 1", file=sys.stderr)
        return 2
    report = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                          "mem_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)},
              "runs": []}
    for mode in a.modes:
        r = run_mode(mode, a.students, a.spread, a)
        report["runs"].append(r)
        m = r["memory"]
        per = list(m["per_student_mb"].values())
        t = r["login_to_page02_s"]
        times = (f"login -> page 02 median {t['median']:.1f} s, p90 {t['p90']:.1f} s, max {t['max']:.1f} s"
                 if r["ok"] else "none reached page 02")
        print(f"{mode}: {r['ok']}/{r['students']} students reached page 02; {times}; "
              f"per student {statistics.median(per):.0f} MB median "
              f"({min(per):.0f}-{max(per):.0f}); hub {m['hub_mb']:.0f} MB, proxy {m['proxy_mb']:.0f} MB, "
              f"idle culler {m['culler_mb']:.0f} MB; reloads {sum(x.get('reloads', 0) for x in r['rows'])}; outside requests: "
              f"{sum(len(x['outside_requests']) for x in r['rows'])}", flush=True)
        for row in r["rows"]:
            if "error" in row:
                print(f"  {row['user']}: {row['error']}", flush=True)
    if a.out:
        tag = ("_browser-each" if a.browser_per_student else "") + (f"_reload{a.reload_after:g}" if a.reload_after else "")
        path = Path(a.out) / f"bench_hub_{report['date'][:10]}{tag}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=1))
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
