"""The live app's idle culling against Voila's pool of pre-run kernels: a page's kernel that waited
in the pool longer than the cull timeout is not shut down in the seconds between Voila handing it
out and the browser connecting to it (it was: the page then stayed dead with a 404), and a page
that never connects is still freed one timeout later.

Real Voila, started as ``tiled-explainer serve`` starts it (:func:`voila_command`,
:func:`voila_env`), on a one-cell notebook, with a 6 s cull timeout checked every second;
and the rule itself, minute by minute, on a clock the test holds."""

from __future__ import annotations

import asyncio
import json
import re
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from types import SimpleNamespace

import nbformat
import pytest
from conftest import _free_port, serving

from explainer.app import kernel_manager, serve
from explainer.app.kernel_manager import ExplainerKernelManager

TIMEOUT_S = 6
INTERVAL_S = 1


def _kernel_exists(base: str, kernel_id: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/api/kernels/{kernel_id}", timeout=5) as reply:
            return json.load(reply)["id"] == kernel_id
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return False
        raise


@pytest.fixture
def pooled_server(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 6 * 7\nx")])
    nbformat.write(nb, root / "01_page.ipynb")
    config = tmp_path / "config"
    config.mkdir()
    port = _free_port()
    short = {f"--MappingKernelManager.cull_idle_timeout={serve.CULL_IDLE_TIMEOUT_S}":
             f"--MappingKernelManager.cull_idle_timeout={TIMEOUT_S}",
             f"--MappingKernelManager.cull_interval={serve.CULL_INTERVAL_S}":
             f"--MappingKernelManager.cull_interval={INTERVAL_S}",
             f"--port={port}": "--port"}  # serving() reads the port after --port
    cmd = serve.voila_command(root, port, "localhost")
    assert set(short) <= set(cmd), cmd
    cmd = [short.get(arg, arg) for arg in cmd]
    cmd.insert(cmd.index("--port") + 1, str(port))
    with serving(cmd, root, tmp_path / "voila.log", env=serve.voila_env(config)) as server:
        yield server


def _wait_for(predicate, seconds: float, what: str, server) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} within {seconds} s. Server log:\n{server.log_tail()}", pytrace=False)
        time.sleep(0.2)


def test_a_kernel_long_in_the_pool_survives_until_its_page_connects(pooled_server):
    server = pooled_server
    _wait_for(lambda: "is filled with" in server.log.read_text(errors="replace"), 60,
              "Voila did not fill its pool", server)
    time.sleep(TIMEOUT_S + 2 * INTERVAL_S)  # the pooled kernel is now idle for longer than the timeout
    asked = time.monotonic()  # the kernel is handed out after this; culling it is right from TIMEOUT_S on
    with urllib.request.urlopen(server.page_url("01_page.ipynb"), timeout=60) as reply:
        html = reply.read().decode()
    ids = set(re.findall(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", html))
    assert "Using pre-heated kernel" in server.log.read_text(errors="replace"), "the page did not come from the pool"
    handed_out = [k for k in ids if _kernel_exists(server.url, k)]
    assert len(handed_out) == 1, (ids, server.log_tail())
    kernel_id = handed_out[0]
    # a loaded hall: the browser connects seconds later; the culler has ticked meanwhile
    watched = asked + TIMEOUT_S - INTERVAL_S
    assert watched - time.monotonic() > 2 * INTERVAL_S, "the page took too long to judge the culler's next looks"
    while time.monotonic() < watched:
        assert _kernel_exists(server.url, kernel_id), (
            f"the page's kernel was culled before its page connected. Server log:\n{server.log_tail()}")
        time.sleep(0.2)
    # a page that never connects is freed after one timeout of its own
    _wait_for(lambda: not _kernel_exists(server.url, kernel_id), TIMEOUT_S + 4 * INTERVAL_S + 5,
              "the kernel of a page that never connected was not culled", server)


def test_the_kernel_manager_is_what_voila_is_told_to_use(tmp_path):
    env = serve.voila_env(tmp_path)
    config = json.loads((tmp_path / "voila.json").read_text())
    name = config["VoilaConfiguration"]["multi_kernel_manager_class"]
    module, _, cls = name.rpartition(".")
    from importlib import import_module

    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

    assert issubclass(getattr(import_module(module), cls), AsyncMappingKernelManager)
    assert str(tmp_path) in env["JUPYTER_CONFIG_PATH"].split(":")


class _Kernel:
    """What the culler reads of a kernel: its spec's metadata, state and last activity."""

    def __init__(self, last_activity):
        self.kernel_spec = SimpleNamespace(metadata={})
        self.execution_state = "idle"
        self.last_activity = last_activity
        self.kernel_name = "python3"


class _Manager(ExplainerKernelManager):
    """The kernel manager with its kernels and clock in the test's hands; shutting down records."""

    def __init__(self, clock):
        super().__init__(cull_idle_timeout=300, cull_interval=60)
        self.clock, self.shut = clock, []

    async def shutdown_kernel(self, kernel_id, *args, **kwargs):
        self.shut.append(kernel_id)
        self._unconnected_since.pop(kernel_id, None)
        self._kernels.pop(kernel_id)


def test_the_culler_counts_idleness_from_when_the_pool_let_a_kernel_go(monkeypatch):
    """Minute by minute, as the culler looks: a kernel seen once while starting, then held by the
    pool for an hour (the culler does not reach this class for it), handed out with an hour-old
    last activity; a kernel whose page stays connected; a kernel that never connects."""
    clock = SimpleNamespace(now=0.0)
    monkeypatch.setattr(kernel_manager.time, "monotonic", lambda: clock.now)
    from jupyter_server._tz import utcnow

    manager = _Manager(clock)
    start = utcnow() - timedelta(hours=2)  # every kernel is long idle by its last activity: the rule here decides
    manager._kernels.update(pooled=_Kernel(start), connected=_Kernel(start), alone=_Kernel(start))
    manager._kernel_connections["connected"] = 1

    def look(*ids):
        # in a thread of its own: Playwright's sync API, used earlier in the same pytest run, leaves
        # its event loop marked running in the main thread, where asyncio.run() then refuses to run
        with ThreadPoolExecutor(1) as pool:
            for kid in ids:
                pool.submit(asyncio.run, manager.cull_kernel_if_idle(kid)).result()

    look("pooled", "connected", "alone")  # minute 0: all three starting
    for minute in range(1, 61):
        clock.now = 60.0 * minute
        look("connected", "alone")
        if minute == 6:
            assert manager.shut == ["alone"]  # never connected: freed once unconnected for the timeout (5 min)
    # an hour on, the pooled kernel is handed out: the next look sees an hour of idleness and no connection
    for minute in range(61, 66):
        clock.now = 60.0 * minute
        look("pooled", "connected")
        assert manager.shut == ["alone"], f"minute {minute}: the handed-out kernel was culled before its page connected"
    clock.now = 60.0 * 66
    look("pooled", "connected")
    assert manager.shut == ["alone", "pooled"]  # its page never connected: freed one timeout after
    assert "connected" in manager._kernels  # connected tabs are never culled however idle
