"""The multi-agent env (wadgym.envs.multi) on the real engine: netgames of 2 players over 127.0.0.1."""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from wadgym.envs.aiming import steer_towards  # noqa: E402
from wadgym.envs.multi import MULTI_ENVS, make  # noqa: E402
from wadgym.envs.runtime.netgame import NetGameError  # noqa: E402

POSE = ("POSITION_X", "POSITION_Y", "ANGLE")


@pytest.fixture
def make_multi(wad_cache):
    envs = []

    def build(env_id="DoomItemsDuel-v0", **kwargs):
        env = make(env_id, cache_dir=wad_cache, **kwargs)
        envs.append(env)
        return env

    yield build
    for env in envs:
        env.close()


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_same_seed_same_level_starts_and_items_and_distinct_ports(make_multi):
    first, second = make_multi(), make_multi()
    (obs1, info1), (obs2, info2) = first.reset(seed=3), second.reset(seed=3)
    assert first.game.port != second.game.port  # two games at once, each on its own port
    for agent in first.possible_agents:
        np.testing.assert_array_equal(info1[agent]["item_positions"], info2[agent]["item_positions"])
        assert info1[agent]["level_seed"] == info2[agent]["level_seed"]
        np.testing.assert_array_equal(obs1[agent], obs2[agent])
    other = first.reset(seed=4)[1]["player_0"]
    assert not np.array_equal(other["item_positions"], info1["player_0"]["item_positions"])


def test_both_move_an_item_counts_for_its_picker_and_the_last_item_ends_it_for_both(make_multi):
    env = make_multi(n_items=3, game_variables=POSE, max_steps=600)
    observations, infos = env.reset(seed=1)
    start = {a: observations[a]["gamevariables"].copy() for a in env.agents}
    picker, other = env.tasks
    totals = {a: 0.0 for a in env.agents}
    for step in range(600):
        remaining = picker._item_positions[picker._items_remaining]
        pose = tuple(observations["player_0"]["gamevariables"])
        nearest = remaining[np.hypot(*(remaining - pose[:2]).T).argmin()]
        actions = {"player_0": steer_towards(pose, nearest), "player_1": 0 if step < 5 else 1}  # walk, then spin
        observations, rewards, terminations, truncations, infos = env.step(actions)
        for agent, reward in rewards.items():
            totals[agent] += reward
        if step == 5:  # player_1 walked 5 steps
            assert np.hypot(*(observations["player_1"]["gamevariables"][:2] - start["player_1"][:2])) > 20
        if any(terminations.values()):
            break
    assert terminations == {"player_0": True, "player_1": True} and not any(truncations.values())
    assert np.hypot(*(observations["player_0"]["gamevariables"][:2] - start["player_0"][:2])) > 20
    assert env.agents == []
    assert infos["player_0"]["items_collected"] == totals["player_0"] == 3
    assert infos["player_1"]["items_collected"] == totals["player_1"] == 0
    assert infos["player_0"]["items_taken"] == infos["player_1"]["items_taken"] == 3
    assert not infos["player_1"]["items_remaining"].any()


@pytest.mark.parametrize("how", ["killed", "hung"])
def test_a_dead_or_hung_joiner_is_an_error_within_the_timeout_and_no_engine_is_left(make_multi, how):
    env = make_multi(step_timeout=4)
    env.reset(seed=0)
    engines, workers = env.game.engine_pids(), env.game.worker_pids()
    assert len(engines) == 2 and all(alive(pid) for pid in engines + workers)
    os.kill(engines[1], signal.SIGKILL if how == "killed" else signal.SIGSTOP)
    start = time.monotonic()
    with pytest.raises(NetGameError, match="player"):
        for _ in range(50):
            env.step({a: 0 for a in env.agents})
    assert time.monotonic() - start < 4 + 10
    assert env.game is None
    assert not any(alive(pid) for pid in engines + workers)
    env.reset(seed=0)  # a fresh game starts after a failure
    assert len(env.game.engine_pids()) == 2


def test_bad_arguments_name_what_is_valid():
    with pytest.raises(ValueError, match="n_players=5 is out of range; valid: 1 to 4"):
        make("DoomItemsDuel-v0", n_players=5)
    with pytest.raises(ValueError, match="registered: DoomItemsDuel-v0"):
        make("DoomItemsTrio-v9")
    with pytest.raises(ValueError, match="render_mode"):
        make("DoomItemsDuel-v0", render_mode="human")
    with pytest.raises(ValueError, match=r"visit_reward=0.1: the exploration bonus is for the single-agent envs"):
        make("DoomItemsDuel-v0", visit_reward=0.1)
    assert "DoomItemsDuel-v0" in MULTI_ENVS
