"""The kernels in ``kernels/`` and their launch geometry: pure Python, no GPU needed.

:class:`KernelSpec` names each ``.cu`` file and its model; :func:`launch_config` is the one place
a launch's grid, block and shared memory are computed (from :mod:`explainer.model` /
:mod:`explainer.model.ladder`); :func:`refusal` says why a device cannot run one.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..model import ladder
from ..model.launch import padded_shape
from ..model import hopper
from ..model import mma
from ..model import strip as strip_model
from ..model import rect as rect_model
from .. import model
from .. import resources

#: The ``kernels/`` folder of this checkout (the package's sibling).
KERNELS_DIR = resources.kernels_dir()
#: Set to 1 to make every entry point answer "no GPU" (e.g. a lecture server on a GPU box).
NO_GPU_ENV = "EXPLAINER_NO_GPU"
COMPILE_OPTIONS = ("-std=c++17",)
TRACE_DEFINE = "-DEXPLAINER_TRACE"
NEVER_WRITTEN = -2  # the value the host puts in every trace slot before a launch
PADDING = -1  # what a kernel records for a padding zero
FLOAT_BYTES = 4
MAX_INDEX = 2**31 - 1  # the kernels index with 32-bit int

DEFAULT_TILES = (8, 16, 32)
#: The instantiations of the template kernels (03, 05): the course material's small examples use T = 2.
TEMPLATE_TILES = (2, 4, 8, 16, 32)
DEFAULT_SIZES = (512, 1024, 2048, 4096)




# --------------------------------------------------------------------------------------
# The kernels and their launch geometry (no GPU needed)
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class KernelSpec:
    """One kernel file. ``tiles`` lists a template's compile-time instantiations; ``None``
    means the tile (= block edge) is chosen at run time."""

    name: str
    file: str
    symbol: str
    tiles: tuple[int, ...] | None
    shared: str  # "none" | "static" | "dynamic"
    model: str  # the explainer.model kernel that describes it ("ladder": explainer.model.ladder)
    summary: str
    rung: str | None = None  # the ladder kernels (10-14) and the tuning engine's: the configuration's name
    math: str = "fp32"  # "tf32": tensor cores (kernel 15), inputs rounded to 10 mantissa bits
    arch: str | None = None  # a target other than the device's own ("sm_90a": kernel 17's wgmma)
    config: "ladder.Rung | None" = None  # the rung (or the tuning engine's configuration) it runs
    rect: "rect_model.RectTile | None" = None  # kernel 03b: the TILE_X x TILE_Y instantiation it runs

    @property
    def ladder(self) -> "ladder.Rung | None":
        return self.config

    def expression(self, tile: int) -> str:
        """The name ``RawModule.get_function`` takes (``tiled_gemm<16>`` for a template). A ladder
        kernel's names come from its rung (``Rung.expression``); kernel 03b's from its block shape."""
        if self.rect is not None:
            return self.rect.expression
        return f"{self.symbol}<{int(tile)}>" if self.tiles else self.symbol

    @property
    def name_expressions(self) -> list[str] | None:
        if self.rung:
            return self.ladder.expressions
        if self.rect is not None:
            return [self.rect.expression]
        return [self.expression(t) for t in self.tiles] if self.tiles else None

    @property
    def takes_tile(self) -> bool:
        """Launched at a tile T (01-09); the ladder and tensor-core kernels have one geometry."""
        return not (self.rung or self.rect or self.model in ("mma", "hopper"))

    @property
    def traces_tiles(self) -> bool:
        return self.shared != "none"


_SPECS = (
    KernelSpec("naive", "01_naive.cu", "naive_gemm", None, "none", "naive",
               "one thread per C element, threadIdx.x -> column (coalesced)"),
    KernelSpec("naive_col", "02_naive_col.cu", "naive_col_gemm", None, "none", "naive_col",
               "one thread per C element, threadIdx.x -> row (uncoalesced, the lab report)"),
    KernelSpec("tiled", "03_tiled.cu", "tiled_gemm", TEMPLATE_TILES, "static", "tiled",
               "shared-memory tiles, template<int TILE> (PMPP fig. 5.9)"),
    KernelSpec("tiled_dynamic", "04_tiled_dynamic.cu", "tiled_dynamic_gemm", None, "dynamic",
               "tiled", "shared-memory tiles sized at launch (extern __shared__, PMPP 5.6)"),
    KernelSpec("tiled_register_copy", "05_tiled_register_copy.cu", "tiled_register_copy_gemm",
               TEMPLATE_TILES, "static", "tiled",
               "tiled, each shared element copied to a local first (the lab report)"),
) + tuple(
    # The ladder beyond tiling (page 08): one thread, many outputs. Parameters: explainer.model.ladder.
    KernelSpec(r.name, r.file, r.symbol, None, "static", "ladder", r.title, r.name, config=r)
    for r in ladder.RUNGS
)
#: Deliberately broken teaching variants (pages 03, 04): registered so that check / trace /
#: benchmark run them by name, but not in KERNEL_NAMES (the "every kernel is correct" set).
_BROKEN_SPECS = (
    KernelSpec("tiled_unguarded", "06_tiled_unguarded.cu", "tiled_unguarded_gemm", TEMPLATE_TILES,
               "static", "tiled_unguarded", "PMPP fig. 5.9 as printed: no boundary checks, K/T phases"),
    KernelSpec("tiled_no_barrier1", "07_tiled_no_barrier1.cu", "tiled_no_barrier1_gemm",
               TEMPLATE_TILES, "static", "tiled_no_barrier1", "tiled without barrier 1 (a race)"),
    KernelSpec("tiled_no_barrier2", "08_tiled_no_barrier2.cu", "tiled_no_barrier2_gemm",
               TEMPLATE_TILES, "static", "tiled_no_barrier2", "tiled without barrier 2 (a race)"),
    KernelSpec("tiled_no_barriers", "09_tiled_no_barriers.cu", "tiled_no_barriers_gemm",
               TEMPLATE_TILES, "static", "tiled_no_barriers", "tiled without both barriers (a race)"),
)
#: Tensor cores: TF32 math, so registered apart from the FP32 kernels (KERNEL_NAMES),
#: whose checks hold them to float32 accuracy; explainer.model.mma describes them.
_TENSOR_SPECS = tuple(
    KernelSpec(k.name, k.file, k.symbol, None, "dynamic" if k.dynamic else "static", "mma", k.title,
               math="tf32")
    for k in mma.KERNELS.values()
) + tuple(
    KernelSpec(k.name, k.file, k.symbol, None, "dynamic", "hopper", k.title, math="tf32", arch=k.arch)
    for k in hopper.KERNELS.values()
)
#: The sliding-window write-up's V1 (page 02): the block's whole strips in shared memory, 2*T*K
#: floats (explainer.model.strip), so not in KERNEL_NAMES: it cannot launch at every K.
_STRIP_SPECS = (
    KernelSpec("strip", "02b_strip.cu", "strip_gemm", TEMPLATE_TILES, "dynamic", "strip",
               "the block's whole T x K and K x T strips in shared memory (the sliding-window write-up's V1)"),
)
#: Kernel 03b: the tiled kernel with a TILE_X x TILE_Y block, one name per instantiation
#: (explainer.model.rect: tiled_rect_32x8 ...); its geometry is fixed, like a ladder kernel's.
_RECT_SPECS = tuple(
    KernelSpec(r.name, "03b_tiled_rect.cu", "tiled_rect_gemm", None, "static", "rect",
               f"tiled with a {r.TX}x{r.TY} block, K in phases of {r.BK} (the lab report's tile_x x tile_y)", rect=r)
    for r in rect_model.TILES
)
KERNELS: dict[str, KernelSpec] = {s.name: s for s in _SPECS + _STRIP_SPECS + _RECT_SPECS + _BROKEN_SPECS + _TENSOR_SPECS}
#: The copies of a padded launch (``+pad``, the tuning engine's): compiled like a kernel, but not one to run by name.
PAD_SPEC = KernelSpec("pad_rows", "tuned/pad_rows.cu", "pad_rows", None, "none", "none",
                      "A and / or B copied into rows padded to 4 floats")
#: The separate reduction of a split-K launch (``+reduce``): compiled like a kernel, not run by name.
REDUCE_SPEC = KernelSpec("splitk_reduce", "tuned/splitk_reduce.cu", "splitk_reduce", None, "none", "none",
                         "split-K's slices added over every SM")
#: Its blocks: 256 threads; up to REDUCE_WARPS slices, 4 floats of C a thread (REDUCE_FLOATS x
#: REDUCE_WARPS a block), more slices: REDUCE_FLOATS consecutive floats of C a block (32 lanes x 4),
#: its REDUCE_WARPS warps taking the slices interleaved.
REDUCE_FLOATS, REDUCE_WARPS = 128, 8


def split_slice(M: int, N: int) -> int:
    """Floats from one split-K slice of the workspace to the next: M x N rounded up to 4, so that
    every slice starts 16-byte aligned (kernels/tuned/tuned.cuh's split_offset; kernels/tuned/splitk_reduce.cu
    reads the slices by float4 whatever M and N)."""
    return -(-M * N // 4) * 4


#: The timing harness's hold before each start event (explainer/gpu/timing.py).
HOLD_SPEC = KernelSpec("hold", "hold.cu", "hold", None, "none", "none", "the stream held before a timed launch")
KERNEL_NAMES = tuple(s.name for s in _SPECS)
BROKEN_KERNEL_NAMES = tuple(s.name for s in _BROKEN_SPECS)
TENSOR_KERNEL_NAMES = tuple(s.name for s in _TENSOR_SPECS)


#: The kernels of the tuning engine (explainer.tuning), registered when it is imported.
ENGINE_KERNEL_NAMES: list[str] = []


def register(configs) -> None:
    """Make the tuning engine's configurations (explainer.tuning.configs) runnable by name, like
    the rungs: ``explainer.tuning`` calls it when imported. The rungs never need it."""
    for r in configs:
        if r.name not in KERNELS:
            KERNELS[r.name] = KernelSpec(r.name, r.file, r.symbol, None, "static", "ladder", r.title, r.name, config=r)
            ENGINE_KERNEL_NAMES.append(r.name)


def _spec(kernel: str) -> KernelSpec:
    if kernel not in KERNELS and not ENGINE_KERNEL_NAMES:
        import importlib  # a name of the tuning engine's: load it (it registers its configurations)

        importlib.import_module("explainer.tuning")
    if kernel not in KERNELS:
        raise ValueError(f"unknown kernel {kernel!r}; choose one of {', '.join(KERNELS)}")
    return KERNELS[kernel]


def row_label(r: dict) -> str:
    """A result row's kernel as ``--kernels`` takes it (:func:`label_of` of its fields)."""
    return label_of(r["kernel"], r.get("splits", 1), r.get("tail", 0), r.get("pad", False), r.get("reduce", False))


