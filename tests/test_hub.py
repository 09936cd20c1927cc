"""`tiled-explainer hub` with real parts: JupyterHub, configurable-http-proxy from npm, each
student's own Jupyter server with Voila, and headless Chromium. The shipped config is used as
is; only the authenticator is swapped for JupyterHub's dummy one (in a test config loaded after
it), and a test service gets an admin token to watch the servers.

Three students log in and each gets page 02 from their own server; one steps it in Chromium
with the arrow key and no request leaves the machine; a student cannot reach another's server,
the hub API, a terminal or JupyterLab; an idle server is culled and comes back on the next visit;
stopping the hub stops everything it started.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("jupyterhub")
pytest.importorskip("jupyterhub_idle_culler")
requests = pytest.importorskip("requests")

from explainer.app import hub as hub_cmd  # noqa: E402

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

    def server_running(self, user: str) -> bool:
        return bool(self.api(f"/users/{user}").get("servers", {}).get("", {}).get("ready"))

    def login(self, user: str) -> requests.Session:
        s = requests.Session()
        s.get(f"{self.url}/hub/login", timeout=30)
        r = s.post(f"{self.url}/hub/login?next=", timeout=60,
                   data={"username": user, "password": PASSWORD, "_xsrf": s.cookies.get("_xsrf")})
        assert r.status_code == 200, (r.status_code, r.url)
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
                s.get(f"{self.url}{m.group(1)}", timeout=60)
            if time.monotonic() > deadline:
                raise AssertionError(f"{user}'s app did not open: {r.status_code} {r.url}\n{self.log_tail()}")
            time.sleep(0.5)


def _outside_links(text: str) -> list[str]:
    return sorted({u for u in re.findall(r"(?:src|href)=[\"'](https?://[^\"']+)", text)
                   if not re.match(r"https?://(127\.0\.0\.1|localhost)[:/]", u)})


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    root = tmp_path_factory.mktemp("hub")
    state, log = root / "state", root / "hub.log"
    extra = root / "test_config.py"
    extra.write_text(f"""c = get_config()  # noqa
# tests only: JupyterHub's dummy authenticator, with a password and three students
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {PASSWORD!r}
c.Authenticator.allow_all = False
c.Authenticator.allowed_users = {set(USERS)!r}
# a watcher service with an admin token, so the test can see servers stop and start
c.JupyterHub.services.append({{"name": "test-watcher", "api_token": {TOKEN!r}}})
c.JupyterHub.load_roles.append({{"name": "test-watcher", "scopes": ["admin:users", "admin:servers"], "services": ["test-watcher"]}})
""")
    port = _free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "EXPLAINER_NO_GPU": "1",
           hub_cmd.PROXY_DIR_ENV: os.environ.get(hub_cmd.PROXY_DIR_ENV) or str(Path.home() / ".cache" / "tiled-explainer" / "proxy")}
    cmd = [sys.executable, "-m", "explainer", "hub", "--port", str(port), "--state", str(state),
           "--extra-config", str(extra), "--cull", str(CULL_S)]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    h = Hub(f"http://127.0.0.1:{port}", log, state, proc)
    deadline = time.monotonic() + 180  # the first run installs the proxy from npm
    while True:
        if proc.poll() is not None:
            pytest.fail(f"the hub exited with {proc.returncode}:\n{h.log_tail()}", pytrace=False)
        try:
            if requests.get(f"{h.url}/hub/login", timeout=5).status_code == 200:
                break
        except requests.ConnectionError:
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"the hub did not answer in time:\n{h.log_tail()}", pytrace=False)
        time.sleep(0.5)
    try:
        yield h
    finally:
        proc.send_signal(signal.SIGTERM)  # the hub stops the proxy, the services and every server
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


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


def test_hub_command_refuses_bad_input_in_one_line(tmp_path):
    for args, msg in ((["--password", "short"], "at least 8 characters"),
                      (["--password", "long-enough", "--port", "0"], "--port must be"),
                      (["--password", "long-enough", "--extra-config", str(tmp_path / "nope.py")], "no such file"),
                      (["--password", "long-enough", "--cull", "3"], "--cull must be")):
        p = subprocess.run([sys.executable, "-m", "explainer", "hub", *args, "--state", str(tmp_path / "s")],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 2 and msg in p.stderr and "Traceback" not in p.stderr, p.stderr
        assert len(p.stderr.strip().splitlines()) == 1


def test_three_students_each_get_page_02_from_their_own_server(hub):
    sessions = {}
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
        assert hub.server_running(user)
    # each server is its own process, in its own folder
    servers = {u: hub.api(f"/users/{u}")["servers"][""]["url"] for u in USERS}
    assert len(set(servers.values())) == len(USERS)


def test_a_student_cannot_reach_another_or_the_hub_api_terminals_or_lab(hub):
    a, b = USERS[0], USERS[1]
    s = hub.login(a)
    hub.wait_for_app(s, a)
    other = s.get(f"{hub.url}/user/{b}/voila/render/{PAGE}", timeout=60)
    assert other.status_code == 403, (other.status_code, other.url)
    assert s.get(f"{hub.url}/hub/api/users", timeout=30).status_code == 403
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


def test_stopping_the_hub_stops_everything_it_started(tmp_path):
    """A hub of its own (the module's keeps running for the other tests): one student's server,
    then SIGTERM: no process of the hub, its proxy, its culler or the server is left."""
    state = tmp_path / "state"
    extra = tmp_path / "c.py"
    extra.write_text(f"""c = get_config()  # noqa
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {PASSWORD!r}
c.Authenticator.allow_all = True
""")
    port = _free_port()
    log = tmp_path / "hub.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "explainer", "hub", "--port", str(port), "--state", str(state),
                                 "--extra-config", str(extra)], cwd=REPO, stdout=out, stderr=subprocess.STDOUT,
                                env={**os.environ, "EXPLAINER_NO_GPU": "1"}, start_new_session=True)
    h = Hub(f"http://127.0.0.1:{port}", log, state, proc)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if requests.get(f"{h.url}/hub/login", timeout=5).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, h.log_tail()
            time.sleep(0.5)
        s = h.login("zoe")
        h.wait_for_app(s, "zoe")
        started = _descendants(proc.pid)
        # the hub, its proxy (node), the idle culler and zoe's server, at least
        assert len(started) >= 3, started
        assert any("singleuser" in open(f"/proc/{p}/cmdline").read() for p in _alive(started)), started
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    deadline = time.monotonic() + 30
    while _alive(started) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not _alive(started), [open(f"/proc/{p}/cmdline").read() for p in _alive(started)]
