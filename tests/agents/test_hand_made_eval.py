"""`wadgym eval RUN --wad FILE --map M`: a trained run and the random policy on a hand-made map."""

from __future__ import annotations

from wadgym.cli import main
from wadgym.wads import iwad


def test_eval_plays_a_hand_made_map_and_writes_a_video(trained_run, tmp_path, capsys):
    video = tmp_path / "map.mp4"
    assert main(["eval", str(trained_run), "--wad", iwad.iwad_path(), "--map", "MAP01", "--episodes", "1",
                 "--video", str(video)]) == 0
    out = capsys.readouterr().out
    assert f"1 episodes on MAP01 of {iwad.iwad_path()}" in out and "trained" in out and "random" in out
    assert video.stat().st_size > 1000
    assert main(["eval", str(trained_run), "--wad", iwad.iwad_path(), "--map", "MAP99"]) == 2
    assert "map='MAP99' is not in" in capsys.readouterr().err


def test_a_vizdoom_scenarios_own_return_is_summarised_beside_the_familys_score():
    """On `vizdoom:health_gathering` the summary has the .cfg's return (living reward 1 a tic, death -100)
    beside the steps survived; on generated levels it has none."""
    from wadgym.agents.evaluate import run_episodes, summarize

    original = summarize(run_episodes("DoomHealth-v0", {"wad": "vizdoom:health_gathering"}, [0, 1], "random"))
    for episode in original["episodes"]:
        died = episode["length"] < 525   # the .cfg's timeout: 2100 tics, 525 steps
        assert episode["scenario_return"] == 4 * episode["length"] - 100 * died
    assert original["scenario_return_mean"] == sum(e["scenario_return"] for e in original["episodes"]) / 2
    generated = summarize(run_episodes("DoomHealth-v0", {"num_levels": 1}, [0], "random"))
    assert "scenario_return_mean" not in generated and "scenario_return" not in generated["episodes"][0]


def test_a_run_trained_on_a_hand_made_map_ends_with_an_evaluation_there(tmp_path):
    """Training on `vizdoom:my_way_home` ends with its evaluation on that map: the trained and random policies
    only (the exit family's scripted reference follows the rooms of buildings it builds), one split."""
    import json

    import yaml

    from .conftest import TINY

    conf = tmp_path / "mwh.yml"
    conf.write_text(yaml.safe_dump({"DoomExit-v0": {**TINY, "n_timesteps": 128, "env_kwargs": {
        "resolution": [30, 40], "wad": "vizdoom:my_way_home"}}}))
    run = tmp_path / "run"
    assert main(["train", "--env", "DoomExit-v0", "--conf-file", str(conf), "--run-dir", str(run),
                 "--eval-episodes", "1", "--no-video", "--no-progress"]) == 0
    evaluation = json.loads((run / "metrics.json").read_text())["eval"]
    assert evaluation["levels"] == "train" and "hand-made map" in evaluation["split_note"]
    assert {"trained", "random"} <= set(evaluation) and "scripted" not in evaluation
    assert set(evaluation["splits"]) == {"train"}


def test_a_hand_made_map_is_played_without_the_bonuses_that_read_a_built_levels_plan():
    """DoomExit-v0's entry trains with new_room_reward (the rooms of the buildings it builds); played on
    my_way_home the run's kwargs leave it out, where the env itself refuses it."""
    import pytest

    from wadgym.agents.evaluate import map_kwargs
    from wadgym.agents.vec import make_env

    trained = {"new_room_reward": 0.1, "shaping": 0.5, "num_levels": 200, "frame_skip": 4}
    kwargs = map_kwargs("DoomExit-v0", trained, "vizdoom:my_way_home")
    assert kwargs == {"frame_skip": 4, "wad": "vizdoom:my_way_home", "map": "MAP01"}
    make_env("DoomExit-v0", kwargs).close()
    with pytest.raises(ValueError, match="new_room_reward follow the rooms of a building"):
        make_env("DoomExit-v0", {"new_room_reward": 0.1, "wad": "vizdoom:my_way_home"})
