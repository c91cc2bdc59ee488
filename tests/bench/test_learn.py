"""bench/learn.py's table: the budgets it knows, the honest label of one-map rows, --rescript, which plays
the scripted reference again on recorded rows without training, and the demos budgets, which record a dataset
and clone it before PPO (or alone)."""

from __future__ import annotations

import json

import pytest


def test_budgets_name_their_files_and_a_bad_one_is_refused(learn):
    long_file = learn.hyperparams_file("cpu-long")
    assert long_file.name == "ppo_cpu_long.yml" and long_file.is_file()
    with pytest.raises(ValueError, match="budget 'tpu' is not valid; choose one of cpu, cpu-long, gpu"):
        learn.hyperparams_file("tpu")
    assert set(learn.benchmark_ids("cpu-long")) == {"DoomItemsMaze-v1", "DoomHealthSupreme-v0", "DoomDefendHard-v0",
                                                     "DoomExitHard-v0", "DoomDeathmatchBots-v0", "DoomExit-v1"}
    assert learn.hyperparams_file("demos (100 episodes)").name == "ppo_demos.yml"
    assert set(learn.benchmark_ids("demos")) == {"DoomHealthSupreme-v0", "DoomExitHard-v0", "DoomDeathmatchBots-v0"}
    assert learn.demo_settings("DoomExitHard-v0", "demos") == {"policy": "scripted", "episodes": 100, "levels": "train",
                                                               "epochs": 10}


def test_rows_of_one_map_ids_say_learning_not_generalisation(learn):
    assert learn.shows("DoomItems-v0", "cpu").startswith("learning, not generalisation")
    assert learn.shows("DoomItemsHard-v0", "cpu").startswith("learning, not generalisation")
    assert learn.shows("DoomItems-v1", "cpu") == "generalisation (held-out levels)"
    assert learn.shows("DoomItemsMaze-v0", "cpu") == "generalisation (held-out levels)"   # 16 training mazes


def row(env_id: str, scripted: float) -> dict:
    summary = {"score_mean": scripted, "score_std": 0.0, "return_mean": scripted, "return_std": 0.0,
               "length_mean": 1.0, "episodes": []}
    other = {**summary, "score_mean": 1.0}
    return {"env": env_id, "budget": "cpu", "seed": 0, "score_name": "items", "commit": "abc1234",
            "command": "python bench/learn.py", "run_dir": "runs/none", "timesteps": 100, "wall_time_s": 60.0,
            "steps_per_second": 1.0, "device": "cpu", "finished": "-",
            "eval": {"episodes": 2, "seeds": [0, 1],
                     **{split: {"trained": other, "random": other, "scripted": dict(summary)}
                        for split in ("test", "train")}}}


def test_rescript_replays_the_reference_on_the_rows_seeds_and_the_table_says_when(learn, tmp_path):
    from wadgym.agents.evaluate import run_episodes, split_kwargs, summarize

    json_path = tmp_path / "benchmark.json"
    json_path.write_text(json.dumps({"runs": {"DoomItems-v1/cpu/seed0": row("DoomItems-v1", -1.0),
                                              "DoomItems-v0/cpu/seed0": row("DoomItems-v0", -1.0)}}))
    learn.rescript(json_path, ["DoomItems-v1"], "cpu")
    runs = json.loads(json_path.read_text())["runs"]
    replayed = runs["DoomItems-v1/cpu/seed0"]
    expected = summarize(run_episodes("DoomItems-v1", split_kwargs("DoomItems-v1", {"num_levels": 200}, "test"),
                                      [0, 1], "scripted"))
    assert replayed["eval"]["test"]["scripted"]["score_mean"] == expected["score_mean"] > 0
    assert replayed["scripted_commit"] and replayed["eval"]["test"]["trained"]["score_mean"] == 1.0
    assert runs["DoomItems-v0/cpu/seed0"]["eval"]["test"]["scripted"]["score_mean"] == -1.0   # not asked for
    learn.write_table(json_path, tmp_path / "benchmark.md", tmp_path / "curves.png")
    table = (tmp_path / "benchmark.md").read_text()
    assert f"abc1234 (scripted: {replayed['scripted_commit']}) |" in table
    assert "| learning, not generalisation (trains on one map) | abc1234 |" in table
    below = table.partition("Below the bar with every budget run so far")[2]   # neither row meets it: both listed
    assert "- DoomItems-v1: 1.0x random" in below and "- DoomItems-v0: 1.0x random" in below


