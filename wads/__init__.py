"""Maps from Python: lay out rooms and things, define actors, pack levels into a WAD.

    from wadgym.wads import MapBuilder, Actor, Level, build_wad, write_wad
"""

from .decorate import Actor
from .geometry import MapBuilder, Room
from .mapdata import MapData
from .wad import EMPTY_BEHAVIOR, Level, build_wad, read_lumps, write_wad

__all__ = ["Actor", "EMPTY_BEHAVIOR", "Level", "MapBuilder", "MapData", "Room", "build_wad", "read_lumps", "write_wad"]
