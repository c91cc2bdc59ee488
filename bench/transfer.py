"""Transfer benchmark: what training on generated levels buys on hand-made maps nobody generated.

    python bench/transfer.py [--pair health exit defend] [--trained-on generated original] [--seeds 3]
                             [--first-seed 0] [--episodes 50] [--budget cpu] [--runs runs/transfer]
                             [--docs docs] [--skip-done] [--dry-run] [--table-only] [--train-only]

Each pair is a wadgym id and the ViZDoom scenario its family generalises (PAIRS). For each pair and seed:
- trained on "generated": the id's budget entry (bench/learn.py's ppo.yml by default) as it is, on the
  id's generated training levels (0-199);
- trained on "original": the same entry, the same steps, on the original map alone (env kwargs
  `wad=vizdoom:NAME`, the entry's level range left out: a foreign map has none);
and each trained policy is played on the id's held-out generated levels (from level 10,000) and on the
original map. The random policy plays the same seeded episodes of both; the scripted reference plays the
generated levels (it needs the generator's facts, which a hand-made map does not give). Episode i of every
policy starts with reset(seed=i). Every finished run is added to docs/transfer.json at once (so a stopped
benchmark continues with --skip-done); docs/transfer.md (a 2x2 per pair: trained on x played on, mean ± std
over seeds) and docs/transfer.png are rewritten from it. A section of docs/transfer.md headed READING (what
the figures show and, for a pair that misses the goal, what differs between the generated levels and the
original; written by hand) is kept when the table is rewritten.

The goal (issue 39): the generated-trained policy scores on the original at least 80% of what the
original-trained policy scores there, while the original-trained policy falls short on held-out generated levels.
Each run keeps its per-episode scores, and both halves are decided on 95% intervals over seeds x episodes
(harness: rliable's IQM and probability of improvement, each with its stratified bootstrap interval): met,
missed, or not decided where an interval straddles the goal. Runs recorded before they kept per-episode scores
are decided on their means, as before, and the page says so.

ICM's fine-tune protocol (Pathak et al. 2017; issue 48), `--trained-on finetuned original-short`: "finetuned"
continues the generated-trained run of the same seed on the original map alone for FINETUNE_SHARE of the entry's
steps (`wadgym train --init-from`), "original-short" trains on the original alone from scratch for the same
steps. Its goal: the fine-tuned policy reaches on the original what the original-trained policy reaches with all
the steps (the interval of its mean at or above that mean), where the one from scratch need not.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import harness  # bench/harness.py, beside this script
from harness import (
    MEETS,
    MISSES,
    UNDECIDED,
    Estimate,
    git_commit,
    hyperparams_file,
    mean_spread,
    trained_commit,
    typed_path,
)

# pair -> (wadgym id, the ViZDoom scenario it generalises)
PAIRS: dict[str, tuple[str, str]] = {
    "health": ("DoomHealth-v0", "vizdoom:health_gathering"),
    "exit": ("DoomExit-v0", "vizdoom:my_way_home"),
    "defend": ("DoomDefend-v0", "vizdoom:defend_the_center"),
    "exit-mixed": ("DoomExit-v0", "vizdoom:my_way_home"),
    # Combat: the bots' generated arenas and ViZDoom's AI-competition map (its MAP01: rocket launchers only), the
    # same bots on both (the id's 3 of level 2), scored in frags.
    "combat": ("DoomDeathmatchBots-v0", "vizdoom:cig"),
    # Combat with cig's weapons on the generated arenas (every player armed with a rocket launcher and 10 rockets),
    # the preset that covers what cig deals and the default arenas never show: rockets that hurt the one who fires.
    "combat-rockets": ("DoomDeathmatchBots-v0", "vizdoom:cig"),
    # combat-rockets with cig's respawns: at the arenas' edge, turned at random, where the rockets-trained policy
    # killed itself on cig (its starts in the outer corridors).
    "combat-walls": ("DoomDeathmatchBots-v0", "vizdoom:cig"),
    "defend-dtc": ("DoomDefend-v0", "vizdoom:defend_the_center"),
    "corridor": ("DoomCorridor-v0", "vizdoom:deadly_corridor"),
    # The corridor pair on DoomCorridorHard-v0's levels (skill 5 and double damage, as deadly_corridor plays): the
    # generated side trains and plays on the hard preset; the original side is the corridor pair's.
    "corridor-hard": ("DoomCorridor-v0", "vizdoom:deadly_corridor"),
    # The navigation generator's second version (rooms of several sizes, corridors that turn, far starts,
    # my_way_home's 525-step episodes: envs/families/exit.py) and the same original.
    "exit-v1": ("DoomExit-v1", "vizdoom:my_way_home"),
    # exit-v1 with a ladder of building sizes in the generated side's training (4-6 rooms, then 6-9, then the id's
    # 8-12), the first setting that learnt DoomExit-v1's own levels (docs/exploration.md), and its 2M steps on
    # every side; the original has no sizes to climb (original_conf).
    "exit-v1-ladder": ("DoomExit-v1", "vizdoom:my_way_home"),
    # The exit pair with the count bonus in every training (generated, original and the fine-tune protocol's), the
    # bonus that bought my_way_home 0.86-0.88 exits at 500k steps (docs/exploration.md).
    "exit-counts": ("DoomExit-v0", "vizdoom:my_way_home"),
    # exit-counts on DoomExit-v0's buildings dressed as DoomExit-v1's levels: whether the looks (goal, textures,
    # light) are what its generated-trained policy lacks on my_way_home, where the buildings are learnt.
    "exit-looks": ("DoomExit-v0", "vizdoom:my_way_home"),
}
# A pair's scenario parameters over the entry's on its generated levels (in training and in the held-out play): the
# preset that covers what the original has and the id's own levels lack. "exit-mixed": my_way_home's goal is the
# green armour, which DoomExit-v0's levels (a white lamp) never show; half its levels show the armour instead.
# "defend-dtc": DoomDefend-v0's preset that covers defend_the_center (26 bullets, full-speed melee monsters of one
# bullet, a round room; envs/families/defend.py's "center").
# "combat-rockets": the deathmatch bots' preset that deals what cig does (every player starts and respawns with a
# rocket launcher and 10 rockets; the pickups rocket launchers and rockets), which the default arenas never show.
# "corridor-hard": DoomCorridorHard-v0's levels (envs/families/corridor.py's "hard": skill 5, double damage, 6-8
# monsters of three kinds placed at random, longer corridors with two turns), deadly_corridor's skill and damage.
# "combat-walls": "rockets" respawning at the arenas' edge, each turned at random (preset "rockets-walls").
# "exit-looks": DoomExit-v1's looks on DoomExit-v0's buildings (its texture pool with the stock textures of
# my_way_home's kin, light from uniform to varied, rooms with walls of their own) and walls that carry lights
# (my_way_home lines some walls with a ceiling light's flat, a bright diamond in gray, which DoomExit-v0's levels
# never show beside their white lamp), the goal a lamp or the armour.
PAIR_KWARGS: dict[str, dict[str, Any]] = {
    "exit-mixed": {"exit_look": "mixed"},
    "defend-dtc": {"preset": "center"},
    "combat-rockets": {"preset": "rockets"},
    "combat-walls": {"preset": "rockets-walls"},
    "corridor-hard": {"preset": "hard"},
    "exit-looks": {"exit_look": "mixed", "textures": "lit", "light_min": 128, "light_max": 224,
                   "light_variation": 48, "wall_mix": 0.5},
}
# A pair's training settings over the entry's, in every training of the pair (the entry's keys, e.g. `explore`; the
# policy is played without them).
PAIR_SETTINGS: dict[str, dict[str, Any]] = {
    "exit-counts": {"explore": "counts:0.005"},
    "exit-looks": {"explore": "counts:0.005"},
    "exit-v1-ladder": {"n_timesteps": 2_000_000,
                       "curriculum": [{"until": 800_000, "env_kwargs": {"n_rooms_min": 4, "n_rooms_max": 6}},
                                      {"until": 1_400_000, "env_kwargs": {"n_rooms_min": 6, "n_rooms_max": 9}}]},
}
# Settings a training on the original leaves out: a curriculum climbs the family's scenario parameters, which one
# hand-made map does not have, so the original's trainings (and the fine-tuned ones) take the same steps without.
GENERATED_ONLY_SETTINGS = ("curriculum",)
# A pair whose original-trained runs are another pair's (the same id, original and entry: the same training),
# played again on this pair's generated levels.
SHARED_ORIGINAL: dict[str, str] = {"exit-mixed": "exit", "defend-dtc": "defend", "exit-looks": "exit-counts",
                                   "combat-rockets": "combat", "combat-walls": "combat", "corridor-hard": "corridor"}
# Env kwargs of the ids' entries that need the generator's facts (the rooms of a building wadgym built, the ACS of
# its arenas), which a hand-made map does not give: each family's `level_only_kwargs` (reward bonuses; the score is
# the same), left out on the original, in training and in play. DoomExit-v0's entry trains with new_room_reward
# 0.1, so its original-trained runs learn from the sparse exit alone: the table says so.
# ICM's fine-tune protocol (the module's docstring): a generated-trained run continued on the original alone, and
# the original alone from scratch, each for FINETUNE_SHARE of the entry's steps.
FINETUNE = ("finetuned", "original-short")
FINETUNE_SHARE = 0.5
TRAINED_ON = ("generated", "original", *FINETUNE)
DEFAULT_TRAINED_ON = ("generated", "original")
PLAYED_ON = ("original", "generated")
GOAL_SHARE = 0.8
LEVEL_KWARGS = ("num_levels", "start_level")
READING = "## Reading the figures"


def run_key(pair: str, trained_on: str, seed: int) -> str:
    return harness.run_key(pair, trained_on, seed)


def family(env_id: str):
    """The id's env class (its family's)."""
    import importlib

    from wadgym.envs.registration import ENVS

    module, _, name = ENVS[env_id][0].partition(":")
    return getattr(importlib.import_module(module), name)


def scenario_fields(env_id: str) -> set[str]:
    """The scenario parameters of the id's family (its Params' fields) that a hand-made map does not take (all
    but its hand_made_params, e.g. the bots)."""
    import dataclasses

    cls = family(env_id)
    return {f.name for f in dataclasses.fields(cls.Params)} - set(cls.hand_made_params)


def generator_kwargs(env_id: str) -> tuple[str, ...]:
    """The id's env kwargs that read the plan of a level its family built (its level_only_kwargs)."""
    return tuple(family(env_id).level_only_kwargs)


