"""An engine that dies in the middle of `wadgym train` (SIGKILLed, as the OOM killer does): its env is made
again and training goes on; the restart is recorded; a run whose engines keep dying stops at the limit."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time

import numpy as np
import pandas
import psutil
import pytest

from wadgym.agents.restart import INFO_KEY, EngineRestart, RestartPolicy, restart_seed, restart_settings


def train_command(hyperparams, run, env_id, *extra) -> list[str]:
    return [sys.executable, "-m", "wadgym.cli", "train", "--env", env_id, "--conf-file", str(hyperparams),
            "--run-dir", str(run), "--save-freq", "128", "--no-progress", "--seed", "0", "--eval-episodes", "0",
            *extra]


def start_training(hyperparams, run, env_id, *extra) -> subprocess.Popen:
    return subprocess.Popen(train_command(hyperparams, run, env_id, *extra), start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(condition, process: subprocess.Popen, what: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, f"no {what} within {timeout:.0f} s"
        time.sleep(0.05)
    return value


def kill_an_engine(session, process, run, exclude=frozenset()) -> psutil.Process:
    """Once training has checkpointed: SIGKILL one of its engines (not one in `exclude`)."""
    wait_for(lambda: list((run / "checkpoints").glob("model_*_steps.zip")), process, "checkpoint")
    engine = wait_for(lambda: [e for e in session.note_engines() if e.pid not in exclude], process, "engine")[0]
    engine.kill()
    return engine


@pytest.mark.parametrize("vec_env", ["thread", "subproc"])
def test_a_killed_engine_is_restarted_and_training_finishes(tmp_path, tiny_hyperparams, env_id, process_session,
                                                            vec_env):
    run = tmp_path / "run"
    process = start_training(tiny_hyperparams, run, env_id, "--timesteps", "256", "--vec-env", vec_env)
    session = process_session(process.pid)
    killed = kill_an_engine(session, process, run)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, out + err
    assert "its engine died at step" in err and "; restarted (restart 1 of at most 5 within 600 s)" in err
    assert session.leftovers() == []
    assert session.segments() == []  # the killed engine's shared memory too, not only the others'

    meta = json.loads((run / "meta.json").read_text())
    assert meta["status"] == "finished" and meta["timesteps"] == 256
    (restart,) = meta["engine_restarts"]
    assert restart["env"] in (0, 1) and restart["step"] >= 128
    assert restart["cause"].startswith("ViZDoomErrorException")
    assert restart == json.loads((run / "engine_restarts.json").read_text())[0]
    assert not killed.is_running() or killed.status() == psutil.STATUS_ZOMBIE
    episodes = pandas.read_csv(run / "train_1.monitor.csv", skiprows=1)
    cut = episodes[episodes[INFO_KEY].notna()]
    assert len(cut) == 1 and cut[INFO_KEY].iloc[0] == restart["cause"]  # the episode the restart ended


@pytest.mark.parametrize("option", [["--restart-limit", "1/600"], ["--no-restart"]])
def test_engines_that_keep_dying_stop_the_run_with_its_checkpoint(tmp_path, tiny_hyperparams, env_id,
                                                                 process_session, option):
    """--restart-limit 1: the second death stops the run; --no-restart: the first does (as before restarts)."""
    run = tmp_path / "run"
    process = start_training(tiny_hyperparams, run, env_id, "--timesteps", "100000", "--vec-env", "thread", *option)
    session = process_session(process.pid)
    killed = {kill_an_engine(session, process, run).pid}
    if option[0] == "--restart-limit":
        wait_for(lambda: (run / "engine_restarts.json").is_file(), process, "restart")
        killed.add(kill_an_engine(session, process, run, exclude=killed).pid)
    try:
        out, err = process.communicate(timeout=120)  # as the test above: a restart starts an engine
    except subprocess.TimeoutExpired as stuck:
        pytest.fail(f"the run was still going 120 s after the death that should stop it; stderr:\n{stuck.stderr}")
    assert process.returncode == 1, out + err
    assert "wadgym train: training failed at step" in err and f"--resume {run}" in err
    assert session.leftovers() == []
    meta = json.loads((run / "meta.json").read_text())
    assert meta["status"] == "failed" and not (run / "model.zip").exists()
    assert list((run / "checkpoints").glob("model_*_steps.zip"))
    if option[0] == "--restart-limit":
        assert "RestartLimitReached" in meta["error"] and "more than the restart limit (1 within 600 s" in err
        assert len(meta["engine_restarts"]) == 2
    else:
        assert "ViZDoomErrorException" in meta["error"] and meta["engine_restarts"] == []


def test_the_restart_ends_the_episode_as_truncated_on_its_last_observation(env_id):
    from wadgym.agents.vec import make_env
    from wadgym.envs.runtime.engine import child_engines

    def make():
        return make_env(env_id, {"resolution": [30, 40]})

    env = EngineRestart(make)
    try:
        env.reset(seed=7)
        observation, _, _, _, info = env.step(0)
        before = env.unwrapped
        (engine,) = child_engines()
        engine.kill()
        engine.wait(5)
        after, reward, terminated, truncated, info_after = env.step(0)
        assert (reward, terminated, truncated) == (0.0, False, True)
        assert np.array_equal(after, observation) and info_after["score"] == info["score"]
        assert info_after[INFO_KEY].startswith("ViZDoomErrorException") and env.restarts == 1
        assert env.unwrapped is not before
        env.reset()
        assert env.unwrapped.np_random_seed == restart_seed(7, 1) and len(child_engines()) == 1
        _, _, terminated, truncated, info = env.step(0)
        assert INFO_KEY not in info or terminated or truncated
    finally:
        env.close()


def test_restart_settings_are_checked():
    assert restart_settings() == {"enabled": True, "limit": 5, "window_s": 600.0}
    assert restart_settings(limit="2/30") == {"enabled": True, "limit": 2, "window_s": 30.0}
    assert restart_settings(limit="3") == {"enabled": True, "limit": 3, "window_s": 600.0}
    assert restart_settings(no_restart=True)["enabled"] is False
    assert RestartPolicy.from_config(None) == RestartPolicy()
    for bad in ("-1", "5/0", "five", "5/10m"):
        with pytest.raises(ValueError, match="--restart-limit .* is not valid; give N or N/SECONDS"):
            restart_settings(limit=bad)
    with pytest.raises(ValueError, match="contradict"):
        restart_settings(no_restart=True, limit="3")


def test_a_self_play_game_whose_engine_dies_is_made_again():
    pytest.importorskip("pettingzoo")
    from wadgym.agents.backends.selfplay import make_game_factory
    from wadgym.agents.restart import GameRestart
    from wadgym.envs.runtime.watchdog import instance_id

    def engines() -> list[psutil.Process]:
        found = []
        for child in psutil.Process().children(recursive=True):
            with contextlib.suppress(psutil.Error):
                if instance_id(child.cmdline()) is not None and child.status() != psutil.STATUS_ZOMBIE:
                    found.append(child)
        return found

    game = GameRestart(make_game_factory("DoomItemsDuel-v0", {}))
    try:
        observations, _ = game.reset(seed=3)
        actions = {agent: 0 for agent in game.possible_agents}
        observations, _, _, _, infos = game.step(actions)
        before = {e.pid for e in engines()}
        assert len(before) == 2
        segments = set(os.listdir("/dev/shm"))
        killed = engines()[0]
        instance = instance_id(killed.cmdline())
        assert any(name.endswith(instance) for name in segments)
        killed.kill()
        after, rewards, terminations, truncations, infos_after = game.step(actions)
        assert all(np.array_equal(after[a], observations[a]) for a in game.possible_agents)
        assert set(rewards.values()) == {0.0} and not any(terminations.values()) and all(truncations.values())
        assert all(info[INFO_KEY] and info["score"] == infos[a]["score"] for a, info in infos_after.items())
        game.reset()
        assert not any(name.endswith(instance) for name in os.listdir("/dev/shm"))  # the dead engine's too
        assert game.restarts == 1 and {e.pid for e in engines()}.isdisjoint(before) and len(engines()) == 2
        game.step(actions)
    finally:
        game.close()
