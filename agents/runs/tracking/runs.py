"""A tracked run's life in MLflow: begin() starts (or, resumed, continues) the MLflow run of a run folder
before anything trains; the Tracker sends metrics as they come (SB3's logger through its callback, RLlib's
iterations through log_metrics) and at the end uploads the rest (sync). Afterwards `wadgym eval --track`
adds an evaluation as a run nested in it (log_evaluation) and --register puts its policy in the Model Registry
(register_model).

A server that cannot be reached when a run starts is an error before anything trains; one that goes away
while it trains stops the tracking, not the training: the run finishes in its folder, tracking.json says
"synced": false, and `wadgym track-sync RUN` uploads it later.
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import Any

from wadgym.agents.runs.tracking.content import (
    DIFF_FILE,
    LEVELS_FILE,
    code_diff,
    create_run,
    evaluation_metrics,
    evaluation_table,
    existing_run,
    experiment_name,
    flatten,
    level_digests,
)
from wadgym.agents.runs.tracking.models import fluent_store
from wadgym.agents.runs.tracking.store import (
    KIND_TAG,
    TrackingError,
    check_store,
    client,
    display,
    is_local,
    is_number,
    log_metric_points,
    log_params,
    log_table,
    read_tracking,
    require_mlflow,
    tracking_uri,
    write_tracking,
)
from wadgym.agents.runs.tracking.sync import sync


class Tracker:
    """The MLflow run of a run folder while it trains: metrics as they come (log_metrics, sb3_callback),
    then end() uploads the rest. Any MLflow error after the start stops the tracking, with one message;
    training goes on and track-sync uploads the folder later."""

    def __init__(self, run_dir: Path, uri: str, run_id: str):
        self.run_dir, self.uri, self.run_id = Path(run_dir), uri, run_id
        self.client = client(uri)
        self.offline: str | None = None

    def log_metrics(self, metrics: dict[str, Any], step: int) -> None:
        """Numbers of `metrics` at env step `step` (others are passed over)."""
        if self.offline is not None:
            return
        values = {key: float(value) for key, value in metrics.items() if is_number(value)}
        if not values:
            return
        try:
            log_metric_points(self.client, self.run_id, [(key, value, step, None) for key, value in values.items()])
        except Exception as exc:  # noqa: BLE001 - any failure of the store: keep training
            self._went_offline(exc)

    def sb3_callback(self):
        """An SB3 callback that sends what SB3's logger records at each dump (rollout/*, train/*, time/*)
        to this run, at the model's step count."""
        from stable_baselines3.common.callbacks import BaseCallback
        from stable_baselines3.common.logger import KVWriter

        tracker = self

        class MLflowWriter(KVWriter):
            def write(self, key_values, key_excluded, step=0):
                tracker.log_metrics({key: value for key, value in key_values.items()
                                     if "mlflow" not in (key_excluded.get(key) or ())}, step)

        class TrackingCallback(BaseCallback):
            def _on_training_start(self) -> None:
                if not any(isinstance(f, MLflowWriter) for f in self.model.logger.output_formats):
                    self.model.logger.output_formats.append(MLflowWriter())

            def _on_step(self) -> bool:
                return True

        return TrackingCallback()

    def end(self) -> bool:
        """Upload what the folder holds now (sync) and set the run's status; False (with a message) when
        the store cannot be reached: the folder is whole and track-sync uploads it later."""
        if self.offline is not None:
            with contextlib.suppress(TrackingError):
                check_store(self.uri, timeout=2.0)
                self.offline = None
        if self.offline is None:
            try:
                sync(self.run_dir, self.uri, quiet=True)
                return True
            except Exception as exc:  # noqa: BLE001
                self._went_offline(exc)
        print(f"wadgym: the run finished locally; {self.run_dir} is whole but not fully uploaded to MLflow: "
              f"upload it with: wadgym track-sync {self.run_dir}", file=sys.stderr, flush=True)
        return False

    def _went_offline(self, exc: Exception) -> None:
        reason = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        self.offline = reason
        record = read_tracking(self.run_dir)
        record.update(synced=False, error=reason)
        write_tracking(self.run_dir, record)
        print(f"\nwadgym: MLflow at {self.uri} failed ({reason}); training goes on without tracking; "
              f"upload the run later with: wadgym track-sync {self.run_dir}", file=sys.stderr, flush=True)


