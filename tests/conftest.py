"""Shared fixtures: a real, headless ViZDoom game on a WAD the test built; a WAD cache of the session's own;
what a process a test started leaves behind. At the end of a run, one line saying which tests skipped for want
of Xvfb and xdotool, and how to install them."""

from __future__ import annotations

import contextlib
import os
import signal
import time

import psutil
import pytest
import vizdoom as vzd

from wadgym.agents.runs.tracking.store import apply_import_settings
from wadgym.envs.runtime import engine, watchdog

# Before any test module imports mlflow (test_tracking.py does at collection): see tracking.store.IMPORT_SETTINGS.
apply_import_settings()

# A scenario file as a user writes one (`wadgym build my_map.py`): Params, PRESETS, build(rng, params).
USER_SCENARIO = '''
from dataclasses import dataclass
from wadgym.wads import Level, MapBuilder

@dataclass(frozen=True)
class Params:
    size: int = 512

PRESETS = {"default": Params()}

def build(rng, p):
    m = MapBuilder()
    m.add_room(0, 0, p.size, p.size)
    m.add_player_start(p.size / 2, p.size / 2, angle=int(rng.integers(0, 360)))
    return Level(map=m)
'''


# What a test needing a virtual X server and simulated keys (`wadgym play`'s: tests/agents/test_play.py) says
# when it skips for want of them; the run's end names those tests once more (pytest_terminal_summary).
DISPLAY_TOOLS_INSTALL = "apt-get install xvfb xdotool"


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter):
    """One line at the end of the run (after pytest's short summary, before its totals) naming the tests skipped
    because Xvfb or xdotool is missing, and the command that installs them (`make test` runs those tests only
    where they are installed; .ci/run installs them); nothing when none was."""
    yield
    skipped = [report.nodeid for report in terminalreporter.stats.get("skipped", [])
               if isinstance(report.longrepr, tuple) and DISPLAY_TOOLS_INSTALL in str(report.longrepr[2])]
    if skipped:
        terminalreporter.write_line(
            f"{len(skipped)} test{'s' if len(skipped) > 1 else ''} of `wadgym play` skipped, needing Xvfb and "
            f"xdotool ({', '.join(sorted(skipped))}): install them with `{DISPLAY_TOOLS_INSTALL}`", yellow=True)


@pytest.fixture(scope="session")
def user_scenario() -> str:
    """The source of a small scenario file (USER_SCENARIO); `return Level(map=m)` is its last line."""
    return USER_SCENARIO


@pytest.fixture(scope="session", autouse=True)
def session_wad_cache(tmp_path_factory, pytestconfig) -> str:
    """The session's WAD cache folder: envs made without cache_dir (and the processes tests start) build
    into it, not into the user's ~/.cache/wadgym. With pytest-xdist (`make test` runs the suite on a worker
    per core) the workers share one folder, beside their own temporary folders: a WAD of many levels is built
    once, not once a worker (the cache writes whole files under temporary names, as for processes sharing a
    user's cache)."""
    previous = os.environ.get("WADGYM_CACHE_DIR")
    if hasattr(pytestconfig, "workerinput"):   # an xdist worker: its temporary folder is in the run's (a pytest
        # a test starts inherits PYTEST_XDIST_WORKER but is no worker: it keeps a folder of its own)
        shared = tmp_path_factory.getbasetemp().parent / "wad_cache"
        shared.mkdir(exist_ok=True)
        folder = str(shared)
    else:
        folder = str(tmp_path_factory.mktemp("wad_cache"))
    os.environ["WADGYM_CACHE_DIR"] = folder
    yield folder
    if previous is None:
        os.environ.pop("WADGYM_CACHE_DIR", None)
    else:
        os.environ["WADGYM_CACHE_DIR"] = previous


@pytest.fixture
def start_game():
    """Factory: start_game(wad_path, map="MAP01", buttons=(), variables=(), ...) -> a started DoomGame.

    Every game has wadgym.envs.runtime.engine's settings (hidden, 160x120 gray), is seeded, and is closed when
    the test ends.
    """
    games: list[vzd.DoomGame] = []

    def start(wad_path, map: str = "MAP01", *, seed: int | None = 1, **settings) -> vzd.DoomGame:
        game = engine.start_game(wad_path, map, seed=seed, **settings)
        games.append(game)
        return game

    yield start
    for game in games:
        game.close()


class ProcessSession:
    """The processes of the session a test started (Popen(..., start_new_session=True)): orphans keep
    their session, so whatever the test's process started and left behind is found here. The ViZDoom
    engines seen in it (note_engines) are remembered with their /dev/shm segments."""

    def __init__(self, session: int):
        self.session = session
        self.instances: set[str] = set()

    def processes(self) -> list[psutil.Process]:
        found = []
        for process in psutil.process_iter(["status"]):
            try:
                if process.info["status"] != psutil.STATUS_ZOMBIE and os.getsid(process.pid) == self.session:
                    found.append(process)
            except (OSError, psutil.Error):
                continue
        return found

    def note_engines(self) -> list[psutil.Process]:
        """The session's ViZDoom engines now; their instance ids are remembered for segments()."""
        engines = []
        for process in self.processes():
            try:
                instance = watchdog.instance_id(process.cmdline())
            except psutil.Error:
                continue
            if instance is not None:
                engines.append(process)
                self.instances.add(instance)
        return engines

    def segments(self) -> list[str]:
        """The /dev/shm segments of the noted engines that still exist."""
        names = os.listdir("/dev/shm") if os.path.isdir("/dev/shm") else []
        return sorted(n for n in names if any(n.endswith(i) and n.startswith("ViZDoom") for i in self.instances))

    def leftovers(self, timeout: float = 10.0) -> list[str]:
        """'pid name' of each process still in the session once `timeout` seconds passed or none is left."""
        deadline = time.monotonic() + timeout
        while self.processes() and time.monotonic() < deadline:
            time.sleep(0.05)
        left = []
        for process in self.processes():
            with contextlib.suppress(psutil.Error):
                left.append(f"{process.pid} {' '.join(process.cmdline())[:160] or process.name()}")
        return left

    def kill(self) -> None:
        """SIGKILL whatever is left, then remove the noted engines' segments (a killed engine leaves them)."""
        left = self.processes()
        for process in left:
            with contextlib.suppress(psutil.Error):
                process.send_signal(signal.SIGKILL)
        psutil.wait_procs(left, timeout=2)
        for instance in self.instances:
            watchdog.remove_segments(instance)


@pytest.fixture
def process_session():
    """Factory: process_session(pid) -> ProcessSession of the session `pid` leads; whatever is left of
    it is killed when the test ends."""
    sessions: list[ProcessSession] = []

    def watch(pid: int) -> ProcessSession:
        sessions.append(ProcessSession(pid))
        return sessions[-1]

    yield watch
    for session in sessions:
        session.kill()
