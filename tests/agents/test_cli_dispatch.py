"""The `wadgym` dispatcher imports only the command being run: an install without the training
extras still builds maps, and a training command says how to get what it lacks."""

from __future__ import annotations

import subprocess
import sys

# Makes the training extras unimportable in the child, as on an install of plain `wadgym`.
WITHOUT_EXTRAS = ("import sys\n"
                  "for name in ('yaml', 'torch', 'stable_baselines3', 'tensorboard', 'matplotlib'):\n"
                  "    sys.modules[name] = None\n"
                  "from wadgym.cli import main\n"
                  "sys.exit(main(sys.argv[1:]))\n")


def run_without_extras(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", WITHOUT_EXTRAS, *argv], capture_output=True, text=True, timeout=120)


def test_help_lists_every_command_without_importing_them():
    result = run_without_extras("--help")
    assert result.returncode == 0, result.stderr
    for command in ("build", "acs", "rollout", "train", "eval", "runs", "export", "doctor"):
        assert f"    {command} " in result.stdout


def test_build_works_without_the_training_extras(tmp_path):
    wad = tmp_path / "items.wad"
    result = run_without_extras("build", "items", "-o", str(wad))
    assert result.returncode == 0, result.stderr
    assert wad.read_bytes()[:4] == b"PWAD"


def test_a_training_command_names_the_missing_extra():
    result = run_without_extras("train", "--timesteps", "10")
    assert result.returncode == 2
    assert "wadgym train needs the training extras" in result.stderr
    assert "pip install 'wadgym[train]'" in result.stderr
    assert "Traceback" not in result.stderr


def test_rollout_works_without_the_training_extras():
    result = run_without_extras("rollout", "DoomItems-v0", "--episodes", "1", "--seed", "0",
                                "-k", "max_episode_steps=5")
    assert result.returncode == 0, result.stderr
    assert "mean" in result.stdout


def test_rollout_and_doctor_work_without_the_training_extras():
    rollout = run_without_extras("rollout", "DoomItems-v0", "--episodes", "1", "--seed", "0")
    assert rollout.returncode == 0, rollout.stderr
    assert "mean" in rollout.stdout
    doctor = run_without_extras("doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "game: a headless ViZDoom game started" in doctor.stdout