def original_kwargs(env_kwargs: dict[str, Any], wad: str, env_id: str) -> dict[str, Any]:
    """Env kwargs that play the original map: the run's, without a level range, the generator's bonuses
    (generator_kwargs) and the family's scenario parameters, with `wad`."""
    dropped = {*LEVEL_KWARGS, *generator_kwargs(env_id), *scenario_fields(env_id)}
    return {**{k: v for k, v in env_kwargs.items() if k not in dropped}, "wad": wad}


def entry_conf(env_id: str, conf: Path, env_kwargs, path: Path, settings: dict[str, Any] | None = None,
               emptied: tuple[str, ...] = ()) -> Path:
    """The hyperparameter file's entry for `env_id` with `env_kwargs(its env kwargs)` in their place,
    `settings` over its own and the `emptied` settings it has (from either) emptied, the same steps otherwise,
    written to `path` as a one-entry hyperparameter file (what the run folder then records)."""
    import yaml

    from wadgym.agents.config import load_hyperparams
    from wadgym.agents.runfolder import write_text_atomic

    entry = {**load_hyperparams(env_id, conf), **(settings or {})}
    entry |= {key: [] for key in emptied if entry.get(key)}
    entry["env_kwargs"] = env_kwargs(dict(entry.get("env_kwargs") or {}))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, yaml.safe_dump({env_id: entry}, sort_keys=False))
    return path


