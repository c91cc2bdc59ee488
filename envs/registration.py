"""Registers wadgym's Gymnasium environments from one table (imported by `import wadgym`; builds nothing)."""

from __future__ import annotations

import gymnasium as gym

ITEMS_ENTRY_POINT = "wadgym.envs.items:ItemsEnv"

# id -> (entry point, kwargs, max_episode_steps). A change to dynamics or rewards gets a new -vN.
ENVS: dict[str, tuple[str, dict, int]] = {
    # 1024 x 1024 arena, 10 items, the player in the centre; an agent that heads for the nearest
    # item collects all 10 in ~135 steps, a random policy ~1.4 in 300.
    "DoomItems-v0": (ITEMS_ENTRY_POINT, {}, 300),
    # 2048 x 2048 arena with 12 pillars, 20 items at scale 1.0.
    "DoomItemsHard-v0": (ITEMS_ENTRY_POINT, {"preset": "hard"}, 1000),
    # 16 procedurally generated mazes of 4 x 4 rooms; each episode plays one, chosen by its seed.
    "DoomItemsMaze-v0": (ITEMS_ENTRY_POINT, {"layout": "maze"}, 1000),
}


def register_envs() -> None:
    for env_id, (entry_point, kwargs, max_episode_steps) in ENVS.items():
        if env_id not in gym.registry:
            gym.register(env_id, entry_point=entry_point, kwargs=kwargs, max_episode_steps=max_episode_steps)


register_envs()
