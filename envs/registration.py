"""Registers wadgym's Gymnasium environments from one table (imported by `import wadgym`; builds nothing).

A family adds its rows here: id -> (entry point, kwargs, max_episode_steps). A change to dynamics or
rewards gets a new -vN; the old id stays registered.
"""

from __future__ import annotations

import functools
import os
import threading

import gymnasium as gym

from .scenarios import register_family
from .vector.threads import make_vector_env

ITEMS = "wadgym.envs.families.items:ItemsEnv"
HEALTH = "wadgym.envs.families.health:HealthEnv"
EXIT = "wadgym.envs.families.exit:ExitEnv"
DEFEND = "wadgym.envs.families.defend:DefendEnv"
CORRIDOR = "wadgym.envs.families.corridor:CorridorEnv"
RACE = "wadgym.envs.families.race:ItemsRaceEnv"
DEATHMATCH = "wadgym.envs.families.deathmatch:DeathmatchEnv"
DEATHMATCH_BOTS = "wadgym.envs.families.deathmatch:DeathmatchBotsEnv"
DEFAULT_ENV = "DoomItems-v1"  # what `wadgym train` trains without --env

ENVS: dict[str, tuple[str, dict, int]] = {
    # Every level different (num_levels=0: unlimited; pass num_levels/start_level for train/test splits).
    # 1024 x 1024 arena, 10 items, the player in the centre.
    "DoomItems-v1": (ITEMS, {}, 300),
    # 2048 x 2048 arena with 12 pillars, 20 items at scale 1.0.
    "DoomItemsHard-v1": (ITEMS, {"preset": "hard"}, 1000),
    # Mazes of 4 x 4 rooms, 12 items.
    "DoomItemsMaze-v1": (ITEMS, {"preset": "maze"}, 1000),
    # v0: one look. An agent that heads for the nearest item collects all 10 in ~135 steps, a random
    # policy ~1.4 in 300.
    "DoomItems-v0": (ITEMS, {"preset": "classic", "num_levels": 1}, 300),
    "DoomItemsHard-v0": (ITEMS, {"preset": "classic_hard", "num_levels": 1}, 1000),
    "DoomItemsMaze-v0": (ITEMS, {"preset": "classic_maze", "num_levels": 16}, 1000),
    # Survive on a floor that hurts by picking up medikits; 525 steps = 2100 tics, health_gathering's limit.
    # 1024 x 1024 arena with 4 pillars, 12 medikits.
    "DoomHealth-v0": (HEALTH, {}, 525),
    # Mazes of 3 x 3 rooms, 12 medikits and 6 poisons, darker.
    "DoomHealthSupreme-v0": (HEALTH, {"preset": "supreme"}, 525),
    # Find the exit of a building, every level different. v1: my_way_home's scale without a grid: 8-12 rooms
    # of several sizes, corridors that turn, dead ends, a loop; the exit fixed per level, 17 start spots over
    # the rooms; 525 steps, as my_way_home. Hard: 14-18 rooms, doors, darker, one start spot halfway along the
    # longest way (4+ doorways), 1000 steps.
    "DoomExit-v1": (EXIT, {"preset": "v1"}, 525),
    "DoomExitHard-v1": (EXIT, {"preset": "hard_v1"}, 1000),
    # v0: 3 x 3 rooms joined by corridors, the exit 2+ doorways from the start.
    "DoomExit-v0": (EXIT, {}, 300),
    # 4 x 5 rooms, doors on half the corridors, darker, the exit 4+ doorways away.
    "DoomExitHard-v0": (EXIT, {"preset": "hard"}, 1000),
    # Waves of monsters in polygon arenas, every level different. v0: slow zombies and demons that die
    # from one pistol bullet, 200 bullets; Hard: four kinds at full speed and health, a shotgun, pillars.
    "DoomDefend-v0": (DEFEND, {}, 500),
    "DoomDefendHard-v0": (DEFEND, {"preset": "hard"}, 1000),
    # Reach the end of a corridor past monsters in bays on both sides (ViZDoom's deadly_corridor, generated), every
    # level different; 525 steps, deadly_corridor's 2100 tics. v0: up to one turn, zombies and shotgun guys of one
    # bullet in pairs, cover, skill 3; Hard: longer, narrower, two turns, chaingun guys, skill 5, double damage.
    "DoomCorridor-v0": (CORRIDOR, {}, 525),
    "DoomCorridorHard-v0": (CORRIDOR, {"preset": "hard"}, 525),
    # One agent against the engine's bots (one engine, no network) in DoomDeathmatch-v0's arenas, frags as
    # score: 3 bots of skill level 2; Hard: 5 bots of level 4.
    "DoomDeathmatchBots-v0": (DEATHMATCH_BOTS, {}, 500),
    "DoomDeathmatchBotsHard-v0": (DEATHMATCH_BOTS, {"preset": "hard"}, 500),
}

