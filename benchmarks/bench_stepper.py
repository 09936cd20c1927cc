"""Server-side cost of one stepper step (model + figure update), measured inside a real
IPython kernel so that widget messages are serialised and sent as in Voila. Target: < 20 ms for
a 64x64x64 T=16 launch and for the windowed 1024^3 launch; no figure is re-created.

    python benchmarks/bench_stepper.py
"""

import json
import platform
import time

from jupyter_client.manager import start_new_kernel

CODE = r"""
import json, statistics, time
from ipywidgets import Widget
from explainer.stepper import TiledStepper
out = {}
for name, kw in [("64^3 T=16", dict(M=64, N=64, K=64, tile=16, block=(1, 2), thread=(4, 3))),
                 ("1024^3 T=16 (windowed)", dict())]:
    st = TiledStepper(**kw)
    figs = (id(st.fig_global), id(st.fig_shared))
    n_widgets = len(Widget.widgets)
    times = []
    n = min(len(st.steps) - 1, 300)
    for i in range(1, n + 1):
        t0 = time.perf_counter(); st.go(i); times.append((time.perf_counter() - t0) * 1e3)
    # walk back too (window moves back along K)
    for i in range(n - 1, 0, -7):
        t0 = time.perf_counter(); st.go(i); times.append((time.perf_counter() - t0) * 1e3)
    same = figs == (id(st.fig_global), id(st.fig_shared)) and len(Widget.widgets) == n_widgets
    times.sort()
    out[name] = dict(steps=len(times), median=statistics.median(times), p90=times[int(0.9 * len(times))],
                     max=times[-1], figures_unchanged=same)
print("RESULT" + json.dumps(out))
"""


def main():
    km, kc = start_new_kernel(kernel_name="python3")
    try:
        res = {}
        def grab(msg):
            if msg["header"]["msg_type"] == "stream" and "RESULT" in msg["content"]["text"]:
                res.update(json.loads(msg["content"]["text"].split("RESULT", 1)[1]))
            if msg["header"]["msg_type"] == "error":
                print("\n".join(msg["content"]["traceback"]))
        kc.execute_interactive(CODE, output_hook=grab, timeout=600)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    print(f"{platform.machine()}, {__import__('os').cpu_count()} cores, Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}")
    print(f"{'launch':<26} {'steps':>6} {'median ms':>10} {'p90 ms':>8} {'max ms':>8}  figures kept")
    for name, r in res.items():
        print(f"{name:<26} {r['steps']:>6} {r['median']:>10.2f} {r['p90']:>8.2f} {r['max']:>8.2f}  {r['figures_unchanged']}")
    ok = res and all(r["median"] < 20 and r["figures_unchanged"] for r in res.values())
    print("target: median < 20 ms per step, no figure re-created:", "OK" if ok else "MISSED")


if __name__ == "__main__":
    main()
