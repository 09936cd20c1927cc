"""How many floats a launch gives ``extern __shared__``: the third ``<<< >>>`` parameter, as a rule.

A kernel that declares ``extern __shared__ float smem[];`` gets exactly the bytes its launch
passes, which the kernel's source does not say. The simulator takes the rule as an expression in
the launch's ``M``, ``N``, ``K`` and ``T`` (the tile), in floats:

* ``2*T*T`` (the default): a T x T window of A and one of B, as ``kernels/04_tiled_dynamic.cu``;
* ``2*T*K``: a block's whole T x K strip of A and K x T strip of B, as ``kernels/02b_strip.cu``.

Only whole numbers, those four names, ``+ - * //``, ``%`` and parentheses are taken (the text is
parsed with :mod:`ast`, never evaluated). A launch whose bytes pass the largest a block can opt
into on any architecture preset (``max_shared_per_block`` of ``data/arches.json``) is refused, as
the GPU refuses it.
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass

from ..i18n import _
from .errors import SimError

DEFAULT = "2*T*T"
NAMES = ("M", "N", "K", "T")
FLOAT_BYTES = 4
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
        ast.Mod: operator.mod}
MAX_TEXT = 64


def max_bytes() -> int:
    """The most shared memory a block can opt into on any architecture preset."""
    from ..model import hardware

    return max(a["max_shared_per_block"] for a in hardware.arches().values())


@dataclass(frozen=True)
class DynamicShared:
    """The rule ``text`` (floats, in M, N, K, T), parsed once."""

    text: str
    tree: ast.AST

    @classmethod
    def parse(cls, text: str | None) -> "DynamicShared":
        text = DEFAULT if text is None else str(text).strip()
        bad = SimError(_("the dynamic shared memory must be an expression in floats of {names} (whole numbers, "
                         "+ - * // % and parentheses), such as 2*T*K; got {text}", names=", ".join(NAMES),
                         text=repr(text)))
        if not text or len(text) > MAX_TEXT:
            raise bad
        try:
            tree = ast.parse(text, mode="eval").body
        except SyntaxError:
            raise bad from None
        for node in ast.walk(tree):
            if isinstance(node, ast.BinOp):
                if type(node.op) not in _OPS:
                    raise bad
            elif isinstance(node, ast.Name):
                if node.id not in NAMES:
                    raise bad
            elif isinstance(node, ast.Constant):
                if isinstance(node.value, bool) or not isinstance(node.value, int):
                    raise bad
            elif not isinstance(node, (ast.operator, ast.expr_context)):
                raise bad
        return cls(text, tree)

    def floats(self, M: int, N: int, K: int, T: int) -> int:
        """The floats ``extern __shared__`` gets in this launch (at least 1)."""
        env = {"M": M, "N": N, "K": K, "T": T}

        def ev(node):
            if isinstance(node, ast.Constant):
                return node.value
            if isinstance(node, ast.Name):
                return env[node.id]
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and b == 0:
                raise SimError(_("the dynamic shared memory {rule} divides by zero at M={M} N={N} K={K} T={T}",
                                 rule=self.text, M=M, N=N, K=K, T=T))
            return _OPS[type(node.op)](a, b)

        n = ev(self.tree)
        if n < 1:
            raise SimError(_("the dynamic shared memory {rule} is {n} floats at M={M} N={N} K={K} T={T}; a launch "
                             "with extern __shared__ needs at least one", rule=self.text, n=n, M=M, N=N, K=K, T=T))
        if n * FLOAT_BYTES > max_bytes():
            raise SimError(_("the dynamic shared memory {rule} is {bytes} bytes at M={M} N={N} K={K} T={T}; no "
                             "architecture gives a block more than {max}", rule=self.text, bytes=n * FLOAT_BYTES,
                             M=M, N=N, K=K, T=T, max=max_bytes()))
        return int(n)