def test_the_figure_draws_the_curves_rows_and_attempts_keep_in_the_json(learn, tmp_path):
    json_path, md_path, figure = tmp_path / "benchmark.json", tmp_path / "benchmark.md", tmp_path / "curves.png"
    kept = row("DoomItems-v1", 10.0)   # its run folder is gone and it kept no curve: the panel says so

    def drawn(data: dict) -> bytes:
        json_path.write_text(json.dumps(data))
        learn.write_table(json_path, md_path, figure)
        return figure.read_bytes()

    without = drawn({"runs": {"DoomItems-v1/cpu/seed0": kept}})
    assert without.startswith(b"\x89PNG")
    kept["curve"] = {"steps": [100.0, 200.0], "score": [1.0, 2.0]}
    with_curve = drawn({"runs": {"DoomItems-v1/cpu/seed0": kept}})
    attempt = {**kept, "run_dir": "runs/other", "commit": "def5678", "curve": {"steps": [100.0], "score": [3.0]}}
    with_attempt = drawn({"runs": {"DoomItems-v1/cpu/seed0": kept}, "attempts": {"runs/other": attempt}})
    assert len({without, with_curve, with_attempt}) == 3
    assert f"| DoomItems-v1 | cpu: 100 | {learn.GONE} | 1.00 | 1.00 | 10.00 |" in md_path.read_text()   # attempt


def test_the_readme_shows_a_row_that_meets_the_bar_else_the_best_one(learn):
    cpu_low = (False, 0.08, "0.08 vs 0.00 exits", "no")
    long_better = (False, 0.32, "0.32 vs 0.00 exits (cpu-long)", "no")
    assert learn.readme_choice([cpu_low, long_better]) == ("0.32 vs 0.00 exits (cpu-long)", "no")
    assert learn.readme_choice([long_better, cpu_low]) == ("0.32 vs 0.00 exits (cpu-long)", "no")
    cpu_met, long_met = (True, 3.0, "3.00 vs 1.00", "yes"), (True, 5.0, "5.00 vs 1.00 (cpu-long)", "yes")
    assert learn.readme_choice([cpu_met, long_met]) == ("3.00 vs 1.00", "yes")  # the cheaper budget that made it
    assert learn.readme_choice([(False, 9.0, "9.00 vs 4.00", "no"), long_met]) == long_met[2:]


# Commands as runs recorded them (`wadgym train` records its sessions' argv; bench/learn.py's --adopt joins
# them), and as a user types them in a checkout: no folder of the machine that made them.
RECORDED = [
    ("learn.py --env DoomItemsMaze-v1 --budget cpu-long --seeds 1 --runs /work/runs-long --docs /work/bench-docs-maze "
     "&& wadgym train --resume /work/runs-long/DoomItemsMaze-v1_cpu-long_s0_20261203-054116 --no-progress",
     "python bench/learn.py --env DoomItemsMaze-v1 --budget cpu-long --seeds 1 --runs runs-long "
     "&& wadgym train --resume runs-long/DoomItemsMaze-v1_cpu-long_s0_20261203-054116 --no-progress"),
    ("wadgym train --env DoomExit-v0 --run-dir /tmp/exitwork/runs/a4 --hp torch_threads=1 n_epochs=3",
     "wadgym train --env DoomExit-v0 --run-dir runs/a4 --hp torch_threads=1 n_epochs=3"),
    ("/usr/bin/python3 /work/main/bench/generalization.py --env DoomItems-v1 --conf-file=/tmp/c/tiny.yml "
     "--docs=/tmp/d --runs /tmp/gen",
     "python bench/generalization.py --env DoomItems-v1 --conf-file=tiny.yml --runs gen"),
    ("__main__.py eval /tmp/x/runs/DoomItems-v1_s0 --adopt /srv/a/r1 /srv/b/r2 --env-kwargs wad=/home/me/maps/a.wad",
     "wadgym eval runs/DoomItems-v1_s0 --adopt a/r1 b/r2 --env-kwargs wad=a.wad"),
    ("wadgym acs compile -i /home/me/acs/include /home/me/acs/map.acs", "wadgym acs compile -i include map.acs"),
]


