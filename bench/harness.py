"""The learning benchmarks' shared harness: what bench/learn.py, generalization.py and transfer.py have in common.

- where their rows go: a results store (one JSON file, written atomically, rows keyed "<id>/<setting>/seed<N>");
- what they run: the id x setting x seed grid, whose finished cells a resumed run skips;
- how they are called: the common flags (--seeds --first-seed --episodes --budget --runs --docs --table-only
  --skip-done ...) and the budgets' hyperparameter files;
- how they train: a TrainConfig (wadgym's API), its `wadgym train` command line for the log;
- how figures are decided: rliable's 95% stratified bootstrap confidence intervals over seeds x episodes of the
  mean (what the bars name, which decides) and of the interquartile mean (IQM, shown beside), its probability of
  improvement, and the verdict of an interval against a bar;
- how they write: Markdown tables (a deathmatch's frags per minute and K/D beside its score: match_cell), the
  hand-written section a rewritten page keeps, figures, and a row's command and paths as a user types them in a
  checkout.

The scripts import it as `import harness`: run as `python bench/NAME.py`, a script's own folder (bench/) is the
first entry of sys.path, so the module beside it is found without touching sys.path.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import os
import shlex
import subprocess
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

# --budget NAME -> its hyperparameter file in agents/hyperparams/
BUDGETS = {"cpu": "ppo.yml", "cpu-long": "ppo_cpu_long.yml", "gpu": "ppo_gpu.yml", "demos": "ppo_demos.yml",
           "demos-bc": "ppo_demos.yml"}


def budget_of(label: str) -> str:
    """The budget of a row's label: "demos (100 episodes)" -> "demos"."""
    return label.partition(" (")[0]


def hyperparams_file(budget: str) -> Path:
    """The hyperparameter file of a budget (or of a row's budget label); a ValueError names the valid ones."""
    budget = budget_of(budget)
    if budget not in BUDGETS:
        raise ValueError(f"budget {budget!r} is not valid; choose one of {', '.join(BUDGETS)}")
    return ROOT / "agents" / "hyperparams" / BUDGETS[budget]


# ---------------------------------------------------------------------------------------------------------------
# The results store and the grid


def run_key(name: str, setting: str, seed: int) -> str:
    """A row's key: "<id or pair>/<setting>/seed<N>" (e.g. DoomItems-v1/cpu/seed0, health/original/seed2)."""
    return f"{name}/{setting}/seed{seed}"


class ResultsStore:
    """One benchmark's JSON file of rows: {"runs": {key: row}, ...} (the other top-level entries are the
    script's own: attempts, datasets, baselines). Every change is read, made and written back at once, the file
    replaced atomically (a temporary file renamed over it), so a stopped benchmark loses at most the run it was
    making and another session's rows are kept."""

    def __init__(self, path: Path, replaced: str | None = None,
                 replaced_key: Callable[[str, dict[str, Any]], str] | None = None, **sections: dict) -> None:
        self.path = Path(path)
        self.replaced = replaced   # the section a row goes to when a run of another folder replaces it
        # a replaced (or set-aside) row's key there: "<key>@<its run folder>" unless the script names its own
        self.replaced_key = replaced_key or (lambda key, row: f"{key}@{row.get('run_dir')}")
        self.sections = {"runs": {}, **sections, **({replaced: {}} if replaced else {})}   # an empty store's

    def load(self) -> dict[str, Any]:
        data = json.loads(self.path.read_text()) if self.path.is_file() else {}
        return {**{name: dict(empty) for name, empty in self.sections.items()}, **data}

    def save(self, data: dict[str, Any]) -> None:
        from wadgym.agents.runfolder import write_json

        write_json(self.path, data)

    def record(self, key: str, row: dict[str, Any], aside: bool = False) -> None:
        """`row` as the row of `key`, replacing any row of that key; where the store keeps `replaced` rows, one of
        another run folder (a rerun's) is kept there under `replaced_key` ("<key>@<its run folder>"): no run's
        figures are dropped, and a row made the row of its key leaves that section. With `aside` the row goes
        to the `replaced` section alone (a run of another setting, listed beside the table) and the rows stay."""
        data = self.load()
        if aside and not self.replaced:
            raise ValueError(f"{self.path.name}: this store keeps no replaced rows to set a row aside in")
        if aside:
            data[self.replaced][self.replaced_key(key, row)] = row
            self.save(data)
            return
        old = data["runs"].get(key)
        if self.replaced:
            if old is not None and old.get("run_dir") != row.get("run_dir"):
                data[self.replaced][self.replaced_key(key, old)] = old
            data[self.replaced].pop(self.replaced_key(key, row), None)
        data["runs"][key] = row
        self.save(data)

    def keys(self) -> set[str]:
        return set(self.load()["runs"])

    def pending(self, cells: Iterable[Cell], skip_done: bool = True) -> Iterator[Cell]:
        """The cells to run: with `skip_done`, those without a row in the store (read again before each cell,
        so rows another session or an earlier cell recorded count), each skipped one said on stdout."""
        for cell in cells:
            if skip_done and cell.key in self.keys():
                print(f"== {cell.key}: done, skipped", flush=True)
                continue
            yield cell


