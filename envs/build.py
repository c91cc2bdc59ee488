"""`wadgym build`: write a scenario's WAD (and a preview PNG) from its name or a Python file.

  wadgym build rooms -o rooms.wad --preview rooms.png --seed 3 --set n_items=10 --set door=false
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import os
import sys
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
    from wadgym.envs.scenarios import build_scenario_levels, compile_acs, load_scenario, make_params
    from wadgym.wads import build_wad, write_wad
    from wadgym.wads.preview import write_preview

    try:
        module = load_scenario(args.scenario)
        params = make_params(module, args.preset)
        if args.overrides:
            params = dataclasses.replace(params, **parse_overrides(module.Params, args.overrides))
        levels = [level.built() for level in build_scenario_levels(module, params, args.seed)]  # built once: WAD and preview
        data = build_wad(levels, compiler=compile_acs)
    except (ValueError, TypeError) as error:
        print(f"wadgym build: error: {error}", file=sys.stderr)
        return 2
    except AcsError as error:  # "file:line:col: error: ...", the source line and a caret
        print(f"wadgym build: {error}", file=sys.stderr)
        return 2
    output = args.output or f"{_stem(args.scenario)}.wad"
    write_wad(output, data)
    print(f"wrote {output}: {len(data)} bytes, maps {', '.join(l.name for l in levels)}, "
          f"sha256 {hashlib.sha256(data).hexdigest()[:16]}")
    if args.preview:
        write_preview(args.preview, levels[0])
        print(f"wrote {args.preview}: preview of {levels[0].name}")
    return 0


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
