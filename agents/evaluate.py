"""Evaluate a training run on fixed seeded episodes, beside a random policy on the same seeds (`wadgym eval`,
wired in wadgym.cli.eval: compare_with_random); training's final evaluation and bench/learn.py play the
env's scripted reference too, on the test and the training levels (final_evaluation, evaluate_policies).

Episode i of both policies starts with reset(seed=seed+i), so both play the same level and start.
Each episode's score is the env's own measure (info["score"]: items, kills, ...). The "test" levels are
held out: level seeds from TEST_START_LEVEL on, which no training range reaches.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from wadgym.agents.policies.policy import SavedPolicy


def run_episodes(
    env_id: str,
    env_kwargs: dict[str, Any],
    seeds: list[int],
    policy: SavedPolicy | str | None,
    video: str | Path | None = None,
    trace: str | Path | None = None,
) -> list[dict[str, Any]]:
    """One episode per seed with `policy` (a SavedPolicy, on the env it makes; None or "random": the random
    policy; "scripted": the env's scripted reference). Returns per-episode seed, level seed, score, return
    and length; records the first episode's frames to `video`, and draws every episode's path over its map to
    `trace` (a PNG: agents.episodes.plot_paths)."""
    from wadgym.agents.episodes import RandomPolicy, ScriptedPolicy, play_episodes, video_fps, write_video
    from wadgym.agents.vec import build_vec_env, close_vec_env

    render_mode = "rgb_array" if video else None
    if policy is None or policy in ("random", "scripted"):
        venv = build_vec_env(env_id, env_kwargs, 1, None, vec_env="dummy", training=False, render_mode=render_mode)
        env = venv.unwrapped.envs[0]
        policy = ScriptedPolicy(env) if policy == "scripted" else RandomPolicy(env.action_space)
    else:
        venv = policy.make_vec_env(env_kwargs, render_mode)
    frames: list | None = [] if video else None
    paths: list | None = [] if trace else None
    try:
        episodes = (play_episodes(venv, policy, seeds[:1], frames, paths)
                    + play_episodes(venv, policy, seeds[1:], paths=paths))
    finally:
        close_vec_env(venv)
    if video is not None:
        write_video(Path(video), frames, video_fps(venv.unwrapped.envs[0]))
    if trace is not None:
        from wadgym.agents.episodes import plot_paths

        plot_paths(paths, Path(trace), f"{env_id}: where the policy went ({len(seeds)} episodes)")
    keys = ("seed", "level_seed", "score", "return", "length", *OPTIONAL_KEYS, MATCH)
    optional = {*OPTIONAL_KEYS, MATCH}
    return [{key: episode[key] for key in keys if key not in optional or episode[key] is not None}
            for episode in episodes]


# Per-episode figures only some envs have (kept where not None): a ViZDoom scenario's own return, and the
# median score of opponents that are not agents (the engine's bots); their names in `wadgym eval`'s table
OPTIONAL_KEYS = {"scenario_return": "scenario return", "opponents_median": "median opponent"}
# A deathmatch's figures in the field's units (info["match"], wadgym.envs.match_figures): each episode keeps
# them, the summary pools them (the ratios of the summed counts), and `wadgym eval`'s table shows frags per minute
# and K/D beside the score
MATCH = "match"


def summarize(episodes: list[dict[str, Any]]) -> dict[str, Any]:
    def stats(key):
        values = [e[key] for e in episodes if e.get(key) is not None]
        if not values:
            return None, None
        return float(np.mean(values)), float(np.std(values))

    score_mean, score_std = stats("score")
    return_mean, return_std = stats("return")
    summary = {
        "score_mean": score_mean,
        "score_std": score_std,
        "return_mean": return_mean,
        "return_std": return_std,
        "length_mean": float(np.mean([e["length"] for e in episodes])),
        "episodes": episodes,
    }
    for key in OPTIONAL_KEYS:  # e.g. a ViZDoom scenario: its own return beside the family's score
        if any(key in e for e in episodes):
            summary[f"{key}_mean"], summary[f"{key}_std"] = stats(key)
    matches = [e[MATCH] for e in episodes if e.get(MATCH)]
    if matches:
        from wadgym.envs.match_figures import pooled

        summary[MATCH] = pooled(matches)
    return summary


TEST_START_LEVEL = 10_000  # held-out levels start here: training ranges must end before it
LEVEL_SPLITS = ("test", "train")


def default_split(env_id: str, env_kwargs: dict[str, Any]) -> str:
    """"test" when the run's training levels leave the test levels unseen, else "train"."""
    try:
        split_kwargs(env_id, env_kwargs, "test")
    except ValueError:
        return "train"
    return "test"


def split_kwargs(env_id: str, env_kwargs: dict[str, Any], levels: str) -> dict[str, Any]:
    """The env kwargs that play a split: "train" as trained; "test" the unlimited levels from
    TEST_START_LEVEL on, after checking the training range (the id's and the run's kwargs) ends before them."""
    if levels not in LEVEL_SPLITS:
        raise ValueError(f"levels={levels!r} is not valid; choose one of {', '.join(LEVEL_SPLITS)}")
    if levels == "train":
        return dict(env_kwargs)
    trained = trained_kwargs(env_id, env_kwargs)
    check_held_out(int(trained.get("start_level", 0)), int(trained.get("num_levels", 0)))
    return {**env_kwargs, "start_level": TEST_START_LEVEL, "num_levels": 0}


def trained_kwargs(env_id: str, env_kwargs: dict[str, Any]) -> dict[str, Any]:
    """The kwargs a run's envs were made with: the id's registered ones with the run's over them."""
    import gymnasium as gym

    from wadgym.agents.vec import register_envs
    from wadgym.envs.registration import env_id_for

    register_envs(env_id)
    return {**(gym.spec(env_id_for(env_id)).kwargs or {}), **env_kwargs}


def check_held_out(first: int, count: int) -> None:
    """A ValueError unless the training range `first`, `count` (0: unlimited) ends before the test levels."""
    if count == 0 or first + count > TEST_START_LEVEL:
        raise ValueError(f"the run trained on levels {first}..{first + count - 1 if count else 'unlimited'}, "
                         f"which overlap the test levels (from {TEST_START_LEVEL}); use --levels train")


PLAYERS = ("trained", "random", "scripted")  # the policies an evaluation plays, in this order


def has_scripted(env_id: str, env_kwargs: dict[str, Any]) -> bool:
    """Whether the env's family wrote a scripted reference policy (agents.episodes.has_reference_policy)."""
    from wadgym.agents.episodes import has_reference_policy
    from wadgym.agents.vec import make_env

    probe = make_env(env_id, env_kwargs)
    try:
        return has_reference_policy(probe)
    finally:
        probe.close()


def play_split(policy, seeds: list[int], levels: str, players=PLAYERS[:2],
               video: str | Path | None = None, trace: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """Each of `players` ("trained": `policy`, "random", "scripted") on the same seeded episodes of the
    `levels` split: player -> summarize(...). `video` records the trained policy's first episode, `trace` draws
    its paths."""
    return play_players(policy, split_kwargs(policy.env_id, policy.env_kwargs, levels), seeds, players, video,
                        trace=trace)


def play_players(policy, env_kwargs: dict[str, Any], seeds: list[int], players=PLAYERS[:2],
                 video: str | Path | None = None, workers: int | None = None,
                 trace: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """Each of `players` on the same seeded episodes of the env made with `env_kwargs`: player -> summarize(...).

    The players play at once, each on its own engine and thread (`workers`: how many at a time, default all):
    one engine and the Python that steps it take turns, so one player alone keeps about one CPU busy, and the
    engines wait for their frames outside the GIL. The figures are those of playing them one after another:
    every episode is seeded, and each player has its own env and its own policy object (the trained policy
    plays in one thread only, so its per-episode sampling seed and recurrent state are its own)."""
    from concurrent.futures import ThreadPoolExecutor

    played = {"trained": policy, "random": "random", "scripted": "scripted"}

    def play(name: str) -> dict[str, Any]:
        return summarize(run_episodes(policy.env_id, env_kwargs, seeds, played[name],
                                      video=video if name == "trained" else None,
                                      trace=trace if name == "trained" else None))

    with ThreadPoolExecutor(max_workers=max(1, workers or len(players)), thread_name_prefix="player") as pool:
        summaries = list(pool.map(play, players))
    return dict(zip(players, summaries))


def map_kwargs(env_id: str, env_kwargs: dict[str, Any], wad: str, map_name: str = "MAP01") -> dict[str, Any]:
    """The env kwargs that play a hand-made map (wad=, map=) as a run's envs were made: its engine-facing
    kwargs (frames, actions, rewards) and the scenario parameters that still apply there (the family's
    hand_made_params, e.g. the deathmatch's bots), without what shapes built levels (the other scenario
    parameters, preset, num_levels, start_level) or reads their plan (the family's level_only_kwargs, e.g. the
    exit family's new_room_reward), which a hand-made map refuses or ignores."""
    import dataclasses

    import gymnasium as gym
    from gymnasium.envs.registration import load_env_creator

    from wadgym.agents.vec import register_envs
    from wadgym.envs.registration import env_id_for

    register_envs(env_id)
    entry_point = gym.spec(env_id_for(env_id)).entry_point
    creator = load_env_creator(entry_point) if isinstance(entry_point, str) else entry_point
    params = getattr(creator, "Params", None)
    levels = {"preset", "num_levels", "start_level", *getattr(creator, "level_only_kwargs", ()),
              *(f.name for f in dataclasses.fields(params) if params)}
    levels -= set(getattr(creator, "hand_made_params", ()))
    return {**{k: v for k, v in env_kwargs.items() if k not in levels}, "wad": wad, "map": map_name}


def compare_on_map(policy, episodes: int, seed: int, wad: str, map_name: str = "MAP01",
                   video: str | Path | None = None, trace: str | Path | None = None) -> dict[str, Any]:
    """The trained policy and a random one on a hand-made map (a WAD file or "vizdoom:NAME", and its map),
    seeds seed..seed+episodes-1, as compare_with_random reports them. No family has a scripted reference
    there (theirs read the plan of the levels they build), so none plays."""
    seeds = [seed + i for i in range(episodes)]
    start = time.perf_counter()
    summaries = play_players(policy, map_kwargs(policy.env_id, policy.env_kwargs, wad, map_name), seeds, video=video,
                             trace=trace)
    result = comparison(policy, seeds, "hand-made", summaries, time.perf_counter() - start)
    return {**result, "wad": wad, "map": map_name.upper()}


def compare_with_random(policy, episodes: int, seed: int, video: str | Path | None = None,
                        levels: str = "test", trace: str | Path | None = None) -> dict[str, Any]:
    """The trained policy and a random one on seeds seed..seed+episodes-1 of the `levels` split (the trained
    policy's first episode recorded to `video`, its paths drawn to `trace`)."""
    seeds = [seed + i for i in range(episodes)]
    start = time.perf_counter()
    summaries = play_split(policy, seeds, levels, video=video, trace=trace)
    return comparison(policy, seeds, levels, summaries, time.perf_counter() - start)


def comparison(policy, seeds: list[int], levels: str, summaries: dict[str, dict[str, Any]],
               seconds: float) -> dict[str, Any]:
    """compare_with_random's result of the players' `summaries` on `seeds` of the `levels` split."""
    from wadgym.envs.registration import score_name

    trained, random = summaries["trained"], summaries["random"]
    # A ratio means "so many times random" only over a positive random mean (frags less suicides can be negative).
    ratio = trained["score_mean"] / random["score_mean"] if random["score_mean"] > 0 else None
    return {
        "env": policy.env_id,
        "score_name": score_name(policy.env_id),
        "model": str(policy.model_file),
        "episodes": len(seeds),
        "levels": levels,
        "seeds": [seeds[0], seeds[-1]],
        "deterministic": policy.deterministic,
        **summaries,
        "score_ratio": ratio,
        "eval_seconds": seconds,
    }


def evaluate_policies(policy, episodes: int, seed: int, splits=LEVEL_SPLITS) -> dict[str, Any]:
    """The trained `policy`, the random policy and, where the env's family wrote one, its scripted reference,
    all on the same seeded episodes (seeds seed..seed+episodes-1) of each of `splits`: {"episodes", "seeds",
    <split>: {<player>: summarize(...)}}. What bench/learn.py records and training's final evaluation plays."""
    seeds = [seed + i for i in range(episodes)]
    players = PLAYERS if has_scripted(policy.env_id, policy.env_kwargs) else PLAYERS[:2]
    result: dict[str, Any] = {"episodes": episodes, "seeds": [seeds[0], seeds[-1]]}
    for split in splits:
        result[split] = play_split(policy, seeds, split, players)
    return result


def final_splits(env_id: str, env_kwargs: dict[str, Any]) -> tuple[tuple[str, ...], str | None]:
    """The level splits training's final evaluation plays, the first its headline, and why there is one
    split only (None when there are two): ("test", "train") for a run trained on a range of levels that
    ends before the test levels; ("train",) for one whose training levels include the test levels (an
    unlimited range: none is held out), that trained on one map (num_levels=1: the "test levels" would be
    new placements on that map, no separate split) or on a hand-made map (wad=)."""
    if env_kwargs.get("wad"):
        return ("train",), f"no held-out split: trained on one hand-made map (wad={env_kwargs['wad']}), played on it"
    if default_split(env_id, env_kwargs) == "train":
        return ("train",), (f"no held-out test split: the training levels (an unlimited range, or one reaching "
                            f"level {TEST_START_LEVEL}) include the test levels")
    if int(trained_kwargs(env_id, env_kwargs).get("num_levels", 0)) == 1:
        return ("train",), "no separate test split: trained on one map (num_levels=1), played on that map"
    return LEVEL_SPLITS, None


def final_evaluation(policy, episodes: int, seed: int) -> dict[str, Any]:
    """Training's final evaluation: evaluate_policies on final_splits(...); the result is compare_with_random's
    for the headline split (its "trained", "random" and, where there is one, "scripted"), with "splits":
    {<split>: {<player>: summary}} for every split played, and "split_note" when only one was."""
    splits, note = final_splits(policy.env_id, policy.env_kwargs)
    start = time.perf_counter()
    played = evaluate_policies(policy, episodes, seed, splits)
    seeds = [seed + i for i in range(episodes)]
    result = comparison(policy, seeds, splits[0], played[splits[0]], time.perf_counter() - start)
    result["splits"] = {split: played[split] for split in splits}
    if note:
        result["split_note"] = note
    return result


def format_comparison(result: dict[str, Any]) -> str:
    from wadgym.envs import match_figures

    def line(name, s):
        score = f"{s['score_mean']:6.2f} ± {s['score_std']:5.2f}"
        beside = "".join(f" {s[MATCH][key]:9.2f}" for key in match_figures.COLUMNS) if match else ""
        extra = "".join(f" {s[f'{key}_mean']:9.2f} ± {s[f'{key}_std']:7.2f}" for key in columns)
        return (f"{name:<8} {score:>16}{beside} {s['return_mean']:9.2f} ± {s['return_std']:7.2f} "
                f"{s['length_mean']:9.1f}{extra}")

    columns = [key for key in OPTIONAL_KEYS if all(f"{key}_mean" in result[n] for n in PLAYERS if n in result)]
    match = all(MATCH in result[n] for n in PLAYERS if n in result)  # a deathmatch: its figures beside the score

    seeds = result["seeds"]
    where = f"{result['map']} of {result['wad']}" if result.get("wad") else f"{result['levels']} levels"
    lines = [
        f"{result['env']}: {result['episodes']} episodes on {where}, seeds {seeds[0]}..{seeds[1]}"
        f" ({'deterministic' if result['deterministic'] else 'sampled'} actions)",
        f"{'policy':<8} {result['score_name'] + '/episode':>16}"
        + ("".join(f" {title:>9}" for title in match_figures.COLUMNS.values()) if match else "")
        + f" {'return':>19} {'length':>9}" + "".join(f" {OPTIONAL_KEYS[key]:>19}" for key in columns),
        *(line(name, result[name]) for name in PLAYERS if name in result),
    ]
    if result["score_ratio"] is not None:
        lines.append(f"{result['score_name']} trained/random: {result['score_ratio']:.2f}x")
    elif "trained" in result and "random" in result:   # no ratio to a random mean at or below 0: the difference
        difference = result["trained"]["score_mean"] - result["random"]["score_mean"]
        lines.append(f"{result['score_name']} trained - random: {difference:+.2f} (random's mean is not above 0)")
    if match:  # the counts behind the ratios, as the field reports a match
        lines.append(f"trained, {match_figures.counts_line(result['trained'][MATCH])}")
    for split, summaries in (result.get("splits") or {}).items():  # training's final evaluation: the other split
        if split != result["levels"]:
            scores = ", ".join(f"{name} {summaries[name]['score_mean']:.2f}" for name in PLAYERS if name in summaries)
            lines.append(f"{split} levels, the same seeds: {result['score_name']}/episode {scores}")
    if result.get("split_note"):
        lines.append(result["split_note"])
    return "\n".join(lines)