@dataclasses.dataclass(frozen=True)
class Cell:
    """One run of a benchmark's grid: an id (or pair), a setting (budget, number of levels, what it trained on)
    and a seed."""
    name: str
    setting: Any
    seed: int
    key: str


def grid(names: Iterable[str], settings: Callable[[str], Iterable[Any]] | Iterable[Any],
         seeds: Callable[[str], Iterable[int]] | Iterable[int], *, seed_major: bool = False,
         tag: Callable[[Any], str] = str) -> Iterator[Cell]:
    """Every (name, setting, seed), name by name; within a name setting by setting (each setting's seeds in
    turn) or with `seed_major` seed by seed (every setting of the first seed first: a sweep stopped part-way
    already has whole curves). `settings` and `seeds` may be functions of the name; `tag` makes a setting's
    part of the key."""
    for name in names:
        name_settings = list(settings(name) if callable(settings) else settings)
        name_seeds = list(seeds(name) if callable(seeds) else seeds)
        order = ([(setting, seed) for seed in name_seeds for setting in name_settings] if seed_major
                 else [(setting, seed) for setting in name_settings for seed in name_seeds])
        for setting, seed in order:
            yield Cell(name, setting, seed, run_key(name, tag(setting), seed))


# ---------------------------------------------------------------------------------------------------------------
# The common flags


def add_common_arguments(parser: argparse.ArgumentParser, *, outputs: str, runs: str, seeds: int | None,
                         seeds_help: str | None = None, episodes_help: str = "evaluation episodes per split",
                         budget_help: str = "which hyperparameter file", conf_file: bool = False,
                         skip_done: str | None = "skip the runs already in the JSON",
                         dry_run: bool = False) -> None:
    """The flags every learning benchmark takes: --seeds, --first-seed, --episodes, --budget, (--conf-file),
    --runs, --docs (its `outputs` named in the help), --table-only, (--skip-done, with its help; None: the
    script always skips finished runs), (--dry-run)."""
    parser.add_argument("--seeds", type=int, default=seeds,
                        help=seeds_help or f"seeds per point (default {seeds})")
    parser.add_argument("--first-seed", type=int, default=0, help="seeds FIRST_SEED.. (default 0)")
    parser.add_argument("--episodes", type=int, default=50, help=f"{episodes_help} (default 50)")
    parser.add_argument("--budget", choices=tuple(BUDGETS), default="cpu", help=budget_help)
    if conf_file:
        parser.add_argument("--conf-file", type=Path, help="a hyperparameter file instead of the budget's")
    parser.add_argument("--runs", default=runs, help=f"folder for the run folders (default {runs})")
    parser.add_argument("--docs", default=str(ROOT / "docs"), help=f"where {outputs} go")
    parser.add_argument("--table-only", action="store_true", help="rewrite the table and figure, train nothing")
    if skip_done:
        parser.add_argument("--skip-done", action="store_true", help=skip_done)
    if dry_run:
        parser.add_argument("--dry-run", action="store_true", help="print the runs to make, train nothing")


