"""bench/harness.py: rliable's IQM and its seeded stratified bootstrap interval against a hand computation, the
probability of improvement, the verdict's three outcomes, and the results store's atomic writes and resumed grid."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

# 2 seeds x 4 episodes. Sorted: 0 1 2 3 4 5 6 100; the IQM drops the lowest and the highest quarter (2 scores
# each) and averages the middle: (2 + 3 + 4 + 5) / 4 = 3.5, where the mean is 121 / 8 = 15.125.
TINY = [[0, 1, 2, 100], [3, 4, 5, 6]]


def test_the_iqm_is_the_mean_of_the_middle_half_and_its_interval_holds_it(harness):
    figure = harness.iqm_interval(TINY)
    assert figure.iqm == 3.5 and figure.mean == 15.125
    assert (figure.seeds, figure.episodes) == (2, 4)
    assert figure.low <= figure.iqm <= figure.high and figure.low < figure.high
    assert figure.cell() == f"3.50 [{figure.low:.2f}, {figure.high:.2f}]"
    # the mean decides, with its own interval
    assert figure.point == 15.125 and figure.mean_low <= figure.mean <= figure.mean_high
    assert figure.bounds == (figure.mean_low, figure.mean_high)
    assert harness.iqm_interval(TINY, interval=False).low is None   # the IQM alone: no resampling


def test_the_interval_is_the_same_every_time_and_leaves_numpys_random_state_alone(harness):
    first = harness.iqm_interval(TINY)
    harness._iqm_interval.cache_clear()   # computed again, not remembered
    np.random.seed(123)                   # whatever state numpy's global generator is in ...
    before = np.random.get_state()[1].copy()
    again = harness.iqm_interval(TINY)
    assert (again.low, again.high) == (first.low, first.high)   # ... the resampling is seeded
    assert (np.random.get_state()[1] == before).all()            # ... and the state is given back


def test_the_interval_narrows_with_more_episodes_of_the_same_spread(harness):
    pattern = [0, 1, 2, 3, 4, 5, 6, 7]
    few, many = harness.iqm_interval([pattern]), harness.iqm_interval([pattern * 8])
    assert few.iqm == many.iqm == 3.5   # the middle half of either: 2, 3, 4, 5 in the same proportions
    assert many.low <= many.iqm <= many.high
    assert many.high - many.low < few.high - few.low


def test_several_seeds_make_the_interval_resample_the_seeds_too(harness):
    """Seeds that disagree widen the interval beyond what one seed's episodes give: the seeds are resampled."""
    seed = [4, 5, 5, 6, 4, 5, 5, 6]
    alike = harness.iqm_interval([seed, seed, seed])
    apart = harness.iqm_interval([seed, [v + 10 for v in seed], [v + 20 for v in seed]])
    assert apart.low <= apart.iqm <= apart.high
    assert apart.high - apart.low > 2 * (alike.high - alike.low)


def test_binary_scores_are_decided_on_the_mean_not_on_an_iqm_of_zero(harness):
    """11 exits in 50 episodes: the IQM is 0 by construction; the mean 0.22 and its interval decide."""
    figure = harness.iqm_interval([[0] * 39 + [1] * 11])
    assert figure.iqm == 0.0 and figure.point == 0.22
    assert 0.0 < figure.mean_low < 0.22 < figure.mean_high < 0.5
    assert harness.decide(figure, 0.05) == "yes" and harness.decide(figure, 0.5) == "no"


def test_rows_without_per_episode_scores_give_the_mean_alone(harness):
    assert harness.estimate([1.0, 3.0], [[], []]).cell() == "mean only"
    assert harness.estimate([1.0, 3.0], [[1, 1], None]).point == 2.0       # one seed kept none: the mean
    assert harness.estimate([1.0, 3.0], [[1, 1], [3, 3, 3]]).iqm is None    # unequal episodes: the mean
    kept = harness.estimate([15.25, 4.5], TINY)
    assert kept.iqm == 3.5 and kept.mean == 9.875   # the mean: of the seeds' recorded means
    with pytest.raises(ValueError, match="runs x episodes matrix"):
        harness.iqm_interval([[1, 2], [3]])


def test_probability_of_improvement_counts_ties_half(harness):
    # x=2 beats 1 and ties 2: 1.5; x=3 beats 1, 2 and ties 3: 2.5; x=4 beats all three: 3. (1.5+2.5+3)/9 = 7/9
    better = harness.improvement([2, 3, 4], [1, 2, 3])
    assert better.probability == pytest.approx(7 / 9)
    assert better.low <= better.probability <= better.high
    assert harness.improvement([5, 5], [5, 5]).probability == 0.5
    assert harness.improvement([1], [2], interval=False).cell() == "0.00"


