"""`wadgym record` and datasets.record.record_dataset: Minari datasets of real episodes, loaded back with Minari's
own API, replayed on the env Minari recovers, the same seed giving the same data, Ctrl-C keeping the finished
episodes, and bad input refused before any engine starts. Every dataset goes under the test's own folder."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import gymnasium
import numpy as np
import pytest

minari = pytest.importorskip("minari", reason="needs the demos extra: pip install 'wadgym[demos]'")

from wadgym.agents.datasets.record import record_dataset  # noqa: E402
from wadgym.agents.evaluate import TEST_START_LEVEL  # noqa: E402
from wadgym.cli import main  # noqa: E402

ENV = "DoomItems-v1"  # its training levels: 0..199 (agents/hyperparams/ppo.yml)


@pytest.fixture(autouse=True)
def datasets_path(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "datasets"
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(path))
    return path


def episode_arrays(dataset) -> list[dict[str, np.ndarray]]:
    return [{"observations": e.observations, "actions": e.actions, "rewards": e.rewards,
             "terminations": e.terminations, "truncations": e.truncations, **e.infos} for e in dataset]


def assert_complete(dataset) -> None:
    """Every episode ends, and only at its last step, by the task or its time limit; its arrays line up; its
    infos hold the level and score."""
    space, actions = dataset.observation_space, dataset.action_space
    for episode in dataset:
        steps = len(episode.rewards)
        assert steps > 0 and episode.observations.shape == (steps + 1, *space.shape)
        assert episode.observations.dtype == space.dtype == np.uint8
        assert all(actions.contains(a) for a in episode.actions) and len(episode.actions) == steps
        ended = episode.terminations | episode.truncations
        assert ended[-1] and not ended[:-1].any()
        assert episode.terminations[-1] or steps == dataset.env_spec.max_episode_steps  # no episode cut short
        assert len(set(episode.infos["level_seed"].tolist())) == 1  # one level per episode
        assert len(episode.infos["score"]) == steps + 1


def test_scripted_dataset_loads_replays_and_recovers_its_env(datasets_path):
    seen = []
    result = record_dataset(ENV, "scripted", episodes=2, dataset_id="wadgym/items-scripted-v0", seed=5,
                            on_episode=seen.append)
    assert (result.episodes, result.interrupted) == (2, False)
    assert result.path == datasets_path / "wadgym" / "items-scripted-v0"

    dataset = minari.load_dataset("wadgym/items-scripted-v0")
    assert dataset.total_episodes == 2 and dataset.total_steps == result.steps
    assert_complete(dataset)
    meta = dataset.storage.metadata["wadgym"]
    assert meta["env_id"] == ENV and meta["env_kwargs"] == {"num_levels": 200} and meta["levels"] == "train"
    assert meta["policy"]["kind"] == "scripted" and meta["seed"] == 5 and meta["episode_seeds"] == [5, 6]
    assert meta["wadgym_version"] and "commit" in meta and meta["score_name"] == "items"
    episodes = list(dataset.storage.get_episode_metadata(range(2)))
    assert [e["seed"] for e in episodes] == [5, 6]
    for episode, summary, played in zip(dataset, episodes, seen):
        assert 0 <= summary["level_seed"] < 200
        assert summary["level_seed"] == episode.infos["level_seed"][-1] == played["level_seed"]
        assert summary["score"] == episode.infos["score"][-1] == played["score"]
        assert played["return"] == pytest.approx(float(episode.rewards.sum()))

    env = dataset.recover_environment()  # from the env spec Minari stored: the same id and kwargs
    try:
        assert env.spec.id == ENV and env.spec.kwargs == {"num_levels": 200}
        first = dataset[0]
        observation, info = env.reset(seed=5)
        assert info["level_seed"] == first.infos["level_seed"][0]
        replayed = [observation]
        for action in first.actions:  # the recorded actions on the recovered env: the same episode
            observation, reward, terminated, truncated, info = env.step(action)
            replayed.append(observation)
        assert np.array_equal(np.stack(replayed), first.observations)
        assert (terminated, truncated) == (bool(first.terminations[-1]), bool(first.truncations[-1]))
    finally:
        env.close()

    shown = subprocess.run([str(Path(sys.executable).with_name("minari")), "show", "wadgym/items-scripted-v0"],
                           capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "200"})
    assert shown.returncode == 0, shown.stderr
    assert "Total Episodes" in shown.stdout and ENV in shown.stdout


def test_the_same_command_writes_the_same_data_on_test_levels(datasets_path, capsys):
    def record(name: str, seed: int, *extra: str) -> int:
        return main(["record", ENV, "--policy", "random", "--episodes", "2", "--levels", "test", "--seed", str(seed),
                     "--dataset", f"wadgym/{name}-v0", "--no-progress", *extra])

    assert record("a", 3) == 0 and record("b", 3) == 0 and record("c", 4) == 0
    a, b, c = (minari.load_dataset(f"wadgym/{name}-v0") for name in "abc")
    assert_complete(a)
    assert all(e.infos["level_seed"][0] >= TEST_START_LEVEL for e in a)
    assert a.storage.metadata["wadgym"]["env_kwargs"] == {"num_levels": 0, "start_level": TEST_START_LEVEL}
    for x, y in zip(episode_arrays(a), episode_arrays(b)):
        assert x.keys() == y.keys() and all(np.array_equal(x[k], y[k]) for k in x)
    assert not np.array_equal(a[0].observations, c[0].observations)  # another seed, another level
    capsys.readouterr()

    assert record("a", 4) == 2  # it exists: refused, then replaced with --overwrite
    assert "exists already" in capsys.readouterr().err
    assert record("a", 4, "--overwrite") == 0
    replaced = minari.load_dataset("wadgym/a-v0")
    assert np.array_equal(replaced[0].observations, c[0].observations)


def test_a_run_records_the_env_observations_not_its_stacked_inputs(datasets_path, trained_run, env_id):
    result = record_dataset(env_id, str(trained_run), episodes=2, dataset_id="wadgym/run-v0", seed=2)
    record_dataset(env_id, str(trained_run), episodes=1, dataset_id="wadgym/run-again-v0", seed=3)
    dataset = minari.load_dataset("wadgym/run-v0")
    again = minari.load_dataset("wadgym/run-again-v0")
    # sampled actions, seeded per episode: the episode of seed 3 is the same, second or first
    second, first = episode_arrays(dataset)[1], episode_arrays(again)[0]
    assert all(np.array_equal(second[k], first[k]) for k in second)
    assert dataset.total_episodes == 2 and result.steps == dataset.total_steps
    assert_complete(dataset)
    assert dataset.observation_space.shape == (30, 40, 1)  # the env's frames (the run's resolution), unstacked
    meta = dataset.storage.metadata["wadgym"]
    assert meta["policy"]["kind"] == "run" and meta["policy"]["run"] == str(trained_run)
    assert dataset.env_spec.kwargs["resolution"] == [30, 40] and dataset.env_spec.id == env_id
    with pytest.raises(ValueError, match="trained on DoomItems-v0, not DoomItems-v1"):
        record_dataset(ENV, str(trained_run), episodes=1, dataset_id="wadgym/other-v0")


@pytest.mark.parametrize("argv, message", [
    (["DoomNope-v0"], "unknown env 'DoomNope-v0'"),
    ([ENV, "--policy", "nowhere"], "policy 'nowhere': unknown policy"),
    ([ENV, "--episodes", "0"], "episodes=0: must be a whole number, at least 1"),
    ([ENV, "--dataset", "no version"], "a Minari dataset id is namespace/name-vN"),
    ([ENV, "--dataset", "wadgym/taken-v0"], "dataset 'wadgym/taken-v0' exists already"),
    (["DoomItemsDuel-v0"], "multi-agent env"),
], ids=["unknown-env", "unknown-policy", "no-episodes", "bad-name", "name-taken", "multi-agent"])
def test_bad_input_is_one_message_before_any_engine(argv, message, datasets_path, monkeypatch, capsys):
    (datasets_path / "wadgym" / "taken-v0").mkdir(parents=True)

    def no_engine(*args, **kwargs):
        raise AssertionError("an env was made")

    monkeypatch.setattr(gymnasium, "make", no_engine)
    if "--dataset" not in argv:
        argv = [*argv, "--dataset", "wadgym/new-v0"]
    assert main(["record", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("wadgym record: error: ") and message in err and err.count("\n") == 1
    assert sorted(p.name for p in datasets_path.rglob("*")) == ["taken-v0", "wadgym"]  # nothing written


def test_a_signal_mid_episode_keeps_exactly_the_finished_ones(datasets_path, tmp_path):
    """A real SIGINT, sent by the recording process to itself from its policy at the 10th step of the third
    episode: the two finished episodes are the dataset, the unfinished one is dropped."""
    script = tmp_path / "record.py"
    script.write_text(textwrap.dedent(f"""
        import os, signal
        import numpy as np
        from wadgym.agents.datasets.record import record_dataset

        class Policy:
            def reset(self, seed):
                self.seed, self.steps, self.rng = seed, 0, np.random.default_rng(seed)

            def __call__(self, observation):
                self.steps += 1
                if self.seed == 2 and self.steps == 10:
                    os.kill(os.getpid(), signal.SIGINT)
                return int(self.rng.integers(5))

        result = record_dataset({ENV!r}, Policy(), episodes=50, dataset_id="wadgym/cut-v0")
        print("kept", result.episodes, result.interrupted)
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "kept 2 True" in done.stdout
    dataset = minari.load_dataset("wadgym/cut-v0")
    assert dataset.total_episodes == 2
    assert_complete(dataset)
    assert dataset.storage.metadata["wadgym"]["interrupted"] is True
    assert dataset.storage.metadata["wadgym"]["episode_seeds"] == [0, 1]
    assert dataset.storage.metadata["wadgym"]["policy"] == {"kind": "python", "name": "Python policy Policy"}
    assert [p.name for p in datasets_path.iterdir()] == ["wadgym"]  # the collector's temporary folder is gone


