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

The state folder (default ``/var/lib/tiled-explainer/hub`` for root, else
``~/.local/share/tiled-explainer/hub``) keeps the hub's database and cookie secret (the hub's
alone, mode 0600) and each student's folder (``users/<name>``, their copy of the pages, mode
0700 and owned by their account when the hub is root).

``SIGTERM`` or ``SIGINT`` (Ctrl-C) stops the hub, its proxy, the idle culler, every student's
server and kernel: what has not stopped after :data:`STOP_GRACE_S` seconds is ended, as is
anything still running as a student's account.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

PROG = "tiled-explainer hub"
CONFIG = Path(__file__).resolve().parent / "jupyter" / "hub" / "jupyterhub_config.py"
TEMPLATES = Path(__file__).resolve().parent / "jupyter"  # holds voila/templates/explainer
PROXY_PACKAGE = "configurable-http-proxy@5.3.0"
PROXY_DIR_ENV = "EXPLAINER_HUB_PROXY_DIR"
DEFAULT_PORT = 8000
MIN_PASSWORD = 8  # SharedPasswordAuthenticator refuses shorter class passwords
STOP_GRACE_S = 15  # JupyterHub's own stop, before what is left is ended (all of it within 30 s)
PR_SET_CHILD_SUBREAPER = 36  # prctl(2): orphans of the hub's processes become ours to end


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
    if os.geteuid() == 0:  # a service's state; root's home is closed to the students' accounts
        return Path("/var/lib/tiled-explainer/hub")
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "tiled-explainer" / "hub"


def _closed_to_others(path: Path) -> Path | None:
    """The first folder on the way to ``path`` that other accounts cannot pass through, if any."""
    for d in [*reversed(path.parents), path]:
        if d.exists() and not d.stat().st_mode & stat.S_IXOTH:
            return d
    return None


def prepare_state(state: Path) -> None:
    """The state folder and ``users/`` in it (mode 0711: students reach their own folder by
    name, list nobody's); as root, check the students' accounts can reach their folders and
    run this environment's Python."""
    for d in (state, state / "users"):
        d.mkdir(parents=True, exist_ok=True)
        os.chmod(d, 0o711)
    if os.geteuid() != 0:
        return
    import explainer

    for what, path in (("the state folder", state), ("this environment", Path(sys.prefix)),
                       ("its Python", Path(os.path.realpath(sys.executable))),
                       ("Python's library", Path(sys.base_prefix)),
                       ("the explainer package", Path(explainer.__file__).parent)):
        closed = _closed_to_others(path.resolve())
        if closed is not None:
            raise HubError(f"students run as accounts of their own and cannot reach {what}: {closed} "
                           f"is closed to other users (chmod o+x {closed}, or choose a state folder "
                           "and a Python environment outside it)")


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
    if args.lab and os.geteuid() != 0 and not args.extra_config:
        raise HubError("--lab gives every student a Python kernel, so each must run as an account of "
                       "their own: run the hub as root (or give a container spawner in --extra-config)")
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
        state = Path(args.state).resolve() if args.state else default_state()
        prepare_state(state)
        proxy = ensure_proxy()
    except (HubError, OSError) as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    host = "localhost" if args.ip in ("0.0.0.0", "::", "") else args.ip
    print(f"Tiled GEMM explainer hub: students log in at http://{host}:{args.port}/ (state in {state})", flush=True)
    _become_subreaper()
    # umask 077: the database, the cookie secret and the proxy's files are the hub's alone
    proc = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(CONFIG)], cwd=state,
                            env=hub_environment(args, state, proxy), umask=0o077)
    asked: list[float] = []

    def stop(*_):
        if not asked:
            asked.append(time.monotonic())
            print(f"{PROG}: stopping the hub, its proxy and every student's server ...", file=sys.stderr, flush=True)
        proc.send_signal(signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        while True:
            try:
                return proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                _reap_orphans(proc.pid)
                if asked and time.monotonic() - asked[0] > STOP_GRACE_S:
                    proc.kill()
    finally:
        end_everything(state)


def _become_subreaper() -> None:
    """Processes the hub starts and then loses (a kernel whose server died) stay ours to end."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: JupyterHub's own stop is all there is


def _children() -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                ppid = int((p / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            out.setdefault(ppid, []).append(int(p.name))
    return out


def descendants(pid: int) -> set[int]:
    children, out, todo = _children(), set(), [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


def _reap_orphans(keep: int) -> None:
    for c in _children().get(os.getpid(), []):
        if c != keep:
            try:
                os.waitpid(c, os.WNOHANG)
            except ChildProcessError:
                pass


def end_everything(state: Path) -> None:
    """Whatever the hub started that is still running, and every process of the students'
    accounts (their folders' owners): SIGTERM, then SIGKILL."""
    from .hub_spawner import end_processes, processes_of, student_accounts

    left = descendants(os.getpid())
    for uid in student_accounts(state / "users"):
        left |= set(processes_of(uid))
    if left:
        end_processes(left, grace=5)
    for c in _children().get(os.getpid(), []):
        try:
            os.waitpid(c, 0)
        except ChildProcessError:
            pass
