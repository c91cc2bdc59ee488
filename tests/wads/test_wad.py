"""The PWAD: lump layout, several maps, byte-identical rebuilds, omgifol read-back, compiler plumbing."""

from __future__ import annotations

import ast
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import omg
import pytest
from omg.udmf import UMapEditor

from wadgym.wads import EMPTY_BEHAVIOR, Level, MapBuilder, build_wad, iwad, read_lumps, write_wad

WADS_DIR = Path(__file__).resolve().parents[2] / "wads"


def small_level(name="MAP01", scripts=None, behavior=None, title=""):
    m = MapBuilder()
    a = m.add_room(0, 0, 256, 256)
    b = m.add_room(256, 0, 512, 256, floor_height=16)
    m.connect(a, b, width=64)
    m.add_player_start(64, 128, angle=0)
    m.add_map_spot(300, 128, tid=7)
    return Level(map=m, name=name, scripts=scripts, behavior=behavior, title=title)


def test_several_maps_in_one_wad_in_order():
    compiled = []

    def compiler(text, filename):
        compiled.append((text, filename))
        return b"ACS\0" + bytes(28)

    data = build_wad([small_level("MAP01", title="First"),
                      small_level("MAP02", scripts="script 1 OPEN { }")], compiler=compiler)
    names = [name for name, _ in read_lumps(data)]
    assert names == ["MAP01", "TEXTMAP", "BEHAVIOR", "ENDMAP",
                     "MAP02", "TEXTMAP", "BEHAVIOR", "SCRIPTS", "ENDMAP", "MAPINFO"]
    lumps = read_lumps(data)
    assert lumps[2][1] == EMPTY_BEHAVIOR                        # no scripts: the empty compiled lump
    assert compiled == [("script 1 OPEN { }", "MAP02.acs")]
    assert lumps[6][1] == b"ACS\0" + bytes(28) and lumps[7][1] == b"script 1 OPEN { }"
    mapinfo = lumps[-1][1].decode()
    assert 'map MAP01 "First"' in mapinfo and 'next = "MAP02"' in mapinfo and "nointermission" in mapinfo
    assert 'sky1 = "SKY1"' in mapinfo


def test_scripts_without_a_compiler_is_an_error():
    with pytest.raises(ValueError, match="MAP01: the level has ACS scripts but build_wad got no compiler"):
        build_wad([small_level(scripts="script 1 OPEN { }")])


def test_given_behavior_is_used_as_is():
    behavior = b"ACS\0" + bytes(40)
    data = build_wad([small_level(scripts="// source", behavior=behavior)])
    assert dict(read_lumps(data))["BEHAVIOR"] == behavior


def test_duplicate_level_names():
    with pytest.raises(ValueError, match="level name 'MAP01' is used twice"):
        build_wad([small_level(), small_level()])


def test_second_map_loads_in_the_engine(start_game, tmp_path):
    import vizdoom as vzd

    path = tmp_path / "two.wad"
    write_wad(path, build_wad([small_level("MAP01"), small_level("MAP02")]))
    game = start_game(path, map="MAP02", variables=[vzd.GameVariable.POSITION_X])
    assert game.get_state().game_variables[0] == 64


def test_two_builds_give_identical_bytes_even_across_processes(two_rooms):
    assert build_wad([two_rooms()]) == build_wad([two_rooms()])
    script = ("import hashlib, sys; sys.path.insert(0, sys.argv[1]); from conftest import two_rooms; "
              "from wadgym.wads import build_wad; print(hashlib.sha256(build_wad([two_rooms()])).hexdigest())")
    digests = {
        subprocess.run([sys.executable, "-c", script, str(Path(__file__).parent)], capture_output=True, text=True,
                       check=True, env={**os.environ, "PYTHONHASHSEED": seed}).stdout.strip()
        for seed in ("1", "2")
    }
    assert digests == {hashlib.sha256(build_wad([two_rooms()])).hexdigest()}


def test_omgifol_reads_back_the_same_geometry(tmp_path, two_rooms):
    level = two_rooms()
    data = level.map_data()
    path = tmp_path / "back.wad"
    write_wad(path, build_wad([level]))
    editor = UMapEditor(omg.WAD(str(path)).udmfmaps["MAP01"])
    assert editor.namespace == "zdoom"
    assert [(v.x, v.y) for v in editor.vertexes] == data.vertices
    side_sector = [s.sector for s in editor.sidedefs]
    read = [(l.v1, l.v2, side_sector[l.sidefront], side_sector[l.sideback] if l.sideback != -1 else None)
            for l in editor.linedefs]
    built = [(l.v1, l.v2, l.front.sector, l.back.sector if l.back else None) for l in data.lines]
    assert read == built
    assert [(s.heightfloor, s.heightceiling, s.texturefloor, s.lightlevel) for s in editor.sectors] == \
        [(s.floor_height, s.ceiling_height, s.floor, s.light) for s in data.sectors]
    assert [(t.x, t.y, t.type, t.angle) for t in editor.things] == [(64, 256, 1, 0), (112, 256, 2012, 0),
                                                                   (768, 256, 20001, 0)]


def test_decorate_lump_for_custom_actors(two_rooms):
    decorate = dict(read_lumps(build_wad([two_rooms()])))["DECORATE"].decode()
    assert decorate.splitlines()[:4] == ["ACTOR WadgymTestItem : Medikit 20001", "{", "\t+COUNTITEM",
                                         "\t+INVENTORY.ALWAYSPICKUP"]
    assert '\tInventory.PickupMessage "Got it"' in decorate and "\tScale 1.5" in decorate


def test_iwad_names_come_from_the_wheel():
    assert {"STARTAN2", "BIGDOOR2", "DOORTRAK"} <= iwad.textures()
    assert {"FLOOR0_1", "F_SKY1"} <= iwad.flats()
    ednums = iwad.stock_ednums()
    assert ednums["Medikit"] == 2012 and ednums["DoomImp"] == 3001 and ednums["Player1Start"] == 1
    assert iwad.actor_kind("Medikit") == "item" and iwad.actor_kind("DoomImp") == "monster"
    assert iwad.actor_kind("TechLamp") == "decoration"


def test_wads_imports_no_engine_gym_torch_or_sibling_package():
    forbidden = ("vizdoom", "gymnasium", "torch", "stable_baselines3", "wadgym.acs", "wadgym.envs", "wadgym.agents")
    for path in sorted(WADS_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            for name in names:
                assert not name.startswith(forbidden), f"{path.name} imports {name}"