def check_common_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse (parser.error: exit status 2, the option named) seeds or episodes below 1."""
    for name in ("seeds", "episodes"):
        value = getattr(args, name)
        if value is not None and value < 1:
            parser.error(f"--{name} {value}: must be at least 1")


@dataclasses.dataclass(frozen=True)
class Pages:
    """A benchmark's files in the docs folder: its JSON (the rows), its page (Markdown) and its figure."""
    json: Path
    md: Path
    figure: Path


def pages(docs: str | Path, stem: str, figure: str | None = None) -> Pages:
    docs = Path(docs)
    return Pages(docs / f"{stem}.json", docs / f"{stem}.md", docs / (figure or f"{stem}.png"))


# ---------------------------------------------------------------------------------------------------------------
# Training, and a row's command and paths as a user types them


def train_run(config, stopped: str = "no row recorded") -> dict[str, Any]:
    """wadgym.agents.train(config) in-process, its TrainResult as a dict; a run stopped before its budget
    (Ctrl-C, a signal) is no benchmark row: SystemExit saying where it stopped and `stopped` (what to do)."""
    from wadgym.agents import train

    result = train(config)
    if result.interrupted:
        raise SystemExit(f"training of {config.env} seed {config.seed} was stopped at {result.timesteps} steps; "
                         f"{stopped}")
    return dataclasses.asdict(result)


def train_command(config) -> str:
    """The `wadgym train` command line of a TrainConfig (its env, and the fields that differ from the defaults),
    for the log and a dry run."""
    from wadgym.agents import TrainConfig

    defaults = TrainConfig()
    words = ["wadgym", "train"]
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        if value == getattr(defaults, field.name) and field.name != "env":
            continue
        option = "--" + field.name.replace("_", "-")
        if field.name in ("progress", "eval_video"):   # switches that are on by default
            words.append("--no-progress" if field.name == "progress" else "--no-video")
        elif field.name in ("env_kwargs", "hyperparams"):
            words += ["--env-kwargs" if field.name == "env_kwargs" else "--hp",
                      *(f"{key}={item}" for key, item in value.items())]
        else:
            words += [option, str(value)]
    return shlex.join(words)


def trained_commit(run_dir: Path) -> str:
    """The commit a run's training started from, as its meta.json records it (short, "-dirty" where its tree had
    changes): the code that trained it, which the checkout may have moved on from by the time its row is written;
    git_commit() where the run folder does not say."""
    try:
        git = json.loads((Path(run_dir) / "meta.json").read_text())["git"]
    except (OSError, ValueError, KeyError, TypeError):
        return git_commit()
    if not isinstance(git, dict) or not git.get("commit"):
        return git_commit()
    return str(git["commit"])[:7] + ("-dirty" if git.get("dirty") else "")


def git_commit() -> str:
    """The checkout's short commit, "-dirty" where its code (not docs/ or README.md, the benchmark's own
    outputs) has changes; "unknown" outside a git checkout."""
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no", "--",
                                ".", ":!docs", ":!README.md"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return commit + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# Options whose value is a run folder (a path outside the checkout is named under its runs folder's name),
# and options a row's command leaves out: the docs folder (a row lives in the docs that list it).
RUN_FOLDER_OPTIONS = ("--run-dir", "--resume", "--adopt")
LEFT_OUT_OPTIONS = ("--docs",)


