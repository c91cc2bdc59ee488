"""`wadgym build`: write a scenario's WAD (and a preview PNG) from its name or a Python file.

  wadgym build rooms -o rooms.wad --preview rooms.png --seed 3 --set n_items=10 --set door=false
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import sys

from wadgym.envs import build


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("scenario", nargs="?", default=build.DEFAULT_SCENARIO,
                        help=f"a registered scenario name or a Python file defining build/Params "
                             f"(default: {build.DEFAULT_SCENARIO})")
    parser.add_argument("-o", "--output", help="the WAD to write (default: SCENARIO.wad)")
    parser.add_argument("--preview", metavar="PNG", help="also write a top-down preview of the first map")
    parser.add_argument("--seed", type=int, default=0, help="random seed for the generator (default: 0)")
    parser.add_argument("--preset", help="a named parameter preset of the scenario (default: 'default')")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override one parameter; repeatable")


def run(args: argparse.Namespace) -> int:
    from wadgym.acs import AcsError
    from wadgym.envs.kwargs import parse_assignments
    from wadgym.envs.scenarios import compile_acs, make_params
    from wadgym.files import write_all_atomic
    from wadgym.wads import build_wad
    from wadgym.wads.preview import preview_png

    output = args.output or f"{build.stem(args.scenario)}.wad"
    try:
        build.check_outputs(output, args.preview)
        module = build.load(args.scenario)
        params = make_params(module, args.preset)
        if args.overrides:
            params = dataclasses.replace(params, **parse_assignments(args.overrides, "--set", fields=module.Params))
        levels = [level.built() for level in build.build_levels(module, args.scenario, params, args.seed)]  # built once
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


