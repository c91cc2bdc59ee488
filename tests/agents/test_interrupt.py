"""Ctrl-C during `wadgym train` (SIGINT to the whole process group, as a terminal sends it) saves a
checkpoint and exits cleanly; `--resume` finishes the run with the same configuration."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import yaml


def test_ctrl_c_checkpoints_and_resume_finishes(tmp_path, tiny_hyperparams, env_id):
    run = tmp_path / "interrupted"
    wadgym = [sys.executable, "-m", "wadgym.cli"]
    command = [*wadgym, "train", "--env", env_id, "--conf-file", str(tiny_hyperparams), "--run-dir", str(run),
               "--timesteps", "2048", "--save-freq", "128", "--eval-episodes", "0", "--no-progress"]
    process = subprocess.Popen(command, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    try:
        deadline = time.monotonic() + 60
        while not list((run / "checkpoints").glob("model_*_steps.zip")):
            assert process.poll() is None, process.stdout.read()
            assert time.monotonic() < deadline, "no checkpoint within 60 s"
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGINT)
        out, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, out
    assert "Traceback" not in out and "--resume" in out
    meta = json.loads((run / "meta.json").read_text())
    stopped_at = meta["timesteps"]
    assert not meta["finished"] and meta["status"] == "interrupted" and 0 < stopped_at < 2048
    assert (run / "checkpoints" / f"model_{stopped_at}_steps.zip").is_file()
    assert not (run / "model.zip").exists()

    config_before = (run / "config.yml").read_text()
    done = subprocess.run([*wadgym, "train", "--resume", str(run), "--eval-episodes", "0", "--no-progress"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (run / "config.yml").read_text() == config_before
    meta = json.loads((run / "meta.json").read_text())
    assert meta["finished"] and meta["status"] == "finished" and meta["timesteps"] >= 2048
    assert [s["from_steps"] for s in meta["sessions"]] == [0, stopped_at]
    assert [s["status"] for s in meta["sessions"]] == ["interrupted", "finished"]
    for session in meta["sessions"]:  # each session's code and packages; the run's are its first session's
        assert {"versions", "git", "device", "started", "command"} <= set(session)
    assert meta["git"] == meta["sessions"][0]["git"] and meta["versions"] == meta["sessions"][0]["versions"]
    assert len((run / "command.txt").read_text().splitlines()) == 2
    assert (run / "model.zip").is_file()
    assert yaml.safe_load(config_before)["hyperparams"]["n_envs"] == 2
    assert yaml.safe_load(config_before)["vec_env"] == "thread"  # the default, kept by --resume


def test_sigterm_to_the_process_group_checkpoints_and_leaves_nothing(tmp_path, tiny_hyperparams, env_id,
                                                                    process_session):
    """As docker stop, Kubernetes, systemd and SLURM stop a job: SIGTERM to every process of the group."""
    run = tmp_path / "terminated"
    command = [sys.executable, "-m", "wadgym.cli", "train", "--env", env_id, "--conf-file",
               str(tiny_hyperparams), "--run-dir", str(run), "--timesteps", "100000", "--save-freq", "128",
               "--eval-episodes", "0", "--no-progress"]
    process = subprocess.Popen(command, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    session = process_session(process.pid)
    deadline = time.monotonic() + 60
    while not list((run / "checkpoints").glob("model_*_steps.zip")):
        assert process.poll() is None, process.communicate()[0]
        assert time.monotonic() < deadline, "no checkpoint within 60 s"
        time.sleep(0.05)
    assert len(session.note_engines()) == 2
    os.killpg(process.pid, signal.SIGTERM)
    out, _ = process.communicate(timeout=60)
    assert process.returncode == 130, out
    assert "SIGTERM: stopping after this step" in out and "Traceback" not in out and "--resume" in out
    meta = json.loads((run / "meta.json").read_text())
    assert meta["status"] == "interrupted"
    assert (run / "checkpoints" / f"model_{meta['timesteps']}_steps.zip").is_file()
    assert session.leftovers() == []
    assert session.segments() == []
