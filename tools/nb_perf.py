"""Pages 05-07 (performance): their prose is in explainer/text/<lang>/0[567]_*.md; written by
tools/make_notebooks.py."""

PAGES = {}