@pytest.mark.parametrize("recorded, typed", RECORDED)
def test_a_recorded_command_is_written_as_a_user_types_it(learn, recorded, typed):
    assert learn.typed_command(recorded) == typed
    assert learn.typed_command(typed) == typed   # already as typed: kept


def test_a_command_with_nothing_to_type_is_kept_as_it_was(learn):
    for command in ("python bench/learn.py --env DoomDefend-v0 --budget cpu --seeds 1 --first-seed 0",
                    "wadgym train --hp 'policy_kwargs=dict(net_arch=[64, 64])'  --no-progress",
                    "wadgym train --run-dir runs/defend_a && wadgym eval runs/defend_a"):
        assert learn.typed_command(command) == command


def test_a_path_is_typed_from_the_checkout_else_by_name(learn, tmp_path, monkeypatch):
    assert learn.typed_path(learn.ROOT / "runs" / "bench" / "X", run_folder=True) == "runs/bench/X"
    assert learn.typed_path("/work/runs-long") == "runs-long"
    assert learn.typed_path("/work/runs-long/X", run_folder=True) == "runs-long/X"
    monkeypatch.chdir(learn.ROOT / "docs")   # a relative path is taken from the current folder
    assert learn.typed_path("../runs/bench") == "runs/bench"
    monkeypatch.chdir(tmp_path)
    assert learn.typed_path("bench-runs") == "bench-runs" and learn.typed_path(".") == tmp_path.name


TINY = {"n_envs": 2, "n_timesteps": 128, "policy": "CnnPolicy", "frame_stack": 2, "n_steps": 64, "batch_size": 64,
        "n_epochs": 1, "policy_kwargs": ("dict(features_extractor_class=SmallCNN, "
                                         "features_extractor_kwargs=dict(features_dim=32), net_arch=[])"),
        "env_kwargs": {"resolution": [30, 40], "num_levels": 200}}


def test_a_new_row_names_its_command_and_run_folder_as_a_user_types_them(learn, tmp_path, monkeypatch):
    """A tiny real run into a --runs folder outside the checkout, given by its absolute path: the row names
    it by name (`--runs runs`, runs/NAME), and neither the JSON nor the table names a folder of this machine."""
    import shlex

    import yaml

    conf = tmp_path / "tiny.yml"
    conf.write_text(yaml.safe_dump({"DoomItems-v1": TINY}))
    monkeypatch.setattr(learn, "hyperparams_file", lambda budget: conf)   # the budget's entry, at a tiny scale
    docs = tmp_path / "docs"
    assert learn.main(["--env", "DoomItems-v1", "--seeds", "1", "--episodes", "1", "--runs", str(tmp_path / "runs"),
                       "--docs", str(docs)]) == 0
    data = json.loads((docs / "benchmark.json").read_text())
    row = data["runs"]["DoomItems-v1/cpu/seed0"]
    name = row["run_dir"].rpartition("/")[2]
    assert row["run_dir"] == f"runs/{name}" and (tmp_path / "runs" / name / "config.yml").is_file()
    assert row["command"] == ("python bench/learn.py --env DoomItems-v1 --budget cpu --seeds 1 --first-seed 0 "
                              "--runs runs")
    assert not [word for word in shlex.split(row["command"]) if word.startswith("/")]
    table = (docs / "benchmark.md").read_text()
    assert f"- `{row['command']}`" in table and row["timesteps"] >= 128
    for text in (json.dumps(data), table):
        assert str(tmp_path) not in text and str(learn.ROOT) not in text