def own_generated_entry(pair: str) -> bool:
    """The pair trains on its generated levels with an entry of its own (PAIR_KWARGS or PAIR_SETTINGS), not the
    hyperparameter file's."""
    return pair in PAIR_KWARGS or pair in PAIR_SETTINGS


def generated_conf(env_id: str, conf: Path, pair: str, folder: Path) -> Path:
    """The entry for `env_id` with the pair's PAIR_KWARGS over its env kwargs and its PAIR_SETTINGS over its
    settings (`conf` itself for a pair without either), as a one-entry hyperparameter file in `folder`."""
    if not own_generated_entry(pair):
        return conf
    extra, settings = PAIR_KWARGS.get(pair, {}), PAIR_SETTINGS.get(pair)
    return entry_conf(env_id, conf, lambda kwargs: {**kwargs, **extra}, folder / f"{env_id}_{conf.stem}_{pair}.yml",
                      settings)


def left_out(env_id: str, conf: Path) -> list[str]:
    """The entry's env kwargs that the original cannot take (the generator_kwargs it sets)."""
    from wadgym.agents.config import load_hyperparams

    entry = load_hyperparams(env_id, conf)
    return sorted(set(entry.get("env_kwargs") or {}) & set(generator_kwargs(env_id)))


def generated_test_kwargs(env_kwargs: dict[str, Any]) -> dict[str, Any]:
    """Env kwargs that play the held-out generated levels: the run's, without a map, from level 10,000 on."""
    from wadgym.agents.evaluate import TEST_START_LEVEL

    kept = {k: v for k, v in env_kwargs.items() if k not in ("wad", "map", *LEVEL_KWARGS)}
    return {**kept, "start_level": TEST_START_LEVEL, "num_levels": 0}


def pair_test_kwargs(env_kwargs: dict[str, Any], pair: str | None) -> dict[str, Any]:
    """Env kwargs that play the pair's held-out generated levels: generated_test_kwargs with its PAIR_KWARGS."""
    return {**generated_test_kwargs(env_kwargs), **PAIR_KWARGS.get(pair, {})}


def original_conf(env_id: str, conf: Path, wad: str, folder: Path, pair: str | None = None) -> Path:
    """The entry for `env_id` with the original map in place of the level range (original_kwargs) and the
    pair's PAIR_SETTINGS over its settings but for GENERATED_ONLY_SETTINGS (a curriculum, the pair's or the
    entry's own, emptied), as a one-entry hyperparameter file in `folder`."""
    settings = PAIR_SETTINGS.get(pair)
    return entry_conf(env_id, conf, lambda kwargs: original_kwargs(kwargs, wad, env_id),
                      folder / f"{env_id}_{conf.stem}_{wad.replace(':', '_')}{f'_{pair}' if settings else ''}.yml",
                      settings, emptied=GENERATED_ONLY_SETTINGS)


def train_config(env_id: str, seed: int, conf_file: Path, run_dir: Path, timesteps: int | None = None,
                 init_from: Path | None = None):
    """The TrainConfig of one training: the one-entry hyperparameter file's entry (no final evaluation: the
    benchmark's own follows); `timesteps` and `init_from` for the fine-tune protocol's runs."""
    from wadgym.agents import TrainConfig

    return TrainConfig(env=env_id, seed=seed, conf_file=conf_file, run_dir=run_dir, eval_episodes=0, progress=False,
                       timesteps=timesteps, init_from=init_from)


def short_steps(env_id: str, conf: Path, pair: str | None = None) -> int:
    """The fine-tune protocol's steps: FINETUNE_SHARE of the entry's n_timesteps (the pair's PAIR_SETTINGS over
    the entry's, as its derived entries have them)."""
    from wadgym.agents.config import load_hyperparams

    entry = {**load_hyperparams(env_id, conf), **PAIR_SETTINGS.get(pair, {})}
    return int(int(entry["n_timesteps"]) * FINETUNE_SHARE)


def scores_of(env_id: str, env_kwargs: dict[str, Any], seeds: list[int], policy) -> list[float]:
    """The policy's score in each of the seeded episodes."""
    from wadgym.agents.evaluate import run_episodes

    return [episode["score"] for episode in run_episodes(env_id, env_kwargs, seeds, policy)]


def score_of(env_id: str, env_kwargs: dict[str, Any], seeds: list[int], policy) -> float:
    from wadgym.agents.evaluate import run_episodes, summarize

    return summarize(run_episodes(env_id, env_kwargs, seeds, policy))["score_mean"]


