"""Image buffers as more input channels: an env made with `buffers=(...)` trains and plays on its screen with
each buffer stacked beside it (agents.vec.ScreenAndBuffers), rather than on the screen alone."""

from __future__ import annotations

import numpy as np
import pytest

from wadgym.agents.vec import gym_make, input_keys, make_env

FORWARD = 0  # the default action set's first action


def play(env, actions, seed):
    observations = [env.reset(seed=seed)[0]]
    for action in actions:
        observations.append(env.step(action)[0])
    env.close()
    return observations


def test_the_input_is_the_screen_then_each_buffer_by_name_as_channels(session_wad_cache):
    kwargs = {"buffers": ["depth", "automap_seen"], "game_variables": ["POSITION_X"], "cache_dir": session_wad_cache}
    actions = [FORWARD] * 12 + [1] * 6
    made = make_env("DoomExit-v0", kwargs)
    assert made.observation_space.shape == (60, 80, 3) and made.observation_space.dtype == np.uint8
    stacked = play(made, actions, seed=4)
    plain = play(gym_make("DoomExit-v0", kwargs), actions, seed=4)  # the same seed and actions: the same frames
    for image, observation in zip(stacked, plain, strict=True):
        assert image.shape == (60, 80, 3)
        for channel, key in enumerate(("screen", "automap_seen", "depth")):
            np.testing.assert_array_equal(image[..., channel], observation[key][..., 0])
    assert stacked[-1][..., 1].any()  # the walls seen on the way are drawn: the map is not an empty channel
    # the one rule that the world-model recorder's players follow too, whatever order the buffers were asked in
    assert made.keys == input_keys(["depth", "automap_seen"]) == input_keys(["automap_seen", "depth"])


def test_game_variables_alone_leave_the_screen(session_wad_cache):
    env = make_env("DoomExit-v0", {"game_variables": ["POSITION_X"], "cache_dir": session_wad_cache})
    try:
        assert env.observation_space.shape == (60, 80, 1)
        assert env.reset(seed=0)[0].shape == (60, 80, 1)
    finally:
        env.close()


@pytest.mark.parametrize("fixture, channels", [("map_run", 2), ("trained_run", 1)])
def test_a_run_trains_and_plays_with_the_buffers_it_asked_for(request, fixture, channels):
    """A run trained with `buffers: [automap_seen]` (2 frames of screen and map) and one without (2 frames)."""
    from wadgym.agents.policies.policy import SavedPolicy

    policy = SavedPolicy(request.getfixturevalue(fixture))
    frames = policy.frame_stack
    assert policy.model.observation_space.shape == (frames * channels, 30, 40)  # channel-first, stacked
    venv = policy.make_vec_env()
    try:
        assert venv.observation_space.shape == (frames * channels, 30, 40)
    finally:
        venv.close()
