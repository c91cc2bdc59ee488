"""DoomDeathmatchBots on the real engine: the bots join and fight in one engine with no socket open, the
scoreboard is the engine's own count, the same seed and actions play the same episode (bots included), the
bots' definitions are wadgym's own file, the scripted reference aims at live bots (the map's ACS tells it
where) and outscores random play, the aim shaping pays the change of its potential, the bots play ViZDoom's
own deathmatch maps (wad=), every episode reports its figures in the field's units (info["match"]) and a
match clock ends it, respawn="walls" respawns the players at the arena's edge, and bad arguments are refused
before any engine starts. (The contracts every id keeps
are in test_registry.py.)"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
import vizdoom as vzd

from wadgym.envs.aiming import bearing
from wadgym.envs.families.deathmatch import (
    BOT_FIELDS,
    BOT_SKILLS,
    BOTS_PRESETS,
    DEATHMATCH_STARTS,
    MAX_BOTS,
    NO_TARGET,
    PRESETS,
    START_CLEARANCE,
    BotsParams,
    DeathmatchBotsEnv,
    Params,
    bots_cfg,
    build,
    spot_radius,
)
from wadgym.envs.match_figures import TICS_PER_MINUTE
from wadgym.envs.params import make_params
from wadgym.envs.runtime.engine import child_engines
from wadgym.envs.scenarios.polygon import arena

STEPS = 300


@pytest.fixture
def make_bots(wad_cache):
    """make_bots(**kwargs) -> DeathmatchBotsEnv on the session's WAD cache (level 0 only), closed at the end."""
    envs = []

    def make(cls=DeathmatchBotsEnv, **kwargs):
        env = cls(cache_dir=wad_cache, **{"num_levels": 1, **kwargs})
        envs.append(env)
        return env

    yield make
    for env in envs:
        env.close()


def play(env, seed: int, steps: int = STEPS):
    """A seeded episode with fixed random actions: the digest of the observations and the infos per step."""
    actions = np.random.default_rng(seed).integers(0, env.action_space.n, size=steps)
    observation, info = env.reset(seed=seed)
    digest, infos = hashlib.sha256(observation.tobytes()), [info]
    for action in actions:
        observation, _, _, _, info = env.step(int(action))
        digest.update(observation.tobytes())
        infos.append(info)
    return digest.hexdigest(), [(i["frags"], i["deaths"], i["bot_frags"], i["health"]) for i in infos]


def test_bots_fight_and_the_scoreboard_is_the_engines_count(make_bots):
    env = make_bots(bots=3, bot_skill=3)
    _, info = env.reset(seed=0)
    game = env.game
    assert game.get_game_variable(vzd.GameVariable.PLAYER_COUNT) == 4
    assert info["bot_frags"] == (0, 0, 0) and info["rank"] == 1
    assert info["pickups_placed"] == 6 and info["pickup_positions"].shape == (6, 2) and info["pickup_positions"].all()
    start = [game.get_game_variable(getattr(vzd.GameVariable, f"PLAYER{k}_FRAGCOUNT")) for k in range(1, 5)]
    returns = 0.0
    for action in np.random.default_rng(0).integers(0, env.action_space.n, size=STEPS):
        _, reward, terminated, truncated, info = env.step(int(action))
        returns += reward
        engine = [game.get_game_variable(getattr(vzd.GameVariable, f"PLAYER{k}_FRAGCOUNT")) for k in range(1, 5)]
        assert engine[0] == game.get_game_variable(vzd.GameVariable.FRAGCOUNT)  # the agent is player 1
        assert (info["frags"], *info["bot_frags"]) == tuple(int(e - s) for e, s in zip(engine, start))
        assert info["rank"] == 1 + sum(f > info["frags"] for f in info["bot_frags"])
        assert not terminated and not truncated  # the agent respawns
    # This seed's episode: the bots score, and kill the agent (each death -1).
    assert sum(info["bot_frags"]) > 0 and info["deaths"] > 0
    assert returns == info["frags"] - info["deaths"]


