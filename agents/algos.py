"""The algorithms `wadgym train --algo` trains with, as a table: a new algorithm is one entry of ALGOS.

    ppo            SB3's PPO (the default), on every backend (agents.backends)
    recurrent_ppo  sb3-contrib's RecurrentPPO: PPO with an LSTM between the feature extractor and the heads,
                   for partially observed tasks such as mazes; SB3 backend only
    bc             behaviour cloning alone (`--algo bc --pretrain DATASET`, agents.datasets.pretrain): PPO's network,
                   saved as a PPO model, trained on a dataset's actions and no PPO steps

A hyperparameter entry names the network family as SB3 does (`policy: CnnPolicy`); an algorithm may play it
with its own variant (RecurrentPPO: CnnPolicy -> CnnLstmPolicy, its entry's `policies`), so one entry serves
all of them. LSTM settings (lstm_hidden_size, n_lstm_layers, shared_lstm, enable_critic_lstm) go in
policy_kwargs. What an algorithm cannot do (a backend, --pretrain, --timesteps for bc, the exploration bonus)
is its entry's flags, refused before anything starts.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# SB3 policy name -> sb3-contrib's recurrent one
RECURRENT_POLICIES = {"CnnPolicy": "CnnLstmPolicy", "MlpPolicy": "MlpLstmPolicy",
                      "MultiInputPolicy": "MultiInputLstmPolicy"}


@dataclass(frozen=True)
class Algo:
    """An algorithm `wadgym train --algo NAME` trains with (an entry of ALGOS).

    name: its key. summary: what `--algo`'s help says of it.
    sb3_class: "module:Class" of the SB3 algorithm that trains it and loads its saved models (imported when
        a run needs it). policies: a hyperparameter entry's policy name -> the name this class plays it as
        (None: as named).
    backends: the backends that train it (agents.backends.BACKENDS's names).
    ppo_steps: whether it trains PPO steps (bc: none; its n_timesteps becomes 0).
    clones: whether it clones a dataset's actions, so needs --pretrain (bc).
    pretrain: whether --pretrain can start it (cloning trains a feed-forward policy: no LSTM state).
    explore: whether it can train with the exploration bonus (the `explore` hyperparameter).
    """

    name: str
    summary: str
    sb3_class: str
    policies: Mapping[str, str] | None = None
    backends: tuple[str, ...] = ("sb3",)
    ppo_steps: bool = True
    clones: bool = False
    pretrain: bool = False
    explore: bool = False

    def load_class(self):
        """The SB3 algorithm class (a ValueError naming the extra to install when its package is missing)."""
        module, _, name = self.sb3_class.partition(":")
        try:
            return getattr(importlib.import_module(module), name)
        except ImportError:
            raise ValueError(f"algo={self.name} needs {module.replace('_', '-')}: "
                             "pip install 'wadgym[train]'") from None

    def policy(self, policy: str) -> str:
        """The policy class name this algorithm trains for an entry's `policy` (CnnPolicy -> CnnLstmPolicy
        when recurrent); a ValueError when it has no variant of it."""
        if self.policies is None:
            return policy
        if policy not in self.policies:
            raise ValueError(f"policy={policy!r} has no {self.name} variant; choose one of {', '.join(self.policies)}")
        return self.policies[policy]


ALGOS: dict[str, Algo] = {
    "ppo": Algo("ppo", "SB3's PPO", "stable_baselines3:PPO", backends=("sb3", "rllib", "selfplay"),
                pretrain=True, explore=True),
    "recurrent_ppo": Algo("recurrent_ppo", "sb3-contrib's RecurrentPPO, an LSTM policy", "sb3_contrib:RecurrentPPO",
                          policies=RECURRENT_POLICIES, explore=True),
    "bc": Algo("bc", "behaviour cloning of --pretrain's dataset alone, no PPO steps", "stable_baselines3:PPO",
               ppo_steps=False, clones=True, pretrain=True),
}
DEFAULT_ALGO = "ppo"


def check_algo(name: Any) -> str:
    """`name` when it is one of ALGOS, else a ValueError saying what is valid."""
    if name not in ALGOS:
        raise ValueError(f"algo={name!r} is not valid; choose one of {', '.join(ALGOS)}")
    return name


def algo_class(name: str):
    """The SB3 algorithm class of `name` (PPO, or sb3-contrib's RecurrentPPO; bc's network is PPO's)."""
    return ALGOS[check_algo(name)].load_class()


def policy_name(algo: str, policy: str) -> str:
    """The policy class name `algo` trains for an entry's `policy` (CnnPolicy -> CnnLstmPolicy when recurrent)."""
    return ALGOS[check_algo(algo)].policy(policy)


def is_recurrent(model) -> bool:
    """Whether a loaded SB3 model (or its policy) keeps a recurrent state between steps."""
    from stable_baselines3.common.base_class import BaseAlgorithm

    policy = model.policy if isinstance(model, BaseAlgorithm) else model
    return hasattr(policy, "lstm_actor")


def algo_of(config: Mapping[str, Any]) -> str:
    """The algorithm of a run's configuration (config.yml): its `algo`, else PPO (runs from before --algo)."""
    return check_algo(config.get("algo") or DEFAULT_ALGO)


@dataclass(frozen=True)
class UpdateSettings:
    """How the network is laid out and optimised for the PPO update; the defaults are SB3's and torch's.

    channels_last: the conv weights and the observations in channels-last memory (NHWC), the layout oneDNN's
    CPU convolutions work in, so that no layout conversion runs before and after each conv.
    foreach_optimizer: Adam updates all parameters in a few multi-tensor kernels instead of a loop of small
    ones per parameter (torch's default on CUDA; on the CPU it loops).
    bf16_features: the feature extractor (the CNN, nearly all of the update's arithmetic) runs under CPU
    autocast to bfloat16 and hands float32 features to the heads, so values, log-probabilities, the loss and
    Adam's state stay float32. Only where the CPU computes bfloat16 natively (AVX512-BF16 or AMX); elsewhere
    it would be emulated and slower. On the 2-core VM (AVX512-BF16) it makes the default's
    update 1.48x faster (250 -> 169 ms an update, quiet machine, /tmp microbenchmark of model.train()).

    Where the update of `wadgym train`'s default goes on 2 cores (bench/train_speed.py --profile-updates 3,
    before these settings): backward ~55%, forward ~28% (nearly all the CNN), Adam ~12%, the rest minibatch
    gathering and gradient clipping. torch.compile is not among the settings: on the CPU its compilation
    (tens of seconds on 2 cores, again after each resume) is a large share of a default run (~1 minute), and
    it does not pay back: compiling the extractor and heads in place (nn.Module.compile, inductor) made one
    256-sample forward, backward and Adam step of the default 234 ms against eager's 249 (best of 20 rotating
    rounds, channels-last and foreach Adam in both, 2-core AVX2 VM shared with a training): the convolutions,
    nearly all of the time, are oneDNN's kernels either way. Fused Adam measured slower than the loop there.

    segmented_lstm: a recurrent policy (RecurrentPPO) runs its LSTMs over each minibatch's sequences in one
    call per stretch without an episode start, instead of sb3-contrib's one call per time step whenever any
    sequence of the minibatch starts an episode (nearly always: its sequences begin at episode starts). The
    same arithmetic (the states are zeroed where an episode starts, as sb3-contrib does), far fewer
    operators; on any device, since it is no CPU tuning."""

    channels_last: bool = False
    foreach_optimizer: bool = False
    bf16_features: bool = False
    segmented_lstm: bool = False


def update_settings(device: str) -> UpdateSettings:
    """The settings for training on `device` ("cpu", "cuda", "cuda:1", ...): the CPU-only layout and optimizer
    choices on the CPU; every other device keeps the defaults (eager, torch's own layout and optimizer
    choices), so nothing tuned for a CPU changes what a GPU runs. The segmented LSTM on every device."""
    import torch

    if torch.device(device).type == "cpu":
        return UpdateSettings(channels_last=True, foreach_optimizer=True, bf16_features=cpu_computes_bf16(),
                              segmented_lstm=True)
    return UpdateSettings(segmented_lstm=True)


def cpu_computes_bf16() -> bool:
    """Whether this CPU computes bfloat16 natively: AVX512-BF16 or AMX tiles (torch.cpu's own checks; a CPU
    with plain AVX512 would emulate it)."""
    import torch

    checks = [getattr(torch.cpu, name, None) for name in ("_is_avx512_bf16_supported", "_is_amx_tile_supported")]
    try:
        return any(bool(check()) for check in checks if check is not None)
    except RuntimeError:
        return False


def apply_update_settings(model, settings: UpdateSettings | None = None) -> UpdateSettings:
    """Apply `settings` (default: update_settings of the model's device) to a new or loaded SB3 model, through
    what SB3 exposes: the policy module's parameters and optimizer, and a forward pre-hook on its feature
    extractors. The saved model is unchanged in content (state dicts do not record memory layout)."""
    import torch

    settings = update_settings(str(model.device)) if settings is None else settings
    policy = model.policy
    if settings.channels_last:
        policy.to(memory_format=torch.channels_last)
        for extractor in _extractors(policy):
            if not getattr(extractor, "_wadgym_channels_last", False):
                extractor.register_forward_pre_hook(_to_channels_last)
                extractor._wadgym_channels_last = True
    if settings.foreach_optimizer:
        for group in policy.optimizer.param_groups:
            group["foreach"] = True
    if settings.bf16_features:
        for extractor in _extractors(policy):
            if not getattr(extractor, "_wadgym_bf16", False):
                extractor.forward = _bf16_forward(extractor.forward)
                extractor._wadgym_bf16 = True
    if hasattr(policy, "_process_sequence"):   # a recurrent policy
        if settings.segmented_lstm:
            # an instance attribute before the class's static method: the saved policy class stays sb3-contrib's
            policy._process_sequence = segmented_sequence
        else:
            vars(policy).pop("_process_sequence", None)   # sb3-contrib's own again
    return settings


def segmented_sequence(features, lstm_states, episode_starts, lstm):
    """sb3-contrib's RecurrentActorCriticPolicy._process_sequence (same arguments and results) with one LSTM
    call per stretch of time steps in which no sequence starts an episode, instead of one per step.

    `features`: (n_seq * length, input) batch-major, `lstm_states`: (h, c) of shape (layers, n_seq, hidden),
    `episode_starts`: n_seq * length flags. Where a sequence starts an episode its states are zeroed first,
    as in sb3-contrib; the output is (n_seq * length, hidden) in the same order, with the last states."""
    import torch

    n_seq = lstm_states[0].shape[1]
    sequence = features.reshape((n_seq, -1, lstm.input_size)).swapaxes(0, 1)   # (length, n_seq, input)
    starts = episode_starts.reshape((n_seq, -1)).swapaxes(0, 1)                  # (length, n_seq)
    length = sequence.shape[0]
    cuts = sorted({0, *torch.nonzero(starts.any(dim=1)).flatten().tolist(), length})
    hidden, cell = lstm_states
    outputs = []
    for begin, end in zip(cuts, cuts[1:]):
        keep = (1.0 - starts[begin]).view(1, n_seq, 1)
        output, (hidden, cell) = lstm(sequence[begin:end], (keep * hidden, keep * cell))
        outputs.append(output)
    return torch.flatten(torch.cat(outputs).transpose(0, 1), start_dim=0, end_dim=1), (hidden, cell)


def _extractors(policy) -> list:
    """The policy's feature extractors, each once (SB3 shares one between actor and critic by default)."""
    found = (getattr(policy, name, None) for name in ("features_extractor", "pi_features_extractor",
                                                      "vf_features_extractor"))
    return list({id(m): m for m in found if m is not None}.values())


def _bf16_forward(forward):
    import torch

    def bf16_forward(observations):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            features = forward(observations)
        return features.float()

    return bf16_forward


def _to_channels_last(module, inputs):
    import torch

    return tuple(x.contiguous(memory_format=torch.channels_last) if isinstance(x, torch.Tensor) and x.dim() == 4
                 else x for x in inputs)
