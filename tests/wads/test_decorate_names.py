"""DECORATE flags, properties and states: whatever the engine would refuse (it segfaults at init() instead of
saying why) is refused before a file is written, with the fix in the message; everything our table lists,
every action function the engine declares, and everything the project's scenarios use, the engine loads."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from wadgym.envs.scenarios import build_scenario_levels, get_scenario, scenarios
from wadgym.wads import Actor, Level, MapBuilder, build_wad, decorate_names, decorate_states, iwad, write_wad
from wadgym.wads.decorate import check_actors

# Runs in a child process, so an engine crash fails one test instead of killing the test session.
ENGINE_RUN = r"""
import json, sys
import vizdoom as vzd
from wadgym.envs.runtime.engine import start_game
game = start_game(sys.argv[1], buttons=[vzd.Button.MOVE_FORWARD],
                  variables=[vzd.GameVariable.ITEMCOUNT, vzd.GameVariable.HEALTH])
for _ in range(int(sys.argv[2])):
    game.make_action([1])
itemcount, health = game.get_state().game_variables
game.close()
print(json.dumps({"itemcount": itemcount, "health": health}))
"""


def run_engine(wad_path, forward_tics: int = 1) -> dict:
    result = subprocess.run([sys.executable, "-c", ENGINE_RUN, str(wad_path), str(forward_tics)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, (f"the engine failed on {wad_path} (exit {result.returncode}): "
                                    f"{result.stderr[-2000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def level_with(actors, things=()) -> Level:
    """A 512x512 room, the player at (64, 256) facing east, `things` as (name, x, y)."""
    m = MapBuilder()
    m.add_room(0, 0, 512, 512)
    m.add_player_start(64, 256, angle=0)
    for name, x, y in things:
        m.add_thing(name, x, y)
    return Level(map=m, name="MAP01", actors=list(actors))


# --- refused before writing ----------------------------------------------------------------------

BAD_ACTORS = [
    (Actor("X", parent="Medikit", properties={"Health.Amount": 0}),
     r"actor 'X': unknown property 'Health.Amount' \(did you mean 'Inventory.Amount'\?\); an actor inheriting "
     r"Medikit takes the plain Actor properties and the Health.\*, Inventory.\*.*valid_properties\('Medikit'\)"),
    (Actor("X", parent="Medikit", properties={"Scal": 2.0}), r"unknown property 'Scal' \(did you mean 'Scale'"),
    (Actor("X", parent="Medikit", flags=["+COUNTITM"]),
     r"actor 'X': unknown flag '\+COUNTITM' \(did you mean '\+COUNTITEM'.*valid_flags\('Medikit'\) lists all"),
    (Actor("X", parent="Medikit", flags=["-INVENTORY.ALWAYSPIKUP"]),
     r"unknown flag '-INVENTORY.ALWAYSPIKUP' \(did you mean '-INVENTORY.ALWAYSPICKUP'"),
    (Actor("X", parent="Medikit", flags=["+ITEM.COUNTITEM"]),
     r"unknown class prefix 'ITEM.' \(the prefixes are 'ACTOR.'"),
    (Actor("X", parent="Column", properties={"Inventory.Amount": 5}),
     r"property 'Inventory.Amount' applies only to actors inheriting Inventory, and this one inherits Column -> Actor"),
    (Actor("X", parent="GreenArmor", properties={"Health.LowMessage": (25, "low")}),
     r"'Health.LowMessage' applies only to actors inheriting Health, .* GreenArmor -> BasicArmorPickup -> Armor"),
    (Actor("X", parent="Armor", properties={"Armor.SaveAmount": 50}),
     r"'Armor.SaveAmount' applies only to actors inheriting BasicArmorPickup or BasicArmorBonus"),
    (Actor("X", parent="Column", flags=["+INVENTORY.ALWAYSPICKUP"]),
     r"flag '\+INVENTORY.ALWAYSPICKUP' applies only to actors inheriting Inventory"),
    (Actor("X", parent="Column", flags=["+ALWAYSPICKUP"]),
     r"flag '\+ALWAYSPICKUP' applies only to actors inheriting Inventory"),
    (Actor("X", parent="Medikit", properties={"Scale": "big"}), r"property 'Scale' takes a number; got 'big'"),
    (Actor("X", parent="Medikit", properties={"Scale": (1, 2)}), r"property 'Scale' takes a number; got \(1, 2\)"),
    (Actor("X", parent="Medikit", properties={"Health.LowMessage": 25}),
     r"'Health.LowMessage' takes an integer, a string; got 25"),
    (Actor("X", parent="DoomImp", properties={"Monster": False}), r"'Monster' takes no value: give True"),
    (Actor("X", parent="Pistol", properties={"Weapon.AmmoType": "Clp"}),
     r"'Weapon.AmmoType': 'Clp' names no actor class \(did you mean 'Clip'"),
    (Actor("X", parent="Pistol", properties={"Weapon.AmmoType": "Medikit"}), r"'Medikit' is not a kind of Ammo"),
    (Actor("X", parent="Medikit", properties={"RenderStyle": "Glow"}), r"'Glow' is not one of NONE, NORMAL"),
    (Actor("X", parent="Medikit", properties={"Gravity": -1.0}), r"'Gravity': -1.0 is below the engine's minimum 0"),
    (Actor("X", parent="DoomImp", properties={"Translation": "red"}), r"'red' is not a translation range"),
    (Actor("X", parent="DoomImp", properties={"Activation": 1}), r"'Activation' takes flag names"),
    (Actor("X", parent="Medikit", properties={"Spawn": "Medikit::Spawn"}), r"'Spawn' is a state, not a property"),
    # Strings: always quoted by wadgym, on one line.
    (Actor("X", parent="Medikit", properties={"Inventory.PickupMessage": "a\nb"}),
     r"'Inventory.PickupMessage': 'a\\nb' contains a control character"),
    (Actor("X", parent="Medikit", properties={"Inventory.PickupMessage": '"Got it"'}),
     r"strings are quoted for you: give 'Got it', not '\"Got it\"'"),
    # Expressions: one '(...)' group the engine's expression grammar reads.
    (Actor("X", parent="DoomImpBall", properties={"Damage": "(1 +"}),
     r"'Damage': the expression '\(1 \+' has unbalanced"),
    (Actor("X", parent="DoomImpBall", properties={"Damage": "(1) + 2"}), r"must be one '\(...\)' group"),
    (Actor("X", parent="DoomImpBall", properties={"Damage": "(randum(1, 8))"}),
     r"calls 'randum', which is not an expression function"),
    (Actor("X", parent="DoomImpBall", properties={"Damage": "(3 / 0)"}), r"divides by zero"),
    (Actor("X", parent="DoomImpBall", properties={"Damage": "(1.5 | 2)"}), r"uses '\|' on a fractional number"),
]

# States: actor X (a Medikit) with these lines under "Spawn", the number of the line refused and the
# start of the message after "actor 'X': state 'Spawn' line N 'LINE': ".
BAD_STATES = [
    (["MEDI A"], 1, r"a frame line is 'SPRT FRAMES TICS"),
    (["MEDI", "Stop"], 1, r"a frame line is"),
    (["MEDI A -1 {", "Stop"], 1, r"has an unexpected character '\{'"),
    (["MEDI A -1\nStop"], 1, r"contains a control character \(a line break\)"),
    (["MEDX A -1"], 1, r"unknown sprite 'MEDX' \(did you mean 'MEDI'"),
    (["MEDIC A -1"], 1, r"sprite 'MEDIC' must be exactly 4 letters"),
    (["MEDI 1 -1"], 1, r"frames '1' must be letters A-Z"),
    (["MEDI A forever"], 1, r"the duration must be a whole number of tics, -1 \(forever\) or random\(MIN, MAX\)"),
    (["MEDI A random(1 5)"], 1, r"the duration must be .* or random\(MIN, MAX\)"),
    (["MEDI A - 1"], 1, r"the duration must be"),
    (["MEDI A 5 BRIGHTER"], 1, r"unknown action function or frame option 'BRIGHTER'"),
    (["MEDI A 5 OFFSET(1)"], 1, r"write OFFSET\(X, Y\) with whole numbers"),
    (["MEDI A 5 A_Loook"], 1, r"unknown action function or frame option 'A_Loook' \(did you mean 'A_Look'.*"
                           r"action_functions\('Medikit'\)"),
    (["MEDI A 5 A_Look()"], 1, r"has an empty argument \(the engine refuses '\(\)'"),
    (["MEDI A 5 A_Look(1)"], 1, r"A_Look takes no arguments"),
    (["MEDI A 5 A_Jump(128)"], 1,
     r"A_Jump needs at least 2 arguments, got 1: A_Jump\(int chance = 256, state label, \.\.\.\)"),
    (["MEDI A 5 A_Jump(128, Spawn)"], 1, r"A_Jump argument 2 \(Spawn\): takes a quoted state label"),
    (["MEDI A 5 A_Jump(128, \"Spwn\")"], 1, r"no state 'Spwn' in this actor or its ancestors \(did you mean 'spawn'"),
    (["MEDI AB 5 A_Jump(128, 1)"], 1, r"a jump offset needs a frame line with one frame letter"),
    (["MEDI A 5 A_SetScale(1.5"], 1, r"arguments go in parentheses right after the name"),
    (["MEDI A 5 A_SetScale((1.5)"], 1, r"has unbalanced parentheses"),
    (["MEDI A 5 A_SetScale(\"big\")"], 1, r"has the string \"big\", where a number belongs"),
    (["MEDI A 5 A_SetAngle(angel + 1)"], 1, r"uses 'angel', which is not a constant or member variable .*'ANGLE'"),
    (["MEDI A 5 A_SpawnItem(\"Medikt\")"], 1, r"'Medikt' names no actor class"),
    (["MEDI A 5 A_GiveInventory(\"DoomImp\")"], 1, r"'DoomImp' is not a kind of Inventory"),
    (["MEDI A 5 A_ZoomFactor(2)"], 1,
     r"action A_ZoomFactor belongs to actors inheriting Weapon, and this one inherits X -> Medikit"),
    (["MEDI A 5 HealThing(10)"], 1, r"line specials go through A_CallSpecial"),
    (["MEDI A 5", "Goto Spwn"], 2, r"no state 'Spwn'"),
    (["MEDI A 5", "Goto Spawn+1"], 2, r"Spawn\+1 is past the last state: Spawn has 1 states"),
    (["MEDI A 5", "Goto Column::Spawn"], 2, r"'Column' is not an ancestor of this actor \(X -> Medikit -> Health"),
    (["MEDI A 5", "Goto Super::Spawn+3"], 2, r"Spawn\+3 is past the last state"),
    (["MEDI A 5", "Stop now"], 2, r"Stop stands alone on its line"),
    (["Loop"], 1, r"Loop must follow a frame line"),
]


@pytest.mark.parametrize("lines, number, message", BAD_STATES, ids=[str(i) for i in range(len(BAD_STATES))])
def test_bad_state_lines_are_refused_naming_actor_state_and_line(tmp_path, lines, number, message):
    actor = Actor("X", parent="Medikit", ednum=20001, states={"Spawn": lines})
    with pytest.raises(ValueError) as refused:
        write_wad(tmp_path / "bad.wad", build_wad([level_with([actor])]))
    assert str(refused.value).startswith(f"actor 'X': state 'Spawn' line {number} {lines[number - 1]!r}: ")
    assert re.search(message, str(refused.value))
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("states, message", [
    ({"Spawn": []}, r"state 'Spawn' has no frame lines"),
    ({"Spawn": "MEDI A -1"}, r"state 'Spawn': give its frame lines as a list of strings"),
    ({"Sp awn": ["MEDI A -1"]}, r"state label 'Sp awn' is not a name"),
    ({"Stop": ["MEDI A -1"]}, r"state label 'Stop' is not a name"),
])
def test_bad_state_labels_are_refused(states, message):
    with pytest.raises(ValueError, match=r"^actor 'X': " + message):
        check_actors([Actor("X", parent="Medikit", states=states)])


@pytest.mark.parametrize("actor, message", BAD_ACTORS, ids=[str(i) for i in range(len(BAD_ACTORS))])
def test_refused_with_the_fix_and_nothing_written(tmp_path, actor, message):
    with pytest.raises(ValueError, match=message):
        write_wad(tmp_path / "bad.wad", build_wad([level_with([actor])]))
    assert os.listdir(tmp_path) == []


def test_class_checks_follow_custom_parents():
    base = Actor("WadgymBase", parent="Column")
    child = Actor("WadgymChild", parent="WadgymBase", properties={"Inventory.Amount": 1})
    with pytest.raises(ValueError, match=r"actor 'WadgymChild': .* inherits WadgymBase -> Column -> Actor"):
        check_actors([base, child])
    ammo = Actor("WadgymAmmo", parent="Clip")
    gun = Actor("WadgymGun", parent="Pistol", properties={"Weapon.AmmoType": "WadgymAmmo"})
    check_actors([gun, ammo])   # a value may name a custom class defined later, as the engine allows


def test_valid_names_per_class():
    assert "+INVENTORY.ALWAYSPICKUP" not in decorate_names.valid_flags("Medikit")   # listed without prefix
    assert {"+ALWAYSPICKUP", "+COUNTITEM"} <= set(decorate_names.valid_flags("Medikit"))
    assert "+ALWAYSPICKUP" not in decorate_names.valid_flags("Column")
    assert {"Inventory.Amount", "Health.LowMessage", "Scale"} <= set(decorate_names.valid_properties("Medikit"))
    assert "Weapon.AmmoGive" not in decorate_names.valid_properties("Medikit")
    with pytest.raises(ValueError, match=r"unknown stock actor class 'Medikt' \(did you mean 'Medikit'"):
        decorate_names.valid_flags("Medikt")


# --- what the project uses still passes ----------------------------------------------------------

def project_actors(two_rooms) -> list[Actor]:
    actors = list(two_rooms().actors)
    for name in scenarios():
        for preset in get_scenario(name).PRESETS:
            actors += [a for level in build_scenario_levels(name, preset) for a in level.actors]
    from wadgym.envs.scenarios import placement

    actors += [placement.item_actor(placement.ItemRules(item_parent=parent)) for parent in placement.ITEM_PARENTS]
    return actors


def test_every_actor_the_project_uses_passes(two_rooms):
    actors = project_actors(two_rooms)
    assert actors and any(a.flags for a in actors) and any(a.properties for a in actors)
    for actor in actors:
        check_actors([actor])


# --- the engine agrees ---------------------------------------------------------------------------

def sample_value(prop: decorate_names.Property):
    """A value the property's parameters and limits allow: its required parameters only."""
    if prop.params == "0":
        return True
    simple = {"I": 1, "F": 1.0, "S": "WGYM", "T": "text", "X": 1, "C": "ff 00 00", "L": 0}
    values = []
    for letter in prop.params.replace("_", ""):
        if letter.islower():
            break
        if letter != "Z":
            values.append(simple.get(letter))
    limits = prop.limits
    if "values" in limits or "flags" in limits:
        values[0] = (limits.get("values") or limits["flags"]).split(",")[0]
    elif "class" in limits:
        values[0] = decorate_names.stock_class_chain(limits["class"])[0]
    return values[0] if len(values) == 1 else tuple(values)


