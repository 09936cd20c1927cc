// kernels/hold.cu -- not a rung: the timing harness's hold (explainer/gpu/timing.py).
//
// What it is for
//   A launch timed between two CUDA events may be several kernels: a padded launch's copies, the
//   product and the copy back; a split-K launch and its separate reduction. Python enqueues them
//   one by one, tens of microseconds apart (more when its garbage collector runs), and where the
//   GPU finishes one kernel before the next is enqueued, the gap lands inside the timed span:
//   host time, not GPU time, and not what a compiled caller (cuBLAS's own split-K and reduction)
//   would see. So before each start event the harness enqueues this kernel, which keeps the
//   stream busy for `ns` nanoseconds; by the time the GPU reaches the start event, the whole
//   launch and the end event are queued behind it.
//
// hold: one thread reads the GPU's global timer (%globaltimer, ns) until `ns` have passed.
//
// Launch (explainer/gpu/runtime.py hold): 1 block of 1 thread, before the start event.

extern "C" __global__ void hold(long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        __nanosleep(1000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while ((long long)(t - t0) < ns);
}
