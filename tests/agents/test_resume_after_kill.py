"""The trainer itself SIGKILLed (the OOM killer's choice), then `wadgym train --resume`: training continues
from the last checkpoint and the Monitor files count every step once, without a gap or a repeat around
the resume point."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pandas
import yaml

from wadgym.agents import runfolder

TOTAL = 512
SAVE_EVERY = 128


def monitor_rows(path) -> pandas.DataFrame:
    return pandas.read_csv(path, skiprows=1)


def test_resume_after_the_trainer_was_killed_counts_each_step_once(tmp_path, tiny_settings, env_id,
                                                                  process_session):
    tiny_settings["env_kwargs"]["max_episode_steps"] = 50  # episodes end often, between the checkpoints too
    hyperparams = tmp_path / "hp.yml"
    hyperparams.write_text(yaml.safe_dump({env_id: {**tiny_settings, "n_timesteps": TOTAL}}))
    run = tmp_path / "run"
    command = [sys.executable, "-m", "wadgym.cli", "train", "--env", env_id, "--conf-file", str(hyperparams),
               "--run-dir", str(run), "--save-freq", str(SAVE_EVERY), "--no-progress", "--seed", "0",
               "--eval-episodes", "0"]
    process = subprocess.Popen(command, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    session = process_session(process.pid)
    monitor = run / "train_1.monitor.csv"

    def episodes_after_a_checkpoint() -> bool:
        latest = runfolder.latest_checkpoint(run)
        marker = runfolder.monitor_marker(latest[1]) if latest else None
        return bool(marker and marker.is_file() and monitor.stat().st_size
                    > json.loads(marker.read_text())["monitor_bytes"][monitor.name])

    deadline = time.monotonic() + 90
    while True:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no episode recorded after a checkpoint within 90 s"
        if episodes_after_a_checkpoint():
            process.send_signal(signal.SIGSTOP)  # no checkpoint can come between the check and the kill
            if episodes_after_a_checkpoint():
                break
            process.send_signal(signal.SIGCONT)
        time.sleep(0.01)
    process.kill()  # the trainer only: its engines go with it (their watchdog)
    process.communicate(timeout=30)
    assert session.leftovers() == []
    steps, checkpoint = runfolder.latest_checkpoint(run)
    marker = json.loads(runfolder.monitor_marker(checkpoint).read_text())
    recorded = len(monitor_rows(monitor))

    resumed = subprocess.run([*command, "--resume", str(run)], capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr

    first, second = monitor_rows(monitor), monitor_rows(run / "train_2.monitor.csv")
    assert monitor.stat().st_size == marker["monitor_bytes"][monitor.name]  # cut back to the checkpoint
    assert len(first) < recorded  # the episodes recorded after it are gone, to be trained again
    # Every step up to the checkpoint is in an episode kept in train_1 or in one still running then ...
    assert first["l"].sum() + sum(marker["running_episode_steps"]) == steps
    # ... and every step of the run is in exactly one recorded episode or in one running at its end.
    final_steps, final = runfolder.latest_checkpoint(run)
    running_at_end = json.loads(runfolder.monitor_marker(final).read_text())["running_episode_steps"]
    assert final_steps == TOTAL == json.loads((run / "meta.json").read_text())["timesteps"]
    assert first["l"].sum() + sum(marker["running_episode_steps"]) + second["l"].sum() + sum(running_at_end) == TOTAL
    # The learning curve's global step goes on from the checkpoint's: the first episode after the resume
    # ends at the checkpoint's step plus its length, the last one where the run ended less what was running.
    timesteps = [episode["timesteps"] for episode in runfolder.read_episodes(run)]
    assert len(timesteps) == len(first) + len(second) and timesteps == sorted(timesteps)
    assert timesteps[len(first)] == steps + second["l"].iloc[0]
    assert timesteps[-1] == TOTAL - sum(running_at_end)
