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
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generalization import hand_written, spread, train_one  # noqa: E402  (beside this file)
from learn import BUDGETS, git_commit, hyperparams_file, typed_path  # noqa: E402

# pair -> (wadgym id, the ViZDoom scenario it generalises)
PAIRS: dict[str, tuple[str, str]] = {
    "health": ("DoomHealth-v0", "vizdoom:health_gathering"),
    "exit": ("DoomExit-v0", "vizdoom:my_way_home"),
    "defend": ("DoomDefend-v0", "vizdoom:defend_the_center"),
    "exit-mixed": ("DoomExit-v0", "vizdoom:my_way_home"),
}
# A pair's scenario parameters over the entry's on its generated levels (in training and in the held-out play): the
# preset that covers what the original has and the id's own levels lack. "exit-mixed": my_way_home's goal is the
# green armour, which DoomExit-v0's levels (a white lamp) never show; half its levels show the armour instead.
PAIR_KWARGS: dict[str, dict[str, Any]] = {"exit-mixed": {"exit_look": "mixed"}}
# A pair whose original-trained runs are another pair's (the same id, original and entry: the same training),
# played again on this pair's generated levels.
SHARED_ORIGINAL: dict[str, str] = {"exit-mixed": "exit"}
# Env kwargs of the ids' entries that need the generator's facts (the rooms of a building wadgym built), which a
# hand-made map does not give: left out on the original, in training and in play (each is a reward bonus; the
# score is the same). DoomExit-v0's entry trains with new_room_reward 0.1, so its original-trained runs learn
# from the sparse exit alone: the table says so.
GENERATOR_KWARGS = ("shaping", "new_room_reward")
TRAINED_ON = ("generated", "original")
PLAYED_ON = ("original", "generated")
GOAL_SHARE = 0.8
LEVEL_KWARGS = ("num_levels", "start_level")
READING = "## Reading the figures"


def run_key(pair: str, trained_on: str, seed: int) -> str:
    return f"{pair}/{trained_on}/seed{seed}"


def scenario_fields(env_id: str) -> set[str]:
    """The scenario parameters of the id's family (its Params' fields), which a hand-made map does not take."""
    import dataclasses
    import importlib

    from wadgym.envs.registration import ENVS

    module, _, name = ENVS[env_id][0].partition(":")
    return {f.name for f in dataclasses.fields(getattr(importlib.import_module(module), name).Params)}


def original_kwargs(env_kwargs: dict[str, Any], wad: str, env_id: str | None = None) -> dict[str, Any]:
    """Env kwargs that play the original map: the run's, without a level range, the generator's bonuses and
    (given `env_id`) the family's scenario parameters, with `wad`."""
    dropped = {*LEVEL_KWARGS, *GENERATOR_KWARGS, *(scenario_fields(env_id) if env_id else ())}
    return {**{k: v for k, v in env_kwargs.items() if k not in dropped}, "wad": wad}


def entry_conf(env_id: str, conf: Path, env_kwargs, path: Path) -> Path:
    """The hyperparameter file's entry for `env_id` with `env_kwargs(its env kwargs)` in their place, the same
    settings and steps otherwise, written to `path` as a one-entry hyperparameter file (what the run folder then
    records)."""
    import yaml

    from wadgym.agents.config import load_hyperparams
    from wadgym.agents.runfolder import write_text_atomic

    entry = load_hyperparams(env_id, conf)
    entry["env_kwargs"] = env_kwargs(dict(entry.get("env_kwargs") or {}))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, yaml.safe_dump({env_id: entry}, sort_keys=False))
    return path


def generated_conf(env_id: str, conf: Path, pair: str, folder: Path) -> Path:
    """The entry for `env_id` with the pair's PAIR_KWARGS over its env kwargs (`conf` itself for a pair without
    any), as a one-entry hyperparameter file in `folder`."""
    extra = PAIR_KWARGS.get(pair)
    if not extra:
        return conf
    return entry_conf(env_id, conf, lambda kwargs: {**kwargs, **extra}, folder / f"{env_id}_{conf.stem}_{pair}.yml")


