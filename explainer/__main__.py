"""``python -m explainer ...`` is the ``tiled-explainer`` command (handy where scripts are not on
PATH, e.g. Windows)."""

import sys

from explainer.app.cli import main

sys.exit(main())
