"""The learning benchmark: every env id learns, measured on levels it never trained on.

    python bench/learn.py [--env ID ...] [--budget cpu|cpu-long|gpu|demos|demos-bc] [--seeds N] [--episodes 50]
                          [--runs runs/bench] [--docs docs] [--table-only] [--skip-done] [--rescript]
                          [--adopt RUN ...] [--attempt] [--demo-episodes N ...]

For each id (default: every registered id with hyperparameters for the budget) and seed, trains PPO with
the id's entry in agents/hyperparams/ppo.yml (`--budget cpu-long`: ppo_cpu_long.yml, at most 2 hours on 2
cores each, possibly RecurrentPPO and a curriculum; `--budget gpu`: ppo_gpu.yml), then plays `--episodes` seeded
episodes on the test levels (from level 10,000: never trained on) and as many on the training levels, with
the trained policy, a uniform random policy and the family's scripted reference policy (privileged
information), all on the very same seeded episodes. Default seeds: 3 for each family's default id, 1 for
the others. Every finished run is added to docs/benchmark.json at once (the JSON fills in parts across
sessions); docs/benchmark.md (the table) and docs/benchmark_curves.png (a learning-curve panel per env)
are rewritten from it. `--table-only` rewrites them without training; `--rescript` plays the scripted
reference again on the recorded rows of the --env ids (same seeds and splits, no training) and replaces
its figures, as after a change to the reference. A row whose id trains on one map (num_levels=1) is
marked "learning, not generalisation": its test levels differ from that map in at most small ways.
`--attempt` records the runs it trains or adopts as attempts instead: a run of another setting (an entry
being tried) is listed below the table, as it came out, and the id's row stays as it is. A row names its
command and run folder as a user types them in a checkout (harness.typed_command): no folder of the machine
that made it (`--runs /work/runs-long` is recorded as `--runs runs-long`, its run folders as runs-long/NAME).
Rows keep every evaluation episode's score: beside the means the table gives the trained policy's IQM on the
test levels with its 95% stratified bootstrap interval over seeds x episodes (rliable, through bench/harness.py),
and "meets the bar" is decided on that interval: yes, no, or not decided where it straddles the bar.

`--budget demos` learns with demonstrations (issue 41): each id's entry in ppo_demos.yml names, under `demos`,
the policy that plays them (the scripted expert: privileged information), how many episodes and of which
levels, and the behaviour-cloning epochs. The benchmark records that Minari dataset first (`wadgym record`'s
record_dataset; once per size, its recording time kept in the JSON's "datasets"), clones it into the run's
policy (`wadgym train --pretrain`), then PPO trains for the entry's steps; `--budget demos-bc` clones alone
(`--algo bc`: no PPO step), so the table shows what PPO adds. `--demo-episodes 10 100 1000` sweeps the
dataset's size: a row per size, labelled "demos (N episodes)", the dataset's steps and recording time in it.

Against the engine's bots the figures are also in the field's units: each evaluation episode keeps its
info["match"] (frags, deaths, suicides, K/D, frags per minute of game time, damage dealt and taken), and the
table shows frags per minute and K/D beside the trained policy's score. `--match` plays the recorded rows of the
--env ids (their run folders) in the setting Sample Factory and doom-arena report, 4-minute matches against 7
bots (`--match-bots`, `--match-minutes`), `--episodes` matches a policy on held-out levels, beside random and
scripted, and the page's section "Deathmatch in the field's units" sets them beside those projects' figures.
"""

from __future__ import annotations

import argparse
import json
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
    ROOT,
    UNDECIDED,
    Estimate,
    budget_of,
    decide,
    git_commit,
    hyperparams_file,
    mean_spread,
    trained_commit,
    typed_command,
    typed_path,
)

BAR_RATIO = 3.0       # trained >= 3x random on test levels ...
BAR_REFERENCE = 0.5   # ... or, where random scores ~0, >= 50% of the scripted reference
NEAR_ZERO = 0.05
DEFAULT_IDS_SEEDS = 3

DEMO_BUDGETS = ("demos", "demos-bc")   # learning from a recorded dataset: PPO after cloning it, or cloning alone
DEMO_DEFAULTS = {"policy": "scripted", "episodes": 100, "levels": "train", "epochs": 10}
DEMO_NAMESPACE = "wadgym-bench"   # the benchmark's Minari datasets: wadgym-bench/<id>-<policy>-<levels>-<N>ep-v0


def results(json_path: Path) -> harness.ResultsStore:
    """docs/benchmark.json: the rows ("runs", keyed <id>/<budget>/seed<N>), the attempts (keyed by run folder)
    and the recorded datasets."""
    return harness.ResultsStore(json_path, replaced="attempts", replaced_key=lambda key, row: row["run_dir"])


def demo_settings(env_id: str, budget: str) -> dict[str, Any]:
    """The id's `demos` entry for a demos budget (policy, episodes, levels, epochs; DEMO_DEFAULTS where it
    says nothing), checked: a ValueError names what is wrong."""
    import yaml

    entry = (yaml.safe_load(hyperparams_file(budget).read_text()) or {}).get(env_id)
    if entry is None:
        raise ValueError(f"{env_id} has no entry in {hyperparams_file(budget).name}")
    given = entry.get("demos") or {}
    unknown = sorted(set(given) - set(DEMO_DEFAULTS))
    if unknown:
        raise ValueError(f"{env_id}: demos has unknown key(s) {', '.join(unknown)}; valid: {', '.join(DEMO_DEFAULTS)}")
    settings = {**DEMO_DEFAULTS, **given}
    for name in ("episodes", "epochs"):
        value = settings[name]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{env_id}: demos {name}={value!r} is not valid; a whole number >= 1")
    return settings


def demo_label(budget: str, episodes: int) -> str:
    return f"{budget} ({episodes:,} episodes)"


