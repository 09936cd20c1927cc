"""A lecture hall on one server: N students open the same page of one ``tiled-explainer serve`` at once.

    python benchmarks/bench_serve_load.py [--students 30] [--page 02_tiled] [--stagger 0]
                                          [--live]

Starts ``tiled-explainer serve --no-browser`` on a free port (its own process group), waits until
it answers and has settled, then N clients request the page at the same moment (or spread over
``--stagger`` seconds) and read the whole response: the wait is from the request to the last
byte of the executed page (for a Voila page, when every cell has run and its outputs are in the
HTML). Without ``--live`` the page is the one students open from the index; with ``--live`` it
is the Voila page that starts a kernel per request.

Prints per-student waits (median, p90, max), bytes per page (and the files the page loads), the
server's memory before and after (RSS of the serve process tree, by process kind), and the
memory each extra kernel holds. Target (issue 11): 30 students at once on 2 cores, median wait
<= 5 s.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import re
import statistics
import sys
import threading
import time
import urllib.request
from pathlib import Path

from bench_browser import Server  # the same `serve` process, started and stopped the same way

TARGET_MEDIAN_S = 5.0


def tree(pid: int) -> list[int]:
    """``pid`` and all its descendants."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            kids = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except OSError:
            kids = []
        todo += [int(k) for k in kids]
    return out


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def kind(pid: int) -> str:
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "?"
    if "ipykernel" in cmd:
        return "kernel"
    if "voila" in cmd:
        return "voila"
    return "serve"


def memory(pid: int) -> dict[str, list[float]]:
    by: dict[str, list[float]] = {}
    for p in tree(pid):
        by.setdefault(kind(p), []).append(rss_mb(p))
    return by


def fmt_memory(by: dict[str, list[float]]) -> str:
    return ", ".join(f"{k} {len(v)}× {sum(v):.0f} MB" for k, v in sorted(by.items()))


def fetch(url: str) -> tuple[float, int, str]:
    t = time.monotonic()
    with urllib.request.urlopen(url, timeout=600) as r:
        body = r.read()
    return time.monotonic() - t, len(body), body.decode("utf-8", "replace")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=30)
    ap.add_argument("--page", default="02_tiled")
    ap.add_argument("--stagger", type=float, default=0.0, help="spread the requests over this many seconds")
    ap.add_argument("--live", action="store_true", help="request the Voila page (a kernel per request)")
    ap.add_argument("--settle", type=float, default=10.0,
                    help="seconds to let the server settle (Voila's preheated kernels) once it is ready")
    args = ap.parse_args(argv)

    print(f"# bench_serve_load {dt.datetime.now().isoformat(timespec='seconds')} · {platform.node()} · "
          f"{os.cpu_count()} cores · Python {platform.python_version()}")
    t0 = time.monotonic()
    server = Server()
    base, log, proc = server.url, server.log, server.proc
    try:
        while "Press Ctrl-C" not in log.read_text(errors="replace"):  # the static pages are built
            if proc.poll() is not None or time.monotonic() - t0 > 300:
                raise SystemExit(f"serve did not finish starting:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        print(f"server ready after {time.monotonic() - t0:.1f} s; settling {args.settle:.0f} s")
        time.sleep(args.settle)
        text = log.read_text()
        if args.live:
            url = f"{base}/voila/render/{args.page}.ipynb"
        else:
            m = re.search(r"Static pages[^:]*: (\S+)", text)
            url = (m.group(1).rsplit("/", 1)[0] + f"/{args.page}.html") if m else f"{base}/voila/render/{args.page}.ipynb"
        before = memory(proc.pid)
        print(f"page: {url}\nmemory before: {fmt_memory(before)}")

        results: list[tuple[float, int] | str] = [None] * args.students
        start = threading.Event()

        def student(i):
            start.wait()
            time.sleep(args.stagger * i / max(1, args.students - 1))
            try:
                dur, size, body = fetch(url)
                results[i] = (dur, size, body)
            except Exception as e:  # noqa: BLE001 — report, do not hide
                results[i] = f"{type(e).__name__}: {e}"

        threads = [threading.Thread(target=student, args=(i,)) for i in range(args.students)]
        for th in threads:
            th.start()
        start.set()
        for th in threads:
            th.join()
        bad = [r for r in results if isinstance(r, str)]
        ok = [r for r in results if not isinstance(r, str)]
        waits = sorted(r[0] for r in ok)
        after = memory(proc.pid)
        if ok:
            body = ok[0][2]
            assets = sorted(set(re.findall(r'(?:src|href)="(assets/[^"]+)"', body)))
            sizes = []
            for a in assets:
                _, n, _ = fetch(url.rsplit("/", 1)[0] + "/" + a)
                sizes.append(f"{a} {n / 1e6:.2f} MB")
            med = statistics.median(waits)
            p90 = waits[min(len(waits) - 1, int(round(0.9 * (len(waits) - 1))))]
            print(f"{len(ok)} students {'at once' if not args.stagger else f'over {args.stagger:.0f} s'}: wait median "
                  f"{med:.2f} s, p90 {p90:.2f} s, max {waits[-1]:.2f} s "
                  f"{'(target met)' if med <= TARGET_MEDIAN_S and not args.stagger else ''}")
            print(f"bytes per page: {ok[0][1] / 1e6:.2f} MB" + (f"; it loads {', '.join(sizes)} (cached after the first page)" if sizes else ""))
            print("executed page contains the stepper:", "explainer-view" in body or "TiledView" in body or "anywidget" in body)
        if bad:
            print(f"{len(bad)} requests failed: {bad[:3]}")
        print(f"memory after: {fmt_memory(after)}")
        k0, k1 = before.get("kernel", []), after.get("kernel", [])
        if len(k1) > len(k0):
            print(f"memory per extra kernel: {(sum(k1) - sum(k0)) / (len(k1) - len(k0)):.0f} MB "
                  f"({len(k1) - len(k0)} kernels started)")
        else:
            print("no kernel was started by these requests")
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
