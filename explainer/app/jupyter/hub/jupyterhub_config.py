"""JupyterHub configuration shipped with the explainer: every student gets their own live app.

Run through ``tiled-explainer hub`` (which sets the EXPLAINER_HUB_* variables below, installs
the proxy and keeps the hub's state in one folder), or by hand with ``jupyterhub -f`` on this
file after setting them. What it does, each choice explained where it is made:

* authentication: a password the instructor sets, shared by the class
  (``SharedPasswordAuthenticator``: any user name with that password; the instructor logs in as
  admin with the admin password); a course platform's OAuth or LTI replaces it through an extra
  config file (``tiled-explainer hub --extra-config``);
* one server per student, started as a local process in the student's own folder
  (``SimpleLocalProcessSpawner``: no system accounts needed on one machine), opening straight on
  the Voila app (the index page), sources stripped, no terminals, no JupyterLab unless the
  instructor asks for it (``EXPLAINER_HUB_LAB=1``);
* idle kernels culled inside each server, idle servers culled by jupyterhub-idle-culler (a hub
  service); a culled server starts again on the student's next visit.
"""

import json
import os
import shutil
import sys
from pathlib import Path

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
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = str(state / "users" / "{username}")
c.Spawner.cmd = [sys.executable, "-m", "jupyterhub.singleuser"]  # this environment's Python
c.Spawner.default_url = "/voila/render/00_index.ipynb"  # straight to the app, not a file browser
c.JupyterHub.implicit_spawn_seconds = 1  # a culled server starts again when its student comes back
c.Spawner.http_timeout = 60
c.Spawner.start_timeout = 120
# Idle kernels (a Voila page left open costs ~110 MB) are culled inside each server after 5
# minutes without a connected browser; the server itself by the idle culler below.
c.Spawner.args = ["--MappingKernelManager.cull_idle_timeout=300", "--MappingKernelManager.cull_interval=60"]
if os.geteuid() == 0:  # a hub run as root (a container, a CI machine) runs the servers as root too
    c.Spawner.args.append("--ServerApp.allow_root=True")

server_config = state / "server-config"  # a Jupyter config folder every student's server reads first
server_config.mkdir(parents=True, exist_ok=True)
lab = env.get("EXPLAINER_HUB_LAB") == "1"
(server_config / "jupyter_server_config.json").write_text(json.dumps({
    "ServerApp": {
        "terminals_enabled": False,  # no shell for students
        # Voila only, unless the instructor enables the lab (EXPLAINER_HUB_LAB=1)
        "jpserver_extensions": {"jupyterlab": lab, "notebook": lab, "notebook_shim": lab,
                                "jupyter_lsp": lab, "jupyter_server_terminals": False,
                                "voila.server_extension": True},
        # Voila inside a Jupyter server takes MathJax from a public CDN unless the server says
        # where it is; the pages need none (as `tiled-explainer serve`, where Voila sets none)
        "tornado_settings": {"mathjax_url": "", "mathjax_config": ""},
    },
    # lab's template minus its CDN links (explainer/app/jupyter/voila/templates/explainer), no code
    "VoilaConfiguration": {"template": "explainer", "theme": "light", "strip_sources": True},
}))
c.Spawner.environment = {
    "JUPYTER_CONFIG_PATH": str(server_config),
    "JUPYTER_PATH": env["EXPLAINER_HUB_TEMPLATES"],
    "EXPLAINER_NO_GPU": env.get("EXPLAINER_NO_GPU", ""),
}


def give_pages(spawner):
    """Before a student's server starts: their folder holds the pages (copied once; their own
    copy from then on)."""
    home = Path(spawner.home_dir_template.format(username=spawner.user.name))
    home.mkdir(parents=True, exist_ok=True)
    for nb in notebooks.glob("*.ipynb"):
        if not (home / nb.name).exists():
            shutil.copyfile(nb, home / nb.name)


c.Spawner.pre_spawn_hook = give_pages

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
