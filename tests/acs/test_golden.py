"""The bar: every ACS source shipped in vizdoom's scenario WADs compiles to the BEHAVIOR lump shipped beside it.

Facts the cases rely on:
- deathmatch.wad's SCRIPTS lump is stale (it declares only ``reward`` while its BEHAVIOR holds functions,
  scripts and arrays), so it is the one map skipped.
- defend_the_center.wad and health_gathering.wad hold two BEHAVIOR lumps in MAP01 (an older compile, then
  ZNODES, then the current one). For a UDMF map the engine walks the lumps up to ENDMAP and each BEHAVIOR
  it meets replaces the previous one (p_setup.cpp, P_OpenMapData), so it runs the last; the source
  matches that last lump, which is the one compared.
"""

from __future__ import annotations

import glob
import os

import pytest
import vizdoom

from wadgym.acs import compile_source
from wadgym.files import read_wad

STALE_SOURCE = {("deathmatch.wad", "MAP01")}
_MAP_FIRST_LUMPS = {"TEXTMAP", "THINGS"}


def map_sources(path: str) -> list[tuple[str, bytes, list[bytes]]]:
    """(map, SCRIPTS lump, [BEHAVIOR lumps in order]) for each map of a WAD that has SCRIPTS."""
    maps = []
    lumps = read_wad(path)
    current = None
    for i, (name, data) in enumerate(lumps):
        if name in _MAP_FIRST_LUMPS and i > 0:
            current = {"name": lumps[i - 1][0], "scripts": None, "behaviors": []}
            maps.append(current)
        elif current is not None and name == "SCRIPTS":
            current["scripts"] = data
        elif current is not None and name == "BEHAVIOR":
            current["behaviors"].append(data)
        elif name == "ENDMAP":
            current = None
    return [(m["name"], m["scripts"], m["behaviors"]) for m in maps if m["scripts"] is not None]


def _cases():
    cases = []
    for path in sorted(glob.glob(os.path.join(vizdoom.scenarios_path, "*.wad"))):
        for map_name, scripts, behaviors in map_sources(path):
            cases.append((os.path.basename(path), map_name, scripts, behaviors))
    return cases


CASES = _cases()
COMPARED = [c for c in CASES if (c[0], c[1]) not in STALE_SOURCE]


def test_the_wheel_ships_22_comparable_sources_and_one_stale():
    assert len(COMPARED) == 22
    assert {(c[0], c[1]) for c in CASES} - {(c[0], c[1]) for c in COMPARED} == STALE_SOURCE


@pytest.mark.parametrize("wad, map_name, scripts, behaviors", COMPARED, ids=[f"{c[0]}:{c[1]}" for c in COMPARED])
def test_compiles_to_the_shipped_bytes(wad, map_name, scripts, behaviors):
    assert behaviors, f"{wad} {map_name} has SCRIPTS but no BEHAVIOR"
    compiled = compile_source(scripts, f"{wad}:{map_name}")
    assert compiled == behaviors[-1], f"{wad} {map_name}: {len(compiled)} bytes, shipped {len(behaviors[-1])}"


def test_doubled_behavior_lumps_the_source_matches_the_one_the_engine_loads():
    doubled = {(c[0], c[1]): c for c in CASES if len(c[3]) > 1}
    assert set(doubled) == {("defend_the_center.wad", "MAP01"), ("health_gathering.wad", "MAP01")}
    for wad, map_name, scripts, behaviors in doubled.values():
        compiled = compile_source(scripts, f"{wad}:{map_name}")
        assert compiled != behaviors[0] and compiled == behaviors[-1]


def test_stale_deathmatch_source_compiles_but_differs():
    (case,) = [c for c in CASES if (c[0], c[1]) in STALE_SOURCE]
    compiled = compile_source(case[2], "deathmatch.wad:MAP01")
    assert compiled != case[3][-1]
    assert b"FUNC" in case[3][-1] and b"FUNC" not in compiled
