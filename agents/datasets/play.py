"""A person plays an env id in the engine's window (`wadgym play`, wired in wadgym.cli.play), optionally recorded as
a Minari dataset that a policy can learn from.

The env runs with `spectator=True` (wadgym.envs.doom_env.DoomEnv): ViZDoom's synchronous spectator mode, the
engine's window taking the keyboard (the keys of wadgym.envs.runtime.engine.SPECTATOR_KEYS; only the buttons of
the id's action set act), each step `frame_skip` tics at game speed, the env's own levels, rewards, score and
termination. Each step's info["human_action"] is the action of the id's action set that the person's keys map
to (DoomEnv.human_action: the action with exactly those buttons, else the nearest; over a step's tics the most
frequent), and that is the action the dataset records, so that every recorded action is one a policy can take.
A pause (no key of the set held) is the set's action without buttons where it has one ("extended"); where it has
none ("basic") the action recorded is a stand-in (the first) and the step is flagged: info["human_idle"], recorded
as 1, which behaviour cloning (agents.datasets.pretrain) leaves out, so that a pause is not learnt as walking.

A dataset is written as `wadgym record` writes one (agents.datasets.record: the same storage, infos and metadata), its
env spec the plain env (no spectator mode: `recover_environment()` gives an env a policy plays), its policy
`{"kind": "human"}`. Needs a display (an X server; Xvfb headless) and, to record, `pip install 'wadgym[demos]'`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

HUMAN_INFOS = ("human_matched", "human_idle")  # recorded per step beside agents.datasets.record.INFO_KEYS


@dataclasses.dataclass(frozen=True)
class PlayResult:
    """What a play session did: its episodes' summaries ({"episode", "seed", "level_seed", "score", "return",
    "length", "idle": the steps flagged info["human_idle"]}), whether it stopped early (Ctrl-C, SIGTERM or the
    window closed: the unfinished episode is not kept), and the dataset written (None without one)."""

    episodes: list[dict[str, Any]]
    stopped: str | None
    dataset_id: str | None
    path: Path | None
    steps: int
    seconds: float


def play(
    env_id: str,
    *,
    level: int | None = None,
    episodes: int = 1,
    max_steps: int | None = None,
    action_set: str | None = None,
    seed: int = 0,
    dataset_id: str | None = None,
    overwrite: bool = False,
    on_start: Callable[[dict[str, Any]], None] | None = None,
    on_step: Callable[[dict[str, Any]], None] | None = None,
    on_episode: Callable[[dict[str, Any]], None] | None = None,
) -> PlayResult:
    """Let a person play `episodes` episodes of `env_id` in the engine's window; episode i is reset with seed
    `seed` + i. `level`: play that level seed only (else the levels the id trains on, drawn from the seed);
    `max_steps`: end (truncate) each episode after that many steps (else the id's own time limit); `action_set`:
    the env's action set (e.g. "extended", whose empty action records standing still as such); `dataset_id`:
    record the episodes as that Minari dataset (agents.datasets.record's format; `overwrite` replaces one of that name).

    `on_start` gets {"env_id", "env_kwargs", "actions": [(index, buttons, keys of each button)], "frame_skip",
    "pause": the action a pause is recorded as, "pause_flagged": whether such steps are flagged idle (the set
    has no action without buttons)} before the first episode; `on_step` every step's {"episode", "step",
    "action", "reward", "score", "return"}; `on_episode` each finished episode's summary. Bad input, and a
    missing display, are a ValueError before any engine starts."""
    from wadgym.agents.datasets.record import training_kwargs

    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1:
        raise ValueError(f"episodes={episodes!r}: must be a whole number, at least 1")
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1):
        raise ValueError(f"max_steps={max_steps!r}: must be a whole number, at least 1")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed={seed!r}: must be a whole number, at least 0")
    if level is not None and (isinstance(level, bool) or not isinstance(level, int) or level < 0):
        raise ValueError(f"level={level!r}: must be a level seed, a whole number, at least 0")
    if dataset_id is not None:
        from wadgym.agents.datasets.record import check_dataset_id, require_demos

        require_demos()
        check_dataset_id(dataset_id, overwrite, example="wadgym/human-v0")
    env_kwargs = training_kwargs(env_id) if level is None else {"start_level": level, "num_levels": 1}
    if action_set is not None:
        env_kwargs["action_set"] = action_set
    if max_steps is not None:
        env_kwargs["max_episode_steps"] = max_steps

    from wadgym.agents.vec import gym_make

    start = time.perf_counter()
    env = gym_make(env_id, {**env_kwargs, "spectator": True})  # a ValueError: an unknown id, no display
    collector = None
    try:
        if dataset_id is not None:
            collector = _human_collector(env)
        session = _Session(env, collector, on_step)
        if on_start is not None:
            on_start(_description(env_id, env_kwargs, env.unwrapped))
        played, stopped = session.run(episodes, seed, on_episode)
        path = None
        if collector is not None and played:
            path = _write(collector, env_id, env_kwargs, level, dataset_id, overwrite, seed, episodes, played,
                          stopped)
    finally:
        if collector is not None:
            collector.close()
        else:
            env.close()
    return PlayResult(episodes=played, stopped=stopped, dataset_id=dataset_id if path else None, path=path,
                      steps=sum(p["length"] for p in played), seconds=time.perf_counter() - start)


def _description(env_id: str, env_kwargs: dict[str, Any], env) -> dict[str, Any]:
    """What on_start gets: the id, its kwargs, each action's buttons and the keys that press them, and what a
    pause (no key held) is recorded as."""
    from wadgym.envs.runtime.engine import SPECTATOR_KEYS

    buttons = env.action_buttons()
    actions = [(index, held, tuple(SPECTATOR_KEYS[b][1] for b in held)) for index, held in enumerate(buttons)]
    nothing = [False] * len({b for held in buttons for b in held})  # no button of the set held
    return {"env_id": env_id, "env_kwargs": env_kwargs, "actions": actions, "frame_skip": env.frame_skip,
            "pause": env.human_action(nothing), "pause_flagged": env.human_idle(nothing)}


class _Session:
    """The env (its collector when recording) played one seeded episode at a time, the action passed to step
    being the person's last (the env ignores it: spectator mode; the collector records info["human_action"])."""

    def __init__(self, env: gym.Env, collector, on_step):
        self.env, self.collector, self.on_step = env, collector, on_step
        self.stepper = collector if collector is not None else env

    def run(self, episodes: int, seed: int, on_episode) -> tuple[list[dict[str, Any]], str | None]:
        """The finished episodes' summaries, and why play stopped early (None: it did not). Ctrl-C or the
        window closed ends the unfinished episode, which is dropped."""
        import vizdoom as vzd

        played: list[dict[str, Any]] = []
        for i in range(episodes):
            try:
                summary = self._episode(i, seed + i)
            except KeyboardInterrupt:
                stopped = "Ctrl-C"
            except (vzd.ViZDoomIsNotRunningException, vzd.ViZDoomUnexpectedExitException):
                stopped = "the game's window was closed"
            else:
                played.append({"episode": i, "seed": seed + i, **summary})
                if on_episode is not None:
                    on_episode(played[-1])
                continue
            if self.collector is not None:
                self.collector.drop_episode()
            return played, stopped
        return played, None

    def _episode(self, episode: int, seed: int) -> dict[str, Any]:
        observation, info = self.stepper.reset(seed=seed)
        action, total, length, idle = 0, 0.0, 0, 0
        while True:
            observation, reward, terminated, truncated, info = self.stepper.step(action)
            action = int(info["human_action"])
            total, length, idle = total + float(reward), length + 1, idle + bool(info["human_idle"])
            if self.on_step is not None:
                self.on_step({"episode": episode, "step": length, "action": action, "reward": float(reward),
                              "score": info.get("score", total), "return": total})
            if terminated or truncated:
                return {"level_seed": info.get("level_seed"), "score": info.get("score", total), "return": total,
                        "length": length, "idle": idle}


# --- recording --------------------------------------------------------------------------------------------------

def _human_collector(env: gym.Env):
    """agents.datasets.record's DataCollector, recording info["human_action"] as each step's action (the env ignored the
    one step was given) and HUMAN_INFOS beside the infos it keeps; its env spec the plain env's (no spectator
    mode, which needs a display)."""
    from wadgym.agents.datasets.record import collector

    def human_step(step: dict[str, Any], info: dict[str, Any]) -> None:
        if step["action"] is not None:  # a step, not the reset
            step["action"] = np.int64(info["human_action"])
        step["info"].update({key: int(info.get(key, 0)) for key in HUMAN_INFOS})

    return collector(env, step_hook=human_step, drop_kwargs=("spectator",))


def _write(collector, env_id, env_kwargs, level, dataset_id, overwrite, seed, episodes, played, stopped) -> Path:
    """The dataset of the finished episodes, with the metadata agents.datasets.record writes (its policy: a person)."""
    from wadgym.agents.datasets.record import INFO_KEYS, write_dataset

    kwargs = {k: v for k, v in env_kwargs.items() if k != "max_episode_steps"}
    where = "the training levels" if level is None else f"level {level}"
    policy = {"kind": "human", "name": "a person (wadgym play): keys mapped to the action set"}
    dataset = write_dataset(
        collector, dataset_id, overwrite, env_id=env_id, algorithm_name=policy["name"], author="wadgym play",
        description=f"{len(played)} episodes of {env_id} on {where} played by a person in the game's window; "
                    f"each step's action is the one of the id's action set the keys held map to; episode i "
                    f"reset with seed {seed} + i. Recorded by `wadgym play`.",
        metadata={"env_kwargs": kwargs, "levels": "train" if level is None else f"level {level}",
                  "policy": policy, "seed": seed, "episode_seeds": [seed, seed + len(played) - 1],
                  "episodes_requested": episodes, "interrupted": stopped is not None, "stopped": stopped,
                  "step_infos": [*INFO_KEYS, *HUMAN_INFOS]})
    return Path(dataset.storage.data_path).parent
