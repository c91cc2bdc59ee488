"""Generalisation curves, as procgen's paper draws them: train on 10, 100, 1,000 and "unlimited" levels,
evaluate on the training levels and on held-out test levels.

    python bench/generalization.py --env ID [--levels 10 100 1000 0] [--seeds 3] [--first-seed 0]
                                   [--timesteps N] [--episodes 50] [--budget cpu|cpu-long|gpu] [--conf-file FILE]
                                   [--runs runs/generalization] [--docs docs] [--dry-run] [--table-only]

For each number of training levels L (0: "unlimited", i.e. every level below the test range: levels
0-9,999, a new one almost every episode) and seed, trains the id's entry (bench/learn.py's budget file, or
--conf-file) with env kwargs num_levels=L for the same number of steps (--timesteps, default the entry's
n_timesteps), then plays --episodes seeded episodes with the trained policy on its own training levels and
on held-out test levels (from level 10,000), and the random policy on the same test episodes. Every finished
run is added to docs/generalization.json at once (so a stopped sweep continues where it stopped: done runs
are skipped); docs/generalization.md (the table) and docs/generalization.png (train and test score against
the number of training levels, mean and spread over seeds) are rewritten from it. Runs go seed by seed
(every number of levels for the first seed, then the next), so a stopped sweep already draws whole curves.
--dry-run prints the runs it would make; --table-only rewrites the table and figure from the JSON. A section
of docs/generalization.md headed READING (what the curves show, written by hand) is kept when the table is
rewritten. A row names its command and run folder as a user types them in a checkout (harness.typed_path):
no folder of the machine that made it. Each run keeps its per-episode scores; the table gives, beside the mean
± std over seeds, the test levels' IQM with its 95% interval over seeds x episodes (harness.iqm_interval).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import harness  # bench/harness.py, beside this script
from harness import git_commit, hyperparams_file, mean_spread, typed_path

DEFAULT_LEVELS = (10, 100, 1000, 0)
DEFAULT_SEEDS = 3
DEFAULT_RUNS = "runs/generalization"
READING = "## Reading the curves"


def unlimited_levels() -> int:
    """The training range of "unlimited": every level below the test range."""
    from wadgym.agents.evaluate import TEST_START_LEVEL

    return TEST_START_LEVEL


def levels_label(levels: int) -> str:
    return f"unlimited ({unlimited_levels():,})" if levels == 0 else f"{levels:,}"


def levels_tag(levels: int) -> str:
    """A number of levels as its part of a row's key: levels10, levels0 (unlimited)."""
    return f"levels{levels}"


def run_key(env_id: str, levels: int, seed: int) -> str:
    return harness.run_key(env_id, levels_tag(levels), seed)


def train_config(env_id: str, levels: int, seed: int, conf_file: Path, run_dir: Path, timesteps: int | None):
    """The TrainConfig of one point of the sweep: the entry trained on `levels` levels (no final evaluation:
    the sweep's own follows)."""
    from wadgym.agents import TrainConfig

    return TrainConfig(env=env_id, seed=seed, conf_file=conf_file, run_dir=run_dir, timesteps=timesteps,
                       env_kwargs={"num_levels": levels or unlimited_levels()}, eval_episodes=0, progress=False)


def evaluate(run_dir: Path, episodes: int) -> dict[str, Any]:
    """The trained policy on its training levels and on the test levels; random on the same test episodes.
    Each one's mean score, and under "scores" its per-episode scores."""
    from wadgym.agents.evaluate import run_episodes, split_kwargs, summarize
    from wadgym.agents.policies.policy import SavedPolicy

    policy = SavedPolicy(run_dir)
    seeds = list(range(episodes))
    test = split_kwargs(policy.env_id, policy.env_kwargs, "test")
    played = {"train": run_episodes(policy.env_id, policy.env_kwargs, seeds, policy),
              "test": run_episodes(policy.env_id, test, seeds, policy),
              "random_test": run_episodes(policy.env_id, test, seeds, "random")}
    return {"episodes": episodes, **{name: summarize(found)["score_mean"] for name, found in played.items()},
            "scores": {name: [episode["score"] for episode in found] for name, found in played.items()}}


