"""The evaluation's "median opponent": where an env reports the scores of opponents that are not agents
(info["opponent_scores"]: DoomDeathmatchBots-v0's bots), each episode records their median, the summary
its mean, and `wadgym eval`'s table a column for it; envs without such opponents have none. Likewise a
deathmatch's figures in the field's units (info["match"]): kept per episode, pooled in the summary (ratios of
the summed counts) and shown beside the score."""

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
    table = format_comparison(comparison).splitlines()
    assert table[1].split()[-2:] == ["median", "opponent"]
    # The figures in the field's units: the episode's own (info["match"]), pooled in the summary, and in the table
    # beside the score.
    assert episode["match"] == info["match"] and summary["match"]["episodes"] == 1
    assert summary["match"]["frags_per_minute"] == info["match"]["frags_per_minute"]
    assert table[1].split()[1:4] == ["frags/episode", "frags/min", "K/D"]
    cells = table[2].split()
    assert [float(c) for c in cells[4:6]] == [round(info["match"]["frags_per_minute"], 2),
                                             round(info["match"]["kd_ratio"], 2)]
    assert f"{info['match']['frags']} frags, {info['match']['deaths']} deaths" in table[-1]
    # No ratio to a random mean at or below 0 (frags less suicides can be negative): the difference instead.
    assert "frags trained - random: +0.00 (random's mean is not above 0)" in table
    worse = {**comparison, "trained": {**summary, "score_mean": -18.0}, "random": {**summary, "score_mean": -10.8}}
    assert "frags trained - random: -7.20 (random's mean is not above 0)" in format_comparison(worse).splitlines()


def test_an_env_without_opponents_has_no_median_opponent():
    summary = summarize(run_episodes("DoomItems-v0", {}, [0], "random"))
    assert "opponents_median" not in summary["episodes"][0] and "opponents_median_mean" not in summary
    assert "match" not in summary["episodes"][0] and "match" not in summary   # no deathmatch figures either


def test_pooled_figures_are_the_ratios_of_the_summed_counts():
    from wadgym.envs.match_figures import TICS_PER_MINUTE, figures, pooled

    flawless = figures(frags=3, deaths=0, suicides=0, damage_dealt=300, damage_taken=0, tics=TICS_PER_MINUTE)
    assert (flawless["kd_ratio"], flawless["frags_per_minute"]) == (3.0, 3.0)   # no death: K/D is the kills
    rough = figures(frags=-1, deaths=3, suicides=2, damage_dealt=50, damage_taken=400, tics=3 * TICS_PER_MINUTE)
    assert (rough["kills"], rough["kd_ratio"]) == (1, 1 / 3)
    both = pooled([flawless, rough])
    assert (both["frags"], both["deaths"], both["kills"], both["minutes"], both["episodes"]) == (2, 3, 4, 4.0, 2)
    assert (both["kd_ratio"], both["frags_per_minute"]) == (4 / 3, 0.5)   # not the means of the ratios
