"""The device's own properties (``cudaGetDeviceProperties`` through
``cupy.cuda.runtime.getDeviceProperties``): what a host program reads before it chooses a tile
at run time for kernel 04 (:func:`explainer.model.memspaces.device_choice`). Without a GPU the
answer is a :class:`~explainer.gpu.runtime.GpuStatus` that says why, never an exception."""

from __future__ import annotations

from .runtime import _public, _Runtime

#: The properties the tile choice and the pages use (CUDA's names).
PROPERTIES = ("major", "minor", "multiProcessorCount", "maxThreadsPerBlock", "sharedMemPerBlock",
              "sharedMemPerBlockOptin", "maxThreadsPerMultiProcessor", "maxBlocksPerMultiProcessor",
              "sharedMemPerMultiprocessor", "reservedSharedMemPerBlock", "regsPerBlock",
              "regsPerMultiprocessor", "totalConstMem", "totalGlobalMem", "warpSize")


@_public
def device_properties(rt: _Runtime) -> dict:
    """``{"name": ..., <property>: int, ...}`` of the current device (those of
    :data:`PROPERTIES` that the runtime reports)."""
    p = rt.props
    return {"name": rt.name, **{k: int(p[k]) for k in PROPERTIES if p.get(k) is not None}}
