"""Hyperparameter files in rl-baselines3-zoo's format: the shipped one is valid, bad ones say what is wrong."""

from __future__ import annotations

import gymnasium as gym
import pytest
import yaml

from wadgym.agents import config
from wadgym.agents.vec import register_envs
from wadgym.envs.kwargs import parse_assignments

SHIPPED = yaml.safe_load(config.DEFAULT_HYPERPARAMS.read_text())


@pytest.mark.parametrize("env_id", sorted(SHIPPED))
def test_shipped_entries_are_valid_for_registered_envs(env_id):
    from wadgym.agents.backends.selfplay import is_multi

    if is_multi(env_id):  # a PettingZoo env: its own table, not Gymnasium's registry
        from wadgym.envs.multi import MULTI_ENVS

        assert env_id in MULTI_ENVS
    else:
        register_envs(env_id)
        assert env_id in gym.registry
    hp = config.resolve(env_id)
    kwargs = config.ppo_kwargs(hp)
    assert hp["n_timesteps"] > 0 and hp["n_envs"] >= 1
    assert callable(kwargs["learning_rate"]) or isinstance(kwargs["learning_rate"], float)


def test_default_env_has_defaults():
    assert config.DEFAULT_ENV in SHIPPED


def test_linear_schedule_decays_to_zero():
    lr = config.schedule("lin_2.5e-4")
    assert lr(1.0) == pytest.approx(2.5e-4) and lr(0.5) == pytest.approx(1.25e-4) and lr(0.0) == 0.0
    assert config.schedule(3e-4) == 3e-4
    with pytest.raises(ValueError, match="lin_<start>"):
        config.schedule("exp_1e-3")


def test_policy_kwargs_string_names_registered_extractors():
    from wadgym.agents.features import SmallCNN

    kwargs = config.parse_policy_kwargs("dict(features_extractor_class=SmallCNN, net_arch=[64], activation_fn=nn.ReLU)")
    assert kwargs["features_extractor_class"] is SmallCNN
    assert config.parse_policy_kwargs({"features_extractor_class": "SmallCNN"})["features_extractor_class"] is SmallCNN
    with pytest.raises(ValueError, match="registered: ImpalaCNN, NatureCNN, SmallCNN"):
        config.parse_policy_kwargs("dict(features_extractor_class='TinyCNN')")
    with pytest.raises(ValueError, match="names in scope"):
        config.parse_policy_kwargs("dict(features_extractor_class=Nope)")


def test_overrides_and_env_kwargs_merge_over_the_file(tmp_path):
    path = tmp_path / "hp.yml"
    path.write_text(yaml.safe_dump({"E-v0": {"n_timesteps": "1e4", "n_epochs": 4, "env_kwargs": {"a": 1, "b": 2}}}))
    overrides = parse_assignments(["n_epochs=2", "learning_rate=lin_1e-4"], "--hp")
    hp = config.resolve("E-v0", path, overrides, parse_assignments(["b=3", "c=(30, 40)"], "--env-kwargs"))
    assert hp["n_epochs"] == 2 and hp["learning_rate"] == "lin_1e-4" and hp["n_timesteps"] == 10000
    assert hp["env_kwargs"] == {"a": 1, "b": 3, "c": (30, 40)}


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"n_timesteps": 10, "n_epoch": 3}, "unknown hyperparameter(s) n_epoch; valid keys: "),
        ({"n_epochs": 3}, "need n_timesteps"),
        ({"n_timesteps": 10, "n_envs": 0}, "n_envs=0 is out of range; valid: 1 to 4096"),
    ],
)
def test_bad_entries_raise_named_errors(tmp_path, entry, message):
    path = tmp_path / "hp.yml"
    path.write_text(yaml.safe_dump({"E-v0": entry}))
    with pytest.raises(ValueError) as info:
        config.resolve("E-v0", path)
    assert message in str(info.value)


