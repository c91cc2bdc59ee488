"""A file that cannot be written (a full disk; here a file-size limit, RLIMIT_FSIZE, set on the child
process): the run stops with one line naming the file and the OS error, the previous checkpoint (or cached
WAD) is intact and readable, nothing half-written is left, and --resume continues once there is room."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

import yaml

from wadgym.agents import runfolder


def file_size_limit(limit: int):
    def limit_writes():  # in the child, before exec: files it writes may not grow past `limit` bytes
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return limit_writes


def temporary_files(folder) -> list[str]:
    return sorted(str(path) for path in folder.rglob("*") if ".tmp" in path.name)


def test_a_checkpoint_that_cannot_be_written_stops_the_run_and_keeps_the_previous_one(
        tmp_path, tiny_settings, env_id, process_session):
    hyperparams = tmp_path / "hp.yml"
    hyperparams.write_text(yaml.safe_dump({env_id: {**tiny_settings, "n_timesteps": 512}}))
    run = tmp_path / "run"
    command = [sys.executable, "-m", "wadgym.cli", "train", "--env", env_id, "--conf-file", str(hyperparams),
               "--run-dir", str(run), "--save-freq", "128", "--no-progress", "--seed", "0", "--eval-episodes", "0"]
    process = subprocess.Popen(command, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    session = process_session(process.pid)
    deadline = time.monotonic() + 60
    while runfolder.latest_checkpoint(run) is None:
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.02)
    # Once the first checkpoint is written (and the engines, whose shared memory is a 10 MB file, started):
    # no file the trainer writes may grow past half a checkpoint's size, so the next checkpoint cannot be.
    size = runfolder.latest_checkpoint(run)[1].stat().st_size
    resource.prlimit(process.pid, resource.RLIMIT_FSIZE, (size // 2, size // 2))
    steps, good = runfolder.latest_checkpoint(run)  # a checkpoint being written meanwhile failed: the one before
    good_bytes = good.read_bytes()
    out, err = process.communicate(timeout=120)
    assert process.returncode == 1, out + err
    assert session.leftovers() == []
    (line,) = [text for text in err.splitlines() if text.startswith("wadgym train: training failed")]
    assert "OSError: [Errno 27] File too large: '" in line and f"{run}/checkpoints/model_" in line
    assert "Traceback" not in err
    assert runfolder.latest_checkpoint(run) == (steps, good) and good.read_bytes() == good_bytes
    assert temporary_files(run) == []
    meta = json.loads((run / "meta.json").read_text())
    assert meta["status"] == "failed" and "File too large" in meta["error"]
    from stable_baselines3 import PPO

    assert PPO.load(good, device="cpu").num_timesteps == steps  # the previous checkpoint still loads

    # Room again: --resume continues from that checkpoint to the end.
    resumed = subprocess.run([*command, "--resume", str(run)], capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    meta = json.loads((run / "meta.json").read_text())
    assert meta["status"] == "finished" and meta["timesteps"] == 512
    assert meta["sessions"][-1]["from_steps"] == steps


CACHE_WRITE = '''
import sys
from wadgym.envs.runtime.cache import cached_wad

try:
    cached_wad("big", {"size": 200_000}, lambda: b"PWAD" + bytes(200_000), sys.argv[1])
except OSError as error:
    print(f"{type(error).__name__}: {error}")
    sys.exit(1)
'''


def test_a_wad_that_cannot_be_cached_names_the_file_and_leaves_the_cache_as_it_was(tmp_path):
    from wadgym.envs.runtime.cache import cached_wad, verified

    cache = tmp_path / "cache"
    small = cached_wad("small", {"size": 1000}, lambda: b"PWAD" + bytes(1000), cache)
    result = subprocess.run([sys.executable, "-c", CACHE_WRITE, str(cache)], capture_output=True, text=True,
                            timeout=60, preexec_fn=file_size_limit(100_000))
    assert result.returncode == 1, result.stdout + result.stderr
    (line,) = result.stdout.splitlines()
    assert line.startswith("OSError: [Errno 27] File too large: '") and f"{cache}/big-" in line and ".wad'" in line
    assert verified(small) and temporary_files(cache) == []
    assert not list(cache.glob("big-*"))