def typed_path(path: str | Path, run_folder: bool = False) -> str:
    """A path as a user types it in a checkout of this repository, naming no folder of the machine that made
    it: one inside the checkout relative to its root (a relative path is taken from the current folder), one
    outside it by its name (`--runs /work/runs-long` -> runs-long); with `run_folder`, by its name under its
    runs folder's name (/work/runs-long/NAME -> runs-long/NAME), as `--runs runs-long` makes it."""
    full = Path(os.path.abspath(path))
    for candidate in (full, full.resolve()):   # as given, else through its links (a checkout reached by one)
        if candidate == ROOT or ROOT in candidate.parents:
            return candidate.relative_to(ROOT).as_posix()
    if run_folder and full.parent.name:
        return f"{full.parent.name}/{full.name}"
    return full.name or str(path)


def typed_command(command: str) -> str:
    """A recorded command line (commands joined by " && ", as `wadgym train` records its sessions) as a user
    types it in a checkout: a bench script as `python bench/NAME.py`, `--docs` left out, and every absolute
    path as typed_path gives it (run folders: after --run-dir, --resume, --adopt and as a subcommand's
    positional argument). A command with no such thing comes back as it was."""
    scripts = {path.name for path in (ROOT / "bench").glob("*.py")}
    segments = []
    for segment in command.split(" && "):
        try:
            words = shlex.split(segment)
        except ValueError:  # unbalanced quotes: not a command this can read; left as it is
            segments.append(segment)
            continue
        head: list[str] = []
        if len(words) > 1 and Path(words[0]).name.startswith("python") and Path(words[1]).name in scripts:
            head, words = ["python", f"bench/{Path(words[1]).name}"], words[2:]
        elif words and Path(words[0]).name in scripts:
            head, words = ["python", f"bench/{Path(words[0]).name}"], words[1:]
        elif words and Path(words[0]).name in ("__main__.py", "wadgym"):
            head, words = ["wadgym"], words[1:]
        out, option, skip = list(head), None, False
        for word in words:
            if skip:
                skip = False
                continue
            name, eq, value = word.partition("=")
            if word.startswith("--") and name in LEFT_OUT_OPTIONS:
                skip = not eq
                continue
            if word.startswith("-") and len(word) > 1:
                option = name
                if eq and value.startswith("/"):
                    word = f"{name}={typed_path(value, name in RUN_FOLDER_OPTIONS)}"
                out.append(word)
                continue
            if word.startswith("/"):
                word = typed_path(word, option is None or option in RUN_FOLDER_OPTIONS)
            elif eq and value.startswith("/"):   # KEY=/PATH, as --hp and --env-kwargs take them
                word = f"{name}={typed_path(value)}"
            out.append(word)
        segments.append(segment if out == shlex.split(segment) else shlex.join(out))
    return " && ".join(segments)


# ---------------------------------------------------------------------------------------------------------------
# Statistics: rliable's IQM, its stratified bootstrap interval, its probability of improvement; the verdict

CONFIDENCE = 0.95
BOOTSTRAP_REPS = 2_000   # resamples per interval (rliable's default is 50,000: minutes per table on 2 cores)
BOOTSTRAP_SEED = 0       # the resampling is seeded: a rewritten table shows the same intervals


