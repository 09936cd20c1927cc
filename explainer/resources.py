"""Where the project's files are: the one place that knows.

``kernels/`` and ``notebooks/`` sit at the top of the repository. The wheel maps them into the
package (``explainer/kernels``, ``explainer/notebooks``: pyproject.toml's hatch
``force-include``), so an installed package finds them inside itself, from any folder; a source
checkout or an editable install finds them beside the package. The views' front-end modules
(``*.js``) sit beside their Python side in ``explainer/views/``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
ROOT = PACKAGE_DIR.parent


def _shipped(name: str) -> Path:
    """``explainer/<name>`` in an installed wheel, else ``<checkout>/<name>``."""
    inside = PACKAGE_DIR / name
    return inside if inside.is_dir() else ROOT / name


def kernels_dir() -> Path:
    return _shipped("kernels")


def notebooks_dir() -> Path:
    return _shipped("notebooks")


@lru_cache(maxsize=None)
def kernel_source(name: str) -> str:
    """The text of ``kernels/<name>``."""
    return (kernels_dir() / name).read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def front_end(*names: str) -> str:
    """The front-end modules ``explainer/views/<name>`` joined into one ES module (shared
    helpers first, the view's own module with its ``export default`` last)."""
    return "\n".join((PACKAGE_DIR / "views" / n).read_text(encoding="utf-8") for n in names)
