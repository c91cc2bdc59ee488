"""The frame downsamplers on their own (the env's observations through them are in test_doom_env.py)."""

from __future__ import annotations

import numpy as np
import pytest

from wadgym.envs.frames import BlockMean, BlockSample, parse_observation_size, valid_observation_sizes


@pytest.mark.parametrize("shape", [(120, 160), (120, 160, 3)])
@pytest.mark.parametrize("f", [1, 2, 4, 5])
def test_block_mean_averages_blocks(shape, f):
    frame = np.random.default_rng(f).integers(0, 256, shape, dtype=np.uint8)
    downsample = BlockMean(shape, f)
    channels = shape[2:] or (1,)  # gray frames come out with a channel axis
    expected = frame.reshape(shape[0] // f, f, shape[1] // f, f, *channels).mean(axis=(1, 3)).astype(np.uint8)
    first = downsample(frame)
    np.testing.assert_array_equal(first, expected)
    second = downsample(frame[::-1].copy())
    assert f == 1 or not np.shares_memory(first, second)  # each call returns its own array


@pytest.mark.parametrize("shape", [(120, 160), (120, 160, 3)])
@pytest.mark.parametrize("f", [1, 2, 4, 5])
def test_block_sample_keeps_each_blocks_centre_pixel(shape, f):
    frame = np.random.default_rng(f).integers(0, 256, shape, dtype=np.uint8)
    downsample = BlockSample(shape, f)
    first = downsample(frame)
    assert first.shape == (shape[0] // f, shape[1] // f, *(shape[2:] or (1,)))  # gray gets a channel axis
    np.testing.assert_array_equal(first[1, 2], np.atleast_1d(frame[f + f // 2, 2 * f + f // 2]))
    second = downsample(frame[::-1].copy())
    assert f == 1 or not np.shares_memory(first, second)  # each call returns its own array
    assert f == 1 or not np.shares_memory(first, frame)


def test_observation_sizes_are_the_whole_block_reductions():
    """160x120 reduces by the common divisors of 160 and 120 (1, 2, 4, 5, 8, 10, 20, 40), nothing else."""
    assert valid_observation_sizes(160, 120) == [(120 // f, 160 // f) for f in (1, 2, 4, 5, 8, 10, 20, 40)]
    assert parse_observation_size((60, 80), "160x120", 160, 120) == (60, 80)
    with pytest.raises(ValueError, match=r"resolution=\(50, 80\) is not reachable .*valid \(height, width\): "
                                         r"\(120, 160\), \(60, 80\)"):
        parse_observation_size((50, 80), "160x120", 160, 120)
