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
