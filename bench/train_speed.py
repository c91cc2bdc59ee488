"""Training speed on DoomItems-v0, both figures from one run: SB3's defaults (CnnPolicy = NatureCNN,
PPO's default settings, one env, 160x120 frames) against wadgym's default configuration (ppo.yml).

    python bench/train_speed.py [--baseline-steps 4096] [--steps 20480] [--device cpu] [--backend rllib]

Reports env steps per second of PPO.learn (collection + update), the share of time spent in the
update, and the ratio ours / SB3-default (target >= 4 on 2 CPU cores). On a machine with CUDA it
also trains wadgym's configuration on the GPU and checks the policy really lives there.
With --backend rllib (needs wadgym[rllib]) it instead trains wadgym's configuration with SB3 and with
Ray RLlib (same env, network, batch and number of envs) and prints both speeds and their ratio.
"""

from __future__ import annotations

import argparse
import sys
import time

from stable_baselines3.common.callbacks import BaseCallback


class PhaseTimer(BaseCallback):
    """Wall time spent collecting rollouts vs updating the network."""

    def __init__(self):
        super().__init__()
        self.collect = self.update = 0.0
        self._mark = None

    def _on_rollout_start(self) -> None:
        now = time.perf_counter()
        if self._mark is not None:
            self.update += now - self._mark
        self._mark = now

    def _on_rollout_end(self) -> None:
        now = time.perf_counter()
        self.collect += now - self._mark
        self._mark = now

    def _on_training_end(self) -> None:
        self.update += time.perf_counter() - self._mark

    def _on_step(self) -> bool:
        return True


def measure(env_id, env_kwargs, n_envs, frame_stack, policy, ppo_kwargs, steps, device, threads=None) -> dict:
    import torch
    from stable_baselines3 import PPO

    from wadgym.agents.vec import make_vec_env

    if threads:
        torch.set_num_threads(threads)
    venv, _ = make_vec_env(env_id, env_kwargs, n_envs, seed=0, frame_stack=frame_stack)
    try:
        model = PPO(policy, venv, device=device, seed=0, verbose=0, **ppo_kwargs)
        timer = PhaseTimer()
        start = time.perf_counter()
        model.learn(steps, callback=timer)
        wall = time.perf_counter() - start
        on = model.policy.device.type
    finally:
        venv.close()
    return {"steps": model.num_timesteps, "wall": wall, "sps": model.num_timesteps / wall,
            "update_share": timer.update / max(timer.update + timer.collect, 1e-9), "device": on,
            "params": sum(p.numel() for p in model.policy.parameters())}


def describe(name: str, r: dict) -> str:
    return (f"{name:<34} {r['sps']:7.1f} steps/s  ({r['steps']} steps in {r['wall']:.1f} s, "
            f"{100 * r['update_share']:.0f}% in update, {r['params'] / 1e6:.2f}M parameters, {r['device']})")