def demo_dataset(env_id: str, settings: dict[str, Any], json_path: Path) -> dict[str, Any]:
    """The dataset of `settings` (recorded now unless the JSON's "datasets" has it and it is on disk): its id,
    episodes, steps, recording time and commit. Recorded with seeds 0.. on the levels of the demos entry's env
    kwargs (so its frames are the ones the run trains on)."""
    from wadgym.agents.datasets.record import dataset_exists, record_dataset

    name = f"{env_id.replace('-v', '_v')}-{settings['policy']}-{settings['levels']}-{settings['episodes']}ep"
    dataset_id = f"{DEMO_NAMESPACE}/{name}-v0"
    store = results(json_path)
    known = (store.load().get("datasets") or {}).get(dataset_id)
    if known is not None and dataset_exists(dataset_id):
        return known
    print(f"== recording {dataset_id}: {settings['episodes']} episodes of {env_id} by {settings['policy']}",
          flush=True)
    import yaml

    entry = (yaml.safe_load(hyperparams_file("demos").read_text()) or {}).get(env_id) or {}
    result = record_dataset(env_id, settings["policy"], settings["episodes"], dataset_id, settings["levels"],
                            overwrite=True, env_kwargs=entry.get("env_kwargs") or {})
    if result.interrupted:
        raise SystemExit(f"recording {dataset_id} was stopped after {result.episodes} episodes; no row recorded")
    made = {"dataset": dataset_id, "policy": settings["policy"], "levels": settings["levels"],
            "episodes": result.episodes, "steps": result.steps, "recording_s": round(result.seconds, 1),
            "commit": git_commit()}
    data = store.load()   # as it is now: the recording took minutes
    data.setdefault("datasets", {})[dataset_id] = made
    store.save(data)
    return made


def training_levels(env_id: str, budget: str) -> int:
    """How many levels the id's entry for `budget` trains on (0: unlimited): the registration's num_levels
    with the entry's env_kwargs over it."""
    import gymnasium as gym
    import yaml

    from wadgym.agents.vec import register_envs

    register_envs(env_id)
    entry = (yaml.safe_load(hyperparams_file(budget).read_text()) or {}).get(env_id) or {}
    kwargs = {**(gym.spec(env_id).kwargs or {}), **(entry.get("env_kwargs") or {})}
    return int(kwargs.get("num_levels", 0))


def shows(env_id: str, budget: str) -> str:
    """What a row shows: generalisation to held-out levels, or (trained on one map) learning only; for a
    demos budget, with demonstrations from what policy."""
    if budget_of(budget) in DEMO_BUDGETS:
        policy = demo_settings(env_id, budget)["policy"]
        source = "the scripted expert (privileged information)" if policy == "scripted" else f"policy {policy}"
        return f"generalisation, with demonstrations from {source}"
    if training_levels(env_id, budget) == 1:
        return "learning, not generalisation (trains on one map)"
    return "generalisation (held-out levels)"


def benchmark_ids(budget: str) -> list[str]:
    """Registered ids with hyperparameters for the budget, in registration order."""
    import yaml

    from wadgym.envs.registration import ENVS

    table = yaml.safe_load(hyperparams_file(budget).read_text()) or {}
    return [env_id for env_id in ENVS if env_id in table]


def default_seeds(env_id: str) -> int:
    """3 seeds for each family's default id (its first v-id in the table, or DEFAULT_ENV), 1 for the rest."""
    from wadgym.envs.registration import DEFAULT_ENV, ENVS

    first_of_family: dict[str, str] = {}
    for other, (entry, _, _) in ENVS.items():
        first_of_family.setdefault(entry, other)
    defaults = set(first_of_family.values()) | {DEFAULT_ENV}
    return DEFAULT_IDS_SEEDS if env_id in defaults else 1


DEFAULT_RUNS = "runs/bench"


def train_one(env_id: str, seed: int, budget: str, run_dir: Path, demos: dict[str, Any] | None = None,
              ) -> dict[str, Any]:
    """`wadgym train` in-process (no final evaluation: the benchmark's own follows); with `demos` (a demos
    budget: the dataset and its settings) the policy first clones the dataset (--pretrain), and for demos-bc
    that is all (--algo bc)."""
    from wadgym.agents import TrainConfig

    pretrain = {} if demos is None else {
        "pretrain": demos["dataset"], "pretrain_epochs": demos["epochs"],
        "algo": "bc" if budget_of(budget) == "demos-bc" else None}
    config = TrainConfig(env=env_id, seed=seed, conf_file=hyperparams_file(budget), run_dir=run_dir,
                         eval_episodes=0, progress=False, **pretrain)
    return harness.train_run(config, f"no row recorded (continue with: wadgym train --resume {run_dir}, then "
                                     f"bench/learn.py --adopt)")


def evaluate(run_dir: Path, episodes: int) -> dict[str, Any]:
    """Trained, random and scripted policies on the same seeded episodes of the test and training levels
    (agents.evaluate.evaluate_policies, which `wadgym train`'s final evaluation plays as well)."""
    from wadgym.agents.evaluate import evaluate_policies
    from wadgym.agents.policies.policy import SavedPolicy

    return evaluate_policies(SavedPolicy(run_dir, deterministic=False), episodes, 0, ("test", "train"))


def record(json_path: Path, key: str, row: dict[str, Any], attempt: bool = False) -> None:
    """The row as the table's row for `key` (id/budget/seed), or with `attempt` as one of the attempts
    (keyed by its run folder: each run once), which leaves the table's rows as they are. A row that another
    run replaces becomes an attempt: no run's figures are dropped."""
    results(json_path).record(key, row, aside=attempt)


GONE = "run folder gone: see its command, and the hyperparameter file at its commit"


def trained_with(run_dir: Path) -> str:
    """What a run trained with, in a line, from its config.yml: the algorithm, frames, features extractor,
    env kwargs and curriculum (where the run folder is gone: where to look instead)."""
    import yaml

    config_path = run_dir / "config.yml"
    if not config_path.is_file():
        return GONE
    config = yaml.safe_load(config_path.read_text())
    params = config.get("hyperparams") or {}
    extractor = str(params.get("policy_kwargs") or "").partition("features_extractor_class=")[2].partition(",")[0]
    parts = [str(config.get("algo") or params.get("algo") or "ppo"), f"{params.get('frame_stack') or 1} frames"]
    parts += [extractor] if extractor else []
    kwargs = params.get("env_kwargs") or {}
    parts += [", ".join(f"{k}={v}" for k, v in kwargs.items())] if kwargs else []
    stages = params.get("curriculum") or []
    if stages:
        parts.append(harness.curriculum_text(stages))
    return "; ".join(parts)


def score(summary: dict[str, Any] | None) -> float | None:
    return None if summary is None else summary["score_mean"]


def figures(rows: list[dict[str, Any]], split: str, player: str, interval: bool = True) -> Estimate | None:
    """A player's figure on a split over the rows' seeds (harness.estimate: the mean over seeds and, from the
    rows' per-episode scores, the IQM with its 95% interval; `interval` False: the IQM alone); None where a row
    has no such player (an env without a scripted reference)."""
    summaries = [row["eval"][split].get(player) for row in rows]
    if any(summary is None for summary in summaries):
        return None
    return harness.estimate([summary["score_mean"] for summary in summaries],
                            [[episode.get("score") for episode in summary.get("episodes") or []]
                             for summary in summaries], interval)


