"""A curriculum in the hyperparameters: the training envs' kwargs change at step thresholds; the run's test
levels and evaluation stay the entry's own; bad schedules are refused before anything starts."""

from __future__ import annotations

import json

import pytest
import yaml

from wadgym.agents.backends.curriculum import check_schedule, env_kwargs_at, stage_at
from wadgym.cli import main

STAGES = [{"until": 100, "env_kwargs": {"n_items": 3}}, {"until": 300, "env_kwargs": {"n_items": 5}}]


def test_the_stage_at_each_step_and_its_kwargs_merged_over_the_entrys():
    hp = {"env_kwargs": {"num_levels": 200, "n_items": 10}, "curriculum": STAGES}
    assert [stage_at(hp, s) for s in (0, 99, 100, 299, 300, 10**6)] == [0, 0, 1, 1, 2, 2]
    assert env_kwargs_at(hp, 0) == {"num_levels": 200, "n_items": 3}
    assert env_kwargs_at(hp, 150) == {"num_levels": 200, "n_items": 5}
    assert env_kwargs_at(hp, 300) == hp["env_kwargs"]
    assert env_kwargs_at({"env_kwargs": {"a": 1}}, 0) == {"a": 1}   # no curriculum: the entry's own


@pytest.mark.parametrize("stages, message", [
    ({"until": 5}, "expected a list of stages"),
    ([{"until": 10}], r"a stage is \{until: STEPS, env_kwargs"),
    ([{"until": 10, "env_kwargs": {}}, {"until": 10, "env_kwargs": {}}], "above the previous stage's"),
    ([{"until": -1, "env_kwargs": {}}], "whole number of steps"),
    ([{"until": 10, "env_kwargs": {"start_level": 5}}], "may not set start_level"),
])
def test_bad_schedules_name_what_is_wrong(stages, message):
    with pytest.raises(ValueError, match=message):
        check_schedule(stages)


def test_a_stage_that_changes_the_inputs_is_refused_before_the_run_starts(env_id, tiny_settings, tmp_path, capsys):
    conf = tmp_path / "c.yml"
    stages = [{"until": 128, "env_kwargs": {"resolution": [60, 80]}}]
    conf.write_text(yaml.safe_dump({env_id: {**tiny_settings, "curriculum": stages}}))
    rc = main(["train", "--env", env_id, "--conf-file", str(conf), "--run-dir", str(tmp_path / "r"), "--no-progress"])
    assert rc == 2
    assert "curriculum[0] (until 128)" in capsys.readouterr().err and not (tmp_path / "r").exists()


def test_training_switches_the_envs_at_the_threshold_and_evaluates_on_the_entrys_own(env_id, tiny_settings,
                                                                                   tmp_path, capsys):
    from wadgym.agents import runfolder
    from wadgym.agents.policies.policy import SavedPolicy

    conf = tmp_path / "c.yml"
    stages = [{"until": 128, "env_kwargs": {"n_items": 3}}]
    conf.write_text(yaml.safe_dump({env_id: {**tiny_settings, "curriculum": stages}}))
    run = tmp_path / "run"
    assert main(["train", "--env", env_id, "--conf-file", str(conf), "--run-dir", str(run), "--save-freq", "128",
                 "--eval-episodes", "0", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "curriculum: stage 1 from step 128" in out and out.count("curriculum: stage") == 1
    assert len(list(run.glob("*.monitor.csv"))) == 2   # one Monitor file per stage's envs
    meta = json.loads((run / "meta.json").read_text())
    assert meta["finished"] and meta["timesteps"] == 256
    policy = SavedPolicy(run)
    assert "n_items" not in policy.env_kwargs   # evaluation plays the entry's own env kwargs, not a stage's
    assert runfolder.load_config(run)["hyperparams"]["curriculum"] == stages

    # Resumed past the threshold (the run asked for more steps than its checkpoint has, as a stopped run
    # does), it starts on the entry's own envs: no switch to make.
    config = yaml.safe_load((run / "config.yml").read_text())
    config["hyperparams"]["n_timesteps"] = 384
    (run / "config.yml").write_text(yaml.safe_dump(config))
    (run / "model.zip").unlink()
    assert main(["train", "--resume", str(run), "--eval-episodes", "0", "--no-progress"]) == 0
    assert "curriculum: stage" not in capsys.readouterr().out
    assert json.loads((run / "meta.json").read_text())["timesteps"] == 384