def test_a_verdict_is_yes_no_or_not_decided_on_the_interval(harness):
    figure = harness.Estimate(mean=3.0, iqm=3.0, low=2.0, high=4.0, mean_low=2.0, mean_high=4.0)
    assert harness.decide(figure, 1.5) == harness.MEETS == "yes"          # the lower bound clears the bar
    assert harness.decide(figure, 4.5) == harness.MISSES == "no"          # the upper bound stays below it
    assert harness.decide(figure, 3.5) == harness.UNDECIDED == "not decided"   # the interval straddles it
    assert harness.decide(figure, 2.0) == "yes" and harness.decide(figure, 2.0, strict=True) == "not decided"
    assert harness.decide(figure, 4.0) == "not decided" and harness.decide(figure, 4.0, strict=True) == "no"
    assert harness.decide(harness.Estimate(mean=3.0), 3.5) == "no"   # means only: the mean decides
    assert harness.combine("yes", "not decided") == "not decided" and harness.combine("not decided", "no") == "no"


def test_the_store_replaces_its_file_whole_and_a_failed_write_keeps_the_old_one(harness, tmp_path):
    store = harness.ResultsStore(tmp_path / "results.json", baselines={})
    assert store.load() == {"runs": {}, "baselines": {}} and not store.keys()
    store.record("a/cpu/seed0", {"score": 1})
    inode = os.stat(store.path).st_ino
    store.record("a/cpu/seed1", {"score": 2})
    assert os.stat(store.path).st_ino != inode   # a new file renamed over the old, not written in place
    assert store.keys() == {"a/cpu/seed0", "a/cpu/seed1"}
    before = store.path.read_text()
    looped: dict = {"score": 3}
    looped["self"] = looped
    with pytest.raises(ValueError, match="Circular reference"):
        store.record("a/cpu/seed2", looped)
    assert store.path.read_text() == before and os.listdir(tmp_path) == ["results.json"]   # no partial file
    assert json.loads(before)["runs"]["a/cpu/seed1"] == {"score": 2}


def test_a_rerun_keeps_the_row_it_replaces_where_the_store_keeps_them(harness, tmp_path):
    store = harness.ResultsStore(tmp_path / "results.json", replaced="replaced")
    assert store.load() == {"runs": {}, "replaced": {}}
    store.record("p/original/seed0", {"run_dir": "old", "eval": None})
    store.record("p/original/seed0", {"run_dir": "old", "eval": {"original": 1.0}})   # its evaluation: same run
    assert store.load()["replaced"] == {}
    store.record("p/original/seed0", {"run_dir": "new", "eval": None})                # a rerun
    data = store.load()
    assert data["runs"]["p/original/seed0"]["run_dir"] == "new"
    assert data["replaced"] == {"p/original/seed0@old": {"run_dir": "old", "eval": {"original": 1.0}}}
    plain = harness.ResultsStore(tmp_path / "plain.json")   # a store that keeps none replaces the row alone
    plain.record("k", {"run_dir": "old"})
    plain.record("k", {"run_dir": "new"})
    assert plain.load() == {"runs": {"k": {"run_dir": "new"}}}


def test_rows_set_aside_keep_their_own_key_and_leave_when_made_the_row(harness, tmp_path):
    # learn.py's attempts: keyed by run folder alone; a run recorded aside leaves the table's rows as they are
    store = harness.ResultsStore(tmp_path / "results.json", replaced="attempts",
                                 replaced_key=lambda key, row: row["run_dir"])
    store.record("a/cpu/seed0", {"run_dir": "first"})
    store.record("a/cpu/seed0", {"run_dir": "other", "score": 3}, aside=True)
    assert store.load() == {"runs": {"a/cpu/seed0": {"run_dir": "first"}},
                            "attempts": {"other": {"run_dir": "other", "score": 3}}}
    store.record("a/cpu/seed0", {"run_dir": "other", "score": 3})   # adopted: the row, no longer an attempt
    assert store.load() == {"runs": {"a/cpu/seed0": {"run_dir": "other", "score": 3}},
                            "attempts": {"first": {"run_dir": "first"}}}
    with pytest.raises(ValueError, match="keeps no replaced rows"):
        harness.ResultsStore(tmp_path / "plain.json").record("k", {"run_dir": "x"}, aside=True)
    assert not (tmp_path / "plain.json").exists()


