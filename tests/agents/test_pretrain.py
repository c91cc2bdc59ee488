"""`wadgym train --pretrain DATASET` and `--algo bc` (datasets.pretrain) on the real engine: the inputs rebuilt from a
dataset are those the run's VecEnv gives, cloning the scripted expert of DoomItems-v0 (one map) from 5 recorded
episodes makes the network agree with the expert on held-out recorded steps and, with PPO after it, score above
the untrained network on the same seeds, the run folder records the dataset; bad input is one message before any
engine starts. Every dataset goes under the module's own folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml

minari = pytest.importorskip("minari", reason="needs the demos extra: pip install 'wadgym[demos]'")

from wadgym.agents.datasets.pretrain import agreement, load_demonstrations  # noqa: E402
from wadgym.agents.datasets.record import record_dataset  # noqa: E402
from wadgym.cli import main  # noqa: E402

ENV = "DoomItems-v0"  # one map: a few episodes of the expert cover what held-out episodes show
EXPERT, HELD_OUT, OTHER_ENV = "wadgym/expert-v0", "wadgym/expert-held-out-v0", "wadgym/items-v1-random-v0"


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    """The scripted expert's episodes of seeds 0-4 (cloned) and 100-102 (held out), and a DoomItems-v1 one."""
    root = tmp_path_factory.mktemp("datasets")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MINARI_DATASETS_PATH", str(root))
        record_dataset(ENV, "scripted", episodes=5, dataset_id=EXPERT, seed=0)
        record_dataset(ENV, "scripted", episodes=3, dataset_id=HELD_OUT, seed=100)
        record_dataset("DoomItems-v1", "random", episodes=1, dataset_id=OTHER_ENV)
        yield root


@pytest.fixture
def conf_file(tmp_path, tiny_settings) -> Path:
    """conftest's tiny settings at the env's own resolution (the datasets'), a learning rate cloning learns at."""
    path = tmp_path / "pretrain.yml"
    path.write_text(yaml.safe_dump({ENV: {**tiny_settings, "env_kwargs": {}, "learning_rate": 3e-3}}))
    return path


def train(run: Path, conf_file: Path, epochs: int, *options: str) -> int:
    return main(["train", "--env", ENV, "--conf-file", str(conf_file), "--run-dir", str(run), "--pretrain", EXPERT,
                 "--pretrain-epochs", str(epochs), "--eval-episodes", "0", "--no-progress", "--device", "cpu",
                 *options])


def untrained(run: Path, folder: Path) -> Path:
    """A run folder holding the network `run` started from: its configuration and seed, no training."""
    from stable_baselines3 import PPO

    from wadgym.agents.config import ppo_kwargs
    from wadgym.agents.vec import build_vec_env, close_vec_env

    settings = yaml.safe_load((run / "config.yml").read_text())
    hp = settings["hyperparams"]
    venv = build_vec_env(settings["env"], hp["env_kwargs"], 1, None, hp["frame_stack"], vec_env="dummy")
    try:
        model = PPO(hp["policy"], venv, device="cpu", seed=settings["seed"], **ppo_kwargs(hp))
    finally:
        close_vec_env(venv)
    folder.mkdir()
    shutil.copy(run / "config.yml", folder)
    model.save(folder / "model.zip")
    return folder


def held_out_agreement(run: Path) -> float:
    """The share of the held-out expert steps where the run's policy's argmax is the expert's action."""
    import torch

    from wadgym.agents.policies.policy import SavedPolicy

    policy = SavedPolicy(run).model.policy
    demos = load_demonstrations(HELD_OUT, policy.observation_space.shape[0])  # (C * frame_stack, H, W), C = 1

    def tensors(rows):
        return torch.as_tensor(demos.inputs(rows), dtype=torch.float32), torch.as_tensor(demos.actions[rows]).long()

    return agreement(policy, tensors, len(demos))


def test_inputs_rebuilt_from_a_dataset_are_what_the_run_venv_gives(datasets):
    """The recorded actions replayed on the training VecEnv (frame stack 3, channel-first): every input it gives
    before the episode's end is the one rebuilt from the dataset, the zeros of the first frames too."""
    from wadgym.agents.vec import build_vec_env, close_vec_env

    episode = minari.load_dataset(EXPERT)[1]  # reset with seed 1
    rebuilt = load_demonstrations(EXPERT, 3)
    first = len(minari.load_dataset(EXPERT)[0].actions)
    steps = len(episode.actions)
    expected = rebuilt.inputs(np.arange(first, first + steps))
    assert expected.shape == (steps, 3, 60, 80) and not expected[0, :2].any() and not expected[1, 0].any()
    venv = build_vec_env(ENV, {}, 1, 1, frame_stack=3, vec_env="dummy")
    try:
        seen = [venv.reset()[0]]
        for action in episode.actions[:-1]:
            observations, _, dones, _ = venv.step(np.array([action]))
            assert not dones[0]
            seen.append(observations[0])
    finally:
        close_vec_env(venv)
    assert np.array_equal(np.stack(seen), expected)
    assert np.array_equal(rebuilt.actions[first:first + steps], episode.actions)


