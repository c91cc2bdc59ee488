"""Headless ViZDoom games on a WAD: the one place where wadgym sets a DoomGame up and starts its engine.

The envs, `wadgym doctor`, the benchmarks and the tests all start their games here, so a bare
DoomGame loop in a benchmark runs with exactly the settings the envs use, and every engine wadgym
starts is bound to the process that started it (see start_engine).
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import vizdoom as vzd

from wadgym.files import write_atomic

from . import queuelocks, watchdog
from .cache import cache_dir

# Drawn by default but useless to an agent, and each costs render time.
QUIET_RENDER = ("hud", "minimal_hud", "weapon", "crosshair", "decals", "particles", "messages", "corpses",
                "effects_sprites")


def make_game(
    wad: str | os.PathLike | None,
    map_name: str = "MAP01",
    *,
    resolution: vzd.ScreenResolution = vzd.ScreenResolution.RES_160X120,
    screen_format: vzd.ScreenFormat = vzd.ScreenFormat.GRAY8,
    buttons: Sequence[vzd.Button] = (),
    variables: Sequence[vzd.GameVariable] = (),
    window: bool = False,
    seed: int | None = None,
    episode_timeout: int = 0,
    spectator: bool = False,
) -> vzd.DoomGame:
    """A configured DoomGame, not yet started: `map_name` of `wad` (None: the IWAD's own map), player
    mode, no sound, no HUD, weapon or other overlays, and no engine timeout unless one is given.

    `spectator`: a person plays in the engine's window (Mode.SPECTATOR, synchronous: each `advance_action`
    runs tics of what they hold down), with the keys of SPECTATOR_KEYS; needs a display (display_problem)."""
    game = Game()
    if wad is not None:
        game.set_doom_scenario_path(os.fspath(wad))
    game.set_doom_map(map_name)
    game.set_mode(vzd.Mode.SPECTATOR if spectator else vzd.Mode.PLAYER)
    game.set_screen_resolution(resolution)
    game.set_screen_format(screen_format)
    game.set_window_visible(window or spectator)
    if spectator:
        game.key_bindings = {key: f"+{command}" for command, keys in SPECTATOR_KEYS.values() for key in keys}
    game.set_sound_enabled(False)
    for setting in QUIET_RENDER:
        getattr(game, f"set_render_{setting}")(False)
    game.set_available_buttons(list(buttons))
    game.set_available_game_variables(list(variables))
    game.set_episode_timeout(episode_timeout)
    if seed is not None:
        game.set_seed(seed)
    return game


# A person's keys in spectator mode: button -> (the engine's command, its keys as the engine names them).
# They are the game's only key bindings (written to its settings file: a `+bind` argument cannot carry a
# "+command"), so what each key does is known here. A key whose button the game does not have does nothing:
# the engine drops that command.
SPECTATOR_KEYS: dict[str, tuple[str, tuple[str, ...]]] = {
    "MOVE_FORWARD": ("forward", ("uparrow", "w")),
    "MOVE_BACKWARD": ("back", ("downarrow", "s")),
    "TURN_LEFT": ("left", ("leftarrow", "a")),
    "TURN_RIGHT": ("right", ("rightarrow", "d")),
    "MOVE_LEFT": ("moveleft", (",", "q")),
    "MOVE_RIGHT": ("moveright", (".", "e")),
    "ATTACK": ("attack", ("ctrl", "space")),
}


def display_problem(environ=None) -> str | None:
    """Why a game window cannot open here (None: it can): DISPLAY unset, or no X server answering on it.
    Checked before the engine starts: its SDL crashes the process (SIGSEGV) on a display nothing serves."""
    import re
    import socket

    display = (os.environ if environ is None else environ).get("DISPLAY", "")
    if not display:
        return "DISPLAY is unset (no X display)"
    match = re.fullmatch(r"(?P<host>[^:]*):(?P<number>\d+)(\.\d+)?", display)
    if match is None:
        return f"DISPLAY={display!r} is not an X display name (e.g. ':0')"
    host, number = match["host"], int(match["number"])
    if host in ("", "unix") and sys.platform.startswith("linux"):
        path = f"/tmp/.X11-unix/X{number}"
        for address in (path, "\0" + path):  # the socket file, or Linux's abstract socket of that name
            with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(2)
                sock.connect(address)
                return None
    else:
        with contextlib.suppress(OSError), socket.create_connection((host or "localhost", 6000 + number), timeout=2):
            return None
    return f"no X server answers on DISPLAY={display}"


# The engine's one top-down map, as two buffers an observation may carry (at most one of them):
#   "automap": the whole level and every thing drawn to its size, north up: privileged (the player has
#              not seen most of it);
#   "automap_seen": only the walls the player has seen so far, white on black, turned with the player
#              (facing up): a memory of the ground covered, nothing the player could not know.
AUTOMAPS = ("automap", "automap_seen")
SEEN_MAP_COLORS = ("+am_colorset 0", "+am_backcolor 000000", "+am_wallcolor ffffff", "+am_fdwallcolor ffffff",
                   "+am_cdwallcolor ffffff", "+am_yourcolor ffffff")


def buffer_field(name: str) -> str:
    """The GameState field that holds the buffer `name` (both automaps are the engine's automap_buffer)."""
    return "automap_buffer" if name in AUTOMAPS else f"{name}_buffer"


def automap_of(buffers: Sequence[str]) -> str | None:
    """The one of AUTOMAPS that `buffers` names (None: neither); a ValueError where it names both."""
    automaps = [name for name in AUTOMAPS if name in buffers]
    if len(automaps) > 1:
        raise ValueError(f"buffers: {' and '.join(map(repr, automaps))} are views of the engine's one automap; "
                         "choose one")
    return automaps[0] if automaps else None


def enable_buffers(game: vzd.DoomGame, buffers: Sequence[str]) -> None:
    """Turn on the extra screens named in `buffers` ("depth", "labels", and one of AUTOMAPS)."""
    game.set_depth_buffer_enabled("depth" in buffers)
    game.set_labels_buffer_enabled("labels" in buffers)
    automap = automap_of(buffers)
    if automap:
        seen = automap == "automap_seen"
        game.set_automap_buffer_enabled(True)
        game.set_automap_mode(vzd.AutomapMode.NORMAL if seen else vzd.AutomapMode.OBJECTS_WITH_SIZE)
        game.set_automap_rotate(seen)
        game.set_automap_render_textures(False)
        if seen:
            game.add_game_args(" ".join(SEEN_MAP_COLORS))


def start_game(wad: str | os.PathLike | None, map_name: str = "MAP01", **settings) -> vzd.DoomGame:
    """`make_game(...)`, started. The caller closes it."""
    game = make_game(wad, map_name, **settings)
    game.init()
    return game


class Game(vzd.DoomGame):
    """The DoomGame make_game returns: `init()` is start_engine(game), so every caller's engine is bound
    to its process."""

    key_bindings: dict[str, str] = {}  # key name -> command: the engine's only bindings, where not empty

    def init(self) -> None:
        start_engine(self)

    def close(self) -> None:
        """Close the engine (it writes its settings file as it exits), then remove that file; a later
        init() gets a fresh one."""
        vzd.DoomGame.close(self)
        remove_settings(self)
        self.set_doom_config_path("")


# -- engine lifetime ---------------------------------------------------------------------------------
#
# DoomGame.init() starts the engine with boost::process (fork + exec from a thread of its own) and
# talks to it through message queues and shared memory under /dev/shm. Left alone, the engine
# inherits every inheritable descriptor of this process (a SubprocVecEnv worker's pipe to the trainer
# is one: multiprocessing passes it so) and keeps it open after this process dies; it then blocks
# forever on its message queue, and it catches SIGTERM. So each engine is started
# - with no descriptor but stdin/stdout/stderr to inherit;
# - with SIGINT and SIGTERM blocked: signals meant for the process group are for its owner, which
#   closes the engine (DoomGame.close);
# - with OWNER_VAR=<this process's token> in its environment, which this process's watchdog
#   (envs/runtime/watchdog.py) looks for when this process is gone, to kill the engine and free its segments.

_start_lock = threading.Lock()
_watchdog: subprocess.Popen | None = None
_token: str | None = None
_inherited: list[subprocess.Popen] = []  # a parent's watchdog, seen in a forked child: kept, never used


def start_engine(game: vzd.DoomGame) -> None:
    """`game.init()`, with the engine bound to this process: it ends when this process ends, however
    that happens (SIGKILL included), holds none of its pipes, and ignores Ctrl-C and SIGTERM sent to
    the process group; a message-queue lock it holds when it is killed is released (envs.queuelocks), so
    its death is reported instead of blocking the game forever; its settings file is wadgym's own
    (engine_settings), not `_vizdoom.ini` and `_vizdoom/` in the working directory."""
    config = game.get_doom_config_path()
    if not config or config in _made_settings:  # started again without close(): a fresh file too
        remove_settings(game)
        game.set_doom_config_path(str(engine_settings()))
    bindings = getattr(game, "key_bindings", None)
    if bindings and game.get_doom_config_path() in _made_settings:
        with open(game.get_doom_config_path(), "a", encoding="utf-8") as settings:
            settings.write("[Doom.Bindings]\n" + "".join(f"{key}={command}\n" for key, command in bindings.items()))
    with _start_lock:
        token = _watched_token()
        with _owner_environment(token), _descriptors_not_inherited(), _group_signals_blocked():
            vzd.DoomGame.init(game)
        _watch_queue_locks()


def _watch_queue_locks() -> None:
    """Hand the engine just started (this process's one child engine not watched yet: starts are serial)
    to envs.queuelocks."""
    import psutil

    if not queuelocks.supported():
        return
    watched = queuelocks.watched()
    for engine in child_engines():
        with contextlib.suppress(psutil.Error):
            instance = watchdog.instance_id(engine.cmdline())
            if instance is not None and instance not in watched:
                queuelocks.watch(instance, engine.pid)


def child_engines(pid: int | None = None) -> list:
    """The ViZDoom engines (psutil.Process) process `pid` (default: this one) started and that still run."""
    import psutil

    engines = []
    for child in psutil.Process(pid).children():
        with contextlib.suppress(psutil.Error):
            if watchdog.instance_id(child.cmdline()) is not None and child.status() != psutil.STATUS_ZOMBIE:
                engines.append(child)
    return engines


def _watched_token() -> str:
    """This process's engine token; its watchdog is started (again, should it have died) first."""
    global _watchdog, _token
    if _token is None:
        _token = f"{os.getpid()}-{secrets.token_hex(8)}"
    if _watchdog is None or _watchdog.poll() is not None:
        _watchdog = subprocess.Popen([sys.executable, watchdog.__file__, _token], stdin=subprocess.PIPE,
                                     stdout=subprocess.DEVNULL, close_fds=True)
    return _token


def _forget_watchdog_after_fork() -> None:
    """A forked child starts engines of its own under a token and watchdog of its own, and must not hold
    the parent's pipe end: the parent's watchdog waits for every copy of it to close."""
    global _watchdog, _token, _start_lock
    if _watchdog is not None:
        with contextlib.suppress(OSError):
            _watchdog.stdin.close()
        _inherited.append(_watchdog)
    _watchdog, _token, _start_lock = None, None, threading.Lock()


def _release_watchdog() -> None:
    """At a normal exit: close the pipe now and wait, so that any engine still running is gone (and the
    watchdog reaped) before this process is."""
    if _watchdog is not None and _watchdog.returncode is None:
        with contextlib.suppress(OSError):
            _watchdog.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            _watchdog.wait(timeout=10)


os.register_at_fork(after_in_child=_forget_watchdog_after_fork)
atexit.register(_release_watchdog)


@contextlib.contextmanager
def _owner_environment(token: str) -> Iterator[None]:
    """OWNER_VAR=token in the environment the engine is started with (boost::process passes `environ`)."""
    previous = os.environ.get(watchdog.OWNER_VAR)
    os.environ[watchdog.OWNER_VAR] = token
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(watchdog.OWNER_VAR, None)
        else:
            os.environ[watchdog.OWNER_VAR] = previous


@contextlib.contextmanager
def _descriptors_not_inherited() -> Iterator[None]:
    """Descriptors above 2 are close-on-exec while the engine starts, then as they were."""
    folder = "/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"
    changed = []
    for name in os.listdir(folder):
        fd = int(name)
        with contextlib.suppress(OSError):  # the listing's own descriptor is closed by now
            if fd > 2 and os.get_inheritable(fd):
                os.set_inheritable(fd, False)
                changed.append(fd)
    try:
        yield
    finally:
        for fd in changed:
            with contextlib.suppress(OSError):
                os.set_inheritable(fd, True)


@contextlib.contextmanager
def _group_signals_blocked() -> Iterator[None]:
    """SIGINT and SIGTERM blocked in this thread while the engine starts: the engine's thread and the
    engine inherit the mask (across exec too). Here they are only deferred until the end."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


# -- engine settings ---------------------------------------------------------------------------------

# Without these sections the engine adds them pointing at ./_vizdoom/autoexec.cfg, creating that
# folder in the working directory (ViZDoom's m_specialpaths.cpp, GetUserFile); present, it leaves them.
SETTINGS_SEED = ("# ViZDoom's settings for one game wadgym started; removed when the game closes.\n"
                 + "".join(f"[{game}.AutoExec]\n" for game in ("Doom", "Heretic", "Hexen", "Strife", "Chex")))
_fallback_settings_dir: str | None = None


def engine_settings() -> Path:
    """A fresh settings file (the engine's `-config`) for one game: `<cache>/engine/<pid>-<n>.ini` in the
    WAD cache's folder (a private temporary folder if that is not writable), holding SETTINGS_SEED only.

    Each game gets its own, removed when the game closes (Game.close). The engine rewrites its file when
    it exits, with every archived setting its arguments changed (`+cl_noprediction 1`, `+cl_capfps 1`
    ...): a file shared from game to game handed those to every later game, which then played and drew
    differently from a fresh checkout's. Files left by processes that are gone are removed at a process's
    first game."""
    global _fallback_settings_dir
    folder = cache_dir() / "engine"
    try:
        return _new_settings(folder)
    except OSError:
        if _fallback_settings_dir is None:
            _fallback_settings_dir = tempfile.mkdtemp(prefix="wadgym-engine-")
        return _new_settings(Path(_fallback_settings_dir))


_settings_numbers = itertools.count()
_made_settings: set[str] = set()  # the files engine_settings made in this process and not yet removed
_pruned: set[Path] = set()  # the folders whose dead processes' files this process removed (once each)


def _new_settings(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if folder not in _pruned:
        _remove_orphan_settings(folder)
        _pruned.add(folder)
    path = folder / f"{os.getpid()}-{next(_settings_numbers)}-{secrets.token_hex(3)}.ini"
    write_atomic(path, SETTINGS_SEED.encode())
    _made_settings.add(str(path))
    return path


def _remove_orphan_settings(folder: Path) -> None:
    """Remove the settings files of processes that are gone (killed before their games closed): once a
    process, at its first game, not at every engine start (unlimited levels start one an episode)."""
    import psutil

    for path in folder.glob("*-*.ini"):
        pid = path.name.split("-", 1)[0]
        if pid.isdigit() and not psutil.pid_exists(int(pid)):
            with contextlib.suppress(OSError):
                path.unlink()


def remove_settings(game: vzd.DoomGame) -> None:
    """Remove a closed game's settings file, when engine_settings made it."""
    path = game.get_doom_config_path()
    if path in _made_settings:
        _made_settings.discard(path)
        with contextlib.suppress(OSError):
            os.unlink(path)