def episode_scores(rows: list[dict[str, Any]], split: str, player: str) -> list[float] | None:
    """A player's per-episode scores on a split, every seed's pooled; None where a row kept none."""
    found = [[episode.get("score") for episode in (row["eval"][split].get(player) or {}).get("episodes") or []]
             for row in rows]
    if not all(found) or any(v is None for scores in found for v in scores):
        return None
    return [v for scores in found for v in scores]


def improvement_cell(rows: list[dict[str, Any]]) -> str:
    """P(trained > random) on the test levels (rliable's probability of improvement, the point), or "-"."""
    trained, random = episode_scores(rows, "test", "trained"), episode_scores(rows, "test", "random")
    return harness.improvement(trained, random, interval=False).cell() if trained and random else "-"


def verdict(trained: Estimate | float, random: float, scripted: float | None, opponents: float | None = None) -> str:
    """Whether the trained policy meets the bar: BAR_RATIO x `random` on the test levels or, where random's
    figure is near 0, BAR_REFERENCE x `scripted` (the references' means on the same episodes), decided on the 95%
    stratified bootstrap interval of the trained policy's mean (harness.decide: "yes" when its
    lower bound reaches the bar, "no" when its upper bound stays below it, "not decided" between; a bare number
    or a row of means only: on its value). Where the env has opponents that are not agents (the engine's bots)
    the trained policy must also reach their median (`opponents`, decided the same way). The reasons follow in
    brackets: the ratio (with its interval), the share of scripted, the opponent."""
    trained = trained if isinstance(trained, Estimate) else Estimate(mean=float(trained))
    outcome, reasons = _bar(trained, random, scripted)
    if opponents is not None:
        beside = decide(trained, opponents)
        reasons.append({MEETS: f"at least the median opponent's {opponents:.2f}",
                        MISSES: f"below the median opponent's {opponents:.2f}",
                        UNDECIDED: f"the median opponent's {opponents:.2f} inside the interval"}[beside])
        outcome = harness.combine(outcome, beside)
    return f"{outcome} ({'; '.join(reasons)})" if reasons else outcome


def _bar(trained: Estimate, random: float, scripted: float | None) -> tuple[str, list[str]]:
    point, (low, high) = trained.point, trained.bounds
    ranged = trained.mean_low is not None
    if random > NEAR_ZERO:  # the ratio to random decides; the reference counts only where random scores ~0
        ratio = f"{point / random:.1f}x random" + (f" [{low / random:.1f}x, {high / random:.1f}x]" if ranged else "")
        share = [f"{point / scripted:.0%} of scripted"] if scripted else []   # shown, not deciding
        return decide(trained, BAR_RATIO * random), [ratio, *share]
    if scripted:
        share = f"{point / scripted:.0%} of scripted" + (f" [{low / scripted:.0%}, {high / scripted:.0%}]"
                                                         if ranged else "")
        return decide(trained, BAR_REFERENCE * scripted), [share]
    return MISSES, []


def opponents(summaries: list[dict[str, Any]]) -> float | None:
    """The figure of the median opponent's score beside the trained policy (`summaries`: the trained policy's,
    a seed each): the mean over seeds of each seed's mean of each episode's median opponent; None where the env
    has no such opponents."""
    values = [s.get("opponents_median_mean") for s in summaries]
    if any(v is None for v in values):
        return None
    per_episode = [[e.get("opponents_median") for e in s.get("episodes") or []] for s in summaries]
    return harness.estimate(values, per_episode, interval=False).point


def report(key: str, row: dict[str, Any]) -> None:
    test = row["eval"]["test"]
    print(f"   {key} test levels: trained {score(test['trained']):.2f}, random {score(test['random']):.2f}"
          + (f", scripted {score(test['scripted']):.2f}" if "scripted" in test else ""), flush=True)


def adopted_row(run_dir: Path, budget: str, episodes: int) -> tuple[str, dict[str, Any]]:
    """A row from a finished `wadgym train` run folder: its own command, commit, steps and wall time (from
    meta.json), evaluated now like the benchmark's own runs."""
    import yaml

    from wadgym.envs.registration import score_name

    meta = json.loads((run_dir / "meta.json").read_text())
    config = yaml.safe_load((run_dir / "config.yml").read_text())
    if not meta.get("finished"):
        raise SystemExit(f"{run_dir}: the run did not finish (status {meta.get('status')!r}); finish it with "
                         f"wadgym train --resume {run_dir}")
    git = meta.get("git", {})
    commit = str(git.get("commit", "unknown"))[:7] + ("-dirty" if git.get("dirty") else "")
    env_id, seed = config["env"], int(config["seed"])
    row = {"env": env_id, "budget": budget, "seed": seed, "score_name": score_name(env_id), "commit": commit,
           "command": typed_command(" && ".join(s["command"] for s in meta.get("sessions", []) if s.get("command"))),
           "run_dir": typed_path(run_dir, run_folder=True), "timesteps": meta["timesteps"],
           "wall_time_s": round(meta["wall_time_s"], 1),
           "steps_per_second": round(meta["steps_per_second"], 1), "device": meta.get("device", "?"),
           "finished": meta.get("ended", "?"), "adopted": True, "trained_with": trained_with(run_dir),
           "curve": learning_curve(run_dir),
           "eval": evaluate(run_dir, episodes)}
    return f"{env_id}/{budget}/seed{seed}", row


# benchmark.md's own section below the table (self-play rows, made by `wadgym train`, not here): kept as it is
KEPT_SECTION = "## Self-play (multi-agent)"

TABLE_HEADER = ["env", "score", "budget (steps)", "wall time", "seeds", "random (test)", "trained (train)",
                "trained (test)", "IQM trained (test) [95% CI]", "scripted (test)", "trained/random (test)",
                "P(trained > random)", "gap (train - test)", "meets the bar", "shows", "commit"]


