"""Built-in functions compiled by wadgym.acs, run in real ViZDoom headless; results read back as USER variables.

One WAD, one game for the module: MAP01's ENTER script exercises the dedicated-pcode functions, line specials
and CALLFUNC functions and stores what it sees in `global int N`, which ViZDoom reports as GameVariable.USERN.
MAP02 runs a lump whose CALLFUNC index was patched to one the engine lacks, to show why the compiler refuses it.
"""

import pytest
import vizdoom as vzd

from wadgym.acs import AcsError, compile_source
from wadgym.acs.builtins import UNSUPPORTED
from wadgym.acs.dis import parse_behavior
from wadgym.envs.runtime.engine import start_game
from wadgym.wads import Level, MapBuilder, build_wad, write_wad

FIXED = 65536

CHECKS = """
#include "zcommon.acs"
global int 1:r1; global int 2:r2; global int 3:r3; global int 4:r4; global int 5:r5; global int 6:r6;
global int 7:r7; global int 8:r8; global int 9:r9; global int 10:r10; global int 11:r11;
global int 12:r12; global int 13:r13; global int 14:r14; global int 15:r15; global int 16:r16;
global int 17:r17; global int 18:r18; global int 19:r19; global int 20:r20; global int 21:r21;
global int 22:r22; global int 23:r23; global int 24:r24; global int 25:r25; global int 26:r26;
global int 27:r27; global int 28:r28; global int 29:r29; global int 30:r30; global int 31:r31;

script 1 ENTER
{
    r1 = Spawn("Clip", 256.0, 256.0, 0.0, 100, 0);
    r2 = ThingCountName("Clip", 100);
    r3 = Spawn("ZombieMan", 768.0, 768.0, 0.0, 200, 64);
    SetActorProperty(200, APROP_Friendly, TRUE);
    SetActorProperty(200, APROP_Health, 77);
    r4 = GetActorProperty(200, APROP_Health);
    SetActorProperty(200, APROP_Speed, 3.5);
    r5 = GetActorProperty(200, APROP_Speed);
    SetActorProperty(0, APROP_Health, 55);          // tid 0: the activator, the player
    r6 = GetActorProperty(0, APROP_Health);
    r28 = GetActorProperty(200, APROP_Friendly);

    ClearInventory();
    r7 = CheckInventory("Clip");
    GiveInventory("Clip", 30);
    r8 = CheckInventory("Clip");
    TakeInventory("Clip", 12);
    r9 = CheckInventory("Clip");
    GiveInventory("Shotgun", 1);
    r10 = CheckInventory("Shotgun");
    GiveActorInventory(200, "Clip", 3);
    r11 = CheckActorInventory(200, "Clip");

    ACS_Execute(10, 0, 6, 7);
    ACS_ExecuteAlways(11, 0, 5);
    ACS_ExecuteAlways(11, 0, 5);
    r14 = ACS_ExecuteWithResult(12, 3, 4);

    Thing_ChangeTID(200, 201);
    r15 = ThingCount(T_NONE, 200) * 10 + ThingCount(T_NONE, 201);
    Thing_Remove(100);
    r16 = ThingCountName("Clip", 100);
    Thing_Damage(201, 20, MOD_UNKNOWN);
    r25 = GetActorProperty(201, APROP_Health);

    r17 = Sqrt(144);
    r18 = FixedSqrt(4.0);
    r19 = VectorLength(3.0, 4.0);
    r20 = StrCmp("abc", "abd");
    r21 = StriCmp("ABC", "abc");
    r22 = SpawnForced("Clip", 320.0, 288.0, 0.0, 300, 0);
    r23 = CheckActorClass(201, "ZombieMan");
    r24 = GetActorX(300) >> 16;
    r26 = Random(5, 5) + StrLen("hello") * 10;
    r27 = GetActorProperty(201, APROP_SpawnHealth);
}

script 10 (int a, int b) { r12 = a * b; }
script 11 (int a) { r13 += a; }
script 12 (int a, int b) { SetResultValue(a + b); }
"""

EXPECTED = {
    1: ("Spawn returns 1 when the thing fits", 1),
    2: ("ThingCountName counts the spawned clip", 1),
    3: ("Spawn of a monster", 1),
    4: ("GetActorProperty reads what SetActorProperty set (health)", 77),
    5: ("fixed-point property (speed 3.5)", int(3.5 * FIXED)),
    6: ("SetActorProperty on the activator (tid 0)", 55),
    7: ("ClearInventory empties the player's clips", 0),
    8: ("GiveInventory", 30),
    9: ("TakeInventory", 18),
    10: ("GiveInventory of a weapon", 1),
    11: ("GiveActorInventory / CheckActorInventory", 3),
    12: ("ACS_Execute passes arguments", 42),
    13: ("ACS_ExecuteAlways runs a second instance", 10),
    14: ("ACS_ExecuteWithResult returns SetResultValue", 7),
    15: ("Thing_ChangeTID moves the thing to the new tid", 1),
    16: ("Thing_Remove removes it", 0),
    17: ("Sqrt (CALLFUNC 48)", 12),
    18: ("FixedSqrt (CALLFUNC 49)", 2 * FIXED),
    19: ("VectorLength (CALLFUNC 50)", 5 * FIXED),
    20: ("StrCmp orders strings (CALLFUNC 63)", -1),
    21: ("StriCmp ignores case (CALLFUNC 64)", 0),
    22: ("SpawnForced (CALLFUNC 36)", 1),
    23: ("CheckActorClass (CALLFUNC 27)", 1),
    24: ("GetActorX of the forced spawn", 320),
    25: ("Thing_Damage takes 20 health", 57),
    26: ("Random(5, 5) and StrLen", 55),
    27: ("APROP_SpawnHealth of a ZombieMan", 20),
    28: ("APROP_Friendly", 1),
}

