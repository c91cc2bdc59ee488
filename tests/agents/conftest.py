"""Fixtures for the agents tests: one tiny real training run on DoomItems-v0, shared by the module's tests."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

ENV_ID = "DoomItems-v0"

# Small enough to train end to end in seconds: 2 envs (SubprocVecEnv), short rollouts, a tiny CNN.
TINY = {
    "n_envs": 2,
    "n_timesteps": 256,
    "policy": "CnnPolicy",
    "frame_stack": 2,
    "n_steps": 64,
    "batch_size": 64,
    "n_epochs": 1,
    "learning_rate": "lin_3e-4",
    "policy_kwargs": ("dict(features_extractor_class=SmallCNN, features_extractor_kwargs=dict(features_dim=32), "
                      "net_arch=[])"),
    "env_kwargs": {"resolution": [30, 40]},
}


@pytest.fixture(scope="session")
def env_id() -> str:
    return ENV_ID


@pytest.fixture
def tiny_settings() -> dict:
    """A copy of TINY, for tests that write their own hyperparameter file."""
    return {**TINY, "env_kwargs": dict(TINY["env_kwargs"])}


@pytest.fixture(scope="session")
def tiny_hyperparams(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("hyperparams") / "tiny.yml"
    path.write_text(yaml.safe_dump({ENV_ID: TINY}))
    return path


@pytest.fixture(scope="session")
def trained_run(tmp_path_factory, tiny_hyperparams) -> Path:
    """`wadgym train` end to end (a few hundred steps, final evaluation on 2 seeded episodes)."""
    from wadgym.cli import main

    run = tmp_path_factory.mktemp("runs") / "tiny"
    rc = main(["train", "--env", ENV_ID, "--conf-file", str(tiny_hyperparams), "--run-dir", str(run),
               "--eval-episodes", "2", "--no-progress", "--seed", "3", "--device", "auto"])
    assert rc == 0
    return run


@pytest.fixture(scope="session")
def map_run(tmp_path_factory) -> Path:
    """`wadgym train` end to end on the screen with the automap of the ground seen as more channels."""
    from wadgym.cli import main

    folder = tmp_path_factory.mktemp("map-run")
    conf = folder / "conf.yml"
    settings = {**TINY, "env_kwargs": {**TINY["env_kwargs"], "buffers": ["automap_seen"]}}
    conf.write_text(yaml.safe_dump({ENV_ID: settings}))
    run = folder / "run"
    rc = main(["train", "--env", ENV_ID, "--conf-file", str(conf), "--run-dir", str(run), "--eval-episodes", "1",
               "--no-progress", "--seed", "1"])
    assert rc == 0
    return run
