"""The exit family's levels without the engine: v0's levels are pinned byte for byte; the sprawling layout's
buildings are valid on many seeds (every room reachable, no two spaces overlap, every corridor where its
opening says), the start spots lie as far from the exit as the spawn setting says, and the looks and styles
are what the parameters ask for."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from wadgym.envs.families import exit as exit_family
from wadgym.envs.params import make_params
from wadgym.envs.scenarios import compile_acs
from wadgym.wads import build_wad

# sha256 of the WADs of levels 0, 1, 2 and 10000 (build_wad of each, concatenated), as the first release built
# them: DoomExit-v0 and DoomExitHard-v0 keep their levels whatever the family gains.
V0_LEVELS = {
    ("default", ()): "b1d6bb85b2df24037eb60062f0915b20710cd55e38a9dcf180acd470ab663792",
    ("hard", ()): "33adafb3691151f7933af6bc09bc8faab9b672f61a84d2ef23ad29153f652a3e",
    ("default", (("exit_look", "mixed"),)): "5860a216bf19e1ec3a096955265000732121195aefb351d9e5656254fde3a683",
}


def levels_digest(params, seeds=(0, 1, 2, 10_000)) -> str:
    data = b"".join(build_wad([exit_family.build(np.random.default_rng(s), params)], compiler=compile_acs)
                    for s in seeds)
    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("preset, overrides", list(V0_LEVELS), ids=lambda v: str(v))
def test_v0_levels_are_byte_identical_to_the_first_release(preset, overrides):
    params = make_params(exit_family.Params, exit_family.PRESETS, preset, dict(overrides))
    assert levels_digest(params) == V0_LEVELS[preset, overrides]
