"""A training run is a folder; this module names its files and reads and writes them atomically.

<run>/config.yml       resolved configuration (env id, hyperparameters, env kwargs, seed, device request)
     command.txt      the exact command line(s) (one per start: the first, then each --resume)
     meta.json        package versions, git commit and dirtiness, device, start/end times, wall time
     model.zip        the final model (SB3 format); vecnormalize.pkl beside it when normalize is on
     checkpoints/     model_<steps>_steps.zip (+ vecnormalize_<steps>_steps.pkl), the latest kept
     episodes.csv     every training episode: timesteps, score, return, length
     learning_curve.png  score per episode against steps
     metrics.json     final evaluation (trained vs random on fixed seeds)
     tb/              TensorBoard logs
"""

from __future__ import annotations

import csv
import io
import json
import re
import time
from pathlib import Path
from typing import Any

import yaml

from wadgym.files import write_atomic

DEFAULT_ROOT = Path("runs")
EPISODE_FIELDS = ("timesteps", "score", "return", "length")


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary file in the same folder, then rename over `path` (creating the folder)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, data)


def write_text_atomic(path: Path, text: str) -> None:
    write_bytes_atomic(path, text.encode())


def write_json(path: Path, value: Any) -> None:
    write_text_atomic(path, json.dumps(value, indent=2, sort_keys=False, default=str) + "\n")


def read_json(path: Path) -> dict[str, Any]:
    with open(path) as f:
        return json.load(f)


def write_yaml(path: Path, value: Any) -> None:
    write_text_atomic(path, yaml.safe_dump(value, sort_keys=False))


def new_run_dir(env_id: str, root: Path | None = None) -> Path:
    """runs/<env>_<YYYYmmdd-HHMMSS>, suffixed -2, -3 ... if taken; created empty."""
    root = Path(root) if root is not None else DEFAULT_ROOT
    stem = f"{re.sub(r'[^A-Za-z0-9_.-]', '_', env_id)}_{time.strftime('%Y%m%d-%H%M%S')}"
    for attempt in range(1, 1000):
        path = root / (stem if attempt == 1 else f"{stem}-{attempt}")
        try:
            path.mkdir(parents=True)
            return path
        except FileExistsError:
            continue
    raise RuntimeError(f"could not create a run folder under {root}")


def require_run(path: str | Path) -> Path:
    """A run folder (one with config.yml); a ValueError says what is missing."""
    path = Path(path)
    if not (path / "config.yml").is_file():
        raise ValueError(f"{str(path)!r} is not a wadgym run folder (no config.yml in it)")
    return path


def load_config(run: Path) -> dict[str, Any]:
    from wadgym.agents.config import read_yaml

    config = read_yaml(require_run(run) / "config.yml")
    if not isinstance(config, dict) or "env" not in config:
        raise ValueError(f"{run}/config.yml is not a wadgym run configuration (no env)")
    return config


def checkpoint_paths(run: Path, steps: int) -> tuple[Path, Path]:
    folder = Path(run) / "checkpoints"
    return folder / f"model_{steps}_steps.zip", folder / f"vecnormalize_{steps}_steps.pkl"


def latest_checkpoint(run: Path) -> tuple[int, Path] | None:
    found = []
    for path in (Path(run) / "checkpoints").glob("model_*_steps.zip"):
        match = re.fullmatch(r"model_(\d+)_steps\.zip", path.name)
        if match:
            found.append((int(match.group(1)), path))
    return max(found) if found else None


def model_path(run: Path) -> Path:
    """The final model, or the latest checkpoint when training did not finish."""
    final = Path(run) / "model.zip"
    if final.is_file():
        return final
    latest = latest_checkpoint(run)
    if latest is None:
        raise ValueError(f"run {str(run)!r} has no model.zip and no checkpoint")
    return latest[1]


def vecnormalize_path(model: Path) -> Path:
    """The VecNormalize statistics saved beside a model or checkpoint (may not exist)."""
    if model.name == "model.zip":
        return model.with_name("vecnormalize.pkl")
    return model.with_name(model.name.replace("model_", "vecnormalize_").replace(".zip", ".pkl"))


def write_episodes(run: Path, episodes: list[dict[str, Any]]) -> None:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=EPISODE_FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: e.get(k) for k in EPISODE_FIELDS} for e in episodes)
    write_text_atomic(Path(run) / "episodes.csv", buf.getvalue())


def read_episodes(run: Path) -> list[dict[str, Any]]:
    path = Path(run) / "episodes.csv"
    if not path.is_file():
        return []
    with open(path) as f:
        return [{k: _number(v) for k, v in row.items()} for row in csv.DictReader(f)]


def _number(text: str | None) -> int | float | None:
    """A CSV cell as written: "12" -> 12, "0.5" -> 0.5, "" -> None."""
    if text in ("", None):
        return None
    try:
        return int(text)
    except ValueError:
        return float(text)
