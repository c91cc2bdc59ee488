"""bench/transfer.py at a tiny scale: DoomHealth-v0 and ViZDoom's health_gathering, one seed, a few hundred
steps of each training; the JSON (runs recorded before their evaluation), the 2x2 table, the figure, the
bonuses a hand-made map cannot give left out, and a second call that skips the finished runs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

TINY = {"n_envs": 2, "n_timesteps": 128, "policy": "CnnPolicy", "frame_stack": 2, "n_steps": 64, "batch_size": 64,
        "n_epochs": 1, "policy_kwargs": ("dict(features_extractor_class=SmallCNN, "
                                         "features_extractor_kwargs=dict(features_dim=32), net_arch=[])")}


def test_both_trainings_play_both_maps_beside_random_and_scripted(transfer, tmp_path, capsys):
    conf = tmp_path / "tiny.yml"
    entry = {**TINY, "env_kwargs": {"num_levels": 8, "living_reward": 0.01}}   # 8 levels: a WAD built in a second
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
            assert env_kwargs == {"num_levels": 8, "living_reward": 0.01}
        assert row["timesteps"] == 128 and "/" not in row["run_dir"]   # by name under --runs
        assert all(isinstance(row["eval"][k], float) for k in ("original", "generated"))
        assert [row["eval"]["scores"][k] for k in ("original", "generated")] == [[row["eval"]["original"]],
                                                                                [row["eval"]["generated"]]]
    base = data["baselines"]["health"]
    assert base["episodes"] == 1 and base["scripted"]["original"] is None
    assert base["random"]["original"] > 0 and base["scripted"]["generated"] > 0
    table = (tmp_path / "docs" / "transfer.md").read_text()
    assert "## DoomHealth-v0 and health_gathering" in table and "| trained on the original map alone |" in table
    assert "goal" in table and "unavailable" in table and "IQM" in table
    assert "decided on the means (these runs" not in table   # the runs kept their per-episode scores: ...
    assert "P(generated-trained > original-trained)" in table   # ... the goal is decided on intervals
    assert (tmp_path / "docs" / "transfer.png").read_bytes()[:4] == b"\x89PNG"

    assert transfer.main([*argv, "--skip-done"]) == 0   # everything recorded: nothing trained again
    assert capsys.readouterr().out.count("done, skipped") == 2

    # ICM's fine-tune protocol: the generated-trained run continued on the original, and the original alone from
    # scratch, each for half the entry's steps
    assert transfer.main([*argv, "--trained-on", "finetuned", "original-short", "--skip-done"]) == 0
    data = json.loads((tmp_path / "docs" / "transfer.json").read_text())
    finetuned, short = data["runs"]["health/finetuned/seed0"], data["runs"]["health/original-short/seed0"]
    assert finetuned["init_from"] == "health/generated/seed0" and "init_from" not in short
    for row in (finetuned, short):
        config = yaml.safe_load((tmp_path / "runs" / row["run_dir"] / "config.yml").read_text())
        assert config["hyperparams"]["env_kwargs"] == {"living_reward": 0.01, "wad": "vizdoom:health_gathering"}
        assert config["hyperparams"]["n_timesteps"] == 64 and isinstance(row["eval"]["original"], float)
    parent = yaml.safe_load((tmp_path / "runs" / finetuned["run_dir"] / "config.yml").read_text())["init_from"]
    assert Path(parent["run"]).name == data["runs"]["health/generated/seed0"]["run_dir"]
    table = (tmp_path / "docs" / "transfer.md").read_text()
    assert "| the generated-trained run fine-tuned on the original, 50% of the steps |" in table
    assert "Fine-tune protocol (ICM's): **goal" in table and "from scratch with the same steps: " in table


def test_the_generator_bonuses_are_left_out_on_the_original(transfer):
    kwargs = transfer.original_kwargs({"num_levels": 200, "start_level": 3, "new_room_reward": 0.1, "gamma": 1},
                                      "vizdoom:my_way_home", "DoomExit-v0")
    assert kwargs == {"gamma": 1, "wad": "vizdoom:my_way_home"}
    # the bots' arenas: aim_reward reads their ACS; the bots themselves still play on cig
    kwargs = transfer.original_kwargs({"aim_reward": 0.2, "bots": 3, "bot_skill": 2, "shape": "round"},
                                      "vizdoom:cig", "DoomDeathmatchBots-v0")
    assert kwargs == {"bots": 3, "bot_skill": 2, "wad": "vizdoom:cig"}
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


def test_a_pair_with_a_preset_trains_its_generated_levels_with_it_and_shares_the_original_runs(transfer, tmp_path):
    """exit-mixed: DoomExit-v0's levels with exit_look='mixed' (the preset covering my_way_home's goal), in
    training and in the held-out play; its original-trained run is the exit pair's (its score on the original
    too), played again on these generated levels."""
    conf = tmp_path / "tiny.yml"
    conf.write_text(yaml.safe_dump({"DoomExit-v0": {**TINY, "env_kwargs": {"num_levels": 8,
                                                                           "new_room_reward": 0.1}}}))
    common = ["--seeds", "1", "--episodes", "1", "--conf-file", str(conf), "--runs", str(tmp_path / "runs"),
              "--docs", str(tmp_path / "docs")]
    assert transfer.main(["--pair", "exit-mixed", *common]) == 0   # the exit pair's original run is not there yet
    data = json.loads((tmp_path / "docs" / "transfer.json").read_text())
    assert set(data["runs"]) == {"exit-mixed/generated/seed0"}
    row = data["runs"]["exit-mixed/generated/seed0"]
    config = yaml.safe_load((tmp_path / "runs" / row["run_dir"] / "config.yml").read_text())
    assert config["hyperparams"]["env_kwargs"] == {"num_levels": 8, "new_room_reward": 0.1, "exit_look": "mixed"}

    assert transfer.main(["--pair", "exit", "--trained-on", "original", *common]) == 0
    assert transfer.main(["--pair", "exit-mixed", "--skip-done", *common]) == 0
    data = json.loads((tmp_path / "docs" / "transfer.json").read_text())
    shared, source = data["runs"]["exit-mixed/original/seed0"], data["runs"]["exit/original/seed0"]
    assert shared["shared_from"] == "exit/original/seed0" and shared["run_dir"] == source["run_dir"]
    assert isinstance(shared["eval"]["generated"], float) and shared["eval"]["original"] == source["eval"]["original"]
    table = (tmp_path / "docs" / "transfer.md").read_text()
    assert "## DoomExit-v0 and my_way_home (`exit_look='mixed'`)" in table
    assert "The original-trained runs are those of the exit pair" in table
    assert transfer.original_kwargs({"exit_look": "mixed", "num_levels": 200}, "vizdoom:my_way_home",
                                    "DoomExit-v0") == {"wad": "vizdoom:my_way_home"}


def kept(original: list[float], generated: list[float]) -> dict:
    """A run's evaluated row that kept its per-episode scores on both maps."""
    return {"eval": {"original": sum(original) / len(original), "generated": sum(generated) / len(generated),
                     "scores": {"original": original, "generated": generated}}}


