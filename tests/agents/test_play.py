"""`wadgym play`: a person's keys in the engine's window (ViZDoom's spectator mode) recorded as the id's actions.

Headless and real: an Xvfb server of the test's own, the real engine's window, xdotool holding a key down for
the whole episode, the dataset read back with Minari. Without Xvfb or xdotool the tests skip, naming what is
missing (CI installs both: .ci/run)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

minari = pytest.importorskip("minari", reason="needs the demos extra: pip install 'wadgym[demos]'")

from wadgym.cli import main  # noqa: E402
from wadgym.envs.runtime.engine import SPECTATOR_KEYS, display_problem  # noqa: E402

ENV = "DoomItems-v1"  # frame_skip 4; played with its "extended" actions, which have a no-button one
STEPS = 40  # an episode: 160 tics at game speed, about 4.6 s
KEY = SPECTATOR_KEYS["MOVE_LEFT"][1][1]  # "q"
NO_BUTTON, MOVE_LEFT = 5, 7  # their actions in "extended"
TOOLS = ("Xvfb", "xdotool")


@pytest.fixture
def datasets_path(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "datasets"
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(path))
    return path


@pytest.fixture
def xvfb():
    """DISPLAY of an Xvfb server on a free display number (Xvfb picks it: -displayfd), stopped afterwards."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"needs {' and '.join(missing)} (apt-get install xvfb xdotool)")
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "640x480x24", "-nolisten", "tcp"],
                              pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    try:
        with os.fdopen(read) as pipe:
            number = pipe.readline().strip()  # written once the server accepts clients
        assert number.isdigit(), f"Xvfb did not start (exit status {server.poll()})"
        yield f":{number}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_a_held_key_is_recorded_as_its_action(xvfb, datasets_path):
    environ = {**os.environ, "DISPLAY": xvfb, "MINARI_DATASETS_PATH": str(datasets_path)}
    command = [sys.executable, "-m", "wadgym", "play", ENV, "--level", "0", "--max-steps", str(STEPS),
               "--episodes", "2", "--action-set", "extended", "--record", "wadgym/human-v0"]
    game = subprocess.Popen(command, env=environ, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        window = subprocess.run(["xdotool", "search", "--sync", "--name", "^ViZDoom"], env=environ,
                                capture_output=True, text=True, timeout=30).stdout.split()
        assert window, "no ViZDoom window appeared"
        subprocess.run(["xdotool", "keydown", "--window", window[0], KEY], env=environ, check=True, timeout=10)
        output, _ = game.communicate(timeout=60)
    finally:
        if game.poll() is None:
            game.kill()
            game.wait()
        subprocess.run(["xdotool", "keyup", KEY], env=environ, capture_output=True, timeout=10)
    assert game.returncode == 0, output
    assert "action 7: MOVE_LEFT" in output and ",/q" in output  # the keys, printed at the start
    assert re.search(rf"episode 2: level 0, items \d+, return [\d.]+, {STEPS} steps", output), output
    assert "wrote wadgym/human-v0 (2 episodes" in output

    dataset = minari.load_dataset("wadgym/human-v0")
    first_episode, second_episode = dataset[0], dataset[1]
    actions, matched = np.asarray(first_episode.actions), np.asarray(first_episode.infos["human_matched"])[1:]
    assert len(actions) == STEPS and first_episode.truncations[-1]
    # Before the key arrives no key is held (the no-button action); from then on every step is MOVE_LEFT; each
    # step's tics are exactly its action's buttons but in the one step the key came in (the last no-button
    # step or the first MOVE_LEFT one: the most frequent over its tics).
    first = int(np.argmax(actions == MOVE_LEFT))
    assert actions[first] == MOVE_LEFT and first <= STEPS // 2, actions
    assert (actions[:first] == NO_BUTTON).all() and (actions[first:] == MOVE_LEFT).all(), actions
    assert set(np.flatnonzero(matched != 4)) <= {first - 1, first}, matched
    # The key held all through the second episode: every tic exactly MOVE_LEFT.
    assert (np.asarray(second_episode.actions) == MOVE_LEFT).all()
    assert (np.asarray(second_episode.infos["human_matched"])[1:] == 4).all()
    # The dataset's env is the plain env a policy plays, on that level; those actions played there give the
    # rewards, scores and ends the person's episode had: the env's own step. (The frames: the same at the
    # reset; from the first step on in most runs, not all: the engine's new episode runs with the key already
    # held, which a fresh env does not.)
    assert dataset.spec.env_spec.kwargs == {"start_level": 0, "num_levels": 1, "action_set": "extended"}
    assert dataset.storage.metadata["wadgym"]["policy"]["kind"] == "human"
    env = dataset.recover_environment()
    try:
        observation, info = env.reset(seed=1)
        assert info["level_seed"] == 0 and (observation == second_episode.observations[0]).all()
        for t, action in enumerate(second_episode.actions):
            observation, reward, terminated, truncated, info = env.step(action)
            assert (reward, terminated, truncated) == (second_episode.rewards[t], second_episode.terminations[t],
                                                       second_episode.truncations[t])
            assert info["score"] == second_episode.infos["score"][t + 1]
    finally:
        env.close()


def test_without_a_display_one_clear_error_and_no_engine(monkeypatch, capsys, datasets_path):
    monkeypatch.delenv("DISPLAY", raising=False)
    assert main(["play", ENV, "--level", "0"]) == 2
    error = capsys.readouterr().err
    assert "DISPLAY is unset" in error and "apt-get install xvfb" in error and "xvfb-run" in error
    assert error.count("\n") == 1


def test_a_display_no_server_answers_is_refused_before_the_engine(monkeypatch, capsys, datasets_path):
    number = next(n for n in range(90, 200) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    monkeypatch.setenv("DISPLAY", f":{number}")  # the engine's SDL crashes the process there (SIGSEGV)
    assert display_problem() == f"no X server answers on DISPLAY=:{number}"
    assert main(["play", ENV, "--level", "0", "--record", "wadgym/human-v0"]) == 2
    assert f"no X server answers on DISPLAY=:{number}" in capsys.readouterr().err
    assert not (datasets_path / "wadgym").exists()