def how_decided() -> list[str]:
    """The page's section on how its figures and verdicts are decided."""
    return [
        "## How figures are decided",
        "",
        "\"mean ± std\" is over seeds, of each seed's mean score per episode. Beside the trained policy's mean on "
        "the test",
        "levels stands [rliable](https://github.com/google-research/rliable)'s figure (Agarwal et al. 2021, the "
        "field's standard",
        "for results of few seeds): the interquartile mean (IQM: the mean of the middle half of the scores) of all "
        "its test",
        "episodes, a seed's episodes a row of a seeds x episodes matrix, with its 95% stratified bootstrap "
        "confidence interval:",
        f"{harness.BOOTSTRAP_REPS:,} resamples, each drawing the episodes again within each seed and the seeds "
        "again (rliable's",
        "StratifiedBootstrap with the seeds as strata and task_bootstrap; with one seed, the episodes alone), from "
        "a fixed seed,",
        "so a rewritten table shows the same intervals. \"P(trained > random)\" is rliable's probability of "
        "improvement: the",
        "chance that a test episode of the trained policy scores more than one of the random policy (ties count "
        "half).",
        "",
        f"\"meets the bar\" is decided on the interval. The bar is {BAR_RATIO:g}x random's IQM on the same "
        f"episodes (or {BAR_REFERENCE:.0%} of",
        "scripted's where random's is near 0; against the engine's bots also the IQM of the median bot's frags): "
        "**yes** when",
        "the interval's lower bound reaches the bar, **no** when its upper bound stays below it, **not decided** "
        "when the",
        "interval straddles the bar (more seeds or episodes would tell). The brackets after the ratio give its "
        "interval. A",
        "row whose runs kept no per-episode scores shows \"mean only\" and is decided on its means.",
    ]


def write_table(json_path: Path, md_path: Path, curves_path: Path) -> None:
    """docs/benchmark.md and the curves figure, from every run recorded in the JSON."""
    data = results(json_path).load()
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in data["runs"].values():
        groups.setdefault((row["env"], row["budget"]), []).append(row)
    lines = [
        "# Learning benchmark",
        "",
        "Made by `python bench/learn.py` (each row names its commit and command). PPO (Stable-Baselines3) with",
        "each id's entry in `agents/hyperparams/ppo.yml`, trained on levels 0-199 and evaluated on 50 seeded",
        "episodes of held-out test levels (from level 10,000) and 50 of the training levels; random and",
        "scripted (privileged information) policies play the very same episodes. Figures: mean ± std over",
        "seeds of each seed's mean score per episode, and beside the trained policy's on the test levels its IQM",
        "with a 95% confidence interval over seeds x episodes (see How figures are decided, below the table).",
        "Wall time on the project's 2-core CPU VMs, which other",
        "jobs shared while these ran, so wall times and steps/s are upper and lower bounds. Budgets: `cpu`",
        "(ppo.yml), `cpu-long` (ppo_cpu_long.yml: at most 2 hours on 2 cores, for the ids below the bar; may",
        "train RecurrentPPO and a curriculum over the family's difficulty parameters, always tested on the id's",
        "own held-out levels), `gpu` (ppo_gpu.yml), and `demos`/`demos-bc` (ppo_demos.yml: a dataset of the",
        "scripted expert's episodes on the training levels is recorded, cloned into the policy, then PPO trains",
        "on, or nothing more for demos-bc; rows \"with demonstrations from the scripted expert (privileged",
        "information)\", the dataset's steps and recording time in the budget column). Since commit df0b2d5 the",
        "maze ids' scripted reference",
        "walks the shortest way through the doorways of the level's plan. A row whose commit column names",
        "\"scripted: COMMIT\" had its scripted figures played again at that commit (`--rescript`); the others show",
        "the reference of their own commit (for the maze ids before df0b2d5: a straight-line walk to the nearest",
        "item, which walls stop).",
        "",
        "Rows marked \"learning, not generalisation\" train on one map (the v0 ids with num_levels=1): their",
        "\"test levels\" are that map again (new item placements, maybe new pillars), so they show that PPO",
        "learns the task, not that it generalises to new levels.",
        "",
        f"The bar: trained >= {BAR_RATIO:g}x random on test levels or, where random scores near 0, >= "
        f"{BAR_REFERENCE:.0%} of the scripted",
        "reference; against the engine's bots (DoomDeathmatchBots-v0), also at least the median bot's frags in",
        "the trained policy's own test episodes (\"median opponent\": the median bot's frags of each episode), all",
        "decided on the trained policy's 95% interval. What was tried for the ids below it is in the comments of "
        "ppo.yml and ppo_cpu_long.yml",
        "(each long run's result and speed; a cpu-long row's wall time passes 2 hours where other jobs shared",
        "the VM: the comment gives the time at the quiet machine's speed); the runs of the settings tried are",
        "listed under \"Attempts\" below the table. `--budget gpu` trains with `agents/hyperparams/ppo_gpu.yml`",
        "instead (bigger batches, more envs and steps); `--adopt RUN ...` adds finished `wadgym train` runs as",
        "rows (`--attempt`: as attempts); `docs/benchmark.json` fills row by row, so a long benchmark can run",
        "across sessions (`--skip-done`).",
        "",
    ]
    from wadgym.envs.registration import ENVS

    order = {env_id: i for i, env_id in enumerate(ENVS)}
    readme_rows: dict[str, list[tuple[bool, float, str, str]]] = {}  # env id -> its cpu and cpu-long rows
    best: dict[str, tuple[float, str]] = {}  # env id -> (its best trained test score, that row's figure)
    outcomes: dict[str, set[str]] = {}  # env id -> the verdicts of its rows (yes, no, not decided)
    table = []
    for (env_id, budget), rows in sorted(groups.items(), key=lambda kv: (kv[0][1], order.get(kv[0][0], 1e9))):
        rows.sort(key=lambda r: r["seed"])
        test = [r["eval"]["test"] for r in rows]
        train = [r["eval"]["train"] for r in rows]
        trained_test = [score(t["trained"]) for t in test]
        trained_train = [score(t["trained"]) for t in train]
        random_test = [score(t["random"]) for t in test]
        scripted_test = [score(t.get("scripted")) for t in test]
        r_mean, t_mean = float(np.mean(random_test)), float(np.mean(trained_test))
        ratio = f"{t_mean / r_mean:.2f}x" if r_mean > NEAR_ZERO else "-"
        gaps = [a - b for a, b in zip(trained_train, trained_test)]
        wall = np.mean([r["wall_time_s"] for r in rows]) / 60
        commits = ", ".join(sorted({r["commit"] for r in rows}))
        trained = figures(rows, "test", "trained")
        scripted = figures(rows, "test", "scripted", interval=False)
        met = verdict(trained, figures(rows, "test", "random", interval=False).point,
                      None if scripted is None else scripted.point, opponents([t["trained"] for t in test]))
        if env_id not in best or t_mean > best[env_id][0]:
            best[env_id] = (t_mean, f"{met.partition(' (')[2].rstrip(')')} ({budget} budget, {commits})")
        outcomes.setdefault(env_id, set()).add(met.partition(" (")[0])
        if budget in ("cpu", "cpu-long"):
            long = " (cpu-long budget)" if budget == "cpu-long" else ""
            readme_rows.setdefault(env_id, []).append(
                (met.startswith(MEETS), t_mean, f"{t_mean:.2f} vs {r_mean:.2f} {rows[0]['score_name']}{long}", met))
        table.append([env_id, rows[0]["score_name"], budget_cell(budget, rows[0]), f"{wall:.0f} min", len(rows),
                      mean_spread(random_test), mean_spread(trained_train),
                      beside(mean_spread(trained_test), harness.match_cell(t["trained"] for t in test)),
                      trained.cell(), mean_spread(scripted_test), ratio, improvement_cell(rows), mean_spread(gaps),
                      met, shows(env_id, budget), f"{commits}{scripted_note(rows)}"])
    import yaml

    from wadgym.envs.registration import score_name

    for budget in ("cpu", "cpu-long"):
        for env_id in benchmark_ids(budget):
            if (env_id, budget) not in groups:
                steps = yaml.safe_load(hyperparams_file(budget).read_text())[env_id]["n_timesteps"]
                table.append([env_id, score_name(env_id), f"{budget}: {int(steps):,}", "-", 0, *["-"] * 8,
                              "not run yet", shows(env_id, budget), "-"])
    lines += harness.markdown_table(TABLE_HEADER, table)
    listed = sorted(best, key=lambda e: order.get(e, 1e9))
    below = [env_id for env_id in listed if outcomes[env_id] == {MISSES}]
    undecided = [env_id for env_id in listed if MEETS not in outcomes[env_id] and UNDECIDED in outcomes[env_id]]
    if below:
        lines += ["", "Below the bar with every budget run so far (each id's best row; what was tried: the id's "
                  "entries in ppo.yml", "and ppo_cpu_long.yml, and the Attempts below):", ""]
        lines += [f"- {env_id}: {best[env_id][1]}" for env_id in below]
    if undecided:
        lines += ["", "Not decided with any budget run so far (no row meets the bar, and the interval of one "
                  "straddles it: more seeds", "would tell; each id's best row):", ""]
        lines += [f"- {env_id}: {best[env_id][1]}" for env_id in undecided]
    lines += ["", "*\"gap\" is trained on training levels minus trained on test levels.*", "",
              "![learning curves of the benchmark's runs](benchmark_curves.png)", "",
              "*Each seed's mean score per training episode against env steps, the attempts' (dotted), and random's "
              "level on the test levels (dashed). A panel that says \"not kept\" shows a row made before rows kept "
              "their curve, whose run folder is gone.*", ""]
    lines += ["Commands:", ""]
    lines += sorted({f"- `{r['command']}`" for r in data["runs"].values()})
    lines += match_section(data["runs"], order)
    lines += [""] + how_decided()
    lines += attempt_lines(data.get("attempts") or {}, order)
    harness.write_page(md_path, lines, keep=KEPT_SECTION)
    plot_curves(groups, list((data.get("attempts") or {}).values()), curves_path)
    readme = ROOT / "README.md"
    if md_path.resolve().parent == (ROOT / "docs").resolve() and readme.is_file():
        text = readme.read_text()
        start, end = "<!-- benchmark:start -->\n", "<!-- benchmark:end -->\n"
        if start in text and end in text:
            head, rest = text.split(start, 1)
            block, tail = rest.split(end, 1)
            summary = {env_id: readme_choice(choices) for env_id, choices in readme_rows.items()}
            from wadgym.agents.runfolder import write_text_atomic

            write_text_atomic(readme, head + start + readme_table(block, summary) + end + tail)


