"""`wadgym rollout` with the random policy and with a saved run: KEY=VALUE env arguments read as
everywhere else, the random policy shared with `wadgym eval`, and a run's own env settings."""

from __future__ import annotations

import re

import numpy as np
import pytest
import yaml

from wadgym.cli import main

# episode, seed, level seed, return, score, length (then steps/s)
ROW = re.compile(r"^\s+(\d+)\s+(\d+)\s+(\d+|-)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(\d+)\s+\d+$", re.MULTILINE)
# RGB frames, 3 stacked: channel order and stack order both matter.
RUN_KWARGS = {"resolution": [30, 40], "color": True}


@pytest.fixture(scope="module")
def rgb_run(tmp_path_factory, env_id):
    """A run folder holding an untrained PPO on RGB 30x40 frames stacked 3 deep (no training needed)."""
    from stable_baselines3 import PPO
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from wadgym.agents.features import SmallCNN
    from wadgym.agents.vec import make_env, observe

    run = tmp_path_factory.mktemp("runs") / "rgb"
    run.mkdir()
    venv = observe(DummyVecEnv([lambda: Monitor(make_env(env_id, RUN_KWARGS))]), 3)
    PPO("CnnPolicy", venv, n_steps=8, batch_size=8, device="cpu", seed=0,
        policy_kwargs={"features_extractor_class": SmallCNN, "features_extractor_kwargs": {"features_dim": 8},
                       "net_arch": []}).save(run / "model.zip")
    venv.close()
    (run / "config.yml").write_text(yaml.safe_dump(
        {"env": env_id, "seed": 0, "hyperparams": {"frame_stack": 3, "env_kwargs": RUN_KWARGS}}))
    return run


def rollout(capsys, *args) -> tuple[int, str, str]:
    code = main(["rollout", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_env_arguments_read_as_in_every_command(capsys, env_id):
    code, out, err = rollout(capsys, env_id, "--episodes", "1", "--seed", "0", "-k", "color=true",
                             "-k", "resolution=(30, 40)", "-k", "max_episode_steps=3")
    assert code == 0, err
    assert [row[5] for row in ROW.findall(out)] == ["3"]


def test_the_random_policy_on_seed_s_is_the_same_in_rollout_and_eval(capsys, env_id):
    from wadgym.agents.evaluate import run_episodes

    code, out, _ = rollout(capsys, env_id, "--episodes", "2", "--seed", "4")
    assert code == 0
    rows = [(int(r[2]), float(r[3]), float(r[4]), int(r[5])) for r in ROW.findall(out)]
    evaluated = [(e["level_seed"], e["return"], e["score"], e["length"])
                 for e in run_episodes(env_id, {}, [4, 5], None)]
    assert rows == evaluated
    assert sum(score for _, _, score, _ in rows) > 0  # episodes that did something, not two empty ones


def test_a_saved_run_plays_with_its_own_env_settings(capsys, rgb_run, env_id):
    code, out, err = rollout(capsys, env_id, "--policy", str(rgb_run), "--episodes", "1", "--seed", "0",
                             "-k", "max_episode_steps=5")
    assert code == 0, err
    assert [row[5] for row in ROW.findall(out)] == ["5"]


def test_a_saved_run_plays_an_env_with_game_variables(capsys, rgb_run, env_id):
    """A Dict observation (screen + game variables): the policy gets the screen, as in training."""
    code, _, err = rollout(capsys, env_id, "--policy", str(rgb_run), "--episodes", "1", "-k", "max_episode_steps=2",
                           "-k", "game_variables=[POSITION_X, POSITION_Y]")
    assert code == 0, err


def test_a_saved_run_refuses_other_frames(capsys, rgb_run, env_id):
    code, _, err = rollout(capsys, env_id, "--policy", str(rgb_run), "-k", "color=false")
    assert code == 2 and "make it with the same env kwargs" in err


def test_saved_policy_input_is_what_the_training_pipeline_gives(rgb_run, env_id):
    """The env SavedPolicy plays stacks and transposes frames as VecFrameStack + VecTransposeImage do in
    training, also across an episode's end (both VecEnvs reset on their own)."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from wadgym.agents.policies.policy import SavedPolicy
    from wadgym.agents.vec import make_env, observe

    kwargs = {**RUN_KWARGS, "max_episode_steps": 5}
    venv = observe(DummyVecEnv([lambda: make_env(env_id, kwargs)]), 3)
    played = SavedPolicy(rgb_run).make_vec_env(kwargs)
    try:
        venv.seed(5)
        expected = venv.reset()
        played.seed(5)
        assert expected.shape == (1, 9, 30, 40)
        np.testing.assert_array_equal(played.reset(), expected)
        for action in [0, 1, 3, 0, 4, 2, 0, 0, 3]:
            expected, _, done, _ = venv.step(np.array([action]))
            observation, _, played_done, _ = played.step(np.array([action]))
            assert done[0] == played_done[0]
            np.testing.assert_array_equal(observation, expected)
    finally:
        venv.close()
        played.close()
