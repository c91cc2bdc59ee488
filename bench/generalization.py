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
rewritten. A row names its command and run folder as a user types them in a checkout (bench/learn.py's
typed_path): no folder of the machine that made it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from learn import BUDGETS, git_commit, hyperparams_file, typed_path  # noqa: E402  (bench/learn.py, beside this file)

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


def run_key(env_id: str, levels: int, seed: int) -> str:
    return f"{env_id}/levels{levels}/seed{seed}"


def train_args(env_id: str, levels: int, seed: int, conf_file: Path, run_dir: Path, timesteps: int | None) -> list[str]:
    """`wadgym train`'s arguments for one point of the sweep (no final evaluation: the sweep's own follows)."""
    args = ["--env", env_id, "--seed", str(seed), "--conf-file", str(conf_file), "--run-dir", str(run_dir),
            "--env-kwargs", f"num_levels={levels or unlimited_levels()}", "--eval-episodes", "0", "--no-progress"]
    return args + (["--timesteps", str(timesteps)] if timesteps else [])


def train_one(args: list[str]) -> dict[str, Any]:
    """`wadgym train ARGS` in-process: its options read as the command reads them, trained with wadgym.agents.train."""
    from wadgym.agents import train
    from wadgym.cli import train as cli_train

    parser = argparse.ArgumentParser()
    cli_train.add_arguments(parser)
    result = train(cli_train.train_config(parser.parse_args(args)))
    if result.interrupted:
        raise SystemExit(f"training stopped at {result.timesteps} steps; no row recorded")
    return dataclasses.asdict(result)


def evaluate(run_dir: Path, episodes: int) -> dict[str, Any]:
    """The trained policy on its training levels and on the test levels; random on the same test episodes."""
    from wadgym.agents.evaluate import run_episodes, split_kwargs, summarize
    from wadgym.agents.policy import SavedPolicy

    policy = SavedPolicy(run_dir)
    seeds = list(range(episodes))
    test = split_kwargs(policy.env_id, policy.env_kwargs, "test")
    return {"episodes": episodes,
            "train": summarize(run_episodes(policy.env_id, policy.env_kwargs, seeds, policy))["score_mean"],
            "test": summarize(run_episodes(policy.env_id, test, seeds, policy))["score_mean"],
            "random_test": summarize(run_episodes(policy.env_id, test, seeds, "random"))["score_mean"]}


def load(json_path: Path) -> dict[str, Any]:
    return json.loads(json_path.read_text()) if json_path.is_file() else {"runs": {}}


def points(data: dict[str, Any], env_id: str) -> dict[int, list[dict[str, Any]]]:
    """levels -> the recorded rows of `env_id`, in the order of the levels (unlimited last)."""
    grouped: dict[int, list[dict[str, Any]]] = {}
    for row in data["runs"].values():
        if row["env"] == env_id:
            grouped.setdefault(int(row["levels"]), []).append(row)
    return dict(sorted(grouped.items(), key=lambda kv: kv[0] or float("inf")))


def spread(values: list[float]) -> str:
    return f"{np.mean(values):.2f} ± {np.std(values):.2f}" if len(values) > 1 else f"{values[0]:.2f}"


def hand_written(md_path: Path) -> list[str]:
    """The READING section of an existing table (to its end), kept as it is when the table is rewritten."""
    text = md_path.read_text() if md_path.is_file() else ""
    start = text.find(READING + "\n")
    return text[start:].rstrip("\n").split("\n") if start >= 0 else []


def write_table(json_path: Path, md_path: Path, png_path: Path) -> None:
    from wadgym.agents.runfolder import write_text_atomic

    data = load(json_path)
    reading = hand_written(md_path)
    env_ids = sorted({row["env"] for row in data["runs"].values()})
    lines = ["# Generalisation curves", "",
             "Made by `python bench/generalization.py` (each row names its commit and command), as procgen's paper",
             "draws them: PPO trained with the id's entry on 10, 100, 1,000 and \"unlimited\" training levels (every",
             "level below the test range, 0-9,999: a new one almost every episode), the same number of steps each,",
             "then evaluated on its own training levels and on held-out test levels (from level 10,000). Figures:",
             "mean ± std over seeds of each seed's mean score on the evaluation episodes. The sweep records run by",
             "run, seed by seed, across sessions: a point with fewer seeds than the others is still being measured.",
             "",
             "| env | training levels | seeds | steps | trained (train levels) | trained (test levels) "
             "| gap (train - test) | random (test) | commit |",
             "|---|---|---|---|---|---|---|---|---|"]
    for env_id in env_ids:
        for levels, rows in points(data, env_id).items():
            train = [r["eval"]["train"] for r in rows]
            test = [r["eval"]["test"] for r in rows]
            commits = ", ".join(sorted({r["commit"] for r in rows}))
            lines.append(f"| {env_id} | {levels_label(levels)} | {len(rows)} | {rows[0]['timesteps']:,} | "
                         f"{spread(train)} | {spread(test)} | {spread([a - b for a, b in zip(train, test)])} | "
                         f"{spread([r['eval']['random_test'] for r in rows])} | {commits} |")
    lines += ["", "![train and test score against the number of training levels](generalization.png)", "",
              "Commands:", ""]
    lines += sorted({f"- `{r['command']}`" for r in data["runs"].values()})
    lines += [""] + reading if reading else []
    write_text_atomic(md_path, "\n".join(lines) + "\n")
    plot(data, env_ids, png_path)


