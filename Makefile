# The README's two commands. Each does all set-up on a fresh machine with Python >= 3.10:
#   make serve   # the Voila app (PORT=8866 ARGS="--no-browser" to change)
#   make test    # the everyday tests: unit tests, nbval over notebooks/, the pages in headless Chromium
# and the one CI runs:
#   make check   # every test: make test's, plus those marked `check` (nvcc over every kernel
#                # instantiation, the wheel, the class hub, JupyterLab)
PYTHON ?= python3
VENV   := .venv
PORT   ?= 8866
ARGS   ?=

.PHONY: serve test check browser hub-deps

serve: $(VENV)/.installed
	$(VENV)/bin/tiled-explainer serve --port $(PORT) $(ARGS)

test: $(VENV)/.installed browser
	$(VENV)/bin/python -m pytest --nbval-lax --nbval-current-env -m 'not check' $(ARGS)

check: $(VENV)/.installed browser hub-deps
	$(VENV)/bin/python -m pytest --nbval-lax --nbval-current-env $(ARGS)

# Debian's chromium for the browser tests, and a CJK font (fonts-noto-cjk) for the Chinese names the
# pages quote (a browser test checks they render as glyphs, not boxes).
browser:
	@if [ ! -x /usr/bin/chromium ] || ! fc-list :lang=zh 2>/dev/null | grep -q .; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium fonts-noto-cjk; \
	  else \
	    echo "No /usr/bin/chromium or no CJK font (apt-get install chromium fonts-noto-cjk): browser tests will be skipped."; \
	  fi; \
	fi

hub-deps:
	@if ! command -v npm >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y nodejs npm; \
	  else \
	    echo "No npm (apt-get install nodejs npm): the hub tests cannot install their proxy."; \
	  fi; \
	fi

# Reinstall only when pyproject.toml changes; the package itself is installed editable.
$(VENV)/.installed: pyproject.toml | $(VENV)/bin/pip
	$(VENV)/bin/python -m pip install -e '.[test]'
	touch $@

# Debian ships venv without ensurepip unless python3-venv is installed.
$(VENV)/bin/pip:
	@$(PYTHON) -m venv --clear $(VENV) || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y python3-venv && \
	    $(PYTHON) -m venv --clear $(VENV); \
	  else \
	    echo "python3 -m venv failed: install python3-venv (Debian/Ubuntu) and retry." >&2; exit 1; \
	  fi; }
