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
