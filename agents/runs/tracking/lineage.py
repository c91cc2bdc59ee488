"""Lineage: a run started from another run's weights (`--init-from RUN`: resolve_init_from finds the parent's
model, in its folder or in MLflow, and parent_model hands it over while the new run is set up; the new MLflow
run is tagged with its parent) and a run trained again from its stored configuration (`--reproduce RUN`:
reproduce, with a report of whether the code here differs from the code it ran).
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path
from typing import Any

from wadgym.agents.runs.tracking.content import DIFF_FILE, code_diff
from wadgym.agents.runs.tracking.store import TrackingError, check_store, client, read_tracking, tracking_uri


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
    from wadgym.agents.config import read_yaml, run_backend
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
    if run_backend(config).name == "selfplay":
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