def beside(score: str, match: str) -> str:
    """A score cell with a deathmatch's figures in the field's units after it, where there are some."""
    return f"{score} ({match})" if match else score


# The field's deathmatch setting (Sample Factory's doom_deathmatch_bots, doom-arena): matches of 4 minutes of game
# time against 7 bots. Their figures, with where they come from, for the page's section.
MATCH_BOTS, MATCH_MINUTES = 7, 4.0
MATCH_SECTION = "## Deathmatch in the field's units"
FIELD_FIGURES = [
    "- Sample Factory (APPO, Petrenko et al. 2020): its `doom_deathmatch_bots` env plays dwango5 against 7 bots in "
    "matches of",
    "  4 minutes (`num_bots=7` and `DoomSpec`'s default `timelimit=4.0`, passed to the engine as `+timelimit`, in",
    "  [sf_examples/vizdoom/doom/doom_utils.py](https://github.com/alex-petrenko/sample-factory/blob/master/"
    "sf_examples/vizdoom/doom/doom_utils.py)",
    "  and [doom_multiagent.py](https://github.com/alex-petrenko/sample-factory/blob/master/sf_examples/vizdoom/"
    "doom/multiplayer/doom_multiagent.py)).",
    "  Its released models score 24.6, ~20 and ~21 frags per match as measured by doom-arena (below); its own page",
    "  ([samplefactory.dev, VizDoom](https://www.samplefactory.dev/09-environment-integrations/vizdoom/)) gives",
    "  the shaped reward instead (85.66 ± 28.53 for the Deathmatch-Bots model).",
    "- [doom-arena](https://github.com/wendlerc/doom-arena#training-results) (Sample Factory's APPO on the same env, "
    "one A6000):",
    "  ~3 frags per match at 10M frames, 5.8 at 50M, ~15 at 100M, ~25 at 155M, ~63 at 500M; it lists the released",
    "  models' figures above.",
    "- Neither page gives a kill/death ratio; the K/D ~0.55 of issue 51 could not be traced to a page.",
]


def match_kwargs(env_id: str, env_kwargs: dict[str, Any], bots: int, minutes: float) -> dict[str, Any]:
    """The env kwargs of a run's held-out levels as a match of `minutes` against `bots` bots: the match clock
    (match_minutes) and a TimeLimit that lets it run (max_episode_steps = the match's steps)."""
    from wadgym.agents.evaluate import split_kwargs
    from wadgym.envs.match_figures import match_steps

    kwargs = split_kwargs(env_id, env_kwargs, "test")
    steps = match_steps(minutes, int(kwargs.get("frame_skip", 4)))
    return {**kwargs, "bots": bots, "match_minutes": minutes, "max_episode_steps": steps}


def recorded_rows(json_path: Path, env_ids, budget: str) -> dict[str, dict[str, Any]]:
    """The results store's rows of `env_ids` at `budget` (key -> row); exits naming them when there are none."""
    rows = {key: row for key, row in results(json_path).load()["runs"].items()
            if row["env"] in env_ids and budget_of(row["budget"]) == budget}
    if not rows:
        raise SystemExit(f"no recorded rows of {', '.join(env_ids)} for budget {budget} in {json_path}")
    return rows