@dataclasses.dataclass(frozen=True)
class Estimate:
    """A policy's figure over its seeds' evaluation episodes: the mean over seeds of each seed's mean score
    and, where the rows keep their per-episode scores, the 95% stratified bootstrap confidence intervals of the
    mean (mean_low, mean_high) and of the IQM (low, high). The mean and its interval decide: the bars name a
    mean (exits, items per episode), and where an episode scores 0 or 1 (an exit) the IQM over episodes is 0 or
    1 by construction. The IQM is shown beside, as rliable reports it. Without per-episode scores (`iqm` None)
    the mean stands alone and decides."""
    mean: float
    seeds: int = 1
    episodes: int | None = None   # per seed, where the rows keep them
    iqm: float | None = None
    low: float | None = None
    high: float | None = None
    mean_low: float | None = None
    mean_high: float | None = None

    @property
    def point(self) -> float:
        """The figure that decides: the mean."""
        return self.mean

    @property
    def bounds(self) -> tuple[float, float]:
        """The interval that decides: the mean's 95% CI, else the mean at both ends."""
        return (self.mean, self.mean) if self.mean_low is None else (self.mean_low, self.mean_high)

    def cell(self, digits: int = 2) -> str:
        """"IQM [low, high]", or "mean only" where no per-episode scores were kept."""
        if self.iqm is None:
            return "mean only"
        if self.low is None:
            return f"{self.iqm:.{digits}f}"
        return f"{self.iqm:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


def _rliable():
    """rliable's library and metrics (the `bench` extra: pip install -e '.[bench]'), or SystemExit saying so."""
    try:
        from rliable import library, metrics
    except ImportError as error:
        raise SystemExit(f"the benchmark's statistics need rliable ({error}); install the bench extra: "
                         f"pip install -e '.[bench]'") from error
    return library, metrics


def _seeded(compute: Callable[[], Any]) -> Any:
    """`compute()` with numpy's global random state seeded to BOOTSTRAP_SEED and restored after: rliable's
    bootstrap draws its resamples from np.random (not from the random_state it is handed)."""
    import warnings

    saved = np.random.get_state()
    np.random.seed(BOOTSTRAP_SEED)
    try:
        with warnings.catch_warnings():   # arch's notice that random_state will go; rliable's concern, not ours
            warnings.simplefilter("ignore", FutureWarning)
            return compute()
    finally:
        np.random.set_state(saved)


@functools.lru_cache(maxsize=4096)
def _iqm_interval(scores: tuple[tuple[float, ...], ...], interval: bool) -> tuple[float, ...]:
    """(IQM, its low, its high, the mean's low, the mean's high); the bounds None without `interval`."""
    library, metrics = _rliable()
    # rliable's matrices are runs x tasks and its stratified bootstrap resamples the runs within each task;
    # here the strata are the seeds: episodes x seeds, the episodes resampled within each seed and, with
    # task_bootstrap, the seeds themselves (with one seed: the episodes alone).
    matrix = np.asarray(scores, dtype=float).T
    iqm = float(metrics.aggregate_iqm(matrix))
    if not interval:
        return iqm, None, None, None, None
    _, intervals = _seeded(lambda: library.get_interval_estimates(
        {"scores": matrix}, lambda m: np.array([metrics.aggregate_iqm(m), metrics.aggregate_mean(m)]),
        task_bootstrap=True, reps=BOOTSTRAP_REPS, confidence_interval_size=CONFIDENCE))
    (low, mean_low), (high, mean_high) = np.asarray(intervals["scores"], dtype=float).reshape(2, 2).tolist()
    return iqm, low, high, mean_low, mean_high


def iqm_interval(scores: Sequence[Sequence[float]] | np.ndarray, interval: bool = True) -> Estimate:
    """rliable's interquartile mean of a runs x episodes matrix of scores (a seed a row, its evaluation
    episodes across) with its 95% stratified bootstrap confidence interval (BOOTSTRAP_REPS resamples of the
    episodes within each seed and of the seeds, seeded: the same scores give the same interval); `interval`
    False: the IQM alone (no resampling). A ValueError names a matrix that is empty or not rectangular."""
    rows = [tuple(float(v) for v in row) for row in scores]
    if not rows or not rows[0] or len({len(row) for row in rows}) != 1:
        raise ValueError(f"scores must be a runs x episodes matrix with at least one score; got row lengths "
                         f"{[len(row) for row in rows]}")
    iqm, low, high, mean_low, mean_high = _iqm_interval(tuple(rows), interval)
    return Estimate(mean=float(np.mean([np.mean(row) for row in rows])), seeds=len(rows), episodes=len(rows[0]),
                    iqm=iqm, low=low, high=high, mean_low=mean_low, mean_high=mean_high)