def label_of(kernel: str, splits: int = 1, tail: int = 0, pad: bool = False, reduce: bool = False) -> str:
    """A launch as ``bench --kernels`` and the planner write it: ``warptile``, ``warptile_128x64@4``
    (split-K, S = 4), or ``warptile_256x128@24x5`` (split tail: the last 24 tiles in 5 slices each), with
    ``+reduce`` when a split-K launch's slices are added by a separate kernel over every SM
    (kernels/tuned/splitk_reduce.cu) and ``+pad`` when A (K not a multiple of 4) and / or B (N not) are
    first copied into rows padded to a multiple of 4 floats; ``explainer.gpu.launch.parse_launch`` reads it back."""
    base = kernel if splits == 1 else (f"{kernel}@{tail}x{splits}" if tail else f"{kernel}@{splits}")
    return base + ("+reduce" if reduce else "") + ("+pad" if pad else "")


#: What may follow a launch's kernel and split count, each after a '+', in this order.
SUFFIXES = ("reduce", "pad")


def parse_launch(label: str) -> tuple[str, int, int, bool, bool]:
    """A launch as ``bench --kernels`` and the planner write it -> ``(name, splits, tail, pad,
    reduce)``: :func:`parse_label`'s three, ``pad`` for a ``+pad`` suffix (``"warptile_256x128@24x5+pad"``:
    A and / or B, whichever has rows that are not 16-byte aligned, first copied into buffers whose
    rows are padded to a multiple of 4 floats, kernels/tuned/pad_rows.cu) and ``reduce`` for ``+reduce`` (``"warptile_128x64@11+reduce"``: split-K whose
    slices a separate kernel adds, kernels/tuned/splitk_reduce.cu). Raises ``ValueError`` in one line."""
    base, *suffixes = str(label).split("+")
    if any(s not in SUFFIXES for s in suffixes) or len(set(suffixes)) != len(suffixes) \
            or suffixes != sorted(suffixes, key=SUFFIXES.index):
        raise ValueError(f"{label!r}: after '+' come 'reduce' (split-K's slices added by a separate "
                         "kernel) and 'pad' (rows padded to 16 bytes), once each, in that order")
    name, S, tail = parse_label(base)
    if "pad" in suffixes and not (_spec(name).rung and _spec(name).ladder.splits_k):
        raise ValueError(f"{label!r}: only the tuning engine's configurations of kernel 14 take '+pad'")
    if "reduce" in suffixes and (S < 2 or tail):
        raise ValueError(f"{label!r}: '+reduce' follows a split-K count S >= 2 of every tile "
                         "(name@S+reduce), not a split tail")
    return name, S, tail, "pad" in suffixes, "reduce" in suffixes