def test_the_demos_budgets_record_the_dataset_once_and_clone_it_before_ppo_or_alone(learn, tmp_path, monkeypatch):
    """Tiny real runs: --budget demos records the scripted expert's dataset (its steps and recording time in the
    row and the JSON's datasets), clones it, then trains PPO; --budget demos-bc reuses that dataset (not recorded
    again) and clones alone; the table labels both rows as learnt with privileged demonstrations."""
    pytest.importorskip("minari")
    import yaml

    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "datasets"))
    conf = tmp_path / "tiny.yml"
    conf.write_text(yaml.safe_dump({"DoomItems-v1": {**TINY, "demos": {"episodes": 2, "epochs": 1}}}))
    monkeypatch.setattr(learn, "hyperparams_file", lambda budget: conf)
    docs = tmp_path / "docs"
    common = ["--env", "DoomItems-v1", "--seeds", "1", "--episodes", "1", "--runs", str(tmp_path / "runs"),
              "--docs", str(docs)]
    assert learn.main([*common, "--budget", "demos"]) == 0
    data = json.loads((docs / "benchmark.json").read_text())
    row = data["runs"]["DoomItems-v1/demos (2 episodes)/seed0"]
    dataset = data["datasets"]["wadgym-bench/DoomItems_v1-scripted-train-2ep-v0"]
    assert dataset["episodes"] == 2 and dataset["steps"] > 0 and dataset["recording_s"] > 0
    run_dir = tmp_path / "runs" / row["run_dir"].partition("/")[2]
    assert row["demos"] == {**dataset, "epochs": 1, **learn.cloning(run_dir)}
    assert row["demos"]["cloning_s"] > 0 and 0 <= row["demos"]["cloning_accuracy"] <= 1 and row["timesteps"] >= 128
    assert row["command"] == ("python bench/learn.py --env DoomItems-v1 --budget demos --demo-episodes 2 --seeds 1 "
                              "--first-seed 0 --runs runs")
    config = yaml.safe_load((run_dir / "config.yml").read_text())
    assert config["pretrain"]["dataset"] == dataset["dataset"]

    assert learn.main([*common, "--budget", "demos-bc"]) == 0
    data = json.loads((docs / "benchmark.json").read_text())
    assert data["datasets"] == {dataset["dataset"]: dataset}   # the same dataset, not recorded again
    clone = data["runs"]["DoomItems-v1/demos-bc (2 episodes)/seed0"]
    assert clone["timesteps"] == 0 and clone["demos"]["dataset"] == dataset["dataset"]
    table = (docs / "benchmark.md").read_text()
    lines = [line for line in table.splitlines() if line.startswith("| DoomItems-v1 | items | demos")]
    assert len(lines) == 2
    assert all("with demonstrations from the scripted expert (privileged information)" in line for line in lines)
    assert any("cloning alone" in line for line in lines) and any("128 PPO steps" in line for line in lines)
    assert all("epochs of cloning (" in line and "accuracy" in line for line in lines)


def test_a_bad_demos_entry_or_a_size_without_a_demos_budget_is_refused(learn, tmp_path, monkeypatch):
    import yaml

    conf = tmp_path / "bad.yml"
    conf.write_text(yaml.safe_dump({"DoomItems-v1": {**TINY, "demos": {"episode": 2}}}))
    monkeypatch.setattr(learn, "hyperparams_file", lambda budget: conf)
    with pytest.raises(ValueError, match="demos has unknown key.s. episode; valid: policy, episodes, levels, epochs"):
        learn.demo_settings("DoomItems-v1", "demos")
    conf.write_text(yaml.safe_dump({"DoomItems-v1": {**TINY, "demos": {"episodes": 0}}}))
    with pytest.raises(ValueError, match="demos episodes=0 is not valid"):
        learn.demo_settings("DoomItems-v1", "demos")
    with pytest.raises(SystemExit):
        learn.main(["--env", "DoomItems-v1", "--demo-episodes", "5", "--docs", str(tmp_path)])


