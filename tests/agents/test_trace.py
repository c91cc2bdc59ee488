"""`wadgym eval --trace`: where the trained policy went, each episode's positions over its map's lines."""

from __future__ import annotations

import numpy as np

from wadgym.cli import main


def test_paths_hold_a_position_per_step_inside_the_map_played(trained_run):
    """play_episodes' paths: one per episode, a position after every step (the engine's, as the env's info
    gives it), the episode's own level and its walls (read from its WAD while it was played: held-out levels
    keep theirs only that long), which bound every position."""
    from wadgym.agents.episodes import play_episodes
    from wadgym.agents.evaluate import split_kwargs
    from wadgym.agents.policies.policy import SavedPolicy
    from wadgym.agents.vec import close_vec_env
    from wadgym.envs.doom_env import map_name

    policy = SavedPolicy(trained_run)
    venv = policy.make_vec_env(split_kwargs(policy.env_id, policy.env_kwargs, "test"))
    paths: list = []
    try:
        episodes = play_episodes(venv, policy, [0, 1], paths=paths)
    finally:
        close_vec_env(venv)
    assert [p["seed"] for p in paths] == [0, 1] and [p["score"] for p in paths] == [e["score"] for e in episodes]
    for path, episode in zip(paths, episodes):
        assert len(path["positions"]) == episode["length"] and path["map"] == map_name(episode["level_seed"])
        walls = np.array([w[:4] for w in path["walls"]])
        xy = np.array(path["positions"])
        assert walls[:, [0, 2]].min() <= xy[:, 0].min() and xy[:, 0].max() <= walls[:, [0, 2]].max()
        assert walls[:, [1, 3]].min() <= xy[:, 1].min() and xy[:, 1].max() <= walls[:, [1, 3]].max()
    moved = np.linalg.norm(np.diff(np.array(paths[0]["positions"]), axis=0), axis=1)
    assert moved.max() > 0   # the positions follow the player, not the start


def test_eval_trace_draws_the_paths_on_generated_levels_and_on_a_hand_made_map(trained_run, tmp_path, capsys):
    from wadgym.wads import iwad

    levels, hand_made = tmp_path / "levels.png", tmp_path / "map.png"
    assert main(["eval", str(trained_run), "--episodes", "2", "--trace", str(levels)]) == 0
    assert main(["eval", str(trained_run), "--wad", iwad.iwad_path(), "--episodes", "1", "--trace",
                 str(hand_made)]) == 0
    out = capsys.readouterr().out
    assert f"paths: {levels}" in out and f"paths: {hand_made}" in out
    for png in (levels, hand_made):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    assert main(["eval", str(trained_run), "--trace", str(tmp_path / "paths.jpg")]) == 2
    assert "--trace" in capsys.readouterr().err and not (tmp_path / "paths.jpg").exists()


def test_step_length_is_the_mean_distance_moved_per_step():
    from wadgym.agents.episodes import step_length

    assert step_length([(0, 0), (3, 4), (3, 4)]) == 2.5 and step_length([(1, 1)]) == 0.0
