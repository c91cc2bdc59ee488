"""Behaviour cloning from a Minari dataset (`wadgym train --pretrain DATASET`, `--algo bc`): the run's own
policy network trained on the dataset's (observation, action) pairs before PPO, or instead of it.

A dataset written by `wadgym record` (agents.datasets.record) holds the env's own frames; the network sees them as
the run's VecEnv gives them (agents.vec.observe). Each recorded step's input is rebuilt here exactly so:
the run's `frame_stack` frames, oldest first along the channels and zeros before an episode's first frame
(SB3's VecFrameStack, which starts each episode's stack afresh), made channel-first (VecTransposeImage). With
`normalize` on, the run's VecNormalize statistics are first updated with every recorded input, as if its
envs had produced them, and the inputs normalised with them: PPO then starts from those statistics (and
`--algo bc` saves them beside the model). The loss is -log pi(a|s) of the recorded action, from SB3's own
`policy.evaluate_actions`, minimised with the policy's optimizer (its learning rate the schedule's start,
its max_grad_norm) in minibatches of the run's batch_size, for `epochs` passes over the steps in a seeded
order. The value head is not fitted: PPO fits it from its first rollout. A person's dataset (`wadgym play`)
may flag steps as pauses its action set has no action for (infos "human_idle"; e.g. "basic", where the action
recorded stands in as MOVE_FORWARD): they are left out, so that standing still is not learnt as walking.

The run records the dataset in config.yml (`pretrain`: name, episodes, steps, idle steps, the policy that
played it, its env kwargs and levels; MLflow params through it), and what cloning did in pretrain.json (per
epoch: mean loss and the share of recorded steps whose action is the policy's argmax), in TensorBoard (tb/BC_1:
pretrain/loss, pretrain/accuracy per epoch, which MLflow gets with the other scalars) and in meta.json's
session. A recurrent policy (its LSTM state), the RLlib backend and self-play are refused.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

RESULTS_FILE = "pretrain.json"
TB_NAME = "BC"  # tb/BC_1 beside PPO's tb/PPO_1
RECORD_HINT = "record one with `wadgym record ENV --policy scripted --dataset NAME`"


# --- checking the dataset: nothing started ----------------------------------------------------------------

def pretrain_settings(dataset_id: str, epochs: int, env_id: str, hyperparams: dict[str, Any], algo: str,
                      timesteps_given: bool) -> dict[str, Any]:
    """config.yml's `pretrain` entry for a new run of `env_id` with `hyperparams`: the dataset checked against
    the run (it exists, was recorded by `wadgym record` on the same id, in the same observation and action
    spaces) and described (name, episodes, steps, source policy). A ValueError naming what is wrong, before
    any engine starts (the env is made, never reset). The backend's support is agents.backends'."""
    from wadgym.agents.algos import ALGOS

    if not ALGOS[algo].pretrain:
        fits = " or ".join(name for name, entry in ALGOS.items() if entry.pretrain)
        raise ValueError(f"--pretrain clones into a feed-forward policy (--algo {fits}), not algo={algo}")
    if not ALGOS[algo].ppo_steps and timesteps_given:
        raise ValueError(f"--algo {algo} trains no PPO steps: leave out --timesteps (or train --algo ppo --pretrain)")
    if hyperparams.get("curriculum"):
        raise ValueError("--pretrain with a curriculum: the dataset's levels are not a stage's; train one of them")
    dataset = open_dataset(dataset_id)
    meta = dataset.storage.metadata.get("wadgym")
    if not isinstance(meta, dict) or "env_id" not in meta:
        raise ValueError(f"dataset {dataset_id!r} was not recorded by `wadgym record` (its metadata has no "
                         f"'wadgym' block naming the env id); {RECORD_HINT}")
    if meta["env_id"] != env_id:
        raise ValueError(f"dataset {dataset_id!r} holds episodes of {meta['env_id']}, not of {env_id} (the run's "
                         "env): pretrain with a dataset of the id it trains")
    observations, actions = _run_spaces(env_id, hyperparams.get("env_kwargs") or {})
    if dataset.action_space != actions:
        raise ValueError(f"dataset {dataset_id!r} acts in {dataset.action_space}; {env_id} with the run's env "
                         f"kwargs {hyperparams.get('env_kwargs') or {}} acts in {actions}: record it with the "
                         "same action set")
    if dataset.observation_space != observations:
        raise ValueError(f"dataset {dataset_id!r} holds frames of {dataset.observation_space}; {env_id} with the "
                         f"run's env kwargs {hyperparams.get('env_kwargs') or {}} gives {observations}: train with "
                         "the dataset's resolution and colour")
    idle = _idle_steps(dataset, meta)
    if idle == dataset.total_steps:
        raise ValueError(f"dataset {dataset_id!r}: each of its {idle} steps is a pause of the person who played "
                         "it (infos 'human_idle'), which cloning leaves out: record one in which they play")
    return {"dataset": dataset_id, "epochs": epochs, "episodes": int(dataset.total_episodes),
            "steps": int(dataset.total_steps), "idle_steps": idle, "policy": meta.get("policy") or {},
            "env_kwargs": meta.get("env_kwargs") or {}, "levels": meta.get("levels"),
            "path": str(Path(dataset.storage.data_path).parent)}


def _idle_steps(dataset, meta: dict[str, Any]) -> int:
    """The steps of a `wadgym play` dataset flagged as pauses (infos "human_idle"), which cloning leaves out;
    0 for a dataset that records no such flag (its episodes are not read)."""
    if "human_idle" not in (meta.get("step_infos") or ()):
        return 0
    return sum(int(np.count_nonzero(np.asarray(episode.infos["human_idle"][1:])))
               for episode in dataset.iterate_episodes() if "human_idle" in episode.infos)


def open_dataset(dataset_id: str):
    """The local Minari dataset `dataset_id` (never downloaded); a ValueError naming the datasets there."""
    try:
        import minari
        from minari.storage import get_dataset_path
    except ModuleNotFoundError as error:
        raise ValueError(f"--pretrain reads Minari datasets: pip install 'wadgym[demos]' ({error})") from None
    root = get_dataset_path()
    try:
        found = (get_dataset_path(dataset_id) / "data").is_dir()
    except (ValueError, TypeError):
        found = False
    if not found:
        local = sorted(minari.list_local_datasets())
        raise ValueError(f"unknown dataset {dataset_id!r}: no such dataset in {root} (local: "
                         f"{', '.join(local) if local else 'none'}); {RECORD_HINT}")
    try:
        return minari.load_dataset(dataset_id)
    except Exception as error:  # noqa: BLE001 - a folder Minari cannot read
        raise ValueError(f"dataset {dataset_id!r} in {root} cannot be read: "
                         f"{str(error).strip().splitlines()[0][:300] if str(error).strip() else type(error).__name__}"
                         ) from None


def _run_spaces(env_id: str, env_kwargs: dict[str, Any]):
    """The observation and action spaces of the run's env (made and closed: no engine starts before a reset)."""
    from wadgym.agents.vec import make_env

    env = make_env(env_id, env_kwargs)
    try:
        return env.observation_space, env.action_space
    finally:
        env.close()


