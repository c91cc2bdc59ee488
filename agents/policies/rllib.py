"""A saved RLlib run's network for agents.policies.policy.SavedPolicy (`wadgym eval`, `rollout --policy`,
`export --onnx`): the SB3 policy inside the RLModule of an RLlib checkpoint, loaded without starting Ray."""

from __future__ import annotations

from pathlib import Path

MODULE_PATH = Path("learner_group") / "learner" / "rl_module" / "default_policy"


class RLlibModel:
    """What SavedPolicy and the ONNX export use of an SB3 model: .policy, .observation_space,
    .action_space and .predict."""

    def __init__(self, policy):
        self.policy = policy
        self.observation_space, self.action_space = policy.observation_space, policy.action_space
        self.predict = policy.predict


def load_model(checkpoint: Path, device: str = "cpu") -> RLlibModel:
    """The network of an RLlib Algorithm checkpoint folder (a run's model/ or a checkpoint)."""
    import logging

    from ray.rllib.core.rl_module.rl_module import RLModule

    logging.getLogger("ray.rllib").setLevel(logging.ERROR)  # deprecation notices meant for RLlib's developers
    path = Path(checkpoint) / MODULE_PATH
    if not path.is_dir():
        raise ValueError(f"{checkpoint} is not an RLlib checkpoint of a wadgym run (no {MODULE_PATH} in it)")
    policy = RLModule.from_checkpoint(path).policy.to(device)
    policy.set_training_mode(False)
    return RLlibModel(policy)
