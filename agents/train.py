"""Train PPO (Stable-Baselines3) on a wadgym env into a run folder (`wadgym train`, wired in wadgym.cli.train).

A run's configuration is resolved from the command line's options (resolve_config) before any folder or
engine exists; Ctrl-C saves a checkpoint and --resume continues it; if an env fails, training stops,
meta.json records the error and the latest checkpoint stays the point to resume from.

The envs are stepped by wadgym's vector env (one process, threads stepping the envs) unless --vec-env says
otherwise; config.yml records which, and --resume keeps it.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

import numpy as np


class TrainingFailed(Exception):
    """Training stopped on an error: meta.json records it, model.zip is not written, checkpoints are kept."""


def new_run(args: argparse.Namespace) -> tuple[Path, dict[str, Any]]:
    """A new run from `wadgym train`'s arguments: resolve the configuration (bad input fails here, before
    any folder exists), create the run folder (--run-dir, else runs/<env>_<time>) and train in it."""
    from wadgym.agents import runfolder

    config = resolve_config(args)
    run_dir = Path(args.run_dir) if args.run_dir else runfolder.new_run_dir(config["env"])
    prepare_run_dir(run_dir, config)
    return run_dir, start(run_dir, config, args, resume=False)


def start(run_dir: Path, config: dict[str, Any], args: argparse.Namespace, resume: bool) -> dict[str, Any]:
    """Print the plan, then train (see train) with the checkpoint frequency and progress bar of `args`."""
    from wadgym.agents.system import select_device

    if config.get("backend") == "rllib":
        from wadgym.agents.rllib.train import train as train_rllib

        return train_rllib(run_dir, config, args, resume)
    hp = config["hyperparams"]
    print(f"{'resuming' if resume else 'training'} {config.get('algo', 'ppo')} on {config['env']}: "
          f"{hp['n_timesteps']} steps, "
          f"{hp['n_envs']} envs, device {select_device(config['device'])}, seed {config['seed']}; "
          f"run folder {run_dir}", flush=True)
    return train(run_dir, config, save_freq=args.save_freq, progress_bar=not args.no_progress, resume=resume)


def hyperparams_of(args: argparse.Namespace) -> dict[str, Any]:
    """The hyperparameters `wadgym train`'s options give: the entry for --env in -conf/--conf-file (else
    the shipped ppo.yml), with --hp and -params/--hyperparams overrides, --timesteps and --n-envs, and
    --env-kwargs; all checked (a ValueError names what is wrong)."""
    from wadgym.agents.config import resolve
    from wadgym.envs.kwargs import parse_assignments

    overrides = {**parse_assignments(args.hp, "--hp"), **zoo_overrides(args.hyperparams)}
    if args.timesteps is not None:
        overrides["n_timesteps"] = args.timesteps  # checked with the other hyperparameters
    if args.n_envs is not None:
        overrides["n_envs"] = args.n_envs
    if getattr(args, "algo", None):
        overrides["algo"] = args.algo
    return resolve(args.env, args.conf_file, overrides, parse_assignments(args.env_kwargs, "--env-kwargs"))


def zoo_overrides(items: list[str] | None) -> dict[str, Any]:
    """rl-zoo's `-params KEY:VALUE ...` (KEY=VALUE too). A file given there, as wadgym's --hyperparams FILE
    once took one, is refused with the new spelling."""
    from wadgym.envs.kwargs import parse_assignments

    for item in items or ():
        if not any(sep in item for sep in ":=") and (Path(item).suffix in (".yml", ".yaml") or Path(item).is_file()):
            raise ValueError(f"--hyperparams {item}: -params/--hyperparams now takes rl-zoo's KEY:VALUE overrides "
                             f"(e.g. -params n_epochs:4); name a hyperparameter file with -conf/--conf-file {item}")
    return parse_assignments(items, "-params", separators=":=")


def resolve_config(args: argparse.Namespace) -> dict[str, Any]:
    """The whole configuration of a new run, as plain data (what config.yml stores)."""
    from wadgym.agents.system import select_device
    from wadgym.agents.vec import make_env

    hyperparams = hyperparams_of(args)
    select_device(args.device)  # fail now, not after the envs started
    rllib = None
    algo = hyperparams.get("algo", "ppo")
    if getattr(args, "backend", "sb3") == "rllib":
        if algo != "ppo":
            raise ValueError(f"algo={algo} trains with the sb3 backend only; RLlib trains PPO (--algo ppo)")
        if hyperparams.get("curriculum"):
            raise ValueError("a curriculum trains with the sb3 backend only (--backend sb3)")
        from wadgym.agents.rllib.train import settings

        rllib = settings(args, hyperparams)  # sets n_envs to env runners x envs per runner
    make_env(args.env, hyperparams["env_kwargs"]).close()  # bad env kwargs: a ValueError here, not in a worker
    if hyperparams.get("curriculum"):
        from wadgym.agents.curriculum import check_stage_envs

        check_stage_envs(args.env, hyperparams)
    return {
        "env": args.env,
        "algo": algo,
        "seed": args.seed,
        "device": args.device,
        "hyperparams_file": hyperparams_file(args),
        "hyperparams": hyperparams,
        **({"backend": "rllib", "rllib": rllib} if rllib is not None else {}),
        "vec_env": args.vec_env or "thread",
    }


def hyperparams_file(args: argparse.Namespace) -> str:
    return str(args.conf_file) if args.conf_file else "wadgym/agents/hyperparams/ppo.yml"


def prepare_run_dir(run_dir: Path, config: dict[str, Any]) -> None:
    from wadgym.agents import runfolder

    if run_dir.exists() and not run_dir.is_dir():
        raise ValueError(f"--run-dir {run_dir} is a file, not a folder")
    if (run_dir / "config.yml").exists():
        raise ValueError(f"{run_dir} already holds a run; use --resume {run_dir} or another --run-dir")
    run_dir.mkdir(parents=True, exist_ok=True)
    runfolder.write_yaml(run_dir / "config.yml", config)


def train(run_dir: Path, config: dict[str, Any], save_freq: int = 25_000, progress_bar: bool = True,
          resume: bool = False) -> dict[str, Any]:
    """Train (or resume) the run in `run_dir`; writes model, meta, the session's Monitor file (every
    episode) and learning curve.
    An error while training raises TrainingFailed once the envs are closed and meta.json says why."""
    import torch

    from wadgym.agents import runfolder
    from wadgym.agents.callbacks import RunCallback
    from wadgym.agents.plots import plot_learning_curve
    from wadgym.agents.system import select_device
    from wadgym.agents.vec import close_vec_env
    from wadgym.envs.registration import score_name

    hp = config["hyperparams"]
    device = select_device(config["device"])
    saved = _resume_point(run_dir) if resume else None
    if resume and saved is None:
        raise ValueError(f"{run_dir} has no checkpoint to resume from")
    if device == "cpu" and hp.get("torch_threads", "auto") != "auto":
        torch.set_num_threads(int(hp["torch_threads"]))
    _append_command(run_dir)
    meta, session = _start_meta(run_dir, device, resume)

    with tempfile.TemporaryDirectory(prefix="wadgym-workers-") as failure_dir:
        model = _make_model(run_dir, config, device, saved, failure_dir)
        try:
            callback = RunCallback(run_dir, save_freq)
            extra = _curriculum_callback(run_dir, config, failure_dir, _saved_steps(run_dir, saved, hp))
            start_steps, start_time = model.num_timesteps, time.perf_counter()
            failure = _learn(model, callback, hp["n_timesteps"] - model.num_timesteps, progress_bar, failure_dir,
                             extra)
            wall = time.perf_counter() - start_time
            if failure is None:
                status = "interrupted" if callback.stop_signal is not None else "finished"
                _save_results(run_dir, model, callback, final=status == "finished")
        finally:  # whatever happened, no worker or engine outlives this (workers ignore SIGTERM: close them)
            close_vec_env(model.get_env())
    if failure is not None:  # the latest checkpoint stays the resume point: the model may be what failed
        _finish_meta(run_dir, meta, session, start_steps, model.num_timesteps, wall, "failed", failure)
        raise TrainingFailed(_failure_message(run_dir, model.num_timesteps, failure["error"]))
    _finish_meta(run_dir, meta, session, start_steps, model.num_timesteps, wall, status)
    plot_learning_curve(runfolder.read_episodes(run_dir), run_dir / "learning_curve.png",
                        title=f"{config['env']} PPO ({run_dir.name})", score_name=score_name(config["env"]))
    return {"interrupted": status == "interrupted", "timesteps": model.num_timesteps, "wall_time_s": wall,
            "device": device, "steps_per_second": meta["steps_per_second"] or 0.0}


def _learn(model, callback, steps: int, progress_bar: bool, failure_dir: str, extra=None) -> dict[str, str] | None:
    """PPO.learn for `steps` more steps (with the `extra` callback too, when given); None when it ends (done,
    or stopped by a signal), else the failure: {"error": its last line, "traceback": the env worker's when a
    worker failed, else ours}."""
    from stable_baselines3.common.callbacks import CallbackList

    from wadgym.agents.vec import worker_deaths, worker_failures

    callback.install_signal_handlers()
    try:
        if steps > 0:
            callbacks = callback if extra is None else CallbackList([callback, extra])
            model.learn(steps, callback=callbacks, progress_bar=progress_bar, tb_log_name="PPO",
                        reset_num_timesteps=False)
        else:  # a resumed run that had already reached its steps: nothing to learn, still save
            callback.init_callback(model)
    except KeyboardInterrupt:  # a second Ctrl-C: stop at once, still save
        callback.stop_signal = callback.stop_signal or 2
    except Exception:  # a worker's failure reaches us as a closed pipe (EOFError): its report says what
        reports = worker_failures(failure_dir)
        text = (reports[0] if reports else traceback.format_exc()).strip()
        if not reports:  # a worker killed outright (the OOM killer's SIGKILL) wrote nothing: say how it ended
            text = "\n".join([text, *worker_deaths(model.get_env())])
        return {"error": text.splitlines()[-1], "traceback": text}
    finally:
        callback.restore_process_state()
    return None


def _failure_message(run_dir: Path, steps: int, error: str) -> str:
    from wadgym.agents import runfolder

    latest = runfolder.latest_checkpoint(run_dir)
    kept = (f"the latest checkpoint ({latest[1]}, {latest[0]} steps) is kept; continue from it with: "
            f"wadgym train --resume {run_dir}" if latest else "no checkpoint had been saved")
    return (f"training failed at step {steps}: {error}\n"
            f"  model.zip was not written; {kept}; meta.json holds the error and its traceback")


def _make_model(run_dir: Path, config: dict[str, Any], device: str, saved: Path | None, failure_dir: str):
    """A new model (PPO, or the run's --algo) on fresh vectorised envs, or the saved one (with its VecNormalize
    statistics) to resume; either starts from the envs' first (seeded) reset. With a curriculum, the envs
    are those of the stage the model's steps are in (agents.curriculum)."""
    from wadgym.agents import runfolder
    from wadgym.agents.algos import algo_class, algo_of, apply_update_settings, policy_name
    from wadgym.agents.config import normalize_kwargs, ppo_kwargs
    from wadgym.agents.curriculum import env_kwargs_at
    from wadgym.agents.vec import make_vec_env

    hp = config["hyperparams"]
    algo = algo_class(algo_of(config))
    env_kwargs = env_kwargs_at(hp, _saved_steps(run_dir, saved, hp))
    venv, observations = make_vec_env(
        config["env"], env_kwargs, hp["n_envs"], config["seed"], hp["frame_stack"], normalize_kwargs(hp),
        normalize_stats=runfolder.vecnormalize_path(saved) if saved is not None else None, failure_dir=failure_dir,
        vec_env=config.get("vec_env", "subproc"),  # runs from before --vec-env used SubprocVecEnv
        monitor=runfolder.monitor_file(run_dir))
    if saved is not None:
        # the schedules from the run's configuration: a checkpoint's pickled ones may name classes of an older wadgym
        schedules = {key: value for key, value in ppo_kwargs(hp).items() if key in ("learning_rate", "clip_range")}
        model = algo.load(saved, env=venv, device=device, tensorboard_log=str(run_dir / "tb"), custom_objects=schedules)
    else:
        model = algo(policy_name(algo_of(config), hp["policy"]), venv, device=device, seed=config["seed"],
                     tensorboard_log=str(run_dir / "tb"),
                    verbose=0, **ppo_kwargs(hp))
    apply_update_settings(model)  # CPU-only layout and optimizer choices; other devices keep the defaults
    # What PPO.learn does when it has no observations (or is told to reset): a second reset would count
    # the first frames twice in VecNormalize, and a loaded model's saved observations are stale.
    model._last_obs = observations
    model._last_episode_starts = np.ones(venv.num_envs, dtype=bool)
    if model.get_vec_normalize_env() is not None:
        model._last_original_obs = model.get_vec_normalize_env().get_original_obs()
    return model


