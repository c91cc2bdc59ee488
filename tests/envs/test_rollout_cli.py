"""`wadgym rollout`: seeded headless episodes with a random policy, a table of results, an optional MP4."""

from __future__ import annotations

import re

from wadgym.cli import main

# episode, seed, level seed, return, score, length (then steps/s)
ROW = re.compile(r"^\s+(\d+)\s+(\d+)\s+(\d+|-)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(\d+)\s+\d+$", re.MULTILINE)


def rollout(capsys, *args) -> tuple[int, str, str]:
    code = main(["rollout", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_rollout_prints_each_episode_and_writes_a_video(capsys, tmp_path, wad_cache):
    video = tmp_path / "out.mp4"
    args = ["DoomItems-v0", "--episodes", "2", "--seed", "4", "-k", f"cache_dir={wad_cache}",
            "-k", "max_episode_steps=40"]
    code, out, _ = rollout(capsys, *args, "--video", str(video))
    assert code == 0
    rows = ROW.findall(out)
    assert [(r[0], r[1], r[2], r[5]) for r in rows] == [("0", "4", "0", "40"), ("1", "5", "0", "40")]
    assert "mean" in out and video.stat().st_size > 1000
    again = ROW.findall(rollout(capsys, *args)[1])
    assert [r[:6] for r in again] == [r[:6] for r in rows]  # the same seed, the same episodes


def test_rollout_reports_bad_input(capsys, wad_cache):
    code, _, err = rollout(capsys, "DoomItems-v0", "-k", "n_items=99", "-k", f"cache_dir={wad_cache}")
    assert code == 2 and "n_items=99 is out of range" in err
    code, _, err = rollout(capsys, "DoomItems-v0", "--policy", "mine", "-k", f"cache_dir={wad_cache}")
    assert code == 2 and "--policy 'mine'" in err
    code, _, err = rollout(capsys, "DoomNothing-v0")
    assert code == 2 and "DoomNothing" in err