def plot(data: dict[str, Any], env_ids: list[str], path: Path) -> None:
    """Per env: train and test score against the number of training levels (log axis; unlimited at the
    right), mean line and a band of one std over seeds; random's test score dashed."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from wadgym.agents.runfolder import write_bytes_atomic

    if not env_ids:
        return
    fig, axes = plt.subplots(1, len(env_ids), figsize=(4.5 * len(env_ids), 3.4), dpi=100, squeeze=False)
    for ax, env_id in zip(axes.flat, env_ids):
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
        ax.set_title(env_id, fontsize=9)
        ax.set_xlabel("training levels", fontsize=8)
        ax.set_ylabel(f"{next(iter(grouped.values()))[0]['score_name']} per episode", fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    write_bytes_atomic(path, buf.getvalue())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", nargs="+", required=True, help="env ids (each needs an entry in the budget file)")
    parser.add_argument("--levels", type=int, nargs="+", default=list(DEFAULT_LEVELS),
                        help="numbers of training levels; 0 is unlimited (default 10 100 1000 0)")
    parser.add_argument("--seeds", type=int, default=DEFAULT_SEEDS, help="seeds per point (default 3)")
    parser.add_argument("--first-seed", type=int, default=0, help="seeds FIRST_SEED.. (default 0)")
    parser.add_argument("--timesteps", type=int, help="steps of every run (default: the entry's n_timesteps)")
    parser.add_argument("--episodes", type=int, default=50, help="evaluation episodes per split (default 50)")
    parser.add_argument("--budget", choices=tuple(BUDGETS), default="cpu", help="which hyperparameter file")
    parser.add_argument("--conf-file", type=Path, help="a hyperparameter file instead of the budget's")
    parser.add_argument("--runs", default=DEFAULT_RUNS, help="folder for the run folders")
    parser.add_argument("--docs", default=str(ROOT / "docs"), help="where generalization.md/.json/.png go")
    parser.add_argument("--dry-run", action="store_true", help="print the runs to make, train nothing")
    parser.add_argument("--table-only", action="store_true", help="rewrite the table and figure, train nothing")
    args = parser.parse_args(argv)

    bad = [n for n in args.levels if n < 0 or n >= unlimited_levels()]
    if bad:
        parser.error(f"--levels {bad[0]}: choose 1..{unlimited_levels() - 1}, or 0 for unlimited")
    conf_file = args.conf_file or hyperparams_file(args.budget)
    docs = Path(args.docs)
    json_path, md_path, png_path = docs / "generalization.json", docs / "generalization.md", docs / "generalization.png"
    if not args.table_only:
        done = set(load(json_path)["runs"])
        for env_id in args.env:
            # Seed-major: a sweep stopped part-way has every point of its first seeds (a whole curve early).
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                for levels in args.levels:
                    key = run_key(env_id, levels, seed)
                    run_dir = Path(args.runs) / f"{env_id}_levels{levels}_s{seed}_{time.strftime('%Y%m%d-%H%M%S')}"
                    argv_train = train_args(env_id, levels, seed, conf_file, run_dir, args.timesteps)
                    if key in done:
                        print(f"== {key}: done, skipped", flush=True)
                        continue
                    print(f"== {key}: wadgym train {shlex.join(argv_train)}", flush=True)
                    if args.dry_run:
                        continue
                    result = train_one(argv_train)
                    row = {"env": env_id, "levels": levels, "seed": seed, "commit": git_commit(),
                           "command": f"python bench/generalization.py --env {env_id} --levels {levels} --seeds 1 "
                                      f"--first-seed {seed} --episodes {args.episodes}"
                                      + (f" --timesteps {args.timesteps}" if args.timesteps else "")
                                      + (f" --conf-file {typed_path(args.conf_file)}" if args.conf_file else
                                         f" --budget {args.budget}")
                                      + (f" --runs {typed_path(args.runs)}"
                                         if typed_path(args.runs) != DEFAULT_RUNS else ""),
                           "run_dir": typed_path(run_dir, run_folder=True), "timesteps": result["timesteps"],
                           "wall_time_s": round(result["wall_time_s"], 1), "eval": evaluate(run_dir, args.episodes)}
                    from wadgym.envs.registration import score_name

                    row["score_name"] = score_name(env_id)
                    data = load(json_path)
                    data["runs"][key] = row
                    from wadgym.agents.runfolder import write_json

                    write_json(json_path, data)
                    print(f"   train levels {row['eval']['train']:.2f}, test levels {row['eval']['test']:.2f}, "
                          f"random (test) {row['eval']['random_test']:.2f}", flush=True)
                    write_table(json_path, md_path, png_path)
    if args.dry_run:
        return 0
    write_table(json_path, md_path, png_path)
    print(f"wrote {md_path}, {png_path} ({shlex.join(sys.argv)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
