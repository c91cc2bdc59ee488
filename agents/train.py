"""Train PPO (Stable-Baselines3) on a wadgym env into a run folder, then evaluate it.

    wadgym train [--env DoomItems-v0] [--timesteps N] [--n-envs K] [--seed S] [--device auto|cpu|cuda]
                 [--hyperparams FILE] [--hp KEY=VALUE ...] [--env-kwargs KEY=VALUE ...]
                 [--run-dir DIR] [--resume RUN]

With no arguments it trains DoomItems-v0 on its default hyperparameters (agents/hyperparams/ppo.yml)
and compares the trained agent with a random one. Ctrl-C saves a checkpoint; --resume continues it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from wadgym.agents.config import DEFAULT_ENV

    parser.add_argument("--env", default=DEFAULT_ENV, help=f"env id (default {DEFAULT_ENV})")
    parser.add_argument("--timesteps", type=float, help="total env steps (default: n_timesteps from the YAML)")
    parser.add_argument("--n-envs", type=int, help="parallel envs (default: n_envs from the YAML)")
    parser.add_argument("--seed", type=int, default=0, help="seed for envs, network and sampling (default 0)")
    parser.add_argument("--device", default="auto", help="auto (CUDA when available), cpu, cuda or cuda:N")
    parser.add_argument("--hyperparams", metavar="FILE", help="YAML file of hyperparameters per env id")
    parser.add_argument("--hp", nargs="+", action="extend", metavar="KEY=VALUE", default=[],
                        help="override hyperparameters (YAML values), e.g. --hp n_epochs=4 learning_rate=lin_1e-4")
    parser.add_argument("--env-kwargs", nargs="+", action="extend", metavar="KEY=VALUE", default=[],
                        help="gym.make keyword arguments, e.g. --env-kwargs frame_skip=4")
    parser.add_argument("--run-dir", metavar="DIR", help="run folder (default runs/<env>_<timestamp>)")
    parser.add_argument("--resume", metavar="RUN", help="continue RUN from its last checkpoint, same configuration")
    parser.add_argument("--save-freq", type=int, default=25_000, help="checkpoint every N env steps (default 25000)")
    parser.add_argument("--eval-episodes", type=int, default=20, help="final evaluation episodes; 0 skips (default 20)")
    parser.add_argument("--eval-seed", type=int, default=0, help="final evaluation uses seeds EVAL_SEED.. (default 0)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from wadgym.agents import runfolder

    try:
        if args.resume:
            run_dir = runfolder.require_run(args.resume)
            config = runfolder.load_config(run_dir)
        else:
            config = resolve_config(args)
            run_dir = Path(args.run_dir) if args.run_dir else runfolder.new_run_dir(config["env"])
            prepare_run_dir(run_dir, config)
    except ValueError as exc:
        print(f"wadgym train: {exc}", file=sys.stderr)
        return 2
    from wadgym.agents.system import select_device

    hp = config["hyperparams"]
    try:
        print(f"{'resuming' if args.resume else 'training'} PPO on {config['env']}: {hp['n_timesteps']} steps, "
              f"{hp['n_envs']} envs, device {select_device(config['device'])}, seed {config['seed']}; "
              f"run folder {run_dir}")
        result = train(run_dir, config, save_freq=args.save_freq, progress_bar=not args.no_progress,
                       resume=bool(args.resume))
    except ValueError as exc:
        print(f"wadgym train: {exc}", file=sys.stderr)
        return 2
    if result["interrupted"]:
        print(f"stopped at {result['timesteps']} steps; checkpoint in {run_dir}/checkpoints; "
              f"continue with: wadgym train --resume {run_dir}")
        return 130
    print(f"trained {result['timesteps']} steps in {result['wall_time_s']:.0f} s on {result['device']} "
          f"({result['steps_per_second']:.0f} steps/s); run folder: {run_dir}")
    if args.eval_episodes > 0:
        metrics = evaluate_run(run_dir, args.eval_episodes, args.eval_seed)
        from wadgym.agents.evaluate import format_comparison

        print(format_comparison(metrics["eval"]))
    print(f"learning curve: {run_dir / 'learning_curve.png'}; TensorBoard: tensorboard --logdir {run_dir / 'tb'}")
    return 0


def resolve_config(args: argparse.Namespace) -> dict[str, Any]:
    """The whole configuration of a new run, as plain data (what config.yml stores)."""
    from wadgym.agents.config import parse_assignments, resolve
    from wadgym.agents.system import select_device
    from wadgym.agents.vec import make_env

    overrides = parse_assignments(args.hp, "--hp")
    if args.timesteps is not None:
        overrides["n_timesteps"] = int(args.timesteps)
    if args.n_envs is not None:
        overrides["n_envs"] = args.n_envs
    hyperparams = resolve(args.env, args.hyperparams, overrides, parse_assignments(args.env_kwargs, "--env-kwargs"))
    select_device(args.device)  # fail now, not after the envs started
    make_env(args.env, hyperparams["env_kwargs"]).close()  # bad env kwargs: a ValueError here, not in a worker
    return {
        "env": args.env,
        "algo": "ppo",
        "seed": args.seed,
        "device": args.device,
        "hyperparams_file": str(args.hyperparams) if args.hyperparams else "wadgym/agents/hyperparams/ppo.yml",
        "hyperparams": hyperparams,
    }


def prepare_run_dir(run_dir: Path, config: dict[str, Any]) -> None:
    from wadgym.agents import runfolder

    if (run_dir / "config.yml").exists():
        raise ValueError(f"{run_dir} already holds a run; use --resume {run_dir} or another --run-dir")
    run_dir.mkdir(parents=True, exist_ok=True)
    runfolder.write_yaml(run_dir / "config.yml", config)


def train(run_dir: Path, config: dict[str, Any], save_freq: int = 25_000, progress_bar: bool = True,
          resume: bool = False) -> dict[str, Any]:
    """Train (or resume) the run in `run_dir`; writes model, meta, episodes and learning curve."""
    import torch

    from wadgym.agents import runfolder
    from wadgym.agents.callbacks import RunCallback
    from wadgym.agents.plots import plot_learning_curve
    from wadgym.agents.system import select_device

    hp = config["hyperparams"]
    device = select_device(config["device"])
    saved = _resume_point(run_dir) if resume else None
    if resume and saved is None:
        raise ValueError(f"{run_dir} has no checkpoint to resume from")
    if device == "cpu" and hp.get("torch_threads", "auto") != "auto":
        torch.set_num_threads(int(hp["torch_threads"]))
    _append_command(run_dir)
    meta = _start_meta(run_dir, device, resume)

    model = _make_model(run_dir, config, device, saved)
    callback = RunCallback(run_dir, save_freq, episodes=runfolder.read_episodes(run_dir) if resume else [])
    remaining = hp["n_timesteps"] - model.num_timesteps
    start_steps, start = model.num_timesteps, time.perf_counter()
    callback.install_signal_handlers()
    try:
        if remaining > 0:
            model.learn(remaining, callback=callback, progress_bar=progress_bar, tb_log_name="PPO",
                        reset_num_timesteps=saved is None)
    except KeyboardInterrupt:  # a second Ctrl-C: stop at once, still save
        callback.stop_signal = callback.stop_signal or 2
    finally:
        callback.restore_signal_handlers()
        wall = time.perf_counter() - start
        interrupted = callback.stop_signal is not None
        _save_results(run_dir, model, callback, final=not interrupted)

    _finish_meta(run_dir, meta, device, start_steps, model.num_timesteps, wall, interrupted)
    plot_learning_curve(callback.episodes, run_dir / "learning_curve.png", title=f"{config['env']} PPO ({run_dir.name})")
    return {"interrupted": interrupted, "timesteps": model.num_timesteps, "wall_time_s": wall,
            "device": device, "steps_per_second": meta["steps_per_second"] or 0.0}


def _make_model(run_dir: Path, config: dict[str, Any], device: str, saved: Path | None):
    """A new PPO on fresh vectorised envs, or the saved one (with its VecNormalize statistics) to resume."""
    from stable_baselines3 import PPO

    from wadgym.agents import runfolder
    from wadgym.agents.config import normalize_kwargs, ppo_kwargs
    from wadgym.agents.vec import make_vec_env

    hp = config["hyperparams"]
    venv = make_vec_env(config["env"], hp["env_kwargs"], hp["n_envs"], config["seed"], hp["frame_stack"],
                        normalize_kwargs(hp))
    if saved is not None:
        venv = _restore_vecnormalize(venv, runfolder.vecnormalize_path(saved))
        return PPO.load(saved, env=venv, device=device, tensorboard_log=str(run_dir / "tb"))
    return PPO(hp["policy"], venv, device=device, seed=config["seed"], tensorboard_log=str(run_dir / "tb"),
               verbose=0, **ppo_kwargs(hp))


def _save_results(run_dir: Path, model, callback, final: bool) -> None:
    """A checkpoint always; the final model (and VecNormalize statistics) when training finished."""
    from wadgym.agents.callbacks import save_model, save_vecnormalize

    callback.save_checkpoint()
    if final:
        save_model(model, run_dir / "model.zip")
        if model.get_vec_normalize_env() is not None:
            save_vecnormalize(model.get_vec_normalize_env(), run_dir / "vecnormalize.pkl")
    _close_quietly(model.get_env())


def _start_meta(run_dir: Path, device: str, resume: bool) -> dict[str, Any]:
    from wadgym.agents import runfolder
    from wadgym.agents.system import device_description, git_info, package_versions

    meta = runfolder.read_json(run_dir / "meta.json") if resume and (run_dir / "meta.json").is_file() else {}
    meta.update(versions=package_versions(), git=git_info(), device=device_description(device))
    meta.setdefault("started", time.strftime("%Y-%m-%dT%H:%M:%S"))
    meta.setdefault("sessions", [])
    runfolder.write_json(run_dir / "meta.json", meta)
    return meta


def _finish_meta(run_dir: Path, meta: dict[str, Any], device: str, from_steps: int, to_steps: int, wall: float,
                 interrupted: bool) -> None:
    from wadgym.agents import runfolder
    from wadgym.agents.system import command_line

    meta["sessions"].append({"command": command_line(), "device": device, "from_steps": from_steps,
                             "to_steps": to_steps, "wall_time_s": round(wall, 2), "interrupted": interrupted})
    meta.update(timesteps=to_steps, finished=not interrupted,
                wall_time_s=round(sum(s["wall_time_s"] for s in meta["sessions"]), 2),
                ended=time.strftime("%Y-%m-%dT%H:%M:%S"),
                steps_per_second=round((to_steps - from_steps) / wall, 1) if wall > 0 else None)
    runfolder.write_json(run_dir / "meta.json", meta)


def evaluate_run(run_dir: Path, episodes: int, seed: int) -> dict[str, Any]:
    """Trained vs random on fixed seeds; the result goes into metrics.json."""
    from wadgym.agents import runfolder
    from wadgym.agents.evaluate import compare_with_random
    from wadgym.agents.plots import plot_learning_curve
    from wadgym.agents.policy import SavedPolicy

    meta = runfolder.read_json(run_dir / "meta.json")
    comparison = compare_with_random(SavedPolicy(run_dir), episodes, seed)
    metrics = {
        "env": comparison["env"],
        "timesteps": meta.get("timesteps"),
        "wall_time_s": meta.get("wall_time_s"),
        "steps_per_second": meta.get("steps_per_second"),
        "device": meta.get("device"),
        "eval": comparison,
    }
    runfolder.write_json(run_dir / "metrics.json", metrics)
    plot_learning_curve(runfolder.read_episodes(run_dir), run_dir / "learning_curve.png",
                        title=f"{comparison['env']} PPO ({run_dir.name})", random_level=comparison["random"]["items_mean"])
    return metrics


def _resume_point(run_dir: Path) -> Path | None:
    """The latest checkpoint, else the final model (checkpoints deleted by hand), else None."""
    from wadgym.agents import runfolder

    latest = runfolder.latest_checkpoint(run_dir)
    if latest is not None:
        return latest[1]
    final = run_dir / "model.zip"
    return final if final.is_file() else None


def _append_command(run_dir: Path) -> None:
    from wadgym.agents import runfolder
    from wadgym.agents.system import command_line

    path = run_dir / "command.txt"
    previous = path.read_text() if path.is_file() else ""
    runfolder.write_text_atomic(path, previous + command_line() + "\n")


def _restore_vecnormalize(venv, stats_file: Path):
    from stable_baselines3.common.vec_env import VecNormalize

    if not isinstance(venv, VecNormalize) or not stats_file.is_file():
        return venv
    restored = VecNormalize.load(str(stats_file), venv.venv)
    restored.training = True
    return restored


def _close_quietly(venv) -> None:
    try:
        venv.close()
    except (EOFError, BrokenPipeError, ConnectionResetError):
        pass
