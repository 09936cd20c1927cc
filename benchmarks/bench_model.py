"""Time the execution model: the complete schedule of launches up to 128^3 (target < 50 ms)
and single-thread questions about a 4096^3 launch (target: instant).

    python benchmarks/bench_model.py
"""

import platform
import statistics
import time

from explainer.model import Launch, schedule, steps


def best_of(fn, repeats=7):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3, max(times) * 1e3


def main():
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}")
    print(f"{'launch':<30} {'median ms':>10} {'max ms':>8}")
    worst = 0.0
    for kernel in ("tiled", "naive", "naive_col"):
        for T in (1, 2, 4, 8, 16, 32):
            L = Launch(kernel, 128, 128, 128, T)
            med, mx = best_of(lambda: (schedule(L), steps(L)))
            worst = max(worst, med)
            print(f"{kernel + f' 128^3 T={T}':<30} {med:>10.2f} {mx:>8.2f}")
    big = Launch("tiled", 4096, 4096, 4096, 16)
    med, mx = best_of(lambda: big.thread((255, 255), (15, 15)).to_dict())
    print(f"{'one thread of tiled 4096^3 T=16':<30} {med:>10.2f} {mx:>8.2f}")
    med2, mx2 = best_of(lambda: big.stats())
    print(f"{'stats of tiled 4096^3':<30} {med2:>10.3f} {mx2:>8.3f}")
    print(f"slowest 128^3 schedule: {worst:.1f} ms (target < 50 ms): {'OK' if worst < 50 else 'TOO SLOW'}")


if __name__ == "__main__":
    main()
