"""ACS libraries in a WAD: lumps between A_START and A_END, LOADACS, levels importing a library built alongside
them; and proof in the real engine (headless) that imported functions, shared map variables and an autoloaded
library's OPEN script work as ZDoom defines them."""

from __future__ import annotations

import pytest
import vizdoom as vzd

from wadgym.acs import compile_source
from wadgym.acs.dis import library_lumps, parse_behavior
from wadgym.wads import EMPTY_BEHAVIOR, Level, Library, MapBuilder, build_wad, read_lumps, write_wad

USER = [getattr(vzd.GameVariable, f"USER{i}") for i in range(1, 11)]

# The library declares the globals the maps report through: an importer sees a library's declarations.
TOOLS = '''#library "tools"
#include "zcommon.acs"
global int 1:result;
global int 2:autoloaded;
global int 3:shared_seen;
global int 4:table_seen;
global int 5:library_saw;
global int 6:text_ok;
#libdefine TOOLS_STEP 3
int shared = 5;
int table[4] = {10, 20, 30, 40};

function int Twice(int x) { return 2 * x; }
function int SharedValue(void) { return shared; }
function void Bump(void) { shared += TOOLS_STEP; table[3] += 1; }
function str Greeting(void) { return "hello"; }
'''
IMPORTER = '''#include "zcommon.acs"
#import "tools.acs"
script 1 OPEN
{
    result = Twice(21);
    shared = 77;
    library_saw = SharedValue();
    Bump();
    shared_seen = shared;
    table[1] = table[0] + 1;
    table_seen = table[1] * 100 + table[3];
    text_ok = StrCmp(Greeting(), "hello") == 0;
}
'''
LOADED = '''#library "loaded"
#include "zcommon.acs"
#import "tools.acs"
script 900 OPEN { autoloaded = autoloaded + TOOLS_STEP; }
'''


def room(name: str, scripts: str | None = None) -> Level:
    m = MapBuilder()
    m.add_room(0, 0, 256, 256)
    m.add_player_start(128, 128)
    return Level(map=m, name=name, scripts=scripts)


def libraries() -> list[Library]:
    return [Library("TOOLS", scripts=TOOLS), Library("LOADED", scripts=LOADED, autoload=True)]


def test_libraries_sit_between_a_start_and_a_end_and_loadacs_names_the_autoloaded():
    data = build_wad([room("MAP01", IMPORTER), room("MAP02")], compiler=compile_source, libraries=libraries())
    names = [name for name, _ in read_lumps(data)]
    assert names == ["MAP01", "TEXTMAP", "BEHAVIOR", "SCRIPTS", "ENDMAP", "MAP02", "TEXTMAP", "BEHAVIOR", "ENDMAP",
                     "A_START", "TOOLS", "LOADED", "A_END", "LOADACS", "MAPINFO"]
    lumps = dict(read_lumps(data))
    assert lumps["LOADACS"] == b"LOADED\n"
    assert [name for name, _ in library_lumps(data)] == ["TOOLS", "LOADED"]
    assert lumps["TOOLS"] == compile_source(TOOLS, "tools.acs")
    assert parse_behavior(lumps["TOOLS"]).library
    assert parse_behavior(lumps["LOADED"]).libraries == ["tools"]
    map01 = parse_behavior(read_lumps(data)[2][1])
    assert map01.libraries == ["tools"] and not map01.library
    assert data == build_wad([room("MAP01", IMPORTER), room("MAP02")], compiler=compile_source,
                             libraries=libraries())  # the same inputs, the same bytes


def test_a_library_may_be_given_compiled():
    compiled = Library("TOOLS", behavior=compile_source(TOOLS, "tools.acs"))
    data = build_wad([room("MAP01")], libraries=[compiled])
    assert dict(read_lumps(data))["TOOLS"] == compiled.behavior


