"""Every multi-agent id of the registry (MULTI_ENVS) passes PettingZoo's parallel_api_test and
parallel_seed_test on the real engine and says what its score counts; the deathmatch with the engine's bots
in seats beside the agents passes the API test and repeats its level and placements for a seed, not every
tic (docs/multi-agent.md, Seeding); agents/ names none of them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import parallel_api_test, parallel_seed_test  # noqa: E402

from wadgym.envs.multi import make  # noqa: E402
from wadgym.envs.registration import MULTI_ENVS, score_name  # noqa: E402

SMALL = {"num_levels": 2, "max_steps": 40}  # two levels in one WAD, short episodes
# every id as registered, and the games that take the engine's bots with two of them
CASES = [(env_id, {}) for env_id in sorted(MULTI_ENVS)] + [("DoomDeathmatch-v0", {"bots": 2})]
IDS = [f"{env_id}{'-bots' if extra else ''}" for env_id, extra in CASES]


@pytest.mark.parametrize("env_id, extra", CASES, ids=IDS)
def test_passes_the_pettingzoo_parallel_api_test_and_reports_its_score(env_id, extra, wad_cache):
    env = make(env_id, cache_dir=wad_cache, **SMALL, **extra)
    try:
        parallel_api_test(env, num_cycles=50)
        assert env.possible_agents == ["player_0", "player_1"]
        assert env.score_name == score_name(env_id) != "return"
        _, infos = env.reset(seed=0)
        assert all(isinstance(infos[a]["score"], (int, float)) for a in env.possible_agents)
    finally:
        env.close()


@pytest.mark.parametrize("env_id", sorted(MULTI_ENVS))
def test_passes_the_pettingzoo_seed_test(env_id, wad_cache):
    parallel_seed_test(lambda: make(env_id, cache_dir=wad_cache, **SMALL), num_cycles=20)


def test_with_bots_a_seed_repeats_the_level_and_placements(wad_cache):
    # Not PettingZoo's seed test: with bots in a netgame the same seed and actions played alike in 8-12 of 20
    # runs (the first frame in 19 of 20), so only what the seed places is asserted, in two envs and on a
    # second reset of the same seed (docs/multi-agent.md, Seeding).
    envs = [make("DoomDeathmatch-v0", cache_dir=wad_cache, **SMALL, bots=2) for _ in range(2)]
    try:
        seen = []
        for seed in (7, 8, 7):
            for env in envs:
                _, infos = env.reset(seed=seed)
                assert env.game.variable(0, "PLAYER_COUNT") == 4
                seen.append([(i["level_seed"], i["map"], i["pickups_placed"], i["pickup_positions"].tolist())
                             for i in infos.values()])
        assert seen[0] == seen[1] == seen[4] == seen[5] != seen[2] == seen[3]
        assert all(agent == placements[0] and agent[2] > 0 for placements in seen for agent in placements)
    finally:
        for env in envs:
            env.close()


def test_agents_name_no_multi_agent_id_nor_a_family_score():
    agents = Path(__file__).resolve().parents[2] / "agents"
    scores = {score_name(env_id) for env_id in MULTI_ENVS}
    for path in agents.rglob("*.py"):
        text = path.read_text()
        for env_id in MULTI_ENVS:
            assert env_id not in text, f"{path} names {env_id}"
        for name in scores:
            assert not re.search(rf"[\"']{name}[\"']|\b{name}_\w+", text), f"{path} names the score {name!r}"