def evaluate(run_dir: Path, wad: str, episodes: int, pair: str | None = None) -> dict[str, Any]:
    """The trained policy on the original map and on the held-out generated levels (with the pair's
    PAIR_KWARGS), the same seeded episodes: each map's mean score, and under "scores" its per-episode scores."""
    from wadgym.agents.policies.policy import SavedPolicy

    policy = SavedPolicy(run_dir)
    seeds = list(range(episodes))
    scores = {"original": scores_of(policy.env_id, original_kwargs(policy.env_kwargs, wad, policy.env_id), seeds,
                                    policy),
              "generated": scores_of(policy.env_id, pair_test_kwargs(policy.env_kwargs, pair), seeds, policy)}
    return {**{played_on: float(np.mean(values)) for played_on, values in scores.items()}, "scores": scores}


def baselines(env_id: str, wad: str, env_kwargs: dict[str, Any], episodes: int) -> dict[str, Any]:
    """Random on both, scripted on the generated levels (None on the original: a foreign map gives the
    scripted reference none of the facts it needs), on the seeds the trained policies play."""
    from wadgym.agents.evaluate import has_scripted

    seeds = list(range(episodes))
    test = generated_test_kwargs(env_kwargs)
    return {"episodes": episodes, "commit": git_commit(),
            "random": {"original": score_of(env_id, original_kwargs(env_kwargs, wad, env_id), seeds, "random"),
                       "generated": score_of(env_id, test, seeds, "random")},
            "scripted": {"original": None,
                         "generated": score_of(env_id, test, seeds, "scripted") if has_scripted(env_id, test)
                         else None}}


def share_original(json_path: Path, pair: str, seed: int, train_only: bool, runs: Path, episodes: int) -> None:
    """The original-trained run of SHARED_ORIGINAL[pair] for `seed` recorded as this pair's too (its training,
    command, commit and score on the original), played on this pair's generated levels (unless `train_only`)."""
    source = run_key(SHARED_ORIGINAL[pair], "original", seed)
    key = run_key(pair, "original", seed)
    shared = load(json_path)["runs"].get(source)
    if shared is None or shared["eval"] is None:
        print(f"== {key}: shares {source}, which is not {'recorded' if shared is None else 'evaluated'} yet: run "
              f"--pair {SHARED_ORIGINAL[pair]} --trained-on original first", flush=True)
        return
    if train_only:
        return
    if not (runs / shared["run_dir"]).is_dir():
        print(f"== {key}: shares {source}, whose run folder {runs / shared['run_dir']} is not here: rerun "
              f"--pair {SHARED_ORIGINAL[pair]} --trained-on original (without --skip-done; its row now is kept among "
              f"the replaced), then this pair", flush=True)
        return
    print(f"== {key}: the run of {source}, played on this pair's generated levels", flush=True)
    from wadgym.agents.policies.policy import SavedPolicy

    policy = SavedPolicy(runs / shared["run_dir"])
    generated = scores_of(policy.env_id, pair_test_kwargs(policy.env_kwargs, pair), list(range(episodes)), policy)
    row = {**shared, "pair": pair, "shared_from": source, "evaluated_at": git_commit(),
           "eval": {"original": shared["eval"]["original"], "generated": float(np.mean(generated)),
                    "scores": {"original": (shared["eval"].get("scores") or {}).get("original"),
                               "generated": generated}}}
    results(json_path).record(key, row)
    print(f"   on the original {row['eval']['original']:.2f} (the shared run's), on held-out generated levels "
          f"{row['eval']['generated']:.2f}", flush=True)


def row_conf(row: dict[str, Any]) -> Path:
    """The hyperparameter file a row's entry came from: its --conf-file, else its budget's."""
    return Path(row["conf_file"]) if row.get("conf_file") else hyperparams_file(row.get("budget", "cpu"))


def evaluate_pending(json_path: Path, runs: Path, episodes: int, keys: list[str] | None = None) -> None:
    """Evaluate the recorded runs (`keys`, default all) that have no evaluation yet, then their pairs'
    baselines where missing or played on another number of episodes; each result saved at once."""
    from wadgym.agents.config import load_hyperparams

    store = results(json_path)
    for key in keys if keys is not None else list(store.keys()):
        row = store.load()["runs"][key]
        if row["eval"] is not None:
            continue
        if not (runs / row["run_dir"]).is_dir():
            print(f"== {key}: run folder {runs / row['run_dir']} not found, not evaluated", flush=True)
            continue
        print(f"== {key}: evaluating {runs / row['run_dir']}", flush=True)
        row["eval"] = evaluate(runs / row["run_dir"], row["original"], episodes, row["pair"])
        row["evaluated_at"] = git_commit()  # training's commit is row["commit"]
        row["command"] = re.sub(r"--episodes \d+", f"--episodes {episodes}", row["command"])  # as it was played
        store.record(key, row)
        print(f"   on the original {row['eval']['original']:.2f}, on held-out generated levels "
              f"{row['eval']['generated']:.2f}", flush=True)
        data = store.load()
        base = data["baselines"].get(row["pair"])
        if base is None or base["episodes"] != episodes:
            entry_kwargs = {**(load_hyperparams(row["env"], row_conf(row)).get("env_kwargs") or {}),
                            **PAIR_KWARGS.get(row["pair"], {})}
            data["baselines"][row["pair"]] = baselines(row["env"], row["original"], entry_kwargs, episodes)
            store.save(data)


def results(json_path: Path) -> harness.ResultsStore:
    """docs/transfer.json: the runs (keyed <pair>/<trained on>/seed<N>; a trained run waits there for its
    evaluation, "eval" None), each pair's baselines, and the rows that reruns replaced ("replaced", keyed
    <key>@<run folder>; the page lists them)."""
    return harness.ResultsStore(json_path, replaced="replaced", baselines={})


