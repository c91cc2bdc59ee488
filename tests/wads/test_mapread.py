"""wadgym.wads.mapread: anyone's WAD read without an engine (Hexen-format and UDMF maps here; the Doom format
and the engine's reading of all three are in tests/envs/test_hand_made_maps.py)."""

from __future__ import annotations

import struct

import pytest

from wadgym.wads.mapread import read_maps
from wadgym.wads.wad import pack_wad


def hexen_map(special: int, thing_flags: int) -> list[tuple[str, bytes]]:
    """A Hexen-format map's lumps: a player start, a Medikit, one line with `special`, a BEHAVIOR lump."""
    things = b"".join(struct.pack("<hhhhhhhB5B", 0, x, 0, 0, 0, ednum, thing_flags, 0, 0, 0, 0, 0, 0)
                      for ednum, x in ((1, 0), (2012, 64)))
    line = struct.pack("<HHHB5BHH", 0, 1, 0, special, 0, 0, 0, 0, 0, 0, 0xFFFF)
    return [("MAP07", b""), ("THINGS", things), ("LINEDEFS", line), ("SIDEDEFS", b""), ("VERTEXES", b""),
            ("SECTORS", b""), ("BEHAVIOR", b"ACS\0")]


def udmf_map(namespace: str, special: int) -> list[tuple[str, bytes]]:
    text = (f'namespace = "{namespace}"; // a comment\n'
            'thing { x = 0.0; y = 0.0; type = 1; single = true; skill3 = true; }\n'
            'thing /* no single */ { x = 8; y = 8; type = 3004; skill3 = true; }\n'
            f'linedef {{ v1 = 0; v2 = 1; sidefront = 0; special = {special}; }}\n')
    return [("E1M1", b""), ("TEXTMAP", text.encode()), ("ENDMAP", b"")]


def test_hexen_format(tmp_path):
    path = tmp_path / "hexen.wad"
    path.write_bytes(pack_wad(hexen_map(243, 0x100 | 0x2)))  # single player, medium skill (3)
    summary = read_maps(path)["MAP07"]
    assert (summary.format, summary.player_starts, summary.exits, summary.has_scripts) == ("hexen", 1, 1, True)
    assert summary.classes(skill=3) == {"Medikit": 1} and summary.classes(skill=1) == {}


@pytest.mark.parametrize(("namespace", "special", "exits"), [("zdoom", 243, 1), ("zdoom", 52, 0), ("doom", 52, 1)])
def test_udmf_numbers_specials_by_namespace(tmp_path, namespace, special, exits):
    path = tmp_path / "udmf.wad"
    path.write_bytes(pack_wad(udmf_map(namespace, special)))
    summary = read_maps(path)["E1M1"]
    assert (summary.format, summary.exits, summary.has_scripts) == ("udmf", exits, False)
    assert summary.classes() == {}  # the ZombieMan is not in single player
    assert summary.has_flag("ZombieMan", "COUNTKILL") and not summary.has_flag("ZombieMan", "COUNTITEM")


def test_refuses_what_is_not_a_wad(tmp_path):
    (tmp_path / "a.wad").write_bytes(b"PK\3\4 a zip")
    with pytest.raises(ValueError, match="is not a WAD"):
        read_maps(tmp_path / "a.wad")
    with pytest.raises(ValueError, match="no such file"):
        read_maps(tmp_path / "b.wad")


