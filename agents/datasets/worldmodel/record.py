"""Recording a world-model dataset (`wadgym worldmodel`, wired in wadgym.cli.worldmodel): N engines stepped at
once by the vector env's threads (wadgym.envs.vector.threads.EnvThreads), each playing one episode after another,
its frames and buffers encoded (PNG, or JPEG for the colour ones) on its own thread, whole episodes going into tar
shards in episode order (shards.py).

Determinism: episode i of a split is reset with seed `seed` + i, which draws its level and its engine seed; its
policy is drawn from the mixture, and every random choice of the episode (a random policy's actions, epsilon,
a run's sampled actions) from a generator of its own, np.random.default_rng([seed, split, i]). So an episode is
the same whichever engine plays it and whatever else runs beside it, shards hold whole episodes in order, and
the same command writes the same bytes (n_envs only changes the speed). Each engine's thread plays whole
episodes, its policy included (a run's network on that engine's observation alone), so no engine waits for
another.
"""

from __future__ import annotations

import dataclasses
import signal
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from wadgym.agents.datasets.record import StopOnSignal
from wadgym.agents.datasets.worldmodel import shards
from wadgym.agents.datasets.worldmodel.config import Plan, WorldModelConfig, resolve
from wadgym.agents.datasets.worldmodel.episode import EpisodeBuffer, image_fields, jsonable, level_plan

SPLIT_NUMBERS = {"train": 0, "test": 1}  # the second entropy word of an episode's generator


@dataclasses.dataclass(frozen=True)
class WorldModelResult:
    """What record_world_model did: the folder, the episodes and steps written now, the shards the folder holds,
    whether a signal stopped it (the finished shards stay; `--resume` continues), whether the dataset is complete
    and how long it took."""

    out: Path
    episodes: int
    steps: int
    shards: int
    interrupted: bool
    complete: bool
    seconds: float


def record_world_model(config: WorldModelConfig, on_episode=None) -> WorldModelResult:
    """Record as `config` says (see WorldModelConfig). Bad input is a ValueError before any engine starts.
    SIGINT or SIGTERM stops it after the step: the shards finished so far stay listed in index.json, the one
    being written is dropped, and a later call with resume=True records the rest. `on_episode(summary)` is
    called as each episode is handed to the shard writer."""
    plan = resolve(config)
    start = time.perf_counter()
    plan.out.mkdir(parents=True, exist_ok=True)
    index = _start_index(plan)
    stop = StopOnSignal()
    totals = {"episodes": 0, "steps": 0}
    bar = _progress_bar(plan, index) if config.progress else None

    def finished(summary: dict[str, Any]) -> None:
        totals["episodes"] += 1
        totals["steps"] += summary["steps"]
        if bar is not None:
            bar.update(1)
        if on_episode is not None:
            on_episode(summary)

    try:
        with stop:
            for split in shards.SPLITS:
                if plan.episodes[split] and stop.signum is None:
                    _record_split(plan, index, split, stop, finished)
        if stop.signum is None:
            index["complete"] = True
            from wadgym.agents.datasets.worldmodel.card import write_card

            write_card(plan.out, index)
            shards.write_index(plan.out, index)
    finally:
        if bar is not None:
            bar.close()
    return WorldModelResult(out=plan.out, episodes=totals["episodes"], steps=totals["steps"],
                            shards=len(shards.shards_of(index)), interrupted=stop.signum is not None,
                            complete=bool(index.get("complete")), seconds=time.perf_counter() - start)


