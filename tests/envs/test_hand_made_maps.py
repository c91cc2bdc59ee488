"""Hand-made maps through the families' envs (wad=, map=): small maps drawn with omgifol directly (a
Doom-format and UDMF maps, no wadgym generator) and ViZDoom's own scenarios, scored from the engine's own
game variables; and the bad inputs refused before any engine starts."""

from __future__ import annotations

import importlib
import re

import gymnasium as gym
import numpy as np
import omg
import omg.mapedit as doom
import omg.udmf as udmf
import pytest
import vizdoom as vzd
from gymnasium.utils.env_checker import check_env

import wadgym  # noqa: F401  (registers the ids)
from wadgym.envs import child_engines
from wadgym.envs.registration import ENVS
from wadgym.wads import iwad
from wadgym.wads.mapread import read_maps


def plays_hand_made(env_id: str) -> bool:
    """Whether the id's family plays hand-made maps (DoomEnv.plays_hand_made; a family that does not refuses
    wad=, which its own tests check)."""
    module, _, name = ENVS[env_id][0].partition(":")
    return getattr(importlib.import_module(module), name).plays_hand_made


SINGLE_IDS = [env_id for env_id in ENVS if plays_hand_made(env_id)]
WALL, FLOOR, CEILING = "STARTAN3", "FLOOR0_1", "CEIL1_1"
FORWARD = 0  # the "basic" set's forward


def doom_format_wad(path, things) -> str:
    """A Doom-format map (THINGS, LINEDEFS ...; no nodes: the engine builds them): one 512 x 256 room."""
    editor = doom.MapEditor()
    editor.draw_sector([(0, 0), (0, 256), (512, 256), (512, 0)],
                       doom.Sector(z_floor=0, z_ceil=128, tx_floor=FLOOR, tx_ceil=CEILING, light=192),
                       doom.Sidedef(tx_mid=WALL))
    for ednum, x, y in things:
        editor.things.append(doom.Thing(x=x, y=y, angle=0, type=ednum, flags=7))
    wad = omg.WAD()
    wad.maps["MAP01"] = editor.to_lumps()
    wad.to_file(str(path))
    return str(path)


def udmf_wad(path, things, exit_line: bool) -> str:
    """A UDMF map (namespace zdoom): two 256-unit rooms side by side, joined along x = 256 by a line that,
    with `exit_line`, ends the map when the player crosses it (Exit_Normal, special 243)."""
    m = udmf.UMapEditor(namespace="zdoom")
    m.vertexes = [udmf.UVertex(x, y) for x, y in ((0, 0), (256, 0), (512, 0), (512, 256), (256, 256), (0, 256))]
    m.sectors = [udmf.USector(FLOOR, CEILING, heightceiling=128, lightlevel=192) for _ in range(2)]

    def line(v1, v2, front, back=None, **fields):
        m.sidedefs.append(udmf.USidedef(front, texturemiddle="-" if back is not None else WALL))
        block = udmf.ULinedef(v1, v2, len(m.sidedefs) - 1)
        if back is not None:
            m.sidedefs.append(udmf.USidedef(back))
            block.sideback, block.twosided = len(m.sidedefs) - 1, True
        else:
            block.blocking = True
        for key, value in fields.items():
            setattr(block, key, value)
        m.linedefs.append(block)

    for v1, v2 in ((0, 5), (5, 4), (1, 0)):
        line(v1, v2, 0)
    for v1, v2 in ((4, 3), (3, 2), (2, 1)):
        line(v1, v2, 1)
    line(4, 1, 0, 1, **({"special": 243, "playercross": True} if exit_line else {}))
    for ednum, x, y in things:
        thing = udmf.UThing(x, y, ednum)
        thing.angle, thing.single = 0, True
        for skill in range(1, 6):
            setattr(thing, f"skill{skill}", True)
        m.things.append(thing)
    wad = omg.WAD()
    wad.udmfmaps["MAP01"] = m.to_lumps()
    wad.to_file(str(path))
    return str(path)


