"""A training run is a folder; this module names its files and reads and writes them atomically.

<run>/config.yml       resolved configuration (env id, hyperparameters, env kwargs, seed, device request)
     command.txt      the exact command line(s) (one per start: the first, then each --resume)
     meta.json        package versions, git commit and dirtiness, device, start/end times, wall time
     model.zip        the final model (SB3 format); vecnormalize.pkl beside it when normalize is on
     checkpoints/     model_<steps>_steps.zip (+ model_vecnormalize_<steps>_steps.pkl), the latest kept, and
                      model_<steps>_steps.monitor.json: the Monitor files' lengths at that checkpoint
     engine_restarts.json  every engine restart (env index, cause, step, time), when there was one
     train_<k>.resume.json  when session k resumed from a checkpoint: the steps of the episodes that were
                      running then (cut short by the resume)
     train_<k>.monitor.csv  every episode of training session k (k = 1, 2 ... for each --resume): SB3's
                      Monitor format (a JSON header line, then r, l, t and the info keywords: score; RLlib
                      runs add env_runner and node), read by read_episodes through SB3's load_results
     episodes.csv     the same, as runs before the Monitor files wrote it: timesteps, score, return, length
     learning_curve.png  score per episode against steps
     metrics.json     final evaluation (trained vs random on fixed seeds)
     tb/              TensorBoard logs

An episode's global step ("timesteps") is SB3's convention (results_plotter.ts2xy(..., "timesteps")): the
cumulative sum of the lengths of the episodes before and including it, in time order over all sessions.
With n envs it trails the trainer's step count by the steps of the episodes still running.

--resume continues from the latest checkpoint and first rewinds the Monitor files to what they held when
it was written (rewind_monitors): the episodes a killed trainer recorded after its last checkpoint are
trained again, so they are dropped rather than counted twice. The steps of the episodes that were running
at that checkpoint, which no Monitor row holds, are added to the global step of every later episode
(train_<k>.resume.json), so that the count goes on from the checkpoint's step, without a gap.
"""

from __future__ import annotations

import csv
import json
import re
import time
import zipfile
from pathlib import Path
from typing import Any

import yaml

from wadgym.files import write_atomic

DEFAULT_ROOT = Path("runs")


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary file in the same folder, then rename over `path` (creating the folder)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, data)


def write_text_atomic(path: Path, text: str) -> None:
    write_bytes_atomic(path, text.encode())


def write_png(path: Path, fig) -> Path:
    """A matplotlib figure as a PNG at `path`, written whole (write_bytes_atomic), then closed."""
    import io

    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    write_bytes_atomic(Path(path), buf.getvalue())
    return Path(path)


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
    """A checkpoint's model and VecNormalize files, as SB3's CheckpointCallback(name_prefix="model") names them."""
    folder = Path(run) / "checkpoints"
    return folder / f"model_{steps}_steps.zip", folder / f"model_vecnormalize_{steps}_steps.pkl"


def latest_checkpoint(run: Path) -> tuple[int, Path] | None:
    """(steps, path) of the newest complete checkpoint: model_<steps>_steps.zip (SB3; a zip cut short by
    a kill while it was written is passed over) or the folder model_<steps>_steps (RLlib)."""
    found = []
    for path in (Path(run) / "checkpoints").glob("model_*_steps*"):
        match = re.fullmatch(r"model_(\d+)_steps(\.zip)?", path.name)
        if match and (path.is_dir() or zipfile.is_zipfile(path)):
            found.append((int(match.group(1)), path))
    return max(found) if found else None


def model_path(run: Path) -> Path:
    """The final model (model.zip, or an RLlib run's model/ folder), or the latest checkpoint when
    training did not finish."""
    for final in (Path(run) / "model.zip", Path(run) / "model"):
        if final.exists():
            return final
    latest = latest_checkpoint(run)
    if latest is None:
        raise ValueError(f"run {str(run)!r} has no model.zip and no checkpoint")
    return latest[1]


def vecnormalize_path(model: Path) -> Path:
    """The VecNormalize statistics saved beside a model or checkpoint (may not exist; runs before
    CheckpointCallback named a checkpoint's vecnormalize_<steps>_steps.pkl)."""
    if model.name == "model.zip":
        return model.with_name("vecnormalize.pkl")
    path = model.with_name(model.name.replace("model_", "model_vecnormalize_").replace(".zip", ".pkl"))
    older = model.with_name(model.name.replace("model_", "vecnormalize_").replace(".zip", ".pkl"))
    return older if older.is_file() and not path.is_file() else path


def explore_path(model: Path) -> Path:
    """The exploration bonuses' state saved beside a model or checkpoint (agents.exploration.bonuses; may not exist):
    explore.pt beside model.zip, model_explore_<steps>_steps.pt beside a checkpoint."""
    if model.name == "model.zip":
        return model.with_name("explore.pt")
    return model.with_name(model.name.replace("model_", "model_explore_").replace(".zip", ".pt"))


def monitor_file(run: Path) -> Path:
    """The Monitor file of a new training session: train_<k>.monitor.csv, k one more than the sessions before."""
    return Path(run) / f"train_{len(list(Path(run).glob('*.monitor.csv'))) + 1}.monitor.csv"