def test_normalize_key_follows_the_zoo():
    assert config.normalize_kwargs({"normalize": False}) is None
    assert config.normalize_kwargs({"normalize": True}) == {}
    assert config.normalize_kwargs({"normalize": "{'norm_obs': False, 'norm_reward': True}"}) == {
        "norm_obs": False, "norm_reward": True}


def test_train_reads_key_value_arguments_as_every_command_does(tiny_hyperparams, env_id):
    import argparse

    from wadgym.agents import resolve_config
    from wadgym.cli import train as cli_train

    parser = argparse.ArgumentParser()
    cli_train.add_arguments(parser)
    args = parser.parse_args(["--env", env_id, "--conf-file", str(tiny_hyperparams), "--env-kwargs",
                              "resolution=(30, 40)", "color=true", "--hp", "learning_rate=1e-4", "normalize=true",
                              "n_timesteps=1e3"])
    hp = resolve_config(cli_train.train_config(args))["hyperparams"]
    assert hp["env_kwargs"] == {"resolution": (30, 40), "color": True}
    assert hp["learning_rate"] == 1e-4 and config.ppo_kwargs(hp)["learning_rate"] == 1e-4
    assert config.normalize_kwargs(hp) == {} and hp["n_timesteps"] == 1000


GPU_FILE = config.DEFAULT_HYPERPARAMS.with_name("ppo_gpu.yml")


@pytest.mark.parametrize("env_id", sorted(yaml.safe_load(GPU_FILE.read_text())))
def test_gpu_budget_entries_resolve_for_registered_envs(env_id):
    """`bench/learn.py --budget gpu` trains with these: every entry names a registered id and is valid, its
    env kwargs make the env, and the shared settings come from the first entry's anchor. The env is made with at
    most 8 of the entry's levels: its 200 are the same generator run 200 times (DoomExitHard-v0's took 17 s of the
    suite), and the other kwargs are the entry's own."""
    from wadgym.agents.vec import make_env

    register_envs(env_id)
    assert env_id in gym.registry
    hp = config.resolve(env_id, GPU_FILE)
    config.check_hyperparams(hp)
    kwargs = config.ppo_kwargs(hp)
    assert hp["n_envs"] >= 16 and kwargs["batch_size"] >= 1024
    assert hp["n_timesteps"] >= config.resolve("DoomItems-v1")["n_timesteps"]
    env_kwargs = dict(hp["env_kwargs"])
    if "num_levels" in env_kwargs:
        assert env_kwargs["num_levels"] >= 8
        env_kwargs["num_levels"] = 8
    make_env(env_id, env_kwargs).close()


CPU_LONG_FILE = config.DEFAULT_HYPERPARAMS.with_name("ppo_cpu_long.yml")


@pytest.mark.parametrize("env_id", sorted(yaml.safe_load(CPU_LONG_FILE.read_text())))
def test_cpu_long_entries_resolve_and_every_curriculum_stage_makes_the_env(env_id):
    """`bench/learn.py --budget cpu-long` trains with these: each entry is valid for its algorithm, and each
    curriculum stage's env kwargs make an env that observes and acts as the id's own (agents.backends.curriculum)."""
    from wadgym.agents.algos import algo_class, algo_of, policy_name
    from wadgym.agents.backends.curriculum import check_stage_envs
    from wadgym.agents.backends.selfplay import check_stage_games, is_multi

    register_envs(env_id)
    hp = config.resolve(env_id, CPU_LONG_FILE)
    algo = algo_of(hp)
    assert algo_class(algo).__name__ in ("PPO", "RecurrentPPO") and policy_name(algo, hp["policy"])
    assert hp["n_timesteps"] > config.resolve(env_id)["n_timesteps"]   # longer than the CPU budget's
    one_level = {**hp["env_kwargs"], "num_levels": 1} if hp["env_kwargs"].get("num_levels") else hp["env_kwargs"]
    # one level each: building 200 is the run's job; a multi-agent id's stages are self-play games
    check = check_stage_games if is_multi(env_id) else check_stage_envs
    check(env_id, {**hp, "env_kwargs": one_level})
