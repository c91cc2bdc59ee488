"""Bad input, table-driven: every row is a command line that must fail with exit status 2, a message
naming what was wrong (and what is valid), no traceback, and nothing written.

A row's argv and message may use {tmp} (the test's folder); a message may use {line[FILE]}, the line of
FILE's problem. Before a row runs, the folder holds scenario_files (a
good scenario file and variants with one problem each, an existing file `afile`) and an existing folder
`adir`; afterwards it must hold exactly the same. Add rows for any command here.
"""

from __future__ import annotations

import itertools
import textwrap
from dataclasses import dataclass

import pytest

from wadgym.agents.cli import main

RETURN = "    return Level(map=m)"


def scenario_files(good: str) -> dict[str, str]:
    """The files a row may use: `good` (the user_scenario fixture) and variants with one problem each."""
    return {
        "good.py": good,
        "raises.py": good.replace(RETURN, "    raise RuntimeError('the generator broke')"),
        "returns_none.py": good.replace(RETURN, "    return None"),
        "returns_a_name.py": good.replace(RETURN, "    return 'MAP01'"),
        "returns_nothing.py": good.replace(RETURN, "    return []"),
        "calls_sys_exit.py": good.replace(RETURN, "    import sys; sys.exit(3)"),
        "calls_exit.py": good.replace(RETURN, "    exit()"),
        "exits_when_loaded.py": good + "\nimport sys\nsys.exit('not a scenario')\n",
        "fails_when_loaded.py": good + "\nimport no_such_module_here\n",
        "syntax_error.py": good.replace("def build(rng, p):", "def build(rng, p)"),
        "afile": "not a folder\n",
    }


@dataclass(frozen=True)
class BadInput:
    id: str
    argv: tuple[str, ...]
    message: str


BAD_INPUTS = [
    # wadgym build: where the outputs go
    BadInput("build -o into a missing folder", ("build", "{tmp}/good.py", "-o", "{tmp}/nosuch/out.wad"),
             "-o {tmp}/nosuch/out.wad: the folder {tmp}/nosuch does not exist"),
    BadInput("build -o onto a folder", ("build", "{tmp}/good.py", "-o", "{tmp}/adir"),
             "-o {tmp}/adir: is a folder; give a file name, e.g. {tmp}/adir/out.wad"),
    BadInput("build -o under a file", ("build", "{tmp}/good.py", "-o", "{tmp}/afile/out.wad"),
             "-o {tmp}/afile/out.wad: the folder {tmp}/afile is not a folder"),
    BadInput("build --preview into a missing folder",
             ("build", "{tmp}/good.py", "-o", "{tmp}/out.wad", "--preview", "{tmp}/nosuch/map.png"),
             "--preview {tmp}/nosuch/map.png: the folder {tmp}/nosuch does not exist"),
    BadInput("build --preview onto a folder", ("build", "{tmp}/good.py", "-o", "{tmp}/out.wad", "--preview", "{tmp}/adir"),
             "--preview {tmp}/adir: is a folder; give a file name, e.g. {tmp}/adir/out.png"),
    BadInput("build -o and --preview the same file",
             ("build", "{tmp}/good.py", "-o", "{tmp}/out.wad", "--preview", "{tmp}/out.wad"),
             "-o and --preview are the same file ({tmp}/out.wad)"),
    # wadgym build: a scenario file that misbehaves
    BadInput("build: build() raises", ("build", "{tmp}/raises.py", "-o", "{tmp}/out.wad"),
             "scenario '{tmp}/raises.py': build(rng, params) raised RuntimeError: the generator broke "
             "(raises.py, line {line[raises.py]})"),
    BadInput("build: build() returns None", ("build", "{tmp}/returns_none.py", "-o", "{tmp}/out.wad"),
             "build(rng, params) returned None; it must return a wadgym.wads.Level or a list of Levels"),
    BadInput("build: build() returns a string", ("build", "{tmp}/returns_a_name.py", "-o", "{tmp}/out.wad"),
             "build(rng, params) returned str; it must return a wadgym.wads.Level or a list of Levels"),
    BadInput("build: build() returns no levels", ("build", "{tmp}/returns_nothing.py", "-o", "{tmp}/out.wad"),
             "build(rng, params) returned no levels; it must return a wadgym.wads.Level"),
    BadInput("build: build() calls sys.exit", ("build", "{tmp}/calls_sys_exit.py", "-o", "{tmp}/out.wad"),
             "scenario '{tmp}/calls_sys_exit.py': build(rng, params) called exit(3) instead of returning its Levels"),
    BadInput("build: build() calls exit()", ("build", "{tmp}/calls_exit.py", "-o", "{tmp}/out.wad"),
             "build(rng, params) called exit() instead of returning its Levels"),
    BadInput("build: the file exits when loaded", ("build", "{tmp}/exits_when_loaded.py", "-o", "{tmp}/out.wad"),
             "scenario '{tmp}/exits_when_loaded.py' called exit('not a scenario') while loading"),
    BadInput("build: the file fails when loaded", ("build", "{tmp}/fails_when_loaded.py", "-o", "{tmp}/out.wad"),
             "failed while loading: ModuleNotFoundError: No module named 'no_such_module_here' "
             "(fails_when_loaded.py, line {line[fails_when_loaded.py]})"),
    BadInput("build: the file does not parse", ("build", "{tmp}/syntax_error.py", "-o", "{tmp}/out.wad"),
             "failed while loading: SyntaxError: expected ':' (syntax_error.py, line {line[syntax_error.py]})"),
]


def problem_line(text: str, good: str) -> int:
    """The number of the first line of `text` that is not blank and not `good`'s."""
    pairs = itertools.zip_longest(text.splitlines(), good.splitlines(), fillvalue="")
    return next(n for n, (mine, theirs) in enumerate(pairs, 1) if mine != theirs and mine.strip())


def snapshot(folder) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize("case", BAD_INPUTS, ids=[case.id for case in BAD_INPUTS])
def test_bad_input_is_a_clear_message_with_exit_2_and_nothing_written(case, tmp_path, capsys, user_scenario):
    files = scenario_files(user_scenario)
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    (tmp_path / "adir").mkdir()
    before = snapshot(tmp_path)
    code = main([arg.format(tmp=tmp_path) for arg in case.argv])
    out, err = capsys.readouterr()
    assert code == 2, out + err
    line = {name: problem_line(text, user_scenario) for name, text in files.items() if name != "good.py"}
    assert case.message.format(tmp=tmp_path, line=line) in err
    assert "Traceback" not in out + err
    assert snapshot(tmp_path) == before


def test_the_good_scenario_builds(tmp_path, user_scenario):
    """The rows' scenario files differ from this one by their one problem."""
    (tmp_path / "good.py").write_text(textwrap.dedent(user_scenario))
    assert main(["build", str(tmp_path / "good.py"), "-o", str(tmp_path / "out.wad"),
                 "--preview", str(tmp_path / "out.png")]) == 0
    assert (tmp_path / "out.wad").stat().st_size > 0 and (tmp_path / "out.png").stat().st_size > 0
