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


def test_episodes_read_back_as_written(tmp_path):
    episodes = [{"timesteps": 600, "score": 3, "return": 2.5, "length": 300},
                {"timesteps": 1200, "score": None, "return": -1.0, "length": 17}]
    runfolder.write_episodes(tmp_path, episodes)
    read = runfolder.read_episodes(tmp_path)
    assert read == episodes
    assert [type(v) for v in read[0].values()] == [int, int, float, int]
    runfolder.write_episodes(tmp_path, read)  # what --resume does: ints stay ints
    assert (tmp_path / "episodes.csv").read_text().splitlines()[1] == "600,3,2.5,300"