def test_ctrl_c_on_the_command_keeps_the_finished_episodes(datasets_path):
    """SIGINT from outside once the progress bar shows two episodes done: exit 130, a valid dataset of the
    episodes finished by then (at least two, fewer than asked), each whole."""
    process = subprocess.Popen([sys.executable, "-m", "wadgym", "record", ENV, "--policy", "random", "--episodes",
                                "500", "--dataset", "wadgym/ctrl-c-v0"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    progress = bytearray()
    two_done = threading.Event()

    def read_progress():
        for chunk in iter(lambda: os.read(process.stderr.fileno(), 4096), b""):
            progress.extend(chunk)
            if any(int(n) >= 2 for n in re.findall(rb"(\d+)/500", bytes(progress))):
                two_done.set()

    reader = threading.Thread(target=read_progress, daemon=True)
    reader.start()
    try:
        assert two_done.wait(120), progress.decode(errors="replace")[-2000:]
        process.send_signal(signal.SIGINT)
        stdout, _ = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    reader.join(10)
    assert process.returncode == 130, progress.decode(errors="replace")[-2000:]
    assert b"interrupted: kept the" in stdout
    dataset = minari.load_dataset("wadgym/ctrl-c-v0")
    assert 2 <= dataset.total_episodes < 500
    assert_complete(dataset)
    assert dataset.storage.metadata["wadgym"]["interrupted"] is True


def test_without_minari_the_command_names_the_extra():
    code = ("import sys\nsys.modules['minari'] = None\nfrom wadgym.cli import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    done = subprocess.run([sys.executable, "-c", code, "record", ENV, "--dataset", "wadgym/x-v0"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "pip install 'wadgym[demos]'" in done.stderr and "Traceback" not in done.stderr
