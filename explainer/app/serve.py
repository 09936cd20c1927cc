"""``tiled-explainer serve``: the pages as a web app for a lecture hall, from one process.

Two doors to the same pages:

* **static pages** (``/voila/files/site/index.html``, the one printed first and opened): the
  pages exported by :mod:`explainer.app.export` when the server starts. They cost the server
  nothing but a file read: every stepper steps in the student's browser for the page's launch,
  its presets and variants and the blocks near them, and the timing panels show the recorded
  measurements. Each page links its live twin;
* **live pages** (``/voila/render/<notebook>``): Voila 0.5 starts one kernel per browser tab and
  runs the page's notebook in it (about 1 CPU-second and 110 MB each), so a student can try
  their own M, N, K and T or measure on the server's GPU. The sources are stripped, so students
  see prose, figures and widgets only. Options chosen for many students on one server are
  explained next to each flag in :func:`voila_command`.

Voila serves the static pages through its own allow-listed file handler (only ``site/``'s
HTML, CSS and JavaScript; the notebooks themselves are not downloadable).
"""

from __future__ import annotations

import argparse
import json
import errno
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import sys
import time
import urllib.request
import webbrowser
from pathlib import Path

from explainer import resources

DEFAULT_PORT = 8866
INDEX = "00_index.ipynb"

# Voila starts one kernel per tab (holding the page's model and figures: 50 MB for the index) and
# never reuses it. Voila 0.5.13 does not even free it when the tab closes or reloads: the shutdown
# beacon it sends on unload is refused for a missing _xsrf token (voila issue #1458; seen here in
# the server log). So culling is what frees them: a kernel with no browser connected and no
# activity for 5 minutes is shut down. Connected tabs are never culled however idle (cull_connected
# stays False), so a student reading one page for half an hour keeps it working; a wifi blip or a
# short laptop sleep reconnects within 5 minutes, and after a longer absence a reload gets a fresh
# kernel at once from the preheated pool. Longer timeouts let reload-happy classes pile up kernels.
# The idle clock of a kernel handed out from the pool starts then, not when it ran the page
# (explainer/app/kernel_manager.py).
CULL_IDLE_TIMEOUT_S = 300
CULL_INTERVAL_S = 60


def notebooks_dir() -> Path:
    return resources.notebooks_dir()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port to serve on (default {DEFAULT_PORT})")
    parser.add_argument("--ip", default="localhost",
                        help="address to listen on (default localhost; 0.0.0.0 lets students "
                             "on the network connect)")
    parser.add_argument("--no-browser", action="store_true",
                        help="do not open a web browser")


#: Notebooks not pre-run at start-up (a regular expression on the notebook's file name).
#: Voila pre-runs every notebook at start-up, all at once; on a 2-core laptop that made the
#: first page wait ~9 s, so only the pages a lecture opens first (index, 01, 02) are pre-run and
#: the later ones start their kernel when first opened (a few seconds, with Voila's spinner).
NOT_PREHEATED = r"(.*/)?0[3-9]_"  # Voila matches it against the path it globbed


SITE = "site"  # the exported static pages, inside Voila's root
STATIC_FILES = (SITE + r"/(zh-CN/)?[^/]+\.html|"  # what Voila's file handler may serve (zh-CN/: the translations)
                + SITE + r"/assets/[^/]+\.(css|js)")
LIVE_PREFIX = "../../render/"  # from /voila/files/site/<page> to /voila/render/<notebook>


#: The JupyterLab extensions a page loads: Voila's widget manager (it keeps the one that suits the
#: installed ipywidgets), the widgets, anywidget's views, plotly's charts, code colouring. Voila would
#: otherwise load every lab extension installed next to it (a course's nbgrader or notebook 7 among
#: them), whose errors and requests the pages have no use for.
PAGE_EXTENSIONS = ["@voila-dashboards/widgets-manager8", "@voila-dashboards/widgets-manager7",
                   "@jupyter-widgets/jupyterlab-manager", "anywidget", "jupyterlab-plotly", "jupyterlab_pygments"]