def _saved_steps(run_dir: Path, saved: Path | None, hp: dict[str, Any]) -> int:
    """The steps of the model a run starts from (0 when new; a final model without checkpoints: all of them):
    which curriculum stage _make_model builds the envs of."""
    from wadgym.agents import runfolder

    if saved is None:
        return 0
    latest = runfolder.latest_checkpoint(run_dir)
    return latest[0] if latest and latest[1] == saved else int(hp["n_timesteps"])


def _curriculum_callback(run_dir: Path, config: dict[str, Any], failure_dir: str, built_at: int):
    """The CurriculumCallback of a run whose hyperparameters hold a curriculum (else None): it builds each
    stage's envs as _make_model builds the first (same seeding, wrappers and vector env; a new Monitor file);
    the envs _make_model built are those of step `built_at`'s stage."""
    hp = config["hyperparams"]
    if not hp.get("curriculum"):
        return None
    from wadgym.agents import runfolder
    from wadgym.agents.config import normalize_kwargs
    from wadgym.agents.curriculum import CurriculumCallback, stage_at
    from wadgym.agents.vec import make_vec_env

    def make_envs(env_kwargs: dict[str, Any], stage: int):
        return make_vec_env(config["env"], env_kwargs, hp["n_envs"], config["seed"] + 1000 * stage,
                            hp["frame_stack"], normalize_kwargs(hp), failure_dir=failure_dir,
                            vec_env=config.get("vec_env", "subproc"), monitor=runfolder.monitor_file(run_dir))

    return CurriculumCallback(hp, make_envs, stage_at(hp, built_at))


