"""Private network namespaces for netgames: the players' engines reach each other over 127.0.0.1 and
nothing else can reach them.

A netgame's host engine binds its UDP port on every interface (ViZDoom's net code has no bind address),
so while a game runs anyone on the network could send it packets. A NetGame therefore runs its players'
workers, and so their engines, in one network namespace of its own that holds only the loopback
interface, up. Shared memory and message queues (/dev/shm) and the socket pairs to the workers (AF_UNIX,
not abstract) do not depend on the network namespace, so everything else works as before.

How (Linux, no external tools):
- A short-lived helper process (`python -I -S -c HOLDER`) calls unshare(CLONE_NEWNET) (root, as in CI),
  or where that is refused unshare(CLONE_NEWUSER | CLONE_NEWNET) (unprivileged user namespaces; its uid
  and gid mapped to themselves), brings `lo` up with the SIOCSIFFLAGS ioctl and says so. The NetGame
  opens the helper's /proc/PID/ns/net (and ns/user) and lets the helper exit: those open descriptors
  keep the namespace alive for as long as the game runs; closing them (and the game's processes
  ending) frees it.
- Each player's worker starts as `python -I -S -c JOIN NETFD USERFD python -m ...`: setns() into the
  user namespace (if any) and the network namespace while the process is single-threaded (a user
  namespace can only be entered so), then exec() of the worker proper, which keeps its pid.

Where the system refuses (no namespaces in the kernel, a container without CAP_SYS_ADMIN and no
unprivileged user namespaces, kernel.unprivileged_userns_clone=0,
kernel.apparmor_restrict_unprivileged_userns=1, user.max_user_namespaces=0, not Linux), the games run in
this machine's own network namespace as before, with one RuntimeWarning a process saying why.
WADGYM_NETNS=0 turns the namespaces off (no warning).
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys
import threading
import warnings

ENV_VAR = "WADGYM_NETNS"      # "0" (or false/no/off): netgames run in this machine's network namespace
HELPER_TIMEOUT = 30.0         # seconds for the helper to make the namespace (it takes milliseconds)

# The helper: make the namespace, bring lo up, print "ok net" / "ok user" (or "error WHY"), then wait for
# its stdin to close (the NetGame has opened the namespace's files by then). Standard library only.
HOLDER = r"""
import ctypes, fcntl, os, socket, struct, sys
NEWNET, NEWUSER = 0x40000000, 0x10000000  # CLONE_NEWNET, CLONE_NEWUSER
libc = ctypes.CDLL(None, use_errno=True)
def unshare(flags, name):
    if libc.unshare(flags) != 0:
        raise OSError(ctypes.get_errno(), f"unshare({name}): {os.strerror(ctypes.get_errno())}")
def write(path, text):
    with open(path, "w") as f:
        f.write(text)
uid, gid, errors, mode = os.geteuid(), os.getegid(), [], None
try:
    unshare(NEWNET, "CLONE_NEWNET")
    mode = "net"
except OSError as error:
    errors.append(error.strerror)
    try:
        unshare(NEWUSER | NEWNET, "CLONE_NEWUSER|CLONE_NEWNET")
        write("/proc/self/setgroups", "deny")
        write("/proc/self/uid_map", f"{uid} {uid} 1")
        write("/proc/self/gid_map", f"{gid} {gid} 1")
        mode = "user"
    except OSError as error:
        errors.append(error.strerror or str(error))
try:
    if mode is None:
        raise OSError("; ".join(errors))
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        name = b"lo".ljust(16, b"\0")
        flags = struct.unpack("16sh", fcntl.ioctl(s, 0x8913, struct.pack("16sh22x", name, 0))[:18])[1]
        fcntl.ioctl(s, 0x8914, struct.pack("16sh22x", name, flags | 1))
except OSError as error:
    print("error", error.strerror or str(error), flush=True)
    sys.exit(0)
