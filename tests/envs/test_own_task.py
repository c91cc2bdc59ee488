"""The "Your own task" example (examples/switch_task.py, docs/own-task.md), as a user would use it: build and preview
it, check it with both env checkers, play it headless, press the switch, train on it by file name."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from wadgym.cli import main
from wadgym.envs.registration import env_id_for

TASK = str(Path(__file__).resolve().parents[2] / "examples" / "switch_task.py")


def test_the_example_is_one_short_file():
    assert len(Path(TASK).read_text().splitlines()) <= 100


def test_build_and_preview(tmp_path, capsys):
    wad, png = tmp_path / "switch.wad", tmp_path / "switch.png"
    assert main(["build", TASK, "-o", str(wad), "--preview", str(png), "--seed", "2"]) == 0
    assert wad.read_bytes()[:4] == b"PWAD" and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.filterwarnings("ignore:.*render_mode='human' needs a display")
def test_passes_both_env_checkers(wad_cache):
    env = gym.make(env_id_for(TASK), cache_dir=wad_cache, render_mode="rgb_array")
    try:
        check_env(env.unwrapped)
        sb3_check_env(env.unwrapped, warn=True)
        assert env.unwrapped.score_name == "switches" and env.spec.max_episode_steps == 500
    finally:
        env.close()


def test_rollout_by_file_name(capsys, wad_cache):
    assert main(["rollout", TASK, "--episodes", "2", "--seed", "0", "-k", f"cache_dir={wad_cache}",
                 "-k", "max_episode_steps=20"]) == 0
    assert "mean" in capsys.readouterr().out


def test_pressing_the_switch_ends_the_episode_with_one(wad_cache):
    env = gym.make(env_id_for(TASK), cache_dir=wad_cache, rows=1, cols=2, num_levels=3)
    try:
        _, info = env.reset(seed=0)
        total, done, steps = 0.0, False, 0
        while not done:
            _, reward, terminated, truncated, info = env.step(env.unwrapped.reference_action())
            total, done, steps = total + reward, terminated or truncated, steps + 1
        assert terminated and total == 1.0 and info["score"] == 1.0 and steps < 200
    finally:
        env.close()


def test_train_by_file_name(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["train", "--env", TASK, "--timesteps", "256", "--n-envs", "2", "--hp", "n_steps=64",
                 "batch_size=64", "n_epochs=1", "--env-kwargs", "num_levels=4", "--run-dir", str(run),
                 "--eval-episodes", "1", "--no-progress"]) == 0
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["eval"]["score_name"] == "switches" and (run / "model.zip").is_file()


def test_a_task_file_is_registered_again_only_when_it_changes(tmp_path):
    """Threads that make the env at once (an evaluation's players) find it registered, not re-registered
    under them; an edited file is loaded again."""
    import os
    import shutil
    import threading

    task = tmp_path / "my_switch.py"
    shutil.copy(TASK, task)
    env_id = env_id_for(str(task))
    try:
        spec = gym.spec(env_id)
        assert env_id_for(str(task)) == env_id and gym.spec(env_id) is spec  # unchanged: the same registration
        barrier, ids = threading.Barrier(8), []
        threads = [threading.Thread(target=lambda: (barrier.wait(), ids.append(env_id_for(str(task)))))
                   for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert ids == [env_id] * 8 and gym.spec(env_id) is spec
        stat = task.stat()
        os.utime(task, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # edited (a newer mtime)
        assert env_id_for(str(task)) == env_id and gym.spec(env_id) is not spec
    finally:
        gym.registry.pop(env_id, None)  # the registry is the process's: leave no test's task in it, failed or not
