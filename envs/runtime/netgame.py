"""NetGame: one ViZDoom multiplayer game on 127.0.0.1, one engine per player, each driven by a worker process.

Facts of vizdoom 1.3.x that shape it (measured; see tests/envs/test_multi*.py and tests/envs/runtime/test_netns.py):
- In sync mode (Mode.PLAYER) the players must advance in lockstep, one tic per call with every player
  waiting for the others between calls: `make_action(a, 4)` per step, or players running free, deadlock
  within a few steps (one engine waits in the net code for tics the other never sends). So a step of k
  tics is k rounds of `advance_action(1)`, the NetGame releasing every player into the next round once
  all have finished the last one.
- An engine that exits while `DoomGame.init()` waits for the other players (a join that times out, a
  killed engine) crashes the calling Python process with a segmentation fault. Threads would take the
  user's process down with it; each player therefore lives in its own worker process.
- The workers are plain subprocesses, `python -m wadgym.envs.runtime.netgame`, talking to the NetGame over a
  socket pair: they never import the user's main module (multiprocessing's "spawn" does, so a script
  without a main guard, stdin or a REPL could not start a game). A worker that fails before its engine
  runs (an import error, bad settings) is reported with its own error text.
- An engine that stops answering blocks its peers forever, ignores SIGTERM and outlives its Python
  parent: a NetGame waits with timeouts and ends engines with SIGKILL.
- The host binds its UDP port on every interface; the players here only ever talk over 127.0.0.1. So
  the workers of a game of two or more, and with them their engines, run in a network namespace of the
  game's own that holds only loopback (envs/runtime/netns.py), where the system allows it: nothing off
  this machine, nor in its own namespace, can reach the engines. Where it does not (or WADGYM_NETNS=0),
  they run in the machine's namespace, with one warning a process.
  Free ports are found by binding port 0 and are held under a file lock per port while the game runs,
  so several NetGames on one machine never pick the same one (needed without namespaces; harmless with).
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing.connection as mpc
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import psutil

from . import netns

DEFAULT_JOIN_TIMEOUT = 60.0   # seconds for every player to start and join (a loaded 2-core machine: ~1-10 s)
DEFAULT_STEP_TIMEOUT = 30.0   # seconds for one step of every player
# The engine's own handshake timeout must never fire first: an engine that exits during init crashes its
# worker without a word, while our own timeout names the players that did not join.
ENGINE_CONNECT_MARGIN = 60
PORT_ATTEMPTS = 20
START_ATTEMPTS = 3            # starts tried when an engine exits during the handshake (e.g. its port was taken)
# or a start stalls after it: now and then (about 3 starts in 100 on a 2-core VM) every engine has finished the
# network handshake and the first tic then waits out the engines' own limit on waiting for each other's tics
# (+viz_sync_timeout: the game's step_timeout, 30 s); a start not done within STALL_PATIENCE seconds of every
# engine's log showing the handshake done (0.2-1.1 s in a normal start) is ended and tried again on fresh ports,
# except the last try, which waits as long as join_timeout allows
STALL_PATIENCE = 5.0
HANDSHAKE_DONE = ("Exchanging game information", "Found ")  # an engine's log: the handshake's last stage, then a
# player found in it
MAX_PLAYERS = 8
WORKER_MODULE = "wadgym.envs.runtime.netgame"  # what `python -m` runs as a player's worker


class NetGameError(RuntimeError):
    """A multiplayer game failed: a player did not join or answer in time, or its engine exited. Every
    engine of the game has been ended when this is raised."""


@dataclasses.dataclass
class PlayerState:
    """What a worker sends back after a step: the parts of vizdoom's GameState an env observes
    (None buffers when not enabled; screen_buffer None when the engine ended the episode)."""

    screen_buffer: np.ndarray | None
    game_variables: np.ndarray
    depth_buffer: np.ndarray | None = None
    labels_buffer: np.ndarray | None = None
    automap_buffer: np.ndarray | None = None


@dataclasses.dataclass(frozen=True)
class PlayerSettings:
    """How every player's DoomGame is set up (picklable: it travels to the worker processes)."""

    wad: str
    map: str
    resolution: str                      # a vizdoom.ScreenResolution name, e.g. "RES_160X120"
    screen_format: str                   # "GRAY8" or "RGB24"
    buttons: tuple[str, ...]             # vizdoom.Button names
    variables: tuple[str, ...]           # vizdoom.GameVariable names, in the order states report them
    buffers: tuple[str, ...] = ()        # any of "depth", "labels", and one of "automap", "automap_seen"
    game_args: str = ""                  # extra engine arguments for every player
    seed: int | None = None              # the engines' random seed (the same in every player's game);
                                         # None: each engine draws its own