def begin(run_dir: Path, config: dict[str, Any], uri: str | None = None, resume: bool = False) -> Tracker:
    """Start (or, for a resumed run, continue) the MLflow run of `run_dir`: params, tags, code, levels.
    A TrackingError when the store cannot be reached, before anything trains."""
    from wadgym.agents.system import code_root, command_line, git_info, installed_versions

    run_dir = Path(run_dir)
    recorded = read_tracking(run_dir)
    uri = uri or (recorded.get("tracking_uri") if resume else None) or tracking_uri(None, run_dir.parent)
    check_store(uri)
    root = code_root()
    git = git_info(root)
    diff = code_diff(root) if git.get("commit") else None
    if diff is not None:
        (run_dir / DIFF_FILE).write_text(diff)
    if not (resume and (run_dir / LEVELS_FILE).is_file()):
        levels = level_digests(config["env"], config.get("hyperparams", {}).get("env_kwargs", {}))
        (run_dir / LEVELS_FILE).write_text(json.dumps(levels, indent=2, default=str) + "\n")
    mlflow_client = client(uri)
    run_id = existing_run(mlflow_client, recorded, uri)
    if run_id is None:
        versions = installed_versions(("wadgym", "vizdoom", "gymnasium", "torch", "stable-baselines3", "ray",
                                       "mlflow", "numpy"))
        run_id = create_run(mlflow_client, run_dir, config, uri, command_line(), versions, git)
    else:
        mlflow_client.update_run(run_id, status="RUNNING")
        mlflow_client.set_tag(run_id, "wadgym.status", "running")
    write_tracking(run_dir, {"tracking_uri": uri, "run_id": run_id, "experiment": experiment_name(config),
                             "synced": False, "uploaded": recorded.get("uploaded", {}) if run_id == recorded.get(
                                 "run_id") else {}})
    if diff is not None:
        mlflow_client.log_artifact(run_id, str(run_dir / DIFF_FILE), "code")
    env_file = Path(config["env"])
    if env_file.suffix == ".py" and env_file.is_file():  # a task family given as a file
        mlflow_client.log_artifact(run_id, str(env_file), "code")
    page = f"; page: {uri.rstrip('/')}/#/experiments/{mlflow_client.get_run(run_id).info.experiment_id}/runs/{run_id}"
    print(f"tracking: MLflow run {run_id} at {display(uri)}{page if not is_local(uri) else ''}", flush=True)
    return Tracker(run_dir, uri, run_id)


# -- an evaluation: a run nested in the training run's --------------------------------------------------

def log_evaluation(run_dir: Path, result: dict[str, Any], uri: str | None = None,
                   video: str | Path | None = None) -> str:
    """A `wadgym eval` result as an MLflow run nested in the run's (which is uploaded first when the
    store does not hold it): params, metrics, the table, the video. Returns the nested run's id."""
    parent = sync(run_dir, uri, quiet=True)
    record = read_tracking(run_dir)
    mlflow_client = client(record["tracking_uri"])
    seeds = result.get("seeds") or [None, None]
    run = mlflow_client.create_run(
        mlflow_client.get_run(parent).info.experiment_id,
        run_name=f"eval {result.get('levels')} levels, seeds {seeds[0]}..{seeds[1]}",
        tags={"mlflow.parentRunId": parent, KIND_TAG: "eval", "mlflow.source.name": "wadgym eval"})
    run_id = run.info.run_id
    log_params(mlflow_client, run_id, flatten({key: result.get(key) for key in
                                               ("episodes", "levels", "seeds", "deterministic", "model")}))
    steps = int(mlflow_client.get_run(parent).data.metrics.get("timesteps", 0))
    log_metric_points(mlflow_client, run_id, [(key, value, steps, None)
                                              for key, value in evaluation_metrics(result).items()])
    log_table(mlflow_client, run_id, evaluation_table(result))
    mlflow_client.log_dict(run_id, result, "result.json")
    if video and Path(video).is_file():
        mlflow_client.log_artifact(run_id, str(video))
    mlflow_client.set_terminated(run_id, "FINISHED")
    return run_id


# -- the Model Registry ---------------------------------------------------------------------------------

def register_model(run_dir: Path, name: str, uri: str | None = None, upload: bool = True) -> str:
    """Put the run's logged MLflow Model (see log_policy_model; with `upload`, what the store lacks of the
    run is uploaded first) in the Model Registry as a new version of `name`, once per model; returns the
    version."""
    if upload:
        sync(run_dir, uri, quiet=True)
    record = read_tracking(run_dir)
    model = record.get("model") or {}
    if not model.get("model_id"):
        raise ValueError(f"--register {name}: {run_dir} has no final single-agent policy to register "
                         "(a run that did not finish, or a self-play run)")
    registered = dict(model.get("registered") or {})
    if name in registered:
        return registered[name]
    mlflow = require_mlflow()
    try:
        with fluent_store(mlflow, record["tracking_uri"]):
            version = mlflow.register_model(model["uri"], name).version
    except Exception as exc:  # noqa: BLE001 - the store's answer (an invalid name, no registry), as one line
        raise TrackingError(f"--register {name}: MLflow at {record['tracking_uri']} did not register "
                            f"{model['uri']} ({str(exc).splitlines()[0][:300]})") from None
    registered[name] = str(version)
    write_tracking(run_dir, {**record, "model": {**model, "registered": registered}})
    print(f"registered the policy of {run_dir} as {name} version {version}: models:/{name}/{version}", flush=True)
    return str(version)
