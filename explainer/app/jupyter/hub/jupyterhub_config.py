"""JupyterHub configuration shipped with the explainer: every student gets their own live app.

Run through ``tiled-explainer hub`` (which sets the EXPLAINER_HUB_* variables below, installs
the proxy and keeps the hub's state in one folder), or by hand with ``jupyterhub -f`` on this
file after setting them. What it does, each choice explained where it is made:

* authentication: a password the instructor sets, shared by the class
  (``SharedPasswordAuthenticator``: any user name with that password; the instructor logs in as
  admin with the admin password); a course platform's OAuth or LTI replaces it through an extra
  config file (``tiled-explainer hub --extra-config``);
* one server per student, started as a local process in the student's own folder, as their own
  OS account when the hub is root (``StudentSpawner``: kernels on private Unix sockets, limits
  per student), opening straight on the Voila app (the index page), sources stripped, no
  terminals;
* the pages only: the server's REST API and the pages' kernel channels pass only what the pages
  need (``hub_guard``), unless the instructor gives students JupyterLab (``EXPLAINER_HUB_LAB=1``,
  which needs per-student accounts);
* idle kernels culled inside each server, idle servers culled by jupyterhub-idle-culler (a hub
  service); a culled server starts again on the student's next visit.
"""

import json
import os
import sys
from pathlib import Path

from explainer.app.serve import PAGE_EXTENSIONS

c = get_config()  # noqa: F821 (JupyterHub's config loader provides it)
env = os.environ
state = Path(env["EXPLAINER_HUB_STATE"])
notebooks = Path(env["EXPLAINER_HUB_NOTEBOOKS"])

# ---- where it listens: the public port, and the hub and proxy APIs on loopback only ----------
c.JupyterHub.ip = env.get("EXPLAINER_HUB_IP", "127.0.0.1")
c.JupyterHub.port = int(env.get("EXPLAINER_HUB_PORT", "8000"))
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(env.get("EXPLAINER_HUB_API_PORT", "8081"))
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{env.get('EXPLAINER_HUB_PROXY_API_PORT', '8001')}"
c.ConfigurableHTTPProxy.command = [env["EXPLAINER_HUB_PROXY"]]  # installed from npm by the hub command
c.JupyterHub.db_url = f"sqlite:///{state / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(state / "jupyterhub_cookie_secret")
c.ConfigurableHTTPProxy.pid_file = str(state / "jupyterhub-proxy.pid")

# ---- who may log in ---------------------------------------------------------------------------
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = env.get("EXPLAINER_HUB_PASSWORD", "")
if env.get("EXPLAINER_HUB_ADMIN_PASSWORD"):
    c.SharedPasswordAuthenticator.admin_password = env["EXPLAINER_HUB_ADMIN_PASSWORD"]
    c.Authenticator.admin_users = {env.get("EXPLAINER_HUB_ADMIN", "instructor")}
c.Authenticator.allow_all = True  # anyone with the class password (narrow it with allowed_users)

# ---- each student's server ----------------------------------------------------------------------
# A local process in the student's own folder, as their own OS account when the hub is root
# (explainer/app/hub_spawner.py says how: accounts, socket folders, limits, leftovers).
lab = env.get("EXPLAINER_HUB_LAB") == "1"
c.JupyterHub.spawner_class = "explainer.app.hub_spawner.StudentSpawner"
c.StudentSpawner.home_dir_template = str(state / "users" / "{username}")
c.StudentSpawner.pages_dir = str(notebooks)  # copied into a new student's folder, theirs from then on
c.Spawner.cmd = [sys.executable, "-m", "jupyterhub.singleuser"]  # this environment's Python
c.Spawner.default_url = "/voila/render/00_index.ipynb"  # straight to the app, not a file browser
c.JupyterHub.implicit_spawn_seconds = 1  # a culled server starts again when its student comes back
c.Spawner.http_timeout = 60
c.Spawner.start_timeout = 120
# Per student: a server, a kernel per open page (~110 MB each) and, with --lab, their own
# work; one core at most, so an endless loop slows only its owner.
c.Spawner.mem_limit = "2G"
c.Spawner.cpu_limit = 1.0
c.Spawner.args = [
    # Idle kernels (a Voila page left open costs ~110 MB) are culled inside each server after 5
    # minutes without a connected browser; the server itself by the idle culler below.
    "--MappingKernelManager.cull_idle_timeout=300", "--MappingKernelManager.cull_interval=60",
    # Kernels talk to the server over Unix sockets in the student's private runtime folder:
    # nothing to collide on or to connect to, as loopback TCP ports are.
    "--KernelManager.transport=ipc",
]