def play_matches(json_path: Path, env_ids: list[str], budget: str, episodes: int, runs: str,
                 bots: int = MATCH_BOTS, minutes: float = MATCH_MINUTES) -> None:
    """Play the recorded rows of `env_ids` for `budget` (their run folders: relative to the checkout as recorded,
    else by name in `runs`) in `episodes` matches of `minutes` against `bots` bots on held-out levels (seeds
    0..), the trained policy beside random and scripted on the same matches; each row keeps them under "match"
    with the commit they were played at. A row whose run folder is gone is said and skipped."""
    from wadgym.agents.evaluate import PLAYERS, has_scripted, run_episodes, summarize
    from wadgym.agents.policies.policy import SavedPolicy
    from wadgym.envs.match_figures import headline

    rows = recorded_rows(json_path, env_ids, budget)
    for key, row in sorted(rows.items()):
        found = [p for p in (ROOT / row["run_dir"], Path(runs) / Path(row["run_dir"]).name) if p.is_dir()]
        if not found:
            print(f"   {key}: run folder {row['run_dir']} is not here (nor in {runs}); not played", flush=True)
            continue
        policy = SavedPolicy(found[0], deterministic=False)
        kwargs = match_kwargs(row["env"], policy.env_kwargs, bots, minutes)
        seeds = list(range(episodes))
        players = PLAYERS if has_scripted(row["env"], kwargs) else PLAYERS[:2]
        played = {"trained": policy, "random": "random", "scripted": "scripted"}
        print(f"== {key}: {episodes} matches of {minutes:g} minutes against {bots} bots", flush=True)
        row["match"] = {"bots": bots, "minutes": minutes, "episodes": episodes, "levels": "test",
                        "commit": git_commit(),
                        **{name: summarize(run_episodes(row["env"], kwargs, seeds, played[name])) for name in players}}
        record(json_path, key, row)
        trained = row["match"]["trained"]
        print(f"   trained {trained['score_mean']:.2f} frags a match, {headline(trained['match'])}", flush=True)


def match_section(runs: dict[str, dict[str, Any]], order: dict[str, int]) -> list[str]:
    """The page's section on the deathmatch ids in the field's units: the rows played in its matches (--match),
    beside the figures of Sample Factory and doom-arena with their sources."""
    from wadgym.envs.registration import ENVS

    bots_ids = [env_id for env_id, (entry, _, _) in ENVS.items() if entry.endswith(":DeathmatchBotsEnv")]
    lines = ["", MATCH_SECTION, "",
             "The field reports deathmatch as frags per match of stated length and kill/death ratio. `--match` plays "
             "a row's trained",
             f"policy in that setting, {MATCH_MINUTES:g}-minute matches (of game time) against {MATCH_BOTS} bots "
             f"(env kwargs `bots={MATCH_BOTS}, match_minutes={MATCH_MINUTES:g}`),",
             "on held-out levels, random and scripted on the same matches; frags/min is frags over game minutes, K/D "
             "kills (frags +",
             "suicides) over deaths, both of the matches' summed counts. The bots keep the id's skill level (2 for "
             "DoomDeathmatchBots-v0,",
             "4 for the Hard id), and wadgym's arenas, weapons and 8 actions are not dwango5's or Sample Factory's "
             "39: the figures",
             "stand beside theirs in the same units, not as the same task.", ""]
    played = [row for row in runs.values() if row.get("match")]
    table = []
    for row in sorted(played, key=lambda r: (order.get(r["env"], 1e9), r["budget"], r["seed"])):
        m = row["match"]
        trained, random = m["trained"], m["random"]
        figures, scripted = trained["match"], m.get("scripted")
        per = max(figures["episodes"], 1)
        table.append([row["env"], row["budget"], row["seed"], f"{m['episodes']} x {m['minutes']:g} min, "
                      f"{m['bots']} bots", f"{trained['score_mean']:.2f}", f"{random['score_mean']:.2f}",
                      f"{scripted['score_mean']:.2f}" if scripted else "-", f"{figures['frags_per_minute']:.2f}",
                      f"{figures['kd_ratio']:.2f}", f"{figures['deaths'] / per:.1f}",
                      f"{figures['suicides'] / per:.1f}",
                      f"{figures['damage_dealt'] / per:.0f} / {figures['damage_taken'] / per:.0f}",
                      mean_spread([trained.get("opponents_median_mean")]), m["commit"]])
    if table:
        lines += harness.markdown_table(
            ["env", "budget", "seed", "matches", "frags/match trained", "random", "scripted", "frags/min trained",
             "K/D trained", "deaths/match", "suicides/match", "damage dealt / taken a match", "median bot's frags",
             "played at"], table)
    else:
        lines += [f"No row has been played in it yet (the bots rows' run folders are gone): `python bench/learn.py "
                  f"--env {' '.join(bots_ids)} --budget BUDGET --match --episodes 10` plays those whose run folders "
                  f"are here."]
    return lines + ["", "Their figures, and where they come from:", "", *FIELD_FIGURES]


def cloning(run_dir: Path) -> dict[str, Any]:
    """What the run's behaviour cloning did (its pretrain.json): seconds, final loss and accuracy ({} without)."""
    path = run_dir / "pretrain.json"
    if not path.is_file():
        return {}
    done = json.loads(path.read_text())
    return {"cloning_s": done["seconds"], "cloning_loss": round(done["loss"], 4),
            "cloning_accuracy": round(done["accuracy"], 3)}


def budget_cell(budget: str, row: dict[str, Any]) -> str:
    """The table's budget column: the budget and its steps; for a demos row the dataset's steps and recording
    time too (the wall time column is the cloning and PPO's)."""
    demos = row.get("demos")
    if not demos:
        return f"{budget}: {row['timesteps']:,}"
    then = "cloning alone" if budget_of(budget) == "demos-bc" else f"{row['timesteps']:,} PPO steps"
    cloned = (f" ({demos['cloning_s'] / 60:.1f} min, accuracy {demos['cloning_accuracy']:.2f})"
              if "cloning_s" in demos else "")
    return (f"{budget}: {demos['steps']:,} recorded steps ({demos['recording_s'] / 60:.1f} min to record), "
            f"{demos['epochs']} epochs of cloning{cloned}, {then}")


def readme_choice(rows: list[tuple[bool, float, str, str]]) -> tuple[str, str]:
    """The README's figure of an id from its rows (meets the bar, trained test score, figure, verdict), cpu
    before cpu-long: the first that meets the bar, else the best."""
    meeting = [row for row in rows if row[0]]
    chosen = meeting[0] if meeting else max(rows, key=lambda row: row[1])
    return chosen[2], chosen[3]


