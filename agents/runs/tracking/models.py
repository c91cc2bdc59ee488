"""A tracked run's final policy as an MLflow Model (log_policy_model: the pyfunc flavour of
agents/policies/mlflow_policy.py over the ONNX export, else over SB3's model), logged by sync with the run; and
MLflow's fluent API pointed at a store for a block (fluent_store), which logging and registering use.
Registering the model (agents.runs.tracking.runs.register_model) uploads the run first, so it stands above sync.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any

from wadgym.agents.runs.tracking.store import client, require_mlflow

MODEL_NAME = "policy"  # the logged model's name in its MLflow run
# The pyfunc flavour's code (models from code), beside this package in agents/.
POLICY_CODE = Path(__file__).parents[2] / "policies" / "mlflow_policy.py"


def log_policy_model(run_dir: Path, uri: str, run_id: str) -> dict[str, Any] | None:
    """Log the run folder's final policy to MLflow run `run_id` as an MLflow Model (the pyfunc flavour of
    agents/policies/mlflow_policy.py: observations -> actions) over its ONNX export, else (a policy that does not
    export) over SB3's model.zip; with its signature, a real observation as input example and the pip
    requirements of what loads it. Returns {"model_id", "uri", "over"} (None: no final model to log,
    or a self-play run's several players)."""
    import numpy as np

    from wadgym.agents import runfolder
    from wadgym.agents.config import run_backend
    from wadgym.agents.policies.export import export_onnx
    from wadgym.agents.policies.policy import SavedPolicy
    from wadgym.agents.system import installed_versions

    run_dir = Path(run_dir)
    if not any((run_dir / name).exists() for name in ("model.zip", "model")):
        return None
    if run_backend(runfolder.load_config(run_dir)).multi_agent:
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
            if saved.backend.name == "rllib" or saved.model_file.suffix != ".zip":
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
        with fluent_store(mlflow, uri):
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


@contextlib.contextmanager
def fluent_store(mlflow, uri: str):
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
