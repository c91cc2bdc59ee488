"""The exploration bonuses of `wadgym train --explore` (the setting: exploration.explore) and the SB3 callback
that adds them to the rewards PPO and RecurrentPPO learn from.

Where the bonus goes in. SB3's rollout collection calls the callbacks' on_step after each vector step and before
the step's rewards enter the rollout buffer (and before the returns and advantages are computed at the rollout's
end), so ExploreCallback adds coef x bonus to that step's `rewards` array in place: the bonus is part of the
return every advantage is computed from, as in the papers (not added after GAE). The Monitor files, SB3's
rollout/ep_rew_mean and the evaluation see the task's own reward only.

The kinds (each a class here, named by agents.exploration.explore.KINDS):

- CountBonus (`counts`): the player's cell is (floor(x / cell), floor(y / cell)) of the engine's POSITION_X/Y
  after the step (info["position"]); the bonus is 1 / sqrt(n), n the visits to that cell this episode including
  this one (1, 0.707, 0.577, 0.5, ... while the player stays). The counts are cleared when an episode ends.
- E3BBonus (`e3b`, Henaff et al. 2022): phi(s') from an encoder trained with an inverse-dynamics head (which
  action led from s to s') on each rollout; the bonus of reaching s' is phi(s')^T C^-1 phi(s'), C = ridge x I plus
  phi phi^T of every observation of the episode so far (its first one included), then phi(s') joins C by a
  Sherman-Morrison rank-one update of C^-1. C is reset when an episode ends.
- RNDBonus (`rnd`, Burda et al. 2018): the squared error of a trained predictor against a fixed random target
  net on the newest frame of s', the frame whitened by running per-pixel mean and std and clipped to [-5, 5]; the
  error is divided by the running std of the discounted intrinsic return (gamma 0.99, not cut at episode ends, as
  the paper's non-episodic intrinsic return). One value head learns the summed reward (the paper has a second
  value head for the intrinsic return; wadgym keeps SB3's policies as they are, so one head and the normalised
  bonus).

Every network is small (SmallCNN's convolutions) and runs on the model's device. Its state (weights, optimizer,
normalisers) is saved with each checkpoint (model_explore_<steps>_steps.pt, explore.pt beside model.zip), so a
resumed run continues it; the episodic memories start afresh with the resumed run's new episodes.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn as nn
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.running_mean_std import RunningMeanStd

from wadgym.agents.exploration.explore import KINDS


@dataclass
class Step:
    """One vector step as the bonuses see it: s (obs), the actions, s' (next_obs: the episode's last observation
    where it ended), the infos and the done flags, each with the vector env's first axis."""

    obs: np.ndarray
    actions: np.ndarray
    next_obs: np.ndarray
    infos: list[dict[str, Any]]
    dones: np.ndarray