def left_out(env_id: str, conf: Path) -> list[str]:
    """The entry's env kwargs that the original cannot take (GENERATOR_KWARGS it sets)."""
    from wadgym.agents.config import load_hyperparams

    entry = load_hyperparams(env_id, conf)
    return sorted(set(entry.get("env_kwargs") or {}) & set(GENERATOR_KWARGS))


def generated_test_kwargs(env_kwargs: dict[str, Any]) -> dict[str, Any]:
    """Env kwargs that play the held-out generated levels: the run's, without a map, from level 10,000 on."""
    from wadgym.agents.evaluate import TEST_START_LEVEL

    kept = {k: v for k, v in env_kwargs.items() if k not in ("wad", "map", *LEVEL_KWARGS)}
    return {**kept, "start_level": TEST_START_LEVEL, "num_levels": 0}


def pair_test_kwargs(env_kwargs: dict[str, Any], pair: str | None) -> dict[str, Any]:
    """Env kwargs that play the pair's held-out generated levels: generated_test_kwargs with its PAIR_KWARGS."""
    return {**generated_test_kwargs(env_kwargs), **PAIR_KWARGS.get(pair, {})}


def original_conf(env_id: str, conf: Path, wad: str, folder: Path) -> Path:
    """The entry for `env_id` with the original map in place of the level range (original_kwargs), as a
    one-entry hyperparameter file in `folder`."""
    return entry_conf(env_id, conf, lambda kwargs: original_kwargs(kwargs, wad, env_id),
                      folder / f"{env_id}_{conf.stem}_{wad.replace(':', '_')}.yml")


def train_args(env_id: str, seed: int, conf_file: Path, run_dir: Path) -> list[str]:
    return ["--env", env_id, "--seed", str(seed), "--conf-file", str(conf_file), "--run-dir", str(run_dir),
            "--eval-episodes", "0", "--no-progress"]


def score_of(env_id: str, env_kwargs: dict[str, Any], seeds: list[int], policy) -> float:
    from wadgym.agents.evaluate import run_episodes, summarize

    return summarize(run_episodes(env_id, env_kwargs, seeds, policy))["score_mean"]


def evaluate(run_dir: Path, wad: str, episodes: int, pair: str | None = None) -> dict[str, float]:
    """The trained policy on the original map and on the held-out generated levels (with the pair's
    PAIR_KWARGS), the same seeded episodes."""
    from wadgym.agents.policy import SavedPolicy

    policy = SavedPolicy(run_dir)
    seeds = list(range(episodes))
    generated = pair_test_kwargs(policy.env_kwargs, pair)
    return {"original": score_of(policy.env_id, original_kwargs(policy.env_kwargs, wad, policy.env_id), seeds, policy),
            "generated": score_of(policy.env_id, generated, seeds, policy)}


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
    print(f"== {key}: the run of {source}, played on this pair's generated levels", flush=True)
    from wadgym.agents.policy import SavedPolicy

    policy = SavedPolicy(runs / shared["run_dir"])
    generated = pair_test_kwargs(policy.env_kwargs, pair)
    row = {**shared, "pair": pair, "shared_from": source, "evaluated_at": git_commit(),
           "eval": {"original": shared["eval"]["original"],
                    "generated": score_of(policy.env_id, generated, list(range(episodes)), policy)}}
    data = load(json_path)
    data["runs"][key] = row
    save(json_path, data)
    print(f"   on the original {row['eval']['original']:.2f} (the shared run's), on held-out generated levels "
          f"{row['eval']['generated']:.2f}", flush=True)


def row_conf(row: dict[str, Any]) -> Path:
    """The hyperparameter file a row's entry came from: its --conf-file, else its budget's."""
    return Path(row["conf_file"]) if row.get("conf_file") else hyperparams_file(row.get("budget", "cpu"))


