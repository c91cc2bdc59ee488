"""Uploading a run folder to MLflow (`wadgym track-sync`, and every tracked run's end): what the store lacks
of it, never twice. The run itself (params, tags) when the store has none for it, the episodes and logged
scalars after the last step it holds, the final metrics and evaluation table, the artifacts changed since
their upload, the final policy as an MLflow Model when it changed; then the run's status. tracking.json
records what went up, and "synced": true once all of it did.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from wadgym.agents.runs.tracking.content import (
    DIFF_FILE,
    LEVELS_FILE,
    create_run,
    evaluation_metrics,
    evaluation_table,
    existing_run,
    experiment_name,
)
from wadgym.agents.runs.tracking.models import log_policy_model
from wadgym.agents.runs.tracking.store import (
    check_store,
    client,
    display,
    is_number,
    log_metric_points,
    log_table,
    read_tracking,
    tracking_uri,
    write_tracking,
)

ARTIFACTS = ("model.zip", "vecnormalize.pkl", "learning_curve.png", "config.yml", "meta.json", "metrics.json",
             "command.txt", LEVELS_FILE, "pretrain.json")
STATUS = {"finished": "FINISHED", "failed": "FAILED", "interrupted": "KILLED"}  # meta.json's -> MLflow's


def sync(run_dir: Path, uri: str | None = None, quiet: bool = False) -> str:
    """Upload the run folder to MLflow, what is not there yet: the run itself (params, tags) when the store
    has none for it, the episodes and logged scalars after the last step it holds, the final metrics, the
    evaluation table and the artifacts changed since their upload; then the run's status. Returns the run id."""
    from wadgym.agents import runfolder
    from wadgym.agents.system import git_info, installed_versions

    run_dir = runfolder.require_run(run_dir)
    config = runfolder.load_config(run_dir)
    meta = runfolder.read_json(run_dir / "meta.json") if (run_dir / "meta.json").is_file() else {}
    recorded = read_tracking(run_dir)
    uri = uri or recorded.get("tracking_uri") or tracking_uri(None, run_dir.parent)
    check_store(uri)
    mlflow_client = client(uri)
    run_id = existing_run(mlflow_client, recorded, uri)
    if run_id is None:  # trained without --track, or tracked in another store
        command = (run_dir / "command.txt").read_text().splitlines()[0] if (run_dir / "command.txt").is_file() else ""
        run_id = create_run(mlflow_client, run_dir, config, uri, command, meta.get("versions") or
                            installed_versions(("wadgym",)), meta.get("git") or git_info())
        recorded = {"uploaded": {}}
        if (run_dir / DIFF_FILE).is_file():
            mlflow_client.log_artifact(run_id, str(run_dir / DIFF_FILE), "code")
    recorded.update(tracking_uri=uri, run_id=run_id, experiment=experiment_name(config))
    write_tracking(run_dir, {**recorded, "synced": False})
    _sync_metrics(mlflow_client, run_id, run_dir, meta)
    uploaded = dict(recorded.get("uploaded") or {})
    _sync_artifacts(mlflow_client, run_id, run_dir, uploaded)
    _sync_model(run_dir, uri, run_id, recorded)
    status = meta.get("status") or ("finished" if meta.get("finished") else "interrupted")
    mlflow_client.set_tag(run_id, "wadgym.status", status)
    if meta.get("device"):
        mlflow_client.set_tag(run_id, "wadgym.device", str(meta["device"]))
    if meta.get("error"):
        mlflow_client.set_tag(run_id, "wadgym.error", str(meta["error"])[:5000])
    if meta.get("sessions"):
        mlflow_client.set_terminated(run_id, STATUS.get(status, "KILLED"))
    write_tracking(run_dir, {**recorded, "uploaded": uploaded, "synced": True})
    if not quiet:
        print(f"uploaded {run_dir} to MLflow run {run_id} at {display(uri)}")
    return run_id