def _start_index(plan: Plan) -> dict[str, Any]:
    """The folder's index: a new one (written now, so the folder is claimed before any engine starts), or the
    resumed one, its leftovers removed and its shards checked: a damaged shard is dropped with those after it
    in its split (their episodes are recorded again, the same bytes)."""
    from wadgym import __version__
    from wadgym.agents.system import git_info, installed_versions

    if plan.index is None:
        git = git_info()
        index = {"format": shards.FORMAT, "format_version": shards.FORMAT_VERSION, "settings": plan.settings,
                 "complete": False, "shards": [], "wadgym_version": __version__, "commit": git["commit"],
                 "uncommitted_changes": git["dirty"], "vizdoom_version": installed_versions(("vizdoom",))["vizdoom"]}
        shards.write_index(plan.out, index)
        return index
    index = plan.index
    shards.remove_leftovers(plan.out, index)
    damaged = {error.shard for error in shards.damaged_shards(plan.out, index)}
    kept, dropped_splits = [], set()
    for entry in shards.shards_of(index):
        if str(plan.out / entry["name"]) in damaged or entry["split"] in dropped_splits:
            dropped_splits.add(entry["split"])
            (plan.out / entry["name"]).unlink(missing_ok=True)
            continue
        kept.append(entry)
    index["shards"] = kept
    index["complete"] = False
    shards.write_index(plan.out, index)
    return index


def _progress_bar(plan: Plan, index: dict[str, Any]):
    from tqdm import tqdm

    done = sum(len(s["episode_summaries"]) for s in shards.shards_of(index))
    return tqdm(total=sum(plan.episodes.values()), initial=done, unit="episode", desc="recording",
                dynamic_ncols=True)


# --- one split --------------------------------------------------------------------------------------------------

def _record_split(plan: Plan, index: dict[str, Any], split: str, stop: StopOnSignal, finished) -> None:
    """Record the split's episodes not yet in a finished shard, on min(n_envs, episodes left) engines: each
    engine's thread takes the next episode, plays it through and hands it to the shard writer, until none is
    left or a signal came (the engines never wait for one another)."""
    from wadgym.agents.vec import group_signals_shielded
    from wadgym.envs.vector.threads import EnvThreads

    done = shards.shards_of(index, split)
    first = done[-1]["episodes"][1] + 1 if done else 0
    total = plan.episodes[split]
    if first >= total:
        return
    n_envs = min(plan.config.n_envs, total - first)
    writer = _Shards(plan, index, split, len(done), first, finished)
    queue = _Episodes(first, total)
    torch_threads = _one_torch_thread() if any(not isinstance(p, str) for p in plan.policies) else None
    threads = None
    try:
        with group_signals_shielded():
            envs = [_make_env(plan, split) for _ in range(n_envs)]
            # The engines' threads block SIGINT and SIGTERM (threads keep the mask they start with), so that the
            # kernel hands both to this thread, which takes them even while it waits for the others: a signal
            # landing on an engine's thread would wait, unseen, until every episode was played.
            mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
            try:
                threads = EnvThreads(envs)
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        slots = [_Slot(plan, split, env) for env in envs]

        def play(i: int) -> None:
            while stop.signum is None and (episode := queue.next()) is not None:
                if slots[i].play(episode, stop):
                    writer.add(*slots[i].take())

        threads.run("record", play, [() for _ in slots])
        writer.close(complete=stop.signum is None)
    except BaseException:
        writer.close(complete=False)
        raise
    finally:
        if threads is not None:
            threads.close()
        if torch_threads is not None:
            import torch

            torch.set_num_threads(torch_threads)


def _one_torch_thread() -> int:
    """Run a policy's network on one thread while the engines play (their threads keep every CPU busy: torch's
    own threads would wait on them, tens of times slower on 2 cores); returns the count to restore."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    return threads


class _Episodes:
    """The split's episode numbers left, handed out one at a time to whichever engine asks."""

    def __init__(self, first: int, total: int):
        self._numbers = iter(range(first, total))
        self._lock = threading.Lock()

    def next(self) -> int | None:
        with self._lock:
            return next(self._numbers, None)


def _make_env(plan: Plan, split: str):
    from wadgym.agents.vec import gym_make

    return gym_make(plan.config.env, plan.split_kwargs[split])


