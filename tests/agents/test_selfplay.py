"""Self-play on DoomItemsDuel-v0 through the command line, on the real engine: `wadgym train` (one shared
policy, every player a slot), its head-to-head evaluation on held-out levels, `wadgym eval`, and
`wadgym rollout --video` with the players side by side; nothing left running afterwards."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml

pytest.importorskip("pettingzoo")

ENV_ID = "DoomItemsDuel-v0"


def wadgym(*args: str) -> list[str]:
    return [sys.executable, "-m", "wadgym.cli", *args]


def run(command: list[str], process_session, timeout: float = 300) -> subprocess.CompletedProcess:
    process = subprocess.Popen(command, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    session = process_session(process.pid)
    out, err = process.communicate(timeout=timeout)
    assert session.leftovers() == [], "engines or workers outlived the command"
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def test_selfplay_trains_and_meets_random_head_to_head_on_held_out_levels(tmp_path, process_session, tiny_settings):
    # One game of two players (two slots), 256 agent steps (two rollouts); short episodes on 4 training levels.
    # A curriculum: the first rollout's game races for 5 items, the second's for the entry's own 10.
    tiny = {**tiny_settings, "n_envs": 1, "n_timesteps": 256,
            "curriculum": [{"until": 128, "env_kwargs": {"n_items": 5}}]}
    tiny["env_kwargs"].update(num_levels=4, max_steps=40, color=True)   # rollout --policy must make color games too
    (tmp_path / "hp.yml").write_text(yaml.safe_dump({ENV_ID: tiny}))
    run_dir = tmp_path / "run"
    result = run(wadgym("train", "--env", ENV_ID, "--conf-file", str(tmp_path / "hp.yml"), "--run-dir",
                        str(run_dir), "--eval-episodes", "2", "--no-progress", "--seed", "0"), process_session)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "trained vs random (seats alternate)" in result.stdout
    assert (run_dir / "model.zip").is_file()
    config = yaml.safe_load((run_dir / "config.yml").read_text())
    assert config["selfplay"] is True and config["env"] == ENV_ID
    meta = json.loads((run_dir / "meta.json").read_text())
    assert meta["finished"] and meta["timesteps"] >= 256  # agent steps: both players' streams count
    assert "curriculum: stage 1 from step 128" in result.stdout and "'n_items'" not in result.stdout.split("stage 1")[1]
    assert sorted(p.name for p in run_dir.glob("*.monitor.csv")) == ["train_1.monitor.csv", "train_2.monitor.csv"]
    evaluation = json.loads((run_dir / "metrics.json").read_text())["eval"]
    assert evaluation["levels"] == "test" and evaluation["seeds"] == [0, 1]
    head = evaluation["vs_random"]["episodes"]
    assert [h["seed"] for h in head] == [0, 1]
    # Items are whole pickups of at most the arena's 10; the two seats share them.
    assert all(float(h["trained"]).is_integer() and 0 <= h["trained"] + h["random"] <= 10 for h in head)
    assert len(evaluation["vs_self"]["score_per_player"]) == 2
    assert evaluation["score_name"] == "items" and "items/episode trained" in result.stdout
    assert (run_dir / "learning_curve.png").is_file()

    listed = run(wadgym("runs", str(tmp_path)), process_session)
    assert listed.returncode == 0, listed.stderr
    row = next(line for line in listed.stdout.splitlines() if line.split()[0] == "run" and ENV_ID in line)
    assert row.split()[-1] == "selfplay"  # the backends table's name, not config.yml's backend option (sb3)

    replay = run(wadgym("eval", str(run_dir), "--episodes", "1"), process_session)
    assert replay.returncode == 0, replay.stderr
    assert "on test levels" in replay.stdout and "trained vs trained" in replay.stdout

    played = run(wadgym("rollout", ENV_ID, "--policy", str(run_dir), "--episodes", "1", "--seed", "0",
                        "-k", "max_steps=8", "--video", str(tmp_path / "trained.mp4")), process_session)
    assert played.returncode == 0, played.stdout + played.stderr   # the run's own kwargs (color), then -k
    assert (tmp_path / "trained.mp4").is_file() and "      0      0       8  " in played.stdout


def test_a_curriculum_from_bots_to_self_play_trains_the_deathmatch(tmp_path, process_session, tiny_settings):
    """DoomDeathmatch-v0's games with 2 of the engine's bots beside the two agents for the first rollout, then
    the entry's own games (no bots): the ppo.yml setting of a curriculum from bots to self-play."""
    tiny = {**tiny_settings, "n_envs": 1, "n_timesteps": 256,
            "curriculum": [{"until": 128, "env_kwargs": {"bots": 2, "bot_skill": 1}}]}
    tiny["env_kwargs"].update(num_levels=2, max_steps=40)
    (tmp_path / "hp.yml").write_text(yaml.safe_dump({"DoomDeathmatch-v0": tiny}))
    run_dir = tmp_path / "run"
    result = run(wadgym("train", "--env", "DoomDeathmatch-v0", "--conf-file", str(tmp_path / "hp.yml"), "--run-dir",
                        str(run_dir), "--eval-episodes", "1", "--no-progress", "--seed", "0"), process_session)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "curriculum: stage 1 from step 128" in result.stdout and "'bots'" not in result.stdout.split("stage 1")[1]
    assert "trained vs random, in the field's units: trained " in result.stdout   # frags/min, K/D beside the score
    assert json.loads((run_dir / "meta.json").read_text())["timesteps"] >= 256
    assert sorted(p.name for p in run_dir.glob("*.monitor.csv")) == ["train_1.monitor.csv", "train_2.monitor.csv"]