def load(json_path: Path) -> dict[str, Any]:
    return results(json_path).load()


def evaluated(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The recorded runs whose evaluation is done (a trained run waits for it in the JSON)."""
    return [r for r in data["runs"].values() if r["eval"] is not None]


def played(rows: list[dict[str, Any]], played_on: str, interval: bool = True) -> Estimate:
    """A training's figure on a map over its seeds (harness.estimate): the mean of the seeds' means and, where
    every run kept its per-episode scores, the IQM with its 95% interval (`interval` False: the IQM alone)."""
    return harness.estimate([r["eval"][played_on] for r in rows],
                            [(r["eval"].get("scores") or {}).get(played_on) for r in rows], interval)


def cell(rows: list[dict[str, Any]], played_on: str) -> str:
    """mean ± std over seeds and how many, then the IQM [95% CI] where the runs kept per-episode scores."""
    text = mean_spread([r["eval"][played_on] for r in rows]) + (f" ({len(rows)} seeds)" if len(rows) > 1
                                                                 else " (1 seed)")
    figure = played(rows, played_on)
    return text + (f"; IQM {figure.cell()}" if figure.iqm is not None else "")


GOAL_WORDS = {MEETS: "goal met", MISSES: "goal missed", UNDECIDED: "goal not decided"}


def verdict(generated: list[dict[str, Any]], original: list[dict[str, Any]]) -> str:
    """The goal's two halves as a sentence, decided on intervals where every run kept its per-episode scores
    (interval_verdict), else on the seeds' means (and saying so)."""
    if not generated or not original:
        return "not measured yet: both trainings are needed"
    figures = [played(rows, on, interval=False) for rows in (generated, original) for on in PLAYED_ON]
    if all(figure.iqm is not None for figure in figures):
        return interval_verdict(generated, original)
    return mean_verdict(generated, original) + "; decided on the means (these runs kept no per-episode scores)"


def finetune_verdict(finetuned: list[dict[str, Any]], short: list[dict[str, Any]],
                     original: list[dict[str, Any]]) -> str:
    """ICM's fine-tune protocol as a sentence: the fine-tuned policy's mean on the original (its 95% interval where
    the runs kept their episodes) against the original-trained mean with all the steps, beside the same steps from
    scratch."""
    if not finetuned or not original:
        return "Fine-tune protocol: not measured yet (the fine-tuned and the original-trained runs are needed)."
    reference = played(original, "original", interval=False).point
    figure = played(finetuned, "original")
    said = GOAL_WORDS[harness.decide(figure, reference)]
    interval = (f" (95% CI {span(*figure.bounds)})" if figure.mean_low is not None
                else " (the mean alone: these runs kept no per-episode scores)")
    scratch = (f"; from scratch with the same steps: {played(short, 'original', interval=False).point:.2f}"
               if short else "; from scratch with the same steps: not run yet")
    return (f"Fine-tune protocol (ICM's): **{said}**: fine-tuned on the original for {FINETUNE_SHARE:.0%} of the "
            f"steps, the generated-trained policy scores {figure.point:.2f} there{interval}, against "
            f"{reference:.2f} for the original-trained policy with all of them{scratch}.")


def span(low: float, high: float) -> str:
    """An interval's bounds in words: "0.86-0.99", or "-17.27 to -15.69" where a bound is negative (a dash
    between negative numbers reads as two minus signs)."""
    return f"{low:.2f} to {high:.2f}" if min(low, high) < 0 else f"{low:.2f}-{high:.2f}"


NO_SHARE = ("the original-trained mean, {reference:.2f}, is not above 0, so a share of it means nothing; the "
            "generated-trained policy must reach it")


def share_bar(reference: float) -> float:
    """The score the generated-trained policy must reach on the original: GOAL_SHARE of the original-trained
    mean there, or that mean itself where it is 0 or below (frags less suicides can be: 80% of a negative score
    would ask for more than all of it, and 80% of 0 is no bar at all)."""
    return GOAL_SHARE * reference if reference > 0 else reference


def share_words(point: float, reference: float, said: str, bounds: tuple[float, float] | None = None) -> str:
    """The goal's first half in words: the generated-trained policy's figure on the original (`point`, with its
    95% interval `bounds` where the runs kept their episodes) as a share of the original-trained mean
    `reference`, or as a score where that mean is 0 or below (share_bar); `said`: "meets", "misses", ..."""
    if reference > 0:
        interval = f", 95% CI {bounds[0] / reference:.0%}-{bounds[1] / reference:.0%}" if bounds else ""
        return (f"generated-trained scores {point / reference:.0%} of the original-trained "
                f"{'mean' if bounds else 'score'} on the original{interval} ({said} the {GOAL_SHARE:.0%} goal)")
    interval = f", 95% CI {span(*bounds)}" if bounds else ""
    return (f"generated-trained scores {point:.2f} on the original{interval} ({said} the bar: "
            f"{NO_SHARE.format(reference=reference)})")


def interval_verdict(generated: list[dict[str, Any]], original: list[dict[str, Any]]) -> str:
    """The goal decided on intervals (harness.decide): the 95% interval of the generated-trained policy's mean
    on the original against GOAL_SHARE of the original-trained policy's mean there; "falls short" by the probability
    that an episode of the generated-trained policy on held-out generated levels scores more than one of the
    original-trained (rliable's probability of improvement, its 95% interval above 0.5: falls short; at or
    below 0.5: does not; holding 0.5: not decided). Met when both halves are, missed when either is."""
    on_original = played(generated, "original"), played(original, "original", interval=False)
    reference = on_original[1].point
    decide_share = harness.decide(on_original[0], share_bar(reference))
    said = {MEETS: "meets", MISSES: "misses", UNDECIDED: "straddles"}[decide_share]
    first = share_words(on_original[0].point, reference, said, on_original[0].bounds)
    scores = [[v for r in rows for v in r["eval"]["scores"]["generated"]] for rows in (generated, original)]
    better = harness.improvement(*scores)
    falls = harness.decide(better.as_estimate(), 0.5, strict=True)
    short = {MEETS: "falls short", MISSES: "does not fall short", UNDECIDED: "may fall short (not decided)"}[falls]
    means = [played(rows, "generated", interval=False).point for rows in (generated, original)]
    second = (f"the original-trained policy {short} on held-out generated levels (P(generated-trained > "
              f"original-trained) {better.cell()}; means {means[1]:.2f} vs {means[0]:.2f} for the generated-trained)")
    return f"**{GOAL_WORDS[harness.combine(decide_share, falls)]}**: {first}; {second}"


def mean_verdict(generated: list[dict[str, Any]], original: list[dict[str, Any]]) -> str:
    """The goal's two halves from the seeds' means, as decided before runs kept per-episode scores."""
    on_original = [np.mean([r["eval"]["original"] for r in rows]) for rows in (generated, original)]
    on_generated = [np.mean([r["eval"]["generated"] for r in rows]) for rows in (generated, original)]
    meets = bool(on_original[0] >= share_bar(on_original[1]))
    first = share_words(on_original[0], on_original[1], "meets" if meets else "misses")
    short = "falls short" if on_generated[1] < on_generated[0] else "does not fall short"
    second = (f"the original-trained policy {short} on held-out generated levels ({on_generated[1]:.2f} vs "
              f"{on_generated[0]:.2f} for the generated-trained)")
    met = meets and on_generated[1] < on_generated[0]
    return f"**{'goal met' if met else 'goal missed'}**: {first}; {second}"


def how_decided() -> list[str]:
    """The page's section on how its figures and goals are decided."""
    return [
        "## How figures are decided",
        "",
        "A training's cell gives the mean ± std over seeds of each seed's mean score and, for runs that kept "
        "their per-episode",
        "scores, rliable's interquartile mean (IQM) of all its episodes with its 95% stratified bootstrap "
        "confidence interval",
        "over seeds x episodes, as on the [learning benchmark](benchmark.md#how-figures-are-decided). The goal's "
        "two halves are",
        "decided on intervals. The share: the 95% stratified bootstrap interval of the generated-trained "
        "policy's mean on the",
        f"original against {GOAL_SHARE:.0%} of the original-trained policy's mean there (met when its lower bound "
        "reaches that, missed when",
        "its upper bound stays below, not decided when it straddles it; the IQM, shown beside, decides nothing: an "
        "episode",
        "that scores 0 or 1, as an exit does, makes the IQM 0 or 1 by construction; where the original-trained mean "
        "is 0 or",
        "below, as frags less suicides can be, a share of it means nothing and the bar is that mean itself). "
        "Falling short:",
        "rliable's probability of improvement P(generated-trained > original-trained), the chance that an episode of "
        "the",
        "generated-trained policy on held-out generated levels scores more than one of the original-trained (ties "
        "count half),",
        f"with its 95% bootstrap interval (the episodes of each resampled, {harness.BOOTSTRAP_REPS:,} times, from a "
        "fixed seed): the",
        "original-trained policy falls short when the interval lies above 0.5, does not when it reaches no higher "
        "than 0.5,",
        "and it is not decided when the interval holds 0.5. The goal is met when both halves are, missed when either "
        "is,",
        "otherwise not decided. A pair whose runs kept no per-episode scores (recorded before runs kept them) is "
        "decided on",
        "the means, as before, and says so.",
        "",
    ]


def write_table(json_path: Path, md_path: Path, png_path: Path) -> None:
    data = load(json_path)
    lines = ["# Transfer: generated levels to hand-made maps", "",
             "Made by `python bench/transfer.py` (each run's commit and command below). Each pair is a wadgym id",
             "and the ViZDoom scenario its family generalises, played through the id's env (`wad=vizdoom:NAME`:",
             "the same actions, observations, frame skip and score; see [hand-made maps](hand-made-maps.md)).",
             "PPO with the id's `cpu` entry of ppo.yml trained either on the id's generated training levels (0-199)",
             "or on the original map alone (the same settings and steps), then played on the original and on",
             "held-out generated levels (from level 10,000); random and scripted play the same seeded episodes.",
             "Figures: mean ± std over seeds of each seed's mean score per episode and, where runs kept their",
             "episodes, the IQM with its 95% confidence interval; the goal is decided on the mean's interval (below).",
             ""]
    lines += how_decided()
    for pair, (env_id, wad) in PAIRS.items():
        rows = {t: [r for r in evaluated(data) if r["pair"] == pair and r["trained_on"] == t] for t in TRAINED_ON}
        base = data["baselines"].get(pair)
        if not any(rows.values()) and not base:
            continue
        score = next((r["score_name"] for t in TRAINED_ON for r in rows[t]), "score")
        lines += [f"## {pair_title(pair)}", "",
                  f"| {score} per episode | played on the original (`{wad}`) | played on {env_id}'s held-out levels |",
                  "|---|---|---|"]
        for trained_on, label in (("generated", f"trained on {env_id}'s generated levels"),
                                  ("original", "trained on the original map alone"),
                                  ("finetuned", f"the generated-trained run fine-tuned on the original, "
                                                f"{FINETUNE_SHARE:.0%} of the steps"),
                                  ("original-short", f"trained on the original alone, {FINETUNE_SHARE:.0%} of the "
                                                     f"steps")):
            found = rows[trained_on]
            if trained_on in FINETUNE and not found:
                continue
            lines.append(f"| {label} | {cell(found, 'original') if found else 'not run yet'} | "
                         f"{cell(found, 'generated') if found else 'not run yet'} |")
        if base:
            lines.append(f"| random | {base['random']['original']:.2f} | {base['random']['generated']:.2f} |")
            scripted = base["scripted"]["generated"]
            lines.append("| scripted (privileged information) | unavailable (needs the generator's facts) | "
                         + (f"{scripted:.2f}" if scripted is not None else "none") + " |")
        lines += ["", verdict(rows["generated"], rows["original"])]
        if rows["finetuned"] or rows["original-short"]:
            lines += ["", finetune_verdict(rows["finetuned"], rows["original-short"], rows["original"])]
        if pair in PAIR_KWARGS:
            lines += ["", f"The generated levels here, in training and in play, are {env_id}'s with "
                          f"{kwargs_text(PAIR_KWARGS[pair])}."
                      + (f" The original-trained runs are those of the {SHARED_ORIGINAL[pair]} pair (the same "
                         f"training), played again on these levels." if pair in SHARED_ORIGINAL else "")]
        if pair in PAIR_SETTINGS:
            generated_only = [key for key in GENERATED_ONLY_SETTINGS if key in PAIR_SETTINGS[pair]]
            lines += ["", f"Every training of this pair (on the generated levels, on the original, fine-tuned) has "
                          f"{kwargs_text(PAIR_SETTINGS[pair])} over the entry's settings; the policies are played "
                          f"without them."
                      + (f" The {', '.join(generated_only)} only on the generated levels: the original has no "
                         f"scenario parameters to change, its trainings take the same steps without it."
                         if generated_only else "")]
        dropped = left_out(env_id, next((row_conf(r) for t in TRAINED_ON for r in rows[t]), hyperparams_file("cpu")))
        if dropped:
            lines += ["", f"On the original the entry's {', '.join(dropped)} is left out (in training and in play): "
                          f"it needs the rooms of a building wadgym built. The original-trained runs learn from "
                          f"the score's reward alone."]
        lines.append("")
    commands = sorted({(r["commit"], r["command"], r["timesteps"], r["wall_time_s"]) for r in data["runs"].values()})
    if commands:
        lines += ["## Runs", "", "| commit | command | steps | wall time |", "|---|---|---|---|"]
        lines += [f"| {c} | `{cmd}` | {steps:,} | {wall / 60:.0f} min |" for c, cmd, steps, wall in commands]
        lines.append("")
    if data["replaced"]:
        lines += ["## Replaced runs", "", "Rows that a rerun of the same pair, training and seed replaced (kept as "
                  "history; the tables above are the reruns'):", "",
                  "| pair / trained on / seed | on the original | on held-out generated levels | commit | run |",
                  "|---|---|---|---|---|"]
        for name, r in sorted(data["replaced"].items()):
            e = r.get("eval") or {}
            figures = [f"{e[side]:.2f}" if e.get(side) is not None else "not evaluated"
                       for side in ("original", "generated")]
            lines.append(f"| {name.split('@')[0]} | {figures[0]} | {figures[1]} | {r['commit']} | {r['run_dir']} |")
        lines.append("")
    if data["runs"]:
        lines += ["![each pair's 2x2: trained on x played on](transfer.png)", ""]
    harness.write_page(md_path, lines, keep=READING)
    plot(data, png_path)


def kwargs_text(kwargs: dict[str, Any]) -> str:
    return ", ".join(harness.curriculum_text(v) if k == "curriculum" else f"`{k}={v!r}`" for k, v in kwargs.items())


def pair_title(pair: str) -> str:
    """A pair's heading: the id and the original, and the pair's own generated kwargs where it has some."""
    env_id, wad = PAIRS[pair]
    extra = {**PAIR_KWARGS.get(pair, {}), **PAIR_SETTINGS.get(pair, {})}
    return f"{env_id} and {wad.split(':', 1)[1]}" + (f" ({kwargs_text(extra)})" if extra else "")


def plot(data: dict[str, Any], path: Path) -> None:
    """Per pair: grouped bars (played on the original, on held-out generated levels) of the two trainings,
    random and scripted, with each training's spread over seeds."""
    pairs = [p for p in PAIRS if any(r["pair"] == p for r in evaluated(data))]
    if not pairs:
        return
    fig, axes = harness.panels(len(pairs), 4.8, 3.6)
    colours = {"generated": "tab:blue", "original": "tab:orange", "finetuned": "tab:green",
               "original-short": "tab:olive", "random": "tab:red", "scripted": "tab:gray"}
    for ax, pair in zip(axes, pairs):
        env_id, wad = PAIRS[pair]
        base = data["baselines"].get(pair)
        bars: list[tuple[str, list[float | None]]] = []
        for trained_on in TRAINED_ON:
            rows = [r for r in evaluated(data) if r["pair"] == pair and r["trained_on"] == trained_on]
            if trained_on in FINETUNE and not rows:
                continue
            bars.append((f"trained on {trained_on}", [[r["eval"][p] for r in rows] or None for p in PLAYED_ON]))
        if base:
            bars += [("random", [[base["random"][p]] for p in PLAYED_ON]),
                     ("scripted", [[v] if (v := base["scripted"][p]) is not None else None for p in PLAYED_ON])]
        width = 0.8 / len(bars)
        for k, (label, values) in enumerate(bars):
            xs = [i + (k - (len(bars) - 1) / 2) * width for i in range(len(PLAYED_ON))]
            means = [np.mean(v) if v else 0.0 for v in values]
            stds = [np.std(v) if v else 0.0 for v in values]
            ax.bar(xs, means, width, yerr=stds, capsize=3, label=label, color=colours[label.split()[-1]])
        ax.set_xticks(range(len(PLAYED_ON)),
                      [f"played on\n{wad.split(':', 1)[1]}", "played on held-out\ngenerated levels"], fontsize=8)
        score = next(r["score_name"] for r in evaluated(data) if r["pair"] == pair)
        harness.label_panel(ax, pair_title(pair).replace(" and ", " / ").replace("`", ""), f"{score} per episode",
                            title_size=8, grid_axis="y")
    harness.save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pair", nargs="+", choices=tuple(PAIRS), default=list(PAIRS),
                        help="which pairs (default: all): "
                             + ", ".join(f"{k}: {v[0]} and {v[1]}" for k, v in PAIRS.items()))
    parser.add_argument("--trained-on", nargs="+", choices=TRAINED_ON, default=list(DEFAULT_TRAINED_ON),
                        help="which trainings (default generated and original; finetuned and original-short: "
                             "ICM's fine-tune protocol, after the generated-trained runs)")
    harness.add_common_arguments(parser, outputs="transfer.md/.json/.png", runs="runs/transfer", seeds=3,
                                 seeds_help="seeds per training (default 3)",
                                 episodes_help="evaluation episodes per map", conf_file=True, dry_run=True)
    parser.add_argument("--train-only", action="store_true",
                        help="record the trained runs without evaluating them (a later --skip-done evaluates them)")
    args = parser.parse_args(argv)
    harness.check_common_arguments(parser, args)

    out = harness.pages(args.docs, "transfer")
    if not args.table_only:
        if args.skip_done and not args.dry_run and not args.train_only:  # runs trained, not yet evaluated
            evaluate_pending(out.json, Path(args.runs), args.episodes)
        train_grid(args, out)
    if args.dry_run:
        return 0
    write_table(out.json, out.md, out.figure)
    print(f"wrote {out.md}, {out.figure} ({shlex.join(sys.argv)})")
    return 0


