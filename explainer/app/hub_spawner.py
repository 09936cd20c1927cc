"""Each student's server on the class hub: their folder, their own OS account, their own kernel
sockets, and limits.

:class:`StudentSpawner` is JupyterHub's ``LocalProcessSpawner`` (a process on this machine)
with what a class needs:

* **an account per student** when the hub runs as root (the usual case on a lecture machine or
  in a container): ``te-<name>`` (see :func:`account_name`), created on the student's first login
  with ``useradd --system``, no password and no login shell. Their server and every kernel it
  starts run as that account, never as root; their folder ``STATE/users/<name>`` is theirs with
  mode 0700, so other students (and their kernels, with ``--lab``) cannot read it, and the hub's
  database and cookie secret (mode 0600, root's) are out of reach. A hub that is not root cannot
  switch accounts: every server then runs as the hub's own user, which is safe only while
  students run no code (the default, pages-only set-up; ``tiled-explainer hub --lab`` refuses);
* **kernel sockets in a private folder**: the servers' kernels talk over IPC (Unix) sockets in
  ``/run/tiled-explainer/<hub>/<uid>`` (mode 0700, the student's), not TCP ports on loopback,
  which any local process could reach and which two kernels starting at once could both pick;
* **limits per student** (``c.Spawner.mem_limit``, ``c.Spawner.cpu_limit``,
  ``c.StudentSpawner.tasks_limit``): enforced by a control group per student where the machine
  lets the hub make them (cgroup v2, or v1's memory, cpu and pids hierarchies), so one student's
  endless loop or runaway allocation stays within its share; without control groups, the number
  of processes and threads per account (RLIMIT_NPROC) and a lower CPU priority;
* **nothing left behind**: when a server stops (culled, or the hub stopping), every process of
  the student's account and control group is ended.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import pwd
import re
import resource
import shutil
import signal
import tempfile
import time
from pathlib import Path

from jupyterhub.spawner import LocalProcessSpawner, set_user_setuid
from traitlets import Bool, Integer, Unicode, default

PREFIX = "te-"
MARK = "tiled-explainer student"  # the accounts' comment field: the hub only uses accounts it made
CGROUP_ROOT = Path("/sys/fs/cgroup")
CGROUP_PARENT = "tiled-explainer"
CPU_PERIOD_US = 100_000
MAX_SOCKET_PATH = 107  # sun_path is 108 bytes; ZeroMQ needs the terminating zero
_useradd = asyncio.Lock()  # useradd locks /etc/passwd: one account at a time


class SpawnError(RuntimeError):
    """A reason a student's server cannot start (shown in the hub's log and to the student)."""


def account_name(user: str) -> str:
    """The OS account of hub user ``user``: ``te-`` and its letters and digits (20 at most), with
    a hash of the whole name when anything was dropped, so two names never share an account and
    no student name can reach an existing account (``root`` becomes ``te-root``)."""
    clean = re.sub(r"[^a-z0-9]", "", user.lower())[:20]
    name = PREFIX + (clean or "x")
    if clean != user:
        name += "-" + hashlib.sha256(user.encode()).hexdigest()[:6]
    return name


def student_accounts(users_dir: Path) -> set[int]:
    """The uids that own the students' folders under ``users_dir`` (not root, not the hub's)."""
    uids = set()
    for d in users_dir.iterdir() if users_dir.is_dir() else ():
        uid = d.lstat().st_uid
        if uid not in (0, os.geteuid()):
            uids.add(uid)
    return uids


def processes_of(uid: int) -> list[int]:
    out = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if p.stat().st_uid == uid:
                    out.append(int(p.name))
            except OSError:
                continue
    return out


def end_processes(pids, grace: float = 3.0) -> None:
    """SIGTERM, then SIGKILL after ``grace`` seconds to whatever is left of ``pids``."""
    pids = set(pids) - {os.getpid()}
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for p in list(pids):
            try:
                os.kill(p, sig)
            except (ProcessLookupError, PermissionError):
                pids.discard(p)
        deadline = time.monotonic() + grace
        while pids and time.monotonic() < deadline:
            pids = {p for p in pids if _alive(p)}
            time.sleep(0.1)
        if not pids:
            return


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _private_dir(path: Path, mode: int, uid: int | None = None, gid: int | None = None) -> None:
    """``path`` as a real folder (no symlink) of ``mode``, owned by the hub or by uid:gid."""
    path.mkdir(mode=mode, parents=False, exist_ok=True)
    st = path.lstat()
    if not path.is_dir() or path.is_symlink() or st.st_uid not in (os.geteuid(), uid):
        raise SpawnError(f"{path} is not a folder of the hub's own")
    if uid is not None:
        os.chown(path, uid, gid)
    os.chmod(path, mode)


def _write(path: Path, value) -> None:
    path.write_text(f"{value}\n")


class ControlGroup:
    """One student's control group: cgroup v2, or v1's memory, cpu and pids hierarchies; an
    empty one (``dirs`` empty) where this machine lets the hub make neither."""

    def __init__(self, name: str, log, enabled: bool = True):
        self.dirs: list[Path] = []
        if not enabled:
            return
        try:
            if (CGROUP_ROOT / "cgroup.controllers").is_file():  # v2, unified
                parent = CGROUP_ROOT / CGROUP_PARENT
                parent.mkdir(exist_ok=True)
                want = [c for c in ("memory", "cpu", "pids")
                        if c in (CGROUP_ROOT / "cgroup.controllers").read_text().split()]
                for d in (CGROUP_ROOT, parent):
                    _write(d / "cgroup.subtree_control", " ".join("+" + c for c in want))
                (parent / name).mkdir(exist_ok=True)
                self.dirs = [parent / name]
            else:  # v1: a hierarchy per controller, the students' groups inside the hub's own
                own = dict(line.split(":", 2)[1:] for line in Path("/proc/self/cgroup").read_text().splitlines())
                for c in ("memory", "cpu", "pids"):
                    if (CGROUP_ROOT / c / "cgroup.procs").is_file():
                        mine = next((v for k, v in own.items() if c in k.split(",")), "/").lstrip("/")
                        d = CGROUP_ROOT / c / mine / CGROUP_PARENT / name
                        d.mkdir(parents=True, exist_ok=True)
                        self.dirs.append(d)
        except OSError as e:
            log.warning("no control group for %s (%s): limits by rlimit only", name, e)
            self.dirs = []

    def limit(self, mem_bytes: int | None, cpus: float | None, tasks: int) -> None:
        for d in self.dirs:
            v2 = (d / "cgroup.controllers").exists()
            if mem_bytes and (d / ("memory.max" if v2 else "memory.limit_in_bytes")).exists():
                _write(d / ("memory.max" if v2 else "memory.limit_in_bytes"), mem_bytes)
                if v2 and (d / "memory.swap.max").exists():
                    _write(d / "memory.swap.max", 0)
            if cpus and v2 and (d / "cpu.max").exists():
                _write(d / "cpu.max", f"{int(cpus * CPU_PERIOD_US)} {CPU_PERIOD_US}")
            if cpus and (d / "cpu.cfs_quota_us").exists():
                _write(d / "cpu.cfs_period_us", CPU_PERIOD_US)
                _write(d / "cpu.cfs_quota_us", int(cpus * CPU_PERIOD_US))
            if (d / "pids.max").exists():
                _write(d / "pids.max", tasks)

    def members(self) -> set[int]:
        out = set()
        for d in self.dirs:
            try:
                out |= {int(p) for p in (d / "cgroup.procs").read_text().split()}
            except OSError:
                continue
        return out

    def remove(self) -> None:
        for d in self.dirs:
            try:
                d.rmdir()
            except OSError:
                pass


class StudentSpawner(LocalProcessSpawner):
    """A student's Jupyter server as a local process: see the module's docstring."""

    accounts = Bool(help="Run each student as an account of their own (needs root)").tag(config=True)
    home_dir_template = Unicode(help="The student's folder; {username} is their hub name").tag(config=True)
    pages_dir = Unicode(help="The notebooks copied into a new student's folder").tag(config=True)
    runtime_root = Unicode(help="Where the per-student folders of kernel sockets go").tag(config=True)
    tasks_limit = Integer(1024, help="Processes and threads a student may have at once").tag(config=True)
    niceness = Integer(5, help="Students' CPU priority below the hub's (0: the same)").tag(config=True)

    @default("accounts")
    def _accounts_default(self):
        return os.geteuid() == 0

    @default("runtime_root")
    def _runtime_root_default(self):
        base = Path("/run") if os.geteuid() == 0 and os.access("/run", os.W_OK) else Path(tempfile.gettempdir())
        return str(base / f"tiled-explainer-{os.geteuid()}")

    @property
    def account(self) -> str:
        return account_name(self.user.name) if self.accounts else pwd.getpwuid(os.geteuid()).pw_name

    @property
    def home_dir(self) -> str:
        return self.home_dir_template.format(username=self.user.name)

    def _hub_key(self) -> str:
        return hashlib.sha256(str(Path(self.home_dir).parent).encode()).hexdigest()[:8]

    def runtime_dir(self, uid: int) -> Path:
        key = str(uid) if self.accounts else hashlib.sha256(self.user.name.encode()).hexdigest()[:8]
        return Path(self.runtime_root) / self._hub_key() / key

    # ---- before the server starts ------------------------------------------------------------
    async def _ensure_account(self) -> pwd.struct_passwd:
        name = self.account
        async with _useradd:
            try:
                pw = pwd.getpwnam(name)
            except KeyError:
                nologin = shutil.which("nologin") or "/usr/sbin/nologin"
                proc = await asyncio.create_subprocess_exec(
                    "useradd", "--system", "--user-group", "--no-create-home", "--home-dir", self.home_dir,
                    "--shell", nologin, "--comment", MARK, name,
                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
                out = (await proc.communicate())[0].decode(errors="replace").strip()
                if proc.returncode != 0:
                    raise SpawnError(f"useradd {name} failed: {out}")
                self.log.info("created the account %s for student %s", name, self.user.name)
                pw = pwd.getpwnam(name)
        if pw.pw_gecos != MARK or pw.pw_uid == 0:
            raise SpawnError(f"the account {name} exists and was not made by this hub for a student")
        return pw

    def _prepare(self, uid: int, gid: int) -> None:
        """The student's folder (0700, theirs, with the pages), their socket folder, their limits."""
        home = Path(self.home_dir)
        _private_dir(home.parent, 0o711)
        adopted = home.is_dir() and not home.is_symlink() and home.lstat().st_uid != uid
        _private_dir(home, 0o700, uid, gid)
        if adopted:  # a folder from a hub that ran every student as itself: now the student's
            for p in home.rglob("*"):
                if not p.is_symlink():
                    os.chown(p, uid, gid)
        for nb in Path(self.pages_dir).glob("*.ipynb") if self.pages_dir else ():
            if not (home / nb.name).exists():
                shutil.copyfile(nb, home / nb.name)
                os.chown(home / nb.name, uid, gid)
        run = self.runtime_dir(uid)
        for d in (run.parent.parent, run.parent):
            _private_dir(d, 0o711)
        shutil.rmtree(run, ignore_errors=True)  # no sockets left from an earlier server
        _private_dir(run, 0o700, uid, gid)
        if len(str(run / "kernel-00000000-0000-0000-0000-000000000000-ipc-99")) > MAX_SOCKET_PATH:
            raise SpawnError(f"the kernel socket folder {run} is too long a path for Unix sockets: "
                             "set c.StudentSpawner.runtime_root to a shorter one")
        self.cgroup = ControlGroup(f"{self.account}-{self._hub_key()}", self.log, enabled=self.accounts)
        self.cgroup.limit(self.mem_limit, self.cpu_limit, self.tasks_limit)

    async def start(self):
        if self.accounts:
            pw = await self._ensure_account()
            self._uid, self._gid = pw.pw_uid, pw.pw_gid
        else:
            self._uid, self._gid = os.geteuid(), os.getegid()
        await asyncio.to_thread(self._prepare, self._uid, self._gid)
        return await super().start()

    def make_preexec_fn(self, name):
        """In the server's process, before Python starts: into the student's control group, the
        limits that need root, then (as root) the student's account."""
        procs = [d / "cgroup.procs" for d in self.cgroup.dirs]
        tasks, nice, home = self.tasks_limit, self.niceness, self.home_dir
        become = set_user_setuid(self.account) if self.accounts else None

        def preexec():
            for f in procs:
                with open(f, "w") as out:
                    out.write(str(os.getpid()))
            if become:  # per account: the kernel counts the student's processes, not the hub's
                resource.setrlimit(resource.RLIMIT_NPROC, (tasks, tasks))
            if nice:
                os.nice(nice)
            os.umask(0o077)
            if become:
                become()
            os.chdir(home)

        return preexec

    def user_env(self, env):
        env["USER"] = self.account
        env["HOME"] = self.home_dir
        env["SHELL"] = pwd.getpwnam(self.account).pw_shell if self.accounts else env.get("SHELL", "/bin/sh")
        env["JUPYTER_RUNTIME_DIR"] = str(self.runtime_dir(self._uid))
        return env

    # ---- after it stops ------------------------------------------------------------------------
    async def stop(self, now=False):
        await super().stop(now=now)
        await asyncio.to_thread(self._end_leftovers)

    def _end_leftovers(self) -> None:
        """Kernels the server did not shut down, and anything else the student's account or
        control group still runs."""
        group = getattr(self, "cgroup", None)
        pids = group.members() if group else set()
        uid = os.geteuid()
        if self.accounts:
            try:  # after a hub restart this spawner never started the server: ask the system
                uid = pwd.getpwnam(self.account).pw_uid
            except KeyError:
                return
            pids |= set(processes_of(uid))
        if pids:
            self.log.info("ending %d leftover processes of %s", len(pids), self.user.name)
            end_processes(pids)
        if group:
            group.remove()
        shutil.rmtree(self.runtime_dir(uid), ignore_errors=True)
