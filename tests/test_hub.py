"""`tiled-explainer hub` with real parts: JupyterHub, configurable-http-proxy from npm, each
student's own Jupyter server with Voila, and headless Chromium. The shipped config is used as
is; only the authenticator is swapped for JupyterHub's dummy one (in a test config loaded after
it), and a test service gets an admin token to watch the servers and to hand students API tokens
of their own (as the hub's token page does).

Three students log in and each gets page 02 from their own server; one steps it in Chromium
with the arrow key, no request leaves the machine, and closing the tab releases the page's
kernel; an idle server is culled and comes back on the next visit; SIGTERM and SIGINT stop
everything the hub started.

The attack tests, each as a logged-in student, each asserting the refusal it expects: the
server's API refuses to start a kernel or a session and to read or write files; a page's
kernel drops code sent on any of its channels; as root, every student runs as an account of
their own and the hub's secrets are its own; with --lab, code in a student's own kernel cannot
read the hub's secrets or another student's folder, list or connect to their kernel sockets or
signal their processes, and a runaway loop or allocation stays within the student's limits.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("jupyterhub")
pytest.importorskip("jupyterhub_idle_culler")
requests = pytest.importorskip("requests")

from explainer.app import hub as hub_cmd  # noqa: E402
from kernel_channel import REFUSED, code_on_every_channel, exchange, execute, page_kernel  # noqa: E402

pytestmark = pytest.mark.check  # `make check` (CI), not `make test`

REPO = Path(__file__).resolve().parent.parent
USERS = ("ana", "ben", "eve")
PASSWORD = "test-class-password"
TOKEN = "explainer-test-watcher-token-0123456789"
CULL_S = 20
PAGE = "02_tiled.ipynb"


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Hub:
    def __init__(self, url: str, log: Path, state: Path, proc: subprocess.Popen):
        self.url, self.log, self.state, self.proc = url, log, state, proc

    def log_tail(self, chars: int = 6000) -> str:
        return self.log.read_text(errors="replace")[-chars:]

    def api(self, path: str) -> dict:
        r = requests.get(f"{self.url}/hub/api{path}", headers={"Authorization": f"token {TOKEN}"}, timeout=30)
        r.raise_for_status()
        return r.json()

    def token(self, user: str) -> str:
        """An API token of ``user``'s own, as a student makes one on the hub's token page: it
        carries the student's rights and, unlike the cookie, needs no _xsrf on requests."""
        r = requests.post(f"{self.url}/hub/api/users/{user}/tokens", json={"note": "test"}, timeout=30,
                          headers={"Authorization": f"token {TOKEN}"})
        r.raise_for_status()
        return r.json()["token"]

    def server_running(self, user: str) -> bool:
        return bool(self.api(f"/users/{user}").get("servers", {}).get("", {}).get("ready"))

    def login(self, user: str) -> requests.Session:
        s = requests.Session()
        s.get(f"{self.url}/hub/login", timeout=30)
        # the login only: its redirect would start the server and render the index, which under
        # load outlasts a read timeout; wait_for_app does that, patiently
        r = s.post(f"{self.url}/hub/login?next=", timeout=60, allow_redirects=False,
                   data={"username": user, "password": PASSWORD, "_xsrf": s.cookies.get("_xsrf")})
        assert r.status_code in (302, 303) and s.cookies.get("jupyterhub-hub-login"), (
            r.status_code, r.headers.get("location"))
        return s

    def wait_for_app(self, s: requests.Session, user: str, timeout: float = 120) -> requests.Response:
        """Follow the student's door until their server answers with the Voila app."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                r = s.get(f"{self.url}/user/{user}/", timeout=60)
            except requests.RequestException as e:  # a page that never finished: the student reloads
                if time.monotonic() > deadline:
                    raise AssertionError(f"{user}'s app did not open: {e}\n{self.log_tail()}") from None
                time.sleep(0.5)
                continue
            if r.status_code == 200 and f"/user/{user}/voila/render/00_index.ipynb" in r.url:
                return r
            if r.status_code == 424:  # "not running": its script goes to the spawn URL after
                # implicit_spawn_seconds; do what the student's browser does
                m = re.search(r'var spawn_url = "([^"]+)";\s*var implicit_spawn_seconds = (\d+)', r.text)
                assert m, f"a stopped server's page must start it again by itself:\n{r.text[:2000]}"
                try:
                    s.get(f"{self.url}{m.group(1)}", timeout=60)
                except requests.RequestException:
                    pass  # the spawn has begun; the next look follows it
            if time.monotonic() > deadline:
                raise AssertionError(f"{user}'s app did not open: {r.status_code} {r.url}\n{self.log_tail()}")
            time.sleep(0.5)


def _outside_links(text: str) -> list[str]:
    return sorted({u for u in re.findall(r"(?:src|href)=[\"'](https?://[^\"']+)", text)
                   if not re.match(r"https?://(127\.0\.0\.1|localhost)[:/]", u)})


def _student_accounts_can_run_python() -> list[tuple[Path, int]]:
    """As root, each student's server runs as an account of its own, which must reach this
    environment's Python. On a machine whose Python lives in root's home (pyenv in /root, as on
    the project's CI), open the way through for the test (traverse only, no listing) and give
    back the folders' modes to restore afterwards. The hub itself refuses to start in that case
    with a one-line reason (test_hub_command_refuses_bad_input_in_one_line)."""
    if os.geteuid() != 0:
        return []
    opened = []
    for target in (Path(os.path.realpath(sys.executable)), Path(sys.base_prefix), Path(sys.prefix), REPO):
        for d in [*reversed(target.parents), target]:
            mode = d.stat().st_mode
            if d.is_dir() and not mode & stat.S_IXOTH:
                opened.append((d, stat.S_IMODE(mode)))
                os.chmod(d, stat.S_IMODE(mode) | stat.S_IXOTH)
    return opened


def _remove_accounts(users) -> None:
    """The students' accounts a test hub made (only accounts marked as the hub's)."""
    import pwd

    from explainer.app.hub_spawner import MARK, account_name, end_processes, processes_of

    for u in users:
        try:
            pw = pwd.getpwnam(account_name(u))
        except KeyError:
            continue
        if pw.pw_gecos == MARK:
            end_processes(processes_of(pw.pw_uid), grace=2)
            subprocess.run(["userdel", pw.pw_name], capture_output=True)


def start_hub(extra_config: str, *args: str, users=USERS, cull: int | None = None) -> Hub:
    """:func:`_start_hub`, once more on a new port when the port picked was taken in between (a
    race with the other servers on the machine, not a fault of the hub)."""
    try:
        return _start_hub(extra_config, *args, users=users, cull=cull)
    except _PortTaken:
        return _start_hub(extra_config, *args, users=users, cull=cull)


class _PortTaken(Exception):
    pass


def _start_hub(extra_config: str, *args: str, users=USERS, cull: int | None = None) -> Hub:
    """``tiled-explainer hub`` as shipped, with ``extra_config`` loaded after its config (the
    dummy authenticator, the watcher's admin token), in a folder of its own that the students'
    accounts can reach (pytest's temporary folders are closed to other users); stop_hub removes it."""
    root = Path(tempfile.mkdtemp(prefix="explainer-test-hub-"))
    os.chmod(root, 0o755)
    state, log = root / "state", root / "hub.log"
    extra = root / "test_config.py"
    extra.write_text(f"""c = get_config()  # noqa
# tests only: JupyterHub's dummy authenticator, with a password and the test's students
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {PASSWORD!r}
c.Authenticator.allow_all = False
c.Authenticator.allowed_users = {set(users)!r}
# a watcher service with an admin token, so the test can see servers stop and start
c.JupyterHub.services.append({{"name": "test-watcher", "api_token": {TOKEN!r}}})
c.JupyterHub.load_roles.append({{"name": "test-watcher", "scopes": ["admin:users", "admin:servers", "tokens"], "services": ["test-watcher"]}})
""" + extra_config)
    port = _free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "EXPLAINER_NO_GPU": "1",
           hub_cmd.PROXY_DIR_ENV: os.environ.get(hub_cmd.PROXY_DIR_ENV) or str(Path.home() / ".cache" / "tiled-explainer" / "proxy")}
    cmd = [sys.executable, "-m", "explainer", "hub", "--port", str(port), "--state", str(state),
           "--extra-config", str(extra), *args] + (["--cull", str(cull)] if cull else [])
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    h = Hub(f"http://127.0.0.1:{port}", log, state, proc)
    deadline = time.monotonic() + 180  # the first run installs the proxy from npm
    while True:
        if proc.poll() is not None:
            tail = h.log_tail()  # read before the folder goes
            shutil.rmtree(root, ignore_errors=True)
            if "already in use" in tail:
                raise _PortTaken(tail)
            pytest.fail(f"the hub exited with {proc.returncode}:\n{tail}", pytrace=False)
        try:
            if requests.get(f"{h.url}/hub/login", timeout=5).status_code == 200:
                break
        except requests.ConnectionError:
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"the hub did not answer in time:\n{h.log_tail()}", pytrace=False)
        time.sleep(0.5)
    return h


