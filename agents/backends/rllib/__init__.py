"""`wadgym train --backend rllib`: PPO from Ray RLlib (its current API stack) on one machine or a Ray
cluster, into the same run folder as an SB3 run (its options: wadgym.cli.train). Needs the `wadgym[rllib]`
extra; nothing here imports Ray until a run starts, so the SB3 path and `wadgym --help` never pay for it.

    train.py   the run: Ray cluster, placement, training loop, checkpoints, Ctrl-C, failures
    module.py  the network: the SB3 actor-critic policy of the same hyperparameters, as an RLModule
    envs.py    what env runners step (wadgym envs by id, vectorised) and the per-episode records
    policy.py  a saved RLlib run's network for `wadgym eval`, `rollout --policy` and `export --onnx`
"""

from __future__ import annotations