def test_deathmatch_starts_count_in_any_mode_and_are_no_class(tmp_path):
    # The engine collects DeathmatchStarts (editor number 11) before it reads a thing's flags: one without
    # `single` or any skill counts; a deathmatch spawns its players there, so they are not things met in play.
    text = ('namespace = "zdoom";\n'
            'thing { x = 0; y = 0; type = 11; }\nthing { x = 64; y = 0; type = 11; dm = true; skill3 = true; }\n'
            'thing { x = 128; y = 0; type = 11; single = true; skill3 = true; }\n'
            'thing { x = 8; y = 8; type = 2012; single = true; skill3 = true; }\n')
    path = tmp_path / "arena.wad"
    path.write_bytes(pack_wad([("MAP01", b""), ("TEXTMAP", text.encode()), ("ENDMAP", b"")]))
    summary = read_maps(path)["MAP01"]
    assert (summary.deathmatch_starts, summary.player_starts) == (3, 0)
    assert summary.classes() == {"Medikit": 1}


SQUARE = ((0, 0), (64, 0), (64, 64))
WALLS = ((0.0, 0.0, 64.0, 0.0, True), (64.0, 0.0, 64.0, 64.0, False))   # one wall, one line with a sector behind


def lines_in(fmt: str) -> list[tuple[str, bytes]]:
    """A map of each format with SQUARE's vertices and WALLS' two lines (and one line to a vertex it lacks)."""
    if fmt == "udmf":
        text = "namespace = \"zdoom\";\n" + "".join(f"vertex {{ x = {x}.0; y = {y}.0; }}\n" for x, y in SQUARE)
        text += ("linedef { v1 = 0; v2 = 1; sidefront = 0; }\n"
                 "linedef { v1 = 1; v2 = 2; sidefront = 1; sideback = 2; }\n"
                 "linedef { v1 = 2; v2 = 9; sidefront = 3; }\n")
        return [("MAP01", b""), ("TEXTMAP", text.encode()), ("ENDMAP", b"")]
    vertices = b"".join(struct.pack("<hh", x, y) for x, y in SQUARE)
    if fmt == "hexen":  # v1 v2 flags special arg0..4 side1 side2
        lines = b"".join(struct.pack("<HHHB5BHH", a, b, 0, 0, 0, 0, 0, 0, 0, 0, back)
                         for a, b, back in ((0, 1, 0xFFFF), (1, 2, 1), (2, 9, 0xFFFF)))
        extra = [("BEHAVIOR", b"ACS\0")]
    else:  # v1 v2 flags special tag side1 side2
        lines = b"".join(struct.pack("<HHHHHHH", a, b, 0, 0, 0, 0, back)
                         for a, b, back in ((0, 1, 0xFFFF), (1, 2, 1), (2, 9, 0xFFFF)))
        extra = []
    return [("MAP01", b""), ("THINGS", b""), ("LINEDEFS", lines), ("SIDEDEFS", b""), ("VERTEXES", vertices),
            ("SECTORS", b""), *extra]


@pytest.mark.parametrize("fmt", ["doom", "hexen", "udmf"])
def test_walls_are_the_lines_ends_and_sides_in_every_format(tmp_path, fmt):
    path = tmp_path / f"{fmt}.wad"
    path.write_bytes(pack_wad(lines_in(fmt)))
    summary = read_maps(path)["MAP01"]
    assert summary.format == fmt and summary.walls == WALLS   # the line to a missing vertex is left out


def test_walls_of_a_built_level_enclose_its_things(tmp_path):
    """A level wadgym built (DoomExit-v0's first), read back: its walls bound every thing it placed."""
    import numpy as np

    from wadgym.envs.families.exit import PRESETS, build
    from wadgym.envs.scenarios import compile_acs
    from wadgym.wads import build_wad

    path = tmp_path / "exit.wad"
    path.write_bytes(build_wad([build(np.random.default_rng(0), PRESETS["default"])], compiler=compile_acs))
    (summary,) = read_maps(path).values()
    ends = np.array([w[:4] for w in summary.walls])
    assert summary.things and any(w[4] for w in summary.walls) and not all(w[4] for w in summary.walls)
    for thing in summary.things:
        assert ends[:, [0, 2]].min() < thing.x < ends[:, [0, 2]].max()
        assert ends[:, [1, 3]].min() < thing.y < ends[:, [1, 3]].max()
