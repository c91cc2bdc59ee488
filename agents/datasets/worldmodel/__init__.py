"""World-model datasets: labelled play of generated levels, recorded at the engines' speed with held-out levels
(`wadgym worldmodel`; docs/datasets.md).

    from wadgym.agents.datasets.worldmodel import WorldModelConfig, record_world_model, WorldModelClips

    record_world_model(WorldModelConfig(env="DoomItems-v1", out="data/items", episodes=100, test_episodes=20,
                                        buffers=("depth", "labels"), n_envs=4))
    clips = WorldModelClips("data/items", split="train", clip_length=16, fields=("rgb", "action"))

The rooms: config (WorldModelConfig and every check, before any engine starts), record (the engines, the policies,
the shard writer), episode (what a step and an episode hold), images and png (the images' encoders), shards (the
folder: tar shards, index.json, checksums), card (its README), loader (the PyTorch loader) and replay (an
episode played again from its level seed, engine seed and actions). Names load on first use: importing this
package imports neither vizdoom nor torch.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wadgym.agents.datasets.worldmodel.config import WorldModelConfig
    from wadgym.agents.datasets.worldmodel.loader import WorldModelClips, read_episodes
    from wadgym.agents.datasets.worldmodel.record import WorldModelResult, record_world_model
    from wadgym.agents.datasets.worldmodel.replay import replay_episode
    from wadgym.agents.datasets.worldmodel.shards import DamagedShardError, damaged_shards, read_index

_NAMES = {
    "WorldModelConfig": "config", "record_world_model": "record", "WorldModelResult": "record",
    "WorldModelClips": "loader", "read_episodes": "loader", "replay_episode": "replay",
    "DamagedShardError": "shards", "damaged_shards": "shards", "read_index": "shards",
}
__all__ = ["DamagedShardError", "WorldModelClips", "WorldModelConfig", "WorldModelResult", "damaged_shards",
           "read_episodes", "read_index", "record_world_model", "replay_episode"]


def __getattr__(name: str):
    if name not in _NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_NAMES[name]}"), name)