# --- the network's inputs --------------------------------------------------------------------------------------

class Demonstrations:
    """A dataset's steps as the run's network sees them: `frames` (every recorded frame, episode after episode,
    uint8 (N, H, W, C)), `stacks` ((steps, k) rows into frames, -1 for the zeros before an episode's first frame)
    and `actions` (steps,); inputs(rows) builds those steps' stacked, channel-first inputs. `idle`: the recorded
    steps left out, a person's pauses (see load_demonstrations); their frames stay in the later steps' stacks."""

    def __init__(self, frames: np.ndarray, stacks: np.ndarray, actions: np.ndarray, idle: int = 0):
        self.frames, self.stacks, self.actions, self.idle = frames, stacks, actions, idle

    def __len__(self) -> int:
        return len(self.actions)

    def inputs(self, rows: np.ndarray | slice | None = None) -> np.ndarray:
        """(n, k*C, H, W) uint8: VecFrameStack's stack (oldest frame first along the channels, zeros before the
        episode's first), then VecTransposeImage's channel-first order."""
        stacks = self.stacks if rows is None else self.stacks[rows]
        gathered = self.frames[np.maximum(stacks, 0)]                    # (n, k, H, W, C)
        gathered[stacks < 0] = 0
        n, k, height, width, channels = gathered.shape
        return np.ascontiguousarray(gathered.transpose(0, 1, 4, 2, 3).reshape(n, k * channels, height, width))


def load_demonstrations(dataset_id: str, frame_stack: int) -> Demonstrations:
    """Every step of `dataset_id` (the observation each action was taken on, not an episode's last) with the
    stack of `frame_stack` frames the run's VecEnv would have given for it (0 or 1: the frame alone), but the
    steps a person paused in with no action of the set for it (`wadgym play`'s infos "human_idle" 1: the action
    recorded only stands in, e.g. "basic"'s MOVE_FORWARD), which would teach walking where they stood."""
    dataset = open_dataset(dataset_id)
    k = max(int(frame_stack or 0), 1)
    frames, stacks, actions, offset, idle = [], [], [], 0, 0
    for episode in dataset.iterate_episodes():
        steps = len(episode.actions)
        frames.append(np.asarray(episode.observations[:steps]))
        rows = np.arange(steps)[:, None] - np.arange(k - 1, -1, -1)[None, :]   # t-k+1 .. t, oldest first
        kept = np.ones(steps, bool)
        if "human_idle" in episode.infos:  # infos[t + 1]: what step t did (infos[0]: the reset's)
            kept = ~np.asarray(episode.infos["human_idle"][1:], bool)
        stacks.append(np.where(rows >= 0, rows + offset, -1)[kept])
        actions.append(np.asarray(episode.actions)[kept])
        offset, idle = offset + steps, idle + int((~kept).sum())
    return Demonstrations(np.concatenate(frames), np.concatenate(stacks), np.concatenate(actions), idle)


# --- cloning ---------------------------------------------------------------------------------------------------

