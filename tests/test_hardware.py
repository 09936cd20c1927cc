"""Occupancy against hand-worked cases (the course notes' Fermi table, the corrected Turing limits)."""

import pytest

from explainer.model.hardware import OccupancyError, arches, occupancy, tile_occupancy


@pytest.mark.parametrize(
    "T,blocks,occ,limiter",
    [
        # 8x8: 64 threads; 8 blocks/SM cap -> 512 of 1536 threads.
        (8, 8, 1 / 3, "blocks"),
        # 16x16: 256 threads -> 1536/256 = 6 blocks (shared would allow 16 KB / 2 KB = 8).
        (16, 6, 1.0, "threads"),
        # 32x32: 1024 threads -> one block, 1024 of 1536.
        (32, 1, 2 / 3, "threads"),
    ],
)
def test_fermi_seed_000(T, blocks, occ, limiter):
    o = tile_occupancy("fermi", T)
    assert o.blocks_per_sm == blocks
    assert o.occupancy == pytest.approx(occ)
    assert o.limiter == limiter


def test_fermi_shared_limit_hand_worked():
    # 16 KB per SM, 5000 B per block rounds up to 5120 -> 3 blocks.
    o = occupancy("fermi", 64, smem=5000)
    assert o.limits["shared"] == 3 and o.blocks_per_sm == 3 and o.limiter == "shared"


def test_turing_is_1024_threads_per_sm():
    # The gemm_tiled walk-through says 2048 threads / 64 warps for the RTX 2080 Ti; Turing has 1024 / 32.
    t = arches()["turing"]
    assert t["max_threads_per_sm"] == 1024 and t["max_warps_per_sm"] == 32
    assert t["max_blocks_per_sm"] == 16
    assert tile_occupancy("turing", 16).blocks_per_sm == 4


def test_registers_limit_hand_worked():
    # Hopper: 64 regs x 32 lanes = 2048 per warp; 65536 / 2048 = 32 warps; 8 warps/block -> 4.
    o = occupancy("hopper", 256, smem=0, regs=64)
    assert o.limits["registers"] == 4 and o.blocks_per_sm == 4 and o.limiter == "registers"
    assert o.occupancy == pytest.approx(0.5)


def test_ampere_reserved_shared_memory():
    # 48 KB + 1 KB reserved per block: 167936 // 50176 = 3 blocks.
    o = occupancy("ampere", 128, smem=48 * 1024)
    assert o.limits["shared"] == 3


@pytest.mark.parametrize(
    "args,needle",
    [
        (("fermi", 2048, 0), "exceed"),
        (("fermi", 64, 20000), "exceed"),
        (("hopper", 0, 0), "at least 1"),
        (("pascal", 64, 0), "unknown architecture"),
    ],
)
def test_bad_occupancy_input(args, needle):
    with pytest.raises(OccupancyError, match=needle):
        occupancy(*args)


def test_presets_name_their_sources():
    for name, a in arches().items():
        assert a["source"] and a["label"], name
        assert a["max_threads_per_sm"] == 32 * a["max_warps_per_sm"]
