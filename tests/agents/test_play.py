"""`wadgym play`: a person's keys in the engine's window (ViZDoom's spectator mode) recorded as the id's actions.

Headless and real: an Xvfb server of the test's own, the real engine's window, xdotool holding a key down for
the whole episode, the dataset read back with Minari. Without Xvfb or xdotool the tests skip, naming what is
missing, and the run's end names them again with the install command (tests/conftest.py; CI installs both:
.ci/run)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

minari = pytest.importorskip("minari", reason="needs the demos extra: pip install 'wadgym[demos]'")

from wadgym.agents.datasets.pretrain import load_demonstrations, pretrain_settings  # noqa: E402
from wadgym.cli import main  # noqa: E402
from wadgym.envs.runtime.engine import SPECTATOR_KEYS, display_problem  # noqa: E402

ENV = "DoomItems-v1"  # frame_skip 4; played with its "extended" actions, which have a no-button one
STEPS = 40  # an episode: 160 tics at game speed, about 4.6 s
KEY = SPECTATOR_KEYS["MOVE_LEFT"][1][1]  # "q"
FORWARD_KEY = SPECTATOR_KEYS["MOVE_FORWARD"][1][1]  # "w": the "basic" set's action 0, which stands in for a pause
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
    if missing:  # the text tests/conftest.py's summary line looks for: keep "apt-get install xvfb xdotool"
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
    assert not np.asarray(first_episode.infos["human_idle"]).any()  # a pause is an action of "extended"
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


def play_holding(environ: dict[str, str], options: list[str], key: str | None = None) -> str:
    """`wadgym play ENV --level 0` with `options` on the test's X server; `key` (xdotool's name) held down in the
    game's window from the first episode's end on (None: no key at all). Its output; it must exit 0."""
    command = [sys.executable, "-m", "wadgym", "play", ENV, "--level", "0", "--max-steps", str(STEPS), *options]
    game = subprocess.Popen(command, env=environ, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines, first_ended = [], threading.Event()

    def read() -> None:
        for line in game.stdout:
            lines.append(line)
            if line.startswith("episode 1:"):
                first_ended.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        if key is not None:
            window = subprocess.run(["xdotool", "search", "--sync", "--name", "^ViZDoom"], env=environ,
                                    capture_output=True, text=True, timeout=30).stdout.split()
            assert window, "no ViZDoom window appeared"
            assert first_ended.wait(timeout=60), "".join(lines)
            subprocess.run(["xdotool", "keydown", "--window", window[0], key], env=environ, check=True, timeout=10)
        game.wait(timeout=60)
    finally:
        if game.poll() is None:
            game.kill()
            game.wait()
        if key is not None:
            subprocess.run(["xdotool", "keyup", key], env=environ, capture_output=True, timeout=10)
    reader.join(timeout=10)
    output = "".join(lines)
    assert game.returncode == 0, output
    return output


def test_a_pause_with_no_action_for_it_is_flagged_and_cloning_leaves_it_out(xvfb, datasets_path):
    """DoomItems-v1's own "basic" set has no action without buttons: a person's pause is recorded as its action 0
    (MOVE_FORWARD) flagged human_idle, and behaviour cloning reads only the steps they walked in."""
    environ = {**os.environ, "DISPLAY": xvfb, "MINARI_DATASETS_PATH": str(datasets_path)}
    output = play_holding(environ, ["--episodes", "2", "--record", "wadgym/human-basic-v0"], FORWARD_KEY)
    assert "no key: a pause, recorded as action 0 flagged idle, which cloning leaves out" in output
    assert re.search(rf"episode 1: level 0, items \d+, return [\d.]+, {STEPS} steps, {STEPS} idle \(no key\)\n",
                     output), output
    dataset = minari.load_dataset("wadgym/human-basic-v0")
    paused, walked = dataset[0], dataset[1]
    # No key in the first episode: every step action 0, each flagged, none of its tics MOVE_FORWARD's buttons.
    assert (np.asarray(paused.actions) == 0).all() and len(paused.actions) == STEPS
    assert np.asarray(paused.infos["human_idle"])[1:].all() and not np.asarray(paused.infos["human_matched"]).any()
    # W held from the first episode's end: after the steps before it arrived (flagged), every step walked, unflagged.
    idle = np.asarray(walked.infos["human_idle"])[1:].astype(bool)
    first = int(np.argmin(idle))
    assert (np.asarray(walked.actions) == 0).all() and first <= STEPS // 2, idle
    assert idle[:first].all() and not idle[first:].any(), idle
    assert dataset.storage.metadata["wadgym"]["step_infos"][-1] == "human_idle"

    walking = STEPS - first
    assert pretrain_settings("wadgym/human-basic-v0", 1, ENV, {}, "bc", False)["idle_steps"] == STEPS + first
    demos = load_demonstrations("wadgym/human-basic-v0", 2)
    assert len(demos) == walking and demos.idle == STEPS + first and (demos.actions == 0).all()
    # Each kept step's stack is its own frame after the one before it, whether or not that one was kept.
    assert demos.stacks[:, 1].tolist() == list(range(STEPS + first, 2 * STEPS))
    assert demos.stacks[:, 0].tolist() == [STEPS + t - 1 if t else -1 for t in range(first, STEPS)]


def test_a_dataset_of_pauses_alone_is_refused_for_cloning(xvfb, datasets_path, tmp_path, capsys):
    environ = {**os.environ, "DISPLAY": xvfb, "MINARI_DATASETS_PATH": str(datasets_path)}
    play_holding(environ, ["--record", "wadgym/human-paused-v0"])
    run = tmp_path / "run"
    assert main(["train", "--env", ENV, "--pretrain", "wadgym/human-paused-v0", "--algo", "bc",
                 "--run-dir", str(run), "--device", "cpu", "--no-progress"]) == 2
    error = capsys.readouterr().err
    assert f"each of its {STEPS} steps is a pause of the person who played it" in error and "human_idle" in error
    assert not run.exists()


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


def test_a_run_without_xvfb_ends_naming_the_skipped_tests_and_the_install(tmp_path):
    """Where Xvfb and xdotool are missing (a PATH without them), the run's end names the tests that skipped for
    it and how to install the tools (tests/conftest.py); a run that skipped none of them says nothing of them."""
    root = Path(__file__).resolve().parents[2]
    environ = {**os.environ, "PATH": str(tmp_path)}  # an empty folder: neither tool on it

    def run(*tests: str) -> list[str]:
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               *(f"tests/agents/test_play.py::{test}" for test in tests)],
                              cwd=root, env=environ, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout.splitlines()

    held, paused = "test_a_held_key_is_recorded_as_its_action", "test_a_dataset_of_pauses_alone_is_refused_for_cloning"
    lines = run(held, paused, "test_without_a_display_one_clear_error_and_no_engine")
    assert lines[-1].startswith("1 passed, 2 skipped"), lines  # the totals; the line just before them:
    assert lines[-2] == (f"2 tests of `wadgym play` skipped, needing Xvfb and xdotool (tests/agents/test_play.py::"
                         f"{paused}, tests/agents/test_play.py::{held}): install them with "
                         f"`apt-get install xvfb xdotool`"), lines
    assert sum("of `wadgym play` skipped" in line for line in lines) == 1
    lines = run("test_without_a_display_one_clear_error_and_no_engine")
    assert lines[-1].startswith("1 passed") and not any("of `wadgym play` skipped" in line for line in lines)