def test_against_bots_the_bar_also_asks_for_the_median_bots_frags(learn):
    assert learn.verdict(2.0, 0.0, 3.9) == "yes (51% of scripted)"   # no opponents: as before
    assert learn.verdict(2.0, 0.0, 3.9, 1.6) == "yes (51% of scripted; at least the median opponent's 1.60)"
    assert learn.verdict(2.0, 0.0, 3.9, 2.5) == "no (51% of scripted; below the median opponent's 2.50)"
    assert learn.verdict(1.0, 0.0, 3.9, 0.5) == "no (26% of scripted; at least the median opponent's 0.50)"
    assert learn.verdict(1.0, 0.0, None, 0.5) == "no (at least the median opponent's 0.50)"   # no reference
    summaries = [{"score_mean": 2.0, "opponents_median_mean": 1.0}, {"score_mean": 2.0, "opponents_median_mean": 2.0}]
    assert learn.opponents(summaries) == 1.5 and learn.opponents([{"score_mean": 1.0}]) is None


def kept_row(env_id: str, trained: list[float], random: list[float], scripted: list[float]) -> dict:
    """A row whose evaluation kept its per-episode scores, the same on the test and the training levels."""
    def summary(scores: list[float]) -> dict:
        return {"score_mean": sum(scores) / len(scores), "score_std": 0.0, "return_mean": 0.0, "return_std": 0.0,
                "length_mean": 1.0, "episodes": [{"seed": i, "score": s} for i, s in enumerate(scores)]}

    made = row(env_id, 0.0)
    made["eval"] = {"episodes": len(trained), "seeds": [0, len(trained) - 1],
                    **{split: {"trained": summary(trained), "random": summary(random),
                               "scripted": summary(scripted)} for split in ("test", "train")}}
    return made


def test_the_bar_is_decided_on_the_trained_policys_interval(learn, tmp_path):
    """Random scores 1 in every episode: the bar is 3. Episodes well above it meet it, well below miss it, and
    spread across it leave it not decided; the table shows the IQM and its interval beside the mean, and lists
    the undecided id apart from those below the bar."""
    from harness import Estimate

    # the mean's interval decides (the IQM's is shown in its own column)
    assert learn.verdict(Estimate(mean=3.0, iqm=3.2, low=2.5, high=4.0, mean_low=2.5, mean_high=4.0), 1.0, 10.0) == \
        "not decided (3.0x random [2.5x, 4.0x]; 30% of scripted)"
    assert learn.verdict(Estimate(mean=3.2, iqm=2.0, low=1.0, high=2.5, mean_low=3.0, mean_high=4.0), 1.0, None) == \
        "yes (3.2x random [3.0x, 4.0x])"
    ones, scripted = [1.0] * 12, [10.0] * 12
    rows = {"DoomItems-v1/cpu/seed0": kept_row("DoomItems-v1", [5.0, 6.0] * 6, ones, scripted),
            "DoomHealth-v0/cpu/seed0": kept_row("DoomHealth-v0", [1.0, 2.0, 3.0, 4.0, 5.0, 3.0] * 2, ones, scripted),
            "DoomDefend-v0/cpu/seed0": kept_row("DoomDefend-v0", [1.0, 2.0] * 6, ones, scripted)}
    json_path = tmp_path / "benchmark.json"
    json_path.write_text(json.dumps({"runs": rows}))
    learn.write_table(json_path, tmp_path / "benchmark.md", tmp_path / "curves.png")
    table = (tmp_path / "benchmark.md").read_text()
    line = {env_id: next(text for text in table.splitlines() if text.startswith(f"| {env_id} | "))
            for env_id in ("DoomItems-v1", "DoomHealth-v0", "DoomDefend-v0")}
    assert "| yes (5.5x random [" in line["DoomItems-v1"] and "| 5.50 [" in line["DoomItems-v1"]
    assert "| not decided (3.0x random [" in line["DoomHealth-v0"]
    assert "| no (1.5x random [" in line["DoomDefend-v0"]
    assert "| 1.00 |" in line["DoomItems-v1"]   # P(trained > random): every episode beats random's 1
    below, _, undecided = table.partition("Below the bar with every budget run so far")[2].partition(
        "Not decided with any budget run so far")
    assert "- DoomDefend-v0: 1.5x random [" in below and "DoomHealth-v0" not in below
    assert "- DoomHealth-v0: 3.0x random [" in undecided and "DoomDefend-v0" not in undecided
    assert "## How figures are decided" in table