def estimate(means: Sequence[float], episode_scores: Sequence[Sequence[float] | None],
             interval: bool = True) -> Estimate:
    """The Estimate of a policy over seeds: `means` (each seed's mean score) and `episode_scores` (each seed's
    per-episode scores, None or empty where its row kept none). The IQM and its interval need every seed's
    scores, as many for each: otherwise the mean over seeds alone."""
    kept = [list(s) for s in episode_scores if s]
    if kept and len(kept) == len(means) and len({len(s) for s in kept}) == 1 \
            and all(v is not None for s in kept for v in s):
        return dataclasses.replace(iqm_interval(kept, interval), mean=float(np.mean(means)))
    return Estimate(mean=float(np.mean(means)), seeds=len(means))


@dataclasses.dataclass(frozen=True)
class Improvement:
    """rliable's probability of improvement P(X > Y): the chance that an episode of X scores more than an
    episode of Y (ties count half), with its 95% bootstrap interval (None: the point alone)."""
    probability: float
    low: float | None = None
    high: float | None = None

    def cell(self) -> str:
        if self.low is None:
            return f"{self.probability:.2f}"
        return f"{self.probability:.2f} [{self.low:.2f}, {self.high:.2f}]"

    def as_estimate(self) -> Estimate:
        """As an Estimate (its point and interval), for decide()."""
        return Estimate(mean=self.probability, iqm=self.probability, low=self.low, high=self.high,
                        mean_low=self.low, mean_high=self.high)


@functools.lru_cache(maxsize=1024)
def _improvement(x: tuple[float, ...], y: tuple[float, ...], interval: bool) -> tuple[float, float | None,
                                                                                       float | None]:
    library, metrics = _rliable()
    # Each policy's episodes of all its seeds pooled (one task): seeds of two trainings are not pairs.
    xs, ys = np.asarray(x, float)[:, None], np.asarray(y, float)[:, None]
    point = float(metrics.probability_of_improvement(xs, ys))
    if not interval:
        return point, None, None
    _, intervals = _seeded(lambda: library.get_interval_estimates(
        {"pair": (xs, ys)}, metrics.probability_of_improvement, reps=BOOTSTRAP_REPS,
        confidence_interval_size=CONFIDENCE))
    low, high = (float(v) for v in np.asarray(intervals["pair"]).ravel())
    return point, low, high


def improvement(x: Sequence[float], y: Sequence[float], interval: bool = True) -> Improvement:
    """rliable's probability of improvement of X over Y from their per-episode scores (each policy's episodes
    of all its seeds), with its 95% bootstrap interval (the episodes of each resampled independently, seeded);
    `interval` False: the point alone. A ValueError names an empty side."""
    if not len(x) or not len(y):
        raise ValueError(f"probability of improvement needs scores on both sides; got {len(x)} and {len(y)}")
    return Improvement(*_improvement(tuple(float(v) for v in x), tuple(float(v) for v in y), interval))


MEETS, MISSES, UNDECIDED = "yes", "no", "not decided"


def decide(figure: Estimate | float, bar: float, strict: bool = False) -> str:
    """Whether a figure reaches `bar`, decided on its interval: MEETS ("yes") when the interval's lower bound
    reaches the bar (passes it, `strict`), MISSES ("no") when its upper bound stays below it (does not pass it,
    `strict`), UNDECIDED ("not decided") when the interval straddles it. A figure without an interval (a bare
    number, or an Estimate of means only) is decided on its value."""
    low, high = figure.bounds if isinstance(figure, Estimate) else (float(figure), float(figure))
    if low > bar or (low == bar and not strict):
        return MEETS
    if high < bar or (high == bar and strict):
        return MISSES
    return UNDECIDED