def stop_hub(h: Hub, users) -> None:
    h.proc.send_signal(signal.SIGTERM)  # the hub stops the proxy, the services and every server
    try:
        h.proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(h.proc.pid, signal.SIGKILL)
        h.proc.wait()
    _remove_accounts(users)
    shutil.rmtree(h.state.parent, ignore_errors=True)


@pytest.fixture(scope="module")
def python_for_students():
    opened = _student_accounts_can_run_python()
    yield
    for d, mode in reversed(opened):
        os.chmod(d, mode)


@pytest.fixture(scope="module")
def hub(python_for_students):
    h = start_hub("", cull=CULL_S)
    try:
        yield h
    finally:
        stop_hub(h, USERS)


def _descendants(pid: int) -> set[int]:
    """Every process started, directly or not, by ``pid`` (servers start in sessions of their own,
    so the process tree is followed, not the process group)."""
    rows = [line.split() for line in subprocess.run(["ps", "-eo", "pid=,ppid="], capture_output=True,
                                                     text=True).stdout.splitlines()]
    children: dict[int, list[int]] = {}
    for p, pp in rows:
        children.setdefault(int(pp), []).append(int(p))
    out, todo = set(), [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


def _alive(pids: set[int]) -> set[int]:
    left = set()
    for p in pids:
        try:
            os.kill(p, 0)
        except ProcessLookupError:
            continue
        left.add(p)
    return left


def test_hub_command_refuses_bad_input_in_one_line(tmp_path, monkeypatch):
    cases = [(["--password", "short"], "at least 8 characters"),
             (["--password", "long-enough", "--port", "0"], "--port must be"),
             (["--password", "long-enough", "--extra-config", str(tmp_path / "nope.py")], "no such file"),
             (["--password", "long-enough", "--cull", "3"], "--cull must be")]
    state = tmp_path / "s"
    if os.geteuid() == 0:  # students' accounts could not reach a state folder inside a closed one
        closed = Path(tempfile.mkdtemp(prefix="explainer-closed-"))  # mode 0700, in /tmp
        cases.append((["--password", "long-enough", "--port", str(_free_port()), "--state", str(closed / "s")],
                      f"cannot reach the state folder: {closed} is closed to other users"))
    for args, msg in cases:
        p = subprocess.run([sys.executable, "-m", "explainer", "hub", "--state", str(state), *args],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 2 and msg in p.stderr and "Traceback" not in p.stderr, p.stderr
        assert len(p.stderr.strip().splitlines()) == 1
    if os.geteuid() == 0:
        shutil.rmtree(closed)
    # --lab without root: every student's kernel would run as the hub's own user
    import argparse

    parser = argparse.ArgumentParser()
    hub_cmd.add_arguments(parser)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(hub_cmd.HubError, match="--lab gives every student a Python kernel"):
        hub_cmd.check(parser.parse_args(["--password", "long-enough", "--lab", "--port", str(_free_port())]))


def test_three_students_each_get_page_02_from_their_own_server(hub):
    sessions, servers = {}, {}
    for user in USERS:
        t0 = time.monotonic()
        s = hub.login(user)
        index = hub.wait_for_app(s, user)
        assert "00_index" in index.text and not _outside_links(index.text)
        page = s.get(f"{hub.url}/user/{user}/voila/render/{PAGE}", timeout=120)
        assert page.status_code == 200 and "<title>02_tiled</title>" in page.text
        assert not _outside_links(page.text), _outside_links(page.text)
        assert "input_area" not in page.text  # sources stripped
        print(f"{user}: login to page 02 in {time.monotonic() - t0:.1f} s")
        sessions[user] = s
        assert (hub.state / "users" / user / PAGE).is_file()  # their own copy of the pages
        # read while it runs: under load the three logins take longer than the test's idle cull
        # (CULL_S), and the first student's server may be culled before the last one is up
        server = hub.api(f"/users/{user}").get("servers", {}).get("", {})
        assert server.get("ready"), server
        servers[user] = server["url"]
    # each server is its own process, in its own folder
    assert len(set(servers.values())) == len(USERS)


def test_a_student_cannot_reach_another_or_the_hub_api_terminals_or_lab(hub):
    a, b = USERS[0], USERS[1]
    sb = hub.login(b)
    hub.wait_for_app(sb, b)
    s = hub.login(a)
    hub.wait_for_app(s, a)
    # b's server running (just used: the test hub culls after CULL_S idle seconds): a's cookie
    # reaches it and is refused there (a stopped server is refused by the hub, with a 404)
    hub.wait_for_app(sb, b)
    assert hub.server_running(b)
    other = s.get(f"{hub.url}/user/{b}/voila/render/{PAGE}", timeout=60)
    assert other.status_code == 403, (other.status_code, other.url)
    assert s.get(f"{hub.url}/hub/api/users", timeout=30).status_code == 403
    hub.wait_for_app(s, a)  # a's own server running, so what follows is refused by it, not by the hub
    assert s.get(f"{hub.url}/user/{a}/lab", timeout=30).status_code == 404
    assert s.get(f"{hub.url}/user/{a}/api/terminals", timeout=30).status_code == 404
    anonymous = requests.get(f"{hub.url}/user/{a}/voila/render/{PAGE}", timeout=30)
    assert "/hub/login" in anonymous.url  # no cookie: the login page, not the app


@pytest.mark.browser
def test_a_student_steps_page_02_in_chromium_and_nothing_leaves_the_machine(hub, browser_page, page_errors):
    page = browser_page
    user = USERS[2]
    page.goto(f"{hub.url}/hub/login")
    page.fill("input[name=username]", user)
    page.fill("input[name=password]", PASSWORD)
    page.click("input[type=submit], button[type=submit]")
    page.wait_for_url(re.compile(rf"/user/{user}/voila/render/00_index\.ipynb"), timeout=120_000)
    page.goto(f"{hub.url}/user/{user}/voila/render/{PAGE}")
    label = ".explainer-stepper .explainer-step-label"
    page.locator(label).filter(has_text="step 1 of").wait_for(timeout=120_000)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.locator("body").press("ArrowRight")
    page.locator(label).filter(has_text=re.compile(r"step 2 of \d+")).wait_for(timeout=10_000)
    assert page.outside == [], page.outside
    assert "There was an error when executing cell" not in page.locator("body").inner_text()
    # leaving the page releases its kernel (Voila's beacon on unload), not the idle cull minutes later
    token = {"Authorization": f"token {hub.token(user)}"}
    kernel = page.evaluate("() => JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId")
    kernels = lambda: {k["id"] for k in requests.get(f"{hub.url}/user/{user}/api/kernels", headers=token, timeout=30).json()}
    assert kernel in kernels()
    page.close(run_before_unload=True)  # the student closes the tab
    deadline = time.monotonic() + 15
    while kernel in kernels():
        assert time.monotonic() < deadline, f"page 02's kernel outlived its tab:\n{hub.log_tail()}"
        time.sleep(0.5)


def test_an_idle_server_is_culled_and_comes_back_on_the_next_visit(hub):
    user = USERS[1]
    s = hub.login(user)
    hub.wait_for_app(s, user)
    assert hub.server_running(user)
    deadline = time.monotonic() + CULL_S + 120
    while hub.server_running(user):
        if time.monotonic() > deadline:
            raise AssertionError(f"{user}'s idle server was not culled:\n{hub.log_tail()}")
        time.sleep(2)
    assert f"Culling server {user}" in hub.log.read_text(errors="replace") or "idle" in hub.log_tail()
    back = hub.wait_for_app(s, user)  # the next visit starts it again
    assert back.status_code == 200 and hub.server_running(user)


def test_a_student_using_the_app_is_not_culled(hub):
    """The hub hears of activity every CULL_S / 4 s (the shipped config): a student who keeps
    using the app for twice the cull timeout keeps the server."""
    user = USERS[2]
    s = hub.login(user)
    hub.wait_for_app(s, user)
    end = time.monotonic() + 2 * CULL_S
    while time.monotonic() < end:
        r = s.get(f"{hub.url}/user/{user}/api/status", timeout=60)  # as an open page does
        assert r.status_code == 200 and hub.server_running(user), f"{user} lost the server while using it"
        time.sleep(3)
    assert f"Culling server {user}" not in hub.log.read_text(errors="replace").split("User logged in: " + user)[-1]


# ---- who may do what: the attack tests -----------------------------------------------------------

def _account(user: str):
    import pwd

    from explainer.app.hub_spawner import account_name

    return pwd.getpwnam(account_name(user))


def _server_pid(h: Hub, user: str) -> int:
    for p in _descendants(h.proc.pid):
        try:
            cmd = Path(f"/proc/{p}/cmdline").read_text()
            if "jupyterhub.singleuser" in cmd and Path(f"/proc/{p}/cwd").resolve() == (h.state / "users" / user).resolve():
                return p
        except OSError:
            continue
    raise AssertionError(f"no server process of {user}")


def _server_pids(h: Hub, user: str) -> set[int]:
    """The student's server process and its kernels (the server's own process tree)."""
    p = _server_pid(h, user)
    return {p} | _descendants(p)


def _kernel_messages(h: Hub, user: str, token: str, kernel: str, send, wait_s: float = 6.0):
    return exchange(f"ws{h.url[4:]}/user/{user}/api/kernels/{kernel}/channels", send, wait_s=wait_s,
                    headers=[f"Authorization: token {token}"], user=user)


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="per-student accounts need the hub to run as root")


@needs_root
def test_each_student_runs_as_an_account_of_their_own_and_the_hubs_secrets_are_its_own(hub):
    """Voila only, the hub as root: every process of a student's server is their account's
    (never root, never another's); their folder is theirs alone; the hub's database and cookie
    secret are root's, mode 0600; kernels listen on Unix sockets in a private folder, no TCP."""
    import json

    seen = {}
    for user in USERS[:2]:
        s = hub.login(user)
        hub.wait_for_app(s, user)
        assert s.get(f"{hub.url}/user/{user}/voila/render/{PAGE}", timeout=120).status_code == 200
        pw = _account(user)
        pids = _server_pids(hub, user)
        assert len(pids) >= 2, pids  # the server and page 02's kernel at least
        assert {Path(f"/proc/{p}").stat().st_uid for p in pids} == {pw.pw_uid} and pw.pw_uid != 0
        home = hub.state / "users" / user
        assert home.stat().st_uid == pw.pw_uid and stat.S_IMODE(home.stat().st_mode) == 0o700
        seen[user] = pw.pw_uid
        kernels = [json.loads(f.read_text()) for p in pids
                   for f in [Path(a.split("=", 1)[-1]) for a in Path(f"/proc/{p}/cmdline").read_text().split("\0")
                             if a.endswith(".json") and "kernel-" in a]]
        assert kernels and all(k["transport"] == "ipc" for k in kernels), kernels
        sockets = Path(kernels[0]["ip"]).parent
        assert sockets.stat().st_uid == pw.pw_uid and stat.S_IMODE(sockets.stat().st_mode) & 0o077 == 0
    assert len(set(seen.values())) == 2
    for secret in ("jupyterhub_cookie_secret", "jupyterhub.sqlite"):
        st = (hub.state / secret).stat()
        assert st.st_uid == os.geteuid() and stat.S_IMODE(st.st_mode) & 0o077 == 0, (secret, oct(st.st_mode))
    assert stat.S_IMODE((hub.state / "users").stat().st_mode) == 0o711  # reach your own, list nobody's
    assert "Kernel is running over TCP" not in hub.log.read_text(errors="replace")


def test_the_servers_api_refuses_all_the_pages_do_not_use(hub):
    """With a token of their own (no _xsrf needed), a student asks their own server for what
    Jupyter's API gives: only what the pages use answers; starting a kernel or a session,
    reading or writing files, nbconvert, a shutdown are refused by the server's authorizer."""
    user = USERS[0]
    s = hub.login(user)
    hub.wait_for_app(s, user)
    h = {"Authorization": f"token {hub.token(user)}"}
    base = f"{hub.url}/user/{user}"
    assert requests.get(f"{base}/api/kernels", headers=h, timeout=30).status_code == 200  # the token works
    refused = {("POST", "api/kernels"): "write on resource: kernels",
               ("POST", "api/sessions"): "write on resource: sessions",
               ("GET", "api/sessions"): "read on resource: sessions",
               ("GET", "api/contents"): "read on resource: contents",
               ("GET", f"api/contents/{PAGE}"): "read on resource: contents",
               ("PUT", "api/contents/mine.py"): "write on resource: contents",
               ("GET", f"files/{PAGE}"): None, ("GET", f"nbconvert/html/{PAGE}"): None,
               ("POST", "api/shutdown"): None}
    for (method, path), why in refused.items():
        r = requests.request(method, f"{base}/{path}", headers=h, json={} if method != "GET" else None, timeout=30)
        assert r.status_code == 403, (method, path, r.status_code, r.text[:200])
        if why:
            assert f"User is not authorized to {why}." in r.text, r.text[:300]
        assert f"refused: {method} /user/{user}/{path}" in hub.log.read_text(errors="replace")
    # Voila's own routes read within the student's folder only
    for path in ("voila/api/contents/..%2F", "voila/files/..%2F..%2Fjupyterhub_cookie_secret",
                 "voila/render/..%2F..%2Fjupyterhub.sqlite"):
        r = requests.get(f"{base}/{path}", headers=h, timeout=30)
        assert r.status_code in (403, 404), (path, r.status_code)


def test_a_pages_kernel_runs_no_code_the_browser_sends(hub):
    """The kernel page 02 runs in answers the kernel-info handshake on its channel (the
    channel works), and drops an execute_request on each of its channels (shell, control,
    stdin): no reply, no effect, and the server's log says which message it refused."""
    user = USERS[1]
    s = hub.login(user)
    hub.wait_for_app(s, user)
    token = hub.token(user)
    page = requests.get(f"{hub.url}/user/{user}/voila/render/{PAGE}", timeout=120,
                        headers={"Authorization": f"token {token}"})
    kernel = page_kernel(page.text)
    marker = Path(tempfile.gettempdir()) / f"explainer-attack-{kernel}"
    before = hub.log.read_text(errors="replace").count(REFUSED)
    got = _kernel_messages(hub, user, token, kernel, code_on_every_channel(str(marker)))
    kinds = [k for _, k, _ in got]
    assert "kernel_info_reply" in kinds, kinds
    assert "execute_reply" not in kinds and "execute_input" not in kinds and "stream" not in kinds, kinds
    assert not marker.exists()
    assert hub.log.read_text(errors="replace").count(REFUSED) - before == 3


@pytest.fixture(scope="module")
def lab_hub(python_for_students):
    """A hub with --lab (students get JupyterLab and kernels of their own), with a memory and a
    CPU limit small enough to test."""
    if os.geteuid() != 0:
        pytest.skip("--lab needs per-student accounts, so a hub run as root")
    users = ("lea", "max")
    h = start_hub('c.Spawner.mem_limit = "1G"\nc.Spawner.cpu_limit = 0.5\n',
                  "--lab", users=users)
    try:
        yield h
    finally:
        stop_hub(h, users)


def _lab_kernel(h: Hub, user: str) -> tuple[str, str]:
    """As the student: log in, start a kernel of their own through the API (--lab allows it)."""
    s = h.login(user)
    h.wait_for_app(s, user)
    token = h.token(user)
    r = requests.post(f"{h.url}/user/{user}/api/kernels", json={"name": "python3"}, timeout=60,
                      headers={"Authorization": f"token {token}"})
    assert r.status_code == 201, (r.status_code, r.text[:300])
    return token, r.json()["id"]


def _run(h: Hub, user: str, token: str, kernel: str, code: str, wait_s: float = 60) -> str:
    got = _kernel_messages(h, user, token, kernel, [("shell", "execute_request", execute(code))], wait_s=wait_s)
    return "".join(c.get("text", "") for _, k, c in got if k == "stream") + "".join(
        f"{c.get('ename')}: {c.get('evalue')}" for _, k, c in got if k == "error")


@needs_root
def test_with_lab_a_students_code_reaches_nothing_of_the_hub_or_another_student(lab_hub):
    """lea runs Python in a kernel of her own. As her account it cannot read the hub's secrets
    or state, list the students' folders, read max's folder or notebook, list or connect to
    max's kernel sockets, signal max's processes or read the hub's environment."""
    import json

    h = lab_hub
    _lab_kernel(h, "max")
    token, kernel = _lab_kernel(h, "lea")
    max_pids = _server_pids(h, "max")
    max_server = _server_pid(h, "max")
    max_kernel_file = next(a for p in max_pids for a in Path(f"/proc/{p}/cmdline").read_text().split("\0")
                           if a.endswith(".json") and "kernel-" in a)
    max_socket = json.loads(Path(max_kernel_file).read_text())["ip"] + "-1"
    assert Path(max_socket).exists()
    st = h.state
    code = f"""
import json, os, signal, socket
res = {{"uid": os.getuid()}}
def attempt(name, f):
    try:
        f()
        res[name] = "DONE"
    except PermissionError:
        res[name] = "refused"
    except Exception as e:
        res[name] = type(e).__name__ + ": " + str(e)
attempt("cookie secret", lambda: open({str(st / 'jupyterhub_cookie_secret')!r}).read())
attempt("database", lambda: open({str(st / 'jupyterhub.sqlite')!r}, "rb").read(16))
attempt("students' folders", lambda: os.listdir(".."))
attempt("max's folder", lambda: os.listdir({str(st / 'users' / 'max')!r}))
attempt("max's notebook", lambda: open({str(st / 'users' / 'max' / PAGE)!r}).read())
attempt("max's sockets", lambda: os.listdir({str(Path(max_socket).parent)!r}))
attempt("max's kernel", lambda: socket.socket(socket.AF_UNIX).connect({max_socket!r}))
attempt("signal max", lambda: os.kill({max_server}, signal.SIGTERM))
attempt("hub's environment", lambda: open("/proc/{h.proc.pid}/environ").read())
print(json.dumps(res))
"""
    out = _run(h, "lea", token, kernel, code)
    res = json.loads(out.strip().splitlines()[-1])
    assert res.pop("uid") == _account("lea").pw_uid != 0
    assert res == {k: "refused" for k in res} and len(res) == 9, res
    assert _alive({max_server})


@needs_root
def test_with_lab_one_students_runaway_code_stays_within_their_limits(lab_hub):
    """An endless loop gets lea half a core at most (cpu_limit 0.5); an allocation beyond her
    1 GB ends her kernel, not max's server nor the hub."""
    import logging

    from explainer.app.hub_spawner import ControlGroup

    probe = ControlGroup("probe-limits", logging.getLogger())
    if not probe.dirs:
        pytest.skip("this machine lets the hub make no control groups: limits are RLIMIT_NPROC and niceness only")
    probe.remove()
    h = lab_hub
    token, kernel = _lab_kernel(h, "lea")
    out = _run(h, "lea", token, kernel, """
import os, time
t0, c0 = time.monotonic(), os.times()
while time.monotonic() - t0 < 6:
    pass
c1 = os.times()
print((c1.user + c1.system - c0.user - c0.system) / (time.monotonic() - t0))
""")
    share = float(out.strip().splitlines()[-1])
    assert share < 0.5 * 1.25, f"lea's loop had {share:.2f} of a core"
    max_server = _server_pid(h, "max") if h.server_running("max") else None
    before = h.log.read_text(errors="replace").count("restarting kernel")
    out = _run(h, "lea", token, kernel, "import numpy\nx = numpy.ones(3 * 1024**3 // 8)\nprint('allocated', x.sum())",
               wait_s=30)
    assert "allocated" not in out, out
    deadline = time.monotonic() + 30
    while "MemoryError" not in out and h.log.read_text(errors="replace").count("restarting kernel") == before:
        assert time.monotonic() < deadline, f"lea's kernel took 3 GB with a 1 GB limit:\n{h.log_tail()}"
        time.sleep(1)
    assert h.server_running("lea") and (max_server is None or _alive({max_server}))
    assert requests.get(f"{h.url}/hub/login", timeout=10).status_code == 200


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_stopping_the_hub_stops_everything_it_started(python_for_students, sig):
    """A hub of its own (the module's keeps running for the other tests): one student with page
    02 open (their server and its kernels), then SIGTERM or SIGINT: within 30 s no process of
    the hub, its proxy, its culler, the server, its kernels or the student's account is left."""
    h = start_hub("", users=("zoe",))
    try:
        s = h.login("zoe")
        h.wait_for_app(s, "zoe")
        assert s.get(f"{h.url}/user/zoe/voila/render/{PAGE}", timeout=120).status_code == 200
        started = _descendants(h.proc.pid)
        cmds = " ".join(Path(f"/proc/{p}/cmdline").read_text() for p in _alive(started))
        # the hub, its proxy (node), the idle culler, zoe's server and its kernels, at least
        assert "singleuser" in cmds and "ipykernel" in cmds and "configurable-http-proxy" in cmds, cmds
        if os.geteuid() == 0:
            from explainer.app.hub_spawner import processes_of

            started |= set(processes_of(_account("zoe").pw_uid))
        t0 = time.monotonic()
        h.proc.send_signal(sig)
        h.proc.wait(timeout=40)
        while _alive(started) and time.monotonic() - t0 < 30:
            time.sleep(0.5)
        took = time.monotonic() - t0
        print(f"{sig.name}: everything stopped in {took:.1f} s")
        assert not _alive(started), [Path(f"/proc/{p}/cmdline").read_text() for p in _alive(started)]
    finally:
        stop_hub(h, ("zoe",))
