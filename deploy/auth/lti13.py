"""Log students in from the course platform (Canvas, Moodle, Blackboard, Open edX) with LTI 1.3,
instead of the class password. Loaded after the shipped configuration:

    pip install jupyterhub-ltiauthenticator
    LTI13_ISSUER=https://canvas.instructure.com \
    LTI13_CLIENT_ID=10000000000001 \
    LTI13_AUTHORIZE_URL=https://canvas.instructure.com/api/lti/authorize_redirect \
    LTI13_JWKS_URL=https://canvas.instructure.com/api/lti/security/jwks \
    tiled-explainer hub --password unused-by-lti --extra-config deploy/auth/lti13.py

On the platform, register the hub as an LTI 1.3 tool: its login URL is <hub>/hub/lti13/oauth_login,
its redirect URL <hub>/hub/lti13/oauth_callback, its public JWKS <hub>/hub/lti13/jwks (or use the
tool configuration JSON at <hub>/hub/lti13/config). The values above come from the platform's
developer key. Every student the course sends in gets a server; the user name is their e-mail
(`username_key`), or set LTI13_USERNAME_KEY (e.g. "sub" for an opaque id).
"""

import os

c = get_config()  # noqa: F821 (JupyterHub defines it while loading)


def need(name: str) -> str:
    value = os.environ.get(name, "").strip()
    if not value:
        raise SystemExit(f"deploy/auth/lti13.py: set {name} (see the file's first lines)")
    return value


c.JupyterHub.authenticator_class = "ltiauthenticator.lti13.auth.LTI13Authenticator"
c.LTI13Authenticator.issuer = need("LTI13_ISSUER")
c.LTI13Authenticator.client_id = {need("LTI13_CLIENT_ID")}
c.LTI13Authenticator.authorize_url = need("LTI13_AUTHORIZE_URL")
c.LTI13Authenticator.jwks_endpoint = need("LTI13_JWKS_URL")
c.LTI13Authenticator.username_key = os.environ.get("LTI13_USERNAME_KEY", "email")
c.LTI13Authenticator.tool_name = "Tiled matrix multiplication on the GPU"
c.LTI13Authenticator.tool_description = "The CUDA matrix multiplication explainer: one live app per student."
c.Authenticator.allow_all = True  # whoever the course platform sends in (its enrolment decides)
