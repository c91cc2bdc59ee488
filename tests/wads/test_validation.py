"""Bad maps and actors raise a ValueError naming the element, before anything is written."""

from __future__ import annotations

import os

import pytest

from wadgym.files import write_all_atomic, write_atomic
from wadgym.wads import Actor, Level, MapBuilder, build_wad, write_wad


def room_with_start(**style) -> tuple[MapBuilder, object]:
    m = MapBuilder()
    room = m.add_room(0, 0, 256, 256, **style)
    m.add_player_start(128, 128)
    return m, room


def build(m: MapBuilder, actors=()) -> bytes:
    return build_wad([Level(map=m, actors=list(actors))])


def test_zero_length_edge_in_an_outline():
    with pytest.raises(ValueError, match=r"room 0 'box': zero-length edge 1 at \(64, 0\)"):
        MapBuilder().add_polygon_room([(0, 0), (64, 0), (64, 0), (64, 64)], name="box")


def test_zero_length_line():
    m, room = room_with_start()
    sector = m.add_sector()
    m.add_line((300, 300), (300, 300), front=sector)
    with pytest.raises(ValueError, match=r"zero-length line \d+ from \(300, 300\) to \(300, 300\)"):
        build(m)


@pytest.mark.parametrize("add, message", [
    (lambda m, room: m.add_room(0, 300, 64, 364, ceiling_height=-8),
     r"room 1: ceiling_height -8 is below floor_height 0"),
    (lambda m, room: m.add_area(room, [(16, 16), (64, 16), (64, 64)], floor_height=160),
     r"area 0 of room 0: ceiling_height 128 is below floor_height 160"),
    (lambda m, room: m.add_area(room, [(16, 16), (64, 16), (64, 64)], ceiling_height=-16),
     r"area 0 of room 0: ceiling_height -16 is below floor_height 0"),
])
def test_ceiling_below_floor(add, message):
    m, room = room_with_start()
    with pytest.raises(ValueError, match=message):
        add(m, room)


def test_outline_that_crosses_itself():
    with pytest.raises(ValueError, match=r"room 0: outline edges 0 and 2 cross at \(32, 32\)"):
        MapBuilder().add_polygon_room([(0, 0), (64, 64), (64, 0), (0, 64)])


def test_crossing_lines():
    m, _ = room_with_start()
    sector = m.add_sector()
    m.add_line((128, -64), (128, 64), front=sector)   # cuts through the room's south wall
    with pytest.raises(ValueError, match=r"line \d+ .* crosses line \d+ .*hand-made line"):
        build(m)


def test_overlapping_lines():
    m, _ = room_with_start()
    sector = m.add_sector()
    m.add_line((0, 0), (128, 0), front=sector)       # on top of the room's south wall
    with pytest.raises(ValueError, match=r"overlaps"):
        build(m)


def test_unclosed_sector():
    m, _ = room_with_start()
    sector = m.add_sector(name="triangle")
    m.add_line((400, 0), (500, 0), front=sector)
    m.add_line((500, 0), (450, 100), front=sector)    # the third side is missing
    with pytest.raises(ValueError, match=r"sector 1 \(triangle\) is not closed: its outline breaks at vertex"):
        build(m)


def test_thing_outside_every_sector():
    m, _ = room_with_start()
    m.add_thing("Medikit", 300, 128)
    with pytest.raises(ValueError, match=r"thing 1 \('Medikit' at \(300, 128\)\) is outside every sector"):
        build(m)


def test_thing_inside_a_pillar_is_outside_every_sector():
    m, room = room_with_start()
    m.add_pillar(room, 16, 16, 64, 64)
    m.add_thing("Medikit", 32, 32)
    with pytest.raises(ValueError, match=r"outside every sector"):
        build(m)


def test_no_player_start():
    m = MapBuilder()
    m.add_room(0, 0, 256, 256)
    with pytest.raises(ValueError, match=r"MAP01: no player start"):
        build(m)


def test_unknown_wall_texture_suggests_close_names():
    m, _ = room_with_start(wall="STARTAN9", name="hall")
    with pytest.raises(ValueError, match=r"wall of room 0 'hall'.*unknown wall texture 'STARTAN9' "
                                         r"\(did you mean 'STARTAN\d'"):
        build(m)


def test_unknown_flat_suggests_close_names():
    m, _ = room_with_start(floor="FLOOR0_9")
    with pytest.raises(ValueError, match=r"sector 0 \(room 0\): unknown floor flat 'FLOOR0_9' \(did you mean"):
        build(m)


def test_unknown_actor_suggests_close_names():
    m, _ = room_with_start()
    m.add_thing("Medkit", 64, 64)
    with pytest.raises(ValueError, match=r"thing 1 \('Medkit' at \(64, 64\)\): unknown actor 'Medkit' "
                                         r"\(did you mean 'Medikit'"):
        build(m)


