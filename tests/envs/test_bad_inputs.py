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

from wadgym.cli import main

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
        "bad.yml": "DoomItems-v1:\n  n_steps: [64\n",
        "brokenrun/config.yml": "env: {unclosed\n",
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
    BadInput("build --preview onto a folder",
             ("build", "{tmp}/good.py", "-o", "{tmp}/out.wad", "--preview", "{tmp}/adir"),
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


TRAIN = ("train", "--no-progress", "--eval-episodes", "0")
BAD_INPUTS += [
    # wadgym train: everything checkable is checked before any engine starts or any run folder exists
    BadInput("train --hp batch_size=0", (*TRAIN, "--hp", "batch_size=0"),
             "batch_size=0 is out of range; valid: 2 or more"),
    BadInput("train --hp n_steps=abc", (*TRAIN, "--hp", "n_steps=abc"), "n_steps='abc' is not a number"),
    BadInput("train --hp n_epochs=0", (*TRAIN, "--hp", "n_epochs=0"), "n_epochs=0 is out of range; valid: 1 or more"),
    BadInput("train --hp gamma=1.5", (*TRAIN, "--hp", "gamma=1.5"), "gamma=1.5 is out of range; valid: 0.0 to 1.0"),
    BadInput("train --hp frame_stack=-1", (*TRAIN, "--hp", "frame_stack=-1"),
             "frame_stack=-1 is out of range; valid: 0 to 64"),
    BadInput("train --hp torch_threads=0", (*TRAIN, "--hp", "torch_threads=0"), "torch_threads=0 is out of range"),
    BadInput("train --hp normalize=maybe", (*TRAIN, "--hp", "normalize=maybe"), "normalize='maybe' is not valid"),
    BadInput("train --hp learning_rate=abc", (*TRAIN, "--hp", "learning_rate=abc"),
             "learning_rate='abc' is not valid: a positive number or 'lin_<start>'"),
    BadInput("train --hp learning_rate=-1", (*TRAIN, "--hp", "learning_rate=-1"), "learning_rate=-1 is not valid"),
    BadInput("train --hp policy_kwargs='dict('", (*TRAIN, "--hp", "policy_kwargs='dict('"),
             "policy_kwargs 'dict(' is not a valid dict expression"),
    BadInput("train --hp policy_kwargs runs code", (*TRAIN, "--hp", "policy_kwargs='__import__(\"os\").getcwd()'"),
             "is not allowed (only literals, dict(...) and known names)"),
    BadInput("train --hp policy=NoSuchPolicy", (*TRAIN, "--hp", "policy=NoSuchPolicy"),
             "policy='NoSuchPolicy' is not valid; choose one of CnnPolicy, MlpPolicy, MultiInputPolicy"),
    BadInput("train --timesteps -5", (*TRAIN, "--timesteps", "-5"), "n_timesteps=-5 is out of range; valid: 1 or more"),
    BadInput("train --timesteps nan", (*TRAIN, "--timesteps", "nan"), "n_timesteps=nan must be a whole number"),
    BadInput("train --conf-file unparsable YAML", (*TRAIN, "--conf-file", "{tmp}/bad.yml"),
             "{tmp}/bad.yml: line 3 is not valid YAML"),
    BadInput("train --hyperparams FILE (the old spelling)", (*TRAIN, "--hyperparams", "{tmp}/bad.yml"),
             "--hyperparams {tmp}/bad.yml: -params/--hyperparams now takes rl-zoo's KEY:VALUE overrides "
             "(e.g. -params n_epochs:4); name a hyperparameter file with -conf/--conf-file {tmp}/bad.yml"),
    BadInput("train -params without a separator", (*TRAIN, "-params", "n_epochs"),
             "-params 'n_epochs': expected KEY:VALUE, e.g. n_items:5 or n_items=5"),
    BadInput("train -params n_epochs:0", (*TRAIN, "-params", "n_epochs:0"),
             "n_epochs=0 is out of range; valid: 1 or more"),
    BadInput("train -conf a missing file", (*TRAIN, "-conf", "{tmp}/nosuch.yml"),
             "hyperparameter file '{tmp}/nosuch.yml' does not exist"),
    BadInput("train --run-dir onto a file", (*TRAIN, "--run-dir", "{tmp}/afile"),
             "--run-dir {tmp}/afile is a file, not a folder"),
    BadInput("train --resume a run whose config.yml is broken", (*TRAIN, "--resume", "{tmp}/brokenrun"),
             "{tmp}/brokenrun/config.yml: line 2 is not valid YAML"),
    # wadgym rollout
    BadInput("rollout --video into a missing folder", ("rollout", "DoomItems-v1", "--video", "{tmp}/nosuch/out.mp4"),
             "--video {tmp}/nosuch/out.mp4: the folder '{tmp}/nosuch' does not exist"),
    BadInput("rollout --video onto a folder", ("rollout", "DoomItems-v1", "--video", "{tmp}/adir"),
             "--video {tmp}/adir: is a folder, not a file"),
    BadInput("rollout an unimportable module", ("rollout", "no_such_module_here:Thing-v0"),
             "cannot import the env's module: No module named 'no_such_module_here'"),
    BadInput("rollout -k cache_dir onto a file", ("rollout", "DoomItems-v1", "-k", "cache_dir={tmp}/afile"),
             "cache_dir='{tmp}/afile' is a file, not a folder"),
    # gym.make arguments, through rollout
    BadInput("rollout -k wall=123", ("rollout", "DoomItems-v1", "-k", "wall=123"), "wall=123 is not a wall texture"),
    BadInput("rollout -k game_variables=null", ("rollout", "DoomItems-v1", "-k", "game_variables=null"),
             "game_variables=None must be a sequence of GameVariable names"),
    BadInput("rollout -k action_set=[...]", ("rollout", "DoomItems-v1", "-k", "action_set=[MOVE_FORWARD]"),
             "action_set=['MOVE_FORWARD'] is not valid; choose one of basic, extended"),
    BadInput("rollout -k resolution=(60.5, 80)", ("rollout", "DoomItems-v1", "-k", "resolution=(60.5, 80)"),
             "resolution=(60.5, 80) is not reachable"),
    BadInput("rollout -k too many pillars",
             ("rollout", "DoomItems-v1", "-k", "n_obstacles=64", "-k", "obstacle_size=256"),
             "n_obstacles=64 pillars of obstacle_size=256 do not fit"),
    # wadgym runs
    BadInput("runs on a file", ("runs", "{tmp}/afile"), "'{tmp}/afile' is not a folder"),
]


def problem_line(text: str, good: str) -> int:
    """The number of the first line of `text` that is not blank and not `good`'s."""
    pairs = itertools.zip_longest(text.splitlines(), good.splitlines(), fillvalue="")
    return next(n for n, (mine, theirs) in enumerate(pairs, 1) if mine != theirs and mine.strip())


def snapshot(folder) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize("case", BAD_INPUTS, ids=[case.id for case in BAD_INPUTS])
def test_bad_input_is_a_clear_message_with_exit_2_and_nothing_written(case, tmp_path, capsys, user_scenario,
                                                                      monkeypatch):
    monkeypatch.chdir(tmp_path)  # a run folder made by default (runs/...) would show in the snapshot
    files = scenario_files(user_scenario)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    (tmp_path / "adir").mkdir()
    before = snapshot(tmp_path)
    code = main([arg.format(tmp=tmp_path) for arg in case.argv])
    out, err = capsys.readouterr()
    assert code == 2, out + err
    line = {name: problem_line(text, user_scenario) for name, text in files.items()
            if name.endswith(".py") and name != "good.py"}
    assert case.message.format(tmp=tmp_path, line=line) in err
    assert "Traceback" not in out + err
    assert snapshot(tmp_path) == before


def test_runs_names_a_broken_run_and_lists_the_others(tmp_path, capsys):
    for name, config in (("broken", "env: {unclosed\n"), ("good", "env: DoomItems-v1\ndevice: cpu\n"),
                         ("foreign", "- a list\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "config.yml").write_text(config)
    (tmp_path / "good" / "meta.json").write_text('{"timesteps": 64, "status": "finished", "device": "cpu"}')
    assert main(["runs", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert "skipped broken:" in err and "not valid YAML" in err and "skipped foreign:" in err
    assert any(line.startswith("good ") and "DoomItems-v1" in line for line in out.splitlines())


def test_the_good_scenario_builds(tmp_path, user_scenario):
    """The rows' scenario files differ from this one by their one problem."""
    (tmp_path / "good.py").write_text(textwrap.dedent(user_scenario))
    assert main(["build", str(tmp_path / "good.py"), "-o", str(tmp_path / "out.wad"),
                 "--preview", str(tmp_path / "out.png")]) == 0
    assert (tmp_path / "out.wad").stat().st_size > 0 and (tmp_path / "out.png").stat().st_size > 0