def attempt_lines(attempts: dict[str, dict[str, Any]], order: dict[str, int]) -> list[str]:
    """The attempts' section: every run recorded with --attempt or replaced as its id's row, in the order of
    the ids, then as they finished, each with its own figures and what it trained with."""
    if not attempts:
        return []
    lines = ["", "## Attempts", "",
             "Runs that tried another setting for an id (`--attempt`) and rows that a later run of the same id, "
             "budget and seed",
             "replaced, as they came out. The table's rows are the runs of each id's entry in the hyperparameter "
             "files; these",
             "played the same seeded held-out test episodes.", "",
             ]
    table = []
    for row in sorted(attempts.values(), key=lambda r: (order.get(r["env"], 1e9), r["budget"], r["finished"])):
        test = row["eval"]["test"]
        trained, random = figures([row], "test", "trained"), figures([row], "test", "random", interval=False)
        scripted = figures([row], "test", "scripted", interval=False)
        met = verdict(trained, random.point, None if scripted is None else scripted.point,
                      opponents([test["trained"]]))
        table.append([row["env"], f"{row['budget']}: {row['timesteps']:,}", row.get("trained_with") or GONE,
                      f"{random.mean:.2f}", f"{trained.mean:.2f}", mean_spread([score(test.get("scripted"))]),
                      trained.cell(), met, row["commit"], f"`{row['command']}`"])
    header = ["env", "budget (steps)", "trained with", "random (test)", "trained (test)", "scripted (test)",
              "IQM trained (test) [95% CI]", "meets the bar", "commit", "command"]
    return lines + harness.markdown_table(header, table)


def readme_table(block: str, summary: dict[str, tuple[str, str]]) -> str:
    """The README's environment table: one row per registered id, its description ("what") kept from the
    README's rows, its max_episode_steps from the registration, its result from the benchmark (readme_choice:
    the CPU budget's where it meets the bar, else the cpu-long one where that does or scores higher)."""
    from wadgym.envs.registration import ENVS

    what = {}
    for line in block.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 1 and cells[0].startswith("`"):
            what[cells[0].strip("`")] = cells[1]
    lines = ["| id | what | max steps | trained vs random, test levels | meets the bar |", "|---|---|---|---|---|"]
    for env_id, (_, _, steps) in ENVS.items():
        result, verdict_text = summary.get(env_id, ("-", "not run yet"))
        lines.append(f"| `{env_id}` | {what.get(env_id, '')} | {steps} | {result} | {verdict_text} |")
    return "\n".join(lines) + "\n"


def scripted_note(rows: list[dict[str, Any]]) -> str:
    """The commit of the scripted reference's figures where they were played again later (--rescript)."""
    commits = sorted({r["scripted_commit"] for r in rows if r.get("scripted_commit")})
    return f" (scripted: {', '.join(commits)})" if commits else ""


def rescript(json_path: Path, env_ids: list[str], budget: str) -> None:
    """Play the scripted reference again on the recorded rows of `env_ids` for `budget`: the same seeds and
    splits as the row's evaluation, the env kwargs of the row's run (its config.yml when the run folder is
    here, relative to the checkout, else the id's entry for the budget); no training. Each row records the
    commit it was played at."""
    import yaml

    from wadgym.agents.evaluate import run_episodes, split_kwargs, summarize

    rows = recorded_rows(json_path, env_ids, budget)
    for key, row in sorted(rows.items()):
        config_path = ROOT / row["run_dir"] / "config.yml"
        if config_path.is_file():
            env_kwargs = yaml.safe_load(config_path.read_text())["hyperparams"].get("env_kwargs") or {}
        else:
            entry = (yaml.safe_load(hyperparams_file(budget).read_text()) or {})[row["env"]]
            env_kwargs = entry.get("env_kwargs") or {}
        first, last = row["eval"]["seeds"]
        seeds = list(range(first, last + 1))
        for split in ("test", "train"):
            kwargs = split_kwargs(row["env"], env_kwargs, split)
            row["eval"][split]["scripted"] = summarize(run_episodes(row["env"], kwargs, seeds, "scripted"))
        row["scripted_commit"] = git_commit()
        record(json_path, key, row)
        print(f"   {key}: scripted {score(row['eval']['test']['scripted']):.2f} (test), "
              f"{score(row['eval']['train']['scripted']):.2f} (train)", flush=True)


CURVE_BINS = 25


def learning_curve(run_dir: Path) -> dict[str, list[float]] | None:
    """The run's mean score per training episode in CURVE_BINS ranges of steps (None without its Monitor
    files): kept in each row, so the figure outlives the run folder."""
    from wadgym.agents import runfolder
    from wadgym.agents.runs.plots import binned_means

    episodes = runfolder.read_episodes(run_dir) if run_dir.is_dir() else []
    points = [(e["timesteps"], e["score"]) for e in episodes if e.get("score") is not None]
    if not points:
        return None
    steps, values = binned_means(*(np.asarray(v, float) for v in zip(*points)), CURVE_BINS)
    return {"steps": [round(float(v), 1) for v in steps], "score": [round(float(v), 4) for v in values]}


def kept_curve(row: dict[str, Any]) -> dict[str, list[float]] | None:
    """A row's learning curve: the one it keeps, else its run folder's (None: neither is here)."""
    return row.get("curve") or learning_curve(ROOT / row["run_dir"])


