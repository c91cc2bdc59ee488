"""A multi-agent game starts from wherever Python runs: the docs' snippet exactly as printed, as a plain
script (no main guard), from standard input, from `python -c`, in an interactive interpreter and in a
Jupyter kernel, on the real engine; a worker that fails before its engine runs is reported with its own error text."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

pytest.importorskip("pettingzoo")

from wadgym.envs.runtime import netgame  # noqa: E402
from wadgym.envs.runtime.netgame import NetGame, NetGameError, PlayerSettings  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs" / "multi-agent.md"
CHECK = '\nprint("finished:", sorted(rewards))\n'  # run after the snippet: it got as far as its last line


def snippet() -> str:
    return re.search(r"```python\n(.*?)```", DOCS.read_text(), re.S).group(1)


@pytest.mark.parametrize("how", ["script", "stdin", "-c", "repl"])
def test_the_docs_snippet_runs_from_a_script_stdin_dash_c_and_a_repl(how, tmp_path, process_session):
    code = snippet() + CHECK
    script = tmp_path / "duel.py"
    script.write_text(code)
    command, stdin = {"script": ([sys.executable, str(script)], None),
                      "stdin": ([sys.executable, "-"], code),
                      "-c": ([sys.executable, "-c", code], None),
                      "repl": ([sys.executable, "-i"], code + "\n")}[how]
    process = subprocess.Popen(command, cwd=tmp_path, start_new_session=True, text=True, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL)
    session = process_session(process.pid)
    out, err = process.communicate(stdin, timeout=240)
    assert process.returncode == 0 and "Traceback" not in err, err
    assert "finished: ['player_0', 'player_1']" in out, out + err
    assert session.leftovers() == [], "engines or workers outlived the snippet"


def kernel_children(session, kernel: int, timeout: float = 10.0) -> list[str]:
    """'pid command' of each process of the kernel's session other than the kernel, once none is left or
    `timeout` seconds passed."""
    deadline = time.monotonic() + timeout
    while True:
        others = [p for p in session.processes() if p.pid != kernel]
        if not others or time.monotonic() > deadline:
            return [f"{p.pid} {' '.join(p.cmdline())[:160]}" for p in others]
        time.sleep(0.05)


def test_the_docs_snippet_runs_in_a_jupyter_kernel(tmp_path, process_session):
    """A real IPython kernel (this venv's Python, on 127.0.0.1, its files in tmp_path) runs the snippet as
    one cell; a second cell shows what the snippet's comments say it made."""
    pytest.importorskip("ipykernel")
    manager_module = pytest.importorskip("jupyter_client.manager")
    from jupyter_client.kernelspec import KernelSpecManager

    spec = tmp_path / "kernels" / "wadgym-test"
    spec.mkdir(parents=True)
    spec.joinpath("kernel.json").write_text(json.dumps(
        {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
         "display_name": "wadgym test", "language": "python"}))
    manager = manager_module.KernelManager(
        kernel_name="wadgym-test", ip="127.0.0.1", connection_file=str(tmp_path / "connection.json"),
        kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(spec.parent)], ensure_native_kernel=False))
    manager.start_kernel(cwd=str(tmp_path), env={**os.environ, "IPYTHONDIR": str(tmp_path / "ipython")})
    session = process_session(manager.provisioner.pid)  # the kernel leads a session of its own
    client = manager.client()
    outputs: list[dict] = []

    def run(code: str) -> dict:
        reply = client.execute_interactive(code, timeout=240, output_hook=lambda m: outputs.append(m))
        return reply["content"]

    try:
        client.start_channels()
        client.wait_for_ready(timeout=60)
        snippet_reply = run(snippet())
        errors = [m["content"] for m in outputs if m["msg_type"] == "error" or m["msg_type"] == "stream"
                  and m["content"]["name"] == "stderr" and "Traceback" in m["content"]["text"]]
        outputs.clear()
        check_reply = run("sorted(rewards), {a: (o.shape, str(o.dtype)) for a, o in observations.items()}")
        results = [m["content"]["data"]["text/plain"] for m in outputs if m["msg_type"] == "execute_result"]
        children = kernel_children(session, manager.provisioner.pid)  # env.close() ended them in a live kernel
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=False)
    assert snippet_reply["status"] == "ok" and errors == [], (snippet_reply, errors)
    assert check_reply["status"] == "ok", check_reply
    assert results == ["(['player_0', 'player_1'],\n {'player_0': ((60, 80, 1), 'uint8'), "
                       "'player_1': ((60, 80, 1), 'uint8')})"], results
    assert children == [], "engines or workers outlived env.close() in the kernel"
    assert session.leftovers() == [], "the kernel, engines or workers outlived the snippet"


