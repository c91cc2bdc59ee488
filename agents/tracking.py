"""Experiment tracking with MLflow (`wadgym train --track`, `wadgym eval --track`, `wadgym runs --tracking-uri`,
`wadgym track-sync`; wired in wadgym.cli). Needs the `track` extra: pip install 'wadgym[track]'.

A tracked run is still a run folder; MLflow holds a copy of what makes it reproducible, in one MLflow run:
params (the resolved config.yml flattened, the command line, package versions, git commit), tags (run
folder, host, status, lineage), the code (code.diff: the `git diff` of the checkout against its commit,
untracked files included, empty when clean; a task family given as a file), metrics against env steps
(what SB3's or RLlib's logger records at each rollout or iteration, live; every episode's score, return and
length and the final evaluation at the end), and artifacts (model, VecNormalize statistics, learning curve,
videos, config.yml, meta.json, metrics.json, levels.json: the WAD digests of the levels trained on), and
the policy as an MLflow Model (log_policy_model: the pyfunc flavour of agents/mlflow_policy.py over the
ONNX export, else SB3's model; register_model puts it in the Model Registry).

The store is, first found: --tracking-uri, $MLFLOW_TRACKING_URI, else an embedded SQLite store beside the
run folders (<runs>/mlflow.db, artifacts under <runs>/mlartifacts), with no server to start. The run
folder gains tracking.json: the store, the MLflow run id and whether the folder is fully uploaded.

A server that cannot be reached when a run starts is an error before anything trains; one that goes away
while it trains stops the tracking, not the training: the run finishes in its folder, tracking.json says
"synced": false, and `wadgym track-sync RUN` uploads it later (sync: what is missing, never twice).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

INSTALL_HINT = "pip install 'wadgym[track]'"
TRACKING_FILE = "tracking.json"
DIFF_FILE = "code.diff"
LEVELS_FILE = "levels.json"
MAX_UNTRACKED_BYTES = 1_000_000  # an untracked file larger than this is named in code.diff, not copied
PARAM_VALUE_LIMIT = 6000  # MLflow's limit on a param's value
# Fail fast when a server is gone (MLflow's defaults retry for minutes); the user's settings win.
# MLflow's "View run at" line after each status change is left out: `begin` prints the run's page once.
HTTP_SETTINGS = {"MLFLOW_HTTP_REQUEST_MAX_RETRIES": "2", "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR": "1",
                 "MLFLOW_HTTP_REQUEST_TIMEOUT": "20", "MLFLOW_SUPPRESS_PRINTING_URL_TO_STDOUT": "true"}
# Set before `import mlflow` (its usage telemetry starts at import; the user's setting wins). MLflow 3.17's
# telemetry thread adds and deletes an environment variable while requests' threads read os.environ: on a
# machine that cannot reach its endpoint, calls to a tracking server failed now and then with
# KeyError: '_MLFLOW_TELEMETRY_SESSION_ID'.
IMPORT_SETTINGS = {"MLFLOW_DISABLE_TELEMETRY": "true"}
STATUS = {"finished": "FINISHED", "failed": "FAILED", "interrupted": "KILLED"}
# The MLflow UI shows an experiment of this kind as model training (runs, charts), not as GenAI traces.
EXPERIMENT_TAGS = {"mlflow.experimentKind": "custom_model_development"}
KIND_TAG = "wadgym.kind"  # "train" or "eval" (nested evaluation runs)


class TrackingError(ValueError):
    """The tracking store cannot be used (unreachable, no such run): the message says what and how to fix."""


# -- the store -----------------------------------------------------------------------------------------

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


# -- what a run records --------------------------------------------------------------------------------

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


def read_tracking(run_dir: Path) -> dict[str, Any]:
    path = Path(run_dir) / TRACKING_FILE
    return json.loads(path.read_text()) if path.is_file() else {}


def write_tracking(run_dir: Path, record: dict[str, Any]) -> None:
    from wadgym.files import write_atomic

    write_atomic(Path(run_dir) / TRACKING_FILE, (json.dumps(record, indent=2) + "\n").encode())


# -- a tracked training run ----------------------------------------------------------------------------

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
        values = {key: float(value) for key, value in metrics.items() if _is_number(value)}
        if not values:
            return
        try:
            _log_metrics(self.client, self.run_id, [(key, value, step, None) for key, value in values.items()])
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
    run_id = _existing_run(mlflow_client, recorded, uri)
    if run_id is None:
        versions = installed_versions(("wadgym", "vizdoom", "gymnasium", "torch", "stable-baselines3", "ray",
                                       "mlflow", "numpy"))
        run_id = _create_run(mlflow_client, run_dir, config, uri, command_line(), versions, git)
    else:
        mlflow_client.update_run(run_id, status="RUNNING")
        mlflow_client.set_tag(run_id, "wadgym.status", "running")
    write_tracking(run_dir, {"tracking_uri": uri, "run_id": run_id, "experiment": _experiment_name(config),
                             "synced": False, "uploaded": recorded.get("uploaded", {}) if run_id == recorded.get(
                                 "run_id") else {}})
    if diff is not None:
        mlflow_client.log_artifact(run_id, str(run_dir / DIFF_FILE), "code")
    env_file = Path(config["env"])
    if env_file.suffix == ".py" and env_file.is_file():  # a task family given as a file
        mlflow_client.log_artifact(run_id, str(env_file), "code")
    page = f"; page: {uri.rstrip('/')}/#/experiments/{mlflow_client.get_run(run_id).info.experiment_id}/runs/{run_id}"
    print(f"tracking: MLflow run {run_id} at {_display(uri)}{page if not is_local(uri) else ''}", flush=True)
    return Tracker(run_dir, uri, run_id)


def _existing_run(mlflow_client, recorded: dict[str, Any], uri: str) -> str | None:
    """The run tracking.json names, when the store at `uri` holds it."""
    run_id = recorded.get("run_id")
    if not run_id:
        return None
    try:
        mlflow_client.get_run(run_id)
    except Exception:  # noqa: BLE001 - another store: a new run there
        return None
    return run_id


def _experiment_name(config: dict[str, Any]) -> str:
    return os.environ.get("MLFLOW_EXPERIMENT_NAME") or str(config["env"])


def _create_run(mlflow_client, run_dir: Path, config: dict[str, Any], uri: str, command: str,
                versions: dict[str, Any], git: dict[str, Any]) -> str:
    from wadgym.envs.registration import score_name

    tags = {KIND_TAG: "train", "wadgym.run_dir": str(run_dir.resolve()), "wadgym.host": socket.gethostname(),
            "wadgym.backend": config.get("backend", "sb3"), "wadgym.status": "running",
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
    if config.get("pretrain"):  # behaviour cloning's dataset (agents.pretrain); its size and source are params
        tags["wadgym.pretrain_dataset"] = str(config["pretrain"].get("dataset"))
    run = mlflow_client.create_run(experiment_id(mlflow_client, _experiment_name(config), uri),
                                   run_name=run_dir.name, tags=tags)
    _log_params(mlflow_client, run.info.run_id, run_params(config, command, versions, git))
    return run.info.run_id


def _display(uri: str) -> str:
    return f"{uri} (mlflow ui --backend-store-uri {uri})" if is_local(uri) else uri


def _is_number(value: Any) -> bool:
    import numbers

    return isinstance(value, numbers.Number) and not isinstance(value, bool) and value == value


def _log_params(mlflow_client, run_id: str, params: dict[str, str]) -> None:
    from mlflow.entities import Param

    items = [Param(key, value) for key, value in params.items()]
    for start in range(0, len(items), 100):  # MLflow takes at most 100 params per batch
        mlflow_client.log_batch(run_id, params=items[start:start + 100])


def _log_metrics(mlflow_client, run_id: str, points: list[tuple[str, float, int, float | None]]) -> None:
    """(key, value, step, time in seconds or None for now) points, in batches of MLflow's limit."""
    from mlflow.entities import Metric

    now = int(time.time() * 1000)
    metrics = [Metric(key, float(value), now if t is None else int(t * 1000), int(step))
               for key, value, step, t in points]
    for start in range(0, len(metrics), 1000):
        mlflow_client.log_batch(run_id, metrics=metrics[start:start + 1000])


