"""An env that raises in the middle of `wadgym train`, or a worker killed outright: the run stops at once,
says why, keeps its last checkpoint and leaves no worker, engine or shared-memory segment behind."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import psutil
import pytest
import yaml

# A module the workers import through gym.make("failing_env:..."): DoomItems, except that the copy
# reset with an odd seed (the second worker of a seed-0 run) raises after FAIL_AFTER steps.
FAILING_ENV = '''
import gymnasium as gym

FAIL_AFTER = 100


class FailAfter(gym.Wrapper):
    def __init__(self, **kwargs):
        super().__init__(gym.make("wadgym:DoomItems-v0", **kwargs))
        self.steps, self.doomed = 0, False

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self.doomed = seed % 2 == 1
        return self.env.reset(seed=seed, options=options)

    def step(self, action):
        self.steps += 1
        if self.doomed and self.steps > FAIL_AFTER:
            raise RuntimeError(f"scenario failure after {FAIL_AFTER} steps")
        return self.env.step(action)


def make(**kwargs):  # a function, not the class: gymnasium 1.2 (what Ray RLlib pins) rejects a Wrapper class here
    return FailAfter(**kwargs)


gym.register("DoomItemsFailing-v0", entry_point=make)
'''
ENV_ID = "failing_env:DoomItemsFailing-v0"


def train_command(hyperparams, run, env_id, *extra) -> list[str]:
    return [sys.executable, "-m", "wadgym.cli", "train", "--env", env_id, "--conf-file", str(hyperparams),
            "--run-dir", str(run), "--save-freq", "128", "--no-progress", "--seed", "0", *extra]


# The error meta.json records: with threads, the vector env's own error naming the env and its cause.
ERRORS = {"thread": "wadgym.envs.vector.threads.VectorEnvError: env 1 of 2 failed in step: RuntimeError: "
                    "scenario failure after 100 steps",
          "subproc": "RuntimeError: scenario failure after 100 steps"}


@pytest.mark.parametrize("vec_env", ERRORS)
def test_an_env_error_fails_the_run_promptly_and_cleanly(tmp_path, tiny_hyperparams, env_id, process_session,
                                                         vec_env):
    (tmp_path / "failing_env.py").write_text(FAILING_ENV)
    tiny = yaml.safe_load(tiny_hyperparams.read_text())[env_id]
    (tmp_path / "hp.yml").write_text(yaml.safe_dump({ENV_ID: tiny}))
    run = tmp_path / "run"
    command = train_command(tmp_path / "hp.yml", run, ENV_ID, "--timesteps", "2048", "--vec-env", vec_env)
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen(command, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=environment)
    session = process_session(process.pid)
    out, err = process.communicate(timeout=90)
    assert session.leftovers() == []  # the workers and their engines are gone
    assert process.returncode == 1, out + err
    assert "wadgym train: training failed at step" in err
    assert "RuntimeError: scenario failure after 100 steps" in err
    assert "checkpoints/model_128_steps.zip" in err and f"--resume {run}" in err

    meta = json.loads((run / "meta.json").read_text())
    assert meta["status"] == "failed" and not meta["finished"]
    assert meta["error"] == ERRORS[vec_env]
    assert "raise RuntimeError" in meta["traceback"]
    assert not (run / "model.zip").exists()  # never saved as if training had finished
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["model_128_steps.monitor.json",
                                                                      "model_128_steps.zip"]
    assert 128 <= meta["timesteps"] < 2048


HANGING_ENV = '''
import time

import gymnasium as gym


class HangOnStep(gym.Wrapper):
    def __init__(self, **kwargs):
        super().__init__(gym.make("wadgym:DoomItems-v0", **kwargs))

    def step(self, action):
        time.sleep(600)


gym.register("DoomItemsHanging-v0", entry_point=HangOnStep)
'''


def test_a_worker_that_does_not_answer_is_killed_with_its_engine(tmp_path, monkeypatch):
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from wadgym.agents.vec import EnvFactory, close_vec_env
    from wadgym.envs.runtime.engine import child_engines

    (tmp_path / "hanging_env.py").write_text(HANGING_ENV)
    monkeypatch.syspath_prepend(str(tmp_path))  # workers start with this process's sys.path
    venv = SubprocVecEnv([EnvFactory("hanging_env:DoomItemsHanging-v0", {}, in_worker=True)])
    venv.reset()
    worker = venv.processes[0]
    (engine,) = child_engines(worker.pid)
    venv.step_async([0])  # the worker never answers
    close_vec_env(venv, timeout=0.5)
    assert not worker.is_alive() and venv.closed
    deadline = time.monotonic() + 5  # killed by the worker's watchdog (a zombie until init reaps it)
    while engine.is_running() and engine.status() != psutil.STATUS_ZOMBIE and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not engine.is_running() or engine.status() == psutil.STATUS_ZOMBIE


def test_a_worker_killed_outright_fails_the_run_promptly_and_cleanly(tmp_path, tiny_hyperparams, env_id,
                                                                     process_session):
    """As the OOM killer does: SIGKILL to one SubprocVecEnv worker in the middle of training."""
    run = tmp_path / "run"
    process = subprocess.Popen(train_command(tiny_hyperparams, run, env_id, "--timesteps", "100000", "--vec-env",
                                             "subproc"),
                               start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    session = process_session(process.pid)
    deadline = time.monotonic() + 60
    while not list((run / "checkpoints").glob("model_*_steps.zip")):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no checkpoint within 60 s"
        time.sleep(0.05)
    engines = session.note_engines()
    assert len(engines) == 2
    worker = engines[0].parent()
    worker.kill()
    out, err = process.communicate(timeout=60)
    assert process.returncode == 1, out + err
    assert re.search(rf"env worker [12] of 2 \(pid {worker.pid}\) was killed by SIGKILL", err), err
    assert "wadgym train: training failed at step" in err and f"--resume {run}" in err
    assert "Traceback" not in err
    assert session.leftovers() == []
    assert session.segments() == []
    meta = json.loads((run / "meta.json").read_text())
    assert meta["status"] == "failed" and "killed by SIGKILL" in meta["error"]
