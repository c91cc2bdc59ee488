"""Training speed on DoomItems-v0, both figures from one run: SB3's defaults (CnnPolicy = NatureCNN,
PPO's default settings, one env, 160x120 frames) against wadgym's default configuration (ppo.yml).

    python bench/train_speed.py [--baseline-steps 4096] [--steps 20480] [--device cpu]

Reports env steps per second of PPO.learn (collection + update), the share of time spent in the
update, and the ratio ours / SB3-default (target >= 4 on 2 CPU cores). On a machine with CUDA it
also trains wadgym's configuration on the GPU and checks the policy really lives there.
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


def main() -> int:
    import torch

    from wadgym.agents.config import DEFAULT_ENV, ppo_kwargs, resolve
    from wadgym.agents.vec import make_env

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default=DEFAULT_ENV)
    parser.add_argument("--baseline-steps", type=int, default=4096, help="SB3-default steps (2 rollouts of 2048)")
    parser.add_argument("--steps", type=int, default=20480, help="steps for wadgym's configuration")
    parser.add_argument("--device", default="cpu", help="device of both CPU measurements (default cpu)")
    args = parser.parse_args()

    hp = resolve(args.env)
    print(f"{args.env}, torch {torch.__version__}, {torch.get_num_threads()} torch threads available")
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