def parse_label(label: str) -> tuple[str, int, int]:
    """A kernel as ``bench --kernels`` and the planner write it -> ``(name, splits, tail)``:
    ``"warptile"`` -> ``("warptile", 1, 0)``; ``"warptile_128x64@4"`` -> ``("warptile_128x64", 4, 0)`` (split-K,
    every tile of C in S = 4 slices of K); ``"warptile_256x128@24x5"`` -> ``("warptile_256x128", 5, 24)`` (split
    tail: the last 24 tiles in 5 slices each, the others whole). A ``+pad`` launch is read by
    :func:`parse_launch`. Raises ``ValueError`` in one line."""
    if "+" in str(label):
        raise ValueError(f"{label!r}: a '+pad' launch is read with parse_launch")
    name, at, s = str(label).partition("@")
    _spec(name)
    if not at:
        return name, 1, 0
    tail, x, S = s.rpartition("x") if "x" in s else ("0", "", s)
    if not (S.isdigit() and tail.isdigit()) or int(S) < 1 or (x and (int(tail) < 1 or int(S) < 2)):
        raise ValueError(f"{label!r}: after '@' comes the split-K count S (a whole number >= 1), "
                         "or RxS: the last R tiles of C split in S >= 2 slices of K")
    if int(S) > 1 and not (_spec(name).rung and _spec(name).ladder.splits_k):
        raise ValueError(f"{name} has no split-K; only the tuning engine's configurations of kernel 14 split K")
    return name, int(S), int(tail)


