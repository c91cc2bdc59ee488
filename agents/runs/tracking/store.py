"""The MLflow store of tracked runs: which one (tracking_uri), whether it answers (check_store), its client
and experiments; the link a run folder keeps to its MLflow run (tracking.json); writing params, metrics and
tables to a run in MLflow's batches; and the training runs a store holds (`wadgym runs --tracking-uri`).

The store is, first found: --tracking-uri, $MLFLOW_TRACKING_URI, else an embedded SQLite store beside the
run folders (<runs>/mlflow.db, artifacts under <runs>/mlartifacts), with no server to start.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

TRACKING_FILE = "tracking.json"
# Fail fast when a server is gone (MLflow's defaults retry for minutes); the user's settings win.
# MLflow's "View run at" line after each status change is left out: `begin` prints the run's page once.
HTTP_SETTINGS = {"MLFLOW_HTTP_REQUEST_MAX_RETRIES": "2", "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR": "1",
                 "MLFLOW_HTTP_REQUEST_TIMEOUT": "20", "MLFLOW_SUPPRESS_PRINTING_URL_TO_STDOUT": "true"}
# Set before `import mlflow` (its usage telemetry starts at import; the user's setting wins). MLflow 3.17's
# telemetry thread adds and deletes an environment variable while requests' threads read os.environ: on a
# machine that cannot reach its endpoint, calls to a tracking server failed now and then with
# KeyError: '_MLFLOW_TELEMETRY_SESSION_ID'.
IMPORT_SETTINGS = {"MLFLOW_DISABLE_TELEMETRY": "true"}
# The MLflow UI shows an experiment of this kind as model training (runs, charts), not as GenAI traces.
EXPERIMENT_TAGS = {"mlflow.experimentKind": "custom_model_development"}
KIND_TAG = "wadgym.kind"  # "train" or "eval" (nested evaluation runs)


class TrackingError(ValueError):
    """The tracking store cannot be used (unreachable, no such run): the message says what and how to fix."""


def apply_import_settings() -> None:
    """IMPORT_SETTINGS into os.environ, each only where the user has not set it: before `import mlflow`."""
    for name, value in IMPORT_SETTINGS.items():
        os.environ.setdefault(name, value)


def require_mlflow():
    """mlflow, or a ModuleNotFoundError the CLI turns into "pip install 'wadgym[track]'"."""
    apply_import_settings()
    try:
        import mlflow
    except ModuleNotFoundError as error:
        raise ModuleNotFoundError("No module named 'mlflow'", name="mlflow") from error
    for name, value in HTTP_SETTINGS.items():
        os.environ.setdefault(name, value)
    for name in ("mlflow", "alembic"):  # database migrations and store notices, not for users
        logging.getLogger(name).setLevel(logging.WARNING)
    return mlflow


def tracking_uri(uri: str | None, runs_root: Path) -> str:
    """--tracking-uri, else $MLFLOW_TRACKING_URI, else the embedded store <runs_root>/mlflow.db."""
    uri = uri or os.environ.get("MLFLOW_TRACKING_URI")
    if uri:
        return uri
    return "sqlite:///" + str((Path(runs_root) / "mlflow.db").resolve())


def is_local(uri: str) -> bool:
    return uri.startswith("sqlite:")


def local_artifacts(uri: str) -> str | None:
    """Where an embedded store's experiments keep artifacts: <db folder>/mlartifacts (MLflow would
    otherwise use ./mlruns of whatever folder the command ran in); None for a server (it decides)."""
    if not is_local(uri):
        return None
    database = Path(uri.removeprefix("sqlite:///"))
    return (database.parent / "mlartifacts").resolve().as_uri()


def check_store(uri: str, timeout: float = 5.0) -> None:
    """A TrackingError unless the store at `uri` answers: a server's /health, an embedded database's folder."""
    require_mlflow()
    if uri.startswith(("http://", "https://")):
        import requests

        try:
            response = requests.get(uri.rstrip("/") + "/health", timeout=timeout)
            response.raise_for_status()
        except requests.RequestException as exc:
            raise TrackingError(f"no MLflow tracking server answers at {uri} ({type(exc).__name__}); start one "
                                f"(mlflow server --host 0.0.0.0 --port 5000 ...) or leave out --tracking-uri "
                                f"for the local store beside the runs") from None
    elif is_local(uri):
        Path(uri.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    elif not uri.startswith(("databricks", "file:", "postgresql", "mysql", "mssql")):
        raise TrackingError(f"--tracking-uri {uri!r}: expected http(s)://HOST:PORT of an MLflow server or "
                            f"sqlite:///PATH of a local store")


def check_new_run_store(run_dir: str | os.PathLike | None, uri: str | None) -> str:
    """The store a new run in `run_dir` (None: a new folder under runs/) tracks to (--tracking-uri `uri`,
    else as tracking_uri says), checked before the run folder exists: a TrackingError when it cannot be used."""
    from wadgym.agents import runfolder

    uri = tracking_uri(uri, Path(run_dir).parent if run_dir else runfolder.DEFAULT_ROOT)
    check_store(uri)
    return uri


def client(uri: str):
    return require_mlflow().MlflowClient(tracking_uri=uri)


def experiment_id(mlflow_client, name: str, uri: str) -> str:
    """The MLflow experiment `name` (an env id), created when new."""
    experiment = mlflow_client.get_experiment_by_name(name)
    if experiment is not None:
        return experiment.experiment_id
    try:
        return mlflow_client.create_experiment(name, artifact_location=local_artifacts(uri), tags=EXPERIMENT_TAGS)
    except Exception:  # noqa: BLE001 - created at the same moment by another run
        experiment = mlflow_client.get_experiment_by_name(name)
        if experiment is None:
            raise
        return experiment.experiment_id


# -- the run folder's link to its MLflow run: tracking.json ---------------------------------------------

def read_tracking(run_dir: Path) -> dict[str, Any]:
    path = Path(run_dir) / TRACKING_FILE
    return json.loads(path.read_text()) if path.is_file() else {}


def write_tracking(run_dir: Path, record: dict[str, Any]) -> None:
    from wadgym.files import write_atomic

    write_atomic(Path(run_dir) / TRACKING_FILE, (json.dumps(record, indent=2) + "\n").encode())


# -- writing to an MLflow run ---------------------------------------------------------------------------

def display(uri: str) -> str:
    return f"{uri} (mlflow ui --backend-store-uri {uri})" if is_local(uri) else uri


def is_number(value: Any) -> bool:
    import numbers

    return isinstance(value, numbers.Number) and not isinstance(value, bool) and value == value


def log_params(mlflow_client, run_id: str, params: dict[str, str]) -> None:
    from mlflow.entities import Param

    items = [Param(key, value) for key, value in params.items()]
    for start in range(0, len(items), 100):  # MLflow takes at most 100 params per batch
        mlflow_client.log_batch(run_id, params=items[start:start + 100])


def log_metric_points(mlflow_client, run_id: str, points: list[tuple[str, float, int, float | None]]) -> None:
    """(key, value, step, time in seconds or None for now) points, in batches of MLflow's limit."""
    from mlflow.entities import Metric

    now = int(time.time() * 1000)
    metrics = [Metric(key, float(value), now if t is None else int(t * 1000), int(step))
               for key, value, step, t in points]
    for start in range(0, len(metrics), 1000):
        mlflow_client.log_batch(run_id, metrics=metrics[start:start + 1000])