def results(json_path: Path) -> harness.ResultsStore:
    """docs/generalization.json: the rows, keyed <id>/levels<L>/seed<N>."""
    return harness.ResultsStore(json_path)


def points(data: dict[str, Any], env_id: str) -> dict[int, list[dict[str, Any]]]:
    """levels -> the recorded rows of `env_id`, in the order of the levels (unlimited last)."""
    grouped: dict[int, list[dict[str, Any]]] = {}
    for row in data["runs"].values():
        if row["env"] == env_id:
            grouped.setdefault(int(row["levels"]), []).append(row)
    return dict(sorted(grouped.items(), key=lambda kv: kv[0] or float("inf")))


def test_figure(rows: list[dict[str, Any]]) -> harness.Estimate:
    """The trained policy's figure on the test levels over the rows' seeds: the IQM and its 95% interval where
    every row kept its per-episode scores, else the mean alone."""
    return harness.estimate([r["eval"]["test"] for r in rows],
                            [(r["eval"].get("scores") or {}).get("test") for r in rows])


def write_table(json_path: Path, md_path: Path, png_path: Path) -> None:
    data = results(json_path).load()
    env_ids = sorted({row["env"] for row in data["runs"].values()})
    lines = ["# Generalisation curves", "",
             "Made by `python bench/generalization.py` (each row names its commit and command), as procgen's paper",
             "draws them: PPO trained with the id's entry on 10, 100, 1,000 and \"unlimited\" training levels (every",
             "level below the test range, 0-9,999: a new one almost every episode), the same number of steps each,",
             "then evaluated on its own training levels and on held-out test levels (from level 10,000). Figures:",
             "mean ± std over seeds of each seed's mean score on the evaluation episodes. The sweep records run by",
             "run, seed by seed, across sessions: a point with fewer seeds than the others is still being measured.",
             "Beside the test levels' mean, rliable's interquartile mean (IQM) of all the point's test episodes with",
             "its 95% stratified bootstrap confidence interval over seeds x episodes, as on the",
             "[learning benchmark](benchmark.md#how-figures-are-decided); \"mean only\" for runs that kept no",
             "per-episode scores.",
             ""]
    header = ["env", "training levels", "seeds", "steps", "trained (train levels)", "trained (test levels)",
              "IQM trained (test levels) [95% CI]", "gap (train - test)", "random (test)", "commit"]
    table = []
    for env_id in env_ids:
        for levels, rows in points(data, env_id).items():
            train = [r["eval"]["train"] for r in rows]
            test = [r["eval"]["test"] for r in rows]
            commits = ", ".join(sorted({r["commit"] for r in rows}))
            gaps = [a - b for a, b in zip(train, test)]
            table.append([env_id, levels_label(levels), len(rows), f"{rows[0]['timesteps']:,}", mean_spread(train),
                          mean_spread(test), test_figure(rows).cell(), mean_spread(gaps),
                          mean_spread([r["eval"]["random_test"] for r in rows]), commits])
    lines += harness.markdown_table(header, table)
    lines += ["", "![train and test score against the number of training levels](generalization.png)", "",
              "Commands:", ""]
    lines += sorted({f"- `{r['command']}`" for r in data["runs"].values()})
    harness.write_page(md_path, lines, keep=READING)
    plot(data, env_ids, png_path)