def test_unknown_editor_number():
    m, _ = room_with_start()
    m.add_thing(31999, 64, 64)
    with pytest.raises(ValueError, match=r"no actor has editor number 31999"):
        build(m)


def test_overlapping_rooms():
    m, _ = room_with_start()
    m.add_room(128, 128, 512, 512, name="annex")
    with pytest.raises(ValueError, match=r"room 0 overlaps room 1 'annex'; rooms may touch but not overlap"):
        build(m)


def test_touching_rooms_do_not_overlap():
    m, _ = room_with_start()
    m.add_room(256, 64, 512, 128)                     # shares part of the east wall
    m.add_room(-64, 256, 0, 320)                      # touches one corner only
    assert build(m).startswith(b"PWAD")


def test_pillar_outside_its_room():
    m, room = room_with_start()
    with pytest.raises(ValueError, match=r"pillar 0 of room 0: corner \(300, 16\) lies outside room 0"):
        m.add_pillar(room, 16, 16, 300, 64)


def test_connect_needs_facing_walls():
    m = MapBuilder()
    a = m.add_room(0, 0, 256, 256)
    b = m.add_room(1000, 1000, 1256, 1256)
    with pytest.raises(ValueError, match=r"opening between room 0 and room 1: the rooms share no wall"):
        m.connect(a, b)


def test_connect_too_wide():
    m = MapBuilder()
    a = m.add_room(0, 0, 256, 256)
    b = m.add_room(256, 0, 512, 128)
    with pytest.raises(ValueError, match=r"overlap by 128 units; width 160 does not fit"):
        m.connect(a, b, width=160)


def test_door_between_floors_too_far_apart():
    m = MapBuilder()
    a = m.add_room(0, 0, 256, 256)
    b = m.add_room(0, 320, 256, 512, floor_height=64, ceiling_height=192)
    with pytest.raises(ValueError, match=r"a door needs floors within 24 units"):
        m.connect(a, b, door=True)


@pytest.mark.parametrize("actor, message", [
    (Actor("Gem", parent="Medikt"), r"actor 'Gem': unknown parent actor 'Medikt' \(did you mean 'Medikit'"),
    (Actor("Gem", parent="Medikit", flags=["COUNTITEM"]), r"flag 'COUNTITEM' must be '\+NAME' or '-NAME'"),
    (Actor("Gem", parent="Medikit", ednum=2012), r"ednum 2012 already places 'Medikit'"),
    (Actor("Medikit", parent="Health"), r"the engine already defines an actor of that name"),
    (Actor("Gem", parent="Medikit", states={"Spawn": ["QQQQ A -1", "Stop"]}), r"unknown sprite 'QQQQ'"),
])
def test_bad_actors(actor, message):
    m, _ = room_with_start()
    with pytest.raises(ValueError, match=message):
        build(m, [actor])


def test_custom_actor_without_ednum_cannot_be_placed():
    m, _ = room_with_start()
    m.add_thing("Gem", 64, 64)
    with pytest.raises(ValueError, match=r"actor 'Gem' has no ednum"):
        build(m, [Actor("Gem", parent="Medikit")])


def test_bad_geometry_leaves_no_file(tmp_path):
    path = tmp_path / "bad.wad"
    m, _ = room_with_start()
    m.add_thing("Medikit", 999, 999)
    with pytest.raises(ValueError):
        write_wad(path, build(m))
    assert os.listdir(tmp_path) == []


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "map.wad"
    write_atomic(path, b"old")
    with pytest.raises(TypeError):
        write_atomic(path, None)
    assert os.listdir(tmp_path) == ["map.wad"] and path.read_bytes() == b"old"


def test_writing_several_files_is_all_or_nothing(tmp_path):
    wad, preview = tmp_path / "map.wad", tmp_path / "missing" / "map.png"
    with pytest.raises(FileNotFoundError):
        write_all_atomic([(wad, b"PWAD"), (preview, b"PNG")])  # the second cannot be written: neither is
    assert os.listdir(tmp_path) == []
    write_all_atomic([(wad, b"PWAD"), (tmp_path / "map.png", b"PNG")])
    assert sorted(os.listdir(tmp_path)) == ["map.png", "map.wad"]


def test_unknown_sky():
    m, _ = room_with_start()
    with pytest.raises(ValueError, match=r"MAP01: unknown sky texture 'SKY9' \(did you mean 'SKY\d'"):
        build_wad([Level(map=m, sky="SKY9")])


def test_unknown_thing_flag():
    m, _ = room_with_start()
    with pytest.raises(ValueError, match=r"thing 1 \(DoomImp\): unknown flag 'ambsh' \(did you mean 'ambush'"):
        m.add_thing("DoomImp", 64, 64, flags=["ambsh"])
