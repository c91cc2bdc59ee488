"""Train PPO or RecurrentPPO (Stable-Baselines3, sb3-contrib) on a wadgym env into a run folder, then evaluate it.

    wadgym train [--env ID] [-n/--timesteps N] [--n-envs K] [--seed S] [--device auto|cpu|cuda]
                 [--algo ppo|recurrent_ppo|bc] [--pretrain DATASET [--pretrain-epochs N]] [--explore KIND[:COEF]]
                 [-conf/--conf-file FILE] [-params/--hyperparams KEY:VALUE ...] [--hp KEY=VALUE ...]
                 [--env-kwargs KEY=VALUE ...] [--vec-env thread|subproc|dummy] [--run-dir DIR] [--resume RUN]
                 [--eval-episodes N] [--eval-seed S] [--no-video]
                 [--track [--register NAME]] [--tracking-uri URI] [--init-from RUN] [--reproduce RUN]
                 [--restart-limit N[/SECONDS] | --no-restart]

With no arguments it trains the default env (wadgym.envs.registration.DEFAULT_ENV) on its default
hyperparameters (agents/hyperparams/ppo.yml), then plays the trained agent, a random one and the env's
scripted reference on the same seeded episodes of held-out test levels and of the training levels
(metrics.json) and records one episode of the trained agent (eval.mp4; --no-video skips it). The
hyperparameter options are rl-baselines3-zoo's: -conf/--conf-file names the YAML file, -params/--hyperparams
overrides entries (KEY:VALUE; --hp KEY=VALUE does the same). Ctrl-C saves a checkpoint; --resume continues it.
If an env fails, training stops (exit status 1), meta.json records the error and the latest
checkpoint stays the point to resume from. The envs are stepped by wadgym's vector env (one process,
threads stepping the envs) unless --vec-env says otherwise; config.yml records which, and --resume keeps it.
--track logs the run to MLflow as well, its policy as an MLflow Model (docs/tracking.md; pip install
'wadgym[track]'); --register NAME puts that model in MLflow's Model Registry.
An env whose engine dies is made again and training goes on, up to --restart-limit N[/SECONDS] restarts
(default 5/600; --no-restart: the run stops instead); config.yml records it, and --resume keeps it unless
given again (docs/reliability.md).
From Python, the same run: wadgym.agents.train(wadgym.agents.TrainConfig(env=..., timesteps=...)).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wadgym.agents import TrainConfig, TrainResult


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from wadgym.agents.algos import ALGOS
    from wadgym.agents.vec import VEC_ENVS
    from wadgym.envs.registration import DEFAULT_ENV

    parser.add_argument("--env", default=DEFAULT_ENV, help=f"env id (default {DEFAULT_ENV})")
    parser.add_argument("-n", "--timesteps", "--n-timesteps", dest="timesteps", type=float,
                        help="total env steps (default: n_timesteps from the YAML)")
    parser.add_argument("--n-envs", type=int, help="parallel envs (default: n_envs from the YAML)")
    parser.add_argument("--algo", choices=ALGOS,
                        help="; ".join(f"{name}: {algo.summary}" for name, algo in ALGOS.items())
                             + " (default: the entry's algo, else ppo)")
    parser.add_argument("--pretrain", metavar="DATASET",
                        help="first train the policy network on a Minari dataset's (observation, action) pairs "
                             "(`wadgym record`, same env id), then PPO continues (docs/demonstrations.md)")
    parser.add_argument("--pretrain-epochs", type=int, default=10, metavar="N",
                        help="passes over the dataset when pretraining (default 10)")
    parser.add_argument("--explore", metavar="KIND[:COEF]",
                        help="exploration bonus added to the rewards PPO learns from: counts (episodic counts of "
                             "position cells), e3b (elliptical episodic bonus), rnd (random network distillation), "
                             "joined by + with optional coefficients (default 0.01), e.g. e3b+rnd:0.1; none: no bonus "
                             "(default: the entry's explore; docs/exploration.md)")
    parser.add_argument("--seed", type=int, default=0, help="seed for envs, network and sampling (default 0)")
    parser.add_argument("--device", default="auto", help="auto (CUDA when available), cpu, cuda or cuda:N")
    parser.add_argument("-conf", "--conf-file", metavar="FILE",
                        help="YAML file of hyperparameters per env id, as rl-zoo's (default: the shipped ppo.yml)")
    parser.add_argument("-params", "--hyperparams", nargs="+", action="extend", metavar="KEY:VALUE", default=[],
                        help="override hyperparameters, as rl-zoo's -params, "
                             "e.g. -params n_epochs:4 learning_rate:lin_1e-4")
    parser.add_argument("--hp", nargs="+", action="extend", metavar="KEY=VALUE", default=[],
                        help="override hyperparameters (YAML values), e.g. --hp n_epochs=4 learning_rate=lin_1e-4")
    parser.add_argument("--env-kwargs", nargs="+", action="extend", metavar="KEY=VALUE", default=[],
                        help="gym.make keyword arguments, e.g. --env-kwargs frame_skip=4")
    parser.add_argument("--vec-env", choices=VEC_ENVS, help="how the envs are stepped: thread (default: one "
                        "process, threads stepping the envs), subproc (SB3 SubprocVecEnv) or dummy (SB3 DummyVecEnv)")
    parser.add_argument("--run-dir", metavar="DIR", help="run folder (default runs/<env>_<timestamp>)")
    parser.add_argument("--resume", metavar="RUN", help="continue RUN from its last checkpoint, same configuration")
    parser.add_argument("--save-freq", type=int, default=25_000, help="checkpoint every N env steps (default 25000)")
    parser.add_argument("--eval-episodes", type=int, default=20,
                        help="final evaluation: episodes per policy (trained, random, scripted) and level split "
                             "(test, train); 0 skips it (default 20)")
    parser.add_argument("--eval-seed", type=int, default=0, help="final evaluation uses seeds EVAL_SEED.. (default 0)")
    parser.add_argument("--no-video", action="store_true",
                        help="no video of the final evaluation (default: one episode of the trained policy "
                             "recorded to RUN/eval.mp4)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--no-restart", action="store_true", help="stop the run when an env's engine dies "
                        "(default: make the env again with a new engine and go on; see docs/reliability.md)")
    parser.add_argument("--restart-limit", metavar="N[/SECONDS]", help="engine restarts allowed within SECONDS "
                        "(default 5/600); one more stops the run with its checkpoint")
    add_tracking_arguments(parser)
    add_rllib_arguments(parser)


def add_tracking_arguments(parser: argparse.ArgumentParser) -> None:
    """`wadgym train`'s options for MLflow tracking and lineage (wadgym.agents.runs.tracking)."""
    group = parser.add_argument_group("experiment tracking (MLflow; needs pip install 'wadgym[track]')")
    group.add_argument("--track", action="store_true",
                       help="log the run to MLflow: params, code diff, metrics, model (default store: "
                            "runs/mlflow.db beside the runs)")
    group.add_argument("--tracking-uri", metavar="URI",
                       help="MLflow store: http://HOST:5000 of a team's server, or sqlite:///PATH "
                            "(default: $MLFLOW_TRACKING_URI, else runs/mlflow.db)")
    group.add_argument("--register", metavar="NAME",
                       help="with --track: put the trained policy (logged as an MLflow Model) in the MLflow Model "
                            "Registry as a new version of NAME")
    group.add_argument("--init-from", metavar="RUN",
                       help="start from the weights of RUN (a run folder or an MLflow run id) and record it "
                            "as the parent. Loading RUN unpickles its files (SB3's model.zip, vecnormalize.pkl), "
                            "which can run code: only use runs you trust")
    group.add_argument("--reproduce", metavar="RUN",
                       help="train again with the stored configuration of RUN (a run folder or an MLflow run "
                            "id) and say whether the code here differs from what it ran")


