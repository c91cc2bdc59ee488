"""rl-baselines3-zoo trains wadgym's envs as they are: `python -m rl_zoo3.train --gym-packages wadgym`, with
our SmallCNN named by import path in policy_kwargs (the README's fast settings)."""

from __future__ import annotations

import re
import subprocess
import sys


def test_rl_zoo3_train_starts_on_a_wadgym_env(tmp_path):
    command = [sys.executable, "-m", "rl_zoo3.train", "--algo", "ppo", "--env", "DoomItems-v0",
               "--gym-packages", "wadgym",
               "-n", "128", "-f", str(tmp_path / "logs"), "--eval-freq", "-1", "--seed", "0",
               "-params", "n_steps:64", "batch_size:64", "n_epochs:1", "policy:'CnnPolicy'",
               "policy_kwargs:dict(features_extractor_class=get_class_by_name('wadgym.agents.features.SmallCNN'))"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "wadgym.agents.features.SmallCNN" in done.stdout and re.search(r"total_timesteps\s*\|\s*128\b", done.stdout)
    (model,) = (tmp_path / "logs" / "ppo").glob("DoomItems-v0_*/DoomItems-v0.zip")
    assert model.stat().st_size > 0