@pytest.fixture(scope="module")
def maps(tmp_path_factory):
    """The hand-made WADs: items (Doom format, three Soulspheres ahead), exit (UDMF, an exit line ahead),
    goal (UDMF, a GreenArmor ahead, no exit), empty (no player start)."""
    folder = tmp_path_factory.mktemp("hand-made")
    start = (1, 64, 128)
    return {
        "items": doom_format_wad(folder / "items.wad", [start, (2013, 160, 128), (2013, 256, 128), (2013, 352, 128)]),
        "exit": udmf_wad(folder / "exit.wad", [start], exit_line=True),
        "goal": udmf_wad(folder / "goal.wad", [start, (2018, 192, 128)], exit_line=False),
        "empty": doom_format_wad(folder / "empty.wad", []),
    }


def engine(env, name: str) -> float:
    return env.unwrapped.game.get_game_variable(getattr(vzd.GameVariable, name))


def test_reader_reads_both_formats(maps):
    items, exit_map = read_maps(maps["items"])["MAP01"], read_maps(maps["exit"])["MAP01"]
    assert (items.format, items.player_starts, items.exits, items.classes()) == ("doom", 1, 0, {"Soulsphere": 3})
    assert items.has_flag("Soulsphere", "COUNTITEM") and not items.has_flag("Medikit", "COUNTITEM")
    assert (exit_map.format, exit_map.player_starts, exit_map.exits) == ("udmf", 1, 1)
    assert read_maps(maps["goal"])["MAP01"].classes() == {"GreenArmor": 1}


def test_items_counts_the_engines_itemcount(make_env, maps):
    env = make_env("DoomItems-v1", wad=maps["items"])
    _, info = env.reset(seed=0)
    assert info["score"] == 0 and info["level_seed"] is None and info["map"] == "MAP01"
    assert "item_positions" not in info and "items_total" not in info  # the generator's facts: absent
    total = 0.0
    for _ in range(60):
        _, reward, terminated, truncated, info = env.step(FORWARD)
        total += reward
        assert info["score"] == info["items_collected"] == engine(env, "ITEMCOUNT") == total
        assert not terminated and not truncated
    assert info["score"] == 3  # walked over all three Soulspheres


def test_exit_line_ends_the_episode_with_the_exit_reached(make_env, maps):
    env = make_env("DoomExit-v0", wad=maps["exit"])
    env.reset(seed=0)
    steps = 0
    while steps < 100:
        _, reward, terminated, truncated, info = env.step(FORWARD)
        steps += 1
        game = env.unwrapped.game
        if terminated:
            break
        assert reward == 0 and info["score"] == 0
    assert terminated and not truncated and 1 < steps < 100  # the line is 192 units ahead
    assert game.is_episode_finished() and not game.is_player_dead()  # the engine's own end: the map exited
    assert (reward, info["score"], info["exit_reached"]) == (1.0, 1.0, True)
    assert "exit_position" not in info and "rooms_apart" not in info


def test_exit_goal_item_is_reached_when_taken(make_env, maps):
    env = make_env("DoomExit-v0", wad=maps["goal"], goal="greenarmor")
    env.reset(seed=0)
    for _ in range(100):
        armor_before = engine(env, "ARMOR")
        _, reward, terminated, _, info = env.step(FORWARD)
        assert terminated == (engine(env, "ARMOR") > armor_before) == (reward == 1.0)  # taken: the armour is worn
        if terminated:
            break
    assert info["score"] == 1.0 and engine(env, "ARMOR") == 100


def test_corridor_goal_item_is_reached_when_taken_with_the_way_paid(make_env, maps):
    """DoomCorridor-v0 on a map with a goal item ahead: the progress reward follows the straight line to it and
    sums to progress_reward; taking it gives goal_reward and ends the episode."""
    env = make_env("DoomCorridor-v0", wad=maps["goal"], goal="GreenArmor", goal_reward=2.0)
    _, info = env.reset(seed=0)
    assert info["way_to_goal"] == 128 and "monsters_alive" not in info
    total = 0.0
    for _ in range(100):
        _, reward, terminated, _, info = env.step(5)  # the "attack_move" set's forward
        total += reward
        if terminated:
            break
    assert terminated and info["goal_reached"] and info["score"] == 1.0 and engine(env, "ARMOR") == 100
    assert total == pytest.approx(1.0 + 2.0) and info["progress"] == 1.0


