"""The cluster deployments shipped in deploy/: the zero-to-jupyterhub values file validates
against the chart's own schema (vendored with its provenance) and keeps the single-machine hub's
choices; the image definition installs the wheel and the pages; the Slurm example asks each job
for one GPU. Offline: no cluster, no Docker here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

jsonschema = pytest.importorskip("jsonschema")
from traitlets.config import Config  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
SCHEMA = json.loads((DEPLOY / "kubernetes" / "z2jh-values.schema.json").read_text())
VALUES = yaml.safe_load((DEPLOY / "kubernetes" / "values.yaml").read_text())
DEFAULTS = yaml.safe_load((DEPLOY / "kubernetes" / "z2jh-default-values.yaml").read_text())


def merged(defaults, values):
    """Helm's merge of a values file over the chart's defaults: maps merge key by key, anything
    else (lists, scalars) replaces; null deletes."""
    out = dict(defaults)
    for k, v in values.items():
        if v is None:
            out.pop(k, None)
        elif isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = merged(out[k], v)
        else:
            out[k] = v
    return out


def test_values_validate_against_the_charts_schema():
    jsonschema.validate(merged(DEFAULTS, VALUES), SCHEMA)
    assert "48ea50e3" in SCHEMA["$comment"]  # where the schema came from


def test_the_schema_check_can_fail():
    for broken in ({**VALUES, "singleuser": {**VALUES["singleuser"], "defaultUrl": 7}},
                   {**VALUES, "cull": {**VALUES["cull"], "timeout": "soon"}},
                   {**VALUES, "hubb": {}}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(merged(DEFAULTS, broken), SCHEMA)


def test_values_keep_the_hubs_choices_and_offer_cpu_and_gpu_profiles():
    su = VALUES["singleuser"]
    assert su["defaultUrl"] == "/voila/render/00_index.ipynb"
    assert VALUES["hub"]["config"]["JupyterHub"]["authenticator_class"] != "dummy"
    server = su["extraFiles"]["jupyter_server_config"]["data"]
    assert server["ServerApp"]["terminals_enabled"] is False
    assert server["ServerApp"]["jpserver_extensions"]["jupyterlab"] is False
    assert server["ServerApp"]["tornado_settings"]["mathjax_url"] == ""  # (helm would drop a null)
    assert server["VoilaConfiguration"]["template"] == "explainer"
    # the pages only, as the single-machine hub: the same authorizer and browser messages
    from explainer.app.hub_guard import BROWSER_MESSAGES

    assert server["ServerApp"]["authorizer_class"] == "explainer.app.hub_guard.PagesOnlyAuthorizer"
    assert server["MappingKernelManager"]["allowed_message_types"] == BROWSER_MESSAGES
    assert server["KernelManager"]["transport"] == "ipc"
    assert su["uid"] != 0 and su["networkPolicy"]["enabled"] is True
    assert VALUES["cull"]["enabled"] is True
    profiles = {p["slug"]: p for p in su["profileList"]}
    assert profiles["gpu"]["kubespawner_override"]["extra_resource_limits"] == {"nvidia.com/gpu": "1"}
    assert "kubespawner_override" not in profiles["student-cpu"] and profiles["student-cpu"]["default"]
    assert su["extraEnv"]["EXPLAINER_NO_GPU"] == "1"
    assert profiles["gpu"]["kubespawner_override"]["environment"]["EXPLAINER_NO_GPU"] == ""


def test_image_installs_the_wheel_and_the_pages_it_copies_at_start():
    docker = (DEPLOY / "image" / "Dockerfile").read_text()
    assert docker.startswith("#") and "FROM quay.io/jupyter/base-notebook" in docker
    assert "pip install --no-cache-dir /tmp/tiled_gemm_explainer-*.whl" in docker
    assert "/opt/explainer-pages" in docker
    hook = " ".join(VALUES["singleuser"]["lifecycleHooks"]["postStart"]["exec"]["command"])
    assert "/opt/explainer-pages/*.ipynb /home/jovyan/" in hook
    assert (ROOT / "environment.yml").is_file()  # what repo2docker builds from


def test_slurm_example_asks_each_job_for_one_gpu():
    c = Config()
    ns = {"get_config": lambda: c, "__name__": "jupyterhub_config"}
    exec(compile((DEPLOY / "slurm" / "jupyterhub_config.py").read_text(), "slurm_config", "exec"), ns)
    assert c.JupyterHub.spawner_class == "batchspawner.SlurmSpawner"
    assert c.SlurmSpawner.req_options == "--gres=gpu:1"
    assert c.Spawner.notebook_dir.endswith("notebooks") and Path(c.Spawner.notebook_dir, "02_tiled.ipynb").is_file()


# ---- course-platform logins (deploy/auth/): LTI 1.3 and OAuth / OpenID Connect ----------------
AUTH_ENV = {
    "lti13.py": {"LTI13_ISSUER": "https://lms.example.edu", "LTI13_CLIENT_ID": "125900000000000001",
                 "LTI13_AUTHORIZE_URL": "https://lms.example.edu/api/lti/authorize_redirect",
                 "LTI13_JWKS_URL": "https://lms.example.edu/api/lti/security/jwks"},
    "oauth.py": {"OAUTH_CLIENT_ID": "explainer", "OAUTH_CLIENT_SECRET": "s3cret",
                 "OAUTH_CALLBACK_URL": "https://hub.example.edu/hub/oauth_callback",
                 "OAUTH_AUTHORIZE_URL": "https://sso.example.edu/auth", "OAUTH_TOKEN_URL": "https://sso.example.edu/token",
                 "OAUTH_USERDATA_URL": "https://sso.example.edu/userinfo", "OAUTH_ALLOWED_GROUPS": "gpu-course, tas"},
}
AUTH_MODULE = {"lti13.py": "ltiauthenticator", "oauth.py": "oauthenticator"}


def _hub_config(tmp_path, monkeypatch, extra: Path, env: dict) -> Config:
    """The shipped hub configuration with ``extra`` loaded after it, as `tiled-explainer hub`
    has JupyterHub load them (no hub started)."""
    from jupyterhub.app import JupyterHub

    from explainer.app import hub as hub_cmd

    for k, v in {**env, "EXPLAINER_HUB_STATE": str(tmp_path), "EXPLAINER_HUB_PASSWORD": "class-password",
                 "EXPLAINER_HUB_EXTRA_CONFIG": str(extra), "EXPLAINER_HUB_NOTEBOOKS": str(ROOT / "notebooks"),
                 "EXPLAINER_HUB_PROXY": "configurable-http-proxy",
                 "EXPLAINER_HUB_TEMPLATES": str(tmp_path / "templates")}.items():
        monkeypatch.setenv(k, v)
    app = JupyterHub()
    app.load_config_file(str(hub_cmd.CONFIG))
    return app.config


@pytest.mark.parametrize("name", sorted(AUTH_ENV))
def test_course_platform_logins_name_real_traits_of_the_installed_authenticators(name, tmp_path, monkeypatch):
    pytest.importorskip(AUTH_MODULE[name])
    from traitlets import import_item

    cfg = _hub_config(tmp_path, monkeypatch, DEPLOY / "auth" / name, AUTH_ENV[name])
    cls = import_item(cfg.JupyterHub.authenticator_class)
    assert cls.__name__ in ("LTI13Authenticator", "GenericOAuthenticator")
    section = cfg[cls.__name__]
    assert section, "the file sets nothing on its authenticator"
    traits = cls.class_traits(config=True)
    assert set(section) <= set(traits), f"not traits of {cls.__name__}: {set(section) - set(traits)}"
    auth = cls(config=cfg)  # the values land on the authenticator
    if name == "lti13.py":
        assert auth.issuer == AUTH_ENV[name]["LTI13_ISSUER"] and auth.client_id == {"125900000000000001"}
        assert auth.allow_all is True
    else:
        assert auth.allowed_groups == {"gpu-course", "tas"} and auth.allow_all is False and auth.manage_groups
        assert auth.token_url.endswith("/token") and auth.client_secret == "s3cret"


@pytest.mark.parametrize("name", sorted(AUTH_ENV))
def test_a_course_platform_login_without_its_settings_says_which_one_in_one_line(name, tmp_path, monkeypatch):
    env = dict(AUTH_ENV[name])
    missing = {"lti13.py": "LTI13_CLIENT_ID", "oauth.py": "OAUTH_TOKEN_URL"}[name]
    env.pop(missing)
    monkeypatch.delenv(missing, raising=False)
    with pytest.raises(SystemExit, match=f"set {missing}"):
        _hub_config(tmp_path, monkeypatch, DEPLOY / "auth" / name, env)
