"""The message-queue locks of an engine that was killed while it held one, released.

A DoomGame talks to its engine through two boost::interprocess message queues in /dev/shm
(ViZDoomMQCtr<id>: engine -> controller, ViZDoomMQDoom<id>: controller -> engine). Each queue is guarded
by a process-shared pthread mutex, and that mutex is not robust: an engine killed (SIGKILL, the
out-of-memory killer) while it is inside send or receive leaves it locked for good. The controller's
own thread that reports the death ("Unexpected ViZDoom instance crash") then blocks on it, and so does
the thread in make_action waiting for the engine's answer: make_action never returns and never raises,
and no engine restart or error report can happen. Killing an engine in a busy step loop ended so in
26 of 100 kills on one machine and in none of 60 on another (vizdoom 1.3.2): a matter of timing.

So each engine start_engine starts is watched here: once its process is gone, a lock of its queues
whose owner thread no longer exists is unlocked (pthread_mutex_unlock, from this process: the mutex is
process-shared), and the controller carries on to report the death as ViZDoom always does
(ViZDoomErrorException or ViZDoomUnexpectedExitException from the call that was waiting).

Only what can be checked is touched: the queue's header must read as ViZDoom's (64 messages of 129
bytes), the mutex must be glibc's plain process-shared kind, locked, and owned by a thread that does
not exist. Elsewhere (another libc, another layout) nothing is done, as before this module.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import mmap
import os
import platform
import struct
import sys
import threading
import time

from . import watchdog

QUEUE_BASES = ("ViZDoomMQCtr", "ViZDoomMQDoom")
POLL_S = 0.5  # how often the engines of this process are checked for having died

# boost::interprocess::message_queue's segment (boost 1.66, as the vizdoom wheel links it): an
# initialisation word, then mq_hdr_t: offset_ptr index @16, max messages @24, max message size @32,
# current count @40, the mutex @48 (then the two condition variables).
HEADER = struct.Struct("<QQ")  # max messages, max message size
HEADER_OFFSET, EXPECTED_HEADER = 24, (64, 129)  # ViZDoomMessageQueue.h: MQ_MAX_MSG_NUM, sizeof(Message)
MUTEX_OFFSET = 48
# glibc's pthread_mutex_t on Linux: int __lock, unsigned __count, int __owner (the holder's thread id),
# unsigned __nusers, int __kind (128: process-shared, plain type).
MUTEX = struct.Struct("<iIiIi")
PLAIN_SHARED_KIND = 128

_engines: dict[str, int] = {}  # instance id -> engine pid, this process's live engines
_lock = threading.Lock()
_monitor: threading.Thread | None = None
_unlock = None  # libc's pthread_mutex_unlock, once looked up
released: list[str] = []  # the segments unlocked in this process (a record for tests and diagnosis)


@functools.cache
def supported() -> bool:
    """Where the layout above is known: Linux with glibc."""
    return sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"


def watched() -> set[str]:
    """The instance ids of the engines watched now."""
    with _lock:
        return set(_engines)


def watch(instance: str, pid: int) -> None:
    """Watch the engine `pid` (instance id `instance`) this process started, until it is gone."""
    global _monitor
    with _lock:
        _engines[instance] = pid
        if _monitor is None or not _monitor.is_alive():
            _monitor = threading.Thread(target=_watch_engines, name="wadgym engine queue locks", daemon=True)
            _monitor.start()


def _watch_engines() -> None:
    """Until no engine is left to watch: each engine found gone has its queues' abandoned locks released."""
    global _monitor
    while True:
        time.sleep(POLL_S)
        with _lock:
            gone = [(instance, pid) for instance, pid in _engines.items() if not watchdog.alive(pid)]
            for instance, _ in gone:
                del _engines[instance]
            if not _engines and not gone:
                _monitor = None
                return
        for instance, _ in gone:
            release_abandoned(instance)


def release_abandoned(instance: str) -> list[str]:
    """Unlock each queue mutex of engine `instance` whose owner thread is gone; returns the segments'
    names (none when nothing was held, or the segments are already removed)."""
    found = []
    for base in QUEUE_BASES:
        name = base + instance
        with contextlib.suppress(OSError, ValueError):
            if _release(os.path.join(watchdog.SHM_DIR, name)):
                found.append(name)
    released.extend(found)
    return found


def _release(path: str) -> bool:
    with open(path, "r+b") as file, mmap.mmap(file.fileno(), 0) as segment:
        if len(segment) < MUTEX_OFFSET + MUTEX.size or HEADER.unpack_from(segment, HEADER_OFFSET) != EXPECTED_HEADER:
            return False
        lock, _count, owner, _users, kind = MUTEX.unpack_from(segment, MUTEX_OFFSET)
        if lock == 0 or kind != PLAIN_SHARED_KIND or owner <= 0 or watchdog.alive(owner):
            return False
        mutex = ctypes.c_int.from_buffer(segment, MUTEX_OFFSET)
        try:
            _pthread_mutex_unlock()(ctypes.byref(mutex))  # wakes the threads blocked on it
        finally:
            del mutex  # the mapping can close only once nothing points into it
        return True


def _pthread_mutex_unlock():
    global _unlock
    if _unlock is None:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        _unlock = libc.pthread_mutex_unlock
        _unlock.argtypes, _unlock.restype = [ctypes.c_void_p], ctypes.c_int
    return _unlock


def _forget_after_fork() -> None:
    """A forked child has none of its parent's engines and no monitor thread."""
    global _monitor, _lock
    _engines.clear()
    _monitor, _lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)
