"""Netgames stay on this machine: a game's engines run in a network namespace of the game's own that holds
only loopback (envs/runtime/netns.py), so nothing off the machine, nor in its own namespace, can send them
packets; WADGYM_NETNS=0 turns that off; where the system refuses namespaces a game runs as before, with
one warning. Real engines throughout.

The sockets are read from the tables of each engine's own namespace (/proc/PID/net/...): psutil's
per-process connections read the tables of the caller's namespace, where a namespaced engine has none."""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import subprocess
import sys
import warnings

import pytest

pytest.importorskip("pettingzoo")

from wadgym.envs.multi import make  # noqa: E402
from wadgym.envs.runtime import netns  # noqa: E402
from wadgym.envs.runtime.netgame import NetGame, PlayerSettings  # noqa: E402

IWAD_GAME = PlayerSettings(wad="", map="MAP01", resolution="RES_160X120", screen_format="GRAY8",
                           buttons=("ATTACK",), variables=())


def network_of(pid: int | str) -> str:
    return os.readlink(f"/proc/{pid}/ns/net")


def interfaces(pid: int) -> set[str]:
    """The network interfaces of `pid`'s network namespace."""
    with open(f"/proc/{pid}/net/dev") as table:
        return {line.split(":", 1)[0].strip() for line in list(table)[2:]}


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    raw = bytes.fromhex(text)  # /proc/net's tables: 32-bit words in host (little-endian) order
    return ipaddress.ip_address(b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4)))


def inet_sockets(pid: int) -> list[tuple[str, ipaddress.IPv4Address | ipaddress.IPv6Address, int]]:
    """(table, local address, port) of every IPv4 and IPv6 socket `pid` holds, from its own namespace's tables."""
    held = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(OSError):  # closed meanwhile
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
            if link.startswith("socket:["):
                held.add(link[len("socket:["):-1])
    found = []
    for name in ("udp", "udp6", "tcp", "tcp6", "raw", "raw6", "udplite", "udplite6"):
        path = f"/proc/{pid}/net/{name}"
        if not os.path.exists(path):
            continue
        with open(path) as table:
            for line in list(table)[1:]:
                fields = line.split()
                if fields[9] in held:  # sl local rem st tx:rx tr:when retrnsmt uid timeout inode
                    address, port = fields[1].split(":")
                    found.append((name, _address(address), int(port, 16)))
    return found


def exposed(pid: int) -> list[str]:
    """The sockets of `pid` that take packets from outside loopback: bound to an address that is not a
    loopback one, or to every address (0.0.0.0, ::) of a namespace with an interface besides lo."""
    others = interfaces(pid) - {"lo"}
    return [f"{name} {address}:{port} ({', '.join(sorted(others)) or 'lo only'})"
            for name, address, port in inet_sockets(pid)
            if not address.is_loopback and (others or not address.is_unspecified)]


@pytest.fixture
def fresh_netns(monkeypatch):
    """Namespaces as by default (WADGYM_NETNS unset), tried afresh: a refusal warns again."""
    monkeypatch.delenv(netns.ENV_VAR, raising=False)
    monkeypatch.setattr(netns, "_refused", None)


def test_a_2_player_games_engines_bind_nothing_outside_loopback(fresh_netns, wad_cache):
    env = make("DoomItemsDuel-v0", cache_dir=wad_cache)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            env.reset(seed=0)
        game = env.game
        engines, workers = game.engine_pids(), game.worker_pids()
        assert len(engines) == 2 and len(workers) == 2
        if game.namespace is None:
            assert any("network namespace" in str(w.message) for w in caught), "refused without a warning"
            pytest.skip(f"this system refuses network namespaces: {netns.refused()}")
        spaces = {network_of(pid) for pid in engines + workers}
        assert len(spaces) == 1, "the players are in different namespaces"
        (space,) = spaces
        assert space != network_of("self"), "the engines are in this machine's namespace"
        assert interfaces(engines[0]) == {"lo"}
        sockets = [s for pid in engines for s in inet_sockets(pid)]
        assert game.port in [port for _, _, port in sockets], sockets  # the host's port, seen
        assert [s for pid in engines for s in exposed(pid)] == []
        assert not [w for w in caught if "network namespace" in str(w.message)]
        env.step({agent: 0 for agent in env.agents})  # they still play over 127.0.0.1
    finally:
        env.close()
    assert game.namespace is None  # let go: no descriptor of this process holds it any more
    held = [fd for fd in os.listdir("/proc/self/fd")
            if os.path.exists(f"/proc/self/fd/{fd}") and os.readlink(f"/proc/self/fd/{fd}") == space]
    assert held == []
    for pid in engines + workers:
        with contextlib.suppress(OSError):  # gone, as it should be
            assert network_of(pid) != space, f"process {pid} of the game outlived it"


def test_wadgym_netns_0_runs_the_engines_in_this_machines_namespace(monkeypatch):
    monkeypatch.setenv(netns.ENV_VAR, "0")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        game = NetGame(IWAD_GAME, 2)
    try:
        assert game.namespace is None and not [w for w in caught if "network namespace" in str(w.message)]
        engines = game.engine_pids()
        assert {network_of(pid) for pid in engines} == {network_of("self")}
        if interfaces(os.getpid()) - {"lo"}:  # the reason for the namespace: the host takes the network's packets
            host = [s for s in exposed(engines[0]) + exposed(engines[1]) if f":{game.port} " in s]
            assert host, [inet_sockets(pid) for pid in engines]
    finally:
        game.close()
    assert not os.path.exists(game._logs.name)   # close() leaves no log folder behind
    game.close()   # twice is harmless