def _sync_metrics(mlflow_client, run_id: str, run_dir: Path, meta: dict[str, Any]) -> None:
    from wadgym.agents import runfolder

    points: list[tuple[str, float, int, float | None]] = []
    episodes = runfolder.read_episodes(run_dir)
    last = _last_step(mlflow_client, run_id, "episode/return")
    started = _started_seconds(meta)
    for episode in episodes:
        if episode["timesteps"] <= last:
            continue
        t = started + episode["time"] if started is not None and is_number(episode.get("time")) else None
        for key in ("score", "return", "length"):
            if is_number(episode.get(key)):
                points.append((f"episode/{key}", episode[key], episode["timesteps"], t))
    for tag, events in _logged_scalars(run_dir / "tb").items():
        last = _last_step(mlflow_client, run_id, tag)
        points.extend((tag, value, step, wall) for step, value, wall in events if step > last)
    steps = int(meta.get("timesteps") or 0)
    for key in ("timesteps", "wall_time_s", "steps_per_second"):
        if is_number(meta.get(key)):
            points.append((key, meta[key], steps, None))
    metrics = runfolder.read_json(run_dir / "metrics.json") if (run_dir / "metrics.json").is_file() else {}
    evaluation = metrics.get("eval") or {}
    points.extend((key, value, steps, None) for key, value in evaluation_metrics(evaluation).items())
    log_metric_points(mlflow_client, run_id, points)
    if isinstance(evaluation.get("trained"), dict) and isinstance(evaluation.get("random"), dict):
        log_table(mlflow_client, run_id, evaluation_table(evaluation))


def _last_step(mlflow_client, run_id: str, key: str) -> int:
    history = mlflow_client.get_metric_history(run_id, key)
    return max((m.step for m in history), default=-1)


def _started_seconds(meta: dict[str, Any]) -> float | None:
    started = (meta.get("sessions") or [{}])[0].get("started") or meta.get("started")
    try:
        return time.mktime(time.strptime(started, "%Y-%m-%dT%H:%M:%S"))
    except (TypeError, ValueError):
        return None


def _logged_scalars(tb: Path) -> dict[str, list[tuple[int, float, float]]]:
    """Every TensorBoard scalar under `tb` (all sessions): tag -> [(step, value, wall time)] in step order."""
    if not tb.is_dir():
        return {}
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    scalars: dict[str, list[tuple[int, float, float]]] = {}
    for folder in sorted({path.parent for path in tb.rglob("events.out.tfevents.*")}):
        accumulator = EventAccumulator(str(folder), size_guidance={"scalars": 0})
        accumulator.Reload()
        for tag in accumulator.Tags().get("scalars", []):
            scalars.setdefault(tag, []).extend((e.step, e.value, e.wall_time) for e in accumulator.Scalars(tag))
    return {tag: sorted(events) for tag, events in scalars.items()}


def _sync_artifacts(mlflow_client, run_id: str, run_dir: Path, uploaded: dict[str, list]) -> None:
    """The run's files (the final model, else the latest checkpoint; videos), each uploaded again only when
    it changed; `uploaded` (relative path -> [size, mtime]) records what went up."""
    from wadgym.agents import runfolder

    files = [run_dir / name for name in ARTIFACTS] + sorted(run_dir.glob("*.mp4"))
    folders = []
    if (run_dir / "model").is_dir():  # an RLlib run's final model
        folders.append(run_dir / "model")
    elif not (run_dir / "model.zip").is_file():
        latest = runfolder.latest_checkpoint(run_dir)
        if latest is not None:
            saved = [latest[1], runfolder.vecnormalize_path(latest[1])]
            folders += [p for p in saved if p.is_dir()]
            files += [p for p in saved if p.is_file()]
    for path in files:
        if path.is_file() and _changed(path, run_dir, uploaded):
            mlflow_client.log_artifact(run_id, str(path), None if path.parent == run_dir else "checkpoint")
            uploaded[str(path.relative_to(run_dir))] = _stamp(path)
    for folder in folders:
        if _changed(folder, run_dir, uploaded):
            artifact_path = folder.name if folder.parent == run_dir else f"checkpoint/{folder.name}"
            mlflow_client.log_artifacts(run_id, str(folder), artifact_path)
            uploaded[str(folder.relative_to(run_dir))] = _stamp(folder)


def _stamp(path: Path) -> list:
    stat = path.stat()
    if path.is_dir():
        sizes = [p.stat().st_size for p in path.rglob("*") if p.is_file()]
        return [sum(sizes), max([p.stat().st_mtime for p in path.rglob("*")] + [stat.st_mtime])]
    return [stat.st_size, stat.st_mtime]


def _changed(path: Path, run_dir: Path, uploaded: dict[str, list]) -> bool:
    return uploaded.get(str(path.relative_to(run_dir))) != _stamp(path)


def _sync_model(run_dir: Path, uri: str, run_id: str, recorded: dict[str, Any]) -> None:
    """The run's final policy as an MLflow Model, logged again only when the final model changed."""
    final = next((run_dir / name for name in ("model.zip", "model") if (run_dir / name).exists()), None)
    if final is None:
        return
    stamp = _stamp(final)
    model = recorded.get("model") or {}
    if model.get("stamp") == stamp:
        return
    logged = log_policy_model(run_dir, uri, run_id)
    recorded["model"] = {**(logged or {"model_id": None}), "stamp": stamp}