def test_the_grid_runs_seed_by_seed_or_setting_by_setting(harness):
    keys = [cell.key for cell in harness.grid(["a"], ["x", "y"], range(2))]
    assert keys == ["a/x/seed0", "a/x/seed1", "a/y/seed0", "a/y/seed1"]
    keys = [cell.key for cell in harness.grid(["a"], [10, 0], range(2), seed_major=True, tag=lambda n: f"n{n}")]
    assert keys == ["a/n10/seed0", "a/n0/seed0", "a/n10/seed1", "a/n0/seed1"]
    cells = list(harness.grid(["a", "b"], lambda name: [name.upper()], lambda name: range(2 if name == "a" else 1)))
    assert [(c.name, c.setting, c.seed) for c in cells] == [("a", "A", 0), ("a", "A", 1), ("b", "B", 0)]


def test_a_resumed_grid_skips_what_the_store_holds_even_rows_recorded_meanwhile(harness, tmp_path, capsys):
    store = harness.ResultsStore(tmp_path / "results.json")
    store.record("a/cpu/seed0", {})
    cells = harness.grid(["a", "b"], ["cpu"], range(2))
    ran = []
    for cell in store.pending(cells):
        ran.append(cell.key)
        if cell.key == "a/cpu/seed1":
            store.record("b/cpu/seed1", {})   # as another session would, while this one runs
        store.record(cell.key, {})
    assert ran == ["a/cpu/seed1", "b/cpu/seed0"]
    assert capsys.readouterr().out.count("done, skipped") == 2
    assert len(list(store.pending(harness.grid(["a"], ["cpu"], range(2)), skip_done=False))) == 2


def test_the_common_flags_are_one_set_and_bad_counts_are_refused(harness, capsys):
    import argparse

    parser = argparse.ArgumentParser()
    harness.add_common_arguments(parser, outputs="x.md", runs="runs/x", seeds=3, conf_file=True, dry_run=True)
    args = parser.parse_args(["--seeds", "2", "--budget", "cpu-long", "--skip-done", "--table-only"])
    assert (args.seeds, args.first_seed, args.episodes, args.budget, args.runs) == (2, 0, 50, "cpu-long", "runs/x")
    assert args.skip_done and args.table_only and not args.dry_run and args.conf_file is None
    with pytest.raises(SystemExit):
        harness.check_common_arguments(parser, parser.parse_args(["--episodes", "0"]))
    assert "--episodes 0: must be at least 1" in capsys.readouterr().err


def test_a_train_config_is_logged_as_its_wadgym_train_command(harness):
    from wadgym.agents import TrainConfig

    config = TrainConfig(env="DoomItems-v1", seed=2, conf_file="tiny.yml", env_kwargs={"num_levels": 10},
                         eval_episodes=0, progress=False)
    assert harness.train_command(config) == ("wadgym train --env DoomItems-v1 --seed 2 --conf-file tiny.yml "
                                             "--env-kwargs num_levels=10 --eval-episodes 0 --no-progress")


def test_a_rewritten_page_keeps_its_hand_written_section_as_it_was(harness, tmp_path):
    page = tmp_path / "page.md"
    harness.write_page(page, ["# Title", "", *harness.markdown_table(["a", "b"], [[1, 2]])], keep="## Reading")
    assert page.read_text() == "# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    page.write_text(page.read_text() + "\n## Reading\n\nBy hand: mentions ## Reading inline.\n\n")
    harness.write_page(page, ["# Title", "", "new"], keep="## Reading")
    assert page.read_text() == "# Title\n\nnew\n\n## Reading\n\nBy hand: mentions ## Reading inline.\n\n"


def test_a_rows_commit_is_the_one_its_training_started_from(harness, tmp_path):
    """trained_commit: the run folder's meta.json (the code that trained, which the checkout may have left by the
    time the row is written), short and "-dirty" as recorded; the checkout's own where the folder does not say."""
    run = tmp_path / "run"
    run.mkdir()
    assert harness.trained_commit(run) == harness.git_commit()
    (run / "meta.json").write_text(json.dumps({"git": {"commit": "0123456789abcdef", "dirty": False}}))
    assert harness.trained_commit(run) == "0123456"
    (run / "meta.json").write_text(json.dumps({"git": {"commit": "fedcba9876543210", "dirty": True}}))
    assert harness.trained_commit(run) == "fedcba9-dirty"
    (run / "meta.json").write_text(json.dumps({"git": {"commit": None, "dirty": None}}))
    assert harness.trained_commit(run) == harness.git_commit()