def test_health_on_health_gathering_counts_steps_and_the_scenario_return(make_env):
    env = make_env("DoomHealth-v0", wad="vizdoom:health_gathering")
    _, info = env.reset(seed=3)
    assert set(info) == {"score", "level_seed", "map", "health", "scenario_return", "position"}
    rng = np.random.default_rng(0)
    steps = 0
    while True:
        _, reward, terminated, truncated, info = env.step(int(rng.integers(env.action_space.n)))
        dead = env.unwrapped.game.is_player_dead()
        assert terminated == dead and info["health"] == engine(env, "HEALTH")
        if terminated or truncated:
            break
        steps += 1
        assert reward == 1.0 and info["score"] == steps
        assert info["scenario_return"] == 4 * steps  # the .cfg's living_reward, 1 a tic, 4 tics a step
    assert terminated and info["score"] == steps and reward == 0.0  # died on the floor: 2100 tics are too long
    assert info["scenario_return"] == 4 * (steps + 1) - 100  # the .cfg's death_penalty


def test_defend_on_defend_the_line_counts_the_engines_killcount(make_env):
    env = make_env("DoomDefend-v0", wad="vizdoom:defend_the_line")
    env.reset(seed=0)
    total = 0.0
    for step in range(150):  # turn a little, and shoot, along the line of monsters
        _, reward, terminated, truncated, info = env.step(3 if step % 8 < 2 else 4 if step % 8 < 4 else 0)
        total += reward
        assert info["score"] == info["kills"] == engine(env, "KILLCOUNT") == total
        assert info["health"] == max(0, engine(env, "HEALTH"))
        assert "wave" not in info and "monsters_alive" not in info
        if terminated or truncated:
            break
    assert info["score"] > 0
    assert info["scenario_return"] == info["kills"] - terminated  # its ACS pays a kill 1, its death_penalty 1


@pytest.mark.parametrize(("env_id", "wad", "kwargs"), [
    ("DoomHealthSupreme-v0", "vizdoom:health_gathering_supreme", {}),
    ("DoomExit-v0", "vizdoom:my_way_home", {}),
    ("DoomDefend-v0", "vizdoom:defend_the_center", {}),
    ("DoomCorridor-v0", "vizdoom:deadly_corridor", {}),
    ("DoomItems-v0", "items", {}),
])
def test_check_env_passes_on_a_hand_made_map(maps, env_id, wad, kwargs):
    env = gym.make(env_id, wad=maps.get(wad, wad), **kwargs)
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()


@pytest.mark.parametrize("env_id", SINGLE_IDS)
def test_every_id_plays_a_scenario_with_its_own_spaces(env_id):
    """wad= keeps the id's action set, observation and frame skip: a policy trained on the id plays the map."""
    plain = gym.make(env_id)
    hand_made = gym.make(env_id, wad=plain.unwrapped.hand_made_example)   # the family's own example
    try:
        assert hand_made.action_space == plain.action_space
        assert hand_made.observation_space == plain.observation_space
        assert hand_made.unwrapped.frame_skip == plain.unwrapped.frame_skip
        assert hand_made.spec.max_episode_steps == plain.spec.max_episode_steps
        observation, info = hand_made.reset(seed=1)
        assert observation.shape == plain.observation_space.shape and info["level_seed"] is None
        hand_made.step(0)
    finally:
        plain.close()
        hand_made.close()


def test_scenarios_start_as_their_cfg_says():
    hand_made = gym.make("DoomExit-v0", wad="vizdoom:my_way_home").unwrapped.hand_made
    assert (hand_made.doom_skill, hand_made.episode_start_time, hand_made.episode_timeout) == (5, 10, 2100)
    assert hand_made.living_reward == -0.0001
    overridden = gym.make("DoomExit-v0", wad="vizdoom:my_way_home", doom_skill=2, episode_timeout=700)
    assert (overridden.unwrapped.hand_made.doom_skill, overridden.unwrapped.hand_made.episode_timeout) == (2, 700)


def test_the_engines_timeout_is_a_truncation(make_env, maps):
    env = make_env("DoomExit-v0", wad=maps["goal"], goal="GreenArmor", episode_timeout=40)
    env.reset(seed=0)
    for _ in range(20):
        _, _, terminated, truncated, info = env.step(1)  # turn on the spot: never reaches the armour
        if terminated or truncated:
            break
    assert truncated and not terminated and info["score"] == 0