# -- ports ---------------------------------------------------------------------------------------------


def port_lock_dir() -> Path:
    return Path(tempfile.gettempdir()) / "wadgym-ports"


def reserve_port():
    """(port, lock): a UDP port that was free a moment ago and that no other NetGame on this machine holds;
    release the lock (`lock.release()`) when the game using it has ended."""
    from filelock import FileLock, Timeout

    folder = port_lock_dir()
    folder.mkdir(parents=True, exist_ok=True)
    for _ in range(PORT_ATTEMPTS):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.bind(("", 0))  # the host binds every interface: probe the same way
            port = probe.getsockname()[1]
        lock = FileLock(str(folder / f"{port}.lock"))
        try:
            lock.acquire(timeout=0)
        except Timeout:
            continue  # another NetGame probed this port and is starting on it
        return port, lock
    raise NetGameError(f"found no free UDP port in {PORT_ATTEMPTS} tries (ports held under {folder})")


# -- processes -------------------------------------------------------------------------------------------


MARKER_ARG = "-wadgym_game"  # the engine argument whose value marks a game's engines (the engine ignores it)
PLAYER_NAME = "Agent"  # every agent's name in wadgym's multiplayer games (a dead player's screen shows it)


def marked_pids(marker: str) -> list[int]:
    """The processes with `marker` as one of their command-line arguments."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        if marker in (process.info["cmdline"] or ()):
            found.append(process.pid)
    return found


def kill_tree(pid: int, timeout: float = 5.0) -> None:
    """SIGKILL `pid` and everything below it (a worker and its ViZDoom engine), the deepest first, and wait
    up to `timeout` seconds until those that are not this process's own children are gone (ours are reaped
    by whoever started them: a NetGame waits for its workers)."""
    with contextlib.suppress(psutil.Error):
        top = psutil.Process(pid)
        tree = [*reversed(top.children(recursive=True)), top]
        others = []
        for process in tree:
            with contextlib.suppress(psutil.Error):
                if process.ppid() != os.getpid():
                    others.append(process)
                process.kill()
        psutil.wait_procs(others, timeout=timeout)


def _make_game(settings: PlayerSettings, args: str):
    import vizdoom as vzd

    from .engine import enable_buffers, make_game

    game = make_game(settings.wad, settings.map, resolution=getattr(vzd.ScreenResolution, settings.resolution),
                     screen_format=getattr(vzd.ScreenFormat, settings.screen_format),
                     buttons=[getattr(vzd.Button, b) for b in settings.buttons],
                     variables=[getattr(vzd.GameVariable, v) for v in settings.variables],
                     seed=settings.seed)
    game.set_mode(vzd.Mode.PLAYER)
    enable_buffers(game, settings.buffers)
    # No palette flashes (pickup gold, damage red): a joiner draws its view with the engine's client-side
    # prediction, which runs the flash's countdown but not the pickup, so how far the flash had faded in
    # a joiner's frame hung on when the host's tic arrived (docs/multi-agent.md, Seeding)
    game.set_render_screen_flashes(False)
    game.add_game_args(args)
    return game


def _state(game, buffers: tuple[str, ...]) -> PlayerState:
    from .engine import buffer_field

    state = game.get_state()
    if state is None:
        return PlayerState(None, np.array([game.get_game_variable(v) for v in game.get_available_game_variables()]))
    return PlayerState(state.screen_buffer, state.game_variables,
                       **{buffer_field(name): getattr(state, buffer_field(name)) for name in buffers})


def worker_main(fd: int) -> None:
    """A player's worker (`python -m wadgym.envs.runtime.netgame FD`): receive (settings, engine args) on the
    socket `fd`, say "booted", start the engine (joining the game), then answer commands until "close" or
    until the NetGame's end closes. Replies are ("ok", value) or ("error", traceback text). Its output and
    the engine's console (handshake progress, errors) go to a log file (start_worker), not to the user."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the trainer's to handle; it closes the game
    conn = mpc.Connection(fd)
    game = None
    try:
        settings, args = conn.recv()
        conn.send(("booted", os.getpid()))
        game = _make_game(settings, args)
        game.init()
        import vizdoom as vzd

        conn.send(("ok", int(game.get_game_variable(vzd.GameVariable.PLAYER_NUMBER))))
        while True:
            try:
                command, *rest = conn.recv()
            except (EOFError, OSError):
                return
            if command == "close":
                return
            try:
                conn.send(("ok", _run(game, settings, conn, command, rest)))
            except _Closed:
                return
            except Exception as error:  # noqa: BLE001 - the NetGame turns it into one clear error
                conn.send(("error", f"{type(error).__name__}: {error}"))
    except (EOFError, OSError):
        return
    except Exception:  # noqa: BLE001
        with contextlib.suppress(OSError):
            conn.send(("error", traceback.format_exc()))
    finally:
        if game is not None:
            game.close()


