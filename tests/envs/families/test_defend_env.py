"""The defend family on the real engine: the ENTER script arms the player, ACS sends waves of monsters away
from the player and publishes their count and the wave, a kill gives +1 and removes the monster, damage
costs the penalty, death terminates, seeding fixes the waves, levels differ, bad parameters are refused.
(The contracts every id keeps are in test_registry.py.)"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from wadgym.envs.families import defend
from wadgym.envs.families.defend import MONSTERS, WEAPONS, DefendEnv
from wadgym.envs.scenarios.polygon import PILLAR_GAP, START_CLEARANCE, arena
from wadgym.wads import iwad, read_lumps


@pytest.fixture
def make_defend(wad_cache):
    """make_defend(**kwargs) -> DefendEnv on the session's WAD cache, closed at the end."""
    envs = []

    def make(**kwargs):
        env = DefendEnv(cache_dir=wad_cache, **{"num_levels": 1, **kwargs})
        envs.append(env)
        return env

    yield make
    for env in envs:
        env.close()


def engine_decorate() -> str:
    return "\n".join(iwad.engine_texts()[0])


def actor_body(name: str) -> str:
    match = re.search(rf"^\s*actor\s+{name}\b[^{{]*\{{(.*?)^\}}", engine_decorate(), re.I | re.S | re.M)
    assert match, name
    return match.group(1)


def test_monster_weapon_and_ammo_names_are_the_engines():
    for name in MONSTERS:
        assert iwad.actor_kind(name) == "monster", name
    for weapon, (ammo, most) in WEAPONS.items():
        assert "weapon" in iwad.ancestry(weapon) and "ammo" in iwad.ancestry(ammo)
        assert re.search(rf'Weapon\.AmmoType\s+"{ammo}"', actor_body(weapon), re.I), weapon
        assert re.search(rf"Inventory\.MaxAmount\s+{most}\b", actor_body(ammo)), ammo


@pytest.mark.parametrize("weapon, ammo", [("Pistol", 200), ("Shotgun", 7)])
def test_enter_script_arms_the_player(weapon, ammo, make_defend):
    env = make_defend(weapon=weapon, ammo=ammo, player_health=60)
    _, info = env.reset(seed=0)
    assert info["ammo"] == ammo and info["health"] == 60
    assert env.game.get_game_variable(defend.vzd.GameVariable.SELECTED_WEAPON) == (2 if weapon == "Pistol" else 3)
    for _ in range(3):  # the weapon is up: attacking spends ammo at once
        _, _, _, _, info = env.step(0)
    assert info["ammo"] < ammo


def test_waves_spawn_away_from_the_player_and_acs_counts_them(make_defend):
    env = make_defend(wave_size=2, wave_growth=1, spawn_interval=0, monsters=("Demon",), monster_speed=0.1)
    _, info = env.reset(seed=3)
    assert (info["wave"], info["monsters_alive"], info["monsters_spawned"]) == (1, 2, 2)
    positions = env.monster_positions()
    assert len(positions) == 2
    x, y, _ = env.player_pose()
    assert np.hypot(positions[:, 0] - x, positions[:, 1] - y).min() >= env.params.spawn_distance
    kinds = {o.name for o in env.game.get_state().objects if o.name != "DoomPlayer"}
    assert kinds == {"Demon"}


def test_a_kill_gives_the_reward_removes_the_monster_and_brings_the_next_wave(make_defend):
    env = make_defend(wave_size=1, wave_growth=1, spawn_interval=0, wave_delay=0, monsters=("ZombieMan",),
                      monster_speed=0.1, kill_reward=2.5)
    _, info = env.reset(seed=1)
    assert info["monsters_alive"] == 1 and info["kills"] == 0
    rewards = []
    while info["kills"] == 0:
        _, reward, terminated, _, info = env.step(env.reference_action())
        rewards.append(reward)
        assert not terminated and len(rewards) < 200
    assert rewards[-1] == 2.5 and sum(rewards) == 2.5 and info["score"] == 1
    while info["wave"] == 1:  # the dead monster's script runs; the next wave (2 monsters) follows at once
        _, _, _, _, info = env.step(1)
    _, _, _, _, info = env.step(1)
    assert info["wave"] == 2 and info["monsters_alive"] == 2 and info["monsters_spawned"] == 3
    assert len(env.monster_positions()) == 2  # the corpse is gone from the engine's objects