def test_same_seed_and_actions_play_the_same_episode_bots_included(make_bots):
    first, second = make_bots(), make_bots()
    play(second, 7, steps=50)  # another history first: each episode reseeds the engine (a new game, `map`)
    for seed in (1, 2):
        a, b = play(first, seed), play(second, seed)
        assert a == b
        assert any(frags for _, _, frags, _ in a[1])  # the bots did something to compare
    assert play(first, 3)[0] != play(second, 4)[0]


class WithObjects(DeathmatchBotsEnv):
    """The bots env with the engine's object list on (to find the players the map's ACS names)."""

    def configure_game(self, game) -> None:
        super().configure_game(game)
        game.set_objects_info_enabled(True)


def test_scripted_reference_aims_at_players_and_outscores_random(make_bots):
    env = make_bots(WithObjects, num_levels=2)  # levels 0 and 1
    scores = {}
    for name in ("reference", "random"):
        frags, targets, rng = [], 0, np.random.default_rng(0)
        for seed in (0, 1):
            env.reset(seed=seed)
            for _ in range(STEPS):
                action = env.reference_action() if name == "reference" else int(rng.integers(env.action_space.n))
                _, _, _, _, info = env.step(action)
                if env._target[0] == NO_TARGET:
                    continue
                # The published target is where a player other than the agent stands (the objects are the
                # engine's; the agent's own is the one at its pose).
                x0, y0, _ = env.player_pose()
                players = [(o.position_x, o.position_y) for o in env.last_state.objects if o.name == "DoomPlayer"
                           and np.hypot(o.position_x - x0, o.position_y - y0) > 1]
                assert min(np.hypot(x - env._target[0], y - env._target[1]) for x, y in players) <= 2
                targets += 1
            frags.append(info["frags"])
        assert targets > STEPS  # a bot was in sight in most steps
        scores[name] = frags
    # These seeds' episodes (the engine is seeded: the same every run; 3 frags against 1 when written).
    assert sum(scores["reference"]) > sum(scores["random"]), scores


