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

from ..conftest import ENV_ID, TINY
from ..test_failure import ENV_ID as FAILING_ENV_ID
from ..test_failure import FAILING_ENV

# Seconds-long runs as tests/agents' TINY, with short episodes so that some finish in a few iterations.
TINY_RLLIB = {**TINY, "env_kwargs": {**TINY["env_kwargs"], "max_episode_steps": 40}}


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
    path.write_text(yaml.safe_dump({ENV_ID: TINY_RLLIB, FAILING_ENV_ID: TINY_RLLIB}))
    return path


@pytest.fixture(scope="session")
def failing_env_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("failing_env")
    (folder / "failing_env.py").write_text(FAILING_ENV)
    return folder


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
    while started_here() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert started_here() == []


def started_here() -> list[str]:
    """'pid command' of this process's descendants, but for the engine watchdog (wadgym.envs.runtime.watchdog),
    which lives as long as this process because its evaluations started engines."""
    import psutil

    found = []
    for process in psutil.Process().children(recursive=True):
        try:
            command = " ".join(process.cmdline())
        except psutil.Error:
            continue
        if "watchdog.py" not in command:
            found.append(f"{process.pid} {command[:120]}")
    return found