def kernel_and_splits(label: str) -> tuple[str, int]:
    """``"warptile"`` -> ``("warptile", 1)``; ``"warptile_128x64@4"`` -> ``("warptile_128x64", 4)`` (split-K with
    S = 4, as ``bench --kernels`` and the planner write it; see :func:`parse_label` for the split
    tail). Raises ``ValueError`` in one line."""
    name, S, _ = parse_label(label)
    return name, S


def _whole(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    if int(value) < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")
    return int(value)


@dataclass(frozen=True)
class LaunchConfig:
    """Grid, block and shared memory of one launch: the only place they are computed."""

    kernel: str
    M: int
    N: int
    K: int
    tile: int | None  # T of the tiled / naive kernels; None for the ladder kernels
    grid: tuple[int, int, int]  # (x over the N columns of C, y over its M rows, 1)
    block: tuple[int, int, int]  # (T, T, 1); (threads, 1, 1) for the ladder kernels
    shared_bytes: int  # shared memory per block, static or dynamic
    dynamic_shared_bytes: int  # what the launch passes as shared_mem (0 unless dynamic)
    phases: int  # ceil(K / T) for the tiled kernels, 0 for the naive ones
    file: str
    expression: str
    splits: int = 1  # split-K: blocks per tile of C along K (grid z); 1 = the whole K loop in one block
    tail: int = 0  # split tail: only the last `tail` tiles of C are split (a 1D grid); 0 = all of them
    tile_grid: tuple[int, int] | None = None  # tiles of C (x, y) where the grid is not laid out by tile
    pad: bool = False  # A and / or B copied into rows padded to 4 floats first (kernels/tuned/pad_rows.cu)
    reduce: bool = False  # split-K's slices added by a separate kernel (kernels/tuned/splitk_reduce.cu)
    ld: tuple[int, int] | None = None  # kernel 14's (lda, ldb): floats from one row of A (B) to the next

    @property
    def pad_floats(self) -> tuple[int, int]:
        """Floats of the padded copies of A and B (0 where that matrix is used as it is): A when K
        is not a multiple of 4 (M rows of ``lda``), B when N is not (K rows of ``ldb``)."""
        if not self.pad:
            return 0, 0
        lda, ldb = self.ld
        return (self.M * lda if lda != self.K else 0, self.K * ldb if ldb != self.N else 0)

    @property
    def tiles(self) -> int:
        """Tiles of C (blocks per split)."""
        gx, gy = self.tile_grid or self.grid[:2]
        return gx * gy

    @property
    def whole_tiles(self) -> int:
        """Tiles of C computed in one piece: all without split-K, none with it, and with the split
        tail the first ``tiles - tail``."""
        return self.tiles - self.tail if self.tail else (self.tiles if self.splits == 1 else 0)

    @property
    def label(self) -> str:
        return label_of(self.kernel, self.splits, self.tail, self.pad, self.reduce)

    def on_device(self, sms: int) -> str:
        """The instantiation that runs this launch on a device of ``sms`` SMs: ``expression``, or
        the one its configuration picks there (``Rung.device_expression``: the tuning engine's
        roomy bodies)."""
        r = _spec(self.kernel).config
        return r.device_expression(self, sms) if r is not None else self.expression

    @property
    def workspace_floats(self) -> int:
        """Split-K's workspace: one M x N slice of partial sums per split (0 without split-K), each
        starting at a multiple of 4 floats (:func:`split_slice`; kernels/tuned/tuned.cuh's split_offset)."""
        return self.splits * split_slice(self.M, self.N) if self.splits > 1 else 0

    @property
    def reduce_launch(self) -> tuple[tuple[int, int, int], tuple[int, int, int]] | None:
        """A ``+reduce`` launch's second kernel (kernels/tuned/splitk_reduce.cu): (grid, block), blocks of
        32 x :data:`REDUCE_WARPS` threads, each taking :data:`REDUCE_FLOATS` x REDUCE_WARPS floats of
        C (4 a thread, its slices in order) up to REDUCE_WARPS slices, else REDUCE_FLOATS floats of C
        (its warps taking the S slices interleaved); ``None`` without the separate reduction."""
        if not self.reduce:
            return None
        per_block = REDUCE_FLOATS * (REDUCE_WARPS if self.splits <= REDUCE_WARPS else 1)
        return (-(-self.M * self.N // per_block), 1, 1), (32 * REDUCE_WARPS, 1, 1)

    @property
    def threads_per_block(self) -> int:
        return self.block[0] * self.block[1]

    @property
    def flops(self) -> int:
        return 2 * self.M * self.N * self.K

    @property
    def bytes_in_out(self) -> int:
        return FLOAT_BYTES * (self.M * self.K + self.K * self.N + self.M * self.N)


def launch_config(kernel: str, M: int, N: int, K: int, tile: int = 16, splits: int = 1,
                  tail: int = 0, pad: bool = False, reduce: bool = False) -> LaunchConfig:
    """The launch geometry of ``kernel`` for C = A (M x K) @ B (K x N) with T x T blocks.

    ``splits`` > 1 cuts the K loop of a tuning engine's configuration (kernels/tuned/) into that many slices, one block
    each per tile of C (split-K; grid z); with ``tail`` only the last ``tail`` tiles of C are
    split, the others computed whole (the split tail; a 1D grid). Raises ``ValueError`` (one readable line) for an
    unknown kernel, a size < 1, a tile the kernel was not compiled for, or a split the kernel
    cannot make. Device limits are checked at launch (see :func:`refusal`). ``pad``: kernel 14
    run on copies of A (where K is not a multiple of 4) and / or B (where N is not) whose rows are
    padded to a multiple of 4 floats (``ld``: the rows' strides, K and N rounded up); the grid,
    the phases and C are the shape's own (C is stored in place).
    ``reduce``: a split-K launch (``splits`` >= 2, no tail) whose blocks only store their slices,
    added by a second kernel over every SM (kernels/tuned/splitk_reduce.cu, :data:`REDUCE_SPEC`).
    """
    spec = _spec(kernel)
    if reduce:
        if isinstance(splits, bool) or not isinstance(splits, (int, np.integer)) or splits < 2 or tail:
            raise ValueError(f"{kernel}: a separate reduction ('+reduce') needs split-K with S >= 2 "
                             f"slices of every tile, got splits={splits!r}, tail={tail!r}")
        return dataclasses.replace(launch_config(kernel, M, N, K, tile, splits, tail, pad), reduce=True)
    if pad:
        if not (spec.rung and spec.ladder.splits_k):
            raise ValueError(f"{kernel}: only the tuning engine's configurations of kernel 14 take a padded launch")
        M, N, K = (_whole(n, v) for n, v in (("M", M), ("N", N), ("K", K)))
        if K % 4 == 0 and N % 4 == 0:
            raise ValueError(f"{M}x{N}x{K}: K and N are multiples of 4 already, nothing to pad")
        _, N4, K4 = padded_shape(M, N, K)
        return dataclasses.replace(launch_config(kernel, M, N, K, tile, splits, tail), pad=True, ld=(K4, N4),
                                   expression=spec.ladder.launch_expression(M, N, K, splits, tail, pad=True))
    S = _whole("splits", splits)
    if isinstance(tail, bool) or not isinstance(tail, (int, np.integer)) or tail < 0:
        raise ValueError(f"tail must be a whole number >= 0, got {tail!r}")
    if spec.rung:
        return _ladder_config(spec, *(_whole(n, v) for n, v in (("M", M), ("N", N), ("K", K))), S, int(tail))
    if S != 1 or tail:
        raise ValueError(f"{kernel} has no split-K; only the tuning engine's configurations of kernel 14 split K")
    if spec.model in ("mma", "hopper"):
        return _mma_config(spec, *(_whole(n, v) for n, v in (("M", M), ("N", N), ("K", K))))
    if spec.rect is not None:  # kernel 03b: the block shape is the kernel's own (the tile argument is not used)
        M, N, K = (_whole(n, v) for n, v in (("M", M), ("N", N), ("K", K)))
        r = spec.rect
        return LaunchConfig(kernel=kernel, M=M, N=N, K=K, tile=None, grid=(*r.grid(M, N), 1), block=(r.TX, r.TY, 1),
                            shared_bytes=r.shared_bytes, dynamic_shared_bytes=0, phases=r.phases(K),
                            file=spec.file, expression=r.expression)
    M, N, K, T = (_whole(n, v) for n, v in (("M", M), ("N", N), ("K", K), ("tile", tile)))
    if spec.tiles and T not in spec.tiles:
        raise ValueError(
            f"{kernel} is compiled for tiles {', '.join(map(str, spec.tiles))} only "
            f"(template<int TILE>); tiled_dynamic takes any tile at run time, got {T}"
        )
    # Geometry from the model (the kernel it mirrors), so the pictures and the launch agree.
    strip = spec.model == "strip"  # kernels/02b_strip.cu: 2 * T * K floats, one copy loop of ceil(K/T) steps
    shared = strip_model.v1_shared_bytes(K, T) if strip else model.tile_bytes(spec.model, T)
    return LaunchConfig(
        kernel=kernel, M=M, N=N, K=K, tile=T, grid=(*model.grid_dims(M, N, T), 1), block=(T, T, 1),
        shared_bytes=shared,
        dynamic_shared_bytes=shared if spec.shared == "dynamic" else 0,
        phases=-(-K // T) if strip else model.phase_count(spec.model, K, T),
        file=spec.file, expression=spec.expression(T),
    )


def _ladder_config(spec: KernelSpec, M: int, N: int, K: int, splits: int = 1, tail: int = 0) -> LaunchConfig:
    """A ladder kernel: 1D blocks, one per BM x BN tile of C (times ``splits`` along K); the
    fast instantiation when the block tile divides the problem, the guarded one otherwise
    (explainer.model.ladder). With ``tail``: a 1D grid, the first ``tiles - tail`` tiles whole,
    then ``splits`` blocks for each of the last ``tail`` (kernel 14's ``warptile_splittail_gemm``)."""
    r = spec.ladder
    gx, gy = r.grid(M, N)
    if splits > 1 or tail:
        if not r.splits_k:
            raise ValueError(f"{spec.name} has no split-K; only the tuning engine's configurations of kernel 14 split K")
        r.split_ranges(K, splits)  # raises when there are fewer phases than splits
    if tail and (splits < 2 or not 1 <= tail < gx * gy):
        raise ValueError(f"a split tail needs S >= 2 and between 1 and {gx * gy - 1} of the {gx * gy} "
                         f"tiles of C ({gx}x{gy}) to split, got {tail}x{splits}")
    grid = (gx * gy - tail + tail * splits, 1, 1) if tail else (gx, gy, splits)
    return LaunchConfig(
        kernel=spec.name, M=M, N=N, K=K, tile=None, grid=grid,
        block=(r.threads, 1, 1), shared_bytes=r.shared_bytes, dynamic_shared_bytes=0,
        phases=r.phases(K), file=spec.file,
        expression=r.launch_expression(M, N, K, splits, tail), splits=splits,
        tail=tail, tile_grid=(gx, gy) if tail else None, ld=(K, N) if r.splits_k else None,
    )


def _mma_config(spec: KernelSpec, M: int, N: int, K: int) -> LaunchConfig:
    """Kernels 15, 16, 17: 1D blocks, one per BM x BN tile of C (explainer.model.mma.MmaKernel,
    explainer.model.hopper.HopperKernel)."""
    k = (hopper.KERNELS if spec.model == "hopper" else mma.KERNELS)[spec.name]
    return LaunchConfig(
        kernel=spec.name, M=M, N=N, K=K, tile=None, grid=(*k.grid(M, N), 1), block=(k.threads, 1, 1),
        shared_bytes=k.shared_bytes,
        dynamic_shared_bytes=k.shared_bytes if spec.shared == "dynamic" else 0,
        phases=k.phases(K), file=spec.file,
        expression=spec.symbol,
    )


def refusal(cfg: LaunchConfig, limits: dict) -> str | None:
    """Why the device described by ``limits`` (see :class:`DeviceInfo`) cannot run ``cfg``,
    or ``None``. Every reason is spelled out, joined by '; '."""
    reasons = []
    T = cfg.tile
    smem_limit = limits.get("shared_per_block")
    strip = cfg.kernel in KERNELS and KERNELS[cfg.kernel].model == "strip"  # kernel 02b: 2*T*K floats
    if T is None or strip:  # a ladder or tensor-core kernel, or kernel 02b's whole strips
        if cfg.dynamic_shared_bytes and limits.get("shared_per_block_optin"):
            smem_limit = limits["shared_per_block_optin"]  # dynamic shared memory, opted in at launch
        if smem_limit and cfg.shared_bytes > smem_limit:
            reasons.append(f"{cfg.expression} needs {cfg.shared_bytes} bytes of shared memory "
                           f"per block; the device allows {smem_limit} (sharedMemPerBlock)")
    elif smem_limit and cfg.shared_bytes > smem_limit:
        reasons.append(
            f"tile {T} needs 2*{T}*{T}*4 = {cfg.shared_bytes} bytes of shared memory per block; "
            f"the device allows {smem_limit} bytes per block (sharedMemPerBlock)"
        )
    max_threads = limits.get("max_threads_per_block")
    if max_threads and cfg.threads_per_block > max_threads:
        shape = f"{T}x{T}" if T is not None else f"{cfg.block[0]}x{cfg.block[1]}" if cfg.block[1] > 1 else f"{cfg.block[0]}-thread"
        reasons.append(
            f"a {shape} block has {cfg.threads_per_block} threads; the device allows at most "
            f"{max_threads} threads per block (maxThreadsPerBlock)"
        )
    for what, n in (("A (M*K)", cfg.M * cfg.K), ("B (K*N)", cfg.K * cfg.N),
                    ("C (M*N)", cfg.M * cfg.N)):
        if n > MAX_INDEX:
            reasons.append(f"{what} has {n} elements; the kernels index with 32-bit int")
    if cfg.kernel in hopper.KERNELS:
        why = hopper.KERNELS[cfg.kernel].why_not(cfg.M, cfg.N, cfg.K, limits.get("compute_capability"))
        if why:
            reasons.append(why)
    if cfg.kernel == "tiled_unguarded" and (cfg.M % T or cfg.N % T):
        reasons.append(
            f"tiled_unguarded has no boundary checks: with tile {T} not dividing M={cfg.M} and "
            f"N={cfg.N} its edge threads read past A / B and store past C (undefined behaviour); "
            "it runs here only when T divides M and N; explainer.gpu.edges.run_unguarded pads "
            "the buffers so that every access stays inside them")
    if not reasons:
        return None
    tile = "" if T is None else f" tile {T}"
    return f"refused: {cfg.kernel} {cfg.M}x{cfg.N}x{cfg.K}{tile}: " + "; ".join(reasons)


def gflops(M: int, N: int, K: int, ms: float) -> float:
    return 2.0 * M * N * K / (ms * 1e-3) / 1e9