def test_bc_alone_clones_the_expert_into_a_run_folder_eval_plays(datasets, conf_file, tmp_path, capsys):
    run = tmp_path / "bc"
    assert train(run, conf_file, 2, "--algo", "bc", "--seed", "0") == 0
    config = yaml.safe_load((run / "config.yml").read_text())
    assert config["algo"] == "bc" and config["hyperparams"]["n_timesteps"] == 0
    source = config["pretrain"]
    assert source["dataset"] == EXPERT and source["episodes"] == 5 and source["epochs"] == 2
    assert source["policy"]["kind"] == "scripted" and source["levels"] == "train"
    assert source["steps"] == sum(len(e.actions) for e in minari.load_dataset(EXPERT))
    results = json.loads((run / "pretrain.json").read_text())
    assert [e["epoch"] for e in results["history"]] == [1, 2] and results["samples"] == source["steps"]
    assert results["history"][-1]["loss"] < results["history"][0]["loss"]
    meta = json.loads((run / "meta.json").read_text())
    assert meta["timesteps"] == 0 and meta["finished"] and meta["sessions"][0]["pretrain"]["epochs"] == 2
    assert list((run / "tb" / "BC_1").glob("events.out.tfevents.*")) and (run / "model.zip").is_file()

    capsys.readouterr()
    assert main(["eval", str(run), "--episodes", "1", "--levels", "train", "--deterministic"]) == 0
    assert "trained" in capsys.readouterr().out


def test_pretrain_then_ppo_agrees_with_the_expert_far_more_than_the_untrained_network(datasets, conf_file,
                                                                                      tmp_path):
    """4 epochs of cloning, then PPO continues from the cloned network: on the held-out expert steps (seeds
    100-102; the expert's most frequent action, forward, is 0.50 of them) its argmax agrees with the expert far
    more often than the untrained network's. Measured with --seed 0-3: 0.61-0.76 against 0.09-0.28, margins
    0.37-0.57 (cloning alone: 0.65-0.77, margins 0.37-0.58)."""
    run = tmp_path / "pretrained"
    assert train(run, conf_file, 4, "--timesteps", "128", "--seed", "1") == 0
    config = yaml.safe_load((run / "config.yml").read_text())
    assert config["algo"] == "ppo" and config["pretrain"]["dataset"] == EXPERT
    meta = json.loads((run / "meta.json").read_text())
    assert meta["timesteps"] >= 128 and list((run / "tb").glob("PPO_*")) and list((run / "tb").glob("BC_*"))
    # what MLflow gets of it (--track: the config's params, pretrain.json; tests/agents/test_tracking.py the upload)
    from wadgym.agents.runs.tracking.content import run_params
    from wadgym.agents.runs.tracking.sync import ARTIFACTS

    params = run_params(config, "", {}, {})
    assert params["pretrain.dataset"] == EXPERT and params["pretrain.episodes"] == "5"
    assert params["pretrain.steps"] == str(config["pretrain"]["steps"]) and params["pretrain.policy.kind"] == "scripted"
    assert "pretrain.json" in ARTIFACTS
    pretrained, before = held_out_agreement(run), held_out_agreement(untrained(run, tmp_path / "untrained"))
    assert pretrained >= 0.55 and pretrained >= before + 0.25, (pretrained, before)


@pytest.mark.parametrize("options, message", [
    (["--pretrain", "wadgym/nowhere-v0"], "unknown dataset 'wadgym/nowhere-v0': no such dataset in"),
    (["--pretrain", OTHER_ENV], f"dataset '{OTHER_ENV}' holds episodes of DoomItems-v1, not of DoomItems-v0"),
    (["--env-kwargs", "action_set=extended"], "acts in Discrete(5); DoomItems-v0 with the run's env kwargs "
                                              "{'action_set': 'extended'} acts in Discrete(9)"),
    (["--env-kwargs", "resolution=[30,40]"], "holds frames of Box(0, 255, (60, 80, 1), uint8)"),
    (["--algo", "recurrent_ppo"], "--pretrain clones into a feed-forward policy"),
    (["--algo", "bc", "--timesteps", "64"], "--algo bc trains no PPO steps"),
    (["--pretrain-epochs", "0"], "pretrain_epochs=0 is not valid"),
    (["--resume", "runs/elsewhere"], "--pretrain is for a new run"),
], ids=["unknown", "other-env", "other-actions", "other-frames", "recurrent", "bc-timesteps", "no-epochs", "resume"])
def test_bad_input_is_one_message_before_any_engine(options, message, datasets, conf_file, tmp_path, monkeypatch,
                                                     capsys):
    from wadgym.envs.doom_env import DoomEnv

    def no_engine(*args, **kwargs):
        raise AssertionError("an engine was started")

    monkeypatch.setattr(DoomEnv, "_start_engine", no_engine)
    argv = ["train", "--env", ENV, "--conf-file", str(conf_file), "--run-dir", str(tmp_path / "run"),
            "--device", "cpu", "--no-progress"]
    if "--pretrain" not in options:
        argv += ["--pretrain", EXPERT]
    assert main([*argv, *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith("wadgym train: ") and message in err and err.count("\n") == 1, err
    assert not (tmp_path / "run").exists()


def test_bc_without_a_dataset_is_refused():
    from wadgym.agents import TrainConfig

    with pytest.raises(ValueError, match="--algo bc clones the actions of a dataset: give --pretrain DATASET"):
        TrainConfig(env=ENV, algo="bc")