server_config = state / "server-config"  # a Jupyter config folder every student's server reads first
server_config.mkdir(parents=True, exist_ok=True)
os.chmod(server_config, 0o755)  # read by the students' accounts; it holds no secret
server = {
    "terminals_enabled": False,  # no shell for students
    # Voila only, unless the instructor enables the lab (EXPLAINER_HUB_LAB=1)
    "jpserver_extensions": {"jupyterlab": lab, "notebook": lab, "notebook_shim": lab,
                            "jupyter_lsp": lab, "jupyter_server_terminals": False,
                            "voila.server_extension": True,
                            # a course's grading tool (docs/grading.md), installed alongside: the lab only
                            **{f"nbgrader.server_extensions.{x}": lab
                               for x in ("formgrader", "validate_assignment", "assignment_list", "course_list")}},
    # Voila inside a Jupyter server takes MathJax from a public CDN unless the server says
    # where it is; the pages need none (as `tiled-explainer serve`, where Voila sets none)
    "tornado_settings": {"mathjax_url": "", "mathjax_config": ""},
}
kernels = {}
if not lab:
    # The pages only: Jupyter's REST API answers 403 to all the pages do not use, and a page's
    # kernel channel drops every message but the widgets' (explainer/app/hub_guard.py).
    from explainer.app.hub_guard import BROWSER_MESSAGES

    server["authorizer_class"] = "explainer.app.hub_guard.PagesOnlyAuthorizer"
    kernels["allowed_message_types"] = BROWSER_MESSAGES
config_file = server_config / "jupyter_server_config.json"
config_file.write_text(json.dumps({
    "ServerApp": server,
    "MappingKernelManager": kernels,
    # lab's template minus its CDN links (explainer/app/jupyter/voila/templates/explainer), no code
    "VoilaConfiguration": {"template": "explainer", "theme": "light", "strip_sources": True,
                           "extension_allowlist": PAGE_EXTENSIONS},  # only the lab extensions the pages load
}))
os.chmod(config_file, 0o644)
c.Spawner.environment = {
    "JUPYTER_CONFIG_PATH": str(server_config),
    "JUPYTER_PATH": env["EXPLAINER_HUB_TEMPLATES"],
    "EXPLAINER_NO_GPU": env.get("EXPLAINER_NO_GPU", ""),
}

# ---- idle servers: stopped after EXPLAINER_HUB_CULL seconds without activity (a hub service) ----
cull = int(env.get("EXPLAINER_HUB_CULL", "1800"))
c.JupyterHub.services = [{
    "name": "idle-culler",
    "command": [sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={cull}",
                f"--cull-every={max(5, min(300, cull // 2))}"],
}]
# The hub learns of a student's activity from the proxy and from the student's server, every
# last_activity_interval / JUPYTERHUB_ACTIVITY_INTERVAL seconds (5 minutes by default). With a
# cull timeout not far above that, a student who is using the app could look idle and lose the
# server under a page that is loading; so both report at least four times per cull timeout.
activity_every = max(5, min(300, cull // 4))
c.JupyterHub.last_activity_interval = activity_every
c.Spawner.environment["JUPYTERHUB_ACTIVITY_INTERVAL"] = str(activity_every)
c.JupyterHub.load_roles = [{
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
}]

extra = env.get("EXPLAINER_HUB_EXTRA_CONFIG")
if extra:  # an instructor's additions (OAuth / LTI authenticator, resource limits), or a test's
    load_subconfig(extra)  # noqa: F821

if lab and c.JupyterHub.spawner_class == "explainer.app.hub_spawner.StudentSpawner" and os.geteuid() != 0:
    # students with a kernel of their own, all as the hub's user, could read its secrets
    sys.exit("tiled-explainer hub: --lab runs each student as an account of their own, which needs "
             "the hub to run as root (or a container spawner in --extra-config)")