def measure_rllib(env_id, hp, steps, runners=2) -> dict:
    """RLlib PPO on wadgym's configuration `hp` (the same network, batch and envs as SB3's), `runners` env
    runners on a Ray instance of its own. Timed from the end of the first iteration (which starts the
    engines, as SB3's first reset does before its clock starts) over at least `steps` more env steps."""
    import ray

    from wadgym.agents.rllib import train as rllib

    config = {"env": env_id, "seed": 0, "device": "cpu", "hyperparams": dict(hp),
              "rllib": {"num_env_runners": runners, "envs_per_runner": max(1, hp["n_envs"] // runners),
                        "num_gpus": 0}}
    started = rllib.connect(None, runners + rllib.torch_threads(hp))
    trainer = group = None
    try:
        ppo_config = rllib.algorithm_config(config, num_gpus=0)
        group, bundles = rllib.placement(ppo_config)
        trainer = rllib.remote_trainer(group, bundles[0], ppo_config, rllib.torch_threads(hp), None)
        first = ray.get(trainer.train.remote())["timesteps"]
        start, done = time.perf_counter(), first
        while done - first < steps:
            done = ray.get(trainer.train.remote())["timesteps"]
        wall = time.perf_counter() - start
    finally:
        rllib.shut_down(trainer, group, started)
    return {"steps": done - first, "wall": wall, "sps": (done - first) / wall}


def compare_rllib(env_id, hp, steps, device) -> int:
    """Env steps/s of RLlib against SB3 on wadgym's default configuration, both measured in this run."""
    from wadgym.agents.config import ppo_kwargs

    threads = None if hp.get("torch_threads", "auto") == "auto" else int(hp["torch_threads"])
    sb3 = measure(env_id, hp["env_kwargs"], hp["n_envs"], hp["frame_stack"], hp["policy"], ppo_kwargs(hp), steps,
                  device, threads)
    print(describe(f"SB3, wadgym default ({hp['n_envs']} envs)", sb3))
    rllib = measure_rllib(env_id, hp, steps)
    print(f"{'RLlib, same network and batch':<34} {rllib['sps']:7.1f} steps/s  ({rllib['steps']} steps in "
          f"{rllib['wall']:.1f} s; 2 env runners x {max(1, hp['n_envs'] // 2)} envs, learner on the CPU)")
    print(f"speed ratio RLlib/SB3: {rllib['sps'] / sb3['sps']:.2f}x (one run on a shared machine)")
    return 0


def main() -> int:
    import torch

    from wadgym.agents.config import DEFAULT_ENV, ppo_kwargs, resolve
    from wadgym.agents.vec import make_env

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default=DEFAULT_ENV)
    parser.add_argument("--baseline-steps", type=int, default=4096, help="SB3-default steps (2 rollouts of 2048)")
    parser.add_argument("--steps", type=int, default=20480, help="steps for wadgym's configuration")
    parser.add_argument("--device", default="cpu", help="device of both CPU measurements (default cpu)")
    parser.add_argument("--backend", choices=("sb3", "rllib"), default="sb3",
                        help="rllib: wadgym's default configuration trained by SB3 against the same by RLlib")
    args = parser.parse_args()

    hp = resolve(args.env)
    print(f"{args.env}, torch {torch.__version__}, {torch.get_num_threads()} torch threads available")
    if args.backend == "rllib":
        return compare_rllib(args.env, hp, args.steps, args.device)
    baseline = measure(args.env, {"resolution": (120, 160)}, 1, 0, "CnnPolicy", {}, args.baseline_steps,
                       args.device)
    print(describe("SB3 default (NatureCNN, 160x120x1)", baseline))
    threads = None if hp.get("torch_threads", "auto") == "auto" else int(hp["torch_threads"])
    ours = measure(args.env, hp["env_kwargs"], hp["n_envs"], hp["frame_stack"], hp["policy"], ppo_kwargs(hp),
                   args.steps, args.device, threads)
    probe = make_env(args.env, hp["env_kwargs"])
    height, width, channels = probe.observation_space.shape
    probe.close()
    print(describe(f"wadgym default ({width}x{height}x{channels}, {hp['n_envs']} envs)", ours))
    ratio = ours["sps"] / baseline["sps"]
    print(f"speed ratio wadgym/SB3-default: {ratio:.2f}x (target 4x): {'PASS' if ratio >= 4 else 'FAIL'}")
    if torch.cuda.is_available():
        gpu = measure(args.env, hp["env_kwargs"], hp["n_envs"], hp["frame_stack"], hp["policy"], ppo_kwargs(hp),
                      args.steps, "cuda")
        print(describe("wadgym default on CUDA", gpu))
        if gpu["device"] != "cuda":
            print("ERROR: the policy was not on the GPU")
            return 1
    else:
        print("no CUDA GPU here: GPU training speed not measured")
    return 0 if ratio >= 4 else 1


if __name__ == "__main__":
    sys.exit(main())