BAD = [
    ("DoomItems-v1", {"wad": "no/such.wad"}, "no such file"),
    ("DoomItems-v1", {"wad": "NOT_A_WAD"}, "is not a WAD"),
    ("DoomItems-v1", {"wad": "items", "map": "MAP02"}, "map='MAP02' is not in .*; its maps: MAP01"),
    ("DoomHealth-v0", {"wad": "empty"}, "has no player start"),
    ("DoomExit-v0", {"wad": "items"}, "no exit .* and no goal named; pass goal="),
    ("DoomExit-v0", {"wad": "items", "goal": "GreenArmor"}, "places no 'GreenArmor' .*; its things: Soulsphere"),
    ("DoomItems-v1", {"wad": "exit"}, "places no item that counts"),
    ("DoomDefend-v0", {"wad": "items"}, "places no monster that counts"),
    ("DoomCorridor-v0", {"wad": "items"}, "no exit .* and no goal named; pass goal="),
    ("DoomCorridor-v0", {"wad": "exit", "goal": "GreenArmor"}, "places no 'GreenArmor'"),
    ("DoomHealth-v0", {"wad": "vizdoom:no_such"}, "ViZDoom ships no scenario 'no_such'; valid: .*vizdoom:basic"),
    ("DoomHealth-v0", {"wad": "items", "start_level": 5}, "start_level=5 chooses generated levels"),
    ("DoomHealth-v0", {"wad": "items", "n_medikits": 5}, "n_medikits: scenario parameters"),
    ("DoomExit-v0", {"wad": "exit", "shaping": 1.0}, "shaping and new_room_reward"),
    ("DoomExit-v0", {"goal": "GreenArmor"}, "goal='GreenArmor' names the goal item .* pass it with wad="),
    ("DoomHealth-v0", {"map": "MAP02"}, "map apply to a hand-made map only"),
]


@pytest.mark.parametrize(("env_id", "kwargs", "message"), BAD, ids=[m.split(" ")[0] for _, _, m in BAD])
def test_bad_input_is_refused_before_an_engine_starts(maps, tmp_path, env_id, kwargs, message):
    (tmp_path / "NOT_A_WAD").write_text("hello")
    named = {**maps, "NOT_A_WAD": str(tmp_path / "NOT_A_WAD")}
    kwargs = {k: named.get(v, v) if k == "wad" else v for k, v in kwargs.items()}
    before = len(child_engines())
    with pytest.raises(ValueError, match=message) as error:
        gym.make(env_id, **kwargs)
    assert "\n" not in str(error.value) and len(child_engines()) == before


def test_a_generated_level_seed_is_refused_on_a_hand_made_map(make_env, maps):
    env = make_env("DoomHealth-v0", wad=maps["items"])
    with pytest.raises(ValueError, match="level_seed"):
        env.reset(options={"level_seed": 3})


def test_every_family_scores_freedooms_map01():
    """A map made by hand, in Doom format, with an exit line, counted items and monsters: Freedoom's MAP01."""
    freedoom = iwad.iwad_path()
    summary = read_maps(freedoom)["MAP01"]
    assert summary.format == "doom" and summary.exits and len(read_maps(freedoom)) == 32
    for env_id in ("DoomItems-v1", "DoomHealth-v0", "DoomExit-v0", "DoomDefend-v0"):
        gym.make(env_id, wad=freedoom, map="map01").close()  # accepted (no engine starts until reset)


def test_rollout_command_plays_a_hand_made_map_with_a_video(capsys, tmp_path):
    from wadgym.cli import main

    video = tmp_path / "map.mp4"
    code = main(["rollout", "DoomDefend-v0", "--wad", "vizdoom:defend_the_line", "--episodes", "1", "--seed", "0",
                 "-k", "max_episode_steps=30", "--video", str(video)])
    out = capsys.readouterr().out
    assert code == 0 and re.search(r"^\s+0\s+0\s+-\s", out, re.MULTILINE) and video.stat().st_size > 1000
    assert main(["rollout", "DoomExit-v0", "--wad", "vizdoom:defend_the_line"]) == 2
    assert "cannot score MAP01 of vizdoom:defend_the_line: it has no exit" in capsys.readouterr().err
