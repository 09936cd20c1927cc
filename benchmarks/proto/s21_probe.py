"""Scratch (session 21): does bench's final measure of a launch differ from the shortlist's
(time_launches) at one shape, and is the clock the reason? Prints each way's ms with the SM clock
and power that nvidia-smi logs while it runs. Args: SHAPE LABEL [LABEL ...]."""
import subprocess, sys, time
from explainer import gpu
from explainer.gpu import sweep
shape, labels = sys.argv[1], sys.argv[2:]
log = open("/tmp/smi.csv", "w")
smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw,clocks_throttle_reasons.active",
                        "--format=csv,noheader,nounits", "-lms", "100"], stdout=log)

marks = []
def mark(what):
    marks.append((time.time(), what))
for rep in range(2):
    mark(f"time_launches all {rep}")
    t = gpu.time_launches(labels, shape)
    print("time_launches", {k: round(v, 4) for k, v in t.items()}, flush=True)
    for lab in labels:
        mark(f"benchmark {lab} {rep}")
        r = gpu.benchmark(kernels=[lab], sizes=[shape]).to_dict()
        row = r["results"][0]
        print(f"benchmark {lab}: {row['median_ms']:.4f} ms, cuBLAS {r['cublas'][0]['median_ms']:.4f}, "
              f"{row['pct_cublas']:.1f}%", flush=True)
        mark(f"time_launches one {lab} {rep}")
        t = gpu.time_launches([lab], shape)
        print(f"time_launches {lab}: {t[lab]:.4f}", flush=True)
mark("end")
smi.terminate(); log.close()
import datetime
rows = []
for line in open("/tmp/smi.csv"):
    p = [x.strip() for x in line.split(",")]
    try:
        ts = datetime.datetime.strptime(p[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
        rows.append((ts, float(p[1]), float(p[2]), p[3]))
    except Exception:
        pass
off = time.time() - datetime.datetime.now().timestamp()
for (t0, what), (t1, _) in zip(marks, marks[1:]):
    sel = [r for r in rows if t0 <= r[0] + off < t1]
    if sel:
        mhz = sorted(r[1] for r in sel); w = sorted(r[2] for r in sel)
        print(f"{what:<45} {t1 - t0:5.1f} s  SM MHz median {mhz[len(mhz)//2]:.0f} min {mhz[0]:.0f}  W median {w[len(w)//2]:.0f} max {w[-1]:.0f}  reasons {sorted(set(r[3] for r in sel))}")
