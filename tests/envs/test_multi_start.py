"""A multi-agent game starts from wherever Python runs: the docs' snippet exactly as printed, as a plain
script (no main guard), from standard input, from `python -c` and in an interactive interpreter, on the
real engine; a worker that fails before its engine runs is reported with its own error text."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")

from wadgym.envs import netgame  # noqa: E402
from wadgym.envs.netgame import NetGame, NetGameError, PlayerSettings  # noqa: E402

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
