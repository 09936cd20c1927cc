"""What a student's browser may do on their Jupyter server when the hub serves the pages only.

A student's server on the class hub is a Jupyter server with Voila as an extension. Voila run on
its own (``tiled-explainer serve``) already lets a browser do no more than its pages need: it
has no route that starts a kernel, and its kernel channels pass only the widgets' messages
(``allowed_message_types`` in ``voila/app.py``). As an *extension* Voila sets neither: the server
around it keeps Jupyter's whole REST API (start a kernel, read and write any file of the
student's folder, nbconvert), and every kernel channel takes ``execute_request``, that is, any
Python. The hub's config (``jupyter/hub/jupyterhub_config.py``) closes both with two settings
of Jupyter Server's own, made for this:

* :data:`BROWSER_MESSAGES` as ``MappingKernelManager.allowed_message_types``: the kernel channel
  drops every other message (Jupyter Server logs 'Received message of type "execute_request",
  which is not allowed. Ignoring.'). The list is Voila's own standalone one;
* :class:`PagesOnlyAuthorizer` as ``ServerApp.authorizer_class``: the REST API answers 403 to
  everything the pages do not use (:data:`PAGES_NEED`). Voila's own routes (render, static
  files, its allow-listed file handler) are not Jupyter Server's resources and stay open.

With ``--lab`` neither is set: the student has JupyterLab and a kernel of their own, and the
protection is their own OS account (:mod:`explainer.app.hub_spawner`).
"""

from __future__ import annotations

from jupyterhub.singleuser.extension import JupyterHubAuthorizer

#: The kernel messages a page's browser may send: the widgets' comm messages, the kernel-info
#: handshake, and a page closing its own kernel. Voila standalone allows exactly these.
BROWSER_MESSAGES = ["comm_open", "comm_close", "comm_msg", "comm_info_request", "kernel_info_request",
                    "shutdown_request"]

#: (resource, action) pairs of Jupyter Server's REST API that a Voila page uses: the server's
#: status (the hub's activity checks), its own kernel's model and channel (``kernels`` "execute"
#: is the websocket, filtered by BROWSER_MESSAGES), kernel specs and settings read by the page's
#: scripts, and the browser's content-security-policy reports.
PAGES_NEED = frozenset({("api", "read"), ("kernels", "read"), ("kernels", "execute"),
                        ("kernelspecs", "read"), ("config", "read"), ("csp", "read"), ("csp", "write")})


class PagesOnlyAuthorizer(JupyterHubAuthorizer):
    """JupyterHub's check (this server's owner, or the admin), then only what the pages need:
    no kernel started, restarted or interrupted through the API (``kernels`` "write"), no
    sessions, no contents or files, no nbconvert, no config written, no server shut down."""

    def is_authorized(self, handler, user, action, resource) -> bool:
        if (resource, action) not in PAGES_NEED:
            self.log.warning("refused: %s %s (%s on %s; this server serves the pages only)",
                             handler.request.method, handler.request.path, action, resource)
            return False
        return super().is_authorized(handler, user, action, resource)
