"""Every engine wadgym starts is bound to the process that started it: it ends with that process however
that process ends, holds none of its pipes, ignores the group's Ctrl-C and SIGTERM, and writes nothing
into the working directory."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest
import vizdoom as vzd

from wadgym.agents.restart import ENGINE_ERRORS
from wadgym.envs.runtime import engine, queuelocks, watchdog

HOLDER = """
import sys, time
import gymnasium as gym
import wadgym

env = gym.make("DoomItems-v0")
env.reset(seed=0)
print("ready", flush=True)
time.sleep(120)
"""


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_killed_env_holder_takes_its_engine_and_segments_along(process_session, signum):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER], stdout=subprocess.PIPE, text=True,
                              start_new_session=True)
    session = process_session(holder.pid)
    try:
        assert holder.stdout.readline().strip() == "ready"
        assert len(session.note_engines()) == 1 and session.segments()
        os.kill(holder.pid, signum)
        holder.wait(timeout=10)
    finally:
        holder.stdout.close()
    assert session.leftovers() == []  # the engine and the watchdog that killed it
    assert session.segments() == []


def test_the_engine_holds_no_descriptor_of_its_process(start_game):
    read_end, write_end = os.pipe()
    os.set_inheritable(write_end, True)  # as multiprocessing leaves a worker's pipe to its parent
    try:
        start_game(None)
        (engine_process,) = engine.child_engines()
        pipe = os.fstat(write_end).st_ino
        fds = f"/proc/{engine_process.pid}/fd"
        held = [os.stat(f"{fds}/{fd}").st_ino for fd in os.listdir(fds)]
        assert pipe not in held
        assert os.get_inheritable(write_end)  # as it was, once the engine started
    finally:
        os.close(read_end)
        os.close(write_end)


def test_the_engine_ignores_the_groups_ctrl_c_and_sigterm(start_game):
    game = start_game(None, buttons=[vzd.Button.MOVE_FORWARD])
    (engine_process,) = engine.child_engines()
    for signum in (signal.SIGINT, signal.SIGTERM):
        engine_process.send_signal(signum)
    game.make_action([1], 4)  # still answering
    assert engine_process.is_running() and engine_process.status() != psutil.STATUS_ZOMBIE


def test_no_vizdoom_files_in_the_working_directory(start_game, tmp_path, monkeypatch, session_wad_cache):
    monkeypatch.chdir(tmp_path)
    game = start_game(None)
    settings = Path(game.get_doom_config_path())
    assert settings.is_relative_to(session_wad_cache) and "[Doom.AutoExec]" in settings.read_text()
    game.close()
    assert list(tmp_path.iterdir()) == []
    assert not settings.exists()  # each game's own file, gone with the game


def test_a_setting_one_games_arguments_changed_never_reaches_the_next_game(start_game):
    # the engine saves archived settings as it exits; the first game's +cl_noprediction must not
    # reach a later game started without it (it changes what a netgame's joiner draws)
    first = engine.make_game(None)
    first.add_game_args("+cl_noprediction 1")
    try:
        first.init()
        first_file = Path(first.get_doom_config_path())
        first.make_action([], 1)
    finally:
        first.close()
    assert not first_file.exists()
    second = start_game(None)
    second_file = Path(second.get_doom_config_path())
    assert second_file != first_file and "cl_noprediction" not in second_file.read_text()
    second.close()
    assert not second_file.exists()  # what the engine wrote as it exited goes with the game


def test_settings_files_of_processes_that_are_gone_are_removed_by_a_new_process(session_wad_cache):
    folder = Path(session_wad_cache) / "engine"
    folder.mkdir(exist_ok=True)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    orphan = folder / f"{dead}-0-abcdef.ini"
    orphan.write_text(engine.SETTINGS_SEED)
    first_game = "import os; from wadgym.envs.runtime import engine; os.unlink(engine.engine_settings())"
    subprocess.run([sys.executable, "-c", first_game], check=True)  # a new process's first game
    assert not orphan.exists()


LOCK_AND_DIE = """
import ctypes, mmap, os, signal, sys

with open(sys.argv[1], "r+b") as file:
    segment = mmap.mmap(file.fileno(), 0)