def settings(**changes) -> PlayerSettings:
    return PlayerSettings(**{"wad": "", "map": "MAP01", "resolution": "RES_160X120", "screen_format": "GRAY8",
                             "buttons": ("ATTACK",), "variables": (), **changes})


def test_a_worker_that_cannot_start_is_reported_with_its_own_error(monkeypatch):
    monkeypatch.setattr(netgame, "WORKER_MODULE", "wadgym.envs.no_such_worker")
    with pytest.raises(NetGameError, match=r"(?s)player \d's worker .* exited with status 1 before it started.*"
                                           r"No module named wadgym.envs.no_such_worker") as error:
        NetGame(settings(), 2, join_timeout=60)
    assert "join" not in str(error.value)


def test_an_error_in_a_worker_is_reported_as_itself_not_as_a_join_failure():
    with pytest.raises(NetGameError, match=r"(?s)player \d failed to join the game: AttributeError: .*NO_SUCH_BUTTON"
                                           r".*its worker reported:\nTraceback") as error:
        NetGame(settings(buttons=("NO_SUCH_BUTTON",)), 1)
    assert "engine exited" not in str(error.value) and "tried" not in str(error.value)


def test_every_other_python_block_of_the_page_runs_as_a_plain_script(tmp_path, process_session):
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(), re.S)[1:]
    assert blocks
    for k, block in enumerate(blocks):
        script = tmp_path / f"block{k}.py"
        script.write_text(block)
        process = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path, start_new_session=True, text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        session = process_session(process.pid)
        out, err = process.communicate(timeout=240)
        assert process.returncode == 0, err
        assert session.leftovers() == []


def test_a_started_game_shows_the_handshake_done_in_every_engines_log():
    """What the start's stall check reads: after a two-player start every engine's log shows the handshake's last
    stage with a player found in it; a one-player game has no handshake (and no check)."""
    for players, done in ((2, True), (1, False)):
        game = NetGame(settings(), players)
        try:
            assert game._handshake_done() is done
            if players == 1:   # no handshake to stall after (a two-player start may be tried again)
                assert game.start_attempts == 1
        finally:
            game.close()


def test_a_start_that_stalls_after_the_handshake_is_tried_again_and_the_last_try_waits(monkeypatch):
    """A start still going STALL_PATIENCE seconds after every engine finished the handshake (a patience of 0
    here, and a check that always says the handshake is done) is ended and started again on a fresh port, every
    engine of it ended; the last of START_ATTEMPTS tries waits for the join as before, and the game plays."""
    monkeypatch.setattr(netgame, "STALL_PATIENCE", 0.0)
    monkeypatch.setattr(NetGame, "_handshake_done", lambda self: True)
    ports = []
    reserve = netgame.reserve_port
    monkeypatch.setattr(netgame, "reserve_port", lambda: ports.append(reserve()) or ports[-1])
    game = NetGame(settings(), 2)
    try:
        assert game.start_attempts == len(ports) == netgame.START_ATTEMPTS
        assert len(game.step([[0.0], [0.0]], 1)) == 2
        children = psutil.Process().children(recursive=True)
        engines = [p for p in children if p.name() == "vizdoom"]
        assert sorted(p.pid for p in engines) == sorted(game.engine_pids())   # the stalled tries' engines are gone
    finally:
        game.close()