def _save_results(run_dir: Path, model, callback, final: bool) -> None:
    """A checkpoint always; the final model (and VecNormalize statistics) when training finished."""
    from wadgym.agents.callbacks import save_model, save_vecnormalize

    callback.save_checkpoint()
    if final:
        save_model(model, run_dir / "model.zip")
        if model.get_vec_normalize_env() is not None:
            save_vecnormalize(model.get_vec_normalize_env(), run_dir / "vecnormalize.pkl")


def _start_meta(run_dir: Path, device: str, resume: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """meta.json at the start of a session, and the session's own record (code, versions, device):
    the run's top-level versions, git and device stay those of its first session."""
    from wadgym.agents import runfolder
    from wadgym.agents.system import device_description, git_info, system_info

    meta = runfolder.read_json(run_dir / "meta.json") if resume and (run_dir / "meta.json").is_file() else {}
    session = {"started": time.strftime("%Y-%m-%dT%H:%M:%S"), "versions": system_info(), "git": git_info(),
               "device": device_description(device)}
    for key in ("versions", "git", "device", "started"):
        meta.setdefault(key, session[key])
    meta.setdefault("sessions", [])
    runfolder.write_json(run_dir / "meta.json", meta)
    return meta, session


def _finish_meta(run_dir: Path, meta: dict[str, Any], session: dict[str, Any], from_steps: int, to_steps: int,
                 wall: float, status: str, failure: dict[str, str] | None = None) -> None:
    """Append the session; status is "finished", "interrupted" or "failed" (then with the error)."""
    from wadgym.agents import runfolder
    from wadgym.agents.system import command_line

    session.update(command=command_line(), from_steps=from_steps, to_steps=to_steps, wall_time_s=round(wall, 2),
                   status=status, **({"error": failure["error"]} if failure else {}))
    meta["sessions"].append(session)
    for key in ("error", "traceback"):  # a failure of an earlier session was resumed from
        meta.pop(key, None)
    meta.update(timesteps=to_steps, status=status, finished=status == "finished", **(failure or {}),
                wall_time_s=round(sum(s["wall_time_s"] for s in meta["sessions"]), 2),
                ended=time.strftime("%Y-%m-%dT%H:%M:%S"),
                steps_per_second=round((to_steps - from_steps) / wall, 1) if wall > 0 else None)
    runfolder.write_json(run_dir / "meta.json", meta)


def evaluate_run(run_dir: Path, episodes: int, seed: int) -> dict[str, Any]:
    """Trained vs random on fixed seeds; the result goes into metrics.json."""
    from wadgym.agents import runfolder
    from wadgym.agents.evaluate import compare_with_random, default_split
    from wadgym.agents.plots import plot_learning_curve
    from wadgym.agents.policy import SavedPolicy

    meta = runfolder.read_json(run_dir / "meta.json")
    policy = SavedPolicy(run_dir)
    comparison = compare_with_random(policy, episodes, seed, levels=default_split(policy.env_id, policy.env_kwargs))
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
                        title=f"{comparison['env']} PPO ({run_dir.name})",
                        random_level=comparison["random"]["score_mean"], score_name=comparison["score_name"])
    return metrics


def _resume_point(run_dir: Path) -> Path | None:
    """The latest checkpoint, else the final model (checkpoints deleted by hand), else None."""
    from wadgym.agents import runfolder

    latest = runfolder.latest_checkpoint(run_dir)
    if latest is not None:
        return latest[1]
    finals = [path for path in (run_dir / "model.zip", run_dir / "model") if path.exists()]  # SB3, RLlib
    return finals[0] if finals else None


def _append_command(run_dir: Path) -> None:
    from wadgym.agents import runfolder
    from wadgym.agents.system import command_line

    path = run_dir / "command.txt"
    previous = path.read_text() if path.is_file() else ""
    runfolder.write_text_atomic(path, previous + command_line() + "\n")
