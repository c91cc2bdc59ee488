"""rl-baselines3-zoo trains wadgym's envs as they are: `python -m rl_zoo3.train --gym-packages wadgym`, with
our SmallCNN named by import path in policy_kwargs (docs/training.md's fast settings)."""

from __future__ import annotations

import re
import subprocess
import sys


def test_rl_zoo3_train_starts_on_a_wadgym_env(tmp_path, process_session):
    command = [sys.executable, "-m", "rl_zoo3.train", "--algo", "ppo", "--env", "DoomItems-v0",
               "--gym-packages", "wadgym",
               "-n", "128", "-f", str(tmp_path / "logs"), "--eval-freq", "-1", "--seed", "0",
               "-params", "n_steps:64", "batch_size:64", "n_epochs:1", "policy:'CnnPolicy'",
               "policy_kwargs:dict(features_extractor_class=get_class_by_name('wadgym.agents.features.SmallCNN'))"]
    process = subprocess.Popen(command, cwd=tmp_path, start_new_session=True, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    session = process_session(process.pid)  # whatever is left when the test ends is killed
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stdout[-2000:] + stderr[-2000:]
    assert session.leftovers() == []  # rl-zoo closed its envs: no engine outlives the run
    assert "wadgym.agents.features.SmallCNN" in stdout and re.search(r"total_timesteps\s*\|\s*128\b", stdout)
    (model,) = (tmp_path / "logs" / "ppo").glob("DoomItems-v0_*/DoomItems-v0.zip")
    assert model.stat().st_size > 0