def monitor_marker(checkpoint: Path) -> Path:
    """The record of the Monitor files' lengths beside a checkpoint: model_<steps>_steps.monitor.json."""
    checkpoint = Path(checkpoint)
    return checkpoint.with_name(checkpoint.name.removesuffix(".zip") + ".monitor.json")


def write_monitor_marker(run: Path, checkpoint: Path, running: list[int]) -> None:
    """Before `checkpoint` is written: each Monitor file's size in bytes now (every row is flushed as it
    is written), and the steps so far of the episodes still running (`running`, one per env), which a
    resume from it starts again."""
    sizes = {path.name: path.stat().st_size for path in sorted(Path(run).glob("*.monitor.csv"))}
    write_json(monitor_marker(checkpoint), {"monitor_bytes": sizes, "running_episode_steps": running})


def rewind_monitors(run: Path, checkpoint: Path) -> list[str]:
    """Before resuming from `checkpoint`: each Monitor file cut back (atomically) to its size when the
    checkpoint was written, and a Monitor file begun after it removed, so that no episode is counted
    twice. Returns what it changed; nothing when the checkpoint has no record (an older run, or
    model.zip)."""
    marker = monitor_marker(checkpoint)
    if not marker.is_file():
        return []
    record = read_json(marker)
    sizes = record.get("monitor_bytes", {})
    changed = []
    for path in sorted(Path(run).glob("*.monitor.csv")):
        if path.name not in sizes:
            path.unlink()
            resume_record(path).unlink(missing_ok=True)
            changed.append(f"removed {path.name}")
        elif path.stat().st_size > sizes[path.name]:
            write_bytes_atomic(path, path.read_bytes()[:sizes[path.name]])
            changed.append(f"cut {path.name} back to {sizes[path.name]} bytes")
    write_json(resume_record(monitor_file(run)), {"checkpoint": Path(checkpoint).name,
                                                  "running_episode_steps": record.get("running_episode_steps", [])})
    return changed


def resume_record(monitor: Path) -> Path:
    """train_<k>.resume.json beside the Monitor file train_<k>.monitor.csv of a session that resumed."""
    return Path(monitor).with_name(Path(monitor).name.removesuffix(".monitor.csv") + ".resume.json")


def monitor_writer(run: Path, env_id: str, extra_keys: tuple[str, ...], t_start: float):
    """SB3's ResultsWriter on a new session's Monitor file, for a trainer without a VecMonitor (RLlib):
    rows of r, l, t (seconds since `t_start`, a time.time()) and `extra_keys`."""
    from stable_baselines3.common.monitor import ResultsWriter

    return ResultsWriter(str(monitor_file(run)), header={"t_start": t_start, "env_id": env_id},
                         extra_keys=extra_keys)


def read_episodes(run: Path) -> list[dict[str, Any]]:
    """Every training episode of `run` in time order: timesteps (see the module's note), score, return,
    length, time (seconds since training started) and any other column, from its Monitor files (SB3's
    load_results). A run made before them has episodes.csv: its episodes come first (a run resumed since
    counts its Monitor files' steps on from the last of them); [] when it has neither."""
    run = Path(run)
    earlier = []
    if (run / "episodes.csv").is_file():
        with open(run / "episodes.csv") as f:
            earlier = [{k: _number(v) for k, v in row.items()} for row in csv.DictReader(f)]
    if not any(run.glob("*monitor.csv")):
        return earlier
    from stable_baselines3.common.monitor import load_results
    from stable_baselines3.common.results_plotter import X_TIMESTEPS, ts2xy

    frame = load_results(str(run))
    if frame.empty:
        return earlier
    timesteps, _ = ts2xy(frame, X_TIMESTEPS)
    timesteps = timesteps + _cut_short(run, frame["t"].to_numpy())
    offset = earlier[-1]["timesteps"] if earlier else 0
    names = {"r": "return", "l": "length", "t": "time"}
    columns = [c for c in frame.columns if c != "index"]
    rows = zip(timesteps.tolist(), *(frame[c].tolist() for c in columns))
    return earlier + [{"timesteps": offset + int(steps), **{names.get(c, c): _cell(v) for c, v in zip(columns, values)}}
                      for steps, *values in rows]


def _cut_short(run: Path, times):
    """For each episode (its time `times`, as load_results gives them: seconds since the first session's
    start), the steps of the episodes that resumes before it cut short (see rewind_monitors)."""
    import json

    import numpy as np

    starts = {}
    for path in run.glob("*.monitor.csv"):
        with open(path) as f:
            starts[path.name] = float(json.loads(f.readline()[1:])["t_start"])
    added = np.zeros(len(times), dtype=np.int64)
    for name, start in starts.items():
        record = resume_record(run / name)
        if record.is_file():
            added[times >= start - min(starts.values())] += int(sum(read_json(record).get("running_episode_steps", [])))
    return added


def _cell(value: Any) -> Any:
    """A load_results cell as Python data: NaN (no value) -> None, a float that is whole stays a float."""
    return None if isinstance(value, float) and value != value else value


def _number(text: str | None) -> int | float | str | None:
    """A CSV cell as written: "12" -> 12, "0.5" -> 0.5, "" -> None, other text as it is."""
    if text in ("", None):
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text
