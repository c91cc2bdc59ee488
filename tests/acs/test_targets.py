"""Engine targets: ``zdoom`` compiles what acc 1.58 compiles (acc's bytes), ``vizdoom`` refuses what ViZDoom's
engine cannot run; acc's -h/-hh (Hexen p-code). The .o files beside the sources were made by acc (data/README.md)."""

from __future__ import annotations

import os
import re

import pytest

from wadgym.acs import AcsError, compile_file, compile_source

DATA = os.path.join(os.path.dirname(__file__), "data", "zdoom")


def _acc_object(name: str) -> bytes:
    with open(os.path.join(DATA, f"{name}.o"), "rb") as file:
        return file.read()


def test_zdoom_target_gives_accs_bytes_for_what_vizdoom_lacks():
    source = os.path.join(DATA, "zdoomonly.acs")
    assert compile_file(source, target="zdoom") == _acc_object("zdoomonly")
    with pytest.raises(AcsError, match="KILL scripts are not supported by ViZDoom's engine"):
        compile_file(source)


@pytest.mark.parametrize("name, refused", [
    ("ConsoleCommand(\"echo\");", "refuses console commands"),
    ("int p = PlayerIsSpectator(0);", "CALLFUNC 101 is from Zandronum"),
    ("Floor_Stop(1);", "line special 275 comes from newer ZDoom/GZDoom"),
    ("int c = APROP_Counter0;", "know properties 0..43 only"),
    ("CreateTranslation(1, 0:1=#[1, 2, 3]);", "colourised (#) and tinted (@) translation ranges"),
])
def test_each_zdoom_only_name_compiles_for_zdoom_and_is_refused_with_its_reason_for_vizdoom(name, refused):
    source = f'#include "zcommon.acs"\nscript 1 OPEN {{ {name} }}\n'
    assert compile_source(source, target="zdoom")
    with pytest.raises(AcsError, match=re.escape(refused)):
        compile_source(source, target="vizdoom")


@pytest.mark.parametrize("call, refused", [
    ("Wide(2);", "Wide is line special 300, out of range for ViZDoom's engine (0..255"),
    ("Far();", "Far is CALLFUNC index 40000, out of range (1..32767"),
])
def test_a_special_over_255_and_a_callfunc_over_32767_declared_by_the_file(call, refused):
    # The declarations compile for both targets (acc takes them as written); a call is refused for vizdoom.
    declarations = "special 300:Wide(1);\nspecial -40000:Far(0);\n"
    assert compile_source(declarations + "script 1 OPEN { }\n") == \
        compile_source(declarations + "script 1 OPEN { }\n", target="zdoom") == compile_source("script 1 OPEN { }\n")
    source = declarations + f"script 1 OPEN {{ {call} }}\n"
    assert compile_source(source, target="zdoom")
    with pytest.raises(AcsError, match=re.escape(refused)):
        compile_source(source)


def test_event_scripts_take_three_arguments():
    with pytest.raises(AcsError, match="exactly three arguments"):
        compile_source("script 1 (int a) EVENT { }\n", target="zdoom")


def test_hexen_pcode_as_acc_h():
    source = os.path.join(DATA, "hexen.acs")
    for target in ("zdoom", "vizdoom"):
        assert compile_file(source, target=target, hexen=True) == _acc_object("hexen")
    assert compile_file(source, target="zdoom") != _acc_object("hexen")


def test_hexen_pcode_refuses_newer_features_and_hh_upgrades_them_as_acc():
    source = os.path.join(DATA, "hexenup.acs")
    with pytest.raises(AcsError, match=r"not compatible with Hexen's p-code \(-h\): the scripts use functions"):
        compile_file(source, target="zdoom", hexen=True)
    assert compile_file(source, target="zdoom", hexen="warn") == _acc_object("hexenup")


def test_bad_target_or_hexen_values_are_a_valueerror_naming_the_valid_ones():
    with pytest.raises(ValueError, match="valid: vizdoom, zdoom"):
        compile_source("script 1 OPEN { }", target="gzdoom")
    with pytest.raises(ValueError, match="acc's -hh"):
        compile_source("script 1 OPEN { }", hexen="yes")


def test_the_disassembler_names_accs_script_types_and_operands():
    from wadgym.acs.dis import disassemble

    listing = disassemble(_acc_object("zdoomonly"))
    assert "KILL*" in listing and "REOPEN*" in listing and "EVENT*" in listing
    assert "SETSTYLEDIRECT 1" in listing and "LSPEC5EX 275" in listing and "TRANSLATIONRANGE5" in listing


HEXEN_PROGRAM = """
#include "zcommon.acs"
global int 1:picked;
global int 60:done;

script 1 ENTER
{
    int i;
    for (i = 0; i < 4; i++)
    {
        switch (i)
        {
        case 1:
            picked += 10;
            break;
        case 3:
            picked += 1000;
            break;
        default:
            picked += 100;
        }
    }
    done = 1;
}
"""


def test_hexen_pcode_runs_in_vizdoom(tmp_path):
    """acc -h's output (Hexen's layout, CASEGOTO chains, 4-byte p-codes) is a lump ViZDoom runs."""
    import vizdoom as vzd

    from wadgym.envs.runtime.engine import start_game
    from wadgym.wads import Level, MapBuilder, build_wad, write_wad

    behavior = compile_source(HEXEN_PROGRAM, target="vizdoom", hexen=True)
    assert behavior[:4] == b"ACS\0" and b"ACSE" not in behavior and b"ACSe" not in behavior
    m = MapBuilder()
    m.add_room(0, 0, 512, 512)
    m.add_player_start(256, 256)
    path = tmp_path / "hexen.wad"
    write_wad(path, build_wad([Level(map=m, name="MAP01", behavior=behavior)]))
    game = start_game(path, variables=[vzd.GameVariable.USER1, vzd.GameVariable.USER60], seed=1)
    try:
        game.advance_action(5)
        picked, done = game.get_state().game_variables
    finally:
        game.close()
    assert (picked, done) == (1210, 1)
