"""`wadgym train --backend rllib` end to end on a real two-node Ray cluster and on a Ray instance of its
own: env runners on both nodes, the run folder, eval/runs/export on it, a failing env runner, Ctrl-C
and --resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import yaml

from wadgym.agents import runfolder
from wadgym.cli import main

from .conftest import ENV_ID, FAILING_ENV_ID


def train_args(hyperparams, run, *extra):
    return ["train", "--backend", "rllib", "--conf-file", str(hyperparams), "--run-dir", str(run),
            "--no-progress", "--seed", "3", *extra]


@pytest.fixture(scope="module")
def cluster_run(cluster, hyperparams, tmp_path_factory):
    """A few iterations on the two-node cluster, one env runner per node, then the final evaluation;
    tracked in MLflow's local store beside the run."""
    run = tmp_path_factory.mktemp("runs") / "two_nodes"
    rc = main(train_args(hyperparams, run, "--env", ENV_ID, "--address", cluster.address, "--num-env-runners", "2",
                         "--envs-per-runner", "1", "--save-freq", "128", "--eval-episodes", "2", "--track"))
    assert rc == 0
    return run


def test_env_runners_on_both_nodes_collected_episodes(cluster, cluster_run):
    meta = json.loads((cluster_run / "meta.json").read_text())
    nodes = {node["node_id"] for node in meta["cluster"]["nodes"]}
    assert len(nodes) == 2 and all(n["resources"]["CPU"] >= 1 for n in meta["cluster"]["nodes"])
    bundles = meta["cluster"]["bundles_to_node_id"]  # 0: the trainer, 1 and 2: the env runners (SPREAD)
    assert bundles["1"] != bundles["2"] and set(bundles.values()) == nodes
    episodes = runfolder.read_episodes(cluster_run)  # the run's Monitor file, as SB3 training writes
    assert {e["node"] for e in episodes} == nodes  # recorded by the env runners themselves
    assert {str(e["env_runner"]) for e in episodes} == {"1", "2"}
    assert all(int(e["length"]) == 40 and e["score"] not in ("", None) for e in episodes)


def test_the_run_is_tracked_in_mlflow(cluster_run, tmp_path):
    """RLlib's scalars against env steps as it trained, every episode, the model folder, the params."""
    from mlflow import MlflowClient

    record = json.loads((cluster_run / "tracking.json").read_text())
    assert record["tracking_uri"] == f"sqlite:///{(cluster_run.parent / 'mlflow.db').resolve()}" and record["synced"]
    client = MlflowClient(record["tracking_uri"])
    run = client.get_run(record["run_id"])
    assert run.info.status == "FINISHED" and run.data.params["backend"] == "rllib"
    assert run.data.params["rllib.num_env_runners"] == "2" and run.data.tags["wadgym.backend"] == "rllib"
    steps = [m.step for m in client.get_metric_history(run.info.run_id, "time/steps_per_second")]
    assert steps and steps == sorted(steps) and steps[-1] >= 256
    episodes = client.get_metric_history(run.info.run_id, "episode/return")
    assert len(episodes) == len(runfolder.read_episodes(cluster_run))
    assert "eval/trained/score_mean" in run.data.metrics and "eval/train/scripted/score_mean" in run.data.metrics
    artifacts = {f.path for f in client.list_artifacts(run.info.run_id, "model")}
    assert "model/rllib_checkpoint.json" in artifacts
    assert "eval.mp4" in {f.path for f in client.list_artifacts(run.info.run_id)}


def test_run_folder_is_complete(cluster_run):
    for name in ("config.yml", "command.txt", "meta.json", "metrics.json", "train_1.monitor.csv",
                 "learning_curve.png", "eval.mp4"):
        assert (cluster_run / name).is_file(), name
    assert (cluster_run / "model" / "rllib_checkpoint.json").is_file()
    assert sorted(p.name for p in (cluster_run / "checkpoints").iterdir()) == ["model_256_steps",
                                                                           "model_256_steps.monitor.json"]
    assert list((cluster_run / "tb").rglob("events.out.tfevents.*"))
    config = yaml.safe_load((cluster_run / "config.yml").read_text())
    assert config["backend"] == "rllib" and config["hyperparams"]["n_envs"] == 2
    assert config["rllib"] == {"num_env_runners": 2, "envs_per_runner": 1, "num_gpus": "auto"}
    meta = json.loads((cluster_run / "meta.json").read_text())
    assert meta["backend"] == "rllib" and meta["status"] == "finished" and meta["timesteps"] >= 256
    assert meta["versions"]["ray"] and meta["versions"]["Gymnasium"] and meta["device"].startswith("cpu")
    metrics = json.loads((cluster_run / "metrics.json").read_text())
    trained, random = metrics["eval"]["trained"], metrics["eval"]["random"]
    assert [e["seed"] for e in trained["episodes"]] == [e["seed"] for e in random["episodes"]] == [0, 1]


