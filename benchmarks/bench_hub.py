"""How many students one machine's hub serves: N students log in to `tiled-explainer hub` and
open page 02, all at once and staggered; per student the seconds from the login form to page 02,
and the memory of their server and kernels; the hub's and the proxy's own memory.

    python benchmarks/bench_hub.py                      # 30 students, at once then staggered over 60 s
    python benchmarks/bench_hub.py --students 10 --modes at-once --out benchmarks/results/
    python benchmarks/bench_hub.py --browsers 3         # 3 in Chromium, 27 as HTTP clients

Real parts: the shipped hub config (its class-password authenticator: N made-up user names, one
password), configurable-http-proxy, one Jupyter server with Voila per student. A student
is a headless Chromium context (its own cookies; page 02 counts when its stepper has drawn and
stepped once with the arrow key) or, with ``--browsers K`` for all but K of them, an HTTP client
that sends the requests a browser's pages send to the hub and the server (login form, the spawn,
the app, page 02 rendered by Voila to its last cell) and runs no page script: the server's side
of a class whose browsers are on the students' own machines. Browsers run on the hub's machine,
so their CPU is part of what they measure. The hub's log is searched for kernels that failed or
were restarted (:data:`TROUBLE`). Run as root, the hub gives each student an account of their
own (``te-s00`` ...), removed after the run.
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
c.JupyterHub.concurrent_spawn_limit = {max(100, len(users))}  # a class larger than the default 100
""")
    # the shipped authenticator: any user name with the class password
    cmd = [sys.executable, "-m", "explainer", "hub", "--port", str(port), "--state", str(state),
           "--password", PASSWORD, "--extra-config", str(extra), "--cull", "3600"]
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
    row: dict = {"user": user, "delay_s": delay, "client": "chromium"}
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


#: What page 02 as Voila renders it must hold: its title and the stepper's widget output.
PAGE_MARKS = ("Shared-memory tiling", "application/vnd.jupyter.widget-view+json")


def http_student(base: str, user: str, delay: float, t_start: float) -> dict:
    """One student as an HTTP client (no page script runs): the login form (with its _xsrf
    cookie), then, as the "server starting" page does once the spawn is done, the student's own
    URL until it lands on the app (the hub's OAuth hand-over to the server is followed like any
    redirect), then page 02, read to its end: Voila sends the last of it when the notebook's
    last cell has run. Every URL it was sent to is kept; one outside 127.0.0.1 is a failure."""
    import requests

    time.sleep(max(0.0, t_start + delay - time.monotonic()))
    s = requests.Session()
    row: dict = {"user": user, "delay_s": delay, "client": "http", "polls": 0}
    seen: list[str] = []

    def get(url, **kw):
        r = s.request(kw.pop("method", "GET"), url, timeout=600, **kw)
        seen.extend([h.url for h in r.history] + [r.url])
        return r

    t0 = time.monotonic()
    app = f"/user/{user}/voila/render/"
    try:
        get(f"{base}/hub/login")
        r = get(f"{base}/hub/login", method="POST",
                data={"username": user, "password": PASSWORD, "_xsrf": s.cookies.get("_xsrf", "")})
        r.raise_for_status()
        while app not in r.url:  # the spawn-pending page: look again, as its script would
            if time.monotonic() - t0 > 600:
                raise TimeoutError(f"no app after 600 s (last at {r.url})")
            time.sleep(2)
            row["polls"] += 1
            r = get(f"{base}/user/{user}/")
            r.raise_for_status()
        row["login_to_app_s"] = time.monotonic() - t0
        r = get(f"{base}{app}{PAGE}")
        r.raise_for_status()
        missing = [m for m in PAGE_MARKS if m not in r.text]
        if missing:
            raise RuntimeError(f"page 02 came back without {missing}")
        row["login_to_page02_s"] = time.monotonic() - t0
    except Exception as e:  # noqa: BLE001  (a student who did not get the page is a result too)
        row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
    row["outside_requests"] = [u for u in seen if not re.match(r"^https?://(127\.0\.0\.1|localhost)[:/]", u)]
    if row["outside_requests"]:
        row.setdefault("error", f"went outside the machine: {row['outside_requests'][0]}")
    return row