REFUSED = r"""
import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
uid, gid = os.geteuid(), os.getegid()
if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER: a user namespace whose limits this process may set
    print(json.dumps({"skip": os.strerror(ctypes.get_errno())}))
    sys.exit(0)
for name, text in (("self/setgroups", "deny"), ("self/uid_map", f"{uid} {uid} 1"), ("self/gid_map", f"{gid} {gid} 1"),
                   ("sys/user/max_net_namespaces", "0"), ("sys/user/max_user_namespaces", "0")):
    with open(f"/proc/{name}", "w") as f:
        f.write(text)
import warnings
warnings.simplefilter("always")
from wadgym.envs.runtime import netns
from wadgym.envs.runtime.netgame import NetGame, PlayerSettings
settings = PlayerSettings(wad="", map="MAP01", resolution="RES_160X120", screen_format="GRAY8", buttons=("ATTACK",),
                          variables=())
report = {"games": []}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for _ in range(2):
        game = NetGame(settings, 2)
        try:
            shape = game.step([[0], [0]], 4)[0].screen_buffer.shape
            report["games"].append({"namespace": game.namespace is not None, "shape": list(shape),
                                    "same": [os.readlink(f"/proc/{pid}/ns/net") == os.readlink("/proc/self/ns/net")
                                             for pid in game.engine_pids()]})
        finally:
            game.close()
report["warnings"] = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
report["refused"] = netns.refused()
print(json.dumps(report))
"""


def test_where_the_system_refuses_the_games_run_as_before_with_one_warning(process_session, monkeypatch):
    """The kernel refuses: a child process sets its user namespace's limits of network and user namespaces to 0
    (user.max_net_namespaces, user.max_user_namespaces), then plays two games."""
    monkeypatch.delenv(netns.ENV_VAR, raising=False)
    process = subprocess.Popen([sys.executable, "-c", REFUSED], start_new_session=True, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    session = process_session(process.pid)
    out, err = process.communicate(timeout=240)
    assert process.returncode == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    if "skip" in report:
        pytest.skip(f"this system allows no user namespace to set the limits in: {report['skip']}")
    assert report["games"] == [{"namespace": False, "shape": [120, 160], "same": [True, True]}] * 2
    assert "No space left on device" in report["refused"]
    (warning,) = report["warnings"]  # once a process
    assert "refused" in warning and "No space left on device" in warning and "WADGYM_NETNS=0" in warning
    assert session.leftovers() == []


UNPRIVILEGED = r"""
import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER, whose uid and gid maps the test writes
    print(json.dumps({"skip": os.strerror(ctypes.get_errno())}), flush=True)
    sys.exit(0)
print(json.dumps({"map": "me"}), flush=True)
sys.stdin.readline()
from wadgym.envs.runtime.netgame import NetGame, PlayerSettings
settings = PlayerSettings(wad="", map="MAP01", resolution="RES_160X120", screen_format="GRAY8", buttons=("ATTACK",),
                          variables=())
game = NetGame(settings, 2)
try:
    shape = game.step([[0], [0]], 4)[0].screen_buffer.shape
    print(json.dumps({"uid": os.geteuid(), "user": game.namespace is not None and game.namespace.user is not None,
                      "engines": game.engine_pids(), "workers": game.worker_pids(), "port": game.port,
                      "shape": list(shape)}), flush=True)
    sys.stdin.readline()
finally:
    game.close()
print(json.dumps({"closed": True}), flush=True)
"""


def test_an_unprivileged_user_gets_a_network_namespace_of_its_own_user_namespace(process_session, monkeypatch):
    """Root in CI plays an unprivileged user: a child process whose user namespace maps uid and gid 1000 to
    this process's (no capability left once it runs a program) makes a game, whose namespace then comes from
    unshare(CLONE_NEWUSER | CLONE_NEWNET), the path of a user's laptop."""
    if os.geteuid() != 0:
        pytest.skip("writes another process's uid map: root only (an unprivileged run takes this path itself)")
    monkeypatch.delenv(netns.ENV_VAR, raising=False)
    process = subprocess.Popen([sys.executable, "-c", UNPRIVILEGED], start_new_session=True, text=True,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    session = process_session(process.pid)

    def said() -> dict:
        line = process.stdout.readline()
        assert line, process.stderr.read()  # it ended: what it said
        return json.loads(line)

    try:
        first = said()
        if "skip" in first:
            pytest.skip(f"this system refuses a user namespace: {first['skip']}")
        for name in ("uid_map", "gid_map"):
            with open(f"/proc/{process.pid}/{name}", "w") as f:
                f.write(f"1000 {os.geteuid() if name == 'uid_map' else os.getegid()} 1")
        process.stdin.write("go\n")
        process.stdin.flush()
        game = said()
        assert game["uid"] == 1000 and game["shape"] == [120, 160]
        assert game["user"], "the game's namespace was not made in a user namespace of its own"
        engines = game["engines"]
        assert len(engines) == 2
        assert len({network_of(pid) for pid in engines + game["workers"]}) == 1
        assert network_of(engines[0]) not in (network_of("self"), network_of(process.pid))
        assert interfaces(engines[0]) == {"lo"}
        assert game["port"] in [port for pid in engines for _, _, port in inet_sockets(pid)]
        assert [s for pid in engines for s in exposed(pid)] == []
        process.stdin.write("close\n")
        process.stdin.flush()
        assert said() == {"closed": True}
    finally:
        process.communicate(timeout=60)  # closes its stdin: a child still holding its game closes it
    assert process.returncode == 0
    assert session.leftovers() == []
