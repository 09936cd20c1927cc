"""The live app's kernel manager: Jupyter's, with an idle clock that starts when a page gets its
kernel.

Voila keeps one kernel per page that has already run the page's notebook (the pool), and never
culls a pooled kernel. The kernel's last activity is when it finished the notebook, which on a
server up for an hour is an hour ago. When a student opens the page, Voila hands that kernel out
and the browser connects to it a few seconds later (sooner on a quiet laptop, later in a loaded
hall). Jupyter's culler, which runs every minute, judges a kernel by its last activity and its
connections only: a tick that fell in those seconds saw an hour of idleness and no connection,
and shut the kernel down under the page being drawn; the browser's connection then met a 404 and
the page stayed dead.

Here a kernel the culler has not looked at before (it has just left the pool, or has just
started) starts its idle clock at that first look, and is judged only from the next look on. A
page that never connects is still freed, one timeout later.
"""

from __future__ import annotations

from jupyter_server._tz import utcnow
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager


class ExplainerKernelManager(AsyncMappingKernelManager):
    """Voila's pool is built on top of this class (``VoilaConfiguration.multi_kernel_manager_class``);
    its own ``cull_kernel_if_idle`` returns early for pooled kernels and calls this one for the
    rest."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._seen_by_culler: set[str] = set()

    async def cull_kernel_if_idle(self, kernel_id: str):
        kernel = self._kernels.get(kernel_id)
        if kernel is None:
            self._seen_by_culler.discard(kernel_id)
            return None
        if kernel_id not in self._seen_by_culler and getattr(kernel, "execution_state", None) != "dead":
            self._seen_by_culler.add(kernel_id)
            kernel.last_activity = utcnow()
            return None
        return await super().cull_kernel_if_idle(kernel_id)

    async def shutdown_kernel(self, kernel_id: str, *args, **kwargs):
        self._seen_by_culler.discard(kernel_id)
        return await super().shutdown_kernel(kernel_id, *args, **kwargs)