def test_match_plays_a_bots_run_in_the_fields_setting_and_the_page_sets_it_beside_theirs(learn, tmp_path):
    """--match on a tiny real DoomDeathmatchBots-v0 run (here 1 match of 0.05 minutes against 2 bots; the field's
    is 4 minutes against 7): the row keeps each policy's matches in the field's units, and the page shows them
    beside Sample Factory's and doom-arena's figures, with their sources; the score cell has frags/min and K/D."""
    import yaml

    from wadgym.agents import TrainConfig, train
    from wadgym.envs.match_figures import pooled

    conf = tmp_path / "tiny.yml"
    tiny = {**TINY, "n_envs": 1, "n_timesteps": 64, "env_kwargs": {"resolution": [30, 40], "num_levels": 2}}
    conf.write_text(yaml.safe_dump({"DoomDeathmatchBots-v0": tiny}))
    run_dir = tmp_path / "runs" / "bots"
    train(TrainConfig(env="DoomDeathmatchBots-v0", conf_file=conf, run_dir=run_dir, eval_episodes=0, progress=False))
    made = row("DoomDeathmatchBots-v0", 1.0)
    made["run_dir"], made["score_name"] = "runs/bots", "frags"   # by name in --runs, as a recorded row names it
    figures = {"frags": 2, "deaths": 4, "suicides": 0, "kills": 2, "damage_dealt": 200, "damage_taken": 400,
               "minutes": 1.0, "episodes": 2}
    for split in ("test", "train"):
        made["eval"][split]["trained"]["match"] = pooled([figures])
    json_path, docs = tmp_path / "docs" / "benchmark.json", tmp_path / "docs"
    docs.mkdir()
    json_path.write_text(json.dumps({"runs": {"DoomDeathmatchBots-v0/cpu/seed0": made}}))
    assert learn.main(["--env", "DoomDeathmatchBots-v0", "--match", "--match-bots", "2", "--match-minutes", "0.05",
                       "--episodes", "1", "--runs", str(tmp_path / "runs"), "--docs", str(docs)]) == 0
    played = json.loads(json_path.read_text())["runs"]["DoomDeathmatchBots-v0/cpu/seed0"]["match"]
    assert (played["bots"], played["minutes"], played["episodes"]) == (2, 0.05, 1)
    for player in ("trained", "random", "scripted"):
        m = played[player]["match"]
        assert m["minutes"] == pytest.approx(27 * 4 / 2100) and m["episodes"] == 1   # the match clock: 27 steps
        assert played[player]["episodes"][0]["length"] == 27 and m["frags"] == played[player]["score_mean"]
    table = (docs / "benchmark.md").read_text()
    assert "(2.00 frags/min, K/D 0.50) |" in table   # the row's own evaluation: frags/min and K/D beside the score
    section = table.partition(learn.MATCH_SECTION)[2]
    assert "| DoomDeathmatchBots-v0 | cpu | 0 | 1 x 0.05 min, 2 bots |" in section
    assert "https://github.com/wendlerc/doom-arena" in section and "sample-factory" in section
