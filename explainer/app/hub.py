"""``tiled-explainer hub``: a JupyterHub on this machine that gives every student their own live app.

    tiled-explainer hub --password CLASS-PASSWORD [--port 8000] [--ip 0.0.0.0] [--state DIR]
                        [--admin-password P] [--lab] [--cull SECONDS] [--extra-config FILE]

Each student logs in (any user name, the class password), and their own Jupyter server starts
and opens on the Voila app: their own M, N, K and T, and on a GPU node "Measure on the GPU". The
hub's configuration is shipped in the package (``explainer/app/jupyter/hub/jupyterhub_config.py``,
each choice explained there); this command fills in the machine's part (ports, the state
folder, the proxy) and starts ``jupyterhub -f`` on it. The proxy, configurable-http-proxy, is
installed from npm on first use into a cache folder (``EXPLAINER_HUB_PROXY_DIR``, default
``~/.cache/tiled-explainer/proxy``); ``--install-proxy`` does only that.

The state folder (default ``~/.local/share/tiled-explainer/hub``) keeps the hub's database, its
cookie secret and each student's folder (``users/<name>``, their copy of the pages).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

PROG = "tiled-explainer hub"
CONFIG = Path(__file__).resolve().parent / "jupyter" / "hub" / "jupyterhub_config.py"
TEMPLATES = Path(__file__).resolve().parent / "jupyter"  # holds voila/templates/explainer
PROXY_PACKAGE = "configurable-http-proxy@5.3.0"
PROXY_DIR_ENV = "EXPLAINER_HUB_PROXY_DIR"
DEFAULT_PORT = 8000
MIN_PASSWORD = 8  # SharedPasswordAuthenticator refuses shorter class passwords


class HubError(Exception):
    """A one-line reason the hub cannot start (the command exits 2 with it)."""


def proxy_dir() -> Path:
    return Path(os.environ.get(PROXY_DIR_ENV) or Path.home() / ".cache" / "tiled-explainer" / "proxy")


def proxy_path() -> Path:
    return proxy_dir() / "node_modules" / ".bin" / "configurable-http-proxy"


def ensure_proxy(quiet: bool = False) -> Path:
    """configurable-http-proxy from npm, installed into :func:`proxy_dir` unless it is there."""
    exe = proxy_path()
    if exe.exists():
        return exe
    npm = shutil.which("npm")
    if npm is None:
        raise HubError("npm is needed to install configurable-http-proxy (the hub's proxy): "
                       "install Node.js (apt-get install nodejs npm) and run again")
    proxy_dir().mkdir(parents=True, exist_ok=True)
    if not quiet:
        print(f"installing {PROXY_PACKAGE} from npm into {proxy_dir()} (once) ...", flush=True)
    p = subprocess.run([npm, "install", "--prefix", str(proxy_dir()), "--no-audit", "--no-fund",
                        "--loglevel=error", PROXY_PACKAGE], capture_output=True, text=True, timeout=600)
    if p.returncode != 0 or not exe.exists():
        last = (p.stderr or p.stdout).strip().splitlines()[-1:] or ["no output"]
        raise HubError(f"npm install {PROXY_PACKAGE} failed: {last[0]}")
    return exe


def default_state() -> Path:
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "tiled-explainer" / "hub"


def _free_port(ip: str) -> int:
    with socket.socket() as s:
        s.bind((ip, 0))
        return s.getsockname()[1]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--password", default=os.environ.get("EXPLAINER_HUB_PASSWORD"),
                        help=f"the class password (at least {MIN_PASSWORD} characters; or EXPLAINER_HUB_PASSWORD)")
    parser.add_argument("--admin-password", default=os.environ.get("EXPLAINER_HUB_ADMIN_PASSWORD"),
                        help="the instructor's password for the admin user 'instructor' (optional)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"public port (default {DEFAULT_PORT})")
    parser.add_argument("--ip", default="127.0.0.1", help="address to listen on (0.0.0.0 for a class network)")
    parser.add_argument("--state", default=None, help="the hub's folder (default ~/.local/share/tiled-explainer/hub)")
    parser.add_argument("--lab", action="store_true", help="let students open JupyterLab too (default: Voila only)")
    parser.add_argument("--cull", type=int, default=1800,
                        help="stop a student's server after this many idle seconds (default 1800)")
    parser.add_argument("--extra-config", default=None,
                        help="a JupyterHub config file loaded after the shipped one (OAuth / LTI, limits)")
    parser.add_argument("--install-proxy", action="store_true", help="only install the proxy, then exit")


def hub_environment(args: argparse.Namespace, state: Path, proxy: Path) -> dict:
    """The variables the shipped config reads (see its docstring)."""
    from .serve import notebooks_dir

    env = dict(os.environ)
    env.update({
        "EXPLAINER_HUB_STATE": str(state),
        "EXPLAINER_HUB_NOTEBOOKS": str(notebooks_dir()),
        "EXPLAINER_HUB_TEMPLATES": str(TEMPLATES),
        "EXPLAINER_HUB_PROXY": str(proxy),
        "EXPLAINER_HUB_IP": args.ip,
        "EXPLAINER_HUB_PORT": str(args.port),
        "EXPLAINER_HUB_API_PORT": str(_free_port("127.0.0.1")),
        "EXPLAINER_HUB_PROXY_API_PORT": str(_free_port("127.0.0.1")),
        "EXPLAINER_HUB_PASSWORD": args.password or "",
        "EXPLAINER_HUB_CULL": str(args.cull),
        "EXPLAINER_HUB_LAB": "1" if args.lab else "",
    })
    if args.admin_password:
        env["EXPLAINER_HUB_ADMIN_PASSWORD"] = args.admin_password
    if args.extra_config:
        env["EXPLAINER_HUB_EXTRA_CONFIG"] = str(Path(args.extra_config).resolve())
    return env


def check(args: argparse.Namespace) -> None:
    if not 1 <= args.port <= 65535:
        raise HubError(f"--port must be between 1 and 65535, not {args.port}")
    if args.cull < 10:
        raise HubError(f"--cull must be at least 10 seconds, not {args.cull}")
    if args.extra_config and not Path(args.extra_config).is_file():
        raise HubError(f"--extra-config {args.extra_config}: no such file")
    if not args.extra_config and len(args.password or "") < MIN_PASSWORD:
        raise HubError(f"set a class password of at least {MIN_PASSWORD} characters: --password P "
                       "(or EXPLAINER_HUB_PASSWORD)")
    from .serve import _port_busy

    if _port_busy(args.ip, args.port):
        raise HubError(f"port {args.port} is already in use; pick another with --port N")
    try:
        import jupyterhub  # noqa: F401
        import jupyterhub_idle_culler  # noqa: F401
    except ImportError as e:
        raise HubError(f"{e.name} is not installed: pip install 'tiled-gemm-explainer[hub]'") from None


def run(args: argparse.Namespace) -> int:
    try:
        if args.install_proxy:
            print(ensure_proxy())
            return 0
        check(args)
        proxy = ensure_proxy()
    except HubError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    state = Path(args.state).resolve() if args.state else default_state()
    (state / "users").mkdir(parents=True, exist_ok=True)
    host = "localhost" if args.ip in ("0.0.0.0", "::", "") else args.ip
    print(f"Tiled GEMM explainer hub: students log in at http://{host}:{args.port}/ (state in {state})", flush=True)
    proc = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(CONFIG)], cwd=state,
                            env=hub_environment(args, state, proxy))
    signal.signal(signal.SIGTERM, lambda *_: proc.send_signal(signal.SIGTERM))
    try:
        return proc.wait()
    except KeyboardInterrupt:
        try:
            return proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            return 130
