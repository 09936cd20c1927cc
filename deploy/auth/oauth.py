"""Log students in with the university's single sign-on (any OAuth 2 / OpenID Connect provider:
Keycloak, Azure AD, Google Workspace, GitLab...), instead of the class password. Loaded after the
shipped configuration:

    pip install 'oauthenticator>=17'
    OAUTH_CLIENT_ID=... OAUTH_CLIENT_SECRET=... \
    OAUTH_CALLBACK_URL=https://hub.example.edu/hub/oauth_callback \
    OAUTH_AUTHORIZE_URL=https://sso.example.edu/realms/uni/protocol/openid-connect/auth \
    OAUTH_TOKEN_URL=https://sso.example.edu/realms/uni/protocol/openid-connect/token \
    OAUTH_USERDATA_URL=https://sso.example.edu/realms/uni/protocol/openid-connect/userinfo \
    OAUTH_ALLOWED_GROUPS=gpu-course-2026 \
    tiled-explainer hub --password unused-by-oauth --extra-config deploy/auth/oauth.py

Register the hub with the provider as a confidential client whose redirect URL is
OAUTH_CALLBACK_URL. Only members of OAUTH_ALLOWED_GROUPS (comma-separated; the provider's
"groups" claim) get in; leave it empty to let every account of the provider in.
"""

import os

c = get_config()  # noqa: F821 (JupyterHub defines it while loading)


def need(name: str) -> str:
    value = os.environ.get(name, "").strip()
    if not value:
        raise SystemExit(f"deploy/auth/oauth.py: set {name} (see the file's first lines)")
    return value


c.JupyterHub.authenticator_class = "oauthenticator.generic.GenericOAuthenticator"
c.GenericOAuthenticator.client_id = need("OAUTH_CLIENT_ID")
c.GenericOAuthenticator.client_secret = need("OAUTH_CLIENT_SECRET")
c.GenericOAuthenticator.oauth_callback_url = need("OAUTH_CALLBACK_URL")
c.GenericOAuthenticator.authorize_url = need("OAUTH_AUTHORIZE_URL")
c.GenericOAuthenticator.token_url = need("OAUTH_TOKEN_URL")
c.GenericOAuthenticator.userdata_url = need("OAUTH_USERDATA_URL")
c.GenericOAuthenticator.scope = ["openid", "profile", "email"]
c.GenericOAuthenticator.username_claim = os.environ.get("OAUTH_USERNAME_CLAIM", "preferred_username")
groups = {g.strip() for g in os.environ.get("OAUTH_ALLOWED_GROUPS", "").split(",") if g.strip()}
if groups:  # the provider's "groups" claim, kept in the login's auth state (oauthenticator >= 17)
    c.GenericOAuthenticator.manage_groups = True
    c.GenericOAuthenticator.auth_state_groups_key = "oauth_user.groups"
    c.GenericOAuthenticator.allowed_groups = groups
    c.Authenticator.allow_all = False
else:
    c.Authenticator.allow_all = True