@pytest.mark.parametrize("library, message", [
    (Library("9LIVES", scripts=TOOLS), "library name '9LIVES': a library's lump name is 1-8 letters"),
    (Library("TOOLSETXL", scripts=TOOLS), "library name 'TOOLSETXL'"),
    (Library("TOOLS"), "library TOOLS: give its ACS source (scripts=) or its compiled lump (behavior=)"),
    (Library("TOOLS", scripts="script 1 OPEN { }"), "library TOOLS: the lump is not a compiled ACS library "
                                                    "(its source must start with #library \"tools\")"),
    (Library("TOOLS", behavior=EMPTY_BEHAVIOR), "library TOOLS: the lump is not a compiled ACS library"),
])
def test_bad_libraries_are_refused_naming_the_library(library, message):
    with pytest.raises(ValueError) as info:
        build_wad([room("MAP01")], compiler=compile_source, libraries=[library])
    assert message in str(info.value)


def test_a_library_name_used_twice_is_refused():
    with pytest.raises(ValueError, match="library name 'tools' is used twice in one WAD"):
        build_wad([room("MAP01")], compiler=compile_source, libraries=[Library("TOOLS", scripts=TOOLS),
                                                                       Library("tools", scripts=TOOLS)])


def test_a_library_with_scripts_needs_a_compiler():
    with pytest.raises(ValueError, match="library TOOLS has ACS scripts but build_wad got no compiler"):
        build_wad([room("MAP01")], libraries=[Library("TOOLS", scripts=TOOLS)])


def test_importing_a_library_the_wad_does_not_hold_is_refused():
    # The level was compiled elsewhere against a library called "tools"; this WAD's library is another.
    behavior = compile_source(IMPORTER, "map.acs", files={"tools.acs": TOOLS})
    other = Library("OTHER", scripts=TOOLS.replace('#library "tools"', '#library "other"'))
    with pytest.raises(ValueError) as info:
        build_wad([Level(map=room("MAP01").map, behavior=behavior)], compiler=compile_source, libraries=[other])
    assert "MAP01: its scripts import library 'tools', which is not among the WAD's libraries (OTHER)" \
        in str(info.value)


def test_a_level_importing_an_unknown_library_gets_the_compilers_error():
    from wadgym.acs import AcsError

    with pytest.raises(AcsError) as info:
        build_wad([room("MAP01", '#import "nothere.acs"\n')], compiler=compile_source, libraries=libraries())
    assert "cannot find library 'nothere.acs'" in str(info.value) \
        and "the given files (loaded.acs, tools.acs)" in str(info.value)


@pytest.fixture(scope="module")
def library_wad(tmp_path_factory):
    """MAP01 imports TOOLS; MAP02 has no scripts of its own; LOADED is autoloaded at every map."""
    path = tmp_path_factory.mktemp("libraries") / "libraries.wad"
    write_wad(path, build_wad([room("MAP01", IMPORTER), room("MAP02")], compiler=compile_source,
                              libraries=libraries()))
    return path


def _user_variables(start_game, wad, map_name: str) -> list[int]:
    game = start_game(wad, map_name, variables=USER)
    game.advance_action(3)
    return [int(value) for value in game.get_state().game_variables]


def test_engine_runs_imported_functions_and_shares_library_map_variables(start_game, library_wad):
    values = _user_variables(start_game, library_wad, "MAP01")
    result, autoloaded, shared_seen, table_seen, library_saw, text_ok = values[:6]
    assert result == 42                   # Twice(21), a function the map imported from TOOLS
    assert library_saw == 77              # the map wrote the library's `shared`; the library reads 77
    assert shared_seen == 80              # the library's Bump() added TOOLS_STEP; the map reads 80
    assert table_seen == 11 * 100 + 41    # arrays too: table[1] = 10 + 1 by the map, table[3] += 1 by TOOLS
    assert text_ok == 1                   # a string made in the library compares equal in the map
    assert autoloaded == 3                # LOADED's OPEN script ran here too


def test_engine_runs_an_autoloaded_librarys_open_script_on_a_map_without_scripts(start_game, library_wad):
    values = _user_variables(start_game, library_wad, "MAP02")
    assert values[1] == 3                 # LOADED's OPEN script (through LOADACS) on MAP02
    assert values[0] == 0                 # and MAP02 itself ran nothing