def log_table(mlflow_client, run_id: str, table: dict[str, list]) -> None:
    """The evaluation as an MLflow table (the run page's Evaluation tab): evaluation.json."""
    import warnings

    with warnings.catch_warnings():  # MLflow's own use of pandas, deprecated in pandas 3: not the user's
        warnings.simplefilter("ignore")
        mlflow_client.log_table(run_id, data=table, artifact_file="evaluation.json")


# -- listing --------------------------------------------------------------------------------------------

def list_runs(uri: str, env: str | None = None) -> list[dict[str, Any]]:
    """The training runs of the store at `uri` (evaluations, nested, left out) as `wadgym runs` rows,
    with their MLflow run id."""
    check_store(uri)
    mlflow_client = client(uri)
    experiments = [e.experiment_id for e in mlflow_client.search_experiments()]
    if not experiments:
        return []
    query = f"tags.`{KIND_TAG}` = 'train'"
    if env:
        query += " and params.env = '{}'".format(env.replace("'", "\\'"))
    rows, token = [], None
    while True:
        page = mlflow_client.search_runs(experiments, query, max_results=1000, page_token=token)
        rows += [_row(run) for run in page]
        token = page.token
        if not token:
            return rows


def _row(run) -> dict[str, Any]:
    data, info = run.data, run.info
    status = data.tags.get("wadgym.status") or info.status.lower()
    if info.status == "RUNNING" and status == "running":
        status = "running"
    metric = data.metrics.get
    return {
        "run": info.run_name or info.run_id,
        "id": info.run_id,
        "env": data.params.get("env", "?"),
        "steps": int(metric("timesteps")) if metric("timesteps") is not None else None,
        "score": metric("eval/trained/score_mean"),
        "score_name": data.tags.get("wadgym.score_name", ""),
        "random": metric("eval/random/score_mean"),
        "device": (data.tags.get("wadgym.device") or data.params.get("device", "?")).split(" ")[0],
        "backend": data.tags.get("wadgym.backend") or data.params.get("backend", "sb3"),  # sb3, rllib, selfplay
        "date": time.strftime("%Y-%m-%d %H:%M", time.localtime(info.start_time / 1000)) if info.start_time else "",
        "status": {"finished": "done", "interrupted": "stopped"}.get(status, status),
    }