def test_eval_runs_and_export_work_on_the_rllib_run(cluster_run, tmp_path, capsys):
    assert main(["eval", str(cluster_run), "--episodes", "1", "--seed", "4", "--deterministic"]) == 0
    out = capsys.readouterr().out
    assert "trained" in out and "random" in out
    assert main(["runs", str(cluster_run.parent)]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith(cluster_run.name))
    assert row.split()[-2:] == ["done", "rllib"]

    from wadgym.agents.policies.export import export_onnx, onnx_session
    from wadgym.agents.policies.policy import SavedPolicy

    policy = SavedPolicy(cluster_run, deterministic=True)
    inputs = policy.recorded_inputs(seed=5)  # the stacked frames the policy saw in a real episode
    path = export_onnx(cluster_run, tmp_path / "policy.onnx")
    logits, actions = onnx_session(path).run(None, {"obs": inputs})
    assert np.array_equal(actions, policy.act(inputs))
    assert logits.shape == (len(inputs), 5)


def test_a_failing_env_runner_fails_the_run_with_its_traceback(cluster, hyperparams, failing_env_dir, tmp_path,
                                                               capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(failing_env_dir))
    run = tmp_path / "failing"
    rc = main(train_args(hyperparams, run, "--env", FAILING_ENV_ID, "--address", cluster.address,
                         "--num-env-runners", "2", "--envs-per-runner", "1", "--timesteps", "2048",
                         "--save-freq", "64", "--eval-episodes", "0"))
    err = capsys.readouterr().err
    assert rc == 1, err
    assert "training failed at step" in err and "RuntimeError: scenario failure after 100 steps" in err
    assert "checkpoints/model_" in err and f"--resume {run}" in err
    meta = json.loads((run / "meta.json").read_text())
    assert meta["status"] == "failed" and not meta["finished"]
    assert meta["error"] == "RuntimeError: scenario failure after 100 steps"
    assert "in an env runner on" in meta["traceback"] and "failing_env.py" in meta["traceback"]
    assert not (run / "model").exists() and 0 < meta["timesteps"] < 2048


def test_ctrl_c_checkpoints_and_resume_finishes(cluster, hyperparams, tmp_path, process_session):
    """Ctrl-C reaches the whole foreground process group (the trainer, its own Ray instance and the
    engines): the run saves a checkpoint and exits 130, leaving nothing running; --resume finishes it,
    here on the two-node cluster."""
    run = tmp_path / "interrupted"
    command = [sys.executable, "-m", "wadgym.cli",
               *train_args(hyperparams, run, "--env", ENV_ID, "--timesteps", "1024", "--save-freq", "64",
                           "--eval-episodes", "0", "--num-env-runners", "1")]
    process = subprocess.Popen(command, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    session = process_session(process.pid)
    deadline = time.monotonic() + 240  # Ray's start alone took ~110 s on a busy 2-core VM
    while not list((run / "checkpoints").glob("model_*_steps")):
        assert process.poll() is None, process.stdout.read()
        assert time.monotonic() < deadline, "no checkpoint within 240 s"
        time.sleep(0.1)
    os.killpg(process.pid, signal.SIGINT)
    out, _ = process.communicate(timeout=60)
    assert session.leftovers(timeout=15) == []  # its Ray instance, the trainer, env runners, engines
    assert process.returncode == 130, out
    assert "Traceback" not in out and f"--resume {run}" in out
    meta = json.loads((run / "meta.json").read_text())
    stopped_at = meta["timesteps"]
    assert meta["status"] == "interrupted" and 0 < stopped_at < 1024
    checkpoint = run / "checkpoints" / f"model_{stopped_at}_steps"
    assert checkpoint.is_dir() and not (run / "model").exists()

    # A trainer killed after its last checkpoint has recorded episodes that a resume trains again: here
    # one more row, as if so. --resume cuts the Monitor file back to its length at the checkpoint, and
    # the next session's episodes count on from the checkpoint's step.
    monitor = run / "train_1.monitor.csv"
    recorded = monitor.read_bytes()
    marker = json.loads(runfolder.monitor_marker(checkpoint).read_text())
    assert marker["monitor_bytes"] == {monitor.name: len(recorded)}
    before = runfolder.read_episodes(run)
    running = marker["running_episode_steps"]
    assert before and running == [max(stopped_at - before[-1]["timesteps"], 0)]
    monitor.write_bytes(recorded + recorded.splitlines(keepends=True)[-1])
    assert len(runfolder.read_episodes(run)) == len(before) + 1

    config_before = (run / "config.yml").read_text()
    assert main(["train", "--resume", str(run), "--address", cluster.address, "--eval-episodes", "0",
                 "--no-progress"]) == 0
    assert (run / "config.yml").read_text() == config_before
    meta = json.loads((run / "meta.json").read_text())
    assert meta["status"] == "finished" and meta["timesteps"] >= 1024
    assert [s["from_steps"] for s in meta["sessions"]] == [0, stopped_at]
    assert (run / "model").is_dir()
    assert monitor.read_bytes() == recorded and (run / "train_2.resume.json").is_file()
    after = runfolder.read_episodes(run)
    assert after[:len(before)] == before and len(after) > len(before)
    # the resumed session's first episode counts on from the last recorded one and the running steps
    assert after[len(before)]["timesteps"] == before[-1]["timesteps"] + running[0] + after[len(before)]["length"]
