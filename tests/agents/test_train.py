"""`wadgym train` end to end on the real engine: the run folder, reload, evaluation, `wadgym runs`."""

from __future__ import annotations

import json

import numpy as np
import pytest
import yaml

from wadgym.cli import main


def test_run_folder_holds_everything_to_reproduce_the_run(trained_run, env_id):
    for name in ("model.zip", "config.yml", "command.txt", "meta.json", "metrics.json", "train_1.monitor.csv",
                 "learning_curve.png"):
        assert (trained_run / name).is_file(), name
    config = yaml.safe_load((trained_run / "config.yml").read_text())
    assert config["env"] == env_id and config["seed"] == 3
    assert config["hyperparams"]["n_envs"] == 2
    assert config["vec_env"] == "thread"
    assert config["hyperparams"]["env_kwargs"] == {"resolution": [30, 40]}
    assert (trained_run / "command.txt").read_text().strip()  # the process's command line (here pytest's)
    meta = json.loads((trained_run / "meta.json").read_text())
    assert {"Stable-Baselines3", "PyTorch", "vizdoom", "Gymnasium", "wadgym"} <= set(meta["versions"])  # SB3's names
    assert set(meta["git"]) == {"commit", "dirty", "source"}
    assert meta["device"].startswith("cpu") or meta["device"].startswith("cuda")
    assert meta["timesteps"] >= 256 and meta["finished"] and meta["wall_time_s"] > 0
    assert (trained_run / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert list((trained_run / "tb").rglob("events.out.tfevents.*"))


def test_final_evaluation_compares_with_random_and_scripted_on_the_same_seeds(trained_run):
    """DoomItems-v0 trains on one map: one split, its training map, and metrics.json says why."""
    metrics = json.loads((trained_run / "metrics.json").read_text())
    evaluation = metrics["eval"]
    assert evaluation["episodes"] == 2
    trained, random, scripted = evaluation["trained"], evaluation["random"], evaluation["scripted"]
    assert [e["seed"] for e in trained["episodes"]] == [e["seed"] for e in random["episodes"]] == [0, 1]
    assert [e["seed"] for e in scripted["episodes"]] == [0, 1]
    assert evaluation["score_name"] == "items"
    for summary in (trained, random, scripted):
        assert summary["score_mean"] == np.mean([e["score"] for e in summary["episodes"]])
        assert all(e["length"] > 0 for e in summary["episodes"])
    assert scripted["score_mean"] > random["score_mean"]   # the reference heads for the items
    assert evaluation["levels"] == "train" and evaluation["splits"] == {"train": {
        "trained": trained, "random": random, "scripted": scripted}}
    assert "one map" in evaluation["split_note"]


def test_final_evaluation_records_one_episode_of_the_trained_policy(trained_run):
    import imageio.v2 as imageio

    video = json.loads((trained_run / "metrics.json").read_text())["video"]
    assert video["file"] == "eval.mp4" and video["levels"] == "train" and video["seed"] == 0
    reader = imageio.get_reader(trained_run / "eval.mp4")
    frames = reader.count_frames()
    reader.close()
    assert frames == video["length"] + 1   # the reset's frame, then one a step


def test_players_at_once_score_exactly_as_one_after_another(trained_run):
    """play_players runs the trained, random and scripted players each on its own engine and thread; every figure
    equals the one-at-a-time play of the same seeded episodes (the trained policy's sampled actions: each
    episode draws them from a stream of its own seed)."""
    from wadgym.agents.evaluate import PLAYERS, play_players, split_kwargs
    from wadgym.agents.policies.policy import SavedPolicy

    policy = SavedPolicy(trained_run)
    kwargs = split_kwargs(policy.env_id, policy.env_kwargs, "train")
    together = play_players(policy, kwargs, [4, 5, 6], PLAYERS)
    alone = play_players(SavedPolicy(trained_run), kwargs, [4, 5, 6], PLAYERS, workers=1)
    assert list(together) == list(PLAYERS) and together == alone
    assert [e["seed"] for e in together["trained"]["episodes"]] == [4, 5, 6]


@pytest.mark.parametrize("env_kwargs, splits, note", [
    ({"num_levels": 200}, ("test", "train"), None),
    ({"num_levels": 1}, ("train",), "one map"),
    ({}, ("train",), "no held-out test split"),                            # DoomItems-v1 alone: unlimited levels
    ({"start_level": 9_990, "num_levels": 20}, ("train",), "no held-out test split"),   # reaches the test levels
])
def test_final_evaluation_plays_a_test_split_only_where_levels_are_held_out(env_kwargs, splits, note):
    from wadgym.agents.evaluate import final_splits

    played, why = final_splits("DoomItems-v1", env_kwargs)
    assert played == splits and (why is None if note is None else note in why)


def test_sampled_actions_replay_per_episode_seed_and_leave_torch_generator_alone(trained_run):
    """A sampled episode is the same whatever was played before it (its actions draw from its own seed's stream),
    and playing leaves torch's global generator where it was."""
    import torch

    from wadgym.agents.evaluate import run_episodes
    from wadgym.agents.policies.policy import SavedPolicy

    policy = SavedPolicy(trained_run)
    state = torch.get_rng_state()
    first = run_episodes(policy.env_id, policy.env_kwargs, [7, 8], policy)
    assert torch.equal(torch.get_rng_state(), state)
    torch.manual_seed(123)  # another global stream: the episodes do not change
    again = run_episodes(policy.env_id, policy.env_kwargs, [8], SavedPolicy(trained_run))
    assert again == first[1:]


def test_reloaded_policy_replays_the_same_episode_for_the_same_seed(trained_run):
    from wadgym.agents.evaluate import run_episodes
    from wadgym.agents.policies.policy import SavedPolicy

    policy = SavedPolicy(trained_run, deterministic=True)
    first = run_episodes(policy.env_id, policy.env_kwargs, [5], policy)
    again = run_episodes(policy.env_id, policy.env_kwargs, [5], policy)
    assert first == again


def test_eval_command_reports_trained_and_random_and_writes_a_video(trained_run, tmp_path, capsys):
    video = tmp_path / "agent.mp4"
    assert main(["eval", str(trained_run), "--episodes", "1", "--seed", "7", "--video", str(video)]) == 0
    out = capsys.readouterr().out
    assert "trained" in out and "random" in out and "items/episode" in out
    assert video.stat().st_size > 1000
    import imageio.v2 as imageio

    reader = imageio.get_reader(video)
    first, fps = reader.get_data(0), reader.get_meta_data()["fps"]
    reader.close()
    assert first.ndim == 3 and first.shape[2] == 3 and np.asarray(first).std() > 0
    assert fps == pytest.approx(35 / 4)  # one frame a step: the env's render_fps, as rollout's videos


def test_runs_lists_the_run(trained_run, capsys, env_id):
    assert main(["runs", str(trained_run.parent)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:6] == ["run", "env", "steps", "score/ep", "random", "score"]
    row = next(line for line in out if line.startswith(trained_run.name))
    assert env_id in row and " items " in row and ("cpu" in row or "cuda" in row)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["eval", "no/such/run"], "not a wadgym run folder"),
        (["train", "--hp", "n_epoch=3", "--no-progress"], "unknown hyperparameter(s) n_epoch"),
        (["train", "--env", "NoSuchEnv-v0"], "no hyperparameters for env 'NoSuchEnv-v0'"),
        (["train", "--device", "tpu"], "expected auto, cpu, cuda"),
        (["train", "--env-kwargs", "frame_skip=0"], "frame_skip"),
        (["train", "--env-kwargs", "colour=True"], "colour"),
        (["export", "no/such/run", "--onnx", "x.onnx"], "not a wadgym run folder"),
    ],
)
def test_bad_input_is_a_clear_error_not_a_traceback(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()
