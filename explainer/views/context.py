"""Where a page is being built: live (a kernel per reader) or into a static export
(``tiled-explainer export``). Pages and views word a few things accordingly (no GPU to measure
on a static page); :mod:`explainer.app.export` switches it on while it builds the pages.
"""

from __future__ import annotations

import contextlib

_active = False


def active() -> bool:
    """True while pages are being built for a static export."""
    return _active


@contextlib.contextmanager
def exporting():
    """Build pages for a static export inside this block."""
    global _active
    _active, before = True, _active
    try:
        yield
    finally:
        _active = before


def no_gpu_here(reason: str) -> str:
    """The sentence a page says where it shows recorded timings instead of measuring (``reason``
    is HTML-escaped by the caller): on a static page, nothing is measured at all."""
    from ..i18n import _

    if _active:
        return _("This is a static page: nothing is measured here.")
    return _("This machine has no GPU ({reason}).", reason=reason)
