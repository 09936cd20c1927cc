"""The simulator's one exception: bad input (a file it cannot read, a syntax error, a construct
outside its subset), said in one line with the source line it concerns."""

from __future__ import annotations

from ..i18n import _


class SimError(ValueError):
    """Bad input. ``str(e)`` is one line: ``line N: reason`` (or the reason alone)."""

    def __init__(self, reason: str, line: int | None = None):
        self.reason = " ".join(str(reason).split())  # one line, whatever the source held
        self.line = line
        super().__init__(_("line {line}: {reason}", line=line, reason=self.reason) if line else self.reason)
