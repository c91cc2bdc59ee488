"""Training speed, all figures from one run: SB3's defaults (CnnPolicy = NatureCNN, PPO's default settings,
one env, 160x120 frames) against wadgym's default configuration (ppo.yml), and wadgym's default with its
vector env (threads, what `wadgym train` uses) against SB3's SubprocVecEnv, same settings.

    python bench/train_speed.py [--baseline-steps 4096] [--steps 20480] [--rounds 2] [--device auto]
                                [--gpu-n-envs 8 16 32] [--backend rllib]

Reports env steps per second of PPO.learn (collection + update) and the share of time spent in the
update. Targets on 2 CPU cores: wadgym's default >= 4x SB3's defaults; the vector env >= 1.3x
SubprocVecEnv (issue 10). The two vec envs train in alternating rounds of --steps each (the ratio is the
median of each round's ratio), so that a busy machine slows both alike. On a CUDA device (--device
auto picks it when there is one) it also trains with --gpu-n-envs envs and checks the policy really
lives on the GPU. With --backend rllib (needs wadgym[rllib]) it instead trains wadgym's configuration
with SB3 and with Ray RLlib (same env, network, batch and number of envs) and prints both speeds and
their ratio.
"""

from __future__ import annotations

import argparse
import statistics
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


def measure(env_id, env_kwargs, n_envs, frame_stack, policy, ppo_kwargs, steps, device, threads=None,
            vec_env="thread") -> dict:
    import torch
    from stable_baselines3 import PPO

    from wadgym.agents.vec import make_vec_env

    if threads:
        torch.set_num_threads(threads)
    venv, _ = make_vec_env(env_id, env_kwargs, n_envs, seed=0, frame_stack=frame_stack, vec_env=vec_env)
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
    return (f"{name:<44} {r['sps']:7.1f} steps/s  ({r['steps']} steps in {r['wall']:.1f} s, "
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
    from wadgym.agents.system import select_device
    from wadgym.agents.vec import make_env

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default=DEFAULT_ENV)
    parser.add_argument("--baseline-steps", type=int, default=4096, help="SB3-default steps (2 rollouts of 2048)")
    parser.add_argument("--steps", type=int, default=20480, help="steps of each run of wadgym's configuration")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of vector env vs SubprocVecEnv")
    parser.add_argument("--device", default="auto", help="auto (CUDA when available), cpu or cuda")
    parser.add_argument("--gpu-n-envs", type=int, nargs="+", default=[8, 16, 32], help="n_envs measured on CUDA")
    parser.add_argument("--backend", choices=("sb3", "rllib"), default="sb3",
                        help="rllib: wadgym's default configuration trained by SB3 against the same by RLlib")
    args = parser.parse_args()

    device = select_device(args.device)
    hp = resolve(args.env)
    threads = None if hp.get("torch_threads", "auto") == "auto" or device != "cpu" else int(hp["torch_threads"])
    if args.backend == "rllib":
        return compare_rllib(args.env, hp, args.steps, device)
    probe = make_env(args.env, hp["env_kwargs"])
    height, width, channels = probe.observation_space.shape
    probe.close()
    print(f"{args.env} on {device}, torch {torch.__version__}, {torch.get_num_threads()} torch threads available; "
          f"wadgym default: {width}x{height}x{channels}, {hp['n_envs']} envs, {args.steps} steps a run")
    baseline = measure(args.env, {"resolution": (120, 160)}, 1, 0, "CnnPolicy", {}, args.baseline_steps, device)
    print(describe("SB3 default (NatureCNN, 160x120x1, 1 env)", baseline), flush=True)

    def ours(vec_env: str, n_envs: int = hp["n_envs"]) -> dict:
        return measure(args.env, hp["env_kwargs"], n_envs, hp["frame_stack"], hp["policy"], ppo_kwargs(hp),
                       args.steps, device, threads, vec_env)

    runs = {"thread": [], "subproc": []}
    for r in range(args.rounds):
        for vec_env in (("thread", "subproc") if r % 2 == 0 else ("subproc", "thread")):
            runs[vec_env].append(ours(vec_env))
            print(describe(f"wadgym default, {vec_env} vec env (round {r + 1})", runs[vec_env][-1]), flush=True)
    thread, subproc = (statistics.median(r["sps"] for r in runs[name]) for name in ("thread", "subproc"))
    ratio = statistics.median(a["sps"] / b["sps"] for a, b in zip(runs["thread"], runs["subproc"]))
    over_baseline = thread / baseline["sps"]
    print(f"wadgym default: {thread:.1f} steps/s with the vector env, {subproc:.1f} with SubprocVecEnv (medians)")
    print(f"speed ratio vector env/SubprocVecEnv: {ratio:.2f}x (target 1.3x): {'PASS' if ratio >= 1.3 else 'FAIL'}")
    verdict = "PASS" if over_baseline >= 4 else "FAIL"
    print(f"speed ratio wadgym/SB3-default: {over_baseline:.2f}x (target 4x): {verdict}")
    passed = ratio >= 1.3 and over_baseline >= 4
    if device.startswith("cuda"):
        for n_envs in args.gpu_n_envs:
            run = ours("thread", n_envs)
            print(describe(f"wadgym default, vector env, {n_envs} envs", run), flush=True)
            if run["device"] != "cuda":
                print("ERROR: the policy was not on the GPU")
                return 1
    else:
        print("no CUDA device: GPU training speed for --gpu-n-envs not measured")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