def plot_curves(groups: dict[tuple[str, str], list[dict[str, Any]]], attempts: list[dict[str, Any]],
                path: Path) -> None:
    """One panel per env and budget: each seed's binned mean score per training episode (kept in its row,
    else read from its run folder), the attempts' of the same budget (dotted), and random's test level. A row
    whose curve is neither kept nor in a run folder here (made before rows kept it) gets a note instead. Rows
    that trained no step (demos-bc: cloning alone) have no curve and no panel."""
    groups = {key: rows for key, rows in groups.items() if any(row["timesteps"] for row in rows)}
    if not groups:
        return
    fig, axes = harness.panels(len(groups), 4.2, 3.2, cols=min(3, len(groups)))
    for ax, ((env_id, budget), rows) in zip(axes, sorted(groups.items())):
        lost = 0
        for row in rows:
            curve = kept_curve(row)
            if curve:
                ax.plot(curve["steps"], curve["score"], label=f"seed {row['seed']}")
            lost += curve is None
        for row in (r for r in attempts if (r["env"], r["budget"]) == (env_id, budget)):
            curve = kept_curve(row)
            if curve:
                ax.plot(curve["steps"], curve["score"], linestyle=":", label=f"attempt at {row['commit']}")
        if lost:
            ax.text(0.5, 0.86, f"{'curve' if lost == 1 else f'{lost} curves'} not kept\n(run folder gone)",
                    transform=ax.transAxes, ha="center", va="center", fontsize=8, color="0.4")
        ax.axhline(np.mean([score(r["eval"]["test"]["random"]) for r in rows]), color="tab:red", linestyle="--",
                   label="random (test)")
        harness.label_panel(ax, f"{env_id} ({budget})", f"{rows[0]['score_name']} per episode", "env steps",
                            legend_size=6)
    harness.save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", nargs="+", help="env ids (default: every registered id with hyperparameters)")
    harness.add_common_arguments(
        parser, outputs="benchmark.md/.json/_curves.png", runs=DEFAULT_RUNS, seeds=None,
        seeds_help="seeds per id (default: 3 for each family's default id, else 1)",
        episodes_help="evaluation episodes per split and policy",
        budget_help="cpu: ppo.yml; cpu-long: ppo_cpu_long.yml (at most 2 hours on 2 cores); gpu: ppo_gpu.yml; "
                    "demos: ppo_demos.yml, PPO after cloning a recorded dataset; demos-bc: cloning alone",
        skip_done="skip (id, budget, seed) already in the JSON")
    parser.add_argument("--rescript", action="store_true",
                        help="play the scripted reference again on the recorded rows of the --env ids (no training)")
    parser.add_argument("--adopt", nargs="+", metavar="RUN",
                        help="evaluate finished `wadgym train` run folders and add them as rows (their own command, "
                             "commit and wall time), training nothing")
    parser.add_argument("--demo-episodes", nargs="+", type=int, metavar="N",
                        help="--budget demos/demos-bc: record datasets of N episodes each (a row per size; default: "
                             "the entry's demos episodes)")
    parser.add_argument("--match", action="store_true",
                        help="play the recorded rows of the --env ids (their run folders) in the field's deathmatch "
                             "setting: --episodes matches of --match-minutes against --match-bots bots (no training)")
    parser.add_argument("--match-bots", type=int, default=MATCH_BOTS, help=f"--match: bots (default {MATCH_BOTS})")
    parser.add_argument("--match-minutes", type=float, default=MATCH_MINUTES,
                        help=f"--match: minutes of game time a match (default {MATCH_MINUTES:g})")
    parser.add_argument("--attempt", action="store_true",
                        help="record the runs trained or adopted as attempts (listed below the table as they came "
                             "out), leaving the table's rows as they are")
    args = parser.parse_args(argv)
    harness.check_common_arguments(parser, args)

    out = harness.pages(args.docs, "benchmark", figure="benchmark_curves.png")
    if args.rescript:
        if not args.env:
            parser.error("--rescript needs --env ID ...")
        rescript(out.json, args.env, args.budget)
    elif args.match:
        if not args.env:
            parser.error("--match needs --env ID ... (DoomDeathmatchBots-v0, DoomDeathmatchBotsHard-v0)")
        play_matches(out.json, args.env, args.budget, args.episodes, args.runs, args.match_bots, args.match_minutes)
    elif args.adopt:
        for run in args.adopt:
            key, row = adopted_row(Path(run), args.budget, args.episodes)
            record(out.json, key, row, args.attempt)
            report(key, row)
    elif not args.table_only:
        demos = args.budget in DEMO_BUDGETS
        if args.demo_episodes and not demos:
            parser.error(f"--demo-episodes sizes the datasets of --budget {' or '.join(DEMO_BUDGETS)}")
        train_grid(args, out, demos)
    write_table(out.json, out.md, out.figure)
    print(f"wrote {out.md}, {out.figure} ({shlex.join(sys.argv)})")
    return 0


def train_grid(args: argparse.Namespace, out: harness.Pages, demos: bool) -> None:
    """Train and evaluate every (id, budget or dataset size, seed) of the grid not done yet (--skip-done),
    each row recorded and the table rewritten as it finishes."""
    runs = typed_path(args.runs)   # as the rows' commands and run folders name it
    settings = {env_id: demo_settings(env_id, args.budget) if demos else None
                for env_id in args.env or benchmark_ids(args.budget)}

    def sizes(env_id: str) -> list[int | None]:
        return (args.demo_episodes or [settings[env_id]["episodes"]]) if demos else [None]

    def seeds(env_id: str) -> range:
        return range(args.first_seed, args.first_seed + (args.seeds or default_seeds(env_id)))

    def label(size: int | None) -> str:
        return demo_label(args.budget, size) if demos else args.budget

    datasets: dict[tuple[str, int], dict[str, Any]] = {}   # recorded once per id and size, for its first run
    cells = harness.grid(settings, sizes, seeds, tag=label)
    for cell in results(out.json).pending(cells, args.skip_done):
        env_id, size, seed = cell.name, cell.setting, cell.seed
        if demos and (env_id, size) not in datasets:
            datasets[env_id, size] = demo_dataset(env_id, {**settings[env_id], "episodes": size}, out.json)
        tag = f"{args.budget}_{size}ep" if demos else args.budget
        run_dir = Path(args.runs) / f"{env_id}_{tag}_s{seed}_{time.strftime('%Y%m%d-%H%M%S')}"
        command = (f"python bench/learn.py --env {env_id} --budget {args.budget}"
                   + (f" --demo-episodes {size}" if demos else "")
                   + f" --seeds 1 --first-seed {seed}"
                   + (f" --runs {runs}" if runs != DEFAULT_RUNS else ""))
        print(f"== {cell.key}: training into {run_dir}", flush=True)
        demo = {**datasets[env_id, size], "epochs": settings[env_id]["epochs"]} if demos else None
        result = train_one(env_id, seed, args.budget, run_dir, demo)
        print(f"   {result['timesteps']} steps in {result['wall_time_s']:.0f} s "
              f"({result['steps_per_second']:.0f} steps/s); evaluating", flush=True)
        from wadgym.envs.registration import score_name

        row = {"env": env_id, "budget": label(size), "seed": seed, "score_name": score_name(env_id),
               "commit": trained_commit(run_dir), "command": command,
               "run_dir": typed_path(run_dir, run_folder=True), "timesteps": result["timesteps"],
               "wall_time_s": round(result["wall_time_s"], 1),
               "steps_per_second": round(result["steps_per_second"], 1), "device": result["device"],
               "finished": time.strftime("%Y-%m-%dT%H:%M:%S"), "trained_with": trained_with(run_dir),
               "curve": learning_curve(run_dir), "eval": evaluate(run_dir, args.episodes)}
        if demos:
            row["demos"] = {**datasets[env_id, size], "epochs": settings[env_id]["epochs"], **cloning(run_dir)}
        record(out.json, cell.key, row, args.attempt)
        report(cell.key, row)
        write_table(out.json, out.md, out.figure)


if __name__ == "__main__":
    sys.exit(main())
