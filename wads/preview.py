"""Top-down preview PNG of a map: sectors shaded by floor height, walls, doors, things by kind and the
player start with its facing. Drawn with numpy and written with zlib (no imaging library needed)."""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Sequence

import numpy as np

from .decorate import Actor, actor_kind
from .mapdata import MapData

VOID = (24, 24, 28)
ONE_SIDED = (235, 235, 235)
TWO_SIDED = (160, 160, 175)
THIN_WALL = (200, 200, 210)
DOOR = (240, 150, 40)
KIND_COLOURS = {
    "item": (60, 220, 90),
    "monster": (235, 60, 60),
    "decoration": (80, 150, 255),
    "spot": (200, 90, 230),
    "player": (255, 230, 0),
}
MARGIN = 16  # pixels around the map


def render(data: MapData, kinds: Sequence[str], size: int = 800) -> np.ndarray:
    """An RGB image (height, width, 3) of `data`, the longer side `size` pixels; kinds[i] for things[i]."""
    xs = [v[0] for v in data.vertices] or [0.0]
    ys = [v[1] for v in data.vertices] or [0.0]
    x0, y0 = min(xs), min(ys)
    span = max(max(xs) - x0, max(ys) - y0, 1.0)
    scale = (size - 2 * MARGIN) / span
    width = int(math.ceil((max(xs) - x0) * scale)) + 2 * MARGIN
    height = int(math.ceil((max(ys) - y0) * scale)) + 2 * MARGIN

    def to_pixel(x, y):
        return (x - x0) * scale + MARGIN, height - 1 - ((y - y0) * scale + MARGIN)

    image = np.empty((height, width, 3), np.uint8)
    image[:] = VOID
    _fill_sectors(image, data, to_pixel)
    for line in data.lines:
        (ax, ay), (bx, by) = to_pixel(*data.vertices[line.v1]), to_pixel(*data.vertices[line.v2])
        colour, thickness = _line_style(line)
        _draw_segment(image, ax, ay, bx, by, colour, thickness)
    radius = max(3, int(round(20 * scale)))
    # Players last, so the start and its arrow stay visible on top of anything placed nearby.
    for thing, kind in sorted(zip(data.things, kinds), key=lambda tk: tk[1] == "player"):
        px, py = to_pixel(thing.x, thing.y)
        colour = KIND_COLOURS.get(kind, KIND_COLOURS["decoration"])
        _draw_disc(image, px, py, radius, colour)
        if kind == "player":
            length = max(3 * radius, 12)
            tip_x = px + length * math.cos(math.radians(thing.angle))
            tip_y = py - length * math.sin(math.radians(thing.angle))
            _draw_segment(image, px, py, tip_x, tip_y, colour, 2)
            for side in (150, -150):
                a = math.radians(thing.angle + side)
                _draw_segment(image, tip_x, tip_y, tip_x + length / 3 * math.cos(a),
                              tip_y - length / 3 * math.sin(a), colour, 2)
    return image


def _line_style(line):
    if line.special:
        return DOOR, 3
    if line.back is None:
        return ONE_SIDED, 2
    if "blocking" in line.flags:
        return THIN_WALL, 2
    return TWO_SIDED, 1


def _fill_sectors(image: np.ndarray, data: MapData, to_pixel) -> None:
    """Scanline fill: along each pixel row, the sector east of each line crossing runs to the next one."""
    if not data.lines:
        return
    height, width, _ = image.shape
    ends = np.array([(*to_pixel(*data.vertices[l.v1]), *to_pixel(*data.vertices[l.v2])) for l in data.lines])
    # In pixel rows y grows downward, so a line heading north in the map heads up (decreasing y).
    heading_north = ends[:, 3] < ends[:, 1]
    east_sector = np.array([
        (l.front.sector if north else (l.back.sector if l.back else -1))
        for l, north in zip(data.lines, heading_north)
    ])
    floors = np.array([s.floor_height for s in data.sectors] or [0], float)
    lights = np.array([s.light for s in data.sectors] or [0], float)
    low, high = floors.min(), floors.max()
    shade = 70 + 80 * ((floors - low) / (high - low) if high > low else np.full_like(floors, 0.5))
    brightness = 0.75 + 0.25 * np.clip(lights / 255, 0, 1)
    colours = np.stack([shade * 0.85, shade * 0.9, shade * 1.05], axis=1) * brightness[:, None]
    colours = np.clip(colours, 0, 255).astype(np.uint8)
    for row in range(height):
        yc = row + 0.5
        crosses = (ends[:, 1] > yc) != (ends[:, 3] > yc)
        if not crosses.any():
            continue
        e = ends[crosses]
        xs = e[:, 0] + (yc - e[:, 1]) * (e[:, 2] - e[:, 0]) / (e[:, 3] - e[:, 1])
        order = np.argsort(xs, kind="stable")
        xs, sectors = xs[order], east_sector[crosses][order]
        for start, end, sector in zip(xs, list(xs[1:]) + [width], sectors):
            if sector >= 0:
                a, b = int(max(0, math.ceil(start - 0.5))), int(min(width, math.ceil(end - 0.5)))
                image[row, a:b] = colours[sector]


def _draw_segment(image, ax, ay, bx, by, colour, thickness: int) -> None:
    steps = int(max(abs(bx - ax), abs(by - ay)) * 2) + 1
    t = np.linspace(0.0, 1.0, steps)
    xs = np.rint(ax + (bx - ax) * t).astype(int)
    ys = np.rint(ay + (by - ay) * t).astype(int)
    height, width, _ = image.shape
    for dx in range(-(thickness // 2), thickness - thickness // 2):
        for dy in range(-(thickness // 2), thickness - thickness // 2):
            px, py = xs + dx, ys + dy
            keep = (px >= 0) & (px < width) & (py >= 0) & (py < height)
            image[py[keep], px[keep]] = colour


def _draw_disc(image, cx, cy, radius: int, colour) -> None:
    height, width, _ = image.shape
    y, x = np.ogrid[:height, :width]
    image[(x - cx) ** 2 + (y - cy) ** 2 <= radius * radius] = colour


def png_bytes(image: np.ndarray) -> bytes:
    """An 8-bit RGB PNG of `image` (deterministic: fixed compression level, no metadata)."""
    height, width, _ = image.shape
    rows = np.concatenate([np.zeros((height, 1), np.uint8), image.reshape(height, width * 3)], axis=1)

    def chunk(kind: bytes, payload: bytes) -> bytes:
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows.tobytes(), 9))
            + chunk(b"IEND", b""))


def thing_kinds(data: MapData, actors: Sequence[Actor]) -> list[str]:
    """The preview kind of each thing: by name, or by editor number for maps read back from a WAD."""
    from . import iwad

    by_number = {num: name for name, num in iwad.stock_ednums().items()}
    by_number.update({a.ednum: a.name for a in actors if a.ednum is not None})
    kinds = []
    for thing in data.things:
        name = by_number.get(thing.kind, "") if isinstance(thing.kind, int) else thing.kind
        kinds.append(actor_kind(name, actors) if name else "decoration")
    return kinds


def preview_png(level, size: int = 800) -> bytes:
    """PNG bytes of a Level's map (or of a MapData, with stock actors only)."""
    data = level if isinstance(level, MapData) else level.map_data()
    actors = () if isinstance(level, MapData) else level.actors
    return png_bytes(render(data, thing_kinds(data, actors), size))


def write_preview(path, level, size: int = 800) -> None:
    """Write the preview PNG of `level` to `path` atomically."""
    from wadgym.files import write_atomic

    write_atomic(path, preview_png(level, size))
