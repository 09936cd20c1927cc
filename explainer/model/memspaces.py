"""The CUDA memory spaces as a whole, and choosing a tile at run time (dynamic shared memory).

**The five spaces** (:data:`SPACES`): registers, shared, global, local and constant memory: how
each is declared, who sees it (scope), how long it lives, where it sits, how big it is on each
architecture preset (:func:`sizes`, from ``data/arches.json`` through :mod:`.hardware` and the
CUDA C++ Programming Guide's per-compute-capability limits below) and how long a load waits
(:func:`latencies`: what ``benchmarks/bench_latency.py`` recorded by pointer chasing, with its
device and date, read through :func:`.corrections.latency_records`; "not measured" where no
record holds the space).

**Where a variable lives** is a rule on its declaration (:func:`classify`): ``__shared__`` ->
shared; ``__constant__`` -> constant; ``__device__`` at file scope -> global; a kernel parameter
-> the constant bank (a pointer parameter *points to* global memory); a scalar local -> a
register; a local array -> registers when every index is known at compile time, local memory
when one is computed at run time. :mod:`explainer.sim.spaces` applies the rule to every
declaration of a real kernel file, parsed by the simulator's CUDA parser (the model parses
nothing).

**Dynamic shared memory** (kernel 04): the launch passes ``2·T·T·4`` bytes (:func:`launch_bytes`);
the largest square tile that fits a device (:func:`largest_tile`: ``sharedMemPerBlock`` and
``maxThreadsPerBlock``), and the tile that maximises occupancy (:func:`tile_choice`, with
:func:`.hardware.occupancy_of`) for a preset or for a real device's properties
(:func:`device_arch`). What ``benchmarks/bench_dynamic_shared.py --save`` measured:
:func:`dynamic_records`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import isqrt

from ..i18n import N_, _, language
from . import hardware
from .launch import FLOAT_BYTES, WARP_SIZE, tile_bytes
from .roofline import recorded_json


# ---------------------------------------------------------------------------------------------
# The spaces
# ---------------------------------------------------------------------------------------------
SPACES = ("registers", "shared", "global", "local", "constant")
#: (English; every label, scope, lifetime and rule below is shown with _(), in the page's language.)
LABELS = {"registers": N_("registers"), "shared": N_("shared memory"), "global": N_("global memory"),
          "local": N_("local memory"), "constant": N_("constant memory")}
#: Who sees a variable.
SCOPES = {"thread": N_("one thread"), "block": N_("the threads of one block"),
          "grid": N_("every thread of the launch (and the host, through the runtime API)")}
SCOPE_LABELS = {"thread": N_("thread"), "block": N_("block"), "grid": N_("grid")}
#: How long it lives. PMPP's table writes "grid" for the first three: they exist only inside a
#: launch; a thread's registers live while the thread runs, a block's shared memory while the block
#: is resident on its SM (the next block there gets the same bytes, not their contents).
LIFETIMES = {"thread": N_("while its thread runs"), "block": N_("while its block runs on an SM"),
             "launch": N_("one kernel launch"), "application": N_("the whole application (until freed)")}
LIFETIME_LABELS = {"thread": N_("the thread"), "block": N_("the block"), "launch": N_("the kernel launch (grid)"),
                   "application": N_("the application")}

#: Per space: how it is declared, its scope and lifetime, where its bytes are.
SPACE_INFO = {
    "registers": {"declared": N_("a scalar declared in the kernel: int row = …; float sum = 0.0f; (or a small "
                                 "array indexed only by constants)"),
                  "scope": "thread", "lifetime": "thread", "where": N_("the SM's register file (on chip)")},
    "shared": {"declared": N_("__shared__ float As[T][T]; (size fixed at compile time) or extern __shared__ float "
                              "smem[]; (size passed at launch)"),
               "scope": "block", "lifetime": "block", "where": N_("on the SM, beside the L1 cache (on chip)")},
    "global": {"declared": N_("cudaMalloc on the host (the kernel gets a pointer, e.g. const float* A), or "
                              "__device__ float x; at file scope"),
               "scope": "grid", "lifetime": "application", "where": N_("device memory (DRAM), cached in L2 (and L1)")},
    "local": {"declared": N_("a local array indexed at run time (float v[8]; v[i] = …), or registers the compiler "
                             "spills when a thread needs more than it may have"),
              "scope": "thread", "lifetime": "thread", "where": N_("device memory (DRAM), cached in L1 and L2: "
                                                                     "'local' is who sees it, not where it is")},
    "constant": {"declared": N_("__constant__ float c[64]; at file scope, written by the host "
                                "(cudaMemcpyToSymbol); kernel parameters live in a constant bank too"),
                 "scope": "grid", "lifetime": "application",
                 "where": N_("device memory, read through a constant cache on each SM (fast when a warp reads one "
                             "address)")},
}

#: Limits that are the same for every compute capability of the presets (CUDA C++ Programming
#: Guide, "Technical Specifications per Compute Capability"): constant memory size, local memory
#: per thread, and the shared memory a block may use without opting in (static ``__shared__``
#: arrays can use no more; dynamic shared memory above it needs
#: ``cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)``).
CONSTANT_BYTES = 64 * 1024
LOCAL_PER_THREAD_BYTES = 512 * 1024
SHARED_WITHOUT_OPT_IN = 48 * 1024
LIMITS_SOURCE = N_("CUDA C++ Programming Guide, Technical Specifications per Compute Capability "
                    "(constant memory 64 KB, local memory 512 KB per thread, 48 KB of shared memory per block "
                    "without opting in)")


@dataclass(frozen=True)
class Placement:
    """Where one declaration's variable lives: a key of :data:`SPACES` (``None``: no memory at
    all, a compile-time constant), its scope and lifetime (keys of :data:`SCOPES` /
    :data:`LIFETIMES`), ``points_to`` (a pointer's target space, if known) and the rule applied."""

    space: str | None
    scope: str | None
    lifetime: str | None
    rule: str
    points_to: str | None = None
    #: The rule's pieces ``(msgid, ((field, LABELS value), ...))``: ``rule`` is their English joined
    #: by "; "; :meth:`rule_text` says it in the page's language.
    pieces: tuple = field(default=(), compare=False, repr=False)

    def rule_text(self) -> str:
        """:attr:`rule` in the current language."""
        if not self.pieces:
            return _(self.rule)
        sep = "; " if language() == "en" else "；"
        return sep.join(_(m, **{k: _(v) for k, v in f}) for m, f in self.pieces)

    def to_dict(self) -> dict:
        return {"space": self.space, "scope": self.scope, "lifetime": self.lifetime, "rule": self.rule,
                "points_to": self.points_to}


def _placed(space, scope, lifetime, *pieces, points_to=None) -> Placement:
    """A :class:`Placement` whose rule is ``pieces`` (msgids, or ``(msgid, {field: LABELS value})``)."""
    pieces = tuple((p, ()) if isinstance(p, str) else (p[0], tuple(p[1].items())) for p in pieces)
    rule = "; ".join(m.format(**dict(f)) if f else m for m, f in pieces)
    return Placement(space, scope, lifetime, rule, points_to, pieces)


def classify(qualifiers=(), *, parameter: bool = False, file_scope: bool = False, pointer: bool = False,
             array: bool = False, runtime_index: bool = False, points_to: str | None = None) -> Placement:
    """The memory space of a declaration, by the rules of the module docstring. ``qualifiers``:
    the CUDA and C words before the type (``__shared__``, ``__constant__``, ``__device__``,
    ``extern``, ``static``, ``const``); ``runtime_index``: a local array that some access indexes
    with a value computed at run time; ``points_to``: a pointer's target, where known."""
    q = set(qualifiers)
    if parameter:
        return _placed("constant", "grid", "launch",
                       N_("a kernel parameter: the launch copies its value into a constant bank every thread reads"),
                       *([N_("the floats it points to are in global memory (cudaMalloc)")] if pointer else []),
                       points_to="global" if pointer else None)
    if "__shared__" in q:
        how = (N_("extern __shared__: one array whose size the launch passes (the third <<< >>> parameter, bytes)")
               if "extern" in q else N_("__shared__: one copy per block, sized at compile time"))
        return _placed("shared", "block", "block", how)
    if "__constant__" in q:
        return _placed("constant", "grid", "application",
                       N_("__constant__ at file scope: read-only in kernels, written by the host (cudaMemcpyToSymbol)"))
    if "__device__" in q or file_scope:
        return _placed("global", "grid", "application", N_("__device__ at file scope: a global-memory variable"))
    if array:
        if runtime_index:
            return _placed("local", "thread", "thread",
                           N_("a local array indexed with a value known only at run time: registers cannot be "
                              "indexed, so the compiler puts it in local memory"))
        return _placed("registers", "thread", "thread",
                       N_("a local array indexed only by compile-time constants: the compiler can keep each "
                          "element in a register"))
    if pointer:
        return _placed("registers", "thread", "thread", N_("a local pointer: the address is a scalar in a register"),
                       *([(N_("it points into {space}"), {"space": LABELS[points_to]})] if points_to else []),
                       points_to=points_to)
    return _placed("registers", "thread", "thread",
                   N_("a scalar local variable: a register (unless the compiler runs out and spills it to local "
                      "memory)"))


TEMPLATE_CONSTANT = _placed(None, None, None,
                            N_("a template parameter: a compile-time constant the compiler folds into the "
                               "instructions; it takes no memory"))


# ---------------------------------------------------------------------------------------------
# Sizes per architecture
# ---------------------------------------------------------------------------------------------
def sizes(arch_name: str) -> dict:
    """How big each space is on preset ``arch_name`` (bytes unless named otherwise)."""
    a = hardware.arch(arch_name)
    return {
        "arch": arch_name, "label": a["label"],
        "registers_per_sm": a["regs_per_sm"],
        "register_file_bytes": a["regs_per_sm"] * 4,  # 32-bit registers
        "max_regs_per_thread": a["max_regs_per_thread"],
        "shared_per_sm": a["shared_per_sm"],
        "shared_per_block": min(SHARED_WITHOUT_OPT_IN, a["max_shared_per_block"]),
        "shared_per_block_optin": a["max_shared_per_block"],
        "constant_bytes": CONSTANT_BYTES,
        "local_per_thread": LOCAL_PER_THREAD_BYTES,
        "device_memory": a.get("device_memory_bytes"),
        "device_memory_product": a.get("device_memory_product"),
    }


# ---------------------------------------------------------------------------------------------
# Latency: what bench_latency.py recorded
# ---------------------------------------------------------------------------------------------
#: Per space, the recorded latency fields that measure it and what each is.
LATENCY_FIELDS = {
    "registers": (),
    "shared": (("shared", N_("a load from shared memory")),),
    "global": (("global_dram", N_("a load from DRAM")), ("global_l2_hit", N_("an L2 hit"))),
    "local": (),
    "constant": (("constant_small", N_("a 1 KB working set (the constant cache nearest the SM)")),
                 ("constant", N_("a 16 KB working set"))),
}
NOT_MEASURED = {
    "registers": N_("not measured (an operand of the instruction itself: no load to wait for)"),
    "local": N_("not measured (local memory is device memory: a load takes the same path as a global one)"),
}


def latencies(record: dict | None = None) -> dict:
    """``{"record": the newest latency record or None, "spaces": {space: [(what, cycles, ns or
    None), ...]}}``; an empty list means not measured."""
    if record is None:
        from .corrections import latency_records

        recs = latency_records()
        record = recs[0] if recs else None
    spaces = {}
    for s in SPACES:
        rows = []
        if record:
            cyc, ns = record.get("cycles_per_load", {}), record.get("ns_per_load", {})
            rows = [(what, cyc[k], ns.get(k)) for k, what in LATENCY_FIELDS[s] if k in cyc]
        spaces[s] = rows
    return {"record": record, "spaces": spaces}


def memory_table(record: dict | None = None) -> list[dict]:
    """One row per space: its declaration, scope, lifetime, place and recorded latency."""
    lat = latencies(record)
    return [{"space": s, "label": LABELS[s], **SPACE_INFO[s], "scope_text": SCOPES[SPACE_INFO[s]["scope"]],
             "lifetime_text": LIFETIMES[SPACE_INFO[s]["lifetime"]], "latency": lat["spaces"][s],
             "not_measured": NOT_MEASURED.get(s, N_("not measured"))}
            for s in SPACES]


# ---------------------------------------------------------------------------------------------
# Dynamic shared memory: the tile chosen at run time
# ---------------------------------------------------------------------------------------------
def launch_bytes(T: int) -> int:
    """The third launch parameter of kernel 04 for tile ``T``: As and Bs, T·T floats each."""
    return tile_bytes("tiled", int(T))


def largest_tile(shared_per_block: int, max_threads_per_block: int) -> dict:
    """The largest square tile T whose block fits: ``2·T·T·4 <= shared_per_block`` and ``T·T <=
    max_threads_per_block``; ``limiter`` names the one that decides (``"threads"`` on a tie)."""
    if shared_per_block < launch_bytes(1) or max_threads_per_block < 1:
        raise ValueError(_("no tile fits {bytes} bytes and {threads} threads per block", bytes=shared_per_block,
                           threads=max_threads_per_block))
    by_shared = isqrt(shared_per_block // (2 * FLOAT_BYTES))
    by_threads = isqrt(max_threads_per_block)
    T = min(by_shared, by_threads)
    return {"tile": T, "by_shared": by_shared, "by_threads": by_threads,
            "limiter": "threads" if by_threads <= by_shared else "shared",
            "bytes": launch_bytes(T), "threads": T * T,
            "shared_per_block": shared_per_block, "max_threads_per_block": max_threads_per_block}


def notes_tile(shared_per_block: int) -> int:
    """The PMPP chapter 5 notes' rule, ``sqrt(sharedMemPerBlock / (2·sizeof(float)))``: shared
    memory alone, the thread limit forgotten."""
    return isqrt(shared_per_block // (2 * FLOAT_BYTES))


#: The tiles a page lists beside the largest and the best.
SHOWN_TILES = (8, 16, 24, 32)


def tile_choice(a: dict, name: str, shared_per_block: int | None = None) -> dict:
    """For limits ``a`` (a preset of ``arches.json`` or :func:`device_arch`): the largest tile
    that fits (:func:`largest_tile`, with ``sharedMemPerBlock`` = ``shared_per_block`` or the
    48 KB a block gets without opting in) and the tile with the highest occupancy among those
    whose blocks are whole warps (T·T a multiple of 32: a partial warp's idle lanes count as
    occupied; ties: the larger tile, which reuses each loaded element more often), every tile
    from 1 to the largest computed by :func:`.hardware.occupancy_of`."""
    S = shared_per_block if shared_per_block is not None else min(SHARED_WITHOUT_OPT_IN, a["max_shared_per_block"])
    big = largest_tile(S, a["max_threads_per_block"])
    rows = []
    for T in range(1, big["tile"] + 1):
        o = hardware.occupancy_of(a, name, T * T, launch_bytes(T))
        rows.append({"tile": T, "threads": T * T, "bytes": launch_bytes(T), "blocks_per_sm": o.blocks_per_sm,
                     "active_warps": o.active_warps, "occupancy": o.occupancy, "limiter": o.limiter})
    whole = [r for r in rows if r["threads"] % WARP_SIZE == 0] or rows  # a partial warp idles lanes
    best = max(whole, key=lambda r: (r["occupancy"], r["tile"]))
    shown = sorted({T for T in SHOWN_TILES if T <= big["tile"]} | {big["tile"], best["tile"]})
    return {"name": name, "label": a["label"], "shared_per_block": S,
            "max_threads_per_block": a["max_threads_per_block"], "max_warps_per_sm": a["max_warps_per_sm"],
            "largest": big, "largest_row": rows[-1], "best": best, "rows": rows,
            "shown": [rows[T - 1] for T in shown]}


def preset_choices() -> list[dict]:
    """:func:`tile_choice` for every architecture preset."""
    return [tile_choice(hardware.arch(n), n) for n in hardware.arches()]


def _nearest_preset(cc: float) -> dict:
    """The preset with the highest compute capability not above ``cc`` (else the lowest): its
    allocation units, which no device property reports."""
    presets = sorted(hardware.arches().values(), key=lambda a: float(a["compute_capability"]))
    below = [a for a in presets if float(a["compute_capability"]) <= cc]
    return below[-1] if below else presets[0]


def device_arch(props: dict) -> dict:
    """A real device's limits in the keys of ``arches.json``, from ``cudaGetDeviceProperties``
    (``cupy.cuda.runtime.getDeviceProperties``: ``maxThreadsPerBlock``, ``sharedMemPerBlock``,
    ``sharedMemPerBlockOptin``, ``maxThreadsPerMultiProcessor``, ``maxBlocksPerMultiProcessor``,
    ``sharedMemPerMultiprocessor``, ``reservedSharedMemPerBlock``, ``regsPerMultiprocessor``).
    Allocation units and registers per thread come from the nearest preset (no property holds
    them)."""
    name = props.get("name", _("this GPU"))
    name = name.decode() if isinstance(name, bytes) else str(name)
    cc = f"{props.get('major')}.{props.get('minor')}"
    try:
        near = _nearest_preset(float(cc))
    except ValueError:
        near = _nearest_preset(0.0)
    need = ("maxThreadsPerBlock", "sharedMemPerBlock", "maxThreadsPerMultiProcessor",
            "sharedMemPerMultiprocessor", "regsPerMultiprocessor")
    missing = [k for k in need if not props.get(k)]
    if missing:
        raise ValueError(_("the device properties lack {names}", names=", ".join(missing)))
    optin = int(props.get("sharedMemPerBlockOptin") or props["sharedMemPerBlock"])
    return {
        "label": _("{name} (compute capability {cc}, queried with cudaGetDeviceProperties)", name=name, cc=cc),
        "compute_capability": cc,
        "max_threads_per_sm": int(props["maxThreadsPerMultiProcessor"]),
        "max_warps_per_sm": int(props["maxThreadsPerMultiProcessor"]) // WARP_SIZE,
        "max_blocks_per_sm": int(props.get("maxBlocksPerMultiProcessor") or near["max_blocks_per_sm"]),
        "max_threads_per_block": int(props["maxThreadsPerBlock"]),
        "shared_per_sm": int(props["sharedMemPerMultiprocessor"]),
        "max_shared_per_block": optin,
        "shared_per_block_default": int(props["sharedMemPerBlock"]),
        "reserved_shared_per_block": int(props.get("reservedSharedMemPerBlock") or 0),
        "shared_alloc_unit": near["shared_alloc_unit"],
        "regs_per_sm": int(props["regsPerMultiprocessor"]),
        "max_regs_per_thread": near["max_regs_per_thread"],
        "reg_alloc_unit": near["reg_alloc_unit"],
        "sms": int(props.get("multiProcessorCount") or 0),
        "source": f"cudaGetDeviceProperties on {name}; allocation units from the {near['label']} preset",
    }


def device_choice(props: dict) -> dict:
    """:func:`tile_choice` for a real device, with its own ``sharedMemPerBlock``."""
    a = device_arch(props)
    return {**tile_choice(a, "device", a["shared_per_block_default"]), "device": True}


# ---------------------------------------------------------------------------------------------
# What bench_dynamic_shared.py recorded
# ---------------------------------------------------------------------------------------------
DYNAMIC_SCHEMA = "dynamic_shared/1"


def dynamic_records() -> list[dict]:
    """Every ``dynamic_shared_*.json`` record (``benchmarks/bench_dynamic_shared.py --save``),
    newest first, each with its ``source`` file name."""
    return recorded_json("dynamic_shared_*.json", DYNAMIC_SCHEMA)


# ---------------------------------------------------------------------------------------------
# Declarations the questions draw (explainer.sim.spaces classifies the same text in a kernel:
# tests/test_memory_spaces.py holds the two together)
# ---------------------------------------------------------------------------------------------
#: ``(name, where, declaration, a statement that uses it or "", classify's keywords, what is asked)``.
#: ``where``: "body" (inside the kernel), "file" (file scope) or "parameter".
EXAMPLES = (
    ("Bs", "body", "__shared__ float Bs[TILE][TILE];", "", {"qualifiers": ("__shared__",), "array": True},
     N_("the array Bs")),
    ("As", "body", "__shared__ float As[TILE][TILE];", "", {"qualifiers": ("__shared__",), "array": True},
     N_("the array As")),
    ("sum", "body", "float sum = 0.0f;", "", {}, N_("the variable sum")),
    ("row", "body", "const int row = blockIdx.y * TILE + threadIdx.y;", "", {"qualifiers": ("const",)},
     N_("the variable row")),
    ("A", "parameter", "const float* A", "", {"parameter": True, "pointer": True, "qualifiers": ("const",)},
     N_("the pointer A itself (the kernel's first parameter)")),
    ("K", "parameter", "int K", "", {"parameter": True}, N_("the parameter K")),
    ("smem", "body", "extern __shared__ float smem[];", "",
     {"qualifiers": ("extern", "__shared__"), "array": True}, N_("the array smem")),
    ("coeff", "file", "__constant__ float coeff[16];", "", {"qualifiers": ("__constant__",), "array": True},
     N_("the array coeff")),
    ("total", "file", "__device__ float total;", "", {"qualifiers": ("__device__",)}, N_("the variable total")),
    ("vals", "body", "float vals[8];", "vals[threadIdx.x % 8] = 1.0f;", {"array": True, "runtime_index": True},
     N_("the array vals")),
    ("acc", "body", "float acc[4];", "acc[0] = 0.0f; acc[3] = 1.0f;", {"array": True}, N_("the array acc")),
)


def example_placement(example) -> Placement:
    """:func:`classify` of one of :data:`EXAMPLES`."""
    _, where, _, _, kw, _ = example
    return classify(file_scope=where == "file", **kw)