def behaviour_clone(model, config: dict[str, Any], run_dir: Path) -> dict[str, Any]:
    """Train `model`'s policy (a new SB3 model on the run's VecEnv) on the run's `pretrain` dataset, as the
    module says; write pretrain.json and tb/BC_1. Returns the summary meta.json's session keeps."""
    import torch
    from gymnasium import spaces
    from stable_baselines3.common.logger import configure

    from wadgym.agents import runfolder

    settings, hp = config["pretrain"], config["hyperparams"]
    epochs, batch_size = int(settings["epochs"]), int(hp.get("batch_size", 64))
    print(f"behaviour cloning on {settings['dataset']}: {settings['steps']} steps of {settings['episodes']} "
          f"episodes ({(settings.get('policy') or {}).get('kind', 'unknown')} policy), {epochs} epochs", flush=True)
    start = time.perf_counter()
    demos = load_demonstrations(settings["dataset"], hp.get("frame_stack", 0))
    if demos.idle:
        print(f"  {demos.idle} steps a person paused in left out (infos 'human_idle': the action set has no "
              f"action for a pause)", flush=True)
    if demos.inputs(slice(0, 1)).shape[1:] != model.observation_space.shape:
        raise ValueError(f"dataset {settings['dataset']!r}: its inputs {demos.inputs(slice(0, 1)).shape[1:]} are "
                         f"not the policy's {model.observation_space.shape}")
    normalizer = model.get_vec_normalize_env()
    if normalizer is not None and not normalizer.norm_obs:
        normalizer = None
    if normalizer is not None:  # the run's statistics, updated with every recorded input (see the module)
        for first in range(0, len(demos), 1024):
            normalizer.obs_rms.update(demos.inputs(slice(first, first + 1024)).astype(np.float64))

    policy, device = model.policy, model.device
    discrete = isinstance(model.action_space, spaces.Discrete)

    def tensors(rows):
        inputs = demos.inputs(rows)
        inputs = normalizer.normalize_obs(inputs) if normalizer is not None else inputs
        actions = torch.as_tensor(demos.actions[rows], device=device)
        return (torch.as_tensor(np.asarray(inputs, dtype=np.float32), device=device),
                actions.long().flatten() if discrete else actions.float())

    logger = configure(str(_tb_folder(run_dir)), ["tensorboard"])
    order_rng = np.random.default_rng(config.get("seed", 0))
    history = []
    for epoch in range(1, epochs + 1):
        policy.set_training_mode(True)
        losses, order = [], order_rng.permutation(len(demos))
        for first in range(0, len(demos), batch_size):
            rows = order[first:first + batch_size]
            observations, actions = tensors(rows)
            _, log_prob, _ = policy.evaluate_actions(observations, actions)
            loss = -log_prob.mean()
            policy.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), model.max_grad_norm)
            policy.optimizer.step()
            losses.append(float(loss.detach()))
        accuracy = agreement(policy, tensors, len(demos))
        history.append({"epoch": epoch, "loss": float(np.mean(losses)), "accuracy": accuracy})
        logger.record("pretrain/loss", history[-1]["loss"])
        logger.record("pretrain/accuracy", accuracy)
        logger.dump(step=epoch)
        print(f"  epoch {epoch}/{epochs}: loss {history[-1]['loss']:.4f}, accuracy {accuracy:.3f}", flush=True)
    logger.close()
    policy.set_training_mode(False)
    seconds = time.perf_counter() - start
    summary = {"dataset": settings["dataset"], "samples": len(demos), "idle_left_out": demos.idle,
               "epochs": epochs, "batch_size": batch_size,
               "learning_rate": float(policy.optimizer.param_groups[0]["lr"]), "seconds": round(seconds, 2),
               "loss": history[-1]["loss"], "accuracy": history[-1]["accuracy"],
               "normalize": "the run's VecNormalize statistics updated with the recorded inputs"
                            if normalizer is not None else None}
    runfolder.write_json(run_dir / RESULTS_FILE, {**summary, "source": settings, "history": history})
    return summary


def agreement(policy, tensors, n: int, chunk: int = 1024) -> float:
    """The share of the `n` recorded steps whose action is `policy`'s most likely one (no gradients)."""
    import torch

    policy.set_training_mode(False)
    same = 0
    with torch.no_grad():
        for first in range(0, n, chunk):
            observations, actions = tensors(np.arange(first, min(first + chunk, n)))
            matches = policy.get_distribution(observations).mode().reshape(actions.shape) == actions
            same += int((matches.reshape(len(actions), -1).all(dim=1)).sum())
    return same / n


def _tb_folder(run_dir: Path) -> Path:
    """tb/BC_<k>, k one more than the folders there (SB3's own numbering of tb/PPO_<k>)."""
    taken = [int(p.name.rsplit("_", 1)[1]) for p in (Path(run_dir) / "tb").glob(f"{TB_NAME}_*")
             if p.name.rsplit("_", 1)[1].isdigit()]
    return Path(run_dir) / "tb" / f"{TB_NAME}_{max(taken, default=0) + 1}"