def add_rllib_arguments(parser: argparse.ArgumentParser) -> None:
    """`wadgym train`'s options for choosing and sizing the RLlib backend (wadgym.agents.backends.rllib)."""
    from wadgym.agents.backends import DEFAULT_OPTION, OPTIONS

    group = parser.add_argument_group("RLlib backend (--backend rllib; needs pip install 'wadgym[rllib]')")
    group.add_argument("--backend", choices=OPTIONS, default=DEFAULT_OPTION,
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


def train_config(args: argparse.Namespace) -> TrainConfig:
    """The TrainConfig of `wadgym train`'s arguments: the KEY=VALUE options read as YAML values (a
    ValueError names the option and what is wrong)."""
    from wadgym.agents.config import RLlibConfig, TrainConfig, restart_settings
    from wadgym.envs.kwargs import parse_assignments

    limit = restart_settings(args.no_restart, args.restart_limit)  # checks both (a ValueError names the option)
    return TrainConfig(
        env=args.env, timesteps=args.timesteps, n_envs=args.n_envs, seed=args.seed, device=args.device,
        conf_file=args.conf_file,
        hyperparams={**parse_assignments(args.hp, "--hp"), **zoo_overrides(args.hyperparams)},
        env_kwargs=parse_assignments(args.env_kwargs, "--env-kwargs"),
        vec_env=args.vec_env, run_dir=args.run_dir, resume=args.resume, save_freq=args.save_freq,
        eval_episodes=args.eval_episodes, eval_seed=args.eval_seed, eval_video=not args.no_video,
        progress=not args.no_progress,
        backend=args.backend, algo=args.algo, pretrain=args.pretrain, pretrain_epochs=args.pretrain_epochs,
        explore=args.explore,
        rllib=RLlibConfig(num_env_runners=args.num_env_runners, envs_per_runner=args.envs_per_runner,
                          num_gpus=args.num_gpus, address=args.address),
        track=args.track, tracking_uri=args.tracking_uri, init_from=args.init_from,
        restart=False if args.no_restart else None,  # None: on, or a resumed run's own setting
        restart_limit=limit["limit"] if args.restart_limit is not None else None,
        restart_window_s=limit["window_s"] if args.restart_limit is not None else None)


def zoo_overrides(items: list[str] | None) -> dict[str, Any]:
    """rl-zoo's `-params KEY:VALUE ...` (KEY=VALUE too). A file given there, as wadgym's --hyperparams FILE
    once took one, is refused with the new spelling."""
    from wadgym.envs.kwargs import parse_assignments

    for item in items or ():
        if not any(sep in item for sep in ":=") and (Path(item).suffix in (".yml", ".yaml") or Path(item).is_file()):
            raise ValueError(f"--hyperparams {item}: -params/--hyperparams now takes rl-zoo's KEY:VALUE overrides "
                             f"(e.g. -params n_epochs:4); name a hyperparameter file with -conf/--conf-file {item}")
    return parse_assignments(items, "-params", separators=":=")


def run(args: argparse.Namespace) -> int:
    from wadgym.agents import TrainingFailed, train

    try:
        check_lineage(args)
        config = train_config(args)
        if args.reproduce:
            result = reproduce(args.reproduce, config)
        else:
            result = train(config)
    except ValueError as exc:
        print(f"wadgym train: {exc}", file=sys.stderr)
        return 2
    except TrainingFailed as exc:
        print(f"wadgym train: {exc}", file=sys.stderr)
        return 1
    status = report(result)
    if getattr(args, "register", None) and status == 0:
        return register(result.run_dir, args.register)
    return status


def register(run_dir: Path, name: str) -> int:
    """`--register NAME`: the run's logged MLflow Model as a new version of NAME in the Model Registry."""
    from wadgym.agents.runs.tracking.runs import register_model
    from wadgym.agents.runs.tracking.store import TRACKING_FILE, read_tracking

    if not (run_dir / TRACKING_FILE).is_file():
        print(f"wadgym train: --register {name}: {run_dir} is not tracked", file=sys.stderr)
        return 2
    if not read_tracking(run_dir).get("synced"):
        print(f"wadgym train: --register {name}: {run_dir} is not fully uploaded to MLflow; once it is: "
              f"wadgym track-sync {run_dir} --register {name}", file=sys.stderr)
        return 2
    try:
        register_model(run_dir, name, upload=False)  # training's end uploaded it
    except ValueError as exc:
        print(f"wadgym train: {exc}", file=sys.stderr)
        return 2
    return 0


def report(result: TrainResult) -> int:
    """Print what training did; the exit status: 0 when it finished, 130 when a signal stopped it."""
    run_dir = result.run_dir
    if result.selfplay:
        print(f"trained {result.timesteps} agent steps in {result.wall_time_s:.0f} s "
              f"({result.steps_per_second:.0f} steps/s); run folder: {run_dir}", flush=True)
        if result.evaluation is not None:
            from wadgym.agents.backends.selfplay import format_evaluation

            print(format_evaluation(result.evaluation))
        return 130 if result.interrupted else 0
    if result.interrupted:
        print(f"stopped at {result.timesteps} steps; checkpoint in {run_dir}/checkpoints; "
              f"continue with: wadgym train --resume {run_dir}")
        return 130
    print(f"trained {result.timesteps} steps in {result.wall_time_s:.0f} s on {result.device} "
          f"({result.steps_per_second:.0f} steps/s); run folder: {run_dir}")
    if result.evaluation is not None:
        from wadgym.agents.evaluate import format_comparison
        from wadgym.agents.runs.lifecycle import VIDEO_FILE

        print(format_comparison(result.evaluation))
        if (run_dir / VIDEO_FILE).is_file():
            print(f"evaluation video: {run_dir / VIDEO_FILE}")
    print(f"learning curve: {run_dir / 'learning_curve.png'}; TensorBoard: tensorboard --logdir {run_dir / 'tb'}")
    return 0


def check_lineage(args: argparse.Namespace) -> None:
    """Options that --reproduce or --resume would ignore fail here (ValueError), before anything starts."""
    if args.reproduce and args.resume:
        raise ValueError("--reproduce and --resume: choose one (--resume continues a run, --reproduce trains anew)")
    if getattr(args, "register", None) and not (args.track or args.resume):
        raise ValueError(f"--register {args.register} puts the tracked run's policy in MLflow's Model Registry: "
                         "pass --track as well")
    if args.init_from and (args.resume or args.reproduce):
        raise ValueError("--init-from is for a new run: --resume and --reproduce take the weights and "
                         "configuration of their own run")
    if getattr(args, "pretrain", None) and args.reproduce:
        raise ValueError("--pretrain is for a new run: --reproduce trains with its run's own configuration "
                         "(its dataset too)")


def reproduce(source: str, config: TrainConfig) -> TrainResult:
    """`--reproduce RUN`: RUN's stored configuration (a run folder or an MLflow run id, found with
    --tracking-uri) trained anew into a new run folder, with this command's session options (run folder,
    tracking, evaluation); first, whether the code here differs from what RUN ran."""
    from wadgym.agents import train_resolved
    from wadgym.agents.runs.tracking import lineage

    settings, code = lineage.reproduce(source, config.tracking_uri)
    print(code, flush=True)
    return train_resolved(settings, config)