# -- uploading a run folder ----------------------------------------------------------------------------

ARTIFACTS = ("model.zip", "vecnormalize.pkl", "learning_curve.png", "config.yml", "meta.json", "metrics.json",
             "command.txt", LEVELS_FILE, "pretrain.json")


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
    run_id = _existing_run(mlflow_client, recorded, uri)
    if run_id is None:  # trained without --track, or tracked in another store
        command = (run_dir / "command.txt").read_text().splitlines()[0] if (run_dir / "command.txt").is_file() else ""
        run_id = _create_run(mlflow_client, run_dir, config, uri, command, meta.get("versions") or
                             installed_versions(("wadgym",)), meta.get("git") or git_info())
        recorded = {"uploaded": {}}
        if (run_dir / DIFF_FILE).is_file():
            mlflow_client.log_artifact(run_id, str(run_dir / DIFF_FILE), "code")
    recorded.update(tracking_uri=uri, run_id=run_id, experiment=_experiment_name(config))
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
        print(f"uploaded {run_dir} to MLflow run {run_id} at {_display(uri)}")
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
        t = started + episode["time"] if started is not None and _is_number(episode.get("time")) else None
        for key in ("score", "return", "length"):
            if _is_number(episode.get(key)):
                points.append((f"episode/{key}", episode[key], episode["timesteps"], t))
    for tag, events in _logged_scalars(run_dir / "tb").items():
        last = _last_step(mlflow_client, run_id, tag)
        points.extend((tag, value, step, wall) for step, value, wall in events if step > last)
    steps = int(meta.get("timesteps") or 0)
    for key in ("timesteps", "wall_time_s", "steps_per_second"):
        if _is_number(meta.get(key)):
            points.append((key, meta[key], steps, None))
    metrics = runfolder.read_json(run_dir / "metrics.json") if (run_dir / "metrics.json").is_file() else {}
    evaluation = metrics.get("eval") or {}
    points.extend((key, value, steps, None) for key, value in evaluation_metrics(evaluation).items())
    _log_metrics(mlflow_client, run_id, points)
    if isinstance(evaluation.get("trained"), dict) and isinstance(evaluation.get("random"), dict):
        _log_table(mlflow_client, run_id, evaluation_table(evaluation))


