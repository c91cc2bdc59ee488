"""A trained run's policy, played through the observation pipeline its training used.

`SavedPolicy.make_vec_env` builds the env as training built it (agents.vec.build_vec_env: VecFrameStack,
VecTransposeImage, the run's VecNormalize statistics frozen, rewards left as they are) with one env, so
evaluation, `wadgym rollout` and the export's recorded inputs feed the model exactly what it trained on;
`predict` is SB3's, so SB3's evaluate_policy plays it (agents.episodes.play_episodes).
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import numpy as np

from wadgym.agents import runfolder
from wadgym.agents.config import run_backend


class SavedPolicy:
    """policy.reset(seed) before each episode, then actions, _ = policy.predict(observations) on the
    observations of the VecEnv that make_vec_env gives."""

    def __init__(self, run: str | Path, device: str = "cpu", deterministic: bool = False,
                 model_file: Path | None = None):
        from wadgym.agents.algos import algo_class, algo_of

        self.run = runfolder.require_run(run)
        self.config = runfolder.load_config(self.run)
        self.model_file = Path(model_file) if model_file else runfolder.model_path(self.run)
        self.normalize_stats = None
        self.backend = run_backend(self.config)  # agents.backends' entry that trained the run
        if self.backend.name == "rllib":  # the same network, from an RLlib checkpoint
            from wadgym.agents.policies.rllib import load_model

            self.model, self.vec_normalize = load_model(self.model_file, device), None
        else:
            self.model = algo_class(algo_of(self.config)).load(self.model_file, device=device,
                                                                custom_objects=_custom_objects())
            self.normalize_stats = runfolder.vecnormalize_path(self.model_file)
            self.vec_normalize = _load_vecnormalize(self.normalize_stats)
        self.deterministic = deterministic
        self.frame_stack = int(self.config["hyperparams"].get("frame_stack") or 0)
        self.on_input = None  # called with each network input (see recorded_inputs)
        self._rng_states = None  # the episode's random stream for sampled actions (see reset)

    @property
    def env_id(self) -> str:
        return self.config["env"]

    @property
    def env_kwargs(self) -> dict[str, Any]:
        return dict(self.config["hyperparams"].get("env_kwargs") or {})

    def make_vec_env(self, env_kwargs: dict[str, Any] | None = None, render_mode: str | None = None):
        """One env of this policy's env id (with `env_kwargs`, else those it trained with), observed through
        the wrappers its training used; a ValueError unless it gives the observations and actions the
        policy was trained on."""
        from wadgym.agents.vec import build_vec_env, close_vec_env

        env_kwargs = self.env_kwargs if env_kwargs is None else env_kwargs
        stats = self.normalize_stats if self.normalize_stats is not None and self.normalize_stats.is_file() else None
        venv = build_vec_env(self.env_id, env_kwargs, 1, None, self.frame_stack, {} if stats else None, stats,
                             vec_env="dummy", training=False, render_mode=render_mode)
        shape, model_shape = venv.observation_space.shape, self.model.observation_space.shape
        if shape != model_shape or venv.action_space != self.model.action_space:
            close_vec_env(venv)
            raise ValueError(
                f"the policy in {self.run} was trained on {self.env_id} with env kwargs {self.env_kwargs} "
                f"(inputs {model_shape}, {self.model.action_space}); this env with {env_kwargs} gives "
                f"{shape} inputs and {venv.action_space}: make it with the same env kwargs"
            )
        return venv

    def reset(self, seed: int | None = None) -> None:
        """Before each episode (the VecEnv's wrappers start its frame stack). With a seed, sampled actions
        (deterministic=False) draw from a random stream of the episode's own: torch's generator seeded with
        `seed`, swapped in for each predict and out again after it, so the episode of a seed plays the same actions
        every time, whatever was played before, and torch's own stream is left as it was. (Another thread that
        draws from torch's global generator during a predict would draw from the episode's stream.)"""
        self._rng_states = None
        if seed is not None and not self.deterministic:
            import torch

            devices = self._devices()
            with torch.random.fork_rng(devices=devices):
                torch.manual_seed(seed)
                self._rng_states = _rng_states(devices)

    @property
    def recurrent(self) -> bool:
        """Whether the policy keeps a state between steps (RecurrentPPO's LSTM): evaluate_policy hands it
        back with each predict and starts it afresh at each episode start."""
        from wadgym.agents.algos import is_recurrent

        return self.backend.name != "rllib" and is_recurrent(self.model)

    def predict(self, observation, state=None, episode_start=None, deterministic: bool = False):
        """SB3's predict (as evaluate_policy calls it), with this policy's own `deterministic`; a recurrent
        policy's state goes in and comes back out as evaluate_policy passes it."""
        if self.on_input is not None:
            self.on_input(observation)
        states = self._rng_states
        if states is None:
            actions, state = self.model.predict(observation, state=state, episode_start=episode_start,
                                                deterministic=self.deterministic)
            return np.asarray(actions).reshape(-1), state
        import torch

        devices = self._devices()
        with torch.random.fork_rng(devices=devices):  # the episode's stream in, then torch's own back
            _set_rng_states(states, devices)
            actions, state = self.model.predict(observation, state=state, episode_start=episode_start,
                                                deterministic=self.deterministic)
            self._rng_states = _rng_states(devices)
        return np.asarray(actions).reshape(-1), state

    def _devices(self) -> list[int]:
        """The CUDA devices whose generator a sampled action draws from (none on the CPU)."""
        import torch

        device = torch.device(getattr(self.model, "device", "cpu"))
        return [device.index if device.index is not None else torch.cuda.current_device()] \
            if device.type == "cuda" else []

    def act(self, network_inputs: np.ndarray) -> np.ndarray:
        """Actions for a batch of raw network inputs (N, C*stack, H, W), uint8 as recorded_inputs gives them:
        the run's VecNormalize statistics applied first, as the VecEnv path does (export checks compare
        ONNX with this). Not for a recurrent policy: its actions depend on the steps before."""
        if self.recurrent:
            raise ValueError(f"the policy in {self.run} is recurrent: act() has no state to give it; play it "
                             "with predict on a VecEnv (evaluate_policy keeps its state)")
        if self.vec_normalize is not None:
            network_inputs = self.vec_normalize.normalize_obs(network_inputs)
        actions, _ = self.model.predict(network_inputs, deterministic=self.deterministic)
        return np.asarray(actions).reshape(-1)

    def recorded_inputs(self, seed: int) -> np.ndarray:
        """The network inputs (N, C*stack, H, W), uint8 before any VecNormalize statistics, this policy sees
        while it plays the episode of `seed`: real observations for export checks and latency benchmarks."""
        from stable_baselines3.common.vec_env import VecNormalize

        from wadgym.agents.episodes import play_episodes
        from wadgym.agents.vec import close_vec_env

        inputs: list[np.ndarray] = []
        venv = self.make_vec_env()
        original = venv.get_original_obs if isinstance(venv, VecNormalize) else None
        self.on_input = lambda network_input: inputs.append((original() if original else network_input)[0].copy())
        try:
            play_episodes(venv, self, [seed])
        finally:
            self.on_input = None
            close_vec_env(venv)
        return np.stack(inputs)


def _rng_states(devices: list[int]) -> tuple[Any, list[Any]]:
    import torch

    return torch.get_rng_state(), [torch.cuda.get_rng_state(d) for d in devices]


def _set_rng_states(states: tuple[Any, list[Any]], devices: list[int]) -> None:
    import torch

    torch.set_rng_state(states[0])
    for device, state in zip(devices, states[1]):
        torch.cuda.set_rng_state(state, device)


def _custom_objects() -> dict[str, Any]:
    # Schedules are only needed to keep training; loading for inference must not depend on them.
    return {"learning_rate": 0.0, "lr_schedule": lambda _: 0.0, "clip_range": lambda _: 0.0}


def _load_vecnormalize(path: Path):
    if not path.is_file():
        return None
    with open(path, "rb") as f:
        vec_normalize = pickle.load(f)
    vec_normalize.training = False
    return vec_normalize if vec_normalize.norm_obs else None
