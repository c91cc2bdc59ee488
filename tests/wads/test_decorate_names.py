"""DECORATE flags and properties: whatever the engine would refuse (it segfaults at init() instead of saying
why) is refused before a file is written, with the fix in the message; everything our table lists, and
everything the project's scenarios use, the engine loads."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from wadgym.envs.scenarios import SCENARIOS, build_scenario_levels, get_scenario
from wadgym.wads import Actor, Level, MapBuilder, build_wad, decorate_names, write_wad
from wadgym.wads.decorate import check_actors

# Runs in a child process, so an engine crash fails one test instead of killing the test session.
ENGINE_RUN = r"""
import json, sys
import vizdoom as vzd
game = vzd.DoomGame()
game.set_doom_scenario_path(sys.argv[1])
game.set_window_visible(False)
game.set_sound_enabled(False)
game.set_screen_resolution(vzd.ScreenResolution.RES_160X120)
game.set_available_buttons([vzd.Button.MOVE_FORWARD])
game.set_available_game_variables([vzd.GameVariable.ITEMCOUNT, vzd.GameVariable.HEALTH])
game.init()
for _ in range(int(sys.argv[2])):
    game.make_action([1])
itemcount, health = game.get_state().game_variables
game.close()
print(json.dumps({"itemcount": itemcount, "health": health}))
"""


def run_engine(wad_path, forward_tics: int = 1) -> dict:
    result = subprocess.run([sys.executable, "-c", ENGINE_RUN, str(wad_path), str(forward_tics)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"the engine failed on {wad_path} (exit {result.returncode}): {result.stderr[-2000:]}"
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
    (Actor("X", parent="Medikit", flags=["+ITEM.COUNTITEM"]), r"unknown class prefix 'ITEM.' \(the prefixes are 'ACTOR.'"),
    (Actor("X", parent="Column", properties={"Inventory.Amount": 5}),
     r"property 'Inventory.Amount' applies only to actors inheriting Inventory, and this one inherits Column -> Actor"),
    (Actor("X", parent="GreenArmor", properties={"Health.LowMessage": (25, "low")}),
     r"'Health.LowMessage' applies only to actors inheriting Health, .* GreenArmor -> BasicArmorPickup -> Armor"),
    (Actor("X", parent="Armor", properties={"Armor.SaveAmount": 50}),
     r"'Armor.SaveAmount' applies only to actors inheriting BasicArmorPickup or BasicArmorBonus"),
    (Actor("X", parent="Column", flags=["+INVENTORY.ALWAYSPICKUP"]),
     r"flag '\+INVENTORY.ALWAYSPICKUP' applies only to actors inheriting Inventory"),
    (Actor("X", parent="Column", flags=["+ALWAYSPICKUP"]), r"flag '\+ALWAYSPICKUP' applies only to actors inheriting Inventory"),
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
]


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
    for name in SCENARIOS:
        for preset in get_scenario(name).PRESETS:
            actors += [a for level in build_scenario_levels(name, preset) for a in level.actors]
    items = get_scenario("items")
    actors += [items.item_actor(items.ItemRules(item_parent=parent)) for parent in items.ITEM_PARENTS]
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