def evaluate_pending(json_path: Path, runs: Path, episodes: int, keys: list[str] | None = None) -> None:
    """Evaluate the recorded runs (`keys`, default all) that have no evaluation yet, then their pairs'
    baselines where missing or played on another number of episodes; each result saved at once."""
    from wadgym.agents.config import load_hyperparams

    for key in keys if keys is not None else list(load(json_path)["runs"]):
        row = load(json_path)["runs"][key]
        if row["eval"] is not None:
            continue
        if not (runs / row["run_dir"]).is_dir():
            print(f"== {key}: run folder {runs / row['run_dir']} not found, not evaluated", flush=True)
            continue
        print(f"== {key}: evaluating {runs / row['run_dir']}", flush=True)
        row["eval"] = evaluate(runs / row["run_dir"], row["original"], episodes, row["pair"])
        row["evaluated_at"] = git_commit()  # training's commit is row["commit"]
        row["command"] = re.sub(r"--episodes \d+", f"--episodes {episodes}", row["command"])  # as it was played
        data = load(json_path)
        data["runs"][key] = row
        save(json_path, data)
        print(f"   on the original {row['eval']['original']:.2f}, on held-out generated levels "
              f"{row['eval']['generated']:.2f}", flush=True)
        base = data["baselines"].get(row["pair"])
        if base is None or base["episodes"] != episodes:
            entry_kwargs = {**(load_hyperparams(row["env"], row_conf(row)).get("env_kwargs") or {}),
                            **PAIR_KWARGS.get(row["pair"], {})}
            data["baselines"][row["pair"]] = baselines(row["env"], row["original"], entry_kwargs, episodes)
            save(json_path, data)


def load(json_path: Path) -> dict[str, Any]:
    return json.loads(json_path.read_text()) if json_path.is_file() else {"runs": {}, "baselines": {}}


