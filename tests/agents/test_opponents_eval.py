"""The evaluation's "median opponent": where an env reports the scores of opponents that are not agents
(info["opponent_scores"]: DoomDeathmatchBots-v0's bots), each episode records their median, the summary
its mean, and `wadgym eval`'s table a column for it; envs without such opponents have none."""

from __future__ import annotations

import numpy as np

from wadgym.agents.evaluate import format_comparison, run_episodes, summarize

ENV_ID = "DoomDeathmatchBots-v0"


def test_each_episode_records_the_median_bot_and_the_summary_their_mean():
    from wadgym.agents.vec import make_env

    kwargs = {"num_levels": 1, "bots": 3}
    summary = summarize(run_episodes(ENV_ID, kwargs, [0], "scripted"))
    # The same seeded episode played here: the engine is seeded, so the bots' frags are the same.
    env = make_env(ENV_ID, kwargs)  # as the evaluation makes it
    try:
        env.reset(seed=0)
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(env.unwrapped.reference_action())
            done = terminated or truncated
    finally:
        env.close()
    assert info["opponent_scores"] == info["bot_frags"] and len(info["bot_frags"]) == 3
    episode = summary["episodes"][0]
    assert episode["score"] == info["score"]
    assert episode["opponents_median"] == float(np.median(info["bot_frags"])) == summary["opponents_median_mean"]

    comparison = {"env": ENV_ID, "episodes": 1, "levels": "test", "seeds": [0, 0], "deterministic": False,
                  "score_name": "frags", "trained": summary, "random": summary, "score_ratio": None}
    header = format_comparison(comparison).splitlines()[1]
    assert header.split()[-2:] == ["median", "opponent"]


def test_an_env_without_opponents_has_no_median_opponent():
    summary = summarize(run_episodes("DoomItems-v0", {}, [0], "random"))
    assert "opponents_median" not in summary["episodes"][0] and "opponents_median_mean" not in summary
