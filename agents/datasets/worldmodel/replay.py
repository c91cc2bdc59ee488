"""An episode of a dataset played again: the env made with the episode's kwargs, reset with its level seed and
engine seed (DoomEnv's options "level_seed" and "engine_seed"), then stepped with its recorded actions. What
the dataset promises: the frames, buffers and poses come out the same as recorded (tests/datasets check it).

The families whose episodes draw more from the env's generator than the level and the engine seed (the
deathmatch bots' seeded placement) replay with `reset(seed=metadata["reset_seed"])` on an env made with the same
kwargs instead; that reset is how they were recorded.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from wadgym.agents.datasets.worldmodel import shards
from wadgym.agents.datasets.worldmodel.episode import EpisodeBuffer
from wadgym.agents.datasets.worldmodel.loader import episode_arrays, episodes_of_shard


def find_episode(root: str | os.PathLike, split: str, episode: int, fields=None):
    """(metadata, steps) of episode `episode` of `split` as recorded (read_episodes' arrays)."""
    index = shards.read_index(root)
    for entry in shards.shards_of(index, split):
        first, last = entry["episodes"]
        if first <= episode <= last:
            for metadata, steps in episodes_of_shard(root, entry, fields):
                if metadata["episode"] == episode:
                    return metadata, steps
    raise ValueError(f"episode {episode} of {split} is in no finished shard of {root}")


def replay_episode(root: str | os.PathLike, split: str, episode: int,
                   fields=None) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """(metadata, steps) of the recorded episode played again from its level seed, engine seed and actions:
    the same arrays read_episodes gives (of `fields`, default every recorded one)."""
    import vizdoom as vzd

    from wadgym.agents.vec import gym_make

    metadata, recorded = find_episode(root, split, episode, ["action", "random_action"])
    index = shards.read_index(root)
    width, height = (int(v) for v in metadata["resolution"].split("x"))
    variables = [getattr(vzd.GameVariable, name) for name in index["settings"]["variables"]]
    env = gym_make(metadata["env"], metadata["env_kwargs"])
    try:
        base = env.unwrapped
        env.reset(options={"level_seed": metadata["level_seed"], "engine_seed": metadata["engine_seed"]})
        buffer = EpisodeBuffer(height, width, index["settings"]["chunk"], metadata["images"], variables,
                               index["settings"].get("png_level", 1), index["settings"].get("image_format", "png"))
        buffer.add(base.game, base.last_state, env.render(), -1, False, 0.0, False, False)
        for action, random_action in zip(recorded["action"][1:], recorded["random_action"][1:]):
            _, reward, terminated, truncated, _ = env.step(int(action))
            buffer.add(base.game, base.last_state, env.render(), int(action), bool(random_action), float(reward),
                       bool(terminated), bool(truncated))
        chunks = buffer.finish()
    finally:
        env.close()
    wanted = list(fields) if fields is not None else metadata["images"] + [
        f for f in chunks[0]["steps.json"]]
    return metadata, episode_arrays({**metadata, "steps": buffer.length}, chunks, wanted)
