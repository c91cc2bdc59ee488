"""`import wadgym` registers the envs whichever of wadgym and gymnasium comes first, and the compiler
and map builder import without gymnasium (each case in a fresh interpreter)."""

from __future__ import annotations

import subprocess
import sys

import pytest


def run_fresh(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.parametrize("code", [
    "import wadgym; import gymnasium as gym",
    "import gymnasium as gym; import wadgym",
    "import wadgym.wads; import gymnasium as gym",
], ids=["wadgym-first", "gymnasium-first", "subpackage-first"])
def test_import_wadgym_registers_every_env(code):
    ids = run_fresh(code + "; print(sorted(i for i in gym.registry if i.startswith('DoomItems')))")
    assert ids == "['DoomItems-v0', 'DoomItemsHard-v0', 'DoomItemsMaze-v0']"


def test_module_prefix_registers_without_importing_wadgym():
    assert run_fresh("import gymnasium as gym; env = gym.make('wadgym:DoomItems-v0'); print(env.spec.id); "
                     "env.close()") == "DoomItems-v0"


def test_compiler_and_map_builder_import_without_gymnasium():
    assert run_fresh("import sys, wadgym.acs, wadgym.wads; print('gymnasium' in sys.modules, 'vizdoom' in sys.modules)") \
        == "False False"
