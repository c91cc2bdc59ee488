"""`wadgym train --backend rllib`: bad input is a usage error (exit 2) before any run folder or Ray
process exists, and an install without Ray says which extra to add."""

from __future__ import annotations

import subprocess
import sys

import pytest

from wadgym.cli import main

HIDE_RAY = ("import sys\n"
            "sys.modules['ray'] = None\n"  # as on an install without the rllib extra
            "from wadgym.cli import main\n"
            "sys.exit(main(sys.argv[1:]))\n")


@pytest.mark.without_ray
def test_without_ray_the_rllib_backend_names_the_extra(tmp_path):
    result = subprocess.run([sys.executable, "-c", HIDE_RAY, "train", "--backend", "rllib", "--no-progress"],
                            capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "pip install 'wadgym[rllib]'" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--num-env-runners", "0"], "--num-env-runners must be >= 1"),
        (["--envs-per-runner", "0"], "--envs-per-runner must be >= 1"),
        (["--num-gpus", "-1"], "--num-gpus must be >= 0"),
        (["--hp", "target_kl=0.02"], "cannot do target_kl"),
        (["--hp", "clip_range=lin_0.2"], "clip_range as a number"),
        (["--address", "127.0.0.1:9"], "no Ray cluster answers there"),
        (["--address", "nowhere"], "expected HOST:PORT"),
        (["--env-kwargs", "color=True"], "one-channel frames only"),
    ],
)
def test_bad_rllib_options_are_usage_errors(extra, message, capsys, tmp_path, monkeypatch):
    pytest.importorskip("ray")
    monkeypatch.chdir(tmp_path)
    assert main(["train", "--backend", "rllib", "--no-progress", *extra]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()
