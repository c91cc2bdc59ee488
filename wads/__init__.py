"""Maps from Python: lay out rooms and things, define actors, pack levels (and ACS libraries) into a WAD.

    from wadgym.wads import MapBuilder, Actor, Level, Library, build_wad, write_wad
"""

from .decorate import Actor
from .geometry import MapBuilder, Room
from .mapdata import MapData
from .wad import EMPTY_BEHAVIOR, Level, Library, build_wad, read_lumps, write_wad

__all__ = ["Actor", "EMPTY_BEHAVIOR", "Level", "Library", "MapBuilder", "MapData", "Room", "build_wad", "read_lumps",
           "write_wad"]