def evaluated(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The recorded runs whose evaluation is done (a trained run waits for it in the JSON)."""
    return [r for r in data["runs"].values() if r["eval"] is not None]


def save(json_path: Path, data: dict[str, Any]) -> None:
    from wadgym.agents.runfolder import write_json

    write_json(json_path, data)


def cell(rows: list[dict[str, Any]], played_on: str) -> str:
    return spread([r["eval"][played_on] for r in rows]) + (f" ({len(rows)} seeds)" if len(rows) > 1 else " (1 seed)")


def verdict(generated: list[dict[str, Any]], original: list[dict[str, Any]]) -> str:
    """The goal's two halves, from the seeds' means: a sentence."""
    if not generated or not original:
        return "not measured yet: both trainings are needed"
    on_original = [np.mean([r["eval"]["original"] for r in rows]) for rows in (generated, original)]
    on_generated = [np.mean([r["eval"]["generated"] for r in rows]) for rows in (generated, original)]
    share = on_original[0] / on_original[1] if on_original[1] else float("inf")
    first = (f"generated-trained scores {share:.0%} of the original-trained score on the original "
             f"({'meets' if share >= GOAL_SHARE else 'misses'} the {GOAL_SHARE:.0%} goal)")
    short = "falls short" if on_generated[1] < on_generated[0] else "does not fall short"
    second = (f"the original-trained policy {short} on held-out generated levels ({on_generated[1]:.2f} vs "
              f"{on_generated[0]:.2f} for the generated-trained)")
    met = share >= GOAL_SHARE and on_generated[1] < on_generated[0]
    return f"**{'goal met' if met else 'goal missed'}**: {first}; {second}"


def write_table(json_path: Path, md_path: Path, png_path: Path) -> None:
    from wadgym.agents.runfolder import write_text_atomic

    data = load(json_path)
    reading = hand_written_section(md_path)
    lines = ["# Transfer: generated levels to hand-made maps", "",
             "Made by `python bench/transfer.py` (each run's commit and command below). Each pair is a wadgym id",
             "and the ViZDoom scenario its family generalises, played through the id's env (`wad=vizdoom:NAME`:",
             "the same actions, observations, frame skip and score; see [hand-made maps](hand-made-maps.md)).",
             "PPO with the id's `cpu` entry of ppo.yml trained either on the id's generated training levels (0-199)",
             "or on the original map alone (the same settings and steps), then played on the original and on",
             "held-out generated levels (from level 10,000); random and scripted play the same seeded episodes.",
             "Figures: mean ± std over seeds of each seed's mean score per episode.", ""]
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
                                  ("original", "trained on the original map alone")):
            found = rows[trained_on]
            lines.append(f"| {label} | {cell(found, 'original') if found else 'not run yet'} | "
                         f"{cell(found, 'generated') if found else 'not run yet'} |")
        if base:
            lines.append(f"| random | {base['random']['original']:.2f} | {base['random']['generated']:.2f} |")
            scripted = base["scripted"]["generated"]
            lines.append("| scripted (privileged information) | unavailable (needs the generator's facts) | "
                         + (f"{scripted:.2f}" if scripted is not None else "none") + " |")
        lines += ["", verdict(rows["generated"], rows["original"])]
        if pair in PAIR_KWARGS:
            lines += ["", f"The generated levels here, in training and in play, are {env_id}'s with "
                          f"{kwargs_text(PAIR_KWARGS[pair])}."
                      + (f" The original-trained runs are those of the {SHARED_ORIGINAL[pair]} pair (the same "
                         f"training), played again on these levels." if pair in SHARED_ORIGINAL else "")]
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
    if data["runs"]:
        lines += ["![each pair's 2x2: trained on x played on](transfer.png)", ""]
    lines += reading
    write_text_atomic(md_path, "\n".join(lines).rstrip("\n") + "\n")
    plot(data, png_path)


def kwargs_text(kwargs: dict[str, Any]) -> str:
    return ", ".join(f"`{k}={v!r}`" for k, v in kwargs.items())


def pair_title(pair: str) -> str:
    """A pair's heading: the id and the original, and the pair's own generated kwargs where it has some."""
    env_id, wad = PAIRS[pair]
    extra = PAIR_KWARGS.get(pair)
    return f"{env_id} and {wad.split(':', 1)[1]}" + (f" ({kwargs_text(extra)})" if extra else "")


def hand_written_section(md_path: Path) -> list[str]:
    import generalization

    saved, generalization.READING = generalization.READING, READING
    try:
        return hand_written(md_path)
    finally:
        generalization.READING = saved


def plot(data: dict[str, Any], path: Path) -> None:
    """Per pair: grouped bars (played on the original, on held-out generated levels) of the two trainings,
    random and scripted, with each training's spread over seeds."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from wadgym.agents.runfolder import write_bytes_atomic

    pairs = [p for p in PAIRS if any(r["pair"] == p for r in evaluated(data))]
    if not pairs:
        return
    fig, axes = plt.subplots(1, len(pairs), figsize=(4.8 * len(pairs), 3.6), dpi=100, squeeze=False)
    colours = {"generated": "tab:blue", "original": "tab:orange", "random": "tab:red", "scripted": "tab:gray"}
    for ax, pair in zip(axes.flat, pairs):
        env_id, wad = PAIRS[pair]
        base = data["baselines"].get(pair)
        bars: list[tuple[str, list[float | None]]] = []
        for trained_on in TRAINED_ON:
            rows = [r for r in evaluated(data) if r["pair"] == pair and r["trained_on"] == trained_on]
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
        ax.set_ylabel(f"{score} per episode", fontsize=8)
        ax.set_title(pair_title(pair).replace(" and ", " / ").replace("`", ""), fontsize=8)
        ax.legend(fontsize=7)
        ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    write_bytes_atomic(path, buf.getvalue())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pair", nargs="+", choices=tuple(PAIRS), default=list(PAIRS),
                        help="which pairs (default: all): "
                             + ", ".join(f"{k}: {v[0]} and {v[1]}" for k, v in PAIRS.items()))
    parser.add_argument("--trained-on", nargs="+", choices=TRAINED_ON, default=list(TRAINED_ON),
                        help="which trainings (default both)")
    parser.add_argument("--seeds", type=int, default=3, help="seeds per training (default 3)")
    parser.add_argument("--first-seed", type=int, default=0, help="seeds FIRST_SEED.. (default 0)")
    parser.add_argument("--episodes", type=int, default=50, help="evaluation episodes per map (default 50)")
    parser.add_argument("--budget", choices=tuple(BUDGETS), default="cpu", help="which hyperparameter file")
    parser.add_argument("--conf-file", type=Path, help="a hyperparameter file instead of the budget's")
    parser.add_argument("--runs", default="runs/transfer", help="folder for the run folders")
    parser.add_argument("--docs", default=str(ROOT / "docs"), help="where transfer.md/.json/.png go")
    parser.add_argument("--skip-done", action="store_true", help="skip the runs already in the JSON")
    parser.add_argument("--dry-run", action="store_true", help="print the runs to make, train nothing")
    parser.add_argument("--table-only", action="store_true", help="rewrite the table and figure, train nothing")
    parser.add_argument("--train-only", action="store_true",
                        help="record the trained runs without evaluating them (a later --skip-done evaluates them)")
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.episodes < 1:
        parser.error("--seeds and --episodes must be at least 1")

    conf_path = args.conf_file or hyperparams_file(args.budget)
    docs = Path(args.docs)
    json_path, md_path, png_path = docs / "transfer.json", docs / "transfer.md", docs / "transfer.png"
    if not args.table_only:
        if args.skip_done and not args.dry_run and not args.train_only:  # runs trained, not yet evaluated
            evaluate_pending(json_path, Path(args.runs), args.episodes)
        for pair in args.pair:
            env_id, wad = PAIRS[pair]
            derived = Path(args.runs) / "(derived)"
            conf = {"generated": generated_conf(env_id, conf_path, pair, Path(args.runs)) if not args.dry_run
                    else (derived if pair in PAIR_KWARGS else conf_path),
                    "original": original_conf(env_id, conf_path, wad, Path(args.runs)) if not args.dry_run
                    else derived}
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                for trained_on in args.trained_on:
                    key = run_key(pair, trained_on, seed)
                    if args.skip_done and key in load(json_path)["runs"]:
                        print(f"== {key}: done, skipped", flush=True)
                        continue
                    if trained_on == "original" and pair in SHARED_ORIGINAL:
                        if not args.dry_run:
                            share_original(json_path, pair, seed, args.train_only, Path(args.runs), args.episodes)
                            write_table(json_path, md_path, png_path)
                        continue
                    run_dir = Path(args.runs) / f"{env_id}_{trained_on}_s{seed}_{time.strftime('%Y%m%d-%H%M%S')}"
                    argv_train = train_args(env_id, seed, conf[trained_on], run_dir)
                    print(f"== {key}: wadgym train {shlex.join(argv_train)}", flush=True)
                    if args.dry_run:
                        continue
                    result = train_one(argv_train)
                    from wadgym.envs.registration import score_name

                    row = {"pair": pair, "env": env_id, "original": wad, "trained_on": trained_on, "seed": seed,
                           "score_name": score_name(env_id), "commit": git_commit(),
                           "command": f"python bench/transfer.py --pair {pair} --trained-on {trained_on} --seeds 1 "
                                      f"--first-seed {seed} --episodes {args.episodes} "
                                      + (f"--conf-file {typed_path(args.conf_file)}" if args.conf_file
                                         else f"--budget {args.budget}"),
                           "budget": args.budget, "conf_file": str(args.conf_file) if args.conf_file else None,
                           "run_dir": run_dir.name, "timesteps": result["timesteps"],
                           "wall_time_s": round(result["wall_time_s"], 1), "eval": None}
                    data = load(json_path)
                    data["runs"][key] = row  # trained: recorded before its evaluation, which may be resumed
                    save(json_path, data)
                    if not args.train_only:
                        evaluate_pending(json_path, Path(args.runs), args.episodes, [key])
                    write_table(json_path, md_path, png_path)
    if args.dry_run:
        return 0
    write_table(json_path, md_path, png_path)
    print(f"wrote {md_path}, {png_path} ({shlex.join(sys.argv)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