def conv_encoder(channels: int, height: int, width: int, features: int) -> nn.Sequential:
    """SmallCNN's convolutions (agents.features) and a linear layer to `features`, no activation after it."""
    cnn = nn.Sequential(
        nn.Conv2d(channels, 16, kernel_size=5, stride=2, padding=2), nn.ReLU(),
        nn.Conv2d(16, 32, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(32, 32, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.Flatten())
    with torch.no_grad():
        flat = cnn(torch.zeros(1, channels, height, width)).shape[1]
    return nn.Sequential(cnn, nn.Linear(flat, features))


def as_float(obs: np.ndarray, device) -> torch.Tensor:
    """Observations as float32 on `device`, uint8 frames scaled to [0, 1]."""
    tensor = torch.as_tensor(np.asarray(obs), device=device)
    return tensor.float() / 255.0 if tensor.dtype == torch.uint8 else tensor.float()


def _seeded(seed: int, build):
    """build() with torch's global generator seeded by `seed`, the generator's state restored after."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return build()


class CountBonus:
    """`counts`: 1 / sqrt(n) for the n-th visit this episode of the player's position cell."""

    trains = False

    def __init__(self, settings: dict[str, Any], n_envs: int, **_: Any):
        self.cell = float(settings["cell"])
        self.visits: list[dict[tuple[int, int], int]] = [{} for _ in range(n_envs)]

    def cell_of(self, position) -> tuple[int, int]:
        return int(math.floor(position[0] / self.cell)), int(math.floor(position[1] / self.cell))

    def start_episodes(self, envs, obs: np.ndarray) -> None:
        for i in envs:
            self.visits[i].clear()

    def step(self, step: Step) -> np.ndarray:
        bonus = np.zeros(len(step.infos), np.float64)
        for i, info in enumerate(step.infos):
            if "position" not in info:
                raise RuntimeError("explore counts reads info['position'] (the player's x, y), which this env's "
                                   "step did not give; train with e3b or rnd instead")
            key = self.cell_of(info["position"])
            n = self.visits[i].get(key, 0) + 1
            self.visits[i][key] = n
            bonus[i] = 1.0 / math.sqrt(n)
        return bonus

    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        pass


class E3BBonus:
    """`e3b`: the elliptical episodic bonus over an inverse-dynamics model's features."""

    trains = True

    def __init__(self, settings: dict[str, Any], n_envs: int, observation_space, action_space, device, seed: int):
        if not hasattr(action_space, "n"):
            raise ValueError(f"explore e3b's inverse-dynamics model predicts a discrete action; this env's action "
                             f"space is {action_space}")
        channels, height, width = observation_space.shape
        self.features, self.ridge, self.device = int(settings["features"]), float(settings["ridge"]), device
        self.epochs, self.batch_size = int(settings["epochs"]), int(settings["batch_size"])
        self.update_proportion = float(settings["update_proportion"])

        def build():
            encoder = conv_encoder(channels, height, width, self.features)
            inverse = nn.Sequential(nn.Linear(2 * self.features, 256), nn.ReLU(), nn.Linear(256, int(action_space.n)))
            return encoder.to(device), inverse.to(device)

        self.encoder, self.inverse = _seeded(seed, build)
        self.optimizer = torch.optim.Adam([*self.encoder.parameters(), *self.inverse.parameters()],
                                          lr=float(settings["learning_rate"]))
        self.generator = torch.Generator().manual_seed(seed)
        # float64: a thousand rank-one updates in float32 drift from the true inverse
        self.inverse_cov = torch.eye(self.features, dtype=torch.float64).repeat(n_envs, 1, 1) / self.ridge

    @torch.no_grad()
    def embed(self, obs: np.ndarray) -> torch.Tensor:
        return self.encoder(as_float(obs, self.device)).double().cpu()

    def start_episodes(self, envs, obs: np.ndarray) -> None:
        """A new episode in each of `envs`: C = ridge x I, then the episode's first observation joins it."""
        envs = list(envs)
        if not envs:
            return
        self.inverse_cov[envs] = torch.eye(self.features, dtype=torch.float64) / self.ridge
        self._update(envs, self.embed(obs[envs]))

    @staticmethod
    def rank_one(cinv: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
        """Each row's u^T C^-1 u; then `cinv` (n, d, d) becomes (C + u u^T)^-1 in place (Sherman-Morrison)."""
        v = torch.bmm(cinv, u.unsqueeze(2)).squeeze(2)
        quadratic = (u * v).sum(dim=1)
        cinv.sub_(torch.bmm((v / (1.0 + quadratic).unsqueeze(1)).unsqueeze(2), v.unsqueeze(1)))
        return quadratic

    def _update(self, envs, u: torch.Tensor) -> torch.Tensor:
        envs = list(envs)
        if envs == list(range(len(self.inverse_cov))):
            return self.rank_one(self.inverse_cov, u)  # every env: in place, no copy
        cinv = self.inverse_cov[envs]
        quadratic = self.rank_one(cinv, u)
        self.inverse_cov[envs] = cinv
        return quadratic

    def step(self, step: Step) -> np.ndarray:
        return self._update(range(len(step.dones)), self.embed(step.next_obs)).numpy()

    def train(self, obs: np.ndarray, actions: np.ndarray, next_obs: np.ndarray) -> dict[str, float]:
        """Epochs of the inverse-dynamics loss (cross-entropy of the action taken) over a random
        `update_proportion` of the rollout's transitions (a new draw each epoch)."""
        targets = torch.as_tensor(actions.astype(np.int64).reshape(-1), device=self.device)

        def loss(batch: np.ndarray) -> torch.Tensor:
            logits = self.inverse(torch.cat([self.encoder(as_float(obs[batch], self.device)),
                                             self.encoder(as_float(next_obs[batch], self.device))], dim=1))
            return nn.functional.cross_entropy(logits, targets[batch])

        return fit(loss, self.optimizer, len(obs), self.update_proportion, self.batch_size, self.epochs,
                   self.generator)

    def state_dict(self) -> dict[str, Any]:
        return {"encoder": self.encoder.state_dict(), "inverse": self.inverse.state_dict(),
                "optimizer": self.optimizer.state_dict(), "generator": self.generator.get_state()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.encoder.load_state_dict(state["encoder"])
        self.inverse.load_state_dict(state["inverse"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.generator.set_state(state["generator"])


class RNDBonus:
    """`rnd`: a predictor's error on a fixed random network's features of the newest frame, normalised."""

    trains = True
    PIXEL_VAR_FLOOR = 1e-4  # (2.5 / 255)^2: a pixel that never changes is not whitened into noise

    def __init__(self, settings: dict[str, Any], n_envs: int, observation_space, action_space, device, seed: int,
                 frame_stack: int = 1):
        channels, height, width = observation_space.shape
        self.frame_channels = max(channels // max(int(frame_stack), 1), 1)  # the newest frame's channels
        self.device, self.gamma = device, float(settings["gamma"])
        self.epochs, self.batch_size = int(settings["epochs"]), int(settings["batch_size"])
        self.update_proportion = float(settings["update_proportion"])
        features = int(settings["features"])

        def build():
            target = conv_encoder(self.frame_channels, height, width, features)
            predictor = conv_encoder(self.frame_channels, height, width, 256)
            predictor = nn.Sequential(predictor, nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, features))
            return target.to(device), predictor.to(device)

        self.target, self.predictor = _seeded(seed, build)
        for parameter in self.target.parameters():
            parameter.requires_grad_(False)
        self.optimizer = torch.optim.Adam(self.predictor.parameters(), lr=float(settings["learning_rate"]))
        self.generator = torch.Generator().manual_seed(seed + 1)
        self.obs_rms = RunningMeanStd(shape=(self.frame_channels, height, width))
        self.return_rms = RunningMeanStd(shape=())
        self.returns = np.zeros(n_envs, np.float64)

    def frames(self, obs: np.ndarray) -> np.ndarray:
        frames = np.asarray(obs)[:, -self.frame_channels:].astype(np.float32)
        return frames / 255.0 if np.asarray(obs).dtype == np.uint8 else frames

    def whitened(self, frames: np.ndarray) -> torch.Tensor:
        std = np.sqrt(np.maximum(self.obs_rms.var, self.PIXEL_VAR_FLOOR))
        return torch.as_tensor(np.clip((frames - self.obs_rms.mean) / std, -5.0, 5.0), dtype=torch.float32,
                               device=self.device)

    def errors(self, x: torch.Tensor) -> torch.Tensor:
        return ((self.predictor(x) - self.target(x)) ** 2).mean(dim=1)

    @torch.no_grad()
    def raw(self, obs: np.ndarray) -> np.ndarray:
        """The prediction errors on `obs` (s' of each env) with the statistics as they are; nothing changes."""
        return self.errors(self.whitened(self.frames(obs))).double().cpu().numpy()

    def normalised(self, raw: np.ndarray) -> np.ndarray:
        return raw / math.sqrt(self.return_rms.var + 1e-8)

    def start_episodes(self, envs, obs: np.ndarray) -> None:
        pass  # global: nothing is cleared when an episode ends

    def step(self, step: Step) -> np.ndarray:
        frames = self.frames(step.next_obs)
        self.obs_rms.update(frames.astype(np.float64))
        with torch.no_grad():
            raw = self.errors(self.whitened(frames)).double().cpu().numpy()
        self.returns = self.returns * self.gamma + raw
        self.return_rms.update(self.returns)
        return self.normalised(raw)

    def train(self, obs: np.ndarray, actions: np.ndarray, next_obs: np.ndarray) -> dict[str, float]:
        """Epochs of the predictor's squared error on a random `update_proportion` of the rollout's s' (a new
        draw each epoch; the paper masks each sample with that probability)."""
        x_all = self.whitened(self.frames(next_obs))
        return fit(lambda batch: self.errors(x_all[batch]).mean(), self.optimizer, len(next_obs),
                   self.update_proportion, self.batch_size, self.epochs, self.generator)

    def state_dict(self) -> dict[str, Any]:
        return {"target": self.target.state_dict(), "predictor": self.predictor.state_dict(),
                "optimizer": self.optimizer.state_dict(), "generator": self.generator.get_state(),
                "obs_rms": _rms_state(self.obs_rms), "return_rms": _rms_state(self.return_rms),
                "returns": self.returns.copy()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.target.load_state_dict(state["target"])
        self.predictor.load_state_dict(state["predictor"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.generator.set_state(state["generator"])
        _load_rms(self.obs_rms, state["obs_rms"])
        _load_rms(self.return_rms, state["return_rms"])
        if len(state["returns"]) == len(self.returns):
            self.returns = np.asarray(state["returns"], np.float64).copy()


def fit(loss, optimizer, n: int, proportion: float, batch_size: int, epochs: int,
        generator: torch.Generator) -> dict[str, float]:
    """`epochs` passes of `optimizer` over minibatches of a random `proportion` of n samples (a new draw each
    epoch): `loss(indices)` is the minibatch's loss. {"loss": the mean of the minibatches' losses}."""
    losses = []
    for _ in range(epochs):
        order = subset(n, proportion, generator).numpy()
        for start in range(0, len(order), batch_size):
            value = loss(order[start:start + batch_size])
            optimizer.zero_grad()
            value.backward()
            optimizer.step()
            losses.append(value.item())
    return {"loss": float(np.mean(losses))} if losses else {}


def subset(n: int, proportion: float, generator: torch.Generator) -> torch.Tensor:
    """A random order of round(proportion x n) of the indices 0..n-1 (at least one when n > 0)."""
    order = torch.randperm(n, generator=generator)
    return order[:max(1, round(proportion * n))] if n else order


def _rms_state(rms: RunningMeanStd) -> dict[str, Any]:
    return {"mean": np.array(rms.mean, np.float64), "var": np.array(rms.var, np.float64), "count": float(rms.count)}


def _load_rms(rms: RunningMeanStd, state: dict[str, Any]) -> None:
    rms.mean, rms.var, rms.count = np.array(state["mean"]), np.array(state["var"]), float(state["count"])


CLASSES = {"CountBonus": CountBonus, "E3BBonus": E3BBonus, "RNDBonus": RNDBonus}


def make_bonuses(setting: dict[str, dict[str, Any]], n_envs: int, observation_space, action_space, device,
                 seed: int = 0, frame_stack: int = 1) -> dict[str, Any]:
    """kind -> its bonus object for the resolved `setting` (agents.exploration.explore.parse_explore)."""
    bonuses = {}
    for index, (name, settings) in enumerate(setting.items()):
        cls = CLASSES[KINDS[name].bonus_class]
        extra = {"frame_stack": frame_stack} if cls is RNDBonus else {}
        bonuses[name] = cls(settings, n_envs, observation_space=observation_space, action_space=action_space,
                            device=device, seed=seed + 7919 * (index + 1), **extra)
    return bonuses


class ExploreCallback(BaseCallback):
    """Adds the exploration bonus to each step's rewards while PPO or RecurrentPPO collects a rollout, trains
    the bonuses' networks at the rollout's end, and logs explore/* (TensorBoard, and MLflow through the
    tracking callback): per kind the mean bonus a step and its network's loss, and the mean intrinsic and
    extrinsic (task) return of the episodes that ended in the rollout.

    `setting`: the resolved setting (agents.exploration.explore.parse_explore); `state`: a saved state (a checkpoint's
    explore file) to continue from. The bonuses are built at the training's start, from the model's spaces."""

    def __init__(self, setting: dict[str, dict[str, Any]], frame_stack: int = 1, seed: int = 0,
                 state: str | Path | None = None):
        super().__init__(verbose=0)
        self.setting, self.frame_stack, self.seed, self.state_file = setting, int(frame_stack or 1), seed, state
        self.bonuses: dict[str, Any] | None = None
        self._env = None
        self._stored: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._sums: dict[str, float] = {}
        self._steps = 0
        self._episode_bonus: np.ndarray | None = None
        self._intrinsic = deque(maxlen=100)
        self._extrinsic = deque(maxlen=100)

    # --- set-up ------------------------------------------------------------------------------
    def build(self, model) -> None:
        self.bonuses = make_bonuses(self.setting, model.n_envs, model.observation_space, model.action_space,
                                    model.device, self.seed, self.frame_stack)
        if self.state_file is not None and Path(self.state_file).is_file():
            self.load(self.state_file)

    def _on_training_start(self) -> None:
        if self.bonuses is None:
            self.build(self.model)
        self._start_all()

    def _start_all(self) -> None:
        """Fresh episodic memories for the episodes the model's envs start with (a new or resumed run, or a
        curriculum's new envs)."""
        self._env = self.model.env
        obs = self.model._last_obs
        for bonus in self.bonuses.values():
            bonus.start_episodes(range(self.model.n_envs), obs)
        self._episode_bonus = np.zeros(self.model.n_envs, np.float64)

    def _on_rollout_start(self) -> None:
        if self.model.env is not self._env:
            self._start_all()

    # --- each step ---------------------------------------------------------------------------
    def _on_step(self) -> bool:
        rewards, dones, infos = self.locals["rewards"], np.asarray(self.locals["dones"]), self.locals["infos"]
        new_obs = self.locals["new_obs"]
        if not np.issubdtype(rewards.dtype, np.floating):
            raise TypeError(f"explore: the vector env's rewards are {rewards.dtype}; the bonus needs floats")
        # The step's next observations, with an ended episode's last frame in place of its next episode's
        # first. Copied only where a frame is swapped in or the step is stored for training: a frame-stacking
        # wrapper hands out the same array each step and updates it in place.
        swap = [i for i in np.flatnonzero(dones) if infos[i].get("terminal_observation") is not None]
        stores = any(bonus.trains for bonus in self.bonuses.values())
        next_obs = np.array(new_obs, copy=True) if swap or stores else np.asarray(new_obs)
        for i in swap:
            next_obs[i] = infos[i]["terminal_observation"]
        step = Step(np.asarray(self.model._last_obs), np.asarray(self.locals["actions"]).reshape(len(dones), -1)[:, 0],
                    next_obs, infos, dones)
        total = np.zeros(len(dones), np.float64)
        for name, bonus in self.bonuses.items():
            values = bonus.step(step)
            total += self.setting[name]["coef"] * values
            self._sums[name] = self._sums.get(name, 0.0) + float(values.sum())
        rewards += total.astype(rewards.dtype)
        self._steps += len(dones)
        self._episode_bonus += total
        ended = np.flatnonzero(dones)
        for i in ended:
            self._intrinsic.append(float(self._episode_bonus[i]))
            if "episode" in infos[i]:
                self._extrinsic.append(float(infos[i]["episode"]["r"]))
            self._episode_bonus[i] = 0.0
        if len(ended):
            for bonus in self.bonuses.values():
                bonus.start_episodes(ended, np.asarray(new_obs))
        if stores:
            self._stored.append((step.obs.copy(), step.actions.copy(), next_obs))
        return True

    def _on_rollout_end(self) -> None:
        losses = {}
        if self._stored:
            obs, actions, next_obs = (np.concatenate(part) for part in zip(*self._stored))
            for name, bonus in self.bonuses.items():
                if bonus.trains:
                    losses[name] = bonus.train(obs, actions, next_obs).get("loss")
        self._stored = []
        for name in self.bonuses:
            self.logger.record(f"explore/{name}_bonus", self._sums.get(name, 0.0) / max(self._steps, 1))
            if losses.get(name) is not None:
                self.logger.record(f"explore/{name}_loss", losses[name])
        if self._intrinsic:
            self.logger.record("explore/intrinsic_return", float(np.mean(self._intrinsic)))
        if self._extrinsic:
            self.logger.record("explore/extrinsic_return", float(np.mean(self._extrinsic)))
        self._sums, self._steps = {}, 0

    # --- state -------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {"setting": self.setting, "bonuses": {name: bonus.state_dict() for name, bonus in self.bonuses.items()}}

    def save(self, path: str | Path) -> None:
        """The bonuses' state to `path`, atomically."""
        from wadgym.files import atomic_path

        with atomic_path(Path(path)) as temporary:
            torch.save(self.state_dict(), temporary)

    def load(self, path: str | Path) -> None:
        state = torch.load(path, map_location="cpu", weights_only=False)  # load_state_dict moves it to the device
        saved = state.get("setting") or {}
        if list(saved) != list(self.setting):
            raise ValueError(f"{path} holds the state of explore {list(saved)}, not of this run's {list(self.setting)}")
        for name, bonus in self.bonuses.items():
            bonus.load_state_dict(state["bonuses"][name])