def _log_table(mlflow_client, run_id: str, table: dict[str, list]) -> None:
    """The evaluation as an MLflow table (the run page's Evaluation tab): evaluation.json."""
    import warnings

    with warnings.catch_warnings():  # MLflow's own use of pandas, deprecated in pandas 3: not the user's
        warnings.simplefilter("ignore")
        mlflow_client.log_table(run_id, data=table, artifact_file="evaluation.json")


def evaluation_metrics(evaluation: dict[str, Any], prefix: str = "eval") -> dict[str, float]:
    """eval/<policy>/<score_mean ...> of a compare_with_random result (and the score ratio); a self-play
    evaluation's eval/vs_random/<trained_items ...> likewise: the numbers of each section; training's final
    evaluation adds eval/<split>/<policy>/<score_mean ...> for each level split it played."""
    values = {}
    for section, numbers in evaluation.items():
        if not isinstance(numbers, dict):
            continue
        for key, value in numbers.items():
            if _is_number(value):
                values[f"{prefix}/{section}/{key}"] = float(value)
    if _is_number(evaluation.get("score_ratio")):
        values[f"{prefix}/score_ratio"] = float(evaluation["score_ratio"])
    for split, players in (evaluation.get("splits") or {}).items():
        for player, summary in players.items():
            values.update({f"{prefix}/{split}/{player}/{key}": float(value) for key, value in summary.items()
                           if _is_number(value)})
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


# -- the policy as an MLflow Model ---------------------------------------------------------------------

MODEL_NAME = "policy"  # the logged model's name in its MLflow run
POLICY_CODE = Path(__file__).with_name("mlflow_policy.py")  # the pyfunc flavour's code (models from code)