class _Closed(Exception):
    """The NetGame closed the game in the middle of a step."""


def _run(game, settings: PlayerSettings, conn, command: str, rest: list) -> Any:
    if command == "step":  # (buttons, tics): k lockstep rounds of one tic each, released by the NetGame
        buttons, tics = rest
        game.set_action(buttons)
        for tic in range(tics):
            if tic:
                conn.send(("tic", tic))
                if conn.recv()[0] != "go":
                    raise _Closed
            game.advance_action(1, tic == tics - 1)
        return _state(game, settings.buffers)
    if command == "episode":  # (map): a new episode on `map` (every player must start it)
        (map_name,) = rest
        if map_name != game.get_doom_map():
            game.set_doom_map(map_name)
        game.new_episode()
        return _state(game, settings.buffers)
    if command == "console":
        game.send_game_command(rest[0])
        return None
    if command == "variable":
        import vizdoom as vzd

        return float(game.get_game_variable(getattr(vzd.GameVariable, rest[0])))
    raise ValueError(f"unknown command {command!r}")


# -- the game ------------------------------------------------------------------------------------------


class NetGame:
    """`n_players` engines in one game on 127.0.0.1, player i driven by worker process i.

    Construction starts the game (host and joiners) and waits up to `join_timeout` seconds for every
    player; each call waits up to `step_timeout` seconds. On any failure every engine is ended and a
    NetGameError says which player failed and how. `close()` ends the game (also after a failure; twice
    is harmless). Players are reported by their player number (0 .. n-1), which the engine assigns
    (the host is 0, joiners in the order they connected).

    `private_network`: run a game of two or more players in a network namespace of its own that holds
    only loopback (envs/runtime/netns.py); None (the default) does so unless WADGYM_NETNS=0. Where the
    system refuses, the game runs in this machine's namespace (one RuntimeWarning a process);
    `self.namespace` tells which (None: the machine's).
    """

    def __init__(self, settings: PlayerSettings, n_players: int, *, join_timeout: float = DEFAULT_JOIN_TIMEOUT,
                 step_timeout: float = DEFAULT_STEP_TIMEOUT, game_args: str = "", private_network: bool | None = None):
        if not 1 <= n_players <= MAX_PLAYERS:
            raise ValueError(f"n_players={n_players} is not valid; 1 to {MAX_PLAYERS}")
        self.settings, self.n_players = settings, int(n_players)
        self.join_timeout, self.step_timeout = float(join_timeout), float(step_timeout)
        self.game_args = game_args
        self.private_network = netns.wanted() if private_network is None else bool(private_network)
        self.namespace: netns.Namespace | None = None
        self.port: int | None = None
        self._port_lock = None
        self._markers: list[str] = []
        self._logs = tempfile.TemporaryDirectory(prefix="wadgym-netgame-")
        self._workers: list = []
        self._pipes: list = []
        self.closed = False
        self.start_attempts = 0  # how many starts this game took (more than 1: an engine exited or a start stalled)
        for attempt in range(START_ATTEMPTS):
            self.start_attempts = attempt + 1
            try:
                self._start(last=attempt == START_ATTEMPTS - 1)
                return
            except _EngineExited as error:  # e.g. the port was taken between the probe and the host's bind, or
                # a start that stalled after the handshake (_StartStalled)
                self._end()
                if attempt == START_ATTEMPTS - 1:
                    raise NetGameError(f"{error}; tried {START_ATTEMPTS} times with fresh ports") from None
            except BaseException:
                self._end()
                raise

    # -- starting ------------------------------------------------------------------------------------

    def _start(self, last: bool = True) -> None:
        """Start the game's workers and engines; unless `last`, a start that stalls after the handshake raises
        _StartStalled (see STALL_PATIENCE)."""
        n = self.n_players
        self.closed = False
        if n > 1:
            self.port, self._port_lock = reserve_port()
            if self.private_network:
                self.namespace = netns.private_network()
        token = uuid.uuid4().hex[:12]
        markers = self._markers = [f"wadgym{token}p{i}" for i in range(n)]  # finds each engine among all processes
        connect = int(self.join_timeout) + ENGINE_CONNECT_MARGIN
        workers, pipes = [], []
        self._workers, self._pipes = workers, pipes  # filled as they start: a failure ends those already started
        for i in range(n):
            if n == 1:
                role = ""
            elif i == 0:
                role = f"-host {n} -port {self.port} +viz_connect_timeout {connect}"
            else:
                role = f"-join 127.0.0.1 -port {self.port} +viz_connect_timeout {connect}"
            # every agent is named PLAYER_NAME (as in the one-engine bots game): a dead player's screen shows a name,
            # so one that differed from game to game (the marker) made two seeded games' frames differ; the
            # marker is an argument the engine ignores
            args = (f"{role} +name {PLAYER_NAME} {MARKER_ARG} {markers[i]} {self.settings.game_args} "
                    f"{self.game_args}").strip()
            ours, theirs = socket.socketpair()
            try:
                workers.append(start_worker(theirs.fileno(), self._log(i), self.namespace))
            finally:
                theirs.close()
            pipes.append(mpc.Connection(ours.detach()))
            with contextlib.suppress(OSError):  # a worker that is gone already is reported by the collect below
                pipes[-1].send((self.settings, args))
        self._collect(range(n), self.join_timeout, "start its worker", hint="python -m " + WORKER_MODULE,
                      status="booted")
        watch = n > 1 and not last and self.step_timeout > STALL_PATIENCE  # a shorter wait ends before a restart
        numbers = self._collect(range(n), self.join_timeout, "join the game",
                                hint=f"{n} players on 127.0.0.1 port {self.port}" if n > 1 else "the engine",
                                stalled=self._handshake_done if watch else None)
        if sorted(numbers) != list(range(n)):
            raise NetGameError(f"the engines reported player numbers {numbers}; expected each of 0..{n - 1}")
        order = sorted(range(n), key=lambda i: numbers[i])  # index by player number from here on
        self._workers = [workers[i] for i in order]
        self._pipes = [pipes[i] for i in order]
        self._markers = [markers[i] for i in order]

    # -- calls ---------------------------------------------------------------------------------------

    def step(self, buttons: Sequence[Sequence[float]], tics: int) -> list[PlayerState]:
        """Each player i holds `buttons[i]` for `tics` tics, all in lockstep; their states after it."""
        return step_games([self], [buttons], tics)[0]

    def _start_step(self, buttons: Sequence[Sequence[float]], tics: int) -> float:
        if len(buttons) != self.n_players:
            raise ValueError(f"buttons for {len(buttons)} players; the game has {self.n_players}")
        for pipe, b in zip(self._pipes, buttons):
            self._send(pipe, ("step", list(b), int(tics)))
        return time.monotonic() + self.step_timeout

    def _release_tic(self, tics: int, deadline: float) -> None:
        """Wait until every player has played the tic, then release them into the next."""
        self._collect(range(self.n_players), self.step_timeout, f"finish a step of {tics} tics", status="tic",
                      deadline=deadline)
        for pipe in self._pipes:
            self._send(pipe, ("go",))

    def new_episode(self, map_name: str) -> list[PlayerState]:
        """Every player starts a new episode on `map_name` (the host changes the map, the others follow)."""
        for pipe in self._pipes:
            self._send(pipe, ("episode", map_name))
        return self._collect(range(self.n_players), self.step_timeout, f"start an episode on {map_name}")

    def console(self, player: int, command: str) -> None:
        """Run a console command in `player`'s game (network commands such as `puke` reach every game)."""
        self._send(self._pipes[player], ("console", command))
        self._collect([player], self.step_timeout, "run a console command")

    def variable(self, player: int, name: str) -> float:
        """GameVariable `name` in `player`'s game."""
        self._send(self._pipes[player], ("variable", name))
        return self._collect([player], self.step_timeout, f"read {name}")[0]

    def _send(self, pipe, message) -> None:
        if self.closed:
            raise NetGameError("the game is closed")
        try:
            pipe.send(message)
        except (OSError, ValueError):
            self._fail(f"player {self._pipes.index(pipe)}'s worker is gone (its pipe is closed)")

    def _collect(self, players, timeout: float, what: str, hint: str = "", status: str = "ok",
                 deadline: float | None = None, stalled=None) -> list:
        """The replies of `players` to the command just sent (their `status`, e.g. "ok"), waiting at most
        `timeout` seconds in all (or until `deadline`, a time.monotonic()). With `stalled` (a callable), a wait
        that goes on STALL_PATIENCE seconds after it first answers True raises _StartStalled."""
        players = list(players)
        replies: dict[int, Any] = {}
        deadline = time.monotonic() + timeout if deadline is None else deadline
        stalled_since = None
        while len(replies) < len(players):
            waiting = [i for i in players if i not in replies]
            left = deadline - time.monotonic()
            poll = left if stalled is None else min(left, STALL_PATIENCE / 20)
            ready = mpc.wait([self._pipes[i] for i in waiting], timeout=max(poll, 0))
            if not ready:
                names = ", ".join(f"player {i}" for i in waiting)
                if time.monotonic() >= deadline:
                    self._fail(f"{names} did not {what} within {timeout:.0f} s" + (f" ({hint})" if hint else ""))
                if stalled is not None and stalled_since is None and stalled():
                    stalled_since = time.monotonic()
                if stalled_since is not None and time.monotonic() - stalled_since >= STALL_PATIENCE:
                    self._fail(f"{names} did not {what} within {STALL_PATIENCE:g} s of the handshake's end",
                               _StartStalled, logs=False)
                continue
            for i in waiting:
                if self._pipes[i] not in ready:
                    continue
                try:
                    got, value = self._pipes[i].recv()
                except (EOFError, OSError):
                    self._worker_gone(i, what)
                if got == "error":
                    text = value.strip()
                    where = "its worker" if "Traceback" in text else "it"
                    self._fail(f"player {i} failed to {what}: {text.splitlines()[-1]}"
                               + (f"\n{where} reported:\n{text}" if "Traceback" in text else ""))
                if got != status:
                    self._fail(f"player {i} answered {got!r} where {status!r} was due while trying to {what}")
                replies[i] = value
        return [replies[i] for i in players]

    def _worker_gone(self, i: int, what: str) -> None:
        """Player i's pipe closed: its worker exited. Before it booted that is the worker's own failure (its
        error text is in its log); during the handshake an engine exit worth a retry; later a NetGameError."""
        process = self._workers[i]
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(2.0)
        code = process.poll()
        how = f"exited with status {code}" if code is not None and code >= 0 else \
            f"was killed by signal {-code}" if code is not None else "closed its pipe"
        if what == "start its worker":
            text = self._log_text(i).strip()
            self._fail(f"player {i}'s worker (python -m {WORKER_MODULE}) {how} before it started"
                       + (f"; its output:\n{text[-2000:]}" if text else " without a word"), logs=False)
        error = _EngineExited if what == "join the game" else NetGameError
        self._fail(f"player {i}'s engine {how} while trying to {what}", error)

    def _log(self, worker: int) -> str:
        return os.path.join(self._logs.name, f"player{worker}.log")

    def _log_text(self, worker: int) -> str:
        """What worker `worker` and its engine have written to its log so far ("" before it has one)."""
        path = Path(self._log(worker))
        return path.read_text(errors="replace") if path.is_file() else ""

    def _marker_logs(self) -> list[str]:
        """The engines' logs so far, in the order of self._markers (a marker ends in its worker's number)."""
        return [self._log_text(int(marker.rsplit("p", 1)[1])) for marker in self._markers]

    def _handshake_done(self) -> bool:
        """Whether every engine's log shows the network handshake's last stage with a player found in it."""
        stage, found = HANDSHAKE_DONE
        logs = self._marker_logs()
        return bool(logs) and all(found in text.partition(stage)[2] for text in logs)

    def _fail(self, message: str, error: type = None, logs: bool = True) -> None:
        tails = []
        for player, text in enumerate(self._marker_logs() if logs else ()):  # the engines' last words, if any
            lines = [line.strip() for line in text.replace("\r", "\n").splitlines() if line.strip()]
            if lines:
                tails.append(f"player {player}: {lines[-1][:160]}")
        self._end()
        detail = f" (engine consoles: {'; '.join(tails)})" if tails else ""
        raise (error or NetGameError)(message + detail)

    # -- ending --------------------------------------------------------------------------------------

    def close(self, timeout: float = 10.0) -> None:
        """Close every player's engine: a "close" to each worker, then SIGKILL for whatever is still alive
        after `timeout` seconds (an engine that hangs never answers); then remove the engines' log folder."""
        if not self.closed:
            for pipe in self._pipes:
                with contextlib.suppress(OSError, ValueError):
                    pipe.send(("close",))
            deadline = time.monotonic() + timeout
            for process in self._workers:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(max(deadline - time.monotonic(), 0))
            self._end()
        with contextlib.suppress(OSError):
            self._logs.cleanup()  # the engines' logs: read only in a failure's message, which came before

    def _end(self) -> None:
        """End every worker and engine now (SIGKILL what is alive) and release the port. Engines are found
        by their marker: one whose worker died was handed to another parent."""
        for process in self._workers:
            if process.poll() is None:
                kill_tree(process.pid)
        for marker in self._markers:
            for pid in marked_pids(marker):
                kill_tree(pid)
        for process in self._workers:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(5.0)
        for pipe in self._pipes:
            pipe.close()
        self._workers, self._pipes, self._markers = [], [], []
        if self._port_lock is not None:
            self._port_lock.release()
            with contextlib.suppress(OSError):
                Path(self._port_lock.lock_file).unlink()
            self._port_lock = None
        if self.namespace is not None:  # its processes are gone: this frees it
            self.namespace.close()
            self.namespace = None
        self.closed = True

    def engine_pids(self) -> list[int]:
        """The engines' process ids, by player (tests and diagnostics)."""
        return [pid for marker in self._markers for pid in marked_pids(marker)]

    def worker_pids(self) -> list[int]:
        return [process.pid for process in self._workers]

    def __del__(self):
        with contextlib.suppress(Exception):
            self._end()
            self._logs.cleanup()


