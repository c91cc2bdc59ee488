"""Experiment tracking with MLflow (agents.runs.tracking), against real stores: the embedded SQLite store beside the
runs, and a real `mlflow server` started here on 127.0.0.1 (its own SQLite database and artifact folder),
one for the module, killed in the middle of a run by one test and started again. Every training is a tiny
real one; what was logged is read back through MLflow's own client."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from .conftest import ENV_ID, TINY

pytest.importorskip("mlflow", reason="needs pip install 'wadgym[track]'")

# Short episodes, so that a few hundred steps hold several; short rollouts, so that several are logged;
# two training levels, so that the final evaluation plays held-out test levels and the training levels.
TRACK_TINY = {**TINY, "n_steps": 32, "batch_size": 32,
              "env_kwargs": {**TINY["env_kwargs"], "max_episode_steps": 40, "num_levels": 2}}
PLAYERS = ("trained", "random", "scripted")
SERVER_START_S = 180  # the first start creates the database; the test machine is shared


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MlflowServer:
    """`mlflow server` in a process group of its own (it starts workers), on 127.0.0.1."""

    def __init__(self, folder: Path):
        self.folder, self.port, self.process = folder, free_port(), None

    @property
    def uri(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        import requests

        log = open(self.folder / "server.log", "ab")  # noqa: SIM115 - the server's, closed at stop
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mlflow", "server", "--host", "127.0.0.1", "--port", str(self.port),
             "--backend-store-uri", f"sqlite:///{self.folder / 'mlflow.db'}",
             "--artifacts-destination", str(self.folder / "artifacts"), "--workers", "1"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        deadline = time.monotonic() + SERVER_START_S
        while time.monotonic() < deadline:
            assert self.process.poll() is None, (self.folder / "server.log").read_text()[-3000:]
            try:
                if requests.get(self.uri + "/health", timeout=2).ok:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.5)
        self.stop()
        raise AssertionError(f"mlflow server did not answer within {SERVER_START_S} s")

    def kill(self) -> None:
        """SIGKILL, as a server that goes away: no goodbye to its clients."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.kill()
        # workers of the group that outlived their parent
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mlflow-server")
    srv = MlflowServer(folder)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def hyperparams(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("hyperparams") / "track.yml"
    path.write_text(yaml.safe_dump({ENV_ID: TRACK_TINY}))
    return path


@pytest.fixture(autouse=True)
def no_tracking_env(monkeypatch):
    for name in ("MLFLOW_TRACKING_URI", "MLFLOW_EXPERIMENT_NAME"):
        monkeypatch.delenv(name, raising=False)


def train(*argv: str) -> int:
    from wadgym.cli import main

    return main(["train", "--no-progress", "--seed", "1", "--device", "cpu", *argv])


def client(uri: str):
    from mlflow import MlflowClient

    return MlflowClient(tracking_uri=uri)


def tracked_run(run_dir: Path):
    record = json.loads((run_dir / "tracking.json").read_text())
    return record, client(record["tracking_uri"]).get_run(record["run_id"])


@pytest.fixture(scope="module")
def server_run(server, hyperparams, tmp_path_factory) -> Path:
    """A tracked training run sent to the module's server, with a final evaluation of 1 episode."""
    run_dir = tmp_path_factory.mktemp("runs") / "served"
    assert train("--env", ENV_ID, "--conf-file", str(hyperparams), "--run-dir", str(run_dir), "--eval-episodes", "1",
                 "--track", "--tracking-uri", server.uri) == 0
    return run_dir


def check_tracked(run_dir: Path, uri: str, tmp_path: Path):
    """What a finished tracked run holds in MLflow, read back with MLflow's client: its params, its metrics
    against env steps, its code, its model; returns the MLflow run."""
    from wadgym.agents import runfolder
    from wadgym.agents.runs.tracking.content import code_diff
    from wadgym.agents.system import code_root

    record, run = tracked_run(run_dir)
    assert record["tracking_uri"] == uri and record["synced"] is True
    mlflow_client = client(uri)
    config = runfolder.load_config(run_dir)
    params = run.data.params
    assert params["env"] == ENV_ID and params["seed"] == "1" and params["device"] == "cpu"
    assert params["hyperparams.n_steps"] == "32" and params["vec_env"] == config["vec_env"]
    assert params["hyperparams.env_kwargs.max_episode_steps"] == "40"
    assert params["command"] == (run_dir / "command.txt").read_text().splitlines()[0]
    assert params["versions.mlflow"] and params["versions.torch"]
    meta = runfolder.read_json(run_dir / "meta.json")
    assert params["git.commit"] == str(meta["git"]["commit"])
    assert run.info.status == "FINISHED" and run.data.tags["wadgym.status"] == "finished"
    assert run.data.tags["wadgym.run_dir"] == str(run_dir.resolve())

    # metrics against env steps: every episode, SB3's losses at each rollout, the final evaluation
    episodes = runfolder.read_episodes(run_dir)
    returns = mlflow_client.get_metric_history(run.info.run_id, "episode/return")
    assert len(episodes) >= 5 and [(m.step, m.value) for m in returns] == [
        (e["timesteps"], pytest.approx(e["return"])) for e in episodes]
    losses = mlflow_client.get_metric_history(run.info.run_id, "train/value_loss")
    assert len(losses) >= 2 and all(0 < m.step <= meta["timesteps"] for m in losses)
    evaluation = runfolder.read_json(run_dir / "metrics.json")["eval"]
    assert run.data.metrics["eval/trained/score_mean"] == pytest.approx(evaluation["trained"]["score_mean"])
    assert run.data.metrics["eval/random/score_mean"] == pytest.approx(evaluation["random"]["score_mean"])
    assert run.data.metrics["timesteps"] == meta["timesteps"]

    # the final evaluation: trained, random and scripted on the test and the training levels, as metrics
    # and as a table (policy x levels)
    splits = evaluation["splits"]
    assert evaluation["levels"] == "test" and set(splits) == {"test", "train"}
    for split in ("test", "train"):
        for player in PLAYERS:
            for key in ("score_mean", "score_std", "return_mean", "length_mean"):
                logged = run.data.metrics[f"eval/{split}/{player}/{key}"]
                assert logged == pytest.approx(splits[split][player][key])
    assert run.data.metrics["eval/scripted/score_mean"] == pytest.approx(splits["test"]["scripted"]["score_mean"])
    table = json.loads(Path(mlflow_client.download_artifacts(run.info.run_id, "evaluation.json",
                                                             str(tmp_path))).read_text())
    rows = [dict(zip(table["columns"], row)) for row in table["data"]]
    assert [(r["levels"], r["policy"]) for r in rows] == [(s, p) for s in ("test", "train") for p in PLAYERS]
    for r in rows:
        summary = splits[r["levels"]][r["policy"]]
        assert r["episodes"] == 1 and r["score_mean"] == pytest.approx(summary["score_mean"])
        assert r["length_mean"] == pytest.approx(summary["length_mean"])

    # code, model and the evaluation's video, byte for byte
    names = {f.path for f in mlflow_client.list_artifacts(run.info.run_id)}
    assert {"model.zip", "config.yml", "meta.json", "metrics.json", "learning_curve.png", "levels.json",
            "evaluation.json", "eval.mp4", "code"} <= names
    video = Path(mlflow_client.download_artifacts(run.info.run_id, "eval.mp4", str(tmp_path)))
    assert video.read_bytes() == (run_dir / "eval.mp4").read_bytes() and video.stat().st_size > 1000
    diff = Path(mlflow_client.download_artifacts(run.info.run_id, "code/code.diff", str(tmp_path)))
    assert diff.read_text() == code_diff(code_root())  # the same tree as when it trained (empty when clean)
    model = Path(mlflow_client.download_artifacts(run.info.run_id, "model.zip", str(tmp_path)))
    assert model.read_bytes() == (run_dir / "model.zip").read_bytes()
    levels = json.loads((run_dir / "levels.json").read_text())
    assert levels["env"] == ENV_ID and "start_level" in levels
    return run


def test_a_run_tracked_on_a_server_holds_its_code_model_and_metrics(server, server_run, tmp_path, capsys):
    run = check_tracked(server_run, server.uri, tmp_path)
    from wadgym.cli import main

    capsys.readouterr()
    assert main(["runs", "--tracking-uri", server.uri, "--env", ENV_ID, "--sort", "date"]) == 0
    table = capsys.readouterr().out
    row = next(line for line in table.splitlines() if run.info.run_id in line)
    assert row.split()[:2] == ["served", ENV_ID] and "done" in row.split()


def test_reproduce_trains_the_stored_configuration_into_the_local_store(server, server_run, tmp_path, capsys):
    """--reproduce RUN_ID (from the server) with --track and no --tracking-uri: the local store beside the runs."""
    from wadgym.agents import runfolder

    _, original = tracked_run(server_run)
    run_dir = tmp_path / "runs" / "again"
    capsys.readouterr()
    assert train("--reproduce", original.info.run_id, "--tracking-uri", server.uri, "--run-dir", str(run_dir),
                 "--eval-episodes", "1", "--no-video") == 0
    assert "code: the same as" in capsys.readouterr().out
    again = runfolder.load_config(run_dir)
    assert again.pop("reproduces") == original.info.run_id
    assert again == runfolder.load_config(server_run)
    assert not (run_dir / "tracking.json").exists()  # --tracking-uri alone does not track
    assert not (run_dir / "eval.mp4").exists() and "video" not in runfolder.read_json(run_dir / "metrics.json")

    local = tmp_path / "runs" / "local"
    assert train("--reproduce", str(server_run), "--run-dir", str(local), "--eval-episodes", "1", "--track") == 0
    assert (tmp_path / "runs" / "mlflow.db").is_file() and (tmp_path / "runs" / "mlartifacts").is_dir()
    uri = "sqlite:///" + str((tmp_path / "runs" / "mlflow.db").resolve())
    run = check_tracked(local, uri, tmp_path)
    assert run.data.tags["wadgym.reproduces"] == str(server_run)


def test_init_from_an_mlflow_run_starts_from_its_weights_and_records_the_parent(server, server_run, hyperparams,
                                                                                tmp_path):
    """A learning rate of 1e-12 leaves the weights as loaded: the child's final policy is the parent's."""
    import torch

    from wadgym.agents.policies.policy import SavedPolicy

    _, parent = tracked_run(server_run)
    run_dir = tmp_path / "child"
    assert train("--env", ENV_ID, "--conf-file", str(hyperparams), "--run-dir", str(run_dir), "--eval-episodes",
                 "0", "--hp", "learning_rate=1e-12", "--init-from", parent.info.run_id, "--track",
                 "--tracking-uri", server.uri) == 0
    _, child = tracked_run(run_dir)
    assert child.data.tags["wadgym.parent_run_id"] == parent.info.run_id
    assert child.data.params["init_from.mlflow_run_id"] == parent.info.run_id
    before = SavedPolicy(server_run).model.policy.state_dict()
    after = SavedPolicy(run_dir).model.policy.state_dict()
    assert before.keys() == after.keys()
    assert all(torch.allclose(before[k], after[k], rtol=1e-5, atol=1e-8) for k in before)


def test_eval_track_is_a_nested_run(server, server_run):
    from wadgym.cli import main

    assert main(["eval", str(server_run), "--episodes", "1", "--levels", "train", "--track"]) == 0
    _, parent = tracked_run(server_run)
    nested = client(server.uri).search_runs(
        [parent.info.experiment_id], f"tags.mlflow.parentRunId = '{parent.info.run_id}'")
    assert len(nested) == 1 and nested[0].data.tags["wadgym.kind"] == "eval"
    assert "eval/trained/score_mean" in nested[0].data.metrics and nested[0].data.params["levels"] == "train"


def test_resume_continues_the_same_mlflow_run(server, server_run):
    """--resume of a tracked run (here one that had reached its steps: a session that only saves) logs to
    the run it started, not a new one; no --track needed."""
    record, before = tracked_run(server_run)
    runs_before = client(server.uri).search_runs([before.info.experiment_id])
    assert train("--resume", str(server_run), "--eval-episodes", "0") == 0
    after_record, after = tracked_run(server_run)
    assert after_record["run_id"] == record["run_id"] and after.info.status == "FINISHED"
    assert len(client(server.uri).search_runs([before.info.experiment_id])) == len(runs_before)
    assert after.info.end_time >= before.info.end_time

    # from Python as well: wadgym.agents.train tracks a resumed tracked run into the same MLflow run
    import wadgym.agents

    result = wadgym.agents.train(wadgym.agents.TrainConfig(resume=server_run, eval_episodes=0, progress=False))
    assert result.status == "finished"
    again_record, again = tracked_run(server_run)
    assert again_record["run_id"] == record["run_id"] and again_record["synced"] is True
    assert again.info.status == "FINISHED" and again.info.end_time >= after.info.end_time
    assert len(client(server.uri).search_runs([before.info.experiment_id])) == len(runs_before)


def test_selfplay_training_is_tracked_with_its_params_metrics_and_model(tmp_path):
    """Self-play (one shared policy, every player a slot) with --track into an embedded store: 256 agent
    steps on two-player games, then its head-to-head evaluation; read back through MLflow's client."""
    pytest.importorskip("pettingzoo")
    from wadgym.agents import runfolder
    from wadgym.agents.runs.tracking.store import list_runs

    duel = "DoomItemsDuel-v0"
    conf = tmp_path / "duel.yml"
    conf.write_text(yaml.safe_dump({duel: {**TINY, "n_envs": 1, "n_timesteps": 256,
                                           "env_kwargs": {**TINY["env_kwargs"], "num_levels": 4, "max_steps": 40}}}))
    run_dir = tmp_path / "runs" / "duel"
    uri = "sqlite:///" + str(tmp_path / "store" / "mlflow.db")
    assert train("--env", duel, "--conf-file", str(conf), "--run-dir", str(run_dir), "--eval-episodes", "1",
                 "--track", "--tracking-uri", uri) == 0
    record, run = tracked_run(run_dir)
    assert record["tracking_uri"] == uri and record["synced"] is True
    assert run.info.status == "FINISHED" and run.data.tags["wadgym.status"] == "finished"
    assert run.data.tags["wadgym.kind"] == "train" and run.data.tags["wadgym.backend"] == "selfplay"
    params = run.data.params
    assert params["env"] == duel and params["selfplay"] == "true" and params["seed"] == "1"
    assert params["hyperparams.n_timesteps"] == "256" and params["hyperparams.env_kwargs.max_steps"] == "40"

    mlflow_client = client(uri)
    meta = runfolder.read_json(run_dir / "meta.json")
    evaluation = runfolder.read_json(run_dir / "metrics.json")["eval"]
    assert meta["timesteps"] >= 256 and run.data.metrics["timesteps"] == meta["timesteps"]
    assert run.data.metrics["eval/trained/score_mean"] == pytest.approx(evaluation["trained"]["score_mean"])
    assert run.data.metrics["eval/vs_random/random_score"] == pytest.approx(evaluation["vs_random"]["random_score"])
    episodes = runfolder.read_episodes(run_dir)
    scores = mlflow_client.get_metric_history(run.info.run_id, "episode/score")
    assert len(episodes) >= 2 and [(m.step, m.value) for m in scores] == [
        (e["timesteps"], pytest.approx(e["score"])) for e in episodes]
    assert mlflow_client.get_metric_history(run.info.run_id, "train/value_loss")
    model = Path(mlflow_client.download_artifacts(run.info.run_id, "model.zip", str(tmp_path)))
    assert model.read_bytes() == (run_dir / "model.zip").read_bytes()
    listed = list_runs(uri, duel)  # `wadgym runs --tracking-uri`
    assert [row["id"] for row in listed] == [run.info.run_id] and listed[0]["backend"] == "selfplay"


def test_an_unreachable_server_fails_before_anything_starts(tmp_path, capsys):
    run_dir = tmp_path / "never"
    assert train("--track", "--tracking-uri", f"http://127.0.0.1:{free_port()}", "--run-dir", str(run_dir)) == 2
    err = capsys.readouterr().err
    assert "no MLflow tracking server answers at http://127.0.0.1:" in err and "Traceback" not in err
    assert not run_dir.exists()


def test_without_mlflow_track_names_the_extra(tmp_path):
    code = ("import sys\nsys.modules['mlflow'] = None\nfrom wadgym.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    result = subprocess.run([sys.executable, "-c", code, "train", "--track", "--run-dir", str(tmp_path / "r")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert "pip install 'wadgym[track]'" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("setting, disabled", [(None, True), ("false", False)])
def test_mlflow_telemetry_is_off_unless_the_environment_turns_it_on(setting, disabled):
    """MLflow 3.17's telemetry thread deletes an environment variable while requests reads os.environ
    (KeyError '_MLFLOW_TELEMETRY_SESSION_ID' from calls to a server): wadgym turns it off before importing
    mlflow, and a user's own MLFLOW_DISABLE_TELEMETRY wins. (MLflow's own setting, as MLflow reads it.)"""
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_DISABLE_TELEMETRY"}
    if setting is not None:
        env["MLFLOW_DISABLE_TELEMETRY"] = setting
    code = ("from wadgym.agents.runs.tracking.store import require_mlflow\nrequire_mlflow()\n"
            "from mlflow.environment_variables import MLFLOW_DISABLE_TELEMETRY\n"
            "from mlflow.telemetry.client import get_telemetry_client\n"
            "print(MLFLOW_DISABLE_TELEMETRY.get(), get_telemetry_client() is None)\n")
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    told_off, no_client = result.stdout.split()
    assert told_off == str(disabled)
    if disabled:
        assert no_client == "True"


def test_code_diff_restores_staged_unstaged_and_untracked_changes(tmp_path):
    from wadgym.agents.runs.tracking.content import code_diff

    def git(folder, *args):
        subprocess.run(["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                       capture_output=True)

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "a.py").write_text("A = 1\n")
    (repo / "b.py").write_text("B = 1\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "first")
    assert code_diff(repo) == ""
    (repo / "a.py").write_text("A = 2\n")  # unstaged
    (repo / "b.py").write_text("B = 2\n")
    git(repo, "add", "b.py")  # staged
    (repo / "c.py").write_text("C = 3\n")  # untracked
    (repo / "blob.bin").write_bytes(bytes(range(256)))  # untracked, binary
    diff = code_diff(repo)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    (tmp_path / "code.diff").write_text(diff)
    git(clone, "apply", str(tmp_path / "code.diff"))
    for name in ("a.py", "b.py", "c.py", "blob.bin"):
        assert (clone / name).read_bytes() == (repo / name).read_bytes()
    assert code_diff(tmp_path / "clone" / ".git") is None  # not the top of a checkout


def test_a_server_killed_mid_run_loses_nothing_and_track_sync_uploads_it(server, hyperparams, tmp_path):
    """The server dies while the run trains (the training is paused meanwhile, so that it is mid-run for
    sure): training finishes, the folder is whole, and `wadgym track-sync RUN` uploads it to the server
    started again; a second sync adds nothing."""
    from wadgym.agents import runfolder

    run_dir = tmp_path / "killed"
    settings = {**TRACK_TINY, "n_timesteps": 512}
    conf = tmp_path / "longer.yml"
    conf.write_text(yaml.safe_dump({ENV_ID: settings}))
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("MLFLOW_TRACKING_URI", None)
    trainer = subprocess.Popen(
        [sys.executable, "-m", "wadgym.cli", "train", "--env", ENV_ID, "--conf-file", str(conf), "--run-dir",
         str(run_dir), "--eval-episodes", "0", "--no-progress", "--device", "cpu", "--track", "--tracking-uri",
         server.uri], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        mlflow_client = client(server.uri)
        deadline = time.monotonic() + 300
        record, recorded = {}, run_dir / "tracking.json"
        while time.monotonic() < deadline and trainer.poll() is None:
            record = json.loads(recorded.read_text()) if recorded.is_file() else {}
            if record.get("run_id") and mlflow_client.get_metric_history(record["run_id"], "time/fps"):
                break
            time.sleep(0.2)
        trainer.send_signal(signal.SIGSTOP)
        assert trainer.poll() is None, "training ended before its first rollout was seen"
        assert mlflow_client.get_run(record["run_id"]).info.status == "RUNNING"
        server.kill()
        trainer.send_signal(signal.SIGCONT)
        out, err = trainer.communicate(timeout=600)
    finally:
        if trainer.poll() is None:
            trainer.kill()
            trainer.wait()
        if server.process.poll() is not None:
            server.start()  # for the module's other tests, whatever happened
    assert trainer.returncode == 0, err[-3000:]
    assert f"wadgym track-sync {run_dir}" in err and "Traceback" not in err
    meta = runfolder.read_json(run_dir / "meta.json")
    assert meta["status"] == "finished" and meta["timesteps"] >= 512 and (run_dir / "model.zip").is_file()
    record = json.loads((run_dir / "tracking.json").read_text())
    assert record["synced"] is False

    from wadgym.cli import main

    assert main(["track-sync", str(run_dir), "--tracking-uri", server.uri]) == 0
    record = json.loads((run_dir / "tracking.json").read_text())
    assert record["synced"] is True
    run = mlflow_client.get_run(record["run_id"])
    assert run.info.status == "FINISHED"
    episodes = runfolder.read_episodes(run_dir)
    history = mlflow_client.get_metric_history(run.info.run_id, "episode/return")
    assert [m.step for m in history] == [e["timesteps"] for e in episodes]
    fps = [m.step for m in mlflow_client.get_metric_history(run.info.run_id, "time/fps")]
    assert fps == sorted(set(fps)) and max(fps) >= 512 - 64  # the rollouts logged after the kill came from tb/
    assert "model.zip" in {f.path for f in mlflow_client.list_artifacts(run.info.run_id)}
    assert main(["track-sync", str(run_dir)]) == 0  # nothing twice
    assert len(mlflow_client.get_metric_history(run.info.run_id, "episode/return")) == len(history)
    assert [m.step for m in mlflow_client.get_metric_history(run.info.run_id, "time/fps")] == fps
