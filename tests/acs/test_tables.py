"""The p-code and built-in tables the compiler and disassembler share."""

import pytest

from wadgym.acs import builtins
from wadgym.acs.pcodes import PCD, PCODE_COUNT, PCODES, Arg, decode_opcode, encode_opcode


def test_pcode_numbers_match_the_engine_enum():
    assert PCODE_COUNT == 381
    assert (PCD.PUSHNUMBER, PCD.LSPEC5, PCD.GOTO, PCD.PUSHBYTE, PCD.CALLFUNC, PCD.STRCPYTOSCRIPTCHRANGE) == (
        3, 8, 52, 167, 351, 380)
    assert PCD.ISNETWORKGAME == PCD.PLAYERONTEAM == 118   # acc's name for the same slot
    assert all(p.number == i for i, p in enumerate(PCODES))


@pytest.mark.parametrize("compact", [True, False])
def test_opcodes_round_trip(compact):
    for number in range(PCODE_COUNT):
        encoded = encode_opcode(number, compact)
        assert len(encoded) == (4 if not compact else 1 if number < 240 else 2)
        assert decode_opcode(encoded, 0, compact) == (number, len(encoded))
    with pytest.raises(ValueError, match="381"):
        encode_opcode(381)
    with pytest.raises(ValueError, match="past the end"):
        decode_opcode(bytes([241]), 0)


def test_operand_layouts():
    assert PCODES[PCD.CALLFUNC].size(compact=True) == 5 and PCODES[PCD.CALLFUNC].size(compact=False) == 12
    assert PCODES[PCD.LSPEC3DIRECTB].size(compact=False) == 8   # raw bytes even in 4-byte code
    assert PCODES[PCD.PUSHNUMBER].size(True) == 5 and PCODES[PCD.ASSIGNSCRIPTARRAY].size(True) == 3
    assert PCODES[PCD.PUSHBYTES].size(True) is None and PCODES[PCD.CASEGOTOSORTED].operands == (Arg.CASE_TABLE,)
    assert not PCODES[PCD.SETSTYLE].handled and PCODES[PCD.SPAWN].handled


def test_lookup_is_case_insensitive():
    assert builtins.lookup("SETACTORPROPERTY") is builtins.lookup("setactorproperty")
    assert builtins.lookup("SetActorProperty").stack_pcode == PCD.SETACTORPROPERTY
    assert builtins.lookup("acs_executealways") == builtins.Special("ACS_ExecuteAlways", 226, 2, 5)
    assert builtins.lookup("Sqrt") == builtins.CallFunc("Sqrt", 48, 1, 1)
    assert builtins.lookup("NoSuchThing") is None
    assert builtins.constant("aprop_health") == 0 and builtins.constant("HUDMSG_LOG") == -2**31
    assert builtins.constant("ATTN_NORM") == 65536


def test_optional_arguments():
    spawn = builtins.lookup("Spawn")
    assert (spawn.arg_count, spawn.min_args, spawn.direct_pcode) == (6, 4, PCD.SPAWNDIRECT)
    assert builtins.lookup("Delay").latent and not builtins.lookup("Random").latent


def test_engine_argument_limits_are_kept_with_accs():
    floor = builtins.lookup("Floor_LowerByValue")
    assert (floor.min_args, floor.max_args, floor.acc_args) == (3, 3, (3, 4))
    assert builtins.lookup("PlaySound").max_args == 6


@pytest.mark.parametrize("name, category", [
    ("CheckProximity", "callfunc"), ("GetTeamScore", "callfunc"), ("AnnouncerSound", "callfunc"),
    ("GetThingUDMFInt", "callfunc"), ("Floor_Stop", "special"), ("Line_Horizon", "special"),
    ("SetStyle", "internal"), ("ConsoleCommand", "internal"), ("APROP_DamageType", "constant"),
])
def test_unsupported_names_say_why(name, category):
    entry = builtins.UNSUPPORTED[name.lower()]
    assert entry.category == category
    assert name in entry.message and "ViZDoom" in entry.message
    if category == "constant":
        assert builtins.constant(name) is None
    else:
        assert builtins.lookup(name) is entry


def test_names_used_by_the_shipped_scenarios_are_available():
    for name in ("SetActorProperty", "GiveInventory", "CheckInventory", "SetThingSpecial", "Random",
                 "Delay", "ClearInventory", "Spawn", "TakeInventory", "SetWeapon", "GetActorX",
                 "GetActorProperty", "SetActorPosition", "SetActorAngle", "PlayerNumber", "FixedMul",
                 "Sin", "Cos"):
        assert builtins.lookup(name).kind == "internal", name
    for name in ("Exit_Normal", "Thing_Hate", "ACS_Execute", "ACS_ExecuteAlways", "Thing_Remove",
                 "Thing_SetGoal", "Thing_Damage", "Thing_ChangeTID"):
        assert builtins.lookup(name).kind == "special", name
    assert builtins.lookup("PlaySound").kind == "callfunc"
    for name in ("APROP_Health", "APROP_Speed", "APROP_DamageFactor", "APROP_SeeSound",
                 "APROP_RenderStyle", "STYLE_None", "MOD_SUICIDE", "CHAN_AUTO", "ATTN_NORM", "TRUE"):
        assert builtins.constant(name) is not None, name
    assert "print" in builtins.PARSER_FORMS and "hudmessage" in builtins.PARSER_FORMS


def test_table_sizes():
    assert len(builtins.SPECIALS) >= 190 and len(builtins.INTERNALS) >= 110
    assert len(builtins.CALLFUNCS) >= 90 and len(builtins.CONSTANTS) >= 900
    assert set(builtins.BUILTIN_INCLUDES) == {"zcommon.acs", "zspecial.acs", "zdefs.acs", "zwvars.acs"}
