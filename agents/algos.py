"""The algorithms `wadgym train --algo` trains with: SB3's PPO, or sb3-contrib's RecurrentPPO (PPO with an LSTM
between the feature extractor and the heads, for partially observed tasks such as mazes).

A hyperparameter entry names the network family as SB3 does (`policy: CnnPolicy`); the recurrent algorithm
takes the same name and plays it with its LSTM variant (CnnPolicy -> CnnLstmPolicy), so one entry serves
both. LSTM settings (lstm_hidden_size, n_lstm_layers, shared_lstm, enable_critic_lstm) go in policy_kwargs.
"""

from __future__ import annotations

from typing import Any

ALGOS = ("ppo", "recurrent_ppo")
DEFAULT_ALGO = "ppo"
# SB3 policy name -> sb3-contrib's recurrent one
RECURRENT_POLICIES = {"CnnPolicy": "CnnLstmPolicy", "MlpPolicy": "MlpLstmPolicy",
                      "MultiInputPolicy": "MultiInputLstmPolicy"}


def check_algo(name: Any) -> str:
    """`name` when it is one of ALGOS, else a ValueError saying what is valid."""
    if name not in ALGOS:
        raise ValueError(f"algo={name!r} is not valid; choose one of {', '.join(ALGOS)}")
    return name


def algo_class(name: str):
    """The SB3 algorithm class of `name` (PPO, or sb3-contrib's RecurrentPPO)."""
    if check_algo(name) == "ppo":
        from stable_baselines3 import PPO

        return PPO
    try:
        from sb3_contrib import RecurrentPPO
    except ImportError:
        raise ValueError("algo=recurrent_ppo needs sb3-contrib: pip install 'wadgym[train]'") from None
    return RecurrentPPO


def policy_name(algo: str, policy: str) -> str:
    """The policy class name `algo` trains for an entry's `policy` (CnnPolicy -> CnnLstmPolicy when recurrent)."""
    if check_algo(algo) == "recurrent_ppo":
        if policy not in RECURRENT_POLICIES:
            raise ValueError(f"policy={policy!r} has no recurrent variant; choose one of "
                             f"{', '.join(RECURRENT_POLICIES)}")
        return RECURRENT_POLICIES[policy]
    return policy


def is_recurrent(model) -> bool:
    """Whether a loaded SB3 model (or its policy) keeps a recurrent state between steps."""
    from stable_baselines3.common.base_class import BaseAlgorithm

    policy = model.policy if isinstance(model, BaseAlgorithm) else model
    return hasattr(policy, "lstm_actor")


def algo_of(config: dict[str, Any]) -> str:
    """The algorithm of a run's configuration (config.yml): its `algo`, else PPO (runs from before --algo)."""
    return check_algo(config.get("algo") or DEFAULT_ALGO)
