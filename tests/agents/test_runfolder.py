"""Run-folder files: written atomically, read back as written."""

from __future__ import annotations

import os
import stat

import pytest

from wadgym.agents import runfolder
from wadgym.files import atomic_path


def test_atomic_path_renames_on_success_and_leaves_nothing_on_failure(tmp_path):
    target = tmp_path / "sub" / "model.zip"
    with atomic_path(target) as temporary:
        assert temporary.parent == target.parent and temporary.suffix == ".zip" and not temporary.exists()
        temporary.write_bytes(b"new")
        assert not target.exists()  # nothing half-written under the real name
    assert target.read_bytes() == b"new" and os.listdir(target.parent) == ["model.zip"]
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask  # not mkstemp's 0600

    with pytest.raises(RuntimeError), atomic_path(target) as temporary:
        temporary.write_bytes(b"half")
        raise RuntimeError("the writer failed")
    assert target.read_bytes() == b"new" and os.listdir(target.parent) == ["model.zip"]


def test_episodes_read_back_from_the_sessions_monitor_files_in_time_order(tmp_path):
    first = runfolder.monitor_writer(tmp_path, "DoomItems-v0", ("score",), t_start=1000.0)
    first.write_row({"r": 2.5, "l": 300, "t": 5.0, "score": 3})
    first.write_row({"r": -1.0, "l": 17, "t": 9.5, "score": 0})
    first.close()
    second = runfolder.monitor_writer(tmp_path, "DoomItems-v0", ("score",), t_start=1100.0)  # a --resume
    second.write_row({"r": 1.0, "l": 100, "t": 1.0, "score": 1})
    second.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train_1.monitor.csv", "train_2.monitor.csv"]
    read = runfolder.read_episodes(tmp_path)
    # timesteps: SB3's ts2xy convention, the cumulative sum of the lengths in time order
    assert [(e["timesteps"], e["score"], e["return"], e["length"], e["time"]) for e in read] == [
        (300, 3, 2.5, 300, 5.0), (317, 0, -1.0, 17, 9.5), (417, 1, 1.0, 100, 101.0)]
    assert [type(read[0][k]) for k in ("timesteps", "score", "return", "length")] == [int, int, float, int]


def test_episodes_csv_of_a_run_from_before_the_monitor_files_is_still_read(tmp_path):
    episodes = [{"timesteps": 600, "score": 3, "return": 2.5, "length": 300},
                {"timesteps": 1200, "score": None, "return": -1.0, "length": 17}]
    (tmp_path / "episodes.csv").write_text("timesteps,score,return,length\n600,3,2.5,300\n1200,,-1.0,17\n")
    read = runfolder.read_episodes(tmp_path)
    assert read == episodes
    assert [type(v) for v in read[0].values()] == [int, int, float, int]
    resumed = runfolder.monitor_writer(tmp_path, "DoomItems-v0", ("score",), t_start=1000.0)  # resumed since
    resumed.write_row({"r": 1.0, "l": 50, "t": 2.0, "score": 1})
    resumed.close()
    assert [(e["timesteps"], e["score"]) for e in runfolder.read_episodes(tmp_path)] == [(600, 3), (1200, None),
                                                                                      (1250, 1)]
