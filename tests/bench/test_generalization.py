"""bench/generalization.py at a tiny scale: two level counts, one seed, a few hundred steps; the JSON, table and
figure it writes, a dry run that trains nothing, and a second call that skips the finished runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

ENV_ID = "DoomItems-v1"
TINY = {"n_envs": 2, "n_timesteps": 128, "policy": "CnnPolicy", "frame_stack": 2, "n_steps": 64, "batch_size": 64,
        "n_epochs": 1, "policy_kwargs": ("dict(features_extractor_class=SmallCNN, "
                                         "features_extractor_kwargs=dict(features_dim=32), net_arch=[])"),
        "env_kwargs": {"resolution": [30, 40], "num_levels": 200}}


def test_sweep_trains_each_point_evaluates_train_and_test_levels_and_skips_done_runs(generalization, tmp_path,
                                                                                      capsys):
    conf = tmp_path / "tiny.yml"
    conf.write_text(yaml.safe_dump({ENV_ID: TINY}))
    argv = ["--env", ENV_ID, "--levels", "1", "2", "--seeds", "1", "--episodes", "1", "--conf-file", str(conf),
            "--runs", str(tmp_path / "runs"), "--docs", str(tmp_path / "docs")]
    assert generalization.main([*argv, "--dry-run"]) == 0
    planned = capsys.readouterr().out
    assert planned.count("wadgym train") == 2 and "num_levels=1" in planned and "num_levels=2" in planned
    assert not (tmp_path / "runs").exists() and not (tmp_path / "docs").exists()
    generalization.main(["--env", ENV_ID, "--levels", "1", "2", "--seeds", "2", "--dry-run"])
    order = [line.split(":")[0] for line in capsys.readouterr().out.splitlines() if line.startswith("==")]
    assert order == [f"== {ENV_ID}/levels{n}/seed{s}" for s in (0, 1) for n in (1, 2)]   # seed by seed

    assert generalization.main(argv) == 0
    data = json.loads((tmp_path / "docs" / "generalization.json").read_text())
    assert set(data["runs"]) == {f"{ENV_ID}/levels1/seed0", f"{ENV_ID}/levels2/seed0"}
    for row in data["runs"].values():
        name = Path(row["run_dir"]).name   # named under --runs by name, as a user types it: no folder of this machine
        assert row["run_dir"] == f"runs/{name}" and not [w for w in row["command"].split() if w.startswith("/")]
        assert row["command"].endswith(" --conf-file tiny.yml --runs runs")
        config = yaml.safe_load((tmp_path / "runs" / name / "config.yml").read_text())
        assert config["hyperparams"]["env_kwargs"]["num_levels"] == row["levels"]   # trained on L levels
        assert row["timesteps"] == 128 and row["eval"]["episodes"] == 1
        assert all(isinstance(row["eval"][k], float) for k in ("train", "test", "random_test"))
        scores = row["eval"]["scores"]   # per episode, for the IQM and its interval
        assert {k: len(v) for k, v in scores.items()} == {"train": 1, "test": 1, "random_test": 1}
        assert scores["test"] == [row["eval"]["test"]]
    table = (tmp_path / "docs" / "generalization.md").read_text()
    assert f"| {ENV_ID} | 1 | 1 | 128 |" in table and f"| {ENV_ID} | 2 | 1 | 128 |" in table
    assert not [line for line in table.splitlines() if line.startswith(f"| {ENV_ID} |") and "mean only" in line]
    assert (tmp_path / "docs" / "generalization.png").read_bytes()[:4] == b"\x89PNG"

    assert generalization.main(argv) == 0   # everything recorded: nothing trained again
    assert capsys.readouterr().out.count("done, skipped") == 2

    reading = f"{generalization.READING}\n\nWritten by hand: no gap at this budget.\n"
    (tmp_path / "docs" / "generalization.md").write_text(table + "\n" + reading)
    assert generalization.main([*argv, "--table-only"]) == 0   # the table rewritten, the reading kept
    assert (tmp_path / "docs" / "generalization.md").read_text() == table + "\n" + reading


def test_levels_past_the_test_range_are_refused(generalization, capsys):
    with pytest.raises(SystemExit):
        generalization.main(["--env", ENV_ID, "--levels", "10000", "--dry-run"])
    assert "--levels 10000: choose 1..9999, or 0 for unlimited" in capsys.readouterr().err
