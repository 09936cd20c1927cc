"""Copy plotly.js's basic bundle (scatter, bar, pie) into explainer/app/vendor/ for the plotly.js
version that the installed plotly ships (run after upgrading plotly; needs npm and the registry):

    .venv/bin/python tools/vendor_plotly.py

The exported pages load it instead of the whole plotly.min.js where their charts allow
(explainer.app.export.chart_bundle); while its version differs from plotly's, they load the whole one."""

import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from explainer.app.export import BASIC_BUNDLE, full_bundle_path, plotly_js_version


def main() -> int:
    version = plotly_js_version(full_bundle_path())
    if not version:
        print("plotly's plotly.min.js names no version", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        name = subprocess.run(["npm", "pack", f"plotly.js-basic-dist-min@{version}"], cwd=tmp, check=True,
                              capture_output=True, text=True).stdout.split()[-1]
        with tarfile.open(Path(tmp) / name) as tar:
            tar.extractall(tmp, filter="data")
        shutil.copyfile(Path(tmp) / "package" / BASIC_BUNDLE.name, BASIC_BUNDLE)
        shutil.copyfile(Path(tmp) / "package" / "LICENSE", BASIC_BUNDLE.parent / "plotly-LICENSE")
    print(f"{BASIC_BUNDLE}: plotly.js {plotly_js_version(BASIC_BUNDLE)}, {BASIC_BUNDLE.stat().st_size / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
