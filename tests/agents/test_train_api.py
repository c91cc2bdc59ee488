"""Training from Python: wadgym.agents.train(TrainConfig(...)) does what `wadgym train` does with the same
options, and needs no command line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml

import wadgym.agents
from wadgym.agents import TrainConfig, TrainingFailed, TrainResult


def test_train_from_python_then_resume(tmp_path, tiny_hyperparams, env_id):
    run_dir = tmp_path / "run"
    config = TrainConfig(env=env_id, conf_file=tiny_hyperparams, timesteps=128, seed=1, device="cpu",
                         hyperparams={"n_epochs": 1}, env_kwargs={"resolution": (30, 40)}, run_dir=run_dir,
                         eval_episodes=1, progress=False)
    result = wadgym.agents.train(config)
    assert isinstance(result, TrainResult) and result.status == "finished" and not result.interrupted
    assert result.run_dir == run_dir and result.timesteps >= 128 and result.device == "cpu"
    assert (run_dir / "model.zip").is_file()
    stored = yaml.safe_load((run_dir / "config.yml").read_text())
    assert stored["env"] == env_id and stored["seed"] == 1 and stored["hyperparams"]["n_timesteps"] == 128
    assert stored["hyperparams"]["env_kwargs"] == {"resolution": [30, 40]} and stored["vec_env"] == "thread"
    assert stored["restart"] == {"enabled": True, "limit": 5, "window_s": 600.0}
    metrics = json.loads((run_dir / "metrics.json").read_text())
    assert result.evaluation == metrics["eval"] and result.evaluation["episodes"] == 1

    # resume: the run's own configuration (its step budget is reached: nothing to learn, a new session)
    # (restart=False is this session's only: config.yml keeps the run's own setting)
    again = wadgym.agents.train(TrainConfig(resume=run_dir, eval_episodes=0, progress=False, restart=False))
    assert again.status == "finished" and again.timesteps == result.timesteps and again.evaluation is None
    meta = json.loads((run_dir / "meta.json").read_text())
    assert [s["status"] for s in meta["sessions"]] == ["finished", "finished"]
    assert len((run_dir / "command.txt").read_text().splitlines()) == 2
    assert yaml.safe_load((run_dir / "config.yml").read_text()) == stored


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"hyperparams": {"n_epoch": 3}}, "unknown hyperparameter(s) n_epoch"),
        ({"env": "NoSuchEnv-v0"}, "no hyperparameters for env 'NoSuchEnv-v0'"),
        ({"vec_env": "threads"}, "vec_env='threads' is not valid"),
        ({"env_kwargs": {"frame_skip": 0}}, "frame_skip"),
        ({"resume": "no/such/run"}, "not a wadgym run folder"),
    ],
)
def test_bad_configuration_is_a_value_error_before_any_folder(fields, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        wadgym.agents.train(TrainConfig(**fields))
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"backend": "tf"}, "backend='tf' is not valid; choose sb3 or rllib"),
        ({"hyperparams": ["n_epochs=3"]}, "hyperparams must be a dict"),
        ({"env": None}, "is not an env id"),
        ({"init_from": "runs/parent", "resume": "runs/child"}, "init_from is for a new run"),
        ({"restart": "no"}, "restart='no' is not valid; give True, False or None"),
        ({"restart_limit": -1}, "restart_limit=-1 is not valid; give a whole number >= 0"),
        ({"restart_limit": 2.5}, "restart_limit=2.5 is not valid"),
        ({"restart_window_s": 0}, "restart_window_s=0 is not valid; give seconds > 0"),
        ({"restart": False, "restart_limit": 3}, "restart=False .* contradicts restart_limit"),
        ({"algo": "a2c"}, "algo='a2c' is not valid; choose one of ppo, recurrent_ppo"),
    ],
)
def test_train_config_refuses_what_cannot_be_a_run(fields, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig(**fields)


def test_restart_settings_of_a_new_and_a_resumed_run():
    stored = {"enabled": True, "limit": 2, "window_s": 30.0}
    assert TrainConfig().restart_settings() == {"enabled": True, "limit": 5, "window_s": 600.0}
    assert TrainConfig().restart_settings(stored) == stored and not TrainConfig().restart_overridden()
    assert TrainConfig(restart_limit=3).restart_settings(stored) == {"enabled": True, "limit": 3, "window_s": 30.0}
    assert TrainConfig(restart=False).restart_settings(stored) == {**stored, "enabled": False}
    off = {**stored, "enabled": False}
    assert TrainConfig(restart=True).restart_settings(off) == stored
    assert TrainConfig(restart_limit=0, restart_window_s=5).restart_settings(off) == {
        "enabled": True, "limit": 0, "window_s": 5.0}


def test_the_restart_options_become_train_config_fields():
    import argparse

    from wadgym.cli.train import add_arguments, train_config

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    given = train_config(parser.parse_args(["--restart-limit", "3/60"]))
    assert (given.restart, given.restart_limit, given.restart_window_s) == (None, 3, 60.0)
    given = train_config(parser.parse_args(["--restart-limit", "4"]))
    assert (given.restart, given.restart_limit, given.restart_window_s) == (None, 4, 600.0)
    given = train_config(parser.parse_args(["--no-restart"]))
    assert (given.restart, given.restart_limit, given.restart_window_s) == (False, None, None)
    assert not train_config(parser.parse_args([])).restart_overridden()
    with pytest.raises(ValueError, match="--no-restart and --restart-limit contradict"):
        train_config(parser.parse_args(["--no-restart", "--restart-limit", "3"]))
    with pytest.raises(ValueError, match="--restart-limit '3/x' is not valid"):
        train_config(parser.parse_args(["--restart-limit", "3/x"]))


def test_resolve_config_records_the_algo_and_refuses_what_only_sb3_trains(tiny_hyperparams, env_id, tmp_path,
                                                                           monkeypatch):
    monkeypatch.chdir(tmp_path)
    base = {"env": env_id, "conf_file": tiny_hyperparams, "device": "cpu"}
    assert wadgym.agents.resolve_config(TrainConfig(**base))["algo"] == "ppo"
    settings = wadgym.agents.resolve_config(TrainConfig(**base, algo="recurrent_ppo"))
    assert settings["algo"] == settings["hyperparams"]["algo"] == "recurrent_ppo"
    with pytest.raises(ValueError, match="algo=recurrent_ppo trains with the sb3 backend only"):
        wadgym.agents.train(TrainConfig(**base, algo="recurrent_ppo", backend="rllib"))
    stages = [{"until": 64, "env_kwargs": {}}]
    with pytest.raises(ValueError, match="a curriculum trains with the sb3 backend only"):
        wadgym.agents.train(TrainConfig(**base, hyperparams={"curriculum": stages}, backend="rllib"))
    assert not (tmp_path / "runs").exists()


def test_self_play_refuses_what_it_does_not_train(tmp_path, monkeypatch):
    pytest.importorskip("pettingzoo")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="algo=recurrent_ppo is not supported for multi-agent envs"):
        wadgym.agents.train(TrainConfig(env="DoomItemsDuel-v0", algo="recurrent_ppo"))
    assert not (tmp_path / "runs").exists()


def test_train_takes_a_train_config():
    with pytest.raises(TypeError, match="TrainConfig"):
        wadgym.agents.train({"env": "DoomItems-v1"})
    assert issubclass(TrainingFailed, Exception)


def test_importing_the_agents_package_needs_no_training_extra():
    """`import wadgym.agents` (as `wadgym rollout` does) loads no training package until train is called."""
    code = ("import sys\n"
            "for name in ('yaml', 'torch', 'stable_baselines3', 'tensorboard', 'matplotlib'):\n"
            "    sys.modules[name] = None\n"
            "import wadgym.agents\n"
            "assert callable(wadgym.agents.train), wadgym.agents.train\n"
            "print(wadgym.agents.TrainConfig(env='DoomItems-v0').env)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "DoomItems-v0"


def test_python_m_wadgym_runs_the_command_line():
    from wadgym import __version__

    result = subprocess.run([sys.executable, "-m", "wadgym", "--version"], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"wadgym {__version__}"