class _Slot:
    """One engine and the episode it plays: its generator, its policy, its EpisodeBuffer."""

    def __init__(self, plan: Plan, split: str, env):
        self.plan, self.split, self.env, self.base = plan, split, env, env.unwrapped
        self.episode: int | None = None
        width, height = (int(v) for v in plan.config.resolution.lower().split("x"))
        self.shape = (height, width)
        self.fields = image_fields(plan.settings["buffers"])
        import vizdoom as vzd

        self.variables = [getattr(vzd.GameVariable, name) for name in plan.settings["variables"]]
        self.n_actions = int(env.action_space.n)
        # a run's policy: the observation pipeline its training built, one per run of the mixture
        self.actors = [_RunActor(policy) if not isinstance(policy, str) else None for policy in plan.policies]

    def play(self, episode: int, stop: StopOnSignal) -> bool:
        """Play episode `episode` through (False when a signal stopped it first: it is dropped)."""
        plan, env, base = self.plan, self.env, self.base
        self.episode = episode
        rng = np.random.default_rng([plan.config.seed, SPLIT_NUMBERS[self.split], episode])
        self.policy_index = int(rng.choice(len(plan.weights), p=plan.weights)) if len(plan.weights) > 1 else 0
        policy, actor = plan.policies[self.policy_index], self.actors[self.policy_index]
        observation, info = env.reset(seed=plan.config.seed + episode)
        self.start_info, self.engine_seed = info, base.engine_seed
        self.level = level_plan(base, info.get("level_seed"))
        self.buffer = buffer = EpisodeBuffer(*self.shape, plan.config.chunk, self.fields, self.variables,
                                             plan.config.png_level, plan.settings["image_format"])
        buffer.add(base.game, base.last_state, env.render(), -1, False, 0.0, False, False)
        if actor is not None:
            actor.start(observation)
        epsilon, total = plan.config.epsilon, 0.0
        while stop.signum is None:
            if actor is not None:
                action = actor.act(rng)
            elif policy == "scripted":
                action = int(base.reference_action())
            else:
                action = int(rng.integers(self.n_actions))
            random_action = bool(epsilon) and rng.random() < epsilon
            if random_action:
                action = int(rng.integers(self.n_actions))
            observation, reward, terminated, truncated, info = env.step(action)
            total += float(reward)
            buffer.add(base.game, base.last_state, env.render(), action, random_action, float(reward),
                       bool(terminated), bool(truncated))
            if terminated or truncated:
                self.info, self.total = info, total
                return True
            if actor is not None:
                actor.push(observation)
        return False

    def take(self) -> tuple[int, dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
        """(episode, metadata, chunks, summary) of the episode that just ended; the slot is free."""
        plan, base = self.plan, self.base
        chunks = self.buffer.finish()
        steps = self.buffer.length
        last = self.info
        summary = {"episode": self.episode, "reset_seed": plan.config.seed + self.episode,
                   "level_seed": self.start_info.get("level_seed"), "engine_seed": self.engine_seed,
                   "policy": self.policy_index, "steps": steps, "actions": steps - 1, "return": self.total,
                   "score": float(last.get("score", self.total)),
                   "terminated": bool(chunks[-1]["steps.json"]["terminated"][-1])}
        metadata = {**summary, "split": self.split, "env": plan.config.env, "env_kwargs": plan.split_kwargs[self.split],
                    "policy_info": plan.policy_info[self.policy_index], "epsilon": plan.config.epsilon,
                    "resolution": plan.config.resolution, "images": self.fields,
                    "image_members": self.buffer.members,
                    "buttons": [b.name for b in base.game.get_available_buttons()],
                    "action_buttons": base.action_buttons(), "start_info": jsonable(self.start_info),
                    "end_info": jsonable(last), "level": self.level}
        episode, self.episode, self.buffer = self.episode, None, None
        return episode, jsonable(metadata), chunks, jsonable(summary)

class _Shards:
    """The split's shard writer: episodes handed in any order, written in episode order; a shard is finished
    (renamed, listed in index.json) after the episode that takes it past shard_mb."""

    def __init__(self, plan: Plan, index: dict[str, Any], split: str, number: int, first: int, finished):
        self.plan, self.index, self.split, self.number = plan, index, split, number
        self.next = first
        self.pending: dict[int, tuple] = {}
        self.writer: shards.ShardWriter | None = None
        self.limit = plan.config.shard_mb * 1e6
        self.finished = finished
        self._lock = threading.Lock()  # the engines' threads hand episodes in at once

    def add(self, episode: int, metadata, chunks, summary) -> None:
        with self._lock:
            self._add(episode, metadata, chunks, summary)

    def _add(self, episode: int, metadata, chunks, summary) -> None:
        self.pending[episode] = (metadata, chunks, summary)
        while self.next in self.pending:
            metadata, chunks, summary = self.pending.pop(self.next)
            if self.writer is None:
                self.writer = shards.ShardWriter(self.plan.out, self.split, self.number)
            for members in chunks:
                members["steps.json"] = shards._json_bytes(members["steps.json"])
            self.writer.add_episode(self.next, metadata, chunks, summary)
            self.finished(summary)
            self.next += 1
            if self.writer.size >= self.limit:
                self._finish()

    def _finish(self) -> None:
        entry = self.writer.finish()
        self.writer = None
        self.number += 1
        self.index["shards"] = sorted([*self.index["shards"], entry],  # split by split (a resume may redo train's)
                                      key=lambda s: (shards.SPLITS.index(s["split"]), s["name"]))
        shards.write_index(self.plan.out, self.index)

    def close(self, complete: bool) -> None:
        """At the split's end (complete): finish the last shard; when stopped: drop the unfinished one."""
        with self._lock:
            self._close(complete)

    def _close(self, complete: bool) -> None:
        if self.writer is None:
            return
        if complete and not self.pending:
            self._finish()
        else:
            self.writer.abandon()
            self.writer = None


class _RunActor:
    """A trained run's policy on one engine: the observation pipeline its training built (frame stack,
    channel-first, its VecNormalize statistics) and one forward pass a step, on the engine's own thread (a batch
    of one: the same arithmetic whichever engine plays the episode), the action drawn from the probabilities
    with the episode's generator (argmax with deterministic)."""

    def __init__(self, saved):
        self.saved = saved
        shape = saved.model.observation_space.shape  # (C * stack, H, W)
        self.stack = max(saved.frame_stack, 1)
        self.channels = shape[0] // self.stack
        self.inputs = np.zeros((1, *shape), np.uint8)
        from wadgym.agents.vec import input_keys

        self.keys = input_keys(saved.env_kwargs.get("buffers") or [])  # as its training stacked them

    def start(self, observation) -> None:
        self.inputs[0] = 0
        self.inputs[0, -self.channels:] = self._channels(observation)

    def push(self, observation) -> None:
        inputs = self.inputs[0]
        inputs[:-self.channels] = inputs[self.channels:].copy()
        inputs[-self.channels:] = self._channels(observation)

    def _channels(self, observation) -> np.ndarray:
        """The observation as the run's input channels, (C, H, W)."""
        if not isinstance(observation, dict):
            return np.moveaxis(observation, -1, 0)
        return np.concatenate([np.moveaxis(observation[key], -1, 0) for key in self.keys], axis=0)

    def act(self, rng: np.random.Generator) -> int:
        import torch

        inputs = self.inputs
        if self.saved.vec_normalize is not None:
            inputs = self.saved.vec_normalize.normalize_obs(inputs.astype(np.float32))
        policy = self.saved.model.policy
        with torch.no_grad():
            tensor, _ = policy.obs_to_tensor(inputs)
            probabilities = policy.get_distribution(tensor).distribution.probs[0].cpu().numpy().astype(np.float64)
        if self.saved.deterministic:
            return int(np.argmax(probabilities))
        cumulative = np.cumsum(probabilities)
        return int(min(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"),
                       len(probabilities) - 1))