def test_damage_costs_the_penalty_and_death_terminates(make_defend):
    env = make_defend(player_health=40, monsters=("ShotgunGuy",), monster_speed=1.0, monster_health=0,
                      wave_size=4, spawn_interval=0, damage_penalty=0.5)
    _, info = env.reset(seed=0)
    total, terminated, steps = 0.0, False, 0
    while not terminated:
        _, reward, terminated, truncated, info = env.step(1)  # turn, never fire
        total += reward
        steps += 1
        assert not truncated and steps < 500
    assert info["health"] == 0 and info["kills"] == 0
    assert total == pytest.approx(-0.5 * 40)


def test_seed_fixes_the_waves(make_defend):
    env = make_defend(spawn_interval=0)

    def monsters(seed):
        env.reset(seed=seed)
        return env.monster_positions()

    np.testing.assert_array_equal(monsters(7), monsters(7))
    assert not np.array_equal(monsters(7), monsters(8))


def test_levels_differ_in_shape_size_pillars_and_look():
    p = defend.PRESETS["hard"]
    layouts = [arena(np.random.default_rng(s), p) for s in range(12)]
    assert len({len(layout.outline) for layout in layouts}) > 1 and len({layout.radius for layout in layouts}) > 1
    for layout in layouts:
        assert len(layout.pillars) == p.n_obstacles
        for x0, y0, x1, y1 in layout.pillars:  # inside the inner circle, clear of the start
            for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
                assert math.dist((x, y), layout.centre) <= layout.radius - PILLAR_GAP
            assert math.dist(((x0 + x1) / 2, (y0 + y1) / 2), layout.centre) >= START_CLEARANCE
    env = DefendEnv(preset="hard")
    maps = [dict(read_lumps(env.build_levels_wad(s, 1)))["TEXTMAP"] for s in (0, 1)]
    assert maps[0] != maps[1]
    scripts = dict(read_lumps(env.build_levels_wad(0, 1)))["SCRIPTS"].decode()
    assert "${" not in scripts and '"Shotgun"' in scripts and "global int 2:wave;" in scripts


def test_center_preset_covers_defend_the_center(make_defend):
    """preset="center" (docs/transfer.md): a round room (18 sides, as the original's), 26 bullets, five demons of
    one bullet at full speed, appearing 512 or more from the player; the random outlines do not include "round"."""
    p = defend.PRESETS["center"]
    assert all(len(arena(np.random.default_rng(s), p).outline) == 18 for s in range(3))
    assert {len(arena(np.random.default_rng(s), defend.PRESETS["default"]).outline) for s in range(40)} == {4, 5, 6, 8}
    assert (p.monster_speed, p.monster_health, p.ammo) == (1.0, 1, 26)
    slow = make_defend(preset="center", start_level=10_000, monster_speed=0.1)  # near where they appeared:
    slow.reset(seed=0)                                                         # 18 start tics at a tenth
    x, y, _ = slow.player_pose()                                               # of their speed
    positions = slow.monster_positions()
    assert len(positions) == 5 and np.hypot(positions[:, 0] - x, positions[:, 1] - y).min() >= 512 - 16
    env = make_defend(preset="center", start_level=10_000)
    _, info = env.reset(seed=0)
    assert (info["ammo"], info["monsters_alive"], info["wave"]) == (26, 5, 1)
    assert {o.name for o in env.game.get_state().objects if o.name != "DoomPlayer"} == {"Demon"}
    while info["kills"] == 0:  # one bullet each
        _, _, terminated, _, info = env.step(env.reference_action())
        assert not terminated
    assert info["ammo"] >= 26 - 3