def plot(data: dict[str, Any], env_ids: list[str], path: Path) -> None:
    """Per env: train and test score against the number of training levels (log axis; unlimited at the
    right), mean line and a band of one std over seeds; random's test score dashed."""
    if not env_ids:
        return
    fig, axes = harness.panels(len(env_ids), 4.5, 3.4)
    for ax, env_id in zip(axes, env_ids):
        grouped = points(data, env_id)
        xs = np.array([levels or unlimited_levels() for levels in grouped], float)
        for split, color in (("train", "tab:blue"), ("test", "tab:orange")):
            values = [np.array([r["eval"][split] for r in rows]) for rows in grouped.values()]
            mean, std = np.array([v.mean() for v in values]), np.array([v.std() for v in values])
            ax.plot(xs, mean, marker="o", color=color, label=f"{split} levels")
            ax.fill_between(xs, mean - std, mean + std, color=color, alpha=0.2)
        random = np.mean([r["eval"]["random_test"] for rows in grouped.values() for r in rows])
        ax.axhline(random, color="tab:red", linestyle="--", label="random (test)")
        ax.set_xscale("log")
        ax.set_xticks(xs, [levels_label(levels).split(" ")[0] for levels in grouped], fontsize=8)
        harness.label_panel(ax, env_id, f"{next(iter(grouped.values()))[0]['score_name']} per episode",
                            "training levels")
    harness.save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", nargs="+", required=True, help="env ids (each needs an entry in the budget file)")
    parser.add_argument("--levels", type=int, nargs="+", default=list(DEFAULT_LEVELS),
                        help="numbers of training levels; 0 is unlimited (default 10 100 1000 0)")
    parser.add_argument("--timesteps", type=int, help="steps of every run (default: the entry's n_timesteps)")
    # A stopped sweep always continues where it stopped (finished runs are skipped): no --skip-done.
    harness.add_common_arguments(parser, outputs="generalization.md/.json/.png", runs=DEFAULT_RUNS,
                                 seeds=DEFAULT_SEEDS, conf_file=True, skip_done=None, dry_run=True)
    args = parser.parse_args(argv)
    harness.check_common_arguments(parser, args)

    bad = [n for n in args.levels if n < 0 or n >= unlimited_levels()]
    if bad:
        parser.error(f"--levels {bad[0]}: choose 1..{unlimited_levels() - 1}, or 0 for unlimited")
    conf_file = args.conf_file or hyperparams_file(args.budget)
    out = harness.pages(args.docs, "generalization")
    if not args.table_only:
        store = results(out.json)
        seeds = range(args.first_seed, args.first_seed + args.seeds)
        # Seed-major: a sweep stopped part-way has every point of its first seeds (a whole curve early).
        for cell in store.pending(harness.grid(args.env, args.levels, seeds, seed_major=True, tag=levels_tag)):
            env_id, levels, seed = cell.name, cell.setting, cell.seed
            run_dir = Path(args.runs) / f"{env_id}_levels{levels}_s{seed}_{time.strftime('%Y%m%d-%H%M%S')}"
            config = train_config(env_id, levels, seed, conf_file, run_dir, args.timesteps)
            print(f"== {cell.key}: {harness.train_command(config)}", flush=True)
            if args.dry_run:
                continue
            result = harness.train_run(config)
            from wadgym.envs.registration import score_name

            row = {"env": env_id, "levels": levels, "seed": seed, "commit": git_commit(),
                   "command": f"python bench/generalization.py --env {env_id} --levels {levels} --seeds 1 "
                              f"--first-seed {seed} --episodes {args.episodes}"
                              + (f" --timesteps {args.timesteps}" if args.timesteps else "")
                              + (f" --conf-file {typed_path(args.conf_file)}" if args.conf_file else
                                 f" --budget {args.budget}")
                              + (f" --runs {typed_path(args.runs)}"
                                 if typed_path(args.runs) != DEFAULT_RUNS else ""),
                   "run_dir": typed_path(run_dir, run_folder=True), "timesteps": result["timesteps"],
                   "wall_time_s": round(result["wall_time_s"], 1), "eval": evaluate(run_dir, args.episodes),
                   "score_name": score_name(env_id)}
            store.record(cell.key, row)
            print(f"   train levels {row['eval']['train']:.2f}, test levels {row['eval']['test']:.2f}, "
                  f"random (test) {row['eval']['random_test']:.2f}", flush=True)
            write_table(out.json, out.md, out.figure)
    if args.dry_run:
        return 0
    write_table(out.json, out.md, out.figure)
    print(f"wrote {out.md}, {out.figure} ({shlex.join(sys.argv)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
