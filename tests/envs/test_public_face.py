"""wadgym.envs is the one public face: every name it exports resolves, `import wadgym` loads none of them (no
engine), and the README, the docs' code and the examples import envs from there, not from its rooms."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import wadgym.envs

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", wadgym.envs.__all__)
def test_every_exported_name_resolves(name):
    value = getattr(wadgym.envs, name)
    assert value is not None
    assert name in dir(wadgym.envs)


def test_an_unknown_name_is_an_attribute_error_naming_it():
    with pytest.raises(AttributeError, match="'NoSuchEnv'"):
        wadgym.envs.NoSuchEnv  # noqa: B018


def test_the_exports_are_the_classes_users_know():
    from wadgym.envs.doom_env import DoomEnv
    from wadgym.envs.families.items import ItemsEnv

    assert wadgym.envs.DoomEnv is DoomEnv
    assert issubclass(wadgym.envs.ItemsEnv, wadgym.envs.DoomEnv) and wadgym.envs.ItemsEnv is ItemsEnv
    for name in ("HealthEnv", "ExitEnv", "DefendEnv", "ItemsRaceEnv", "DeathmatchEnv"):
        assert issubclass(getattr(wadgym.envs, name), DoomEnv)


def test_import_wadgym_loads_no_engine_and_no_family():
    code = ("import sys, wadgym, gymnasium as gym; assert 'DoomItems-v1' in gym.registry; "
            "loaded = [m for m in sys.modules if m == 'vizdoom' or m.startswith('wadgym.envs.families')]; "
            "print(loaded)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def python_sources() -> dict[str, str]:
    """The Python users copy: the README's and the docs' code blocks, and the examples."""
    sources = {}
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for k, block in enumerate(re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)):
            sources[f"{path.relative_to(ROOT)} block {k + 1}"] = block
    for path in sorted((ROOT / "examples").glob("*.py")):
        sources[str(path.relative_to(ROOT))] = path.read_text()
    return sources


def test_users_import_envs_from_the_public_face():
    assert len(python_sources()) > 5
    deep = [f"{where}: {line.strip()}" for where, text in python_sources().items() for line in text.splitlines()
            if re.match(r"\s*(from|import) wadgym\.envs\.", line)]
    assert not deep, "imports from envs/'s rooms instead of wadgym.envs:\n" + "\n".join(deep)