def test_the_engine_loads_every_flag_and_property_of_the_table(tmp_path):
    actors = []
    for owner, flags in decorate_names.flag_lists().items():
        name = flags[next(iter(flags))].owner
        actors.append(Actor(f"WgymFlags{name}", parent=name, flags=[f"+{flag}" for flag in flags]))
        actors.append(Actor(f"WgymPrefixed{name}", parent=name, flags=[f"-{owner.upper()}.{flag}" for flag in flags]))
    for i, prop in enumerate(decorate_names.properties().values()):
        actors.append(Actor(f"WgymProperty{i}", parent=prop.owners[0], properties={prop.name: sample_value(prop)}))
    assert len(actors) == 2 * len(decorate_names.flag_lists()) + len(decorate_names.properties())
    path = tmp_path / "all_names.wad"
    write_wad(path, build_wad([level_with(actors)]))
    run_engine(path)


def test_every_action_function_the_engine_declares_passes_and_loads(tmp_path):
    """Each action function an imp may call, with every parameter given a sample of its type."""
    samples = {"x": "1", "y": "1.5", "s": '"imp/sight"', "t": '"text"', "l": '"Spawn"', "c": '"red"'}
    classes = {"inventory": '"Clip"', "weapon": '"Pistol"', "basicarmorbonus": '"ArmorBonus"',
               "specialspot": '"BossSpot"'}
    lines = []
    for action in sorted(decorate_states._callable(iwad.ancestry("DoomImp")).values(), key=lambda a: a.name):
        arguments = [classes.get(p.class_name.lower(), '"DoomImpBall"') if p.kind == "m" else samples[p.kind]
                     for p in action.parameters]
        lines.append(f"TROO A 1 {action.name}" + (f"({', '.join(arguments)})" if arguments else ""))
    assert len(lines) > 250 and any("A_Jump(" in line for line in lines)
    actor = Actor("WgymEveryAction", parent="DoomImp", states={"Test": lines + ["Stop"]})
    path = tmp_path / "actions.wad"
    write_wad(path, build_wad([level_with([actor])]))
    run_engine(path)