PATCHED = """
#include "zcommon.acs"
global int 40:before; global int 41:result; global int 42:after;
script 1 ENTER { before = 1; result = Sqrt(16); after = 2; }
"""
MISSING_CALLFUNC = 98   # CheckProximity in acc's zspecial.acs; not in this engine's CallFunction


def _patch_callfunc(lump: bytes, index: int) -> bytes:
    """The same lump with its one CALLFUNC calling `index` instead."""
    (call,) = [i for i in parse_behavior(lump).instructions if i.name == "CALLFUNC"]
    patched = bytearray(lump)
    patched[call.address + 3:call.address + 5] = index.to_bytes(2, "little")   # 2-byte opcode, u8 argc, i16
    assert [i.operands for i in parse_behavior(bytes(patched)).instructions if i.name == "CALLFUNC"] == [
        [1, index]]
    return bytes(patched)


def _room() -> MapBuilder:
    builder = MapBuilder()
    builder.add_room(0, 0, 1024, 1024, floor="FLOOR0_1", ceiling="CEIL1_1", wall="STARTAN2")
    builder.add_player_start(128, 128, angle=0)
    return builder


def _user(game, n: int) -> int:
    return int(game.get_game_variable(getattr(vzd.GameVariable, f"USER{n}")))


@pytest.fixture(scope="module")
def seen(tmp_path_factory) -> dict:
    """What the engine reports after running each map: USER values by number, and the player's health."""
    levels = [Level(map=_room(), name="MAP01", scripts=CHECKS),
              Level(map=_room(), name="MAP02", behavior=_patch_callfunc(compile_source(PATCHED), MISSING_CALLFUNC))]
    path = tmp_path_factory.mktemp("acs_builtins") / "builtins.wad"
    write_wad(path, build_wad(levels, compiler=compile_source))
    game = start_game(path, seed=1)
    try:
        game.advance_action(4)     # let the scripts ACS_Execute started run
        results = {"MAP01": {n: _user(game, n) for n in range(1, 61)},
                   "health": game.get_game_variable(vzd.GameVariable.HEALTH)}
        game.set_doom_map("MAP02")
        game.new_episode()
        game.advance_action(2)
        results["MAP02"] = {n: _user(game, n) for n in range(1, 61)}
    finally:
        game.close()
    return results


@pytest.mark.parametrize("n", sorted(EXPECTED), ids=[EXPECTED[n][0] for n in sorted(EXPECTED)])
def test_builtin_in_engine(seen, n):
    what, expected = EXPECTED[n]
    assert seen["MAP01"][n] == expected, what


def test_player_health_seen_by_the_engine(seen):
    assert seen["health"] == 55


def test_engine_returns_0_for_a_callfunc_it_lacks(seen):
    # The script goes on past the call, which silently yields 0: hence the compile error for such names.
    assert (seen["MAP02"][40], seen["MAP02"][41], seen["MAP02"][42]) == (1, 0, 2)


def test_unpatched_callfunc_works():
    assert [i.operands for i in parse_behavior(compile_source(PATCHED)).instructions if i.name == "CALLFUNC"] == [
        [1, 48]]


@pytest.mark.parametrize("call, name", [
    ('CheckProximity(0, "Clip", 64);', "CheckProximity"),
    ("GetTeamScore(1);", "GetTeamScore"),
    ("Floor_Stop(1);", "Floor_Stop"),
    ("SetStyle(1);", "SetStyle"),
    ('ConsoleCommand("quit");', "ConsoleCommand"),
])
def test_unimplemented_function_is_a_compile_error(call, name):
    source = '#include "zcommon.acs"\nscript 1 OPEN\n{\n    ' + call + "\n}\n"
    with pytest.raises(AcsError) as raised:
        compile_source(source, filename="map.acs")
    message = str(raised.value)
    assert message.startswith("map.acs:4:5: error:") and f"'{name}'" in message
    assert UNSUPPORTED[name.lower()].reason in message


def test_engine_argument_limit_is_a_compile_error():
    with pytest.raises(AcsError, match="Floor_LowerByValue takes 3 arguments, 4 given"):
        compile_source('#include "zcommon.acs"\nscript 1 OPEN { Floor_LowerByValue(1, 8, 64, 1); }')
