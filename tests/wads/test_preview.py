"""The preview PNG: a valid image with sectors, walls, things by kind and the player start."""

from __future__ import annotations

import struct
import zlib

import numpy as np

from wadgym.wads import Actor, Level, MapBuilder, MapData, build_wad
from wadgym.wads.preview import KIND_COLOURS, ONE_SIDED, VOID, preview_png, render, thing_kinds


def decode_png(data: bytes) -> np.ndarray:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, payload = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert crc == zlib.crc32(kind + payload)
        chunks[kind] = payload
        pos += 12 + length
    width, height, depth, colour_type = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    assert (depth, colour_type) == (8, 2)
    rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(height, 1 + 3 * width)
    assert (rows[:, 0] == 0).all()                # filter type None on every row
    return rows[:, 1:].reshape(height, width, 3)


def arena() -> Level:
    m = MapBuilder()
    room = m.add_room(0, 0, 1000, 500)
    m.add_pillar(room, 450, 200, 550, 300)
    m.add_player_start(100, 250, angle=0)
    m.add_thing("Medikit", 800, 100)
    m.add_thing("DoomImp", 800, 400)
    m.add_thing("TechLamp", 300, 400)
    return Level(map=m)


def test_preview_shows_walls_things_by_kind_and_the_player():
    image = decode_png(preview_png(arena(), size=1032))   # one pixel per map unit, 16-pixel margins
    assert image.shape == (532, 1032, 3)

    def pixel(x, y):  # map units to the pixel row/column (y grows north in the map, down in the image)
        return tuple(int(c) for c in image[531 - (y + 16), x + 16])

    assert pixel(800, 100) == KIND_COLOURS["item"]
    assert pixel(800, 400) == KIND_COLOURS["monster"]
    assert pixel(300, 400) == KIND_COLOURS["decoration"]
    assert pixel(100, 250) == KIND_COLOURS["player"]
    assert pixel(150, 250) == KIND_COLOURS["player"]     # the facing arrow points east
    assert pixel(500, 250) == VOID                       # the pillar is a hole
    assert pixel(0, 250) == ONE_SIDED                    # the west wall
    floor = pixel(200, 100)
    assert floor not in (VOID, ONE_SIDED)


def test_preview_shades_floors_by_height_and_is_deterministic():
    m = MapBuilder()
    m.add_room(0, 0, 256, 256)
    m.add_room(256, 0, 512, 256, floor_height=64)
    m.add_player_start(128, 128)
    level = Level(map=m)
    image = render(level.map_data(), thing_kinds(level.map_data(), ()), size=256 + 32)
    low, high = image[64, 40], image[64, 200]
    assert int(high.sum()) > int(low.sum())
    assert preview_png(level) == preview_png(level)


def test_a_built_level_gives_the_same_wad_and_preview_from_one_build(monkeypatch):
    level = arena()
    level.actors = [Actor("WadgymLamp", parent="TechLamp", ednum=20001)]
    level.map.add_thing("WadgymLamp", 600, 400)
    expected = build_wad([level]), preview_png(level)
    builds = []
    original_build = MapBuilder.build
    monkeypatch.setattr(MapBuilder, "build", lambda self: builds.append(1) or original_build(self))
    built = level.built()
    assert (build_wad([built]), preview_png(built)) == expected
    assert len(builds) == 1 and built.actors == level.actors and isinstance(built.map, MapData)