def test_custom_states_load_and_the_item_is_still_picked_up(tmp_path):
    states = {
        "Spawn": ["MEDI A 10 BRIGHT", "MEDI A random(2, 8) A_SetScale(1.5)",
                  '"####" "#" 5 A_Jump(128, "Spin", "Spawn")', "Loop"],
        "Spin": ["MEDI A 4 Offset(-1, 2) A_SetAngle(angle + random(-10, 10))",
                 'MEDI A 1 A_SpawnItemEx("Clip", 0, 0, 8, 0, 0, frandom(1, 2), 0, SXF_NOCHECKPOSITION)',
                 "Goto Spawn+1"],
    }
    item = Actor("WadgymStatesItem", parent="Medikit", ednum=20001, flags=["+COUNTITEM", "+INVENTORY.ALWAYSPICKUP"],
                 properties={"Inventory.PickupMessage": '"quoted'}, states=states)
    imp = Actor("WadgymStatesImp", parent="DoomImp", states={
        "Missile": ["TROO EF 8 A_FaceTarget", 'TROO G 6 A_CustomMissile("DoomImpBall", 32, 0, 0, CMF_AIMDIRECTION)',
                    "Goto See"],
        "Death": ["TROO I 8", "Goto Super::Death+1"]})
    ball = Actor("WadgymStatesBall", parent="DoomImpBall", properties={"Damage": "(random(1, 8) * 3)"},
                 states={"Death": ["BAL1 CDE 6 BRIGHT", "Stop"]})
    text = item.to_decorate()
    assert '\tInventory.PickupMessage "\\"quoted"\n' in text and "\tSpin:\n\t\tMEDI A 4 Offset(-1, 2)" in text
    path = tmp_path / "states.wad"
    write_wad(path, build_wad([level_with([item, imp, ball], things=[("WadgymStatesItem", 192, 256)])]))
    assert run_engine(path, forward_tics=35) == {"itemcount": 1.0, "health": 100.0}


