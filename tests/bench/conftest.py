"""The bench scripts as modules: each imported fresh from bench/ (on sys.path, as `python bench/X.py` puts
its own folder there: the scripts import bench/harness.py beside them), for the tests of this folder."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _bench_script(name: str):
    sys.path.insert(0, str(BENCH))
    try:
        sys.modules.pop(name, None)
        yield importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCH))


@pytest.fixture(scope="module")
def learn():
    yield from _bench_script("learn")


@pytest.fixture(scope="module")
def generalization():
    yield from _bench_script("generalization")


@pytest.fixture(scope="module")
def update_speed():
    yield from _bench_script("update_speed")


@pytest.fixture(scope="module")
def transfer():
    yield from _bench_script("transfer")


@pytest.fixture(scope="module")
def harness():
    yield from _bench_script("harness")
