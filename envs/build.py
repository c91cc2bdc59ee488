"""`wadgym build`: write a scenario's WAD (and a preview PNG) from its name or a Python file.

  wadgym build rooms -o rooms.wad --preview rooms.png --seed 3 --set n_items=10 --set door=false
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import os
import sys
import traceback
import types
import typing

DEFAULT_SCENARIO = "items"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("scenario", nargs="?", default=DEFAULT_SCENARIO,
                        help=f"a registered scenario name or a Python file defining build/Params "
                             f"(default: {DEFAULT_SCENARIO})")
    parser.add_argument("-o", "--output", help="the WAD to write (default: SCENARIO.wad)")
    parser.add_argument("--preview", metavar="PNG", help="also write a top-down preview of the first map")
    parser.add_argument("--seed", type=int, default=0, help="random seed for the generator (default: 0)")
    parser.add_argument("--preset", help="a named parameter preset of the scenario (default: 'default')")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override one parameter; repeatable")


def run(args: argparse.Namespace) -> int:
    from wadgym.acs import AcsError
    from wadgym.envs.scenarios import compile_acs, make_params
    from wadgym.wads import build_wad
    from wadgym.wads.preview import preview_png
    from wadgym.files import write_all_atomic

    output = args.output or f"{_stem(args.scenario)}.wad"
    try:
        _check_outputs(output, args.preview)
        module = _load(args.scenario)
        params = make_params(module, args.preset)
        if args.overrides:
            params = dataclasses.replace(params, **parse_overrides(module.Params, args.overrides))
        levels = [level.built() for level in _build_levels(module, args.scenario, params, args.seed)]  # built once
        data = build_wad(levels, compiler=compile_acs)
        preview = preview_png(levels[0]) if args.preview else None  # before anything is written
    except (ValueError, TypeError) as error:
        print(f"wadgym build: error: {error}", file=sys.stderr)
        return 2
    except AcsError as error:  # "file:line:col: error: ...", the source line and a caret
        print(f"wadgym build: {error}", file=sys.stderr)
        return 2
    try:
        write_all_atomic([(output, data)] + ([(args.preview, preview)] if args.preview else []))
    except OSError as error:  # both or neither
        print(f"wadgym build: error: cannot write {error.filename or output}: {error.strerror or error}; "
              f"nothing was written", file=sys.stderr)
        return 2
    print(f"wrote {output}: {len(data)} bytes, maps {', '.join(l.name for l in levels)}, "
          f"sha256 {hashlib.sha256(data).hexdigest()[:16]}")
    if args.preview:
        print(f"wrote {args.preview}: preview of {levels[0].name}")
    return 0


def _check_outputs(output: str, preview: str | None) -> None:
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


def _load(scenario: str):
    """load_scenario(scenario); a scenario file that fails or exits while loading is a ValueError."""
    from wadgym.envs.scenarios import load_scenario

    with _scenario_code(scenario, f"scenario {scenario!r} ", "while loading", "failed while loading:"):
        return load_scenario(scenario)


def _build_levels(module, scenario: str, params, seed: int) -> list:
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


def _stem(scenario: str) -> str:
    return os.path.splitext(os.path.basename(scenario))[0] or "scenario"


def parse_overrides(params_class, overrides: list[str]) -> dict:
    """{"n_items": 10} from ["n_items=10"]: each value read as wadgym.envs.kwargs reads it, then checked
    against (and converted to) the type of `params_class`'s field."""
    from wadgym.envs.kwargs import parse_value, split_assignment

    fields = [f.name for f in dataclasses.fields(params_class)]
    hints = typing.get_type_hints(params_class)
    result = {}
    for item in overrides:
        key, text = split_assignment(item, "--set")
        if key not in fields:
            raise ValueError(f"unknown parameter {key!r}; valid parameters: {', '.join(fields)}")
        result[key] = _convert(key, text, parse_value(text, f"--set {item}"), hints.get(key, typing.Any))
    return result


def _convert(key: str, text: str, value, kind):
    """`value` (parsed from `text`) as a `kind`, a field's type hint; a ValueError names the field and type."""
    args = typing.get_args(kind)
    if typing.get_origin(kind) in (typing.Union, types.UnionType) and type(None) in args:  # X | None
        if value is None:
            return None
        kind = next(a for a in args if a is not type(None))
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is str:
        return value if isinstance(value, str) else text  # `--set floor=123` is the name "123"
    if kind is bool and value in (0, 1):  # true/false; 1/0 as well
        return bool(value)
    if kind is int and number and float(value).is_integer():
        return int(value)
    if kind is float and number:
        return float(value)
    if typing.get_origin(kind) is tuple:
        if isinstance(value, (list, tuple)):
            item = typing.get_args(kind)[0] if typing.get_args(kind) else typing.Any
            return tuple(_convert(key, str(v), v, item) for v in value)
    elif not isinstance(kind, type) or (isinstance(value, kind) and kind not in (int, float, bool)):
        return value  # typing.Any, other generics, or already the field's class
    raise ValueError(f"--set {key}={text}: not a valid {getattr(kind, '__name__', kind)}")