def step_games(games: Sequence[NetGame], buttons: Sequence[Sequence[Sequence[float]]], tics: int) -> list:
    """One step of `tics` tics in each of `games` at once, from one thread: every game's tic is released as
    soon as its own players have played it, so the games' engines work side by side while this thread
    waits (threads, one a game, would queue for the GIL behind each other on a busy machine). The states
    of each game's players; a failure raises the failing game's NetGameError (that game ended)."""
    deadlines = [game._start_step(b, tics) for game, b in zip(games, buttons)]
    for _ in range(int(tics) - 1):
        for game, deadline in zip(games, deadlines):
            game._release_tic(tics, deadline)
    return [game._collect(range(game.n_players), game.step_timeout, f"finish a step of {tics} tics",
                          deadline=deadline) for game, deadline in zip(games, deadlines)]


def start_worker(fd: int, log: str, namespace: netns.Namespace | None = None) -> subprocess.Popen:
    """`python -m wadgym.envs.runtime.netgame FD` with the socket `fd` handed down, able to import this very
    wadgym (its folder leads PYTHONPATH), its output going to `log`; inside `namespace` when one is given."""
    import wadgym

    env = dict(os.environ)
    home = os.path.dirname(os.path.dirname(os.path.abspath(wadgym.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([home, *filter(None, [env.get("PYTHONPATH")])])
    command = [sys.executable, "-m", WORKER_MODULE, str(fd)]
    fds = (fd,)
    if namespace is not None:
        command, fds = namespace.command(command), (fd, *namespace.fds)
    with open(log, "ab") as out:
        return subprocess.Popen(command, pass_fds=fds, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, env=env)


class _EngineExited(NetGameError):
    """An engine exited during the handshake: a start worth trying again (on a fresh port)."""


class _StartStalled(_EngineExited):
    """Every engine finished the handshake and the start did not end within STALL_PATIENCE seconds: a start
    worth trying again (on a fresh port)."""


if __name__ == "__main__":  # a worker: run from the module proper, so what it pickles names wadgym.envs.runtime.netgame
    from wadgym.envs.runtime.netgame import worker_main as main

    main(int(sys.argv[1]))