def test_aim_shaping_pays_the_change_of_the_aim_potential(make_bots):
    # aim_reward: each step adds the change of aim_reward * (1 - |off| / 180), off the degrees between the
    # agent's aim and the nearest live bot in sight (0 with none); the rest of the reward stays whole frags
    # and deaths (damage_reward 0). The scripted reference turns towards bots, so the shaping pays.
    env = make_bots(aim_reward=0.5)

    def potential():
        if env._target[0] == NO_TARGET:
            return 0.0
        off, _ = bearing(env.player_pose(), env._target)
        return 0.5 * (1 - abs(off) / 180)

    env.reset(seed=0)
    before, shaping = potential(), []
    for _ in range(STEPS // 2):
        _, reward, _, _, _ = env.step(env.reference_action())
        now = potential()
        shaping.append(now - before)
        assert reward - shaping[-1] == pytest.approx(round(reward - shaping[-1]), abs=1e-9)
        before = now
    assert max(shaping) > 0 > min(shaping)
    assert abs(sum(shaping)) <= 0.5 + 1e-9


def test_one_engine_opens_no_socket(make_bots):
    env = make_bots(bots=2)
    before = set(child_engines())
    env.reset(seed=0)
    for _ in range(20):
        env.step(0)
    engines = [e for e in child_engines() if e not in before]
    assert len(engines) == 1
    assert engines[0].net_connections(kind="all") == []  # no socket of any kind, network or Unix


def test_bots_file_is_wadgyms_own_and_a_function_of_the_arguments(make_bots):
    text = bots_cfg(BotsParams(bots=2, bot_skill=(1, 5)))
    assert text.count("{") == 2 and "name        Bot1" in text and "name        Bot2" in text
    for name, value in zip(BOT_FIELDS, BOT_SKILLS[5]):
        assert f"    {name:<11} {value}\n" in text.split("}")[1]
    env = make_bots(bots=2, bot_skill=(1, 5))
    path = env.bots_file()
    assert path.read_text() == text and path == make_bots(bots=2, bot_skill=(1, 5)).bots_file()
    assert make_bots(bots=2, bot_skill=4).bots_file() != path


@pytest.mark.parametrize("kwargs, words", [
    ({"bots": -1}, "bots=-1 is not valid: a whole number from 0 to 7"),
    ({"bots": MAX_BOTS + 1}, "bots=8 is not valid: a whole number from 0 to 7 (the arena has 8 deathmatch starts"),
    ({"bots": 2.5}, "bots=2.5 is not valid"),
    ({"bot_skill": 0}, "bot_skill=0 is not valid: a level, one of 1, 2, 3, 4, 5"),
    ({"bot_skill": 6}, "bot_skill=6 is not valid"),
    ({"bots": 3, "bot_skill": (1, 2)}, "bot_skill=(1, 2) is not valid: one level per bot (3)"),
    ({"n_players": 2}, "n_players=2 is not valid: DeathmatchBotsEnv has one agent"),
    ({"aim_reward": -0.5}, "aim_reward=-0.5 is out of range; valid: 0 or more"),
    ({"wad": "vizdoom:health_gathering"}, "has no deathmatch start (a thing of editor number 11"),  # init would crash
    ({"wad": "vizdoom:basic"}, "valid: a map made for deathmatch, e.g. vizdoom:cig or vizdoom:multi_deathmatch"),
    ({"wad": "vizdoom:cig", "aim_reward": 0.5}, "aim_reward follows the nearest bot that the family's arenas' ACS"),
    ({"wad": "vizdoom:cig", "n_obstacles": 2}, "n_obstacles: scenario parameters shape generated levels"),
    ({"start_weapon": "BFG9000"}, "start_weapon='BFG9000' is not valid; choose one of '', 'Shotgun'"),
    ({"start_weapon": "RocketLauncher", "start_ammo": 51}, "start_ammo=51 is out of range; valid: 0 to 50"),
    ({"start_ammo": 10}, "start_ammo=10 needs a start_weapon (one of Shotgun, Chaingun"),
    ({"respawn": "corners"}, "respawn='corners' is not valid; choose one of 'centre', 'walls'"),
    ({"match_minutes": 0}, "match_minutes=0 is not valid"),
    ({"match_minutes": -4}, "match_minutes=-4 is out of range"),
    ({"cache_dir": "a folder"}, "would have a space in its path"),
])
def test_bad_arguments_are_refused_before_any_engine_starts(kwargs, words, wad_cache, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # where a relative cache_dir goes
    before = set(child_engines())
    with pytest.raises(ValueError) as caught:
        DeathmatchBotsEnv(**{"cache_dir": wad_cache, "num_levels": 1, **kwargs})
    message = str(caught.value)
    assert words in message and "\n" not in message
    assert set(child_engines()) == before


def engine_count(env, name: str) -> int:
    return int(env.game.get_game_variable(getattr(vzd.GameVariable, name)))


def check_figures(env, info, start: dict[str, int], steps: int) -> None:
    """info["match"] against the engine's own counts since the reset, and its ratios against its counts."""
    m = info["match"]
    assert m["frags"] == info["frags"] == engine_count(env, "FRAGCOUNT") - start["FRAGCOUNT"]
    assert m["deaths"] == info["deaths"] == engine_count(env, "DEATHCOUNT") - start["DEATHCOUNT"]
    assert m["damage_dealt"] == info["damage_dealt"] == engine_count(env, "DAMAGECOUNT") - start["DAMAGECOUNT"]
    assert m["damage_taken"] == engine_count(env, "DAMAGE_TAKEN") - start["DAMAGE_TAKEN"]
    assert m["minutes"] == pytest.approx(steps * env.frame_skip / TICS_PER_MINUTE)
    assert m["kills"] == m["frags"] + m["suicides"]
    assert m["kd_ratio"] == pytest.approx(m["kills"] / max(m["deaths"], 1))   # no death: the kills
    assert m["frags_per_minute"] == pytest.approx(m["frags"] / m["minutes"])


COUNTED = ("FRAGCOUNT", "DEATHCOUNT", "DAMAGECOUNT", "DAMAGE_TAKEN")


@pytest.mark.parametrize("wad", ["vizdoom:cig", "vizdoom:multi_deathmatch"])
def test_bots_play_vizdooms_own_deathmatch_maps(make_bots, wad):
    # cig.wad (the AI competition's map: 25 deathmatch starts, no player-1 start; MAP01 gives everyone a rocket
    # launcher) and multi_deathmatch.wad (ViZDoom's two-player example: its ACS sets health 15 and ends the map
    # when player 1 or 2 dies), read from the installed vizdoom package.
    bots = 3
    env = make_bots(wad=wad, bots=bots)
    _, info = env.reset(seed=0)
    assert engine_count(env, "PLAYER_COUNT") == 1 + bots and info["level_seed"] is None
    assert "pickups_placed" not in info and "pickup_positions" not in info   # the family's arenas' facts only
    assert info["match"]["minutes"] == 0 and info["bot_frags"] == (0,) * bots
    start = {name: engine_count(env, name) for name in COUNTED}
    rng = np.random.default_rng(0)
    for steps in range(1, STEPS + 1):
        _, _, terminated, truncated, info = env.step(int(rng.integers(env.action_space.n)))
        check_figures(env, info, start, steps)
        if terminated:
            break
    if wad == "vizdoom:cig":   # this seed's episode: random rockets at close walls kill the agent itself
        assert not terminated and info["match"]["suicides"] > 0 and info["match"]["damage_taken"] > 0
    else:                      # the map's own rule: a death of player 1 or 2 ends it
        assert terminated and steps < STEPS
    with pytest.raises(ValueError, match="the scripted reference is told where the bots are"):
        env.reference_action()


def test_a_suicide_costs_a_frag_and_counts_as_a_death_not_a_kill(make_bots):
    env = make_bots(bots=1, bot_skill=1)
    env.reset(seed=0)
    start = {name: engine_count(env, name) for name in COUNTED}
    env.step(1)   # turn: no shot, so no frag beside the suicide
    env.game.send_game_command("kill")   # the console's suicide: the engine takes a frag away
    _, reward, _, _, info = env.step(1)
    assert (info["match"]["suicides"], info["match"]["kills"], info["frags"], info["deaths"]) == (1, 0, -1, 1)
    assert reward == -1.0   # the death's penalty (suicide_penalty 0 adds nothing)
    check_figures(env, info, start, 2)


def kill_and_respawn(env) -> dict:
    """The console's suicide, then turns (action 1: no shot, no move) until the agent has respawned: that
    step's info."""
    env.game.send_game_command("kill")
    for _ in range(30):   # the respawn comes about a second (9 steps) later
        _, _, _, _, info = env.step(1)
        if not env.game.is_player_dead():
            break
    assert info["deaths"] == 1 and not env.game.is_player_dead()
    return info


def test_the_rockets_preset_arms_every_spawn_as_cig_does(make_bots):
    # cig.wad's deal on the family's arenas: a rocket launcher raised and exactly 10 rockets at the start and
    # at every respawn (the map's RESPAWN script), beside the stock pistol and its 50 bullets.
    def armed(env) -> tuple[int, int, int, int]:
        return tuple(engine_count(env, name) for name in ("SELECTED_WEAPON", "WEAPON5", "AMMO5", "AMMO2"))

    plain = make_bots(bots=1, bot_skill=1)
    plain.reset(seed=0)
    plain.step(1)
    assert armed(plain)[:3] == (2, 0, 0)   # the pistol alone
    env = make_bots(bots=1, bot_skill=1, preset="rockets")
    assert env.params.weapons == ("RocketLauncher",) and env.params.ammo == ("RocketAmmo",)
    env.reset(seed=0)
    env.step(1)
    assert armed(env) == (5, 1, 10, 50)
    kill_and_respawn(env)
    assert armed(env) == (5, 1, 10, 50)


# sha256 of the WADs of levels 0, 1, 2 and 10000 (build_wad of each, concatenated) before respawn= existed: the
# levels of the ids and presets keep their bytes whatever the family gains.
LEVELS = {
    (Params, "default"): "9f9a1b8f3e0ea1e5a4d1c20e234f09cb0f66c3f7bf2fbea366deb0e70a2ae6d5",
    (BotsParams, "default"): "aa32cf315258e1ea180635655fead7ad387a6f1d49a6bd58c46359caa5aa0697",
    (BotsParams, "hard"): "27cac3ca42fa4012a53c8bb9be1576357d53fb4d1fdf60a0707ebc34a56d6d57",
    (BotsParams, "rockets"): "7a0cc9998301d2e6c31258cd46c86c90e73549b819786d74a7e4151f9c68bdc3",
}


@pytest.mark.parametrize("cls, preset", list(LEVELS), ids=lambda v: getattr(v, "__name__", v))
def test_the_levels_of_the_ids_and_presets_keep_their_bytes(cls, preset, levels_digest):
    params = make_params(cls, PRESETS if cls is Params else BOTS_PRESETS, preset, {})
    assert levels_digest(build, params) == LEVELS[cls, preset]


def deathmatch_starts(params, level_seed: int) -> tuple[tuple[int, int], int, list]:
    """A level's arena centre, its spots' radius and its DeathmatchStarts (x, y, angle), built without an engine."""
    layout = arena(np.random.default_rng(level_seed), params)   # build's first draws: the same arena
    level = build(np.random.default_rng(level_seed), params)
    starts = [(t.x, t.y, t.angle) for t in level.map.things if t.kind == "DeathmatchStart"]
    return layout.centre, spot_radius(layout), starts


@pytest.mark.parametrize("seed", range(8))
def test_respawns_stand_round_the_centre_or_at_the_walls_turned_at_random(seed):
    centre, ring, starts = deathmatch_starts(Params(), seed)
    assert len(starts) == DEATHMATCH_STARTS
    for x, y, angle in starts:   # the default: a small circle, each start facing out from the centre
        assert np.hypot(x - centre[0], y - centre[1]) == pytest.approx(START_CLEARANCE - 24, abs=1)
        off = (angle - np.degrees(np.arctan2(y - centre[1], x - centre[0]))) % 360
        assert min(off, 360 - off) <= 1
    centre, ring, starts = deathmatch_starts(Params(respawn="walls"), seed)
    assert len(starts) == DEATHMATCH_STARTS
    for x, y, _ in starts:   # on the spots' outermost circle: PLAYER_CLEARANCE (48) inside the walls' inner circle
        assert ring - 2 <= np.hypot(x - centre[0], y - centre[1]) <= ring
    assert len({angle for _, _, angle in starts}) > 1   # turned at random, not all one way


def test_the_rockets_walls_preset_respawns_the_agent_at_a_start_by_the_walls(make_bots):
    env = make_bots(bots=1, bot_skill=1, preset="rockets-walls")
    assert env.params.respawn == "walls" and env.params.start_weapon == "RocketLauncher"
    _, info = env.reset(seed=0)
    centre, ring, starts = deathmatch_starts(env.params, info["level_seed"])
    env.step(1)
    info = kill_and_respawn(env)
    x, y = info["position"]   # where the engine respawned it
    assert min(np.hypot(x - sx, y - sy) for sx, sy, _ in starts) < 1
    assert ring - 2 <= np.hypot(x - centre[0], y - centre[1]) <= ring


def test_a_match_clock_ends_the_episode_as_a_truncation(make_bots):
    env = make_bots(bots=1, match_minutes=0.05)   # 105 tics: 27 steps of 4 tics
    assert env.match_steps == 27
    env.reset(seed=0)
    for steps in range(1, 40):
        _, _, terminated, truncated, info = env.step(1)
        assert truncated == (steps == 27) and not terminated
        if truncated:
            break
    assert info["match"]["minutes"] == pytest.approx(27 * 4 / TICS_PER_MINUTE)
    seven = DeathmatchBotsEnv(cache_dir=env.cache_dir, num_levels=1, bots=7, match_minutes=4)
    assert seven.match_steps == 2100 and seven.params.bots == 7   # the field's match: 4 minutes against 7 bots
    seven.close()
