"""The tables a run is drawn from: agents.backends.BACKENDS and agents.algos.ALGOS. Every entry is whole (its
Trainer class loads and has the protocol's steps; an algorithm's backends exist), a run folder's backend is
found from what its config.yml records, and what a backend or an algorithm cannot train is refused before
anything starts, self-play included (it takes the same path as every run: resolve_config)."""

from __future__ import annotations

import pytest
import yaml

import wadgym.agents
from wadgym.agents import TrainConfig
from wadgym.agents.algos import ALGOS, DEFAULT_ALGO, algo_class, policy_name
from wadgym.agents.backends import BACKENDS, OPTIONS, backend_for, backend_of

MULTI_ENV = "DoomItemsDuel-v0"
TRAINER_STEPS = ("resolve", "evaluate", "start", "learn", "save", "__enter__", "__exit__")


@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_each_backend_names_a_trainer_with_the_protocols_steps(name):
    backend = BACKENDS[name]
    trainer = backend.trainer_class()
    assert all(callable(getattr(trainer, step, None)) for step in TRAINER_STEPS), trainer
    assert backend.option in OPTIONS
    assert backend_of({"env": "x", **backend.record}) is backend  # what config.yml records finds it again


def test_a_run_from_before_the_backend_was_recorded_is_an_sb3_run():
    assert backend_of({"env": "DoomItems-v0", "hyperparams": {}}).name == "sb3"


@pytest.mark.parametrize("name", sorted(ALGOS))
def test_each_algorithm_trains_on_backends_of_the_table_and_loads_its_class(name):
    algo = ALGOS[name]
    assert algo.backends and set(algo.backends) <= set(BACKENDS)
    assert algo_class(name).__name__ in ("PPO", "RecurrentPPO")
    assert policy_name(name, "CnnPolicy").startswith("Cnn")
    assert algo.clones <= algo.pretrain and algo.clones == (not algo.ppo_steps)  # bc: cloning alone


def test_the_exploration_flag_of_each_algorithm():
    assert {name: algo.explore for name, algo in ALGOS.items()} == {"ppo": True, "recurrent_ppo": True, "bc": False}
    assert ALGOS[DEFAULT_ALGO].backends == tuple(BACKENDS)  # the default trains everywhere


def test_a_backend_is_looked_up_by_option_and_kind_of_env():
    assert backend_for("DoomItems-v0").name == "sb3"
    assert backend_for("DoomItems-v0", "rllib").name == "rllib"
    assert backend_for(MULTI_ENV).name == "selfplay"
    with pytest.raises(ValueError, match=f"--backend rllib does not train multi-agent envs such as {MULTI_ENV}; "
                                         "use --backend sb3"):
        backend_for(MULTI_ENV, "rllib")
    with pytest.raises(ValueError, match="backend='tf' is not valid; choose sb3 or rllib"):
        backend_for("DoomItems-v0", "tf")


def test_self_play_is_resolved_as_every_run_is_with_its_own_keys(tmp_path, monkeypatch):
    """resolve_config of a multi-agent env: config.yml's keys of a self-play run (no vec_env: the games are
    AgentSlots), its checks made, nothing created."""
    pytest.importorskip("pettingzoo")
    monkeypatch.chdir(tmp_path)
    settings = wadgym.agents.resolve_config(TrainConfig(env=MULTI_ENV, timesteps=64, n_envs=1, device="cpu"))
    assert set(settings) == {"env", "algo", "selfplay", "seed", "device", "hyperparams_file", "hyperparams",
                             "restart"}
    assert settings["selfplay"] is True and settings["algo"] == "ppo" and settings["hyperparams"]["n_timesteps"] == 64
    assert backend_of(settings).name == "selfplay"
    with pytest.raises(ValueError, match="--pretrain is not supported for multi-agent envs"):
        wadgym.agents.train(TrainConfig(env=MULTI_ENV, pretrain="wadgym/any-v0"))
    with pytest.raises(ValueError, match="--backend rllib does not train multi-agent envs"):
        wadgym.agents.train(TrainConfig(env=MULTI_ENV, backend="rllib"))
    assert not (tmp_path / "runs").exists()


def test_a_self_play_run_is_not_resumed(tmp_path):
    """Its backend does not resume: refused before the folder is touched (a stand-in: a self-play run's
    config.yml)."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yml").write_text(yaml.safe_dump({"env": MULTI_ENV, "algo": "ppo", "selfplay": True,
                                                    "hyperparams": {"n_timesteps": 64}}))
    before = sorted(p.name for p in run.iterdir())
    with pytest.raises(ValueError, match="--resume is not supported for multi-agent envs"):
        wadgym.agents.train(TrainConfig(resume=run))
    assert sorted(p.name for p in run.iterdir()) == before


@pytest.mark.parametrize("command, message", [
    (["record", "DoomItems-v1", "--policy", "{run}", "--episodes", "1", "--dataset", "wadgym/duel-test-v0"],
     "a self-play run plays a multi-agent env; datasets record single-agent ids"),
    (["worldmodel", "DoomItems-v1", "--policy", "{run}", "--out", "{out}"],
     "a self-play run plays a multi-agent env; world-model datasets record single-agent ids"),
    (["train", "--reproduce", "{run}", "--no-progress"], "self-play runs cannot be reproduced with --reproduce yet"),
])
def test_the_readers_of_a_run_folder_know_a_self_play_run_by_the_table(command, message, tmp_path, capsys,
                                                                       monkeypatch):
    """What reads a run folder asks the backends table what the run is (config.run_backend), not config.yml's
    keys: a self-play run (a stand-in: its config.yml) is refused in one line before any engine starts."""
    from wadgym.cli import main

    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yml").write_text(yaml.safe_dump({"env": MULTI_ENV, "algo": "ppo", "selfplay": True,
                                                    "hyperparams": {"n_timesteps": 64}}))
    argv = [part.format(run=run, out=tmp_path / "out") for part in command]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert message in error and "Traceback" not in error
    assert not any((tmp_path / "minari").rglob("*")) and not (tmp_path / "out").exists()  # Minari's root may be made
