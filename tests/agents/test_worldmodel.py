"""World-model datasets (`wadgym worldmodel`, agents.datasets.worldmodel) on the real engine: the same command
writes the same bytes whatever the number of engines, an episode replays from its level seed, engine seed and
actions, a killed recording keeps its finished shards and --resume completes it, a damaged shard is named (and
re-recorded), the loader's clips line up frames and poses with the actions that led to them, a trained run
plays as its evaluation plays it, and bad input is refused in one line before any engine starts."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from wadgym.agents.datasets.worldmodel import (
    DamagedShardError,
    WorldModelClips,
    WorldModelConfig,
    damaged_shards,
    read_episodes,
    read_index,
    record_world_model,
    replay_episode,
)
from wadgym.cli import main

ENV = "DoomItems-v1"
LEVELS = {"num_levels": 3}  # a 3-level WAD builds in a moment
# Episodes of 300 steps at most: scripted ones end sooner (every item collected), random ones run to the limit.
SETTINGS = dict(env=ENV, env_kwargs=LEVELS, episodes=4, test_episodes=1, buffers=("depth", "labels"),
                variables=("HEALTH",), policies=(("scripted", 0.5), ("random", 0.5)), epsilon=0.2, chunk=16,
                shard_mb=0.5)
CLI = ["worldmodel", ENV, "--episodes", "4", "--test-episodes", "1", "--buffers", "depth,labels", "--variables",
       "HEALTH", "--policy", "scripted=0.5", "--policy", "random=0.5", "--epsilon", "0.2", "--chunk", "16",
       "--shard-mb", "0.5", "--no-progress"]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    """The reference recording: 4 train and 1 test episodes on 2 engines, a shard an episode or two."""
    out = tmp_path_factory.mktemp("worldmodel") / "reference"
    result = record_world_model(WorldModelConfig(out=out, n_envs=2, **SETTINGS))
    assert result.complete and not result.interrupted and result.episodes == 5
    return out


def shard_digests(root: Path) -> list[tuple[str, str]]:
    return [(s["name"], s["sha256"]) for s in read_index(root)["shards"]]


def test_the_dataset_holds_what_it_says(dataset):
    index = read_index(dataset)
    assert index["complete"] and len(index["shards"]) >= 3
    assert (dataset / "README.md").read_text().startswith(f"# {ENV}")
    episodes = list(read_episodes(dataset, "train"))
    assert [m["episode"] for m, _ in episodes] == [0, 1, 2, 3]
    policies = {m["policy_info"]["kind"] for m, _ in episodes}
    assert policies == {"scripted", "random"}  # the mixture drew both (seeded: always the same draws)
    metadata, steps = episodes[0]
    assert steps["rgb"].shape == (metadata["steps"], 120, 160, 3)
    assert steps["depth"].shape[1:] == steps["labels"].shape[1:] == (120, 160, 1)
    assert steps["action"][0] == -1 and (steps["action"][1:] >= 0).all()
    assert steps["pose"].shape == (metadata["steps"], 5) and steps["variables"].shape == (metadata["steps"], 1)
    assert any(steps["random_action"].any() for _, steps in episodes)  # epsilon 0.2 over hundreds of steps
    assert all(0 <= m["level_seed"] < 3 for m, _ in episodes)
    test_metadata, _ = next(read_episodes(dataset, "test"))
    assert test_metadata["level_seed"] >= 10_000 and test_metadata["split"] == "test"
    # each recorded button vector is the action's buttons
    for metadata, steps in episodes:
        names = metadata["buttons"]
        for action, buttons in zip(steps["action"][1:], steps["buttons"][1:]):
            assert tuple(n for n, b in zip(names, buttons) if b) == tuple(metadata["action_buttons"][action])
    # labels: the table names every object the buffer shows (0 and 1 are the map's walls, floors and ceilings)
    labelled = [(table, buffer) for table, buffer in zip(steps["label_table"], steps["labels"]) if table]
    assert labelled and all(row[2] == "WadgymItemStimpack" for table, _ in labelled for row in table)
    assert all({row[0] for row in table} >= set(np.unique(buffer).tolist()) - {0, 1} for table, buffer in labelled)


def test_a_recording_at_320x240_keeps_the_automap_velocity_the_level_plan_and_its_commit(tmp_path):
    """Frames at another resolution than the policy's (and the default's), the automap beside them, the player's
    velocity agreeing with the pose's moves, the level's plan (its start where the episode starts, its room around
    every item) and the commit that recorded it, on the card as in index.json."""
    out = tmp_path / "large"
    record_world_model(WorldModelConfig(env=ENV, env_kwargs=LEVELS, out=out, episodes=1, resolution="320x240",
                                        buffers=("automap",), policies=(("scripted", 1.0),), n_envs=1))
    index = read_index(out)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).parent, capture_output=True, text=True)
    assert index["commit"] == (head.stdout.strip() if head.returncode == 0 else None)
    card = (out / "README.md").read_text()
    assert "Frames: 320x240 RGB" in card and f"commit {index['commit'] or 'unknown'}" in card
    metadata, steps = next(read_episodes(out, "train"))
    assert metadata["resolution"] == "320x240" and metadata["images"] == ["rgb", "automap"]
    assert steps["rgb"].shape == steps["automap"].shape == (metadata["steps"], 240, 320, 3)
    assert not np.array_equal(steps["automap"][0], steps["rgb"][0])
    # velocity (map units a tic): none at the reset; where a step moved the player, it points the way the pose moved
    pose, velocity = steps["pose"], steps["velocity"]
    assert velocity.shape == (metadata["steps"], 3) and not velocity[0].any()
    moves = pose[1:, :2] - pose[:-1, :2]
    moved = np.linalg.norm(moves, axis=1) > 1
    assert moved.sum() > metadata["steps"] // 2  # the scripted player walks from item to item
    assert ((moves * velocity[1:, :2]).sum(axis=1)[moved] > 0).all()
    # the plan: the map's player start is where the episode starts, and its one room holds every item
    plan = metadata["level"]
    start = next(t for t in plan["things"] if t["kind"] == "Player1Start")
    assert [start["x"], start["y"]] == metadata["start_info"]["position"] == pose[0, :2].tolist()
    (room,) = plan["rooms"]
    xs, ys = zip(*room["outline"])
    assert all(min(xs) < x < max(xs) and min(ys) < y < max(ys) for x, y in metadata["start_info"]["item_positions"])


@pytest.mark.parametrize("split, episode", [("train", 1), ("test", 0)])
def test_an_episode_replays_from_its_level_seed_engine_seed_and_actions(dataset, split, episode):
    fields = ["rgb", "depth", "labels", "pose", "reward", "terminated", "truncated"]
    recorded = next(s for m, s in read_episodes(dataset, split, fields) if m["episode"] == episode)
    _, replayed = replay_episode(dataset, split, episode, fields)
    for field in fields:
        assert np.array_equal(recorded[field], replayed[field]), field


def test_a_killed_recording_keeps_its_shards_and_resumes_to_the_same_bytes(dataset, tmp_path):
    """The command in a subprocess, SIGKILLed once a shard is listed; --resume (on 1 engine) then writes what
    the uninterrupted recording on 2 engines wrote, byte for byte."""
    out = tmp_path / "killed"
    process = subprocess.Popen([sys.executable, "-m", "wadgym", *CLI, "--out", str(out), "--n-envs", "1",
                                "--env-kwargs", json.dumps(LEVELS)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    listed = []
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            if (out / "index.json").is_file():
                listed = read_index(out)["shards"]
                if listed:
                    break
            time.sleep(0.02)
        assert process.poll() is None, process.communicate()
        process.send_signal(signal.SIGKILL)
        process.wait(30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    index = read_index(out)
    assert not index["complete"] and index["shards"] and len(index["shards"]) < len(read_index(dataset)["shards"])
    assert damaged_shards(out) == []  # every listed shard whole
    assert main([*CLI, "--out", str(out), "--n-envs", "2", "--env-kwargs", json.dumps(LEVELS)]) == 2  # no --resume
    assert main([*CLI, "--out", str(out), "--n-envs", "1", "--env-kwargs", json.dumps(LEVELS), "--resume"]) == 0
    assert read_index(out)["complete"]
    assert shard_digests(out) == shard_digests(dataset)
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in dataset.iterdir())


def test_ctrl_c_keeps_the_finished_shards_and_exits_130(tmp_path):
    """SIGINT stops the recording after the step, whichever thread the kernel hands it to: the finished shards
    stay listed, the unfinished one is dropped, the exit status is 130."""
    out = tmp_path / "interrupted"
    process = subprocess.Popen([sys.executable, "-m", "wadgym", *CLI, "--episodes", "40", "--out", str(out),
                                "--env-kwargs", json.dumps(LEVELS)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            if (out / "index.json").is_file() and read_index(out)["shards"]:
                break
            time.sleep(0.02)
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, output
    index = read_index(out)
    assert not index["complete"] and 1 <= len(index["shards"]) < 40 and damaged_shards(out) == []
    assert sorted(p.name for p in out.iterdir()) == sorted(["index.json", *(s["name"] for s in index["shards"])])


def test_a_damaged_shard_is_named_and_resume_records_it_again(dataset, tmp_path):
    out = tmp_path / "damaged"
    shutil.copytree(dataset, out)
    second = read_index(out)["shards"][1]["name"]
    data = bytearray((out / second).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (out / second).write_bytes(bytes(data))
    assert [e.shard for e in damaged_shards(out)] == [str(out / second)]
    with pytest.raises(DamagedShardError, match=second):
        list(WorldModelClips(out, "train", 8, shuffle=False))
    with pytest.raises(DamagedShardError, match=second):
        list(read_episodes(out, "train"))
    config = WorldModelConfig(out=out, n_envs=2, resume=True, **SETTINGS)
    assert record_world_model(config).complete
    assert shard_digests(out) == shard_digests(dataset) and damaged_shards(out) == []


def test_jpeg_frames_cost_little_accuracy_and_replay_exactly(dataset, tmp_path):
    """image_format="jpeg": the same episodes as the PNG reference, rgb as JPEG (within a few levels of 255 on
    average), depth and labels still PNG and exact; an episode replays to the same decoded frames (the encoder is
    deterministic), and the card says how the images are stored."""
    out = tmp_path / "jpeg"
    settings = {**SETTINGS, "episodes": 2, "test_episodes": 0}
    assert record_world_model(WorldModelConfig(out=out, n_envs=2, image_format="jpeg:90", **settings)).complete
    reference = {m["episode"]: s for m, s in read_episodes(dataset, "train") if m["episode"] < 2}
    for metadata, steps in read_episodes(out, "train"):
        assert metadata["image_members"] == {"rgb": "rgb.jpg", "depth": "depth.png", "labels": "labels.png"}
        expected = reference[metadata["episode"]]
        assert np.array_equal(steps["depth"], expected["depth"]) and np.array_equal(steps["labels"], expected["labels"])
        assert steps["rgb"].shape == expected["rgb"].shape
        assert 0 < np.abs(steps["rgb"].astype(np.int16) - expected["rgb"]).mean() < 4
    _, replayed = replay_episode(out, "train", 1, ["rgb"])
    recorded = next(s for m, s in read_episodes(out, "train", ["rgb"]) if m["episode"] == 1)
    assert np.array_equal(recorded["rgb"], replayed["rgb"])
    assert "rgb and automap as JPEG at quality 90" in (out / "README.md").read_text()
    assert read_index(out)["settings"]["image_format"] == "jpeg:90"


def test_image_formats_are_checked():
    from wadgym.agents.datasets.worldmodel.config import _check_image_format
    from wadgym.agents.datasets.worldmodel.images import normal_format

    assert normal_format("jpeg") == "jpeg:95" and normal_format("png") == "png"
    for bad, message in (("gif", "give png (lossless, default), jpeg, or jpeg:QUALITY"), ("png:3", "give png"),
                         ("jpeg:0", "from 1 to 95"), ("jpeg:x", "from 1 to 95"), (None, "give png")):
        with pytest.raises(ValueError, match=re.escape(message)):
            normal_format(bad)
    with pytest.raises(ValueError, match="JPEG needs a frame height that is a multiple of 8"):
        _check_image_format("jpeg", "200x125")
    _check_image_format("png", "200x125")


def test_an_index_of_format_1_is_read_and_an_unknown_one_named(dataset, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(dataset, copy)
    index = json.loads((copy / "index.json").read_text())
    (copy / "index.json").write_text(json.dumps({**index, "format_version": 1}))
    assert [m["episode"] for m, _ in read_episodes(copy, "train", ["action"])] == [0, 1, 2, 3]
    (copy / "index.json").write_text(json.dumps({**index, "format_version": 3}))
    with pytest.raises(ValueError, match="format version 3; this wadgym reads versions 1, 2"):
        read_index(copy)


def test_clips_line_up_frames_and_poses_with_the_actions_that_led_to_them(dataset):
    clips = list(WorldModelClips(dataset, "train", 8, fields=("rgb", "action", "step", "pose"), shuffle=False))
    episodes = {m["episode"]: s for m, s in read_episodes(dataset, "train", ["rgb", "action", "pose"])}
    assert len(clips) == sum(len(s["action"]) // 8 for s in episodes.values())
    names = next(read_episodes(dataset, "train"))[0]["action_buttons"]
    turns = {i: {("TURN_LEFT",): 1, ("TURN_RIGHT",): -1}[tuple(b)] for i, b in enumerate(names)
             if tuple(b) in (("TURN_LEFT",), ("TURN_RIGHT",))}
    assert len(turns) == 2
    checked = 0
    for clip in clips:
        steps = clip["step"].numpy()
        assert (np.diff(steps) == 1).all()
        episode = episodes[clip["episode"]]
        assert np.array_equal(clip["rgb"].numpy(), np.moveaxis(episode["rgb"][steps], -1, 1))
        assert np.array_equal(clip["action"].numpy(), episode["action"][steps])
        for i in range(1, 8):  # a turn between frame i-1 and frame i turns the view i shows that way
            # (from step 2: the engine spends the first step's tics after a reset spawning the player)
            if int(clip["action"][i]) in turns and steps[i] >= 2:
                change = (float(clip["pose"][i, 3]) - float(clip["pose"][i - 1, 3]) + 180) % 360 - 180
                assert np.sign(change) == turns[int(clip["action"][i])], (clip["episode"], steps[i])
                assert not np.array_equal(clip["rgb"][i].numpy(), clip["rgb"][i - 1].numpy())
                checked += 1
    assert checked > 20


def test_dataloader_workers_read_each_clip_once(dataset):
    import torch

    clips = WorldModelClips(dataset, "train", 8, fields=("action", "step"), shuffle=True, seed=1, buffer=4)
    loader = torch.utils.data.DataLoader(clips, batch_size=None, num_workers=2)
    seen = sorted((int(c["episode"]), int(c["step"][0])) for c in loader)
    assert len(seen) == len(set(seen))
    shards = [clips.worker_shards(k, 2) for k in range(2)]
    assert {s["name"] for s in shards[0]}.isdisjoint(s["name"] for s in shards[1])
    assert sum(map(len, shards)) == len(read_index(dataset)["shards"]) - 1  # every train shard, once


@pytest.mark.parametrize("fixture", ["trained_run", "map_run"])
def test_a_trained_run_plays_as_its_evaluation_plays_it(request, fixture, tmp_path):
    """The recorder's observation pipeline (frame stack, channel-first, the buffers the run trained with as more
    channels) gives the run's network what SavedPolicy's VecEnv gives it: with argmax actions, the same episode."""
    import torch

    from wadgym.agents.policies.policy import SavedPolicy
    from wadgym.agents.vec import close_vec_env

    trained_run = request.getfixturevalue(fixture)
    out = tmp_path / "run"
    record_world_model(WorldModelConfig(env="DoomItems-v0", out=out, policies=((str(trained_run), 1.0),),
                                        episodes=1, deterministic=True, n_envs=2))
    metadata, steps = next(read_episodes(out, "train", ["action"]))
    assert metadata["policy_info"]["kind"] == "run" and metadata["policy_info"]["run"] == str(trained_run)
    saved = SavedPolicy(trained_run, deterministic=True)
    venv = saved.make_vec_env(metadata["env_kwargs"])
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the recorder runs it: torch's threads would wait on the engine's for the CPUs
    try:
        venv.seed(metadata["reset_seed"])
        observations, actions, done = venv.reset(), [], False
        while not done:
            action, _ = saved.predict(observations)
            observations, _, dones, _ = venv.step(action)
            actions.append(int(action[0]))
            done = bool(dones[0])
    finally:
        torch.set_num_threads(threads)
        close_vec_env(venv)
    assert actions == steps["action"][1:].tolist()


@pytest.mark.parametrize("arguments, message", [
    (["--buffers", "depth,normals"], "buffers: unknown buffers ['normals']"),
    (["--resolution", "200x150"], "resolution='200x150': the policy observes 80x60 frames"),
    (["--resolution", "123x45"], "resolution='123x45' is not a ViZDoom resolution"),
    (["--policy", "scripted=0.7", "--policy", "random=0.2"], "the weights 0.7 + 0.2 sum to 0.9, not 1"),
    (["--policy", "scripted=0.7", "--policy", "random"], "give every policy a weight"),
    (["--epsilon", "1.5"], "epsilon=1.5"),
    (["--image-format", "webp"], "image_format='webp': give png (lossless, default), jpeg, or jpeg:QUALITY"),
    (["--image-format", "jpeg:100"], "image_format='jpeg:100': the quality must be a whole number from 1 to 95"),
])
def test_bad_input_is_refused_in_one_line(arguments, message, tmp_path, capsys):
    assert main(["worldmodel", ENV, "--out", str(tmp_path / "out"), "--no-progress", *arguments]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1
    assert not (tmp_path / "out").exists()  # refused before anything was made


def test_a_policy_that_cannot_play_the_id_is_refused(tmp_path, capsys):
    run = tmp_path / "health-run"
    run.mkdir()
    (run / "config.yml").write_text("env: DoomHealth-v0\nhyperparams: {}\n")
    assert main(["worldmodel", ENV, "--out", str(tmp_path / "out"), "--policy", str(run)]) == 2
    assert "trained on DoomHealth-v0, not DoomItems-v1" in capsys.readouterr().err


def test_a_run_that_sees_one_automap_refuses_recording_the_other(map_run, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["worldmodel", "DoomItems-v0", "--out", str(out), "--policy", str(map_run), "--buffers", "automap",
                 "--no-progress"]) == 2
    error = capsys.readouterr().err
    assert "the policies observe buffers=['automap_seen'], and the engine has one automap" in error
    assert error.count("\n") == 1 and not out.exists()


def test_a_folder_holding_another_dataset_is_refused(dataset, tmp_path, capsys):
    before = shard_digests(dataset)
    assert main([*CLI, "--out", str(dataset), "--seed", "5", "--env-kwargs", json.dumps(LEVELS)]) == 2
    assert "holds another dataset (settings that differ from this command's: seed)" in capsys.readouterr().err
    (tmp_path / "notes.txt").write_text("mine")
    assert main([*CLI, "--out", str(tmp_path)]) == 2
    assert "is not empty and holds no wadgym world-model dataset" in capsys.readouterr().err
    assert main([*CLI, "--out", str(dataset), "--env-kwargs", json.dumps(LEVELS)]) == 2
    assert "holds this dataset already, complete" in capsys.readouterr().err
    assert shard_digests(dataset) == before and os.listdir(tmp_path) == ["notes.txt"]