def combine(*outcomes: str) -> str:
    """Several conditions' outcomes as one: MISSES if any misses, MEETS if all meet, else UNDECIDED."""
    if MISSES in outcomes:
        return MISSES
    return MEETS if all(o == MEETS for o in outcomes) else UNDECIDED


# ---------------------------------------------------------------------------------------------------------------
# Pages: tables, the section a rewrite keeps, figures


def curriculum_text(stages: Sequence[dict[str, Any]]) -> str:
    """A curriculum (agents.backends.curriculum's stages) in words: how many stages, to which steps."""
    return (f"curriculum: {len(stages)} stages before the id's own, to "
            + ", ".join(f"{int(stage['until']):,}" for stage in stages) + " steps")


def mean_spread(values: Iterable[float | None]) -> str:
    """"mean ± std" of the values given (None left out); one value alone, "-" for none."""
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    if len(values) == 1:
        return f"{values[0]:.2f}"
    return f"{np.mean(values):.2f} ± {np.std(values):.2f}"


def match_cell(summaries: Iterable[dict[str, Any] | None]) -> str:
    """A deathmatch's figures in the field's units over the summaries' episodes (each summary's "match": the
    evaluation's pooled info["match"], wadgym.envs.match_figures), pooled again: "frags/min F, K/D R"; "" where a
    summary has none (an env that is no deathmatch, or a row evaluated before episodes kept them)."""
    from wadgym.envs.match_figures import headline, pooled

    matches = [(summary or {}).get("match") for summary in summaries]
    if not matches or not all(matches):
        return ""
    return headline(pooled(matches))


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    """A Markdown table's lines: the header, its rule, a line per row."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return lines


def kept_section(md_path: Path, heading: str) -> str:
    """The part of an existing page from the line `heading` to its end (a hand-written section, kept as it is
    when the page is rewritten); "" where the page or the heading is not there."""
    text = md_path.read_text() if md_path.is_file() else ""
    start = text.find(heading + "\n")
    while start > 0 and text[start - 1] != "\n":   # a line that starts with the heading, not text containing it
        start = text.find(heading + "\n", start + 1)
    return text[start:] if start >= 0 else ""


def write_page(md_path: Path, lines: Sequence[str], keep: str | None = None) -> None:
    """The page's lines (atomically), then the section headed `keep` of the page it replaces, as it was."""
    from wadgym.agents.runfolder import write_text_atomic

    kept = kept_section(md_path, keep) if keep else ""
    text = "\n".join(lines).rstrip("\n") + "\n"
    write_text_atomic(md_path, text + (f"\n{kept}" if kept else ""))


def panels(count: int, width: float, height: float, cols: int | None = None):
    """A matplotlib figure (Agg: no display) of `count` panels of width x height inches, `cols` a row (default
    all in one row); the panels left over are blank. Returns (figure, the panels in order)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = cols or count
    rows = (count + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), dpi=100, squeeze=False)
    for ax in list(axes.flat)[count:]:
        ax.axis("off")
    return fig, list(axes.flat)[:count]


def label_panel(ax, title: str, ylabel: str, xlabel: str | None = None, *, title_size: int = 9,
                legend_size: int = 7, grid_axis: str = "both") -> None:
    """One panel's labels as every benchmark figure draws them: the title, the axes' labels (8 pt), a light grid
    and the legend."""
    ax.set_title(title, fontsize=title_size)
    if xlabel is not None:
        ax.set_xlabel(xlabel, fontsize=8)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.grid(axis=grid_axis, alpha=0.3)
    ax.legend(fontsize=legend_size)


def save_figure(fig, path: Path) -> None:
    """The figure as a PNG at `path` (written atomically), then closed."""
    import io

    import matplotlib.pyplot as plt

    from wadgym.agents.runfolder import write_bytes_atomic

    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    write_bytes_atomic(path, buf.getvalue())
