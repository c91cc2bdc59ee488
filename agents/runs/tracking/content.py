"""What the MLflow run of a run folder holds besides its live metrics, and the run itself: params (the
resolved config.yml flattened, the command line, package versions, git commit), the code (code.diff: the
`git diff` of the checkout against its commit, untracked files included), the levels trained on (levels.json:
their WAD digests), the tags a new run is created with (kind, folder, host, lineage), and an evaluation's
numbers as metrics and as a table.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
from pathlib import Path
from typing import Any

from wadgym.agents.runs.tracking.store import KIND_TAG, experiment_id, is_number, log_params

DIFF_FILE = "code.diff"
LEVELS_FILE = "levels.json"
MAX_UNTRACKED_BYTES = 1_000_000  # an untracked file larger than this is named in code.diff, not copied
PARAM_VALUE_LIMIT = 6000  # MLflow's limit on a param's value


def flatten(value: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """{"hyperparams": {"n_envs": 8}} -> {"hyperparams.n_envs": "8"}: MLflow params (text, at most 6000 chars)."""
    flat: dict[str, str] = {}
    for key, item in value.items():
        name = f"{prefix}{key}"
        if isinstance(item, dict) and item:
            flat.update(flatten(item, name + "."))
        else:
            text = item if isinstance(item, str) else json.dumps(item, default=str)
            flat[name] = text[:PARAM_VALUE_LIMIT]
    return flat


def run_params(config: dict[str, Any], command: str, versions: dict[str, Any], git: dict[str, Any]) -> dict[str, str]:
    return {**flatten(config), "command": command[:PARAM_VALUE_LIMIT],
            **flatten({"versions": {k: v for k, v in versions.items() if v is not None}}),
            "git.commit": str(git.get("commit")), "git.dirty": str(git.get("dirty"))}


def code_diff(root: Path) -> str | None:
    """The changes of the checkout at `root` against its commit as one patch (`git apply` restores them on
    a clean checkout of the commit): staged and unstaged changes, and untracked files that git does not
    ignore (one larger than MAX_UNTRACKED_BYTES is only named). None when `root` is not a git checkout."""
    def git(*args: str, ok=(0,)) -> str:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=60)
        if done.returncode not in ok:
            raise RuntimeError(done.stderr.strip())
        return done.stdout

    try:
        if Path(git("rev-parse", "--show-toplevel").strip()).resolve() != Path(root).resolve():
            return None
        parts = [git("diff", "--binary", "HEAD")]
        for name in filter(None, git("ls-files", "--others", "--exclude-standard", "-z").split("\0")):
            path = Path(root) / name
            if not path.is_file():
                continue
            if path.stat().st_size > MAX_UNTRACKED_BYTES:
                parts.append(f"# untracked file not included ({path.stat().st_size} bytes): {name}\n")
                continue
            parts.append(git("diff", "--binary", "--no-index", "--", "/dev/null", name, ok=(0, 1)))
    except (OSError, RuntimeError, subprocess.SubprocessError):
        return None
    return "".join(parts)


def level_digests(env_id: str, env_kwargs: dict[str, Any]) -> dict[str, Any]:
    """The levels a run trains on and the SHA-256 of their WAD (a finite range: its cached WAD; an
    unlimited range is built level by level, from the code at the recorded commit)."""
    import hashlib

    from wadgym.agents.vec import make_env
    from wadgym.envs.doom_env import MAX_WAD_LEVELS

    try:
        env = make_env(env_id, env_kwargs)
    except Exception as exc:  # noqa: BLE001 - a multi-agent env, say: recorded, not fatal
        return {"env": env_id, "error": f"{type(exc).__name__}: {exc}"}
    try:
        base = env.unwrapped
        first, count = getattr(base, "start_level", None), getattr(base, "num_levels", None)
        record: dict[str, Any] = {"env": env_id, "env_kwargs": env_kwargs, "start_level": first, "num_levels": count}
        if first is not None and count and count <= MAX_WAD_LEVELS and hasattr(base, "level_wad"):
            try:  # the cached WAD the env plays (built when the env was made)
                wad = Path(base.level_wad(first, count))
                record["wad"] = {"name": wad.name, "sha256": hashlib.sha256(wad.read_bytes()).hexdigest(),
                                 "size": wad.stat().st_size}
            except Exception as exc:  # noqa: BLE001 - recorded, not fatal
                record["wad"] = {"error": f"{type(exc).__name__}: {exc}"}
        else:
            record["wad"] = "each level's WAD is built when it is played (an unlimited or very large range)"
        return record
    finally:
        env.close()


# -- the MLflow run of a run folder ---------------------------------------------------------------------

def existing_run(mlflow_client, recorded: dict[str, Any], uri: str) -> str | None:
    """The run tracking.json names, when the store at `uri` holds it."""
    run_id = recorded.get("run_id")
    if not run_id:
        return None
    try:
        mlflow_client.get_run(run_id)
    except Exception:  # noqa: BLE001 - another store: a new run there
        return None
    return run_id


def experiment_name(config: dict[str, Any]) -> str:
    """The MLflow experiment of a run: $MLFLOW_EXPERIMENT_NAME, else its env id."""
    return os.environ.get("MLFLOW_EXPERIMENT_NAME") or str(config["env"])


def create_run(mlflow_client, run_dir: Path, config: dict[str, Any], uri: str, command: str,
               versions: dict[str, Any], git: dict[str, Any]) -> str:
    """A new MLflow run of `run_dir` in its experiment, with its tags (kind, folder, host, status, lineage)
    and params (run_params); returns its id."""
    from wadgym.agents.config import run_backend
    from wadgym.envs.registration import score_name

    tags = {KIND_TAG: "train", "wadgym.run_dir": str(run_dir.resolve()), "wadgym.host": socket.gethostname(),
            "wadgym.backend": run_backend(config).name, "wadgym.status": "running",
            "mlflow.source.name": "wadgym train", "mlflow.source.type": "LOCAL"}
    with contextlib.suppress(Exception):
        tags["wadgym.score_name"] = score_name(config["env"])
    if git.get("commit"):
        tags["mlflow.source.git.commit"] = str(git["commit"])
    parent = config.get("init_from") or {}
    if parent:
        tags["wadgym.init_from"] = str(parent.get("run"))
        if parent.get("mlflow_run_id"):
            tags["wadgym.parent_run_id"] = parent["mlflow_run_id"]
    if config.get("reproduces"):
        tags["wadgym.reproduces"] = str(config["reproduces"])
    if config.get("pretrain"):  # behaviour cloning's dataset (agents.datasets.pretrain); its size and source are params
        tags["wadgym.pretrain_dataset"] = str(config["pretrain"].get("dataset"))
    run = mlflow_client.create_run(experiment_id(mlflow_client, experiment_name(config), uri),
                                   run_name=run_dir.name, tags=tags)
    log_params(mlflow_client, run.info.run_id, run_params(config, command, versions, git))
    return run.info.run_id

# -- evaluation results ---------------------------------------------------------------------------------

def evaluation_metrics(evaluation: dict[str, Any], prefix: str = "eval") -> dict[str, float]:
    """eval/<policy>/<score_mean ...> of a compare_with_random result (and the score ratio); a self-play
    evaluation's eval/vs_random/<trained_items ...> likewise: the numbers of each section; training's final
    evaluation adds eval/<split>/<policy>/<score_mean ...> for each level split it played."""
    values = {}
    for section, numbers in evaluation.items():
        if not isinstance(numbers, dict):
            continue
        for key, value in numbers.items():
            if is_number(value):
                values[f"{prefix}/{section}/{key}"] = float(value)
    if is_number(evaluation.get("score_ratio")):
        values[f"{prefix}/score_ratio"] = float(evaluation["score_ratio"])
    for split, players in (evaluation.get("splits") or {}).items():
        for player, summary in players.items():
            values.update({f"{prefix}/{split}/{player}/{key}": float(value) for key, value in summary.items()
                           if is_number(value)})
    return values


def evaluation_table(evaluation: dict[str, Any]) -> dict[str, list]:
    """The evaluation's rows, one per policy (and level split, for training's final evaluation): levels,
    policy, episodes, score, return and length."""
    splits = evaluation.get("splits") or {evaluation.get("levels"): evaluation}
    rows = [(split, player, players[player]) for split, players in splits.items()
            for player in ("trained", "random", "scripted") if isinstance(players.get(player), dict)]
    columns = ("score_mean", "score_std", "return_mean", "return_std", "length_mean")
    return {"policy": [player for _, player, _ in rows], "levels": [split for split, _, _ in rows],
            "episodes": [evaluation.get("episodes")] * len(rows),
            **{c: [summary.get(c) for _, _, summary in rows] for c in columns}}