def test_selfplay_starts_from_a_run_against_bots_and_refuses_weights_that_do_not_fit(tmp_path, process_session,
                                                                                    tiny_settings):
    """`--init-from` a single-agent DoomDeathmatchBots-v0 run: the self-play run's policy starts from its weights
    (a learning rate of 1e-12 keeps them), the parent recorded in config.yml; a parent of other observations (2
    frames against 3) ends the run with an error that says so."""
    import torch

    from wadgym.agents.policies.policy import SavedPolicy

    tiny = {**tiny_settings, "n_envs": 1, "n_timesteps": 64}
    tiny["env_kwargs"].update(num_levels=2, max_steps=40)
    hp = tmp_path / "hp.yml"
    bots = {**tiny, "env_kwargs": {"resolution": tiny["env_kwargs"]["resolution"], "num_levels": 2, "bots": 1}}
    hp.write_text(yaml.safe_dump({"DoomDeathmatchBots-v0": bots, "DoomDeathmatch-v0": tiny}))
    parent = tmp_path / "bots"
    result = run(wadgym("train", "--env", "DoomDeathmatchBots-v0", "--conf-file", str(hp), "--run-dir", str(parent),
                        "--eval-episodes", "0", "--no-progress", "--seed", "0"), process_session)
    assert result.returncode == 0, result.stdout + result.stderr

    child = tmp_path / "selfplay"
    result = run(wadgym("train", "--env", "DoomDeathmatch-v0", "--conf-file", str(hp), "--run-dir", str(child),
                        "--eval-episodes", "0", "--no-progress", "--seed", "0", "--hp", "learning_rate=1e-12",
                        "--init-from", str(parent)), process_session)
    assert result.returncode == 0, result.stdout + result.stderr
    assert yaml.safe_load((child / "config.yml").read_text())["init_from"]["run"] == str(parent.resolve())
    before = SavedPolicy(parent).model.policy.state_dict()
    after = SavedPolicy(child).model.policy.state_dict()
    assert before.keys() == after.keys()
    assert all(torch.allclose(before[k], after[k], rtol=1e-5, atol=1e-8) for k in before)

    result = run(wadgym("train", "--env", "DoomDeathmatch-v0", "--conf-file", str(hp), "--run-dir",
                        str(tmp_path / "misfit"), "--eval-episodes", "0", "--no-progress", "--hp", "frame_stack=3",
                        "--init-from", str(parent)), process_session)
    assert result.returncode != 0
    assert f"--init-from {parent.resolve()}: its weights do not fit this run's policy" in result.stderr


def test_a_curriculum_stage_that_changes_the_players_is_refused_before_training():
    from wadgym.agents.backends.selfplay import check_stage_games

    hp = {"env_kwargs": {"num_levels": 2}, "curriculum": [{"until": 100, "env_kwargs": {"n_players": 3}}]}
    with pytest.raises(ValueError, match=r"curriculum\[0\] \(until 100\): .* 3 players; the entry's own .* 2"):
        check_stage_games(ENV_ID, hp)


def test_rollout_writes_the_players_views_side_by_side(tmp_path, process_session):
    video = tmp_path / "duel.mp4"
    result = run(wadgym("rollout", ENV_ID, "--episodes", "1", "--video", str(video), "--env-kwarg", "max_steps=20",
                        "--env-kwarg", "num_levels=2"), process_session, timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    assert video.is_file() and video.stat().st_size > 1000
    import imageio.v2 as imageio

    reader = imageio.get_reader(video)
    frame = reader.get_data(0)
    reader.close()
    assert frame.shape[1] >= 2 * frame.shape[0]  # two 4:3 views side by side: 8:3


def test_a_player_engine_killed_during_selfplay_ends_the_run_cleanly(tmp_path, process_session, tiny_settings):
    """With --no-restart (tests/agents/test_restart.py has the default: the game is made again)."""
    import os
    import signal
    import time

    tiny = {**tiny_settings, "n_envs": 1, "n_timesteps": 100_000}
    tiny["env_kwargs"].update(num_levels=2, max_steps=40)
    (tmp_path / "hp.yml").write_text(yaml.safe_dump({ENV_ID: tiny}))
    command = wadgym("train", "--env", ENV_ID, "--conf-file", str(tmp_path / "hp.yml"), "--run-dir",
                     str(tmp_path / "run"), "--eval-episodes", "0", "--no-progress", "--no-restart")
    process = subprocess.Popen(command, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    session = process_session(process.pid)
    deadline = time.monotonic() + 120
    while len(session.note_engines()) < 2 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.5)
    engines = session.note_engines()
    assert len(engines) == 2, "the self-play game did not start"
    time.sleep(3)  # into training
    os.kill(engines[1].pid, signal.SIGKILL)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 1, out + err
    assert "training failed" in err and "player" in err, err
    assert session.leftovers() == [], "engines or workers outlived the failed run"
    meta = json.loads((tmp_path / "run" / "meta.json").read_text())
    assert meta["status"] == "failed"
