"""Page 08's waves (explainer.model.waves): blocks to waves on the SMs, the tail, split-K's blocks
and its adding traffic, counted on small cases that can be checked by hand."""

import pytest

from explainer.model import waves


def test_tiles_round_up_along_both_edges():
    assert waves.tiles(4096, 4096, 256, 128) == 16 * 32
    assert waves.tiles(1, 1, 256, 128) == 1
    assert waves.tiles(257, 129, 256, 128) == 2 * 2


@pytest.mark.parametrize("blocks, sms, per_sm, rounds, tail, idle", [
    (512, 132, 1, 4, 512 - 3 * 132, 0),  # 3 full waves and 116 more
    (32, 132, 1, 1, 0, 100),  # one wave, most SMs idle (a single wave is not a "tail")
    (264, 132, 1, 2, 0, 0),  # exactly two waves
    (265, 132, 2, 2, 1, 0),  # 264 slots at 2 blocks an SM: one block over
])
def test_waves_rounds_tail_and_idle_sms(blocks, sms, per_sm, rounds, tail, idle):
    w = waves.Waves(blocks, sms, per_sm)
    assert (w.rounds, w.tail, w.idle_sms) == (rounds, tail, idle)
    assert w.busy == pytest.approx(blocks / (rounds * sms * per_sm))
    assert 0 < w.busy <= 1


def test_split_k_makes_more_shorter_blocks():
    whole = waves.launch(1024, 1024, 1024, 256, 128, 132)
    split = waves.launch(1024, 1024, 1024, 256, 128, 132, splits=4)
    assert (whole.blocks, split.blocks) == (32, 128)
    assert (whole.time, split.time) == (1.0, 0.25)  # one wave each, a quarter of K in each block
    over = waves.launch(1024, 1024, 1024, 256, 128, 132, splits=5)  # 160 blocks: a second wave
    assert over.rounds == 2 and over.time == pytest.approx(0.4)
    assert waves.best_split(1024, 1024, 1024, 256, 128, 8, 132) == 4
    # 512 tiles already fill the SMs: splitting only evens out the last, partial wave, a few percent
    S = waves.best_split(4096, 4096, 4096, 256, 128, 8, 132)
    gain = waves.launch(4096, 4096, 4096, 256, 128, 132).time / waves.launch(4096, 4096, 4096, 256, 128, 132, splits=S).time
    assert 1.0 <= gain < 1.05
    assert waves.best_split(1024, 1024, 16, 256, 128, 8, 132) == 2  # no more slices than K's 2 phases


def test_split_traffic_counts_partial_copies_of_c():
    assert waves.split_traffic_bytes(100, 200, 1) == 0
    assert waves.split_traffic_bytes(100, 200, 3) == 2 * 3 * 100 * 200 * 4


@pytest.mark.parametrize("bad", [dict(blocks=0, sms=1), dict(blocks=1, sms=0), dict(blocks=1, sms=1, per_sm=0)])
def test_waves_refuse_empty_launches(bad):
    with pytest.raises(ValueError):
        waves.Waves(**bad)
    with pytest.raises(ValueError):
        waves.launch(10, 10, 10, 8, 8, 4, splits=0)