def test_hard_monsters_keep_clear_of_pillars(make_defend):
    env = make_defend(preset="hard", wave_size=8, spawn_interval=0, monster_speed=0.1)
    env.reset(seed=0)
    layout = arena(np.random.default_rng(env.level_rng_seed(env.level_seed)), env.params)
    positions = env.monster_positions()
    assert len(positions) == 8
    for x0, y0, x1, y1 in layout.pillars:
        gaps = np.hypot(positions[:, 0] - (x0 + x1) / 2, positions[:, 1] - (y0 + y1) / 2)
        assert gaps.min() >= math.hypot(x1 - x0, y1 - y0) / 2
    assert np.hypot(*(positions - layout.centre).T).max() <= layout.radius - defend.SPAWN_CLEARANCE + 1


def test_reference_policy_kills_more_than_random(make_defend):
    env = make_defend(start_level=10_000)
    kills = {}
    for name in ("reference", "random"):
        _, info = env.reset(seed=0)
        rng = np.random.default_rng(0)
        for _ in range(150):
            action = env.reference_action() if name == "reference" else int(rng.integers(5))
            _, _, terminated, _, info = env.step(action)
            if terminated:
                break
        kills[name] = info["kills"]
    assert kills["reference"] >= 5 and kills["reference"] >= 2 * kills["random"]


@pytest.mark.parametrize("kwargs, message", [
    ({"wave_size": 0}, "wave_size=0 is out of range; valid: 1 to 32"),
    ({"monsters": ()}, r"monsters=\(\) must be a non-empty sequence of monster names"),
    ({"monsters": "Demon"}, "monsters='Demon' must be a non-empty sequence"),
    ({"monsters": ("Demon", "Cyberdemon")}, r"unknown monster\(s\) \['Cyberdemon'\]; valid: ZombieMan"),
    ({"weapon": "BFG9000"}, "weapon='BFG9000' is not valid; choose one of 'Pistol'"),
    ({"ammo": 300}, "ammo=300 is out of range; valid: 1 to 200"),
    ({"weapon": "Shotgun", "ammo": 60}, "ammo=60 is out of range; valid: 1 to 50"),
    ({"ammo": 0}, "ammo=0 is out of range"),
    ({"wave_size": 10, "max_wave": 4}, "wave_size=10 is more than max_wave=4"),
    ({"spawn_distance": 600}, "spawn_distance=600 leaves no room to spawn monsters .* up to 384"),
    ({"n_obstacles": 16, "obstacle_size": 256}, "n_obstacles=16 pillars of obstacle_size=256 do not fit"),
    ({"monster_speed": 0}, "monster_speed=0 is out of range"),
    ({"light_low": 200, "light_high": 100}, "light_low=200 is above light_high=100"),
    ({"shape": "circle"}, "shape='circle' is not valid; choose one of 'random', 'square'"),
    ({"kill_reward": float("nan")}, "kill_reward=nan must be a finite number"),
    ({"monstrs": ("Demon",)}, "unknown argument.*monstrs; valid: kill_reward, damage_penalty"),
])
def test_bad_arguments_raise_value_error(kwargs, message, wad_cache):
    with pytest.raises(ValueError, match=message):
        DefendEnv(cache_dir=wad_cache, **kwargs)


def test_monster_names_are_taken_in_any_case():
    assert DefendEnv.Params(monsters=["demon", "ZOMBIEMAN"]).monsters == ("Demon", "ZombieMan")


def test_reference_policy_needs_an_action_set_with_attack(make_defend):
    env = make_defend(action_set="basic")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="reference_action needs action_set 'attack' or 'attack_move', not 'basic'"):
        env.reference_action()
