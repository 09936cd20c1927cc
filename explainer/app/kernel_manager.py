"""The live app's kernel manager: Jupyter's, whose culler gives a kernel that has just been handed
out of Voila's pool a whole timeout to get its page connected.

Voila keeps one kernel per page that has already run the page's notebook (the pool), and its
culler skips pooled kernels. A pooled kernel's last activity is when it finished the notebook: on
a server up for an hour, an hour ago. When a student opens the page, Voila hands that kernel out
and the browser connects to it a few seconds later (sooner on a quiet laptop, later in a loaded
hall). Jupyter's culler, which looks every minute, judges a kernel by its last activity and its
connections only: a look that fell in those seconds saw an hour of idleness and no connection,
and shut the kernel down under the page being drawn; the browser's connection then met a 404 and
the page stayed dead.

Here a kernel is culled only once the culler has also seen it without a connection on every look
for the idle timeout, its looks no further apart than two cull intervals. A kernel the culler
skipped for longer (it sat in the pool) starts that count again when it comes back. A page that
never connects is still freed, one timeout after it was handed out.
"""

from __future__ import annotations

import time

from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager


class ExplainerKernelManager(AsyncMappingKernelManager):
    """Voila's pool is built on top of this class (``VoilaConfiguration.multi_kernel_manager_class``);
    its own ``cull_kernel_if_idle`` returns early for pooled kernels and calls this one for the
    rest."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        # kernel id -> (when the culler first saw it unconnected, in this run of looks; its last look)
        self._unconnected_since: dict[str, tuple[float, float]] = {}

    async def cull_kernel_if_idle(self, kernel_id: str):
        kernel = self._kernels.get(kernel_id)
        if kernel is None:
            self._unconnected_since.pop(kernel_id, None)
            return None
        now = time.monotonic()
        since, last_look = self._unconnected_since.get(kernel_id, (now, None))
        connected = not self.cull_connected and self._kernel_connections.get(kernel_id, 0) > 0
        if connected or last_look is None or now - last_look > 2 * self.cull_interval:
            since = now  # connected now, first seen, or back after the pool held it
        self._unconnected_since[kernel_id] = (since, now)
        timeout = kernel.kernel_spec.metadata.get("cull_idle_timeout", self.cull_idle_timeout)
        if getattr(kernel, "execution_state", None) != "dead" and now - since < timeout:
            return None
        return await super().cull_kernel_if_idle(kernel_id)

    async def shutdown_kernel(self, kernel_id: str, *args, **kwargs):
        self._unconnected_since.pop(kernel_id, None)
        return await super().shutdown_kernel(kernel_id, *args, **kwargs)