def test_the_goal_is_decided_on_intervals_where_runs_kept_their_episodes(transfer):
    high, low = [9.0, 10.0, 11.0, 10.0] * 5, [0.0, 1.0, 0.0, 2.0] * 5
    met = transfer.verdict([kept(high, high)], [kept(high, low)])
    assert met.startswith("**goal met**: generated-trained scores 100% of the original-trained mean on the original")
    assert "(meets the 80% goal)" in met and "the original-trained policy falls short" in met
    missed = transfer.verdict([kept(low, high)], [kept(high, low)])
    assert missed.startswith("**goal missed**") and "(misses the 80% goal)" in missed
    mixed = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] * 3
    undecided = transfer.verdict([kept(high, mixed)], [kept(high, mixed[::-1])])
    assert undecided.startswith("**goal not decided**") and "may fall short (not decided)" in undecided
    old = transfer.verdict([{"eval": {"original": 10.0, "generated": 10.0}}],
                           [{"eval": {"original": 10.0, "generated": 1.0}}])
    assert old.startswith("**goal met**") and old.endswith("decided on the means (these runs kept no per-episode "
                                                           "scores)")


def test_a_reference_at_or_below_zero_is_the_bar_itself_not_a_share_of_it(transfer):
    """Frags less suicides can be negative: 80% of -2 would ask for more than the original-trained policy's
    -2, and 80% of 0 for nothing at all. There the generated-trained policy must reach the mean itself."""
    assert transfer.share_bar(5.0) == 4.0 and transfer.share_bar(0.0) == 0.0 and transfer.share_bar(-2.0) == -2.0
    below, above = [-3.0, -2.0, -3.0, -2.0] * 5, [-1.0, 0.0, -1.0, 0.0] * 5
    low, high = [0.0, 1.0, 0.0, 1.0] * 5, [5.0, 6.0, 5.0, 6.0] * 5
    reference = [-2.0, -2.0, -2.0, -2.0] * 5
    missed = transfer.verdict([kept(below, high)], [kept(reference, low)])
    assert missed.startswith("**goal missed**: generated-trained scores -2.50 on the original, 95% CI")
    assert re.search(r"95% CI -\d\.\d\d to -\d\.\d\d \(misses", missed)   # no "--" between negative bounds
    assert "misses the bar: the original-trained mean, -2.00, is not above 0" in missed
    assert "of the original-trained mean on the original" not in missed
    met = transfer.verdict([kept(above, high)], [kept(reference, low)])
    assert met.startswith("**goal met**") and "meets the bar" in met

    def means(generated_on_original: float) -> str:
        return transfer.verdict([{"eval": {"original": generated_on_original, "generated": 5.0}}],
                                [{"eval": {"original": -2.0, "generated": 1.0}}])

    assert means(-1.0).startswith("**goal met**: generated-trained scores -1.00 on the original (meets the bar")
    assert means(-2.4).startswith("**goal missed**")


