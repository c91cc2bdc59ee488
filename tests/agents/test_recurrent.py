"""`wadgym train --algo recurrent_ppo` (sb3-contrib's RecurrentPPO): a tiny real run that eval, bench/learn.py's
evaluation and --resume play and continue, and that the ONNX export refuses by name."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from wadgym.cli import main

ROOT = Path(__file__).resolve().parents[2]
LSTM = ("dict(features_extractor_class=SmallCNN, features_extractor_kwargs=dict(features_dim=32), net_arch=[], "
        "lstm_hidden_size=16)")


@pytest.fixture(scope="module")
def recurrent_run(tmp_path_factory, env_id):
    from .conftest import TINY

    conf = tmp_path_factory.mktemp("recurrent") / "tiny.yml"
    conf.write_text(yaml.safe_dump({env_id: {**TINY, "n_steps": 32, "policy_kwargs": LSTM}}))
    run = conf.parent / "run"
    rc = main(["train", "--env", env_id, "--algo", "recurrent_ppo", "--conf-file", str(conf), "--run-dir", str(run),
               "--save-freq", "64", "--eval-episodes", "0", "--no-progress"])
    assert rc == 0
    return run


def test_the_run_records_its_algorithm_and_trains_an_lstm_policy(recurrent_run):
    from wadgym.agents.policies.policy import SavedPolicy

    config = yaml.safe_load((recurrent_run / "config.yml").read_text())
    assert config["algo"] == "recurrent_ppo" and config["hyperparams"]["algo"] == "recurrent_ppo"
    policy = SavedPolicy(recurrent_run)
    assert policy.recurrent and type(policy.model).__name__ == "RecurrentPPO"
    assert type(policy.model.policy).__name__ == "RecurrentActorCriticCnnPolicy"   # sb3-contrib's, in the zip
    sessions = json.loads((recurrent_run / "meta.json").read_text())["sessions"]
    assert all(s["update_settings"]["segmented_lstm"] for s in sessions)   # trained with the segmented LSTM


def test_eval_plays_the_recurrent_policy_and_its_state_carries_between_steps(recurrent_run, capsys):
    import numpy as np

    from wadgym.agents.evaluate import run_episodes
    from wadgym.agents.policies.policy import SavedPolicy

    assert main(["eval", str(recurrent_run), "--episodes", "2", "--levels", "train"]) == 0
    assert "trained" in capsys.readouterr().out
    policy = SavedPolicy(recurrent_run, deterministic=True)
    seen = []
    inner = policy.model.predict

    def spy(observation, state=None, episode_start=None, deterministic=False):
        seen.append((state, np.asarray(episode_start).copy()))
        return inner(observation, state=state, episode_start=episode_start, deterministic=deterministic)

    policy.model.predict = spy
    episodes = run_episodes(policy.env_id, policy.env_kwargs, [5], policy)
    assert episodes[0]["length"] == len(seen) > 1
    assert seen[0][0] is None and seen[0][1].all()            # the episode starts from a fresh state ...
    assert all(state is not None for state, _ in seen[1:])   # ... then each step gets the last step's state
    assert not any(start.any() for _, start in seen[1:])


def test_the_onnx_export_refuses_a_recurrent_policy_by_name(recurrent_run, tmp_path, capsys):
    from wadgym.agents.policies.export import RecurrentPolicyNotExportable, export_onnx

    with pytest.raises(RecurrentPolicyNotExportable, match="recurrent policy"):
        export_onnx(recurrent_run, tmp_path / "policy.onnx")
    assert main(["export", str(recurrent_run), "--onnx", str(tmp_path / "p.onnx")]) == 2
    assert "does not export to ONNX" in capsys.readouterr().err
    assert not (tmp_path / "p.onnx").exists()


def test_resume_continues_a_stopped_recurrent_run(recurrent_run, tmp_path):
    import shutil

    run = tmp_path / "stopped"
    shutil.copytree(recurrent_run, run)
    # As a stopped run: its configuration asks for more steps than its latest checkpoint (256) holds.
    config = yaml.safe_load((run / "config.yml").read_text())
    config["hyperparams"]["n_timesteps"] = 384
    (run / "config.yml").write_text(yaml.safe_dump(config))
    (run / "model.zip").unlink()
    assert main(["train", "--resume", str(run), "--eval-episodes", "0", "--no-progress"]) == 0
    meta = json.loads((run / "meta.json").read_text())
    assert meta["finished"] and meta["sessions"][-1]["from_steps"] == 256 and meta["timesteps"] == 384
    assert yaml.safe_load((run / "config.yml").read_text())["algo"] == "recurrent_ppo"


def test_bench_learn_adopts_a_recurrent_run_and_skip_done_keeps_its_row(recurrent_run, tmp_path, capsys,
                                                                          monkeypatch, env_id):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    sys.modules.pop("learn", None)
    import learn

    docs = tmp_path / "docs"
    assert learn.main(["--adopt", str(recurrent_run), "--episodes", "1", "--docs", str(docs)]) == 0
    runs = json.loads((docs / "benchmark.json").read_text())["runs"]
    (key, row), = runs.items()
    assert row["eval"]["test"]["trained"]["episodes"] and row["eval"]["train"]["random"]["episodes"]
    seed = str(row["seed"])
    assert learn.main(["--env", env_id, "--seeds", "1", "--first-seed", seed, "--skip-done", "--docs", str(docs),
                       "--runs", str(tmp_path / "runs")]) == 0
    assert "training" not in capsys.readouterr().out and not (tmp_path / "runs").exists()   # nothing retrained
    assert json.loads((docs / "benchmark.json").read_text())["runs"] == {key: row}
    assert row["trained_with"].startswith("recurrent_ppo; ") and "curve" in row   # kept for the figure

    # --attempt lists a run below the table and leaves the row; a run that replaces a row keeps the old one there
    copy = tmp_path / "copy"
    shutil.copytree(recurrent_run, copy)
    assert learn.main(["--adopt", str(copy), "--attempt", "--episodes", "1", "--docs", str(docs)]) == 0
    data = json.loads((docs / "benchmark.json").read_text())
    typed = learn.typed_path  # rows name run folders as a user types them (by name under their runs folder)
    assert data["runs"] == {key: row} and list(data["attempts"]) == [typed(copy, run_folder=True)]
    table = (docs / "benchmark.md").read_text()
    assert "## Attempts" in table and f"| {row['trained_with']} |" in table.partition("## Attempts")[2]
    assert learn.main(["--adopt", str(copy), "--episodes", "1", "--docs", str(docs)]) == 0
    data = json.loads((docs / "benchmark.json").read_text())
    assert data["runs"][key]["run_dir"] == typed(copy, run_folder=True)
    assert list(data["attempts"]) == [typed(recurrent_run, run_folder=True)]


def test_algo_choices_are_checked(env_id, tiny_hyperparams, tmp_path, capsys):
    from wadgym.agents.algos import policy_name

    assert policy_name("recurrent_ppo", "CnnPolicy") == "CnnLstmPolicy"
    assert policy_name("ppo", "CnnPolicy") == "CnnPolicy"
    rc = main(["train", "--env", env_id, "--conf-file", str(tiny_hyperparams), "--hp", "algo=a2c",
               "--run-dir", str(tmp_path / "r")])
    assert rc == 2 and "algo='a2c' is not valid; choose one of ppo, recurrent_ppo" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
    rc = main(["train", "--env", env_id, "--conf-file", str(tiny_hyperparams), "--algo", "recurrent_ppo",
               "--backend", "rllib", "--run-dir", str(tmp_path / "r")])
    assert rc == 2 and "algo=recurrent_ppo trains with the sb3 backend only" in capsys.readouterr().err
