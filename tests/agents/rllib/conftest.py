"""The RLlib backend's tests: a real Ray cluster of two nodes on this machine (loopback), real env runners,
real engines. They need the `wadgym[rllib]` extra; `make test` runs them in .venv-rllib with
WADGYM_REQUIRE_RLLIB=1, where a missing Ray fails the run instead of skipping these tests."""

from __future__ import annotations

import importlib.util
import os
import time
from pathlib import Path

import pytest
import yaml

ENV_ID = "DoomItems-v0"
FAILING_ENV_ID = "failing_env:DoomItemsFailing-v0"

# Seconds-long runs: 2 env runners x 1 env, 64-step rollouts, short episodes so that some finish.
TINY = {
    "n_envs": 2,
    "n_timesteps": 256,
    "policy": "CnnPolicy",
    "frame_stack": 2,
    "n_steps": 64,
    "batch_size": 64,
    "n_epochs": 1,
    "learning_rate": "lin_3e-4",
    "policy_kwargs": "dict(features_extractor_class=SmallCNN, features_extractor_kwargs=dict(features_dim=32), net_arch=[])",
    "env_kwargs": {"resolution": [30, 40], "max_episode_steps": 40},
}

# DoomItems, except that the copy reset with an odd seed raises after FAIL_AFTER steps. Env runners import
# it as gym.make("failing_env:..."), so the cluster's processes get its folder on PYTHONPATH.
FAILING_ENV = '''
import gymnasium as gym

FAIL_AFTER = 100


class FailAfter(gym.Wrapper):
    def __init__(self, **kwargs):
        super().__init__(gym.make("wadgym:DoomItems-v0", **kwargs))
        self.steps, self.doomed = 0, False

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self.doomed = seed % 2 == 1
        return self.env.reset(seed=seed, options=options)

    def step(self, action):
        self.steps += 1
        if self.doomed and self.steps > FAIL_AFTER:
            raise RuntimeError(f"scenario failure after {FAIL_AFTER} steps")
        return self.env.step(action)


def make(**kwargs):
    return FailAfter(**kwargs)


gym.register("DoomItemsFailing-v0", entry_point=make)
'''


def pytest_collection_modifyitems(config, items):
    if importlib.util.find_spec("ray") is not None:
        return
    if os.environ.get("WADGYM_REQUIRE_RLLIB") == "1":
        raise pytest.UsageError("WADGYM_REQUIRE_RLLIB=1 but Ray is not installed: pip install -e '.[rllib,test]'")
    here = Path(__file__).parent
    skip = pytest.mark.skip(reason="needs pip install 'wadgym[rllib]'; `make test` runs these in .venv-rllib")
    for item in items:
        if here in Path(item.fspath).parents and item.get_closest_marker("without_ray") is None:
            item.add_marker(skip)


def pytest_configure(config):
    config.addinivalue_line("markers", "without_ray: an RLlib-backend test that runs without Ray installed too")


@pytest.fixture(scope="session")
def hyperparams(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("hyperparams") / "tiny.yml"
    path.write_text(yaml.safe_dump({ENV_ID: TINY, FAILING_ENV_ID: TINY}))
    return path


@pytest.fixture(scope="session")
def failing_env_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("failing_env")
    (folder / "failing_env.py").write_text(FAILING_ENV)
    return folder


def descendants(pid: int) -> list[str]:
    """'pid name' of every live process below `pid`, from /proc."""
    parents, names = {}, {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] != "Z":
            parents[int(entry)], names[int(entry)] = int(fields[1]), stat[stat.index("(") + 1:stat.rindex(")")]
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        children = [p for p, pp in parents.items() if pp == parent]
        found += children
        frontier += children
    return [f"{p} {names[p]}" for p in found]


@pytest.fixture(scope="module")
def cluster(failing_env_dir):
    """A real two-node Ray cluster on this machine: a head node and a second node that joins it by
    address, each with its own raylet (Ray's own test utility). The head has 2 CPUs (the trainer and one
    env runner), the second node 1. Stopped when the module's tests end, also when they fail; nothing
    the cluster started is left running."""
    from ray.cluster_utils import Cluster

    previous = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(failing_env_dir), previous]))
    node = {"object_store_memory": 100 * 1024**2}
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 2, "include_dashboard": False, **node})
    try:
        cluster.add_node(num_cpus=1, **node)
        cluster.wait_for_nodes()
        yield cluster
    finally:
        cluster.shutdown()
        if previous is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = previous
    deadline = time.monotonic() + 15  # raylets, workers and engines of both nodes
    while descendants(os.getpid()) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert descendants(os.getpid()) == []