def log_policy_model(run_dir: Path, uri: str, run_id: str) -> dict[str, Any] | None:
    """Log the run folder's final policy to MLflow run `run_id` as an MLflow Model (the pyfunc flavour of
    agents/mlflow_policy.py: observations -> actions) over its ONNX export, else (a policy that does not
    export) over SB3's model.zip; with its signature, a real observation as input example and the pip
    requirements of what loads it. Returns {"model_id", "uri", "over"} (None: no final model to log,
    or a self-play run's several players)."""
    import numpy as np

    from wadgym.agents import runfolder
    from wadgym.agents.export import export_onnx
    from wadgym.agents.policy import SavedPolicy
    from wadgym.agents.system import installed_versions

    run_dir = Path(run_dir)
    if not any((run_dir / name).exists() for name in ("model.zip", "model")):
        return None
    if runfolder.load_config(run_dir).get("selfplay"):
        return None
    mlflow = require_mlflow()
    from mlflow.models import infer_signature

    saved = SavedPolicy(run_dir, device="cpu", deterministic=True)
    example = _example_observation(saved)
    with tempfile.TemporaryDirectory(prefix="wadgym-model-") as folder:
        model_config: dict[str, Any] = {}
        try:
            artifacts = {"onnx": str(export_onnx(run_dir, Path(folder) / "policy.onnx"))}
            over, packages = "onnx", ("numpy", "onnxruntime")
        except ValueError:  # a recurrent policy or one that no ONNX graph of ours holds: SB3's own model
            if saved.config.get("backend") == "rllib" or saved.model_file.suffix != ".zip":
                return None
            over, artifacts = "sb3", {"sb3_model": str(saved.model_file)}
            if saved.vec_normalize is not None:  # the statistics as numbers, not VecNormalize's pickle
                stats = Path(folder) / "obs_normalization.npz"
                rms = saved.vec_normalize.obs_rms
                np.savez(stats, mean=rms.mean, var=rms.var, epsilon=np.float64(saved.vec_normalize.epsilon),
                         clip=np.float64(saved.vec_normalize.clip_obs))
                artifacts["obs_normalization"] = str(stats)
            cls = type(saved.model)
            model_config = {"sb3_class": f"{cls.__module__}.{cls.__qualname__}", "recurrent": saved.recurrent}
            packages = ("numpy", "torch", "gymnasium", "stable-baselines3", "wadgym") + (
                ("sb3-contrib",) if cls.__module__.startswith("sb3_contrib") else ())
        versions = installed_versions(packages)
        requirements = [f"{name}=={version}" if version else name for name, version in versions.items()]
        signature = infer_signature(example, np.zeros(len(example), dtype=np.int64))
        metadata = {"wadgym.env": saved.env_id, "wadgym.frame_stack": saved.frame_stack, "wadgym.over": over,
                    "wadgym.obs_layout": "uint8 (batch, C*frame_stack, H, W), oldest frame first",
                    "wadgym.action": "int64 (batch,): the argmax action"}
        with _fluent_store(mlflow, uri):
            mlflow_client = client(uri)
            status = mlflow_client.get_run(run_id).info.status
            mlflow.start_run(run_id=run_id)
            try:
                info = mlflow.pyfunc.log_model(
                    name=MODEL_NAME, python_model=str(POLICY_CODE), artifacts=artifacts,
                    model_config=model_config or None, signature=signature, input_example=example,
                    pip_requirements=requirements, metadata=metadata)
            finally:
                mlflow.end_run()
                mlflow_client.update_run(run_id, status=status)  # as it was: sync sets the run's own status
    return {"model_id": info.model_id, "uri": info.model_uri, "over": over}


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
        with _fluent_store(mlflow, record["tracking_uri"]):
            version = mlflow.register_model(model["uri"], name).version
    except Exception as exc:  # noqa: BLE001 - the store's answer (an invalid name, no registry), as one line
        raise TrackingError(f"--register {name}: MLflow at {record['tracking_uri']} did not register "
                            f"{model['uri']} ({str(exc).splitlines()[0][:300]})") from None
    registered[name] = str(version)
    write_tracking(run_dir, {**record, "model": {**model, "registered": registered}})
    print(f"registered the policy of {run_dir} as {name} version {version}: models:/{name}/{version}", flush=True)
    return str(version)


