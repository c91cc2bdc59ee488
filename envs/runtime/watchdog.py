"""Engine watchdog: once the process that started ViZDoom engines is gone, however it ended, kill them.

wadgym.envs.runtime.engine starts one per process that starts engines, as `python watchdog.py TOKEN` with its
stdin the read end of a pipe whose only write end that process holds. The process never writes; its
end closes when it exits, also by SIGKILL, and the read here returns EOF. Then every ViZDoom engine
whose environment carries TOKEN (set while it was started) is killed and its shared-memory segments
are removed. An engine blocks forever on its message queue once its controller is gone and catches
SIGTERM, so without this it would run on indefinitely.

Run by path (not `-m`) so that it imports nothing of wadgym: only the standard library, then psutil.
"""

from __future__ import annotations

import os
import signal
import sys
import time

OWNER_VAR = "WADGYM_ENGINE_OWNER"
# ViZDoom's names (src/lib/ViZDoomController.h): "<base><instance id>", under /dev/shm on Linux.
SEGMENT_BASES = ("ViZDoomSM", "ViZDoomMQCtr", "ViZDoomMQDoom")
SHM_DIR = "/dev/shm"


def engines_of(token: str) -> list:
    """The live ViZDoom engines (psutil.Process) started with OWNER_VAR=token."""
    import psutil

    found = []
    for process in psutil.process_iter(["cmdline", "environ"]):
        cmdline, environ = process.info["cmdline"] or [], process.info["environ"] or {}
        if environ.get(OWNER_VAR) == token and instance_id(cmdline) is not None:
            found.append(process)
    return found


def instance_id(cmdline: list[str]) -> str | None:
    """The instance id on a ViZDoom engine's command line (its segments' names end with it); None when
    the command line is not an engine's."""
    if "+viz_instance_id" not in cmdline:
        return None
    index = cmdline.index("+viz_instance_id")
    return cmdline[index + 1] if index + 1 < len(cmdline) else None


def remove_segments(instance: str) -> None:
    for base in SEGMENT_BASES:
        try:
            os.unlink(os.path.join(SHM_DIR, base + instance))
        except OSError:
            pass


def reap(token: str, timeout: float = 5.0) -> int:
    """Kill the engines of `token`, wait for them, remove their segments; returns how many there were."""
    import psutil

    engines = engines_of(token)
    instances = [instance_id(e.info["cmdline"]) for e in engines]
    for engine in engines:
        try:
            engine.kill()
        except psutil.Error:
            pass
    deadline = time.monotonic() + timeout
    while any(alive(e.pid) for e in engines) and time.monotonic() < deadline:
        time.sleep(0.01)
    for instance in filter(None, instances):
        remove_segments(instance)
    return len(engines)


def alive(pid: int) -> bool:
    """Whether process (or thread) `pid` exists and is not a zombie (a killed engine whose parent is gone stays
    a zombie until init reaps it); True where that cannot be told."""
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
    except psutil.Error:
        return True


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: watchdog.py TOKEN  (stdin: a pipe from the process that owns the engines)", file=sys.stderr)
        return 2
    # Signals meant for the group (Ctrl-C, docker stop, a closed terminal) must not end the watchdog
    # before its owner: it is the one that cleans up after the owner.
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)
    while True:
        try:
            if not os.read(0, 4096):
                break
        except InterruptedError:
            continue
        except OSError:
            break
    reap(argv[1])
    return 0


if __name__ == "__main__":
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]  # the envs folder: its modules must not shadow what psutil imports
    sys.exit(main(sys.argv))