def test_the_fine_tune_goal_is_the_original_trained_mean_with_all_the_steps(transfer):
    reference = kept([0.0, 1.0] * 10, [0.0] * 20)             # the original-trained mean on the original: 0.5
    above, below = [1.0] * 18 + [0.0] * 2, [0.0] * 18 + [1.0] * 2
    met = transfer.finetune_verdict([kept(above, above)], [kept(below, below)], [reference])
    assert met.startswith("Fine-tune protocol (ICM's): **goal met**") and "against 0.50" in met
    assert "from scratch with the same steps: 0.10" in met
    missed = transfer.finetune_verdict([kept(below, below)], [], [reference])
    assert "**goal missed**" in missed and "from scratch with the same steps: not run yet" in missed
    undecided = transfer.finetune_verdict([kept([0.0, 1.0] * 10, below)], [], [reference])
    assert "**goal not decided**" in undecided
    assert "not measured yet" in transfer.finetune_verdict([], [kept(above, above)], [reference])


def test_a_pair_with_settings_trains_every_side_with_them(transfer, tmp_path):
    """exit-counts: the count bonus in the generated and the original training's entries (the fine-tune
    protocol's runs take the original's), its own files beside the exit pair's, and in the page's heading."""
    conf = transfer.hyperparams_file("cpu")
    generated = yaml.safe_load(transfer.generated_conf("DoomExit-v0", conf, "exit-counts", tmp_path).read_text())
    original = yaml.safe_load(transfer.original_conf("DoomExit-v0", conf, "vizdoom:my_way_home", tmp_path,
                                                     "exit-counts").read_text())
    plain = transfer.original_conf("DoomExit-v0", conf, "vizdoom:my_way_home", tmp_path, "exit")
    assert generated["DoomExit-v0"]["explore"] == original["DoomExit-v0"]["explore"] == "counts:0.005"
    assert generated["DoomExit-v0"]["env_kwargs"] == {"num_levels": 200, "new_room_reward": 0.1}
    assert original["DoomExit-v0"]["env_kwargs"] == {"wad": "vizdoom:my_way_home"}
    assert "explore" not in yaml.safe_load(plain.read_text())["DoomExit-v0"] and len(list(tmp_path.iterdir())) == 3
    assert transfer.generated_conf("DoomExit-v0", conf, "exit", tmp_path) == conf
    assert transfer.pair_title("exit-counts") == "DoomExit-v0 and my_way_home (`explore='counts:0.005'`)"
    short = transfer.short_steps("DoomExit-v0", conf, "exit-counts")
    assert short == transfer.short_steps("DoomExit-v0", conf) == 250_000


def test_a_curriculum_climbs_the_generated_levels_alone(transfer, tmp_path):
    """exit-v1-ladder: the generated side trains on the ladder of building sizes, each stage DoomExit-v1's
    buildings of that size; the original (whose entry the fine-tune protocol's runs take) trains the same 2M steps
    without a curriculum; a pair without one gets no curriculum key, and an entry's own curriculum (the cpu-long
    DoomExitHard-v0's) is left out on the original too."""
    import numpy as np

    from wadgym.agents.config import check_curriculum, load_hyperparams
    from wadgym.envs.params import make_params

    conf = transfer.hyperparams_file("cpu")
    derived = transfer.generated_conf("DoomExit-v1", conf, "exit-v1-ladder", tmp_path)
    generated = yaml.safe_load(derived.read_text())["DoomExit-v1"]
    original = yaml.safe_load(transfer.original_conf("DoomExit-v1", conf, "vizdoom:my_way_home", tmp_path,
                                                     "exit-v1-ladder").read_text())["DoomExit-v1"]
    stages = check_curriculum(generated["curriculum"])
    assert [stage["until"] for stage in stages] == [800_000, 1_400_000]
    assert original["curriculum"] == [] and generated["n_timesteps"] == original["n_timesteps"] == 2_000_000
    assert original["env_kwargs"] == {"wad": "vizdoom:my_way_home"}
    assert transfer.short_steps("DoomExit-v1", conf, "exit-v1-ladder") == 1_000_000
    cls = transfer.family("DoomExit-v1")
    for stage, rooms in zip(stages, ((4, 6), (6, 9)), strict=True):
        params = make_params(cls.Params, cls.PRESETS, "v1", stage["env_kwargs"])
        assert (params.n_rooms_min, params.n_rooms_max) == rooms
        assert cls.build(np.random.default_rng(0), params) is not None
    plain = yaml.safe_load(transfer.original_conf("DoomExit-v1", conf, "vizdoom:my_way_home", tmp_path,
                                                  "exit-v1").read_text())["DoomExit-v1"]
    assert "curriculum" not in plain
    long = transfer.hyperparams_file("cpu-long")
    assert load_hyperparams("DoomExitHard-v0", long)["curriculum"]
    hard = transfer.original_conf("DoomExitHard-v0", long, "vizdoom:my_way_home", tmp_path)
    assert yaml.safe_load(hard.read_text())["DoomExitHard-v0"]["curriculum"] == []
    assert "curriculum: 2 stages before the id's own, to 800,000, 1,400,000 steps" in \
        transfer.pair_title("exit-v1-ladder")