mutex = ctypes.c_int.from_buffer(segment, int(sys.argv[2]))
assert ctypes.CDLL(None).pthread_mutex_lock(ctypes.byref(mutex)) == 0
os.kill(os.getpid(), signal.SIGKILL)  # dies holding the lock, as an engine killed inside a send
"""


@pytest.mark.parametrize("queue", queuelocks.QUEUE_BASES)
def test_an_engine_that_died_holding_its_queues_lock_makes_the_step_raise_never_wait_forever(start_game, queue):
    """A process killed while it holds a queue's lock leaves that lock held (an engine SIGKILLed inside a
    send or receive: 26 of 100 kills in a busy step loop on one machine, none of 60 on another). Here a
    process takes the lock of a live engine's queue and is killed holding it, then the engine is killed:
    envs.queuelocks must release the lock, so that make_action raises as for any other death,
    instead of waiting forever."""
    game = start_game(None, buttons=[vzd.Button.MOVE_FORWARD])
    game.make_action([1], 1)
    (engine_process,) = engine.child_engines()
    instance = watchdog.instance_id(engine_process.cmdline())
    segment = os.path.join(watchdog.SHM_DIR, queue + instance)
    holder = subprocess.run([sys.executable, "-c", LOCK_AND_DIE, segment, str(queuelocks.MUTEX_OFFSET)],
                            capture_output=True, text=True)
    assert holder.returncode == -signal.SIGKILL, holder.stderr
    engine_process.kill()
    raised: list[BaseException] = []
    stepping = threading.Thread(target=step_until_it_raises, args=(game, raised), daemon=True)
    stepping.start()
    stepping.join(timeout=30)
    assert not stepping.is_alive(), "make_action still waiting 30 s after its engine died"
    assert isinstance(raised[0], ENGINE_ERRORS), raised
    # make_action may notice the death before it waits on that queue (on a loaded machine it did, for the
    # controller's queue): the monitor releases the lock all the same, once it sees the engine gone.
    deadline = time.monotonic() + 30
    while queuelocks.released[-1:] != [queue + instance] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert queuelocks.released[-1:] == [queue + instance], "the abandoned lock was not released within 30 s"
    assert instance not in queuelocks.watched()  # a gone engine is watched no more


def test_engines_killed_at_random_in_a_step_loop_each_make_the_step_raise(start_game):
    rng = random.Random(0)
    for kill in range(12):
        game = start_game(None, buttons=[vzd.Button.MOVE_FORWARD, vzd.Button.TURN_LEFT])
        (engine_process,) = engine.child_engines()
        raised: list[BaseException] = []
        stepping = threading.Thread(target=step_until_it_raises, args=(game, raised), daemon=True)
        stepping.start()
        time.sleep(rng.uniform(0.05, 0.2))
        engine_process.kill()
        stepping.join(timeout=30)
        assert not stepping.is_alive(), f"kill {kill}: make_action still waiting 30 s after its engine died"
        game.close()
        assert isinstance(raised[0], ENGINE_ERRORS), raised


def step_until_it_raises(game: vzd.DoomGame, raised: list[BaseException]) -> None:
    try:
        while True:
            game.make_action([1, 1], 1)
    except Exception as error:  # noqa: BLE001  (the test checks its type)
        raised.append(error)


def test_alive_tells_running_processes_and_threads_from_ended_and_zombie_ones():
    assert watchdog.alive(os.getpid())
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 30
    while psutil.Process(zombie.pid).status() != psutil.STATUS_ZOMBIE and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not watchdog.alive(zombie.pid)  # ended, not yet reaped
    zombie.wait()
    assert not watchdog.alive(zombie.pid)  # reaped: no such process
    tids: list[int] = []
    release = threading.Event()
    thread = threading.Thread(target=lambda: (tids.append(threading.get_native_id()), release.wait(30)))
    thread.start()
    while not tids:
        time.sleep(0.01)
    assert watchdog.alive(tids[0])  # a queue lock's owner is a thread
    release.set()
    thread.join()  # returns a moment before the system thread has ended
    deadline = time.monotonic() + 10
    while watchdog.alive(tids[0]) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not watchdog.alive(tids[0])