@contextlib.contextmanager
def _fluent_store(mlflow, uri: str):
    """MLflow's fluent API (log_model, register_model) on the store `uri` for the block; the tracking URI
    (and $MLFLOW_TRACKING_URI, which set_tracking_uri sets) as they were afterwards."""
    from mlflow.tracking._tracking_service import utils

    before, env = getattr(utils, "_tracking_uri", None), os.environ.get("MLFLOW_TRACKING_URI")
    mlflow.set_tracking_uri(uri)
    try:
        yield
    finally:
        mlflow.set_tracking_uri(before)
        if env is None:
            os.environ.pop("MLFLOW_TRACKING_URI", None)
        else:
            os.environ["MLFLOW_TRACKING_URI"] = env


def _example_observation(saved):
    """One real network input of the policy (uint8, before any VecNormalize statistics): the first
    observation of its env; zeros of the right shape where the env cannot be made here."""
    import numpy as np
    from stable_baselines3.common.vec_env import VecNormalize

    from wadgym.agents.vec import close_vec_env

    shape = tuple(saved.model.observation_space.shape)
    try:
        venv = saved.make_vec_env()
        try:
            observation = venv.reset()
            if isinstance(venv, VecNormalize):
                observation = venv.get_original_obs()
        finally:
            close_vec_env(venv)
        observation = np.asarray(observation)
        if observation.shape[1:] == shape and observation.dtype == np.uint8:
            return observation[:1].copy()
    except Exception:  # noqa: BLE001 - an env this machine cannot make: an example of the right shape
        pass
    return np.zeros((1, *shape), dtype=np.uint8)


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


# -- evaluations: nested runs --------------------------------------------------------------------------

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
    _log_params(mlflow_client, run_id, flatten({key: result.get(key) for key in
                                                ("episodes", "levels", "seeds", "deterministic", "model")}))
    steps = int(mlflow_client.get_run(parent).data.metrics.get("timesteps", 0))
    _log_metrics(mlflow_client, run_id, [(key, value, steps, None)
                                         for key, value in evaluation_metrics(result).items()])
    _log_table(mlflow_client, run_id, evaluation_table(result))
    mlflow_client.log_dict(run_id, result, "result.json")
    if video and Path(video).is_file():
        mlflow_client.log_artifact(run_id, str(video))
    mlflow_client.set_terminated(run_id, "FINISHED")
    return run_id


# -- listing -------------------------------------------------------------------------------------------

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
        "backend": data.params.get("backend", "sb3"),
        "date": time.strftime("%Y-%m-%d %H:%M", time.localtime(info.start_time / 1000)) if info.start_time else "",
        "status": {"finished": "done", "interrupted": "stopped"}.get(status, status),
    }


# -- lineage: --init-from and --reproduce --------------------------------------------------------------

def looks_like_run_id(text: str) -> bool:
    return len(text) == 32 and all(c in "0123456789abcdef" for c in text)


def resolve_init_from(source: str, uri: str | None) -> dict[str, Any]:
    """config.yml's init_from of `--init-from SOURCE`: a run folder (its final model, else its latest
    checkpoint) or an MLflow run id (its model.zip artifact); a ValueError when there is no SB3 model."""
    from wadgym.agents import runfolder

    path = Path(source)
    if (path / "config.yml").is_file():
        model = runfolder.model_path(path)
        if model.is_dir() or model.suffix != ".zip":
            raise ValueError(f"--init-from {source}: its model ({model.name}) is an RLlib model; "
                             "--init-from takes the weights of an SB3 run")
        return {"run": str(path.resolve()), "model": str(model.resolve()),
                "mlflow_run_id": read_tracking(path).get("run_id")}
    if not looks_like_run_id(source):
        raise ValueError(f"--init-from {source}: not a run folder (no config.yml) and not an MLflow run id "
                         "(32 hexadecimal digits)")
    uri = tracking_uri(uri, Path("runs"))
    check_store(uri)
    names = _artifact_names(client(uri), source, uri)
    if "model.zip" not in names:
        raise ValueError(f"--init-from {source}: the MLflow run has no model.zip artifact (it has: "
                         f"{', '.join(sorted(names)) or 'none'})")
    return {"run": source, "mlflow_run_id": source, "tracking_uri": uri}


