"""Training speed, all figures from one run: SB3's defaults (CnnPolicy = NatureCNN, PPO's default settings,
one env, 160x120 frames) against wadgym's default configuration (ppo.yml); wadgym's default with its
vector env (threads, what `wadgym train` uses) against SB3's SubprocVecEnv, same settings; the
default against the default before issue 10 (SubprocVecEnv, torch's threads left alone while collecting);
and the default against the default at the start of issue 21 (commit 0dbc435: the same, without the
update's CPU-only settings of agents.algos.update_settings: channels-last convolutions, multi-tensor Adam).

    python bench/train_speed.py [--baseline-steps 4096] [--steps 20480] [--rounds 3] [--device auto]
                                [--gpu-n-envs 8 16 32] [--backend rllib] [--profile-updates N]

Reports env steps per second of PPO.learn (collection + update) and the share of time spent in the
update. Targets on 2 CPU cores: wadgym's default >= 4x SB3's defaults; `wadgym train`'s default >= 1.3x
its speed before issue 10 and >= 1.5x its speed at the start of issue 21 (same hyperparameters).
wadgym's runs use what `wadgym train` does (RunCallback's one torch thread while collecting,
agents.backends.callbacks.CollectionThreads; the update's settings for the device, agents.algos.update_settings).
The configurations train in rounds of --steps each, in an order that rotates (each ratio is the median of
the rounds' ratios), so that a busy machine slows all alike. On a CUDA device (--device auto picks it when
there is one) it also trains with --gpu-n-envs envs and checks the policy really
lives on the GPU. With --backend rllib (needs wadgym[rllib]) it instead trains wadgym's configuration
with SB3 and with Ray RLlib (same env, network, batch and number of envs) and prints both speeds and
their ratio. With --profile-updates N it instead profiles N updates of the default configuration (one
rollout collected first) and prints where their time goes: torch's operators (torch.profiler) and the
update's Python phases (cProfile: forward, backward, optimizer step, minibatch sampling).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from stable_baselines3.common.callbacks import BaseCallback


class PhaseTimer(BaseCallback):
    """Wall time spent collecting rollouts vs updating the network; torch's threads while collecting as
    `wadgym train` sets them (`collect_threads`, None: left alone)."""

    def __init__(self, collect_threads: int | None = 1):
        from wadgym.agents.backends.callbacks import CollectionThreads

        super().__init__()
        self.collect = self.update = 0.0
        self._mark = None
        self.threads = CollectionThreads(collect_threads)

    def _on_training_start(self) -> None:
        self.threads.start(self.model)

    def _on_rollout_start(self) -> None:
        now = time.perf_counter()
        if self._mark is not None:
            self.update += now - self._mark
        self._mark = now
        self.threads.collecting()

    def _on_rollout_end(self) -> None:
        self.threads.restore()
        now = time.perf_counter()
        self.collect += now - self._mark
        self._mark = now

    def _on_training_end(self) -> None:
        self.threads.restore()
        self.update += time.perf_counter() - self._mark

    def _on_step(self) -> bool:
        return True


def measure(env_id, env_kwargs, n_envs, frame_stack, policy, ppo_kwargs, steps, device, threads=None,
            vec_env="thread", collect_threads: int | None = 1, update_settings: bool = True) -> dict:
    """PPO.learn for `steps` steps; with `update_settings`, the update's settings for the device as `wadgym
    train` applies them (agents.algos.update_settings), else SB3's and torch's defaults."""
    import torch
    from stable_baselines3 import PPO

    from wadgym.agents.algos import UpdateSettings, apply_update_settings
    from wadgym.agents.vec import make_vec_env

    if threads:
        torch.set_num_threads(threads)
    venv, _ = make_vec_env(env_id, env_kwargs, n_envs, seed=0, frame_stack=frame_stack, vec_env=vec_env)
    try:
        model = PPO(policy, venv, device=device, seed=0, verbose=0, **ppo_kwargs)
        apply_update_settings(model, None if update_settings else UpdateSettings())
        timer = PhaseTimer(collect_threads)
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

    from wadgym.agents.backends.rllib import train as rllib

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


def profile_update(env_id, hp, device, updates: int) -> int:
    """Where the PPO update's time goes, on the default configuration as `wadgym train` runs it."""
    import cProfile
    import pstats

    import torch
    from stable_baselines3 import PPO
    from torch.profiler import ProfilerActivity, profile

    from wadgym.agents.algos import apply_update_settings
    from wadgym.agents.config import ppo_kwargs
    from wadgym.agents.vec import make_vec_env

    if device == "cpu" and hp.get("torch_threads", "auto") != "auto":
        torch.set_num_threads(int(hp["torch_threads"]))
    venv, _ = make_vec_env(env_id, hp["env_kwargs"], hp["n_envs"], seed=0, frame_stack=hp["frame_stack"])
    try:
        model = PPO(hp["policy"], venv, device=device, seed=0, verbose=0, **ppo_kwargs(hp))
        settings = apply_update_settings(model)
        model.learn(hp["n_steps"] * hp["n_envs"])   # one rollout and one update: the buffer is full
        start = time.perf_counter()
        model.train()
        print(f"one update: {time.perf_counter() - start:.2f} s ({settings}); profiling {updates} more", flush=True)
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            for _ in range(updates):
                model.train()
        print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=15))
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(updates):
            model.train()
        profiler.disable()
        stats = pstats.Stats(profiler)
        total = max(v[3] for v in stats.stats.values())
        phases = {"backward": "backward", "forward (evaluate_actions)": "evaluate_actions",
                  "optimizer step": "step", "minibatch sampling (rollout buffer get)": "get",
                  "clip_grad_norm_": "clip_grad_norm_"}
        for name, function in phases.items():
            seconds = max((v[3] for k, v in stats.stats.items() if k[2] == function), default=0.0)
            print(f"{name:<42} {seconds:6.2f} s  {100 * seconds / total:4.0f}% of the update")
    finally:
        venv.close()
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
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the three configurations")
    parser.add_argument("--device", default="auto", help="auto (CUDA when available), cpu or cuda")
    parser.add_argument("--gpu-n-envs", type=int, nargs="+", default=[8, 16, 32], help="n_envs measured on CUDA")
    parser.add_argument("--backend", choices=("sb3", "rllib"), default="sb3",
                        help="rllib: wadgym's default configuration trained by SB3 against the same by RLlib")
    parser.add_argument("--profile-updates", type=int, metavar="N",
                        help="profile N updates of the default configuration instead of comparing speeds")
    args = parser.parse_args()

    device = select_device(args.device)
    hp = resolve(args.env)
    threads = None if hp.get("torch_threads", "auto") == "auto" or device != "cpu" else int(hp["torch_threads"])
    if args.backend == "rllib":
        return compare_rllib(args.env, hp, args.steps, device)
    if args.profile_updates:
        return profile_update(args.env, hp, device, args.profile_updates)
    probe = make_env(args.env, hp["env_kwargs"])
    height, width, channels = probe.observation_space.shape
    probe.close()
    print(f"{args.env} on {device}, torch {torch.__version__}, {torch.get_num_threads()} torch threads available; "
          f"wadgym default: {width}x{height}x{channels}, {hp['n_envs']} envs, {args.steps} steps a run")
    baseline = measure(args.env, {"resolution": (120, 160)}, 1, 0, "CnnPolicy", {}, args.baseline_steps, device,
                       collect_threads=None)
    print(describe("SB3 default (NatureCNN, 160x120x1, 1 env)", baseline), flush=True)

    def ours(vec_env: str, n_envs: int = hp["n_envs"], collect_threads: int | None = 1, update: bool = True) -> dict:
        return measure(args.env, hp["env_kwargs"], n_envs, hp["frame_stack"], hp["policy"], ppo_kwargs(hp),
                       args.steps, device, threads, vec_env, collect_threads, update)

    configurations = {  # name -> (vec env, torch threads while collecting, the update's device settings)
        "wadgym default (vector env)": ("thread", 1, True),
        "the same with SubprocVecEnv": ("subproc", 1, True),
        "the default before issue 10 (SubprocVecEnv, torch threads left alone)": ("subproc", None, False),
        "the default at issue 21's start (0dbc435: no update settings)": ("thread", 1, False)}
    runs: dict[str, list[dict]] = {name: [] for name in configurations}
    names = list(configurations)
    for r in range(args.rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            vec_env, collect_threads, update = configurations[name]
            runs[name].append(ours(vec_env, collect_threads=collect_threads, update=update))
            print(describe(f"{name} (round {r + 1})", runs[name][-1]), flush=True)
    default, subproc, before, issue21 = (statistics.median(r["sps"] for r in runs[name]) for name in names)

    def ratio(a: str, b: str) -> float:
        return statistics.median(x["sps"] / y["sps"] for x, y in zip(runs[a], runs[b]))

    print(f"wadgym default: {default:.1f} steps/s; with SubprocVecEnv {subproc:.1f}; before issue 10 {before:.1f} "
          f"(medians)")
    print(f"speed ratio vector env/SubprocVecEnv (same settings): {ratio(names[0], names[1]):.2f}x")
    now_before = ratio(names[0], names[2])
    print(f"speed ratio wadgym default/before issue 10: {now_before:.2f}x (target 1.3x): "
          f"{'PASS' if now_before >= 1.3 else 'FAIL'}")
    share = {name: statistics.median(r["update_share"] for r in runs[name]) for name in (names[0], names[3])}
    now_issue21 = ratio(names[0], names[3])
    print(f"wadgym default: {default:.1f} steps/s, {100 * share[names[0]]:.0f}% in update; at issue 21's start "
          f"{issue21:.1f} steps/s, {100 * share[names[3]]:.0f}% in update (medians)")
    print(f"speed ratio wadgym default/issue 21's start: {now_issue21:.2f}x (target 1.5x): "
          f"{'PASS' if now_issue21 >= 1.5 else 'FAIL'}")
    over_baseline = default / baseline["sps"]
    verdict = "PASS" if over_baseline >= 4 else "FAIL"
    print(f"speed ratio wadgym/SB3-default: {over_baseline:.2f}x (target 4x): {verdict}")
    passed = now_before >= 1.3 and over_baseline >= 4 and now_issue21 >= 1.5
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
