"""`wadgym train --backend rllib`: PPO from Ray RLlib (its current API stack) on one machine or a Ray
cluster, into the same run folder as an SB3 run. Needs the `wadgym[rllib]` extra; nothing here imports
Ray until a run starts, so the SB3 path and `wadgym --help` never pay for it.

    train.py   the run: Ray cluster, placement, training loop, checkpoints, Ctrl-C, failures
    module.py  the network: the SB3 actor-critic policy of the same hyperparameters, as an RLModule
    envs.py    what env runners step (wadgym envs by id, vectorised) and the per-episode records
    policy.py  a saved RLlib run's network for `wadgym eval`, `rollout --policy` and `export --onnx`
"""

from __future__ import annotations

import argparse

BACKENDS = ("sb3", "rllib")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`wadgym train`'s options for choosing and sizing the RLlib backend."""
    group = parser.add_argument_group("RLlib backend (--backend rllib; needs pip install 'wadgym[rllib]')")
    group.add_argument("--backend", choices=BACKENDS, default="sb3",
                       help="sb3: Stable-Baselines3 on this machine (default); rllib: Ray RLlib, here or on a cluster")
    group.add_argument("--num-env-runners", type=int, metavar="N",
                       help="RLlib env runner processes, one CPU each (default 2)")
    group.add_argument("--envs-per-runner", type=int, metavar="K",
                       help="envs each env runner steps (default: n_envs / N, at least 1); "
                            "n_envs becomes N*K")
    group.add_argument("--num-gpus", type=int, metavar="G",
                       help="GPU learners, one GPU each (0: one learner on a CPU; default: 1 when the cluster "
                            "has a GPU and --device is not cpu, else 0)")
    group.add_argument("--address", metavar="HOST:PORT",
                       help="join a running Ray cluster (`ray start --head` prints it); "
                            "default: a Ray instance of this process on this machine")