def test_an_item_with_class_properties_and_flags_loads_and_is_picked_up(tmp_path):
    item = Actor("WadgymShowcaseItem", parent="Medikit", ednum=20001,
                 flags=["+INVENTORY.ALWAYSPICKUP", "+COUNTITEM", "+FLOATBOB", "-inventory.quiet"],
                 properties={"Inventory.PickupMessage": "Got it", "Inventory.Amount": 0, "Scale": 0.75,
                             "Radius": 24, "Height": 20, "RenderStyle": "Translucent", "Alpha": 0.8,
                             "Health.LowMessage": (25, "low"), "Translation": "112:127=176:191"})
    imp = Actor("WadgymShowcaseImp", parent="DoomImp",
                properties={"Monster": True, "PainChance": ("Fire", 100), "BloodColor": (255, 0, 0),
                            "DropItem": ("WadgymShowcaseItem", 255, 1), "Obituary": "%o met an imp"})
    text = imp.to_decorate()
    assert "\tMonster\n" in text and '\tPainChance "Fire", 100\n' in text and "\tBloodColor 255, 0, 0\n" in text
    assert '\tDropItem "WadgymShowcaseItem", 255, 1\n' in text
    path = tmp_path / "showcase.wad"
    write_wad(path, build_wad([level_with([item, imp], things=[("WadgymShowcaseItem", 192, 256)])]))
    state = run_engine(path, forward_tics=35)
    assert state == {"itemcount": 1.0, "health": 100.0}
