"""RLlib's own fault tolerance in `wadgym train --backend rllib`: an engine killed under an env runner (its
envs are made again) and then a whole env runner process killed outright (the OOM killer's SIGKILL; RLlib
starts a new one): the run finishes, and the run folder, TensorBoard and the MLflow run record both
restarts as the SB3 path records an engine's (engine/restarts)."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import psutil
import yaml

from wadgym.agents.restart import SCALAR, RLlibRestarts

from .conftest import ENV_ID
from .test_train import train_args


def engines(session) -> list[psutil.Process]:
    from wadgym.envs.runtime.watchdog import instance_id

    found = []
    for process in session.processes():
        try:
            if instance_id(process.cmdline()) is not None and process.status() != psutil.STATUS_ZOMBIE:
                found.append(process)
        except psutil.Error:
            continue
    return found


def env_runners(session) -> list[psutil.Process]:
    found = []
    for process in session.processes():
        try:
            if process.cmdline() and process.cmdline()[0].startswith("ray::SingleAgentEnvRunner"):
                found.append(process)
        except psutil.Error:
            continue
    return found


def tensorboard_scalars(run, tag: str) -> list[tuple[int, float]]:
    """(step, value) of every event of `tag` in the run's TensorBoard files, in step order."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    found = []
    for folder in {path.parent for path in (run / "tb").rglob("events.out.tfevents.*")}:
        events = EventAccumulator(str(folder), size_guidance={"scalars": 0})
        events.Reload()
        if tag in events.Tags()["scalars"]:
            found += [(event.step, event.value) for event in events.Scalars(tag)]
    return sorted(found)


def test_a_killed_engine_and_a_killed_env_runner_are_restarted_and_the_run_finishes(hyperparams, tmp_path,
                                                                                    process_session):
    run = tmp_path / "runner_killed"
    store = f"sqlite:///{tmp_path / 'mlflow.db'}"
    command = [sys.executable, "-m", "wadgym.cli",
               *train_args(hyperparams, run, "--env", ENV_ID, "--timesteps", "1024", "--save-freq", "64",
                           "--eval-episodes", "0", "--num-env-runners", "2", "--envs-per-runner", "1",
                           "--track", "--tracking-uri", store)]
    process = subprocess.Popen(command, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    session = process_session(process.pid)  # the run's own Ray instance: its env runners are in the session
    deadline = time.monotonic() + 180
    while not list((run / "checkpoints").glob("model_*_steps")):
        assert process.poll() is None, process.stdout.read()
        assert time.monotonic() < deadline, "no checkpoint within 180 s"
        time.sleep(0.1)
    engines(session)[0].kill()
    while not (run / "engine_restarts.json").is_file():
        assert process.poll() is None, process.stdout.read()
        assert time.monotonic() < deadline, "no restart recorded within 180 s"
        time.sleep(0.1)
    runners = env_runners(session)
    assert len(runners) == 2
    runners[0].kill()
    out, _ = process.communicate(timeout=300)
    assert process.returncode == 0, out
    assert session.leftovers(timeout=15) == []

    meta = json.loads((run / "meta.json").read_text())
    assert meta["status"] == "finished" and meta["timesteps"] >= 1024
    envs, runner = RLlibRestarts.CAUSES["envs"], RLlibRestarts.CAUSES["env runners"]
    assert [(r["what"], r["cause"]) for r in meta["engine_restarts"]] == [envs, runner]
    assert f"{envs[0]}: failed at step" in out and f"{runner[0]}: failed at step" in out
    config = yaml.safe_load((run / "config.yml").read_text())
    assert config["restart"] == {"enabled": True, "limit": 5, "window_s": 600.0}

    # TensorBoard's engine/restarts, as the SB3 path logs it: this session's restarts at each iteration's
    # step, 0 before the first kill, one more at the step each restart was recorded at, 2 at the end.
    restarts = meta["engine_restarts"]
    scalars = tensorboard_scalars(run, SCALAR)
    assert scalars[0][1] == 0 and scalars[-1] == (meta["timesteps"], 2.0)
    assert [value for _, value in scalars] == sorted(value for _, value in scalars)
    assert [next(step for step, value in scalars if value >= count) for count in (1, 2)] == \
        [r["step"] for r in restarts]
    # ... and the same points in the MLflow run, logged as it trained.
    from mlflow import MlflowClient

    tracking = json.loads((run / "tracking.json").read_text())
    assert tracking["tracking_uri"] == store and tracking["synced"]
    history = MlflowClient(store).get_metric_history(tracking["run_id"], SCALAR)
    assert sorted((m.step, m.value) for m in history) == scalars