def test_a_shared_original_training_is_the_one_the_pair_would_have_made(transfer):
    """A pair that takes another's original-trained runs (SHARED_ORIGINAL) would have trained them the same way:
    the same id and original, the same training settings (exit-looks takes exit-counts', both with the count
    bonus)."""
    assert transfer.SHARED_ORIGINAL["exit-looks"] == "exit-counts"
    for pair, source in transfer.SHARED_ORIGINAL.items():
        assert transfer.PAIRS[pair] == transfer.PAIRS[source], pair
        assert transfer.PAIR_SETTINGS.get(pair) == transfer.PAIR_SETTINGS.get(source), pair


def test_a_shared_run_whose_folder_is_gone_is_named_and_a_rerun_keeps_the_old_row(transfer, tmp_path, capsys):
    """defend-dtc shares defend's original-trained runs: where their folders are gone (another machine made them),
    the pair says which rerun to make and records nothing; the rerun's row replaces the old one, which the page
    lists among the replaced runs."""
    json_path, md, png = tmp_path / "transfer.json", tmp_path / "transfer.md", tmp_path / "transfer.png"
    old = {"pair": "defend", "env": "DoomDefend-v0", "original": "vizdoom:defend_the_center", "trained_on": "original",
           "seed": 0, "score_name": "kills", "commit": "aaaaaaa", "command": "python bench/transfer.py",
           "budget": "cpu", "conf_file": None, "run_dir": "DoomDefend-v0_original_s0_gone", "timesteps": 300032,
           "wall_time_s": 600.0,
           "eval": {"original": 5.0, "generated": 10.0}}
    transfer.results(json_path).record("defend/original/seed0", old)
    transfer.share_original(json_path, "defend-dtc", 0, False, tmp_path, 50)
    said = capsys.readouterr().out
    assert "DoomDefend-v0_original_s0_gone is not here: rerun --pair defend --trained-on original" in said
    assert set(transfer.load(json_path)["runs"]) == {"defend/original/seed0"}
    rerun = {**old, "commit": "bbbbbbb", "run_dir": "DoomDefend-v0_original_s0_new",
             "eval": {"original": 6.0, "generated": 11.0}}
    transfer.results(json_path).record("defend/original/seed0", rerun)
    data = transfer.load(json_path)
    assert data["runs"]["defend/original/seed0"] == rerun
    assert data["replaced"] == {"defend/original/seed0@DoomDefend-v0_original_s0_gone": old}
    transfer.write_table(json_path, md, png)
    page = md.read_text()
    assert "## Replaced runs" in page
    assert "| defend/original/seed0 | 5.00 | 10.00 | aaaaaaa | DoomDefend-v0_original_s0_gone |" in page


def test_every_pairs_generated_kwargs_build_its_familys_levels(transfer):
    """Each pair's PAIR_KWARGS are scenario parameters its family takes, within their ranges, and build a level
    (exit-looks: DoomExit-v0's building with v1's looks: the goal a lamp or the armour, v1's texture pool)."""
    import numpy as np

    from wadgym.envs.params import make_params

    for pair, kwargs in transfer.PAIR_KWARGS.items():
        cls = transfer.family(transfer.PAIRS[pair][0])
        overrides = {k: v for k, v in kwargs.items() if k != "preset"}
        params = make_params(cls.Params, cls.PRESETS, kwargs.get("preset"), overrides)
        assert cls.build(np.random.default_rng(0), params) is not None, pair
    looks = make_params(transfer.family("DoomExit-v0").Params, transfer.family("DoomExit-v0").PRESETS, None,
                        transfer.PAIR_KWARGS["exit-looks"])
    assert (looks.layout, looks.spawn, looks.max_rooms, looks.textures) == ("grid", "pairs", 2, "lit")
