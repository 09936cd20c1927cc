"""Pages 03 (boundaries) and 04 (barriers): their prose is in explainer/text/<lang>/03_boundaries.md and
04_barriers.md, built by tools/make_notebooks.py (prose_pages). Computed values their prose names go in
``FIELDS`` (none yet)."""

PAGES = {}
