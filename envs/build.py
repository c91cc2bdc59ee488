"""What `wadgym build` does beyond building (wadgym.cli.build wires it): check where the outputs go, and
run a scenario file's own code so that whatever it does wrong is a ValueError saying what and where."""

from __future__ import annotations

import contextlib
import os
import traceback

DEFAULT_SCENARIO = "items"


def check_outputs(output: str, preview: str | None) -> None:
    """-o and --preview name files in folders that exist, and not the same file."""
    for option, path in (("-o", output), ("--preview", preview)):
        if path is None:
            continue
        if os.path.isdir(path):
            raise ValueError(f"{option} {path}: is a folder; give a file name, e.g. "
                             f"{os.path.join(path, 'out.png' if option == '--preview' else 'out.wad')}")
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise ValueError(f"{option} {path}: the folder {folder} "
                             f"{'is not a folder' if os.path.exists(folder) else 'does not exist'}")
    if preview is not None and os.path.abspath(preview) == os.path.abspath(output):
        raise ValueError(f"-o and --preview are the same file ({output}); give the preview another name")


def load(scenario: str):
    """load_scenario(scenario); a scenario file that fails or exits while loading is a ValueError."""
    from wadgym.envs.scenarios import load_scenario

    with _scenario_code(scenario, f"scenario {scenario!r} ", "while loading", "failed while loading:"):
        return load_scenario(scenario)


def build_levels(module, scenario: str, params, seed: int) -> list:
    """The scenario's Levels; its build() raising, exiting or returning something else is a ValueError."""
    from wadgym.envs.scenarios import build_scenario_levels
    from wadgym.wads import Level

    call = f"scenario {scenario!r}: build(rng, params) "
    with _scenario_code(scenario, call, "instead of returning its Levels", "raised"):
        levels = build_scenario_levels(module, params, seed)
    wrong = [level for level in levels if not isinstance(level, Level)]
    if wrong or not levels:
        got = type(wrong[0]).__name__ if wrong and wrong[0] is not None else "None" if wrong else "no levels"
        raise ValueError(f"{call}returned {got}; it must return a wadgym.wads.Level or a list of Levels")
    return levels


@contextlib.contextmanager
def _scenario_code(scenario: str, who: str, when_exiting: str, raised: str):
    """Around a scenario's own code: its ValueError and TypeError pass as they are (they name what is
    wrong); exit() and any other exception become a ValueError saying so, without a traceback."""
    try:
        yield
    except (ValueError, TypeError):
        raise
    except SystemExit as error:
        code = "" if error.code is None else repr(error.code)
        raise ValueError(f"{who}called exit({code}) {when_exiting}") from None
    except Exception as error:
        raise ValueError(f"{who}{raised} {_describe(error, scenario)}") from None


def _describe(error: BaseException, scenario: str) -> str:
    """"RuntimeError: message (my_map.py, line 12)": the innermost line of the scenario file, if any."""
    where = [frame for frame in traceback.extract_tb(error.__traceback__)
             if os.path.abspath(frame.filename) == os.path.abspath(scenario)]
    location = f" ({os.path.basename(where[-1].filename)}, line {where[-1].lineno})" if where else ""
    return f"{type(error).__name__}: {error}{location}"


def stem(scenario: str) -> str:
    return os.path.splitext(os.path.basename(scenario))[0] or "scenario"
