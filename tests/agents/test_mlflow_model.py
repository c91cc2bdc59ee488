"""A tracked run's policy as an MLflow Model (runs.tracking.models.log_policy_model, policies/mlflow_policy.py):
logged with each tracked run, registered with --register, loaded with mlflow.pyfunc.load_model and served
by a real `mlflow models serve` on 127.0.0.1; every training is a tiny real one, into an embedded store."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

from .conftest import ENV_ID, TINY

pytest.importorskip("mlflow", reason="needs pip install 'wadgym[track]'")

NAME = "wadgym-test-policy"
SERVE_START_S = 240  # bounded wait for the model server to answer /ping (a shared test machine)


@pytest.fixture(autouse=True)
def no_tracking_env(monkeypatch):
    for name in ("MLFLOW_TRACKING_URI", "MLFLOW_EXPERIMENT_NAME", "MLFLOW_REGISTRY_URI"):
        monkeypatch.delenv(name, raising=False)


def train(*argv: str) -> int:
    from wadgym.cli import main

    return main(["train", "--no-progress", "--seed", "1", "--device", "cpu", "--eval-episodes", "0", "--no-video",
                 *argv])


def store(folder: Path) -> str:
    return "sqlite:///" + str(folder / "store" / "mlflow.db")


def client(uri: str):
    from mlflow import MlflowClient

    return MlflowClient(tracking_uri=uri)


@pytest.fixture(scope="module")
def registered_run(tmp_path_factory, tiny_hyperparams) -> tuple[Path, str]:
    """A tiny tracked run whose policy `wadgym train --register NAME` put in the Model Registry."""
    folder = tmp_path_factory.mktemp("mlflow-model")
    run_dir, uri = folder / "runs" / "tiny", store(folder)
    assert train("--env", ENV_ID, "--conf-file", str(tiny_hyperparams), "--run-dir", str(run_dir), "--track",
                 "--tracking-uri", uri, "--register", NAME) == 0
    return run_dir, uri


@pytest.fixture(scope="module")
def observations(registered_run):
    """Network inputs (uint8, stacked, channel-first) recorded while the run's policy plays, and the
    actions the policy (deterministic) gives them."""
    from wadgym.agents.policies.policy import SavedPolicy

    policy = SavedPolicy(registered_run[0], deterministic=True)
    inputs = policy.recorded_inputs(seed=5)
    return inputs, policy.act(inputs)


def test_a_tracked_run_logs_its_policy_as_a_registered_mlflow_model(registered_run, observations):
    import mlflow

    run_dir, uri = registered_run
    record = json.loads((run_dir / "tracking.json").read_text())
    model = record["model"]
    assert model["over"] == "onnx" and model["registered"] == {NAME: "1"}
    mlflow_client = client(uri)
    logged = mlflow_client.get_logged_model(model["model_id"])
    assert logged.source_run_id == record["run_id"] and logged.name == "policy"
    run = mlflow_client.get_run(record["run_id"])
    assert [m.model_id for m in run.outputs.model_outputs] == [model["model_id"]]  # the run page's logged model
    assert run.info.status == "FINISHED"  # logging the model left the run's status as it was
    version = mlflow_client.get_model_version(NAME, "1")
    assert model["model_id"] in version.source and version.run_id == record["run_id"]

    # MLflow's own loader plays it: the same actions as the run's policy, on observations from the game
    mlflow.set_tracking_uri(uri)
    try:
        loaded = mlflow.pyfunc.load_model(f"models:/{NAME}/1")
    finally:
        mlflow.set_tracking_uri(None)
    inputs, actions = observations
    assert len(inputs) > 20 and inputs.std() > 0
    spec = loaded.metadata.signature.inputs.inputs[0]
    assert spec.type == np.dtype(np.uint8) and spec.shape == (-1, *inputs.shape[1:])
    assert loaded.metadata.signature.outputs.inputs[0].type == np.dtype(np.int64)
    np.testing.assert_array_equal(loaded.predict(inputs), actions)
    example = np.asarray(loaded.input_example)
    assert example.dtype == np.uint8 and example.shape == (1, *inputs.shape[1:]) and example.std() > 0


def test_the_onnx_model_loads_without_unpickling_torch_sb3_or_wadgym(registered_run, observations, tmp_path):
    """The safe way to share a policy: in a fresh process where pickle refuses to load anything and torch,
    stable_baselines3 and wadgym cannot be imported, MLflow loads and plays the model (its code, a plain
    .py file, and its ONNX graph) from a folder downloaded from the store."""
    import mlflow

    run_dir, uri = registered_run
    model_id = json.loads((run_dir / "tracking.json").read_text())["model"]["model_id"]
    mlflow.set_tracking_uri(uri)
    try:
        folder = Path(mlflow.artifacts.download_artifacts(f"models:/{model_id}", dst_path=str(tmp_path / "model")))
    finally:
        mlflow.set_tracking_uri(None)
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert "artifacts/policy.onnx" in files and "mlflow_policy.py" in files
    assert not [f for f in files if f.endswith((".pkl", ".pickle", ".zip"))], files
    inputs, actions = observations
    np.save(tmp_path / "inputs.npy", inputs[:16])
    code = (
        "import pickle, sys\n"
        "def refuse(*args, **kwargs):\n"
        "    raise RuntimeError('unpickling refused')\n"
        "pickle.load = pickle.loads = refuse\n"
        "pickle.Unpickler = refuse\n"
        "for name in ('torch', 'stable_baselines3', 'sb3_contrib', 'wadgym'):\n"
        "    sys.modules[name] = None\n"
        "import numpy as np, mlflow.pyfunc, cloudpickle\n"
        "assert cloudpickle.load is refuse and cloudpickle.loads is refuse\n"
        f"model = mlflow.pyfunc.load_model({str(folder)!r})\n"
        f"print(' '.join(map(str, model.predict(np.load({str(tmp_path / 'inputs.npy')!r})))))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_TRACKING")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert [int(a) for a in done.stdout.split()] == [int(a) for a in actions[:16]]


def test_track_sync_registers_the_logged_model_without_logging_it_again(registered_run):
    from wadgym.cli import main

    run_dir, uri = registered_run
    mlflow_client = client(uri)
    record = json.loads((run_dir / "tracking.json").read_text())
    experiment = mlflow_client.get_run(record["run_id"]).info.experiment_id
    assert main(["track-sync", str(run_dir), "--register", NAME + "-2"]) == 0
    assert main(["track-sync", str(run_dir), "--register", NAME + "-2"]) == 0  # once per model and name
    assert len(mlflow_client.search_logged_models(experiment_ids=[experiment])) == 1
    versions = mlflow_client.search_model_versions(f"name = '{NAME}-2'")
    assert [str(v.version) for v in versions] == ["1"] and record["model"]["model_id"] in versions[0].source


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_mlflow_models_serve_answers_an_observation_with_the_policys_action(registered_run, observations, tmp_path):
    """`mlflow models serve` of the registered model, a real server on 127.0.0.1: POST /invocations with
    observations, get the actions the run's policy gives them."""
    import requests

    _, uri = registered_run
    port, log_path = free_port(), tmp_path / "serve.log"
    # MLflow starts `uvicorn` by name: the environment's bin folder first on PATH, as an activated venv has it
    env = {**os.environ, "MLFLOW_TRACKING_URI": uri,
           "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    with open(log_path, "wb") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "mlflow", "models", "serve", "-m", f"models:/{NAME}/1", "--env-manager", "local",
             "-h", "127.0.0.1", "-p", str(port)], stdout=log, stderr=subprocess.STDOUT, env=env, cwd=tmp_path,
            start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline, ready = time.monotonic() + SERVE_START_S, False
        while not ready and time.monotonic() < deadline:
            assert server.poll() is None, f"mlflow models serve exited:\n{log_path.read_text()[-3000:]}"
            try:
                ready = requests.get(base + "/ping", timeout=5).ok
            except requests.RequestException:
                time.sleep(0.5)
        assert ready, f"mlflow models serve did not answer /ping within {SERVE_START_S} s:\n" \
                      f"{log_path.read_text()[-3000:]}"
        inputs, actions = observations
        for rows in (slice(0, 1), slice(0, 8)):  # one observation, then a batch
            response = requests.post(base + "/invocations", json={"inputs": inputs[rows].tolist()}, timeout=60)
            assert response.status_code == 200, response.text[:2000]
            assert response.json()["predictions"] == [int(a) for a in actions[rows]]
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait(timeout=30)
        try:  # workers of the group that outlived their parent
            os.killpg(server.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_recurrent_policy_is_logged_over_sb3s_model(tmp_path):
    """RecurrentPPO does not export to ONNX: its MLflow Model is over SB3's model.zip, reads the rows as
    one episode's consecutive observations and gives the actions the policy gives them step by step."""
    import mlflow

    from wadgym.agents.policies.policy import SavedPolicy

    conf = tmp_path / "recurrent.yml"
    conf.write_text(yaml.safe_dump({ENV_ID: {**TINY, "n_timesteps": 128, "policy_kwargs": TINY["policy_kwargs"]
                                             .replace("net_arch=[]", "net_arch=[], lstm_hidden_size=16")}}))
    run_dir, uri = tmp_path / "runs" / "lstm", store(tmp_path)
    assert train("--env", ENV_ID, "--algo", "recurrent_ppo", "--conf-file", str(conf), "--run-dir", str(run_dir),
                 "--track", "--tracking-uri", uri) == 0
    model = json.loads((run_dir / "tracking.json").read_text())["model"]
    assert model["over"] == "sb3" and "registered" not in model
    mlflow.set_tracking_uri(uri)
    try:
        loaded = mlflow.pyfunc.load_model(model["uri"])
    finally:
        mlflow.set_tracking_uri(None)
    policy = SavedPolicy(run_dir, deterministic=True)
    inputs = policy.recorded_inputs(seed=2)[:40]
    state, expected = None, []
    for step, row in enumerate(inputs):
        action, state = policy.predict(row[None], state=state, episode_start=np.array([step == 0]))
        expected.append(int(action[0]))
    assert loaded.predict(inputs).tolist() == expected


def test_register_needs_track(tmp_path, capsys):
    run_dir = tmp_path / "never"
    assert train("--register", NAME, "--run-dir", str(run_dir)) == 2
    err = capsys.readouterr().err
    assert "--register" in err and "--track" in err and not run_dir.exists()