#: Jupyter's kernel manager, with an idle clock that starts when a page gets its kernel (see the module).
KERNEL_MANAGER = "explainer.app.kernel_manager.ExplainerKernelManager"


def voila_env(config_dir: Path) -> dict:
    """The environment for Voila, with a config folder holding what the command line cannot
    set: Voila's kernel manager class is created at run time, so ``--VoilaKernelManager.*``
    flags never reach it, but a ``voila.json`` on the Jupyter config path does. The file
    allow-list lets Voila serve the static pages and nothing else from its root."""
    (config_dir / "voila.json").write_text(json.dumps(
        {"VoilaKernelManager": {"preheat_denylist": [NOT_PREHEATED]},
         "VoilaConfiguration": {"file_allowlist": [STATIC_FILES], "extension_allowlist": PAGE_EXTENSIONS,
                                # a page's kernel is not culled before the page connects to it
                                "multi_kernel_manager_class": KERNEL_MANAGER}}))
    from explainer.views.plotly_widget import BUNDLE_URL_ENV

    env = dict(os.environ)
    # Our Voila template (app/jupyter/voila/templates/explainer: lab's, minus its CDN links).
    env["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(TEMPLATES), env.get("JUPYTER_PATH")]))
    env[BUNDLE_URL_ENV] = f"../files/{PLOTLY_BUNDLE}"  # from /voila/render/<nb>; the kernels inherit it
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(filter(None, [str(config_dir), env.get("JUPYTER_CONFIG_PATH")]))
    return env


def voila_command(root: Path, port: int, ip: str) -> list[str]:
    return [
        sys.executable, "-m", "voila", str(root),  # the same environment as this command
        f"--port={port}",
        f"--Voila.ip={ip}",
        "--Voila.port_retries=0",  # a busy port is an error, not a silent move to another port
        "--no-browser",  # we open the index page ourselves, not the tree
        "--strip_sources=True",  # lectures show no code cells
        "--theme=light",
        "--template=explainer",  # lab's, fetching nothing from outside (see TEMPLATES)
        # Each notebook keeps one kernel that has already run it, so the first student to open a
        # page gets it at once; Voila refills the pool a second later. When many students arrive
        # together the pool runs dry and Voila falls back to starting a fresh kernel per tab,
        # which is slower but correct. Every pooled kernel costs memory, so keep the pool at 1.
        "--preheat_kernel=True",
        "--pool_size=1",
        f"--MappingKernelManager.cull_idle_timeout={CULL_IDLE_TIMEOUT_S}",
        f"--MappingKernelManager.cull_interval={CULL_INTERVAL_S}",
    ]


def _port_busy(ip: str, port: int) -> bool:
    """True if something already listens on (ip, port). Voila's port_retries=0 also catches the
    race where the port is taken between this check and Voila's own bind."""
    try:
        infos = socket.getaddrinfo(ip, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror:
        return False  # let Voila report the bad address
    for family, kind, proto, _, addr in infos:
        with socket.socket(family, kind, proto) as s:
            # Tornado binds with SO_REUSEADDR too, so a socket in TIME_WAIT is not "busy".
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(addr)
            except OSError as e:
                if e.errno == errno.EADDRINUSE:
                    return True
    return False


def _wait_until_answering(url: str, proc: subprocess.Popen, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return True
        except OSError:
            time.sleep(0.2)
    return False


def _open_browser(url: str) -> None:
    # With no display, Python's webbrowser would start a text browser (w3m, lynx) in this
    # terminal; say what to do instead.
    if (sys.platform.startswith("linux") and not os.environ.get("BROWSER")
            and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))):
        print("No display found: open the URL above in a browser.", flush=True)
        return
    try:
        webbrowser.open(url)
    except webbrowser.Error:
        print("Could not start a browser: open the URL above yourself.", flush=True)


#: Where our Voila template lives (a Jupyter data folder: voila/templates/explainer).
TEMPLATES = Path(__file__).resolve().parent / "jupyter"
PLOTLY_BUNDLE = SITE + "/assets/plotly-widget.js"  # plotly's widget bundle, fetched by live pages


def serve_root(config_dir: Path, notebooks: Path) -> Path:
    """Voila's root: a copy of the notebooks (small files), plotly's widget bundle for the live
    pages (so it reaches each browser once, as a cached file, not through every kernel) and,
    once exported, ``site/``."""
    from explainer.views.plotly_widget import bundle_path

    root = config_dir / "root"
    root.mkdir()
    for nb in [*notebooks.glob("*.ipynb"), *notebooks.glob("zh-CN/*.ipynb")]:  # and the translations
        (root / nb.relative_to(notebooks)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(nb, root / nb.relative_to(notebooks))
    (root / PLOTLY_BUNDLE).parent.mkdir(parents=True)
    shutil.copyfile(bundle_path(), root / PLOTLY_BUNDLE)
    return root


def export_command(root: Path) -> list[str]:
    return [sys.executable, "-m", "explainer.app.cli", "export", str(root / SITE), "--live-prefix", LIVE_PREFIX]


def run(args: argparse.Namespace) -> int:
    notebooks = notebooks_dir()
    if not notebooks.is_dir():
        print(f"error: no notebooks folder at {notebooks} (install the project with "
              "`pip install -e .` from a checkout)", file=sys.stderr)
        return 2
    if not 1 <= args.port <= 65535:
        print(f"error: --port must be between 1 and 65535, not {args.port}", file=sys.stderr)
        return 2
    if _port_busy(args.ip, args.port):
        print(f"error: port {args.port} is already in use; pick another with --port N "
              "(or PORT=N for make serve)", file=sys.stderr)
        return 2

    host = "localhost" if args.ip in ("0.0.0.0", "::", "") else args.ip
    base = f"http://{host}:{args.port}"
    config_dir = Path(tempfile.mkdtemp(prefix="tiled-explainer-voila-"))
    root = serve_root(config_dir, notebooks)
    if (root / INDEX).is_file():
        live = f"{base}/voila/render/{INDEX}"
        static = f"{base}/voila/files/{SITE}/index.html"
    else:
        live = static = f"{base}/"
        print(f"Tiled GEMM explainer: no pages yet ({notebooks / INDEX} is missing); "
              f"serving the notebook list at {live}", flush=True)
    print("Starting: the live app (Voila) and, beside it, the static pages (about 10-20 s) ...", flush=True)

    proc = subprocess.Popen(voila_command(root, args.port, args.ip), env=voila_env(config_dir))
    exporter = subprocess.Popen(export_command(root), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # Ctrl-C reaches Voila directly (same process group); a SIGTERM sent to us is passed on so
    # Voila can shut its kernels down instead of leaving them behind.
    signal.signal(signal.SIGTERM, lambda *_: (proc.send_signal(signal.SIGTERM), exporter.kill()))
    try:
        answering = _wait_until_answering(base + "/", proc)
        out = exporter.communicate()[0]
        if exporter.returncode == 0:
            print(f"Static pages (students open this; they step in the browser): {static}", flush=True)
            print(f"Live pages (a Python kernel per tab, for your own launches and GPU timings): {live}", flush=True)
        else:
            static = live
            last = (out or "").strip().splitlines()[-1:] or ["(no output)"]
            print(f"The static pages could not be built ({last[0]}); the live pages work: {live}", flush=True)
        print("Press Ctrl-C to stop.", flush=True)
        if answering and not args.no_browser:
            _open_browser(static)
        return proc.wait()
    except KeyboardInterrupt:
        exporter.kill()
        try:
            return proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            return 130
    finally:
        if exporter.poll() is None:
            exporter.kill()
        shutil.rmtree(config_dir, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tiled-explainer serve", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
