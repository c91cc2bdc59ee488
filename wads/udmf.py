"""MapData to UDMF TEXTMAP (namespace "zdoom") through omgifol's UDMF blocks."""

from __future__ import annotations

from omg.udmf import ULinedef, UMapEditor, USector, USidedef, UThing, UVertex

from .mapdata import MapData, Sector, Side, Thing

NAMESPACE = "zdoom"
DAMAGE_INTERVAL = 32  # tics between hurts on a damaging floor


def to_textmap(data: MapData, ednums: list[int]) -> str:
    """The TEXTMAP text; `ednums[i]` is the editor number of data.things[i]."""
    editor = UMapEditor(namespace=NAMESPACE)
    editor.vertexes = [UVertex(_coord(x), _coord(y)) for x, y in data.vertices]
    for line in data.lines:
        block = ULinedef(line.v1, line.v2, _add_side(editor, line.front))
        if line.back is not None:
            block.sideback = _add_side(editor, line.back)
        if line.special:
            block.special = line.special
            for i, value in enumerate(line.args):
                setattr(block, f"arg{i}", int(value))
        if line.tag:
            block.id = line.tag
        for flag in sorted(line.flags):
            setattr(block, flag, True)
        editor.linedefs.append(block)
    editor.sectors = [_sector_block(s) for s in data.sectors]
    editor.things = [_thing_block(t, ednum) for t, ednum in zip(data.things, ednums)]
    return _textmap(editor)


def _textmap(editor: UMapEditor) -> str:
    """UMapEditor.to_textmap's output, joined once instead of appended block by block (big maps)."""
    parts = [f'namespace="{editor.namespace}";\n']
    for keyword, blocks in (("thing", editor.things), ("vertex", editor.vertexes), ("sidedef", editor.sidedefs),
                            ("linedef", editor.linedefs), ("sector", editor.sectors)):
        parts.extend(f"{keyword} {block.to_textmap()}" for block in blocks)
    return "".join(parts)


def _coord(value: float) -> float:
    # Python prints tiny floats in exponent notation, which UDMF readers need not accept.
    value = float(value)
    return 0.0 if abs(value) < 1e-4 else value


def _add_side(editor: UMapEditor, side: Side) -> int:
    block = USidedef(side.sector, texturetop=side.upper, texturebottom=side.lower, texturemiddle=side.middle)
    if side.offset_x:
        block.offsetx = _integral(side.offset_x)
    editor.sidedefs.append(block)
    return len(editor.sidedefs) - 1


def _sector_block(sector: Sector) -> USector:
    block = USector(sector.floor, sector.ceiling, heightfloor=sector.floor_height,
                    heightceiling=sector.ceiling_height, lightlevel=sector.light, special=sector.special,
                    id=sector.tag)
    if sector.damage:
        block.damageamount = sector.damage
        block.damageinterval = DAMAGE_INTERVAL
    return block


def _thing_block(thing: Thing, ednum: int) -> UThing:
    block = UThing(_coord(thing.x), _coord(thing.y), ednum)
    block.angle = thing.angle
    if thing.tid:
        block.id = thing.tid
    if thing.z:
        block.height = _coord(thing.z)
    for skill in thing.skills:
        setattr(block, f"skill{skill}", True)
    for mode in thing.modes:
        setattr(block, mode, True)
    for flag in sorted(thing.flags):
        setattr(block, flag, True)
    if thing.special:
        block.special = thing.special
        for i, value in enumerate(thing.args):
            setattr(block, f"arg{i}", int(value))
    return block


def _integral(value: float):
    return int(value) if float(value).is_integer() else float(value)
