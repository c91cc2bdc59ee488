"""Fixtures for the compiler's tests: scripts compiled by wadgym.acs and run in a real, headless ViZDoom.

A program writes its results into ACS ``global int N`` (N = 1..59), which ViZDoom reports as
``GameVariable.USERN``; by convention it sets ``global int 60`` (``done``) to 1 as its last act, so a test
can tell a script that stopped early from one that finished. ``declare_results`` numbers a program's result
names. Many programs run in one game: each is a map of one WAD, visited with ``set_doom_map`` +
``new_episode`` (which also clears the globals).
"""

from __future__ import annotations

import pytest
import vizdoom as vzd

from wadgym.acs import compile_source
from wadgym.envs.runtime.engine import start_game
from wadgym.wads import Level, MapBuilder, build_wad, write_wad

USER_VARIABLES = [getattr(vzd.GameVariable, f"USER{i}") for i in range(1, 61)]
DONE = 60  # the global a finished program sets to 1


def arena(name: str, behavior: bytes, things=()) -> Level:
    """A plain 512x512 room with the player in the middle facing east; ``things`` are (kind, x, y, tid)."""
    m = MapBuilder()
    m.add_room(0, 0, 512, 512)
    m.add_player_start(256, 256, angle=0)
    for kind, x, y, tid in things:
        m.add_thing(kind, x, y, tid=tid)
    return Level(map=m, name=name, behavior=behavior)


def declare_results(names) -> tuple[str, dict[str, int]]:
    """``global int N:name;`` numbering ``names`` 1, 2, ... and ``global int 60:done;``, to put ahead of a
    program that reports through globals; with name -> N to read each result back from a Run."""
    indices = {name: number for number, name in enumerate(names, start=1)}
    if len(indices) > DONE - 1:
        raise ValueError(f"at most {DONE - 1} results per program, got {len(indices)}")
    lines = [f"global int {number}:{name};" for name, number in indices.items()] + [f"global int {DONE}:done;"]
    return "\n".join(lines) + "\n", indices


def expression_program(checks: list[tuple[str, int]], prelude: str = "") -> str:
    """An OPEN script storing each ACS expression of ``checks`` in globals 1, 2, ... then setting DONE."""
    declarations, _ = declare_results(f"r{i}" for i in range(1, len(checks) + 1))
    lines = ['#include "zcommon.acs"', declarations, prelude, "script 1 OPEN", "{"]
    lines += [f"    r{i} = {expr};" for i, (expr, _) in enumerate(checks, start=1)]
    lines += ["    done = 1;", "}"]
    return "\n".join(lines) + "\n"


# Tests cannot import conftest under importlib mode, so they get these helpers as fixtures.
@pytest.fixture(scope="session", name="declare_results")
def declare_results_fixture():
    return declare_results


@pytest.fixture(scope="session")
def expression_program_source():
    return expression_program


class Run:
    """The globals one program left, read at each requested tic."""

    def __init__(self, snapshots: dict[int, list[int]]):
        self.snapshots = snapshots
        self.final = snapshots[max(snapshots)]

    def __getitem__(self, index: int) -> int:
        return self.final[index - 1]

    def at(self, tic: int, index: int) -> int:
        return self.snapshots[tic][index - 1]

    def named(self, indices: dict[str, int], names=None) -> dict[str, int]:
        """{name: final value} for ``names`` (default: all of ``indices``, as declare_results numbered them)."""
        return {name: self[indices[name]] for name in (indices if names is None else names)}


@pytest.fixture(scope="session")
def run_acs(tmp_path_factory):
    """run_acs({map_name: source or (source, things)}, tics=35, probes=()) -> {map_name: Run}.

    Compiles every program (an AcsError fails the test that asked), packs one WAD, starts one hidden
    game and plays each map for ``tics`` tics, reading the 60 USER variables at each tic in ``probes``
    and at the end.
    """
    counter = iter(range(1_000_000))

    def run(programs: dict, tics: int = 35, probes=()) -> dict[str, Run]:
        levels = []
        names = {}
        for i, (key, program) in enumerate(programs.items(), start=1):
            source, things = program if isinstance(program, tuple) else (program, ())
            map_name = f"MAP{i:02d}"
            names[key] = map_name
            levels.append(arena(map_name, compile_source(source, f"{key}.acs"), things))
        path = tmp_path_factory.mktemp("acs") / f"programs{next(counter)}.wad"
        write_wad(path, build_wad(levels))
        game = _start(path)
        try:
            return {key: _play(game, map_name, tics, probes) for key, map_name in names.items()}
        finally:
            game.close()

    return run


def _start(path) -> vzd.DoomGame:
    return start_game(path, variables=USER_VARIABLES, seed=7)


def _play(game: vzd.DoomGame, map_name: str, tics: int, probes) -> Run:
    game.set_doom_map(map_name)
    game.new_episode()
    snapshots = {}
    tic = 0
    for stop in sorted(set(probes) | {tics}):
        if stop > tic:
            game.advance_action(stop - tic)
            tic = stop
        snapshots[stop] = [int(round(v)) for v in game.get_state().game_variables]
    return Run(snapshots)