def train_grid(args: argparse.Namespace, out: harness.Pages) -> None:
    """Train (and, unless --train-only, evaluate) every (pair, training, seed) not recorded yet (with
    --skip-done), seed by seed; a pair's shared original-trained runs are played again instead of trained."""
    conf_path = args.conf_file or hyperparams_file(args.budget)
    runs = Path(args.runs)
    store = results(out.json)
    confs: dict[str, dict[str, Path]] = {}   # pair -> trained on -> its one-entry hyperparameter file
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    for cell in store.pending(harness.grid(args.pair, args.trained_on, seeds, seed_major=True), args.skip_done):
        pair, trained_on, seed = cell.name, cell.setting, cell.seed
        env_id, wad = PAIRS[pair]
        if trained_on == "original" and pair in SHARED_ORIGINAL:
            if not args.dry_run:
                share_original(out.json, pair, seed, args.train_only, runs, args.episodes)
                write_table(out.json, out.md, out.figure)
            continue
        if pair not in confs:
            derived = runs / "(derived)"
            confs[pair] = {"generated": generated_conf(env_id, conf_path, pair, runs) if not args.dry_run
                           else (derived if own_generated_entry(pair) else conf_path),
                           "original": original_conf(env_id, conf_path, wad, runs, pair) if not args.dry_run
                           else derived}
        run_dir = runs / f"{env_id}_{trained_on}_s{seed}_{time.strftime('%Y%m%d-%H%M%S')}"
        steps, parent = None, None
        if trained_on in FINETUNE:
            steps = short_steps(env_id, conf_path, pair)
            if trained_on == "finetuned":
                source = store.load()["runs"].get(run_key(pair, "generated", seed))
                if source is None:
                    print(f"== {cell.key}: fine-tunes {run_key(pair, 'generated', seed)}, which is not recorded "
                          f"yet: run --pair {pair} --trained-on generated first", flush=True)
                    continue
                parent = runs / source["run_dir"]
        config = train_config(env_id, seed, confs[pair]["original" if trained_on in FINETUNE else trained_on],
                              run_dir, steps, parent)
        print(f"== {cell.key}: {harness.train_command(config)}", flush=True)
        if args.dry_run:
            continue
        result = harness.train_run(config)
        from wadgym.envs.registration import score_name

        row = {"pair": pair, "env": env_id, "original": wad, "trained_on": trained_on, "seed": seed,
               "score_name": score_name(env_id), "commit": trained_commit(run_dir),
               "command": f"python bench/transfer.py --pair {pair} --trained-on {trained_on} --seeds 1 "
                          f"--first-seed {seed} --episodes {args.episodes} "
                          + (f"--conf-file {typed_path(args.conf_file)}" if args.conf_file
                             else f"--budget {args.budget}"),
               "budget": args.budget, "conf_file": str(args.conf_file) if args.conf_file else None,
               "run_dir": run_dir.name, "timesteps": result["timesteps"],
               "wall_time_s": round(result["wall_time_s"], 1), "eval": None,
               **({"init_from": run_key(pair, "generated", seed)} if parent is not None else {})}
        store.record(cell.key, row)  # trained: recorded before its evaluation, which may be resumed
        if not args.train_only:
            evaluate_pending(out.json, runs, args.episodes, [cell.key])
        write_table(out.json, out.md, out.figure)


if __name__ == "__main__":
    sys.exit(main())