# Multi-agent envs (PettingZoo parallel envs, made by wadgym.envs.multi.make; not in Gymnasium's registry):
# id -> (family: a DoomEnv subclass with max_players, its kwargs, max_steps per episode).
MULTI_ENVS: dict[str, tuple[str, dict, int]] = {
    # Two players, a 1024 arena, 10 items; 64 levels (start circle rotation, look) in one WAD.
    "DoomItemsDuel-v0": (RACE, {"n_players": 2, "num_levels": 64}, 300),
    # 2 players (n_players up to 4) in polygon arenas with pillars, every level different; weapons and ammo
    # placed at random spots each episode, respawn after death, frags as score.
    "DoomDeathmatch-v0": (DEATHMATCH, {"n_players": 2}, 500),
}


def register_envs() -> None:
    for env_id, (entry_point, kwargs, max_episode_steps) in ENVS.items():
        if env_id not in gym.registry:
            gym.register(env_id, entry_point=entry_point, kwargs=kwargs, max_episode_steps=max_episode_steps,
                         vector_entry_point=functools.partial(make_vector_env, env_id))  # gym.make_vec's default
    for name, module in family_modules().items():  # `wadgym build items`, build_scenario_wad("items", ...)
        register_family(name, module)


def env_id_for(env: str) -> str:
    """A registered id for `env`: a registered id as it is; a Python file that defines a task family (one
    DoomEnv subclass beside its Params, PRESETS and build) is loaded and registered as "file/<name>-v0",
    with the class's `max_episode_steps` (default 1000). Each process that makes the env loads the file, again
    only when it has changed; threads that make it at once (an evaluation's players) register it once."""
    if not str(env).endswith(".py"):
        return env
    path = os.path.abspath(env)
    with _FILE_TASKS_LOCK:
        return _register_file_task(env, path)


_FILE_TASKS: dict[str, tuple[str, int, int]] = {}  # a file task's id -> (path, mtime_ns, size) it was registered from
_FILE_TASKS_LOCK = threading.Lock()


def _register_file_task(env: str, path: str) -> str:
    from wadgym.envs.doom_env import DoomEnv
    from wadgym.envs.scenarios import load_scenario

    env_id = f"file/{os.path.splitext(os.path.basename(path))[0]}-v0"
    stat = os.stat(path) if os.path.isfile(path) else None
    source = (path, stat.st_mtime_ns, stat.st_size) if stat else None
    if source is not None and _FILE_TASKS.get(env_id) == source and env_id in gym.registry:
        return env_id
    module = load_scenario(path)
    classes = [c for c in vars(module).values()
               if isinstance(c, type) and issubclass(c, DoomEnv) and c.__module__ == module.__name__]
    if len(classes) != 1:
        found = ", ".join(c.__name__ for c in classes) or "none"
        raise ValueError(f"{env}: a task file defines exactly one DoomEnv subclass (found: {found})")
    gym.registry.pop(env_id, None)  # the file may have changed, or another file has the same name
    gym.register(env_id, entry_point=classes[0], max_episode_steps=getattr(classes[0], "max_episode_steps", 1000),
                 vector_entry_point=functools.partial(make_vector_env, env_id))
    _FILE_TASKS[env_id] = source
    return env_id


def score_name(env_id: str) -> str:
    """What info["score"] counts in `env_id`'s episodes ("items", ...): the env class's score_name, or
    "return" for envs that keep no score of their own. Multi-agent ids too (per agent)."""
    from gymnasium.envs.registration import load_env_creator

    if env_id in MULTI_ENVS:
        return getattr(load_env_creator(MULTI_ENVS[env_id][0]), "score_name", "return")
    entry_point = gym.spec(env_id_for(env_id)).entry_point
    creator = load_env_creator(entry_point) if isinstance(entry_point, str) else entry_point
    return getattr(creator, "score_name", "return")


def family_modules() -> dict[str, str]:
    """Short name -> module of every registered family ("items" -> "wadgym.envs.families.items")."""
    modules = {entry.split(":")[0] for entry, _, _ in ENVS.values()}
    return {module.rsplit(".", 1)[-1]: module for module in sorted(modules)}


register_envs()