def browser_students(n: int, k: int) -> set[int]:
    """Which of n students (in arrival order) use Chromium when k do: spread over the class."""
    k = max(0, min(n, k))
    return {min(n - 1, (i * n) // k) for i in range(k)} if k else set()


async def drive(base: str, users: list[str], delays: list[float], args, state: Path) -> tuple:
    browsers = browser_students(len(users), len(users) if args.browsers is None else args.browsers)

    def plain(t0):  # the HTTP students, timed from the same t0 as the browsers
        return [asyncio.to_thread(http_student, base, u, d, t0)
                for i, (u, d) in enumerate(zip(users, delays)) if i not in browsers]

    if not browsers:
        t0 = time.monotonic()
        rows = await asyncio.gather(*plain(t0))
        return list(rows), memory(state, users), time.monotonic() - t0
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        shared = None if args.browser_per_student else await pw.chromium.launch(
            executable_path=args.chromium, args=["--no-sandbox", "--disable-gpu"])
        t0 = time.monotonic()
        rows = await asyncio.gather(*plain(t0), *(one_student(pw, shared, base, u, d, t0, args)
                                                  for i, (u, d) in enumerate(zip(users, delays)) if i in browsers))
        wall = time.monotonic() - t0
        mem = memory(state, users)  # every student's page 02 still open
        for r in rows:
            if "_ctx" not in r:
                continue
            ctx, own = r.pop("_ctx")
            await ctx.close()
            if own:
                await own.close()
        if shared:
            await shared.close()
    return list(rows), mem, wall


#: What the hub's log says when a kernel failed or was started again (a port taken by another
#: kernel, messages signed for another kernel, a kernel that died and was restarted).
TROUBLE = ("restarting kernel", "Address already in use", "Invalid Signature", "KernelRestarter", "kernel died")


def trouble(log: Path) -> dict:
    text = log.read_text(errors="replace")
    return {t: text.count(t) for t in TROUBLE if t in text}


def remove_accounts(users: list[str]) -> None:
    """The students' accounts a hub run as root made for this run."""
    if os.geteuid() != 0:
        return
    import pwd

    from explainer.app.hub_spawner import MARK, account_name

    for u in users:
        try:
            if pwd.getpwnam(account_name(u)).pw_gecos == MARK:
                subprocess.run(["userdel", account_name(u)], capture_output=True)
        except KeyError:
            pass


def run_mode(mode: str, n: int, spread_s: float, args) -> dict:
    root = Path(tempfile.mkdtemp(prefix=f"bench-hub-{mode}-"))
    os.chmod(root, 0o755)  # the students' accounts reach their folders in it
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
        remove_accounts(users)
    ok = sorted(r["login_to_page02_s"] for r in rows if "login_to_page02_s" in r)
    return {"mode": mode, "students": n, "spread_s": spread_s if mode != "at-once" else 0, "wall_s": wall,
            "rows": rows, "memory": mem, "ok": len(ok), "kernel_trouble": trouble(log),
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
    ap.add_argument("--browsers", type=int, default=None,
                    help="how many students use Chromium (spread over the class); the others are HTTP clients "
                         "(default: all in Chromium)")
    ap.add_argument("--reload-after", type=float, default=0,
                    help="reload a 'server starting' page that has not moved on after this many seconds (0: never)")
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that the hub is stopped (finally) on kill
    if a.students < 1:
        print("bench_hub: --students must be at least 1", file=sys.stderr)
        return 2
    if a.browsers is not None and not 0 <= a.browsers <= a.students:
        print(f"bench_hub: --browsers must be between 0 and --students ({a.students})", file=sys.stderr)
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
              f"{sum(len(x['outside_requests']) for x in r['rows'])}; kernel restarts and failures in the log: "
              f"{r['kernel_trouble'] or 'none'}", flush=True)
        for kind in ("chromium", "http"):
            mine = [x for x in r["rows"] if x.get("client") == kind]
            got = sorted(x["login_to_page02_s"] for x in mine if "login_to_page02_s" in x)
            if mine and a.browsers is not None:
                mb = [m["per_student_mb"][x["user"]] for x in mine]
                print(f"  {kind}: {len(got)}/{len(mine)}" + (f", login -> page 02 median {statistics.median(got):.1f} s, "
                                                             f"max {got[-1]:.1f} s" if got else "")
                      + f", {statistics.median(mb):.0f} MB median per student", flush=True)
        for row in r["rows"]:
            if "error" in row:
                print(f"  {row['user']} ({row.get('client')}): {row['error']}", flush=True)
    if a.out:
        tag = (("_browser-each" if a.browser_per_student else "") + (f"_reload{a.reload_after:g}" if a.reload_after else "")
               + (f"_browsers{a.browsers}" if a.browsers is not None else ""))
        path = Path(a.out) / f"bench_hub_{report['date'][:10]}{tag}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=1))
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
