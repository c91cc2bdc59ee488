"""Importing wadgym registers every env, whatever came first (gymnasium, a subpackage, a find_spec probe),
`gym.make("wadgym:...")` and `gym.register_envs(wadgym)` work, and the compiler and map builder import
without the engine (each case in a fresh interpreter)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from wadgym.envs.registration import ENVS


def run_fresh(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.parametrize("code", [
    "import wadgym; import gymnasium as gym",
    "import gymnasium as gym; import wadgym",
    "import wadgym.wads; import gymnasium as gym",
    # Probing for gymnasium before importing it (as plugin loaders and `importlib.util.find_spec` users do)
    # once kept an import hook from ever registering the envs.
    "import importlib.util; importlib.util.find_spec('gymnasium'); import wadgym; import gymnasium as gym",
    "import wadgym, importlib.util; importlib.util.find_spec('gymnasium'); import gymnasium as gym",
    "import gymnasium as gym, wadgym; gym.register_envs(wadgym)",
], ids=["wadgym-first", "gymnasium-first", "subpackage-first", "probe-first", "probe-between", "register_envs"])
def test_import_wadgym_registers_every_env(code):
    ids = run_fresh(code + "; print(sorted(i for i in gym.registry if i.startswith('Doom')))")
    assert ids == str(sorted(ENVS))


def test_module_prefix_registers_without_importing_wadgym():
    assert run_fresh("import gymnasium as gym; env = gym.make('wadgym:DoomItems-v1'); print(env.spec.id); "
                     "env.close()") == "DoomItems-v1"


def test_compiler_and_map_builder_import_without_the_engine():
    assert run_fresh("import sys, wadgym.acs, wadgym.wads; print('vizdoom' in sys.modules, 'torch' in sys.modules)") \
        == "False False"
