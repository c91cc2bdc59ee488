"""`wadgym build` in-process, the rooms demo scenario in the engine, and build_scenario_wad."""

from __future__ import annotations

import textwrap

import pytest
import vizdoom as vzd

from wadgym.cli import main
from wadgym.envs.scenarios import build_scenario_wad
from wadgym.wads import read_lumps


def test_build_rooms_with_preview_seed_and_overrides(tmp_path, capsys):
    wad, png = tmp_path / "rooms.wad", tmp_path / "rooms.png"
    code = main(["build", "rooms", "-o", str(wad), "--preview", str(png), "--seed", "3", "--set", "n_items=2",
                 "--set", "door=false"])
    assert code == 0
    assert [name for name, _ in read_lumps(wad.read_bytes())][:2] == ["MAP01", "TEXTMAP"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"wrote {wad}" in capsys.readouterr().out
    assert wad.read_bytes() == build_scenario_wad("rooms", {"n_items": 2, "door": False}, seed=3)
    assert wad.read_bytes() != build_scenario_wad("rooms", {"n_items": 2, "door": False}, seed=4)


def test_build_defaults_to_the_default_scenario_in_the_current_folder(tmp_path, monkeypatch):
    from wadgym.envs.build import DEFAULT_SCENARIO

    monkeypatch.chdir(tmp_path)
    assert main(["build"]) == 0
    assert (tmp_path / f"{DEFAULT_SCENARIO}.wad").read_bytes() == build_scenario_wad(DEFAULT_SCENARIO)


def test_build_from_a_python_file(tmp_path, user_scenario):
    from wadgym.envs.scenarios import load_scenario

    source = tmp_path / "my_map.py"
    source.write_text(textwrap.dedent(user_scenario))
    assert main(["build", str(source), "-o", str(tmp_path / "mine.wad"), "--set", "size=256"]) == 0
    built = (tmp_path / "mine.wad").read_bytes()
    assert built == build_scenario_wad(load_scenario(str(source)), {"size": 256})
    assert built != build_scenario_wad(load_scenario(str(source)))  # --set took effect
    textmap = dict(read_lumps(built))["TEXTMAP"].decode()
    assert "x=256.0;" in textmap and "x=512.0;" not in textmap  # the room is 256 units wide


@pytest.mark.parametrize("scenario, setting, params", [
    ("rooms", "door=no", {"door": False}),
    ("rooms", "door=0", {"door": False}),
    ("rooms", "n_items=1e1", {"n_items": 10}),
    ("items", "player_speed=2", {"player_speed": 2.0}),
    ("items", "floor='FLOOR0_1'", {"floor": "FLOOR0_1"}),
])
def test_set_reads_values_as_every_key_value_option_does(tmp_path, scenario, setting, params):
    wad = tmp_path / "out.wad"
    assert main(["build", scenario, "-o", str(wad), "--set", setting]) == 0
    assert wad.read_bytes() == build_scenario_wad(scenario, params)


BAD_ACS = ("return Level(map=m, scripts='#include \"zcommon.acs\"\\nscript 1 ENTER\\n{\\n"
           "    GiveInventroy(\"Medikit\", 1);\\n}\\n')")


def test_an_acs_error_is_reported_at_its_line_not_as_a_traceback(tmp_path, capsys, user_scenario):
    source = tmp_path / "bad_acs.py"
    source.write_text(textwrap.dedent(user_scenario.replace("return Level(map=m)", BAD_ACS)))
    assert main(["build", str(source), "-o", str(tmp_path / "bad.wad")]) == 2
    err = capsys.readouterr().err
    assert ":4:5: error: unknown function 'GiveInventroy' (did you mean 'GiveInventory'?)" in err
    assert err.splitlines()[1:] == ['    GiveInventroy("Medikit", 1);', "    ^"]
    assert not (tmp_path / "bad.wad").exists()


@pytest.mark.parametrize("argv, message", [
    (["build", "nosuch"], "unknown scenario 'nosuch'; valid scenarios: "),
    (["build", "rooms", "--set", "bogus=1"], "unknown parameter 'bogus'; valid parameters: n_items, n_monsters"),
    (["build", "rooms", "--set", "n_items=many"], "--set n_items=many: not a valid int"),
    (["build", "rooms", "--set", "n_items"], "expected KEY=VALUE"),
    (["build", "rooms", "--preset", "huge"], "preset='huge' is not valid; choose one of 'default', 'empty', 'flat'"),
    (["build", "rooms", "--set", "step=40"], "step=40 is out of range; valid: 0 to 24"),
])
def test_build_errors_name_the_valid_choices_and_write_nothing(tmp_path, capsys, argv, message):
    assert main(argv + ["-o", str(tmp_path / "out.wad")]) != 0
    assert message in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_rooms_scenario_walk_from_the_hall_up_the_step_into_the_court(start_game, tmp_path):
    path = tmp_path / "rooms.wad"
    path.write_bytes(build_scenario_wad("rooms", "empty"))
    game = start_game(path, buttons=[vzd.Button.MOVE_FORWARD],
                      variables=[vzd.GameVariable.POSITION_X, vzd.GameVariable.POSITION_Y,
                                 vzd.GameVariable.POSITION_Z, vzd.GameVariable.ANGLE])
    assert tuple(game.get_state().game_variables) == (96, 256, 0, 0)
    for _ in range(60):
        game.make_action([1], 4)
    x, y, z, _ = game.get_state().game_variables
    assert x > 800 and z == 24                      # through the opening and up the step
