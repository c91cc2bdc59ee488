"""`wadgym build`: write a scenario's WAD (and a preview PNG) from its name or a Python file.

  wadgym build rooms -o rooms.wad --preview rooms.png --seed 3 --set n_items=10 --set door=false
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import os
import sys
import typing

DEFAULT_SCENARIO = "items"
_BOOLEANS = {"true": True, "yes": True, "1": True, "on": True, "false": False, "no": False, "0": False, "off": False}


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
    from wadgym.envs.scenarios import build_scenario_levels, compile_acs, load_scenario, make_params
    from wadgym.wads import build_wad, write_wad
    from wadgym.wads.preview import write_preview

    try:
        module = load_scenario(args.scenario)
        params = make_params(module, args.preset)
        if args.overrides:
            params = dataclasses.replace(params, **parse_overrides(module.Params, args.overrides))
        levels = build_scenario_levels(module, params, args.seed)
        data = build_wad(levels, compiler=compile_acs)
    except (ValueError, TypeError) as error:
        print(f"wadgym build: error: {error}", file=sys.stderr)
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
    """{"n_items": 10} from ["n_items=10"], each value converted to the field's type."""
    fields = {f.name: f for f in dataclasses.fields(params_class)}
    hints = typing.get_type_hints(params_class)
    result = {}
    for item in overrides:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep:
            raise ValueError(f"--set {item!r}: expected KEY=VALUE")
        if key not in fields:
            raise ValueError(f"unknown parameter {key!r}; valid parameters: {', '.join(fields)}")
        result[key] = _convert(key, text.strip(), hints.get(key, str))
    return result


def _convert(key: str, text: str, kind):
    try:
        if kind is bool:
            if text.lower() not in _BOOLEANS:
                raise ValueError
            return _BOOLEANS[text.lower()]
        if kind in (int, float, str):
            return kind(text)
        if typing.get_origin(kind) is tuple:
            item_type = (typing.get_args(kind) or (str,))[0]
            return tuple(item_type(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise ValueError(f"--set {key}={text}: not a valid {getattr(kind, '__name__', kind)}") from None
    return text
