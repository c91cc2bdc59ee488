"""bench/transfer.py at a tiny scale: DoomHealth-v0 and ViZDoom's health_gathering, one seed, a few hundred
steps of each training; the JSON (runs recorded before their evaluation), the 2x2 table, the figure, the
bonuses a hand-made map cannot give left out, and a second call that skips the finished runs."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

TINY = {"n_envs": 2, "n_timesteps": 128, "policy": "CnnPolicy", "frame_stack": 2, "n_steps": 64, "batch_size": 64,
        "n_epochs": 1, "policy_kwargs": ("dict(features_extractor_class=SmallCNN, "
                                         "features_extractor_kwargs=dict(features_dim=32), net_arch=[])")}


def test_both_trainings_play_both_maps_beside_random_and_scripted(transfer, tmp_path, capsys):
    conf = tmp_path / "tiny.yml"
    entry = {**TINY, "env_kwargs": {"num_levels": 200, "living_reward": 0.01}}
    conf.write_text(yaml.safe_dump({"DoomHealth-v0": entry}))
    argv = ["--pair", "health", "--seeds", "1", "--episodes", "1", "--conf-file", str(conf),
            "--runs", str(tmp_path / "runs"), "--docs", str(tmp_path / "docs")]
    assert transfer.main([*argv, "--dry-run"]) == 0
    assert capsys.readouterr().out.count("wadgym train") == 2 and not (tmp_path / "docs").exists()

    assert transfer.main(argv) == 0
    data = json.loads((tmp_path / "docs" / "transfer.json").read_text())
    assert set(data["runs"]) == {"health/generated/seed0", "health/original/seed0"}
    for row in data["runs"].values():
        config = yaml.safe_load((tmp_path / "runs" / row["run_dir"] / "config.yml").read_text())
        env_kwargs = config["hyperparams"]["env_kwargs"]
        if row["trained_on"] == "original":   # the map alone: no level range, the same other settings
            assert env_kwargs == {"living_reward": 0.01, "wad": "vizdoom:health_gathering"}
        else:
            assert env_kwargs == {"num_levels": 200, "living_reward": 0.01}
        assert row["timesteps"] == 128 and "/" not in row["run_dir"]   # by name under --runs
        assert all(isinstance(row["eval"][k], float) for k in ("original", "generated"))
    base = data["baselines"]["health"]
    assert base["episodes"] == 1 and base["scripted"]["original"] is None
    assert base["random"]["original"] > 0 and base["scripted"]["generated"] > 0
    table = (tmp_path / "docs" / "transfer.md").read_text()
    assert "## DoomHealth-v0 and health_gathering" in table and "| trained on the original map alone |" in table
    assert "goal" in table and "unavailable" in table
    assert (tmp_path / "docs" / "transfer.png").read_bytes()[:4] == b"\x89PNG"

    assert transfer.main([*argv, "--skip-done"]) == 0   # everything recorded: nothing trained again
    assert capsys.readouterr().out.count("done, skipped") == 2


def test_the_generator_bonuses_are_left_out_on_the_original(transfer):
    kwargs = transfer.original_kwargs({"num_levels": 200, "start_level": 3, "new_room_reward": 0.1, "gamma": 1},
                                      "vizdoom:my_way_home")
    assert kwargs == {"gamma": 1, "wad": "vizdoom:my_way_home"}
    test = transfer.generated_test_kwargs({"wad": "x.wad", "map": "MAP02", "num_levels": 200, "living_reward": 0.5})
    assert test == {"living_reward": 0.5, "start_level": 10_000, "num_levels": 0}
    assert transfer.left_out("DoomExit-v0", transfer.hyperparams_file("cpu")) == ["new_room_reward"]


def test_a_run_trained_but_not_evaluated_is_evaluated_by_the_next_skip_done(transfer, tmp_path):
    data = {"runs": {"health/original/seed0": {"pair": "health", "env": "DoomHealth-v0", "eval": None,
                                                "original": "vizdoom:health_gathering", "run_dir": "gone",
                                                "trained_on": "original", "command": "x --episodes 50"}},
            "baselines": {}}
    (tmp_path / "transfer.json").write_text(json.dumps(data))
    transfer.evaluate_pending(tmp_path / "transfer.json", tmp_path / "runs", 1)  # its folder is gone: left as is
    assert json.loads((tmp_path / "transfer.json").read_text()) == data
    assert Path(transfer.__file__).name == "transfer.py"