@contextlib.contextmanager
def parent_model(init_from: dict[str, Any]):
    """The model file of a resolved init_from: the folder's, else downloaded from MLflow for the block."""
    local = init_from.get("model")
    if local and Path(local).is_file():
        yield Path(local)
        return
    if not init_from.get("mlflow_run_id"):
        raise ValueError(f"--init-from {init_from.get('run')}: {local} no longer exists")
    uri = init_from.get("tracking_uri") or tracking_uri(None, Path("runs"))
    with tempfile.TemporaryDirectory(prefix="wadgym-init-") as folder:
        yield Path(client(uri).download_artifacts(init_from["mlflow_run_id"], "model.zip", folder))


def _artifact_names(mlflow_client, run_id: str, uri: str) -> set[str]:
    try:
        return {Path(f.path).name for f in mlflow_client.list_artifacts(run_id)}
    except Exception as exc:  # noqa: BLE001
        raise TrackingError(f"MLflow at {uri} has no run {run_id} ({str(exc).splitlines()[0][:200]})") from None


def reproduce(source: str, uri: str | None = None) -> tuple[dict[str, Any], str]:
    """The configuration of the run `source` (a run folder or an MLflow run id) to train again, and a
    report: whether the code here differs from the code it ran (commit and code.diff) and how to get that."""
    from wadgym.agents import runfolder
    from wadgym.agents.config import read_yaml
    from wadgym.agents.system import code_root, git_info

    path = Path(source)
    with tempfile.TemporaryDirectory(prefix="wadgym-reproduce-") as folder:
        if (path / "config.yml").is_file():
            config = runfolder.load_config(path)
            meta = runfolder.read_json(path / "meta.json") if (path / "meta.json").is_file() else {}
            commit = (meta.get("git") or {}).get("commit")
            diff_file = path / DIFF_FILE if (path / DIFF_FILE).is_file() else None
        elif looks_like_run_id(source):
            uri = tracking_uri(uri, Path("runs"))
            check_store(uri)
            mlflow_client = client(uri)
            names = _artifact_names(mlflow_client, source, uri)
            if "config.yml" not in names:
                raise ValueError(f"--reproduce {source}: the MLflow run has no config.yml artifact")
            config = read_yaml(Path(mlflow_client.download_artifacts(source, "config.yml", folder)))
            commit = mlflow_client.get_run(source).data.tags.get("mlflow.source.git.commit")
            try:
                diff_file = Path(mlflow_client.download_artifacts(source, f"code/{DIFF_FILE}", folder))
            except Exception:  # noqa: BLE001 - a run synced without one
                diff_file = None
        else:
            raise ValueError(f"--reproduce {source}: not a run folder (no config.yml) and not an MLflow run id "
                             "(32 hexadecimal digits)")
        recorded_diff = diff_file.read_text() if diff_file is not None else None
        root = code_root()
        here = git_info(root)
        here_diff = code_diff(root) if here.get("commit") else None
        report = code_report(commit, recorded_diff, here.get("commit"), here_diff, source)
    if config.get("selfplay"):
        raise ValueError(f"--reproduce {source}: self-play runs cannot be reproduced with --reproduce yet")
    return {**config, "reproduces": source}, report


def code_report(commit: str | None, diff: str | None, here: str | None, here_diff: str | None, source: str) -> str:
    if commit is None:
        return f"code: {source} recorded no git commit; the code cannot be compared"
    if here == commit and (diff or "") == (here_diff or ""):
        return f"code: the same as {source} ran (commit {commit[:12]}{', same changes' if diff else ''})"
    differs = [f"commit {here[:12] if here else 'none'} here, {commit[:12]} recorded"] if here != commit else []
    if (diff or "") != (here_diff or ""):
        differs.append("uncommitted changes differ")
    restore = f"git checkout {commit}" + (f" && git apply {DIFF_FILE} (the run's {DIFF_FILE})" if diff else "")
    return f"code differs from what {source} ran ({'; '.join(differs)}); to run its code: {restore}"