print("ok", mode, flush=True)
sys.stdin.read()
"""

# A player's worker: enter the namespace (argv: NETFD USERFD COMMAND...; USERFD -1 for none), then become
# COMMAND. Run single-threaded (python -I -S imports nothing that starts threads).
JOIN = r"""
import ctypes, os, sys
NEWNET, NEWUSER = 0x40000000, 0x10000000  # CLONE_NEWNET, CLONE_NEWUSER
libc = ctypes.CDLL(None, use_errno=True)
net, user = int(sys.argv[1]), int(sys.argv[2])
for fd, flag, name in ((user, NEWUSER, "user"), (net, NEWNET, "network")):
    if fd >= 0:
        if libc.setns(fd, flag) != 0:
            sys.exit(f"wadgym: could not enter the netgame's {name} namespace: setns: "
                     f"{os.strerror(ctypes.get_errno())} (WADGYM_NETNS=0 runs games without one)")
        os.close(fd)
os.execv(sys.argv[3], sys.argv[3:])
"""

_lock = threading.Lock()
_refused: str | None = None   # why the system refused a namespace (then this process tries no more)


def wanted() -> bool:
    """Whether netgames should run in private network namespaces: yes unless WADGYM_NETNS is 0/false/no/off."""
    return os.environ.get(ENV_VAR, "1").strip().lower() not in ("0", "false", "no", "off")


def refused() -> str | None:
    """Why this process's netgames run without a private network namespace (None: they do, or none tried yet)."""
    return _refused


class Namespace:
    """A network namespace holding only loopback (up), kept alive by the open descriptors `net` and `user`
    (the user namespace that owns it; None when made as root). `close()` lets it go."""

    def __init__(self, net: int, user: int | None):
        self.net, self.user = net, user

    @property
    def fds(self) -> tuple[int, ...]:
        return (self.net,) if self.user is None else (self.net, self.user)

    def command(self, command: list[str]) -> list[str]:
        """`command` run inside the namespace (its process id stays that of the command's own process);
        start it with `fds` handed down (subprocess's pass_fds)."""
        return [sys.executable, "-I", "-S", "-c", JOIN, str(self.net), str(-1 if self.user is None else self.user),
                *command]

    def close(self) -> None:
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.net, self.user = -1, None

    def __del__(self):
        if self.net >= 0:
            self.close()


def private_network() -> Namespace | None:
    """A new network namespace with only loopback up, for one netgame; None where WADGYM_NETNS=0 or the
    system refuses (the first refusal in a process warns why, later calls do not try again)."""
    global _refused
    if not wanted():
        return None
    with _lock:
        if _refused is not None:
            return None
        try:
            return _make()
        except OSError as error:
            _refused = str(error)
    warnings.warn(f"wadgym: multiplayer games run in this machine's own network namespace (a private one was "
                  f"refused: {_refused}), so while a game runs its engines take UDP packets from the whole "
                  f"network on their ports. To keep games on this machine, run as root or allow user namespaces "
                  f"(kernel.unprivileged_userns_clone=1, kernel.apparmor_restrict_unprivileged_userns=0, "
                  f"user.max_user_namespaces > 0); {ENV_VAR}=0 runs them without one and silences this warning.",
                  RuntimeWarning, stacklevel=2)
    return None


def _make() -> Namespace:
    if not sys.platform.startswith("linux"):
        raise OSError(f"network namespaces are Linux's; this is {sys.platform}")
    helper = subprocess.Popen([sys.executable, "-I", "-S", "-c", HOLDER], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, close_fds=True)
    try:
        ready, _, _ = select.select([helper.stdout], [], [], HELPER_TIMEOUT)
        line = helper.stdout.readline().decode(errors="replace").strip() if ready else ""
        status, _, detail = line.partition(" ")
        if status != "ok":
            if status == "error":
                raise OSError(detail)
            helper.stdin.close()  # a helper that said something else: let it end, then read the rest
            rest = "" if not ready else helper.stdout.read().decode(errors="replace").strip()
            raise OSError(f"the namespace helper said {line!r} {rest[-500:]}" if line or rest
                          else f"the namespace helper did not answer within {HELPER_TIMEOUT:.0f} s")
        fds = []
        try:
            for kind in ("net", "user") if detail == "user" else ("net",):
                fds.append(os.open(f"/proc/{helper.pid}/ns/{kind}", os.O_RDONLY | os.O_CLOEXEC))
        except OSError:
            for fd in fds:
                os.close(fd)
            raise
        return Namespace(fds[0], fds[1] if len(fds) > 1 else None)
    finally:
        with contextlib.suppress(OSError):
            helper.stdin.close()
        try:
            helper.wait(HELPER_TIMEOUT)
        except subprocess.TimeoutExpired:
            helper.kill()
            helper.wait()
        helper.stdout.close()
